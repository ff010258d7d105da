"""Picchetto: the club-player heuristic decided for many observations at once (numba).

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
| lead (no `trick_card`) | `hand`, `played`, `discards`, `revealed`, the mask | the lowest master (no unseen card of its suit above it), the longest suit on equal ranks; else the card with the fewest unseen cards above it (the opponent's shown cards count twice), the lower rank on equal counts |
| follow | `hand`, `played`, `discards`, `trick_card`, the mask | the cheapest winner, else the lowest card of the suit, else (void) the key (rank, own cards above - unseen cards above), lowest first |

Keep values (`keep_values` of the Python heuristic) are ints, summed from the heuristic's own
constants (`KEEP`, passed to the kernel): trick value by rank, the King's and Queen's guard
bonuses, the length weight, the point-suit bonus, the run bonuses and the set bonuses. The point
suit is `point_of` of game.py (largest `SUIT_VALUE`, then more cards, then the lower suit); the
run a card belongs to comes from `RUN_LEN[pattern, rank]` (the length of the maximal run of three
or more of game.py's `RUNS` holding that rank, else 0).

Equal decisions, tie for tie: the Python heuristic picks with `min`/`max` over the legal ids in
increasing order with tuple keys. The kernel scans the same ids in the same order and replaces
its choice only on a strictly better key (the first of equal keys, as `min` and `max` keep it);
the tuple keys are packed into integers that order the same way: `(rank, -length)` as
`rank * (num_cards + 1) - length`, `(unseen above + shown above, rank)` as `above * num_ranks + rank`, and
`(rank, potential)` as `rank * 64 + potential + 32` (a potential lies in -7..7).

Randomness: none. The Python heuristic never draws from its generator (its decisions are a
function of the observation alone), so neither does this port; `seed` is accepted and ignored,
and the same rows always give the same actions.

The plain greedy player (`agents/plain/picchetto.py`, spec `plain`, alias `greedy`) has its port here too:
`PicchettoBatchedGreedy` (exported as `GreedyAgent`, the Python player's class name, which `agents/rows.py`
looks up), the section "the plain greedy player" at the end of this file.

Every fact from another module (observation offsets, action ids, card tables, the heuristic's
constants) reaches the kernel as an argument, not as a global: numba's on-disk cache
(`cache=True`) freezes globals and notices changes to this file only, so a change to the layout
or to the heuristic's numbers can never be served from a stale cache. A change of the heuristic's
*rules* must be ported here; `tests/agents/test_batched_heuristics.py` compares both on thousands
of observations.

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

from agents import picchetto_heuristic as _py
from agents.batched.base import BatchedHeuristic
from agents.batched.base import first_legal as _first_legal
from envs.picchetto.game import (
    DECK,
    DISCARD,
    ELDER_EXCHANGE,
    END_EXCHANGE,
    HIGHER,
    NUM_ACTIONS,
    RANK,
    RUNS,
    SET_MIN_RANK,
    SUIT,
    SUIT_VALUE,
    Phase,
)
from envs.picchetto.observation import LAYOUT, OBS_SIZE

__all__ = ["PicchettoBatchedHeuristic", "PicchettoHeuristic", "act_rows", "PicchettoBatchedGreedy", "GreedyAgent",
           "greedy_rows"]

# -- what the kernel receives ---------------------------------------------------------------
# `consts` (int64): the indices below are this file's, the values come from game.py and
# observation.py at import time.
(K_HAND, K_PLAYED, K_TRICK, K_PHASE, K_DISCARDS, K_REVEALED, K_NUM_PHASES, K_ELDER_EXCHANGE, K_DISCARD, K_END_EXCHANGE,
 K_NUM_SUITS, K_NUM_RANKS) = range(12)
_OBS_FIELDS = ("hand", "played", "trick_card", "phase", "discards", "revealed")
CONSTS = np.array(
    [LAYOUT.fields[f].obs_offset for f in _OBS_FIELDS]
    + [len(Phase), ELDER_EXCHANGE, DISCARD, END_EXCHANGE, DECK.num_suits, DECK.num_ranks],
    dtype=np.int64,
)
assert len(CONSTS) == K_NUM_RANKS + 1
assert LAYOUT.fields["hand"].shape == (DECK.size,) and LAYOUT.fields["trick_card"].shape == (DECK.size,)
assert LAYOUT.fields["discards"].shape == (DECK.size,) and LAYOUT.fields["revealed"].shape == (2, DECK.size)
assert LAYOUT.fields["played"].shape == (2, DECK.size) and LAYOUT.fields["phase"].shape == (len(Phase),)
assert END_EXCHANGE == DISCARD + DECK.size == NUM_ACTIONS - 1

#: `KEEP` (int64): the Python heuristic's keep-value constants, then its `TRICK_VALUE` by rank.
(P_KING_GUARD, P_QUEEN_GUARD, P_LENGTH, P_POINT_SUIT, P_RUN, P_LONG_RUN_BONUS, P_LONG_RUN, P_TRIO, P_QUATORZE,
 P_ELDER_KEEP, P_DEALER_KEEP, P_SET_MIN_RANK, P_KING, P_QUEEN, P_TRICK_VALUE) = range(15)
KEEP = np.array(
    [_py.KING_GUARD_BONUS, _py.QUEEN_GUARD_BONUS, _py.LENGTH_WEIGHT, _py.POINT_SUIT_BONUS, _py.RUN_BONUS,
     _py.LONG_RUN_BONUS, _py.LONG_RUN, _py.TRIO_BONUS, _py.QUATORZE_BONUS, _py.ELDER_KEEP_THRESHOLD,
     _py.DEALER_KEEP_THRESHOLD, SET_MIN_RANK, _py.KING, _py.QUEEN, *_py.TRICK_VALUE],
    dtype=np.int64,
)
assert len(_py.TRICK_VALUE) == DECK.num_ranks and all(isinstance(int(x), int) for x in KEEP)

#: `CARD_TAB[row, c]`, rows: suit, rank, `HIGHER` (the cards of c's suit that outrank it) of card `c`.
C_SUIT, C_RANK, C_HIGHER = range(3)
CARD_TAB = np.array([SUIT, RANK, HIGHER], dtype=np.int64)
#: `SUIT_VALUE_TAB[pattern]`: the point value of a suit by its 8-bit rank pattern (game.py).
SUIT_VALUE_TAB = np.array(SUIT_VALUE, dtype=np.int64)


def _run_len_table() -> np.ndarray:
    """`RUN_LEN[pattern, rank]`: length of the maximal run (3+, game.py's `RUNS`) holding `rank`, else 0."""
    table = np.zeros((1 << DECK.num_ranks, DECK.num_ranks), dtype=np.int64)
    for pattern in range(1 << DECK.num_ranks):
        for length, _, bits in RUNS[pattern]:
            for r in range(DECK.num_ranks):
                if bits >> r & 1:
                    table[pattern, r] = length
    return table


RUN_LEN = _run_len_table()


# -- the kernel -------------------------------------------------------------------------------
@nb.njit(cache=True, inline="always")
def _first_hit(row: np.ndarray, start: int, size: int) -> int:
    """Index (from `start`) of the first nonzero of `row[start:start + size]`, or -1 (decode's `first_hit`)."""
    for j in range(size):
        if row[start + j] != 0:
            return j
    return -1


@nb.njit(cache=True, inline="always")
def _popcount(x: np.int64) -> int:
    n = 0
    while x != 0:
        x &= x - 1
        n += 1
    return n


@nb.njit(cache=True)
def _exchange(o: np.ndarray, m: np.ndarray, k: np.ndarray, p: np.ndarray, card_tab: np.ndarray,
              suit_value: np.ndarray, run_len: np.ndarray, values: np.ndarray, work: np.ndarray) -> int:
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
    threshold = p[P_ELDER_KEEP] if elder else p[P_DEALER_KEEP]

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
            count = _popcount(pattern)
            if value > best_value or (value == best_value and count > best_count):
                point_suit, best_value, best_count = s, value, count
    for c in range(num_cards):
        if o[hand + c] != 0:
            s, r = card_tab[C_SUIT, c], card_tab[C_RANK, c]
            length = _popcount(work[s])
            v = p[P_TRICK_VALUE + r] + p[P_LENGTH] * length
            run = run_len[work[s], r]
            if run >= p[P_LONG_RUN]:
                v += p[P_LONG_RUN_BONUS]
            elif run > 0:
                v += p[P_RUN]
            if r == p[P_KING] and length >= 2:
                v += p[P_KING_GUARD]
            elif r == p[P_QUEEN] and length >= 3:
                v += p[P_QUEEN_GUARD]
            if s == point_suit:
                v += p[P_POINT_SUIT]
            if r >= p[P_SET_MIN_RANK]:
                same = work[num_suits + r]
                if same == 4:
                    v += p[P_QUATORZE]
                elif same == 3:
                    v += p[P_TRIO]
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
    hand, played, discards = k[K_HAND], k[K_PLAYED], k[K_DISCARDS]
    for s in range(num_suits):
        lengths[s] = 0
    own = np.int64(0)
    seen = np.int64(0)  # own hand, own discards, every card played this hand (the card on the table too)
    for c in range(num_cards):
        bit = np.int64(1) << c
        if o[hand + c] != 0:
            lengths[card_tab[C_SUIT, c]] += 1
            own |= bit
            seen |= bit
        elif o[played + c] != 0 or o[played + num_cards + c] != 0 or o[discards + c] != 0:
            seen |= bit
    unseen = ((np.int64(1) << num_cards) - 1) & ~seen
    led = _first_hit(o, k[K_TRICK], num_cards)

    if led < 0:  # we lead
        best, best_key = -1, 0  # min(masters, key=(rank, -length)); a length is at most num_cards // num_suits
        for c in range(num_cards):
            if m[c] != 0 and (card_tab[C_HIGHER, c] & unseen) == 0:
                key = card_tab[C_RANK, c] * (num_cards + 1) - lengths[card_tab[C_SUIT, c]]
                if best < 0 or key < best_key:
                    best, best_key = c, key
        if best >= 0:
            return best
        shown = np.int64(0)  # the opponent's cards shown in the declarations, not played yet
        for c in range(num_cards):
            if o[k[K_REVEALED] + num_cards + c] != 0:
                shown |= np.int64(1) << c
        shown &= unseen
        for c in range(num_cards):  # min(legal, key=(unseen above + shown above, rank))
            if m[c] != 0:
                higher = card_tab[C_HIGHER, c]
                key = (_popcount(higher & unseen) + _popcount(higher & shown)) * num_ranks + card_tab[C_RANK, c]
                if best < 0 or key < best_key:
                    best, best_key = c, key
        return best

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
    best, best_key = -1, -1  # void: min(legal, key=(rank, potential))
    for c in range(num_cards):
        if m[c] != 0:
            higher = card_tab[C_HIGHER, c]
            potential = _popcount(higher & own) - _popcount(higher & unseen)
            key = card_tab[C_RANK, c] * 64 + potential + 32
            if best < 0 or key < best_key:
                best, best_key = c, key
    return best


@nb.njit(cache=True)
def act_rows(obs: np.ndarray, mask: np.ndarray, consts: np.ndarray, keep: np.ndarray, card_tab: np.ndarray,
             suit_value: np.ndarray, run_len: np.ndarray, out: np.ndarray) -> None:
    """`out[i]` = the heuristic's action on `obs[i]`, `mask[i]` (-1 where the mask row is all zeros)."""
    num_cards = card_tab.shape[1]
    values = np.zeros(num_cards, dtype=np.int64)
    work = np.zeros(consts[K_NUM_SUITS] + consts[K_NUM_RANKS], dtype=np.int64)
    for i in range(obs.shape[0]):
        o, m = obs[i], mask[i]
        first_legal = _first_legal(m)
        if first_legal < 0:
            out[i] = -1
        elif first_legal >= consts[K_DISCARD]:
            out[i] = _exchange(o, m, consts, keep, card_tab, suit_value, run_len, values, work)
        else:
            out[i] = _play(o, m, consts, card_tab, work)


class _PicchettoRows(BatchedHeuristic):
    """What the Picchetto ports share: the game, its action count and its one observation width."""

    game = "picchetto"
    num_actions = NUM_ACTIONS

    def _widths(self) -> dict[int, str]:
        return {OBS_SIZE: ""}


class PicchettoBatchedHeuristic(_PicchettoRows):
    """The Picchetto heuristic over float32 `(k, 442)` observations and int8 `(k, 65)` masks."""

    def _decide(self, obs: np.ndarray, mask: np.ndarray, out: np.ndarray) -> None:
        act_rows(obs, mask, CONSTS, KEEP, CARD_TAB, SUIT_VALUE_TAB, RUN_LEN, out)


#: The name `agents/rows.py` looks up (the Python heuristic's class name).
PicchettoHeuristic = PicchettoBatchedHeuristic


# -- the plain greedy player (agents/plain/picchetto.py) ---------------------------------------
# Its rules (module docstring of the Python player): discard the lowest card while a discard is legal; lead
# the highest card; follow with the cheapest winner, else the lowest card. "Lowest" is the key (rank, card id),
# "highest" (-rank, card id): a scan in id order that replaces its choice only on a strictly better rank.


@nb.njit(cache=True)
def _greedy_row(o: np.ndarray, m: np.ndarray, k: np.ndarray, card_tab: np.ndarray) -> int:
    """`GreedyAgent.act` on one observation row `o` and its mask `m` (-1 if no action is legal)."""
    num_cards = card_tab.shape[1]
    first_legal = _first_legal(m)
    if first_legal < 0:
        return -1
    rank = card_tab[C_RANK]
    if first_legal >= k[K_DISCARD]:  # exchange: the lowest discard while any is legal
        best = -1
        for c in range(num_cards):
            if m[k[K_DISCARD] + c] != 0 and (best < 0 or rank[c] < rank[best]):
                best = c
        return k[K_END_EXCHANGE] if best < 0 else k[K_DISCARD] + best
    led = _first_hit(o, k[K_TRICK], num_cards)
    best = -1
    if led < 0:  # lead the highest card
        for c in range(num_cards):
            if m[c] != 0 and (best < 0 or rank[c] > rank[best]):
                best = c
        return best
    for c in range(num_cards):  # the cheapest winner
        if (m[c] != 0 and card_tab[C_SUIT, c] == card_tab[C_SUIT, led] and rank[c] > rank[led]
                and (best < 0 or rank[c] < rank[best])):
            best = c
    if best >= 0:
        return best
    for c in range(num_cards):  # the lowest card
        if m[c] != 0 and (best < 0 or rank[c] < rank[best]):
            best = c
    return best


@nb.njit(cache=True)
def greedy_rows(obs: np.ndarray, mask: np.ndarray, consts: np.ndarray, card_tab: np.ndarray, out: np.ndarray) -> None:
    """`out[i]` = the plain greedy player's action on `obs[i]`, `mask[i]` (-1 where the mask row is all zeros)."""
    for i in range(obs.shape[0]):
        out[i] = _greedy_row(obs[i], mask[i], consts, card_tab)


class PicchettoBatchedGreedy(_PicchettoRows):
    """The plain greedy Picchetto player (`agents.plain.picchetto.GreedyAgent`) over float32 `(k, 442)`
    observations and int8 `(k, 65)` masks: the same action on every row."""

    name = "plain"

    def _decide(self, obs: np.ndarray, mask: np.ndarray, out: np.ndarray) -> None:
        greedy_rows(obs, mask, CONSTS, CARD_TAB, out)


#: The name `agents/rows.py` looks up (the Python plain player's class name).
GreedyAgent = PicchettoBatchedGreedy
