"""A run of the batched trainer, top to bottom: check, set up, warm start or resume, train (collect, update,
log; evaluate, checkpoint and snapshot at rollout boundaries), evaluate the best, report.

The algorithm is ``BatchedPPO`` (``train/batched/ppo.py``); everything else is the shared pieces of
``train/`` (``args``, ``runs``, ``learner_eval``, ``resume``, ``imitation``, ``report``).
"""

from __future__ import annotations

import shutil
import sys
import time
from pathlib import Path
from typing import Any

import numpy as np

from train.batched.args import Args, check_args, check_numerics
from train.batched.dmc import BatchedDMC
from train.batched.league import League
from train.batched.ppo import BatchedPPO
from train.batched.state import STATE_FORMAT, STATE_NAME, check_resume, get_state, load_state
from train.config import parse_args, to_dict
from train.learner_eval import STATE_KEYS, PeriodicEvaluation, final_evaluation
from train.resume import continue_run, copy_snapshots, resume_argv, save_train_state
from train.runs import (
    METRIC_KEYS,
    append_csv,
    finish_run,
    new_run_dir,
    pin_numerics,
    seed_everything,
    start_run,
    timing,
)

__all__ = ["main", "BatchedRun", "CHECKPOINTS", "ALGORITHMS"]

#: ``algo`` -> the algorithm (a ``train.batched.learner.BatchedLearner`` with ``collect()`` and ``update()``)
ALGORITHMS = {"ppo": BatchedPPO, "dmc": BatchedDMC}

#: what the report says of this trainer's files
CHECKPOINTS = (f"trained by train/batched on the batched engine; `{STATE_NAME}`: the training state for `--resume`, "
               "JSON and plain arrays")
#: the run loop's bookkeeping kept in the training state (besides the evaluations')
LOOP_KEYS = ("next_snapshot", "train_time", "elapsed", "segments", "next_checkpoint")


def main(argv: list[str] | None = None, prog: str = "python -m train.batched") -> Path:
    """One run (module docstring); returns its folder."""
    argv = list(sys.argv[1:] if argv is None else argv)
    args = parse_args(Args, resume_argv(argv), prog=prog)
    check_numerics(args)
    # pinned before the checks: a checkpoint they read (init_from, a ppo: opponent) loads torch
    preloaded = "torch" in sys.modules  # then the pins come too late (a notebook, a test)
    pin_numerics(args.numerics)
    resumed = check_resume(args) if args.resume else None  # before anything is built: clear errors first
    meta = check_args(args)
    from torch.utils.tensorboard import SummaryWriter  # heavy imports only after the config is known to be good

    if resumed:
        origin = resumed[0].resolve().parent
        run_dir = continue_run(origin, args, int(resumed[1]["trainer"]["global_step"]), exact=True)
    else:
        run_dir = new_run_dir(Path(args.runs_dir), args)
    meta = {**meta, "run_name": run_dir.name, "config": start_run(args, run_dir), "algo": args.algo}
    if args.algo == "dmc":
        meta["outputs"] = "q_values"  # greedy on them; they are values (times reward_scale), not logits
    seeds = np.random.SeedSequence(args.seed).generate_state(6)  # the trainer derives its generators from them
    platform_info = seed_everything(args.seed, args.torch_threads, preloaded, "train.batched", args.numerics)
    trainer = ALGORITHMS[args.algo](args, seeds)
    run = BatchedRun(args, run_dir, meta, trainer, SummaryWriter(str(run_dir / "tb")),
                     resumed[1]["loop"] if resumed else None)
    if resumed:
        restore(trainer, resumed, origin, run_dir)
    elif args.bc_episodes:
        warm_start(args, trainer, run_dir, bc_seed=int(seeds[5]) % 2**31)
    segment = run.train(resumed[0] if resumed else None)
    final = {**final_evaluation(args, run_dir), "timing": segment, "numerics": platform_info,
             "checkpoints": CHECKPOINTS}
    return finish_run(args, run_dir, final, command=f"{prog} " + " ".join(argv))


