"""Milliseconds per decision of the search players (agents/search), per game, default and larger budget.

The searcher sits at seat 0 with the heuristic at every other seat; episodes are played until the row
has ``--decisions`` timed decisions of seat 0 (decisions with a single legal move are answered without
search and are not counted). Both wall-clock and CPU time (``time.process_time``, every thread of the
process) are reported, median and 95th percentile, with the 1-minute load average before and after: on a
shared machine the wall figures swing with the load, the CPU figures much less. The first decision of
each row is not timed (it compiles or loads the numba kernels).

    python benchmarks/search_speed.py                      # every game, pimc and ismcts, default and x4
    python benchmarks/search_speed.py --games picchetto --players pimc pimc:worlds=128 --decisions 100
"""

from __future__ import annotations

import argparse
import os
import platform
import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from decision_time import time_player  # noqa: E402

from envs.registry import game_spec, variants  # noqa: E402

#: label -> (game, flags): every game's benchmark configurations (``GameSpec.variants``)
GAMES = variants()
PLAYERS = ["pimc", "pimc:worlds=4x", "ismcts", "ismcts:iterations=4x"]


def expand(spec: str, game: str) -> str:
    """``pimc:worlds=4x`` -> four times the game's default worlds (``ismcts:iterations=4x`` likewise:
    ``GameSpec.search``)."""
    if not spec.endswith("x"):
        return spec
    head, _, factor = spec.rpartition("=")
    key = head.partition(":")[2]
    defaults = game_spec(game).search
    base = {"worlds": defaults.pimc_worlds, "iterations": defaults.ismcts_iterations}[key]
    return f"{head}={int(factor[:-1]) * base}"


def measure(game: str, flags: dict, spec: str, decisions: int, seed: int) -> dict:
    """One row: ``spec``'s ms per decision at seat 0 among heuristics (``decision_time.time_player``)."""
    return {"game": game, "flags": flags, "spec": spec, **time_player(spec, game, flags, decisions, seed)}


def main(argv: list[str] | None = None) -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0],
                                     formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--games", nargs="+", default=list(GAMES), choices=list(GAMES))
    parser.add_argument("--players", nargs="+", default=PLAYERS,
                        help="agent specs; a budget written as 4x is four times the game's default")
    parser.add_argument("--decisions", type=int, default=60, help="timed decisions per row (default 60)")
    parser.add_argument("--seed", type=int, default=0)
    args = parser.parse_args(argv)
    load0 = os.getloadavg()[0]
    print(f"# search_speed: python {' '.join(sys.argv[1:]) or '(defaults)'}; {platform.python_implementation()} "
          f"{platform.python_version()}, {os.cpu_count()} CPUs, 1-minute load average {load0:.2f} at the start")
    print("| game | player | decisions | wall median ms | wall p95 ms | CPU median ms | CPU p95 ms |")
    print("|---|---|---|---|---|---|---|")
    for key in args.games:
        game, flags = GAMES[key]
        for spec in args.players:
            row = measure(game, flags, expand(spec, game), args.decisions, args.seed)
            print(f"| {key} | {row['spec']} | {row['decisions']} | {row['wall_median']:.1f} | {row['wall_p95']:.1f} | "
                  f"{row['cpu_median']:.1f} | {row['cpu_p95']:.1f} |", flush=True)
    print(f"# 1-minute load average {os.getloadavg()[0]:.2f} at the end")


if __name__ == "__main__":
    main()
