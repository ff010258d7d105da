"""Statistics of the evaluator: t quantiles, mean and ratio intervals, and the OpenSkill round robin."""

from __future__ import annotations

import importlib.util
import math

import numpy as np
import pytest

from envs.core.errors import ConfigError
from train.stats import mean_ci, ratio_ci, t_cdf, t_quantile

# Reference values of the Student-t 0.975 quantile (R: qt(0.975, df)).
T975 = {1: 12.706204736, 2: 4.302652730, 3: 3.182446305, 5: 2.570581836, 10: 2.228138852,
        30: 2.042272456, 99: 1.984216952, 1000: 1.962339081}


@pytest.mark.parametrize("df", sorted(T975))
def test_t_quantile_matches_reference(df):
    assert t_quantile(0.975, df) == pytest.approx(T975[df], abs=1e-7)
    assert t_quantile(0.025, df) == pytest.approx(-T975[df], abs=1e-7)
    assert t_cdf(T975[df], df) == pytest.approx(0.975, abs=1e-9)


def test_t_quantile_other_levels_and_limits():
    assert t_quantile(0.995, 3) == pytest.approx(5.840909309, abs=1e-7)
    assert t_quantile(0.95, 20) == pytest.approx(1.724718243, abs=1e-7)
    assert t_quantile(0.5, 7) == 0.0
    assert t_quantile(0.975, math.inf) == pytest.approx(1.959963985, abs=1e-8)
    with pytest.raises(ValueError):
        t_quantile(1.0, 5)


def test_mean_ci_by_hand():
    x = [3.0, 4.0, 5.0, 7.0]
    iv = mean_ci(x)
    se = np.std(x, ddof=1) / 2.0
    assert iv.mean == pytest.approx(4.75)
    assert iv.ci95 == pytest.approx(T975[3] * se, rel=1e-9)
    assert (iv.low, iv.high) == pytest.approx((4.75 - iv.ci95, 4.75 + iv.ci95))
    assert iv.excludes_zero()
    assert not mean_ci([1.0, 2.0, 4.0, 7.0, -6.0]).excludes_zero()
    assert not mean_ci([-1.0, 1.0, -2.0, 2.0]).excludes_zero()
    one = mean_ci([5.0])
    assert one.mean == 5.0 and math.isnan(one.ci95)


def test_ratio_ci_reduces_to_mean_with_equal_denominators_and_weights_otherwise():
    rng = np.random.default_rng(1)
    num = rng.normal(size=50)
    a, b = ratio_ci(num * 3, np.full(50, 3.0)), mean_ci(num)
    assert a.mean == pytest.approx(b.mean) and a.ci95 == pytest.approx(b.ci95)
    # total over total, not the mean of per-deal ratios
    r = ratio_ci([1.0, 9.0, 2.0], [1.0, 3.0, 2.0])
    assert r.mean == pytest.approx(12.0 / 6.0)
    assert r.mean != pytest.approx(np.mean([1.0, 3.0, 1.0]))
    assert math.isnan(ratio_ci([0.0, 0.0], [0.0, 0.0]).mean)


# -- rating ------------------------------------------------------------------------------------

def test_lineups_cover_each_pair_both_ways():
    from train.rating import lineups

    assert lineups(["a", "b", "c"], 2) == [["a", "b"], ["a", "c"], ["b", "c"]]
    five = lineups(["a", "b"], 5)
    assert five == [["a", "b", "b", "b", "b"], ["b", "a", "a", "a", "a"]]


def test_rating_bad_input_raises_before_play(monkeypatch):
    from train import rating

    def boom(*a, **k):
        raise AssertionError("a game was played")

    monkeypatch.setattr(rating, "evaluate", boom)
    for specs in (["random"], ["random", "random"], "random", ["random", "nobody"]):
        with pytest.raises(ConfigError):
            rating.round_robin("picchetto", specs, num_deals=2)
    with pytest.raises(ConfigError, match="unknown game"):
        rating.round_robin("scopa", ["random", "heuristic"], num_deals=2)


@pytest.mark.skipif(importlib.util.find_spec("agents.briscola5_heuristic") is None, reason="no Briscola heuristic")
def test_round_robin_ranks_heuristic_first_and_is_worker_independent(tmp_path):
    from train.rating import round_robin

    board = round_robin("briscola5", ["random", "heuristic"], num_deals=8, seed=1)
    assert [r["spec"] for r in board.rows] == ["heuristic", "random"]
    assert board.rows[0]["ordinal"] > board.rows[1]["ordinal"]
    # two line-ups (one against the field, both ways) x 8 deals
    assert all(r["matches"] == 16 for r in board.rows)
    assert board.pairwise["heuristic"]["random"]["mean"] > 0 > board.pairwise["random"]["heuristic"]["mean"]
    again = round_robin("briscola5", ["random", "heuristic"], num_deals=8, seed=1, workers=2)
    assert again.rows == board.rows
    paths = board.save(tmp_path)
    assert all(p.stat().st_size > 0 for p in paths.values())
    assert "heuristic" in str(board)
