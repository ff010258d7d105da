"""Privileged vectors: what a seat cannot see, for a critic in training (never for a player).

Each game's `envs/<game>/privileged.py` defines `privileged(game, state, seat)` on an AEC engine
state in pure Python (the reference), and its batched engine writes the same floats with a numba
kernel (`VectorEnv.privileged`). The layout starts the same way in every game: for k = 1..n-1, the
current hand of seat `(seat + k) % n` as a 0/1 plane over the deck (card id order); then the
game's other hidden state, if it has any (the module docstring of each game has the table).

This module holds the pieces the games share (no numba, no torch).
"""

from __future__ import annotations

from collections.abc import Sequence

import numpy as np

__all__ = ["card_plane", "other_hands"]


def card_plane(out: np.ndarray, offset: int, cards: int, num_cards: int) -> None:
    """`out[offset + c] = 1.0` for every card id `c` in the bitmask `cards` (the other entries untouched)."""
    for c in range(num_cards):
        if cards >> c & 1:
            out[offset + c] = 1.0


def other_hands(hands: Sequence[int], seat: int, num_cards: int, size: int) -> np.ndarray:
    """A float32 `(size,)` vector starting with the hands of seats `seat + 1 .. seat + n - 1` (mod n), one
    `num_cards` plane each, zeros after them (each game writes its other hidden state there)."""
    n = len(hands)
    out = np.zeros(size, dtype=np.float32)
    for k in range(1, n):
        card_plane(out, num_cards * (k - 1), int(hands[(seat + k) % n]), num_cards)
    return out
