"""Picchetto: the batched engine (`PicchettoVectorEnv`), many games stepped by numba kernels.

Imported only by `envs.picchetto_v0.vector_env` (it needs numba). The rules are those of
`envs/picchetto/game.py` (the AEC engine is the reference, checked step by step by
`tests/envs/test_picchetto_batched.py`); the observation buffer `buf[i]` holds the bytes the
AEC observer (`envs/picchetto/observation.py`) holds for the same state. Every flag of the
AEC env is supported.

State: one int64 row per game, `state["st"][i, column]` (card sets are 32-bit masks, card id
`8*suit + rank`), and `state["pend"]`, the points scored at the deal of the episode in
progress, paid with its first step (as `CardGameEnv` does):

| columns | meaning |
|---|---|
| `PHASE`, `TO_ACT`, `DEALER` | phase (`Phase` of game.py), seat to act (-1 when over), dealer (the elder is `1 - DEALER`) |
| `EPOCH` | bumped at every deal and at the episode's end (the observation is then rebuilt) |
| `GAME_NO`, `TARGET`, `GW+p`, `GS+p` | game of the match (0 partita, 1 rivincita, 2 bella), its target, games won, game scores |
| `HANDS+p`, `DEALT+p`, `TALON+k` | cards held now, the 12 dealt cards, talon order `T[0..7]` |
| `DISC+p`, `ND+p`, `DRAWN+p`, `PEEK+p`, `LEFTOVER` | the exchange: discards, how many, cards drawn, peeked, undrawn |
| `BIANCO+p`, `DECLARED`, `ANS+d` | Bianco per seat; declarations made; answer per declaration (-1 none) |
| `PP+p`, `SEQ+2p`, `SET+2p`, `DP+3p+d`, `REV+p` | public point value, best sequence (length, top) and set (size, rank) (length/size 0: none), declaration points, cards shown |
| `HS+p`, `PRES`, `PIQUE_BY`, `REPIQUE_BY` | hand scores, pique resolved, who made pique / repique (-1) |
| `LEADER`, `LED`, `TRICK_NO`, `TW+p`, `PLAYED+p` | trick play: leader, led card (-1), tricks done, tricks won, cards played |
| `HAND_NO`, `DEALS` | hands dealt in the episode; deals drawn from the stream since the game was (re)seeded |
| `PEND_WIN`, `PEND_HAND` | inside a step only: a game won by that seat (-1 none), the next hand to deal |

The privileged vector (`privileged(seats)`, for a critic in training only; the reference is
`envs/picchetto/privileged.py`), seat-relative (the opponent is `1 - seat`), float32 `(128,)`:

| slice | meaning |
|---|---|
| `[0, 32)` | the opponent's current hand: 1.0 per card id held |
| `[32, 64)` | the opponent's discards this hand |
| `[64, 96)` | the talon cards not drawn yet (`T[k]` for `k >= ` the cards both players drew), whatever `allow_peek` or `reveal_leftover_talon` show of them |
| `[96, 128)` | their talon position: `(k + 1) / 8` for `T[k]` |

Randomness: `rand_below` on game `i`'s xorshift stream (`envs.core.vector`). A deal draws the
first dealer with `rand_below(2)` (only for a fresh episode with `first_dealer="random"`),
then shuffles `perm = 0..31` by Fisher-Yates (`for k = 31..1: swap perm[k], perm[rand_below(k + 1)]`)
and deals it as `new_state` deals `rng.permutation(32)`: `perm[0..23]` alternately to the elder and
the dealer, `perm[24..31]` the talon.

One difference with the AEC env, where no step exists to report it: an episode that is
over at its very deal (a Bianco at the deal carrying a player past the target when that also
ends the episode; it has no decision) is never held. A deal from the stream that does so is
dealt again (the next deal of the same stream), and `reset(options=...)` raises `DealError`
for an explicit deal that does (checked before any game is changed).

The numba kernels read the tables and observation offsets of game.py and observation.py as
compile-time constants; the numba cache is keyed on this file, so after a change there delete
`envs/picchetto/__pycache__/batched*` (the differential tests would show a stale cache).
"""

from __future__ import annotations

from typing import Any

import numba as nb
import numpy as np

from envs.core.errors import DealError
from envs.core.game import RESULT_VERSION
from envs.core.vector import Shared, VectorEnv, rand_below, seed_streams, write_cards
from envs.picchetto import game as _g
from envs.picchetto import observation as _o
from envs.picchetto.game import PicchettoGame
from envs.picchetto.observation import PicchettoObserver
from envs.picchetto.privileged import OFF_DISCARDS, OFF_TALON, OFF_TALON_ORDER, PRIVILEGED_SIZE

__all__ = ["PicchettoVectorEnv", "random_legal_actions"]

# -- rule constants (from game.py) ------------------------------------------------------------
ELDER_EXCHANGE = int(_g.Phase.ELDER_EXCHANGE)
DEALER_EXCHANGE = int(_g.Phase.DEALER_EXCHANGE)
TRICK_LEAD = int(_g.Phase.TRICK_LEAD)
TRICK_FOLLOW = int(_g.Phase.TRICK_FOLLOW)
OVER = int(_g.Phase.OVER)
DISCARD = _g.DISCARD
END_EXCHANGE = _g.END_EXCHANGE
NUM_ACTIONS = _g.NUM_ACTIONS
FIRST_PACKET = _g.FIRST_PACKET
TALON_SIZE = _g.TALON_SIZE
NUM_TRICKS = _g.NUM_TRICKS
FACE_MASK = _g.FACE_MASK
BIANCO_POINTS = _g.BIANCO
CARDS_POINTS = _g.CARDS
CAPOT_POINTS = _g.CAPOT
PIQUE_POINTS = _g.PIQUE
REPIQUE_POINTS = _g.REPIQUE
PIQUE_THRESHOLD = _g.PIQUE_THRESHOLD
SET_MIN_RANK = _g.SET_MIN_RANK
VA_BENE, UGUALE, NON_BASTA, NESSUNO = _g.VA_BENE, _g.UGUALE, _g.NON_BASTA, _g.NESSUNO

