"""`PigugninVectorEnv`: many Pigugnìn games in NumPy arrays, stepped by numba kernels.

Imported only by `envs.pigugnin_v0.vector_env()` (it needs numba). The rules are those of
`envs/pigugnin/game.py` (the AEC engine is the reference; `tests/envs/test_pigugnin_batched.py`
checks the two step by step) and the observation buffer `buf[i]` holds, byte for byte, what
`PigugninObserver.buf` holds for the same state (the base gathers each seat's view from it).
Every flag of the AEC env is supported.

State (`self.state`, first axis the game; N = `num_players`, seats absolute). Every name is a
view of one of two packed arrays, `g8` (int8) and `g64` (int64), which are what the kernels
take (a numba call checks each argument's type: two arrays instead of sixteen make
`vector_env(1).step` about 2 us faster):

| name | dtype, shape | meaning |
|---|---|---|
| `hands` | int64 (B, N) | card-set bitmask of each seat's hand (bit c = card id c) |
| `busche` | int64 (B, N) | busche totals of the game |
| `points` | int64 (B, N) | card points taken this hand (+3 last trick once the hand is over) |
| `hand_no` | int64 (B,) | hand number in the episode, from 1 |
| `trick_len` | int8 (B,) | cards in the trick in progress |
| `leader` | int8 (B,) | seat that led (or is to lead) the trick in progress |
| `to_act` | int8 (B,) | seat to play |
| `dealer` | int8 (B,) | dealer of this hand (after the `holder_7D` move in hand 1) |
| `deal_dealer` | int8 (B,) | the seat `order` was dealt from (before the `holder_7D` move) |
| `tricks_done` | int8 (B,) | tricks finished in this hand |
| `pig_taker` | int8 (B,) | seat that captured JS this hand, -1 until then |
| `reason` | int8 (B,) | reason of the last finished episode: an index of `REASONS` (0: none) |
| `trick` | int8 (B, N) | the trick in progress, in play order from `leader` (-1 past `trick_len`) |
| `tricks_won` | int8 (B, N) | tricks taken this hand |
| `outcome` | int8 (B, N) | result of the last finished episode per seat: -1 none, else an index of `OUTCOMES` |
| `order` | int8 (B, 40) | the last deal: card `order[k]` went to seat `(deal_dealer + 1 + k) % N` |

The privileged vector (`privileged(seats)`, for a critic in training only; the reference is
`envs/pigugnin/privileged.py`), seat-relative, float32 `(40 * (N - 1),)`:

| slice | meaning |
|---|---|
| `[40 (k - 1), 40 k)`, k = 1..N-1 | the current hand of seat `(seat + k) % N`: 1.0 per card id held |

Nothing else is hidden (all 40 cards are dealt; plays and captures are public).

A deal loaded through `reset(options=...)` (built by the AEC engine) sets `order` to an order
that deals the same hands from `deal_dealer = dealer`.

Randomness: each game's xorshift stream (`envs.core.vector.rand_below`) draws, like the AEC
engine, the first dealer (when `first_dealer="random"`) and then a Fisher-Yates shuffle of the
40 ids for every deal; later hands are dealt from the same stream.
"""

from __future__ import annotations

from typing import Any

import numba as nb
import numpy as np

from envs.core.cards import ITALIAN
from envs.core.errors import ConfigError, DealError
from envs.core.game import RESULT_VERSION
from envs.core.vector import Shared, VectorEnv, rand_below, write_cards
from envs.pigugnin import game as _game
from envs.pigugnin import observation as _observation
from envs.pigugnin.game import PigugninGame
from envs.pigugnin.observation import PigugninObserver
from envs.pigugnin.privileged import privileged_size

__all__ = ["PigugninVectorEnv", "OUTCOMES", "REASONS"]

#: outcome codes of the `outcome` state array
OUTCOMES = ("win", "draw", "lose", "annulled")
#: reason codes of the `reason` state array (index 0: the episode ended without a game result)
REASONS = (None, "cappotto", "annulled", "losers", "sole_loser", "all_draw")
_WIN, _DRAW, _LOSE, _ANNULLED = 0, 1, 2, 3
_R_CAPPOTTO, _R_ANNULLED, _R_LOSERS, _R_SOLE, _R_ALL_DRAW = 1, 2, 3, 4, 5

