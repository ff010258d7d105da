"""Picchetto: determinization for search players (issue 13): what one seat knows, and complete
engine states ("worlds") drawn uniformly from those consistent with it.

`Tracker` folds one seat's observations (seat-relative dicts or vectors, see
`envs.picchetto.observation`) into a `PicchettoView`; `sample_worlds(view, n, rng)` returns `n`
`PicchettoState`s that `PicchettoGame.apply` and `PicchettoVectorEnv.load` continue from.
NumPy only (no numba, no torch).

## What the seat knows, and how each fact constrains a world

E is the elder, D the dealer, "op" the opponent; `de`, `dd` the cards E and D exchanged; the talon
is `T[0..7]` (E draws `T[0..de-1]`, D draws `T[de..de+dd-1]`, the rest `L` is left over). H_op is
the opponent's hand after the exchange (= its hand at the declarations = its current hand plus
every card it has played this hand).

| the seat knows (source)                                   | constraint on a world                                                         |
|-----------------------------------------------------------|-------------------------------------------------------------------------------|
| own hand, discards, drawn cards (obs `hand`, `discards`, `drawn`) | own dealt 12 = hand + played + discards - drawn; own drawn cards sit at own talon positions |
| `allow_peek`, seat E: `T[de..4]` as a set P (obs `peeked`)  | P is at `T[de..4]`: D drew `T[de..de+dd-1]`, so H_op holds exactly `min(dd, 5-de)` cards of P (all of P when `dd > 5-de`); the rest of P is left over; op never dealt a card of P |
| `allow_peek`, seat D: the leftover L (obs `peeked`)         | L is exactly the leftover                                                     |
| `reveal_leftover_talon` (obs `leftover`)                    | L is exactly the leftover                                                     |
| cards exchanged by each seat (obs `exchanged`)              | op discarded `d_op` of its dealt cards and drew `d_op` from its talon positions; `|L| = 8-de-dd` |
| op's Bianco (obs `bonuses`, `bianco_hand`)                  | op's dealt 12 = the shown cards: op's kept cards are in them, its drawn ones are not, its discards are the shown cards it no longer holds |
| op not Bianco (E's at the deal; D's once E has exchanged)   | op's dealt 12 hold at least one J/Q/K                                         |
| the three declarations (obs `answers`, `point_value`, `sequence`, `sets`, `decl_points`, `revealed`) | `declare(H_E, H_D)` gives exactly the public answers, announced holdings, declaration points and cards shown (point value, best sequence (length, top), best set (size, rank), va bene / uguale / non basta / nessuno): checked on H_op, not on op's current hand |
| cards shown in the declarations (obs `revealed`)            | they are in H_op                                                              |
| repique, pique, trick and hand/game scores                  | public numbers copied into the world (they follow from the public events)     |
| every card played, by whom (obs `played`)                   | in H_op (op's) / the seat's own; not in any hand now                          |
| op did not follow suit to a card a (inferred trick pairing) | op's current hand has no card of a's suit                                     |
| op followed lower in suit with `must_head_trick`            | op's current hand has no card of a's suit above a                             |
| dealer, scores, games won, game number, target (obs)        | copied; the hand number is the tracker's count of hands seen                  |

Tricks: the observation's `played` does not pair cards into tricks, so the tracker pairs them
from consecutive observations (in 2 players the seat sees every trick: it follows a visible lead,
or it led and the reply is in its next observation). A tracker that starts in the middle of a
hand, or misses a whole trick between two observations, cannot pair those tricks: it keeps what
it can still prove (everything in the table but those voids; `view.complete` is False) and its
worlds then satisfy every constraint above except the unproven voids, so such a world may not
replay the real trick history legally.

## Sampling

Before the declarations every constraint is a count or a card set, and the worlds are drawn
exactly uniformly by shuffling (with rejection on "op's dealt cards hold a J/Q/K", accepted at
least 12 times in 20 when possible). After the declarations the opponent's unknown cards X
(H_op = known cards + X) are enumerated once per view (all subsets of the candidate cards of the
right size, vectorized: at most C(20, 10) = 184,756), filtered by the count constraints and by the
declarations recomputed for every candidate in NumPy, and cached on the view; each world then
draws X uniformly from the survivors and completes it (which of op's cards were drawn, which
cards were discarded, the leftover, the talon order within each packet). Given X the number of
completions is the same for every X (each case of the table fixes the sizes of the sets the
completion chooses from), so drawing X uniformly and the completion uniformly is uniform over
worlds; the one completion-dependent constraint (op's dealt cards hold a face card) is applied by
rejecting the whole world. The sampler is exact, not approximate; `tests/envs/
test_picchetto_worlds.py` checks it against brute-force enumeration with a chi-square test.
Worlds that differ only in the order of cards inside one talon segment (E's draws, D's draws,
the leftover, P) cannot be told apart by anyone; that order is drawn uniformly.

Limits. "Uniform" counts every consistent world once: the opponent's hidden choices (its
discards) are not weighed by how likely a policy was to make them (no opponent model). Draws use
floats in [0, 1) scaled to the range (a bias below 2^-50). Scores are read from the observation,
which clips them at 4 x the target (only tiny custom targets reach that). `hand_no` of a world is
the tracker's count of hands (a hand that a Bianco ends at its deal, unseen by the seat, is not
counted); the search only compares it within one world.

Speed (`benchmarks/worlds_picchetto.py`, CPU time, every decision of 20 random games, 32 worlds per
call): a world costs 25-40 us once the view's enumeration exists; the first call on a view (its 32
worlds and the enumeration) takes 1-3 ms on average (99th percentile 9 ms, at the first trick).
`clone_state` costs about 8 us.

A world also carries the public match state: game and hand scores, games won, game number and
target, the dealer, pique/repique, tricks won, the trick in progress, a fresh random generator
(for later deals), the current game's and hand's records (earlier hands' records are not part
of a world) and the hand's scoring events, rebuilt from the public history.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, field
from math import comb
from typing import Any

import numpy as np

from envs.picchetto.game import (
    ANSWERS,
    BIANCO,
    CODES,
    DEALER_EXCHANGE,
    ELDER_EXCHANGE,
    FACE_MASK,
    FIRST_PACKET,
    HIGHER,
    NESSUNO,
    NON_BASTA,
    NUM_TRICKS,
    OVER,
    PIQUE,
    PIQUE_THRESHOLD,
    REPIQUE,
    RUNS,
    SEQUENCE_POINTS,
    SET_POINTS,
    SUIT_MASK,
    SUIT_VALUE,
    TALON_SIZE,
    TRICK_FOLLOW,
    TRICK_LEAD,
    UGUALE,
    VA_BENE,
    PicchettoGame,
    PicchettoState,
    declare,
)
from envs.picchetto.observation import OBS_SIZE, PHASE_KEYS, decode

__all__ = [
    "PicchettoTracker", "PicchettoView", "Tracker", "View", "WorldRng", "clone_state", "hand_no", "sample_worlds",
    "vector_hand_no", "view_of",
]

ALL = (1 << 32) - 1
#: `enumeration` above this many subsets raises (it cannot happen: at most C(20, 10) = 184,756)
ENUM_LIMIT = 400_000
#: world draws before `sample_worlds` gives up on the face-card rejection
MAX_TRIES = 10_000


def _mask(cards) -> int:
    m = 0
    for c in cards:
        m |= 1 << c
    return m


def _pc(m: int) -> int:
    return m.bit_count()


# =============================================================================================
# the view
# =============================================================================================


@dataclass(frozen=True, eq=False)
class PicchettoView:
    """What one seat knows at one point of a hand (absolute seats; card sets as int bitmasks).

    Built by `Tracker.view()`; treat it as immutable. `sample_worlds` caches its enumeration of
    the opponent's hands in `_cache` (so many calls on one view pay for it once).
    """

    flags: Mapping[str, Any]
    seat: int
    dealer: int
    phase: int
    hand: int
    discards: int
    drawn: int
    peeked: int
    ndisc: tuple[int, int]
    bianco: tuple[bool, bool]
    bianco_hand: tuple[int, int]
    revealed: tuple[int, int]
    played: tuple[int, int]
    answers: tuple[int, int, int]
    pub_point: tuple[int, int]
    pub_seq: tuple[Any, Any]
    pub_set: tuple[Any, Any]
    decl_points: tuple[tuple[int, int, int], tuple[int, int, int]]
    repique_by: int
    pique_by: int
    led: int
    leader: int
    trick_no: int
    tricks_won: tuple[int, int]
    hand_score: tuple[int, int]
    game_score: tuple[int, int]
    games_won: tuple[int, int]
    game_no: int
    target: int
    leftover: int
    #: cards the opponent's current hand cannot hold (voids shown by its follows)
    excluded: int
    #: completed tricks of the hand as the tracker paired them: (leader, led card, follow card)
    tricks: tuple[tuple[int, int, int], ...]
    #: the tracker saw every trick of this hand (False: joined mid-hand or missed a trick)
    complete: bool
    hand_no: int
    game_winners: tuple[int, ...] = ()
    _cache: dict = field(default_factory=dict, repr=False)

    @property
    def elder(self) -> int:
        return 1 - self.dealer

    @property
    def opponent(self) -> int:
        return 1 - self.seat


# =============================================================================================
# the tracker
# =============================================================================================


def _phase_rank(phase: int) -> int:
    return 2 if phase in (TRICK_LEAD, TRICK_FOLLOW) else (3 if phase == OVER else phase)


class Tracker:
    """Folds one seat's observations into a `PicchettoView` (see the module docstring)."""

    def __init__(self, flags: Mapping | None = None, seat: int = 0):
        if seat not in (0, 1):
            raise ValueError(f"picchetto: seat must be 0 or 1; got {seat!r}")
        self.game = PicchettoGame(**dict(flags or {}))  # checks the flags (ConfigError)
        self.flags = dict(self.game.flags)
        self.seat = seat
        self.reset()

    def reset(self) -> None:
        """A new episode."""
        self._last: dict | None = None
        self._key: bytes | None = None
        self._hand_no = 0
        self._tricks: list[tuple[int, int, int]] = []
        self._excluded = 0
        self._complete = True
        self._game_winners: list[int] = []
        self._view: PicchettoView | None = None

    # -- folding --------------------------------------------------------------------------
    def observe(self, observation) -> None:
        obs = observation["observation"] if isinstance(observation, Mapping) else observation
        obs = np.asarray(obs, dtype=np.float32)
        if obs.shape != (OBS_SIZE,):
            raise ValueError(f"picchetto: an observation is a float vector of shape ({OBS_SIZE},) (or a dict with "
                             f"'observation'); got shape {obs.shape}")
        key = obs.tobytes()
        if key == self._key:
            return
        self._key = key
        d = decode(obs)
        d["phase_i"] = PHASE_KEYS.index(d["phase"])
        last = self._last
        if last is not None and (last["phase_i"] == OVER or d["games_won"][0] < last["games_won"][0]
                                 or d["games_won"][1] < last["games_won"][1]):
            self.reset()  # a new episode without reset(): start counting afresh
            self._key = key
            last = None
        if last is not None and d["games_won"] != last["games_won"]:
            for r in (0, 1):
                for _ in range(d["games_won"][r] - last["games_won"][r]):
                    self._game_winners.append(self._abs(r))
        if last is None or self._new_hand(last, d):
            self._start_hand(d)
        else:
            self._follow(last, d)
        self._last = d
        self._view = None

    def _abs(self, rel: int) -> int:
        return self.seat if rel == 0 else 1 - self.seat

    @staticmethod
    def _new_hand(last: dict, d: dict) -> bool:
        if d["phase_i"] == OVER:
            return False
        if last["phase_i"] == OVER:
            return True
        if d["dealer"] != last["dealer"] or d["games_won"] != last["games_won"]:
            return True
        if d["game_number"] != last["game_number"]:
            return True
        if _phase_rank(d["phase_i"]) < _phase_rank(last["phase_i"]) or d["trick_no"] < last["trick_no"]:
            return True
        for key in ("discards", "drawn"):
            if not set(last[key]) <= set(d[key]):
                return True
        for r in (0, 1):
            if not set(last["played"][r]) <= set(d["played"][r]) or d["hand_score"][r] < last["hand_score"][r]:
                return True
        return False

    def _start_hand(self, d: dict) -> None:
        self._hand_no += 1
        self._tricks = []
        self._excluded = 0
        played = set(d["played"][0]) | set(d["played"][1])
        table = {d["trick_card"]} if d["trick_card"] is not None else set()
        # complete when no trick has been played yet (at most the first lead is on the table)
        self._complete = d["trick_no"] == 0 and played <= table

    def _follow(self, last: dict, d: dict) -> None:
        """Pair the cards played since the last observation into tricks (2 players)."""
        if d["phase_i"] not in (TRICK_LEAD, TRICK_FOLLOW) and d["phase_i"] != OVER:
            return
        before = last["trick_no"] if last["phase_i"] in (TRICK_LEAD, TRICK_FOLLOW) else 0
        done = d["trick_no"] - before
        if d["phase_i"] == OVER or done <= 0:
            return
        if done > 1:
            self._complete = False
            return
        new = [set(d["played"][r]) - set(last["played"][r]) for r in (0, 1)]
        if d["trick_card"] is not None:
            new[d["leader"]].discard(d["trick_card"])
        if last["phase_i"] in (TRICK_LEAD, TRICK_FOLLOW) and last["trick_card"] is not None:
            leader, lead = last["leader"], last["trick_card"]
            if len(new[1 - leader]) != 1 or new[leader]:
                self._complete = False
                return
            (follow,) = new[1 - leader]
        else:
            leader = last["leader"] if last["phase_i"] in (TRICK_LEAD, TRICK_FOLLOW) else 1 - d["dealer"]
            if len(new[0]) != 1 or len(new[1]) != 1:
                self._complete = False
                return
            (lead,), (follow,) = new[leader], new[1 - leader]
        self._tricks.append((self._abs(leader), lead, follow))
        if leader == 0:  # the opponent followed: voids
            if follow >> 3 != lead >> 3:
                self._excluded |= SUIT_MASK[lead >> 3]
            elif follow < lead and self.flags["must_head_trick"]:
                self._excluded |= HIGHER[lead]

    # -- the snapshot -----------------------------------------------------------------------
    def view(self) -> PicchettoView:
        if self._last is None:
            raise ValueError("picchetto: the tracker has observed nothing yet (call observe first)")
        if self._view is None:
            self._view = self._build()
        return self._view

    def _build(self) -> PicchettoView:
        d = self._last
        seat = self.seat

        def ab(pair):  # relative pair -> absolute pair
            return (pair[0], pair[1]) if seat == 0 else (pair[1], pair[0])

        decl = d["declarations"]
        answers = tuple(ANSWERS.index(decl[k]["answer"]) if decl[k]["answer"] is not None else -1
                        for k in ("point", "sequence", "sets"))
        pp = ab([v or 0 for v in decl["point"]["best"]])
        seq = ab([tuple(v) if v is not None else None for v in decl["sequence"]["best"]])
        sets = ab([tuple(v) if v is not None else None for v in decl["sets"]["best"]])
        dp_rel = [tuple(decl[k]["points"][r] for k in ("point", "sequence", "sets")) for r in (0, 1)]
        rep = ab(d["repique"])
        piq = ab(d["pique"])
        game_no = d["game_number"] - 1
        target = self.game.target_of(game_no)
        phase = d["phase_i"]
        dealer = self._abs(d["dealer"])
        if phase in (TRICK_LEAD, TRICK_FOLLOW):
            leader = self._abs(d["leader"])
        else:
            leader = 1 - dealer
        return PicchettoView(
            flags=dict(self.flags), seat=seat, dealer=dealer, phase=phase,
            hand=_mask(d["hand"]), discards=_mask(d["discards"]), drawn=_mask(d["drawn"]),
            peeked=_mask(d["peeked"]), ndisc=ab(d["exchanged"]), bianco=ab(d["bianco"]),
            bianco_hand=ab([_mask(h) for h in d["bianco_hand"]]), revealed=ab([_mask(h) for h in d["revealed"]]),
            played=ab([_mask(h) for h in d["played"]]), answers=answers, pub_point=pp, pub_seq=seq,
            pub_set=sets, decl_points=ab(dp_rel), repique_by=rep.index(True) if any(rep) else -1,
            pique_by=piq.index(True) if any(piq) else -1,
            led=d["trick_card"] if d["trick_card"] is not None else -1, leader=leader,
            trick_no=d["trick_no"], tricks_won=ab(d["tricks_won"]),
            hand_score=ab(d["hand_score"]), game_score=ab(d["game_score"]),
            games_won=ab(d["games_won"]), game_no=game_no, target=target,
            leftover=_mask(d["leftover"]), excluded=self._excluded, tricks=tuple(self._tricks),
            complete=self._complete, hand_no=self._hand_no, game_winners=tuple(self._game_winners),
        )


