"""Two players against the same field on the same duplicate deals: the difference of their margins, deal by deal.

Each run is one ``python -m train.evaluate --players SPEC --field FIELD`` with its ``eval.json``; the two must
share the game, flags, seed, deals, seating and field, so that deal ``i`` is the same cards for both. Pairing
removes the luck of the deal that the two runs share, so the interval is narrower than comparing their margins
side by side (the paired figures of ``docs/results/learning.md``).

More than one pair (``A1 B1 A2 B2 ...``) pools panels played on other seeds: the same two players against the same
field in the same game, each pair on its own deals, one figure over all their deals. Two pairs on the same seed
are refused (they would count the same deals twice).

| output | meaning |
|---|---|
| paired | A's margin minus B's, per hand: ``sum_i a_i / sum_i h_i - sum_i b_i / sum_i g_i`` (``a_i``, ``b_i``: each run's margin numerator on deal ``i``; ``h_i``, ``g_i``: its hands, which differ where an episode is a whole game) |
| interval | 95%, Student-t over deals with the delta method for the two ratios, paired by deal, as the evaluation's own margins |

    python benchmarks/paired_margin.py runs/eval/A/eval.json runs/eval/B/eval.json
    python benchmarks/paired_margin.py A_seed3/eval.json B_seed3/eval.json A_seed4/eval.json B_seed4/eval.json
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
POOLED = ("game", "flags", "duplicate", "seating")  # what pooled panels share; each has its own seed and deals


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


def terms(r: dict, keys: tuple[str, ...]) -> dict:
    """A run's config entries ``keys`` and its field (the players after the first), to compare runs by."""
    return {**{k: r["config"].get(k) for k in keys}, "field": r["config"]["players"][1:]}


def refuse_if_differ(ta: dict, tb: dict, what: str) -> None:
    """SystemExit saying ``what`` and every entry where the two runs' terms differ, if any does."""
    differ = [k for k in ta if ta[k] != tb[k]]
    if differ:
        shown = "; ".join(f"{k}: {ta[k]!r} vs {tb[k]!r}" for k in differ)
        raise SystemExit(f"{what} ({shown})")


def refuse_shared_seed(runs: list[dict]) -> None:
    """SystemExit if two panels to pool were played on the same seed: their deals would be counted twice."""
    seeds = [r["config"].get("seed") for r in runs]
    if len(set(seeds)) < len(seeds):
        raise SystemExit(f"two panels share a seed ({seeds}): their deals would be counted twice")


def _panel(a: dict, b: dict) -> dict:
    """What pooled pairs share: the game, the field and the two players (not the seed, nor the deals)."""
    return {**terms(a, POOLED), "player": a["config"]["players"][0], "other": b["config"]["players"][0]}


def paired(a: dict, b: dict) -> Interval:
    """A's margin minus B's per hand over their common deals (see the module docstring); SystemExit if the two
    runs did not play the same deals against the same field."""
    return pooled([(a, b)])


def pooled(pairs: list[tuple[dict, dict]]) -> Interval:
    """A's margin minus B's per hand over the deals of every pair, each pair on its own deals; SystemExit if a pair
    did not play the same deals, or the pairs are not the same two players against the same field on other seeds."""
    for a, b in pairs:
        refuse_if_differ(terms(a, SAME), terms(b, SAME), "the runs did not play the same deals against the same field")
    for a, b in pairs[1:]:
        refuse_if_differ(_panel(*pairs[0]), _panel(a, b), "the panels are not the same two players against the same field")
    refuse_shared_seed([a for a, _ in pairs])
    columns = [per_deal(a) + per_deal(b) for a, b in pairs]  # (na, ha, nb, hb) of each panel
    na, ha, nb, hb = (np.concatenate([c[i] for c in columns]) for i in range(4))
    n = len(na)
    ra, rb = na.sum() / ha.sum(), nb.sum() / hb.sum()
    # delta method for a difference of two ratios of sums over the same deals (a whole game can last a different
    # number of hands for each player); with equal hands per deal it is ratio_ci(na - nb, ha)
    z = (na - ra * ha) / ha.mean() - (nb - rb * hb) / hb.mean()
    half = t_quantile(0.975, n - 1) * math.sqrt(float(z @ z) / (n * (n - 1))) if n > 1 else math.nan
    return Interval(ra - rb, ra - rb - half, ra - rb + half, half, n)


def main(argv: list[str] | None = None) -> Interval:
    p = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    p.add_argument("runs", type=Path, nargs="+", metavar="A B",
                   help="eval.json of the first player's run, then of the second's on the same deals and field; "
                        "more pairs (A2 B2 ...) on other seeds are pooled")
    args = p.parse_args(argv)
    if len(args.runs) < 2 or len(args.runs) % 2:
        p.error(f"expected pairs of eval.json files (A B [A2 B2 ...]), got {len(args.runs)} file(s)")
    runs = [load_run(path) for path in args.runs]
    pairs = list(zip(runs[::2], runs[1::2], strict=True))
    iv = pooled(pairs)
    a, b = pairs[0]
    panels = f" ({len(pairs)} panels, seeds {', '.join(str(x['config'].get('seed')) for x, _ in pairs)})"
    print(f"{a['config']['players'][0]} minus {b['config']['players'][0]}: {iv.mean:+.3f} "
          f"[{iv.low:+.3f}, {iv.high:+.3f}] per hand over {iv.n} deals{panels if len(pairs) > 1 else ''}")
    return iv


if __name__ == "__main__":
    main()
