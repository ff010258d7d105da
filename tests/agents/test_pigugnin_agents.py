"""Pigugnin players: legality over thousands of games, and the heuristic beats random."""

from __future__ import annotations

import random

import numpy as np
import pytest

from agents import Agent, make_agent
from envs import pigugnin_v0
from tests.agents.common import play


@pytest.mark.parametrize("num_players", [4, 5])
def test_heuristic_never_plays_an_illegal_card(num_players):
    env = pigugnin_v0.env(num_players=num_players, pigugnin_first_trick_restriction=num_players == 5)
    rnd = random.Random(num_players)
    for seed in range(60):  # whole games: about 600 hands per player count
        lineup = {a: make_agent(rnd.choice(["heuristic", "random"]), "pigugnin", seed=seed) for a in env.possible_agents}
        assert all(isinstance(agent, Agent) for agent in lineup.values())
        play(env, lineup, seed)


@pytest.mark.slow
@pytest.mark.parametrize("num_players", [4, 5])
def test_heuristic_pays_fewer_busche_than_random(num_players):
    """Duplicate hands: the heuristic sits at every seat of each deal; random at every seat too."""
    env = pigugnin_v0.raw_env(num_players=num_players, episode="hand")
    diffs = []
    for deal in range(300):
        heuristic, baseline = [], []
        for seat in range(num_players):
            lineup = {a: make_agent("random", "pigugnin", seed=deal * 10 + i) for i, a in enumerate(env.possible_agents)}
            baseline.append(play(env, lineup, deal)[f"player_{seat}"])
            lineup[f"player_{seat}"] = make_agent("heuristic", "pigugnin", seed=deal)
            heuristic.append(play(env, lineup, deal)[f"player_{seat}"])
        diffs.append(np.mean(heuristic) - np.mean(baseline))
    mean, half = np.mean(diffs), 1.96 * np.std(diffs, ddof=1) / np.sqrt(len(diffs))
    assert mean - half > 0, (mean, half)  # reward is minus the busche: higher is better
