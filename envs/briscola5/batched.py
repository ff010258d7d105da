"""Briscola in cinque: the batched engine (many games in NumPy arrays, stepped by numba).

`Briscola5VectorEnv` is what `envs.briscola5_v0.vector_env(num_envs, **flags)` returns; the
API (`reset`, `step`, `observe`, `get_state`/`set_state`) is `envs.core.vector.VectorEnv`'s.
The kernels below play exactly the rules of `envs/briscola5/game.py` (forfeit check, auction,
call, eight tricks, credits, void hands, the match and its truncation) and keep `buf[i]` equal
to the AEC observer's absolute buffer, so the gathered observations are the AEC env's bytes;
`tests/envs/test_briscola5_batched.py` checks both against the AEC env step by step.

State (`self.state`: named views of four packed arrays, so that the kernels take few
arguments; first axis the game index; seats and cards are ints, card sets int64 bitmasks with
bit `c` for card `c`; -1 where a seat or card does not exist yet):

| name | packed in | shape | meaning |
|---|---|---|---|
| `phase` | `G` int32 | `(B,)` | FORFEIT_CHECK, AUCTION, CALL_CARD, TRICK_PLAY (game.py's ints); OVER for a game held at its end (`autoreset=False`) |
| `dealer` | `G` | `(B,)` | dealer of the hand in progress |
| `hand_no` | `G` | `(B,)` | hands dealt in this episode (1 for the first) |
| `hands_played` | `G` | `(B,)` | hands counted toward `num_hands` (void ones only if `void_hands_count`) |
| `consecutive_void` | `G` | `(B,)` | void hands in a row (truncation after 100 when void hands do not count) |
| `forfeit_pending` | `G` | `(B,)` | seats (bits) with a 0-point hand still to answer the forfeit check |
| `forfeit_declined` | `G` | `(B,)` | seats (bits) that answered NO_FORFEIT |
| `passed` | `G` | `(B,)` | seats (bits) that passed in the auction |
| `high`, `high_bidder` | `G` | `(B,)` | highest bid (0 before the first) and its seat |
| `caller`, `contract` | `G` | `(B,)` | auction winner and contract |
| `called`, `trump`, `partner` | `G` | `(B,)` | called card, its suit, its holder |
| `revealed` | `G` | `(B,)` | the called card has been played |
| `leader` | `G` | `(B,)` | leader of the trick in progress |
| `trick_len`, `trick_no` | `G` | `(B,)` | cards on the table; tricks completed in this hand |
| `trick` | `P` int32 | `(B, 5)` | cards of the trick in progress, in play order |
| `points`, `tricks_won` | `P` | `(B, 5)` | card points and tricks each seat took this hand |
| `scores` | `P` | `(B, 5)` | the classifica (sum of credits this episode) |
| `hands` | `H` int64 | `(B, 5)` | cards each seat holds now |
| `dealt` | `H` | `(B, 5)` | cards each seat was dealt in this hand |
| `perm` | int8 | `(B, 40)` | the shuffle of this hand: position k went to seat (dealer + 1 + k) % 5 |

The privileged vector (`privileged(seats)`, for a critic in training only; the reference is
`envs/briscola5/privileged.py`), seat-relative, float32 `(160,)`:

| slice | meaning |
|---|---|
| `[40 (k - 1), 40 k)`, k = 1..4 | the current hand of seat `(seat + k) % 5`: 1.0 per card id held |

Nothing else is hidden (no talon; the partner is the holder of the called card).

The seat to act is the base's `current_player`. The observation facts that only the buffer
needs (bids, who played which card in which trick) live in `buf` alone, written by the same
incremental rules as `Briscola5Observer.update`; a hand is rebuilt like `Briscola5Observer.reset`.

Randomness (`rand_below` on each game's xorshift stream): a random first dealer when the flag
says so, then a Fisher-Yates shuffle of the 40 cards for every hand (B3: position k goes to seat
`(dealer + 1 + k) % 5`), the same order as the AEC engine draws them from its generator.
"""

