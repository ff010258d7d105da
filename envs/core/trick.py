"""Trick resolution shared by the games: the led suit, optional trumps, per-card strength."""

from __future__ import annotations

from collections.abc import Sequence

__all__ = ["trick_winner", "card_strengths"]


def card_strengths(rank_strength: Sequence[int], num_suits: int) -> tuple[int, ...]:
    """Per-card strength table from the per-rank one (card id = num_ranks*suit + rank)."""
    return tuple(rank_strength) * num_suits


def trick_winner(cards: Sequence[int], suit_of: Sequence[int], strength: Sequence[int], trump: int = -1) -> int:
    """Index in ``cards`` (play order) of the winning card.

    The highest trump wins if any trump was played; otherwise the highest card of the led
    suit. Cards of any other suit never win. ``trump = -1`` means no trump suit.
    """
    best = 0
    best_card = cards[0]
    best_suit = suit_of[best_card]
    for i in range(1, len(cards)):
        card = cards[i]
        suit = suit_of[card]
        if suit == best_suit:
            if strength[card] > strength[best_card]:
                best, best_card = i, card
        elif suit == trump:
            best, best_card, best_suit = i, card, suit
    return best
