"""Name -> environment lookup shared by agents, evaluation and training.

| name        | module                | players |
|-------------|-----------------------|---------|
| briscola5   | ``envs.briscola5_v0`` | 5       |
| pigugnin    | ``envs.pigugnin_v0``  | 4 or 5  |
| picchetto   | ``envs.picchetto_v0`` | 2       |
"""

from __future__ import annotations

import importlib
from types import ModuleType
from typing import Any

from envs.core.errors import ConfigError

__all__ = ["GAMES", "env_module", "make_env", "make_raw_env", "observation_module"]

GAMES: dict[str, str] = {
    "briscola5": "envs.briscola5_v0",
    "pigugnin": "envs.pigugnin_v0",
    "picchetto": "envs.picchetto_v0",
}


def _check(game: str) -> str:
    if game not in GAMES:
        raise ConfigError(f"unknown game {game!r}; known games: {', '.join(GAMES)}")
    return game


def env_module(game: str) -> ModuleType:
    """The public ``<game>_v0`` module (``env()`` and ``raw_env``)."""
    return importlib.import_module(GAMES[_check(game)])


def observation_module(game: str) -> ModuleType:
    """The game's observation module (layout table and ``decode``)."""
    return importlib.import_module(f"envs.{_check(game)}.observation")


def make_env(game: str, **flags: Any):
    """``env(**flags)`` of a game by name (the PettingZoo wrapper chain applied)."""
    return env_module(game).env(**flags)


def make_raw_env(game: str, **flags: Any):
    """``raw_env(**flags)`` of a game by name (no wrappers; fastest)."""
    return env_module(game).raw_env(**flags)
