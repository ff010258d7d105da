"""Determinization for Briscola in cinque (`envs/briscola5/worlds.py`): consistency, uniformity, loading.

* Consistency: random playouts of the AEC env (flag variants below; first deals with 0-point
  hands so that the forfeit check is played). At many decision points one tracker per seat is
  fed only that seat's observations (also, now and then, the observation of a seat that is not
  to act, with its zero mask or as a bare vector), worlds are sampled, and every world must
  (a) give the seat its real observation byte for byte and its real mask through
  `observer.reset(world)`, (b) replay the hand's real action sequence legally from the world's
  own deal (an AEC env reset with `dealer` and `hands`, or for a later hand of a match the
  engine started from that deal with the world's classifica) and arrive at the world, field by
  field, and (c) agree with the real state on every public field.
* Uniformity: a scripted endgame with every constraint at work (a seat that answered the
  forfeit check, a seat that has played only 0-point cards and so holds a point card, the
  called card unplayed, with and without `allow_call_own_card`). Every deal of the unseen
  cards is enumerated and kept when the engine replays the hand legally from it and shows the
  seat its real observation; the sampler's frequencies over those deals pass a chi-square test
  (hand-computed statistic against the 0.999 quantile; fixed seed), and a sampler with the
  wrong weights fails the same test.
* Loading: `vec.load(0, world)` of a one-game `vector_env` at forfeit-check, auction, call
  and mid-trick states, then the same random actions on the batched engine and on the Python
  engine give the same observations, masks, actors and rewards to the end of the episode (the
  later hands of a match dealt alike through a stand-in generator).
"""

from __future__ import annotations

from itertools import combinations
from math import sqrt

import numpy as np
import pytest

from envs.briscola5 import worlds as W
from envs.briscola5.env import raw_env
from envs.briscola5.game import (
    AUCTION,
    BID,
    CALL,
    CALL_CARD,
    FORFEIT,
    FORFEIT_CHECK,
    NO_FORFEIT,
    PASS,
    POINTS,
    TRICK_PLAY,
    Briscola5Game,
    Briscola5State,
)
from envs.briscola5.observation import Briscola5Observer
from envs.core.cards import iter_bits
from tests.envs.cases import BRISCOLA5_NON_DEFAULT
from tests.envs.common import first_fast

N = 5
ZERO_CARDS = [c for c in range(40) if POINTS[c] == 0]
POINT_CARDS = [c for c in range(40) if POINTS[c] > 0]

VARIANTS = {
    "defaults": {},
    "non-default": BRISCOLA5_NON_DEFAULT,
    "match": dict(num_hands=3, void_hands_count=False, allow_call_own_card=False, first_lead="caller"),
}


def _zero_point_deal(rnd: np.random.Generator, seats: list[int], dealer: int) -> dict:
    """Reset options dealing 0-point hands to `seats`, the rest at random."""
    zero = list(rnd.permutation(ZERO_CARDS))
    hands = [[int(zero.pop()) for _ in range(8)] if p in seats else None for p in range(N)]
    rest = [int(c) for c in rnd.permutation([c for c in range(40) if c not in {x for h in hands if h for x in h}])]
    for p in range(N):
        if hands[p] is None:
            hands[p] = [rest.pop() for _ in range(8)]
    return {"dealer": dealer, "hands": hands}


def _choose(rnd: np.random.Generator, env, legal: np.ndarray) -> int:
    phase = env.state_.phase
    if phase == FORFEIT_CHECK:
        return FORFEIT if rnd.random() < 0.15 else NO_FORFEIT
    if phase == AUCTION and rnd.random() < 0.4:
        return PASS
    if phase == AUCTION:
        bids = legal[legal >= BID]
        return int(bids[:3][rnd.integers(min(3, len(bids)))]) if len(bids) else PASS
    return int(rnd.choice(legal))


