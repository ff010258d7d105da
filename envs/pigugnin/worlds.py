"""Pigugnìn determinization: what one seat knows, and complete game states consistent with it.

A search player (issue 13) sees only its own seat's observations. `PigugninTracker` folds them
into what the seat knows (`PigugninView`), `sample_worlds(view, n, rng)` draws complete engine
states (`PigugninState`, exactly what `PigugninGame.new_state` + `apply` produce) uniformly from
the deals consistent with that knowledge, and `clone_state` copies a state for playouts.

```python
tracker = PigugninTracker(flags, seat=2)       # the flags of the env (num_players, D11, D1b...)
tracker.reset()                                # at every episode start
tracker.observe(obs)                           # at least at every decision of the seat, in order
worlds = sample_worlds(tracker.view(), 32, np.random.default_rng(0))
```

## What the tracker infers

The observation gives the seat its own hand, the cards each seat has played this hand, the
trick in progress (who played what), each seat's captured pile, tricks, points, the Pigugnìn
taker, the busche and the dealer. It does not say which cards were played *together*, so the
tracker rebuilds the tricks from the sequence: between two observations, the cards that entered
the pile of a seat whose trick count went up by one form one trick; each card's player is the
seat whose `played` row holds it; the leader of a trick is the one shown leading it in the
previous observation (the previous trick's winner; `dealer + 1` for the first trick of a hand,
also under `first_hand_leader="holder_7D"`, where the dealer is moved to the seat before the 7D
holder); the led suit is the suit of the leader's card (it is also the suit of the winner's
card). A seat acts in every trick, so between two of its decisions exactly one trick closes:
observing at every decision reconstructs every trick of the hand exactly (`view.complete`).

## Constraints on the hidden cards (what `sample_worlds` enforces)

All 40 cards are dealt (N = 4: 10 each; N = 5: 8 each; no variant leaves cards out), so every
card that is neither in the seat's hand nor played is in another seat's hand.

| constraint | known from | enforced as |
|---|---|---|
| the seat's own hand | `hand` of the observation | fixed |
| every card played, and by whom | `played` per seat | fixed (in `played`, `deal`, the trick log) |
| hand sizes | `40 / N` minus the cards each seat has played | exact card counts per seat |
| void in a suit | a seat did not follow the led suit of a reconstructed trick, or of the trick in progress | no card of that suit in that seat's hand |
| D11 (`pigugnin_first_trick_restriction=True`) | a seat played JS to the first trick of the hand, which is only legal on a Spade lead when JS is its only Spade | void in Spade |
| D1b (`first_hand_leader="holder_7D"`), first hand of the episode | the 7D holder leads it, and is `dealer + 1` | 7D in the hand of `dealer + 1` until it is played |
| no trumps, no duty to overtake or to play low | rules §2.3 | nothing else is revealed by a legal play |

The first hand of an episode is proven when every busche total is 0 (each hand costs the
Pigugnìn taker a busca), in `episode="hand"`, or when it is the first hand the tracker saw after
`reset()` and it saw it from its first trick (a seat acts in every trick, so an agent's first
decision of an episode is in trick 1 of hand 1). Only then does D1b pin the 7D.

Sampling is uniform over the deals satisfying the table (a deal is an assignment of the unknown
cards to the other seats). It is exact and constructive, with no rejection: the seats with a
void among the suits still unknown ("constrained" seats) are dealt first, seat by seat, choosing
how many cards of each suit each gets with probability proportional to the number of completions
(a dynamic program over the per-suit counts of unknown cards, built once per view and cached on
it); the specific cards of each suit are then a uniformly shuffled split, and the cards left over
are shuffled once more and dealt to the seats without a void. With no void the sampler is one
shuffle. `count_worlds(view)` gives the exact number of consistent deals.

Cost (`benchmarks/worlds_pigugnin.py`, CPU time on the shared 2-core machine): about 25 us per
world once a view's table exists, 100-250 us on average for the first world of a view (it builds
the table: 150 us on average over 12,000 views of random first hands, 4 and 5 players, the worst
19 ms), 80 us per `observe`, 7 us per `clone_state` (`copy.deepcopy` of a state: about 130 us).

## What a world holds

A `PigugninState` in `TRICK_PLAY`: the public fields from the view (`played`, `captured`,
`tricks_won`, `points`, `pig_taker`, `busche`, `dealer`, `leader`, `to_act`, the trick in progress,
`trick_log`), the sampled `hands`, `deal` (each seat's hand plus its played cards, ascending card
ids), `hand_no` (hands counted by the tracker since its reset), an empty `records` list (the
seat's knowledge of earlier hands is not needed to play this one; `result()` at the end of a
game played out from a world lists only the hands played from it) and its own `rng` (a PCG64
Generator seeded from the sampling generator; it deals the next hand in `episode="game"`).
`vec.load(i, world)` of `pigugnin_v0.vector_env` accepts it too (`VectorEnv.load`).

## Fallback when observations were missed

The tracker can start (or resume) mid-episode. When more than one trick closed between two of
its observations it cannot tell those tricks apart (`view.complete` is False): the cards of the
tricks a seat won in that gap are known together, and each seat played one card to each of them.
It then keeps only what it can still prove: for each winner, if all its cards in the gap are of
one suit, every trick it won there was led in that suit, and a seat that played another suit
into them is void in it; otherwise no void is inferred from that gap (the sampled worlds are then
drawn from a larger set than the seat's full history would allow, but every one is consistent
with the observation). The trick log of such a world holds placeholder entries for those tricks
(the right cards per seat and winners; leaders and order unknown), D11 is not applied to a first
trick inside a gap, `hand_no` counts only the hands seen, and D1b is applied only when the first
hand is proven as above.
"""

