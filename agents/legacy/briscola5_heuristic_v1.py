"""FROZEN copy of the briscola5 heuristic as shipped in Mazzo 0.1 (agent spec ``heuristic-v1``).

Kept unchanged so that the current heuristic can be measured against its previous version
(issue 13). Do not edit; its original description follows.

A club-player heuristic for Briscola in cinque, acting from the decoded observation only.

It reads ``envs.briscola5.observation.decode(obs)`` (its own hand, the public auction, the
call, the cards played, the trick in progress, the partner once revealed, and the private
fact that it holds the called card), never the environment, so it cannot cheat.

Rules, in the order a good player applies them:

| phase    | rule |
|----------|------|
| forfeit  | a 0-point hand always forfeits (it can neither bid nor help a partner much) |
| auction  | estimate the hand for its best trump suit: ``30 + points/2 + 4 per trump + 4 for the trump Ace + 3 for the trump Three``; raise by the minimum while the next bid stays within that cap, otherwise pass |
| call     | trump = the suit of the estimate; call the strongest card of that suit it does not hold (A, 3, K, ...); with six or more trumps including Ace and Three, call its own lowest trump (a solo) |
| lead     | lead the cheapest card: a zero-point non-trump ("liscio"), else the lowest card |
| follow, side winning | a known teammate holds the trick and it is safe (we play last, or it is the best trump left): load the most points that are not a trump Ace/Three ("carico") |
| follow, opponents winning | take the trick with the cheapest winning card when it is worth it (8+ points, or a non-trump win) and safe; trumps are saved for tricks of 10+ points or the last three tricks |
| otherwise | throw the cheapest card, never a trump if a non-trump will do |

Roles: the caller knows his partner only once the called card is played (or at once when he
called himself); the partner knows he is the partner from the call; a defender treats every
seat except the caller and the (revealed) partner as a teammate only after the reveal.
"""

from __future__ import annotations

from typing import Any

import numpy as np

from agents.base import BaseAgent, cards_mask, legal_actions
from envs.briscola5.game import (
    AUCTION,
    BID_IDS,
    CALL,
    CALL_CARD,
    DECK,
    FORFEIT,
    FORFEIT_CHECK,
    NO_FORFEIT,
    NUM_PLAYERS,
    NUM_TRICKS,
    PASS,
    POINTS,
    RANK_STRENGTH,
    STRENGTH,
    SUIT,
    bid_value,
)
from envs.briscola5.observation import PHASE_KEYS, decode
from envs.core.trick import trick_winner

RANK = DECK.rank_of
ACE, THREE = DECK.rank_codes.index("A"), DECK.rank_codes.index("3")
#: Ranks by decreasing strength: A, 3, K, H, J, 7, 6, 5, 4, 2.
RANKS_STRONGEST_FIRST = sorted(range(DECK.num_ranks), key=lambda r: -RANK_STRENGTH[r])
_ALL = DECK.full_mask
#: ``decode(obs)["phase"]`` of the phases with their own rules (the rest is trick play)
_FORFEIT_CHECK, _AUCTION, _CALL = PHASE_KEYS[FORFEIT_CHECK], PHASE_KEYS[AUCTION], PHASE_KEYS[CALL_CARD]


def hand_estimate(hand: list[int], trump: int) -> float:
    """Card points the caller's team can hope for with this hand and ``trump``."""
    trumps = [c for c in hand if SUIT[c] == trump]
    ranks = {RANK[c] for c in trumps}
    return 30 + sum(POINTS[c] for c in hand) / 2 + 4 * len(trumps) + 4 * (ACE in ranks) + 3 * (THREE in ranks)


def best_trump(hand: list[int]) -> tuple[int, float]:
    estimates = [(hand_estimate(hand, s), s) for s in range(DECK.num_suits)]
    value, trump = max(estimates)
    return trump, value


def _beats(card: int, best: int, trump: int) -> bool:
    """``card`` takes a trick held by ``best`` (a card of another suit loses unless it is a trump)."""
    if SUIT[card] == SUIT[best]:
        return STRENGTH[card] > STRENGTH[best]
    return SUIT[card] == trump


