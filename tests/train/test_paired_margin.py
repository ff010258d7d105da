"""benchmarks/paired_margin.py: two players' margins on the same duplicate deals, differenced deal by deal."""

from __future__ import annotations

import json
import sys
from pathlib import Path

import pytest

from train.evaluate import main as evaluate

ROOT = Path(__file__).resolve().parents[2]
sys.path.insert(0, str(ROOT / "benchmarks"))

import paired_margin  # noqa: E402


def _run(tmp_path: Path, player: str, seed: int = 5, field: str = "heuristic") -> Path:
    out = tmp_path / f"{player}_{seed}_{field}"
    assert evaluate(["--game", "pigugnin", "--players", player, "--field", field, "--deals", "6", "--seed", str(seed),
                     "--out", str(out), "--no-plot", "--no-progress"]) == 0
    return out / "eval.json"


def test_the_paired_margin_is_the_difference_of_the_two_margins_on_the_same_deals(tmp_path, capsys):
    a, b = _run(tmp_path, "random"), _run(tmp_path, "heuristic-v1")
    margin = {p: json.loads(p.read_text())["margin"]["per_hand"]["mean"] for p in (a, b)}
    iv = paired_margin.main([str(a), str(b)])
    assert iv.n == 6 and iv.low <= iv.mean <= iv.high
    assert iv.mean == pytest.approx(margin[a] - margin[b], abs=1e-9)  # each over its own hands (whole games)
    assert f"random minus heuristic-v1: {iv.mean:+.3f}" in capsys.readouterr().out
    same = paired_margin.main([str(a), str(a)])
    assert same.mean == 0 and same.low == same.high == 0  # a run against itself: no difference on any deal


def test_runs_on_other_deals_or_against_another_field_are_refused(tmp_path):
    a = _run(tmp_path, "random")
    with pytest.raises(SystemExit, match=r"not play the same deals against the same field \(seed: 5 vs 6\)"):
        paired_margin.main([str(a), str(_run(tmp_path, "random", seed=6))])
    with pytest.raises(SystemExit, match=r"\(field: \['heuristic', 'heuristic', 'heuristic'\] vs \['random'"):
        paired_margin.main([str(a), str(_run(tmp_path, "heuristic", field="random"))])
    with pytest.raises(SystemExit, match="no such file"):
        paired_margin.main([str(a), str(tmp_path / "missing.json")])


def test_panels_on_other_seeds_pool_into_one_figure_over_all_their_deals(tmp_path, capsys):
    panels = [(_run(tmp_path, "random", seed), _run(tmp_path, "heuristic-v1", seed)) for seed in (5, 6)]
    runs = [json.loads(p.read_text())["margin"]["per_deal"] for pair in panels for p in pair]
    total = {k: [sum(sum(r[k]) for r in runs[i::2]) for i in (0, 1)] for k in ("numerator", "hands")}
    iv = paired_margin.main([str(p) for pair in panels for p in pair])
    assert iv.n == 12 and iv.low <= iv.mean <= iv.high
    a_per_hand, b_per_hand = (total["numerator"][i] / total["hands"][i] for i in (0, 1))
    assert iv.mean == pytest.approx(a_per_hand - b_per_hand, abs=1e-9)  # ratios of sums over both panels' deals
    assert "over 12 deals (2 panels, seeds 5, 6)" in capsys.readouterr().out


def test_pooling_refuses_a_seed_twice_swapped_players_and_an_odd_number_of_runs(tmp_path, capsys):
    a5, b5 = _run(tmp_path, "random"), _run(tmp_path, "heuristic-v1")
    a6, b6 = _run(tmp_path, "random", seed=6), _run(tmp_path, "heuristic-v1", seed=6)
    with pytest.raises(SystemExit, match=r"share a seed \(\[5, 5\]\)"):
        paired_margin.main([str(a5), str(b5), str(a5), str(b5)])
    with pytest.raises(SystemExit, match=r"not the same two players .*player: 'random' vs 'heuristic-v1'"):
        paired_margin.main([str(a5), str(b5), str(b6), str(a6)])
    with pytest.raises(SystemExit):  # argparse: pairs of files
        paired_margin.main([str(a5), str(b5), str(a6)])
    assert "expected pairs of eval.json files (A B [A2 B2 ...]), got 3 file(s)" in capsys.readouterr().err
