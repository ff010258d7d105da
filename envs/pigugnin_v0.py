"""Pigugnìn (Busca Reggiana), version 0: ``env(**flags)`` and ``raw_env`` (PettingZoo AEC), ``vector_env``."""

from __future__ import annotations

from typing import Any

from envs.pigugnin.env import env, raw_env

__all__ = ["env", "raw_env", "vector_env"]


def vector_env(num_envs: int, **flags: Any):
    """``num_envs`` Pigugnìn games stepped together by numba kernels (``envs.pigugnin.batched``).

    The same flags as ``env()``; see ``envs.core.vector`` for the API. Needs numba
    (``pip install 'mazzo[vector]'``).
    """
    try:
        from envs.pigugnin.batched import PigugninVectorEnv
    except ModuleNotFoundError as err:
        if err.name != "numba" and not (err.name or "").startswith("numba."):
            raise
        raise ImportError("vector_env needs numba: pip install 'mazzo[vector]'") from err
    return PigugninVectorEnv(num_envs, **flags)
