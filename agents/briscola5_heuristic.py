"""The Briscola in cinque heuristic (agent spec ``heuristic``), acting from the decoded observation only.

It reads ``envs.briscola5.observation.decode(obs)`` (its own hand, the public auction, the
call, the cards played, the trick in progress, the partner once revealed, and the private
fact that it holds the called card), never the environment, so it cannot cheat. It never draws
a random number: its action is a function of the observation (the seed is accepted and unused).

**Hand estimate.** For a trump suit ``t``: ``est(t) = 50 + sum over the trumps held of
(5 + EST_RANK[rank])`` with ``EST_RANK`` = A 10, 3 13, K 7, H 4, J 3, others 0. It is the
expected card points of the caller's team when the hand calls with trump ``t`` (the strongest
trump it lacks, so the partner brings that card) and everybody plays these rules: rounded from a
least-squares fit on 3,000 random hands made the caller at 61 (team points: mean 81, sd 19; refit
with the final rules: 53 + 3.9 per trump + A 12, 3 12, K 7.7, H 4.8, J 3.6, residual sd 17.6;
side-suit card points add nothing measurable once the trumps are counted: the defenders trump them).
``EST_SD`` = 20 keeps a little margin over the residual.
The best suit is the one of the highest estimate (the higher suit on a tie).

**Bid value.** With the contract multiplier on wins only (spec B9), a contract of ``b`` is worth
to the caller ``EV(est, b) = 2 * m(b) * p - 2 * (1 - p)``, ``m`` = 1 (61-70), 2 (71-80), 3 (81+),
``p = P(points >= b)`` for points ~ Normal(est, 20). ``BID_EV[est][b - 61]`` tabulates it.

| phase | rule |
|-------|------|
| forfeit | a 0-point hand forfeits |
| auction | candidates: the lowest legal bid ``b0``, and 71 and 81 when above ``b0`` and legal (a bid just above a multiplier step is worth more than any bid below the next step); bid the candidate of the highest ``EV(est, b)`` if it is above ``EV_MIN`` = 1.5 credits, the lower bid on equal values; otherwise pass. So it stops where its own hand stops paying: est 70 passes; est 75 opens 71 and stops there; est 80 opens 71 and goes on to 83 against rivals; est 90 opens 81 and goes on to 93 |
| call | 6+ trumps with the Ace and the Three: call its own weakest trump (solo); otherwise the strongest card of the best suit it does not hold (A, 3, K, ...) |
| lead | the cheapest card (a zero-point non-trump first, trumps last) |
| follow: a friend wins the trick | it is safe (no foe or unknown seat still to play, or no unseen card beats it): load the most points that are not a trump (the trump Ace and Three never); otherwise the cheapest card |
| follow: a foe or an unknown seat wins | take with the cheapest *safe* winning card (no foe/unknown still to play, or no unseen card beats it) when it is a non-trump and the trick then holds points, or a trump and the trick holds 10+ points or it is one of the last three tricks; otherwise the cheapest card |

Roles (``FRIEND`` / ``FOE`` / ``UNKNOWN`` per seat):

| who I am | before the called card is played | after |
|----------|----------------------------------|-------|
| caller, solo | everyone else is a foe | same |
| caller | the suspect (below) is the friend, the others foes; no suspect: all unknown | the partner is the friend |
| partner (holds the called card) | the caller is the friend, the others foes | same |
| defender | the caller is a foe; a suspect is a foe and the other two defenders friends; no suspect: unknown | the caller and the partner are foes |

**Who is the partner?** From the play so far (the tricks rebuilt in play order: trick 1 led by
the first player, or by the caller under ``first_lead="caller"`` when only that fits the current
leader; each later one by the previous winner), every card a non-caller seat plays while the
caller's card is winning the trick scores that seat: beating the caller -2 (a defender's move),
loading 10+ points +2, loading 2-4 points +1 (a partner's moves). The suspect is the non-caller
seat (not me) of the highest score, if it is positive and unique.

"Cheapest" orders by (is a trump, card points, strength); "load" by (not a trump A/3, not a
trump, card points, weaker first). Equal keys: the lowest card id (``min``/``max`` over the legal ids).

The numba port ``agents/batched/briscola5.py`` chooses the same action on every observation
(``tests/agents/test_batched_heuristics.py``); a change of these rules must be ported there.
"""