# Tables per trump suit, built once (the play rules below look them up on every decision).
#: ``BEATEN_BY[trump][c]``: the bitmask of the cards that beat ``c``.
BEATEN_BY = tuple(
    tuple(sum(1 << u for u in range(DECK.size) if _beats(u, c, t)) for c in range(DECK.size))
    for t in range(DECK.num_suits)
)
#: ``CHEAP[trump][c]``: the key (is a trump, points, strength); the lowest is the cheapest card.
CHEAP = tuple(
    tuple((SUIT[c] == t, POINTS[c], STRENGTH[c]) for c in range(DECK.size)) for t in range(DECK.num_suits)
)
#: ``LOAD[trump][c]``: the key (not a trump Ace/Three, not a trump, points, -strength); the
#: highest is the card to load on a teammate's trick.
LOAD = tuple(
    tuple(
        (not (SUIT[c] == t and RANK[c] in (ACE, THREE)), SUIT[c] != t, POINTS[c], -STRENGTH[c])
        for c in range(DECK.size)
    )
    for t in range(DECK.num_suits)
)


class Briscola5HeuristicV1(BaseAgent):
    """Rule-based Briscola in cinque player (see the module docstring)."""

    name = "heuristic-v1"

    def act(self, observation: dict[str, np.ndarray]) -> int:
        legal = legal_actions(observation).tolist()  # increasing ids
        view = decode(observation)
        phase = view["phase"]
        if phase == _FORFEIT_CHECK:
            return FORFEIT if FORFEIT in legal else NO_FORFEIT
        if phase == _AUCTION:
            return self._bid(view, legal)
        if phase == _CALL:
            return self._call(view, legal)
        return self._play(view, legal)

    # -- auction and call ------------------------------------------------------------------
    def _bid(self, view: dict[str, Any], legal: list[int]) -> int:
        bids = [a for a in legal if a in BID_IDS]
        if not bids:
            return PASS
        _, cap = best_trump(view["hand"])
        cheapest = bids[0]
        return cheapest if bid_value(cheapest) <= cap else PASS

    def _call(self, view: dict[str, Any], legal: list[int]) -> int:
        hand = set(view["hand"])
        trump, _ = best_trump(view["hand"])
        trumps = [c for c in hand if SUIT[c] == trump]
        ranks = {RANK[c] for c in trumps}
        if len(trumps) >= 6 and {ACE, THREE} <= ranks:
            own = min(trumps, key=STRENGTH.__getitem__)
            if CALL + own in legal:
                return CALL + own
        for rank in RANKS_STRONGEST_FIRST:
            card = DECK.card(trump, rank)
            if card not in hand and CALL + card in legal:
                return CALL + card
        return min(legal)

    # -- trick play -------------------------------------------------------------------------
    def _play(self, view: dict[str, Any], legal: list[int]) -> int:
        trump = view["trump"]
        trick = view["trick"]
        if not trick:
            return min(legal, key=CHEAP[trump].__getitem__)
        beaten_by = BEATEN_BY[trump]
        leader = view["trick_leader"]
        win_i = trick_winner(trick, SUIT, STRENGTH, trump)
        winner_seat, winner_card = (leader + win_i) % NUM_PLAYERS, trick[win_i]
        last_to_play = len(trick) == NUM_PLAYERS - 1
        unseen = _ALL ^ cards_mask(view["hand"], (c for _, _, c in view["played"]))
        if winner_seat in self._teammates(view):
            if last_to_play or not unseen & beaten_by[winner_card]:
                return max(legal, key=LOAD[trump].__getitem__)
            return min(legal, key=CHEAP[trump].__getitem__)
        # Opponents hold the trick: take it when it pays and it is safe.
        beats_winner = beaten_by[winner_card]
        safe = [c for c in legal if beats_winner >> c & 1 and (last_to_play or not unseen & beaten_by[c])]
        if safe:
            cheapest_win = min(safe, key=CHEAP[trump].__getitem__)
            trick_points = sum(POINTS[c] for c in trick)
            gain = trick_points + POINTS[cheapest_win]
            uses_trump = SUIT[cheapest_win] == trump
            if not uses_trump and gain > 0:
                return cheapest_win
            if uses_trump and (trick_points >= 10 or sum(view["tricks_taken"]) >= NUM_TRICKS - 3):
                return cheapest_win
            if gain >= 8 and not uses_trump:
                return cheapest_win
        return min(legal, key=CHEAP[trump].__getitem__)

    @staticmethod
    def _teammates(view: dict[str, Any]) -> set[int]:
        """Relative seats known to be on our side (never including ourselves)."""
        caller = view["caller"]
        partner = view["partner"] if view["partner_revealed"] else None
        if caller == 0:
            return {partner} - {0} if partner is not None else set()
        if view["holds_called"]:
            return {caller}
        if partner is None:
            return set()  # a defender does not know yet which other seat is the partner
        return set(range(1, NUM_PLAYERS)) - {caller, partner}
