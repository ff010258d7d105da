"""Briscola in cinque: the heuristic decided for many observations at once (numba).

`Briscola5BatchedHeuristic.act(obs, mask)` takes a float32 `(k, 1169)` matrix whose rows are
observations of seats to act (each exactly the AEC env's `observe(agent)["observation"]`, e.g.
`vector_env(...).obs`) and the int8 `(k, 143)` matrix of their masks, and returns an int64 `(k,)`
array: for every row, the action `agents.briscola5_heuristic.Briscola5Heuristic.act` chooses on
that observation. Like the Python heuristic, which reads only `decode(obs)`, the kernel reads
only the row and its mask (the fields below, at their observation offsets), never an engine
state, so rows of different games and seats may come in any order.

| phase (`phase` one-hot) | what the kernel reads | rule of the Python heuristic |
|---|---|---|
| forfeit check | the mask | `FORFEIT` if legal, else `NO_FORFEIT` |
| auction | `hand`, the mask | the hand estimate of the best suit, then the candidate bid (lowest legal, 71, 81) of the highest `BID_EV` above `EV_MIN`, else `PASS` |
| call | `hand`, the mask | a solo with 6+ trumps and A, 3; else the strongest trump not held |
| trick play | `hand`, `holds_called`, `dealer`, `caller`, `trump`, `played_by`, `played_in_trick`, `current_trick`, `trick_leader`, `partner_revealed`, `partner`, the mask | the tricks rebuilt in play order, the suspected partner, each seat's status (friend, foe, unknown), then lead, load, take or throw (the module docstring of the Python heuristic) |

Equal decisions, tie for tie: the Python heuristic picks with `min`/`max` over the legal ids in
increasing order with tuple keys, and `max` over `(estimate, suit)` for the trump. The kernel
scans the same ids in the same order and replaces its choice only on a strictly better key (the
first of equal keys, as `min` and `max` keep it), and on equal estimates keeps the higher suit.
The tuple keys are turned into dense integer ranks per trump suit (equal tuples, equal rank);
the expected credits of a bid are the Python heuristic's own `BID_EV` table (the same float64
values, compared in the same order).

Randomness: none. The Python heuristic never draws from its generator (its decisions are a
function of the observation alone), so neither does this port; `seed` is accepted and ignored,
and the same rows always give the same actions.

The plain greedy player (`agents/plain/briscola5.py`, spec `plain`, alias `greedy`) has its port here too:
`Briscola5BatchedGreedy` (exported as `GreedyAgent`, the Python player's class name, which `agents/rows.py`
looks up), the section "the plain greedy player" at the end of this file. `Briscola5BatchedOverbidder`
(spec `heuristic-overbid`, a training opponent) is the heuristic with its auction pushed up, and
`Briscola5BatchedSeer` (spec `heuristic-seer`, a training opponent that cheats) the heuristic that knows the
partner and the foes' cards in its tricks.

The tables (`BEATEN_BY`, `CHEAP`, `LOAD`, `BID_EV`, the estimate weights, the call order) are
built from the Python heuristic's own, and every fact from another module (observation offsets,
action ids, card tables, the rule constants) reaches the kernel as an argument, not as a global:
numba's on-disk cache (`cache=True`) freezes globals and notices changes to this file only, so a
change to the layout or to the heuristic's tables can never be served from a stale cache. A
change of the heuristic's *rules* must be ported here; `tests/agents/test_batched_heuristics.py`
compares both on thousands of observations.

Example:

    >>> from envs import briscola5_v0
    >>> from agents.batched.briscola5 import Briscola5BatchedHeuristic
    >>> venv = briscola5_v0.vector_env(4)
    >>> obs, mask = venv.reset(seed=0)
    >>> actions = Briscola5BatchedHeuristic("briscola5").act(obs, mask)
    >>> actions.dtype, actions.shape, bool(mask[range(4), actions].all())
    (dtype('int64'), (4,), True)
"""

from __future__ import annotations

from typing import Any

import numba as nb
import numpy as np

from agents import briscola5_heuristic as _py
from agents.batched.base import BatchedHeuristic
from agents.batched.base import first_legal as _first_legal
from agents.plain import briscola5 as _plain
from envs.briscola5.game import (
    AUCTION,
    BID,
    BID_IDS,
    BID_MIN,
    CALL,
    CALL_CARD,
    DECK,
    FORFEIT,
    FORFEIT_CHECK,
    NO_FORFEIT,
    NUM_ACTIONS,
    NUM_PLAYERS,
    NUM_TRICKS,
    PASS,
    POINTS,
    STRENGTH,
    SUIT,
)
from envs.briscola5.observation import LAYOUT, OBS_SIZE
from envs.briscola5.privileged import PRIVILEGED_SIZE
from envs.core.errors import ConfigError

