"""A run of the SB3 trainer, top to bottom: check, set up, warm start, learn (Stable-Baselines3's MaskablePPO: its
rollouts, GAE and update; ``schedule.py`` between rollouts), evaluate the best, report."""

from __future__ import annotations

import pickle
import random
import sys
import time
from pathlib import Path
from typing import Any

import numpy as np

from train.config import parse_args
from train.learner_eval import final_evaluation
from train.resume import continue_run
from train.runs import finish_run, new_run_dir, pin_numerics, seed_everything, start_run, timing
from train.sb3.args import ENV_KEYS, Args, check_args
from train.sb3.schedule import STATE_SUFFIX, make_schedule

__all__ = ["main", "make_env_fn", "whole_rollouts", "CHECKPOINTS"]

#: what the report says of this trainer's files
CHECKPOINTS = "`best.zip`, `last.zip`: Stable-Baselines3 run files for `--resume`"


def main(argv: list[str] | None = None, prog: str = "python -m train.sb3") -> Path:
    """One run, top to bottom: check the config, set up, warm start, learn, evaluate, report."""
    argv = list(sys.argv[1:] if argv is None else argv)
    args = parse_args(Args, argv, prog=prog)
    preloaded = "torch" in sys.modules  # then the pins below may come too late (a notebook, a test)
    pin_numerics()  # before torch loads (checking a network-backed teacher, e.g. PIMC's playouts, loads it)
    meta = check_args(args)

    run_dir, resume_state = setup_run_dir(args)
    meta = {**meta, "run_name": run_dir.name, "config": start_run(args, run_dir)}
    platform_info = seed_everything(args.seed, args.torch_threads, preloaded, "train.sb3")
    model, vec = build_model(args, run_dir, resume_state)
    if args.bc_episodes and not args.resume:
        warm_start(args, model, run_dir)
    segment = learn(args, model, vec, run_dir, meta, resume_state)
    if not (run_dir / "best.mazzo.zip").exists():  # a run resumed from before safe checkpoints: its own best.zip
        from agents.trained import export_checkpoint

        export_checkpoint(run_dir / "best.zip", run_dir / "best.mazzo.zip")
    final = {**final_evaluation(args, run_dir), "timing": segment, "numerics": platform_info,
             "checkpoints": CHECKPOINTS}
    return finish_run(args, run_dir, final, command=f"{prog} " + " ".join(argv))


