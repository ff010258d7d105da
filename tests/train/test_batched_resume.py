"""train/batched --resume: a run stopped at a checkpoint and resumed is the run never stopped; the state
file is safe to load; changed training keys, missing and damaged checkpoints are clear errors."""

from __future__ import annotations

import csv
import io
import json
import shutil
import zipfile
from pathlib import Path

import numpy as np
import pytest

torch = pytest.importorskip("torch")
pytest.importorskip("numba")

from agents.checkpoint import CheckpointError, load_actor  # noqa: E402
from envs.core.errors import ConfigError  # noqa: E402
from train.batched import main  # noqa: E402
from train.batched.state import STATE_FORMAT, STATE_NAME  # noqa: E402
from train.dispatch import trainer_of  # noqa: E402
from train.resume import read_train_state as read_state_file  # noqa: E402

ROOT = Path(__file__).resolve().parents[2]
#: Pigugnin hands (fast), self-play games, random and heuristic opponents, a snapshot pool that turns over
#: before the checkpoint (3 snapshots in 2 slots by step 1,500), two epochs of several minibatches: every part
#: of the state matters.
TINY = ["--config", "configs/pigugnin/ppo_batched.yaml", "--num_envs", "16", "--num_steps", "32",
        "--minibatch_size", "256", "--n_epochs", "2", "--net_arch", "[16]", "--eval_every", "1500", "--eval_deals", "2",
        "--final_deals", "2", "--eval_opponents", "[random]", "--reference_levels", "false",
        "--opponents", "[random, heuristic]", "--progress", "false", "--selfplay", "true", "--snapshot_every", "250",
        "--max_snapshots", "2", "--all_seats_share", "0.5"]
TIMED = {"time", "fps"}


def rows(path: Path, drop: set[str] = TIMED) -> list[dict[str, str]]:
    with path.open() as f:
        return [{k: v for k, v in r.items() if k not in drop} for r in csv.DictReader(f)]


def weights(path: Path) -> dict[str, torch.Tensor]:
    return load_actor(path)[0].state_dict()


@pytest.fixture(scope="module")
def runs(tmp_path_factory):
    """An uninterrupted run to 4,000 steps, the same run stopped at its 1,500-step checkpoint, and its resume."""
    tmp = tmp_path_factory.mktemp("resume")
    whole = main([*TINY, "--total_timesteps", "4000", "--runs_dir", str(tmp / "whole")])
    stopped = main([*TINY, "--total_timesteps", "1500", "--runs_dir", str(tmp / "parts")])
    resumed = main(["--resume", str(stopped / "last.mazzo.zip"), "--total_timesteps", "4000"])  # config: config.yaml
    return whole, stopped, resumed


@pytest.fixture(autouse=True)
def _root(monkeypatch):
    monkeypatch.chdir(ROOT)


def test_a_resumed_run_is_the_run_never_stopped(runs):
    whole, stopped, resumed = runs
    assert resumed.parent == stopped.parent and resumed != stopped  # a new folder beside the old one
    full = rows(whole / "metrics.csv")
    assert len(full) > 8 and int(rows(stopped / "metrics.csv")[-1]["step"]) < int(full[-1]["step"])
    assert rows(resumed / "metrics.csv") == full  # curves carried over, then the same numbers
    assert rows(resumed / "eval.csv") == rows(whole / "eval.csv")
    for name in ("last.mazzo.zip", "best.mazzo.zip"):
        wa, wb = weights(whole / name), weights(resumed / name)
        assert wa.keys() == wb.keys() and all(torch.equal(wa[k], wb[k]) for k in wa), name
    snaps = sorted(p.name for p in (whole / "snapshots").iterdir())
    assert len(snaps) >= 3 and sorted(p.name for p in (resumed / "snapshots").iterdir()) == snaps
    for name in snaps:
        wa, wb = weights(whole / "snapshots" / name), weights(resumed / "snapshots" / name)
        assert all(torch.equal(wa[k], wb[k]) for k in wa)
    fa, fb = (json.loads((r / "final_eval.json").read_text()) for r in (whole, resumed))
    assert fa["rows"] == fb["rows"] and fa["best_step"] == fb["best_step"]
    assert fb["timing"]["segments"] == 2 and fb["timing"]["from_step"] == int(rows(stopped / "metrics.csv")[-1]["step"])
    assert fb["timing"]["resumed_from"] == str((stopped / "last.mazzo.zip").resolve())
    times = [float(r["time"]) for r in rows(resumed / "metrics.csv", drop=set())]
    assert times == sorted(times)  # cumulative over the segments
    # the old run is left as it was
    assert int(rows(stopped / "eval.csv")[-1]["step"]) == fb["timing"]["from_step"]
    # and the state saved at the end of the stopped run is the one the resume started from
    state, arrays = read_train_state(stopped / STATE_NAME)
    assert state["trainer"]["global_step"] == fb["timing"]["from_step"] and state["loop"]["segments"] == 1
    assert state["trainer"]["seats"]["num_snapshots"] >= 3 and len(state["snapshots"]) == 2  # the pool turned over
    assert all(isinstance(a, np.ndarray) and a.dtype != object for a in arrays.values())


