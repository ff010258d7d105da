"""The plain ducking player for Pigugnìn (agent spec ``plain``, alias ``ducking``).

A baseline, not a strategy: it ducks every trick it can and throws away what it fears when it
cannot follow suit. It counts nothing (no card memory, no trick or point totals) and acts from
``envs.pigugnin.observation.decode(obs)``: its hand, the trick on the table and the legal ids.

| situation | play |
|-----------|------|
| leading | the weakest card (lowest capture strength) |
| following suit, a legal card loses to the best card on the table | the strongest card that still loses |
| following suit, every legal card wins, others still to play | the weakest card |
| following suit, every legal card wins, last to play | the most dangerous card, never the Jack of Spade (the trick is ours anyway; playing ``JS`` would take it) |
| void in the led suit | the most dangerous card |

"Most dangerous": the Jack of Spade (``JS``, the Pigugnìn) first, then by card points (Aces 3,
then 2, 3, K, H, J 1), then by capture strength (3 > 2 > A > K > H > J > 7 > 6 > 5 > 4).
Ties between equal cards of different suits go to the lowest card id. No randomness: the same
observation always gives the same card.
"""

from __future__ import annotations

import numpy as np

from agents.base import BaseAgent, legal_actions
from envs.pigugnin.game import DECK, PIGUGNIN, POINTS, STRENGTH
from envs.pigugnin.observation import decode

__all__ = ["DuckingAgent", "danger"]

SUIT = DECK.suit_of


def danger(card: int) -> tuple[bool, int, int]:
    """The plain player's order of what to throw away: ``JS``, then card points, then capture strength."""
    return (card == PIGUGNIN, POINTS[card], STRENGTH[card])


class DuckingAgent(BaseAgent):
    """Ducks whenever it can (see the module docstring)."""

    name = "plain"

    def act(self, observation: dict[str, np.ndarray]) -> int:
        legal = legal_actions(observation).tolist()
        view = decode(observation)
        trick = view["trick"]
        if not trick:
            return min(legal, key=STRENGTH.__getitem__)
        led = SUIT[trick[0][1]]
        if SUIT[legal[0]] != led:  # void: the mask holds the whole hand
            return max(legal, key=danger)
        best = max(STRENGTH[c] for _, c in trick if SUIT[c] == led)
        duckers = [c for c in legal if STRENGTH[c] < best]
        if duckers:
            return max(duckers, key=STRENGTH.__getitem__)
        if len(trick) == view["num_players"] - 1:
            return max(legal, key=lambda c: (c != PIGUGNIN, *danger(c)))
        return min(legal, key=STRENGTH.__getitem__)
