"""Picchetto players: legality over thousands of hands, exchange sanity, and the heuristic beats random."""

from __future__ import annotations

import random

from agents import Agent, make_agent
from agents.picchetto_heuristic import keep_values
from envs import picchetto_v0
from envs.core.cards import FRENCH
from tests.agents.common import play
from train.evaluate import head_to_head


def test_heuristic_never_plays_an_illegal_action():
    rnd = random.Random(0)
    for flags in ({}, {"must_head_trick": False, "dealer_min_exchange": 0, "trick_scoring": "classic"}):
        env = picchetto_v0.env(episode="game", **flags)
        for seed in range(40):  # whole games: about 400 hands per variant
            lineup = {a: make_agent(rnd.choice(["heuristic", "random"]), "picchetto", seed=seed) for a in env.possible_agents}
            assert all(isinstance(agent, Agent) for agent in lineup.values())
            play(env, lineup, seed)


def test_keep_values_favour_point_sequences_and_sets():
    hand = [FRENCH.parse(c) for c in "Ah Kh Qh Jh Th 9h As Ad Ac 7s 8d 7c".split()]
    values = keep_values(hand)
    # The lone low cards are the cheapest to throw; the quint and the three Aces are kept.
    cheapest = sorted(hand, key=values.get)[:3]
    assert {FRENCH.code(c) for c in cheapest} == {"7s", "8d", "7c"}


def test_heuristic_beats_random_by_a_clear_margin():
    result = head_to_head("picchetto", "heuristic", "random", num_deals=80, flags={"episode": "hand"})
    assert result["low"] > 10, result  # points per hand, zero-sum