from __future__ import annotations

import bisect
import copy
from collections.abc import Mapping
from dataclasses import dataclass, field
from math import comb, factorial
from typing import Any

import numpy as np
from numpy.random.bit_generator import ISeedSequence

from envs.core.cards import iter_bits
from envs.core.errors import ConfigError
from envs.pigugnin.game import (
    DECK,
    HAND_TOTAL,
    PIGUGNIN,
    SEVEN_OF_DENARI,
    TRICK_PLAY,
    PigugninGame,
    PigugninState,
)
from envs.pigugnin.observation import BUSCHE_SCALE, LAYOUTS

__all__ = [
    "Tracker",
    "PigugninTracker",
    "View",
    "PigugninView",
    "view_of",
    "sample_worlds",
    "count_worlds",
    "clone_state",
    "hand_no",
    "vector_hand_no",
]

_NUM_SUITS = DECK.num_suits
_SUIT = DECK.suit_of
_SUIT_MASK = DECK.suit_mask
_FULL = (1 << DECK.size) - 1
_SPADE = _SUIT[PIGUGNIN]


# -- observations -------------------------------------------------------------------------------


@dataclass(frozen=True)
class _Obs:
    """One observation decoded into absolute seats and card bitmasks."""

    hand: int
    played: tuple[int, ...]
    captured: tuple[int, ...]
    trick: tuple[tuple[int, int], ...]  # (seat, card) in play order from `leader`
    leader: int
    tricks_won: tuple[int, ...]
    points: tuple[int, ...]
    pig_taker: int
    busche: tuple[int, ...]
    dealer: int

    @property
    def tricks_done(self) -> int:
        return sum(self.tricks_won)


# -- the view -----------------------------------------------------------------------------------


