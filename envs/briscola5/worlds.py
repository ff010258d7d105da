"""Briscola in cinque: determinization for the search players (issue 13).

A seat sees only its own observations. `Briscola5Tracker` folds them into what the seat knows
(`Briscola5View`), and `sample_worlds(view, n, rng)` draws complete engine states
(`Briscola5State`, exactly what `Briscola5Game.new_state` + `apply` produce) uniformly among the
deals consistent with that knowledge. Search players play these worlds out with `apply`, or load
them into the batched engine (`VectorEnv.load`).

Everything public is in the observation, so the view is rebuilt from the latest one: the
forfeit answers, the auction (its order is forced: a pass is final, bids strictly rise and the
turn goes round the seats that have not passed, so the bid and pass sets give the sequence), the
contract and call, and every trick in play order (`played_by` and `played_in_trick` give each
trick's cards; the first leader is fixed by the flags and each winner leads the next trick).
Only the hand counters that the observation does not hold are tracked across observations.

What a world must respect (rules: `docs/rules/briscola5.md`; `dealt` = the seat's hand now plus
the cards it has played):

| fact the seat knows | how it constrains the hidden cards |
|---|---|
| its own hand, every card played and by whom | fixed; the other seats hold exactly the unseen cards, each as many as the trick in progress leaves it (8 minus its plays) |
| forfeit check over (auction, call, play) with `forfeit_enabled` | a seat that answered NO_FORFEIT was dealt 0 card points; every other seat was not asked, so its `dealt` has points (a seat that has not played a point card holds one) |
| forfeit check in progress (spec 2.2: 0-point seats asked in playing order from `next(dealer)`) | the seats that declined were dealt 0 points; the not-asked seats before the last of them have points; the seat to answer now is the first 0-point seat after it: the observer when its mask is set (so the seats in between have points, those after are free), else another seat (at least one 0-point hand among the seats that can be asked before the observer); with a bare vector (no mask) at least one 0-point seat is left |
| `forfeit_enabled=False` | no constraint (no seat is ever asked) |
| the call, `holds_called` unset, card unplayed | the called card is in another seat's hand; the caller may hold it (a solo, "chiamata in mano") iff `allow_call_own_card` (B13) |
| `holds_called` set | the seat holds or played the called card (partner, or solo caller) |
| the called card played | the partner is its player (public) |
| bids, passes, the choice of the called card | no constraint: cheap talk, no inference about hands (a world may give any hand to any bid) |
| no duty to follow suit (B15) | a card played reveals no void |

Sampling is exact, not rejection: a hand of 0 points has probability 0.0016 at the deal, so the
constraints are applied constructively. The count of deals depends only on how many point cards
each hidden seat receives (`k`): for each vector `k` allowed by the constraints the number of
deals is `multinomial(point cards; k) * multinomial(0-point cards; sizes - k)` (times the share
of them that keeps the called card away from the caller when `allow_call_own_card=False`).
`k` is drawn with these weights, then the point and the 0-point cards are dealt by uniform
random arrangements; a called card dealt to the caller is swapped with a uniformly chosen card
of the same kind held by another seat, which keeps the result uniform. The weights are computed
once per view.

Hidden engine fields a world sets: `hands`, `dealt`, `partner` (the holder of the called card,
until it is revealed), `forfeit_queue` and `to_act` during the forfeit check, and `rng` (a fresh generator seeded from
the sampler's `rng`, one per call shared by its worlds: it only deals later hands, unknowable). `records` is
empty: the engine's records of earlier hands are not in the observation (a world is right for the
hand in progress and the classifica). `hand_no` and `consecutive_void` are not observable either:
with `void_hands_count=True` the hand number is `hands_played + 1` (exact); otherwise it and the
run of void hands are counted from the dealer's rotation between observations (void hands that
ended before the seat acted are inferred; five of them in a row would go unseen).
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, field
from math import lgamma
from typing import Any

import numpy as np

from envs.briscola5.game import (
    AUCTION,
    BID,
    BID_MIN,
    CALL,
    CALL_CARD,
    FORFEIT_CHECK,
    HAND_SIZE,
    NO_FORFEIT,
    NUM_PLAYERS,
    OVER,
    PASS,
    POINTS,
    STRENGTH,
    SUIT,
    TRICK_PLAY,
    Briscola5Game,
    Briscola5State,
)
from envs.briscola5.observation import OBS_SIZE, decode
from envs.core.errors import ConfigError
from envs.core.trick import trick_winner

__all__ = [
    "Briscola5Tracker", "Briscola5View", "Tracker", "View", "clone_state", "hand_no", "sample_worlds",
    "vector_hand_no", "view_of",
]

N = NUM_PLAYERS
FULL = (1 << 40) - 1
POINT_MASK = sum(1 << c for c in range(40) if POINTS[c] > 0)
_PHASES = {"forfeit_check": FORFEIT_CHECK, "auction": AUCTION, "call": CALL_CARD, "trick_play": TRICK_PLAY,
           "over": OVER}
_LOG_FACT = np.array([lgamma(i + 1) for i in range(41)])


def _bits(cards) -> int:
    m = 0
    for c in cards:
        m |= 1 << c
    return m


@dataclass(frozen=True, eq=False)
class Briscola5View:
    """What one seat knows at one point of an episode (absolute seats; card sets as bitmasks)."""

    game: Briscola5Game  #: the rules (flags) of the episode
    seat: int  #: the observer's absolute seat
    phase: int  #: game.py's phase int (OVER once the episode has ended)
    acting: bool | None  #: the observer is to act (its mask is set); None when observed without a mask
    dealer: int
    hand_no: int  #: hand number within the episode (see the module docstring: exact or inferred)
    hands_played: int  #: hands counted toward num_hands before this one
    consecutive_void: int  #: void hands in a row before this one (inferred)
    scores: tuple[int, ...]  #: the classifica
    hand: int  #: the observer's cards now
    holds_called: bool  #: the observer was dealt the called card (after the call)
    declined: int  #: seats (bits) that answered NO_FORFEIT, in playing order from next(dealer)
    auction: tuple[tuple[int, int], ...]  #: (seat, bid value or 0 for a pass) in order, as `state.bids`
    caller: int  #: -1 before the auction ends
    contract: int
    called: int  #: the called card, -1 before the call
    plays: tuple[tuple[int, int], ...]  #: (seat, card) of every card played this hand, in order
    _cache: dict = field(default_factory=dict, repr=False, compare=False)

    @property
    def flags(self) -> Mapping[str, Any]:
        return self.game.flags

    @property
    def played(self) -> tuple[int, ...]:
        """Cards (bitmask) each seat has played this hand."""
        out = [0] * N
        for p, c in self.plays:
            out[p] |= 1 << c
        return tuple(out)

    def actions(self) -> list[tuple[int, int]]:
        """The public action sequence `(seat, action id)` of the hand so far, in order."""
        first = (self.dealer + 1) % N
        out = [(p, NO_FORFEIT) for p in ((first + i) % N for i in range(N)) if self.declined >> p & 1]
        out += [(p, BID + v - BID_MIN if v else PASS) for p, v in self.auction]
        if self.called >= 0:
            out.append((self.caller, CALL + self.called))
        out += list(self.plays)
        return out


def _auction_sequence(first: int, bids: dict[int, list[int]], passed: int) -> list[tuple[int, int]]:
    """The auction's order from its bid and pass sets (module docstring). Raises ValueError if none."""
    remaining = {p: sorted(v) for p, v in bids.items() if v}
    values = sorted(v for vs in remaining.values() for v in vs)
    if len(set(values)) != len(values):
        raise ValueError(f"briscola5 worlds: the observation shows the same bid twice ({values})")
    total = len(values) + passed.bit_count()
    seq: list[tuple[int, int]] = []
    done = 0
    turn, i = first, 0
    while len(seq) < total:
        rem = remaining.get(turn)
        if rem and i < len(values) and rem[0] == values[i]:
            seq.append((turn, rem.pop(0)))
            i += 1
        elif passed >> turn & 1 and not rem and not done >> turn & 1:
            seq.append((turn, 0))
            done |= 1 << turn
        else:
            raise ValueError(
                f"briscola5 worlds: no auction order gives these bids {bids} and passes (seats "
                f"{[p for p in range(N) if passed >> p & 1]}): player_{turn} cannot act next"
            )
        if done == (1 << N) - 1:
            break
        turn = (turn + 1) % N
        while done >> turn & 1:
            turn = (turn + 1) % N
    if len(seq) != total:
        raise ValueError("briscola5 worlds: the auction in the observation goes on after everyone passed")
    return seq


