"""Briscola in cinque: the batched engine (many games in NumPy arrays, stepped by numba).

``Briscola5VectorEnv`` is what ``envs.briscola5_v0.vector_env(num_envs, **flags)`` returns; the
API (``reset``, ``step``, ``observe``, ``get_state``/``set_state``) is ``envs.core.vector.VectorEnv``'s.
The kernels below play exactly the rules of ``envs/briscola5/game.py`` (forfeit check, auction,
call, eight tricks, credits, void hands, the match and its truncation) and keep ``buf[i]`` equal
to the AEC observer's absolute buffer, so the gathered observations are the AEC env's bytes;
``tests/envs/test_briscola5_batched.py`` checks both against the AEC env step by step.

State arrays (``self.state``, first axis the game index; seats and cards are ints, card sets
int64 bitmasks with bit ``c`` for card ``c``):

| name | dtype, shape | meaning |
|---|---|---|
| `phase` | int8 `(B,)` | FORFEIT_CHECK, AUCTION, CALL_CARD, TRICK_PLAY (game.py's ints) |
| `dealer` | int8 `(B,)` | dealer of the hand in progress |
| `hand_no` | int32 `(B,)` | hands dealt in this episode (1 for the first) |
| `hands_played` | int32 `(B,)` | hands counted toward `num_hands` (void ones only if `void_hands_count`) |
| `consecutive_void` | int32 `(B,)` | void hands in a row (truncation after 100 when void hands do not count) |
| `hands` | int64 `(B, 5)` | cards each seat holds now |
| `dealt` | int64 `(B, 5)` | cards each seat was dealt in this hand |
| `perm` | int8 `(B, 40)` | the shuffle of this hand: position k went to seat (dealer + 1 + k) % 5 |
| `forfeit_pending` | int8 `(B,)` | seats (bits) with a 0-point hand still to answer the forfeit check |
| `forfeit_declined` | int8 `(B,)` | seats (bits) that answered NO_FORFEIT |
| `passed` | int8 `(B,)` | seats (bits) that passed in the auction |
| `high`, `high_bidder` | int16, int8 `(B,)` | highest bid (0 before the first) and its seat (-1) |
| `caller`, `contract` | int8, int16 `(B,)` | auction winner and contract (-1 before the call phase) |
| `called`, `trump`, `partner` | int8 `(B,)` | called card, its suit, its holder (-1 before the call) |
| `revealed` | int8 `(B,)` | the called card has been played |
| `leader` | int8 `(B,)` | leader of the trick in progress (-1 before the call) |
| `trick`, `trick_len` | int8 `(B, 5)`, int8 `(B,)` | cards of the trick in progress, in play order |
| `trick_no` | int8 `(B,)` | tricks completed in this hand |
| `points`, `tricks_won` | int16, int8 `(B, 5)` | card points and tricks each seat took this hand |
| `scores` | int32 `(B, 5)` | the classifica (sum of credits this episode) |

The seat to act is the base's ``current_player``. The observation facts that only the buffer
needs (bids, who played which card in which trick) live in ``buf`` alone, written by the same
incremental rules as ``Briscola5Observer.update``; a hand is rebuilt like ``Briscola5Observer.reset``.

Randomness (``rand_below`` on each game's xorshift stream): a random first dealer when the flag
says so, then a Fisher-Yates shuffle of the 40 cards for every hand (B3: position k goes to seat
``(dealer + 1 + k) % 5``), the same order as the AEC engine draws them from its generator.
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
    NUM_PLAYERS,
    NUM_TRICKS,
    PASS,
    POINTS,
    STRENGTH,
    TOTAL_POINTS,
    TRICK_PLAY,
    Briscola5Game,
)
from envs.briscola5.observation import LAYOUT, Briscola5Observer
from envs.core.vector import VectorEnv, rand_below

__all__ = ["Briscola5VectorEnv"]

N = NUM_PLAYERS
NUM_CARDS = _game.DECK.size
NUM_RANKS = _game.DECK.num_ranks
_STRENGTH = np.array(STRENGTH, dtype=np.int8)
_POINTS = np.array(POINTS, dtype=np.int8)


def _off(name: str) -> int:
    return LAYOUT.fields[name].abs_offset


# Absolute offsets of the observer's fields (private fields: one row per seat).
O_HAND, O_HOLDS, O_PHASE, O_DEALER = _off("hand"), _off("holds_called"), _off("phase"), _off("dealer")
O_DECLINED, O_BIDS, O_PASSED, O_HIGH = _off("forfeit_declined"), _off("bids"), _off("passed"), _off("high_bid")
O_HIGH_BIDDER, O_CALLER, O_CONTRACT = _off("high_bidder"), _off("caller"), _off("contract")
O_CALLED, O_TRUMP, O_PLAYED_BY, O_PLAYED_IN = _off("called_card"), _off("trump"), _off("played_by"), _off("played_in_trick")
O_TRICK, O_LEADER, O_POINTS, O_TRICKS = _off("current_trick"), _off("trick_leader"), _off("points_taken"), _off("tricks_taken")
O_REVEALED, O_PARTNER, O_SCORES, O_LEFT = _off("partner_revealed"), _off("partner"), _off("match_scores"), _off("hands_left")
HAND_ROW = LAYOUT.fields["hand"].size  # 40: one private row per seat
HOLDS_ROW = LAYOUT.fields["holds_called"].size  # 1
BIDS_ROW = LAYOUT.fields["bids"].shape[1]  # 60

#: (name, dtype, shape of one game) of every state array, in the kernels' argument order.
STATE_FIELDS = (
    ("phase", np.int8, ()),
    ("dealer", np.int8, ()),
    ("hand_no", np.int32, ()),
    ("hands_played", np.int32, ()),
    ("consecutive_void", np.int32, ()),
    ("hands", np.int64, (N,)),
    ("dealt", np.int64, (N,)),
    ("perm", np.int8, (NUM_CARDS,)),
    ("forfeit_pending", np.int8, ()),
    ("forfeit_declined", np.int8, ()),
    ("passed", np.int8, ()),
    ("high", np.int16, ()),
    ("high_bidder", np.int8, ()),
    ("caller", np.int8, ()),
    ("contract", np.int16, ()),
    ("called", np.int8, ()),
    ("trump", np.int8, ()),
    ("partner", np.int8, ()),
    ("revealed", np.int8, ()),
    ("leader", np.int8, ()),
    ("trick", np.int8, (N,)),
    ("trick_len", np.int8, ()),
    ("trick_no", np.int8, ()),
    ("points", np.int16, (N,)),
    ("tricks_won", np.int8, (N,)),
    ("scores", np.int32, (N,)),
)

# Integer configuration (cfg) columns, from the flags.
C_FIRST_DEALER, C_LEAD_CALLER, C_MIN_BID, C_MIN_RAISE, C_MAX_BID = 0, 1, 2, 3, 4
C_FORCE_DEALER, C_VOID_COUNTS, C_FORFEIT, C_MULT_ON_LOSS, C_CAP_TRICKS = 5, 6, 7, 8, 9
C_OWN_CARD, C_NUM_HANDS = 10, 11
NUM_CFG = 12


def _config(flags: dict[str, Any]) -> np.ndarray:
    cfg = np.zeros(NUM_CFG, dtype=np.int64)
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
# Every kernel takes the state arrays as one tuple `S` (STATE_FIELDS order) and unpacks it.


@nb.njit(cache=True)
def _hand_points(mask):
    total = 0
    for c in range(NUM_CARDS):
        if mask >> c & 1:
            total += _POINTS[c]
    return total


@nb.njit(cache=True)
def _write_mask(i, S, cfg, cur, mask):
    """The legal actions of the seat to act in game `i` (Briscola5Game.legal_mask)."""
    (phase, dealer, hand_no, hands_played, consecutive_void, hands, dealt, perm, forfeit_pending,
     forfeit_declined, passed, high, high_bidder, caller, contract, called, trump, partner, revealed,
     leader, trick, trick_len, trick_no, points, tricks_won, scores) = S
    m = mask[i]
    m[:] = 0
    ph = phase[i]
    if ph == TRICK_PLAY:
        h = hands[i, cur[i]]
        for c in range(NUM_CARDS):
            if h >> c & 1:
                m[c] = 1
    elif ph == AUCTION:
        m[PASS] = 1
        lo = cfg[C_MIN_BID] if high_bidder[i] < 0 else high[i] + cfg[C_MIN_RAISE]
        for v in range(lo, cfg[C_MAX_BID] + 1):
            m[BID + v - BID_MIN] = 1
    elif ph == CALL_CARD:
        own = 0 if cfg[C_OWN_CARD] else hands[i, caller[i]]
        for c in range(NUM_CARDS):
            if not own >> c & 1:
                m[CALL + c] = 1
    elif ph == FORFEIT_CHECK:
        m[FORFEIT] = 1
        m[FORFEIT + 1] = 1


@nb.njit(cache=True)
def _begin_hand(i, S, cfg, fcfg, buf, cur):
    """Game.`_start_hand` after the cards are in `hands`/`dealt` and `dealer` is set; rebuilds `buf[i]`."""
    (phase, dealer, hand_no, hands_played, consecutive_void, hands, dealt, perm, forfeit_pending,
     forfeit_declined, passed, high, high_bidder, caller, contract, called, trump, partner, revealed,
     leader, trick, trick_len, trick_no, points, tricks_won, scores) = S
    d = dealer[i]
    hand_no[i] += 1
    forfeit_declined[i] = 0
    passed[i] = 0
    high[i] = 0
    high_bidder[i] = -1
    caller[i] = -1
    contract[i] = -1
    called[i] = -1
    trump[i] = -1
    partner[i] = -1
    revealed[i] = 0
    leader[i] = -1
    trick_len[i] = 0
    trick_no[i] = 0
    for p in range(N):
        trick[i, p] = -1
        points[i, p] = 0
        tricks_won[i, p] = 0
    first = (d + 1) % N
    pending = 0
    if cfg[C_FORFEIT]:
        for p in range(N):
            if _hand_points(hands[i, p]) == 0:
                pending |= 1 << p
    forfeit_pending[i] = pending
    if pending:
        phase[i] = FORFEIT_CHECK
        p = first
        while not pending >> p & 1:
            p = (p + 1) % N
        cur[i] = p
    else:
        phase[i] = AUCTION
        cur[i] = first
    # Briscola5Observer.reset for a hand just dealt (nothing bid or played yet).
    b = buf[i]
    b[:] = 0.0
    scale = fcfg[0]
    for p in range(N):
        h = hands[i, p]
        for c in range(NUM_CARDS):
            if h >> c & 1:
                b[O_HAND + HAND_ROW * p + c] = 1.0
        b[O_SCORES + p] = scores[i, p] * scale
        if forfeit_declined[i] >> p & 1:
            b[O_DECLINED + p] = 1.0
    nh = cfg[C_NUM_HANDS]
    b[O_LEFT] = max(nh - hands_played[i] - 1, 0) / nh
    b[O_DEALER + d] = 1.0
    b[O_PHASE + phase[i]] = 1.0


@nb.njit(cache=True)
def _deal_hand(i, d, S, rng, cfg, fcfg, buf, cur):
    """Shuffle and deal a hand with dealer `d` (Game._deal: position k to seat (d + 1 + k) % 5)."""
    (phase, dealer, hand_no, hands_played, consecutive_void, hands, dealt, perm, forfeit_pending,
     forfeit_declined, passed, high, high_bidder, caller, contract, called, trump, partner, revealed,
     leader, trick, trick_len, trick_no, points, tricks_won, scores) = S
    dealer[i] = d
    pm = perm[i]
    for c in range(NUM_CARDS):
        pm[c] = c
    for j in range(NUM_CARDS - 1, 0, -1):
        k = rand_below(rng, i, j + 1)
        t = pm[j]
        pm[j] = pm[k]
        pm[k] = t
    for p in range(N):
        hands[i, p] = 0
    for k in range(NUM_CARDS):
        p = (d + 1 + k) % N
        hands[i, p] |= np.int64(1) << np.int64(pm[k])
    for p in range(N):
        dealt[i, p] = hands[i, p]
    _begin_hand(i, S, cfg, fcfg, buf, cur)


@nb.njit(cache=True)
def _new_episode(i, S, rng, cfg, fcfg, buf, cur):
    (phase, dealer, hand_no, hands_played, consecutive_void, hands, dealt, perm, forfeit_pending,
     forfeit_declined, passed, high, high_bidder, caller, contract, called, trump, partner, revealed,
     leader, trick, trick_len, trick_no, points, tricks_won, scores) = S
    hand_no[i] = 0
    hands_played[i] = 0
    consecutive_void[i] = 0
    for p in range(N):
        scores[i, p] = 0
    d = cfg[C_FIRST_DEALER]
    if d < 0:
        d = rand_below(rng, i, N)
    _deal_hand(i, d, S, rng, cfg, fcfg, buf, cur)


@nb.njit(cache=True)
def _deal_kernel(indices, S, rng, cfg, fcfg, buf, cur, mask):
    for k in range(indices.shape[0]):
        i = indices[k]
        _new_episode(i, S, rng, cfg, fcfg, buf, cur)
        _write_mask(i, S, cfg, cur, mask)


@nb.njit(cache=True)
def _mask_kernel(i, S, cfg, cur, mask):
    _write_mask(i, S, cfg, cur, mask)


@nb.njit(cache=True)
def _end_hand(i, void, S, rng, cfg, fcfg, buf, cur, rewards, terminated, truncated):
    """Game._end_hand: the classifica, the match check, then the next hand or a fresh episode.

    The hand's credits are already in `rewards[i]` (zeros for a void hand).
    """
    (phase, dealer, hand_no, hands_played, consecutive_void, hands, dealt, perm, forfeit_pending,
     forfeit_declined, passed, high, high_bidder, caller, contract, called, trump, partner, revealed,
     leader, trick, trick_len, trick_no, points, tricks_won, scores) = S
    if void:
        consecutive_void[i] += 1
        if cfg[C_VOID_COUNTS]:
            hands_played[i] += 1
    else:
        consecutive_void[i] = 0
        hands_played[i] += 1
        for p in range(N):
            scores[i, p] += np.int32(rewards[i, p])
    endless = not cfg[C_VOID_COUNTS] and consecutive_void[i] >= MAX_CONSECUTIVE_VOID
    if hands_played[i] >= cfg[C_NUM_HANDS] or endless:
        if hands_played[i] < cfg[C_NUM_HANDS]:
            truncated[i] = True
        else:
            terminated[i] = True
        _new_episode(i, S, rng, cfg, fcfg, buf, cur)
    else:
        _deal_hand(i, (dealer[i] + 1) % N, S, rng, cfg, fcfg, buf, cur)


@nb.njit(cache=True)
def _score_hand(i, S, cfg, rewards):
    """Game._score_hand and hand_credits: the credits of the five seats into `rewards[i]`."""
    (phase, dealer, hand_no, hands_played, consecutive_void, hands, dealt, perm, forfeit_pending,
     forfeit_declined, passed, high, high_bidder, caller, contract, called, trump, partner, revealed,
     leader, trick, trick_len, trick_no, points, tricks_won, scores) = S
    c, pa, bid = caller[i], partner[i], contract[i]
    solo = pa == c
    team_points = points[i, c] + (0 if solo else points[i, pa])
    team_tricks = tricks_won[i, c] + (0 if solo else tricks_won[i, pa])
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


@nb.njit(cache=True)
def _step_kernel(actions, S, rng, cfg, fcfg, buf, cur, mask, rewards, terminated, truncated):
    (phase, dealer, hand_no, hands_played, consecutive_void, hands, dealt, perm, forfeit_pending,
     forfeit_declined, passed, high, high_bidder, caller, contract, called, trump, partner, revealed,
     leader, trick, trick_len, trick_no, points, tricks_won, scores) = S
    for i in range(actions.shape[0]):
        a = actions[i]
        seat = cur[i]
        b = buf[i]
        if a < CALL:  # PLAY(a)
            hands[i, seat] ^= np.int64(1) << a
            t = trick_len[i]
            trick[i, t] = a
            trick_len[i] = t + 1
            tn = trick_no[i]
            b[O_HAND + HAND_ROW * seat + a] = 0.0
            b[O_PLAYED_BY + N * a + seat] = 1.0
            b[O_PLAYED_IN + NUM_TRICKS * a + tn] = 1.0
            if a == called[i] and not revealed[i]:
                revealed[i] = 1
                b[O_REVEALED] = 1.0
                b[O_PARTNER + partner[i]] = 1.0
            if t + 1 < N:
                b[O_TRICK + NUM_CARDS * seat + a] = 1.0
                cur[i] = (seat + 1) % N
            else:  # the trick is complete (trick_winner of envs.core.trick)
                lead = leader[i]
                ts = trump[i]
                best = 0
                best_card = trick[i, 0]
                best_suit = best_card // NUM_RANKS
                total = _POINTS[best_card]
                for k in range(1, N):
                    card = trick[i, k]
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
                points[i, w] += total
                tricks_won[i, w] += 1
                trick_len[i] = 0
                trick_no[i] = tn + 1
                leader[i] = w
                cur[i] = w
                if tn + 1 < NUM_TRICKS:
                    for k in range(N - 1):  # clear the table (the fifth card was never written)
                        b[O_TRICK + NUM_CARDS * ((lead + k) % N) + trick[i, k]] = 0.0
                    for k in range(N):
                        trick[i, k] = -1
                    b[O_LEADER + lead] = 0.0
                    b[O_LEADER + w] = 1.0
                    b[O_POINTS + w] = points[i, w] / TOTAL_POINTS
                    b[O_TRICKS + w] = tricks_won[i, w] / NUM_TRICKS
                else:
                    for k in range(N):
                        trick[i, k] = -1
                    _score_hand(i, S, cfg, rewards)
                    _end_hand(i, False, S, rng, cfg, fcfg, buf, cur, rewards, terminated, truncated)
        elif a < PASS:  # CALL(c)
            c = a - CALL
            called[i] = c
            trump[i] = c // NUM_RANKS
            bit = np.int64(1) << c
            pa = 0
            while not hands[i, pa] & bit:
                pa += 1
            partner[i] = pa
            phase[i] = TRICK_PLAY
            ld = caller[i] if cfg[C_LEAD_CALLER] else (dealer[i] + 1) % N
            leader[i] = ld
            cur[i] = ld
            b[O_CALLED + c] = 1.0
            b[O_TRUMP + c // NUM_RANKS] = 1.0
            b[O_HOLDS + HOLDS_ROW * pa] = 1.0
            b[O_LEADER + ld] = 1.0
            b[O_PHASE + CALL_CARD] = 0.0
            b[O_PHASE + TRICK_PLAY] = 1.0
        elif a < FORFEIT:  # PASS or BID(v)
            if a == PASS:
                passed[i] |= 1 << seat
                b[O_PASSED + seat] = 1.0
            else:
                high[i] = BID_MIN + a - BID
                old = high_bidder[i]
                if old >= 0:
                    b[O_HIGH_BIDDER + old] = 0.0
                high_bidder[i] = seat
                b[O_BIDS + BIDS_ROW * seat + a - BID] = 1.0
                b[O_HIGH] = (high[i] - 60) / 60
                b[O_HIGH_BIDDER + seat] = 1.0
            active = ~passed[i] & ((1 << N) - 1)
            call = -1
            if active == 0:  # everyone passed without a bid
                if cfg[C_FORCE_DEALER]:
                    call = dealer[i]
                    contract[i] = cfg[C_MIN_BID]
                else:
                    _end_hand(i, True, S, rng, cfg, fcfg, buf, cur, rewards, terminated, truncated)
            elif high_bidder[i] >= 0 and active & (active - 1) == 0:  # one seat left and a bid exists
                call = high_bidder[i]
                contract[i] = high[i]
            else:
                nxt = (seat + 1) % N
                while passed[i] >> nxt & 1:
                    nxt = (nxt + 1) % N
                cur[i] = nxt
            if call >= 0:
                caller[i] = call
                phase[i] = CALL_CARD
                cur[i] = call
                b[O_CALLER + call] = 1.0
                b[O_CONTRACT] = (contract[i] - 60) / 60
                b[O_PHASE + AUCTION] = 0.0
                b[O_PHASE + CALL_CARD] = 1.0
        elif a == FORFEIT:
            _end_hand(i, True, S, rng, cfg, fcfg, buf, cur, rewards, terminated, truncated)
        else:  # NO_FORFEIT
            forfeit_declined[i] |= 1 << seat
            b[O_DECLINED + seat] = 1.0
            pending = forfeit_pending[i] & ~(1 << seat)
            forfeit_pending[i] = pending
            first = (dealer[i] + 1) % N
            if pending:
                p = first
                while not pending >> p & 1:
                    p = (p + 1) % N
                cur[i] = p
            else:
                phase[i] = AUCTION
                cur[i] = first
                b[O_PHASE + FORFEIT_CHECK] = 0.0
                b[O_PHASE + AUCTION] = 1.0
        _write_mask(i, S, cfg, cur, mask)


# -- the engine -----------------------------------------------------------------------------


class Briscola5VectorEnv(VectorEnv):
    """Briscola in cinque over `num_envs` games at once (see the module docstring)."""

    game_class = Briscola5Game
    observer_class = Briscola5Observer
    unsupported: dict[str, str] = {}

    def _allocate(self, num_envs: int) -> dict[str, np.ndarray]:
        self._cfg = _config(self.flags)
        # The observer's own float64 factor (score * (1 / (24 * num_hands)), not score / (24 * num_hands)).
        self._fcfg = np.array([1.0 / (24 * self.flags["num_hands"])], dtype=np.float64)
        state = {name: np.zeros((num_envs, *shape), dtype=dtype) for name, dtype, shape in STATE_FIELDS}
        self._S = tuple(state.values())
        return state

    def _deal(self, indices: np.ndarray) -> None:
        _deal_kernel(indices, self._S, self.rng, self._cfg, self._fcfg, self.buf, self.current_player, self.mask)

    def _load(self, i: int, s: Any) -> None:
        st = self.state
        for name in ("phase", "dealer", "hand_no", "hands_played", "consecutive_void", "high", "high_bidder",
                     "caller", "contract", "called", "trump", "partner", "leader", "trick_no"):
            st[name][i] = getattr(s, name)
        st["revealed"][i] = bool(s.revealed)
        st["hands"][i] = s.hands
        st["dealt"][i] = s.dealt
        st["scores"][i] = s.scores
        st["points"][i] = s.points
        st["tricks_won"][i] = s.tricks_won
        st["forfeit_declined"][i] = s.forfeit_declined
        st["forfeit_pending"][i] = sum(1 << p for p in s.forfeit_queue)
        st["passed"][i] = s.passed
        st["trick"][i] = -1
        st["trick"][i, : len(s.trick)] = s.trick
        st["trick_len"][i] = len(s.trick)
        # A shuffle that deals these hands (the AEC engine's own draw is not kept in its state).
        order = [[c for c in range(NUM_CARDS) if s.dealt[p] >> c & 1] for p in range(N)]
        st["perm"][i] = [order[(s.dealer + 1 + k) % N][k // N] for k in range(NUM_CARDS)]
        self.current_player[i] = s.to_act
        _mask_kernel(i, self._S, self._cfg, self.current_player, self.mask)

    def _step(self, actions: np.ndarray) -> None:
        _step_kernel(
            actions, self._S, self.rng, self._cfg, self._fcfg, self.buf, self.current_player, self.mask,
            self.rewards, self.terminated, self.truncated,
        )