@dataclass(frozen=True, eq=False)
class PigugninView:
    """What one seat knows at one point of a hand (absolute seats, card sets as int bitmasks).

    `trick_log` holds `(leader, cards in play order, winner)` per finished trick of the hand;
    `voids[p]` has bit `s` set when seat `p` is known to hold no card of suit `s`; `fixed` lists
    `(card, seat)` pairs known to be in a seat's hand (D1b). `complete` is False when the tracker
    missed tricks (see the module docstring); `first_hand` when the hand is proven to be the
    episode's first.
    """

    num_players: int
    seat: int
    hand_no: int
    dealer: int
    leader: int
    to_act: int
    trick: tuple[int, ...]
    hand: int
    played: tuple[int, ...]
    captured: tuple[int, ...]
    tricks_won: tuple[int, ...]
    points: tuple[int, ...]
    pig_taker: int
    busche: tuple[int, ...]
    voids: tuple[int, ...]
    fixed: tuple[tuple[int, int], ...]
    trick_log: tuple[tuple[int, tuple[int, ...], int], ...]
    complete: bool
    first_hand: bool
    _cache: dict = field(default_factory=dict, repr=False, compare=False)

    @property
    def hand_size(self) -> int:
        return DECK.size // self.num_players

    @property
    def unknown(self) -> int:
        """The cards the seat has not seen (in the other seats' hands)."""
        seen = self.hand
        for m in self.played:
            seen |= m
        return _FULL & ~seen

    def void_suits(self, seat: int) -> list[int]:
        return [s for s in range(_NUM_SUITS) if self.voids[seat] >> s & 1]

    def _sampler(self) -> _Sampler:
        sampler = self._cache.get("sampler")
        if sampler is None:
            sampler = self._cache["sampler"] = _Sampler(self)
        return sampler


View = PigugninView


# -- the tracker --------------------------------------------------------------------------------