def _play_sequence(game: Briscola5Game, d: dict, seat: int, dealer: int, caller: int, called: int):
    """Every card played this hand, in order, from the observation's per-trick sets."""
    played = d["played"]
    if not played:
        return ()
    if called < 0:
        raise ValueError("briscola5 worlds: cards were played before the call")
    trump = SUIT[called]
    tricks: dict[int, list[tuple[int, int]]] = {}
    for t, r, c in played:
        tricks.setdefault(t, []).append(((seat + r) % N, c))
    leader = caller if game.flags["first_lead"] == "caller" else (dealer + 1) % N
    out: list[tuple[int, int]] = []
    count = len(tricks)
    for t in range(count):
        cards = tricks.get(t)
        if not cards or len(cards) > N or len({p for p, _ in cards}) != len(cards):
            raise ValueError(f"briscola5 worlds: trick {t + 1} in the observation is not a trick ({cards})")
        order = sorted(cards, key=lambda pc: (pc[0] - leader) % N)
        if any(p != (leader + i) % N for i, (p, _) in enumerate(order)):
            raise ValueError(f"briscola5 worlds: trick {t + 1} was not played in turn from player_{leader}")
        out.extend(order)
        if len(order) == N:
            leader = (leader + trick_winner([c for _, c in order], SUIT, STRENGTH, trump)) % N
        elif t != count - 1:
            raise ValueError(f"briscola5 worlds: trick {t + 1} is incomplete but a later one was played")
        else:
            shown = d["trick_leader"]
            if shown is None or (seat + shown) % N != leader:
                raise ValueError("briscola5 worlds: the trick in progress has another leader than the tricks imply")
    return tuple(out)


