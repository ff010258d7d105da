"""Helpers shared by the env tests of every game."""

from __future__ import annotations

import numpy as np


def trajectory(make_env, seed: int, **flags) -> list:
    """(agent, observation bytes, reward) of every step of one seeded random-play episode."""
    env = make_env(**flags)
    env.reset(seed=seed)
    rng = np.random.default_rng(seed)
    out = []
    for agent in env.agent_iter():
        obs, reward, term, trunc, _ = env.last()
        out.append((agent, obs["observation"].tobytes(), reward))
        env.step(None if term or trunc else int(rng.choice(np.flatnonzero(obs["action_mask"]))))
    return out
