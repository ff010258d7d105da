"""Learner steps per second: the Gymnasium vector env on the batched engine against SyncVectorEnv over SingleSeatEnv.

    python benchmarks/gym_vector_speed.py                                   # every game, 1,024 envs, heuristic
    python benchmarks/gym_vector_speed.py --games briscola5 --num-envs 256 --seconds 5
    python benchmarks/gym_vector_speed.py --opponents random --flag episode=hand

For each game, in the same process and alternately (``--repeats`` times each, the median reported):

| row | what is timed |
|---|---|
| ``vector`` | ``gym.make_vec(id, num_envs, vectorization_mode="vector_entry_point", opponents=..., seat="random")``: ``train.vector_single_seat.VectorSingleSeatEnv``, the opponents' numba ports acting in batch |
| ``sync`` | ``gym.make_vec(id, num_envs, vectorization_mode="sync", ...)``: ``SyncVectorEnv`` over ``num_envs`` ``SingleSeatEnv``s, the Python opponents one decision at a time |

Only ``step()`` is timed; the learner's actions (uniform over its legal ones, from ``action_masks()``) are
drawn outside the clock, the same way for both. One learner step is one sub-env's step (``num_envs`` per
``step()`` call). Rates per wall second and per CPU second of this process (``time.process_time``: on a
shared machine the CPU rate is the one that does not depend on the other jobs). The output names the
command, the machine, the versions and the load average before and after. Nothing is asserted.
"""

from __future__ import annotations

import argparse
import os
import platform
import shlex
import sys
import time
from pathlib import Path

import numpy as np

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

import gymnasium as gym  # noqa: E402

import train  # noqa: E402,F401  (registers the ids)
from envs.registry import GAMES, game_spec  # noqa: E402


def _masks(env) -> np.ndarray:
    inner = env.unwrapped
    if hasattr(inner, "action_masks"):
        return inner.action_masks()
    return np.stack(env.call("action_masks"))


def measure(env, seconds: float, rng: np.random.Generator) -> tuple[float, float]:
    """(learner steps per wall second, per CPU second) of ``env.step`` over about ``seconds``."""
    wall = cpu = 0.0
    steps = 0
    while wall < seconds:
        m = _masks(env)
        acts = np.argmax(rng.random(m.shape) * m, axis=1)  # a random legal id (0 where none: ignored)
        w0, c0 = time.perf_counter(), time.process_time()
        env.step(acts)
        wall += time.perf_counter() - w0
        cpu += time.process_time() - c0
        steps += env.num_envs
    return steps / wall, steps / cpu


def machine() -> str:
    model = platform.processor() or platform.machine()
    try:
        for line in Path("/proc/cpuinfo").read_text().splitlines():
            if line.startswith("model name"):
                model = line.split(":", 1)[1].strip()
                break
    except OSError:
        pass
    return f"{model}, {os.cpu_count()} logical cores"


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--games", nargs="*", default=list(GAMES), choices=list(GAMES))
    parser.add_argument("--num-envs", type=int, default=1024)
    parser.add_argument("--opponents", default="heuristic")
    parser.add_argument("--seconds", type=float, default=3.0, help="timed step() seconds per measurement")
    parser.add_argument("--repeats", type=int, default=3, help="measurements of each env (median)")
    parser.add_argument("--flag", action="append", default=[], metavar="KEY=VALUE", help="a game flag (int if it parses)")
    args = parser.parse_args()
    flags = {}
    for item in args.flag:
        key, _, value = item.partition("=")
        flags[key] = int(value) if value.lstrip("-").isdigit() else value
    print(f"command: python {shlex.join(sys.argv)}")
    print(f"machine: {machine()}; Python {platform.python_version()}, numpy {np.__version__}, "
          f"gymnasium {gym.__version__}; load average before: {', '.join(f'{x:.2f}' for x in os.getloadavg())}")
    print(f"num_envs {args.num_envs}, opponents {args.opponents!r}, seat 'random', flags {flags or 'defaults'}; "
          f"median of {args.repeats} x {args.seconds:g} s of step() per env\n")
    print("| game | vector steps/s (wall) | vector steps/s (CPU) | sync steps/s (wall) | sync steps/s (CPU) "
          "| ratio (wall) | ratio (CPU) |")
    print("|---|---:|---:|---:|---:|---:|---:|")
    for game in args.games:
        gid = game_spec(game).gym_id
        kwargs = dict(opponents=args.opponents, seat="random", **flags)
        envs = {
            "vector": gym.make_vec(gid, num_envs=args.num_envs, vectorization_mode="vector_entry_point", **kwargs),
            "sync": gym.make_vec(gid, num_envs=args.num_envs, vectorization_mode="sync", **kwargs),
        }
        rng = np.random.default_rng(0)
        for env in envs.values():
            env.reset(seed=0)
            measure(env, min(0.5, args.seconds), rng)  # warm-up: numba's cache, first calls
        rates: dict[str, list[tuple[float, float]]] = {name: [] for name in envs}
        for _ in range(args.repeats):
            for name, env in envs.items():
                rates[name].append(measure(env, args.seconds, rng))
        (vw, vc), (sw, sc) = (tuple(np.median(np.array(rates[k]), axis=0)) for k in ("vector", "sync"))
        print(f"| {game} | {vw:,.0f} | {vc:,.0f} | {sw:,.0f} | {sc:,.0f} | {vw / sw:.1f}x | {vc / sc:.1f}x |", flush=True)
        for env in envs.values():
            env.close()
    print(f"\nload average after: {', '.join(f'{x:.2f}' for x in os.getloadavg())}")


if __name__ == "__main__":
    main()
