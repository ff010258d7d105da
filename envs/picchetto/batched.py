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
from envs.core.vector import VectorEnv, rand_below, seed_streams
from envs.picchetto import game as _g
from envs.picchetto import observation as _o
from envs.picchetto.game import PicchettoGame
from envs.picchetto.observation import PicchettoObserver

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
_names = [
    "PHASE", "TO_ACT", "DEALER", "EPOCH", "GAME_NO", "TARGET", "GW", "_GW1", "GS", "_GS1",
    "HANDS", "_HANDS1", "DEALT", "_DEALT1", "TALON", *[f"_TALON{k}" for k in range(1, 8)],
    "DISC", "_DISC1", "ND", "_ND1", "DRAWN", "_DRAWN1", "PEEK", "_PEEK1", "LEFTOVER",
    "BIANCO", "_BIANCO1", "DECLARED", "ANS", "_ANS1", "_ANS2", "PP", "_PP1",
    "SEQ", "_SEQ1", "_SEQ2", "_SEQ3", "SET", "_SET1", "_SET2", "_SET3",
    "DP", *[f"_DP{k}" for k in range(1, 6)], "REV", "_REV1", "HS", "_HS1",
    "PRES", "PIQUE_BY", "REPIQUE_BY", "LEADER", "LED", "TRICK_NO", "TW", "_TW1", "PLAYED", "_PLAYED1",
    "HAND_NO", "DEALS",
]
COLUMNS = {n: k for k, n in enumerate(_names) if not n.startswith("_")}
NUM_COLUMNS = len(_names)
(PHASE, TO_ACT, DEALER, EPOCH, GAME_NO, TARGET, GW, GS, HANDS, DEALT, TALON, DISC, ND, DRAWN, PEEK,
 LEFTOVER, BIANCO, DECLARED, ANS, PP, SEQ, SET, DP, REV, HS, PRES, PIQUE_BY, REPIQUE_BY, LEADER, LED,
 TRICK_NO, TW, PLAYED, HAND_NO, DEALS) = (COLUMNS[n] for n in (
    "PHASE", "TO_ACT", "DEALER", "EPOCH", "GAME_NO", "TARGET", "GW", "GS", "HANDS", "DEALT", "TALON", "DISC",
    "ND", "DRAWN", "PEEK", "LEFTOVER", "BIANCO", "DECLARED", "ANS", "PP", "SEQ", "SET", "DP", "REV", "HS",
    "PRES", "PIQUE_BY", "REPIQUE_BY", "LEADER", "LED", "TRICK_NO", "TW", "PLAYED", "HAND_NO", "DEALS"))

# -- configuration (flags) ----------------------------------------------------------------------
(C_CLASSIC, C_MUST_HEAD, C_DEALER_MIN, C_BIANCO_REPIQUE, C_PIQUE_END, C_CAPOT_REPLACES, C_INCLUSIVE,
 C_GAME_TARGET, C_BELLA_TARGET, C_IMMEDIATE, C_SINGLE, C_EPISODE, C_REVEAL, C_PEEK, C_FIRST_DEALER) = range(15)
NUM_CFG = 15
EPISODE_MATCH, EPISODE_GAME, EPISODE_HAND = 0, 1, 2
(F_OUTCOME, F_GAME_SCALE, F_BELLA_SCALE, F_GAME_TARGET_OBS, F_BELLA_TARGET_OBS) = range(5)
NUM_FCFG = 5
#: targets are compared as int64; larger ones (never reachable) are held as this
TARGET_CAP = 1 << 62


# =============================================================================================
# rules
# =============================================================================================


@nb.njit(cache=True)
def _reached(score, target, inclusive):
    return score >= target if inclusive else score > target


@nb.njit(cache=True)
def _score(s, seat, pts, rew, cfg):
    """A scoring event; True when it carries ``seat`` past the target (immediate check)."""
    s[HS + seat] += pts
    s[GS + seat] += pts
    rew[seat] += pts
    rew[1 - seat] -= pts
    return cfg[C_IMMEDIATE] != 0 and _reached(s[GS + seat], s[TARGET], cfg[C_INCLUSIVE] != 0)


