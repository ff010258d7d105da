"""Briscola in cinque players: protocol, legality, strength, and decode as the encoder's inverse."""

from __future__ import annotations

import random

import pytest

from agents import Agent, make_agent
from envs import briscola5_v0
from envs.briscola5.game import NUM_TRICKS
from envs.briscola5.observation import decode
from envs.core.errors import ConfigError
from tests.agents.common import play
from train.evaluate import head_to_head


@pytest.mark.parametrize("spec", ["random", "heuristic"])
def test_agents_satisfy_the_protocol_and_are_seeded(spec):
    agent = make_agent(spec, "briscola5", seed=3)
    assert isinstance(agent, Agent)
    env = briscola5_v0.env(forfeit_enabled=False)
    env.reset(seed=0)
    obs = env.last()[0]
    again = make_agent(spec, "briscola5", seed=3)
    assert [agent.act(obs) for _ in range(5)] == [again.act(obs) for _ in range(5)]


@pytest.mark.slow
def test_heuristic_never_plays_an_illegal_action_in_mixed_games():
    env = briscola5_v0.env()
    rnd = random.Random(0)
    for seed in range(800):
        lineup = {a: make_agent(rnd.choice(["heuristic", "heuristic", "random"]), "briscola5", seed=seed) for a in env.possible_agents}
        play(env, lineup, seed)


def test_heuristic_beats_random_with_a_confidence_interval_above_zero():
    result = head_to_head("briscola5", "heuristic", "random", num_deals=120)  # duplicate deals
    assert result["low"] > 0.2, result


def test_unknown_agent_and_game_raise_before_play():
    with pytest.raises(ConfigError, match="unknown agent 'smart'; known agents: random, heuristic"):
        make_agent("smart", "briscola5")
    with pytest.raises(ConfigError, match="unknown game 'scopa'"):
        make_agent("random", "scopa")


def rel(seat: int, p: int) -> int:
    return (p - seat) % 5


def test_decode_inverts_the_encoder_on_random_states():
    env = briscola5_v0.raw_env(num_hands=2)
    rnd = random.Random(1)
    for seed in range(60):
        env.reset(seed=seed)
        while not env.episode_over:
            state = env.state_
            for seat in range(5):
                view = decode(env.observe(f"player_{seat}"))
                assert view["hand"] == [c for c in range(40) if state.hands[seat] >> c & 1]
                assert view["dealer"] == rel(seat, state.dealer)
                assert view["passed"] == sorted(rel(seat, p) for p in range(5) if state.passed >> p & 1)
                assert view["bids"] == {rel(seat, p): [v for q, v in state.bids if q == p and v] for p in range(5)}
                assert view["caller"] == (rel(seat, state.caller) if state.caller >= 0 else None)
                assert view["contract"] == (state.contract if state.caller >= 0 else None)
                assert view["called_card"] == (state.called if state.called >= 0 else None)
                assert view["holds_called"] == (state.called >= 0 and state.partner == seat)
                assert view["trick"] == state.trick
                assert view["points_taken"] == [state.points[(seat + r) % 5] for r in range(5)]
                assert view["tricks_taken"] == [state.tricks_won[(seat + r) % 5] for r in range(5)]
                assert view["played"] == sorted(
                    (state.played_trick[c], rel(seat, state.played_by[c]), c) for c in range(40) if state.played_by[c] >= 0
                )
                assert view["partner"] == (rel(seat, state.partner) if state.revealed else None)
                assert 0 <= view["trick_no"] <= NUM_TRICKS
            legal = env.legal_actions()
            env.step(legal[int(rnd.random() * len(legal))])
