"""Random playouts of Briscola in cinque against an independent referee.

20,000+ complete hands on the engine (every mask, turn, trick and credit compared with
``referee_briscola5``), a few hundred through ``env()`` (the observed mask against the
referee), the incremental observer against a full rebuild, and that the called card's holder
stays private (the general no-leak property is a contract test, ``test_contract.py``).
"""

from __future__ import annotations

import random

import numpy as np
import pytest

from envs import briscola5_v0
from envs.briscola5.game import AUCTION, FORFEIT_CHECK, Briscola5Game
from envs.briscola5.observation import Briscola5Observer
from tests.envs.referee_briscola5 import Referee

VARIANTS = [
    ({}, 20_000),
    ({"all_pass_policy": "force_dealer", "cappotto_definition": "tricks", "bid_multiplier_on_loss": True}, 2_000),
    ({"allow_call_own_card": False, "first_lead": "caller", "min_raise": 5, "min_bid": 70, "max_bid": 100}, 2_000),
    ({"forfeit_enabled": False}, 1_000),
]


def choose(rnd: random.Random, legal: list[int], phase: int) -> int:
    """Uniform play, but pass or forfeit half the time so void hands and short auctions occur."""
    if phase == AUCTION and rnd.random() < 0.5:
        return 80
    if phase == FORFEIT_CHECK and rnd.random() < 0.5:
        return 141
    return legal[int(rnd.random() * len(legal))]


@pytest.mark.parametrize(
    "flags,num_hands",
    # the 20,000-hand run is the slow tier; the smaller flag variants run in the fast one too
    [pytest.param(*v, marks=pytest.mark.slow) if v[1] >= 10_000 else v for v in VARIANTS],
    ids=[str(v[0]) or "defaults" for v in VARIANTS],
)
def test_random_hands_match_the_referee(flags, num_hands):
    game = Briscola5Game(**flags)
    rng = np.random.default_rng(12345)
    rnd = random.Random(6789)
    completed = voids = 0
    for _ in range(num_hands):
        state = game.new_state(rng, {})
        hands = [{c for c in range(40) if h >> c & 1} for h in state.dealt]
        assert sorted(c for h in hands for c in h) == list(range(40))  # a full deal, 8 each
        assert all(len(h) == 8 for h in hands)
        ref = Referee(hands, state.dealer, game.flags)
        credits = None
        while not game.is_over(state):
            legal = game.legal_actions(state)
            assert set(legal) == ref.legal(), (legal, ref.legal())
            assert game.current_player(state) == ref.to_act
            action = choose(rnd, legal, state.phase)
            credits = game.apply(state, action)
            assert credits == ref.step(action)
        assert ref.done
        record = state.records[-1]
        if ref.void:
            voids += 1
            assert record["void"] == ref.void and credits is None
            continue
        completed += 1
        assert sorted(ref.played) == list(range(40))  # every card played exactly once
        assert sum(state.points) == 120 == sum(ref.won_points)
        assert sum(state.tricks_won) == 8
        assert sum(credits) == 0 and credits == record["credits"] == state.scores
    assert completed > num_hands // 10 and voids > 0


def test_match_of_several_hands_rotates_the_dealer_and_sums_the_classifica():
    game = Briscola5Game(num_hands=5, first_dealer=2)
    rng = np.random.default_rng(7)
    rnd = random.Random(1)
    for _ in range(200):
        state = game.new_state(rng, {})
        dealers = []
        while not game.is_over(state):
            if not dealers or dealers[-1] != (state.hand_no, state.dealer):
                dealers.append((state.hand_no, state.dealer))
            game.apply(state, choose(rnd, game.legal_actions(state), state.phase))
        assert [d for _, d in dealers] == [2, 3, 4, 0, 1]
        assert len(state.records) == 5 and state.hands_played == 5
        totals = [sum(r["credits"][p] for r in state.records) for p in range(5)]
        assert totals == state.scores and sum(totals) == 0


def test_incremental_observer_equals_full_rebuild():
    game = Briscola5Game(num_hands=3)
    incremental, rebuilt = Briscola5Observer(game), Briscola5Observer(game)
    rng = np.random.default_rng(3)
    rnd = random.Random(3)
    for _ in range(150):
        state = game.new_state(rng, {})
        incremental.reset(state)
        while not game.is_over(state):
            actor = game.current_player(state)
            action = choose(rnd, game.legal_actions(state), state.phase)
            game.apply(state, action)
            incremental.update(state, actor, action)
            rebuilt.reset(state)
            assert np.array_equal(incremental.buf, rebuilt.buf), game.action_name(action)


def test_env_masks_equal_the_referee_and_rewards_are_the_credits():
    env = briscola5_v0.env()
    rnd = random.Random(11)
    for episode in range(300):
        env.reset(seed=episode)
        state = env.unwrapped.state_
        ref = Referee([{c for c in range(40) if h >> c & 1} for h in state.dealt], state.dealer, env.unwrapped.game.flags)
        returns = dict.fromkeys(env.possible_agents, 0)
        for agent in env.agent_iter():
            obs, reward, term, trunc, info = env.last()
            returns[agent] += reward
            if term or trunc:
                assert "result" in info
                env.step(None)
                continue
            assert env.agent_selection == f"player_{ref.to_act}"
            mask = obs["action_mask"]
            assert mask.dtype == np.int8 and set(np.flatnonzero(mask).tolist()) == ref.legal()
            for other in env.agents:
                if other != agent:
                    assert not env.observe(other)["action_mask"].any()
            legal = np.flatnonzero(mask).tolist()
            action = choose(rnd, legal, state.phase)
            ref.step(action)
            env.step(action)
        assert not env.agents  # every agent got its dead step
        expected = ref.scores() if not ref.void else [0] * 5
        assert [returns[f"player_{i}"] for i in range(5)] == expected


def test_the_called_cards_holder_is_private_until_played():
    """Moving the called card between two other seats changes only their private rows."""
    env = briscola5_v0.raw_env(forfeit_enabled=False)
    env.reset(seed=1, options={"dealer": 0})
    state = env.state_
    for action in [81, 80, 80, 80, 80]:  # seat 1 bids 61, all pass
        env.step(action)
    holder = {c: p for p in range(5) for c in range(40) if state.hands[p] >> c & 1}
    called = next(c for c in range(40) if holder[c] not in (1, 2))
    before = env.observe("player_2")["observation"].copy()
    env.step(40 + called)
    after_a = env.observe("player_2")["observation"]
    # Same history, but the called card sits with another non-observer seat.
    hands = [[c for c in range(40) if state.dealt[p] >> c & 1] for p in range(5)]
    target = next(p for p in (0, 3, 4) if p != holder[called])
    swap = hands[target][0]
    hands[holder[called]].remove(called)
    hands[holder[called]].append(swap)
    hands[target][0] = called
    other = briscola5_v0.raw_env(forfeit_enabled=False)
    other.reset(seed=1, options={"dealer": 0, "hands": hands})
    for action in [81, 80, 80, 80, 80, 40 + called]:
        other.step(action)
    assert other.state_.partner != env.state_.partner
    assert env.observe("player_2")["observation"].tobytes() == other.observe("player_2")["observation"].tobytes()
    assert not np.array_equal(before, after_a)  # the call itself is public and visible