def test_a_resume_with_one_generator_off_differs(runs, tmp_path):
    """The test above can fail: the same resume with only the learner's sampling generator in another state
    gives other numbers after the checkpoint (and the same ones before it)."""
    whole, stopped, _ = runs
    copy = _copy_run(stopped, tmp_path / "copy")
    state, arrays = read_train_state(stopped / STATE_NAME)
    arrays["rng.sample"] = torch.Generator().manual_seed(12345).get_state().numpy()
    _write_state(copy / STATE_NAME, state, arrays)
    off = main(["--resume", str(copy / "last.mazzo.zip"), "--total_timesteps", "4000"])
    done = len(rows(stopped / "metrics.csv"))
    a, b = rows(whole / "metrics.csv"), rows(off / "metrics.csv")
    assert a[:done] == b[:done] and [r["loss"] for r in a[done:]] != [r["loss"] for r in b[done:]]


def test_changed_training_keys_are_refused(runs):
    _, stopped, _ = runs
    last = str(stopped / "last.mazzo.zip")
    with pytest.raises(ConfigError, match=r"learning_rate: 0\.0003 in that run, 0\.001 here"):
        main(["--resume", last, "--learning_rate", "1e-3"])
    with pytest.raises(ConfigError, match="opponents"):
        main([*TINY, "--opponents", "random", "--resume", last])
    with pytest.raises(ConfigError, match="seed"):
        main([*TINY, "--seed", "5", "--resume", last])


def test_missing_foreign_and_damaged_checkpoints_are_clear_errors(runs, tmp_path):
    _, stopped, _ = runs
    with pytest.raises(FileNotFoundError, match="checkpoint not found"):
        main(["--resume", str(tmp_path / "nope" / "last.mazzo.zip")])
    with pytest.raises(CheckpointError, match="no best_state.zip beside it"):
        main([*TINY, "--resume", str(stopped / "best.mazzo.zip")])
    copy = _copy_run(stopped, tmp_path / "copy")
    good = (stopped / STATE_NAME).read_bytes()
    (copy / STATE_NAME).write_bytes(good[: len(good) // 2])  # truncated
    with pytest.raises(CheckpointError, match="not a readable training state"):
        main(["--resume", str(copy / "last.mazzo.zip")])
    (copy / STATE_NAME).write_bytes(b"garbage")
    with pytest.raises(CheckpointError, match="not a readable training state"):
        main(["--resume", str(copy / "last.mazzo.zip")])
    state, arrays = read_train_state(stopped / STATE_NAME)
    del arrays["critic.0.0.weight"]
    _write_state(copy / STATE_NAME, state, arrays)
    with pytest.raises(CheckpointError, match="'critic.0.0.weight' is missing"):
        main(["--resume", str(copy / "last.mazzo.zip")])
    state, arrays = read_train_state(stopped / STATE_NAME)
    _write_state(copy / STATE_NAME, state, arrays)
    (copy / state["snapshots"][0]["file"]).unlink()
    with pytest.raises(CheckpointError, match="self-play snapshot .* is missing"):
        main(["--resume", str(copy / "last.mazzo.zip")])
    _write_state(copy / STATE_NAME, {**state, "format": "something-else/9"}, arrays)
    with pytest.raises(CheckpointError, match="unknown training state format"):
        main(["--resume", str(copy / "last.mazzo.zip")])
    state, arrays = read_train_state(stopped / STATE_NAME)
    state["trainer"]["global_step"] += 1
    _write_state(copy / STATE_NAME, state, arrays)
    with pytest.raises(CheckpointError, match="not of the same moment"):
        main(["--resume", str(copy / "last.mazzo.zip")])


class _Trap:
    """Unpickling this would create the file ``path``."""

    def __init__(self, path: str):
        self.path = path

    def __reduce__(self):
        return (open, (self.path, "w"))


def test_loading_never_unpickles(runs, tmp_path):
    _, stopped, _ = runs
    copy = _copy_run(stopped, tmp_path / "copy")
    trap = tmp_path / "pwned"
    state, arrays = read_train_state(stopped / STATE_NAME)
    arrays["ep_ret"] = np.array([_Trap(str(trap))], dtype=object)  # np.savez pickles object arrays
    _write_state(copy / STATE_NAME, state, arrays)
    with pytest.raises(CheckpointError, match="not a plain array archive"):
        main(["--resume", str(copy / "last.mazzo.zip")])
    assert not trap.exists()
    # an extra member (e.g. a pickle) is refused before anything is read
    buf = io.BytesIO((stopped / STATE_NAME).read_bytes())
    with zipfile.ZipFile(buf, "a") as z:
        z.writestr("data.pkl", b"\x80\x04N.")
    (copy / STATE_NAME).write_bytes(buf.getvalue())
    with pytest.raises(CheckpointError, match="holds exactly state.json and arrays.npz"):
        main(["--resume", str(copy / "last.mazzo.zip")])


def test_resume_alone_selects_the_batched_trainer(runs, tmp_path):
    _, stopped, _ = runs
    assert trainer_of(["--resume", str(stopped / "last.mazzo.zip")]) == "batched"  # the run's config.yaml says so
    assert trainer_of([f"--resume={stopped}"]) == "batched"  # the run folder
    assert trainer_of(["--resume", str(tmp_path / "last.zip")]) == "sb3"  # no run folder there: the default


def read_train_state(path: Path) -> tuple[dict, dict]:
    return read_state_file(path, STATE_FORMAT)


def _copy_run(run: Path, to: Path) -> Path:
    shutil.copytree(run, to)
    return to


def _write_state(path: Path, state: dict, arrays: dict) -> None:
    data = io.BytesIO()
    np.savez(data, **arrays)
    with zipfile.ZipFile(path, "w") as z:
        z.writestr("state.json", json.dumps(state))
        z.writestr("arrays.npz", data.getvalue())
