"""Briscola in cinque, version 0: `env()`, `raw_env` (PettingZoo AEC) and `vector_env()` (batched, numba).

`help(briscola5_v0.env)` shows the env's documentation (flags, observation, actions, rewards:
`envs.briscola5.env`).
"""

from __future__ import annotations

from typing import Any

from envs.briscola5.env import env, raw_env
from envs.core.extras import needs_numba

__all__ = ["env", "raw_env", "vector_env"]


def vector_env(num_envs: int, **flags: Any):
    """`num_envs` games of Briscola in cinque stepped together by numba kernels (`envs.briscola5.batched.Briscola5VectorEnv`; API:
    `envs.core.vector`). The flags are `env()`'s, and the observations, masks and rewards are the AEC
    env's, byte for byte. Needs numba (`pip install 'mazzo[vector]'`)."""
    return needs_numba("envs.briscola5.batched", "Briscola5VectorEnv")(num_envs, **flags)
