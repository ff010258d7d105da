"""Pigugnìn: the club-player heuristic decided for many observations at once (numba).

`PigugninBatchedHeuristic.act(obs, mask)` takes a float32 `(k, 546)` (4 players) or `(k, 672)`
(5 players) matrix whose rows are observations of seats to act (each exactly the AEC env's
`observe(agent)["observation"]`, e.g. `vector_env(...).obs`) and the int8 `(k, 40)` matrix of
their masks, and returns an int64 `(k,)` array: for every row, the action
`agents.pigugnin_heuristic.PigugninHeuristic.act` chooses on that observation. Like the Python
heuristic, which reads only `decode(obs)`, the kernel reads only the row and its mask, never an
engine state, so rows of different games and seats may come in any order. The player count is
read from the row's width, as `decode` reads it.

| what the Python heuristic reads (`decode`) | where the kernel reads it |
|---|---|
| `hand` (and `tricks_left = len(hand)`) | the `hand` field |
| `played` (with the hand: the unseen cards, counted per suit above and below a card) | the `played` field, every relative seat |
| `trick` (the cards in play order from the leader) | `trick_leader` (first hit), then the `trick` rows from the leader on, empty rows skipped |
| `tricks_won[0] == 0` (trickless) | `round(tricks_won[0] * hand_size) == 0` |
| the legal ids | the mask |

The rules (win the trick it needs while trickless, lead an exit, throw the most dangerous card
when void, duck, ...) are the Python heuristic's, in the same order; see its module docstring.

Equal decisions, tie for tie: the Python heuristic picks with `min`/`max` over the legal ids in
increasing order with tuple keys. A key that depends on the card alone is a row of `KEY_TAB`, the
dense rank of the key of every card (equal tuples, equal rank), built at import time from the
heuristic's own key functions and tables (`cheap_sure`, `strong_winner`, `STRENGTH`, `POINTS`,
`PIGUGNIN`); the keys that count unseen cards (rule 3's exit, the void throws of rules 4 and 5) are packed by
the kernel into one int per card, digit by digit in the tuple's order, so that ints compare as
the tuples do. The kernel scans the same ids in the same order and replaces its choice only on a
strictly better key (the first of equal keys, as `min` and `max` keep it).

Randomness: none. The Python heuristic never draws from its generator (its decisions are a
function of the observation alone), so neither does this port; `seed` is accepted and ignored,
and the same rows always give the same actions.

The plain ducking player (`agents/plain/pigugnin.py`, spec `plain`, alias `ducking`) has its port here too:
`PigugninBatchedDucking` (exported as `DuckingAgent`, the Python player's class name, which `agents/rows.py`
looks up), the section "the plain ducking player" at the end of this file.

Every fact from another module (observation offsets per player count, card tables, the key
ranks) reaches the kernel as an argument, not as a global: numba's on-disk cache (`cache=True`)
freezes globals and notices changes to this file only, so a change to the layout or to the
heuristic's tables can never be served from a stale cache. A change of the heuristic's *rules*
(or of one of its inline keys, copied into `_KEYS` below) must be ported here;
`tests/agents/test_batched_heuristics.py` compares both on thousands of observations.

Example:

    >>> from envs import pigugnin_v0
    >>> from agents.batched.pigugnin import PigugninBatchedHeuristic
    >>> venv = pigugnin_v0.vector_env(4, num_players=5)
    >>> obs, mask = venv.reset(seed=0)
    >>> actions = PigugninBatchedHeuristic("pigugnin").act(obs, mask)
    >>> actions.dtype, actions.shape, bool(mask[range(4), actions].all())
    (dtype('int64'), (4,), True)
"""

from __future__ import annotations

import numba as nb
import numpy as np

from agents import pigugnin_heuristic as _py
from agents.batched.base import BatchedHeuristic
from agents.plain import pigugnin as _plain
from envs.pigugnin.game import DECK, PIGUGNIN, POINTS, STRENGTH, PigugninGame
from envs.pigugnin.observation import LAYOUTS

