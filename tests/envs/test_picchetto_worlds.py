"""Determinization of Picchetto (`envs/picchetto/worlds.py`): consistency, uniformity, loading.

* Consistency: random playouts of the AEC env under several flag sets; at decision points of
  both seats the seat's tracker (fed only that seat's observations at its decisions) gives a
  view, and every sampled world (a) gives the seat exactly its real observation (bytes) and, when
  it is to act, its real legal mask; (b) replays the hand's public history legally: an AEC env
  reset with the world's deal (same dealer, game scores at the hand's start, games won) and
  stepped with the real actions, the opponent's hidden discards replaced by the world's, accepts
  every action and reaches the world (every card set, score and public field).
* Uniformity: in small endgames every consistent world is enumerated by brute force (every
  assignment of the unseen cards, each checked by replaying the public history and comparing
  the seat's observations at all its decision points: no use of the sampler's logic), and a
  chi-square test compares the sampler's frequencies with the brute-force count (fixed seeds).
* Loading: `vec.load(0, world)` and the same random actions on the world (AEC engine) give the
  same observations, masks and rewards to the end of the episode.
"""

from __future__ import annotations

import copy
import dataclasses
import itertools
import math
import pickle
import random

import numpy as np
import pytest

from envs import picchetto_v0
from envs.core.cards import iter_bits
from envs.core.errors import ConfigError
from envs.picchetto import worlds as W
from envs.picchetto.game import (
    DEALER_EXCHANGE,
    ELDER_EXCHANGE,
    FACE_MASK,
    TRICK_FOLLOW,
    TRICK_LEAD,
    UGUALE,
    PicchettoGame,
)
from envs.picchetto.observation import PicchettoObserver
from tests.envs.cases import PICCHETTO_NON_DEFAULT

VARIANTS = {
    "defaults": {},
    "non-default": PICCHETTO_NON_DEFAULT,
    "peek": dict(allow_peek=True),
    "reveal-classic": dict(reveal_leftover_talon=True, trick_scoring="classic", dealer_min_exchange=0),
    "free-follow": dict(must_head_trick=False, game_target=80),
}

#: fields of a world that must equal the replayed state (records and counters aside)
FIELDS = ("phase", "to_act", "dealer", "elder", "game_no", "target", "games_won", "game_score", "hands", "dealt",
          "discards", "ndisc", "drawn", "peeked", "leftover", "bianco", "answers", "pub_point", "pub_seq", "pub_set",
          "decl_points", "revealed", "hand_score", "pique_resolved", "pique_by", "repique_by", "leader", "led",
          "trick_no", "tricks_won", "played")


def _mask_array(game: PicchettoGame, state) -> np.ndarray:
    m = game.legal_mask(state)
    return np.array([(m >> a) & 1 for a in range(game.num_actions)], dtype=np.int8)


def _hand_moves(env) -> list[tuple[int, int]]:
    """(seat, action) of every move of the hand in progress, from the env's record."""
    rec = env.unwrapped.episode_record()
    return [(m["seat"], m["id"]) for m in rec["hands"][-1]["moves"]]


def _replay(flags: dict, world, moves: list[tuple[int, int]], seat: int):
    """The AEC env reset with the world's deal, stepped with the hand's real moves (the opponent's
    discards replaced by the world's): returns the raw env (asserts every move is legal)."""
    s = world
    start = [s.game_score[p] - s.hand_score[p] for p in (0, 1)]
    env = picchetto_v0.raw_env(**flags)
    env.reset(seed=0, options={"dealer": s.dealer, "hands": [list(iter_bits(h)) for h in s.dealt],
                               "talon": list(s.talon), "scores": start, "games_won": list(s.games_won)})
    hidden = iter(sorted(iter_bits(s.discards[1 - seat])))
    for who, a in moves:
        if who != seat and 32 <= a < 64:
            a = 32 + next(hidden)
        assert env.agent_name_mapping[env.agent_selection] == who
        assert a in env.legal_actions(), f"world's replay: {env.game.action_name(a)} is illegal for player_{who}"
        env.step(a)
    return env