def _replayed(flags: dict, world: Briscola5State, moves: list[int]) -> Briscola5State:
    """The world's hand re-played from its own deal with the real actions (illegal ones raise)."""
    hands = [list(iter_bits(h)) for h in world.dealt]
    if world.hand_no == 1 and world.hands_played == 0 and not any(world.scores):
        env = raw_env(**flags)
        env.reset(seed=0, options={"dealer": world.dealer, "hands": hands})
        for a in moves:
            env.step(a)  # IllegalActionError if the world cannot have played it
        return env.state_
    game = Briscola5Game(**flags)
    s = game.new_state(np.random.default_rng(0), {"dealer": world.dealer, "hands": [game.deck.mask(h) for h in hands]})
    s.hand_no, s.hands_played, s.consecutive_void = world.hand_no, world.hands_played, world.consecutive_void
    s.scores = list(world.scores)
    for a in moves:
        assert game.legal_mask(s) >> a & 1, f"{game.action_name(a)} is not legal in the world"
        assert game.apply(s, a) is None
    return s


HIDDEN = {"rng", "records", "hands", "dealt", "partner", "forfeit_queue", "to_act"}


def _check_world(flags, env, seat, obs, world, moves, observer, bare=False) -> None:
    """(a), (b), (c) of the module docstring; `bare`: the view saw no mask (who is to answer the forfeit check is open)."""
    real = env.state_
    # (a) the seat's observation and mask
    observer.reset(world)
    assert observer.observe(seat).tobytes() == obs["observation"].tobytes()
    mask = env.game.legal_mask(world) if world.to_act == seat else 0
    if not bare:
        assert mask == (env.game.legal_mask(real) if real.to_act == seat else 0)
    assert world.hands[seat] == real.hands[seat]
    # (b) the real actions replay legally from the world's deal and reach the world
    again = _replayed(flags, world, moves)
    for name in Briscola5State.__slots__:
        if name != "rng":
            assert getattr(again, name) == getattr(world, name), name
    # (c) the public fields are the real ones
    inferred = set() if flags.get("void_hands_count", True) else {"hand_no", "consecutive_void"}
    for name in Briscola5State.__slots__:
        if name not in HIDDEN | inferred:
            assert getattr(world, name) == getattr(real, name), name
    if real.revealed:
        assert world.partner == real.partner
    if real.phase != FORFEIT_CHECK or real.to_act == seat and not bare:
        assert world.to_act == real.to_act


def _playouts(flags: dict, episodes: int, seed: int, every: int = 3, n_worlds: int = 2) -> dict:
    """Random episodes checking worlds at one decision in `every` (plus some non-actor views)."""
    rnd = np.random.default_rng(seed)
    stats: dict = {"views": 0, "worlds": 0, "forfeit_acting": 0, "forfeit_waiting": 0, "bare": 0, "auction": 0,
                   "call": 0, "trick": 0, "revealed": 0, "later_hand": 0, "solo": 0}
    game = Briscola5Game(**flags)
    observer = Briscola5Observer(game)
    for _ in range(episodes):
        env = raw_env(**flags)
        options = None
        if flags.get("forfeit_enabled", True) and rnd.random() < 0.7:
            zero = [int(p) for p in rnd.choice(N, size=1 + int(rnd.random() < 0.4), replace=False)]
            options = _zero_point_deal(rnd, zero, int(rnd.integers(N)))
        env.reset(seed=int(rnd.integers(2**31)), options=options)
        trackers = [W.Tracker(flags, p) for p in range(N)]
        moves: list[int] = []
        hand = env.state_.hand_no
        while not env.episode_over:
            actor = env.agent_name_mapping[env.agent_selection]
            obs = env.observe(env.agent_selection)
            trackers[actor].observe(obs)
            todo = []
            if rnd.random() < 1 / every:
                todo.append((actor, obs, trackers[actor], False))
            if rnd.random() < 0.5 / every or env.state_.phase == FORFEIT_CHECK:
                other = int((actor + 1 + rnd.integers(N - 1)) % N)
                o = env.observe(env.possible_agents[other])
                bare = rnd.random() < 0.3
                trackers[other].observe(o["observation"] if bare else o)
                stats["bare"] += bare
                todo.append((other, o, trackers[other], bare))
            for seat, o, tracker, bare in todo:
                view = tracker.view()
                real = env.state_
                if flags.get("void_hands_count", True):
                    assert view.hand_no == real.hand_no  # exact (hands_played + 1)
                else:  # inferred: a hand voided before this seat first acted may go unseen
                    assert view.hand_no <= real.hand_no
                worlds = W.sample_worlds(view, n_worlds, rnd)
                for w in worlds:
                    _check_world(flags, env, seat, o, w, moves, observer, bare)
                stats["views"] += 1
                stats["worlds"] += len(worlds)
                if real.phase == FORFEIT_CHECK:
                    stats["forfeit_acting" if real.to_act == seat else "forfeit_waiting"] += 1
                stats["auction"] += real.phase == AUCTION
                stats["call"] += real.phase == CALL_CARD
                stats["trick"] += real.phase == TRICK_PLAY
                stats["revealed"] += bool(real.revealed)
                stats["later_hand"] += real.hand_no > 1
                stats["solo"] += real.phase == TRICK_PLAY and real.partner == real.caller
            env.step(_choose(rnd, env, np.flatnonzero(obs["action_mask"])))
            if env.state_.hand_no != hand:
                hand, moves = env.state_.hand_no, []
            else:
                moves.append(env._rec_moves[-1])
    return stats


