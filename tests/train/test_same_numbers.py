"""The trainers' numbers are pinned: a small SB3 run and a small batched run give the committed values, row for row.

``data/same_numbers.json`` holds, per run, ``metrics.csv`` (wall time and fps aside), ``eval.csv``, the final
evaluation's rows and best step, the warm start's figures and a digest of the last checkpoint's weights. The
SB3 run's were written by the code before the trainers became ``train/<trainer>/`` folders (commit c48a1d1, with
its ``python -m train.ppo``); the batched run's were rewritten when its numerics became the same on every x86
CPU (PPO's ratio by ``expm1``, the warm start's Adam fused), the one change meant to change them. A refactor
that changes a number fails here. Floats depend on torch, NumPy and the
CPU's kernels: the runs pin the numerics (``train.runs.PINNED_ENV``) and the test is skipped, saying why, where
the versions or the CPU capability differ from the recorded ones. The SB3 run's numerics are the fast ones (MKL's
AVX2 kernels, which MKL picks by CPU vendor and model), so its numbers also hold only on the CPU model they were
recorded on (``cpu_model`` of the run); the batched run's are portable (the same on every x86-64 CPU). To record new values after a change that is
meant to change the numbers (say so in the commit):

    python tests/train/test_same_numbers.py --write            # from the repository root
"""

from __future__ import annotations

import csv
import hashlib
import io
import json
import os
import subprocess
import sys
import zipfile
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]
EXPECTED = Path(__file__).with_name("data") / "same_numbers.json"
TIMED = {"time", "fps"}
#: name -> the command line after ``python -m <module>`` (a warm start, self-play snapshots and reference levels
#: in the batched one; SB3's own and its evaluations in the other)
RUNS = {
    "sb3_picchetto": ["--config", "configs/picchetto/ppo.yaml", "--total_timesteps", "1024", "--n_envs", "2",
                      "--n_steps", "256", "--eval_every", "512", "--eval_deals", "4", "--final_deals", "4",
                      "--net_arch", "[32]", "--progress", "false"],
    "batched_pigugnin": ["--config", "configs/pigugnin/ppo_batched.yaml", "--total_timesteps", "6000", "--num_envs",
                         "32", "--num_steps", "32", "--eval_every", "3000", "--eval_deals", "4", "--final_deals", "4",
                         "--selfplay", "true", "--snapshot_every", "1500", "--max_snapshots", "2",
                         "--opponents", "[heuristic-v1, random]", "--bc_episodes", "20", "--bc_epochs", "1",
                         "--net_arch", "[32]", "--progress", "false"],
}


def _weights_digest(path: Path) -> str:
    """sha256 of the actor's tensors (names and float32 bytes, in name order), not of the file's bytes."""
    import torch

    with zipfile.ZipFile(path) as z:
        state = torch.load(io.BytesIO(z.read("policy.pt")), weights_only=True)
    h = hashlib.sha256()
    for name in sorted(state):
        h.update(name.encode())
        h.update(state[name].contiguous().numpy().tobytes())
    return h.hexdigest()


def _rows(path: Path) -> list[dict[str, str]]:
    with path.open() as f:
        return [{k: v for k, v in r.items() if k not in TIMED} for r in csv.DictReader(f)]


def numbers(run: Path) -> dict:
    """What a run's numbers are (the keys of ``data/same_numbers.json``'s runs)."""
    final = json.loads((run / "final_eval.json").read_text())
    out = {"metrics": _rows(run / "metrics.csv"), "eval": _rows(run / "eval.csv"), "final_rows": final["rows"],
           "best_step": final["best_step"], "last_weights": _weights_digest(run / "last.mazzo.zip")}
    out["_portable"] = json.dumps(final["numerics"].get("mkl_cbwr") == "COMPATIBLE")  # popped by write()
    if (run / "imitation.json").exists():
        out["imitation"] = {k: v for k, v in json.loads((run / "imitation.json").read_text()).items()
                            if k != "seconds"}
    return out


