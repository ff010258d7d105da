"""The role probe of ``benchmarks/briscola5_roles.py``: each seat's role is read from its own observation
and matches the game's state, and PIMC decides exactly the decisions of the role it takes over."""

from __future__ import annotations

import json
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


def test_agent_names_the_player_probed_and_it_plays_every_move_of_the_agent_variant(probe):
    from agents import make_agent

    player = probe.RoleProbe("agent", "pretrained:briscola5_expert")
    reference, shipped = make_agent("pretrained:briscola5_expert", "briscola5"), make_agent("pretrained:briscola5", "briscola5")
    player.seed(0)
    observations = []

    def act(obs):
        observations.append(obs)
        return player.act(obs)

    for seed in range(3):
        player.reset()
        play_hand(seed, act)
    assert observations and player.pimc is None
    assert all(player.act(o) == reference.act(o) for o in observations)
    assert any(reference.act(o) != shipped.act(o) for o in observations)  # so the default would have failed


def test_each_variant_is_paired_deal_by_deal_with_the_agent_row(probe, tmp_path):
    from paired_margin import paired
    from role_probe import save_eval, with_pairs

    from train.evaluation.core import evaluate

    runs = tmp_path / "runs"
    for variant, spec in (("agent", "random"), ("pimc_partner", "heuristic-v1")):
        res = evaluate("briscola5", [spec], field="heuristic", num_deals=4, seed=3, workers=1)
        assert save_eval(res, runs, variant, tmp_path) == f"runs/{variant}/eval.json"  # relative: no local prefix
    results = {"variants": {v: {"eval_json": f"runs/{v}/eval.json"} for v in ("agent", "pimc_partner")}}
    results["variants"]["pimc_defender"] = {"eval_json": "runs/pimc_defender/eval.json"}  # not measured: no pair
    with_pairs(results, tmp_path)
    expected = paired(*(json.loads((runs / v / "eval.json").read_text()) for v in ("pimc_partner", "agent")))
    assert expected.mean != 0  # so a pairing in the wrong order would show
    pair = results["variants"]["pimc_partner"]["paired_with_agent"]
    assert (pair["mean"], pair["low"], pair["high"], pair["n"]) == (expected.mean, expected.low, expected.high, 4)
    assert "paired_with_agent" not in results["variants"]["agent"]
    assert "paired_with_agent" not in results["variants"]["pimc_defender"]