@pytest.mark.parametrize("name", first_fast(VARIANTS))
def test_worlds_give_the_seat_its_observation_and_replay_the_history(name):
    flags = VARIANTS[name]
    stats = _playouts(flags, episodes=12, seed=11)
    assert stats["worlds"] >= 400
    for key in ("auction", "call", "trick", "revealed"):
        assert stats[key] >= 5, (key, stats)
    if flags.get("forfeit_enabled", True):
        assert stats["forfeit_acting"] >= 3 and stats["forfeit_waiting"] >= 3, stats
    if flags.get("num_hands", 1) > 1:
        assert stats["later_hand"] >= 20, stats


@pytest.mark.slow
@pytest.mark.parametrize("name", list(VARIANTS))
def test_worlds_consistency_long(name):
    flags = VARIANTS[name]
    stats = _playouts(flags, episodes=60, seed=5, every=2, n_worlds=3)
    assert stats["worlds"] >= 5000, stats
    if flags.get("allow_call_own_card", True):
        assert stats["solo"] >= 1, stats


# -- uniformity ---------------------------------------------------------------------------------------

# Dealer 4 (seat 0 leads). Seat 3 holds only 0-point cards (it answers the forfeit check); seat 2 one
# point card (JC, 7), kept to the end; seat 1 calls KB (39), which seat 4 keeps to the end.
SCRIPT_HANDS = [
    [0, 2, 8, 9, 10, 12, 31, 33],
    [17, 18, 19, 20, 22, 27, 34, 35],
    [15, 16, 21, 23, 24, 25, 26, 7],
    [1, 3, 4, 5, 6, 11, 13, 14],
    [28, 29, 30, 32, 37, 38, 39, 36],
]
SCRIPT_START = [NO_FORFEIT, PASS, BID, PASS, PASS, PASS, CALL + 39]


def _endgame(flags: dict, seed: int, stop_trick: int = 6):
    """The scripted hand played (at random but for the kept cards) up to seat 0's turn in trick 7."""
    rnd = np.random.default_rng(seed)
    env = raw_env(**flags)
    env.reset(seed=0, options={"dealer": 4, "hands": SCRIPT_HANDS})
    moves = []
    for a in SCRIPT_START:
        env.step(a)
        moves.append(a)
    while not (env.state_.trick_no == stop_trick and env.state_.to_act == 0):
        s = env.state_
        seat = s.to_act
        cards = list(iter_bits(s.hands[seat]))
        keep = {2: 7, 4: 39}.get(seat)
        if keep in cards and len(cards) > 1:
            cards.remove(keep)
        a = int(rnd.choice(cards))
        env.step(a)
        moves.append(a)
    return env, moves