__all__ = ["Briscola5BatchedHeuristic", "Briscola5Heuristic", "Briscola5BatchedOverbidder", "Briscola5BatchedSeer",
           "act_rows", "seer_rows",
           "Briscola5BatchedGreedy", "GreedyAgent", "greedy_rows"]

# -- what the kernel receives ---------------------------------------------------------------
# `consts` (int64): the indices below are this file's, the values come from game.py,
# observation.py and the Python heuristic at import time.
(K_HAND, K_HOLDS, K_PHASE, K_DEALER, K_CALLER, K_TRUMP, K_PLAYED_BY, K_PLAYED_IN, K_TRICK, K_LEADER, K_REVEALED,
 K_PARTNER, K_N, K_NUM_TRICKS, K_NUM_SUITS, K_NUM_RANKS, K_ACE, K_THREE, K_FORFEIT_CHECK, K_AUCTION,
 K_CALL_CARD, K_CALL, K_PASS, K_BID, K_NUM_BIDS, K_BID_MIN, K_FORFEIT, K_NO_FORFEIT, K_EST_BASE, K_EST_PER_TRUMP,
 K_JUMP1, K_JUMP2, K_TRUMP_NEED, K_LATE, K_SUSPECT_BEAT, K_SUSPECT_BIG, K_SUSPECT_SMALL, K_SOLO_TRUMPS,
 K_CALLED) = range(39)
_OBS_FIELDS = ("hand", "holds_called", "phase", "dealer", "caller", "trump", "played_by", "played_in_trick",
               "current_trick", "trick_leader", "partner_revealed", "partner")
assert len(_py.JUMPS) == 2
CONSTS = np.array(
    [LAYOUT.fields[f].obs_offset for f in _OBS_FIELDS]
    + [NUM_PLAYERS, NUM_TRICKS, DECK.num_suits, DECK.num_ranks, _py.ACE, _py.THREE, FORFEIT_CHECK, AUCTION,
       CALL_CARD, CALL, PASS, BID, len(BID_IDS), BID_MIN, FORFEIT, NO_FORFEIT, _py.EST_BASE, _py.EST_PER_TRUMP,
       *_py.JUMPS, _py.TRUMP_NEED, _py.LATE, _py.SUSPECT_BEAT, _py.SUSPECT_BIG, _py.SUSPECT_SMALL,
       _py.SOLO_TRUMPS, LAYOUT.fields["called_card"].obs_offset],
    dtype=np.int64,
)
assert len(CONSTS) == K_CALLED + 1
# played_by is (card, seat), played_in_trick (card, trick) and current_trick (seat, card): the kernel indexes them so.
assert LAYOUT.fields["played_by"].shape == (DECK.size, NUM_PLAYERS)
assert LAYOUT.fields["played_in_trick"].shape == (DECK.size, NUM_TRICKS)
assert LAYOUT.fields["current_trick"].shape == (NUM_PLAYERS, DECK.size)

#: `CARD_TAB[row, c]`, rows: suit, card points, strength, rank, estimate weight (per trump held) of card `c`.
C_SUIT, C_POINTS, C_STRENGTH, C_RANK, C_EST = range(5)
CARD_TAB = np.array([SUIT, POINTS, STRENGTH, [DECK.rank_of[c] for c in range(DECK.size)],
                     [_py.EST_PER_TRUMP + _py.EST_RANK[DECK.rank_of[c]] for c in range(DECK.size)]], dtype=np.int64)
#: `BID_EV[est, bid - BID_MIN]`: the Python heuristic's table (float64, the same values).
BID_EV = np.array(_py.BID_EV, dtype=np.float64)
EV_MIN = float(_py.EV_MIN)


def _dense_ranks(keys) -> list[int]:
    """Each key's rank among the distinct keys (equal keys, equal rank; orders like the tuples)."""
    order = {k: r for r, k in enumerate(sorted(set(keys)))}
    return [order[k] for k in keys]