class PigugninTracker:
    """Folds one seat's observations into a `PigugninView` (see the module docstring)."""

    def __init__(self, flags: Mapping | None = None, seat: int = 0):
        game = PigugninGame(**dict(flags or {}))
        self.flags = dict(game.flags)
        self.num_players = n = game.num_players
        if isinstance(seat, bool) or not isinstance(seat, (int, np.integer)) or not 0 <= seat < n:
            raise ConfigError(f"pigugnin tracker: seat must be a seat number 0..{n - 1}; got {seat!r}")
        self.seat = int(seat)
        self.hand_size = game.hand_size
        self.layout = LAYOUTS[n]
        self._slices = {}
        for name in ("hand", "played", "trick", "trick_leader", "captured", "tricks_won", "points", "pig_taker",
                     "busche", "dealer"):
            sl = self.layout.obs_slice(name)
            self._slices[name] = (sl.start, sl.stop)
        self._restrict = bool(self.flags["pigugnin_first_trick_restriction"])
        self._holder_7d = self.flags["first_hand_leader"] == "holder_7D"
        self._hand_episode = self.flags["episode"] == "hand"
        self.reset()

    def reset(self) -> None:
        """A new episode: forget everything."""
        self._last: bytes | None = None
        self._prev: _Obs | None = None
        self._hand_count = 0
        self._from_start = False  # the first observation since reset was in trick 1 of its hand
        self._begin_hand(None)

    def _begin_hand(self, cur: _Obs | None) -> None:
        n = self.num_players
        self._voids = [0] * n
        self._log: list[tuple[int, tuple[int, ...], int]] = []
        self._complete = True
        if cur is not None:
            if self._hand_count == 0:
                self._from_start = cur.tricks_done == 0
            self._hand_count += 1

    # -- observing ------------------------------------------------------------------------------
    def observe(self, observation: Any) -> None:
        """Fold in the seat's observation (the dict of `env.last()`, or the float vector)."""
        vec = observation["observation"] if isinstance(observation, Mapping) else observation
        vec = np.asarray(vec)
        size = self.layout.obs_size
        if vec.shape != (size,):
            raise ValueError(
                f"pigugnin tracker: expected an observation of shape ({size},) for {self.num_players} players; "
                f"got {vec.shape}"
            )
        raw = vec.tobytes()
        if raw == self._last:
            return
        cur = self._decode(vec)
        prev = self._prev
        if prev is not None and any(b < a for a, b in zip(prev.busche, cur.busche, strict=True)):
            self.reset()  # busche never go down within an episode: a new one started without reset()
            prev = None
        if prev is None or self._new_hand(prev, cur):
            self._begin_hand(cur)
            n = self.num_players
            zeros = (0,) * n
            prev = _Obs(0, zeros, zeros, (), (cur.dealer + 1) % n, zeros, zeros, -1, cur.busche, cur.dealer)
        self._absorb(prev, cur)
        self._prev = cur
        self._last = raw

    def _decode(self, vec: np.ndarray) -> _Obs:
        """The observation in absolute seats (relative row r is seat `(self.seat + r) % n`)."""
        n, seat = self.num_players, self.seat
        sl = self._slices

        def cards(name: str) -> list[int]:  # a card bitmask per absolute seat
            a, b = sl[name]
            out = [0] * n
            for i in np.flatnonzero(vec[a:b]).tolist():
                r, c = divmod(i, 40)
                out[(seat + r) % n] |= 1 << c
            return out

        def row(name: str) -> list[float]:  # one value per absolute seat
            a, b = sl[name]
            rel = vec[a:b].tolist()
            return [rel[(p - seat) % n] for p in range(n)]

        def one_hot(name: str) -> int:
            a, b = sl[name]
            hits = np.flatnonzero(vec[a:b])
            return -1 if hits.size == 0 else (int(hits[0]) + seat) % n

        a, b = sl["hand"]
        hand = 0
        for c in np.flatnonzero(vec[a:b]).tolist():
            hand |= 1 << c
        on_table = cards("trick")
        leader = one_hot("trick_leader")
        trick = []
        for i in range(n):
            p = (leader + i) % n
            if not on_table[p]:
                break
            trick.append((p, on_table[p].bit_length() - 1))
        size = self.hand_size
        return _Obs(
            hand=hand,
            played=tuple(cards("played")),
            captured=tuple(cards("captured")),
            trick=tuple(trick),
            leader=leader,
            tricks_won=tuple(round(x * size) for x in row("tricks_won")),
            points=tuple(round(x * HAND_TOTAL) for x in row("points")),
            pig_taker=one_hot("pig_taker"),
            busche=tuple(round(x * BUSCHE_SCALE) for x in row("busche")),
            dealer=one_hot("dealer"),
        )

    @staticmethod
    def _new_hand(prev: _Obs, cur: _Obs) -> bool:
        if prev.busche != cur.busche or prev.dealer != cur.dealer:
            return True
        return any(a & ~b for a, b in zip(prev.played, cur.played, strict=True))

    def _owner(self, cur: _Obs, card: int) -> int:
        bit = 1 << card
        for p, m in enumerate(cur.played):
            if m & bit:
                return p
        raise ValueError(f"pigugnin tracker: card {DECK.codes[card]} was captured but nobody played it")

    def _absorb(self, prev: _Obs, cur: _Obs) -> None:
        n = self.num_players
        grew = [b - a for a, b in zip(prev.tricks_won, cur.tricks_won, strict=True)]
        if any(d < 0 for d in grew):
            raise ValueError("pigugnin tracker: a seat's trick count went down within a hand (observations out of order)")
        closed = sum(grew)
        if closed == 1:
            winner = grew.index(1)
            cards = cur.captured[winner] & ~prev.captured[winner]
            leader = prev.leader
            by_seat = {self._owner(cur, c): c for c in iter_bits(cards)}
            if len(by_seat) != n or cards.bit_count() != n:
                raise ValueError("pigugnin tracker: a closed trick does not hold one card per seat (observations out of order)")
            ordered = tuple(by_seat[(leader + i) % n] for i in range(n))
            self._add_trick(leader, ordered, winner, prev.tricks_done)
        elif closed > 1:
            self._complete = False
            for winner in range(n):
                k = grew[winner]
                if k == 0:
                    continue
                cards = cur.captured[winner] & ~prev.captured[winner]
                by_seat: list[list[int]] = [[] for _ in range(n)]
                for c in iter_bits(cards):
                    by_seat[self._owner(cur, c)].append(c)
                if any(len(cs) != k for cs in by_seat):
                    raise ValueError("pigugnin tracker: the tricks a seat won do not hold one card per seat each")
                led = {_SUIT[c] for c in by_seat[winner]}
                if len(led) == 1:  # every trick it won in the gap was led in this suit
                    suit = led.pop()
                    for p in range(n):
                        if any(_SUIT[c] != suit for c in by_seat[p]):
                            self._voids[p] |= 1 << suit
                for j in range(k):  # placeholders: the right cards and winner, order unknown
                    self._log.append((winner, tuple(by_seat[(winner + i) % n][j] for i in range(n)), winner))
        # The trick in progress.
        if cur.trick:
            lead_seat, lead_card = cur.trick[0]
            led = _SUIT[lead_card]
            for p, c in cur.trick[1:]:
                if _SUIT[c] != led:
                    self._voids[p] |= 1 << led
                elif c == PIGUGNIN and self._restrict and cur.tricks_done == 0 and self._complete:
                    self._voids[p] |= 1 << _SPADE  # D11: JS was its only Spade

    def _add_trick(self, leader: int, cards: tuple[int, ...], winner: int, index: int) -> None:
        n = self.num_players
        led = _SUIT[cards[0]]
        for i in range(1, n):
            c = cards[i]
            p = (leader + i) % n
            if _SUIT[c] != led:
                self._voids[p] |= 1 << led
            elif c == PIGUGNIN and self._restrict and index == 0 and self._complete:
                self._voids[p] |= 1 << _SPADE  # D11: JS was its only Spade
        self._log.append((leader, cards, winner))

    # -- the view -------------------------------------------------------------------------------
    def view(self) -> PigugninView:
        """An immutable snapshot of what the seat knows now."""
        cur = self._prev
        if cur is None:
            raise ValueError("pigugnin tracker: no observation yet; call observe() first")
        n = self.num_players
        first = (
            all(b == 0 for b in cur.busche)
            or self._hand_episode
            or (self._hand_count == 1 and self._from_start)
        )
        fixed: tuple[tuple[int, int], ...] = ()
        played_all = 0
        for m in cur.played:
            played_all |= m
        if self._holder_7d and first and not played_all >> SEVEN_OF_DENARI & 1:
            fixed = ((SEVEN_OF_DENARI, (cur.dealer + 1) % n),)
        trick = tuple(c for _, c in cur.trick)
        return PigugninView(
            num_players=n,
            seat=self.seat,
            hand_no=max(1, self._hand_count),
            dealer=cur.dealer,
            leader=cur.leader,
            to_act=(cur.leader + len(trick)) % n,
            trick=trick,
            hand=cur.hand,
            played=cur.played,
            captured=cur.captured,
            tricks_won=cur.tricks_won,
            points=cur.points,
            pig_taker=cur.pig_taker,
            busche=cur.busche,
            voids=tuple(self._voids),
            fixed=fixed,
            trick_log=tuple(self._log),
            complete=self._complete,
            first_hand=first,
        )


