"""Agent-steps and hands per second of uniformly random legal play, for every game.

Each step fetches the observation and the mask of the agent to act (``last()``), picks a
uniformly random legal action and steps, exactly what a training or evaluation loop does.
Measured through ``env()`` (the PettingZoo wrapper chain) and through ``raw_env``.

    python benchmarks/env_speed.py                 # all games, 200k steps each
    python benchmarks/env_speed.py --games briscola5 --steps 50000

Figures vary with the machine's load: run on a quiet machine and report the command.
"""

from __future__ import annotations

import argparse
import platform
import random
import time

import numpy as np

from envs.registry import env_module, variants

#: The configurations measured, label -> (game, flags): every game's ``GameSpec.variants`` (one per game,
#: plus the 5-player Pigugnìn)
CONFIGS = variants()


def run(make, steps: int, seed: int) -> tuple[float, float]:
    """(agent-steps/s, hands/s) of random legal play over at least ``steps`` agent-steps."""
    env = make()
    rnd = random.Random(seed)
    env.reset(seed=seed)
    done_steps = hands = 0
    start = time.perf_counter()
    while done_steps < steps:
        env.reset()
        for _agent in env.agent_iter():
            obs, _, term, trunc, info = env.last()
            if term or trunc:
                env.step(None)
                continue
            legal = np.flatnonzero(obs["action_mask"])
            env.step(int(legal[int(rnd.random() * legal.size)]))
            done_steps += 1
        hands += len(info["result"].get("hands", [None]))
    elapsed = time.perf_counter() - start
    return done_steps / elapsed, hands / elapsed


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--games", nargs="*", default=list(CONFIGS), help="configurations to measure")
    parser.add_argument("--steps", type=int, default=200_000, help="agent-steps per measurement")
    parser.add_argument("--seed", type=int, default=0)
    args = parser.parse_args()
    print(f"# {platform.python_implementation()} {platform.python_version()}, numpy {np.__version__}, "
          f"{platform.machine()}, one process")
    print("| game | through | agent-steps/s | hands/s |")
    print("|---|---|---|---|")
    for name in args.games:
        if name not in CONFIGS:
            raise SystemExit(f"unknown configuration {name!r}; known: {', '.join(CONFIGS)}")
        game, flags = CONFIGS[name]
        module = env_module(game)
        for label, factory in (("env()", module.env), ("raw_env", module.raw_env)):
            steps_s, hands_s = run(lambda f=factory, kw=flags: f(**kw), args.steps, args.seed)
            print(f"| {name} | {label} | {steps_s:,.0f} | {hands_s:,.0f} |", flush=True)


if __name__ == "__main__":
    main()