class Briscola5Tracker:
    """Folds one seat's observations into a `Briscola5View` (see the module docstring).

    `seat` is the absolute seat the observer gets in the views and worlds (observations are
    seat-relative, so any seat works; pass the real one to compare worlds with the real state).
    """

    def __init__(self, flags: Mapping[str, Any] | None = None, seat: int = 0):
        if isinstance(seat, bool) or not isinstance(seat, (int, np.integer)) or not 0 <= seat < N:
            raise ConfigError(f"briscola5 worlds: seat must be 0..{N - 1}; got {seat!r}")
        self.game = Briscola5Game(**dict(flags or {}))
        self.seat = int(seat)
        self.reset()

    def reset(self) -> None:
        """A new episode."""
        self._key: bytes | None = None
        self._view: Briscola5View | None = None
        self._hand: tuple | None = None  # (dealer, hands_played, own dealt cards, progress, scores) of the last hand seen
        self._hand_no = 0
        self._void_run = 0

    def observe(self, observation: Any) -> None:
        """The seat's observation (the env's dict, or the bare float vector)."""
        if isinstance(observation, Mapping):
            vec = observation["observation"]
            mask = observation.get("action_mask")
            acting = None if mask is None else bool(np.asarray(mask).any())
        else:
            vec, acting = observation, None
        vec = np.asarray(vec, dtype=np.float32)
        if vec.shape != (OBS_SIZE,):
            raise ValueError(f"briscola5 worlds: an observation has shape ({OBS_SIZE},); got {vec.shape}")
        key = vec.tobytes() + bytes([0 if acting is None else 1 + acting])
        if key == self._key:
            return
        self._key = key
        self._view = self._build(decode(vec), acting)

    def view(self) -> Briscola5View:
        """What the seat knows now (an immutable snapshot)."""
        if self._view is None:
            raise ValueError("briscola5 worlds: the tracker has observed nothing since reset()")
        return self._view

    def _build(self, d: dict, acting: bool | None) -> Briscola5View:
        game, seat = self.game, self.seat
        nh = game.flags["num_hands"]
        rel = d["match_scores"]  # relative seats
        scores = tuple(int(round(rel[(p - seat) % N] * 24 * nh)) for p in range(N))
        phase = _PHASES[d["phase"]]
        declined = _bits((seat + r) % N for r in d["forfeit_declined"])
        hand = _bits(d["hand"])
        if phase == OVER:
            return Briscola5View(game, seat, OVER, acting, -1, self._hand_no, nh, self._void_run, scores, hand,
                                 False, declined, (), -1, -1, -1, ())
        hands_played = nh - 1 - int(round(d["hands_left"] * nh))
        dealer = (seat + d["dealer"]) % N
        first = (dealer + 1) % N
        bids = {(seat + r) % N: v for r, v in d["bids"].items()}
        passed = _bits((seat + r) % N for r in d["passed"])
        auction = tuple(_auction_sequence(first, bids, passed))
        caller = -1 if d["caller"] is None else (seat + d["caller"]) % N
        contract = -1 if d["contract"] is None else d["contract"]
        called = -1 if d["called_card"] is None else d["called_card"]
        plays = _play_sequence(game, d, seat, dealer, caller, called)
        own_dealt = hand | _bits(c for p, c in plays if p == seat)
        progress = declined.bit_count() + len(auction) + (called >= 0) + len(plays)
        self._count_hands(dealer, hands_played, own_dealt, progress, scores)
        return Briscola5View(game, seat, phase, acting, dealer, self._hand_no, hands_played, self._void_run,
                             scores, hand, bool(d["holds_called"]), declined, auction, caller, contract, called,
                             plays)

    def _count_hands(self, dealer: int, hands_played: int, own_dealt: int, progress: int, scores: tuple) -> None:
        """Hand number and void run (not in the observation): exact when void hands count, else inferred."""
        counts = self.game.flags["void_hands_count"]
        last = self._hand
        self._hand = (dealer, hands_played, own_dealt, progress, scores)
        if last is not None and hands_played < last[1]:
            last = None  # a new episode without reset(): start counting again
        if last is None:  # the first hand this tracker sees
            unseen = 0
            first_dealer = self.game.flags["first_dealer"]
            if counts:
                unseen = hands_played  # every hand counted: hand_no is exact
            elif first_dealer != "random":
                unseen = (dealer - first_dealer) % N
            self._hand_no = hands_played + 1 + (0 if counts else unseen)
            # hands before this one that the seat did not see were voided before it acted (a
            # scored hand needs its bids and cards), unless the classifica shows scored hands
            self._void_run = 0 if any(scores) else unseen
            return
        l_dealer, l_played, l_dealt, l_progress, l_scores = last
        if dealer == l_dealer and hands_played == l_played and own_dealt == l_dealt and progress >= l_progress:
            return  # the same hand
        gap = hands_played - l_played if counts else ((dealer - l_dealer) % N or N)
        gap = max(gap, 1)
        scored = scores != l_scores  # every seat's credit is non-zero in a scored hand
        self._void_run = gap - 1 if scored else self._void_run + gap
        self._hand_no = hands_played + 1 if counts else self._hand_no + gap


