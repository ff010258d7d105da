"""Pigugnìn: the privileged vector of a seat, what it cannot see (for a critic in training only).

Seat-relative (like the observation), float32, shape `(40 * (N - 1),)` (120 with 4 players, 160 with 5):

| slice | meaning |
|---|---|
| `[40 (k - 1), 40 k)`, k = 1 .. N - 1 | the current hand of seat `(seat + k) % N`: 1.0 for every card id it holds |

Nothing else is hidden: all 40 cards are dealt, and every card played and every captured pile
is public. `privileged(game, state, seat)` is the pure-Python reference; the batched engine
writes the same floats (`PigugninVectorEnv.privileged`), checked against it by
`tests/envs/test_privileged.py`.
"""

from __future__ import annotations

import numpy as np

from envs.core.privileged import other_hands
from envs.pigugnin.game import DECK, PigugninGame, PigugninState

__all__ = ["privileged_size", "privileged"]


def privileged_size(num_players: int) -> int:
    """Floats in the privileged vector of a game of `num_players`."""
    return (num_players - 1) * DECK.size


def privileged(game: PigugninGame, state: PigugninState, seat: int) -> np.ndarray:
    """The privileged vector of `seat` in `state` (see the module docstring)."""
    return other_hands(state.hands, seat, DECK.size, privileged_size(game.num_players))
