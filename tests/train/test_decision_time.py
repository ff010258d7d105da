"""``benchmarks/decision_time.py``: the per-decision timing that ``search_speed.py`` and ``strength.py`` share."""

from __future__ import annotations

import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[2] / "benchmarks"))

from decision_time import time_player  # noqa: E402


def test_the_timed_decisions_are_the_asked_number_of_decisions_with_a_choice():
    row = time_player("heuristic", "picchetto", {"episode": "hand"}, decisions=25, seed=3)
    assert row["decisions"] == 25 and row["episodes"] >= 1
    assert 0 <= row["wall_median"] <= row["wall_p95"] and 0 <= row["cpu_median"] <= row["cpu_p95"]


def test_a_longer_run_plays_more_episodes_from_the_same_deals():
    short = time_player("random", "picchetto", {"episode": "hand"}, decisions=5, seed=0)
    long = time_player("random", "picchetto", {"episode": "hand"}, decisions=200, seed=0)
    assert short["episodes"] == 1 < long["episodes"]
