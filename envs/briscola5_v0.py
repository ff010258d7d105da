"""Briscola in cinque, version 0: ``env(**flags)`` and ``raw_env`` (see ``envs.briscola5.env``)."""

from envs.briscola5.env import env, raw_env

__all__ = ["env", "raw_env"]