#: suit value sum by 8-bit rank pattern (spec 4.2)
SUIT_VALUE = np.array(_g.SUIT_VALUE, dtype=np.int64)
#: per 8-bit pattern: popcount
POPCOUNT8 = np.array([bin(p).count("1") for p in range(256)], dtype=np.int64)
#: per 8-bit pattern: the best run of >= 3 as ``8 * length + top`` (0: none), the points of all
#: its runs, and the bits of all its runs (``RUNS`` of game.py)
RUN_BEST = np.array([max((8 * ln + top for ln, top, _ in _g.RUNS[p]), default=0) for p in range(256)], np.int64)
RUN_POINTS = np.array([sum(_g.SEQUENCE_POINTS[ln] for ln, _, _ in _g.RUNS[p]) for p in range(256)], np.int64)
RUN_BITS = np.array([sum(bits for _, _, bits in _g.RUNS[p]) for p in range(256)], np.int64)
#: set points by set size (3 trio, 4 quatorze)
SET_POINTS = np.array([_g.SET_POINTS.get(n, 0) for n in range(5)], dtype=np.int64)

# -- observation offsets and scales (from observation.py) -------------------------------------
O_HAND, O_DISCARDS, O_DRAWN, O_PEEKED = _o.O_HAND, _o.O_DISCARDS, _o.O_DRAWN, _o.O_PEEKED
O_PHASE, O_DEALER, O_BIANCO_HAND, O_BONUSES, O_PIQUE = _o.O_PHASE, _o.O_DEALER, _o.O_BIANCO_HAND, _o.O_BONUSES, _o.O_PIQUE
O_EXCHANGED, O_ANSWERS, O_POINT, O_SEQ, O_SETS = _o.O_EXCHANGED, _o.O_ANSWERS, _o.O_POINT, _o.O_SEQ, _o.O_SETS
O_DECL_POINTS, O_REVEALED, O_PLAYED, O_TRICK, O_LEADER = (
    _o.O_DECL_POINTS, _o.O_REVEALED, _o.O_PLAYED, _o.O_TRICK, _o.O_LEADER)
O_TRICK_NO, O_TRICKS, O_HAND_SCORE, O_GAME_SCORE, O_GAMES_WON = (
    _o.O_TRICK_NO, _o.O_TRICKS, _o.O_HAND_SCORE, _o.O_GAME_SCORE, _o.O_GAMES_WON)
O_GAME_NO, O_TARGET, O_LEFTOVER = _o.O_GAME_NO, _o.O_TARGET, _o.O_LEFTOVER
OBS_HIGH = float(_o.OBS_HIGH)
POINT_SCALE = float(_o.POINT_SCALE)
DECL_SCALE = float(_o.DECL_SCALE)
EXCHANGE_SCALE = float(_o.EXCHANGE_SCALE)
TRICK_SCALE = float(NUM_TRICKS)

# -- state columns ------------------------------------------------------------------------------
_names = [  # the columns of trick play first (they share two cache lines)
    "PHASE", "TO_ACT", "DEALER", "EPOCH", "LEADER", "LED", "TRICK_NO", "PRES", "PIQUE_BY", "GAME_NO",
    "PEND_WIN", "PEND_HAND",
    "HANDS", "_HANDS1", "PLAYED", "_PLAYED1", "TW", "_TW1", "HS", "_HS1", "GS", "_GS1", "TARGET",
    "GW", "_GW1", "DEALT", "_DEALT1", "TALON", *[f"_TALON{k}" for k in range(1, 8)],
    "DISC", "_DISC1", "ND", "_ND1", "DRAWN", "_DRAWN1", "PEEK", "_PEEK1", "LEFTOVER",
    "BIANCO", "_BIANCO1", "DECLARED", "ANS", "_ANS1", "_ANS2", "PP", "_PP1",
    "SEQ", "_SEQ1", "_SEQ2", "_SEQ3", "SET", "_SET1", "_SET2", "_SET3",
    "DP", *[f"_DP{k}" for k in range(1, 6)], "REV", "_REV1", "REPIQUE_BY", "HAND_NO", "DEALS",
]
COLUMNS = {n: k for k, n in enumerate(_names) if not n.startswith("_")}
NUM_COLUMNS = len(_names)
(PHASE, TO_ACT, DEALER, EPOCH, GAME_NO, TARGET, GW, GS, HANDS, DEALT, TALON, DISC, ND, DRAWN, PEEK,
 LEFTOVER, BIANCO, DECLARED, ANS, PP, SEQ, SET, DP, REV, HS, PRES, PIQUE_BY, REPIQUE_BY, LEADER, LED,
 TRICK_NO, TW, PLAYED, HAND_NO, DEALS, PEND_WIN, PEND_HAND) = (COLUMNS[n] for n in (
    "PHASE", "TO_ACT", "DEALER", "EPOCH", "GAME_NO", "TARGET", "GW", "GS", "HANDS", "DEALT", "TALON", "DISC",
    "ND", "DRAWN", "PEEK", "LEFTOVER", "BIANCO", "DECLARED", "ANS", "PP", "SEQ", "SET", "DP", "REV", "HS",
    "PRES", "PIQUE_BY", "REPIQUE_BY", "LEADER", "LED", "TRICK_NO", "TW", "PLAYED", "HAND_NO", "DEALS",
    "PEND_WIN", "PEND_HAND"))

# -- configuration (flags) ----------------------------------------------------------------------
(C_CLASSIC, C_MUST_HEAD, C_DEALER_MIN, C_BIANCO_REPIQUE, C_PIQUE_END, C_CAPOT_REPLACES, C_INCLUSIVE,
 C_GAME_TARGET, C_BELLA_TARGET, C_IMMEDIATE, C_SINGLE, C_EPISODE, C_REVEAL, C_PEEK, C_FIRST_DEALER, C_HOLD) = range(16)
NUM_CFG = 16
EPISODE_MATCH, EPISODE_GAME, EPISODE_HAND = 0, 1, 2
(F_OUTCOME, F_GAME_SCALE, F_BELLA_SCALE, F_GAME_TARGET_OBS, F_BELLA_TARGET_OBS) = range(5)
NUM_FCFG = 5
#: targets are compared as int64; larger ones (never reachable) are held as this
TARGET_CAP = 1 << 62


# =============================================================================================
# rules
# =============================================================================================


@nb.njit(cache=True, inline="always")
def _reached(score, target, inclusive):
    return score >= target if inclusive else score > target


# Every call of a numba function with array arguments costs two atomic reference-count
# operations per array (also when numba inlines it), so the frequent path of a step (discards,
# leads, follows, their scoring and pique, the observation and mask updates) is written out in
# `_step_kernel`, and the rule functions below, called a few times a hand, take the state
# (`st`, row `i`), the step's reward accumulator `rew` and the flags `cfg`. What needs the random
# stream (the next deal) or the float flags (the outcome reward) is left pending in the state,
# `PEND_WIN` (a game won) or `PEND_HAND` (the next hand), and done by `_settle` once the action's
# own effects are over: as in game.py, where every caller returns as soon as a scoring event
# ended the game.