def platform() -> dict:
    """What the floats depend on, besides the code (compared before the numbers); ``cpu_model`` matters to the runs
    on the fast numerics only."""
    out = subprocess.run([sys.executable, "-c", "import json, os, numpy, torch; from train.runs import numerics; "
                          "print(json.dumps({"
                          "'torch': torch.__version__, 'numpy': numpy.__version__, "
                          "'cpu_capability': torch.backends.cpu.get_cpu_capability(), "
                          "'cpu_model': numerics(torch)['machine'].split(', ', 1)[1]}))"],
                         capture_output=True, text=True, check=True, env=_env(os.environ.get("HOME", "/tmp")))
    return json.loads(out.stdout)


def _env(home: str, root: Path = ROOT, pins: bool = True) -> dict[str, str]:
    """A clean environment; ``pins``: the fast numerics' variables (for reading the platform). The runs get none:
    each trainer pins its own (the batched one portable, SB3 fast), as a user's command does."""
    env = {"PATH": os.environ.get("PATH", "/usr/bin:/bin"), "HOME": home, "PYTHONPATH": str(root)}
    if pins:
        env.update({"OMP_NUM_THREADS": "1", "MKL_NUM_THREADS": "1", "MKL_CBWR": "AVX2,STRICT",
                    "ATEN_CPU_CAPABILITY": "avx2"})
    return env


def run(name: str, runs_dir: Path, root: Path = ROOT, module: str = "train") -> Path:
    out = subprocess.run([sys.executable, "-m", module, *RUNS[name], "--runs_dir", str(runs_dir / name)], cwd=root,
                         capture_output=True, text=True, timeout=900, env=_env(str(runs_dir), root, pins=False))
    assert out.returncode == 0, out.stderr[-3000:]
    (folder,) = (runs_dir / name).iterdir()
    return folder


@pytest.mark.slow  # two training runs in fresh processes (about a minute)
@pytest.mark.parametrize("name", sorted(RUNS))
def test_small_runs_give_the_committed_numbers(name, tmp_path):
    pytest.importorskip("torch")
    pytest.importorskip("numba")
    expected = json.loads(EXPECTED.read_text())
    here = platform()
    model = here.pop("cpu_model")
    if here != expected["platform"]:
        pytest.skip(f"the numbers were recorded with {expected['platform']}; this machine has {here}")
    want_model = expected["runs"][name].get("cpu_model")
    if want_model is not None and want_model != model:
        pytest.skip(f"{name} runs on the fast numerics (same bits on the same CPU model only): its numbers were "
                    f"recorded on {want_model!r}, this machine is {model!r}")
    folder = run(name, tmp_path)
    assert json.loads((folder / "final_eval.json").read_text())["numerics"]["pinned"], "the trainer pins its numerics"
    got = numbers(folder)
    got.pop("_portable")
    want = expected["runs"][name]
    for key in set(want) - {"cpu_model"}:  # one key at a time: the failure names what moved
        assert got[key] == want[key], f"{name}: {key} differs from the committed numbers"


def write(root: Path, module: str) -> None:
    """Record the numbers of ``RUNS`` made by the code at ``root`` (``python -m module``) in ``EXPECTED``."""
    import tempfile

    with tempfile.TemporaryDirectory() as tmp:
        runs = {name: numbers(run(name, Path(tmp), root, module)) for name in sorted(RUNS)}
    here = platform()
    model = here.pop("cpu_model")
    for numbers_of_run in runs.values():
        if not json.loads(numbers_of_run.pop("_portable")):
            numbers_of_run["cpu_model"] = model
    EXPECTED.parent.mkdir(exist_ok=True)
    commit = subprocess.run(["git", "rev-parse", "--short", "HEAD"], cwd=root, capture_output=True, text=True).stdout
    EXPECTED.write_text(json.dumps({"platform": here, "recorded_with": f"python -m {module} at {commit.strip()}",
                                    "runs": runs}, indent=1) + "\n")
    print(f"wrote {EXPECTED}")


if __name__ == "__main__":
    import argparse

    parser = argparse.ArgumentParser(description="record the pinned numbers of tests/train/test_same_numbers.py")
    parser.add_argument("--write", action="store_true", required=True)
    parser.add_argument("--root", type=Path, default=ROOT, help="the checkout whose code makes the runs")
    parser.add_argument("--module", default="train", help="the training entry point (train.ppo before train/)")
    a = parser.parse_args()
    write(a.root.resolve(), a.module)