from __future__ import annotations

import math
from typing import Any

import numpy as np

from agents.base import BaseAgent, legal_actions
from envs.briscola5.game import (
    AUCTION,
    BID,
    BID_MAX,
    BID_MIN,
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
)
from envs.briscola5.observation import PHASE_KEYS, decode

__all__ = ["Briscola5Heuristic", "hand_estimate", "best_trump", "bid_ev", "BID_EV", "CHEAP", "LOAD", "BEATEN_BY"]

N = NUM_PLAYERS
RANK = DECK.rank_of
ACE, THREE = DECK.rank_codes.index("A"), DECK.rank_codes.index("3")
#: Ranks by decreasing strength: A, 3, K, H, J, 7, 6, 5, 4, 2.
RANKS_STRONGEST_FIRST = sorted(range(DECK.num_ranks), key=lambda r: -RANK_STRENGTH[r])
_ALL = DECK.full_mask
_FORFEIT_CHECK, _AUCTION, _CALL = PHASE_KEYS[FORFEIT_CHECK], PHASE_KEYS[AUCTION], PHASE_KEYS[CALL_CARD]
FRIEND, FOE, UNKNOWN = 0, 1, 2

#: The hand estimate: ``EST_BASE + sum over the trumps held of (EST_PER_TRUMP + EST_RANK[rank])``.
EST_BASE, EST_PER_TRUMP = 50, 5
EST_RANK = (10, 0, 13, 0, 0, 0, 0, 3, 4, 7)  # by rank index: A, 2, 3, 4, 5, 6, 7, J, H, K
#: Standard deviation of the caller team's points around the estimate.
EST_SD = 20.0
#: Largest possible estimate (8 trumps with A, 3, K, H, J).
EST_MAX = EST_BASE + 8 * EST_PER_TRUMP + sum(EST_RANK)
#: Bid only when the contract is worth more than this to the caller (credits). Passing is not
#: worth 0: other callers compete, and a margin keeps a field of these players from bidding one
#: another up to contracts worth nothing; tuned on duplicate deals (0, 0.7, 1, 1.4, 1.5, 2, 2.5, 3).
EV_MIN = 1.5
#: The multiplier steps worth jumping to (spec 4.2: 71 doubles, 81 triples a win).
JUMPS = (71, 81)
#: A trump takes a foe's trick holding at least this many points (or in the last LATE tricks).
TRUMP_NEED, LATE = 10, 3
#: Suspicion scores (who is the partner): beating the caller, loading 10+ points, loading 2-4 points.
SUSPECT_BEAT, SUSPECT_BIG, SUSPECT_SMALL = -2, 2, 1
#: Solo (own card called): at least this many trumps, holding the Ace and the Three.
SOLO_TRUMPS = 6


def _beats(card: int, best: int, trump: int) -> bool:
    """``card`` takes a trick held by ``best``."""
    if SUIT[card] == SUIT[best]:
        return STRENGTH[card] > STRENGTH[best]
    return SUIT[card] == trump


