"""Writes ``benchmarks/baselines.md``: heuristic vs random on every game, and what duplicate deals buy.

    python benchmarks/baselines.py                      # the committed file (about 2 minutes on 2 cores)
    python benchmarks/baselines.py --scale 0.2 --out /tmp/baselines.md   # a quick look

For each game, the heuristic sits at one seat and random players at all the others, on the
game's default flags. Three evaluations, all through ``python -m train.evaluate`` (the exact
commands are written into the report, and each one reproduces its numbers alone, with any
``--workers``):

| run         | deals  | games played | what it shows                                           |
|-------------|--------|--------------|---------------------------------------------------------|
| duplicate   | N      | N x seats    | the baseline numbers, with 95% intervals over deals     |
| plain       | N      | N            | the interval for the same number of deals               |
| plain, same games | N x seats | N x seats | the interval for the same number of games (the fair cost comparison) |

The interval ratio plain / duplicate tells how much narrower duplicate deals make the
interval; squared, it is how many times more plain games give the same precision.
"""

from __future__ import annotations

import argparse
import shlex
import sys
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
if str(ROOT) not in sys.path:  # run as a script from anywhere
    sys.path.insert(0, str(ROOT))

import numpy as np  # noqa: E402

from envs.core.errors import ConfigError  # noqa: E402
from envs.registry import GAMES, game_spec  # noqa: E402
from train.evaluate import num_seats, run  # noqa: E402
from train.evaluation.stats import mean_ci  # noqa: E402

#: deals of the committed report per game; a game whose default episode is a single hand (its
#: ``GameSpec.single_hand`` adds no flag: Briscola) plays short episodes and gets three times as many
DEALS, DEALS_ONE_HAND = 100, 300


def default_deals(game: str) -> int:
    return DEALS if game_spec(game).single_hand else DEALS_ONE_HAND


def _fmt(iv: dict) -> str:
    return f"{iv['mean']:+.3f} [{iv['low']:+.3f}, {iv['high']:+.3f}]"


def _flag_args(flags: dict) -> list[str]:
    out = []
    for k, v in flags.items():
        out += ["--flag", f"{k}={v!r}"]
    return out


def _runs(game: str, deals: int, flags: dict, seed: int, workers: int, runs_dir: str) -> dict[str, list[str]]:
    n = num_seats(game, flags)
    base = ["--game", game, "--players", "heuristic", *(["random"] * (n - 1)), "--seed", str(seed),
            "--workers", str(workers), *_flag_args(flags), "--no-progress"]
    return {
        "duplicate": [*base, "--deals", str(deals), "--out", f"{runs_dir}/{game}__duplicate"],
        "plain": [*base, "--deals", str(deals), "--plain", "--out", f"{runs_dir}/{game}__plain"],
        "plain_games": [*base, "--deals", str(deals * n), "--plain", "--out", f"{runs_dir}/{game}__plain_games"],
    }


def _random_seats(res) -> tuple[dict, dict]:
    """The random players together (per-deal mean over their entries), and the heuristic's paired
    difference to them on the same deals (what matters in a game that is not zero-sum)."""
    per_deal = np.mean([res.per_deal_means(i) for i in range(1, len(res.labels))], axis=0)
    return mean_ci(per_deal).to_dict(), mean_ci(res.per_deal_means(0) - per_deal).to_dict()


def _excludes_zero(iv: dict) -> bool:
    return iv["low"] > 0 or iv["high"] < 0