@nb.njit(cache=True)
def _end_episode(s):
    s[PHASE] = OVER
    s[TO_ACT] = -1
    s[LED] = -1
    s[EPOCH] += 1


@nb.njit(cache=True)
def _close_game(s, winner, rew, cfg, fcfg):
    """GAME_OVER up to the next deal: True when a new game of the match starts."""
    outcome = fcfg[F_OUTCOME]
    if outcome != 0.0:
        rew[winner] += outcome
        rew[1 - winner] -= outcome
    s[GW + winner] += 1
    if cfg[C_SINGLE] != 0 or s[GW + winner] >= 2 or cfg[C_EPISODE] != EPISODE_MATCH:
        _end_episode(s)
        return False
    s[GAME_NO] += 1
    s[TARGET] = cfg[C_BELLA_TARGET] if s[GAME_NO] == 2 else cfg[C_GAME_TARGET]
    s[GS] = 0
    s[GS + 1] = 0
    return True


@nb.njit(cache=True)
def _deal(s, i, rng, dealer, perm):
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
    s[DEALS] += 1
    _start_hand(s, dealer, de if elder == 0 else dd, dd if elder == 0 else de)
    for k in range(8):
        s[TALON + k] = perm[24 + k]


@nb.njit(cache=True)
def _start_hand(s, dealer, dealt0, dealt1):
    s[DEALER] = dealer
    s[HAND_NO] += 1
    s[EPOCH] += 1
    s[DEALT] = dealt0
    s[DEALT + 1] = dealt1
    s[HANDS] = dealt0
    s[HANDS + 1] = dealt1
    for p in range(2):
        s[DISC + p] = 0
        s[ND + p] = 0
        s[DRAWN + p] = 0
        s[PEEK + p] = 0
        s[BIANCO + p] = 0
        s[PP + p] = 0
        s[REV + p] = 0
        s[HS + p] = 0
        s[TW + p] = 0
        s[PLAYED + p] = 0
    for k in range(4):
        s[SEQ + k] = 0
        s[SET + k] = 0
    for k in range(6):
        s[DP + k] = 0
    for k in range(3):
        s[ANS + k] = -1
    s[LEFTOVER] = 0
    s[DECLARED] = 0
    s[PRES] = 0
    s[PIQUE_BY] = -1
    s[REPIQUE_BY] = -1
    s[LEADER] = 1 - dealer
    s[LED] = -1
    s[TRICK_NO] = 0
    s[PHASE] = ELDER_EXCHANGE
    s[TO_ACT] = 1 - dealer


@nb.njit(cache=True)
def _new_hand(s, i, rng, dealer, rew, cfg, fcfg, perm):
    """Deal, then the elder's Bianco (E1), which may end the game: then the next game's deal."""
    while True:
        _deal(s, i, rng, dealer, perm)
        elder = 1 - dealer
        if s[DEALT + elder] & FACE_MASK == 0:
            s[BIANCO + elder] = 1
            if _score(s, elder, BIANCO_POINTS, rew, cfg):
                if _close_game(s, elder, rew, cfg, fcfg):
                    dealer = 1 - dealer
                    continue
        return


@nb.njit(cache=True)
def _score_go(s, i, rng, seat, pts, rew, cfg, fcfg, perm):
    """``_score`` of game.py: a scoring event, and GAME_OVER when it reaches the target."""
    if _score(s, seat, pts, rew, cfg):
        if _close_game(s, seat, rew, cfg, fcfg):
            _new_hand(s, i, rng, 1 - s[DEALER], rew, cfg, fcfg, perm)
        return True
    return False