# -- sampling ----------------------------------------------------------------------------------------


@dataclass
class _Tables:
    hidden: tuple[int, ...]  # the other seats
    played: tuple[int, ...]
    cards: np.ndarray  # unseen cards: the point cards first (the called card first of its kind)
    n_point: int
    bits: np.ndarray  # int64 1 << card, in `cards` order
    labels: np.ndarray  # (M, len(cards)): each allowed k vector's sorted seat labels
    cum: np.ndarray  # cumulative weights of the k vectors
    forbidden: int  # seat that may not hold the called card, or -1
    called_at: int  # index in `cards` of the unplayed called card when `forbidden` applies, else -1
    first: int


def _status(view: Briscola5View, own_zero: bool) -> tuple[list[str], list[int] | None]:
    """Per seat 'Z' (dealt 0 points), 'P' (dealt points) or 'F' (free), and a set of seats of which
    at least one was dealt 0 points (or None). Raises ValueError when the forfeit answers are impossible."""
    flags, seat = view.game.flags, view.seat
    status = ["F"] * N
    if not flags["forfeit_enabled"]:
        if view.declined or view.phase == FORFEIT_CHECK:
            raise ValueError("briscola5 worlds: a forfeit check with forfeit_enabled=False")
        return status, None
    first = (view.dealer + 1) % N
    order = [(first + i) % N for i in range(N)]
    pos = {p: i for i, p in enumerate(order)}
    declined = view.declined
    if view.phase != FORFEIT_CHECK:
        return ["Z" if declined >> p & 1 else "P" for p in range(N)], None
    last = max((pos[p] for p in range(N) if declined >> p & 1), default=-1)
    for p in order:
        status[p] = "Z" if declined >> p & 1 else "P" if pos[p] < last else "F"
    after = [p for p in order if pos[p] > last]  # the seat to answer now is the first 0-point one of these
    need = None
    if view.acting:
        if seat not in after:
            raise ValueError(f"briscola5 worlds: player_{seat} is asked to forfeit after answering")
        for p in after:
            if pos[p] < pos[seat]:
                status[p] = "P"
        status[seat] = "Z"
    elif view.acting is False:
        if own_zero and seat in after:  # the observer waits its turn: someone before it answers now
            need = [p for p in after if pos[p] < pos[seat]]
        else:
            need = [p for p in after if p != seat]
    elif not (own_zero and seat in after):
        need = [p for p in after if p != seat]
    if need is not None and not need:
        raise ValueError("briscola5 worlds: the forfeit check goes on but no seat is left to answer it")
    return status, need