#: `TRUMP_TAB[trump, row, c]`, rows: `BEATEN_BY` (bitmask of the cards that beat `c`), the rank of
#: the `CHEAP` key (lowest is cheapest), the rank of the `LOAD` key (highest is loaded first), and
#: the call order (row `T_CALL_ORDER`, first `num_ranks` entries: the cards of the trump suit from
#: the strongest rank down).
T_BEATEN_BY, T_CHEAP, T_LOAD, T_CALL_ORDER = range(4)
TRUMP_TAB = np.full((DECK.num_suits, 4, DECK.size), -1, dtype=np.int64)
for _t in range(DECK.num_suits):
    TRUMP_TAB[_t, T_BEATEN_BY] = _py.BEATEN_BY[_t]
    TRUMP_TAB[_t, T_CHEAP] = _dense_ranks(_py.CHEAP[_t])
    TRUMP_TAB[_t, T_LOAD] = _dense_ranks(_py.LOAD[_t])
    TRUMP_TAB[_t, T_CALL_ORDER, : DECK.num_ranks] = [DECK.card(_t, r) for r in _py.RANKS_STRONGEST_FIRST]
del _t

FRIEND, FOE, UNKNOWN = _py.FRIEND, _py.FOE, _py.UNKNOWN


# -- the kernel -------------------------------------------------------------------------------
@nb.njit(cache=True, inline="always")
def _first_hit(row: np.ndarray, start: int, size: int) -> int:
    """Index (from `start`) of the first nonzero of `row[start:start + size]`, or -1 (decode's `first_hit`)."""
    for j in range(size):
        if row[start + j] != 0:
            return j
    return -1


@nb.njit(cache=True, inline="always")
def _lowest_bid(m: np.ndarray, k: np.ndarray) -> int:
    """The lowest legal bid id, or -1."""
    for a in range(k[K_BID], k[K_BID] + k[K_NUM_BIDS]):
        if m[a] != 0:
            return a
    return -1


@nb.njit(cache=True, inline="always")
def _cheapest(m: np.ndarray, cheap: np.ndarray, num_cards: int) -> int:
    """`min(legal, key=CHEAP[trump])`: the first legal card of the lowest key, or -1."""
    best = -1
    for c in range(num_cards):
        if m[c] != 0 and (best < 0 or cheap[c] < cheap[best]):
            best = c
    return best


@nb.njit(cache=True, inline="always")
def _beats(card: int, best: int, trump: int, card_tab: np.ndarray) -> bool:
    if card_tab[C_SUIT, card] == card_tab[C_SUIT, best]:
        return card_tab[C_STRENGTH, card] > card_tab[C_STRENGTH, best]
    return card_tab[C_SUIT, card] == trump


@nb.njit(cache=True, inline="always")
def _best_trump(o: np.ndarray, k: np.ndarray, card_tab: np.ndarray, est: np.ndarray) -> int:
    """`best_trump(hand)`: the suit of the highest estimate (the higher suit on equal ones); `est[s]` per suit."""
    num_suits = k[K_NUM_SUITS]
    for s in range(num_suits):
        est[s] = k[K_EST_BASE]
    hand = k[K_HAND]
    for c in range(card_tab.shape[1]):
        if o[hand + c] != 0:
            est[card_tab[C_SUIT, c]] += card_tab[C_EST, c]
    best = 0
    for s in range(1, num_suits):
        if est[s] >= est[best]:  # max((estimate, suit)): the higher suit wins a tie
            best = s
    return best