@nb.njit(cache=True)
def _pique(s, i, rng, seat, rew, cfg, fcfg, perm):
    if s[HS + seat] >= PIQUE_THRESHOLD and s[HS + 1 - seat] == 0:
        s[PRES] = 1
        s[PIQUE_BY] = seat
        return _score_go(s, i, rng, seat, PIQUE_POINTS, rew, cfg, fcfg, perm)
    return False


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
def _declare(s, i, rng, rew, cfg, fcfg, perm):
    """E3 point, E4 sequences, E5 sets, E6 repique."""
    dealer = s[DEALER]
    elder = 1 - dealer
    he = s[HANDS + elder]
    hd = s[HANDS + dealer]
    s[DECLARED] = 1
    # E3 point (compared by value only)
    ve, ne, se = _point_of(he)
    vd, nd, sd = _point_of(hd)
    ans = _compare(ve, vd)
    s[ANS] = ans
    s[PP + elder] = ve
    s[PP + dealer] = vd if (ans == UGUALE or ans == NON_BASTA) else 0
    if ans == UGUALE:
        s[REV + elder] |= he & (np.int64(0xFF) << (8 * se))
        s[REV + dealer] |= hd & (np.int64(0xFF) << (8 * sd))
    else:
        w = elder if ans == VA_BENE else dealer
        pts = ne if ans == VA_BENE else nd
        ws = se if ans == VA_BENE else sd
        s[REV + w] |= s[HANDS + w] & (np.int64(0xFF) << (8 * ws))
        s[DP + 3 * w] = pts
        if _score_go(s, i, rng, w, pts, rew, cfg, fcfg, perm):
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
        s[ANS + d] = ans
        if be:
            s[col + 2 * elder] = be >> 3
            s[col + 2 * elder + 1] = be & 7
        if bd and (ans == UGUALE or ans == NON_BASTA):
            s[col + 2 * dealer] = bd >> 3
            s[col + 2 * dealer + 1] = bd & 7
        if ans == VA_BENE or ans == NON_BASTA:
            w = elder if ans == VA_BENE else dealer
            pts = pe if ans == VA_BENE else pd
            s[REV + w] |= me if ans == VA_BENE else md
            s[DP + 3 * w + d] = pts
            if _score_go(s, i, rng, w, pts, rew, cfg, fcfg, perm):
                return
    # E6 repique
    h0 = s[HS]
    h1 = s[HS + 1]
    if cfg[C_BIANCO_REPIQUE] == 0:
        if s[BIANCO]:
            h0 -= BIANCO_POINTS
        if s[BIANCO + 1]:
            h1 -= BIANCO_POINTS
    for k in range(2):
        p = elder if k == 0 else dealer
        mine = h0 if p == 0 else h1
        theirs = h1 if p == 0 else h0
        if mine >= PIQUE_THRESHOLD and theirs == 0:
            s[PRES] = 1
            s[REPIQUE_BY] = p
            _score_go(s, i, rng, p, REPIQUE_POINTS, rew, cfg, fcfg, perm)
            return


@nb.njit(cache=True)
def _end_exchange(s, i, rng, seat, rew, cfg, fcfg, perm):
    dealer = s[DEALER]
    elder = 1 - dealer
    if seat == elder:
        d = s[ND + elder]
        drawn = np.int64(0)
        for k in range(d):
            drawn |= np.int64(1) << s[TALON + k]
        s[DRAWN + elder] = drawn
        s[HANDS + elder] |= drawn
        if cfg[C_PEEK]:
            pk = np.int64(0)
            for k in range(d, FIRST_PACKET):
                pk |= np.int64(1) << s[TALON + k]
            s[PEEK + elder] = pk
        s[PHASE] = DEALER_EXCHANGE
        s[TO_ACT] = dealer
        if s[DEALT + dealer] & FACE_MASK == 0:  # E2: the dealer's Bianco
            s[BIANCO + dealer] = 1
            _score_go(s, i, rng, dealer, BIANCO_POINTS, rew, cfg, fcfg, perm)
        return
    de = s[ND + elder]
    dd = s[ND + dealer]
    drawn = np.int64(0)
    for k in range(de, de + dd):
        drawn |= np.int64(1) << s[TALON + k]
    s[DRAWN + dealer] = drawn
    s[HANDS + dealer] |= drawn
    left = np.int64(0)
    for k in range(de + dd, TALON_SIZE):
        left |= np.int64(1) << s[TALON + k]
    s[LEFTOVER] = left
    if cfg[C_PEEK]:
        s[PEEK + dealer] = left
    s[PHASE] = TRICK_LEAD
    s[TO_ACT] = elder
    s[LEADER] = elder
    _declare(s, i, rng, rew, cfg, fcfg, perm)


