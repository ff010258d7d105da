"""Statistics of the evaluator: t quantiles, mean and ratio intervals, and the OpenSkill round robin."""

from __future__ import annotations

import importlib.util
import math

import numpy as np
import pytest

from envs.core.errors import ConfigError
from train.evaluation.stats import mean_ci, proportion_ci, ratio_ci, t_cdf, t_quantile, wilson_ci

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
    from train.evaluation.rating import lineups

    assert lineups(["a", "b", "c"], 2) == [["a", "b"], ["a", "c"], ["b", "c"]]
    five = lineups(["a", "b"], 5)
    assert five == [["a", "b", "b", "b", "b"], ["b", "a", "a", "a", "a"]]


def test_rating_bad_input_raises_before_play(monkeypatch):
    from train.evaluation import rating

    def boom(*a, **k):
        raise AssertionError("a game was played")

    monkeypatch.setattr(rating, "evaluate", boom)
    for specs in (["random"], ["random", "random"], "random", ["random", "nobody"]):
        with pytest.raises(ConfigError):
            rating.round_robin("picchetto", specs, num_deals=2)
    with pytest.raises(ConfigError, match="unknown game"):
        rating.round_robin("scopa", ["random", "heuristic"], num_deals=2)


@pytest.mark.skipif(importlib.util.find_spec("agents.briscola5_heuristic") is None, reason="no Briscola heuristic")
@pytest.mark.slow
def test_round_robin_ranks_heuristic_first_and_is_worker_independent(tmp_path):
    from train.evaluation.rating import round_robin

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


# -- proportions: Wilson score intervals ------------------------------------------------------------

# Wilson 95% bounds, by hand: centre (p + z^2/2n) / (1 + z^2/n), half-width
# z sqrt(p(1-p)/n + z^2/4n^2) / (1 + z^2/n) with z = 1.959964 (R: prop.test(k, n, correct = FALSE)).
WILSON = {(0, 10): (0.0, 0.2775328), (10, 10): (0.7224672, 1.0), (5, 10): (0.2365931, 0.7634069),
          (1, 10): (0.0178762, 0.4041500), (81, 263): (0.2552885, 0.3662096)}


@pytest.mark.parametrize(("k", "n"), sorted(WILSON))
def test_wilson_ci_matches_hand_computed_bounds(k, n):
    iv = wilson_ci(k, n)
    assert iv.mean == pytest.approx(k / n)
    assert (iv.low, iv.high) == pytest.approx(WILSON[k, n], abs=1e-7)
    assert 0.0 <= iv.low <= iv.mean <= iv.high <= 1.0
    assert iv.ci95 == pytest.approx((iv.high - iv.low) / 2)


def test_wilson_ci_edges_and_bad_input():
    assert (wilson_ci(0, 10).low, wilson_ci(10, 10).high) == (0.0, 1.0)  # exact ends, not 1e-17 outside
    assert wilson_ci(0, 10).high > 0.0 and wilson_ci(10, 10).low < 1.0  # not degenerate at 0 or 1
    assert math.isnan(wilson_ci(0, 0).mean)
    for k, n in ((11, 10), (-1, 10)):
        with pytest.raises(ValueError):
            wilson_ci(k, n)


def test_proportion_ci_stays_in_unit_interval_where_the_t_interval_does_not():
    # a rare event over 30 deals of 5 trials each: the symmetric ratio interval dips below 0
    num = np.zeros(30)
    num[[3, 17]] = 1
    den = np.full(30, 5.0)
    assert ratio_ci(num, den).low < 0.0
    iv = proportion_ci(num, den)
    assert iv.mean == pytest.approx(2 / 150) and 0.0 <= iv.low < iv.mean < iv.high <= 1.0
    always = proportion_ci(den, den)  # every trial a success: the ratio interval is [1, 1]
    assert ratio_ci(den, den).ci95 == 0.0
    assert always.high == 1.0 and always.low < 1.0 and always.n == 30
    assert (always.low, always.high) == pytest.approx(
        (wilson_ci(150, 150, z=t_quantile(0.975, 29)).low, 1.0))  # p = 1: the real number of trials


def test_proportion_ci_uses_the_effective_sample_size_of_correlated_deals():
    # deals that are all-or-nothing (5 trials that always agree) carry one trial's worth of information each
    num = np.array([5.0, 0.0] * 10)
    den = np.full(20, 5.0)
    iv = proportion_ci(num, den)
    naive = wilson_ci(50, 100, z=t_quantile(0.975, 19))
    assert iv.high - iv.low > 1.5 * (naive.high - naive.low)  # wider than 100 independent trials
    # deals with no spread between them: capped at the real number of trials
    flat = proportion_ci(np.full(20, 2.0), den)
    assert (flat.low, flat.high) == pytest.approx((wilson_ci(40, 100, z=t_quantile(0.975, 19)).low,
                                                   wilson_ci(40, 100, z=t_quantile(0.975, 19)).high))
    one = proportion_ci([2.0], [5.0])  # one deal: a proportion but no interval
    assert one.mean == 0.4 and math.isnan(one.low) and math.isnan(one.high)
    with pytest.raises(ValueError):
        proportion_ci([6.0, 1.0], [5.0, 5.0])