from __future__ import annotations

from typing import Any

import numba as nb
import numpy as np

from envs.briscola5 import game as _game
from envs.briscola5.game import (
    AUCTION,
    BID,
    BID_MIN,
    CALL,
    CALL_CARD,
    FORFEIT,
    FORFEIT_CHECK,
    MAX_CONSECUTIVE_VOID,
    NUM_ACTIONS,
    NUM_PLAYERS,
    NUM_TRICKS,
    OVER,
    PASS,
    POINTS,
    STRENGTH,
    TOTAL_POINTS,
    TRICK_PLAY,
    Briscola5Game,
)
from envs.briscola5.observation import (
    LAYOUT,
    O_BIDS,
    O_CALLED,
    O_CALLER,
    O_CONTRACT,
    O_DEALER,
    O_DECLINED,
    O_HAND,
    O_HIGH,
    O_HIGH_BIDDER,
    O_HOLDS,
    O_LEADER,
    O_LEFT,
    O_PARTNER,
    O_PASSED,
    O_PHASE,
    O_PLAYED_BY,
    O_PLAYED_IN,
    O_POINTS,
    O_REVEALED,
    O_SCORES,
    O_TRICK,
    O_TRICKS,
    O_TRUMP,
    Briscola5Observer,
)
from envs.briscola5.privileged import PRIVILEGED_SIZE
from envs.core.game import RESULT_VERSION
from envs.core.vector import Shared, VectorEnv, gather_one, rand_below, write_cards

__all__ = ["Briscola5VectorEnv"]

N = NUM_PLAYERS
NUM_CARDS = _game.DECK.size
NUM_RANKS = _game.DECK.num_ranks
_STRENGTH = np.array(STRENGTH, dtype=np.int8)
_POINTS = np.array(POINTS, dtype=np.int8)


# Flat offsets of the observer's fields in its absolute buffer (private fields: one row per seat).
HAND_ROW = LAYOUT.fields["hand"].size  # 40: one private row per seat
HOLDS_ROW = LAYOUT.fields["holds_called"].size  # 1
BIDS_ROW = LAYOUT.fields["bids"].shape[1]  # 60

#: Per-game scalars: the columns of `G`.
G_FIELDS = (
    "phase", "dealer", "hand_no", "hands_played", "consecutive_void", "forfeit_pending", "forfeit_declined",
    "passed", "high", "high_bidder", "caller", "contract", "called", "trump", "partner", "revealed", "leader",
    "trick_len", "trick_no",
)
(PHASE, DEALER, HAND_NO, HANDS_PLAYED, CONSEC_VOID, F_PENDING, F_DECLINED, PASSED, HIGH, HIGH_BIDDER, CALLER,
 CONTRACT, CALLED, TRUMP, PARTNER, REVEALED, LEADER, TRICK_LEN, TRICK_NO) = range(len(G_FIELDS))
#: Per-seat rows of `P` (int32) and `H` (int64 card sets).
P_FIELDS = ("trick", "points", "tricks_won", "scores")
P_TRICK, P_POINTS, P_TRICKS, P_SCORES = range(len(P_FIELDS))
H_FIELDS = ("hands", "dealt")
H_HANDS, H_DEALT = range(len(H_FIELDS))

# Integer configuration (cfg) columns, from the flags.
C_FIRST_DEALER, C_LEAD_CALLER, C_MIN_BID, C_MIN_RAISE, C_MAX_BID = 0, 1, 2, 3, 4
C_FORCE_DEALER, C_VOID_COUNTS, C_FORFEIT, C_MULT_ON_LOSS, C_CAP_TRICKS = 5, 6, 7, 8, 9
C_OWN_CARD, C_NUM_HANDS, C_HOLD, C_STEP_OBS = 10, 11, 12, 13
NUM_CFG = 14


