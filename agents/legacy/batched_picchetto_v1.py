"""FROZEN numba port of the 0.1 picchetto heuristic (``heuristic-v1``, ``agents/legacy/picchetto_heuristic_v1.py``).

Kept unchanged so that the batched trainer can play against the previous heuristic at numba speed
(opponent spec ``heuristic-v1``); tests/agents/test_legacy_players.py checks it against the frozen
Python player. Do not edit; its original description follows.

Picchetto: the club-player heuristic decided for many observations at once (numba).

`PicchettoBatchedHeuristic.act(obs, mask)` takes a float32 `(k, 442)` matrix whose rows are
observations of seats to act (each exactly the AEC env's `observe(agent)["observation"]`, e.g.
`vector_env(...).obs`) and the int8 `(k, 65)` matrix of their masks, and returns an int64 `(k,)`
array: for every row, the action `agents.picchetto_heuristic.PicchettoHeuristic.act` chooses on
that observation. Like the Python heuristic, which reads only `decode(obs)`, the kernel reads
only the row and its mask (the fields below, at their observation offsets), never an engine
state, so rows of different games and seats may come in any order.

| decision (the first legal id) | what the kernel reads | rule of the Python heuristic |
|---|---|---|
| exchange (`>= DISCARD`) | `phase`, `hand`, the mask | discard the legal card of the lowest keep value (the lower id on equal values) while it is below the elder's / dealer's threshold or ending is not legal; else `END_EXCHANGE` |
| lead (no `trick_card`) | `hand`, `played`, the mask | a master card of the longest suit (the higher rank); else the lowest card of the longest suit |
| follow | `hand`, `trick_card`, the mask | the cheapest winner, else the lowest card of the suit, else (void) the lowest card of the shortest suit |

Keep values (`keep_values` of the Python heuristic) are summed in float64 in Python's order (rank,
point suit, run, set), from tables built by calling the Python heuristic's own `keep_values` on
small hands at import time: `RUN_BONUS[pattern, rank]` (a one-suit hand of that 8-bit rank
pattern, less its rank and the point-suit bonus), `SET_BONUS[rank, count]` (a card of `count`
cards of one rank, in a suit that is not the point suit, less its rank) and the point-suit bonus
(a lone card, less its rank). The point suit is `point_of` of game.py (largest `SUIT_VALUE`, then
more cards, then the lower suit).

Equal decisions, tie for tie: the Python heuristic picks with `min`/`max` over the legal ids in
increasing order with tuple keys. The kernel scans the same ids in the same order and replaces
its choice only on a strictly better key (the first of equal keys, as `min` and `max` keep it);
the tuple keys `(suit length, rank)` and `(suit length, -rank)` are the integers
`length * num_ranks + rank` and `length * num_ranks + (num_ranks - 1 - rank)`.

Randomness: none. The Python heuristic never draws from its generator (its decisions are a
function of the observation alone), so neither does this port; `seed` is accepted and ignored,
and the same rows always give the same actions.

Every fact from another module (observation offsets, action ids, card tables, the heuristic's
thresholds and bonus tables) reaches the kernel as an argument, not as a global: numba's on-disk
cache (`cache=True`) freezes globals and notices changes to this file only, so a change to the
layout or to the heuristic's numbers can never be served from a stale cache. A change of the
heuristic's *rules* must be ported here; `tests/agents/test_batched_heuristics.py` compares both
on thousands of observations.

Example:

    >>> from envs import picchetto_v0
    >>> from agents.batched.picchetto import PicchettoBatchedHeuristic
    >>> venv = picchetto_v0.vector_env(4)
    >>> obs, mask = venv.reset(seed=0)
    >>> actions = PicchettoBatchedHeuristic("picchetto").act(obs, mask)
    >>> actions.dtype, actions.shape, bool(mask[range(4), actions].all())
    (dtype('int64'), (4,), True)
"""

