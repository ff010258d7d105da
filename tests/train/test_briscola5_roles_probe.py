"""The role probe of ``benchmarks/briscola5_roles.py``: each seat's role is read from its own observation
and matches the game's state, and PIMC decides exactly the decisions of the role it takes over."""

from __future__ import annotations

from pathlib import Path

import numpy as np
import pytest

from envs import briscola5_v0
from envs.briscola5.game import BID, FORFEIT, TRICK_PLAY

ROOT = Path(__file__).resolve().parents[2]


@pytest.fixture
def probe(monkeypatch):
    monkeypatch.syspath_prepend(str(ROOT / "benchmarks"))
    import briscola5_roles

    return briscola5_roles


def true_role(state, seat: int) -> str:
    if state.phase != TRICK_PLAY:
        return "before_tricks"
    if state.caller == seat:
        return "caller"
    return "partner" if state.partner == seat else "defender"


def play_hand(seed: int, seat0_act, on_decision=None) -> None:
    """One hand: ``seat0_act`` for player_0, uniform random legal moves for the others."""
    env = briscola5_v0.env(num_hands=1)
    env.reset(seed=seed)
    rng = np.random.default_rng(seed)
    for agent in env.agent_iter():
        obs, _, term, trunc, _ = env.last()
        if term or trunc:
            env.step(None)
            continue
        seat = env.unwrapped.agent_name_mapping[agent]
        if on_decision is not None:
            on_decision(env.unwrapped.state_, seat, obs)
        legal = np.flatnonzero(obs["action_mask"])
        env.step(seat0_act(obs) if seat == 0 else int(rng.choice(legal)))


def test_the_probe_reads_every_role_from_the_seats_own_observation(probe):
    seen = set()

    def check(state, seat, obs):
        role = probe.role(obs)
        assert role == true_role(state, seat)
        seen.add(role)

    rng = np.random.default_rng(0)
    for seed in range(12):
        play_hand(seed, lambda obs: int(rng.choice(np.flatnonzero(obs["action_mask"]))), check)
    assert seen == {"before_tricks", "caller", "partner", "defender"}


def test_pimc_decides_exactly_the_decisions_of_the_role_it_takes_over(probe):
    player = probe.RoleProbe("pimc_partner")
    player.seed(0)
    partner_decisions = 0

    def count(state, seat, obs):
        nonlocal partner_decisions
        partner_decisions += seat == 0 and true_role(state, seat) == "partner"

    for seed in range(40):
        player.reset()
        play_hand(seed, player.act, count)
        if partner_decisions:
            break
    assert partner_decisions > 0
    assert player.pimc.decisions == partner_decisions


def test_the_always_pass_variant_never_bids(probe):
    player = probe.RoleProbe("always_pass")
    player.seed(0)
    moves = []

    def act(obs):
        moves.append(player.act(obs))
        return moves[-1]

    for seed in range(5):
        player.reset()
        play_hand(seed, act)
    assert moves and all(not BID <= m < FORFEIT for m in moves)
    assert player.pimc is None