def _config(flags: dict[str, Any], hold: bool, step_obs: bool) -> np.ndarray:
    cfg = np.zeros(NUM_CFG, dtype=np.int64)
    cfg[C_HOLD] = hold  # autoreset=False: a finished game waits at its end
    cfg[C_STEP_OBS] = step_obs  # the step gathers the view of the seat to act
    cfg[C_FIRST_DEALER] = -1 if flags["first_dealer"] == "random" else flags["first_dealer"]
    cfg[C_LEAD_CALLER] = flags["first_lead"] == "caller"
    cfg[C_MIN_BID] = flags["min_bid"]
    cfg[C_MIN_RAISE] = flags["min_raise"]
    cfg[C_MAX_BID] = flags["max_bid"]
    cfg[C_FORCE_DEALER] = flags["all_pass_policy"] == "force_dealer"
    cfg[C_VOID_COUNTS] = bool(flags["void_hands_count"])
    cfg[C_FORFEIT] = bool(flags["forfeit_enabled"])
    cfg[C_MULT_ON_LOSS] = bool(flags["bid_multiplier_on_loss"])
    cfg[C_CAP_TRICKS] = flags["cappotto_definition"] == "tricks"
    cfg[C_OWN_CARD] = bool(flags["allow_call_own_card"])
    cfg[C_NUM_HANDS] = flags["num_hands"]
    return cfg


# -- kernels --------------------------------------------------------------------------------


def _jit(**options):
    """`nb.njit(cache=True)` without numba's reference counting (`_nrt=False`).

    The kernels never allocate; they only index arrays passed in. With reference counting on,
    numba increments and decrements (atomically) the count of every array argument at each
    helper's entry and exit: that measured 3x slower than without (random play, 1,024 games).
    The hot-path helpers are also inlined into `_step_kernel` (IR inlining, another 1.7x).
    """
    return nb.njit(cache=True, _nrt=False, **options)

# `G`, `P`, `H`, `perm`: the packed state (module docstring); `cfg`/`fcfg`: the flags; `buf`,
# `cur`, `mask`, `rewards`, `terminated`, `truncated`, `rng`: the base's arrays.


@_jit()
def _hand_points(cards):
    total = 0
    for c in range(NUM_CARDS):
        if cards >> c & 1:
            total += _POINTS[c]
    return total


@_jit(inline="always")
def _write_mask(i, G, H, cfg, cur, mask):
    """The legal actions of the seat to act in game `i` (Briscola5Game.legal_mask)."""
    for a in range(NUM_ACTIONS):
        mask[i, a] = 0
    ph = G[i, PHASE]
    if ph == TRICK_PLAY:
        h = H[i, H_HANDS, cur[i]]
        for c in range(NUM_CARDS):
            mask[i, c] = h >> c & 1
    elif ph == AUCTION:
        mask[i, PASS] = 1
        lo = cfg[C_MIN_BID] if G[i, HIGH_BIDDER] < 0 else G[i, HIGH] + cfg[C_MIN_RAISE]
        for v in range(lo, cfg[C_MAX_BID] + 1):
            mask[i, BID + v - BID_MIN] = 1
    elif ph == CALL_CARD:
        own = 0 if cfg[C_OWN_CARD] else H[i, H_HANDS, G[i, CALLER]]
        for c in range(NUM_CARDS):
            mask[i, CALL + c] = 1 - (own >> c & 1)
    elif ph == FORFEIT_CHECK:
        mask[i, FORFEIT] = 1
        mask[i, FORFEIT + 1] = 1