def _consistent_deals(flags: dict, env, moves, seat: int = 0) -> list[tuple[int, ...]]:
    """Every deal of the unseen cards after which the engine replays `moves` and shows `seat` its observation."""
    real = env.state_
    obs = env.observe(env.possible_agents[seat])
    sizes = [real.hands[p].bit_count() for p in range(N)]
    unseen = [c for p in range(N) if p != seat for c in iter_bits(real.hands[p])]
    hidden = [p for p in range(N) if p != seat]
    game = Briscola5Game(**flags)
    observer = Briscola5Observer(game)
    out = []

    def deals(cards, k):
        if k == len(hidden):
            yield ()
            return
        for pick in combinations(cards, sizes[hidden[k]]):
            rest = [c for c in cards if c not in pick]
            for tail in deals(rest, k + 1):
                yield (sum(1 << c for c in pick), *tail)

    for held in deals(unseen, 0):
        hands = [0] * N
        hands[seat] = real.hands[seat]
        for p, h in zip(hidden, held, strict=True):
            hands[p] = h
        dealt = [hands[p] | (real.dealt[p] & ~real.hands[p]) for p in range(N)]  # + the cards it played
        s = game.new_state(np.random.default_rng(0), {"dealer": real.dealer, "hands": dealt})
        ok = True
        for a in moves:
            if not game.legal_mask(s) >> a & 1:
                ok = False
                break
            game.apply(s, a)
        if not ok:
            continue
        observer.reset(s)
        mask = game.legal_mask(s) if s.to_act == seat else 0
        if observer.observe(seat).tobytes() == obs["observation"].tobytes() and mask == game.legal_mask(real):
            out.append(tuple(hands))
    return out


def _chi_square(counts: dict, support: list, total: int) -> tuple[float, float]:
    """The statistic and the 0.999 quantile of chi-square with len(support) - 1 degrees of freedom
    (Wilson-Hilferty)."""
    e = total / len(support)
    stat = sum((counts.get(x, 0) - e) ** 2 / e for x in support)
    df = len(support) - 1
    z = 3.090  # the 0.999 quantile of the standard normal
    crit = df * (1 - 2 / (9 * df) + z * sqrt(2 / (9 * df))) ** 3
    return stat, crit


@pytest.mark.parametrize("own", [False, True])
def test_sampler_is_uniform_over_the_consistent_deals(own):
    flags = {"allow_call_own_card": own}
    env, moves = _endgame(flags, seed=3)
    support = _consistent_deals(flags, env, moves)
    real = tuple(env.state_.hands)
    assert real in support
    # the constraints bite: the caller (1) may hold KB only when own=True; seat 3 holds no point
    # card; seat 2 holds one
    assert all(d[3] & sum(1 << c for c in POINT_CARDS) == 0 for d in support)
    assert all(d[2] & sum(1 << c for c in POINT_CARDS) for d in support)
    assert any(d[1] >> 39 & 1 for d in support) == own
    assert 20 <= len(support) <= 3000
    view = W.view_of(env, "player_0")
    total = 40 * len(support)
    worlds = W.sample_worlds(view, total, np.random.default_rng(2024))
    counts: dict = {}
    for w in worlds:
        key = tuple(w.hands)
        counts[key] = counts.get(key, 0) + 1
    assert set(counts) <= set(support)
    stat, crit = _chi_square(counts, support, total)
    assert stat < crit, (stat, crit, len(support))
    # The same test rejects a sampler that draws the point-card split with equal weights.
    biased = W.sample_worlds(view, 0, np.random.default_rng(0))  # builds the tables
    assert biased == []
    tables = view._cache["tables"]
    if len(tables.cum) > 1:
        tables.cum = np.arange(1, len(tables.cum) + 1, dtype=float)
        counts = {}
        for w in W.sample_worlds(view, total, np.random.default_rng(2024)):
            counts[tuple(w.hands)] = counts.get(tuple(w.hands), 0) + 1
        stat, crit = _chi_square(counts, support, total)
        assert stat > crit, (stat, crit)