@nb.njit(cache=True)
def _act_row(o: np.ndarray, m: np.ndarray, k: np.ndarray, card_tab: np.ndarray, trump_tab: np.ndarray,
             bid_ev: np.ndarray, ev_min: float, est: np.ndarray, table: np.ndarray, status: np.ndarray,
             score: np.ndarray, cards: np.ndarray, hidden: np.ndarray) -> int:
    """The Python heuristic's `act` on one observation row `o` and its mask `m` (-1 if no action is legal).

    `hidden`: empty for the heuristic; for the seer (a cheating training opponent) the seat's privileged row
    (the other seats' hands, `envs/briscola5/privileged.py`), from which it knows the partner and which cards
    the seats still to play in a trick hold."""
    first_legal = _first_legal(m)
    if first_legal < 0:
        return -1
    phase = _first_hit(o, k[K_PHASE], 4)

    if phase == k[K_FORFEIT_CHECK]:
        return k[K_FORFEIT] if m[k[K_FORFEIT]] != 0 else k[K_NO_FORFEIT]

    hand = k[K_HAND]
    num_cards = card_tab.shape[1]

    if phase == k[K_AUCTION]:
        lowest = _lowest_bid(m, k)
        if lowest < 0:
            return k[K_PASS]
        trump = _best_trump(o, k, card_tab, est)
        e = est[trump]
        b0 = lowest - k[K_BID]  # bid - BID_MIN
        best, best_ev = k[K_PASS], ev_min
        if bid_ev[e, b0] > best_ev:
            best, best_ev = lowest, bid_ev[e, b0]
        for jump in (k[K_JUMP1], k[K_JUMP2]):
            j = jump - k[K_BID_MIN]
            if j > b0 and m[k[K_BID] + j] != 0 and bid_ev[e, j] > best_ev:
                best, best_ev = k[K_BID] + j, bid_ev[e, j]
        return best

    if phase == k[K_CALL_CARD]:
        call = k[K_CALL]
        trump = _best_trump(o, k, card_tab, est)
        count, ace, three, own = 0, False, False, -1
        for c in range(num_cards):
            if o[hand + c] != 0 and card_tab[C_SUIT, c] == trump:
                count += 1
                ace |= card_tab[C_RANK, c] == k[K_ACE]
                three |= card_tab[C_RANK, c] == k[K_THREE]
                if own < 0 or card_tab[C_STRENGTH, c] < card_tab[C_STRENGTH, own]:
                    own = c  # the weakest trump held
        if count >= k[K_SOLO_TRUMPS] and ace and three and m[call + own] != 0:
            return call + own
        for j in range(k[K_NUM_RANKS]):
            card = trump_tab[trump, T_CALL_ORDER, j]
            if o[hand + card] == 0 and m[call + card] != 0:
                return call + card
        return first_legal

    # Trick play (and, like the Python heuristic, any row without a phase).
    n = k[K_N]
    trump = _first_hit(o, k[K_TRUMP], k[K_NUM_SUITS])
    cheap = trump_tab[trump, T_CHEAP]
    beaten_by = trump_tab[trump, T_BEATEN_BY]
    leader = _first_hit(o, k[K_LEADER], n)
    # decode: the seats with a card on the table, read from the leader on in play order
    count = 0
    if leader >= 0:
        for r in range(n):
            if _first_hit(o, k[K_TRICK] + num_cards * r, num_cards) >= 0:
                count += 1
    if count == 0:
        return _cheapest(m, cheap, num_cards)
    win_i, trick_points = 0, 0
    for i in range(count):
        cards[i] = _first_hit(o, k[K_TRICK] + num_cards * ((leader + i) % n), num_cards)
        trick_points += card_tab[C_POINTS, cards[i]]
        if i > 0 and _beats(cards[i], cards[win_i], trump, card_tab):
            win_i = i
    win_card = cards[win_i]
    winner_seat = (leader + win_i) % n

    # decode's `played` (first trick, first seat of each played card), the cards known, and trick_no
    num_tricks = k[K_NUM_TRICKS]
    for t in range(num_tricks):
        for r in range(n):
            table[t, r] = -1
    known = np.int64(0)
    tricks_seen = np.int64(0)
    played_by, played_in = k[K_PLAYED_BY], k[K_PLAYED_IN]
    for c in range(num_cards):
        if o[hand + c] != 0:
            known |= np.int64(1) << c
        seat = -1
        for r in range(n):
            if o[played_by + n * c + r] != 0:
                seat = r
                break
        if seat < 0:
            continue
        known |= np.int64(1) << c
        t = 0
        for j in range(num_tricks):
            if o[played_in + num_tricks * c + j] != 0:
                t = j
                break
        tricks_seen |= np.int64(1) << t
        table[t, seat] = c
    done = -1  # trick_no: the distinct tricks of the played cards, less the one on the table
    for t in range(num_tricks):
        if (tricks_seen >> t) & 1:
            done += 1
    unseen = ((np.int64(1) << num_cards) - 1) ^ known
    caller = _first_hit(o, k[K_CALLER], n)

    # Each seat's status, as seat_status (and suspect, history) of the Python heuristic.
    revealed = o[k[K_REVEALED]] != 0
    if revealed:
        partner = _first_hit(o, k[K_PARTNER], n)
        mine = caller == 0 or partner == 0
        for s in range(n):
            status[s] = FRIEND if (s == caller or s == partner) == mine else FOE
    elif o[k[K_HOLDS]] != 0:
        for s in range(n):
            status[s] = FRIEND if s == 0 or s == caller else FOE
    elif hidden.shape[0] > 0:  # the seer: the partner holds the called card (the caller, if nobody else does)
        called = _first_hit(o, k[K_CALLED], num_cards)
        partner = caller
        for r in range(1, n):
            if hidden[(r - 1) * num_cards + called] != 0:
                partner = r
        mine = caller == 0
        for s in range(n):
            status[s] = FRIEND if (s == caller or s == partner) == mine else FOE
    else:
        status[0] = FRIEND
        for s in range(1, n):
            status[s] = UNKNOWN
        if caller != 0:
            status[caller] = FOE
        # history: trick 1 led by the first player, else (if the chain misses the leader) by the caller
        dealer = _first_hit(o, k[K_DEALER], n)
        first = (dealer + 1) % n
        for attempt in range(2):
            if attempt == 1:
                first = caller
            lead = first
            for t in range(done):
                w = 0
                for i in range(1, n):
                    if _beats(table[t, (lead + i) % n], table[t, (lead + w) % n], trump, card_tab):
                        w = i
                lead = (lead + w) % n
            if lead == leader:
                break
        for s in range(n):
            score[s] = 0
        lead = first
        for t in range(done + 1):  # the completed tricks, then the one on the table
            if t == done:
                lead = leader
            size = n if t < done else count
            best = 0
            for i in range(1, size):
                s = (lead + i) % n
                c = table[t, s] if t < done else cards[i]
                best_card = table[t, (lead + best) % n] if t < done else cards[best]
                beats = _beats(c, best_card, trump, card_tab)
                if (lead + best) % n == caller and s != 0:
                    if beats:
                        score[s] += k[K_SUSPECT_BEAT]
                    elif card_tab[C_POINTS, c] >= 10:
                        score[s] += k[K_SUSPECT_BIG]
                    elif card_tab[C_POINTS, c] > 0:
                        score[s] += k[K_SUSPECT_SMALL]
                if beats:
                    best = i
            lead = (lead + best) % n
        top = -1
        for s in range(1, n):
            if s != caller and score[s] > 0 and (top < 0 or score[s] > score[top]):
                top = s
        if top >= 0:
            ties = 0
            for s in range(1, n):
                if s != caller and score[s] == score[top]:
                    ties += 1
            if ties > 1:
                top = -1
        if top >= 0:
            for s in range(1, n):
                if s != caller:
                    status[s] = FRIEND if (s == top) == (caller == 0) else FOE

    danger = False
    threat = unseen  # the cards that a seat still to play may hold (the seer: those the foes among them hold)
    if hidden.shape[0] > 0:
        threat = np.int64(0)
    for i in range(count + 1, n):
        s = (leader + i) % n
        if status[s] != FRIEND:
            danger = True
            if hidden.shape[0] > 0:
                for c in range(num_cards):
                    if hidden[(s - 1) * num_cards + c] != 0:
                        threat |= np.int64(1) << c

    if status[winner_seat] == FRIEND:
        if not danger or (threat & beaten_by[win_card]) == 0:
            load = trump_tab[trump, T_LOAD]
            best = -1  # max(legal, key=LOAD[trump]): the first legal card of the highest key
            for c in range(num_cards):
                if m[c] != 0 and (best < 0 or load[c] > load[best]):
                    best = c
            return best
        return _cheapest(m, cheap, num_cards)

    # A foe or an unknown seat holds the trick: take it with the cheapest safe winner when it pays.
    beats_winner = beaten_by[win_card]
    take = -1
    for c in range(num_cards):
        if (m[c] != 0 and ((beats_winner >> c) & 1) != 0 and (not danger or (threat & beaten_by[c]) == 0)
                and (take < 0 or cheap[c] < cheap[take])):
            take = c
    if take >= 0:
        if card_tab[C_SUIT, take] != trump:
            if trick_points + card_tab[C_POINTS, take] > 0:
                return take
        elif trick_points >= k[K_TRUMP_NEED] or done >= num_tricks - k[K_LATE]:
            return take
    return _cheapest(m, cheap, num_cards)


