"""Two players against the same field on the same duplicate deals: the difference of their margins, deal by deal.

Each run is one ``python -m train.evaluate --players SPEC --field FIELD`` with its ``eval.json``; the two must
share the game, flags, seed, deals, seating and field, so that deal ``i`` is the same cards for both. Pairing
removes the luck of the deal that the two runs share, so the interval is narrower than comparing their margins
side by side (the paired figures of ``docs/results/learning.md``).

| output | meaning |
|---|---|
| paired | A's margin minus B's, per hand: ``sum_i a_i / sum_i h_i - sum_i b_i / sum_i g_i`` (``a_i``, ``b_i``: each run's margin numerator on deal ``i``; ``h_i``, ``g_i``: its hands, which differ where an episode is a whole game) |
| interval | 95%, Student-t over deals with the delta method for the two ratios, paired by deal, as the evaluation's own margins |

    python benchmarks/paired_margin.py runs/eval/A/eval.json runs/eval/B/eval.json
"""

from __future__ import annotations

import argparse
import json
import math
import sys
from pathlib import Path

import numpy as np

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

from train.evaluation.stats import Interval, t_quantile  # noqa: E402

SAME = ("game", "flags", "seed", "num_deals", "duplicate", "seating")  # what makes deal i the same cards


def load_run(path: Path) -> dict:
    """An ``eval.json`` with a margin per deal, or SystemExit saying what is missing (JSON only: nothing runs)."""
    if not path.is_file():
        raise SystemExit(f"{path}: no such file (an eval.json written by python -m train.evaluate --out DIR)")
    run = json.loads(path.read_text())
    if not isinstance(run, dict) or "per_deal" not in (run.get("margin") or {}):
        raise SystemExit(f"{path}: no margin per deal; expected the eval.json of a run with --field")
    return run


def per_deal(run: dict) -> tuple[np.ndarray, np.ndarray]:
    """A run's margin numerator and hands, per deal."""
    deals = run["margin"]["per_deal"]
    return np.asarray(deals["numerator"], float), np.asarray(deals["hands"], float)


def paired(a: dict, b: dict) -> Interval:
    """A's margin minus B's per hand over their common deals (see the module docstring); SystemExit if the two
    runs did not play the same deals against the same field."""
    ta, tb = ({**{k: r["config"].get(k) for k in SAME}, "field": r["config"]["players"][1:]} for r in (a, b))
    differ = [k for k in ta if ta[k] != tb[k]]
    if differ:
        shown = "; ".join(f"{k}: {ta[k]!r} vs {tb[k]!r}" for k in differ)
        raise SystemExit(f"the runs did not play the same deals against the same field ({shown})")
    na, ha = per_deal(a)
    nb, hb = per_deal(b)
    n = len(na)
    ra, rb = na.sum() / ha.sum(), nb.sum() / hb.sum()
    # delta method for a difference of two ratios of sums over the same deals (a whole game can last a different
    # number of hands for each player); with equal hands per deal it is ratio_ci(na - nb, ha)
    z = (na - ra * ha) / ha.mean() - (nb - rb * hb) / hb.mean()
    half = t_quantile(0.975, n - 1) * math.sqrt(float(z @ z) / (n * (n - 1))) if n > 1 else math.nan
    return Interval(ra - rb, ra - rb - half, ra - rb + half, half, n)


def main(argv: list[str] | None = None) -> Interval:
    p = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    p.add_argument("a", type=Path, help="eval.json of the first player's run")
    p.add_argument("b", type=Path, help="eval.json of the second player's run (same deals and field)")
    args = p.parse_args(argv)
    a, b = load_run(args.a), load_run(args.b)
    iv = paired(a, b)
    print(f"{a['config']['players'][0]} minus {b['config']['players'][0]}: {iv.mean:+.3f} "
          f"[{iv.low:+.3f}, {iv.high:+.3f}] per hand over {iv.n} deals")
    return iv


if __name__ == "__main__":
    main()
