"""Briscola agents against engine-speed fields, the cheating seer among them: margins and roles in seconds.

    python benchmarks/seer_field.py                                   # the shipped agent, 2,000 deals, seed 0
    python benchmarks/seer_field.py --agents pretrained:briscola5 ppo:runs/<run>/last.mazzo.zip --deals 4000
    python benchmarks/seer_field.py --agents pretrained:briscola5 heuristic --out benchmarks/seer_field.md

Each agent (a row-player spec: ``pretrained:GAME``, ``ppo:PATH``, ``heuristic`` ...) sits alone among four copies
of each field, at every seat of every deal in turn (the same ``--deals`` one-hand deals for every agent and
field: duplicate deals). Per agent and field: its credits per hand (zero-sum, so its margin over the field) with
the 95% interval over deals, and its roles: the share of hands it calls, the share of its contracts made, and
the share of contracts its side breaks when it defends.

The fields (``--fields``): ``heuristic``; ``heuristic-overbid`` (the heuristic bidding 10 card points above its
hands); ``heuristic-seer`` and ``heuristic-seer:10`` (the heuristic that sees the partner and the foes' cards in
its tricks: a training opponent that cheats, ``agents.batched.briscola5.Briscola5BatchedSeer``). The seer fields
stand in for PIMC's defence at engine speed: among four ``heuristic-seer:10`` the shipped agent makes about as few
of its contracts as among four PIMC players. Nothing here is a strength claim against the search: that is
``python -m train.evaluate ... --field pimc``. The batched players draw no random numbers and the networks play
greedily, so the figures are exact for a seed on one machine. ``--out`` also writes the table, with the command,
commit, time, CPU and versions, to a Markdown file.
"""

from __future__ import annotations

import argparse
import sys
from pathlib import Path

import numpy as np

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))
sys.path.insert(0, str(ROOT / "benchmarks"))

from learning import _meta  # noqa: E402

from agents.rows import make_opponent  # noqa: E402
from train.evaluation.batched import play_table  # noqa: E402
from train.evaluation.stats import format_interval, mean_ci  # noqa: E402

GAME = "briscola5"
SEATS = 5
FIELDS = ("heuristic", "heuristic-overbid", "heuristic-seer", "heuristic-seer:10")


def alone_among(agent: str, field: str, deals: int, seed: int) -> dict[str, float | str]:
    """``agent`` at each seat in turn among four ``field`` players on the same deals: its mean credits per hand
    (interval over deals) and its roles (module docstring)."""
    credits = np.zeros(deals)
    hands = calls = made = defended = broken = 0
    for seat in range(SEATS):
        lineup = [make_opponent(field, GAME, {}, s) for s in range(SEATS)]
        lineup[seat] = make_opponent(agent, GAME, {}, 99)
        returns, env = play_table(GAME, {}, lineup, deals, seed)
        caller, partner = env.state["caller"], env.state["partner"]
        credits += returns[:, seat] / SEATS
        called = caller >= 0
        mine = caller == seat
        defends = called & ~mine & (partner != seat)
        caller_won = np.zeros(deals, dtype=bool)
        caller_won[called] = returns[np.flatnonzero(called), caller[called]] > 0
        hands += deals
        calls += int(mine.sum())
        made += int((mine & caller_won).sum())
        defended += int(defends.sum())
        broken += int((defends & ~caller_won).sum())
    credits = np.round(credits, 9) + 0.0  # a field's own zero-sum totals print as +0.000, not as float dust
    return {"credits": format_interval(mean_ci(credits).to_dict(), signed=True),
            "caller": calls / hands, "made": made / max(calls, 1), "broken": broken / max(defended, 1)}


def main(argv: list[str] | None = None) -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--agents", nargs="+", default=["pretrained:briscola5"])
    parser.add_argument("--fields", nargs="+", default=list(FIELDS))
    parser.add_argument("--deals", type=int, default=2000)
    parser.add_argument("--seed", type=int, default=0)
    parser.add_argument("--out", type=Path, help="also write the table and its provenance to this Markdown file")
    args = parser.parse_args(sys.argv[1:] if argv is None else argv)
    meta = _meta(sys.argv[1:] if argv is None else argv, "seer_field.py")
    lines = ["| agent | field | credits per hand | caller | contracts made | contracts broken when defending |",
             "|---|---|---|---|---|---|"]
    print("\n".join(lines))
    for agent in args.agents:
        for field in args.fields:
            r = alone_among(agent, field, args.deals, args.seed)
            lines.append(f"| `{agent}` | `{field}` | {r['credits']} | {r['caller']:.1%} | {r['made']:.1%} | "
                         f"{r['broken']:.1%} |")
            print(lines[-1], flush=True)
    if args.out:
        args.out.write_text(
            "# Briscola: agents among engine-speed fields, the seer among them\n\n"
            f"Each agent alone among four of each field on the same {args.deals} duplicate deals (seed {args.seed}), "
            f"at every seat in turn. Measured by `{meta['command']}` (commit {meta['commit']}, started {meta['when']}; "
            f"{meta['machine']}; {meta['versions']}).\n\n" + "\n".join(lines) + "\n")


if __name__ == "__main__":
    main()