def _tables(view: Briscola5View) -> _Tables:
    t = view._cache.get("tables")
    if t is not None:
        return t
    if view.phase == OVER:
        raise ValueError("briscola5 worlds: the episode is over; there is no hand in progress to sample")
    seat, flags = view.seat, view.game.flags
    played = view.played
    seen = view.hand
    for m in played:
        if seen & m:
            raise ValueError("briscola5 worlds: a card is both held and played")
        seen |= m
    sizes = [HAND_SIZE - m.bit_count() for m in played]
    if view.hand.bit_count() != sizes[seat] or min(sizes) < 0:
        raise ValueError(f"briscola5 worlds: player_{seat} holds {view.hand.bit_count()} cards, but its plays leave {sizes[seat]}")
    unseen = FULL & ~seen
    hidden = tuple(p for p in range(N) if p != seat)
    if unseen.bit_count() != sum(sizes[p] for p in hidden):
        raise ValueError("briscola5 worlds: the unseen cards do not fill the other seats' hands")
    own_dealt = view.hand | played[seat]
    called, caller = view.called, view.caller
    forbidden, star = -1, -1
    if called >= 0:
        bit = 1 << called
        if view.holds_called != bool(own_dealt & bit):
            raise ValueError(f"briscola5 worlds: holds_called={view.holds_called}, but the called card is "
                             f"{'' if own_dealt & bit else 'not '}among player_{seat}'s cards")
        if not flags["allow_call_own_card"]:
            if caller == seat and own_dealt & bit or played[caller] & bit:
                raise ValueError("briscola5 worlds: the caller holds the called card with allow_call_own_card=False")
            if unseen & bit and caller != seat:
                forbidden, star = caller, called
    status, need = _status(view, not (own_dealt & POINT_MASK))
    if status[seat] == "Z" and own_dealt & POINT_MASK or status[seat] == "P" and not own_dealt & POINT_MASK:
        raise ValueError(f"briscola5 worlds: the forfeit check disagrees with player_{seat}'s own hand")
    point = [c for c in range(40) if (unseen & POINT_MASK) >> c & 1]
    zero = [c for c in range(40) if (unseen & ~POINT_MASK) >> c & 1]
    for group in (point, zero):
        if star in group:
            group.remove(star)
            group.insert(0, star)
    n_point, n_zero = len(point), len(zero)
    lo = np.zeros(N - 1, dtype=np.int64)
    hi = np.zeros(N - 1, dtype=np.int64)
    for i, p in enumerate(hidden):
        h = sizes[p]
        low, high = 0, h
        if status[p] == "Z":
            if played[p] & POINT_MASK:
                raise ValueError(f"briscola5 worlds: player_{p} answered the forfeit check but has played a point card")
            high = 0
        elif status[p] == "P" and not played[p] & POINT_MASK:
            low = 1
        lo[i], hi[i] = max(low, h - n_zero), min(high, n_point)
    # Every k vector (point cards per hidden seat) within the bounds and summing to n_point.
    grid = np.indices(tuple(np.maximum(hi[:-1] - lo[:-1] + 1, 0))).reshape(N - 2, -1).T + lo[:-1]
    last = n_point - grid.sum(axis=1)
    ok = (last >= lo[-1]) & (last <= hi[-1])
    karr = np.concatenate([grid[ok], last[ok, None]], axis=1)
    if need is not None:
        cols = [hidden.index(p) for p in need]
        karr = karr[(karr[:, cols] == 0).any(axis=1)]
    if not len(karr):
        raise ValueError("briscola5 worlds: no deal of the unseen cards agrees with everything this seat knows")
    harr = np.array([sizes[p] for p in hidden], dtype=np.int64)
    logw = (_LOG_FACT[n_point] - _LOG_FACT[karr].sum(axis=1)
            + _LOG_FACT[n_zero] - _LOG_FACT[harr - karr].sum(axis=1))
    called_at = -1
    if forbidden >= 0:
        f = hidden.index(forbidden)
        # the share of those deals in which the called card is not the caller's
        share = (n_point - karr[:, f]) if star in point else (n_zero - (harr[f] - karr[:, f]))
        with np.errstate(divide="ignore"):
            logw = logw + np.log(share.astype(np.float64))
        called_at = 0 if star in point else n_point
    w = np.exp(logw - logw.max())
    if not np.isfinite(w).all() or w.sum() <= 0:
        raise ValueError("briscola5 worlds: no deal of the unseen cards agrees with everything this seat knows")
    # Each k vector's sorted labels: the point cards' seats, then the 0-point cards' seats.
    seats = np.array(hidden, dtype=np.int8)
    m = len(karr)
    labels = np.concatenate([
        np.repeat(np.tile(seats, m), karr.ravel()).reshape(m, n_point),
        np.repeat(np.tile(seats, m), (harr - karr).ravel()).reshape(m, n_zero),
    ], axis=1)
    cards = np.array(point + zero, dtype=np.int64)
    t = _Tables(hidden, played, cards, n_point, np.left_shift(np.int64(1), cards), labels, np.cumsum(w), forbidden,
                called_at, (view.dealer + 1) % N)
    view._cache["tables"] = t
    return t


