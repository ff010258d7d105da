"""What the SB3 trainer does between rollouts (a Stable-Baselines3 callback): log ``metrics.csv``, evaluate, save
the checkpoints, the resume state and the self-play snapshots."""

from __future__ import annotations

import csv
import pickle
import random
import time
from pathlib import Path
from typing import Any

import numpy as np

from train.learner_eval import PeriodicEvaluation
from train.runs import METRIC_KEYS, append_csv

__all__ = ["Schedule", "make_schedule", "STATE_SUFFIX"]

#: what an exact resume needs besides <name>.zip: <name>_state.pkl (a pickle, as SB3's own files: trusted input only)
STATE_SUFFIX = "_state.pkl"


class Schedule:
    """Logs metrics.csv, evaluates, saves best/last and self-play snapshots between rollouts.

    The Stable-Baselines3 callback is this class with ``BaseCallback`` mixed in (``make_schedule``): this
    module does not import SB3, so that torch loads only after ``pin_numerics``. ``s`` is the state a
    resume restores (``last_state.pkl``'s ``callback``), the evaluations' bookkeeping included."""

    def __init__(self, args: Any, run_dir: Path, meta: dict[str, Any], vec: Any, state: dict[str, Any] | None):
        super().__init__()  # BaseCallback
        self.args, self.run_dir, self.meta, self.vec = args, run_dir, meta, vec
        self.s = state or {"next_snapshot": args.snapshot_every, "episodes": 0, "started": time.time(),
                           "snapshots": []}
        if state and "last_eval" not in state:  # a state written before it was kept: the end of eval.csv
            self.s["last_eval"] = _last_eval_step(run_dir)
        self.evals = PeriodicEvaluation(args, run_dir, self.s, log=lambda tag, v: self.model.logger.record(tag, v))

    def _on_step(self) -> bool:
        self.s["episodes"] += int(np.sum(self.locals["dones"]))
        return True

    def _on_rollout_start(self) -> None:
        from agents.trained import save_policy

        step = self.model.num_timesteps
        if step > self.s.get("logged", 0):
            self.log_metrics(step)
        if self.evals.due(step):
            self.evaluate(step)
        if self.args.selfplay and step >= self.s["next_snapshot"]:
            path = self.run_dir / "snapshots" / f"step_{step}.mazzo.zip"
            save_policy(self.model, path, self.meta)  # play-only, safe to load
            self.training_env.env_method("add_opponent", f"ppo:{path}")
            self.s["snapshots"].append(f"ppo:{path}")
            self.s["next_snapshot"] = step + self.args.snapshot_every

    def log_metrics(self, step: int) -> None:
        self.s["logged"] = step
        eps = list(self.model.ep_info_buffer)
        values = self.model.logger.name_to_value
        append_csv(self.run_dir / "metrics.csv", {
            "step": step, "episodes": self.s["episodes"],
            "ep_return_mean": np.mean([e["r"] for e in eps]) / self.args.reward_scale if eps else "",
            "ep_len_mean": np.mean([e["l"] for e in eps]) if eps else "",
            "time": round(time.time() - self.s["started"], 2),
            **{k: values.get(f"train/{k}", "") for k in METRIC_KEYS},
        })

    def evaluate(self, step: int) -> None:
        """The live policy plays; a new best is saved as ``best.zip`` and ``best.mazzo.zip``, then the last."""
        from agents.trained import TrainedAgent, save_checkpoint, save_policy

        if self.evals(step, TrainedAgent.from_model(self.model, self.args.game, self.meta)):
            save_checkpoint(self.model, self.run_dir / "best.zip", self.meta)  # SB3 run file (trusted, --resume)
            save_policy(self.model, self.run_dir / "best.mazzo.zip", self.meta)  # safe checkpoint to play
        self.save_last()

    def save_last(self) -> None:
        """``last.zip``, ``last.mazzo.zip`` and ``last_state.pkl``."""
        import torch

        from agents.trained import save_checkpoint, save_policy

        self.s["elapsed"] = time.time() - self.s["started"]
        save_checkpoint(self.model, self.run_dir / "last.zip", self.meta)
        save_policy(self.model, self.run_dir / "last.mazzo.zip", self.meta)
        state = {
            "envs": self.training_env.env_method("get_state"),
            "rng": {"python": random.getstate(), "numpy": np.random.get_state(), "torch": torch.get_rng_state()},
            "callback": self.s, "snapshots": self.s["snapshots"],
            "monitor": {k: getattr(self.vec, k) for k in ("episode_returns", "episode_lengths", "episode_count")},
        }
        (self.run_dir / f"last{STATE_SUFFIX}").write_bytes(pickle.dumps(state))


def _last_eval_step(run_dir: Path) -> float | None:
    if not (run_dir / "eval.csv").exists():
        return None
    with (run_dir / "eval.csv").open() as f:
        return max((float(r["step"]) for r in csv.DictReader(f)), default=None)


def make_schedule(args: Any, run_dir: Path, meta: dict[str, Any], vec: Any,
                  state: dict[str, Any] | None) -> Schedule:
    """``Schedule`` as a Stable-Baselines3 callback."""
    from stable_baselines3.common.callbacks import BaseCallback

    return type("Schedule", (Schedule, BaseCallback), {})(args, run_dir, meta, vec, state)
