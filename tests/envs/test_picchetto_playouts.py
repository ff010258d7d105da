"""Random complete hands of Picchetto checked against the independent referee.

* 22,500 hands on the engine directly (over 20,000 of them played out to the end) (default flags and random flag combinations, random
  start scores so that games end in the middle of hands): the mask equals the referee's legal
  set in every state, every step's rewards equal the referee's, the hand's scoring events
  (kind, seat, points) are the referee's in order, the cards shown in the declarations are the
  referee's; both players hold 12 cards after the exchange, no card is in two places, the 13
  trick points are awarded in every played-out hand (seed scoring), at most one pique or
  repique per hand.
* Complete matches terminate, with a consistent partita / rivincita / bella structure.
* Through the env (hundreds of hands): the incremental observation equals a full rebuild,
  ``decode`` inverts the encoder (it returns ``view``), rewards are zero-sum.
"""

from __future__ import annotations

import random

import numpy as np
import pytest

from envs import picchetto_v0
from envs.core.cards import iter_bits
from envs.picchetto.game import OVER, TRICK_FOLLOW, TRICK_LEAD, PicchettoGame
from envs.picchetto.observation import PicchettoObserver, decode, view
from tests.envs.referee_picchetto import Referee, is_face

DEFAULTS = {f.name: f.default for f in PicchettoGame.FLAGS}
VARIANTS = {
    "trick_scoring": ["seed", "classic"],
    "must_head_trick": [True, False],
    "dealer_min_exchange": [1, 0],
    "bianco_counts_for_repique": [True, False],
    "pique_counts_end_bonuses": [False, True],
    "capot_replaces_cards": [True, False],
    "target_inclusive": [False, True],
    "game_end_check": ["immediate", "end_of_hand"],
    "outcome_reward": [0, 7],
}
FULL = (1 << 32) - 1


def random_flags(rnd: random.Random) -> dict:
    return {k: rnd.choice(v) for k, v in VARIANTS.items()}


def bianco_setup(rnd: random.Random) -> dict:
    """A deal where the elder (or the dealer) holds no J/Q/K (rare in random deals)."""
    non_face = [c for c in range(32) if not is_face(c)]
    faces = [c for c in range(32) if is_face(c)]
    rnd.shuffle(non_face)
    bianco = non_face[:12]
    rest = non_face[12:] + faces
    rnd.shuffle(rest)
    dealer = rnd.randrange(2)
    bianco_seat = 1 - dealer if rnd.random() < 0.5 else dealer
    hands = [None, None]
    hands[bianco_seat] = bianco
    hands[1 - bianco_seat] = rest[:12]
    return {"dealer": dealer, "hands": hands, "talon": rest[12:]}


def check_cards(s) -> None:
    """No card is in two places; every card is somewhere."""
    parts = [s.hands[0], s.hands[1], s.discards[0], s.discards[1], s.played[0], s.played[1]]
    if s.phase == 0:  # the elder has not drawn yet
        undrawn = s.talon
    elif s.phase == 1:
        undrawn = s.talon[s.ndisc[s.elder]:]
    else:
        undrawn = s.talon[s.ndisc[0] + s.ndisc[1]:]
    parts.append(sum(1 << c for c in undrawn))
    total = 0
    for m in parts:
        assert total & m == 0, "a card is in two places"
        total |= m
    assert total == FULL, "a card went missing"


def play_hands(n: int, seed: int, flag_mode: str) -> dict:
    rnd = random.Random(seed)
    rng = np.random.default_rng(seed)
    stats = {"hands": 0, "completed": 0, "game_ended": 0, "pique": 0, "repique": 0, "bianco": 0, "capot": 0}
    games = {}
    for _ in range(n):
        flags = DEFAULTS | (random_flags(rnd) if flag_mode == "random" else {})
        flags["episode"] = "hand"
        key = tuple(sorted(flags.items()))
        game = games.get(key) or games.setdefault(key, PicchettoGame(**flags))
        setup = bianco_setup(rnd) if rnd.random() < 0.03 else {}
        if rnd.random() < 0.08:  # start scores near the target: games end in the middle of hands
            setup["scores"] = [rnd.randrange(100, 151), rnd.randrange(100, 151)]
            if flags["target_inclusive"]:
                setup["scores"] = [min(x, 149) for x in setup["scores"]]
        setup = game.parse_options(setup)
        s = game.new_state(rng, setup)
        ref = Referee([set(iter_bits(h)) for h in s.dealt], s.talon, s.dealer, setup.get("scores", [0, 0]),
                      150, flags)
        init = game.initial_rewards(s)
        init = init if init is not None else [0, 0]
        expected = [float(x) for x in ref_initial(ref, flags)]
        assert [float(x) for x in init] == expected
        exchanged_checked = False
        while not s.over:
            mask = game.legal_mask(s)
            legal = set(iter_bits(mask))
            assert legal == ref.legal(), (legal, ref.legal())
            assert game.current_player(s) == ref.to_act
            action = rnd.choice(sorted(legal))
            rewards = game.apply(s, action)
            want = ref.step(action)
            got = [float(x) for x in rewards] if rewards is not None else [0.0, 0.0]
            assert got == want, (got, want, ref.events)
            assert got[0] == -got[1]
            if not s.over:
                check_cards(s)
                if s.phase >= TRICK_LEAD and not exchanged_checked:
                    exchanged_checked = True
                    assert s.hands[0].bit_count() == 12 and s.hands[1].bit_count() == 12
                    assert s.revealed == [sum(1 << c for c in ref.revealed[p]) for p in (0, 1)]
        assert ref.done
        rec = s.hand_records[-1]
        assert rec["events"] == ref.events
        kinds = [k for k, _, _ in ref.events]
        assert kinds.count("pique") + kinds.count("repique") <= 1
        stats["hands"] += 1
        stats["pique"] += kinds.count("pique")
        stats["repique"] += kinds.count("repique")
        stats["bianco"] += kinds.count("bianco")
        stats["capot"] += kinds.count("capot")
        if rec["completed"]:
            stats["completed"] += 1
            assert ref.trick_no == 12
            if flags["trick_scoring"] == "seed":
                assert sum(p for k, _, p in ref.events if k == "trick") == 13
            else:
                # classic: 1 per lead, 1 per trick won by the follower, 1 for the last trick
                assert kinds.count("lead") == 12 and kinds.count("last_trick") == 1
        if ref.winner is not None:
            stats["game_ended"] += 1
            assert s.game_records[-1]["winner"] == ref.winner
            assert s.game_records[-1]["scores"] == ref.gs
        else:
            assert s.game_records[-1]["winner"] is None
        assert s.game_score == ref.gs
    return stats