__all__ = ["PigugninBatchedHeuristic", "PigugninHeuristic", "act_rows", "PigugninBatchedDucking", "DuckingAgent",
           "ducking_rows"]

NUM_ACTIONS = PigugninGame.num_actions
SUIT = DECK.suit_of

# -- what the kernel receives ---------------------------------------------------------------
# `CONSTS[n]` (int64), one per player count: the indices below are this file's, the values come
# from observation.py, game.py and the Python heuristic at import time.
(K_HAND, K_PLAYED, K_TRICK, K_LEADER, K_TRICKS, K_N, K_HAND_SIZE, K_PIG, K_SPADE, K_KEEP_WINNERS,
 K_FULL) = range(11)
_OBS_FIELDS = ("hand", "played", "trick", "trick_leader", "tricks_won")


def _consts(n: int) -> np.ndarray:
    lay = LAYOUTS[n]
    assert lay.fields["played"].shape == (n, DECK.size) and lay.fields["trick"].shape == (n, DECK.size)
    return np.array(
        [lay.fields[f].obs_offset for f in _OBS_FIELDS]
        # decode's hand_size; the heuristic's Spade suit and the player count of its rules 4 and 6
        + [n, DECK.size // n, PIGUGNIN, _py.SPADE, _py.KEEP_WINNERS_PLAYERS, DECK.full_mask],
        dtype=np.int64,
    )


CONSTS = {n: _consts(n) for n in LAYOUTS}
assert all(len(k) == K_FULL + 1 for k in CONSTS.values())
#: observation width -> player count (what decode reads the player count from)
N_BY_WIDTH = {lay.obs_size: n for n, lay in LAYOUTS.items()}

#: `CARD_TAB[row, c]`, rows: suit, card points, strength of card `c`, and `STRONGER[c]` /
#: `WEAKER[c]` (bitmasks of the cards of c's suit that capture c / that c captures).
C_SUIT, C_POINTS, C_STRENGTH, C_STRONGER, C_WEAKER = range(5)
CARD_TAB = np.array([SUIT, POINTS, STRENGTH, _py.STRONGER, _py.WEAKER], dtype=np.int64)
assert all(0 <= m < 1 << 62 for m in _py.STRONGER + _py.WEAKER)
# The packed keys below put each tuple entry in its own digit: these are their ranges.
assert min(STRENGTH) == 0 and max(STRENGTH) <= 9 and min(POINTS) == 0 and max(POINTS) <= 3
assert DECK.num_ranks <= 10


def _dense_ranks(keys) -> list[int]:
    """Each key's rank among the distinct keys (equal keys, equal rank; orders like the tuples)."""
    order = {k: r for r, k in enumerate(sorted(set(keys)))}
    return [order[k] for k in keys]


_S = _py.STRENGTH
_PIG = _py.PIGUGNIN
#: The card-only tuple keys of the Python heuristic (its key functions, or copied from `act`).
_KEYS = {
    # rules 1 and 2: the cheapest sure winner / master (min)
    "cheap_sure": _py.cheap_sure,
    # rule 1 without a sure winner (max)
    "strong_winner": _py.strong_winner,
    # rule 6, max: (JS, strength); rule 8, min: the same key
    "pig_strength": lambda c: (c == _PIG, _S[c]),
    # rule 6 with 5 players while trickless, max: (JS, -strength)
    "duck_low": lambda c: (c == _PIG, -_S[c]),
    # rule 7, max: (not JS, strength)
    "last_win": lambda c: (c != _PIG, _S[c]),
}
R_CHEAP_SURE, R_STRONG_WINNER, R_PIG_STRENGTH, R_DUCK_LOW, R_LAST_WIN = range(len(_KEYS))
#: `KEY_TAB[row, c]`: the dense rank of card `c`'s key `row` (the `R_*` rows, in the order of `_KEYS`).
KEY_TAB = np.array([_dense_ranks([key(c) for c in range(DECK.size)]) for key in _KEYS.values()], dtype=np.int64)


# -- the kernel -------------------------------------------------------------------------------
@nb.njit(cache=True, inline="always")
def _first_hit(row: np.ndarray, start: int, size: int) -> int:
    """Index (from `start`) of the first nonzero of `row[start:start + size]`, or -1 (decode's `first_hit`)."""
    for j in range(size):
        if row[start + j] != 0:
            return j
    return -1


@nb.njit(cache=True, inline="always")
def _read_trick(o: np.ndarray, k: np.ndarray, num_cards: int, trick: np.ndarray) -> int:
    """decode's `trick`: the cards on the table in play order from the leader into `trick`; returns how many."""
    n = k[K_N]
    count = 0
    leader = _first_hit(o, k[K_LEADER], n)
    if leader >= 0:
        for i in range(n):
            card = _first_hit(o, k[K_TRICK] + num_cards * ((leader + i) % n), num_cards)
            if card >= 0:
                trick[count] = card
                count += 1
    return count


@nb.njit(cache=True, inline="always")
def _count(x: np.int64) -> int:
    """Number of set bits (`int.bit_count`)."""
    total = 0
    while x != 0:
        x &= x - 1
        total += 1
    return total


@nb.njit(cache=True, inline="always")
def _pick(m: np.ndarray, keep: np.int64, rank: np.ndarray, highest: bool) -> int:
    """`max`/`min` (`highest`) by `rank` over the legal ids whose bit is in `keep`: the first of equal keys, or -1."""
    best = -1
    for c in range(m.shape[0]):
        if m[c] != 0 and ((keep >> c) & 1) != 0:
            if best < 0 or (rank[c] > rank[best] if highest else rank[c] < rank[best]):
                best = c
    return best


@nb.njit(cache=True)
def _act_row(o: np.ndarray, m: np.ndarray, k: np.ndarray, card_tab: np.ndarray, key_tab: np.ndarray,
             trick: np.ndarray, packed: np.ndarray) -> int:
    """The Python heuristic's `act` on one observation row `o` and its mask `m` (-1 if no action is legal).

    `trick` is scratch space (at least `n` entries), `packed` too (one entry per card id).
    """
    num_cards = m.shape[0]
    one = np.int64(1)
    legal = np.int64(0)
    first_legal = -1
    for c in range(num_cards):
        if m[c] != 0:
            legal |= one << c
            if first_legal < 0:
                first_legal = c
    if first_legal < 0:
        return -1
    n = k[K_N]
    pig = k[K_PIG]
    spade = k[K_SPADE]
    suit = card_tab[C_SUIT]
    points = card_tab[C_POINTS]
    strength = card_tab[C_STRENGTH]
    stronger = card_tab[C_STRONGER]
    weaker = card_tab[C_WEAKER]

    # The view: hand, the unseen cards, trickless, the trick in play order.
    hand_at, played_at = k[K_HAND], k[K_PLAYED]
    in_hand = np.int64(0)
    seen = np.int64(0)
    for c in range(num_cards):
        if o[hand_at + c] != 0:
            in_hand |= one << c
        for r in range(n):
            if o[played_at + num_cards * r + c] != 0:
                seen |= one << c
                break
    unseen = k[K_FULL] ^ (in_hand | seen)
    pig_out = ((unseen >> pig) & 1) != 0
    trickless = round(np.float64(o[k[K_TRICKS]]) * k[K_HAND_SIZE]) == 0
    count = _read_trick(o, k, num_cards, trick)

    if count == 0:  # _lead
        if trickless:  # rule 2
            masters = np.int64(0)
            for c in range(num_cards):
                if c != pig and (unseen & stronger[c]) == 0:
                    masters |= one << c
            best = _pick(m, masters, key_tab[R_CHEAP_SURE], False)
            if best >= 0:
                return best
        # rule 3, min of the exit key (above == 0, JS, a Spade holding JS, below, not a Spade with JS
        # out, -above, -strength), packed digit by digit
        hold_pig = ((in_hand >> pig) & 1) != 0
        for c in range(num_cards):
            if m[c] != 0:
                above = _count(unseen & stronger[c])
                below = _count(unseen & weaker[c])
                is_spade = suit[c] == spade
                key = 1 if above == 0 else 0
                key = key * 2 + (1 if c == pig else 0)
                key = key * 2 + (1 if hold_pig and is_spade else 0)
                key = key * 10 + below
                key = key * 2 + (0 if pig_out and is_spade else 1)
                key = key * 10 + (9 - above)
                key = key * 10 + (9 - strength[c])
                packed[c] = key
        return _pick(m, legal, packed, False)

    led = suit[trick[0]]
    best_strength = -1
    has_pig = False
    for i in range(count):
        card = trick[i]
        if card == pig:
            has_pig = True
        if suit[card] == led and strength[card] > best_strength:
            best_strength = strength[card]
    if suit[first_legal] != led:  # rules 4 and 5: void
        for c in range(num_cards):
            if m[c] != 0 and trickless:
                # rule 4, max of (JS, not a master, -strength) with 5 players, else (JS, not a master, points,
                # strength)
                key = 1 if c == pig else 0
                key = key * 2 + (1 if (unseen & stronger[c]) != 0 else 0)
                if n >= k[K_KEEP_WINNERS]:
                    key = key * 10 + (9 - strength[c])
                else:
                    key = (key * 4 + points[c]) * 10 + strength[c]
                packed[c] = key
            elif m[c] != 0:
                # rule 5, max of (JS, spade_risk - above, points, strength)
                above = _count(unseen & stronger[c])
                risk = 1 if pig_out and suit[c] == spade and strength[c] > strength[pig] else 0
                key = 1 if c == pig else 0
                key = key * 16 + (risk - above + 10)
                key = key * 4 + points[c]
                key = key * 10 + strength[c]
                packed[c] = key
        return _pick(m, legal, packed, True)
    last_to_play = count == n - 1
    winners = np.int64(0)
    duckers = np.int64(0)
    for c in range(num_cards):
        if ((legal >> c) & 1) != 0:
            if strength[c] > best_strength:
                winners |= one << c
            if strength[c] < best_strength:
                duckers |= one << c

    if trickless and winners != 0 and not has_pig:  # rule 1
        sure = np.int64(0)
        for c in range(num_cards):
            if ((winners >> c) & 1) != 0 and (last_to_play or (unseen & stronger[c]) == 0):
                sure |= one << c
        if sure != 0:
            return _pick(m, sure, key_tab[R_CHEAP_SURE], False)
        return _pick(m, winners, key_tab[R_STRONG_WINNER], True)
    if duckers != 0:  # rule 6
        if trickless and n >= k[K_KEEP_WINNERS]:
            return _pick(m, duckers, key_tab[R_DUCK_LOW], True)
        return _pick(m, duckers, key_tab[R_PIG_STRENGTH], True)
    if last_to_play:  # rule 7
        return _pick(m, legal, key_tab[R_LAST_WIN], True)
    return _pick(m, legal, key_tab[R_PIG_STRENGTH], False)  # rule 8


@nb.njit(cache=True)
def act_rows(obs: np.ndarray, mask: np.ndarray, consts: np.ndarray, card_tab: np.ndarray, key_tab: np.ndarray,
             out: np.ndarray) -> None:
    """`out[i]` = the heuristic's action on `obs[i]`, `mask[i]` (-1 where the mask row is all zeros)."""
    trick = np.empty(consts[K_N], dtype=np.int64)
    packed = np.zeros(mask.shape[1], dtype=np.int64)
    for i in range(obs.shape[0]):
        out[i] = _act_row(obs[i], mask[i], consts, card_tab, key_tab, trick, packed)


class _PigugninRows(BatchedHeuristic):
    """What the Pigugnìn ports share: the game, its action count, the widths of 4 and 5 players."""

    game = "pigugnin"
    num_actions = NUM_ACTIONS

    def _widths(self) -> dict[int, str]:
        return {w: f"{n} players" for w, n in N_BY_WIDTH.items()}


class PigugninBatchedHeuristic(_PigugninRows):
    """The Pigugnìn heuristic over float32 `(k, 546)` or `(k, 672)` observations (4 or 5 players,
    read from the row's width as `decode` does) and int8 `(k, 40)` masks."""

    def _decide(self, obs: np.ndarray, mask: np.ndarray, out: np.ndarray) -> None:
        act_rows(obs, mask, CONSTS[N_BY_WIDTH[obs.shape[1]]], CARD_TAB, KEY_TAB, out)

#: The name `agents/rows.py` looks up (the Python heuristic's class name).
PigugninHeuristic = PigugninBatchedHeuristic


# -- the plain ducking player (agents/plain/pigugnin.py) ---------------------------------------
# Its rules (module docstring of the Python player): lead the weakest card; when void throw the most dangerous;
# duck with the strongest card that loses; with only winners, the weakest, or last to play the most dangerous
# but JS. Its three card keys are dense ranks (`DUCK_TAB`), built from the Python player's own key functions.
D_STRENGTH, D_DANGER, D_LAST = range(3)
DUCK_TAB = np.array([_dense_ranks([STRENGTH[c] for c in range(DECK.size)]),
                     _dense_ranks([_plain.danger(c) for c in range(DECK.size)]),
                     _dense_ranks([(c != PIGUGNIN, *_plain.danger(c)) for c in range(DECK.size)])], dtype=np.int64)


@nb.njit(cache=True)
def _ducking_row(o: np.ndarray, m: np.ndarray, k: np.ndarray, card_tab: np.ndarray, duck_tab: np.ndarray,
                 trick: np.ndarray) -> int:
    """`DuckingAgent.act` on one observation row `o` and its mask `m` (-1 if no action is legal)."""
    num_cards = m.shape[0]
    legal = np.int64(0)
    first_legal = -1
    for c in range(num_cards):
        if m[c] != 0:
            legal |= np.int64(1) << c
            if first_legal < 0:
                first_legal = c
    if first_legal < 0:
        return -1
    n = k[K_N]
    count = _read_trick(o, k, num_cards, trick)
    if count == 0:  # lead the weakest card
        return _pick(m, legal, duck_tab[D_STRENGTH], False)
    suit, strength = card_tab[C_SUIT], card_tab[C_STRENGTH]
    led = suit[trick[0]]
    if suit[first_legal] != led:  # void: the most dangerous card
        return _pick(m, legal, duck_tab[D_DANGER], True)
    best = -1
    for i in range(count):
        if suit[trick[i]] == led and strength[trick[i]] > best:
            best = strength[trick[i]]
    duckers = np.int64(0)
    for c in range(num_cards):
        if m[c] != 0 and strength[c] < best:
            duckers |= np.int64(1) << c
    if duckers != 0:  # the strongest card that still loses
        return _pick(m, duckers, duck_tab[D_STRENGTH], True)
    if count == n - 1:  # last to play, the trick is ours: the most dangerous card but JS
        return _pick(m, legal, duck_tab[D_LAST], True)
    return _pick(m, legal, duck_tab[D_STRENGTH], False)


@nb.njit(cache=True)
def ducking_rows(obs: np.ndarray, mask: np.ndarray, consts: np.ndarray, card_tab: np.ndarray, duck_tab: np.ndarray,
                 out: np.ndarray) -> None:
    """`out[i]` = the plain ducking player's action on `obs[i]`, `mask[i]` (-1 where the mask row is all zeros)."""
    trick = np.empty(consts[K_N], dtype=np.int64)
    for i in range(obs.shape[0]):
        out[i] = _ducking_row(obs[i], mask[i], consts, card_tab, duck_tab, trick)


class PigugninBatchedDucking(_PigugninRows):
    """The plain ducking Pigugnìn player (`agents.plain.pigugnin.DuckingAgent`) over float32 `(k, 546)` or
    `(k, 672)` observations (4 or 5 players) and int8 `(k, 40)` masks: the same action on every row."""

    name = "plain"

    def _decide(self, obs: np.ndarray, mask: np.ndarray, out: np.ndarray) -> None:
        ducking_rows(obs, mask, CONSTS[N_BY_WIDTH[obs.shape[1]]], CARD_TAB, DUCK_TAB, out)


#: The name `agents/rows.py` looks up (the Python plain player's class name).
DuckingAgent = PigugninBatchedDucking
