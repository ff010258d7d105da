"""A club-player heuristic for Picchetto (Italian Piquet), acting from the decoded observation.

It reads ``envs.picchetto.observation.decode(obs)`` only (its hand, its discards, what the
opponent made public, the cards played, the trick, the scores), so it cannot cheat.

Exchange: every card gets a *keep value* for what it brings to the three declarations and
to the play, and the cheapest cards go:

| component | value |
|-----------|-------|
| trick strength | 7 > ... > Ace 7, King 6, Queen 5, ... 7 is 0 |
| in the best point suit (largest value sum) | +6 |
| in a run of three or more (a sequence) | +5, +3 more in a run of five or more |
| Ten or higher with two or more of the same rank (a trio or quatorze in reach) | +4 per other card of the rank |

The elder discards every card worth less than 9 (at least one, up to five: the elder's
exchange is his big chance to improve); the dealer only cards worth less than 6 (his draw
is smaller and blind), as many as the talon allows and at least the rule's minimum.

Play (12 tricks, 1 point each, 2 for the last; 7+ tricks win the cards bonus, 12 a capot):

| situation | rule |
|-----------|------|
| lead | a master card (the highest unplayed card of its suit) from the longest suit, else the lowest card of the longest suit, to establish it |
| follow, can win | the cheapest winning card (must-head rules are already in the mask) |
| follow, cannot win | the lowest card of the suit |
| follow, void | the lowest card of the shortest suit, keeping the guards of long suits |
"""

from __future__ import annotations

from typing import Any

import numpy as np

from agents.base import BaseAgent, legal_actions
from envs.picchetto.observation import decode

DISCARD, END_EXCHANGE = 32, 64
DECL_VALUE = (7, 8, 9, 10, 10, 10, 10, 11)
ELDER_KEEP_THRESHOLD = 9
DEALER_KEEP_THRESHOLD = 6


def suit(card: int) -> int:
    return card // 8


def rank(card: int) -> int:
    return card % 8


def keep_values(hand: list[int]) -> dict[int, float]:
    """What each card is worth to keep, for the declarations and the play."""
    by_suit: dict[int, list[int]] = {s: sorted(c for c in hand if suit(c) == s) for s in range(4)}
    suit_value = {s: (sum(DECL_VALUE[rank(c)] for c in cards), len(cards)) for s, cards in by_suit.items()}
    point_suit = max(suit_value, key=suit_value.get)
    values = {c: float(rank(c)) for c in hand}
    for c in by_suit[point_suit]:
        values[c] += 6
    for cards in by_suit.values():
        ranks = [rank(c) for c in cards]
        run: list[int] = []
        for r in ranks + [99]:
            if run and r == run[-1] + 1:
                run.append(r)
                continue
            if len(run) >= 3:
                for rr in run:
                    values[cards[ranks.index(rr)]] += 5 + (3 if len(run) >= 5 else 0)
            run = [r]
    for c in hand:
        if rank(c) >= 3:  # Ten or higher
            same = sum(1 for o in hand if rank(o) == rank(c)) - 1
            if same >= 2:
                values[c] += 4 * same
    return values


class PicchettoHeuristic(BaseAgent):
    """Rule-based Picchetto player (see the module docstring)."""

    name = "heuristic"

    def act(self, observation: dict[str, np.ndarray]) -> int:
        legal = legal_actions(observation).tolist()
        view = decode(observation)
        if legal[0] >= DISCARD:
            return self._exchange(view, legal)
        return self._play(view, legal)

    # -- exchange ---------------------------------------------------------------------------
    def _exchange(self, view: dict[str, Any], legal: list[int]) -> int:
        elder = view["phase"] == "elder_exchange"
        threshold = ELDER_KEEP_THRESHOLD if elder else DEALER_KEEP_THRESHOLD
        discards = [a - DISCARD for a in legal if a < END_EXCHANGE]
        if not discards:
            return END_EXCHANGE
        values = keep_values(view["hand"])
        cheapest = min(discards, key=lambda c: (values[c], c))
        if END_EXCHANGE not in legal or values[cheapest] < threshold:
            return DISCARD + cheapest
        return END_EXCHANGE

    # -- trick play -------------------------------------------------------------------------
    def _play(self, view: dict[str, Any], legal: list[int]) -> int:
        hand = view["hand"]
        played = set(view["played"][0]) | set(view["played"][1])
        lengths = {s: sum(1 for c in hand if suit(c) == s) for s in range(4)}
        led = view["trick_card"]
        if led is None:  # we lead
            masters = [c for c in legal if self._master(c, hand, played)]
            if masters:
                return max(masters, key=lambda c: (lengths[suit(c)], rank(c)))
            longest = max(legal, key=lambda c: (lengths[suit(c)], -rank(c)))
            return min((c for c in legal if suit(c) == suit(longest)), key=rank)
        following = [c for c in legal if suit(c) == suit(led)]
        if following:
            winners = [c for c in following if rank(c) > rank(led)]
            return min(winners or following, key=rank)
        return min(legal, key=lambda c: (lengths[suit(c)], rank(c)))

    @staticmethod
    def _master(card: int, hand: list[int], played: set[int]) -> bool:
        """No card outside our hand and not yet played can beat ``card`` in its suit."""
        higher = range(card + 1, 8 * (suit(card) + 1))
        return all(h in hand or h in played for h in higher)