@nb.njit(cache=True)
def _score(st, i, seat, pts, rew, cfg):
    """A scoring event (`_score` of game.py); True when it ends the game (`PEND_WIN` is then set)."""
    st[i, HS + seat] += pts
    st[i, GS + seat] += pts
    rew[seat] += pts
    rew[1 - seat] -= pts
    if cfg[C_IMMEDIATE] != 0 and _reached(st[i, GS + seat], st[i, TARGET], cfg[C_INCLUSIVE] != 0):
        st[i, PEND_WIN] = seat
        return True
    return False


@nb.njit(cache=True)
def _end_episode(st, i):
    st[i, PHASE] = OVER
    st[i, TO_ACT] = -1
    st[i, LED] = -1
    st[i, EPOCH] += 1


@nb.njit(cache=True)
def _close_game(st, i, winner, rew, cfg, fcfg):
    """GAME_OVER up to the next deal: True when a new game of the match starts."""
    outcome = fcfg[F_OUTCOME]
    if outcome != 0.0:
        rew[winner] += outcome
        rew[1 - winner] -= outcome
    st[i, GW + winner] += 1
    if cfg[C_SINGLE] != 0 or st[i, GW + winner] >= 2 or cfg[C_EPISODE] != EPISODE_MATCH:
        _end_episode(st, i)
        return False
    st[i, GAME_NO] += 1
    st[i, TARGET] = cfg[C_BELLA_TARGET] if st[i, GAME_NO] == 2 else cfg[C_GAME_TARGET]
    st[i, GS] = 0
    st[i, GS + 1] = 0
    return True


@nb.njit(cache=True)
def _start_hand(st, i, dealer, dealt0, dealt1):
    st[i, DEALER] = dealer
    st[i, HAND_NO] += 1
    st[i, EPOCH] += 1
    st[i, DEALT] = dealt0
    st[i, DEALT + 1] = dealt1
    st[i, HANDS] = dealt0
    st[i, HANDS + 1] = dealt1
    for p in range(2):
        st[i, DISC + p] = 0
        st[i, ND + p] = 0
        st[i, DRAWN + p] = 0
        st[i, PEEK + p] = 0
        st[i, BIANCO + p] = 0
        st[i, PP + p] = 0
        st[i, REV + p] = 0
        st[i, HS + p] = 0
        st[i, TW + p] = 0
        st[i, PLAYED + p] = 0
    for k in range(4):
        st[i, SEQ + k] = 0
        st[i, SET + k] = 0
    for k in range(6):
        st[i, DP + k] = 0
    for k in range(3):
        st[i, ANS + k] = -1
    st[i, LEFTOVER] = 0
    st[i, DECLARED] = 0
    st[i, PRES] = 0
    st[i, PIQUE_BY] = -1
    st[i, REPIQUE_BY] = -1
    st[i, LEADER] = 1 - dealer
    st[i, LED] = -1
    st[i, TRICK_NO] = 0
    st[i, PHASE] = ELDER_EXCHANGE
    st[i, TO_ACT] = 1 - dealer


@nb.njit(cache=True)
def _deal(st, i, rng, dealer, perm):
    """Shuffle and deal one hand (HAND_SETUP): the hand's fields start afresh."""
    for k in range(32):
        perm[k] = k
    for k in range(31, 0, -1):
        j = rand_below(rng, i, k + 1)
        t = perm[k]
        perm[k] = perm[j]
        perm[j] = t
    elder = 1 - dealer
    de = np.int64(0)
    dd = np.int64(0)
    for k in range(24):
        if k % 2 == 0:
            de |= np.int64(1) << perm[k]
        else:
            dd |= np.int64(1) << perm[k]
    st[i, DEALS] += 1
    _start_hand(st, i, dealer, de if elder == 0 else dd, dd if elder == 0 else de)
    for k in range(8):
        st[i, TALON + k] = perm[24 + k]


@nb.njit(cache=True)
def _new_hand(st, i, rng, dealer, rew, cfg, fcfg, perm):
    """Deal, then the elder's Bianco (E1), which may end the game: then the next game's deal."""
    while True:
        _deal(st, i, rng, dealer, perm)
        elder = 1 - dealer
        if st[i, DEALT + elder] & FACE_MASK == 0:
            st[i, BIANCO + elder] = 1
            if _score(st, i, elder, BIANCO_POINTS, rew, cfg):
                st[i, PEND_WIN] = -1
                if _close_game(st, i, elder, rew, cfg, fcfg):
                    dealer = 1 - dealer
                    continue
        return


@nb.njit(cache=True)
def _settle(st, i, rng, rew, cfg, fcfg, perm):
    """What an action left pending: the end of a game (then the next game's deal) or the next hand."""
    w = st[i, PEND_WIN]
    if w >= 0:
        st[i, PEND_WIN] = -1
        if _close_game(st, i, w, rew, cfg, fcfg):
            _new_hand(st, i, rng, 1 - st[i, DEALER], rew, cfg, fcfg, perm)
    elif st[i, PEND_HAND]:
        st[i, PEND_HAND] = 0
        _new_hand(st, i, rng, 1 - st[i, DEALER], rew, cfg, fcfg, perm)


@nb.njit(cache=True)
def _point_of(hand):
    """(value, cards, suit) of the best suit: value, then more cards, then the lowest suit."""
    bv = -1
    bn = 0
    bs = -1
    for su in range(4):
        p = (hand >> (8 * su)) & 0xFF
        if p:
            v = SUIT_VALUE[p]
            n = POPCOUNT8[p]
            if v > bv or (v == bv and n > bn):
                bv = v
                bn = n
                bs = su
    return bv, bn, bs


@nb.njit(cache=True)
def _sequences(hand):
    """(best as 8 * length + top or 0, points of all sequences, their cards)."""
    best = 0
    pts = 0
    bits = np.int64(0)
    for su in range(4):
        p = (hand >> (8 * su)) & 0xFF
        if RUN_BEST[p] > best:
            best = RUN_BEST[p]
        pts += RUN_POINTS[p]
        bits |= RUN_BITS[p] << (8 * su)
    return best, pts, bits