def test_forfeit_check_worlds_follow_the_exact_law():
    """A seat with a 0-point hand waits in the forfeit check (dealer 4: seats asked in the order
    0, 1, 2, 3, 4; nobody has answered yet; seat 3 is not to act). So exactly one of seats 0, 1, 2
    was dealt a 0-point hand (the 12 unseen 0-point cards make two impossible), each with
    probability 1/3, and the other 24 unseen cards (4 of 0 points, 20 with points) are dealt
    uniformly: seat 4's count of point cards is hypergeometric. The sampler's joint frequencies of
    (0-point seat, seat 4's point cards) pass a chi-square test against that law, computed here
    without the sampler's weights."""
    rnd = np.random.default_rng(5)
    zero = [int(c) for c in rnd.permutation(ZERO_CARDS)]
    rest = [int(c) for c in rnd.permutation(POINT_CARDS)] + zero[16:]
    hands = [None, zero[:8], None, zero[8:16], None]
    for p in (0, 2, 4):
        hands[p] = [rest.pop() for _ in range(8)]
    env = raw_env()
    env.reset(seed=0, options={"dealer": 4, "hands": hands})
    assert env.state_.phase == FORFEIT_CHECK and env.state_.to_act == 1
    view = W.view_of(env, "player_3")
    assert view.acting is False
    total = 6000
    counts: dict = {}
    for w in W.sample_worlds(view, total, np.random.default_rng(77)):
        zero_seats = [p for p in range(N) if p != 3 and not w.dealt[p] & sum(1 << c for c in POINT_CARDS)]
        assert len(zero_seats) == 1 and zero_seats[0] in (0, 1, 2) and w.to_act == zero_seats[0]
        key = (zero_seats[0], sum(POINTS[c] > 0 for c in iter_bits(w.hands[4])))
        counts[key] = counts.get(key, 0) + 1
    from math import comb

    law = {(q, k): comb(20, k) * comb(4, 8 - k) / comb(24, 8) / 3 for q in (0, 1, 2) for k in range(4, 9)}
    stat = sum((counts.get(x, 0) - total * p) ** 2 / (total * p) for x, p in law.items())
    assert set(counts) <= set(law)
    df = len(law) - 1
    crit = df * (1 - 2 / (9 * df) + 3.090 * sqrt(2 / (9 * df))) ** 3
    assert stat < crit, (stat, crit, counts)


def test_endgame_views_have_several_point_splits():
    """The uniformity scenario is not degenerate: several k vectors with different weights."""
    env, moves = _endgame({"allow_call_own_card": False}, seed=3)
    view = W.view_of(env, "player_0")
    W.sample_worlds(view, 1, np.random.default_rng(0))
    cum = view._cache["tables"].cum
    w = np.diff(np.concatenate([[0.0], cum]))
    assert len(w) >= 2 and w.max() > 1.5 * w.min()


# -- loading into the batched engine ------------------------------------------------------------------


class _DealDouble:
    """Stands in for a world's generator: its shuffles are the batched engine's draws."""

    def __init__(self, row: np.ndarray):
        self.row = row

    def permutation(self, n):
        assert n == 40
        return self.row.astype(np.int64)


def _run_loaded(vec, flags, world, rnd) -> int:
    game = Briscola5Game(**flags)
    s = W.clone_state(world)
    s.rng = _DealDouble(vec.state["perm"][0])
    vec.load(0, world)
    observer = Briscola5Observer(game)
    observer.reset(s)
    steps = 0
    while True:
        assert int(vec.current_player[0]) == s.to_act
        assert vec.obs[0].tobytes() == observer.observe(s.to_act).tobytes()
        legal = game.legal_mask(s)
        assert [a for a in range(143) if legal >> a & 1] == np.flatnonzero(vec.mask[0]).tolist()
        a = _choose(rnd, _Wrap(s), np.flatnonzero(vec.mask[0]))
        _, _, rewards, term, trunc, _ = vec.step(np.array([a]))
        actor = s.to_act
        credits = game.apply(s, a)
        observer.update(s, actor, a)
        assert rewards[0].tolist() == (credits if credits is not None else [0] * N)
        steps += 1
        if s.over:
            assert bool(term[0] or trunc[0])
            return steps
        assert not (term[0] or trunc[0])


class _Wrap:
    def __init__(self, s):
        self.state_ = s


@pytest.mark.parametrize("name", first_fast(VARIANTS))
def test_loaded_worlds_play_on_in_the_batched_engine(name):
    pytest.importorskip("numba")
    from envs import briscola5_v0

    flags = VARIANTS[name]
    vec = briscola5_v0.vector_env(1, **flags)
    vec.reset(seed=0)
    rnd = np.random.default_rng(7)
    phases = set()
    loaded = 0
    for ep in range(6):
        env = raw_env(**flags)
        options = None
        if flags.get("forfeit_enabled", True):
            options = _zero_point_deal(rnd, [int(rnd.integers(N))], int(rnd.integers(N)))
        env.reset(seed=ep, options=options)
        tracker = [W.Tracker(flags, p) for p in range(N)]
        while not env.episode_over:
            actor = env.agent_name_mapping[env.agent_selection]
            obs = env.observe(env.agent_selection)
            tracker[actor].observe(obs)
            if rnd.random() < 0.2 or env.state_.phase != TRICK_PLAY:
                for w in W.sample_worlds(tracker[actor].view(), 1, rnd):
                    _run_loaded(vec, flags, w, rnd)
                    phases.add(w.phase)
                    loaded += 1
            env.step(_choose(rnd, env, np.flatnonzero(obs["action_mask"])))
    assert loaded >= 30 and {AUCTION, CALL_CARD, TRICK_PLAY} <= phases, (loaded, phases)
    if flags.get("forfeit_enabled", True):
        assert FORFEIT_CHECK in phases


