"""The protocol every Mazzo player implements.

An agent sits at one seat of one game. It receives that seat's observation dict
(``{"observation": float32[...], "action_mask": int8[...]}``, exactly what ``env.last()``
returns) and returns a legal action id. It never sees the environment or its state, so a
heuristic cannot cheat. Randomness comes from a seeded ``np.random.Generator``.

| method            | when                                   |
|-------------------|----------------------------------------|
| ``act(obs)``      | every time the seat is to act          |
| ``reset()``       | at the start of every episode (optional) |
| ``seed(seed)``    | to make the agent's choices reproducible |
"""

from __future__ import annotations

from collections.abc import Iterable
from typing import Any, Protocol, runtime_checkable

import numpy as np

__all__ = ["Agent", "BaseAgent", "legal_actions", "cards_mask"]


@runtime_checkable
class Agent(Protocol):
    name: str

    def act(self, observation: dict[str, np.ndarray]) -> int: ...

    def reset(self) -> None: ...

    def seed(self, seed: int | None) -> None: ...


def legal_actions(observation: dict[str, np.ndarray]) -> np.ndarray:
    """Legal action ids from an observation's mask; raises if the seat is not to act."""
    legal = np.flatnonzero(observation["action_mask"])
    if legal.size == 0:
        raise ValueError("the action mask is all zeros: this seat is not to act (or the episode is over)")
    return legal


def cards_mask(*groups: Iterable[int]) -> int:
    """The card set (bit ``c`` for card id ``c``) of every card id in ``groups``.

    For the plain-int ids of ``decode`` views (no parsing, unlike ``Deck.mask``).
    """
    mask = 0
    for cards in groups:
        for c in cards:
            mask |= 1 << c
    return mask


class BaseAgent:
    """Convenience base: a name, the game, and a seeded generator."""

    name = "agent"

    def __init__(self, game: str, seed: int | None = None, **_: Any):
        self.game = game
        self.rng = np.random.default_rng(seed)

    def act(self, observation: dict[str, np.ndarray]) -> int:
        raise NotImplementedError

    def reset(self) -> None:
        pass

    def seed(self, seed: int | None) -> None:
        self.rng = np.random.default_rng(seed)

    def __repr__(self) -> str:
        return f"{type(self).__name__}(game={self.game!r})"