@nb.njit(cache=True)
def _end_hand(s, i, rng, rew, cfg, fcfg, perm):
    """E19 cards / capot, then the end-of-hand target check and the next hand."""
    t0 = s[TW]
    t1 = s[TW + 1]
    w = 0 if t0 > 6 else (1 if t1 > 6 else -1)
    if w >= 0:
        if s[TW + w] == NUM_TRICKS:
            if _score_go(s, i, rng, w, CAPOT_POINTS, rew, cfg, fcfg, perm):
                return
            if cfg[C_CAPOT_REPLACES] == 0 and _score_go(s, i, rng, w, CARDS_POINTS, rew, cfg, fcfg, perm):
                return
        elif _score_go(s, i, rng, w, CARDS_POINTS, rew, cfg, fcfg, perm):
            return
        if cfg[C_PIQUE_END] != 0 and s[PRES] == 0 and _pique(s, i, rng, w, rew, cfg, fcfg, perm):
            return
    if cfg[C_IMMEDIATE] == 0:
        inc = cfg[C_INCLUSIVE] != 0
        g0 = s[GS]
        g1 = s[GS + 1]
        o0 = _reached(g0, s[TARGET], inc)
        o1 = _reached(g1, s[TARGET], inc)
        if o0 or o1:
            if o0 and o1:
                winner = 0 if g0 > g1 else (1 if g1 > g0 else -1)
            else:
                winner = 0 if o0 else 1
            if winner >= 0:
                if _close_game(s, winner, rew, cfg, fcfg):
                    _new_hand(s, i, rng, 1 - s[DEALER], rew, cfg, fcfg, perm)
                return
    if cfg[C_EPISODE] == EPISODE_HAND:
        _end_episode(s)
    else:
        _new_hand(s, i, rng, 1 - s[DEALER], rew, cfg, fcfg, perm)


@nb.njit(cache=True)
def _lead(s, i, rng, seat, card, rew, cfg, fcfg, perm):
    bit = np.int64(1) << card
    s[HANDS + seat] ^= bit
    s[PLAYED + seat] |= bit
    s[LED] = card
    s[PHASE] = TRICK_FOLLOW
    s[TO_ACT] = 1 - seat
    if cfg[C_CLASSIC]:  # classic Piquet: +1 for leading
        if _score_go(s, i, rng, seat, 1, rew, cfg, fcfg, perm):
            return
        if s[PRES] == 0:
            _pique(s, i, rng, seat, rew, cfg, fcfg, perm)


@nb.njit(cache=True)
def _follow(s, i, rng, seat, card, rew, cfg, fcfg, perm):
    bit = np.int64(1) << card
    s[HANDS + seat] ^= bit
    s[PLAYED + seat] |= bit
    led = s[LED]
    s[LED] = -1
    win = seat if ((card >> 3) == (led >> 3) and card > led) else 1 - seat
    s[TW + win] += 1
    s[TRICK_NO] += 1
    last = s[TRICK_NO] == NUM_TRICKS
    s[LEADER] = win
    s[TO_ACT] = win
    s[PHASE] = TRICK_LEAD
    if cfg[C_CLASSIC]:
        if win == seat:
            if _score_go(s, i, rng, win, 1, rew, cfg, fcfg, perm):
                return
            if s[PRES] == 0 and _pique(s, i, rng, win, rew, cfg, fcfg, perm):
                return
        if last:
            if _score_go(s, i, rng, win, 1, rew, cfg, fcfg, perm):
                return
            if s[PRES] == 0 and _pique(s, i, rng, win, rew, cfg, fcfg, perm):
                return
    else:
        if _score_go(s, i, rng, win, 2 if last else 1, rew, cfg, fcfg, perm):
            return
        if s[PRES] == 0 and _pique(s, i, rng, win, rew, cfg, fcfg, perm):
            return
    if last:
        _end_hand(s, i, rng, rew, cfg, fcfg, perm)