from __future__ import annotations

import numba as nb
import numpy as np

from agents.batched.base import BatchedHeuristic
from agents.legacy import picchetto_heuristic_v1 as _py  # the frozen 0.1 rules (not the current heuristic)
from envs.picchetto.game import (
    DECK,
    DISCARD,
    ELDER_EXCHANGE,
    END_EXCHANGE,
    HIGHER,
    NUM_ACTIONS,
    RANK,
    SUIT,
    SUIT_VALUE,
    Phase,
)
from envs.picchetto.observation import LAYOUT, OBS_SIZE

__all__ = ["PicchettoBatchedHeuristicV1", "act_rows"]

# -- what the kernel receives ---------------------------------------------------------------
# `consts` (int64): the indices below are this file's, the values come from game.py and
# observation.py at import time.
(K_HAND, K_PLAYED, K_TRICK, K_PHASE, K_NUM_PHASES, K_ELDER_EXCHANGE, K_DISCARD, K_END_EXCHANGE, K_NUM_SUITS,
 K_NUM_RANKS) = range(10)
_OBS_FIELDS = ("hand", "played", "trick_card", "phase")
CONSTS = np.array(
    [LAYOUT.fields[f].obs_offset for f in _OBS_FIELDS]
    + [len(Phase), ELDER_EXCHANGE, DISCARD, END_EXCHANGE, DECK.num_suits, DECK.num_ranks],
    dtype=np.int64,
)
assert len(CONSTS) == K_NUM_RANKS + 1
assert LAYOUT.fields["hand"].shape == (DECK.size,) and LAYOUT.fields["trick_card"].shape == (DECK.size,)
assert LAYOUT.fields["played"].shape == (2, DECK.size) and LAYOUT.fields["phase"].shape == (len(Phase),)
assert END_EXCHANGE == DISCARD + DECK.size == NUM_ACTIONS - 1

#: `FCONSTS` (float64): the elder's and the dealer's keep thresholds, the point-suit bonus.
F_ELDER_KEEP, F_DEALER_KEEP, F_POINT_BONUS = range(3)

#: `CARD_TAB[row, c]`, rows: suit, rank, `HIGHER` (the cards of c's suit that outrank it) of card `c`.
C_SUIT, C_RANK, C_HIGHER = range(3)
CARD_TAB = np.array([SUIT, RANK, HIGHER], dtype=np.int64)
#: `SUIT_VALUE_TAB[pattern]`: the point value of a suit by its 8-bit rank pattern (game.py).
SUIT_VALUE_TAB = np.array(SUIT_VALUE, dtype=np.int64)


def _bonus_tables() -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """`FCONSTS`, `RUN_BONUS[pattern, rank]` and `SET_BONUS[rank, count]` from the Python `keep_values`."""
    nr, ns = DECK.num_ranks, DECK.num_suits
    lone = DECK.card(0, 0)
    point_bonus = _py.keep_values([lone])[lone] - RANK[lone]  # a lone card is in the point suit
    run = np.zeros((1 << nr, nr), dtype=np.float64)
    for pattern in range(1, 1 << nr):  # one suit: the point suit, no set
        hand = [DECK.card(0, r) for r in range(nr) if pattern >> r & 1]
        for c, v in _py.keep_values(hand).items():
            run[pattern, RANK[c]] = v - RANK[c] - point_bonus
    sets = np.zeros((nr, ns + 1), dtype=np.float64)
    for r in range(nr):
        for count in range(2, ns + 1):  # one card of each of the first `count` suits; the last is no point suit
            hand = [DECK.card(s, r) for s in range(count)]
            c = hand[-1]
            sets[r, count] = _py.keep_values(hand)[c] - RANK[c]
    fconsts = np.array([_py.ELDER_KEEP_THRESHOLD, _py.DEALER_KEEP_THRESHOLD, point_bonus], dtype=np.float64)
    return fconsts, run, sets