# -- the game's facts, read from envs/pigugnin/game.py ------------------------------------------


def _card_table(*names: str) -> np.ndarray:
    """A per-card int table from the first of ``names`` that game.py defines (per rank: tiled)."""
    for name in names:
        table = getattr(_game, name, None)
        if table is not None:
            arr = np.asarray(table, dtype=np.int64)
            return np.tile(arr, ITALIAN.num_suits) if arr.size == ITALIAN.num_ranks else arr
    raise ImportError(f"envs.pigugnin.game defines none of {names}")


_STRENGTH = _card_table("RANK_STRENGTH", "STRENGTH")
_CARD_POINTS = _card_table("RANK_POINTS", "CARD_POINTS", "POINTS")
_POINTS_TO_BUSCHE = np.asarray(_game.POINTS_TO_BUSCHE, dtype=np.int64)
_HAND_TOTAL = int(getattr(_game, "HAND_TOTAL", 35))
if _STRENGTH.size != 40 or _CARD_POINTS.size != 40 or _POINTS_TO_BUSCHE.size != _HAND_TOTAL + 1:
    raise ImportError("envs.pigugnin.game: unexpected table sizes")
#: int tables of the kernels (passed as an argument: numba's cache does not see a global change)
T_STRENGTH, T_POINTS, T_SUIT, T_BUSCHE, T_SUIT_MASK = range(5)
_TABLES = np.zeros((5, 40), dtype=np.int64)
_TABLES[T_STRENGTH] = _STRENGTH
_TABLES[T_POINTS] = _CARD_POINTS
_TABLES[T_SUIT] = np.asarray(ITALIAN.suit_of, dtype=np.int64)
_TABLES[T_BUSCHE, : _HAND_TOTAL + 1] = _POINTS_TO_BUSCHE  # busche for hand points 0..35
_TABLES[T_SUIT_MASK, : ITALIAN.num_suits] = ITALIAN.suit_mask

# Columns of the kernels' int config (flags, constants and the buffer's field offsets).
(C_N, C_HAND, C_RESTRICT, C_TIE_ANY, C_TOP_ALL_PAY, C_CAPP_STANDARD, C_TOP_TWO, C_BOUNDARY_WIN,
 C_LOSS, C_SOLE, C_HAND_EPISODE, C_FIRST_DEALER, C_HOLDER_7D, C_PIG, C_SEVEN_D, C_LAST_BONUS,
 C_HAND_TOTAL, C_HOLD) = range(18)
_FIELDS = ("hand", "played", "trick", "trick_leader", "captured", "tricks_won", "points",
           "pig_taker", "busche", "dealer", "num_players")
(O_HAND, O_PLAYED, O_TRICK, O_TRICK_LEADER, O_CAPTURED, O_TRICKS_WON, O_POINTS, O_PIG_HOLDER,
 O_BUSCHE, O_DEALER, O_NUM_PLAYERS) = range(18, 18 + len(_FIELDS))
_CFG_SIZE = 18 + len(_FIELDS)
#: thresholds above this are clamped (no busche total can get there): they fit an int64
_BIG = 1 << 62
#: reward values must add to a hand's busche exactly in float64, as the AEC engine's ints do
_EXACT = 1 << 53

# Columns of the packed state: g8 (int8) holds the per-game scalars, then N-wide rows from
# column 8 (trick, tricks_won, outcome) and the 40-card `order`; g64 (int64) holds N-wide rows
# (hands, busche, points) and `hand_no` at column 3N.
G_TRICK_LEN, G_LEADER, G_TO_ACT, G_DEALER, G_DEAL_DEALER, G_TRICKS_DONE, G_PIG_TAKER, G_REASON = range(8)
G_ROWS = 8
_G8_SCALARS = ("trick_len", "leader", "to_act", "dealer", "deal_dealer", "tricks_done", "pig_taker", "reason")


# -- kernels (one game `i` at a time; n = number of players) --------------------------------------


