"""Picchetto (Italian Piquet), version 0: ``env()`` and ``raw_env`` (see ``envs.picchetto.env``)."""

from envs.picchetto.env import env, raw_env

__all__ = ["env", "raw_env"]
