"""The plain greedy Picchetto player (agent spec ``plain``, also ``greedy``): a simple, sound baseline.

It acts from ``envs.picchetto.observation.decode(obs)`` only (its hand and the card led) and
never draws a random number, so it is deterministic (the seed is accepted and unused).

| decision | rule |
|----------|------|
| exchange | discard the lowest card it may (lowest rank, then lowest card id) while a discard is legal: the elder all 5, the dealer all the talon left; `END_EXCHANGE` only when no discard is legal |
| lead | the highest card (highest rank, then lowest card id) |
| follow, can win | the cheapest card that wins the trick (same suit, higher rank; lowest such rank) |
| follow, cannot win | the lowest legal card (lowest rank, then lowest card id) |

The follow mask already holds the rules (follow suit; with ``must_head_trick``, beat the led
card when able), so "win" is simply a legal card of the led suit above the led card.
"""

from __future__ import annotations

import numpy as np

from agents.base import BaseAgent, legal_actions
from envs.picchetto.game import DISCARD, END_EXCHANGE, RANK, SUIT
from envs.picchetto.observation import decode

__all__ = ["GreedyAgent"]


def _low_key(c: int) -> tuple[int, int]:
    return RANK[c], c


class GreedyAgent(BaseAgent):
    """Plain greedy Picchetto player (see the module docstring)."""

    name = "greedy"

    def act(self, observation: dict[str, np.ndarray]) -> int:
        legal = legal_actions(observation).tolist()
        if legal[0] >= DISCARD:  # exchange: discard the lowest card while any discard is legal
            discards = [a - DISCARD for a in legal if a < END_EXCHANGE]
            if not discards:
                return END_EXCHANGE
            return DISCARD + min(discards, key=_low_key)
        led = decode(observation)["trick_card"]
        if led is None:  # lead the highest card
            return min(legal, key=lambda c: (-RANK[c], c))
        winners = [c for c in legal if SUIT[c] == SUIT[led] and RANK[c] > RANK[led]]
        if winners:
            return min(winners, key=_low_key)
        return min(legal, key=_low_key)