FCONSTS, RUN_BONUS, SET_BONUS = _bonus_tables()


# -- the kernel -------------------------------------------------------------------------------
@nb.njit(cache=True, inline="always")
def _first_hit(row: np.ndarray, start: int, size: int) -> int:
    """Index (from `start`) of the first nonzero of `row[start:start + size]`, or -1 (decode's `first_hit`)."""
    for j in range(size):
        if row[start + j] != 0:
            return j
    return -1


@nb.njit(cache=True)
def _exchange(o: np.ndarray, m: np.ndarray, k: np.ndarray, f: np.ndarray, card_tab: np.ndarray,
              suit_value: np.ndarray, run_bonus: np.ndarray, set_bonus: np.ndarray, values: np.ndarray,
              work: np.ndarray) -> int:
    """`PicchettoHeuristic._exchange`: a discard or `END_EXCHANGE`."""
    num_cards = card_tab.shape[1]
    num_suits, num_ranks = k[K_NUM_SUITS], k[K_NUM_RANKS]
    discard, end = k[K_DISCARD], k[K_END_EXCHANGE]
    any_discard = False
    for c in range(num_cards):
        if m[discard + c] != 0:
            any_discard = True
            break
    if not any_discard:
        return end
    elder = _first_hit(o, k[K_PHASE], k[K_NUM_PHASES]) == k[K_ELDER_EXCHANGE]
    threshold = f[F_ELDER_KEEP] if elder else f[F_DEALER_KEEP]

    # keep_values(hand): `work[s]` the rank pattern of suit s, `work[num_suits + r]` the cards of rank r
    hand = k[K_HAND]
    for j in range(num_suits + num_ranks):
        work[j] = 0
    for c in range(num_cards):
        if o[hand + c] != 0:
            work[card_tab[C_SUIT, c]] |= np.int64(1) << card_tab[C_RANK, c]
            work[num_suits + card_tab[C_RANK, c]] += 1
    point_suit, best_value, best_count = -1, -1, 0  # point_of: (value, cards) strictly better, lower suit first
    for s in range(num_suits):
        pattern = work[s]
        if pattern != 0:
            value = suit_value[pattern]
            count = 0
            for r in range(num_ranks):
                count += (pattern >> r) & 1
            if value > best_value or (value == best_value and count > best_count):
                point_suit, best_value, best_count = s, value, count
    for c in range(num_cards):
        if o[hand + c] != 0:
            s, r = card_tab[C_SUIT, c], card_tab[C_RANK, c]
            v = float(r)
            if s == point_suit:
                v += f[F_POINT_BONUS]
            v += run_bonus[work[s], r]
            v += set_bonus[r, work[num_suits + r]]
            values[c] = v

    cheapest = -1  # min(discards, key=(value, card))
    for c in range(num_cards):
        if m[discard + c] != 0 and (cheapest < 0 or values[c] < values[cheapest]):
            cheapest = c
    if m[end] == 0 or values[cheapest] < threshold:
        return discard + cheapest
    return end