Tracker = PigugninTracker


def view_of(env: Any, agent: str) -> PigugninView:
    """The view of `agent` now, in an AEC env's episode, from that seat's observations only.

    Replays the env's record (`envs.records.positions`) and feeds a fresh tracker that seat's
    observation at each of its decisions, then its observation now. Never reads hidden state.
    """
    from envs.records import positions

    raw = env.unwrapped
    seat = raw.agent_name_mapping[agent]
    tracker = PigugninTracker(raw.game.flags, seat)
    for pos in positions(raw.episode_record()):
        e = pos.env
        if not e.episode_over and e.agent_selection == agent:
            tracker.observe(e.observe(agent))
    tracker.observe(raw.observe(agent))
    return tracker.view()


# -- sampling -----------------------------------------------------------------------------------


class _Words(ISeedSequence):
    """Seeds a PCG64 directly with 4 words drawn from the caller's generator (no hashing: ~3 us
    instead of ~25 us for a SeedSequence)."""

    __slots__ = ("words",)

    def __init__(self, words: np.ndarray):
        self.words = words

    def generate_state(self, n_words: int, dtype: Any = np.uint32) -> np.ndarray:
        if n_words == 4 and np.dtype(dtype) == np.uint64:
            return self.words
        return np.random.SeedSequence(self.words.tolist()).generate_state(n_words, dtype)