PicchettoTracker = Tracker
View = PicchettoView


def view_of(env, agent) -> PicchettoView:
    """The view of `agent` now, from what that seat saw only: the env's record is replayed
    (`envs.records.positions`) and the tracker gets the seat's observation at each of its
    decision points, then its current observation."""
    from envs.records import positions

    raw = env.unwrapped
    seat = raw.agent_name_mapping[agent]
    tracker = Tracker(raw.game.flags, seat)
    for pos in positions(raw.episode_record()):
        e = pos.env
        if not e.game.is_over(e.state_) and e.agent_selection == agent:
            tracker.observe(e.observe(agent))
    tracker.observe(raw.observe(agent))
    return tracker.view()


# =============================================================================================
# vectorized declarations (the public outcome of declare() for many hands at once)
# =============================================================================================

_SV = np.array(SUIT_VALUE, dtype=np.int64)
_POP8 = np.array([bin(p).count("1") for p in range(256)], dtype=np.int64)
_RUN_BEST = np.array([max((8 * ln + top for ln, top, _ in RUNS[p]), default=0) for p in range(256)], np.int64)
_RUN_POINTS = np.array([sum(SEQUENCE_POINTS[ln] for ln, _, _ in RUNS[p]) for p in range(256)], np.int64)
_RUN_BITS = np.array([sum(b for _, _, b in RUNS[p]) for p in range(256)], np.int64)
_SET_POINTS = np.array([SET_POINTS.get(n, 0) for n in range(5)], dtype=np.int64)


