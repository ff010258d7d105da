"""A run of the RLlib trainer, top to bottom: check, start or join Ray, build the algorithm (``env_engine``: the AEC
env or the batched engine's vector env in the env runners; ``algo``: PPO or APPO), warm start by imitation
(``bc_episodes``), train (RLlib's iterations: sampling by the env runners, advantages and the update by the learner),
evaluate and export at iteration boundaries, evaluate the best, report."""

from __future__ import annotations

import sys
import time
from pathlib import Path
from typing import Any

from train.config import parse_args
from train.learner_eval import PeriodicEvaluation, final_evaluation
from train.rllib.algorithm import checked_config, export_module, metrics_row, require_ray, start_ray, stop, versions
from train.rllib.args import Args, check_args, module_ids
from train.runs import append_csv, finish_run, new_run_dir, pin_numerics, start_run, timing

__all__ = ["main", "CHECKPOINTS"]

#: what the report says of this trainer's files
CHECKPOINTS = "exported from RLlib's module by train/rllib"


def main(argv: list[str] | None = None, prog: str = "python -m train.rllib") -> Path:
    """One run (module docstring); returns its folder. Ray is stopped at the end if this run started it."""
    argv = list(sys.argv[1:] if argv is None else argv)
    args = parse_args(Args, argv, prog=prog)
    meta = check_args(args)
    require_ray()
    config = checked_config(args)
    pin_numerics()
    import torch

    run_dir = new_run_dir(Path(args.runs_dir), args)
    meta = {**meta, "run_name": run_dir.name, "config": start_run(args, run_dir)}
    torch.manual_seed(args.seed)
    torch.set_num_threads(args.torch_threads)
    started_ray, algo = start_ray(args), None
    try:
        algo = config.build_algo()
        if args.bc_episodes:
            from train.rllib.warm_start import warm_start

            warm_start(args, algo, run_dir)
        segment = train(args, algo, run_dir, meta)
    finally:
        stop(algo, started_ray)
    final = {**final_evaluation(args, run_dir), "timing": segment, "checkpoints": CHECKPOINTS,
             "opponents": opponents_text(args),
             "trainer": {"rllib": versions()["ray"], "gymnasium": versions()["gymnasium"], "module": module_ids(args)[0],
                         "algo": args.algo, "env_engine": args.env_engine, "policies": args.policies,
                         "num_env_runners": args.num_env_runners,
                         "num_envs_per_env_runner": args.num_envs_per_env_runner, "address": args.address}}
    return finish_run(args, run_dir, final, command=f"{prog} " + " ".join(argv))


def opponents_text(args: Args) -> str:
    """Whom the learner trained against (the report's line)."""
    if args.env_engine == "batched":
        return f"{args.opponents} at the other seats (RLlib, batched engine" + (
            f", 'self' synced every {args.snapshot_every} iterations)" if args.selfplay else ")")
    return "self-play" + (" and frozen snapshots" if args.selfplay else "") + f" ({args.policies} policies, RLlib)"


def train(args: Args, algo: Any, run_dir: Path, meta: dict[str, Any]) -> dict[str, Any]:
    """Training iterations to ``total_timesteps`` env steps, evaluating the exported ``main`` (``seat_0``) at 0 and
    every ``eval_every`` steps (with ``eval_every: 0``, only at the end); returns the run's ``timing``."""
    import ray

    ids = module_ids(args)
    mid = ids[0]
    resources = {k: v for k, v in ray.cluster_resources().items() if k in ("CPU", "GPU", "memory")}
    print(f"run {run_dir.name}: RLlib {args.algo.upper()} on {args.game} ({args.env_engine} engine, {ids}, "
          f"{args.num_env_runners} env runner(s), cluster {resources}), {args.total_timesteps} env steps", flush=True)
    evals = PeriodicEvaluation(args, run_dir, at_start=False)

    def evaluate(step: int) -> None:
        if evals(step, export_module(algo, mid, run_dir / "last.mazzo.zip", meta, args, step)):
            export_module(algo, mid, run_dir / "best.mazzo.zip", meta, args, step)

    started, train_time, step = time.time(), 0.0, 0
    while True:
        if evals.due(step, end=step >= args.total_timesteps):
            evaluate(step)
        if step >= args.total_timesteps:
            break
        t0 = time.time()
        result = algo.train()
        elapsed = time.time() - t0
        train_time += elapsed
        before, row = step, metrics_row(result, mid, started, 0.0, unscale=1.0 / args.reward_scale)
        step = row["step"]
        row["fps"] = round((step - before) / elapsed, 1) if elapsed > 0 else 0.0
        append_csv(run_dir / "metrics.csv", row)
        print(f"iteration {row['iteration']}: step {step}, return {row['ep_return_mean']}, "
              f"{row['fps']} steps/s, snapshots {row['snapshots']}", flush=True)
    for i, m in enumerate(ids if args.policies == "per_seat" else []):
        export_module(algo, m, run_dir / f"seat_{i}.mazzo.zip", meta, args, step)
    if args.rllib_checkpoint:
        algo.save_to_path(str((run_dir / "rllib_checkpoint").resolve()))
    wall = time.time() - started
    return timing(wall, wall, 1, 0, step, None, train_time, evals.state["eval_time"])
