"""Env-runner sampling speed of the RLlib trainer (``train/rllib/``): both engines, 1 and 2 env runners, in one run.

    nice -n 5 python benchmarks/rllib_speed.py                       # briscola5: aec and batched, 1 and 2 runners
    python benchmarks/rllib_speed.py --game picchetto --flag episode=hand --runners 1 2 4
    python benchmarks/rllib_speed.py --engines batched --num-envs 1024 --profile    # where a runner's time goes

| engine | env runner | what one env step is |
|---|---|---|
| ``aec`` | RLlib's ``MultiAgentEnvRunner`` over the game's AEC env (``train/rllib/env.py``), ``configs/<game>/rllib.yaml`` | one decision of the seat to act (every seat learns: each step is a learner step) |
| ``batched`` | RLlib's ``SingleAgentEnvRunner`` over the batched engine's vector env (``train/rllib/vector_env.py``), ``--num-envs`` games per runner, ``--opponents`` inside the env | one decision of the learner's seat (the opponents' moves happen inside the step) |

For each engine and number of env runners it builds the trainer's algorithm on a local Ray cluster (the masked
module, the engine's connectors, no self-play: ``selfplay: false``), runs one round to warm up, then
times ``--repeats`` rounds in which every env runner samples ``--steps`` (AEC) or ``--batched-steps`` (batched, 262,144 by default: rounds of a few seconds) learner steps at once (``EnvRunner.sample``,
in parallel, each in its own process, then ``get_metrics`` as a training iteration does); the best round is kept. It prints learner steps per wall second in total and
per runner, per CPU second of the runners (which does not depend on the other jobs of a shared machine), the
speed-up of 2 runners over 1, and the batched engine over the AEC one, with the command, the CPU, the versions and
the load average before and after. No training happens in the timed part.

``--profile`` also samples ``--batched-steps`` steps in this process (``num_env_runners: 0``) under ``cProfile`` (CPU
time) and prints where a batched runner's time goes: the vector env's step, RLlib's episode bookkeeping, the
connectors and the module's forward pass, the callbacks.
"""

from __future__ import annotations

import argparse
import os
import platform
import shlex
import sys
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

#: profile groups: (name, the functions whose cumulative CPU time it is)
GROUPS = (
    ("vector env step (engine, opponents, observations)", ("env_runner.py", "_try_env_step")),
    ("RLlib episodes: add_env_step/add_env_reset", ("single_agent_episode.py", "add_env_step"),
     ("single_agent_episode.py", "add_env_reset")),
    ("RLlib episodes: new, to_numpy, cut", ("single_agent_env_runner.py", "_new_episode"),
     ("single_agent_episode.py", "to_numpy"), ("single_agent_episode.py", "cut")),
    ("RLlib unbatch of observations and actions", ("space_utils.py", "unbatch")),
    ("connectors and the module's forward pass", ("connector_pipeline_v2.py", "__call__")),
    ("callbacks (make_callback per sub-env and step)", ("single_agent_env_runner.py", "_make_on_episode_callback")),
)


def _args(engine: str, game: str, flags: dict, runners: int, a: argparse.Namespace):
    from train.config import load_config
    from train.rllib import Args, check_args

    overrides = {"num_env_runners": runners, "train_batch_size": 1000, "minibatch_size": 250, "selfplay": False,
                 "env_engine": engine}
    if engine == "batched":
        overrides.update(opponents=a.opponents, num_envs_per_env_runner=a.num_envs,
                         rollout_fragment_length=a.rollout_fragment_length,
                         train_batch_size=a.num_envs * a.rollout_fragment_length * max(runners, 1),
                         minibatch_size=a.num_envs * a.rollout_fragment_length)
    args = load_config(Args, ROOT / "configs" / game / "rllib.yaml", overrides)
    args.env = {**args.env, **flags}
    check_args(args)
    return args


def _sample(er, n: int) -> tuple[int, float, float]:
    """On an env runner: (learner steps, wall s, CPU s) of sampling ``n`` steps and handing over its metrics (as in
    a training iteration: the runner keeps its finished episodes for the metrics until then)."""
    t, c = time.perf_counter(), time.process_time()
    episodes = er.sample(num_timesteps=n, random_actions=False)
    er.get_metrics()
    return sum(e.env_steps() for e in episodes), time.perf_counter() - t, time.process_time() - c


def measure(engine: str, game: str, flags: dict, runners: int, steps: int, a: argparse.Namespace) -> dict:
    """The best of ``a.repeats`` rounds of every runner sampling ``steps`` at once."""
    import ray

    from train.rllib.algorithm import build_config

    args = _args(engine, game, flags, runners, a)
    ray.init(num_cpus=runners + 1, include_dashboard=False, logging_level="warning", log_to_driver=False)
    algo = None
    try:
        algo = build_config(args).build_algo()
        rounds = []
        for _ in range(a.repeats + 1):  # the first round warms up (first episodes and passes, numba's cache)
            t0 = time.perf_counter()
            out = algo.env_runner_group.foreach_env_runner(lambda er, n=steps: _sample(er, n), local_env_runner=False)
            rounds.append((sum(o[0] for o in out), time.perf_counter() - t0, sum(o[2] for o in out)))
        total, wall, cpu = max(rounds[1:], key=lambda r: r[0] / r[1])
        return {"engine": engine, "runners": runners, "steps": total, "wall": wall, "cpu": cpu,
                "per_s": total / wall, "per_runner": total / wall / runners, "per_cpu_s": total / max(cpu, 1e-9)}
    finally:
        if algo is not None:
            algo.stop()
        ray.shutdown()