def _decl_arrays(h: np.ndarray) -> dict[str, np.ndarray]:
    """Per hand (int64 masks): point value/cards/suit mask, best sequence key (8*len+top, 0 none),
    sequence points and bits, best set key (8*size+rank, 0 none), set points and bits."""
    pats = [(h >> (8 * s)) & 0xFF for s in range(4)]
    keys = np.stack([_SV[p] * 16 + _POP8[p] for p in pats])  # (4, n); empty suits have key 0
    suit = keys.argmax(axis=0)  # first maximum: the lowest suit index on ties (point_of)
    pkey = keys.max(axis=0)
    seq_best = np.maximum.reduce([_RUN_BEST[p] for p in pats])
    seq_pts = sum(_RUN_POINTS[p] for p in pats)
    seq_bits = np.bitwise_or.reduce([_RUN_BITS[p] << (8 * s) for s, p in enumerate(pats)])
    set_best = np.zeros_like(h)
    set_pts = np.zeros_like(h)
    set_bits = np.zeros_like(h)
    for r in range(3, 8):
        m = h & (0x01010101 << r)
        cnt = np.bitwise_count(m).astype(np.int64)
        has = cnt >= 3
        set_best = np.maximum(set_best, np.where(has, 8 * cnt + r, 0))
        set_pts += _SET_POINTS[cnt]
        set_bits |= np.where(has, m, 0)
    suit_mask = np.array([SUIT_MASK[s] for s in range(4)], dtype=np.int64)[suit]
    return {"pv": pkey >> 4, "pn": pkey & 15, "psuit": h & suit_mask, "seq": seq_best, "seq_pts": seq_pts,
            "seq_bits": seq_bits, "set": set_best, "set_pts": set_pts, "set_bits": set_bits}