@_jit()
def _reset_buf(i, G, P, H, cfg, fcfg, buf):
    """The start of Briscola5Observer.reset: a zero buffer, then the hands, the classifica, the declined forfeits
    and the hands left."""
    g = G[i]
    b = buf[i]
    b[:] = 0.0
    scale = fcfg[0]
    for p in range(N):
        h = H[i, H_HANDS, p]
        for c in range(NUM_CARDS):
            if h >> c & 1:
                b[O_HAND + HAND_ROW * p + c] = 1.0
        b[O_SCORES + p] = P[i, P_SCORES, p] * scale
        if g[F_DECLINED] >> p & 1:
            b[O_DECLINED + p] = 1.0
    nh = cfg[C_NUM_HANDS]
    b[O_LEFT] = max(nh - g[HANDS_PLAYED] - 1, 0) / nh


@_jit()
def _begin_hand(i, G, P, H, cfg, fcfg, buf, cur):
    """Game._start_hand once the cards are in `hands`/`dealt` and `dealer` is set; rebuilds `buf[i]`."""
    g = G[i]
    d = g[DEALER]
    g[HAND_NO] += 1
    g[F_DECLINED] = 0
    g[PASSED] = 0
    g[HIGH] = 0
    g[HIGH_BIDDER] = -1
    g[CALLER] = -1
    g[CONTRACT] = -1
    g[CALLED] = -1
    g[TRUMP] = -1
    g[PARTNER] = -1
    g[REVEALED] = 0
    g[LEADER] = -1
    g[TRICK_LEN] = 0
    g[TRICK_NO] = 0
    for p in range(N):
        P[i, P_TRICK, p] = -1
        P[i, P_POINTS, p] = 0
        P[i, P_TRICKS, p] = 0
    first = (d + 1) % N
    pending = 0
    if cfg[C_FORFEIT]:
        for p in range(N):
            if _hand_points(H[i, H_HANDS, p]) == 0:
                pending |= 1 << p
    g[F_PENDING] = pending
    if pending:
        g[PHASE] = FORFEIT_CHECK
        p = first
        while not pending >> p & 1:
            p = (p + 1) % N
        cur[i] = p
    else:
        g[PHASE] = AUCTION
        cur[i] = first
    # Briscola5Observer.reset for a hand just dealt (nothing bid or played yet).
    _reset_buf(i, G, P, H, cfg, fcfg, buf)
    buf[i, O_DEALER + d] = 1.0
    buf[i, O_PHASE + g[PHASE]] = 1.0


@_jit()
def _deal_hand(i, d, G, P, H, perm, rng, cfg, fcfg, buf, cur):
    """Shuffle and deal a hand with dealer `d` (Game._deal: position k to seat (d + 1 + k) % 5)."""
    G[i, DEALER] = d
    pm = perm[i]
    for c in range(NUM_CARDS):
        pm[c] = c
    for j in range(NUM_CARDS - 1, 0, -1):  # Fisher-Yates
        k = rand_below(rng, i, j + 1)
        t = pm[j]
        pm[j] = pm[k]
        pm[k] = t
    for p in range(N):
        H[i, H_HANDS, p] = 0
    for k in range(NUM_CARDS):
        p = (d + 1 + k) % N
        H[i, H_HANDS, p] |= np.int64(1) << np.int64(pm[k])
    for p in range(N):
        H[i, H_DEALT, p] = H[i, H_HANDS, p]
    _begin_hand(i, G, P, H, cfg, fcfg, buf, cur)


@_jit()
def _new_episode(i, G, P, H, perm, rng, cfg, fcfg, buf, cur):
    G[i, HAND_NO] = 0
    G[i, HANDS_PLAYED] = 0
    G[i, CONSEC_VOID] = 0
    for p in range(N):
        P[i, P_SCORES, p] = 0
    d = cfg[C_FIRST_DEALER]
    if d < 0:
        d = rand_below(rng, i, N)  # drawn before the shuffle, as the AEC engine does
    _deal_hand(i, d, G, P, H, perm, rng, cfg, fcfg, buf, cur)


