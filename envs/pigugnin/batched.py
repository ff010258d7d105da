"""`PigugninVectorEnv`: many Pigugnìn games in NumPy arrays, stepped by numba kernels.

Imported only by `envs.pigugnin_v0.vector_env()` (it needs numba). The rules are those of
`envs/pigugnin/game.py` (the AEC engine is the reference; `tests/envs/test_pigugnin_batched.py`
checks the two step by step) and the observation buffer `buf[i]` holds, byte for byte, what
`PigugninObserver.buf` holds for the same state (the base gathers each seat's view from it).
Every flag of the AEC env is supported.

State arrays (`self.state`, first axis the game; N = `num_players`, seats absolute):

| name | dtype, shape | meaning |
|---|---|---|
| `hands` | int64 (B, N) | card-set bitmask of each seat's hand (bit c = card id c) |
| `trick` | int8 (B, N) | the trick in progress, in play order from `leader` (-1 past `trick_len`) |
| `trick_len` | int8 (B,) | cards in the trick in progress |
| `leader` | int8 (B,) | seat that led (or is to lead) the trick in progress |
| `to_act` | int8 (B,) | seat to play |
| `dealer` | int8 (B,) | dealer of this hand (after the `holder_7D` move in hand 1) |
| `tricks_done` | int8 (B,) | tricks finished in this hand |
| `hand_no` | int32 (B,) | hand number in the episode, from 1 |
| `tricks_won` | int8 (B, N) | tricks taken this hand |
| `points` | int16 (B, N) | card points taken this hand (+3 last trick once the hand is over) |
| `pig_taker` | int8 (B,) | seat that captured JS this hand, -1 until then |
| `busche` | int64 (B, N) | busche totals of the game |
| `order` | int8 (B, 40) | the last deal: card `order[k]` went to seat `(deal_dealer + 1 + k) % N` |
| `deal_dealer` | int8 (B,) | the seat `order` was dealt from (before the `holder_7D` move) |
| `outcome` | int8 (B, N) | result of the last finished episode per seat: -1 none, else an index of `OUTCOMES` |
| `reason` | int8 (B,) | its reason: an index of `REASONS` (0: none) |

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
from envs.core.vector import VectorEnv, rand_below
from envs.pigugnin import game as _game
from envs.pigugnin import observation as _observation
from envs.pigugnin.game import PigugninGame
from envs.pigugnin.observation import PigugninObserver

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
#: int tables of the kernels: strength, card points, suit per card; busche per hand points
_TABLES = np.zeros((4, 40), dtype=np.int64)
_TABLES[0] = _STRENGTH
_TABLES[1] = _CARD_POINTS
_TABLES[2] = np.asarray(ITALIAN.suit_of, dtype=np.int64)
_TABLES[3, : _HAND_TOTAL + 1] = _POINTS_TO_BUSCHE
_SUIT_MASK = np.asarray(ITALIAN.suit_mask, dtype=np.int64)

# Columns of the kernels' int config (flags, constants and the buffer's field offsets).
(C_N, C_HAND, C_RESTRICT, C_TIE_ANY, C_TOP_ALL_PAY, C_CAPP_STANDARD, C_TOP_TWO, C_BOUNDARY_WIN,
 C_LOSS, C_SOLE, C_HAND_EPISODE, C_FIRST_DEALER, C_HOLDER_7D, C_PIG, C_SEVEN_D, C_LAST_BONUS,
 C_HAND_TOTAL) = range(17)
_FIELDS = ("hand", "played", "trick", "trick_leader", "captured", "tricks_won", "points",
           "pig_holder", "busche", "dealer", "num_players")
(O_HAND, O_PLAYED, O_TRICK, O_TRICK_LEADER, O_CAPTURED, O_TRICKS_WON, O_POINTS, O_PIG_HOLDER,
 O_BUSCHE, O_DEALER, O_NUM_PLAYERS) = range(17, 17 + len(_FIELDS))
_CFG_SIZE = 17 + len(_FIELDS)
#: thresholds above this are clamped (no busche total can get there): they fit an int64
_BIG = 1 << 62
#: reward values must add to a hand's busche exactly in float64, as the AEC engine's ints do
_EXACT = 1 << 53


# -- kernels --------------------------------------------------------------------------------------


@nb.njit(cache=True, inline="always")
def _bit(c):
    return np.int64(1) << np.int64(c)


@nb.njit(cache=True)
def _legal(hand, lead_card, k, tricks_done, restrict, pig_card, suit_mask):
    """The legal cards (bitmask) of `hand` (§2.3, with D11 when `restrict`); `k` cards are in the trick."""
    if k > 0:
        m = hand & suit_mask[lead_card // 10]
        if m == 0:
            m = hand
    else:
        m = hand
    if restrict != 0 and tricks_done == 0:
        pig = np.int64(1) << pig_card
        if m & pig:
            spade = pig_card // 10
            if not (k > 0 and lead_card // 10 == spade and (hand & suit_mask[spade]) == pig):
                m2 = m & ~pig
                if m2 != 0:
                    m = m2
    return m


@nb.njit(cache=True)
def _write_mask(i, cfg, suit_mask, hands, trick, trick_len, to_act, tricks_done, mask, current_player):
    """`mask[i]` and `current_player[i]` for the seat to act (the cold path; `_step_all` inlines it)."""
    p = to_act[i]
    m = _legal(hands[i, p], trick[i, 0], trick_len[i], tricks_done[i], cfg[C_RESTRICT], cfg[C_PIG], suit_mask)
    for c in range(40):
        mask[i, c] = (m >> c) & 1
    current_player[i] = p


@nb.njit(cache=True)
def _hand_buf(i, cfg, fcfg, hands, leader, dealer, busche, buf):
    """The whole observer buffer at the start of a hand (the AEC observer's `reset`)."""
    n = cfg[C_N]
    b = buf[i]
    b[:] = 0.0
    for p in range(n):
        h = hands[i, p]
        base = cfg[O_HAND] + 40 * p
        for c in range(40):
            if (h >> c) & 1:
                b[base + c] = 1.0
    b[cfg[O_TRICK_LEADER] + leader[i]] = 1.0
    scale = np.float32(fcfg[4])
    for p in range(n):
        b[cfg[O_BUSCHE] + p] = np.float32(busche[i, p]) / scale
    b[cfg[O_DEALER] + dealer[i]] = 1.0
    b[cfg[O_NUM_PLAYERS] + n - 4] = 1.0


@nb.njit(cache=True)
def _new_hand(i, first, cfg, hands, trick, trick_len, leader, to_act, dealer, deal_dealer, tricks_done, hand_no,
              tricks_won, points, pig_taker, order, rng):
    """HAND_SETUP: shuffle, deal one card at a time from `first`'s right (D2), clear the hand."""
    n = cfg[C_N]
    o = order[i]
    for k in range(40):
        o[k] = k
    for k in range(39, 0, -1):
        j = rand_below(rng, i, k + 1)
        t = o[k]
        o[k] = o[j]
        o[j] = t
    for p in range(n):
        hands[i, p] = 0
        trick[i, p] = -1
        tricks_won[i, p] = 0
        points[i, p] = 0
    for k in range(40):
        p = (first + 1 + k) % n
        hands[i, p] |= _bit(o[k])
    dealer[i] = first
    deal_dealer[i] = first
    leader[i] = (first + 1) % n
    to_act[i] = (first + 1) % n
    trick_len[i] = 0
    tricks_done[i] = 0
    hand_no[i] += 1
    pig_taker[i] = -1


@nb.njit(cache=True)
def _new_episode(i, cfg, fcfg, hands, trick, trick_len, leader, to_act, dealer, deal_dealer, tricks_done, hand_no,
                 tricks_won, points, pig_taker, busche, order, buf, rng):
    """GAME_START: busche at 0, the first dealer (flag or drawn), the first deal, D1b."""
    n = cfg[C_N]
    for p in range(n):
        busche[i, p] = 0
    hand_no[i] = 0
    first = cfg[C_FIRST_DEALER]
    if first < 0:
        first = rand_below(rng, i, n)
    _new_hand(i, first, cfg, hands, trick, trick_len, leader, to_act, dealer, deal_dealer, tricks_done, hand_no,
              tricks_won, points, pig_taker, order, rng)
    if cfg[C_HOLDER_7D] != 0:
        seven = _bit(cfg[C_SEVEN_D])
        for p in range(n):
            if hands[i, p] & seven:
                dealer[i] = (p - 1) % n
                leader[i] = p
                to_act[i] = p
    _hand_buf(i, cfg, fcfg, hands, leader, dealer, busche, buf)


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
    rest = n - count
    if rest <= 2:
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
        v2 = low
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
def _score_hand(i, cfg, tables, tricks_won, points, pig_taker, delta):
    """Busche paid per seat for the hand (§4.3, `game.score_hand`); returns the cappotto maker or -1."""
    n = cfg[C_N]
    for s in range(n):
        delta[s] = 0
    trickless = 0
    for s in range(n):
        if tricks_won[i, s] == 0:
            trickless += 1
    pig = pig_taker[i]
    if trickless > 0:
        for s in range(n):
            if tricks_won[i, s] == 0:
                delta[s] += trickless + 1
        delta[pig] += 1
        if trickless == n - 1:
            for s in range(n):
                if tricks_won[i, s] != 0:
                    return s
        return -1
    top = 0
    for s in range(n):
        delta[s] += tables[3, points[i, s]]
        if points[i, s] > top:
            top = points[i, s]
    if top < 12:
        tied = 0
        for s in range(n):
            if points[i, s] == top:
                tied += 1
        if tied == 1 or cfg[C_TOP_ALL_PAY] != 0:
            for s in range(n):
                if points[i, s] == top:
                    delta[s] += 1
    for s in range(n):
        v = points[i, s]
        if cfg[C_TIE_ANY] != 0 or v >= 12:
            k = 0
            for t in range(n):
                if points[i, t] == v:
                    k += 1
            if k >= 2:
                delta[s] += k - 1
    delta[pig] += 1
    return -1


@nb.njit(cache=True)
def _end_hand(i, winner, cfg, fcfg, tables, hands, trick, trick_len, leader, to_act, dealer, deal_dealer, tricks_done,
              hand_no, tricks_won, points, pig_taker, busche, order, outcome, reason, buf, rng, rewards, terminated):
    """The last trick of game `i` was taken by `winner`: HAND_SCORING and GAME_CHECK (§4.3, §5.2), then the
    next hand (the Pigugnìn taker deals, §1.3) or, when the episode is over, a fresh episode."""
    n = cfg[C_N]
    for j in range(n):
        trick[i, j] = -1
    points[i, winner] += cfg[C_LAST_BONUS]
    delta = np.zeros(n, dtype=np.int64)
    res = np.full(n, -1, dtype=np.int8)
    maker = _score_hand(i, cfg, tables, tricks_won, points, pig_taker, delta)
    for s in range(n):
        busche[i, s] += delta[s]
    why = _game_outcome(busche[i], maker, cfg, res)
    for s in range(n):
        r = np.float64(-delta[s])  # an int first: never -0.0
        if why != 0:
            r += fcfg[res[s]]
        rewards[i, s] = np.float32(r)
    if why != 0 or cfg[C_HAND_EPISODE] != 0:
        terminated[i] = True
        for s in range(n):
            outcome[i, s] = res[s] if why != 0 else -1
        reason[i] = why
        _new_episode(i, cfg, fcfg, hands, trick, trick_len, leader, to_act, dealer, deal_dealer, tricks_done,
                     hand_no, tricks_won, points, pig_taker, busche, order, buf, rng)
    else:
        _new_hand(i, pig_taker[i], cfg, hands, trick, trick_len, leader, to_act, dealer, deal_dealer, tricks_done,
                  hand_no, tricks_won, points, pig_taker, order, rng)
        _hand_buf(i, cfg, fcfg, hands, leader, dealer, busche, buf)


@nb.njit(cache=True)
def _step_all(actions, cfg, fcfg, tables, suit_mask, hands, trick, trick_len, leader, to_act, dealer, deal_dealer,
              tricks_done, hand_no, tricks_won, points, pig_taker, busche, order, outcome, reason, buf, rng, rewards,
              terminated, current_player, mask):
    """One card per game: `game.apply` and `PigugninObserver.update`, then the next seat's mask.

    The hot path is written out in this loop (a call per game costs more than the work here);
    the end of a hand goes to `_end_hand`.
    """
    n = cfg[C_N]
    hand_size = cfg[C_HAND]
    hand_total = cfg[C_HAND_TOTAL]
    restrict = cfg[C_RESTRICT]
    pig_card = cfg[C_PIG]
    o_hand, o_played, o_trick = cfg[O_HAND], cfg[O_PLAYED], cfg[O_TRICK]
    o_leader, o_captured, o_tricks = cfg[O_TRICK_LEADER], cfg[O_CAPTURED], cfg[O_TRICKS_WON]
    o_points, o_pig = cfg[O_POINTS], cfg[O_PIG_HOLDER]
    for i in range(actions.shape[0]):
        card = actions[i]
        seat = np.int64(to_act[i])
        hands[i, seat] ^= np.int64(1) << card
        row = seat * 40 + card
        buf[i, o_hand + row] = 0.0
        buf[i, o_played + row] = 1.0
        k = np.int64(trick_len[i])
        trick[i, k] = card
        k += 1
        if k < n:
            trick_len[i] = k
            buf[i, o_trick + row] = 1.0
            to_act[i] = seat + 1 if seat + 1 < n else 0
        else:
            # Resolve the trick (§3): the strongest card of the led suit wins.
            lead = np.int64(leader[i])
            best = 0
            best_card = np.int64(trick[i, 0])
            led = tables[2, best_card]
            pts = 0
            has_pig = False
            for j in range(n):
                c = np.int64(trick[i, j])
                pts += tables[1, c]
                if c == pig_card:
                    has_pig = True
                if j > 0 and tables[2, c] == led and tables[0, c] > tables[0, best_card]:
                    best = j
                    best_card = c
            winner = (lead + best) % n
            tricks_won[i, winner] += 1
            points[i, winner] += pts
            if has_pig:
                pig_taker[i] = winner
            done = tricks_done[i] + 1
            tricks_done[i] = done
            leader[i] = winner
            to_act[i] = winner
            trick_len[i] = 0
            if done < hand_size:
                base = o_captured + 40 * winner
                for j in range(n):
                    c = trick[i, j]
                    buf[i, o_trick + 40 * ((lead + j) % n) + c] = 0.0
                    buf[i, base + c] = 1.0
                    trick[i, j] = -1
                buf[i, o_tricks + winner] = np.float32(tricks_won[i, winner] / hand_size)
                buf[i, o_points + winner] = np.float32(points[i, winner] / hand_total)
                if has_pig:
                    buf[i, o_pig + winner] = 1.0
                if lead != winner:
                    buf[i, o_leader + lead] = 0.0
                    buf[i, o_leader + winner] = 1.0
            else:
                _end_hand(i, winner, cfg, fcfg, tables, hands, trick, trick_len, leader, to_act, dealer, deal_dealer,
                          tricks_done, hand_no, tricks_won, points, pig_taker, busche, order, outcome, reason, buf,
                          rng, rewards, terminated)
        # The mask of the seat to act now.
        p = to_act[i]
        hand = hands[i, p]
        k = trick_len[i]
        if k > 0:
            m = hand & suit_mask[trick[i, 0] // 10]
            if m == 0:
                m = hand
        else:
            m = hand
        if restrict != 0 and tricks_done[i] == 0:
            m = _legal(hand, trick[i, 0], k, 0, restrict, pig_card, suit_mask)
        for c in range(40):
            mask[i, c] = (m >> c) & 1
        current_player[i] = p


@nb.njit(cache=True)
def _deal_all(indices, cfg, fcfg, suit_mask, hands, trick, trick_len, leader, to_act, dealer, deal_dealer,
              tricks_done, hand_no, tricks_won, points, pig_taker, busche, order, outcome, reason, buf, rng,
              current_player, mask):
    for i in indices:
        _new_episode(i, cfg, fcfg, hands, trick, trick_len, leader, to_act, dealer, deal_dealer, tricks_done,
                     hand_no, tricks_won, points, pig_taker, busche, order, buf, rng)
        for s in range(cfg[C_N]):
            outcome[i, s] = -1
        reason[i] = 0
        _write_mask(i, cfg, suit_mask, hands, trick, trick_len, to_act, tricks_done, mask, current_player)


# -- the env ----------------------------------------------------------------------------------------


class PigugninVectorEnv(VectorEnv):
    """Batched Pigugnìn (see the module docstring); build it with `pigugnin_v0.vector_env(num_envs, **flags)`."""

    game_class = PigugninGame
    observer_class = PigugninObserver
    unsupported: dict[str, str] = {}

    def __init__(self, num_envs: int, **flags: Any):
        super().__init__(num_envs, **flags)
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
        for j, name in enumerate(_FIELDS):
            cfg[O_HAND + j] = self.layout.fields[name].abs_offset
        self._cfg = cfg
        self._fcfg = np.array([*map(float, values), float(_observation.BUSCHE_SCALE)], dtype=np.float64)
        self._tables = _TABLES
        self._suit_mask = _SUIT_MASK

    # -- hooks --------------------------------------------------------------------------
    def _allocate(self, num_envs: int) -> dict[str, np.ndarray]:
        b, n = num_envs, self.num_players
        return {
            "hands": np.zeros((b, n), dtype=np.int64),
            "trick": np.full((b, n), -1, dtype=np.int8),
            "trick_len": np.zeros(b, dtype=np.int8),
            "leader": np.zeros(b, dtype=np.int8),
            "to_act": np.zeros(b, dtype=np.int8),
            "dealer": np.zeros(b, dtype=np.int8),
            "tricks_done": np.zeros(b, dtype=np.int8),
            "hand_no": np.zeros(b, dtype=np.int32),
            "tricks_won": np.zeros((b, n), dtype=np.int8),
            "points": np.zeros((b, n), dtype=np.int16),
            "pig_taker": np.full(b, -1, dtype=np.int8),
            "busche": np.zeros((b, n), dtype=np.int64),
            "order": np.zeros((b, 40), dtype=np.int8),
            "deal_dealer": np.zeros(b, dtype=np.int8),
            "outcome": np.full((b, n), -1, dtype=np.int8),
            "reason": np.zeros(b, dtype=np.int8),
        }

    def _arrays(self) -> tuple:
        st = self.state
        return (
            st["hands"], st["trick"], st["trick_len"], st["leader"], st["to_act"], st["dealer"], st["deal_dealer"],
            st["tricks_done"], st["hand_no"], st["tricks_won"], st["points"], st["pig_taker"], st["busche"],
            st["order"], st["outcome"], st["reason"],
        )

    def _deal(self, indices: np.ndarray) -> None:
        _deal_all(
            np.ascontiguousarray(indices, dtype=np.int64), self._cfg, self._fcfg, self._suit_mask, *self._arrays(),
            self.buf, self.rng, self.current_player, self.mask,
        )

    def _step(self, actions: np.ndarray) -> None:
        _step_all(
            actions, self._cfg, self._fcfg, self._tables, self._suit_mask, *self._arrays(), self.buf, self.rng,
            self.rewards, self.terminated, self.current_player, self.mask,
        )

    def _load(self, i: int, state: Any) -> None:
        n = self.num_players
        st = self.state
        st["hands"][i] = state.hands
        st["trick"][i] = -1
        st["trick"][i, : len(state.trick)] = state.trick
        st["trick_len"][i] = len(state.trick)
        st["leader"][i] = state.leader
        st["to_act"][i] = state.to_act
        st["dealer"][i] = state.dealer
        st["tricks_done"][i] = state.tricks_done
        st["hand_no"][i] = state.hand_no
        st["tricks_won"][i] = state.tricks_won
        st["points"][i] = state.points
        st["pig_taker"][i] = state.pig_taker
        st["busche"][i] = state.busche
        order = np.zeros(40, dtype=np.int8)
        for p, cards in enumerate(state.deal):
            first = (p - state.dealer - 1) % n
            order[first::n] = cards
        st["order"][i] = order
        st["deal_dealer"][i] = state.dealer
        st["outcome"][i] = -1
        st["reason"][i] = 0
        self.current_player[i] = state.to_act
        legal = self.game.legal_mask(state)
        self.mask[i] = [(legal >> c) & 1 for c in range(self.num_actions)]

    def _parse_options(self, options):
        setups = super()._parse_options(options)
        for i, setup in enumerate(setups):
            if setup is not None and any(t >= _BIG for t in setup.get("busche", ())):
                raise DealError(f"game {i}: {self.game.name}: vector_env holds busche totals below 2**62; got {setup['busche']}")
        return setups
