"""What the two PPO trainers share (``train/ppo.py``, Stable-Baselines3, and ``train/ppo_batched.py``):
run folders, pinned numerics, CSV rows and the evaluation rows, with their seeds.

Nothing here imports torch: ``pin_numerics`` must run before it loads.
"""

from __future__ import annotations

import csv
import os
import shutil
import time
from pathlib import Path
from typing import Any

import numpy as np

from envs.core.errors import ConfigError

EVAL_SEED, FINAL_SEED = 1_000_003, 2_000_003  # offsets: periodic and final deals never coincide
METRIC_KEYS = ("loss", "policy_gradient_loss", "value_loss", "entropy_loss", "approx_kl", "clip_fraction",
               "explained_variance")


def append_csv(path: Path, row: dict[str, Any]) -> None:
    new = not path.exists()
    with path.open("a", newline="") as f:
        w = csv.DictWriter(f, fieldnames=list(row))
        if new:
            w.writeheader()
        w.writerow(row)


def head_to_head_row(game: str, candidate: Any, opponent: str, deals: int, seed: int, flags: dict, workers: int) -> dict:
    """One evaluation through the evaluation tool: the candidate at every seat in turn, ``opponent`` elsewhere."""
    from train.evaluate import head_to_head

    r = head_to_head(game, candidate, opponent, num_deals=deals, seed=seed, flags=flags, workers=workers)
    return {"opponent": opponent, **{k: r[k] for k in ("mean", "low", "high", "ci95", "n_deals")},
            "mean_per_hand": r.get("mean_per_hand")}


def new_run_dir(parent: Path, args: Any) -> Path:
    """A new, empty ``{game}__{exp_name}__{seed}__{unix time}`` folder (``_2``, ``_3`` ... within one second)."""
    base = f"{args.game}__{args.exp_name}__{args.seed}__{int(time.time())}"
    parent.mkdir(parents=True, exist_ok=True)
    for k in range(1, 1000):
        run_dir = parent / (base if k == 1 else f"{base}_{k}")
        try:
            run_dir.mkdir()
            return run_dir
        except FileExistsError:
            continue
    raise ConfigError(f"cannot create a new run folder {base} in {parent}")


#: Numerics pinned for runs that reproduce bit for bit (README, "Reproducibility"). Set before torch
#: loads (``pin_numerics``); a variable already set by the user is kept, and the run records what was used.
#: One thread (a float sum's order depends on how the work is split), and the AVX2 code paths of MKL
#: (its strict conditional numerical reproducibility mode: also independent of memory alignment) and of
#: ATen's vectorised kernels: without them each library picks kernels for the CPU it runs on (AVX-512,
#: AMX ...), whose float results differ in the last bits; PPO's action sampling turns that into a
#: different run once a sampled action flips (in the default Briscola run: in its last rollouts).
PINNED_ENV = {"OMP_NUM_THREADS": "1", "MKL_NUM_THREADS": "1", "MKL_CBWR": "AVX2,STRICT", "ATEN_CPU_CAPABILITY": "avx2"}


def pin_numerics() -> None:
    """Set ``PINNED_ENV`` (unless set already); effective only if torch is not loaded yet."""
    for key, value in PINNED_ENV.items():
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
            "python": platform.python_version(), "machine": f"{platform.system()} {platform.machine()}, {cpu}"}


def _read_text(path: str) -> str:
    try:
        return Path(path).read_text()
    except OSError:
        return ""


def carry_history(origin: Path, run_dir: Path, step: int, exact: bool) -> None:
    """Start a resumed run's folder with the curves of the run it continues, up to its checkpoint's ``step``.

    ``exact`` (the saved training state is restored): the rows at ``step`` and the best checkpoint so far
    come along too, as the resumed run would have them; otherwise the resumed run evaluates and logs at
    ``step`` itself and picks its own best."""
    for name in ("metrics.csv", "eval.csv"):
        if (origin / name).exists():
            with (origin / name).open(newline="") as f:
                reader = csv.DictReader(f)
                rows = [r for r in reader if (float(r["step"]) <= step if exact else float(r["step"]) < step)]
            if rows:
                with (run_dir / name).open("w", newline="") as f:
                    w = csv.DictWriter(f, fieldnames=list(reader.fieldnames or rows[0]))
                    w.writeheader()
                    w.writerows(rows)
    for name in ("imitation.json", *(("best.zip", "best.mazzo.zip") if exact else ())):
        if (origin / name).exists():
            shutil.copy2(origin / name, run_dir / name)