@_jit()
def _deal_kernel(indices, G, P, H, perm, rng, cfg, fcfg, buf, cur, mask):
    for k in range(indices.shape[0]):
        i = indices[k]
        _new_episode(i, G, P, H, perm, rng, cfg, fcfg, buf, cur)
        _write_mask(i, G, H, cfg, cur, mask)


@_jit()
def _mask_kernel(i, G, H, cfg, cur, mask):
    _write_mask(i, G, H, cfg, cur, mask)


@_jit()
def _hold(i, G, P, H, cfg, fcfg, buf):
    """The episode is over and the game waits (autoreset=False): Briscola5Observer.reset of the final state
    (hands as they are, the classifica, the declined forfeits, the hands left; nothing else is shown)."""
    G[i, PHASE] = OVER
    _reset_buf(i, G, P, H, cfg, fcfg, buf)


@_jit()
def _end_hand(i, void, G, P, H, perm, rng, cfg, fcfg, buf, cur, rewards, terminated, truncated):
    """Game._end_hand: the classifica, the match check, then the next hand or a fresh episode (or, with
    autoreset=False, the game held at its end).

    The hand's credits are already in `rewards[i]` (zeros for a void hand).
    """
    if void:
        G[i, CONSEC_VOID] += 1
        if cfg[C_VOID_COUNTS]:
            G[i, HANDS_PLAYED] += 1
    else:
        G[i, CONSEC_VOID] = 0
        G[i, HANDS_PLAYED] += 1
        for p in range(N):
            P[i, P_SCORES, p] += np.int32(rewards[i, p])
    endless = not cfg[C_VOID_COUNTS] and G[i, CONSEC_VOID] >= MAX_CONSECUTIVE_VOID
    if G[i, HANDS_PLAYED] >= cfg[C_NUM_HANDS] or endless:
        if G[i, HANDS_PLAYED] < cfg[C_NUM_HANDS]:
            truncated[i] = True
        else:
            terminated[i] = True
        if cfg[C_HOLD]:
            _hold(i, G, P, H, cfg, fcfg, buf)
        else:
            _new_episode(i, G, P, H, perm, rng, cfg, fcfg, buf, cur)
    else:
        _deal_hand(i, (G[i, DEALER] + 1) % N, G, P, H, perm, rng, cfg, fcfg, buf, cur)


@_jit()
def _score_hand(i, G, P, cfg, rewards):
    """Game._score_hand and hand_credits: the credits of the five seats into `rewards[i]`."""
    c, pa, bid = G[i, CALLER], G[i, PARTNER], G[i, CONTRACT]
    solo = pa == c
    team_points = P[i, P_POINTS, c] + (0 if solo else P[i, P_POINTS, pa])
    team_tricks = P[i, P_TRICKS, c] + (0 if solo else P[i, P_TRICKS, pa])
    if cfg[C_CAP_TRICKS]:
        cappotto = team_tricks == 0 or team_tricks == NUM_TRICKS
    else:
        cappotto = team_points == 0 or team_points == TOTAL_POINTS
    win = team_points >= bid
    m = 1
    if win or cfg[C_MULT_ON_LOSS]:
        m = 1 if bid <= 70 else (2 if bid <= 80 else 3)
    if cappotto:
        m *= 2
    sign = 1 if win else -1
    for p in range(N):
        rewards[i, p] = -sign * m
    rewards[i, c] = sign * (4 if solo else 2) * m
    if not solo:
        rewards[i, pa] = sign * m