def _answer(e: np.ndarray, d: np.ndarray, zero_none: bool) -> np.ndarray:
    """`_compare` of game.py on integer keys (0 = no holding when `zero_none`)."""
    out = np.where(e > d, VA_BENE, np.where(e < d, NON_BASTA, UGUALE))
    if zero_none:
        out = np.where((e == 0) & (d == 0), NESSUNO, out)
    return out


def _consistent_decl(view: PicchettoView, h_op: np.ndarray, h_me: int) -> np.ndarray:
    """Which candidate post-exchange hands of the opponent give exactly the public declarations."""
    me, op = view.seat, view.opponent
    n = h_op.shape[0]
    a_op = _decl_arrays(h_op)
    a_me = {k: np.broadcast_to(v, (n,)) for k, v in _decl_arrays(np.array([h_me], dtype=np.int64)).items()}
    by = {op: a_op, me: a_me}
    E, D = view.elder, view.dealer
    ok = np.ones(n, dtype=bool)
    win = {VA_BENE: E, NON_BASTA: D}
    rev = np.zeros(n, dtype=np.int64)
    pts = []
    for i, (key, zero_none) in enumerate((("pv", False), ("seq", True), ("set", True))):
        ans = _answer(by[E][key], by[D][key], zero_none)
        ok &= ans == view.answers[i]
        a = view.answers[i]
        shown = a in (UGUALE, NON_BASTA)
        # announced holdings: E's always, D's when he wins or ties
        if i == 0:
            if op == E or shown:
                ok &= a_op["pv"] == view.pub_point[op]
        else:
            pub = (view.pub_seq if i == 1 else view.pub_set)[op]
            if op == E or shown:
                want = 0 if pub is None else 8 * pub[0] + pub[1]
                ok &= a_op[key] == want
        # points and shown cards of the opponent
        if i == 0:
            if a == UGUALE or win.get(a) == op:
                rev |= a_op["psuit"]
            pts.append(a_op["pn"] if win.get(a) == op else 0)
        else:
            won = win.get(a) == op
            bits = a_op["seq_bits" if i == 1 else "set_bits"]
            if won:
                rev |= bits
            pts.append(a_op["seq_pts" if i == 1 else "set_pts"] if won else 0)
    ok &= rev == view.revealed[op]
    for i in range(3):
        ok &= np.asarray(pts[i]) == view.decl_points[op][i]
    return ok