@nb.njit(cache=True)
def _sets(hand):
    """(best as 8 * size + rank or 0, points of all sets, their cards)."""
    best = 0
    pts = 0
    bits = np.int64(0)
    for r in range(SET_MIN_RANK, 8):
        m = hand & (np.int64(0x01010101) << r)
        n = ((m >> r) & 1) + ((m >> (r + 8)) & 1) + ((m >> (r + 16)) & 1) + ((m >> (r + 24)) & 1)
        if n >= 3:
            if 8 * n + r > best:
                best = 8 * n + r
            pts += SET_POINTS[n]
            bits |= m
    return best, pts, bits


@nb.njit(cache=True)
def _compare(e, d):
    """The dealer's answer; holdings as non-negative keys, 0 meaning none (point values are > 0)."""
    if e == 0 and d == 0:
        return NESSUNO
    if e > d:
        return VA_BENE
    if d > e:
        return NON_BASTA
    return UGUALE


@nb.njit(cache=True)
def _declare(st, i, rew, cfg):
    """E3 point, E4 sequences, E5 sets, E6 repique."""
    dealer = st[i, DEALER]
    elder = 1 - dealer
    he = st[i, HANDS + elder]
    hd = st[i, HANDS + dealer]
    st[i, DECLARED] = 1
    # E3 point (compared by value only)
    ve, ne, se = _point_of(he)
    vd, nd, sd = _point_of(hd)
    ans = _compare(ve, vd)
    st[i, ANS] = ans
    st[i, PP + elder] = ve
    st[i, PP + dealer] = vd if (ans == UGUALE or ans == NON_BASTA) else 0
    if ans == UGUALE:
        st[i, REV + elder] |= he & (np.int64(0xFF) << (8 * se))
        st[i, REV + dealer] |= hd & (np.int64(0xFF) << (8 * sd))
    else:
        w = elder if ans == VA_BENE else dealer
        pts = ne if ans == VA_BENE else nd
        ws = se if ans == VA_BENE else sd
        st[i, REV + w] |= st[i, HANDS + w] & (np.int64(0xFF) << (8 * ws))
        st[i, DP + 3 * w] = pts
        if _score(st, i, w, pts, rew, cfg):
            return
    # E4 sequences, E5 sets: the winner scores and shows all his holdings of the kind
    for d in range(1, 3):
        if d == 1:
            be, pe, me = _sequences(he)
            bd, pd, md = _sequences(hd)
            col = SEQ
        else:
            be, pe, me = _sets(he)
            bd, pd, md = _sets(hd)
            col = SET
        ans = _compare(be, bd)
        st[i, ANS + d] = ans
        if be:
            st[i, col + 2 * elder] = be >> 3
            st[i, col + 2 * elder + 1] = be & 7
        if bd and (ans == UGUALE or ans == NON_BASTA):
            st[i, col + 2 * dealer] = bd >> 3
            st[i, col + 2 * dealer + 1] = bd & 7
        if ans == VA_BENE or ans == NON_BASTA:
            w = elder if ans == VA_BENE else dealer
            pts = pe if ans == VA_BENE else pd
            st[i, REV + w] |= me if ans == VA_BENE else md
            st[i, DP + 3 * w + d] = pts
            if _score(st, i, w, pts, rew, cfg):
                return
    # E6 repique
    h0 = st[i, HS]
    h1 = st[i, HS + 1]
    if cfg[C_BIANCO_REPIQUE] == 0:
        if st[i, BIANCO]:
            h0 -= BIANCO_POINTS
        if st[i, BIANCO + 1]:
            h1 -= BIANCO_POINTS
    for k in range(2):
        p = elder if k == 0 else dealer
        mine = h0 if p == 0 else h1
        theirs = h1 if p == 0 else h0
        if mine >= PIQUE_THRESHOLD and theirs == 0:
            st[i, PRES] = 1
            st[i, REPIQUE_BY] = p
            _score(st, i, p, REPIQUE_POINTS, rew, cfg)
            return


@nb.njit(cache=True)
def _end_exchange(st, i, seat, rew, cfg):
    dealer = st[i, DEALER]
    elder = 1 - dealer
    if seat == elder:
        d = st[i, ND + elder]
        drawn = np.int64(0)
        for k in range(d):
            drawn |= np.int64(1) << st[i, TALON + k]
        st[i, DRAWN + elder] = drawn
        st[i, HANDS + elder] |= drawn
        if cfg[C_PEEK]:
            pk = np.int64(0)
            for k in range(d, FIRST_PACKET):
                pk |= np.int64(1) << st[i, TALON + k]
            st[i, PEEK + elder] = pk
        st[i, PHASE] = DEALER_EXCHANGE
        st[i, TO_ACT] = dealer
        if st[i, DEALT + dealer] & FACE_MASK == 0:  # E2: the dealer's Bianco
            st[i, BIANCO + dealer] = 1
            _score(st, i, dealer, BIANCO_POINTS, rew, cfg)
        return
    de = st[i, ND + elder]
    dd = st[i, ND + dealer]
    drawn = np.int64(0)
    for k in range(de, de + dd):
        drawn |= np.int64(1) << st[i, TALON + k]
    st[i, DRAWN + dealer] = drawn
    st[i, HANDS + dealer] |= drawn
    left = np.int64(0)
    for k in range(de + dd, TALON_SIZE):
        left |= np.int64(1) << st[i, TALON + k]
    st[i, LEFTOVER] = left
    if cfg[C_PEEK]:
        st[i, PEEK + dealer] = left
    st[i, PHASE] = TRICK_LEAD
    st[i, TO_ACT] = elder
    st[i, LEADER] = elder
    _declare(st, i, rew, cfg)


