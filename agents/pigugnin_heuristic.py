"""A club-player heuristic for Pigugnìn (Busca Reggiana), acting from the decoded observation.

It reads ``envs.pigugnin.observation.decode(obs)`` only: its hand, the cards played, the
trick in progress, tricks and points per seat, busche totals. The aim of the game is to take
at least one trick but as few card points as possible, and never the Jack of Spade
(``JS``, the Pigugnìn).

| situation | rule |
|-----------|------|
| still trickless, late in the hand (the no-trick penalty threatens) | win the trick if that is possible and cheap (no ``JS``, at most 2 points on the table); when leading, lead the strongest card of the longest suit |
| still trickless, any time | take a trick that costs nothing (0 points, no ``JS``) when offered |
| following suit, can duck | play the highest card that still loses the trick (sheds danger safely) |
| following suit, must win | playing last: win with the strongest card (it wins anyway); otherwise play the lowest and hope someone overtakes |
| void in the led suit | throw the Pigugnìn first, then Aces (3 points), then the strongest cards (3, 2, K, ...) |
| leading | the weakest card of the suit where it is safest (prefers suits without its own ``JS``), so someone else takes the trick |

Capture order: 3 > 2 > A > K > H > J > 7 > 6 > 5 > 4; points: A 3, 2/3/J/H/K 1.
"""

from __future__ import annotations

import numpy as np

from agents.base import BaseAgent, legal_actions
from envs.pigugnin.observation import decode

RANK_STRENGTH = (7, 8, 9, 0, 1, 2, 3, 4, 5, 6)
RANK_POINTS = (3, 1, 1, 0, 0, 0, 0, 1, 1, 1)
PIGUGNIN = 27  # JS


def strength(card: int) -> int:
    return RANK_STRENGTH[card % 10]


def points(card: int) -> int:
    return RANK_POINTS[card % 10]


def suit(card: int) -> int:
    return card // 10


def danger(card: int) -> tuple:
    """How much we want to be rid of a card when we can throw anything."""
    return (card == PIGUGNIN, points(card) == 3, strength(card))


class PigugninHeuristic(BaseAgent):
    """Rule-based Pigugnìn player (see the module docstring)."""

    name = "heuristic"

    def act(self, observation: dict[str, np.ndarray]) -> int:
        legal = legal_actions(observation).tolist()
        view = decode(observation)
        n = view["num_players"]
        hand = view["hand"]
        tricks_left = len(hand)
        trickless = view["tricks_won"][0] == 0
        late = tricks_left <= max(3, 40 // n // 3)
        trick = [card for _, card in view["trick"]]
        unseen = set(range(40)) - set(hand) - {c for cards in view["played"] for c in cards}
        if not trick:
            return self._lead(hand, legal, trickless, late, unseen)
        led = suit(trick[0])
        best = max((c for c in trick if suit(c) == led), key=strength)
        on_table = sum(points(c) for c in trick) + (3 if tricks_left == 1 else 0)
        has_pig = PIGUGNIN in trick
        last_to_play = len(trick) == n - 1
        following = suit(legal[0]) == led
        winners = [c for c in legal if following and strength(c) > strength(best)]
        if trickless and winners and not has_pig:
            # Secure the one trick we need while it is cheap: a sure win if we have one,
            # otherwise our strongest card (if it is overtaken, we shed a dangerous card).
            sure = [c for c in winners if last_to_play or self._master(c, unseen)]
            if sure:
                pick = min(sure, key=lambda c: (points(c), -strength(c)))
                if on_table + points(pick) <= (6 if late else 4):
                    return pick
            elif late or on_table <= 2:
                return max(winners, key=lambda c: (points(c) < 3, strength(c)))
        if not following:
            return max(legal, key=danger)  # void: throw what we fear most
        duckers = [c for c in legal if strength(c) < strength(best)]
        if duckers:
            if trickless:  # keep the strong cards: we still need them to take a trick
                return max(duckers, key=lambda c: (c == PIGUGNIN, -strength(c)))
            return max(duckers, key=lambda c: (c == PIGUGNIN, strength(c)))  # JS first: someone else takes it
        if last_to_play:
            return max(legal, key=lambda c: (c != PIGUGNIN, strength(c)))
        return min(legal, key=lambda c: (c == PIGUGNIN, strength(c)))

    @staticmethod
    def _master(card: int, unseen: set[int]) -> bool:
        """No unseen card of the same suit can beat ``card``."""
        return not any(suit(u) == suit(card) and strength(u) > strength(card) for u in unseen)

    def _lead(self, hand: list[int], legal: list[int], trickless: bool, late: bool, unseen: set[int]) -> int:
        if trickless:
            masters = [c for c in legal if c != PIGUGNIN and self._master(c, unseen)]
            if masters:
                return min(masters, key=lambda c: (points(c), -strength(c)))
            return max(legal, key=lambda c: (c != PIGUGNIN, points(c) < 3, strength(c)))

        # Lead low from the suit where a low lead is safest: not our own Pigugnin's suit when
        # we still hold it, and a suit whose lowest card is as weak as possible.
        def lead_key(c: int) -> tuple:
            return (PIGUGNIN in hand and suit(c) == suit(PIGUGNIN), c == PIGUGNIN, strength(c), points(c))

        return min(legal, key=lead_key)