def _subsets(cards: list[int], k: int) -> np.ndarray:
    """Every k-subset of `cards` as an int64 mask (vectorized meet in the middle)."""
    n = len(cards)
    if k < 0 or k > n:
        return np.zeros(0, dtype=np.int64)
    half = n // 2
    parts = []
    for group in (cards[:half], cards[half:]):
        m = len(group)
        idx = np.arange(1 << m, dtype=np.int64)
        masks = np.zeros(1 << m, dtype=np.int64)
        for j, c in enumerate(group):
            masks |= ((idx >> j) & 1) << c
        pc = np.bitwise_count(idx)
        parts.append([masks[pc == i] for i in range(m + 1)])
    a, b = parts
    out = [np.bitwise_or.outer(a[i], b[k - i]).ravel() for i in range(len(a)) if 0 <= k - i < len(b)]
    return np.concatenate(out) if out else np.zeros(0, dtype=np.int64)


# =============================================================================================
# sampling
# =============================================================================================


#: card ids of each byte of a card mask: `_BYTE_CARDS[s][b]` for byte s (suit s) with value b
_BYTE_CARDS = tuple(tuple(tuple(8 * s + r for r in range(8) if b >> r & 1) for b in range(256)) for s in range(4))


def _cards(mask: int) -> list[int]:
    """The card ids of a mask, ascending (a table per byte)."""
    return [*_BYTE_CARDS[0][mask & 255], *_BYTE_CARDS[1][(mask >> 8) & 255], *_BYTE_CARDS[2][(mask >> 16) & 255],
            *_BYTE_CARDS[3][(mask >> 24) & 255]]


class _Uniforms:
    """Uniform draws for one world, taken from the caller's generator in one batch (a NumPy call
    per draw would cost more than the rest of the world)."""

    __slots__ = ("rng", "u", "i")

    def __init__(self, rng: np.random.Generator):
        self.rng = rng
        self.u = rng.random(64).tolist()
        self.i = 0

    def below(self, k: int) -> int:
        """A uniform int in 0..k-1."""
        if self.i == len(self.u):
            self.u = self.rng.random(64).tolist()
            self.i = 0
        x = self.u[self.i]
        self.i += 1
        return int(x * k)

    def pick(self, mask: int, k: int) -> int:
        """A uniform k-subset of the cards of `mask` (partial Fisher-Yates)."""
        if k == 0:
            return 0
        cards = _cards(mask)
        n = len(cards)
        if k >= n:
            return mask
        out = 0
        for j in range(k):
            r = j + self.below(n - j)
            cards[j], cards[r] = cards[r], cards[j]
            out |= 1 << cards[j]
        return out

    def shuffled(self, mask: int) -> list[int]:
        """The cards of `mask` in uniform random order."""
        cards = _cards(mask)
        for j in range(len(cards) - 1, 0, -1):
            r = self.below(j + 1)
            cards[j], cards[r] = cards[r], cards[j]
        return cards


class WorldRng:
    """The generator of a sampled world: `np.random.default_rng(seed)`, made on first use.

    The engine draws from a state's generator only to deal the next hand, which a search that
    plays to the end of the hand never does; making a Generator for every world (and copying it
    in `clone_state`) would cost more than the rest of the world. Attributes and methods are
    those of the Generator.
    """

    __slots__ = ("seed", "_gen")

    def __init__(self, seed: int, gen: np.random.Generator | None = None):
        self.seed = seed
        self._gen = gen

    @property
    def generator(self) -> np.random.Generator:
        if self._gen is None:
            self._gen = np.random.default_rng(self.seed)
        return self._gen

    def __getattr__(self, name: str):
        if name.startswith("__") or name in ("seed", "_gen", "generator"):
            raise AttributeError(name)
        return getattr(self.generator, name)

    def __getstate__(self):
        return (self.seed, self._gen)

    def __setstate__(self, state) -> None:
        self.seed, self._gen = state

    def integers(self, *args, **kwargs):
        return self.generator.integers(*args, **kwargs)

    def permutation(self, *args, **kwargs):
        return self.generator.permutation(*args, **kwargs)

    def clone(self) -> WorldRng:
        """An independent generator in the same state."""
        if self._gen is None:
            return WorldRng(self.seed)
        return WorldRng(self.seed, _copy_generator(self._gen))


def _copy_generator(gen: np.random.Generator) -> np.random.Generator:
    bg = type(gen.bit_generator)()
    bg.state = gen.bit_generator.state
    return np.random.Generator(bg)