@nb.njit(cache=True)
def _end_hand(st, i, rew, cfg):
    """E19 cards / capot, then the end-of-hand target check and the next hand (left pending)."""
    t0 = st[i, TW]
    t1 = st[i, TW + 1]
    w = 0 if t0 > 6 else (1 if t1 > 6 else -1)
    if w >= 0:
        if st[i, TW + w] == NUM_TRICKS:
            if _score(st, i, w, CAPOT_POINTS, rew, cfg):
                return
            if cfg[C_CAPOT_REPLACES] == 0 and _score(st, i, w, CARDS_POINTS, rew, cfg):
                return
        elif _score(st, i, w, CARDS_POINTS, rew, cfg):
            return
        if cfg[C_PIQUE_END] != 0 and st[i, PRES] == 0 and st[i, HS + w] >= PIQUE_THRESHOLD and st[i, HS + 1 - w] == 0:
            st[i, PRES] = 1
            st[i, PIQUE_BY] = w
            if _score(st, i, w, PIQUE_POINTS, rew, cfg):
                return
    if cfg[C_IMMEDIATE] == 0:
        inc = cfg[C_INCLUSIVE] != 0
        g0 = st[i, GS]
        g1 = st[i, GS + 1]
        o0 = _reached(g0, st[i, TARGET], inc)
        o1 = _reached(g1, st[i, TARGET], inc)
        if o0 or o1:
            if o0 and o1:
                winner = 0 if g0 > g1 else (1 if g1 > g0 else -1)
            else:
                winner = 0 if o0 else 1
            if winner >= 0:
                st[i, PEND_WIN] = winner
                return
    if cfg[C_EPISODE] == EPISODE_HAND:
        _end_episode(st, i)
    else:
        st[i, PEND_HAND] = 1


@nb.njit(cache=True)
def _fresh_episode(st, i, rng, rew, cfg, fcfg, perm):
    """A new episode from the stream; one over at its deal is dealt again (it has no step)."""
    while True:
        st[i, GAME_NO] = 0
        st[i, TARGET] = cfg[C_GAME_TARGET]
        for p in range(2):
            st[i, GW + p] = 0
            st[i, GS + p] = 0
        st[i, HAND_NO] = 0
        st[i, PEND_WIN] = -1
        st[i, PEND_HAND] = 0
        rew[0] = 0.0
        rew[1] = 0.0
        dealer = cfg[C_FIRST_DEALER]
        if dealer < 0:
            dealer = rand_below(rng, i, 2)
        _new_hand(st, i, rng, dealer, rew, cfg, fcfg, perm)
        if st[i, PHASE] != OVER:
            return


# =============================================================================================
# observation buffer (mirrors PicchettoObserver) and mask
# =============================================================================================


#: de Bruijn table: the index of a single set bit of a 32-bit word
DEBRUIJN32 = np.array([0, 1, 28, 2, 29, 14, 24, 3, 30, 22, 20, 15, 25, 17, 4, 8,
                       31, 27, 13, 23, 21, 19, 16, 7, 26, 12, 18, 6, 11, 5, 10, 9], dtype=np.int64)


@nb.njit(cache=True, inline="always")
def _low_index(low):
    """Index of the single set bit of ``low`` (a power of two below 2**32)."""
    return DEBRUIJN32[((low * 0x077CB531) & 0xFFFFFFFF) >> 27]


@nb.njit(cache=True)
def _obs_full(buf, st, i, cfg, fcfg):
    """``PicchettoObserver.reset``: the whole absolute buffer from the state."""
    for k in range(buf.shape[1]):
        buf[i, k] = 0.0
    phase = st[i, PHASE]
    buf[i, O_PHASE + phase] = 1.0
    for p in range(2):
        rows = (
            (O_HAND + 32 * p, st[i, HANDS + p]), (O_DISCARDS + 32 * p, st[i, DISC + p]),
            (O_DRAWN + 32 * p, st[i, DRAWN + p]), (O_PEEKED + 32 * p, st[i, PEEK + p]),
            (O_PLAYED + 32 * p, st[i, PLAYED + p]), (O_REVEALED + 32 * p, st[i, REV + p]),
            (O_BIANCO_HAND + 32 * p, st[i, DEALT + p] if st[i, BIANCO + p] else np.int64(0)),
        )
        for off, cards in rows:  # the card sets (no calls: see _step_kernel)
            while cards:
                low = cards & -cards
                buf[i, off + _low_index(low)] = 1.0
                cards ^= low
        buf[i, O_EXCHANGED + p] = st[i, ND + p] / EXCHANGE_SCALE
        buf[i, O_TRICKS + p] = st[i, TW + p] / TRICK_SCALE
        buf[i, O_GAMES_WON + p] = st[i, GW + p] / 2.0
        if st[i, PIQUE_BY] == p:
            buf[i, O_PIQUE + p] = 1.0
        if st[i, BIANCO + p]:
            buf[i, O_BONUSES + 2 * p] = 1.0
    if st[i, DECLARED]:
        for d in range(3):
            if st[i, ANS + d] >= 0:
                buf[i, O_ANSWERS + 4 * d + st[i, ANS + d]] = 1.0
        for p in range(2):
            buf[i, O_POINT + p] = st[i, PP + p] / POINT_SCALE
            if st[i, SEQ + 2 * p]:
                buf[i, O_SEQ + 2 * p] = st[i, SEQ + 2 * p] / 8.0
                buf[i, O_SEQ + 2 * p + 1] = (st[i, SEQ + 2 * p + 1] + 1) / 8.0
            if st[i, SET + 2 * p]:
                buf[i, O_SETS + 2 * p] = st[i, SET + 2 * p] / 4.0
                buf[i, O_SETS + 2 * p + 1] = (st[i, SET + 2 * p + 1] + 1) / 8.0
            for d in range(3):
                buf[i, O_DECL_POINTS + 3 * p + d] = st[i, DP + 3 * p + d] / DECL_SCALE
            if st[i, REPIQUE_BY] == p:
                buf[i, O_BONUSES + 2 * p + 1] = 1.0
    scale = fcfg[F_BELLA_SCALE] if st[i, GAME_NO] == 2 else fcfg[F_GAME_SCALE]
    for p in range(2):
        buf[i, O_HAND_SCORE + p] = min(st[i, HS + p] * scale, OBS_HIGH)
        buf[i, O_GAME_SCORE + p] = min(st[i, GS + p] * scale, OBS_HIGH)
    buf[i, O_DEALER + st[i, DEALER]] = 1.0
    if st[i, LED] >= 0:
        buf[i, O_TRICK + st[i, LED]] = 1.0
    if phase == TRICK_LEAD or phase == TRICK_FOLLOW:
        buf[i, O_LEADER + st[i, LEADER]] = 1.0
    buf[i, O_TRICK_NO] = st[i, TRICK_NO] / TRICK_SCALE
    buf[i, O_GAME_NO + min(st[i, GAME_NO], 2)] = 1.0
    buf[i, O_TARGET] = fcfg[F_BELLA_TARGET_OBS] if st[i, GAME_NO] == 2 else fcfg[F_GAME_TARGET_OBS]
    if cfg[C_REVEAL]:
        cards = st[i, LEFTOVER]
        while cards:
            low = cards & -cards
            buf[i, O_LEFTOVER + _low_index(low)] = 1.0
            cards ^= low


