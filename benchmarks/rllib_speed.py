"""Env-runner sampling speed of the RLlib trainer (``train/rllib/``) with 1 and 2 env runners.

    nice -n 5 python benchmarks/rllib_speed.py                      # briscola5, 1 and 2 env runners
    python benchmarks/rllib_speed.py --game picchetto --flag episode=hand --runners 1 2 4 --steps 4000

For each number of env runners it builds the PPO algorithm of ``configs/<game>/rllib.yaml`` (the
masked module, the turn-based adapter, the self-play mapping) on a local Ray cluster, runs one
training iteration to warm up, then times ``--repeats`` rounds in which every env runner samples
``--steps`` env steps at once (``EnvRunner.sample``, in parallel). It prints env steps (decisions) per
second in total and per runner, the wall and the runners' CPU seconds, the command and the machine's
load (``os.getloadavg``) before and after. No training happens in the timed part: this is the sampling
side of RLlib (env, connectors, module forward passes, episode bookkeeping), next to the single-process
figures of ``benchmarks/train_speed.py`` and ``benchmarks/env_speed.py``.
"""

from __future__ import annotations

import argparse
import os
import shlex
import sys
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))


def measure(game: str, flags: dict, runners: int, steps: int, repeats: int, num_cpus: int) -> dict:
    import ray

    from train.config import load_config
    from train.rllib import Args, check_args
    from train.rllib.algorithm import build_config

    overrides = {"num_env_runners": runners, "train_batch_size": 1000, "minibatch_size": 250, "selfplay": False}
    args = load_config(Args, ROOT / "configs" / game / "rllib.yaml", overrides)
    args.env = {**args.env, **flags}
    check_args(args)
    os.environ.setdefault("RAY_USAGE_STATS_ENABLED", "0")
    ray.init(num_cpus=num_cpus, include_dashboard=False, logging_level="warning", log_to_driver=False)
    algo = None
    try:
        algo = build_config(args).build_algo()
        algo.train()  # warm up: the runners' first episodes, the module's first passes

        def sample(er, n=steps):
            t, c = time.perf_counter(), time.process_time()
            episodes = er.sample(num_timesteps=n, random_actions=False)
            return (sum(e.env_steps() for e in episodes), time.perf_counter() - t, time.process_time() - c)

        totals, walls, cpus = [], [], []
        for _ in range(repeats):
            t0 = time.perf_counter()
            out = algo.env_runner_group.foreach_env_runner(sample, local_env_runner=False)
            walls.append(time.perf_counter() - t0)
            totals.append(sum(o[0] for o in out))
            cpus.append(sum(o[2] for o in out))
        best = min(range(repeats), key=lambda i: walls[i] / max(totals[i], 1))
        return {"runners": runners, "steps": totals[best], "wall": walls[best], "cpu": cpus[best],
                "per_s": totals[best] / walls[best], "per_runner_cpu_s": totals[best] / max(cpus[best], 1e-9)}
    finally:
        if algo is not None:
            algo.stop()
        ray.shutdown()


def main(argv: list[str] | None = None) -> None:
    p = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    p.add_argument("--game", default="briscola5")
    p.add_argument("--flag", action="append", default=[], metavar="KEY=VALUE", help="env flag (repeatable)")
    p.add_argument("--runners", type=int, nargs="+", default=[1, 2])
    p.add_argument("--steps", type=int, default=2000, help="env steps each runner samples per round")
    p.add_argument("--repeats", type=int, default=3)
    p.add_argument("--num-cpus", type=int, default=None, help="CPUs of the local cluster (default: runners + 1)")
    a = p.parse_args(argv)
    from train.evaluation.cli import parse_flag

    flags = dict(parse_flag(f) for f in a.flag)
    print(f"command: {shlex.join(['python', 'benchmarks/rllib_speed.py', *(sys.argv[1:] if argv is None else argv)])}")
    print(f"load average before: {' '.join(f'{x:.2f}' for x in os.getloadavg())} ({os.cpu_count()} cores)")
    rows = []
    for n in a.runners:
        rows.append(measure(a.game, flags, n, a.steps, a.repeats, a.num_cpus or n + 1))
    print(f"load average after: {' '.join(f'{x:.2f}' for x in os.getloadavg())}")
    print(f"\n{a.game} {flags or ''}: env steps per second sampled by RLlib env runners (best of {a.repeats})\n")
    print("| env runners | env steps | wall s | env steps/s | per runner CPU second |")
    print("|---|---|---|---|---|")
    for r in rows:
        print(f"| {r['runners']} | {r['steps']} | {r['wall']:.2f} | {r['per_s']:,.0f} | {r['per_runner_cpu_s']:,.0f} |")


if __name__ == "__main__":
    main()
