"""Picchetto (Italian Piquet), version 0: `env()`, `raw_env` (PettingZoo AEC) and `vector_env()` (batched, numba).

`help(picchetto_v0.env)` shows the env's documentation (flags, observation, actions, rewards:
`envs.picchetto.env`).
"""

from __future__ import annotations

from typing import Any

from envs.core.extras import needs_numba
from envs.picchetto.env import env, raw_env

__all__ = ["env", "raw_env", "vector_env"]


def vector_env(num_envs: int, **flags: Any):
    """`num_envs` Picchetto games stepped together by numba kernels (`envs.picchetto.batched.PicchettoVectorEnv`; API:
    `envs.core.vector`). The flags are `env()`'s, and the observations, masks and rewards are the AEC
    env's, byte for byte. Needs numba (`pip install 'mazzo[vector]'`)."""
    return needs_numba("envs.picchetto.batched", "PicchettoVectorEnv")(num_envs, **flags)
