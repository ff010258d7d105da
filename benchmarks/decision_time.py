"""Milliseconds per decision of one player seated among heuristics (``search_speed.py`` and ``strength.py``)."""

from __future__ import annotations

import sys
import time
from pathlib import Path

import numpy as np

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from agents.registry import make_agent  # noqa: E402
from envs.registry import make_raw_env  # noqa: E402


def time_player(spec: str, game: str, flags: dict, decisions: int, seed: int = 0) -> dict:
    """Wall and CPU ms per decision with a choice of ``spec`` at seat 0, heuristics at the others, over
    ``decisions`` timed decisions (the first one is not timed: it loads or compiles), deals ``seed``,
    ``seed + 1``, ...: the medians, the 95th percentiles, how many decisions and how many episodes."""
    env = make_raw_env(game, **flags)
    player = make_agent(spec, game, seed=seed, flags=flags)
    others = [make_agent("heuristic", game, seed=seed + s) for s in range(len(env.possible_agents))]
    wall, cpu = [], []
    episode, skipped = 0, False
    while len(wall) < decisions:
        env.reset(seed=seed + episode)
        episode += 1
        player.reset()
        while not env.episode_over and len(wall) < decisions:
            name = env.agent_selection
            seat, obs = env.agent_name_mapping[name], env.observe(name)
            if seat != 0:
                env.step(others[seat].act(obs))
                continue
            w0, c0 = time.perf_counter(), time.process_time()
            action = player.act(obs)
            w1, c1 = time.perf_counter(), time.process_time()
            if obs["action_mask"].sum() > 1:
                if skipped:
                    wall.append(w1 - w0)
                    cpu.append(c1 - c0)
                skipped = True  # the first decision loads or compiles
            env.step(action)
    w, c = np.array(wall) * 1e3, np.array(cpu) * 1e3
    return {"wall_median": float(np.median(w)), "wall_p95": float(np.percentile(w, 95)),
            "cpu_median": float(np.median(c)), "cpu_p95": float(np.percentile(c, 95)), "decisions": len(w),
            "episodes": episode}