@nb.njit(cache=True)
def _legal(hand, lead_card, k, tricks_done, restrict, pig_card, tables):
    """The legal cards (bitmask) of `hand` (§2.3, with D11 when `restrict`); `k` cards are in the trick."""
    if k > 0:
        m = hand & tables[T_SUIT_MASK, tables[T_SUIT, lead_card]]
        if m == 0:
            m = hand
    else:
        m = hand
    if restrict != 0 and tricks_done == 0:
        pig = np.int64(1) << pig_card
        if m & pig:
            spade = tables[T_SUIT, pig_card]
            if not (k > 0 and tables[T_SUIT, lead_card] == spade and (hand & tables[T_SUIT_MASK, spade]) == pig):
                m2 = m & ~pig
                if m2 != 0:
                    m = m2
    return m


@nb.njit(cache=True)
def _write_mask(i, cfg, tables, g8, g64, mask, current_player):
    """`mask[i]` and `current_player[i]` for the seat to act (the cold path; `_step_all` writes its own)."""
    p = np.int64(g8[i, G_TO_ACT])
    k = np.int64(g8[i, G_TRICK_LEN])
    m = _legal(g64[i, p], np.int64(g8[i, G_ROWS]), k, g8[i, G_TRICKS_DONE], cfg[C_RESTRICT], cfg[C_PIG], tables)
    for c in range(40):
        mask[i, c] = (m >> c) & 1
    current_player[i] = p


@nb.njit(cache=True)
def _hand_buf(i, cfg, fcfg, g8, g64, buf):
    """The whole observer buffer at the start of a hand (the AEC observer's `reset`)."""
    n = cfg[C_N]
    b = buf[i]
    b[:] = 0.0
    for p in range(n):
        h = g64[i, p]
        base = cfg[O_HAND] + 40 * p
        for c in range(40):
            if (h >> c) & 1:
                b[base + c] = 1.0
    b[cfg[O_TRICK_LEADER] + g8[i, G_LEADER]] = 1.0
    scale = np.float32(fcfg[4])
    for p in range(n):
        b[cfg[O_BUSCHE] + p] = np.float32(g64[i, n + p]) / scale
    b[cfg[O_DEALER] + g8[i, G_DEALER]] = 1.0
    b[cfg[O_NUM_PLAYERS] + n - 4] = 1.0


@nb.njit(cache=True)
def _new_hand(i, first, cfg, g8, g64, rng):
    """HAND_SETUP: shuffle, deal one card at a time from `first`'s right (D2), clear the hand."""
    n = cfg[C_N]
    o = G_ROWS + 3 * n  # order
    for k in range(40):
        g8[i, o + k] = k
    for k in range(39, 0, -1):
        j = rand_below(rng, i, k + 1)
        t = g8[i, o + k]
        g8[i, o + k] = g8[i, o + j]
        g8[i, o + j] = t
    for p in range(n):
        g64[i, p] = 0  # hands
        g64[i, 2 * n + p] = 0  # points
        g8[i, G_ROWS + p] = -1  # trick
        g8[i, G_ROWS + n + p] = 0  # tricks_won
    for k in range(40):
        p = (first + 1 + k) % n
        g64[i, p] |= np.int64(1) << np.int64(g8[i, o + k])
    g8[i, G_DEALER] = first
    g8[i, G_DEAL_DEALER] = first
    g8[i, G_LEADER] = (first + 1) % n
    g8[i, G_TO_ACT] = (first + 1) % n
    g8[i, G_TRICK_LEN] = 0
    g8[i, G_TRICKS_DONE] = 0
    g8[i, G_PIG_TAKER] = -1
    g64[i, 3 * n] += 1  # hand_no


@nb.njit(cache=True)
def _new_episode(i, cfg, fcfg, g8, g64, buf, rng):
    """GAME_START: busche at 0, the first dealer (flag or drawn), the first deal, D1b."""
    n = cfg[C_N]
    for p in range(n):
        g64[i, n + p] = 0
    g64[i, 3 * n] = 0
    first = cfg[C_FIRST_DEALER]
    if first < 0:
        first = rand_below(rng, i, n)
    _new_hand(i, first, cfg, g8, g64, rng)
    if cfg[C_HOLDER_7D] != 0:
        seven = np.int64(1) << cfg[C_SEVEN_D]
        for p in range(n):
            if g64[i, p] & seven:
                g8[i, G_DEALER] = (p - 1) % n
                g8[i, G_LEADER] = p
                g8[i, G_TO_ACT] = p
    _hand_buf(i, cfg, fcfg, g8, g64, buf)