class _Sampler:
    """Per-view precomputation; `draw(rng)` returns the parts of one world, or None (rejected)."""

    def __init__(self, view: PicchettoView):
        self.v = v = view
        me, op = v.seat, v.opponent
        self.E, self.D = v.elder, v.dealer
        self.me, self.op = me, op
        self.flags = v.flags
        self.my_dealt = (v.hand | v.played[me] | v.discards) & ~v.drawn
        if _pc(self.my_dealt) != 12:
            raise ValueError(f"picchetto: inconsistent view: the seat's dealt cards come to {_pc(self.my_dealt)}, not 12")
        self.d_op = v.ndisc[op]
        self.peek = bool(self.flags["allow_peek"])
        self.ph = v.phase
        self.valid = None
        if self.ph in (TRICK_LEAD, TRICK_FOLLOW):
            self._prepare_tricks()

    # -- after the declarations -------------------------------------------------------------
    def _prepare_tricks(self) -> None:
        v, me, op = self.v, self.me, self.op
        de, dd = v.ndisc[self.E], v.ndisc[self.D]
        self.ell = TALON_SIZE - de - dd
        known_l = 0
        if self.flags["reveal_leftover_talon"]:
            known_l |= v.leftover
        if self.peek and me == self.D:
            known_l |= v.peeked
        self.known_l = known_l
        P = v.peeked if (self.peek and me == self.E) else 0
        self.P = P
        K = v.played[op] | v.revealed[op]
        groups = []
        if P:
            if dd > FIRST_PACKET - de:
                K |= P
            else:
                groups.append((P, dd))
        if v.bianco[op]:
            groups.append((v.bianco_hand[op], 12 - self.d_op))
        self.K = K
        cur_known = K & ~v.played[op]
        if cur_known & v.excluded:
            raise ValueError("picchetto: inconsistent view: a card the opponent showed is in a suit it is void in")
        cand = ALL & ~(self.my_dealt | v.drawn | K | known_l | v.excluded | v.played[me])
        x = 12 - _pc(K)
        if x < 0 or _pc(K & (self.my_dealt | v.drawn | known_l)):
            raise ValueError("picchetto: inconsistent view: the opponent's known cards do not fit its hand")
        cards = _cards(cand)
        if comb(len(cards), x) > ENUM_LIMIT:
            raise ValueError(f"picchetto: {comb(len(cards), x)} candidate hands to enumerate (limit {ENUM_LIMIT})")
        xs = _subsets(cards, x)
        ok = np.ones(xs.shape[0], dtype=bool)
        for g, need in groups:
            ok &= np.bitwise_count(xs & g) == need - _pc(K & g)
        xs = xs[ok]
        if xs.shape[0]:
            h_me = v.hand | v.played[me]
            xs = xs[_consistent_decl(v, xs | K, h_me)]
        if xs.shape[0] == 0:
            raise ValueError("picchetto: no world is consistent with this view (the opponent's declarations, "
                             "shown cards, voids and exchange leave no hand)")
        self.valid = xs

    def _draw_tricks(self, u: _Uniforms):
        v, E, D, me, op = self.v, self.E, self.D, self.me, self.op
        d_op = self.d_op
        P = self.P
        h_op = int(self.valid[u.below(self.valid.shape[0])]) | self.K
        de, dd = v.ndisc[E], v.ndisc[D]
        if v.bianco[op]:
            B = v.bianco_hand[op]
            op_drawn = h_op & ~B
        elif P:
            if dd > FIRST_PACKET - de:
                op_drawn = P | u.pick(h_op & ~P, dd - _pc(P))
            else:
                op_drawn = h_op & P
        else:
            op_drawn = u.pick(h_op, d_op)
        op_kept = h_op & ~op_drawn
        rest = ALL & ~(self.my_dealt | v.drawn | h_op | self.known_l)
        l_p = P & ~h_op
        rest &= ~P
        if v.bianco[op]:
            op_disc = v.bianco_hand[op] & ~op_kept
            if op_disc & ~rest:
                return None
        else:
            op_disc = u.pick(rest, d_op)
        left = (rest & ~op_disc) | self.known_l | l_p
        if _pc(left) != self.ell or _pc(op_drawn) != d_op or _pc(op_disc) != d_op:
            return None
        if not v.bianco[op] and not (op_kept | op_disc) & FACE_MASK:
            return None
        drawn = [0, 0]
        drawn[me], drawn[op] = v.drawn, op_drawn
        # P (E's peek, if any) is T[de..4]: it starts D's segment
        talon = (u.shuffled(drawn[E]) + u.shuffled(drawn[D] & P) + u.shuffled(drawn[D] & ~P)
                 + u.shuffled(left & P) + u.shuffled(left & ~P))
        dealt = [0, 0]
        dealt[me], dealt[op] = self.my_dealt, op_kept | op_disc
        disc = [0, 0]
        disc[me], disc[op] = v.discards, op_disc
        hands = [0, 0]
        hands[me], hands[op] = v.hand, h_op & ~v.played[op]
        return dealt, talon, disc, hands, drawn

    # -- before the declarations --------------------------------------------------------------
    def _draw_exchange(self, u: _Uniforms):
        v, E, D, me, op = self.v, self.E, self.D, self.me, self.op
        pool = ALL & ~self.my_dealt
        dealt = [0, 0]
        dealt[me] = self.my_dealt
        disc = [0, 0]
        disc[me] = v.discards
        drawn = [0, 0]
        if self.ph == DEALER_EXCHANGE and me == E:
            drawn[E] = v.drawn
            pool &= ~v.drawn
            front = u.shuffled(v.drawn)
            P = v.peeked if self.peek else 0
            pool &= ~P
        else:
            front, P = [], 0
        # the opponent's dealt cards; its Bianco is known except D's during E's exchange
        bianco_known = not (self.ph == ELDER_EXCHANGE and op == D)
        if bianco_known and v.bianco[op]:
            dealt[op] = v.bianco_hand[op]
            if dealt[op] & ~pool:
                raise ValueError("picchetto: inconsistent view: the opponent's Bianco hand overlaps known cards")
        else:
            if bianco_known and not pool & FACE_MASK:
                raise ValueError("picchetto: inconsistent view: the opponent is not Bianco, but no J/Q/K is left "
                                 "for its dealt cards")
            dealt[op] = u.pick(pool, 12)
            if bianco_known and not dealt[op] & FACE_MASK:
                return None
        talon_rest = pool & ~dealt[op]
        if self.ph == DEALER_EXCHANGE and me == D:
            talon = u.shuffled(talon_rest)  # E drew its first de cards
            drawn[E] = _mask(talon[: v.ndisc[E]])
        else:
            talon = front + u.shuffled(P) + u.shuffled(talon_rest)
        disc[op] = u.pick(dealt[op], v.ndisc[op])
        hands = [0, 0]
        hands[me] = v.hand
        hands[op] = (dealt[op] & ~disc[op]) | drawn[op]
        return dealt, talon, disc, hands, drawn

    def draw(self, u: _Uniforms):
        if self.ph in (TRICK_LEAD, TRICK_FOLLOW):
            return self._draw_tricks(u)
        return self._draw_exchange(u)