_ZERO_WORDS = _Words(np.array([1, 2, 3, 4], dtype=np.uint64))


def _new_generator(rng: np.random.Generator) -> np.random.Generator:
    """A generator of its own for a world, seeded by 4 raw words of `rng`."""
    return np.random.Generator(np.random.PCG64(_Words(rng.bit_generator.random_raw(4))))


def _copy_generator(g: Any) -> Any:
    if isinstance(g, np.random.Generator) and isinstance(g.bit_generator, np.random.PCG64):
        bg = np.random.PCG64(_ZERO_WORDS)
        bg.state = g.bit_generator.state
        return np.random.Generator(bg)
    return copy.deepcopy(g)


def _draw(rng: np.random.Generator, total: int) -> int:
    """An int in 0..total-1 from one raw 64-bit word: `floor(word * total / 2**64)`. Each value's
    probability is off 1/total by less than 2**-64 (the tables' totals stay far below 2**64)."""
    return (int(rng.bit_generator.random_raw()) * total) >> 64


def _compositions(h: int, bounds: list[int]) -> list[tuple[int, ...]]:
    """Every vector k with sum h and 0 <= k[j] <= bounds[j]."""
    out: list[tuple[int, ...]] = []
    size = len(bounds)
    rest = [0] * (size + 1)
    for j in range(size - 1, -1, -1):
        rest[j] = rest[j + 1] + bounds[j]
    k = [0] * size

    def rec(j: int, left: int) -> None:
        if j == size - 1:
            if left <= bounds[j]:
                k[j] = left
                out.append(tuple(k))
            return
        lo = max(0, left - rest[j + 1])
        for v in range(lo, min(bounds[j], left) + 1):
            k[j] = v
            rec(j + 1, left - v)

    if h <= rest[0]:
        rec(0, h)
    return out