def ref_initial(ref: Referee, flags: dict) -> list[float]:
    """Rewards of the events the referee scored at the deal (an elder Bianco)."""
    r = [0.0, 0.0]
    for _, seat, pts in ref.events:
        r[seat] += pts
        r[1 - seat] -= pts
    if ref.winner is not None:
        r[ref.winner] += flags["outcome_reward"]
        r[1 - ref.winner] -= flags["outcome_reward"]
    return r


@pytest.mark.slow
def test_random_hands_default_flags():
    stats = play_hands(13_500, seed=11, flag_mode="default")
    # the checks above ran on every kind of hand; with the next test, over 20,000 hands played out
    assert stats["completed"] >= 12_000 and stats["game_ended"] > 500
    assert stats["pique"] > 0 and stats["repique"] > 0 and stats["bianco"] > 100


@pytest.mark.slow
def test_random_hands_random_flags():
    stats = play_hands(9_000, seed=12, flag_mode="random")
    assert stats["completed"] >= 8_000 and stats["game_ended"] > 300


@pytest.mark.parametrize("flags", [{}, {"match_format": "single_game"}, {"game_end_check": "end_of_hand"},
                                   {"trick_scoring": "classic", "target_inclusive": True}])
def test_matches_terminate(flags):
    rnd = random.Random(5)
    game = PicchettoGame(**flags)
    rng = np.random.default_rng(5)
    for _ in range(40):
        s = game.new_state(rng, {})
        steps = 0
        while not s.over:
            s_legal = list(iter_bits(game.legal_mask(s)))
            game.apply(s, rnd.choice(s_legal))
            steps += 1
            assert steps < 20_000
        games = s.game_records
        assert all(g["winner"] in (0, 1) for g in games)
        w = [g["winner"] for g in games]
        if flags.get("match_format") == "single_game":
            assert len(games) == 1 and s.match_winner == w[0]
        else:
            assert s.match_winner is not None and w.count(s.match_winner) == 2
            assert len(games) == (2 if w[0] == w[1] else 3)
            assert [g["target"] for g in games] == [150, 150, 220][: len(games)]
        for g in games:
            assert any(game.reached(x, g["target"]) for x in g["scores"])
        # the dealer alternates every hand, across games too
        dealers = [h["dealer"] for h in s.hand_records]
        assert all(a != b for a, b in zip(dealers, dealers[1:], strict=False))


@pytest.mark.parametrize(
    "flags",
    [{}, {"reveal_leftover_talon": True, "allow_peek": True, "trick_scoring": "classic"},
     {"episode": "game", "game_target": 40, "must_head_trick": False, "dealer_min_exchange": 0}],
)
def test_env_observer_incremental_equals_rebuild_and_decode(flags):
    env = picchetto_v0.raw_env(**flags)
    rebuilt = PicchettoObserver(env.game)
    rnd = random.Random(3)
    env.reset(seed=3)
    episodes = 0
    steps = 0
    while steps < 1_200:
        s = env.state_
        rebuilt.reset(s)
        np.testing.assert_array_equal(env.observer.buf, rebuilt.buf)
        for seat in (0, 1):
            obs = env.observe(f"player_{seat}")["observation"]
            assert obs.dtype == np.float32 and obs.min() >= 0.0 and obs.max() <= 4.0
            assert decode(obs) == view(env.game, s, seat)
        if env.terminations["player_0"]:
            episodes += 1
            env.reset()
            continue
        legal = env.legal_actions()
        env.step(rnd.choice(legal))
        steps += 1
        assert env.rewards["player_0"] == -env.rewards["player_1"]
        # trick phases are where the leader field is set
        if s.phase in (TRICK_LEAD, TRICK_FOLLOW):
            assert decode(env.observe(f"player_{s.to_act}"))["leader"] in (0, 1)
        assert s.phase != OVER or s.over
    assert episodes >= 1