@nb.njit(cache=True)
def act_rows(obs: np.ndarray, mask: np.ndarray, consts: np.ndarray, card_tab: np.ndarray, trump_tab: np.ndarray,
             bid_ev: np.ndarray, ev_min: float, out: np.ndarray) -> None:
    """`out[i]` = the heuristic's action on `obs[i]`, `mask[i]` (-1 where the mask row is all zeros)."""
    no_hidden = np.zeros((obs.shape[0], 0), dtype=obs.dtype)  # the heuristic sees no hidden cards
    seer_rows(obs, mask, no_hidden, consts, card_tab, trump_tab, bid_ev, ev_min, out)


@nb.njit(cache=True)
def seer_rows(obs: np.ndarray, mask: np.ndarray, hidden: np.ndarray, consts: np.ndarray, card_tab: np.ndarray,
              trump_tab: np.ndarray, bid_ev: np.ndarray, ev_min: float, out: np.ndarray) -> None:
    """`act_rows` for the seer: `hidden[i]` is the privileged row of the seat that `obs[i]` observes (an empty
    row for the heuristic)."""
    n = consts[K_N]
    est = np.zeros(consts[K_NUM_SUITS], dtype=np.int64)
    table = np.full((consts[K_NUM_TRICKS], n), -1, dtype=np.int64)
    status = np.zeros(n, dtype=np.int64)
    score = np.zeros(n, dtype=np.int64)
    cards = np.zeros(n, dtype=np.int64)
    for i in range(obs.shape[0]):
        out[i] = _act_row(obs[i], mask[i], consts, card_tab, trump_tab, bid_ev, ev_min, est, table, status, score,
                          cards, hidden[i])