class _Sampler:
    """The counting table of one view and its sampler (see the module docstring)."""

    def __init__(self, view: PigugninView):
        n = view.num_players
        size = view.hand_size
        seat = view.seat
        played_all = 0
        for m in view.played:
            if m & played_all:
                raise ValueError("pigugnin worlds: a card is played by two seats in the view")
            played_all |= m
        if view.hand & played_all:
            raise ValueError("pigugnin worlds: a card of the seat's hand is also played")
        if view.hand.bit_count() + view.played[seat].bit_count() != size:
            raise ValueError(
                f"pigugnin worlds: the seat holds {view.hand.bit_count()} cards and played "
                f"{view.played[seat].bit_count()}; a hand has {size}"
            )
        if played_all == _FULL:
            raise ValueError("pigugnin worlds: the hand is over (every card was played); no hand in progress to sample")
        unknown = _FULL & ~view.hand & ~played_all
        others = [p for p in range(n) if p != seat]
        need = [size - view.played[p].bit_count() for p in range(n)]
        base = [0] * n
        base[seat] = view.hand
        for card, p in view.fixed:
            bit = 1 << card
            if unknown & bit:
                if p == seat:
                    raise ValueError(f"pigugnin worlds: {DECK.codes[card]} must be in the seat's own hand, which lacks it")
                base[p] |= bit
                need[p] -= 1
                unknown &= ~bit
            elif not (view.played[p] | (view.hand if p == seat else 0)) & bit:
                raise ValueError(f"pigugnin worlds: {DECK.codes[card]} must be held by player_{p}, but another seat has it")
            if base[p] & bit and view.voids[p] >> _SUIT[card] & 1:
                raise ValueError(f"pigugnin worlds: player_{p} holds {DECK.codes[card]} but is void in its suit")
        for p in others:
            if need[p] < 0:
                raise ValueError(f"pigugnin worlds: player_{p} would hold a negative number of cards")
        if sum(need[p] for p in others) != unknown.bit_count():
            raise ValueError("pigugnin worlds: the unknown cards do not match the other seats' hand sizes")
        present = 0
        for s in range(_NUM_SUITS):
            if unknown & _SUIT_MASK[s]:
                present |= 1 << s
        void = [view.voids[p] & present for p in range(n)]
        constrained = [p for p in others if need[p] > 0 and void[p]]
        # The most constrained seats first: the fewest compositions near the top of the table.
        constrained.sort(key=lambda p: (_NUM_SUITS - void[p].bit_count(), need[p]))
        self.num_players = n
        self.base = base
        self.unknown = np.array(list(iter_bits(unknown)), dtype=np.int64)
        self.constrained = constrained
        self.free = [p for p in others if need[p] > 0 and not void[p]]
        self.need = need
        self.void = void
        r0 = tuple((unknown & _SUIT_MASK[s]).bit_count() for s in range(_NUM_SUITS))
        self.r0 = r0
        self.table: dict[tuple[int, tuple[int, ...]], tuple[int, list[int], list[tuple[int, ...]]]] = {}
        self.total = self._count(0, r0)  # deals of the constrained seats (the free ones: times `free_ways`)
        pool = sum(need[p] for p in self.free)
        ways = factorial(pool)
        for p in self.free:
            ways //= factorial(need[p])
        self.free_ways = ways
        if self.total == 0:
            voids = ", ".join(
                f"player_{p} void in {''.join('CDSB'[s] for s in range(_NUM_SUITS) if view.voids[p] >> s & 1)}"
                for p in others if view.voids[p]
            )
            raise ValueError(
                f"pigugnin worlds: no deal is consistent with the view (hand sizes {[need[p] for p in others]} "
                f"for players {others}; {voids or 'no voids'}; unknown cards per suit C D S B {list(r0)})"
            )

    def _count(self, i: int, r: tuple[int, ...]) -> int:
        key = (i, r)
        hit = self.table.get(key)
        if hit is not None:
            return hit[0]
        m = len(self.constrained)
        if i == m:
            self.table[key] = (1, [], [])
            return 1
        p = self.constrained[i]
        void = self.void[p]
        h = self.need[p]
        if i == m - 1 and not self.free:
            # The last seat takes what is left, if none of it is in a suit it lacks.
            ok = sum(r) == h and not any(r[s] for s in range(_NUM_SUITS) if void >> s & 1)
            entry = (1, [1], [r]) if ok else (0, [], [])
            self.table[key] = entry
            return entry[0]
        bounds = [0 if void >> s & 1 else r[s] for s in range(_NUM_SUITS)]
        cum: list[int] = []
        options: list[tuple[int, ...]] = []
        total = 0
        for k in _compositions(h, bounds):
            rest = tuple(a - b for a, b in zip(r, k, strict=True))
            w = self._count(i + 1, rest)
            if w == 0:
                continue
            for s in range(_NUM_SUITS):
                if k[s]:
                    w *= comb(r[s], k[s])
            total += w
            cum.append(total)
            options.append(k)
        self.table[key] = (total, cum, options)
        return total

    def deal(self, rng: np.random.Generator) -> list[int]:
        """One uniform deal: the hand (bitmask) of every seat."""
        hands = list(self.base)
        perm = rng.permutation(self.unknown).tolist()
        if self.constrained:
            by_suit: list[list[int]] = [[] for _ in range(_NUM_SUITS)]
            for c in perm:
                by_suit[_SUIT[c]].append(c)
            at = [0] * _NUM_SUITS
            r = self.r0
            table = self.table
            for i, p in enumerate(self.constrained):
                total, cum, options = table[(i, r)]
                k = options[bisect.bisect_right(cum, _draw(rng, total)) if len(options) > 1 else 0]
                m = 0
                for s in range(_NUM_SUITS):
                    ks = k[s]
                    if ks:
                        a = at[s]
                        for c in by_suit[s][a : a + ks]:
                            m |= 1 << c
                        at[s] = a + ks
                hands[p] |= m
                r = tuple(a - b for a, b in zip(r, k, strict=True))
            if not self.free:
                return hands
            pool = [c for s in range(_NUM_SUITS) for c in by_suit[s][at[s] :]]
            perm = [pool[j] for j in rng.permutation(len(pool)).tolist()]
        k = 0
        for p in self.free:
            m = 0
            for c in perm[k : k + self.need[p]]:
                m |= 1 << c
            k += self.need[p]
            hands[p] |= m
        return hands


