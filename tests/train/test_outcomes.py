"""Outcome checks: the shipped players still win, and the reporting code that states it runs."""

from __future__ import annotations

import json
import subprocess
import sys
import zipfile

import numpy as np
import pytest

from agents.trained import PRETRAINED_DIR
from envs.registry import game_spec
from train.evaluate import evaluate
from train.evaluation.stats import mean_ci
from train.report import _verdict


def _training_flags(game: str) -> dict:
    with zipfile.ZipFile(PRETRAINED_DIR / f"{game}.mazzo.zip") as z:
        return json.loads(z.read("mazzo.json"))["flags"]


@pytest.mark.slow
@pytest.mark.parametrize("game", ["briscola5", "pigugnin", "picchetto"])
def test_every_shipped_checkpoint_beats_random_with_an_interval_above_zero(game):
    flags = _training_flags(game)
    seats = game_spec(game).num_players(flags)
    res = evaluate(game, [f"pretrained:{game}"] + ["random"] * (seats - 1), num_deals=100, seed=11, flags=flags)
    # the paired per-deal difference between the checkpoint and the random seats of the same deals
    # (Pigugnin is not zero-sum: every reward is negative, so "above zero" means "above random")
    random_seats = np.mean([res.per_deal_means(i) for i in range(1, seats)], axis=0)
    diff = mean_ci(res.per_deal_means(0) - random_seats)
    assert diff.low > 0, diff


@pytest.mark.parametrize(
    ("row", "verdict"),
    [
        ({"low": 0.5, "high": 0.9, "heuristic_mean": 0.2, "heuristic_low": 0.1, "heuristic_high": 0.3}, "above"),
        ({"low": -0.9, "high": -0.5, "heuristic_mean": 0.2, "heuristic_low": 0.1, "heuristic_high": 0.3}, "below"),
        ({"low": 0.0, "high": 0.4, "heuristic_mean": 0.2, "heuristic_low": 0.1, "heuristic_high": 0.3},
         "level (intervals overlap)"),
        ({"low": None, "high": None, "heuristic_mean": 0.2, "heuristic_low": 0.1, "heuristic_high": 0.3},
         "n/a (no interval)"),
        ({"low": 0.1, "high": 0.2}, ""),
    ],
)
def test_report_verdict_reads_the_intervals(row, verdict):
    assert _verdict(row) == verdict


@pytest.mark.parametrize("module", ["train.evaluate", "train", "train.sb3", "train.batched", "train.rllib", "train.ppo",
                                    "train.ppo_batched", "train.report"])
def test_every_command_line_answers_help(module):
    out = subprocess.run([sys.executable, "-m", module, "--help"], capture_output=True, text=True, timeout=300)
    assert out.returncode == 0, out.stderr
    assert "usage:" in out.stdout.lower()