@nb.njit(cache=True)
def _losers(totals, include, cfg, out):
    """Rule 3 of §5.2 over the seats with `include[s]`: marks `out[s]`, returns how many (0: undecided)."""
    n = cfg[C_N]
    loss = cfg[C_LOSS]
    reached = 0
    top = -1
    for s in range(n):
        out[s] = 0
        if include[s] and totals[s] >= loss:
            reached += 1
            if totals[s] > top:
                top = totals[s]
    if reached >= 2:
        cut = loss
        if cfg[C_TOP_TWO] != 0 and reached > 2:
            # the second-highest total among those who reached it (ties at the top count twice)
            at_top = 0
            second = -1
            for s in range(n):
                if include[s] and totals[s] >= loss:
                    if totals[s] == top:
                        at_top += 1
                    elif totals[s] > second:
                        second = totals[s]
            cut = top if at_top >= 2 else second
        count = 0
        for s in range(n):
            if include[s] and totals[s] >= cut:
                out[s] = 1
                count += 1
        return count
    if reached == 1 and top >= cfg[C_SOLE]:
        for s in range(n):
            if include[s] and totals[s] >= loss:
                out[s] = 1
        return 1
    return 0


@nb.njit(cache=True)
def _game_outcome(totals, maker, cfg, out):
    """The end-of-game check of §5.2 (`game.game_outcome`): fills `out`, returns the reason (0: go on)."""
    n = cfg[C_N]
    include = np.ones(n, dtype=np.bool_)
    loser = np.zeros(n, dtype=np.int8)
    if maker >= 0:
        for s in range(n):
            out[s] = _LOSE
        out[maker] = _WIN
        if cfg[C_CAPP_STANDARD] != 0:
            # rules 3-5 among the others, every "win" among them turned into "draw"
            include[maker] = False
            _losers(totals, include, cfg, loser)
            for s in range(n):
                if s != maker:
                    out[s] = _LOSE if loser[s] else _DRAW
        return _R_CAPPOTTO
    every = True
    for s in range(n):
        if totals[s] < cfg[C_LOSS]:
            every = False
    if every:
        for s in range(n):
            out[s] = _ANNULLED
        return _R_ANNULLED
    count = _losers(totals, include, cfg, loser)
    if count == 0:
        return 0
    reason = _R_LOSERS if count >= 2 else _R_SOLE
    # Rule 4 among the non-losers: the two with the fewest busche win, D9 on the boundary.
    if n - count <= 2:
        for s in range(n):
            out[s] = _LOSE if loser[s] else _WIN
    else:
        low = np.int64(_BIG)
        at_low = 0
        for s in range(n):
            if not loser[s]:
                if totals[s] < low:
                    low = totals[s]
                    at_low = 1
                elif totals[s] == low:
                    at_low += 1
        v2 = low  # the second-smallest total (a tie at the smallest counts twice)
        if at_low < 2:
            v2 = np.int64(_BIG)
            for s in range(n):
                if not loser[s] and low < totals[s] < v2:
                    v2 = totals[s]
        at_most = 0
        for s in range(n):
            if not loser[s] and totals[s] <= v2:
                at_most += 1
        for s in range(n):
            if loser[s]:
                out[s] = _LOSE
            else:
                t = totals[s]
                if t < v2 or (t == v2 and (at_most <= 2 or cfg[C_BOUNDARY_WIN] != 0)):
                    out[s] = _WIN
                else:
                    out[s] = _DRAW
    all_draw = True
    for s in range(n):
        if out[s] != _DRAW:
            all_draw = False
    if all_draw:
        for s in range(n):
            out[s] = _ANNULLED
        return _R_ALL_DRAW
    return reason


