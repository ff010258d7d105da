"""What resuming a run means for every trainer: a new run folder beside the old one, the curves carried over,
and a training state file that is safe to load.

| piece | what |
|---|---|
| ``run_config_of(resume)`` | the ``config.yaml`` of the run a ``--resume`` path belongs to (a checkpoint, its state file or the run folder), or None |
| ``resume_argv(argv)`` | ``--resume X`` without ``--config``: that run's ``config.yaml`` is the config |
| ``continue_run(origin, args, step, exact)`` | the new folder beside ``origin`` (which stays as it was), with ``carry_history`` |
| ``carry_history`` | ``metrics.csv``/``eval.csv`` up to the checkpoint's step, ``imitation.json`` (and the best checkpoints, when exact) |
| ``copy_snapshots`` | the self-play snapshots written up to the checkpoint's step |
| ``save_train_state``, ``read_train_state`` | a zip of exactly ``state.json`` (JSON) and ``arrays.npz`` (read with ``allow_pickle=False``): nothing in it can run code |

Which keys a resume may change, and what it restores, is each trainer's own (``train/sb3``, ``train/batched``).
"""

from __future__ import annotations

import csv
import io
import json
import os
import shutil
import zipfile
from pathlib import Path
from typing import Any

import numpy as np

from train.runs import new_run_dir

__all__ = ["run_config_of", "resume_argv", "continue_run", "carry_history", "copy_snapshots", "save_train_state",
           "read_train_state", "STATE_JSON", "STATE_ARRAYS"]

STATE_JSON, STATE_ARRAYS = "state.json", "arrays.npz"
MAX_STATE_JSON = 64 << 20
MAX_STATE_ARRAYS = 4 << 30


def run_config_of(resume: str) -> Path | None:
    """``config.yaml`` of the run folder of ``resume`` (the folder itself, or a file in it), if there is one."""
    p = Path(resume)
    config = (p if p.is_dir() else p.parent) / "config.yaml"
    return config if config.is_file() else None


def _option(argv: list[str], name: str) -> str | None:
    """The value of ``--name VALUE`` / ``--name=VALUE`` in ``argv`` (the last one), or None."""
    value = None
    for i, arg in enumerate(argv):
        key, eq, text = arg.partition("=")
        if key == f"--{name}":
            value = text if eq else (argv[i + 1] if i + 1 < len(argv) else "")
    return value


def resume_argv(argv: list[str]) -> list[str]:
    """``--resume X`` without ``--config``: the resumed run's ``config.yaml`` is the config (the command's keys
    override it)."""
    resume = _option(argv, "resume")
    if not resume or _option(argv, "config") is not None:
        return argv
    config = run_config_of(resume)
    return ["--config", str(config), *argv] if config else argv


def continue_run(origin: Path, args: Any, step: int, exact: bool) -> Path:
    """A new run folder beside ``origin`` (left as it is: its report, curves, checkpoints), holding its curves so far."""
    run_dir = new_run_dir(origin.parent, args)
    carry_history(origin, run_dir, step, exact)
    return run_dir


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


def copy_snapshots(origin: Path, run_dir: Path, step: int, folder: str = "snapshots") -> None:
    """``<folder>/step_<n>.mazzo.zip`` of ``origin`` with ``n <= step`` into ``run_dir`` (those already there stay):
    the self-play snapshots, or the kept ``checkpoints`` (``checkpoint_at``)."""
    for src in sorted((origin / folder).glob("step_*.mazzo.zip")):
        step_of = src.name[len("step_"): -len(".mazzo.zip")]
        dst = run_dir / folder / src.name
        if step_of.isdigit() and int(step_of) <= step and not dst.exists():
            dst.parent.mkdir(parents=True, exist_ok=True)
            shutil.copy2(src, dst)


def save_train_state(path: Path, state_format: str, state: dict[str, Any], arrays: dict[str, np.ndarray]) -> Path:
    """A zip of exactly ``state.json`` (UTF-8 JSON, ``format``: ``state_format``) and ``arrays.npz`` (NumPy's
    format, read back with ``allow_pickle=False``): nothing in it can run code when it is loaded."""
    data = io.BytesIO()
    np.savez(data, **arrays)
    text = json.dumps({"format": state_format, **state}, allow_nan=True)
    path.parent.mkdir(parents=True, exist_ok=True)
    tmp = path.with_name(path.name + ".tmp")
    with zipfile.ZipFile(tmp, "w", zipfile.ZIP_STORED) as z:
        z.writestr(STATE_JSON, text.encode("utf-8"))
        z.writestr(STATE_ARRAYS, data.getvalue())
    os.replace(tmp, path)  # never a half-written state under the real name
    return path


def read_train_state(path: Path, state_format: str) -> tuple[dict[str, Any], dict[str, np.ndarray]]:
    """``save_train_state``'s JSON and arrays; ``CheckpointError`` for anything else (never unpickles)."""
    from agents.checkpoint import CheckpointError

    try:
        with zipfile.ZipFile(path) as z:
            names = sorted(z.namelist())
            if names != sorted((STATE_JSON, STATE_ARRAYS)):
                raise CheckpointError(f"{path}: a training state holds exactly {STATE_JSON} and {STATE_ARRAYS}; "
                                      f"this file holds {', '.join(names) or 'nothing'}")
            sizes = {i.filename: i.file_size for i in z.infolist()}
            if sizes[STATE_JSON] > MAX_STATE_JSON or sizes[STATE_ARRAYS] > MAX_STATE_ARRAYS:
                raise CheckpointError(f"{path}: a member is larger than allowed")
            raw_json, raw_arrays = z.read(STATE_JSON), z.read(STATE_ARRAYS)
    except (zipfile.BadZipFile, OSError, EOFError) as e:
        raise CheckpointError(f"{path} is not a readable training state ({type(e).__name__}: {e})") from None
    try:
        state = json.loads(raw_json.decode("utf-8"))
    except (UnicodeDecodeError, json.JSONDecodeError) as e:
        raise CheckpointError(f"{path}: {STATE_JSON} is not JSON ({e})") from None
    if not isinstance(state, dict) or state.get("format") != state_format:
        got = state.get("format") if isinstance(state, dict) else type(state).__name__
        raise CheckpointError(f"{path}: unknown training state format {got!r}; expected {state_format!r}")
    try:
        with np.load(io.BytesIO(raw_arrays), allow_pickle=False) as npz:
            arrays = {k: npz[k] for k in npz.files}
    except (ValueError, OSError, EOFError, zipfile.BadZipFile) as e:  # an object array (a pickle) is a ValueError
        raise CheckpointError(f"{path}: {STATE_ARRAYS} is not a plain array archive ({e})") from None
    return state, arrays