class _Briscola5Rows(BatchedHeuristic):
    """What the Briscola ports share: the game, its action count and its one observation width."""

    game = "briscola5"
    num_actions = NUM_ACTIONS

    def _widths(self) -> dict[int, str]:
        return {OBS_SIZE: ""}


class Briscola5BatchedHeuristic(_Briscola5Rows):
    """The Briscola heuristic over float32 `(k, 1169)` observations and int8 `(k, 143)` masks."""

    def _decide(self, obs: np.ndarray, mask: np.ndarray, out: np.ndarray) -> None:
        act_rows(obs, mask, CONSTS, CARD_TAB, TRUMP_TAB, BID_EV, EV_MIN, out)

#: The name `agents/rows.py` looks up (the Python heuristic's class name).
Briscola5Heuristic = Briscola5BatchedHeuristic


class Briscola5BatchedOverbidder(Briscola5BatchedHeuristic):
    """The heuristic with an inflated auction: a training opponent (spec `heuristic-overbid[:SHIFT]`).

    It bids as if each hand estimate were `shift` card points higher (`BID_EV[est + shift]`, capped at the
    table's last row), and calls and plays exactly as the heuristic. Why: PIMC pushes Briscola's auction to a
    mean contract of 99 and makes few of its contracts, so a learner that meets only the heuristic (mean
    contract 88) rarely defends against contracts that high. Five of these at one table (4,000 deals of the
    batched engine, exact for the seed: `python benchmarks/overbid_table.py`):

    | `shift` | mean contract | contracts made |
    |---|---|---|
    | 0 (the heuristic) | 88.4 | 54.0% |
    | 10 (the default) | 98.5 | 31.4% |
    | 15 | 103.5 | 22.2% |
    | 20 | 108.4 | 14.3% |
    """

    name = "heuristic-overbid"
    #: card points added to the hand estimate in the auction (10: about PIMC's mean contract)
    DEFAULT_SHIFT = 10

    def __init__(self, game: str | None = None, seed: int | None = None, flags: dict[str, Any] | None = None,
                 shift: int = DEFAULT_SHIFT, **kwargs: Any):
        super().__init__(game, seed=seed, flags=flags, **kwargs)
        if isinstance(shift, bool) or not isinstance(shift, (int, np.integer)) or not 0 <= shift <= 60:
            raise ConfigError(f"invalid shift {shift!r} for heuristic-overbid; allowed: an int 0..60 (card points)")
        self.shift = int(shift)
        rows = np.arange(BID_EV.shape[0])
        self.bid_ev = np.ascontiguousarray(BID_EV[np.minimum(rows + self.shift, rows[-1])])

    def _decide(self, obs: np.ndarray, mask: np.ndarray, out: np.ndarray) -> None:
        act_rows(obs, mask, CONSTS, CARD_TAB, TRUMP_TAB, self.bid_ev, EV_MIN, out)

    def __repr__(self) -> str:
        return f"{type(self).__name__}(game={self.game!r}, shift={self.shift})"