@nb.njit(cache=True)
def _legal(phase, hand, led, nd, must_head, dealer_min):
    """``legal_mask`` of game.py from scalars: (cards, first action id of those cards, END_EXCHANGE legal).

    ``hand`` and ``nd`` are those of the seat to act; ``led`` the card led (trick follow).
    """
    if phase == TRICK_FOLLOW:
        same = hand & (np.int64(0xFF) << (8 * (led >> 3)))
        if same == 0:
            return hand, 0, False
        if must_head:
            higher = same & ~((np.int64(2) << led) - 1)
            if higher:
                return higher, 0, False
        return same, 0, False
    if phase == TRICK_LEAD:
        return hand, 0, False
    if phase == ELDER_EXCHANGE:
        return hand, DISCARD, nd > 0
    if phase == DEALER_EXCHANGE:
        return hand, DISCARD, nd >= dealer_min
    return np.int64(0), 0, False


@nb.njit(cache=True)
def _write_mask(mask, st, i, cfg):
    """The mask of the seat to act (outside the step kernel, which writes it itself)."""
    seat = st[i, TO_ACT]
    cards, base, end = _legal(st[i, PHASE], st[i, HANDS + seat], st[i, LED], st[i, ND + seat],
                              cfg[C_MUST_HEAD] != 0, cfg[C_DEALER_MIN])
    for a in range(mask.shape[1]):  # a plain loop: LLVM makes a few vector stores of it (a slice fill does not)
        mask[i, a] = 0
    while cards:
        low = cards & -cards
        mask[i, base + _low_index(low)] = 1
        cards ^= low
    if end:
        mask[i, END_EXCHANGE] = 1


# =============================================================================================
# kernels (one serial loop over the games)
# =============================================================================================


@nb.njit(cache=True)
def _deal_kernel(indices, st, pend, buf, mask, cur, rng, cfg, fcfg):
    perm = np.empty(32, dtype=np.int64)
    rew = np.zeros(2)
    for i in indices:
        _fresh_episode(st, i, rng, rew, cfg, fcfg, perm)
        pend[i, 0] = rew[0]
        pend[i, 1] = rew[1]
        _obs_full(buf, st, i, cfg, fcfg)
        cur[i] = st[i, TO_ACT]
        _write_mask(mask, st, i, cfg)


@nb.njit(cache=True, nogil=True)
def _step_kernel(actions, active, st, pend, buf, mask, rewards, terminated, cur, rng, cfg, fcfg):
    """One action per game with `active[i]`. The frequent path (discards, leads, follows with their trick points and
    pique, the observation and mask updates) is written out here: every call of a function with
    array arguments costs atomic reference counts, so only the rare events call out."""
    perm = np.empty(32, dtype=np.int64)
    rew = np.zeros(2)
    classic = cfg[C_CLASSIC] != 0
    immediate = cfg[C_IMMEDIATE] != 0
    inclusive = cfg[C_INCLUSIVE] != 0
    must_head = cfg[C_MUST_HEAD] != 0
    dealer_min = cfg[C_DEALER_MIN]
    hold = cfg[C_HOLD] != 0
    for i in range(actions.shape[0]):
        if not active[i]:
            continue
        a = actions[i]
        rew[0] = 0.0
        rew[1] = 0.0
        epoch = st[i, EPOCH]
        phase = st[i, PHASE]
        seat = st[i, TO_ACT]
        led = st[i, LED]
        full = False
        if phase == TRICK_LEAD or phase == TRICK_FOLLOW:  # a card played: _lead / _follow of game.py
            bit = np.int64(1) << a
            st[i, HANDS + seat] ^= bit
            st[i, PLAYED + seat] |= bit
            scorer = seat
            first = 0  # trick points of the (up to two) scoring events, each followed by the pique check
            second = 0
            last = False
            if phase == TRICK_LEAD:
                st[i, LED] = a
                st[i, PHASE] = TRICK_FOLLOW
                st[i, TO_ACT] = 1 - seat
                if classic:  # classic Piquet: +1 for leading
                    first = 1
            else:
                st[i, LED] = -1
                win = seat if ((a >> 3) == (led >> 3) and a > led) else 1 - seat
                st[i, TW + win] += 1
                st[i, TRICK_NO] += 1
                last = st[i, TRICK_NO] == NUM_TRICKS
                st[i, LEADER] = win
                st[i, TO_ACT] = win
                st[i, PHASE] = TRICK_LEAD
                scorer = win
                if classic:
                    if win == seat:
                        first = 1
                    if last:
                        if first:
                            second = 1
                        else:
                            first = 1
                else:
                    first = 2 if last else 1
            ended = False
            for pts in (first, second):
                if pts == 0:
                    break
                # _score
                st[i, HS + scorer] += pts
                st[i, GS + scorer] += pts
                rew[scorer] += pts
                rew[1 - scorer] -= pts
                if immediate and _reached(st[i, GS + scorer], st[i, TARGET], inclusive):
                    st[i, PEND_WIN] = scorer
                    ended = True
                    break
                # _pique
                if st[i, PRES] == 0 and st[i, HS + scorer] >= PIQUE_THRESHOLD and st[i, HS + 1 - scorer] == 0:
                    st[i, PRES] = 1
                    st[i, PIQUE_BY] = scorer
                    st[i, HS + scorer] += PIQUE_POINTS
                    st[i, GS + scorer] += PIQUE_POINTS
                    rew[scorer] += PIQUE_POINTS
                    rew[1 - scorer] -= PIQUE_POINTS
                    if immediate and _reached(st[i, GS + scorer], st[i, TARGET], inclusive):
                        st[i, PEND_WIN] = scorer
                        ended = True
                        break
            if last and not ended:
                _end_hand(st, i, rew, cfg)
        elif a == END_EXCHANGE:
            _end_exchange(st, i, seat, rew, cfg)
            full = True
        else:
            bit = np.int64(1) << (a - DISCARD)
            st[i, HANDS + seat] ^= bit
            st[i, DISC + seat] |= bit
            st[i, ND + seat] += 1
            elder = 1 - st[i, DEALER]
            limit = FIRST_PACKET if seat == elder else TALON_SIZE - st[i, ND + elder]
            if st[i, ND + seat] == limit:
                _end_exchange(st, i, seat, rew, cfg)
                full = True
        if st[i, PEND_WIN] >= 0 or st[i, PEND_HAND] != 0:
            _settle(st, i, rng, rew, cfg, fcfg, perm)
        # this step's rewards, then the deal's pending points (CardGameEnv.step's order)
        rewards[i, 0] = rew[0] + pend[i, 0]
        rewards[i, 1] = rew[1] + pend[i, 1]
        pend[i, 0] = 0.0
        pend[i, 1] = 0.0
        if st[i, PHASE] == OVER:
            terminated[i] = True
            if not hold:  # (held: the OVER state stays, its buffer rebuilt below as the AEC observer does)
                _fresh_episode(st, i, rng, rew, cfg, fcfg, perm)
                pend[i, 0] = rew[0]
                pend[i, 1] = rew[1]
            full = True
        elif st[i, EPOCH] != epoch:
            full = True
        if full:
            _obs_full(buf, st, i, cfg, fcfg)
        else:  # PicchettoObserver.update
            if phase == TRICK_FOLLOW:
                buf[i, O_HAND + 32 * seat + a] = 0.0
                buf[i, O_PLAYED + 32 * seat + a] = 1.0
                buf[i, O_TRICK + led] = 0.0
                w = st[i, LEADER]
                buf[i, O_LEADER + 1 - w] = 0.0
                buf[i, O_LEADER + w] = 1.0
                buf[i, O_TRICKS + w] = st[i, TW + w] / TRICK_SCALE
                buf[i, O_TRICK_NO] = st[i, TRICK_NO] / TRICK_SCALE
            elif phase == TRICK_LEAD:
                buf[i, O_HAND + 32 * seat + a] = 0.0
                buf[i, O_PLAYED + 32 * seat + a] = 1.0
                buf[i, O_TRICK + a] = 1.0
            else:  # a discard
                buf[i, O_HAND + 32 * seat + a - DISCARD] = 0.0
                buf[i, O_DISCARDS + 32 * seat + a - DISCARD] = 1.0
                buf[i, O_EXCHANGED + seat] = st[i, ND + seat] / EXCHANGE_SCALE
            if phase >= TRICK_LEAD:
                buf[i, O_PHASE + phase] = 0.0
                buf[i, O_PHASE + st[i, PHASE]] = 1.0
                scale = fcfg[F_BELLA_SCALE] if st[i, GAME_NO] == 2 else fcfg[F_GAME_SCALE]
                for p in range(2):
                    buf[i, O_HAND_SCORE + p] = min(st[i, HS + p] * scale, OBS_HIGH)
                    buf[i, O_GAME_SCORE + p] = min(st[i, GS + p] * scale, OBS_HIGH)
                if st[i, PIQUE_BY] >= 0:
                    buf[i, O_PIQUE + st[i, PIQUE_BY]] = 1.0
        # the mask of the seat to act (none when the game is held at its end: any seat then)
        to_act = st[i, TO_ACT]
        cur[i] = to_act if to_act >= 0 else 0
        cards, base, end = _legal(st[i, PHASE], st[i, HANDS + to_act], st[i, LED], st[i, ND + to_act],
                                  must_head, dealer_min)
        for k in range(NUM_ACTIONS):
            mask[i, k] = 0
        while cards:
            low = cards & -cards
            mask[i, base + _low_index(low)] = 1
            cards ^= low
        if end:
            mask[i, END_EXCHANGE] = 1


