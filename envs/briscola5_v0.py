"""Briscola in cinque, version 0: `env(**flags)`, `raw_env` and `vector_env` (see `envs.briscola5.env`)."""

from typing import Any

from envs.briscola5.env import env, raw_env

__all__ = ["env", "raw_env", "vector_env"]


def vector_env(num_envs: int, **flags: Any):
    """`num_envs` games of Briscola in cinque stepped together by numba kernels.

    Returns an `envs.briscola5.batched.Briscola5VectorEnv` (API: `envs.core.vector`); the
    flags are `env()`'s. Its observations, masks and rewards are the AEC env's, byte for byte.
    """
    try:
        from envs.briscola5.batched import Briscola5VectorEnv
    except ModuleNotFoundError as err:
        if err.name == "numba" or (err.name or "").startswith("numba."):
            raise ImportError("vector_env needs numba: pip install 'mazzo[vector]'") from err
        raise
    return Briscola5VectorEnv(num_envs, **flags)
