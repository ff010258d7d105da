"""Determinization of Pigugnìn (`envs/pigugnin/worlds.py`): trackers, views, sampled worlds.

Method. Random-play episodes of the AEC env, one tracker per seat fed only that seat's
observations at its decisions. At the decision points checked:

* the view against the public facts computed here from the real state's trick log: the
  reconstructed tricks, the revealed voids (D11 included), the 7D pin of D1b;
* every sampled world (a) gives the seat its real observation byte for byte and the real legal
  mask (`observer.reset(world)`), and (b) replays: an AEC env reset with the world's deal, dealer
  and busche as options accepts the real public moves of the hand and reaches the world;
* loading: `vec.load(0, world)` and an AEC env at the world, stepped with the same random cards
  to the end of the episode, agree on observations, masks and rewards.

Uniformity: views of small endgames (a few unknown cards, voids) from real play, and built
by hand, are enumerated by brute force; `count_worlds` must equal the enumeration and the
sampler's frequencies pass a chi-square test (fixed seeds).
"""

from __future__ import annotations

import itertools

import numpy as np
import pytest

from envs import pigugnin_v0
from envs.core.cards import iter_bits
from envs.core.errors import ConfigError
from envs.pigugnin.game import PIGUGNIN, SEVEN_OF_DENARI
from envs.pigugnin.observation import PigugninObserver
from envs.pigugnin.worlds import (
    PigugninTracker,
    PigugninView,
    Tracker,
    clone_state,
    count_worlds,
    hand_no,
    sample_worlds,
    vector_hand_no,
    view_of,
)
from tests.envs.cases import PIGUGNIN as CASE

