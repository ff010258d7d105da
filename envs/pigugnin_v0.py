"""Pigugnìn (Busca Reggiana), version 0: ``env(**flags)`` and ``raw_env`` (PettingZoo AEC)."""

from envs.pigugnin.env import env, raw_env

__all__ = ["env", "raw_env"]
