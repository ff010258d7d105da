"""FROZEN copy of the pigugnin heuristic as shipped in Mazzo 0.1 (agent spec ``heuristic-v1``).

Kept unchanged so that the current heuristic can be measured against its previous version
(issue 13). Do not edit; its original description follows.

A club-player heuristic for Pigugnìn (Busca Reggiana), acting from the decoded observation.

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

from agents.base import BaseAgent, cards_mask, legal_actions
from envs.pigugnin.game import DECK, LAST_TRICK_BONUS, PIGUGNIN, POINTS, RANK_POINTS, STRENGTH
from envs.pigugnin.observation import decode

SUIT = DECK.suit_of
#: the most card points a single card is worth (the Aces)
TOP_POINTS = max(RANK_POINTS)
#: `STRONGER[c]`: bitmask of the cards of c's suit that capture it
STRONGER = tuple(
    sum(1 << u for u in range(DECK.size) if SUIT[u] == SUIT[c] and STRENGTH[u] > STRENGTH[c])
    for c in range(DECK.size)
)


def danger(card: int) -> tuple:
    """How much we want to be rid of a card when we can throw anything."""
    return (card == PIGUGNIN, POINTS[card] == TOP_POINTS, STRENGTH[card])


class PigugninHeuristicV1(BaseAgent):
    """Rule-based Pigugnìn player (see the module docstring)."""

    name = "heuristic-v1"

    def act(self, observation: dict[str, np.ndarray]) -> int:
        legal = legal_actions(observation).tolist()
        view = decode(observation)
        n = view["num_players"]
        hand = view["hand"]
        tricks_left = len(hand)
        trickless = view["tricks_won"][0] == 0
        late = tricks_left <= max(3, DECK.size // n // 3)
        trick = [card for _, card in view["trick"]]
        unseen = DECK.full_mask ^ cards_mask(hand, *view["played"])
        if not trick:
            return self._lead(hand, legal, trickless, late, unseen)
        led = SUIT[trick[0]]
        best = max((c for c in trick if SUIT[c] == led), key=STRENGTH.__getitem__)
        on_table = sum(POINTS[c] for c in trick) + (LAST_TRICK_BONUS if tricks_left == 1 else 0)
        has_pig = PIGUGNIN in trick
        last_to_play = len(trick) == n - 1
        following = SUIT[legal[0]] == led
        best_strength = STRENGTH[best]
        winners = [c for c in legal if following and STRENGTH[c] > best_strength]
        if trickless and winners and not has_pig:
            # Secure the one trick we need while it is cheap: a sure win if we have one,
            # otherwise our strongest card (if it is overtaken, we shed a dangerous card).
            sure = [c for c in winners if last_to_play or not unseen & STRONGER[c]]
            if sure:
                pick = min(sure, key=lambda c: (POINTS[c], -STRENGTH[c]))
                if on_table + POINTS[pick] <= (6 if late else 4):
                    return pick
            elif late or on_table <= 2:
                return max(winners, key=lambda c: (POINTS[c] < TOP_POINTS, STRENGTH[c]))
        if not following:
            return max(legal, key=danger)  # void: throw what we fear most
        duckers = [c for c in legal if STRENGTH[c] < best_strength]
        if duckers:
            if trickless:  # keep the strong cards: we still need them to take a trick
                return max(duckers, key=lambda c: (c == PIGUGNIN, -STRENGTH[c]))
            return max(duckers, key=lambda c: (c == PIGUGNIN, STRENGTH[c]))  # JS first: someone else takes it
        if last_to_play:
            return max(legal, key=lambda c: (c != PIGUGNIN, STRENGTH[c]))
        return min(legal, key=lambda c: (c == PIGUGNIN, STRENGTH[c]))

    def _lead(self, hand: list[int], legal: list[int], trickless: bool, late: bool, unseen: int) -> int:
        """``unseen``: bitmask of the cards neither in our hand nor played."""
        if trickless:
            masters = [c for c in legal if c != PIGUGNIN and not unseen & STRONGER[c]]
            if masters:
                return min(masters, key=lambda c: (POINTS[c], -STRENGTH[c]))
            return max(legal, key=lambda c: (c != PIGUGNIN, POINTS[c] < TOP_POINTS, STRENGTH[c]))

        # Lead low from the suit where a low lead is safest: not our own Pigugnin's suit when
        # we still hold it, and a suit whose lowest card is as weak as possible.
        pig_suit = SUIT[PIGUGNIN] if PIGUGNIN in hand else -1

        def lead_key(c: int) -> tuple:
            return (SUIT[c] == pig_suit, c == PIGUGNIN, STRENGTH[c], POINTS[c])

        return min(legal, key=lead_key)