def warm_start(args: Args, trainer: BatchedPPO, run_dir: Path, bc_seed: int) -> None:
    """Imitate ``bc_teacher`` on the batched engine before PPO (``train/imitation.py``); an oracle critic fits the
    returns from the observation and the privileged vector."""
    from train.imitation import collect_batched, pretrain_actor_critic, record

    t0 = time.time()
    demos = collect_batched(args.game, args.bc_teacher, args.env, args.bc_episodes, seed=bc_seed,
                            reward_scale=args.reward_scale, privileged=getattr(trainer, "oracle", False),
                            gamma=args.gamma)
    stats = pretrain_actor_critic(trainer.actor, trainer.critic, demos, epochs=args.bc_epochs, lr=args.bc_lr,
                                  seed=bc_seed)
    record(run_dir, args.bc_teacher, args.bc_episodes, t0, stats)


def restore(trainer: BatchedPPO, resumed: tuple, origin: Path, run_dir: Path) -> None:
    """The snapshot pool into its slots (copied into the new folder, with the snapshots that left it), then
    everything else as it was at the checkpoint."""
    from agents.checkpoint import CheckpointError

    checkpoint, saved, arrays = resumed
    for snap in saved["snapshots"]:
        src, dst = origin / snap["file"], run_dir / snap["file"]
        if not src.is_file():
            raise CheckpointError(f"the self-play snapshot {src} of the resumed run's pool is missing")
        dst.parent.mkdir(parents=True, exist_ok=True)
        shutil.copy2(src, dst)
        trainer.add_snapshot(dst, int(snap["step"]), slot=int(snap["slot"]))
    copy_snapshots(origin, run_dir, int(saved["trainer"]["global_step"]))
    copy_snapshots(origin, run_dir, int(saved["trainer"]["global_step"]), folder="checkpoints")
    load_state(trainer, saved["trainer"], arrays, where=str(checkpoint.with_name(STATE_NAME)))
    print(f"resumed {origin.name} at step {trainer.global_step}", flush=True)