@nb.njit(cache=True)
def _score_hand(i, cfg, tables, g8, g64, delta):
    """Busche paid per seat for the hand (§4.3, `game.score_hand`); returns the cappotto maker or -1."""
    n = cfg[C_N]
    won = G_ROWS + n  # tricks_won
    pts = 2 * n  # points
    for s in range(n):
        delta[s] = 0
    trickless = 0
    for s in range(n):
        if g8[i, won + s] == 0:
            trickless += 1
    pig = g8[i, G_PIG_TAKER]
    if trickless > 0:
        # "nobody counts points": only the trickless seats pay, plus the Pigugnìn busca
        for s in range(n):
            if g8[i, won + s] == 0:
                delta[s] += trickless + 1
        delta[pig] += 1
        if trickless == n - 1:
            for s in range(n):
                if g8[i, won + s] != 0:
                    return s
        return -1
    top = 0
    for s in range(n):
        delta[s] += tables[T_BUSCHE, g64[i, pts + s]]
        if g64[i, pts + s] > top:
            top = g64[i, pts + s]
    if top < 12:
        tied = 0
        for s in range(n):
            if g64[i, pts + s] == top:
                tied += 1
        if tied == 1 or cfg[C_TOP_ALL_PAY] != 0:
            for s in range(n):
                if g64[i, pts + s] == top:
                    delta[s] += 1
    for s in range(n):
        v = g64[i, pts + s]
        if cfg[C_TIE_ANY] != 0 or v >= 12:
            k = 0
            for t in range(n):
                if g64[i, pts + t] == v:
                    k += 1
            if k >= 2:
                delta[s] += k - 1
    delta[pig] += 1
    return -1


@nb.njit(cache=True)
def _hold(i, lead, winner, cfg, fcfg, g8, g64, buf):
    """The episode is over and the game waits (autoreset=False): the buffer of the final state, as
    `PigugninObserver.reset` writes it (the last trick in the winner's pile, the counters of every seat in
    float32 as its NumPy division gives them, the busche after the hand). `g8`'s trick row still holds the
    last trick, led by `lead`."""
    n = cfg[C_N]
    hand_size = np.float32(cfg[C_HAND])
    hand_total = np.float32(cfg[C_HAND_TOTAL])
    scale = np.float32(fcfg[4])
    o_trick, o_captured = cfg[O_TRICK], cfg[O_CAPTURED]
    for j in range(n):
        c = g8[i, G_ROWS + j]
        buf[i, o_trick + 40 * ((lead + j) % n) + c] = 0.0
        buf[i, o_captured + 40 * winner + c] = 1.0
    for p in range(n):
        buf[i, cfg[O_TRICKS_WON] + p] = np.float32(g8[i, G_ROWS + n + p]) / hand_size
        buf[i, cfg[O_POINTS] + p] = np.float32(g64[i, 2 * n + p]) / hand_total
        buf[i, cfg[O_BUSCHE] + p] = np.float32(g64[i, n + p]) / scale
        buf[i, cfg[O_PIG_HOLDER] + p] = 0.0
        buf[i, cfg[O_TRICK_LEADER] + p] = 0.0
    buf[i, cfg[O_PIG_HOLDER] + g8[i, G_PIG_TAKER]] = 1.0
    buf[i, cfg[O_TRICK_LEADER] + winner] = 1.0


@nb.njit(cache=True)
def _end_hand(i, lead, winner, cfg, fcfg, tables, g8, g64, buf, rng, rewards, terminated):
    """The last trick of game `i` (led by `lead`) was taken by `winner`: HAND_SCORING and GAME_CHECK (§4.3,
    §5.2), then the next hand (the Pigugnìn taker deals, §1.3) or, when the episode is over, a fresh episode
    (with autoreset=False: the game held at its end)."""
    n = cfg[C_N]
    g64[i, 2 * n + winner] += cfg[C_LAST_BONUS]
    delta = np.zeros(n, dtype=np.int64)
    res = np.full(n, -1, dtype=np.int8)
    maker = _score_hand(i, cfg, tables, g8, g64, delta)
    for s in range(n):
        g64[i, n + s] += delta[s]
    why = _game_outcome(g64[i, n : 2 * n], maker, cfg, res)
    for s in range(n):
        r = np.float64(-delta[s])  # an int first: never -0.0
        if why != 0:
            r += fcfg[res[s]]
        rewards[i, s] = np.float32(r)
    if why != 0 or cfg[C_HAND_EPISODE] != 0:
        terminated[i] = True
        for s in range(n):
            g8[i, G_ROWS + 2 * n + s] = res[s] if why != 0 else -1
        g8[i, G_REASON] = why
        if cfg[C_HOLD] != 0:
            _hold(i, lead, winner, cfg, fcfg, g8, g64, buf)
            for j in range(n):
                g8[i, G_ROWS + j] = -1
        else:
            _new_episode(i, cfg, fcfg, g8, g64, buf, rng)
    else:
        _new_hand(i, g8[i, G_PIG_TAKER], cfg, g8, g64, rng)
        _hand_buf(i, cfg, fcfg, g8, g64, buf)