#: ``BEATEN_BY[trump][c]``: the bitmask of the cards that beat ``c``.
BEATEN_BY = tuple(
    tuple(sum(1 << u for u in range(DECK.size) if _beats(u, c, t)) for c in range(DECK.size))
    for t in range(DECK.num_suits)
)
#: ``CHEAP[trump][c]``: (is a trump, points, strength); the lowest is the cheapest card.
CHEAP = tuple(
    tuple((SUIT[c] == t, POINTS[c], STRENGTH[c]) for c in range(DECK.size)) for t in range(DECK.num_suits)
)
#: ``LOAD[trump][c]``: (not a trump Ace/Three, not a trump, points, -strength); the highest is loaded.
LOAD = tuple(
    tuple(
        (not (SUIT[c] == t and RANK[c] in (ACE, THREE)), SUIT[c] != t, POINTS[c], -STRENGTH[c])
        for c in range(DECK.size)
    )
    for t in range(DECK.num_suits)
)


def hand_estimate(hand: list[int], trump: int) -> int:
    """Expected card points of the caller's team when ``hand`` calls with ``trump``."""
    return EST_BASE + sum(EST_PER_TRUMP + EST_RANK[RANK[c]] for c in hand if SUIT[c] == trump)


def best_trump(hand: list[int]) -> tuple[int, int]:
    """(suit, estimate) of the highest estimate; the higher suit on a tie."""
    value, trump = max((hand_estimate(hand, s), s) for s in range(DECK.num_suits))
    return trump, value


def bid_ev(est: int, bid: int) -> float:
    """Expected credits of the caller for a contract ``bid`` with estimate ``est`` (spec 4.2, B9)."""
    p = 0.5 * (1.0 + math.erf((est + 0.5 - bid) / (EST_SD * math.sqrt(2.0))))  # P(points >= bid)
    mult = 1 if bid <= 70 else 2 if bid <= 80 else 3
    return 2.0 * mult * p - 2.0 * (1.0 - p)


#: ``BID_EV[est][bid - BID_MIN]`` for est 0..EST_MAX, bid BID_MIN..BID_MAX.
BID_EV = tuple(tuple(bid_ev(e, b) for b in range(BID_MIN, BID_MAX + 1)) for e in range(EST_MAX + 1))


def winner_index(cards: list[int], trump: int) -> int:
    """Index (play order) of the card winning ``cards``."""
    best = 0
    for i in range(1, len(cards)):
        if _beats(cards[i], cards[best], trump):
            best = i
    return best


def history(view: dict[str, Any]) -> list[tuple[int, list[int]]]:
    """The completed tricks as (leader, cards in play order), relative seats.

    Trick 1 is led by the first player (right of the dealer); if the chain of winners from
    there does not reach the current leader, by the caller (``first_lead="caller"``).
    """
    done = view["trick_no"]
    table = [[-1] * N for _ in range(done)]
    for t, r, c in view["played"]:
        if t < done:
            table[t][r] = c
    trump = view["trump"]
    seq: list[tuple[int, list[int]]] = []
    for first in ((view["dealer"] + 1) % N, view["caller"]):
        lead, seq = first, []
        for t in range(done):
            cards = [table[t][(lead + i) % N] for i in range(N)]
            seq.append((lead, cards))
            lead = (lead + winner_index(cards, trump)) % N
        if lead == view["trick_leader"]:
            break
    return seq


def suspect(view: dict[str, Any]) -> int:
    """The non-caller seat (not 0) most likely to be the partner from the play, or -1."""
    caller, trump = view["caller"], view["trump"]
    score = [0] * N
    tricks = history(view)
    if view["trick"]:
        tricks.append((view["trick_leader"], view["trick"]))
    for lead, cards in tricks:
        best = 0
        for i in range(1, len(cards)):
            s, c = (lead + i) % N, cards[i]
            beats = _beats(c, cards[best], trump)
            if (lead + best) % N == caller and s != 0:
                if beats:
                    score[s] += SUSPECT_BEAT
                elif POINTS[c] >= 10:
                    score[s] += SUSPECT_BIG
                elif POINTS[c] > 0:
                    score[s] += SUSPECT_SMALL
            if beats:
                best = i
    top = -1
    for s in range(1, N):
        if s != caller and score[s] > 0 and (top < 0 or score[s] > score[top]):
            top = s
    if top >= 0 and sum(1 for s in range(1, N) if s != caller and score[s] == score[top]) > 1:
        return -1
    return top