@nb.njit(cache=True)
def _play(o: np.ndarray, m: np.ndarray, k: np.ndarray, card_tab: np.ndarray, lengths: np.ndarray) -> int:
    """`PicchettoHeuristic._play`: a card."""
    num_cards = card_tab.shape[1]
    num_suits, num_ranks = k[K_NUM_SUITS], k[K_NUM_RANKS]
    hand, played = k[K_HAND], k[K_PLAYED]
    for s in range(num_suits):
        lengths[s] = 0
    known = np.int64(0)  # own hand and every card played this hand (the card on the table too)
    for c in range(num_cards):
        if o[hand + c] != 0:
            lengths[card_tab[C_SUIT, c]] += 1
            known |= np.int64(1) << c
        elif o[played + c] != 0 or o[played + num_cards + c] != 0:
            known |= np.int64(1) << c
    led = _first_hit(o, k[K_TRICK], num_cards)

    if led < 0:  # we lead
        best, best_key = -1, -1  # max(masters, key=(length, rank))
        for c in range(num_cards):
            if m[c] != 0 and (card_tab[C_HIGHER, c] & ~known) == 0:
                key = lengths[card_tab[C_SUIT, c]] * num_ranks + card_tab[C_RANK, c]
                if key > best_key:
                    best, best_key = c, key
        if best >= 0:
            return best
        longest, best_key = -1, -1  # max(legal, key=(length, -rank))
        for c in range(num_cards):
            if m[c] != 0:
                key = lengths[card_tab[C_SUIT, c]] * num_ranks + (num_ranks - 1 - card_tab[C_RANK, c])
                if key > best_key:
                    longest, best_key = c, key
        suit = card_tab[C_SUIT, longest]
        low = -1  # min(legal cards of that suit, key=rank)
        for c in range(num_cards):
            if m[c] != 0 and card_tab[C_SUIT, c] == suit and (low < 0 or card_tab[C_RANK, c] < card_tab[C_RANK, low]):
                low = c
        return low

    led_suit, led_rank = card_tab[C_SUIT, led], card_tab[C_RANK, led]
    winner, follower = -1, -1  # min(winners, key=rank), min(following, key=rank)
    for c in range(num_cards):
        if m[c] != 0 and card_tab[C_SUIT, c] == led_suit:
            r = card_tab[C_RANK, c]
            if r > led_rank and (winner < 0 or r < card_tab[C_RANK, winner]):
                winner = c
            if follower < 0 or r < card_tab[C_RANK, follower]:
                follower = c
    if winner >= 0:
        return winner
    if follower >= 0:
        return follower
    best, best_key = -1, -1  # void: min(legal, key=(length, rank))
    for c in range(num_cards):
        if m[c] != 0:
            key = lengths[card_tab[C_SUIT, c]] * num_ranks + card_tab[C_RANK, c]
            if best < 0 or key < best_key:
                best, best_key = c, key
    return best


@nb.njit(cache=True)
def act_rows(obs: np.ndarray, mask: np.ndarray, consts: np.ndarray, fconsts: np.ndarray, card_tab: np.ndarray,
             suit_value: np.ndarray, run_bonus: np.ndarray, set_bonus: np.ndarray, out: np.ndarray) -> None:
    """`out[i]` = the heuristic's action on `obs[i]`, `mask[i]` (-1 where the mask row is all zeros)."""
    num_cards = card_tab.shape[1]
    values = np.zeros(num_cards, dtype=np.float64)
    work = np.zeros(consts[K_NUM_SUITS] + consts[K_NUM_RANKS], dtype=np.int64)
    num_actions = mask.shape[1]
    for i in range(obs.shape[0]):
        o, m = obs[i], mask[i]
        first_legal = -1
        for a in range(num_actions):
            if m[a] != 0:
                first_legal = a
                break
        if first_legal < 0:
            out[i] = -1
        elif first_legal >= consts[K_DISCARD]:
            out[i] = _exchange(o, m, consts, fconsts, card_tab, suit_value, run_bonus, set_bonus, values, work)
        else:
            out[i] = _play(o, m, consts, card_tab, work)


class PicchettoBatchedHeuristicV1(BatchedHeuristic):
    """The Picchetto heuristic over float32 `(k, 442)` observations and int8 `(k, 65)` masks."""

    name = "heuristic-v1"
    game = "picchetto"
    num_actions = NUM_ACTIONS

    def _widths(self) -> dict[int, str]:
        return {OBS_SIZE: ""}

    def _decide(self, obs: np.ndarray, mask: np.ndarray, out: np.ndarray) -> None:
        act_rows(obs, mask, CONSTS, FCONSTS, CARD_TAB, SUIT_VALUE_TAB, RUN_BONUS, SET_BONUS, out)

