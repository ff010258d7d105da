"""The phase probe of ``benchmarks/picchetto_roles.py``: each seat's phase is read from its own observation and
matches the game's state, PIMC decides exactly the decisions of the phase it takes over, and
``distill_pimc.py --roles`` reads the same phases."""

from __future__ import annotations

import json
from pathlib import Path

import numpy as np
import pytest

from envs import picchetto_v0
from envs.picchetto.game import TRICK_FOLLOW, TRICK_LEAD

ROOT = Path(__file__).resolve().parents[2]


@pytest.fixture
def probe(monkeypatch):
    monkeypatch.syspath_prepend(str(ROOT / "benchmarks"))
    import picchetto_roles

    return picchetto_roles


def true_phase(state, seat: int, endgame_cards: int) -> str:
    if state.phase not in (TRICK_LEAD, TRICK_FOLLOW):
        return "exchange"
    return "last_tricks" if int(state.hands[seat]).bit_count() <= endgame_cards else "early_tricks"


def play_hand(seed: int, seat0_act, on_decision=None) -> None:
    """One hand: ``seat0_act`` for player_0, uniform random legal moves for player_1."""
    env = picchetto_v0.env(episode="hand")
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


def test_the_probe_reads_every_phase_from_the_seats_own_observation(probe):
    seen = []

    def check(state, seat, obs):
        phase = probe.role(obs)
        assert phase == true_phase(state, seat, probe.ENDGAME_CARDS)
        seen.append(phase)

    rng = np.random.default_rng(0)
    for seed in range(4):
        play_hand(seed, lambda obs: int(rng.choice(np.flatnonzero(obs["action_mask"]))), check)
    assert set(seen) == {"exchange", "early_tricks", "last_tricks"}
    # a hand has 12 tricks per seat: the last ENDGAME_CARDS of them are the endgame
    assert seen.count("last_tricks") == 4 * 2 * probe.ENDGAME_CARDS


def test_pimc_decides_exactly_the_decisions_of_the_phase_it_takes_over(probe):
    player = probe.player("pimc_last_tricks")
    player.seed(0)
    endgame_decisions = 0

    def count(state, seat, obs):
        nonlocal endgame_decisions
        endgame_decisions += seat == 0 and true_phase(state, seat, probe.ENDGAME_CARDS) == "last_tricks"

    for seed in range(2):
        player.reset()
        play_hand(seed, player.act, count)
    assert endgame_decisions == 2 * probe.ENDGAME_CARDS
    assert player.pimc.decisions == endgame_decisions


def test_the_distillation_reads_the_same_phases_as_roles(probe, monkeypatch):
    monkeypatch.syspath_prepend(str(ROOT / "benchmarks"))
    import distill_pimc

    roles = distill_pimc.role_module("picchetto")
    assert roles.ROLES == ("exchange", "early_tricks", "last_tricks")
    assert roles is probe


def test_the_probe_command_writes_its_results_and_rewrites_the_report_from_them(probe, tmp_path, capsys):
    paths = ["--json", str(tmp_path / "r.json"), "--out", str(tmp_path / "r.md"), "--runs", str(tmp_path / "runs")]
    probe.main(["--variants", "agent", "--deals", "2", "--agent", "heuristic", *paths])
    results = json.loads((tmp_path / "r.json").read_text())
    assert results["meta"]["deals"] == 2 and results["meta"]["agent"] == "heuristic"
    assert list(results["variants"]) == ["agent"] and (tmp_path / "runs" / "agent" / "eval.json").is_file()
    report = (tmp_path / "r.md").read_text()
    assert "| `agent` | - |" in report and report in capsys.readouterr().out
    (tmp_path / "r.md").unlink()
    probe.main(["--report-only", *paths])
    assert (tmp_path / "r.md").read_text() == report
