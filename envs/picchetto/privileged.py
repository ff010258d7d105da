"""Picchetto: the privileged vector of a seat, what it cannot see (for a critic in training only).

Seat-relative (like the observation; the opponent is seat `1 - seat`), float32, shape
`(PRIVILEGED_SIZE,)` = `(128,)`:

| slice | meaning |
|---|---|
| `[0, 32)` | the opponent's current hand: 1.0 for every card id he holds |
| `[32, 64)` | the opponent's discards this hand (face down: the observation has only their count) |
| `[64, 96)` | the talon cards not drawn yet: all 8 before the elder's exchange, `T[d_e..7]` before the dealer's, then the cards left undrawn |
| `[96, 128)` | where each of those cards lies in the talon: `(k + 1) / 8` for `T[k]` (the order decides who draws what) |

The undrawn talon is written whole, whatever the flags show of it: with `allow_peek` the seat
has seen some of those cards (its `peeked` row), with `reveal_leftover_talon` both seats see
the cards left after the exchange (`leftover`); the planes repeat them then. The opponent's
drawn cards are in his hand (or played), and what he peeked at is the talon as it was: both
follow from these planes and the public exchange counts.

`privileged(game, state, seat)` is the pure-Python reference; the batched engine writes the same
floats (`PicchettoVectorEnv.privileged`), checked against it by `tests/envs/test_privileged.py`.
"""

from __future__ import annotations

import numpy as np

from envs.core.privileged import card_plane, other_hands
from envs.picchetto.game import DECK, TALON_SIZE, PicchettoGame, PicchettoState

__all__ = ["PRIVILEGED_SIZE", "OFF_DISCARDS", "OFF_TALON", "OFF_TALON_ORDER", "privileged", "undrawn_from"]

C = DECK.size
OFF_DISCARDS, OFF_TALON, OFF_TALON_ORDER = C, 2 * C, 3 * C
PRIVILEGED_SIZE = 4 * C


def undrawn_from(drawn: tuple[int, int] | list[int]) -> int:
    """The talon position of the first card not drawn yet: both players draw from the top, the elder first."""
    return int(drawn[0]).bit_count() + int(drawn[1]).bit_count()


def privileged(game: PicchettoGame, state: PicchettoState, seat: int) -> np.ndarray:
    """The privileged vector of `seat` in `state` (see the module docstring)."""
    out = other_hands(state.hands, seat, C, PRIVILEGED_SIZE)
    card_plane(out, OFF_DISCARDS, int(state.discards[1 - seat]), C)
    for k in range(undrawn_from(state.drawn), TALON_SIZE):
        c = state.talon[k]
        out[OFF_TALON + c] = 1.0
        out[OFF_TALON_ORDER + c] = (k + 1) / TALON_SIZE
    return out
