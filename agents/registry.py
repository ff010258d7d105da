"""Agent specs: ``parse_agent_spec`` validates a spec string once, ``make_agent`` builds the player.

| spec              | player                                                              |
|-------------------|---------------------------------------------------------------------|
| ``random``        | ``RandomAgent``: a uniformly random legal action                    |
| ``heuristic``     | the game's heuristic (``GameSpec.heuristic_class()``, ``envs.registry``) |
| ``ppo:PATH``      | ``TrainedAgent`` playing the safe checkpoint ``PATH`` (``.mazzo.zip`` may be left out) |
| ``pretrained:GAME`` | the checkpoint shipped in ``agents/pretrained/`` for ``GAME``     |

Every caller (training's config check, the single-seat env, evaluation, the play page) goes
through ``parse_agent_spec``, so a spec means the same thing and fails the same way everywhere.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from agents.base import BaseAgent
from agents.checkpoint import checkpoint_path
from agents.random_agent import RandomAgent
from envs.core.errors import ConfigError
from envs.registry import GAMES, game_spec

__all__ = ["make_agent", "parse_agent_spec", "AgentSpec", "AGENT_KINDS"]

AGENT_KINDS = ("random", "heuristic", "ppo:PATH", "pretrained:GAME")


@dataclass(frozen=True)
class AgentSpec:
    """A validated agent spec for one game: ``kind`` (random, heuristic, ppo, pretrained) and its
    ``arg`` (the checkpoint path or the pretrained game; ``""`` for random and heuristic)."""

    text: str
    kind: str
    arg: str
    game: str

    @property
    def trained(self) -> bool:
        return self.kind in ("ppo", "pretrained")

    def build(self, seed: int | None = None, flags: dict[str, Any] | None = None, **kwargs: Any) -> BaseAgent:
        """The player. ``flags`` (the env's flags) go to trained agents only, which check their input
        shape against them. Without torch a trained agent raises ``ImportError``."""
        if self.kind == "random":
            return RandomAgent(self.game, seed=seed)
        if self.kind == "heuristic":
            return game_spec(self.game).heuristic_class()(self.game, seed=seed, **kwargs)
        from agents.trained import TrainedAgent  # imports torch: only when asked for

        if flags is not None:
            kwargs["flags"] = dict(flags)
        if self.kind == "pretrained":
            return TrainedAgent.pretrained(self.arg, game=self.game, seed=seed, **kwargs)
        return TrainedAgent(self.arg, game=self.game, seed=seed, **kwargs)


def parse_agent_spec(spec: str, game: str) -> AgentSpec:
    """Validate ``spec`` for ``game`` without building the player.

    Raises ``ConfigError`` for an unknown game (``envs.registry.game_spec``), a spec that is not a
    string or not one of ``AGENT_KINDS``, or ``pretrained:OTHER`` for another game of the registry;
    ``FileNotFoundError`` ("checkpoint not found") for a ``ppo:PATH`` whose file does not exist."""
    game_spec(game)
    if not isinstance(spec, str):
        raise ConfigError(f"an agent spec must be a string, one of {', '.join(AGENT_KINDS)}; got {spec!r}")
    if spec in ("random", "heuristic"):
        return AgentSpec(spec, spec, "", game)
    kind, _, arg = spec.partition(":")
    if kind not in ("ppo", "pretrained") or not arg:
        raise ConfigError(f"unknown agent {spec!r}; known agents: {', '.join(AGENT_KINDS)}")
    if kind == "ppo":
        checkpoint_path(arg)
    elif arg in GAMES and arg != game:
        raise ConfigError(f"agent {spec!r} was trained on {arg!r} and does not fit game {game!r}")
    return AgentSpec(spec, kind, arg, game)


def make_agent(spec: str, game: str, seed: int | None = None, **kwargs: Any) -> BaseAgent:
    """Build a player for ``game`` from ``spec`` (see ``AGENT_KINDS``; ``parse_agent_spec`` validates it).

    ``ppo:PATH`` plays a safe checkpoint (``*.mazzo.zip``, ``agents/checkpoint.py``): nothing in the file is
    executed, and a Stable-Baselines3 ``.zip`` is refused unopened (convert one you trust with
    ``python -m agents.trained export SRC DST``).
    """
    return parse_agent_spec(spec, game).build(seed=seed, **kwargs)
