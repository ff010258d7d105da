"""The plain greedy Briscola in cinque player (agent spec ``plain``, alias ``greedy``).

A baseline that any serious player must beat: it bids on a simple hand-strength count, calls
the highest trump it lacks, and in the play takes every trick that holds points when it can,
with the cheapest card that does, and otherwise throws its cheapest card. It knows nothing of
partners: it takes a trick from its own partner as readily as from a defender.

It acts from ``envs.briscola5.observation.decode(obs)`` only and never draws a random number,
so it is deterministic (the seed is accepted and unused).

| phase   | rule |
|---------|------|
| forfeit | a 0-point hand forfeits (the only hands that may) |
| auction | ``suit`` = the suit with the most cards in hand (ties: more card points in it, then the higher suit index); ``strength = hand card points + 5 * cards of suit``; with ``strength >= 46`` (about 30% of hands) bid the lowest legal bid while it is ``<= 61 + (strength - 46)``, otherwise pass |
| call    | the strongest card of ``suit`` it does not hold (A, 3, K, H, J, 7, ...) |
| lead    | the cheapest card |
| follow  | the trick on the table holds card points and some card in hand wins it: the cheapest winning card; otherwise the cheapest card |

"Cheapest" orders cards by (card points, is a trump, trick strength): a zero-point non-trump
low card first, the trump Ace last. "Wins" means it beats the card now winning the trick
(a higher card of its suit, or any trump over a non-trump).
"""

from __future__ import annotations

from typing import Any

import numpy as np

from agents.base import BaseAgent, legal_actions
from envs.briscola5.game import (
    AUCTION,
    BID_IDS,
    CALL,
    CALL_CARD,
    DECK,
    FORFEIT,
    FORFEIT_CHECK,
    NO_FORFEIT,
    PASS,
    POINTS,
    RANK_STRENGTH,
    STRENGTH,
    SUIT,
    bid_value,
)
from envs.briscola5.observation import PHASE_KEYS, decode
from envs.core.trick import trick_winner

__all__ = ["GreedyAgent", "THRESHOLD", "PER_CARD", "bid_suit", "strength"]

#: The hand-strength count: bid when ``strength >= THRESHOLD``, up to ``61 + strength - THRESHOLD``.
THRESHOLD = 46
#: Strength of each card of the chosen suit.
PER_CARD = 5
#: Ranks by decreasing trick strength: A, 3, K, H, J, 7, 6, 5, 4, 2.
RANKS_STRONGEST_FIRST = sorted(range(DECK.num_ranks), key=lambda r: -RANK_STRENGTH[r])
_FORFEIT_CHECK, _AUCTION, _CALL = PHASE_KEYS[FORFEIT_CHECK], PHASE_KEYS[AUCTION], PHASE_KEYS[CALL_CARD]
#: ``COST[trump][c]``: (card points, is a trump, strength); the lowest is the cheapest card.
COST = tuple(
    tuple((POINTS[c], SUIT[c] == t, STRENGTH[c]) for c in range(DECK.size)) for t in range(DECK.num_suits)
)


def bid_suit(hand: list[int]) -> int:
    """The suit with the most cards in ``hand`` (ties: more card points in it, then the higher suit)."""
    return max(range(DECK.num_suits), key=lambda s: (sum(SUIT[c] == s for c in hand),
                                                     sum(POINTS[c] for c in hand if SUIT[c] == s), s))


def strength(hand: list[int]) -> int:
    """``card points + PER_CARD * cards of bid_suit(hand)``."""
    suit = bid_suit(hand)
    return sum(POINTS[c] for c in hand) + PER_CARD * sum(SUIT[c] == suit for c in hand)


def _beats(card: int, best: int, trump: int) -> bool:
    if SUIT[card] == SUIT[best]:
        return STRENGTH[card] > STRENGTH[best]
    return SUIT[card] == trump


class GreedyAgent(BaseAgent):
    """Plain greedy Briscola in cinque player (see the module docstring)."""

    name = "plain"

    def act(self, observation: dict[str, np.ndarray]) -> int:
        legal = legal_actions(observation).tolist()
        view = decode(observation)
        phase = view["phase"]
        if phase == _FORFEIT_CHECK:
            return FORFEIT if FORFEIT in legal else NO_FORFEIT
        if phase == _AUCTION:
            return self._bid(view, legal)
        if phase == _CALL:
            hand = set(view["hand"])
            suit = bid_suit(view["hand"])
            for rank in RANKS_STRONGEST_FIRST:
                card = DECK.card(suit, rank)
                if card not in hand and CALL + card in legal:
                    return CALL + card
            return legal[0]
        return self._play(view, legal)

    @staticmethod
    def _bid(view: dict[str, Any], legal: list[int]) -> int:
        bids = [a for a in legal if a in BID_IDS]
        if not bids:
            return PASS
        s = strength(view["hand"])
        return bids[0] if s >= THRESHOLD and bid_value(bids[0]) <= 61 + s - THRESHOLD else PASS

    @staticmethod
    def _play(view: dict[str, Any], legal: list[int]) -> int:
        trump = view["trump"]
        cost = COST[trump].__getitem__
        trick = view["trick"]
        if trick and sum(POINTS[c] for c in trick) > 0:
            best = trick[trick_winner(trick, SUIT, STRENGTH, trump)]
            winners = [c for c in legal if _beats(c, best, trump)]
            if winners:
                return min(winners, key=cost)
        return min(legal, key=cost)