def check_world(flags: dict, world, seat: int, obs: dict, moves, view) -> None:
    game = PicchettoGame(**flags)
    observer = PicchettoObserver(game)
    observer.reset(world)
    assert observer.observe(seat).tobytes() == obs["observation"].tobytes()
    if game.current_player(world) == seat:
        assert np.array_equal(_mask_array(game, world), obs["action_mask"])
    if view.complete:
        env = _replay(flags, world, moves, seat)
        st = env.state_
        for name in FIELDS:
            assert getattr(st, name) == getattr(world, name), name
        if view.complete:
            assert st.events == world.events
        # a sampled world continues like the engine's own state
        assert game.legal_mask(st) == game.legal_mask(world)


def _playout_checks(flags: dict, seed: int, every: int, n: int, stats: dict, options: dict | None = None) -> None:
    rnd = random.Random(seed)
    env = picchetto_v0.env(**flags)
    env.reset(seed=seed, options=options)
    trackers = [W.Tracker(flags, p) for p in (0, 1)]
    rng = np.random.default_rng(seed)
    k = 0
    for agent in env.agent_iter():
        obs, _, term, trunc, _ = env.last()
        if term or trunc:
            env.step(None)
            continue
        seat = env.unwrapped.agent_name_mapping[agent]
        trackers[seat].observe(obs)
        k += 1
        if k % every == 0:
            view = trackers[seat].view()
            worlds = W.sample_worlds(view, n, rng)
            moves = _hand_moves(env)
            for w in worlds:
                check_world(flags, w, seat, obs, moves, view)
            stats["worlds"] += len(worlds)
            stats["phases"].add(view.phase)
        legal = np.flatnonzero(obs["action_mask"])
        env.step(int(rnd.choice(legal)))


@pytest.mark.parametrize("variant", ["defaults", "non-default"])
def test_worlds_are_consistent(variant):
    flags = dict(VARIANTS[variant], episode="game")
    stats = {"worlds": 0, "phases": set()}
    for seed in range(2):
        _playout_checks(flags, seed, every=4, n=2, stats=stats)
    assert stats["worlds"] > 60
    assert stats["phases"] == {ELDER_EXCHANGE, DEALER_EXCHANGE, TRICK_LEAD, TRICK_FOLLOW}


@pytest.mark.slow
@pytest.mark.parametrize("variant", list(VARIANTS))
def test_worlds_are_consistent_long(variant):
    flags = dict(VARIANTS[variant], episode="match")
    stats = {"worlds": 0, "phases": set()}
    for seed in range(10, 16):
        _playout_checks(flags, seed, every=3, n=3, stats=stats)
    assert stats["worlds"] > 1000
    assert stats["phases"] == {ELDER_EXCHANGE, DEALER_EXCHANGE, TRICK_LEAD, TRICK_FOLLOW}


def _bianco_deal(seed: int, bianco_seat: int, dealer: int) -> dict:
    """A deal where `bianco_seat` holds no J/Q/K (Bianco: rare in random deals)."""
    rnd = random.Random(seed)
    faces = [c for c in range(32) if FACE_MASK >> c & 1]
    plain = [c for c in range(32) if not FACE_MASK >> c & 1]
    rnd.shuffle(plain)
    rest = faces + plain[12:]
    rnd.shuffle(rest)
    hands = [[], []]
    hands[bianco_seat], hands[1 - bianco_seat] = plain[:12], rest[:12]
    return {"dealer": dealer, "hands": hands, "talon": rest[12:]}


