"""A club-player heuristic for Briscola in cinque, acting from the decoded observation only.

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

from agents.base import BaseAgent, legal_actions
from envs.briscola5.observation import decode

RANK_POINTS = (11, 0, 10, 0, 0, 0, 0, 2, 3, 4)
RANK_STRENGTH = (9, 0, 8, 1, 2, 3, 4, 5, 6, 7)
#: Ranks by decreasing strength: A, 3, K, H, J, 7, 6, 5, 4, 2.
RANKS_STRONGEST_FIRST = sorted(range(10), key=lambda r: -RANK_STRENGTH[r])
PASS, BID0, FORFEIT, NO_FORFEIT = 80, 81, 141, 142


def points(card: int) -> int:
    return RANK_POINTS[card % 10]


def strength(card: int) -> int:
    return RANK_STRENGTH[card % 10]


def suit(card: int) -> int:
    return card // 10


def hand_estimate(hand: list[int], trump: int) -> float:
    """Card points the caller's team can hope for with this hand and ``trump``."""
    trumps = [c for c in hand if suit(c) == trump]
    ranks = {c % 10 for c in trumps}
    return 30 + sum(points(c) for c in hand) / 2 + 4 * len(trumps) + 4 * (0 in ranks) + 3 * (2 in ranks)


def best_trump(hand: list[int]) -> tuple[int, float]:
    estimates = [(hand_estimate(hand, s), s) for s in range(4)]
    value, trump = max(estimates)
    return trump, value


class Briscola5Heuristic(BaseAgent):
    """Rule-based Briscola in cinque player (see the module docstring)."""

    name = "heuristic"

    def act(self, observation: dict[str, np.ndarray]) -> int:
        legal = set(legal_actions(observation).tolist())
        view = decode(observation)
        phase = view["phase"]
        if phase == "forfeit_check":
            return FORFEIT if FORFEIT in legal else NO_FORFEIT
        if phase == "auction":
            return self._bid(view, legal)
        if phase == "call":
            return self._call(view, legal)
        return self._play(view, sorted(legal))

    # -- auction and call ------------------------------------------------------------------
    def _bid(self, view: dict[str, Any], legal: set[int]) -> int:
        bids = sorted(a for a in legal if BID0 <= a < FORFEIT)
        if not bids:
            return PASS
        _, cap = best_trump(view["hand"])
        cheapest = bids[0]
        return cheapest if 61 + cheapest - BID0 <= cap else PASS

    def _call(self, view: dict[str, Any], legal: set[int]) -> int:
        hand = set(view["hand"])
        trump, _ = best_trump(view["hand"])
        trumps = [c for c in hand if suit(c) == trump]
        ranks = {c % 10 for c in trumps}
        if len(trumps) >= 6 and {0, 2} <= ranks:
            own = min(trumps, key=strength)
            if 40 + own in legal:
                return 40 + own
        for rank in RANKS_STRONGEST_FIRST:
            card = 10 * trump + rank
            if card not in hand and 40 + card in legal:
                return 40 + card
        return min(legal)

    # -- trick play -------------------------------------------------------------------------
    def _play(self, view: dict[str, Any], legal: list[int]) -> int:
        trump = view["trump"]
        trick = view["trick"]
        if not trick:
            return self._cheapest(legal, trump)
        leader = view["trick_leader"]
        seats = [(leader + i) % 5 for i in range(len(trick))]
        win_i = self._winning_index(trick, trump)
        winner_seat, winner_card = seats[win_i], trick[win_i]
        last_to_play = len(trick) == 4
        unseen = self._unseen(view)
        trick_points = sum(points(c) for c in trick)
        tricks_done = sum(view["tricks_taken"])
        if winner_seat in self._teammates(view):
            if last_to_play or self._unbeatable(winner_card, trick[0], trump, unseen):
                return self._load(legal, trump)
            return self._cheapest(legal, trump)
        # Opponents hold the trick: take it when it pays and it is safe.
        winners = [c for c in legal if self._beats(c, winner_card, trick[0], trump)]
        safe = [c for c in winners if last_to_play or self._unbeatable(c, trick[0], trump, unseen)]
        if safe:
            cheapest_win = min(safe, key=lambda c: (suit(c) == trump, points(c), strength(c)))
            gain = trick_points + points(cheapest_win)
            uses_trump = suit(cheapest_win) == trump
            if not uses_trump and gain > 0:
                return cheapest_win
            if uses_trump and (trick_points >= 10 or tricks_done >= 5):
                return cheapest_win
            if gain >= 8 and not uses_trump:
                return cheapest_win
        return self._cheapest(legal, trump)

    def _teammates(self, view: dict[str, Any]) -> set[int]:
        """Relative seats known to be on our side (never including ourselves)."""
        caller = view["caller"]
        partner = view["partner"] if view["partner_revealed"] else None
        if caller == 0:
            return {partner} - {0} if partner is not None else set()
        if view["holds_called"]:
            return {caller}
        if partner is None:
            return set()  # a defender does not know yet which other seat is the partner
        return {1, 2, 3, 4} - {caller, partner}

    @staticmethod
    def _winning_index(trick: list[int], trump: int) -> int:
        best = 0
        for i in range(1, len(trick)):
            if Briscola5Heuristic._beats(trick[i], trick[best], trick[0], trump):
                best = i
        return best

    @staticmethod
    def _beats(card: int, best: int, led: int, trump: int) -> bool:
        if suit(card) == suit(best):
            return strength(card) > strength(best)
        return suit(card) == trump

    @staticmethod
    def _unseen(view: dict[str, Any]) -> set[int]:
        seen = set(view["hand"]) | {c for _, _, c in view["played"]}
        return set(range(40)) - seen

    @staticmethod
    def _unbeatable(card: int, led: int, trump: int, unseen: set[int]) -> bool:
        """No card still hidden in other hands can beat ``card`` in this trick."""
        return not any(Briscola5Heuristic._beats(u, card, led, trump) for u in unseen)

    @staticmethod
    def _cheapest(legal: list[int], trump: int) -> int:
        return min(legal, key=lambda c: (suit(c) == trump, points(c), strength(c)))

    @staticmethod
    def _load(legal: list[int], trump: int) -> int:
        def keep_key(c: int) -> tuple:
            precious = suit(c) == trump and c % 10 in (0, 2)
            return (not precious, suit(c) != trump, points(c), -strength(c))

        return max(legal, key=keep_key)
