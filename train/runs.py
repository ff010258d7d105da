"""What every trainer's run shares: the run folder, its config.yaml, CSV rows, pinned numerics, seeding, wall
time and the end of the run (``final_eval.json``, the report).

| function | what |
|---|---|
| ``new_run_dir(parent, args)`` | a new, empty ``{game}__{exp_name}__{seed}__{YYYYmmdd-HHMMSS}`` folder (CleanRL's run name, the evaluation tool's time format) |
| ``start_run(args, run_dir)`` | writes ``config.yaml`` and prints it (the one time a run prints its config) |
| ``append_csv(path, row)`` | one row of ``metrics.csv`` / ``eval.csv`` (the header with the first row) |
| ``pin_numerics()``, ``numerics(torch)``, ``seed_everything(...)`` | what decides a run's floats: pinned before torch loads, recorded, seeded in one place |
| ``timing(...)`` | the wall time block of ``final_eval.json`` |
| ``finish_run(...)`` | ``final_eval.json`` and ``report.md`` (printed without its config) |

Nothing here imports torch at module level: ``pin_numerics`` must run before it loads.
"""

from __future__ import annotations

import csv
import json
import os
import random
import time
from pathlib import Path
from typing import Any

import numpy as np
import yaml

from envs.core.errors import ConfigError
from train.config import to_dict

__all__ = ["METRIC_KEYS", "NUMERICS", "PINNED_ENV", "pinned_env", "append_csv", "new_run_dir", "start_run", "pin_numerics", "numerics",
           "seed_everything", "timing", "finish_run", "run_time"]

METRIC_KEYS = ("loss", "policy_gradient_loss", "value_loss", "entropy_loss", "approx_kl", "clip_fraction",
               "explained_variance")


def append_csv(path: Path, row: dict[str, Any]) -> None:
    new = not path.exists()
    with path.open("a", newline="") as f:
        w = csv.DictWriter(f, fieldnames=list(row))
        if new:
            w.writeheader()
        w.writerow(row)


def run_time() -> str:
    """The time part of run folder names, ``YYYYmmdd-HHMMSS`` (local time): the trainers' and the evaluation tool's."""
    return time.strftime("%Y%m%d-%H%M%S")


def new_run_dir(parent: Path, args: Any) -> Path:
    """A new, empty ``{game}__{exp_name}__{seed}__{time}`` folder (``_2``, ``_3`` ... within one second)."""
    base = f"{args.game}__{args.exp_name}__{args.seed}__{run_time()}"
    parent.mkdir(parents=True, exist_ok=True)
    for k in range(1, 1000):
        run_dir = parent / (base if k == 1 else f"{base}_{k}")
        try:
            run_dir.mkdir()
            return run_dir
        except FileExistsError:
            continue
    raise ConfigError(f"cannot create a new run folder {base} in {parent}")


def start_run(args: Any, run_dir: Path) -> dict[str, Any]:
    """Write the resolved config to ``config.yaml`` (rerun with ``--config`` on it), print it; returns it."""
    config = to_dict(args)
    text = yaml.safe_dump(config, sort_keys=False)
    (run_dir / "config.yaml").write_text(text)
    print(f"run {run_dir.name} ({run_dir / 'config.yaml'}):\n{text.rstrip()}", flush=True)
    return config


#: Numerics pinned before torch loads (``pin_numerics``; a variable already set by the user is kept, and the run
#: records what was used): one thread (a float sum's order depends on how the work is split), ATen's AVX2 kernels,
#: and one of two MKL code paths (``MKL_CBWR``), by the trainer's ``numerics`` key:
#:
#: | mode | MKL_CBWR | reproduces bit for bit (same versions) | cost |
#: |---|---|---|---|
#: | ``portable`` | ``COMPATIBLE`` | on any x86-64 CPU | MKL's generic kernels: the batched trainer's whole run takes ~1.5x the CPU |
#: | ``fast`` | ``AVX2,STRICT`` | on the same CPU model | none |
#:
#: Why: MKL picks its matrix kernels (and its vector math: exp, log, sqrt) by CPU vendor and model even under
#: ``AVX2,STRICT``: an AMD EPYC and an (emulated) Intel Haswell give other last bits for most ``linear`` shapes,
#: the orthogonal init's QR and ``torch.exp``; under ``COMPATIBLE`` they agree. PPO's sampling turns a last bit into
#: another run within a few rollouts. (The batched trainer also avoids MKL's vector sqrt and exp, which stay
#: vendor-specific even under ``COMPATIBLE``: fused Adam, ``expm1``.)
NUMERICS = {"portable": "COMPATIBLE", "fast": "AVX2,STRICT"}