class BatchedRun:
    """The run loop around ``BatchedPPO``: rollouts and updates, their rows and scalars, and at rollout boundaries
    the evaluations (``PeriodicEvaluation``), checkpoints, the training state and self-play snapshots."""

    def __init__(self, args: Args, run_dir: Path, meta: dict[str, Any], trainer: BatchedPPO, writer: Any,
                 loop: dict[str, Any] | None):
        self.args, self.run_dir, self.meta, self.trainer, self.writer = args, run_dir, meta, trainer, writer
        self.s: dict[str, Any] = {"next_snapshot": args.snapshot_every, "train_time": 0.0, "elapsed": 0.0,
                                  "segments": 1, "next_checkpoint": 0}
        self.evals = PeriodicEvaluation(args, run_dir, {k: loop[k] for k in STATE_KEYS if k in loop} if loop else None,
                                        log=self.scalar)
        self.league = (League(args, trainer, run_dir, loop.get("league") if loop else None)
                       if args.opponent_sampling == "pfsp" else None)
        if loop:
            self.s.update({k: loop[k] for k in LOOP_KEYS if k in loop})
            self.s["segments"] = int(loop["segments"]) + 1
            self.evals.resume()
        self.started = time.time()

    def scalar(self, tag: str, value: float) -> None:
        self.writer.add_scalar(tag, value, self.trainer.global_step)

    def save(self, path: Path) -> Path:
        from agents.checkpoint import save_actor

        t = self.trainer
        return save_actor(t.actor, path, self.meta, vf=list(self.args.net_arch) if t.critic is not None else [],
                          num_timesteps=t.global_step)

    def evaluate(self, step: int) -> None:
        """The saved ``last.mazzo.zip`` plays (checked to be the live actor); the best is kept; the state saved."""
        import torch

        from agents.checkpoint import load_actor

        last = self.save(self.run_dir / "last.mazzo.zip")
        x, live = self.trainer.greedy_probe()
        with torch.no_grad():
            if not torch.equal(load_actor(last)[0](x), live):
                raise RuntimeError("the loaded last.mazzo.zip does not give the live actor's logits")
        if self.evals(step, last):
            self.save(self.run_dir / "best.mazzo.zip")
        self.s["elapsed"] = time.time() - self.started
        self.save_state()

    def save_state(self) -> None:
        """last_state.zip, beside last.mazzo.zip: what --resume needs to go on as if never stopped."""
        t, run_dir = self.trainer, self.run_dir
        trainer_state, arrays = get_state(t)
        loop = {**{k: v for k, v in self.evals.state.items() if k != "next_eval"}, **self.s,
                **({"league": self.league.state} if self.league else {})}
        snaps = [{"slot": slot, "step": st, "file": str(path.relative_to(run_dir))}
                 for slot, (st, path) in sorted(t.snapshot_files.items())]
        save_train_state(run_dir / STATE_NAME, STATE_FORMAT, {"config": to_dict(self.args), "run_name": run_dir.name,
                                                              "trainer": trainer_state, "loop": loop,
                                                              "snapshots": snaps}, arrays)

    def train(self, resumed_from: Path | None) -> dict[str, Any]:
        """Rollouts and updates to ``total_timesteps``, evaluating at 0, every ``eval_every`` steps and at the end;
        returns the run's ``timing``."""
        args, t, s = self.args, self.trainer, self.s
        segment_started, from_step = time.time(), t.global_step
        self.started = segment_started - s["elapsed"]  # metrics.csv's time is cumulative over the segments
        interactive = args.progress and sys.stderr.isatty()
        print(f"run {self.run_dir.name}: training {args.game} for {args.total_timesteps} learner steps in "
              f"{args.num_envs} games, every seat the learner's in {args.all_seats_share:.0%} of them, opponents "
              f"{t.specs}", flush=True)
        while True:
            step = t.global_step
            if self.evals.due(step, end=step >= args.total_timesteps):
                self.evaluate(step)
            if step >= args.total_timesteps:
                break
            if args.selfplay and step >= s["next_snapshot"]:
                slot = t.add_snapshot(self.save(self.run_dir / "snapshots" / f"step_{step}.mazzo.zip"), step)
                if self.league:
                    self.league.add(slot, step)
                s["next_snapshot"] = step + args.snapshot_every
            t0 = time.time()
            collected = t.collect()
            metrics = t.update()
            elapsed = time.time() - t0
            s["train_time"] += elapsed
            self.log(collected, metrics, elapsed, interactive)
            self.keep_checkpoints()
        if interactive:
            print(file=sys.stderr)
        self.writer.close()
        return timing(time.time() - self.started, time.time() - segment_started, s["segments"], from_step,
                      t.global_step, resumed_from, s["train_time"], self.evals.state["eval_time"])

    def keep_checkpoints(self) -> None:
        """``checkpoints/step_<N>.mazzo.zip`` at the first rollout boundary at or past each of ``checkpoint_at``."""
        due = sorted(n for n in self.args.checkpoint_at if n > self.s["next_checkpoint"] - 1)
        for n in due:
            if self.trainer.global_step < n:
                break
            (self.run_dir / "checkpoints").mkdir(exist_ok=True)
            self.save(self.run_dir / "checkpoints" / f"step_{n}.mazzo.zip")
            self.s["next_checkpoint"] = n + 1

    def log(self, collected: int, metrics: dict[str, float], elapsed: float, interactive: bool) -> None:
        """metrics.csv (the report's columns first), TensorBoard and, on a terminal, a progress line."""
        t = self.trainer
        shown = t.returns_vs if t.returns_vs or not t.returns_sp else t.returns_sp
        fps = collected / elapsed if elapsed > 0 else 0.0  # this rollout and update (the first one compiles)
        row = {"step": t.global_step, "episodes": t.episodes,
               "ep_return_mean": float(np.mean(shown)) if shown else "",  # game units (returns are unscaled)
               "ep_len_mean": float(np.mean(t.lengths)) if t.lengths else "",
               "time": round(time.time() - self.started, 2), **{k: metrics.get(k, float("nan")) for k in METRIC_KEYS},
               "ep_return_selfplay": float(np.mean(t.returns_sp)) if t.returns_sp else "",
               "samples": metrics["samples"], "fps": round(fps, 1)}
        append_csv(self.run_dir / "metrics.csv", row)
        if shown:
            self.scalar("rollout/ep_rew_mean", row["ep_return_mean"])
            self.scalar("rollout/ep_len_mean", row["ep_len_mean"])
        if t.returns_sp:
            self.scalar("rollout/ep_rew_selfplay", row["ep_return_selfplay"])
        for k in METRIC_KEYS:
            self.scalar(f"train/{k}", row[k])
        self.scalar("train/learning_rate", t.optimizer.param_groups[0]["lr"])
        self.scalar("time/fps", fps)
        if interactive:
            print(f"\rstep {t.global_step}/{self.args.total_timesteps}  {fps:,.0f} steps/s  return "
                  f"{row['ep_return_mean'] if shown else float('nan'):+.3f}  ", end="", file=sys.stderr, flush=True)