@nb.njit(cache=True, nogil=True)
def _step_all(actions, active, cfg, fcfg, tables, g8, g64, buf, rng, rewards, terminated, current_player, mask):
    """One card per game with `active[i]`: `game.apply` and `PigugninObserver.update`, then the next seat's mask.

    The hot path is written out in this loop (a call per game costs more than the work here);
    the end of a hand goes to `_end_hand`, the first trick under D11 to `_legal`.
    """
    n = cfg[C_N]
    hand_size = cfg[C_HAND]
    hand_total = cfg[C_HAND_TOTAL]
    restrict = cfg[C_RESTRICT]
    pig_card = cfg[C_PIG]
    o_hand, o_played, o_trick = cfg[O_HAND], cfg[O_PLAYED], cfg[O_TRICK]
    o_leader, o_captured, o_tricks = cfg[O_TRICK_LEADER], cfg[O_CAPTURED], cfg[O_TRICKS_WON]
    o_points, o_pig = cfg[O_POINTS], cfg[O_PIG_HOLDER]
    won = G_ROWS + n  # tricks_won columns of g8
    pts = 2 * n  # points columns of g64
    for i in range(actions.shape[0]):
        if not active[i]:
            continue
        card = actions[i]
        seat = np.int64(g8[i, G_TO_ACT])
        g64[i, seat] ^= np.int64(1) << card
        row = seat * 40 + card
        buf[i, o_hand + row] = 0.0
        buf[i, o_played + row] = 1.0
        k = np.int64(g8[i, G_TRICK_LEN])
        g8[i, G_ROWS + k] = card
        k += 1
        if k < n:
            g8[i, G_TRICK_LEN] = k
            buf[i, o_trick + row] = 1.0
            g8[i, G_TO_ACT] = seat + 1 if seat + 1 < n else 0
        else:
            # Resolve the trick (§3): the strongest card of the led suit wins.
            lead = np.int64(g8[i, G_LEADER])
            best = 0
            best_card = np.int64(g8[i, G_ROWS])
            led = tables[T_SUIT, best_card]
            taken = 0
            has_pig = False
            for j in range(n):
                c = np.int64(g8[i, G_ROWS + j])
                taken += tables[T_POINTS, c]
                if c == pig_card:
                    has_pig = True
                if j > 0 and tables[T_SUIT, c] == led and tables[T_STRENGTH, c] > tables[T_STRENGTH, best_card]:
                    best = j
                    best_card = c
            winner = (lead + best) % n
            g8[i, won + winner] += 1
            g64[i, pts + winner] += taken
            if has_pig:
                g8[i, G_PIG_TAKER] = winner
            done = g8[i, G_TRICKS_DONE] + 1
            g8[i, G_TRICKS_DONE] = done
            g8[i, G_LEADER] = winner
            g8[i, G_TO_ACT] = winner
            g8[i, G_TRICK_LEN] = 0
            if done < hand_size:
                base = o_captured + 40 * winner
                for j in range(n):
                    c = g8[i, G_ROWS + j]
                    buf[i, o_trick + 40 * ((lead + j) % n) + c] = 0.0
                    buf[i, base + c] = 1.0
                    g8[i, G_ROWS + j] = -1
                buf[i, o_tricks + winner] = np.float32(g8[i, won + winner] / hand_size)
                buf[i, o_points + winner] = np.float32(g64[i, pts + winner] / hand_total)
                if has_pig:
                    buf[i, o_pig + winner] = 1.0
                if lead != winner:
                    buf[i, o_leader + lead] = 0.0
                    buf[i, o_leader + winner] = 1.0
            else:
                _end_hand(i, lead, winner, cfg, fcfg, tables, g8, g64, buf, rng, rewards, terminated)
        # The mask of the seat to act now (`_legal`, written out for the usual case).
        p = np.int64(g8[i, G_TO_ACT])
        hand = g64[i, p]
        k = np.int64(g8[i, G_TRICK_LEN])
        if k > 0:
            m = hand & tables[T_SUIT_MASK, tables[T_SUIT, g8[i, G_ROWS]]]
            if m == 0:
                m = hand
        else:
            m = hand
        if restrict != 0 and g8[i, G_TRICKS_DONE] == 0:
            m = _legal(hand, np.int64(g8[i, G_ROWS]), k, 0, restrict, pig_card, tables)
        for c in range(40):
            mask[i, c] = (m >> c) & 1
        current_player[i] = p