def _replay(view: Briscola5View, dealt: list[int]) -> Briscola5State:
    """The hand so far from this deal: the view's public actions through the engine, checked legal."""
    game = view.game
    s = game.new_state(None, {"dealer": view.dealer, "hands": dealt})
    s.hand_no, s.hands_played, s.consecutive_void = view.hand_no, view.hands_played, view.consecutive_void
    s.scores = list(view.scores)
    for p, a in view.actions():
        if s.to_act != p or not game.legal_mask(s) >> a & 1:
            raise ValueError(f"briscola5 worlds: the public history is not legal in a sampled world "
                             f"({game.action_name(a)} by player_{p}; player_{s.to_act} is to act)")
        if game.apply(s, a) is not None or s.hand_no != view.hand_no:
            raise ValueError("briscola5 worlds: the public history ends the hand in a sampled world")
    if s.phase != view.phase:
        raise ValueError("briscola5 worlds: the public history leads to another phase than the observation's")
    s.records = []
    s.rng = None
    return s


def sample_worlds(view: Briscola5View, n: int, rng: np.random.Generator) -> list[Briscola5State]:
    """`n` engine states drawn uniformly from the deals consistent with `view` (module docstring).

    Deterministic for a given `rng` state. Raises ValueError when no deal is consistent (or the
    episode is over)."""
    if isinstance(n, bool) or not isinstance(n, (int, np.integer)) or n < 0:
        raise ValueError(f"briscola5 worlds: n must be an int >= 0; got {n!r}")
    t = _tables(view)
    if n == 0:
        return []
    n = int(n)
    cum = t.cum
    idx = np.minimum(np.searchsorted(cum, rng.random(n) * cum[-1], side="right"), len(cum) - 1)
    labels = t.labels[idx]
    size = labels.shape[1]
    if size:
        order = np.concatenate([np.argsort(rng.random((n, t.n_point)), axis=1),
                                t.n_point + np.argsort(rng.random((n, size - t.n_point)), axis=1)], axis=1)
        labels = np.take_along_axis(labels, order, axis=1)
    if t.forbidden >= 0:
        # The called card dealt to the caller: swap it with a uniform card of its kind held by another seat.
        j = t.called_at
        lo, hi = (0, t.n_point) if j < t.n_point else (t.n_point, size)
        for i in np.flatnonzero(labels[:, j] == t.forbidden).tolist():
            others = lo + np.flatnonzero(labels[i, lo:hi] != t.forbidden)
            r = int(others[rng.integers(len(others))])
            labels[i, j], labels[i, r] = labels[i, r], labels[i, j]
    hands = np.zeros((n, N), dtype=np.int64)
    for p in t.hidden:
        hands[:, p] = np.where(labels == p, t.bits, 0).sum(axis=1)
    hands[:, view.seat] = view.hand
    # One generator for the worlds of this call: it deals the hands after the one in progress, which
    # no seat can know (search plays out the hand in progress; clone_state shares it, as state.copy).
    gen = np.random.Generator(np.random.PCG64(int(rng.integers(0, 2**63))))
    played = t.played
    template = view._cache.get("template")
    worlds = []
    for row in hands.tolist():
        dealt = [row[p] | played[p] for p in range(N)]
        if template is None:
            template = view._cache["template"] = _replay(view, dealt)
        w = clone_state(template)
        w.rng = gen
        w.hands = row
        w.dealt = dealt
        if view.called >= 0 and not w.revealed:
            bit = 1 << view.called
            w.partner = next(p for p in range(N) if dealt[p] & bit)
        if view.phase == FORFEIT_CHECK:
            queue = [p for p in ((t.first + i) % N for i in range(N))
                     if not view.declined >> p & 1 and not dealt[p] & POINT_MASK]
            w.forfeit_queue = queue
            w.to_act = queue[0]
        worlds.append(w)
    return worlds