def _world(view: PigugninView, hands: list[int], rng: np.random.Generator) -> PigugninState:
    s = PigugninState()
    s.rng = _new_generator(rng)
    s.phase = TRICK_PLAY
    s.hand_no = view.hand_no
    s.dealer = view.dealer
    s.leader = view.leader
    s.to_act = view.to_act
    s.hands = hands
    s.trick = list(view.trick)
    s.tricks_done = sum(view.tricks_won)
    s.tricks_won = list(view.tricks_won)
    s.points = list(view.points)
    s.captured = list(view.captured)
    s.played = list(view.played)
    s.pig_taker = view.pig_taker
    s.busche = list(view.busche)
    s.deal = [list(iter_bits(h | pl)) for h, pl in zip(hands, view.played, strict=True)]
    s.trick_log = list(view.trick_log)
    s.records = []
    s.outcome = None
    s.reason = None
    return s


def sample_worlds(view: PigugninView, n: int, rng: np.random.Generator) -> list[PigugninState]:
    """`n` complete engine states consistent with `view`, drawn uniformly (see the module docstring).

    Deterministic for a given state of `rng`. Raises ValueError when no deal is consistent
    with the view, or when the view shows a finished hand.
    """
    if isinstance(n, bool) or not isinstance(n, (int, np.integer)) or n < 0:
        raise ValueError(f"pigugnin worlds: n must be an int >= 0; got {n!r}")
    sampler = view._sampler()
    return [_world(view, sampler.deal(rng), rng) for _ in range(int(n))]


def count_worlds(view: PigugninView) -> int:
    """The exact number of deals (assignments of the unknown cards to the other seats) consistent with `view`."""
    sampler = view._sampler()
    return sampler.total * sampler.free_ways


def clone_state(state: PigugninState) -> PigugninState:
    """An independent copy of an engine state (its generator too), for search playouts."""
    s = PigugninState.__new__(PigugninState)
    s.rng = _copy_generator(state.rng) if state.rng is not None else None
    s.phase = state.phase
    s.hand_no = state.hand_no
    s.dealer = state.dealer
    s.leader = state.leader
    s.to_act = state.to_act
    s.hands = state.hands[:]
    s.trick = state.trick[:]
    s.tricks_done = state.tricks_done
    s.tricks_won = state.tricks_won[:]
    s.points = state.points[:]
    s.captured = state.captured[:]
    s.played = state.played[:]
    s.pig_taker = state.pig_taker
    s.busche = state.busche[:]
    s.deal = [h[:] for h in state.deal]
    s.trick_log = state.trick_log[:]  # tuples: shared safely
    s.records = state.records[:]  # finished hands' records are never changed
    s.outcome = None if state.outcome is None else state.outcome[:]
    s.reason = state.reason
    return s


def hand_no(state: PigugninState) -> int:
    """The hand in progress (search plays out to its end)."""
    return state.hand_no


def vector_hand_no(vec: Any) -> np.ndarray:
    """The hand number of every game of a `pigugnin_v0.vector_env` (a view of its state, no copy)."""
    return vec.state["hand_no"]