@nb.njit(cache=True)
def _fresh_episode(s, i, rng, rew, cfg, fcfg, perm):
    """A new episode from the stream; one over at its deal is dealt again (it has no step)."""
    while True:
        s[GAME_NO] = 0
        s[TARGET] = cfg[C_GAME_TARGET]
        for p in range(2):
            s[GW + p] = 0
            s[GS + p] = 0
        s[HAND_NO] = 0
        rew[0] = 0.0
        rew[1] = 0.0
        dealer = cfg[C_FIRST_DEALER]
        if dealer < 0:
            dealer = rand_below(rng, i, 2)
        _new_hand(s, i, rng, dealer, rew, cfg, fcfg, perm)
        if s[PHASE] != OVER:
            return


# =============================================================================================
# observation buffer (mirrors PicchettoObserver) and mask
# =============================================================================================


@nb.njit(cache=True)
def _bits(b, off, mask):
    for c in range(32):
        if (mask >> c) & 1:
            b[off + c] = 1.0


@nb.njit(cache=True)
def _write_scores(b, s, fcfg):
    scale = fcfg[F_BELLA_SCALE] if s[GAME_NO] == 2 else fcfg[F_GAME_SCALE]
    for p in range(2):
        b[O_HAND_SCORE + p] = min(s[HS + p] * scale, OBS_HIGH)
        b[O_GAME_SCORE + p] = min(s[GS + p] * scale, OBS_HIGH)


@nb.njit(cache=True)
def _obs_full(b, s, cfg, fcfg):
    """``PicchettoObserver.reset``: the whole absolute buffer from the state."""
    b[:] = 0.0
    phase = s[PHASE]
    b[O_PHASE + phase] = 1.0
    for p in range(2):
        _bits(b, O_HAND + 32 * p, s[HANDS + p])
        _bits(b, O_DISCARDS + 32 * p, s[DISC + p])
        _bits(b, O_DRAWN + 32 * p, s[DRAWN + p])
        _bits(b, O_PEEKED + 32 * p, s[PEEK + p])
        _bits(b, O_PLAYED + 32 * p, s[PLAYED + p])
        b[O_EXCHANGED + p] = s[ND + p] / EXCHANGE_SCALE
        b[O_TRICKS + p] = s[TW + p] / TRICK_SCALE
        b[O_GAMES_WON + p] = s[GW + p] / 2.0
        if s[PIQUE_BY] == p:
            b[O_PIQUE + p] = 1.0
        if s[BIANCO + p]:
            b[O_BONUSES + 2 * p] = 1.0
            _bits(b, O_BIANCO_HAND + 32 * p, s[DEALT + p])
    if s[DECLARED]:
        for d in range(3):
            if s[ANS + d] >= 0:
                b[O_ANSWERS + 4 * d + s[ANS + d]] = 1.0
        for p in range(2):
            _bits(b, O_REVEALED + 32 * p, s[REV + p])
            b[O_POINT + p] = s[PP + p] / POINT_SCALE
            if s[SEQ + 2 * p]:
                b[O_SEQ + 2 * p] = s[SEQ + 2 * p] / 8.0
                b[O_SEQ + 2 * p + 1] = (s[SEQ + 2 * p + 1] + 1) / 8.0
            if s[SET + 2 * p]:
                b[O_SETS + 2 * p] = s[SET + 2 * p] / 4.0
                b[O_SETS + 2 * p + 1] = (s[SET + 2 * p + 1] + 1) / 8.0
            for d in range(3):
                b[O_DECL_POINTS + 3 * p + d] = s[DP + 3 * p + d] / DECL_SCALE
            if s[REPIQUE_BY] == p:
                b[O_BONUSES + 2 * p + 1] = 1.0
    _write_scores(b, s, fcfg)
    b[O_DEALER + s[DEALER]] = 1.0
    if s[LED] >= 0:
        b[O_TRICK + s[LED]] = 1.0
    if phase == TRICK_LEAD or phase == TRICK_FOLLOW:
        b[O_LEADER + s[LEADER]] = 1.0
    b[O_TRICK_NO] = s[TRICK_NO] / TRICK_SCALE
    b[O_GAME_NO + min(s[GAME_NO], 2)] = 1.0
    b[O_TARGET] = fcfg[F_BELLA_TARGET_OBS] if s[GAME_NO] == 2 else fcfg[F_GAME_TARGET_OBS]
    if cfg[C_REVEAL]:
        _bits(b, O_LEFTOVER, s[LEFTOVER])