def _events(v: PicchettoView, classic: bool) -> list[tuple[str, int, int]]:
    """The hand's scoring events, rebuilt from the public history (aggregated per seat for the
    tricks when the tracker did not see them all)."""
    E, D = v.elder, v.dealer
    ev: list[tuple[str, int, int]] = []
    hs = [0, 0]

    def add(kind: str, seat: int, pts: int) -> None:
        ev.append((kind, seat, pts))
        hs[seat] += pts

    for p in (E, D):
        if v.bianco[p]:
            add("bianco", p, BIANCO)
    if v.phase < TRICK_LEAD:
        return ev
    for i, name in enumerate(("point", "sequence", "sets")):
        for p in (E, D):
            if v.decl_points[p][i]:
                add(name, p, v.decl_points[p][i])
    if v.repique_by >= 0:
        add("repique", v.repique_by, REPIQUE)
    resolved = v.repique_by >= 0

    def trick_event(kind: str, seat: int, pts: int) -> None:
        nonlocal resolved
        add(kind, seat, pts)
        if not resolved and hs[seat] >= PIQUE_THRESHOLD and hs[1 - seat] == 0:
            resolved = True
            add("pique", seat, PIQUE)

    if v.complete and len(v.tricks) == v.trick_no:
        for k, (leader, lead, follow) in enumerate(v.tricks):
            win = 1 - leader if (follow >> 3) == (lead >> 3) and follow > lead else leader
            last = k == NUM_TRICKS - 1
            if classic:
                trick_event("lead", leader, 1)
                if win != leader:
                    trick_event("trick", win, 1)
                if last:
                    trick_event("last_trick", win, 1)
            else:
                trick_event("trick", win, 2 if last else 1)
        if classic and v.led >= 0:
            trick_event("lead", v.leader, 1)
        if hs == list(v.hand_score):
            return ev
    # fallback: what the tricks and the pique brought each seat, in one event per kind
    ev = [e for e in ev if e[0] not in ("lead", "trick", "last_trick", "pique")]
    hs = [sum(e[2] for e in ev if e[1] == p) for p in (0, 1)]
    if v.pique_by >= 0:
        ev.append(("pique", v.pique_by, PIQUE))
        hs[v.pique_by] += PIQUE
    for p in (0, 1):
        if v.hand_score[p] > hs[p]:
            ev.append(("trick", p, v.hand_score[p] - hs[p]))
    return ev


def _build_state(v: PicchettoView, game: PicchettoGame, parts, seed: int, events, decls: dict) -> PicchettoState:
    dealt, talon, disc, hands, drawn = parts
    E, D = v.elder, v.dealer
    s = PicchettoState.__new__(PicchettoState)
    s.rng = WorldRng(seed)
    s.phase = v.phase
    if v.phase == ELDER_EXCHANGE:
        s.to_act = E
    elif v.phase == DEALER_EXCHANGE:
        s.to_act = D
    elif v.phase == TRICK_LEAD:
        s.to_act = v.leader
    else:
        s.to_act = 1 - v.leader
    s.dealer, s.elder = D, E
    s.hand_no = v.hand_no
    s.epoch = 2 * v.hand_no
    s.over = False
    s.game_no = v.game_no
    s.target = v.target
    s.games_won = list(v.games_won)
    s.game_score = list(v.game_score)
    s.match_winner = None
    records = []
    winners = list(v.game_winners)[-v.game_no:] if v.game_no else []
    if len(winners) != v.game_no:  # not seen: the games each seat won, in seat order
        winners = [p for p in (0, 1) for _ in range(v.games_won[p])]
    for g in range(v.game_no):
        records.append({"game_no": g + 1, "target": game.target_of(g), "start_scores": [0, 0], "scores": None,
                        "winner": winners[g]})
    start = [v.game_score[p] - v.hand_score[p] for p in (0, 1)]
    records.append({"game_no": v.game_no + 1, "target": v.target, "start_scores": start, "scores": None,
                    "winner": None})
    s.game_records = records
    s.hands = list(hands)
    s.dealt = list(dealt)
    s.talon = list(talon)
    s.discards = list(disc)
    s.ndisc = list(v.ndisc)
    s.drawn = list(drawn)
    de, dd = v.ndisc[E], v.ndisc[D]
    peek = game.flags["allow_peek"]
    tricks = v.phase >= TRICK_LEAD
    s.peeked = [0, 0]
    if peek and v.phase >= DEALER_EXCHANGE:
        s.peeked[E] = _mask(talon[de:FIRST_PACKET])
    s.leftover = _mask(talon[de + dd:]) if tricks else 0
    if peek and tricks:
        s.peeked[D] = s.leftover
    s.bianco = list(v.bianco)
    if tricks:  # the engine only reads it: worlds with the same hands share one
        key = (hands[E] | v.played[E], hands[D] | v.played[D])
        s.decl = decls.get(key)
        if s.decl is None:
            s.decl = decls[key] = declare(*key)
    else:
        s.decl = None
    s.answers = list(v.answers)
    s.pub_point = list(v.pub_point)
    s.pub_seq = list(v.pub_seq)
    s.pub_set = list(v.pub_set)
    s.decl_points = [list(v.decl_points[0]), list(v.decl_points[1])]
    s.revealed = list(v.revealed)
    s.hand_score = list(v.hand_score)
    s.pique_by = v.pique_by
    s.repique_by = v.repique_by
    s.pique_resolved = v.pique_by >= 0 or v.repique_by >= 0
    s.leader = v.leader
    s.led = v.led
    s.trick_no = v.trick_no
    s.tricks_won = list(v.tricks_won)
    s.played = list(v.played)
    s.events = list(events)
    s.hand_records = [{
        "game_no": v.game_no + 1, "hand_no": v.hand_no, "dealer": D, "elder": E,
        "hands": [[CODES[c] for c in _cards(h)] for h in dealt], "talon": [CODES[c] for c in talon],
        "bianco": None, "exchanged": None, "declarations": None, "events": s.events,
        "tricks": None, "hand_scores": None, "completed": False, "game_ended": False,
    }]
    s.hand_open = True
    s.rew = None
    return s