CONFIGS = CASE.configs  # defaults, non-default (D1b, D11, ...), 5p, 5p-non-default, hand, 5p-hand
#: the configs of the fast tier (the others are marked slow)
FAST = ("non-default", "5p-non-default")
SUIT = [c // 10 for c in range(40)]


def _params(names):
    return [pytest.param(k, id=k, marks=() if k in FAST else pytest.mark.slow) for k in names]


# -- helpers ------------------------------------------------------------------------------------


def revealed_voids(state, flags) -> list[int]:
    """The voids the public history of the hand in progress reveals (suit bitmask per seat)."""
    n = len(state.hands)
    voids = [0] * n
    tricks = [(lead, cards, k) for k, (lead, cards, _) in enumerate(state.trick_log)]
    if state.trick:
        tricks.append((state.leader, state.trick, len(state.trick_log)))
    for lead, cards, k in tricks:
        led = SUIT[cards[0]]
        for i, c in enumerate(cards[1:], 1):
            p = (lead + i) % n
            if SUIT[c] != led:
                voids[p] |= 1 << led
            elif c == PIGUGNIN and k == 0 and flags["pigugnin_first_trick_restriction"]:
                voids[p] |= 1 << SUIT[PIGUGNIN]
    return voids


def moves_of(state) -> list[int]:
    """The cards played in the hand in progress, in order."""
    return [c for _, cards, _ in state.trick_log for c in cards] + list(state.trick)


FIELDS = ("phase", "dealer", "leader", "to_act", "hands", "trick", "tricks_done", "tricks_won", "points",
          "captured", "played", "pig_taker", "busche", "deal", "trick_log")


def replay_world(flags: dict, world):
    """(b): an env reset with the world's deal replays the public moves and reaches the world."""
    f = dict(flags)
    if world.hand_no > 1:
        f["first_hand_leader"] = "right_of_dealer"  # D1b moves the dealer in the first hand only
    env = pigugnin_v0.raw_env(**f)
    env.reset(seed=0, options={"dealer": world.dealer, "hands": world.deal, "busche": world.busche})
    for c in moves_of(world):
        env.step(c)  # raises IllegalActionError if the world's deal cannot have played it
    s = env.state_
    for name in FIELDS:
        assert getattr(s, name) == getattr(world, name), name
    if world.hand_no == 1:
        assert s.hand_no == 1
    return env


def check_world(world, view: PigugninView, env, seat: int, observer: PigugninObserver, obs) -> None:
    n = view.num_players
    # (a) the seat's observation and mask
    observer.reset(world)
    assert observer.observe(seat).tobytes() == obs["observation"].tobytes()
    legal = env.game.legal_mask(world)
    real = env.game.legal_mask(env.state_) if env.agent_selection == f"player_{seat}" else None
    if real is not None:
        assert legal == real
    # the sampled hands respect what the view says
    assert world.hands[seat] == view.hand
    for p in range(n):
        assert world.hands[p].bit_count() == view.hand_size - view.played[p].bit_count()
        for s in view.void_suits(p):
            assert not [c for c in iter_bits(world.hands[p]) if SUIT[c] == s]
    for card, p in view.fixed:
        assert world.hands[p] >> card & 1
    full = 0
    for h in world.hands:
        assert not full & h
        full |= h
    assert full == view.unknown | view.hand


def random_playout(flags: dict, seed: int, on_decision, max_steps: int = 10_000):
    """Play one random episode; `on_decision(env, seat, obs, tracker)` at every decision."""
    env = pigugnin_v0.raw_env(**flags)
    env.reset(seed=seed)
    n = env.game.num_players
    trackers = [PigugninTracker(env.game.flags, p) for p in range(n)]
    rnd = np.random.default_rng(seed + 1000)
    steps = 0
    while not env.episode_over and steps < max_steps:
        agent = env.agent_selection
        seat = env.agent_name_mapping[agent]
        obs = env.observe(agent)
        trackers[seat].observe(obs)
        on_decision(env, seat, obs, trackers[seat])
        env.step(int(rnd.choice(np.flatnonzero(obs["action_mask"]))))
        steps += 1
    return env, trackers


# -- consistency --------------------------------------------------------------------------------


@pytest.mark.parametrize("name", _params(CONFIGS))
def test_views_match_the_public_history_and_worlds_replay(name):
    flags = CONFIGS[name]
    decisions = 600 if name in FAST else 1500  # decision points checked (episodes of up to 400)
    stats = {"checked": 0, "worlds": 0, "voids": 0, "pins": 0, "later_hands": 0}
    sample_rng = np.random.default_rng(7)
    observer = None

    def on_decision(env, seat, obs, tracker):
        nonlocal observer
        s = env.state_
        if observer is None:
            observer = PigugninObserver(env.game)
        view = tracker.view()
        # the view: the public facts of the hand, exactly
        assert view.complete and view.hand_no == s.hand_no
        assert list(view.trick_log) == s.trick_log
        assert view.voids == tuple(revealed_voids(s, env.game.flags))
        assert view.first_hand == (s.hand_no == 1)
        pinned = env.game.flags["first_hand_leader"] == "holder_7D" and s.hand_no == 1 and not any(
            m >> SEVEN_OF_DENARI & 1 for m in s.played)
        assert view.fixed == (((SEVEN_OF_DENARI, (s.dealer + 1) % len(s.hands)),) if pinned else ())
        assert (view.dealer, view.leader, view.to_act, view.trick) == (s.dealer, s.leader, s.to_act, tuple(s.trick))
        stats["voids"] += sum(v.bit_count() for v in view.voids)
        stats["pins"] += bool(view.fixed)
        stats["later_hands"] += s.hand_no > 1
        # the real deal is one of the consistent worlds
        assert count_worlds(view) >= 1
        if stats["checked"] % 3 == 0:
            for world in sample_worlds(view, 2, sample_rng):
                check_world(world, view, env, seat, observer, obs)
                replay_world(env.game.flags, world)
                stats["worlds"] += 1
        stats["checked"] += 1

    seed = 0
    while stats["checked"] < decisions:
        random_playout(flags, seed, on_decision, max_steps=400)
        seed += 1
    assert stats["worlds"] > decisions // 2
    assert stats["voids"] > 100
    if flags.get("first_hand_leader") == "holder_7D":
        assert stats["pins"] > 20
    if flags.get("episode", "game") == "game":
        assert stats["later_hands"] > 50


def test_view_of_equals_the_incremental_tracker():
    flags = CONFIGS["5p-non-default"]
    env = pigugnin_v0.env(**flags)  # the wrapped env: view_of reads env.unwrapped
    env.reset(seed=3)
    n = env.unwrapped.game.num_players
    trackers = [PigugninTracker(env.unwrapped.game.flags, p) for p in range(n)]
    rnd = np.random.default_rng(3)
    for step in range(60):
        agent = env.agent_selection
        obs = env.observe(agent)
        trackers[env.agent_name_mapping[agent]].observe(obs)
        if step in (0, 7, 23, 41, 59):
            for p in range(n):
                got = view_of(env, f"player_{p}")
                t = trackers[p]
                t.observe(env.observe(f"player_{p}"))  # view_of also folds in the observation now
                want = t.view()
                for f in PigugninView.__dataclass_fields__:
                    if f != "_cache":
                        assert getattr(got, f) == getattr(want, f), (step, p, f)
        env.step(int(rnd.choice(np.flatnonzero(obs["action_mask"]))))


def test_extra_observations_between_decisions_are_harmless():
    """Observing after every move (not only at decisions) gives the same views."""
    flags = CONFIGS["defaults"]
    env = pigugnin_v0.raw_env(**flags)
    env.reset(seed=11)
    every = [PigugninTracker(env.game.flags, p) for p in range(4)]
    decisions = [PigugninTracker(env.game.flags, p) for p in range(4)]
    rnd = np.random.default_rng(11)
    for _ in range(120):
        agent = env.agent_selection
        seat = env.agent_name_mapping[agent]
        obs = env.observe(agent)
        decisions[seat].observe(obs)
        for p in range(4):
            every[p].observe(env.observe(f"player_{p}"))
            every[p].observe(env.observe(f"player_{p}")["observation"])  # the same again, as a vector
        a, b = every[seat].view(), decisions[seat].view()
        assert (a.voids, a.trick_log, a.played, a.hand) == (b.voids, b.trick_log, b.played, b.hand)
        env.step(int(rnd.choice(np.flatnonzero(obs["action_mask"]))))


# -- the rules that reveal something ------------------------------------------------------------


def _codes(ids):
    return [f"{'A234567JHK'[c % 10]}{'CDSB'[c // 10]}" for c in ids]


def test_d11_playing_js_to_the_first_trick_reveals_no_other_spade():
    # Seat 1 holds JS as its only Spade; seat 0 leads AS: under D11 seat 1 must play JS.
    spades = list(range(20, 30))
    hands = [[20, 21, 22] + list(range(0, 7)), [27] + list(range(7, 10)) + list(range(10, 16)),
             [23, 24, 25, 16, 17, 18, 19, 30, 31, 32], [26, 28, 29] + list(range(33, 40))]
    assert sorted(c for h in hands for c in h) == list(range(40)) and all(len(h) == 10 for h in hands)
    for restrict in (True, False):
        env = pigugnin_v0.raw_env(pigugnin_first_trick_restriction=restrict)
        env.reset(seed=0, options={"dealer": 3, "hands": [_codes(h) for h in hands]})
        leader = PigugninTracker(env.game.flags, 0)
        leader.observe(env.observe("player_0"))
        env.step(20)  # AS by seat 0
        env.step(27)  # JS by seat 1 (its only Spade)
        tracker = PigugninTracker(env.game.flags, 2)
        tracker.observe(env.observe("player_2"))
        env.step(23)  # 4S by seat 2
        env.step(26)  # 7S by seat 3; seat 0's AS takes the trick and leads again
        leader.observe(env.observe("player_0"))  # seat 0 sees the trick only once it is closed
        for view in (tracker.view(), leader.view()):
            assert bool(view.voids[1] >> 2 & 1) == restrict
            worlds = sample_worlds(view, 50, np.random.default_rng(0))
            held = [c for w in worlds for c in iter_bits(w.hands[1]) if c in spades]
            assert (not held) if restrict else held


def test_d1b_pins_7d_to_the_first_leader_until_played():
    flags = {"first_hand_leader": "holder_7D", "num_players": 5}
    env = pigugnin_v0.raw_env(**flags)
    env.reset(seed=5)
    s = env.state_
    holder = (s.dealer + 1) % 5
    assert s.hands[holder] >> SEVEN_OF_DENARI & 1
    seat = (holder + 2) % 5
    rnd = np.random.default_rng(0)
    while env.agent_selection != f"player_{seat}":
        env.step(int(rnd.choice(env.legal_actions())))
    tracker = PigugninTracker(env.game.flags, seat)
    tracker.observe(env.observe(f"player_{seat}"))
    view = tracker.view()
    played = any(m >> SEVEN_OF_DENARI & 1 for m in view.played)
    assert view.fixed == (() if played else ((SEVEN_OF_DENARI, holder),))
    for w in sample_worlds(view, 30, np.random.default_rng(1)):
        assert (w.hands[holder] | w.played[holder]) >> SEVEN_OF_DENARI & 1
    # Without the flag, 7D lands anywhere among the other seats.
    plain = PigugninTracker({"num_players": 5}, seat)
    plain.observe(env.observe(f"player_{seat}"))
    if not played and not view.hand >> SEVEN_OF_DENARI & 1:
        owners = {p for w in sample_worlds(plain.view(), 200, np.random.default_rng(2))
                  for p in range(5) if w.hands[p] >> SEVEN_OF_DENARI & 1}
        assert len(owners) > 1


# -- uniformity ---------------------------------------------------------------------------------


def enumerate_worlds(view: PigugninView) -> list[tuple[int, ...]]:
    """Every consistent deal by brute force: the hands of the other seats as a tuple of bitmasks."""
    n, seat = view.num_players, view.seat
    others = [p for p in range(n) if p != seat]
    unknown = list(iter_bits(view.unknown))
    need = {p: view.hand_size - view.played[p].bit_count() for p in others}
    fixed = dict((c, p) for c, p in view.fixed if view.unknown >> c & 1)
    out = []

    def rec(i: int, left: list[int], hands: dict[int, int]) -> None:
        if i == len(others):
            out.append(tuple(hands[p] for p in others))
            return
        p = others[i]
        for combo in itertools.combinations(left, need[p]):
            if any(view.voids[p] >> SUIT[c] & 1 for c in combo):
                continue
            if any(fixed.get(c, p) != p for c in combo):
                continue
            if any(q == p and c not in combo for c, q in fixed.items()):
                continue
            m = 0
            for c in combo:
                m |= 1 << c
            rec(i + 1, [c for c in left if c not in combo], {**hands, p: m})

    rec(0, unknown, {})
    return out


def chi_square_ok(counts: np.ndarray, alpha: float = 1e-3) -> tuple[bool, float, float]:
    """Pearson's statistic of `counts` against equal frequencies, and whether it is below the
    critical value at `alpha` (scipy's when installed, else the Wilson-Hilferty approximation
    with its z for 1e-3; it is accurate to a few tenths of a percent for these df)."""
    expected = counts.sum() / counts.size
    stat = float(((counts - expected) ** 2).sum() / expected)
    df = counts.size - 1
    try:
        from scipy.stats import chi2

        critical = float(chi2.isf(alpha, df))
    except ImportError:
        assert alpha == 1e-3
        z = 3.090232306167813
        critical = df * (1 - 2 / (9 * df) + z * (2 / (9 * df)) ** 0.5) ** 3
    return stat < critical, stat, critical


def chi_square_check(view: PigugninView, seed: int, per_world: int = 60) -> tuple[int, float]:
    worlds = enumerate_worlds(view)
    assert count_worlds(view) == len(worlds)
    index = {w: i for i, w in enumerate(worlds)}
    others = [p for p in range(view.num_players) if p != view.seat]
    draws = per_world * len(worlds)
    counts = np.zeros(len(worlds))
    for w in sample_worlds(view, draws, np.random.default_rng(seed)):
        counts[index[tuple(w.hands[p] for p in others)]] += 1  # KeyError: an inconsistent world
    ok, stat, critical = chi_square_ok(counts)
    assert ok, (stat, critical, len(worlds))
    return len(worlds), stat


def _endgame_views(flags: dict, seed: int, want: int, lo: int = 6, hi: int = 200):
    """Views of real play with voids and between `lo` and `hi` consistent worlds."""
    found = []

    def on_decision(env, seat, obs, tracker):
        if len(found) >= want or env.state_.hand_no > 1:
            return
        view = tracker.view()
        others = [p for p in range(view.num_players) if p != seat]
        if view.unknown.bit_count() <= 12 and any(view.voids[p] for p in others):
            if lo <= count_worlds(view) <= hi:
                found.append(view)

    s = seed
    while len(found) < want:
        random_playout(flags, s, on_decision, max_steps=45)
        s += 1
    return found


@pytest.mark.parametrize("name", ["non-default", "5p-non-default"])
def test_sampler_is_uniform_on_endgames_of_real_play(name):
    views = _endgame_views(CONFIGS[name], seed=100, want=4)
    for k, view in enumerate(views):
        chi_square_check(view, seed=k)


def _synthetic(n: int, hand: list[int], unknown: list[int], **kw) -> PigugninView:
    """A view in which the seat 0 holds `hand`, the cards of `unknown` are out, and every other card
    was played (the first seats play the most: the hands out are as even as the counts allow)."""
    size = 40 // n
    rest = [c for c in range(40) if c not in unknown and c not in hand]
    played, k = [], 0
    for p in range(n):
        count = size - len(hand) if p == 0 else None
        if count is None:
            left = n - p
            count = len(rest[k:]) // left
        played.append(_mask(rest[k : k + count]))
        k += count
    zeros = (0,) * n
    base = dict(num_players=n, seat=0, hand_no=1, dealer=n - 1, leader=0, to_act=0, trick=(), hand=_mask(hand),
                played=tuple(played), captured=zeros, tricks_won=zeros, points=zeros, pig_taker=-1, busche=zeros,
                voids=zeros, fixed=(), trick_log=(), complete=True, first_hand=True)
    base.update(kw)
    view = PigugninView(**base)
    assert sum(m.bit_count() for m in view.played) + len(hand) + len(unknown) == 40
    return view


def _mask(ids) -> int:
    m = 0
    for c in ids:
        m |= 1 << c
    return m


def test_sampler_is_uniform_with_constrained_and_free_seats():
    """One seat void in two suits, the others free: the leftover cards must be split fairly
    (a sampler that deals the leftovers in the order of its first shuffle is biased here)."""
    view = _synthetic(4, [3, 4, 5], [0, 1, 2, 10, 11, 20, 21, 30, 31], voids=(0, 0b0011, 0, 0))
    assert [view.hand_size - m.bit_count() for m in view.played[1:]] == [3, 3, 3]
    size, _ = chi_square_check(view, seed=1, per_world=40)
    assert size == 4 * 20  # seat 1 takes 3 of the 4 Spade/Bastoni cards, then C(6, 3) splits


def test_sampler_is_uniform_with_two_constrained_seats_and_a_pin_5p():
    view = _synthetic(5, [2, 3], [16, 0, 10, 11, 12, 20, 30, 31], voids=(0, 0b1000, 0b0001, 0, 0), fixed=((16, 1),))
    size, _ = chi_square_check(view, seed=2, per_world=40)
    assert size == 330


def test_inconsistent_views_raise():
    hand, unknown = [3, 4, 5], [0, 1, 2, 10, 11, 20, 21, 30, 31]
    rng = np.random.default_rng(0)
    with pytest.raises(ValueError, match="no deal is consistent"):  # seat 1 lacks every suit still out
        sample_worlds(_synthetic(4, hand, unknown, voids=(0, 0b1111, 0, 0)), 1, rng)
    with pytest.raises(ValueError, match="no deal is consistent"):  # 3 Coppe out, every other seat void in it
        sample_worlds(_synthetic(4, hand, unknown, voids=(0, 1, 1, 1)), 1, rng)
    with pytest.raises(ValueError, match="void in its suit"):  # 7D pinned to a seat void in Denari
        sample_worlds(_synthetic(4, hand, [16, *unknown[1:]], voids=(0, 0b0010, 0, 0), fixed=((16, 1),)), 1, rng)
    with pytest.raises(ValueError, match="hand is over"):  # a finished hand has nothing to sample
        env = pigugnin_v0.raw_env(episode="hand")
        env.reset(seed=1)
        while not env.episode_over:
            env.step(env.legal_actions()[0])
        tracker = PigugninTracker({"episode": "hand"}, 0)
        tracker.observe(env.observe("player_0"))
        sample_worlds(tracker.view(), 1, rng)


def test_tracker_input_errors():
    with pytest.raises(ConfigError, match="seat number 0..4"):
        PigugninTracker({"num_players": 5}, 5)
    with pytest.raises(ConfigError, match="num_players"):
        PigugninTracker({"num_players": 3}, 0)
    t = Tracker({}, 1)
    with pytest.raises(ValueError, match="no observation yet"):
        t.view()
    with pytest.raises(ValueError, match=r"shape \(546,\)"):
        t.observe(np.zeros(672, dtype=np.float32))


# -- mid-episode trackers ------------------------------------------------------------------------


@pytest.mark.parametrize("name", ["defaults", "5p-non-default"])
def test_a_tracker_started_mid_hand_keeps_only_what_it_can_prove(name):
    flags = CONFIGS[name]
    sample_rng = np.random.default_rng(3)
    checked = {"gaps": 0, "worlds": 0}
    for seed in range(4):
        env = pigugnin_v0.raw_env(**flags)
        env.reset(seed=seed)
        n = env.game.num_players
        start = 9 + 3 * seed  # decisions missed by the late trackers (whole tricks and parts of them)
        late = [PigugninTracker(env.game.flags, p) for p in range(n)]
        observer = PigugninObserver(env.game)
        rnd = np.random.default_rng(seed)
        for step in range(8 * n):
            agent = env.agent_selection
            seat = env.agent_name_mapping[agent]
            obs = env.observe(agent)
            if step >= start:
                late[seat].observe(obs)
                view = late[seat].view()
                s = env.state_
                truth = revealed_voids(s, env.game.flags)
                assert all(v & ~t == 0 for v, t in zip(view.voids, truth, strict=True))  # only true voids
                if not view.complete:
                    checked["gaps"] += 1
                    assert len(view.trick_log) == s.tricks_done
                for world in sample_worlds(view, 2, sample_rng):
                    check_world(world, view, env, seat, observer, obs)
                    checked["worlds"] += 1
                    # the engine plays it on to the end of the hand (placeholder tricks included)
                    game, twin = env.game, clone_state(world)
                    while twin.hand_no == world.hand_no and not game.is_over(twin):
                        game.apply(twin, next(iter_bits(game.legal_mask(twin))))
                    assert twin.records[-1]["hand_no"] == world.hand_no
                    assert sum(twin.records[-1]["points"]) == 35
            env.step(int(rnd.choice(np.flatnonzero(obs["action_mask"]))))
            if env.episode_over:
                break
    assert checked["gaps"] > 10 and checked["worlds"] > 50


# -- loading into the batched engine --------------------------------------------------------------


@pytest.mark.parametrize("name", _params(CONFIGS))
def test_loaded_worlds_play_on_like_the_aec_engine(name):
    pytest.importorskip("numba")
    from tests.envs.test_pigugnin_batched import StreamRng

    flags = CONFIGS[name]
    vec = pigugnin_v0.vector_env(1, **flags)
    vec.reset(seed=0)
    rnd = np.random.default_rng(5)
    sample_rng = np.random.default_rng(6)
    loaded = 0
    points = []

    def on_decision(env, seat, obs, tracker):
        if rnd.random() < 0.08:
            points.append(sample_worlds(tracker.view(), 1, sample_rng)[0])

    seed = 0
    while len(points) < 15:
        random_playout(flags, seed, on_decision, max_steps=120)
        seed += 1
    assert any(w.trick for w in points) and any(w.tricks_done for w in points)
    for world in points:
        env = replay_world(flags, world)
        vec.load(0, clone_state(world))
        assert vector_hand_no(vec)[0] == world.hand_no
        env.state_.rng = StreamRng(vec, 0)  # later deals: the ones the batched engine draws
        n = env.game.num_players
        while True:
            agent = env.agent_selection
            obs = env.observe(agent)
            assert int(vec.current_player[0]) == env.agent_name_mapping[agent]
            assert vec.obs[0].tobytes() == obs["observation"].tobytes()
            np.testing.assert_array_equal(vec.mask[0], obs["action_mask"])
            for p in range(n):
                assert vec.observe(p)[0].tobytes() == env.observe(f"player_{p}")["observation"].tobytes()
            a = int(rnd.choice(np.flatnonzero(obs["action_mask"])))
            _, _, rewards, terminated, _, _ = vec.step(np.array([a]))
            env.step(a)
            want = np.array([env.rewards[f"player_{p}"] for p in range(n)], dtype=np.float32)
            assert want.tobytes() == rewards[0].tobytes()
            if env.episode_over:
                assert terminated[0]
                break
            assert not terminated[0]
        loaded += 1
    assert loaded >= 15


# -- determinism, copies, hand numbers -----------------------------------------------------------


def test_sampling_is_deterministic_and_clones_are_independent():
    env = pigugnin_v0.raw_env(num_players=5)
    env.reset(seed=2)
    rnd = np.random.default_rng(2)
    for _ in range(13):
        env.step(int(rnd.choice(env.legal_actions())))
    tracker = PigugninTracker(env.game.flags, env.agent_name_mapping[env.agent_selection])
    tracker.observe(env.observe(env.agent_selection))
    view = tracker.view()
    a = sample_worlds(view, 20, np.random.default_rng(9))
    b = sample_worlds(view, 20, np.random.default_rng(9))
    assert [w.hands for w in a] == [w.hands for w in b]
    assert len({tuple(w.hands) for w in a}) > 10
    assert [w.rng.integers(1 << 30) for w in a] == [w.rng.integers(1 << 30) for w in b]

    world = a[0]
    twin = clone_state(world)
    for name in PigugninView.__dataclass_fields__:
        if hasattr(world, name) and name != "rng":
            assert getattr(twin, name) == getattr(world, name)
    assert twin.rng.integers(1 << 40) == world.rng.integers(1 << 40)  # same stream, separate objects
    game = env.game
    before = {k: repr(getattr(world, k)) for k in world.__slots__ if k != "rng"}
    while twin.phase == world.phase and not game.is_over(twin) and twin.hand_no == world.hand_no:
        game.apply(twin, int(next(iter_bits(game.legal_mask(twin)))))
    assert {k: repr(getattr(world, k)) for k in world.__slots__ if k != "rng"} == before
    assert hand_no(world) == world.hand_no


def test_vector_hand_no_is_a_view():
    pytest.importorskip("numba")
    vec = pigugnin_v0.vector_env(3)
    vec.reset(seed=0)
    got = vector_hand_no(vec)
    assert got.shape == (3,) and (got == 1).all()
    assert np.shares_memory(got, vec.state["hand_no"])
    for _ in range(40):
        vec.step(np.argmax(vec.mask, axis=1))
    assert (vector_hand_no(vec) == vec.state["hand_no"]).all() and (got >= 1).all()
