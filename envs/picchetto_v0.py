"""Picchetto (Italian Piquet), version 0: ``env()`` and ``raw_env`` (see ``envs.picchetto.env``),
and ``vector_env()``, the batched engine (``envs.picchetto.batched``; needs numba)."""

from __future__ import annotations

from typing import Any

from envs.picchetto.env import env, raw_env

__all__ = ["env", "raw_env", "vector_env"]


def vector_env(num_envs: int, **flags: Any):
    """``num_envs`` Picchetto games stepped together by numba kernels (``PicchettoVectorEnv``).

    Same flags, observations, masks and rewards as ``env()``; see ``envs.core.vector`` for the API.
    """
    try:
        from envs.picchetto.batched import PicchettoVectorEnv
    except ModuleNotFoundError as err:
        if err.name != "numba" and not (err.name or "").startswith("numba."):
            raise
        raise ImportError("vector_env needs numba: pip install 'mazzo[vector]'") from err
    return PicchettoVectorEnv(num_envs, **flags)
