"""Where Briscola's overbidding training opponent takes the auction: five copies at one table, per shift.

    python benchmarks/overbid_table.py                      # shifts 0 10 15 20, 4,000 deals, seed 0
    python benchmarks/overbid_table.py --shifts 0 5 10 --deals 10000 --seed 1

Every seat of `--deals` one-hand games of the batched engine is `heuristic-overbid:SHIFT`
(`agents.batched.briscola5.Briscola5BatchedOverbidder`; shift 0 is the heuristic itself), the same deals for every
shift. Per shift: the mean contract of the hands with a caller and the share of those contracts made (the caller's
return above 0). The players draw no random numbers, so the figures are exact for a seed. It prints the Markdown
table that the class's docstring and the training docs quote.
"""

from __future__ import annotations

import argparse
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

from agents.rows import make_opponent  # noqa: E402
from train.evaluation.batched import play_table  # noqa: E402

GAME = "briscola5"


def contracts(shift: int, deals: int, seed: int) -> tuple[float, float]:
    """(mean contract, share made) of five ``heuristic-overbid:shift`` at every table."""
    seats = [make_opponent(f"heuristic-overbid:{shift}", GAME, {}, s) for s in range(5)]
    returns, env = play_table(GAME, {}, seats, deals, seed)
    caller, contract = env.state["caller"], env.state["contract"]
    called = (caller >= 0).nonzero()[0]
    made = returns[called, caller[called]] > 0
    return float(contract[called].mean()), float(made.mean())


def main(argv: list[str] | None = None) -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--shifts", type=int, nargs="+", default=[0, 10, 15, 20])
    parser.add_argument("--deals", type=int, default=4000)
    parser.add_argument("--seed", type=int, default=0)
    args = parser.parse_args(argv)
    print("| `shift` | mean contract | contracts made |\n|---|---|---|")
    for shift in args.shifts:
        mean, made = contracts(shift, args.deals, args.seed)
        print(f"| {shift} | {mean:.1f} | {made:.1%} |")


if __name__ == "__main__":
    main()
