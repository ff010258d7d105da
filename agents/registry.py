"""``make_agent``: spec string -> player, with clear errors for unknown specs."""

from __future__ import annotations

import importlib
from typing import Any

from agents.base import BaseAgent
from agents.random_agent import RandomAgent
from envs.core.errors import ConfigError
from envs.registry import GAMES

__all__ = ["make_agent", "AGENT_KINDS", "HEURISTICS"]

AGENT_KINDS = ("random", "heuristic", "ppo:PATH", "pretrained:GAME")
#: game -> "module:Class" of its heuristic (imported lazily).
HEURISTICS = {
    "briscola5": "agents.briscola5_heuristic:Briscola5Heuristic",
    "pigugnin": "agents.pigugnin_heuristic:PigugninHeuristic",
    "picchetto": "agents.picchetto_heuristic:PicchettoHeuristic",
}


def _load(path: str) -> type:
    module, cls = path.split(":")
    return getattr(importlib.import_module(module), cls)


def make_agent(spec: str, game: str, seed: int | None = None, **kwargs: Any) -> BaseAgent:
    """Build a player for ``game`` from ``spec`` (see ``AGENT_KINDS``).

    ``ppo:PATH`` plays a safe checkpoint (``*.mazzo.zip``, ``agents/checkpoint.py``): nothing in the file is
    executed, and a Stable-Baselines3 ``.zip`` is refused unopened (convert one you trust with
    ``python -m agents.trained export SRC DST``).
    """
    if game not in GAMES:
        raise ConfigError(f"unknown game {game!r}; known games: {', '.join(GAMES)}")
    if not isinstance(spec, str):
        raise ConfigError(f"an agent spec must be a string, one of {', '.join(AGENT_KINDS)}; got {spec!r}")
    if spec == "random":
        return RandomAgent(game, seed=seed)
    if spec == "heuristic":
        return _load(HEURISTICS[game])(game, seed=seed, **kwargs)
    kind, _, arg = spec.partition(":")
    if kind in ("ppo", "pretrained") and arg:
        from agents.trained import TrainedAgent  # imports torch: only when asked for

        if kind == "pretrained":
            return TrainedAgent.pretrained(arg, game=game, seed=seed, **kwargs)
        return TrainedAgent(arg, game=game, seed=seed, **kwargs)
    raise ConfigError(f"unknown agent {spec!r}; known agents: {', '.join(AGENT_KINDS)}")