@_jit(inline="always")
def _play(i, seat, a, G, P, H, perm, rng, cfg, fcfg, buf, cur, rewards, terminated, truncated):
    """PLAY(a): Game._play, and Briscola5Observer.update for a card."""
    H[i, H_HANDS, seat] ^= np.int64(1) << a
    t = G[i, TRICK_LEN]
    tn = G[i, TRICK_NO]
    P[i, P_TRICK, t] = a
    G[i, TRICK_LEN] = t + 1
    buf[i, O_HAND + HAND_ROW * seat + a] = 0.0
    buf[i, O_PLAYED_BY + N * a + seat] = 1.0
    buf[i, O_PLAYED_IN + NUM_TRICKS * a + tn] = 1.0
    if a == G[i, CALLED] and not G[i, REVEALED]:
        G[i, REVEALED] = 1
        buf[i, O_REVEALED] = 1.0
        buf[i, O_PARTNER + G[i, PARTNER]] = 1.0
    if t + 1 < N:
        buf[i, O_TRICK + NUM_CARDS * seat + a] = 1.0
        cur[i] = (seat + 1) % N
        return
    # The trick is complete: trick_winner of envs.core.trick.
    lead = G[i, LEADER]
    ts = G[i, TRUMP]
    best = 0
    best_card = P[i, P_TRICK, 0]
    best_suit = best_card // NUM_RANKS
    total = _POINTS[best_card]
    for k in range(1, N):
        card = P[i, P_TRICK, k]
        total += _POINTS[card]
        suit = card // NUM_RANKS
        if suit == best_suit:
            if _STRENGTH[card] > _STRENGTH[best_card]:
                best = k
                best_card = card
        elif suit == ts:
            best = k
            best_card = card
            best_suit = suit
    w = (lead + best) % N
    P[i, P_POINTS, w] += total
    P[i, P_TRICKS, w] += 1
    G[i, TRICK_LEN] = 0
    G[i, TRICK_NO] = tn + 1
    G[i, LEADER] = w
    cur[i] = w
    if tn + 1 < NUM_TRICKS:
        for k in range(N - 1):  # clear the table (the fifth card was never written)
            buf[i, O_TRICK + NUM_CARDS * ((lead + k) % N) + P[i, P_TRICK, k]] = 0.0
        buf[i, O_LEADER + lead] = 0.0
        buf[i, O_LEADER + w] = 1.0
        buf[i, O_POINTS + w] = P[i, P_POINTS, w] / TOTAL_POINTS
        buf[i, O_TRICKS + w] = P[i, P_TRICKS, w] / NUM_TRICKS
        for k in range(N):
            P[i, P_TRICK, k] = -1
        return
    for k in range(N):
        P[i, P_TRICK, k] = -1
    _score_hand(i, G, P, cfg, rewards)
    _end_hand(i, False, G, P, H, perm, rng, cfg, fcfg, buf, cur, rewards, terminated, truncated)