class Briscola5BatchedSeer(Briscola5BatchedOverbidder):
    """A training opponent that cheats (spec `heuristic-seer[:SHIFT]`): the heuristic knowing the hidden cards.

    It plays the heuristic's tricks with two facts a player cannot have, read from the privileged vector of its
    seat (`act(obs, mask, hidden)`, `hidden` the rows of `vector_env.privileged`): who the partner is from the
    first trick on (whoever holds the called card), and which cards the foes still to play in a trick hold (so it
    loads a trick, or takes one, only when no foe after it can beat its card). Its auction and its call are the
    heuristic's, bidding as if each hand were worth `shift` card points more (default 0; see
    `Briscola5BatchedOverbidder`). Why: a learner trained among heuristics meets no defence that punishes a high
    contract, and PIMC's does. The shipped agent alone among four heuristics makes 44.6% of its contracts, among
    four `heuristic-seer:10` 18.0%, among four PIMC players 14.1% (`python benchmarks/seer_field.py`; PIMC:
    `docs/results/learning.md`, point 7): a defence near PIMC's at engine speed. It may sit only where hidden
    cards are allowed: as an opponent of the batched trainer, of the batched Gymnasium vector env and of the
    batched evaluation's tables, never as an exported player (`make_agent` does not know it).
    """

    name = "heuristic-seer"
    #: it reads `hidden` rows: callers pass `vector_env.privileged` rows of the seats to act (`agents.rows.decide`)
    sees_hidden = True
    DEFAULT_SHIFT = 0

    def __init__(self, game: str | None = None, seed: int | None = None, flags: dict[str, Any] | None = None,
                 shift: int = DEFAULT_SHIFT, **kwargs: Any):
        super().__init__(game, seed=seed, flags=flags, shift=shift, **kwargs)

    def act(self, obs: np.ndarray, mask: np.ndarray, hidden: np.ndarray | None = None) -> np.ndarray:
        """One action per row; `hidden` (float32, one privileged row per observation row) is required."""
        if hidden is None:
            raise ValueError(f"{self.name} needs the hidden cards: act(obs, mask, hidden) with the rows of "
                             "vector_env.privileged(seats) (a training opponent; agents.rows.decide passes them)")
        hidden = np.ascontiguousarray(hidden, dtype=np.float32)
        if hidden.shape != (np.shape(obs)[0], PRIVILEGED_SIZE):
            raise ValueError(f"expected hidden rows ({np.shape(obs)[0]}, {PRIVILEGED_SIZE}); got {hidden.shape}")
        self._hidden = hidden
        try:
            return super().act(obs, mask)
        finally:
            self._hidden = None

    def _decide(self, obs: np.ndarray, mask: np.ndarray, out: np.ndarray) -> None:
        seer_rows(obs, mask, self._hidden, CONSTS, CARD_TAB, TRUMP_TAB, self.bid_ev, EV_MIN, out)


# -- the plain greedy player (agents/plain/briscola5.py) ---------------------------------------
# Its rules (module docstring of the Python player): forfeit a 0-point hand; bid the lowest legal bid on a
# strong enough hand; call the strongest card of its suit it lacks; take a trick that holds points with the
# cheapest winner, else throw the cheapest card. Its tables come from the Python player's own.

#: the bid limit's base: `GreedyAgent._bid` bids while `bid_value <= PLAIN_BASE_BID + strength - THRESHOLD`
PLAIN_BASE_BID = 61
(G_THRESHOLD, G_PER_CARD, G_BASE_BID) = range(3)
GREEDY_CONSTS = np.array([_plain.THRESHOLD, _plain.PER_CARD, PLAIN_BASE_BID], dtype=np.int64)
#: `GREEDY_COST[trump, c]`: the dense rank of `COST[trump][c]` (lowest: the cheapest card)
GREEDY_COST = np.array([_dense_ranks(_plain.COST[t]) for t in range(DECK.num_suits)], dtype=np.int64)
#: `GREEDY_CALL[suit, j]`: the cards of `suit` from the strongest rank down (the call's order)
GREEDY_CALL = np.array([[DECK.card(s, r) for r in _plain.RANKS_STRONGEST_FIRST] for s in range(DECK.num_suits)],
                       dtype=np.int64)
#: `BID_VALUE[j]`: the value of the bid id `BID + j`
BID_VALUE = np.array([_plain.bid_value(a) for a in BID_IDS], dtype=np.int64)


@nb.njit(cache=True)
def _greedy_suit(o: np.ndarray, k: np.ndarray, card_tab: np.ndarray, count: np.ndarray, pts: np.ndarray) -> int:
    """`bid_suit(hand)`: the suit of the most cards (then more points in it, then the higher suit)."""
    for s in range(k[K_NUM_SUITS]):
        count[s] = 0
        pts[s] = 0
    for c in range(card_tab.shape[1]):
        if o[k[K_HAND] + c] != 0:
            count[card_tab[C_SUIT, c]] += 1
            pts[card_tab[C_SUIT, c]] += card_tab[C_POINTS, c]
    best = 0
    for s in range(1, k[K_NUM_SUITS]):
        if count[s] > count[best] or (count[s] == count[best] and pts[s] >= pts[best]):
            best = s
    return best


