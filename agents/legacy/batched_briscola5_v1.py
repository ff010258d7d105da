"""FROZEN numba port of the 0.1 briscola5 heuristic (``heuristic-v1``, ``agents/legacy/briscola5_heuristic_v1.py``).

Kept unchanged so that the batched trainer can play against the previous heuristic at numba speed
(opponent spec ``heuristic-v1``); tests/agents/test_legacy_players.py checks it against the frozen
Python player. Do not edit; its original description follows.

Briscola in cinque: the club-player heuristic decided for many observations at once (numba).

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
| auction | `hand`, the mask | the lowest legal bid if `2 * bid <= 2 * estimate` (integers, exact), else `PASS` |
| call | `hand`, the mask | a solo with 6+ trumps and A, 3; else the strongest trump not held |
| trick play | `hand`, `trump`, `current_trick`, `trick_leader`, `played_by`, `caller`, `holds_called`, `partner_revealed`, `partner`, `tricks_taken`, the mask | lead, load, take or throw (the module docstring of the Python heuristic) |

Equal decisions, tie for tie: the Python heuristic picks with `min`/`max` over the legal ids in
increasing order with tuple keys, and `max` over `(estimate, suit)` for the trump. The kernel
scans the same ids in the same order and replaces its choice only on a strictly better key (the
first of equal keys, as `min` and `max` keep it), and on equal estimates keeps the higher suit.
The tuple keys are turned into dense integer ranks per trump suit (equal tuples, equal rank);
the hand estimate `30 + points/2 + ...` is compared doubled, in integers.

Randomness: none. The Python heuristic never draws from its generator (its decisions are a
function of the observation alone), so neither does this port; `seed` is accepted and ignored,
and the same rows always give the same actions.

The tables (`BEATEN_BY`, `CHEAP`, `LOAD`, the call order) are built from the Python heuristic's
own, and every fact from another module (observation offsets, action ids, card tables) reaches
the kernel as an argument, not as a global: numba's on-disk cache (`cache=True`) freezes globals
and notices changes to this file only, so a change to the layout or to the heuristic's tables
can never be served from a stale cache. A change of the heuristic's *rules* must be ported here;
`tests/agents/test_batched_heuristics.py` compares both on thousands of observations.

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

import numba as nb
import numpy as np

from agents.batched.base import BatchedHeuristic
from agents.legacy import briscola5_heuristic_v1 as _py  # the frozen 0.1 rules (not the current heuristic)
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

__all__ = ["Briscola5BatchedHeuristicV1", "act_rows"]

# -- what the kernel receives ---------------------------------------------------------------
# `consts` (int64): the indices below are this file's, the values come from game.py,
# observation.py and the Python heuristic at import time.
(K_HAND, K_HOLDS, K_PHASE, K_CALLER, K_TRUMP, K_PLAYED_BY, K_TRICK, K_LEADER, K_TRICKS, K_REVEALED,
 K_PARTNER, K_N, K_NUM_TRICKS, K_NUM_SUITS, K_NUM_RANKS, K_ACE, K_THREE, K_FORFEIT_CHECK, K_AUCTION,
 K_CALL_CARD, K_CALL, K_PASS, K_BID, K_NUM_BIDS, K_BID_MIN, K_FORFEIT, K_NO_FORFEIT) = range(27)
_OBS_FIELDS = ("hand", "holds_called", "phase", "caller", "trump", "played_by", "current_trick", "trick_leader",
               "tricks_taken", "partner_revealed", "partner")
CONSTS = np.array(
    [LAYOUT.fields[f].obs_offset for f in _OBS_FIELDS]
    + [NUM_PLAYERS, NUM_TRICKS, DECK.num_suits, DECK.num_ranks, _py.ACE, _py.THREE, FORFEIT_CHECK, AUCTION,
       CALL_CARD, CALL, PASS, BID, len(BID_IDS), BID_MIN, FORFEIT, NO_FORFEIT],
    dtype=np.int64,
)
assert len(CONSTS) == K_NO_FORFEIT + 1
# The played_by field is (card, seat) and current_trick (seat, card): the kernel indexes them so.
assert LAYOUT.fields["played_by"].shape == (DECK.size, NUM_PLAYERS)
assert LAYOUT.fields["current_trick"].shape == (NUM_PLAYERS, DECK.size)

#: `CARD_TAB[row, c]`, rows: suit, card points, strength, rank of card `c`.
C_SUIT, C_POINTS, C_STRENGTH, C_RANK = range(4)
CARD_TAB = np.array([SUIT, POINTS, STRENGTH, [DECK.rank_of[c] for c in range(DECK.size)]], dtype=np.int64)


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


# -- the kernel -------------------------------------------------------------------------------
@nb.njit(cache=True, inline="always")
def _first_hit(row: np.ndarray, start: int, size: int) -> int:
    """Index (from `start`) of the first nonzero of `row[start:start + size]`, or -1 (decode's `first_hit`)."""
    for j in range(size):
        if row[start + j] != 0:
            return j
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
def _best_trump(o: np.ndarray, k: np.ndarray, card_tab: np.ndarray, counts: np.ndarray) -> int:
    """`best_trump(hand)`: the suit of the highest estimate, the higher suit on equal ones.

    Also fills `counts`: `[points of the hand, trumps held, holds the Ace, holds the Three]` of that suit,
    then per suit from index 4 (`4 + 3 * suit`: trumps, Ace, Three).
    """
    num_suits = k[K_NUM_SUITS]
    num_cards = card_tab.shape[1]
    for j in range(counts.shape[0]):
        counts[j] = 0
    hand = k[K_HAND]
    for c in range(num_cards):
        if o[hand + c] != 0:
            counts[0] += card_tab[C_POINTS, c]
            s = card_tab[C_SUIT, c]
            counts[4 + 3 * s] += 1
            r = card_tab[C_RANK, c]
            if r == k[K_ACE]:
                counts[5 + 3 * s] = 1
            elif r == k[K_THREE]:
                counts[6 + 3 * s] = 1
    best, best_value = -1, -1
    for s in range(num_suits):
        # 2 * (30 + points/2 + 4 * trumps + 4 * Ace + 3 * Three) without the part common to every suit
        value = 8 * counts[4 + 3 * s] + 8 * counts[5 + 3 * s] + 6 * counts[6 + 3 * s]
        if value >= best_value:  # max((estimate, suit)): the higher suit wins a tie
            best, best_value = s, value
    counts[1], counts[2], counts[3] = counts[4 + 3 * best], counts[5 + 3 * best], counts[6 + 3 * best]
    return best


@nb.njit(cache=True)
def _act_row(o: np.ndarray, m: np.ndarray, k: np.ndarray, card_tab: np.ndarray, trump_tab: np.ndarray,
             counts: np.ndarray) -> int:
    """The Python heuristic's `act` on one observation row `o` and its mask `m` (-1 if no action is legal)."""
    num_actions = m.shape[0]
    first_legal = -1
    for a in range(num_actions):
        if m[a] != 0:
            first_legal = a
            break
    if first_legal < 0:
        return -1
    phase = _first_hit(o, k[K_PHASE], 4)

    if phase == k[K_FORFEIT_CHECK]:
        return k[K_FORFEIT] if m[k[K_FORFEIT]] != 0 else k[K_NO_FORFEIT]

    if phase == k[K_AUCTION]:
        lowest = -1
        for a in range(k[K_BID], k[K_BID] + k[K_NUM_BIDS]):
            if m[a] != 0:
                lowest = a
                break
        if lowest < 0:
            return k[K_PASS]
        _best_trump(o, k, card_tab, counts)
        cap2 = 60 + counts[0] + 8 * counts[1] + 8 * counts[2] + 6 * counts[3]  # twice the estimate
        return lowest if 2 * (k[K_BID_MIN] + lowest - k[K_BID]) <= cap2 else k[K_PASS]

    hand = k[K_HAND]
    num_cards = card_tab.shape[1]

    if phase == k[K_CALL_CARD]:
        call = k[K_CALL]
        trump = _best_trump(o, k, card_tab, counts)
        if counts[1] >= 6 and counts[2] == 1 and counts[3] == 1:
            own = -1  # the weakest trump held
            for c in range(num_cards):
                if (o[hand + c] != 0 and card_tab[C_SUIT, c] == trump
                        and (own < 0 or card_tab[C_STRENGTH, c] < card_tab[C_STRENGTH, own])):
                    own = c
            if m[call + own] != 0:
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
    win_i, win_card, trick_points = 0, -1, 0
    for i in range(count):
        r = (leader + i) % n
        card = _first_hit(o, k[K_TRICK] + num_cards * r, num_cards)
        trick_points += card_tab[C_POINTS, card]
        if i == 0:
            win_card = card
        elif card_tab[C_SUIT, card] == card_tab[C_SUIT, win_card]:
            if card_tab[C_STRENGTH, card] > card_tab[C_STRENGTH, win_card]:
                win_i, win_card = i, card
        elif card_tab[C_SUIT, card] == trump:
            win_i, win_card = i, card
    winner_seat = (leader + win_i) % n
    last_to_play = count == n - 1
    known = np.int64(0)  # own hand and every card played this hand
    played_by = k[K_PLAYED_BY]
    for c in range(num_cards):
        if o[hand + c] != 0:
            known |= np.int64(1) << c
        else:
            for r in range(n):
                if o[played_by + n * c + r] != 0:
                    known |= np.int64(1) << c
                    break
    unseen = ((np.int64(1) << num_cards) - 1) ^ known

    # Teammates (relative seats, never ourselves), as _teammates.
    caller = _first_hit(o, k[K_CALLER], n)
    partner = _first_hit(o, k[K_PARTNER], n) if o[k[K_REVEALED]] != 0 else -1
    if caller == 0:
        teammate = partner >= 0 and partner != 0 and winner_seat == partner
    elif o[k[K_HOLDS]] != 0:
        teammate = winner_seat == caller
    elif partner < 0:
        teammate = False
    else:
        teammate = 1 <= winner_seat < n and winner_seat != caller and winner_seat != partner

    if teammate:
        if last_to_play or (unseen & beaten_by[win_card]) == 0:
            load = trump_tab[trump, T_LOAD]
            best = -1  # max(legal, key=LOAD[trump]): the first legal card of the highest key
            for c in range(num_cards):
                if m[c] != 0 and (best < 0 or load[c] > load[best]):
                    best = c
            return best
        return _cheapest(m, cheap, num_cards)

    # Opponents hold the trick: take it when it pays and it is safe.
    beats_winner = beaten_by[win_card]
    win = -1  # the cheapest safe winning card
    for c in range(num_cards):
        if (m[c] != 0 and ((beats_winner >> c) & 1) != 0 and (last_to_play or (unseen & beaten_by[c]) == 0)
                and (win < 0 or cheap[c] < cheap[win])):
            win = c
    if win >= 0:
        gain = trick_points + card_tab[C_POINTS, win]
        uses_trump = card_tab[C_SUIT, win] == trump
        if not uses_trump and gain > 0:
            return win
        if uses_trump:
            tricks_done = 0
            for r in range(n):
                tricks_done += round(o[k[K_TRICKS] + r] * k[K_NUM_TRICKS])
            if trick_points >= 10 or tricks_done >= k[K_NUM_TRICKS] - 3:
                return win
        if gain >= 8 and not uses_trump:
            return win
    return _cheapest(m, cheap, num_cards)


@nb.njit(cache=True)
def act_rows(obs: np.ndarray, mask: np.ndarray, consts: np.ndarray, card_tab: np.ndarray, trump_tab: np.ndarray,
             out: np.ndarray) -> None:
    """`out[i]` = the heuristic's action on `obs[i]`, `mask[i]` (-1 where the mask row is all zeros)."""
    counts = np.zeros(4 + 3 * consts[K_NUM_SUITS], dtype=np.int64)
    for i in range(obs.shape[0]):
        out[i] = _act_row(obs[i], mask[i], consts, card_tab, trump_tab, counts)


class Briscola5BatchedHeuristicV1(BatchedHeuristic):
    """The Briscola heuristic over float32 `(k, 1169)` observations and int8 `(k, 143)` masks."""

    name = "heuristic-v1"
    game = "briscola5"
    num_actions = NUM_ACTIONS

    def _widths(self) -> dict[int, str]:
        return {OBS_SIZE: ""}

    def _decide(self, obs: np.ndarray, mask: np.ndarray, out: np.ndarray) -> None:
        act_rows(obs, mask, CONSTS, CARD_TAB, TRUMP_TAB, out)