def main(argv: list[str] | None = None) -> int:
    p = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    p.add_argument("--scale", type=float, default=1.0, help="multiply every game's number of deals")
    p.add_argument("--games", nargs="+", default=list(GAMES), choices=list(GAMES))
    p.add_argument("--seed", type=int, default=0)
    p.add_argument("--workers", type=int, default=2)
    p.add_argument("--out", default=str(ROOT / "benchmarks" / "baselines.md"))
    p.add_argument("--runs", default="runs/baselines", help="where the JSON/CSV/PNG of each run go")
    args = p.parse_args(argv)
    me = "python benchmarks/baselines.py" + (" " + shlex.join(argv) if argv else "")

    started = time.time()
    headline, widths, details, missing = [], [], [], []
    for game in args.games:
        flags: dict = {}  # the game's defaults
        deals = max(2, round(default_deals(game) * args.scale))
        n = num_seats(game, flags)
        commands = _runs(game, deals, flags, args.seed, args.workers, args.runs)
        try:
            res = {k: run(argv_, echo=False) for k, argv_ in commands.items()}
        except ConfigError as e:
            if "not available" not in str(e):
                raise
            missing.append(f"* **{game}**: {e}")
            print(f"{game}: skipped ({e})", file=sys.stderr)
            continue
        dup, plain, same = (res[k].table[0]["reward_per_episode"] for k in ("duplicate", "plain", "plain_games"))
        hand = res["duplicate"].table[0]["reward_per_hand"]
        rnd, diff = _random_seats(res["duplicate"])
        flag_text = ", ".join(f"`{k}={v!r}`" for k, v in flags.items()) or "defaults"
        excl = "yes" if all(_excludes_zero(iv) for iv in (dup, hand, diff)) else "**no**"
        headline.append(f"| {game} | {flag_text} | heuristic + {n - 1} x random | {deals} | {deals * n} | "
                        f"{_fmt(dup)} | {_fmt(hand)} | {_fmt(rnd)} | {_fmt(diff)} | {excl} |")
        r_deals, r_games = plain["ci95"] / dup["ci95"], same["ci95"] / dup["ci95"]
        widths.append(f"| {game} | ±{dup['ci95']:.3f} ({deals} deals, {deals * n} games) | ±{plain['ci95']:.3f} "
                      f"({deals} games) | **{r_deals:.2f}x** | ±{same['ci95']:.3f} ({deals * n} games) | "
                      f"**{r_games:.2f}x** | {r_games ** 2:.1f}x |")
        details.append(f"### {game}\n\n```\n" + "\n".join(f"python -m train.evaluate {shlex.join(c)}"
                                                       for c in commands.values())
                       + f"\n```\n\nDuplicate run:\n\n```\n{res['duplicate']}\n```\n")
        print(f"{game}: heuristic {_fmt(dup)} per episode; plain/duplicate CI {r_deals:.2f}x (same deals), "
              f"{r_games:.2f}x (same games)", file=sys.stderr)
    elapsed = time.time() - started

    lines = [
        "# Baselines: heuristic vs random, with duplicate deals",
        "",
        f"Written by `{me}` (seed {args.seed}; {elapsed:.0f} s with {args.workers} workers). "
        "Every number below comes from one of the `python -m train.evaluate` commands listed per game; "
        "each command reproduces its numbers exactly, with any `--workers`.",
        "",
        "Protocol: the heuristic at one seat, random players at the others, the game's default flags "
        "(Briscola in cinque: one hand per episode; Pigugnìn: a whole game until the busche limit; "
        "Picchetto: a best-of-three match). Duplicate deals: each deal is replayed with the line-up "
        "rotated through every seat, so every player gets every hand. Intervals are 95% Student-t "
        "over deals (the unit); per hand is total reward over total hands (delta method).",
        "",
        "## Heuristic vs random",
        "",
        "| game | flags | line-up | deals | games | heuristic reward/episode [95% CI] | "
        "heuristic reward/hand [95% CI] | random seats reward/episode [95% CI] | "
        "heuristic - random, per episode [95% CI] | all three CIs exclude 0 |",
        "|---|---|---|---|---|---|---|---|---|---|",
        *headline,
        "",
        "Rewards: Briscola in cinque, credits of the classifica (zero-sum); Pigugnìn, minus the busche paid "
        "(lower busche is better, not zero-sum); Picchetto, the point difference of the match (zero-sum). "
        "*heuristic - random* is the paired per-deal difference between the heuristic and the mean of the "
        "random seats: in Pigugnìn, where every reward is negative, it is the figure that shows the heuristic "
        "is better.",
        "",
        "## How much narrower duplicate deals make the interval",
        "",
        "Half-width of the heuristic's 95% interval on reward per episode. *Same deals*: plain random deals, "
        "each played once, for the same number of deals (the duplicate run plays each deal once per seat, "
        "so it also plays more games). *Same games*: plain deals for as many games as the duplicate run "
        "played; this ratio is the variance reduction of duplicate deals alone, and its square is how many "
        "times more plain games the same precision would need.",
        "",
        "Reading it: duplicate deals cancel the luck of the cards, not the noise of the players' own choices. "
        "Against uniformly random opponents most of the spread of a result comes from what the random "
        "players do, so at an equal number of games the gain is small; the gain grows as the players become "
        "less noisy (stronger or deterministic agents: with identical deterministic players the duplicate "
        "interval of a zero-sum game is exactly 0, see `tests/train/test_evaluate.py`).",
        "",
        "| game | duplicate CI | plain CI, same deals | ratio | plain CI, same games | ratio | plain games needed |",
        "|---|---|---|---|---|---|---|",
        *widths,
        "",
        "## Commands and full tables",
        "",
        *details,
    ]
    if missing:
        lines += ["## Not measured yet", "", *missing, ""]
    Path(args.out).write_text("\n".join(lines).rstrip() + "\n")
    print(f"wrote {args.out} in {elapsed:.0f} s", file=sys.stderr)
    return 0


if __name__ == "__main__":
    sys.exit(main())