# -- the interface ----------------------------------------------------------------------------------


def test_tracker_view_of_and_sampling_are_deterministic():
    env, moves = _endgame({}, seed=1, stop_trick=3)
    view = W.view_of(env, "player_0")
    tracker = W.Briscola5Tracker({}, seat=0)
    tracker.observe(env.observe("player_0"))
    other = tracker.view()
    for name in ("phase", "acting", "dealer", "hand", "declined", "auction", "caller", "contract", "called", "plays"):
        assert getattr(view, name) == getattr(other, name)
    record_moves = env.episode_record()["hands"][0]["moves"]
    assert [a for _, a in view.actions()] == moves
    assert view.actions() == [(m["seat"], m["id"]) for m in record_moves]
    a = W.sample_worlds(view, 5, np.random.default_rng(9))
    b = W.sample_worlds(other, 5, np.random.default_rng(9))
    assert [w.hands for w in a] == [w.hands for w in b]
    tracker.observe(env.observe("player_0"))  # an unchanged observation: the same view
    assert tracker.view() is other
    clone = W.clone_state(a[0])
    clone.hands[1] = 0
    clone.played_by[0] = 3
    assert a[0].hands[1] != 0 and a[0].played_by[0] != 3
    assert W.hand_no(a[0]) == 1


def test_vector_hand_no_is_a_view():
    pytest.importorskip("numba")
    from envs import briscola5_v0

    vec = briscola5_v0.vector_env(3, num_hands=2)
    vec.reset(seed=1)
    h = W.vector_hand_no(vec)
    assert h.tolist() == [1, 1, 1]
    vec.state["hand_no"][1] = 2
    assert h[1] == 2


def test_inconsistent_views_raise():
    tracker = W.Tracker({}, seat=0)
    with pytest.raises(ValueError, match="observed nothing"):
        tracker.view()
    env, _ = _endgame({"allow_call_own_card": False}, seed=3, stop_trick=2)
    obs = env.observe("player_0")
    forged = obs["observation"].copy()
    from envs.briscola5.observation import LAYOUT

    forged[LAYOUT.obs_slice("holds_called").start] = 1.0  # seat 0 never held KB
    tracker.observe({"observation": forged, "action_mask": obs["action_mask"]})
    with pytest.raises(ValueError, match="holds_called"):
        W.sample_worlds(tracker.view(), 1, np.random.default_rng(0))
    with pytest.raises(ValueError, match="shape"):
        tracker.observe(np.zeros(5, dtype=np.float32))
    with pytest.raises(Exception, match="seat"):
        W.Tracker({}, seat=5)
    # A seat said to have answered the forfeit check (0 points) but that has played a point card.
    forged = obs["observation"].copy()
    declined = LAYOUT.obs_slice("forfeit_declined").start
    s = env.state_
    p = next(q for q in range(1, N) if s.dealt[q] & ~s.hands[q] & sum(1 << c for c in POINT_CARDS))
    forged[declined + p] = 1.0
    tracker.observe({"observation": forged, "action_mask": obs["action_mask"]})
    with pytest.raises(ValueError):
        W.sample_worlds(tracker.view(), 1, np.random.default_rng(0))


def test_over_episode_has_no_worlds():
    env = raw_env()
    env.reset(seed=3)
    rnd = np.random.default_rng(0)
    while not env.episode_over:
        env.step(int(rnd.choice(np.flatnonzero(env.observe(env.agent_selection)["action_mask"]))))
    tracker = W.Tracker({}, seat=2)
    tracker.observe(env.observe("player_2"))
    with pytest.raises(ValueError, match="over"):
        W.sample_worlds(tracker.view(), 1, rnd)