def sample_worlds(view: PicchettoView, n: int, rng: np.random.Generator) -> list[PicchettoState]:
    """`n` engine states consistent with `view`, uniformly distributed (see the module docstring).

    Deterministic for a given `rng` state. Raises ValueError when no world is consistent.
    """
    if not isinstance(view, PicchettoView):
        raise TypeError(f"picchetto: sample_worlds needs a PicchettoView; got {type(view).__name__}")
    if isinstance(n, bool) or not isinstance(n, (int, np.integer)) or n < 0:
        raise ValueError(f"picchetto: n (worlds to sample) must be an int >= 0; got {n!r}")
    if view.phase == OVER:
        raise ValueError("picchetto: the episode is over: there is no hand to determinize")
    cache = view._cache
    sampler = cache.get("sampler")
    if sampler is None:
        sampler = cache["sampler"] = _Sampler(view)
        cache["game"] = PicchettoGame(**view.flags)
        cache["events"] = _events(view, view.flags["trick_scoring"] == "classic")
        cache["decls"] = {}
    game, events, decls = cache["game"], cache["events"], cache["decls"]
    out = []
    for _ in range(n):
        for _ in range(MAX_TRIES):
            u = _Uniforms(rng)
            parts = sampler.draw(u)
            if parts is not None:
                break
        else:
            raise ValueError("picchetto: no world is consistent with this view (every draw was rejected: the "
                             "opponent's dealt cards must hold a face card)")
        out.append(_build_state(view, game, parts, u.below(1 << 62), events, decls))
    return out


# =============================================================================================
# state helpers for search
# =============================================================================================

_LIST_SLOTS = ("games_won", "game_score", "hands", "dealt", "talon", "discards", "ndisc", "drawn", "peeked",
               "bianco", "answers", "pub_point", "pub_seq", "pub_set", "revealed", "hand_score", "tricks_won",
               "played")
_PLAIN_SLOTS = ("phase", "to_act", "dealer", "elder", "hand_no", "epoch", "over", "game_no", "target",
                "match_winner", "leftover", "decl", "pique_resolved", "pique_by", "repique_by", "leader", "led",
                "trick_no", "hand_open")


def clone_state(state: PicchettoState) -> PicchettoState:
    """A fast independent copy for search (about 10x faster than `copy.deepcopy`): every mutable
    field the engine changes is copied, the records of finished hands and games are shared (the
    engine never changes them), and the generator is a copy in the same state (cheap for a
    sampled world's `WorldRng` not yet used)."""
    s = PicchettoState.__new__(PicchettoState)
    for name in _PLAIN_SLOTS:
        setattr(s, name, getattr(state, name))
    for name in _LIST_SLOTS:
        setattr(s, name, getattr(state, name)[:])
    s.decl_points = [state.decl_points[0][:], state.decl_points[1][:]]
    s.events = state.events[:]
    s.rew = state.rew[:] if state.rew is not None else None
    g = state.game_records
    s.game_records = g[:-1] + [dict(g[-1])] if g else []
    h = state.hand_records
    if h:
        last = dict(h[-1])
        if state.hand_open:
            last["events"] = s.events
        s.hand_records = h[:-1] + [last]
    else:
        s.hand_records = []
    rng = state.rng
    s.rng = rng.clone() if isinstance(rng, WorldRng) else _copy_generator(rng)
    return s


def hand_no(state: PicchettoState) -> int:
    """The hand in progress (counted from 1 in the episode; in a world, the tracker's count)."""
    return state.hand_no


def vector_hand_no(vec) -> np.ndarray:
    """The hand in progress of every game of a `PicchettoVectorEnv` (a view of its state, no copy)."""
    from envs.picchetto.batched import HAND_NO

    return vec.state["st"][:, HAND_NO]
