"""Decisions per second of each heuristic agent, measured on stored observations.

Observations are first collected from seeded playouts of uniformly random legal play through
``raw_env`` (every decision point of every seat, all phases); then only ``agent.act(obs)`` is
timed over that fixed list, ``--repeat`` times, and the best and the median pass are reported.
The same seed gives the same observations, so runs before and after a change time the same
work. ``--save-actions`` / ``--check-actions`` write or compare the actions the heuristics
choose on those observations (a refactor must not change a single one).

    python benchmarks/heuristic_speed.py                       # all four configurations
    python benchmarks/heuristic_speed.py --agents heuristic heuristic-v1 plain
    python benchmarks/heuristic_speed.py --games briscola5 --obs 2000 --repeat 3
    python benchmarks/heuristic_speed.py --save-actions /tmp/before.json
    python benchmarks/heuristic_speed.py --check-actions /tmp/before.json

Figures vary with the machine's load: the output names the command, the machine and the
load average, so a table can be reported with what it was measured on.
"""

from __future__ import annotations

import argparse
import json
import os
import platform
import random
import shlex
import statistics
import sys
import time

import numpy as np

from agents import make_agent
from envs.registry import make_raw_env, variants

#: The configurations measured, label -> (game, env flags): every game's ``GameSpec.variants`` (the
#: heuristic is the game's)
CONFIGS = variants()


def collect(game: str, flags: dict, count: int, seed: int) -> list[dict[str, np.ndarray]]:
    """``count`` observations (copies) of seats to act, from seeded random playouts."""
    env = make_raw_env(game, **flags)
    rnd = random.Random(seed)
    out: list[dict[str, np.ndarray]] = []
    episode = 0
    while len(out) < count:
        env.reset(seed=seed + episode)
        episode += 1
        for _agent in env.agent_iter():
            obs, _, term, trunc, _ = env.last()
            if term or trunc:
                env.step(None)
                continue
            out.append({k: np.array(v, copy=True) for k, v in obs.items()})
            legal = np.flatnonzero(obs["action_mask"])
            env.step(int(legal[int(rnd.random() * legal.size)]))
            if len(out) >= count:
                break
    return out


def time_agent(agent, observations: list[dict[str, np.ndarray]], repeat: int) -> tuple[list[float], list[float]]:
    """Decisions per wall-clock second and per CPU second of each of ``repeat`` passes.

    On a shared machine the wall-clock rate also counts the time the process waited for a
    core; the CPU-time rate (``time.process_time``) does not, so it varies less with load.
    """
    act = agent.act
    wall, cpu = [], []
    for _ in range(repeat):
        start, start_cpu = time.perf_counter(), time.process_time()
        for obs in observations:
            act(obs)
        wall.append(len(observations) / (time.perf_counter() - start))
        cpu.append(len(observations) / (time.process_time() - start_cpu))
    return wall, cpu


def machine() -> str:
    model = platform.processor() or platform.machine()
    try:
        with open("/proc/cpuinfo") as fh:
            for line in fh:
                if line.startswith("model name"):
                    model = line.split(":", 1)[1].strip()
                    break
    except OSError:
        pass
    try:
        usable = len(os.sched_getaffinity(0))
    except AttributeError:
        usable = os.cpu_count()
    return f"nproc {usable}, {model}"


def load() -> str:
    try:
        return "load average " + ", ".join(f"{x:.2f}" for x in os.getloadavg()) + " (1, 5, 15 min)"
    except OSError:
        return "load average unavailable"


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--games", nargs="*", default=list(CONFIGS), help="configurations to measure")
    parser.add_argument("--obs", type=int, default=5000, help="observations collected per configuration")
    parser.add_argument("--repeat", type=int, default=5, help="timed passes over the observations")
    parser.add_argument("--seed", type=int, default=0)
    parser.add_argument("--agents", nargs="+", default=["heuristic"],
                        help="rule-based players to time (heuristic, heuristic-v1, plain), each on the same observations")
    parser.add_argument("--save-actions", metavar="FILE", help="write the chosen actions (JSON) to FILE")
    parser.add_argument("--check-actions", metavar="FILE", help="compare the chosen actions with FILE")
    args = parser.parse_args()
    unknown = [g for g in args.games if g not in CONFIGS]
    if unknown:
        raise SystemExit(f"unknown configuration(s) {unknown}; known: {', '.join(CONFIGS)}")

    print(f"command: `python {' '.join(shlex.quote(a) for a in sys.argv)}`")
    print(f"machine: {machine()}; {platform.python_implementation()} {platform.python_version()}, "
          f"numpy {np.__version__}")
    print(f"before: {load()}")
    print()
    print("| configuration | player | observations | decisions/s (best) | decisions/s (median) | decisions per CPU-s (best) "
          "| µs per decision (best) |")
    print("|---|---|---:|---:|---:|---:|---:|")
    actions: dict[str, list[int]] = {}
    for name in args.games:
        game, flags = CONFIGS[name]
        observations = collect(game, flags, args.obs, args.seed)
        for spec in args.agents:
            agent = make_agent(spec, game, seed=args.seed, flags=flags)
            key = name if spec == "heuristic" else f"{name} / {spec}"
            actions[key] = [int(agent.act(obs)) for obs in observations]  # also warms up
            wall, cpu = time_agent(agent, observations, args.repeat)
            best, median = max(wall), statistics.median(wall)
            print(f"| {name} | {spec} | {len(observations):,} | {best:,.0f} | {median:,.0f} | {max(cpu):,.0f} "
                  f"| {1e6 / best:,.0f} |", flush=True)
    print()
    print(f"after: {load()}")

    if args.save_actions:
        with open(args.save_actions, "w") as fh:
            json.dump({"seed": args.seed, "obs": args.obs, "actions": actions}, fh)
        print(f"actions written to {args.save_actions}")
    if args.check_actions:
        with open(args.check_actions) as fh:
            saved = json.load(fh)
        if (saved["seed"], saved["obs"]) != (args.seed, args.obs):
            raise SystemExit(f"{args.check_actions} was made with seed {saved['seed']}, {saved['obs']} observations")
        bad = 0
        for name, got in actions.items():
            want = saved["actions"].get(name)
            if want is None:
                print(f"{name}: not in {args.check_actions}")
                continue
            diff = sum(a != b for a, b in zip(got, want, strict=False)) + abs(len(got) - len(want))
            bad += diff
            print(f"{name}: {len(got):,} actions, {diff} differ")
        if bad:
            raise SystemExit(f"{bad} actions differ from {args.check_actions}")


if __name__ == "__main__":
    main()