def seat_status(view: dict[str, Any]) -> list[int]:
    """``FRIEND``, ``FOE`` or ``UNKNOWN`` per relative seat (seat 0, me, is a friend)."""
    caller = view["caller"]
    if view["partner_revealed"]:
        team = {caller, view["partner"]}
        return [FRIEND if (s in team) == (0 in team) else FOE for s in range(N)]
    if view["holds_called"]:  # a solo caller, or the partner
        return [FRIEND if s in (0, caller) else FOE for s in range(N)]
    status = [FRIEND] + [UNKNOWN] * (N - 1)
    if caller != 0:
        status[caller] = FOE
    sus = suspect(view)
    if sus >= 0:
        for s in range(1, N):
            if s != caller:
                status[s] = FRIEND if (s == sus) == (caller == 0) else FOE
    return status


class Briscola5Heuristic(BaseAgent):
    """Rule-based Briscola in cinque player (see the module docstring)."""

    name = "heuristic"

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
    @staticmethod
    def _bid(view: dict[str, Any], legal: list[int]) -> int:
        bids = [a for a in legal if BID <= a < FORFEIT]
        if not bids:
            return PASS
        _, est = best_trump(view["hand"])
        ev = BID_EV[est]
        b0 = bids[0] - BID + BID_MIN
        best, best_ev = PASS, EV_MIN
        for b in (b0, *(j for j in JUMPS if j > b0 and BID + j - BID_MIN in legal)):
            if ev[b - BID_MIN] > best_ev:
                best, best_ev = BID + b - BID_MIN, ev[b - BID_MIN]
        return best

    @staticmethod
    def _call(view: dict[str, Any], legal: list[int]) -> int:
        hand = set(view["hand"])
        trump, _ = best_trump(view["hand"])
        trumps = [c for c in hand if SUIT[c] == trump]
        ranks = {RANK[c] for c in trumps}
        if len(trumps) >= SOLO_TRUMPS and {ACE, THREE} <= ranks:
            own = min(trumps, key=STRENGTH.__getitem__)
            if CALL + own in legal:
                return CALL + own
        for rank in RANKS_STRONGEST_FIRST:
            card = DECK.card(trump, rank)
            if card not in hand and CALL + card in legal:
                return CALL + card
        return min(legal)

    # -- trick play -------------------------------------------------------------------------
    @staticmethod
    def _play(view: dict[str, Any], legal: list[int]) -> int:
        trump = view["trump"]
        cheap = CHEAP[trump].__getitem__
        trick = view["trick"]
        if not trick:
            return min(legal, key=cheap)
        leader = view["trick_leader"]
        wi = winner_index(trick, trump)
        w_seat, w_card = (leader + wi) % N, trick[wi]
        status = seat_status(view)
        danger = any(status[(leader + i) % N] != FRIEND for i in range(len(trick) + 1, N))
        known = 0
        for c in view["hand"]:
            known |= 1 << c
        for _, _, c in view["played"]:
            known |= 1 << c
        unseen = _ALL ^ known
        beaten_by = BEATEN_BY[trump]
        if status[w_seat] == FRIEND:
            if not danger or not unseen & beaten_by[w_card]:
                return max(legal, key=LOAD[trump].__getitem__)
            return min(legal, key=cheap)
        safe = [c for c in legal if beaten_by[w_card] >> c & 1 and (not danger or not unseen & beaten_by[c])]
        if safe:
            take = min(safe, key=cheap)
            points = sum(POINTS[c] for c in trick)
            if SUIT[take] != trump:
                if points + POINTS[take] > 0:
                    return take
            elif points >= TRUMP_NEED or view["trick_no"] >= NUM_TRICKS - LATE:
                return take
        return min(legal, key=cheap)