@nb.njit(cache=True)
def _legal(s, cfg):
    """The legal action bitmask of the seat to act (``legal_mask`` of game.py), as (low 64, bit 64)."""
    phase = s[PHASE]
    if phase == TRICK_FOLLOW:
        hand = s[HANDS + s[TO_ACT]]
        led = s[LED]
        suit = np.int64(0xFF) << (8 * (led >> 3))
        same = hand & suit
        if same == 0:
            return hand, False
        if cfg[C_MUST_HEAD]:
            higher = same & ~((np.int64(2) << led) - 1)
            if higher:
                return higher, False
        return same, False
    if phase == TRICK_LEAD:
        return s[HANDS + s[TO_ACT]], False
    if phase == ELDER_EXCHANGE:
        return s[HANDS + 1 - s[DEALER]] << DISCARD, s[ND + 1 - s[DEALER]] > 0
    if phase == DEALER_EXCHANGE:
        return s[HANDS + s[DEALER]] << DISCARD, s[ND + s[DEALER]] >= cfg[C_DEALER_MIN]
    return np.int64(0), False


@nb.njit(cache=True)
def _write_mask(m, s, cfg):
    low, end = _legal(s, cfg)
    for a in range(64):
        m[a] = (low >> a) & 1
    m[END_EXCHANGE] = 1 if end else 0


# =============================================================================================
# kernels (one serial loop over the games)
# =============================================================================================


@nb.njit(cache=True)
def _deal_kernel(indices, st, pend, buf, mask, cur, rng, cfg, fcfg):
    perm = np.empty(32, dtype=np.int64)
    rew = np.zeros(2)
    for i in indices:
        s = st[i]
        _fresh_episode(s, i, rng, rew, cfg, fcfg, perm)
        pend[i, 0] = rew[0]
        pend[i, 1] = rew[1]
        _obs_full(buf[i], s, cfg, fcfg)
        cur[i] = s[TO_ACT]
        _write_mask(mask[i], s, cfg)