@nb.njit(cache=True)
def _deal_all(indices, cfg, fcfg, tables, g8, g64, buf, rng, current_player, mask):
    """A fresh episode in each listed game (`outcome` and `reason` keep the last episode's result, as in a step)."""
    for i in indices:
        _new_episode(i, cfg, fcfg, g8, g64, buf, rng)
        _write_mask(i, cfg, tables, g8, g64, mask, current_player)


@nb.njit(cache=True, nogil=True)
def _privileged_kernel(seats, g64, out):
    """The other seats' hands, seat-relative (envs/pigugnin/privileged.py); `hands` are g64's first N columns."""
    n = out.shape[1] // 40 + 1
    for i in range(out.shape[0]):
        s = seats[i]
        for k in range(1, n):
            write_cards(out, i, 40 * (k - 1), g64[i, (s + k) % n], 40)


# -- the env ----------------------------------------------------------------------------------------


class PigugninVectorEnv(VectorEnv):
    """Batched Pigugnìn (see the module docstring); build it with `pigugnin_v0.vector_env(num_envs, **flags)`."""

    game_class = PigugninGame
    observer_class = PigugninObserver
    unsupported: dict[str, str] = {}

    def __init__(self, num_envs: int, **flags: Any):
        super().__init__(num_envs, **flags)
        self.privileged_size = privileged_size(self.num_players)
        f = self.flags
        game = self.game
        table = game.outcome_reward  # win, draw, lose, annulled (annulled defaults to draw)
        values = [table[name] for name in OUTCOMES]
        for name, v in zip(OUTCOMES, values, strict=True):
            if isinstance(v, int) and abs(v) > _EXACT:
                raise ConfigError(
                    f"{game.name}: vector_env cannot play outcome_reward[{name!r}]={v!r} (rewards are added in "
                    f"float64; an int beyond 2**53 would not add exactly); use env() for it, or a smaller value"
                )
        cfg = np.zeros(_CFG_SIZE, dtype=np.int64)
        cfg[C_N] = self.num_players
        cfg[C_HAND] = game.hand_size
        cfg[C_RESTRICT] = int(bool(f["pigugnin_first_trick_restriction"]))
        cfg[C_TIE_ANY] = int(f["tie_penalty_scope"] == "any_score")
        cfg[C_TOP_ALL_PAY] = int(f["top_scorer_tie_policy"] == "all_pay")
        cfg[C_CAPP_STANDARD] = int(f["cappotto_others_outcome"] == "standard")
        cfg[C_TOP_TWO] = int(f["multi_loser_policy"] == "top_two")
        cfg[C_BOUNDARY_WIN] = int(f["winner_boundary_tie"] == "win")
        cfg[C_LOSS] = min(int(f["loss_threshold"]), _BIG)
        cfg[C_SOLE] = min(int(f["sole_loss_threshold"]), _BIG)
        cfg[C_HAND_EPISODE] = int(f["episode"] == "hand")
        cfg[C_FIRST_DEALER] = -1 if f["first_dealer"] == "random" else int(f["first_dealer"])
        cfg[C_HOLDER_7D] = int(f["first_hand_leader"] == "holder_7D")
        cfg[C_PIG] = int(_game.PIGUGNIN)
        cfg[C_SEVEN_D] = int(getattr(_game, "SEVEN_OF_DENARI", ITALIAN.parse("7D")))
        cfg[C_LAST_BONUS] = int(_game.LAST_TRICK_BONUS)
        cfg[C_HAND_TOTAL] = _HAND_TOTAL
        cfg[C_HOLD] = int(not self.autoreset)
        for j, name in enumerate(_FIELDS):
            cfg[O_HAND + j] = self.layout.fields[name].abs_offset
        self._cfg = cfg
        self._fcfg = np.array([*map(float, values), float(_observation.BUSCHE_SCALE)], dtype=np.float64)
        self._tables = _TABLES

    # -- hooks --------------------------------------------------------------------------
    def _allocate(self, num_envs: int) -> dict[str, np.ndarray]:
        n = self.num_players
        self._g8 = g8 = np.zeros((num_envs, G_ROWS + 3 * n + 40), dtype=np.int8)
        self._g64 = g64 = np.zeros((num_envs, 3 * n + 1), dtype=np.int64)
        g8[:, G_PIG_TAKER] = -1
        g8[:, G_ROWS : G_ROWS + n] = -1
        g8[:, G_ROWS + 2 * n : G_ROWS + 3 * n] = -1
        views = {
            "hands": g64[:, 0:n],
            "busche": g64[:, n : 2 * n],
            "points": g64[:, 2 * n : 3 * n],
            "hand_no": g64[:, 3 * n],
        }
        views.update({name: g8[:, col] for col, name in enumerate(_G8_SCALARS)})
        views["trick"] = g8[:, G_ROWS : G_ROWS + n]
        views["tricks_won"] = g8[:, G_ROWS + n : G_ROWS + 2 * n]
        views["outcome"] = g8[:, G_ROWS + 2 * n : G_ROWS + 3 * n]
        views["order"] = g8[:, G_ROWS + 3 * n :]
        return views

    def _deal(self, indices: np.ndarray) -> None:
        _deal_all(
            np.ascontiguousarray(indices, dtype=np.int64), self._cfg, self._fcfg, self._tables, self._g8, self._g64,
            self.buf, self.rng, self.current_player, self.mask,
        )

    def _step(self, actions: np.ndarray, active: np.ndarray | None = None) -> None:
        active = self._every_game if active is None else active
        self._run(
            _step_all, actions, active, Shared(self._cfg), Shared(self._fcfg), Shared(self._tables), self._g8, self._g64,
            self.buf, self.rng, self.rewards, self.terminated, self.current_player, self.mask,
        )

    def _privileged(self, seats: np.ndarray, out: np.ndarray) -> None:
        _privileged_kernel(seats, self._g64, out)

    def _episode_result(self, i: int) -> dict[str, Any]:
        st = self.state
        codes = st["outcome"][i].tolist()
        outcome = None if codes[0] < 0 else [OUTCOMES[c] for c in codes]
        return {
            "result_version": RESULT_VERSION, "num_players": self.num_players, "episode": self.flags["episode"],
            "busche": st["busche"][i].tolist(), "game_over": outcome is not None, "outcome": outcome,
            "reason": REASONS[st["reason"][i]], "annulled": outcome is not None and outcome[0] == "annulled",
            "winners": [p for p, o in enumerate(outcome or ()) if o == "win"],
            "losers": [p for p, o in enumerate(outcome or ()) if o == "lose"],
        }

    def _load(self, i: int, state: Any) -> None:
        n = self.num_players
        st = self.state
        st["hands"][i] = state.hands
        st["busche"][i] = state.busche
        st["points"][i] = state.points
        st["hand_no"][i] = state.hand_no
        st["trick"][i] = -1
        st["trick"][i, : len(state.trick)] = state.trick
        st["trick_len"][i] = len(state.trick)
        st["leader"][i] = state.leader
        st["to_act"][i] = state.to_act
        st["dealer"][i] = state.dealer
        st["deal_dealer"][i] = state.dealer
        st["tricks_done"][i] = state.tricks_done
        st["pig_taker"][i] = state.pig_taker
        st["tricks_won"][i] = state.tricks_won
        st["outcome"][i] = -1
        st["reason"][i] = 0
        order = np.zeros(40, dtype=np.int8)
        for p, cards in enumerate(state.deal):
            order[(p - state.dealer - 1) % n :: n] = cards
        st["order"][i] = order
        self.current_player[i] = state.to_act
        legal = self.game.legal_mask(state)
        self.mask[i] = [(legal >> c) & 1 for c in range(self.num_actions)]

    def reset(self, seed: int | None = None, options: Any = None):
        """`VectorEnv.reset`; no game has the result of a last episode (`outcome`, `reason`) after it."""
        out = super().reset(seed, options)
        self.state["outcome"][:] = -1
        self.state["reason"][:] = 0
        return out

    def _parse_options(self, options):
        setups = super()._parse_options(options)
        for i, setup in enumerate(setups):
            if setup is not None and any(t >= _BIG for t in setup.get("busche", ())):
                raise DealError(f"game {i}: {self.game.name}: vector_env holds busche totals below 2**62; got {setup['busche']}")
        return setups
