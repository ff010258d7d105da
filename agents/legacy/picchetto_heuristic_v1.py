"""FROZEN copy of the picchetto heuristic as shipped in Mazzo 0.1 (agent spec ``heuristic-v1``).

Kept unchanged so that the current heuristic can be measured against its previous version
(issue 13). Do not edit; its original description follows.

A club-player heuristic for Picchetto (Italian Piquet), acting from the decoded observation.

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

from collections import Counter
from typing import Any

import numpy as np

from agents.base import BaseAgent, cards_mask, legal_actions
from envs.core.cards import iter_bits
from envs.picchetto.game import (
    DISCARD,
    ELDER_EXCHANGE,
    END_EXCHANGE,
    HIGHER,
    RANK,
    SET_MIN_RANK,
    SUIT,
    point_of,
    sequences_of,
)
from envs.picchetto.observation import PHASE_KEYS, decode

ELDER_KEEP_THRESHOLD = 9
DEALER_KEEP_THRESHOLD = 6


def keep_values(hand: list[int]) -> dict[int, float]:
    """What each card is worth to keep, for the declarations and the play."""
    if not hand:
        return {}
    mask = cards_mask(hand)
    values = {c: float(RANK[c]) for c in hand}
    _, _, point_suit = point_of(mask)  # the best point suit (the game's rule, ties included)
    for c in hand:
        if SUIT[c] == point_suit:
            values[c] += 6
    for length, _, run in sequences_of(mask):  # every run of three or more
        for c in iter_bits(run):
            values[c] += 5 + (3 if length >= 5 else 0)
    same_rank = Counter(RANK[c] for c in hand)
    for c in hand:
        if RANK[c] >= SET_MIN_RANK:  # Ten or higher
            same = same_rank[RANK[c]] - 1
            if same >= 2:
                values[c] += 4 * same
    return values


class PicchettoHeuristicV1(BaseAgent):
    """Rule-based Picchetto player (see the module docstring)."""

    name = "heuristic-v1"

    def act(self, observation: dict[str, np.ndarray]) -> int:
        legal = legal_actions(observation).tolist()
        view = decode(observation)
        if legal[0] >= DISCARD:
            return self._exchange(view, legal)
        return self._play(view, legal)

    # -- exchange ---------------------------------------------------------------------------
    def _exchange(self, view: dict[str, Any], legal: list[int]) -> int:
        elder = view["phase"] == PHASE_KEYS[ELDER_EXCHANGE]
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
        known = cards_mask(hand, *view["played"])  # what cannot beat us from the other hand
        lengths = Counter(SUIT[c] for c in hand)
        led = view["trick_card"]
        if led is None:  # we lead
            masters = [c for c in legal if not HIGHER[c] & ~known]  # the highest card left in its suit
            if masters:
                return max(masters, key=lambda c: (lengths[SUIT[c]], RANK[c]))
            longest = max(legal, key=lambda c: (lengths[SUIT[c]], -RANK[c]))
            return min((c for c in legal if SUIT[c] == SUIT[longest]), key=RANK.__getitem__)
        following = [c for c in legal if SUIT[c] == SUIT[led]]
        if following:
            winners = [c for c in following if RANK[c] > RANK[led]]
            return min(winners or following, key=RANK.__getitem__)
        return min(legal, key=lambda c: (lengths[SUIT[c]], RANK[c]))