@nb.njit(cache=True)
def _step_kernel(actions, st, pend, buf, mask, rewards, terminated, cur, rng, cfg, fcfg):
    perm = np.empty(32, dtype=np.int64)
    rew = np.zeros(2)
    for i in range(actions.shape[0]):
        s = st[i]
        b = buf[i]
        a = actions[i]
        rew[0] = 0.0
        rew[1] = 0.0
        epoch = s[EPOCH]
        phase = s[PHASE]
        seat = s[TO_ACT]
        full = False
        if phase == TRICK_FOLLOW:
            led = s[LED]
            _follow(s, i, rng, seat, a, rew, cfg, fcfg, perm)
            if s[EPOCH] == epoch:
                b[O_HAND + 32 * seat + a] = 0.0
                b[O_PLAYED + 32 * seat + a] = 1.0
                b[O_TRICK + led] = 0.0
                w = s[LEADER]
                b[O_LEADER + 1 - w] = 0.0
                b[O_LEADER + w] = 1.0
                b[O_TRICKS + w] = s[TW + w] / TRICK_SCALE
                b[O_TRICK_NO] = s[TRICK_NO] / TRICK_SCALE
        elif phase == TRICK_LEAD:
            _lead(s, i, rng, seat, a, rew, cfg, fcfg, perm)
            if s[EPOCH] == epoch:
                b[O_HAND + 32 * seat + a] = 0.0
                b[O_PLAYED + 32 * seat + a] = 1.0
                b[O_TRICK + a] = 1.0
        elif a == END_EXCHANGE:
            _end_exchange(s, i, rng, seat, rew, cfg, fcfg, perm)
            full = True
        else:
            c = a - DISCARD
            bit = np.int64(1) << c
            s[HANDS + seat] ^= bit
            s[DISC + seat] |= bit
            s[ND + seat] += 1
            elder = 1 - s[DEALER]
            limit = FIRST_PACKET if seat == elder else TALON_SIZE - s[ND + elder]
            if s[ND + seat] == limit:
                _end_exchange(s, i, rng, seat, rew, cfg, fcfg, perm)
                full = True
            else:
                b[O_HAND + 32 * seat + c] = 0.0
                b[O_DISCARDS + 32 * seat + c] = 1.0
                b[O_EXCHANGED + seat] = s[ND + seat] / EXCHANGE_SCALE
        # this step's rewards, then the deal's pending points (CardGameEnv.step's order)
        rewards[i, 0] = rew[0] + pend[i, 0]
        rewards[i, 1] = rew[1] + pend[i, 1]
        pend[i, 0] = 0.0
        pend[i, 1] = 0.0
        if s[PHASE] == OVER:
            terminated[i] = True
            _fresh_episode(s, i, rng, rew, cfg, fcfg, perm)
            pend[i, 0] = rew[0]
            pend[i, 1] = rew[1]
            full = True
        elif s[EPOCH] != epoch:
            full = True
        if full:
            _obs_full(b, s, cfg, fcfg)
        elif phase >= TRICK_LEAD:
            nphase = s[PHASE]
            b[O_PHASE + phase] = 0.0
            b[O_PHASE + nphase] = 1.0
            _write_scores(b, s, fcfg)
            if s[PIQUE_BY] >= 0:
                b[O_PIQUE + s[PIQUE_BY]] = 1.0
        cur[i] = s[TO_ACT]
        _write_mask(mask[i], s, cfg)


@nb.njit(cache=True)
def random_legal_actions(mask, rng, out):
    """A uniformly random legal action per game (from its mask), drawn on the ``rng`` streams."""
    for i in range(mask.shape[0]):
        m = mask[i]
        n = 0
        for a in range(m.shape[0]):
            n += m[a]
        k = rand_below(rng, i, n)
        for a in range(m.shape[0]):
            if m[a]:
                if k == 0:
                    out[i] = a
                    break
                k -= 1
    return out


# =============================================================================================
# the environment
# =============================================================================================


class PicchettoVectorEnv(VectorEnv):
    """Batched Picchetto over NumPy state arrays (see the module docstring); every flag is supported."""

    game_class = PicchettoGame
    observer_class = PicchettoObserver
    unsupported: dict[str, str] = {}

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
        fcfg = np.zeros(NUM_FCFG, dtype=np.float64)
        fcfg[F_OUTCOME] = f["outcome_reward"]
        # the observer's own float expressions (PicchettoObserver.reset)
        fcfg[F_GAME_SCALE] = 1.0 / gt
        fcfg[F_BELLA_SCALE] = 1.0 / bt
        fcfg[F_GAME_TARGET_OBS] = min(gt / _o.TARGET_SCALE, _o.OBS_HIGH)
        fcfg[F_BELLA_TARGET_OBS] = min(bt / _o.TARGET_SCALE, _o.OBS_HIGH)
        self._cfg, self._fcfg = cfg, fcfg
        return {
            "st": np.zeros((num_envs, NUM_COLUMNS), dtype=np.int64),
            "pend": np.zeros((num_envs, 2), dtype=np.float64),
        }

    def _deal(self, indices: np.ndarray) -> None:
        st = self.state["st"]
        st[indices, DEALS] = 0
        st[indices, EPOCH] = 0
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
        pend = self.state["pend"][i]
        pend[:] = state.rew if state.rew is not None else (0.0, 0.0)
        self.current_player[i] = state.to_act
        _write_mask(self.mask[i], s, self._cfg)

    def _step(self, actions: np.ndarray) -> None:
        _step_kernel(actions, self.state["st"], self.state["pend"], self.buf, self.mask, self.rewards,
                     self.terminated, self.current_player, self.rng, self._cfg, self._fcfg)

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
        return super().reset(seed, options)