@nb.njit(cache=True)
def random_legal_actions(mask, rng, out):
    """A uniformly random legal action per game (the k-th legal id of its mask, k drawn by
    ``rand_below`` on the ``rng`` streams): the action choice of the tests and benchmarks."""
    for i in range(mask.shape[0]):
        bits = np.int64(0)  # actions 0..63 as a bitmask, 64 (END_EXCHANGE) apart
        for a in range(64):
            bits |= np.int64(mask[i, a]) << a
        n = 0
        x = bits
        while x:
            x &= x - 1
            n += 1
        k = rand_below(rng, i, n + mask[i, 64])
        if k == n:
            out[i] = 64
            continue
        for _ in range(k):
            bits &= bits - 1
        low = bits & -bits
        lo = low & 0xFFFFFFFF
        out[i] = _low_index(lo) if lo else 32 + _low_index((low >> 32) & 0xFFFFFFFF)
    return out


@nb.njit(cache=True, nogil=True)
def _privileged_kernel(seats, st, out):
    """The opponent's hand and discards, the undrawn talon and its order (envs/picchetto/privileged.py)."""
    for i in range(out.shape[0]):
        o = 1 - seats[i]
        write_cards(out, i, 0, st[i, HANDS + o], 32)
        write_cards(out, i, OFF_DISCARDS, st[i, DISC + o], 32)
        for j in range(OFF_TALON, OFF_TALON_ORDER + 32):
            out[i, j] = 0.0
        drawn = st[i, DRAWN] | st[i, DRAWN + 1]  # disjoint sets: the count is the talon position reached
        k = 0
        while drawn:
            drawn &= drawn - 1
            k += 1
        for j in range(k, TALON_SIZE):
            c = st[i, TALON + j]
            out[i, OFF_TALON + c] = 1.0
            out[i, OFF_TALON_ORDER + c] = (j + 1) / TALON_SIZE


# =============================================================================================
# the environment
# =============================================================================================


