"""Pigugnìn (Busca Reggiana), version 0: `env()`, `raw_env` (PettingZoo AEC) and `vector_env()` (batched, numba).

`help(pigugnin_v0.env)` shows the env's documentation (flags, observation, actions, rewards:
`envs.pigugnin.env`).
"""

from __future__ import annotations

from typing import Any

from envs.core.extras import needs_numba
from envs.pigugnin.env import env, raw_env

__all__ = ["env", "raw_env", "vector_env"]


def vector_env(num_envs: int, **flags: Any):
    """`num_envs` Pigugnìn games stepped together by numba kernels (`envs.pigugnin.batched.PigugninVectorEnv`; API:
    `envs.core.vector`). The flags are `env()`'s, and the observations, masks and rewards are the AEC
    env's, byte for byte. Needs numba (`pip install 'mazzo[vector]'`)."""
    return needs_numba("envs.pigugnin.batched", "PigugninVectorEnv")(num_envs, **flags)