def profile(game: str, flags: dict, steps: int, a: argparse.Namespace) -> None:
    """Where the time of a batched env runner goes (``GROUPS``), from cProfile in CPU time."""
    import cProfile
    import pstats

    import ray
    import torch

    from train.rllib.algorithm import build_config

    torch.set_num_threads(1)
    ray.init(num_cpus=1, include_dashboard=False, logging_level="warning", log_to_driver=False)
    algo = None
    try:
        algo = build_config(_args("batched", game, flags, 0, a)).build_algo()
        er = algo.env_runner
        er.sample(num_timesteps=steps)
        prof = cProfile.Profile(time.process_time)
        prof.enable()
        done = sum(e.env_steps() for e in er.sample(num_timesteps=steps))
        prof.disable()
    finally:
        if algo is not None:
            algo.stop()
        ray.shutdown()
    stats = pstats.Stats(prof).stats
    total = max(ct for (_, _, name), (_, _, _, ct, _) in stats.items() if name == "_sample")
    print(f"\nwhere a batched env runner's CPU time goes ({done} learner steps, {a.num_envs} games, cProfile "
          f"{total:.2f} CPU s, profiler overhead included)\n")
    print("| part | CPU s | share |\n|---|---|---|")
    for name, *keys in GROUPS:
        s = sum(ct for (file, _, fn), (_, _, _, ct, _) in stats.items() for f, k in keys if file.endswith(f) and fn == k)
        print(f"| {name} | {s:.2f} | {s / total:.0%} |")


def _machine() -> str:
    from importlib.metadata import version

    cpu = next((line.split(":", 1)[1].strip() for line in Path("/proc/cpuinfo").read_text().splitlines()
                if line.startswith("model name")), platform.processor()) if Path("/proc/cpuinfo").exists() else ""
    names = ("ray", "gymnasium", "torch", "numpy", "numba")
    return (f"{cpu}, {os.cpu_count()} cores; Python {platform.python_version()}, "
            + ", ".join(f"{n} {version(n)}" for n in names))


def _table(rows: list[dict], a: argparse.Namespace) -> None:
    print("| engine | env runners | learner steps | wall s | learner steps/s | per runner | per runner CPU s |")
    print("|---|---|---|---|---|---|---|")
    for r in rows:
        print(f"| {r['engine']} | {r['runners']} | {r['steps']:,} | {r['wall']:.2f} | {r['per_s']:,.0f} | "
              f"{r['per_runner']:,.0f} | {r['per_cpu_s']:,.0f} |")
    by = {(r["engine"], r["runners"]): r for r in rows}
    lo, hi = min(a.runners), max(a.runners)
    for engine in a.engines:
        if lo != hi and (engine, lo) in by and (engine, hi) in by:
            print(f"\n{engine}: {hi} runners sample {by[engine, hi]['per_s'] / by[engine, lo]['per_s']:.2f}x "
                  f"{lo} runner(s) (wall)")
    for n in a.runners:
        if ("aec", n) in by and ("batched", n) in by:
            b, m = by["batched", n], by["aec", n]
            print(f"{n} runner(s): batched / aec = {b['per_runner'] / m['per_runner']:.1f}x per runner (wall), "
                  f"{b['per_cpu_s'] / m['per_cpu_s']:.1f}x per CPU second")


def main(argv: list[str] | None = None) -> None:
    p = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    p.add_argument("--game", default="briscola5")
    p.add_argument("--flag", action="append", default=[], metavar="KEY=VALUE", help="env flag (repeatable)")
    p.add_argument("--engines", nargs="+", default=["aec", "batched"], choices=["aec", "batched"])
    p.add_argument("--runners", type=int, nargs="+", default=[1, 2])
    p.add_argument("--steps", type=int, default=2000, help="steps each aec runner samples per round")
    p.add_argument("--batched-steps", type=int, default=262144,
                   help="steps each batched runner samples per round (rounds of a few seconds: shorter ones make the 2-runner ratio noisy)")
    p.add_argument("--num-envs", type=int, default=1024, help="games per batched env runner")
    p.add_argument("--rollout-fragment-length", type=int, default=64, help="batched: steps per game per sample")
    p.add_argument("--opponents", default="heuristic", help="batched: the opponents inside the vector env")
    p.add_argument("--repeats", type=int, default=3)
    p.add_argument("--profile", action="store_true", help="also profile a batched runner in this process")
    a = p.parse_args(argv)
    from train.evaluation.cli import parse_flag

    flags = dict(parse_flag(f) for f in a.flag)
    print(f"command: {shlex.join(['python', 'benchmarks/rllib_speed.py', *(sys.argv[1:] if argv is None else argv)])}")
    print(f"machine: {_machine()}")
    print(f"load average before: {' '.join(f'{x:.2f}' for x in os.getloadavg())}")
    rows = []
    for n in a.runners:
        for engine in a.engines:
            steps = a.batched_steps if engine == "batched" else a.steps
            rows.append(measure(engine, a.game, flags, n, steps, a))
            print(f"  {engine}, {n} runner(s): {rows[-1]['per_runner']:,.0f} learner steps/s per runner "
                  f"(load {os.getloadavg()[0]:.2f})", flush=True)
    print(f"load average after: {' '.join(f'{x:.2f}' for x in os.getloadavg())}")
    print(f"\n{a.game} {flags or ''}: learner steps sampled per second by RLlib's env runners (best of {a.repeats}; "
          f"batched: {a.num_envs} games per runner, opponents {a.opponents})\n")
    _table(rows, a)
    if a.profile:
        profile(a.game, flags, a.batched_steps, a)


if __name__ == "__main__":
    main()