class PicchettoVectorEnv(VectorEnv):
    """Batched Picchetto over NumPy state arrays (see the module docstring); every flag is supported."""

    game_class = PicchettoGame
    observer_class = PicchettoObserver
    unsupported: dict[str, str] = {}
    privileged_size = PRIVILEGED_SIZE

    def _allocate(self, num_envs: int) -> dict[str, np.ndarray]:
        f = self.flags
        gt, bt = f["game_target"], f["bella_target"]
        cfg = np.zeros(NUM_CFG, dtype=np.int64)
        cfg[C_CLASSIC] = f["trick_scoring"] == "classic"
        cfg[C_MUST_HEAD] = bool(f["must_head_trick"])
        cfg[C_DEALER_MIN] = f["dealer_min_exchange"]
        cfg[C_BIANCO_REPIQUE] = bool(f["bianco_counts_for_repique"])
        cfg[C_PIQUE_END] = bool(f["pique_counts_end_bonuses"])
        cfg[C_CAPOT_REPLACES] = bool(f["capot_replaces_cards"])
        cfg[C_INCLUSIVE] = bool(f["target_inclusive"])
        cfg[C_GAME_TARGET] = min(gt, TARGET_CAP)
        cfg[C_BELLA_TARGET] = min(bt, TARGET_CAP)
        cfg[C_IMMEDIATE] = f["game_end_check"] == "immediate"
        cfg[C_SINGLE] = f["match_format"] == "single_game"
        cfg[C_EPISODE] = ("match", "game", "hand").index(f["episode"])
        cfg[C_REVEAL] = bool(f["reveal_leftover_talon"])
        cfg[C_PEEK] = bool(f["allow_peek"])
        cfg[C_FIRST_DEALER] = -1 if f["first_dealer"] == "random" else f["first_dealer"]
        cfg[C_HOLD] = not self.autoreset
        fcfg = np.zeros(NUM_FCFG, dtype=np.float64)
        fcfg[F_OUTCOME] = f["outcome_reward"]
        # the observer's own float expressions (PicchettoObserver.reset)
        fcfg[F_GAME_SCALE] = 1.0 / gt
        fcfg[F_BELLA_SCALE] = 1.0 / bt
        fcfg[F_GAME_TARGET_OBS] = min(gt / _o.TARGET_SCALE, _o.OBS_HIGH)
        fcfg[F_BELLA_TARGET_OBS] = min(bt / _o.TARGET_SCALE, _o.OBS_HIGH)
        self._cfg, self._fcfg = cfg, fcfg
        st = np.zeros((num_envs, NUM_COLUMNS), dtype=np.int64)
        st[:, PEND_WIN] = -1
        return {
            "st": st,
            "pend": np.zeros((num_envs, 2), dtype=np.float64),
        }

    def _deal(self, indices: np.ndarray) -> None:
        st = self.state["st"]
        _deal_kernel(np.ascontiguousarray(indices, dtype=np.int64), st, self.state["pend"], self.buf,
                     self.mask, self.current_player, self.rng, self._cfg, self._fcfg)

    def _load(self, i: int, state: Any) -> None:
        s = self.state["st"][i]
        s[:] = 0
        s[PHASE], s[TO_ACT], s[DEALER] = state.phase, state.to_act, state.dealer
        s[EPOCH] = state.epoch
        s[GAME_NO], s[TARGET] = state.game_no, min(state.target, TARGET_CAP)
        s[HAND_NO] = state.hand_no
        for p in range(2):
            s[GW + p], s[GS + p] = state.games_won[p], state.game_score[p]
            s[HANDS + p], s[DEALT + p] = state.hands[p], state.dealt[p]
            s[DISC + p], s[ND + p] = state.discards[p], state.ndisc[p]
            s[DRAWN + p], s[PEEK + p] = state.drawn[p], state.peeked[p]
            s[BIANCO + p] = bool(state.bianco[p])
            s[PP + p], s[REV + p], s[HS + p] = state.pub_point[p], state.revealed[p], state.hand_score[p]
            s[TW + p], s[PLAYED + p] = state.tricks_won[p], state.played[p]
            for col, pub in ((SEQ, state.pub_seq[p]), (SET, state.pub_set[p])):
                if pub is not None:
                    s[col + 2 * p], s[col + 2 * p + 1] = pub
            for d in range(3):
                s[DP + 3 * p + d] = state.decl_points[p][d]
        for k in range(TALON_SIZE):
            s[TALON + k] = state.talon[k]
        s[LEFTOVER] = state.leftover
        s[DECLARED] = state.decl is not None
        for d in range(3):
            s[ANS + d] = state.answers[d]
        s[PRES] = bool(state.pique_resolved)
        s[PIQUE_BY], s[REPIQUE_BY] = state.pique_by, state.repique_by
        s[LEADER], s[LED], s[TRICK_NO] = state.leader, state.led, state.trick_no
        s[DEALS] = 0
        s[PEND_WIN] = -1
        pend = self.state["pend"][i]
        pend[:] = state.rew if state.rew is not None else (0.0, 0.0)
        self.current_player[i] = state.to_act
        _write_mask(self.mask, self.state["st"], i, self._cfg)

    def _privileged(self, seats: np.ndarray, out: np.ndarray) -> None:
        _privileged_kernel(seats, self.state["st"], out)

    def _episode_result(self, i: int) -> dict[str, Any]:
        s = self.state["st"][i]
        scores, won = [int(s[GS]), int(s[GS + 1])], [int(s[GW]), int(s[GW + 1])]
        # the last game's winner reached its target (the higher score if both did); the match is won with it
        over = [self.game.reached(x, int(s[TARGET])) for x in scores]
        if over[0] and over[1]:
            winner = None if scores[0] == scores[1] else int(scores[1] > scores[0])
        else:
            winner = 0 if over[0] else (1 if over[1] else None)
        single = self.flags["match_format"] == "single_game"
        match_winner = winner if winner is not None and (single or won[winner] >= 2) else None
        return {"result_version": RESULT_VERSION, "games_won": won, "match_winner": match_winner, "scores": scores,
                "episode": self.flags["episode"]}

    def _step(self, actions: np.ndarray, active: np.ndarray | None = None) -> None:
        active = self._every_game if active is None else active
        self._run(_step_kernel, actions, active, self.state["st"], self.state["pend"], self.buf, self.mask, self.rewards,
                  self.terminated, self.current_player, self.rng, Shared(self._cfg), Shared(self._fcfg))

    def reset(self, seed: int | None = None, options: Any = None):
        """`VectorEnv.reset`; an explicit deal whose episode is over at the deal raises `DealError`.

        Such a deal (a Bianco at the deal carrying a player past the target when that ends the
        episode) has no step, so the batched engine cannot hold it; it is checked here, on the
        very states the base will build, before any game is changed.
        """
        if options is not None:
            setups = self._parse_options(options)
            if any(setup is not None for setup in setups):
                if seed is None:  # fresh entropy, drawn here so that the check sees the real deals
                    seed = int(np.random.SeedSequence().entropy)
                streams = seed_streams(seed, self.num_envs)
                for i, setup in enumerate(setups):
                    if setup is not None:
                        state = self.game.new_state(np.random.default_rng(int(streams[i])), setup)
                        if state.over:
                            raise DealError(
                                f"game {i}: {self.game.name}: this deal ends the episode before any action "
                                f"(a Bianco at the deal reaches the target): vector_env holds no episode "
                                f"without a step; use env() for it, or other scores, hands or seed")
        st = self.state["st"]
        st[:, DEALS] = 0  # deals counted from the (re)seeded streams; a later deal() continues them
        st[:, EPOCH] = 0
        return super().reset(seed, options)