@pytest.mark.parametrize("peek", [False, True])
def test_worlds_are_consistent_with_a_bianco(peek):
    """The elder's Bianco (shown at the deal) and the dealer's (shown after the elder's exchange),
    observed by either seat: the opponent's dealt cards are public, its drawn cards are not."""
    flags = dict(episode="hand", allow_peek=peek, reveal_leftover_talon=not peek)
    stats = {"worlds": 0, "phases": set()}
    for seed in range(4):
        bianco_seat, dealer = seed % 2, (seed // 2) % 2
        _playout_checks(flags, seed, every=2, n=3, stats=stats, options=_bianco_deal(seed, bianco_seat, dealer))
    assert stats["phases"] == {ELDER_EXCHANGE, DEALER_EXCHANGE, TRICK_LEAD, TRICK_FOLLOW}


# -- uniformity: brute force over every assignment of the unseen cards --------------------------


def _world_key(s, seat: int) -> tuple:
    op = 1 - seat
    return (s.dealt[op], s.discards[op], s.drawn[op], s.leftover)


def _endgame(flags: dict, seed: int, seat: int, op_discards: int, my_discards: int, tricks: int,
             options: dict | None = None):
    """Play a hand (random cards; the opponent discards `op_discards`, the seat `my_discards`) until
    `seat` is to act after `tricks` tricks. Returns (env, the seat's observations at its decisions
    as (moves of the hand before it, observation bytes), its tracker), or None."""
    rnd = random.Random(seed)
    env = picchetto_v0.raw_env(**flags)
    env.reset(seed=seed, options=options)
    tracker = W.Tracker(flags, seat)
    seen = []
    moves = 0
    while not env.game.is_over(env.state_):
        s = env.state_
        who = env.agent_name_mapping[env.agent_selection]
        obs = env.observe(env.agent_selection)
        if who == seat:
            if s.phase >= TRICK_LEAD and s.trick_no == tricks:
                tracker.observe(obs)
                seen.append((moves, obs["observation"].tobytes()))
                return env, seen, tracker
            tracker.observe(obs)
            seen.append((moves, obs["observation"].tobytes()))
        if s.phase < TRICK_LEAD:
            want = op_discards if who != seat else my_discards
            a = 64 if s.ndisc[who] >= want else 32 + rnd.choice(list(iter_bits(s.hands[who])))
        else:
            a = rnd.choice(env.legal_actions())
        env.step(a)
        moves += 1
        if env.state_.hand_no != 1:
            return None
    return None


def _brute_force(flags: dict, env, seen, seat: int) -> dict:
    """Every world consistent with the seat's observations, found without the sampler: each
    assignment of the cards the observation does not show (to the opponent's hand, its discards,
    the leftover) and each split of the opponent's hand into kept and drawn cards is replayed from
    the deal, and kept when every observation of the seat matches. Returns {world key: None}."""
    s = env.state_
    op, E, D = 1 - seat, s.elder, s.dealer
    my_dealt = s.dealt[seat]
    shown_l = s.leftover if flags.get("reveal_leftover_talon") else 0
    known_op = s.played[op] | s.revealed[op]
    unseen = [c for c in range(32) if not (my_dealt | s.drawn[seat] | known_op | shown_l) >> c & 1]
    d_op = s.ndisc[op]
    n_hand = 12 - (known_op).bit_count()
    ell = 8 - s.ndisc[E] - s.ndisc[D] - shown_l.bit_count()
    start = [s.game_score[p] - s.hand_score[p] for p in (0, 1)]
    moves = _hand_moves_raw(env)
    found = {}
    for xs in itertools.combinations(unseen, n_hand):
        rest = [c for c in unseen if c not in xs]
        for disc in itertools.combinations(rest, d_op):
            left = [c for c in rest if c not in disc]
            if len(left) != ell:
                continue
            h_op = sum(1 << c for c in xs) | known_op
            for drawn in itertools.combinations(list(iter_bits(h_op)), d_op):
                dm = sum(1 << c for c in drawn)
                kept = h_op & ~dm
                dealt = [0, 0]
                dealt[seat], dealt[op] = my_dealt, kept | sum(1 << c for c in disc)
                dr = [0, 0]
                dr[seat], dr[op] = s.drawn[seat], dm
                lm = sum(1 << c for c in left) | shown_l
                talon = sorted(iter_bits(dr[E])) + sorted(iter_bits(dr[D])) + sorted(iter_bits(lm))
                if _matches(flags, s, seat, dealt, talon, start, sorted(disc), moves, seen):
                    found[(dealt[op], dealt[op] & ~kept, dm, lm)] = None
    return found


def _hand_moves_raw(env) -> list[tuple[int, int]]:
    rec = env.episode_record()
    return [(m["seat"], m["id"]) for m in rec["hands"][-1]["moves"]]


def _matches(flags, s, seat, dealt, talon, start, disc, moves, seen) -> bool:
    env = picchetto_v0.raw_env(**flags)
    env.reset(seed=0, options={"dealer": s.dealer, "hands": [list(iter_bits(h)) for h in dealt], "talon": talon,
                               "scores": start, "games_won": list(s.games_won)})
    hidden = iter(disc)
    agent = env.possible_agents[seat]
    k = 0
    for i, (who, a) in enumerate(moves + [(None, None)]):
        if k < len(seen) and seen[k][0] == i:
            if env.observe(agent)["observation"].tobytes() != seen[k][1]:
                return False
            k += 1
        if who is None:
            break
        if who != seat and 32 <= a < 64:
            a = 32 + next(hidden)
        if env.game.is_over(env.state_) or env.agent_name_mapping[env.agent_selection] != who:
            return False
        if a not in env.legal_actions():
            return False
        env.step(a)
    return k == len(seen)


def _chi2_critical(df: int, z: float = 3.09) -> float:
    """Upper 0.1% point of chi-square(df) (Wilson-Hilferty; scipy is not a dependency)."""
    return df * (1 - 2 / (9 * df) + z * math.sqrt(2 / (9 * df))) ** 3


def _uniformity(flags, seed, seat, op_discards, my_discards, tricks, per_world=150):
    options = None
    if flags.get("bianco") is not None:  # (Bianco seat, dealer) of an explicit deal
        flags = dict(flags)
        options = _bianco_deal(seed, *flags.pop("bianco"))
    got = _endgame(flags, seed, seat, op_discards, my_discards, tricks, options)
    if got is None:
        return None
    env, seen, tracker = got
    worlds = _brute_force(flags, env, seen, seat)
    assert _world_key(env.state_, seat) in worlds  # the real world is found
    m = len(worlds)
    if m < 2:
        return m
    n = per_world * m
    counts = dict.fromkeys(worlds, 0)
    for w in W.sample_worlds(tracker.view(), n, np.random.default_rng(seed)):
        key = _world_key(w, seat)
        assert key in counts, "a sampled world is not among the brute-force consistent worlds"
        counts[key] += 1
    expected = n / m
    chi2 = sum((c - expected) ** 2 / expected for c in counts.values())
    assert chi2 < _chi2_critical(m - 1), (chi2, m, sorted(counts.values()))
    return m


#: (flags, seat, the opponent's discards, the seat's discards, tricks played, seeds): small endgames.
#: Worlds per case (brute force): 12-24 for the first, 72-144 for the second, 36-108 for the third,
#: 66-264 for the fourth, 10-100 for the fifth. `bianco`: (Bianco seat, dealer) of an explicit deal.
UNIFORMITY_FAST = [
    # the leftover is shown; the opponent (elder) discarded 1: its hand and which card it drew
    (dict(reveal_leftover_talon=True, episode="hand", first_dealer=0), 0, 1, 3, 8, [1]),
    # the seat deals and leaves 2 cards: the opponent's hand, discard, drawn card and the leftover
    (dict(episode="hand", first_dealer=0), 0, 1, 5, 8, [0]),
]
UNIFORMITY_SLOW = [
    (dict(reveal_leftover_talon=True, episode="hand", first_dealer=0), 0, 1, 3, 8, [0, 2]),
    (dict(episode="hand", first_dealer=0), 0, 1, 5, 8, [1, 2]),
    (dict(episode="hand", first_dealer=1), 0, 1, 5, 8, [0, 1, 2]),  # the seat is elder
    (dict(reveal_leftover_talon=True, episode="hand", first_dealer=0), 1, 2, 4, 9, [0, 1, 2]),
    # the elder peeks at T[2..4]: the dealer drew 2 of those 3 cards
    (dict(episode="hand", first_dealer=0, allow_peek=True), 1, 2, 3, 9, [0]),
    (dict(episode="hand", first_dealer=1), 1, 1, 7, 9, [0, 1, 2]),  # the seat deals and takes the whole talon
    # the opponent (dealer) is Bianco: its dealt cards are known, not which it kept
    (dict(episode="hand", reveal_leftover_talon=True, bianco=(1, 1)), 0, 2, 3, 8, [0, 2]),
    # the opponent (elder) is Bianco and the seat (dealer) leaves 2 cards
    (dict(episode="hand", bianco=(0, 1)), 1, 2, 4, 8, [1, 2]),
]


def _uniformity_case(case) -> None:
    flags, seat, op_d, my_d, tricks, seeds = case
    sizes = [_uniformity(flags, seed, seat, op_d, my_d, tricks) for seed in seeds]
    assert all(m is not None and m >= 2 for m in sizes), sizes


@pytest.mark.parametrize("case", range(len(UNIFORMITY_FAST)))
def test_sampler_is_uniform_on_small_endgames(case):
    _uniformity_case(UNIFORMITY_FAST[case])


@pytest.mark.slow
@pytest.mark.parametrize("case", range(len(UNIFORMITY_SLOW)))
def test_sampler_is_uniform_on_small_endgames_long(case):
    _uniformity_case(UNIFORMITY_SLOW[case])


# -- loading into the batched engine ------------------------------------------------------------


def _sampled_points(flags: dict, seeds, every: int, rng):
    """(flags, seat, view, world) at every `every`-th decision of random playouts."""
    out = []
    for seed in seeds:
        rnd = random.Random(seed)
        env = picchetto_v0.raw_env(**flags)
        env.reset(seed=seed)
        trackers = [W.Tracker(flags, p) for p in (0, 1)]
        k = 0
        while not env.game.is_over(env.state_):
            seat = env.agent_name_mapping[env.agent_selection]
            obs = env.observe(env.agent_selection)
            trackers[seat].observe(obs)
            k += 1
            if k % every == 0:
                view = trackers[seat].view()
                out.append((seat, view, W.sample_worlds(view, 1, rng)[0]))
            env.step(rnd.choice(env.legal_actions()))
    return out


def _load_and_compare(flags: dict, world, seed: int) -> int:
    """vec.load(0, world), then the same random actions on the vector env and on a copy of the
    world (the AEC engine, its generator replaying the vector game's stream for later deals):
    same seat to act, observation, mask, rewards and termination to the end of the episode."""
    from tests.envs.test_picchetto_batched import StreamRng

    game = PicchettoGame(**flags)
    vec = picchetto_v0.vector_env(1, **flags)
    vec.reset(seed=seed)
    vec.load(0, world)
    assert W.vector_hand_no(vec)[0] == W.hand_no(world)
    assert np.shares_memory(W.vector_hand_no(vec), vec.state["st"])
    s = W.clone_state(world)
    s.rng = StreamRng(int(vec.rng[0]))
    observer = PicchettoObserver(game)
    observer.reset(s)
    rnd = random.Random(seed)
    steps = 0
    while True:
        seat = game.current_player(s)
        assert int(vec.current_player[0]) == seat
        assert vec.obs[0].tobytes() == observer.observe(seat).tobytes()
        assert np.array_equal(vec.mask[0], _mask_array(game, s))
        a = rnd.choice(game.legal_actions(s))
        r = game.apply(s, a)
        observer.update(s, seat, a)
        _, _, rewards, term, _, _ = vec.step(np.array([a]))
        assert list(rewards[0]) == list(r if r is not None else (0, 0))
        steps += 1
        assert bool(term[0]) == s.over
        if s.over:
            return steps


@pytest.mark.parametrize("variant", ["defaults", "non-default"])
def test_load_sampled_worlds_into_vector_env(variant):
    flags = dict(VARIANTS[variant], episode="hand" if variant == "defaults" else "game")
    rng = np.random.default_rng(1)
    points = _sampled_points(flags, range(2), every=3, rng=rng)
    phases = set()
    for k, (_, view, world) in enumerate(points):
        _load_and_compare(flags, world, seed=k)
        phases.add(view.phase)
    assert phases == {ELDER_EXCHANGE, DEALER_EXCHANGE, TRICK_LEAD, TRICK_FOLLOW}


@pytest.mark.slow
@pytest.mark.parametrize("variant", list(VARIANTS))
def test_load_sampled_worlds_into_vector_env_match(variant):
    flags = dict(VARIANTS[variant], episode="match")
    rng = np.random.default_rng(2)
    for k, (_, _, world) in enumerate(_sampled_points(flags, range(2), every=8, rng=rng)):
        _load_and_compare(flags, world, seed=k)


# -- the tracker, the view and the helpers ------------------------------------------------------


def test_view_of_equals_the_incremental_tracker():
    flags = dict(episode="match", game_target=40, bella_target=50)
    rnd = random.Random(3)
    env = picchetto_v0.env(**flags)
    env.reset(seed=3)
    trackers = [W.Tracker(flags, p) for p in (0, 1)]
    checked = 0
    for agent in env.agent_iter():
        obs, _, term, trunc, _ = env.last()
        if term or trunc:
            env.step(None)
            continue
        seat = env.unwrapped.agent_name_mapping[agent]
        trackers[seat].observe(obs)
        trackers[seat].observe(obs)  # an unchanged observation again is harmless
        if rnd.random() < 0.1:
            mine, theirs = trackers[seat].view(), W.view_of(env, agent)
            for name in mine.__dataclass_fields__:
                if name != "_cache":
                    assert getattr(mine, name) == getattr(theirs, name), name
            checked += 1
        env.step(int(rnd.choice(np.flatnonzero(obs["action_mask"]))))
    assert checked > 10
    assert trackers[0].view().hand_no > 3  # several hands and games were followed
    assert len(trackers[0].view().game_winners) >= 1
    # a new episode without reset(): the tracker notices the final observation and starts afresh
    trackers[0].observe(env.observe("player_0"))
    env.reset(seed=4)
    obs = env.observe("player_0")
    trackers[0].observe(obs)
    assert trackers[0].view().hand_no == 1 and trackers[0].view().game_winners == ()


def test_tracker_started_mid_hand_keeps_what_it_can_prove():
    """A tracker that joins in the middle of a hand has no trick pairing (no voids): its view says
    so, and its worlds still give the seat exactly its observation and mask."""
    flags = dict(episode="hand")
    rng = np.random.default_rng(4)
    joined = 0
    for seed in range(6):
        rnd = random.Random(seed)
        env = picchetto_v0.raw_env(**flags)
        env.reset(seed=seed)
        start = rnd.randrange(10, 30)
        trackers: dict[int, W.Tracker] = {}
        k = 0
        while not env.game.is_over(env.state_):
            seat = env.agent_name_mapping[env.agent_selection]
            obs = env.observe(env.agent_selection)
            k += 1
            if k >= start:
                trackers.setdefault(seat, W.Tracker(flags, seat)).observe(obs)
                view = trackers[seat].view()
                if env.state_.trick_no > 0 and k == start:
                    assert not view.complete
                    joined += 1
                for w in W.sample_worlds(view, 3, rng):
                    check_world(flags, w, seat, obs, _hand_moves(env), view)
            env.step(rnd.choice(env.legal_actions()))
    assert joined >= 2


def test_sampling_is_deterministic_and_checks_its_input():
    flags = {}
    rng = np.random.default_rng(5)
    points = _sampled_points(dict(episode="hand"), [5], every=1, rng=rng)
    _, view, _ = next(p for p in points if p[1].phase == TRICK_LEAD and p[1].trick_no == 1)
    a = W.sample_worlds(view, 20, np.random.default_rng(9))
    b = W.sample_worlds(view, 20, np.random.default_rng(9))
    assert [(_world_key(x, view.seat), x.talon) for x in a] == [(_world_key(x, view.seat), x.talon) for x in b]
    assert len({_world_key(x, view.seat) for x in a}) > 1
    op = 1 - view.seat
    bad = dataclasses.replace(view, pub_point=tuple(99 if p == op else v for p, v in enumerate(view.pub_point)),
                              answers=(UGUALE,) + view.answers[1:], _cache={})
    with pytest.raises(ValueError, match="no world is consistent"):
        W.sample_worlds(bad, 1, rng)
    with pytest.raises(ValueError, match="seat"):
        W.Tracker(flags, seat=2)
    with pytest.raises(ValueError, match="n \\(worlds to sample\\)"):
        W.sample_worlds(view, -1, rng)
    with pytest.raises(ValueError, match="shape"):
        W.Tracker(flags).observe(np.zeros(10))
    with pytest.raises(ConfigError, match="must_head_trick"):
        W.Tracker({"must_head_trick": 2})
    with pytest.raises(ValueError, match="observed nothing"):
        W.Tracker(flags).view()


def test_clone_state_is_independent():
    flags = dict(episode="game", allow_peek=True)
    rng = np.random.default_rng(6)
    game = PicchettoGame(**flags)
    for _, _, world in _sampled_points(flags, [6], every=4, rng=rng):
        before = pickle.dumps(world)
        twin = copy.deepcopy(world)
        clone = W.clone_state(world)
        rnd = random.Random(1)
        while not game.is_over(clone):  # plays on into later hands (the generator is used)
            a = rnd.choice(game.legal_actions(clone))
            assert game.apply(clone, a) == game.apply(twin, a)
        assert pickle.dumps(world) == before
        for name in FIELDS + ("hand_no", "events", "game_records"):
            assert getattr(clone, name) == getattr(twin, name), name
        assert W.hand_no(clone) >= W.hand_no(world)
        # the engine's own copy with a generator of its own (the search players' clone) leaves the world alone too
        other = world.copy()
        other.rng = np.random.default_rng(0)
        while not game.is_over(other):
            game.apply(other, rnd.choice(game.legal_actions(other)))
        assert pickle.dumps(world) == before
