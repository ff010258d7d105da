"""benchmarks/pooled_margin.py: one player's margin against one field, pooled over panels on other seeds."""

from __future__ import annotations

import json
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]
sys.path.insert(0, str(ROOT / "benchmarks"))
sys.path.insert(0, str(Path(__file__).resolve().parent))

import pooled_margin  # noqa: E402
from test_paired_margin import _run  # noqa: E402  (a 6-deal Pigugnìn evaluation, one eval.json per call)


def test_one_panel_gives_back_the_evaluations_own_margin(tmp_path, capsys):
    a = _run(tmp_path, "random")
    own = json.loads(a.read_text())["margin"]["per_hand"]
    iv = pooled_margin.main([str(a)])
    assert (iv.n, iv.mean, iv.low, iv.high) == pytest.approx((6, own["mean"], own["low"], own["high"]), abs=1e-12)
    assert f"random against heuristic: {iv.mean:+.3f}" in capsys.readouterr().out


def test_panels_on_other_seeds_pool_into_the_ratio_of_sums_over_all_their_deals(tmp_path, capsys):
    runs = [_run(tmp_path, "random", seed) for seed in (5, 6, 7)]
    deals = [json.loads(p.read_text())["margin"]["per_deal"] for p in runs]
    per_hand = sum(sum(d["numerator"]) for d in deals) / sum(sum(d["hands"]) for d in deals)
    iv = pooled_margin.main([str(p) for p in runs])
    assert iv.n == 18 and iv.low < iv.mean < iv.high
    assert iv.mean == pytest.approx(per_hand, abs=1e-12)
    each = [json.loads(p.read_text())["margin"]["per_hand"]["ci95"] for p in runs]
    assert iv.ci95 < max(each)  # three times the deals: narrower than the widest panel
    assert "over 18 deals (3 panel(s), seed(s) 5, 6, 7)" in capsys.readouterr().out


def test_pooling_refuses_a_seed_twice_another_player_or_another_field(tmp_path):
    a5, a6 = _run(tmp_path, "random"), _run(tmp_path, "random", seed=6)
    with pytest.raises(SystemExit, match=r"share a seed \(\[5, 5\]\)"):
        pooled_margin.main([str(a5), str(a5)])
    with pytest.raises(SystemExit, match=r"not the same player against the same field \(player: 'random' vs 'heuristic-v1'\)"):
        pooled_margin.main([str(a5), str(_run(tmp_path, "heuristic-v1", seed=6))])
    with pytest.raises(SystemExit, match=r"\(field: \['heuristic', 'heuristic', 'heuristic'\] vs \['heuristic-v1'"):
        pooled_margin.main([str(a6), str(_run(tmp_path, "random", seed=7, field="heuristic-v1"))])
    with pytest.raises(SystemExit, match="no such file"):
        pooled_margin.main([str(a5), str(tmp_path / "missing.json")])