# -- engine helpers ------------------------------------------------------------------------------------

_STATE_NEW = Briscola5State.__new__


def clone_state(s: Briscola5State) -> Briscola5State:
    """An independent copy for search (lists copied; the generator and the finished hands' record
    dicts, which the engine never changes, are shared)."""
    o = _STATE_NEW(Briscola5State)
    o.rng = s.rng
    o.phase = s.phase
    o.dealer = s.dealer
    o.hand_no = s.hand_no
    o.hands_played = s.hands_played
    o.consecutive_void = s.consecutive_void
    o.over = s.over
    o.truncated = s.truncated
    o.hands = s.hands[:]
    o.dealt = s.dealt[:]
    o.to_act = s.to_act
    o.forfeit_queue = s.forfeit_queue[:]
    o.forfeit_declined = s.forfeit_declined
    o.bids = s.bids[:]
    o.high = s.high
    o.high_bidder = s.high_bidder
    o.passed = s.passed
    o.caller = s.caller
    o.contract = s.contract
    o.called = s.called
    o.trump = s.trump
    o.partner = s.partner
    o.revealed = s.revealed
    o.leader = s.leader
    o.trick = s.trick[:]
    o.trick_no = s.trick_no
    o.played_by = s.played_by[:]
    o.played_trick = s.played_trick[:]
    o.points = s.points[:]
    o.tricks_won = s.tricks_won[:]
    o.scores = s.scores[:]
    o.records = s.records[:]
    return o


def hand_no(state: Briscola5State) -> int:
    """The hand in progress (1, 2, ...; a search plays out until it changes or the episode ends)."""
    return state.hand_no


def vector_hand_no(vec: Any) -> np.ndarray:
    """`hand_no` of every game of a briscola5 VectorEnv (a view of its state, no copy)."""
    return vec.state["hand_no"]


def view_of(env: Any, agent: str | int) -> Briscola5View:
    """The view of `agent` now, from that seat's observations only: the env's record is replayed
    and the tracker is fed the seat's observation at each of its decisions, then the current one."""
    from envs.records import positions

    raw = getattr(env, "unwrapped", env)
    seat = agent if isinstance(agent, (int, np.integer)) else raw.agent_name_mapping[agent]
    name = raw.possible_agents[seat]
    tracker = Briscola5Tracker(raw.game.flags, seat)
    for pos in positions(raw.episode_record()):
        live = pos.env
        if not live.episode_over and live.agent_selection == name:
            tracker.observe(live.observe(name))
    tracker.observe(raw.observe(name))
    return tracker.view()


#: The generic names of the worlds interface (issue 13).
Tracker = Briscola5Tracker
View = Briscola5View
