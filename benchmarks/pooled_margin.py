"""One player against the same field, pooled over panels played on other seeds: one margin over all their deals.

Each run is one ``python -m train.evaluate --players SPEC --field FIELD`` with its ``eval.json``. The runs must be
the same player against the same field in the same game (flags, duplicate, seating), each on its own seed, so no
deal is counted twice. Three 1,000-deal panels pooled are one 3,000-deal figure, with an interval about 1/sqrt(3)
as wide as each panel's; a single run gives back that run's own margin.

| output | meaning |
|---|---|
| margin | the player's margin per hand over every deal: ``sum_i a_i / sum_i h_i`` (``a_i``: the run's margin numerator on deal ``i``, ``h_i``: its hands, which differ where an episode is a whole game) |
| interval | 95%, Student-t over deals with the delta method for the ratio, as the evaluation's own margin |

    python benchmarks/pooled_margin.py A_seed3/eval.json A_seed4/eval.json A_seed5/eval.json

To compare two players on the same deals, use ``benchmarks/paired_margin.py``: pairing is narrower still.
"""

from __future__ import annotations

import argparse
import sys
from pathlib import Path

import numpy as np

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))
sys.path.insert(0, str(ROOT / "benchmarks"))

from paired_margin import POOLED, load_run, per_deal, refuse_if_differ, refuse_shared_seed, terms  # noqa: E402

from train.evaluation.stats import Interval, ratio_ci  # noqa: E402


def _panel(run: dict) -> dict:
    """What pooled runs share: the game, its flags, the seating, the field and the player (not the seed)."""
    return {**terms(run, POOLED), "player": run["config"]["players"][0]}


def pooled(runs: list[dict]) -> Interval:
    """The player's margin per hand over the deals of every run; SystemExit if the runs are not the same player
    against the same field, or two share a seed."""
    for run in runs[1:]:
        refuse_if_differ(_panel(runs[0]), _panel(run), "the panels are not the same player against the same field")
    refuse_shared_seed(runs)
    columns = [per_deal(run) for run in runs]
    numerator, hands = (np.concatenate([c[i] for c in columns]) for i in (0, 1))
    return ratio_ci(numerator, hands)


def main(argv: list[str] | None = None) -> Interval:
    p = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    p.add_argument("runs", type=Path, nargs="+", metavar="EVAL_JSON",
                   help="eval.json of each panel: the same player against the same field, each on its own seed")
    args = p.parse_args(argv)
    runs = [load_run(path) for path in args.runs]
    iv = pooled(runs)
    seeds = ", ".join(str(run["config"].get("seed")) for run in runs)
    print(f"{runs[0]['config']['players'][0]} against {runs[0]['margin']['field']}: {iv.mean:+.3f} "
          f"[{iv.low:+.3f}, {iv.high:+.3f}] per hand over {iv.n} deals ({len(runs)} panel(s), seed(s) {seeds})")
    return iv


if __name__ == "__main__":
    main()