def pinned_env(mode: str = "fast") -> dict[str, str]:
    """The environment variables pinned for numerics ``mode`` (``NUMERICS``)."""
    return {"OMP_NUM_THREADS": "1", "MKL_NUM_THREADS": "1", "MKL_CBWR": NUMERICS[mode], "ATEN_CPU_CAPABILITY": "avx2"}


#: the ``fast`` pins (what the SB3 and RLlib trainers use)
PINNED_ENV = pinned_env("fast")


def pin_numerics(mode: str = "fast") -> None:
    """Set ``pinned_env(mode)`` (unless set already); effective only if torch is not loaded yet."""
    for key, value in pinned_env(mode).items():
        os.environ.setdefault(key, value)


def numerics(torch: Any) -> dict[str, Any]:
    """What decides a run's floats, as this run had it (recorded in final_eval.json and the report)."""
    import platform

    import sb3_contrib
    import stable_baselines3

    cpu = next((line.split(":", 1)[1].strip() for line in _read_text("/proc/cpuinfo").splitlines()
                if line.startswith("model name")), platform.processor())
    return {"torch": torch.__version__, "threads": torch.get_num_threads(),
            "cpu_capability": torch.backends.cpu.get_cpu_capability(),
            **{k.lower(): os.environ.get(k) for k in PINNED_ENV}, "numpy": np.__version__,
            "stable_baselines3": stable_baselines3.__version__, "sb3_contrib": sb3_contrib.__version__,
            **_numba_versions(),
            "python": platform.python_version(), "machine": f"{platform.system()} {platform.machine()}, {cpu}"}


def _numba_versions() -> dict[str, str | None]:
    """numba's and llvmlite's versions (they compile the engines and the heuristics' kernels), or None."""
    from importlib.metadata import PackageNotFoundError, version

    out: dict[str, str | None] = {}
    for name in ("numba", "llvmlite"):
        try:
            out[name] = version(name)
        except PackageNotFoundError:
            out[name] = None
    return out


def _read_text(path: str) -> str:
    try:
        return Path(path).read_text()
    except OSError:
        return ""


def seed_everything(seed: int, threads: int, preloaded: bool, who: str, mode: str = "fast") -> dict[str, Any]:
    """The only place global generators are seeded (Python, NumPy, torch: the networks' initial weights); one
    thread count, deterministic algorithms. Returns the run's numerics (``numerics``; ``mode``: ``portable`` or
    ``fast``; ``pinned``: whether ``pinned_env(mode)`` was in force before torch loaded; ``preloaded``: torch was
    loaded before ``who`` started)."""
    import torch

    random.seed(seed)
    np.random.seed(seed)
    torch.manual_seed(seed)
    torch.set_num_threads(threads)
    torch.use_deterministic_algorithms(True, warn_only=True)  # free on CPU: warns if an op has no such mode
    pins = pinned_env(mode)
    info = {**numerics(torch), "mode": mode,
            "pinned": not preloaded and all(os.environ.get(k) == v for k, v in pins.items())}
    if not info["pinned"]:
        print(f"note: numerics not pinned (torch loaded before {who}, or {', '.join(pins)} set otherwise): "
              "this run reproduces on this machine, not necessarily bit for bit on another CPU", flush=True)
    return info


def timing(wall: float, segment: float, segments: int, from_step: int, to_step: int, resumed_from: Any = None,
           train_time: float | None = None, eval_time: float | None = None) -> dict[str, Any]:
    """The ``timing`` block of ``final_eval.json``: wall time of training and periodic evaluations (``wall``: over
    every segment of a resumed run; ``segment``: this one's), and where the time went when it is known."""
    out: dict[str, Any] = {"wall_time": round(wall, 1), "segment_time": round(segment, 1), "segments": segments,
                           "from_step": from_step, "to_step": to_step,
                           "resumed_from": str(Path(resumed_from).resolve()) if resumed_from else None}
    if train_time is not None:
        out.update({"train_time": round(train_time, 1), "eval_time": round(eval_time or 0.0, 1),
                    "learner_steps_per_s": round(to_step / train_time, 1) if train_time else None})
    return out


def finish_run(args: Any, run_dir: Path, final: dict[str, Any], command: str) -> Path:
    """``final_eval.json`` and the report (``train/report.py``), printed without its config section (printed at the
    start); returns the run directory."""
    from train.report import CONFIG_HEADING, write_report

    (run_dir / "final_eval.json").write_text(json.dumps(final, indent=1))
    report = write_report(run_dir, to_dict(args), final, command=command).read_text()
    print(report.partition(CONFIG_HEADING)[0].rstrip(), flush=True)
    print(f"\nrun directory: {run_dir}", flush=True)
    return run_dir