def whole_rollouts(total: int, done: int, rollout: int) -> int:
    """``total`` rounded up so that the steps still to do are whole rollouts (``n_steps * n_envs``):
    PPO only stops between rollouts, so that is what a run does anyway; the run records and reports it."""
    todo = max(total - done, 0)
    rounded = done + -(-todo // rollout) * rollout
    if rounded != total:
        print(f"total_timesteps: {total} rounded up to {rounded} ({done} done + whole rollouts of "
              f"n_steps * n_envs = {rollout} steps)", flush=True)
    return rounded


def setup_run_dir(args: Args) -> tuple[Path, dict[str, Any] | None]:
    """The run directory (always a new one; a resumed run starts its own, beside the run it continues), and the
    saved training state to restore (None: none, or the envs changed)."""
    from agents.trained import read_metadata

    resume_state: dict[str, Any] | None = None
    done = int(read_metadata(args.resume).get("num_timesteps", 0)) if args.resume else 0
    args.total_timesteps = whole_rollouts(args.total_timesteps, done, args.n_steps * args.n_envs)
    if not (args.resume and (Path(args.resume).parent / "config.yaml").exists()):
        return new_run_dir(Path(args.runs_dir), args), None
    state_file = Path(args.resume).with_name(Path(args.resume).stem + STATE_SUFFIX)  # last.zip: last_state.pkl
    old = read_metadata(args.resume).get("config", {})
    changed = [k for k in ENV_KEYS if old.get(k) != getattr(args, k)]
    if state_file.exists() and not changed:
        resume_state = pickle.loads(state_file.read_bytes())  # trusted input, as the SB3 run file itself
    elif state_file.exists():  # e.g. a curriculum: new flags or opponents, so fresh (seeded) envs
        print(f"resume: {', '.join(changed)} changed; the environments start afresh (the result is not that of an "
              "uninterrupted run)", flush=True)
    origin = Path(args.resume).resolve().parent  # left as it is (its report.md, curves, checkpoints)
    return continue_run(origin, args, done, exact=resume_state is not None), resume_state


def make_env_fn(args: Args, snapshots: list[str]):
    """A picklable factory of one training env (Monitor-free: VecMonitor counts episodes)."""

    def thunk():
        from train.single_seat import SingleSeatEnv

        env = SingleSeatEnv(args.game, opponents=args.opponents, seat=args.seat, flags=args.env,
                            reward_scale=args.reward_scale, snapshot_share=args.snapshot_share,
                            max_snapshots=args.max_snapshots)
        for spec in snapshots:
            env.add_opponent(spec)
        return env

    return thunk


def build_model(args: Args, run_dir: Path, resume_state: dict[str, Any] | None) -> tuple[Any, Any]:
    """The training envs (a ``VecMonitor``) and the MaskablePPO model: new, or loaded for ``--resume``
    (with the envs, monitor and generators restored when ``resume_state`` is given)."""
    import torch
    from sb3_contrib import MaskablePPO
    from stable_baselines3.common.logger import configure
    from stable_baselines3.common.vec_env import DummyVecEnv, SubprocVecEnv, VecMonitor

    snapshots = resume_state["snapshots"] if resume_state else []
    fns = [make_env_fn(args, snapshots) for _ in range(args.n_envs)]
    vec = VecMonitor(SubprocVecEnv(fns) if args.vec_env == "subproc" else DummyVecEnv(fns))
    if args.resume:
        model = MaskablePPO.load(args.resume, env=vec, device="cpu", force_reset=resume_state is None)
        if resume_state is None:
            vec.seed(args.seed + model.num_timesteps)  # no saved env state: fresh deals, still seeded
        else:
            for i, s in enumerate(resume_state["envs"]):
                vec.env_method("set_state", s, indices=[i])
            for key, value in resume_state["monitor"].items():  # episodes in progress keep their counts
                setattr(vec, key, value)
            random.setstate(resume_state["rng"]["python"])
            np.random.set_state(resume_state["rng"]["numpy"])
            torch.set_rng_state(resume_state["rng"]["torch"])
    else:
        model = MaskablePPO(
            "MlpPolicy", vec, learning_rate=args.learning_rate, n_steps=args.n_steps, batch_size=args.batch_size,
            n_epochs=args.n_epochs, gamma=args.gamma, gae_lambda=args.gae_lambda, clip_range=args.clip_range,
            ent_coef=args.ent_coef, vf_coef=args.vf_coef, max_grad_norm=args.max_grad_norm,
            policy_kwargs={"net_arch": list(args.net_arch)}, seed=args.seed, device="cpu", verbose=0,
        )
    model.set_logger(configure(str(run_dir / "tb"), ["tensorboard"]))
    return model, vec


def warm_start(args: Args, model: Any, run_dir: Path) -> None:
    """Imitate ``bc_teacher`` before PPO (``train/imitation.py``); its figures go to ``imitation.json``."""
    from train.imitation import collect, pretrain, record

    t0 = time.time()
    demos = collect(args.game, args.bc_teacher, args.env, args.bc_episodes, seed=args.seed,
                    reward_scale=args.reward_scale, gamma=args.gamma)
    record(run_dir, args.bc_teacher, args.bc_episodes, t0,
           pretrain(model.policy, demos, epochs=args.bc_epochs, lr=args.bc_lr, seed=args.seed))


def learn(args: Args, model: Any, vec: Any, run_dir: Path, meta: dict[str, Any],
          resume_state: dict[str, Any] | None) -> dict[str, Any]:
    """PPO up to ``total_timesteps`` with the schedule's evaluations and checkpoints, then the end of the
    curve; closes the envs and returns the wall time (``timing``)."""
    schedule = make_schedule(args, run_dir, meta, vec, resume_state["callback"] if resume_state else None)
    # wall time: "time" in metrics.csv is cumulative over the segments of a resumed run (training and the
    # periodic evaluations, not the final one); this segment's own time is reported beside it
    number, from_step, segment_started = schedule.s.get("segment", 0) + 1, model.num_timesteps, time.time()
    schedule.s["segment"] = number
    schedule.s["started"] = time.time() - schedule.s.get("elapsed", 0.0)
    remaining = args.total_timesteps - model.num_timesteps
    print(f"run {run_dir.name}: training {args.game} for {max(remaining, 0)} steps "
          f"({model.num_timesteps} done) against {args.opponents}", flush=True)
    if remaining > 0:
        model.learn(remaining, callback=schedule, reset_num_timesteps=not args.resume, progress_bar=args.progress)
    else:
        schedule.init_callback(model)
    step = model.num_timesteps
    if step > schedule.s.get("logged", 0):
        schedule.log_metrics(step)
    if schedule.evals.due(step, end=True):
        schedule.evaluate(step)  # the end of the curve (and best.zip if it is the best)
    else:
        schedule.save_last()
    vec.close()
    return timing(schedule.s["elapsed"], time.time() - segment_started, number, from_step, step, args.resume)