@nb.njit(cache=True)
def _greedy_row(o: np.ndarray, m: np.ndarray, k: np.ndarray, g: np.ndarray, card_tab: np.ndarray, cost: np.ndarray,
                call_order: np.ndarray, bid_value: np.ndarray, count: np.ndarray, pts: np.ndarray,
                cards: np.ndarray) -> int:
    """`GreedyAgent.act` on one observation row `o` and its mask `m` (-1 if no action is legal)."""
    first_legal = _first_legal(m)
    if first_legal < 0:
        return -1
    phase = _first_hit(o, k[K_PHASE], 4)
    if phase == k[K_FORFEIT_CHECK]:
        return k[K_FORFEIT] if m[k[K_FORFEIT]] != 0 else k[K_NO_FORFEIT]
    num_cards = card_tab.shape[1]
    if phase == k[K_AUCTION]:
        lowest = _lowest_bid(m, k)
        if lowest < 0:
            return k[K_PASS]
        suit = _greedy_suit(o, k, card_tab, count, pts)
        strength = g[G_PER_CARD] * count[suit]
        for s in range(k[K_NUM_SUITS]):
            strength += pts[s]
        ok = strength >= g[G_THRESHOLD] and bid_value[lowest - k[K_BID]] <= g[G_BASE_BID] + strength - g[G_THRESHOLD]
        return lowest if ok else k[K_PASS]
    if phase == k[K_CALL_CARD]:
        suit = _greedy_suit(o, k, card_tab, count, pts)
        for j in range(k[K_NUM_RANKS]):
            card = call_order[suit, j]
            if o[k[K_HAND] + card] == 0 and m[k[K_CALL] + card] != 0:
                return k[K_CALL] + card
        return first_legal
    # trick play: the trick in play order from the leader (decode's `trick`)
    n = k[K_N]
    trump = _first_hit(o, k[K_TRUMP], k[K_NUM_SUITS])
    cheap = cost[trump]
    leader = _first_hit(o, k[K_LEADER], n)
    size = 0
    if leader >= 0:
        for r in range(n):
            if _first_hit(o, k[K_TRICK] + num_cards * r, num_cards) >= 0:
                size += 1
    points = 0
    for i in range(size):
        cards[i] = _first_hit(o, k[K_TRICK] + num_cards * ((leader + i) % n), num_cards)
        points += card_tab[C_POINTS, cards[i]]
    if size > 0 and points > 0:
        win = cards[0]
        for i in range(1, size):
            if _beats(cards[i], win, trump, card_tab):
                win = cards[i]
        take = -1
        for c in range(num_cards):
            if m[c] != 0 and _beats(c, win, trump, card_tab) and (take < 0 or cheap[c] < cheap[take]):
                take = c
        if take >= 0:
            return take
    return _cheapest(m, cheap, num_cards)


@nb.njit(cache=True)
def greedy_rows(obs: np.ndarray, mask: np.ndarray, consts: np.ndarray, greedy_consts: np.ndarray,
                card_tab: np.ndarray, cost: np.ndarray, call_order: np.ndarray, bid_value: np.ndarray,
                out: np.ndarray) -> None:
    """`out[i]` = the plain greedy player's action on `obs[i]`, `mask[i]` (-1 where the mask row is all zeros)."""
    count = np.zeros(consts[K_NUM_SUITS], dtype=np.int64)
    pts = np.zeros(consts[K_NUM_SUITS], dtype=np.int64)
    cards = np.zeros(consts[K_N], dtype=np.int64)
    for i in range(obs.shape[0]):
        out[i] = _greedy_row(obs[i], mask[i], consts, greedy_consts, card_tab, cost, call_order, bid_value, count,
                             pts, cards)


class Briscola5BatchedGreedy(_Briscola5Rows):
    """The plain greedy Briscola player (`agents.plain.briscola5.GreedyAgent`) over float32 `(k, 1169)`
    observations and int8 `(k, 143)` masks: the same action on every row."""

    name = "plain"

    def _decide(self, obs: np.ndarray, mask: np.ndarray, out: np.ndarray) -> None:
        greedy_rows(obs, mask, CONSTS, GREEDY_CONSTS, CARD_TAB, GREEDY_COST, GREEDY_CALL, BID_VALUE, out)


#: The name `agents/rows.py` looks up (the Python plain player's class name).
GreedyAgent = Briscola5BatchedGreedy
