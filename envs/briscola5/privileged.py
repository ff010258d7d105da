"""Briscola in cinque: the privileged vector of a seat, what it cannot see (for a critic in training only).

Seat-relative (like the observation), float32, shape `(PRIVILEGED_SIZE,)` = `(160,)`:

| slice | meaning |
|---|---|
| `[0, 40)` | the current hand of seat `(seat + 1) % 5`: 1.0 for every card id it holds |
| `[40, 80)` | the current hand of seat `(seat + 2) % 5` |
| `[80, 120)` | the current hand of seat `(seat + 3) % 5` |
| `[120, 160)` | the current hand of seat `(seat + 4) % 5` |

Nothing else of a deal is hidden: all 40 cards are dealt (no talon), every bid, call and card
played is public, and the partner is whoever holds the called card (in these hands until it is
played, public from then on). `privileged(game, state, seat)` is the pure-Python reference; the
batched engine writes the same floats (`Briscola5VectorEnv.privileged`), checked against it by
`tests/envs/test_privileged.py`.
"""

from __future__ import annotations

import numpy as np

from envs.briscola5.game import DECK, NUM_PLAYERS, Briscola5Game, Briscola5State
from envs.core.privileged import other_hands

__all__ = ["PRIVILEGED_SIZE", "privileged"]

PRIVILEGED_SIZE = (NUM_PLAYERS - 1) * DECK.size


def privileged(game: Briscola5Game, state: Briscola5State, seat: int) -> np.ndarray:
    """The privileged vector of `seat` in `state` (see the module docstring)."""
    return other_hands(state.hands, seat, DECK.size, PRIVILEGED_SIZE)