@_jit(inline="always")
def _call(i, a, G, H, cfg, buf, cur):
    """CALL(c): Game._call, and Briscola5Observer._set_call and the phase."""
    c = a - CALL
    G[i, CALLED] = c
    G[i, TRUMP] = c // NUM_RANKS
    bit = np.int64(1) << c
    pa = 0
    while not H[i, H_HANDS, pa] & bit:
        pa += 1
    G[i, PARTNER] = pa
    G[i, PHASE] = TRICK_PLAY
    ld = G[i, CALLER] if cfg[C_LEAD_CALLER] else (G[i, DEALER] + 1) % N
    G[i, LEADER] = ld
    cur[i] = ld
    buf[i, O_CALLED + c] = 1.0
    buf[i, O_TRUMP + c // NUM_RANKS] = 1.0
    buf[i, O_HOLDS + HOLDS_ROW * pa] = 1.0
    buf[i, O_LEADER + ld] = 1.0
    buf[i, O_PHASE + CALL_CARD] = 0.0
    buf[i, O_PHASE + TRICK_PLAY] = 1.0


@_jit(inline="always")
def _auction(i, seat, a, G, P, H, perm, rng, cfg, fcfg, buf, cur, rewards, terminated, truncated):
    """PASS or BID(v): Game._auction, and Briscola5Observer.update for them."""
    if a == PASS:
        G[i, PASSED] |= 1 << seat
        buf[i, O_PASSED + seat] = 1.0
    else:
        G[i, HIGH] = BID_MIN + a - BID
        old = G[i, HIGH_BIDDER]
        if old >= 0:
            buf[i, O_HIGH_BIDDER + old] = 0.0
        G[i, HIGH_BIDDER] = seat
        buf[i, O_BIDS + BIDS_ROW * seat + a - BID] = 1.0
        buf[i, O_HIGH] = (G[i, HIGH] - 60) / 60
        buf[i, O_HIGH_BIDDER + seat] = 1.0
    active = ~G[i, PASSED] & ((1 << N) - 1)
    if active == 0:  # everyone passed without a bid
        if not cfg[C_FORCE_DEALER]:
            _end_hand(i, True, G, P, H, perm, rng, cfg, fcfg, buf, cur, rewards, terminated, truncated)
            return
        caller = G[i, DEALER]
        G[i, CONTRACT] = cfg[C_MIN_BID]
    elif G[i, HIGH_BIDDER] >= 0 and active & (active - 1) == 0:  # one seat left and a bid exists
        caller = G[i, HIGH_BIDDER]
        G[i, CONTRACT] = G[i, HIGH]
    else:
        nxt = (seat + 1) % N
        while G[i, PASSED] >> nxt & 1:
            nxt = (nxt + 1) % N
        cur[i] = nxt
        return
    G[i, CALLER] = caller
    G[i, PHASE] = CALL_CARD
    cur[i] = caller
    buf[i, O_CALLER + caller] = 1.0
    buf[i, O_CONTRACT] = (G[i, CONTRACT] - 60) / 60
    buf[i, O_PHASE + AUCTION] = 0.0
    buf[i, O_PHASE + CALL_CARD] = 1.0


@_jit(inline="always")
def _no_forfeit(i, seat, G, buf, cur):
    """NO_FORFEIT: the next 0-point seat in playing order is asked, or the auction starts."""
    G[i, F_DECLINED] |= 1 << seat
    buf[i, O_DECLINED + seat] = 1.0
    pending = G[i, F_PENDING] & ~(1 << seat)
    G[i, F_PENDING] = pending
    first = (G[i, DEALER] + 1) % N
    if pending:
        p = first
        while not pending >> p & 1:
            p = (p + 1) % N
        cur[i] = p
    else:
        G[i, PHASE] = AUCTION
        cur[i] = first
        buf[i, O_PHASE + FORFEIT_CHECK] = 0.0
        buf[i, O_PHASE + AUCTION] = 1.0


@_jit(nogil=True)
def _step_kernel(actions, active, G, P, H, perm, rng, cfg, fcfg, buf, cur, mask, rewards, terminated, truncated, obs,
                 runs, nruns, dst, src, nidx):
    for i in range(actions.shape[0]):
        if not active[i]:
            continue
        a = actions[i]
        seat = cur[i]
        if a < CALL:
            _play(i, seat, a, G, P, H, perm, rng, cfg, fcfg, buf, cur, rewards, terminated, truncated)
        elif a < PASS:
            _call(i, a, G, H, cfg, buf, cur)
        elif a < FORFEIT:
            _auction(i, seat, a, G, P, H, perm, rng, cfg, fcfg, buf, cur, rewards, terminated, truncated)
        elif a == FORFEIT:
            _end_hand(i, True, G, P, H, perm, rng, cfg, fcfg, buf, cur, rewards, terminated, truncated)
        else:
            _no_forfeit(i, seat, G, buf, cur)
        _write_mask(i, G, H, cfg, cur, mask)
        if cfg[C_STEP_OBS]:
            gather_one(i, cur[i], buf, obs, runs, nruns, dst, src, nidx)  # while buf[i] is in cache


@_jit(nogil=True)
def _privileged_kernel(seats, H, out):
    """The other four hands, seat-relative (envs/briscola5/privileged.py)."""
    for i in range(out.shape[0]):
        s = seats[i]
        for k in range(1, N):
            write_cards(out, i, NUM_CARDS * (k - 1), H[i, H_HANDS, (s + k) % N], NUM_CARDS)


# -- the engine -----------------------------------------------------------------------------


class Briscola5VectorEnv(VectorEnv):
    """Briscola in cinque over `num_envs` games at once (see the module docstring)."""

    game_class = Briscola5Game
    observer_class = Briscola5Observer
    unsupported: dict[str, str] = {}
    obs_in_step = True
    privileged_size = PRIVILEGED_SIZE

    def _allocate(self, num_envs: int) -> dict[str, np.ndarray]:
        self._cfg = _config(self.flags, not self.autoreset, self.step_obs)
        # The observer's own float64 factor (score * (1 / (24 * num_hands)), not score / (24 * num_hands)).
        self._fcfg = np.array([1.0 / (24 * self.flags["num_hands"])], dtype=np.float64)
        b = num_envs
        self._G = np.zeros((b, len(G_FIELDS)), dtype=np.int32)
        self._P = np.zeros((b, len(P_FIELDS), N), dtype=np.int32)
        self._H = np.zeros((b, len(H_FIELDS), N), dtype=np.int64)
        self._perm = np.zeros((b, NUM_CARDS), dtype=np.int8)
        state = {name: self._G[:, k] for k, name in enumerate(G_FIELDS)}
        state.update({name: self._P[:, k] for k, name in enumerate(P_FIELDS)})
        state.update({name: self._H[:, k] for k, name in enumerate(H_FIELDS)})
        state["perm"] = self._perm
        return state

    def _deal(self, indices: np.ndarray) -> None:
        _deal_kernel(
            indices, self._G, self._P, self._H, self._perm, self.rng, self._cfg, self._fcfg, self.buf,
            self.current_player, self.mask,
        )

    def _load(self, i: int, s: Any) -> None:
        st = self.state
        for name in ("phase", "dealer", "hand_no", "hands_played", "consecutive_void", "high", "high_bidder",
                     "caller", "contract", "called", "trump", "partner", "leader", "trick_no",
                     "forfeit_declined", "passed", "hands", "dealt", "scores", "points", "tricks_won"):
            st[name][i] = getattr(s, name)
        st["revealed"][i] = bool(s.revealed)
        st["forfeit_pending"][i] = sum(1 << p for p in s.forfeit_queue)
        st["trick"][i] = -1
        st["trick"][i, : len(s.trick)] = s.trick
        st["trick_len"][i] = len(s.trick)
        # A shuffle that deals these hands (the AEC engine's own draw is not kept in its state).
        order = [[c for c in range(NUM_CARDS) if s.dealt[p] >> c & 1] for p in range(N)]
        st["perm"][i] = [order[(s.dealer + 1 + k) % N][k // N] for k in range(NUM_CARDS)]
        self.current_player[i] = s.to_act
        _mask_kernel(i, self._G, self._H, self._cfg, self.current_player, self.mask)

    def _step(self, actions: np.ndarray, active: np.ndarray | None = None) -> None:
        active = self._every_game if active is None else active
        self._run(
            _step_kernel, actions, active, self._G, self._P, self._H, self._perm, self.rng, Shared(self._cfg),
            Shared(self._fcfg), self.buf, self.current_player, self.mask, self.rewards, self.terminated, self.truncated,
            self.obs, *map(Shared, self.gather_tables),
        )

    def _privileged(self, seats: np.ndarray, out: np.ndarray) -> None:
        _privileged_kernel(seats, self._H, out)

    def _episode_result(self, i: int) -> dict[str, Any]:
        played = int(self._G[i, HANDS_PLAYED])
        return {"result_version": RESULT_VERSION, "hands_played": played, "totals": self._P[i, P_SCORES].tolist(),
                "truncated": played < self.flags["num_hands"]}
