"""The strength table: every shipped player against every other on duplicate deals; writes benchmarks/strength.md.

Players: ``random``, ``plain`` (ducking in Pigugnìn, greedy in the others), ``heuristic-v1`` (the 0.1
heuristic, frozen), ``heuristic``, ``pretrained:GAME``, ``pimc``, ``ismcts`` (the search players at their
default budgets), and ``pimc-v1`` where its defaults differ from PIMC's (learned playouts: Picchetto, Pigugnìn at
four players); ``--players`` names others (``pretrained:picchetto_expert``). For every pair ``A, B`` the line-ups of ``train.evaluation.rating`` are played on the same
``--deals`` duplicate deals (every seat rotated): ``[A, B]`` in Picchetto, ``[A, B, ..., B]`` and
``[B, A, ..., A]`` in the others (one against the field). From the same games:

| table | what |
|---|---|
| head to head | the *margin* of the row player alone against the column player, per hand, with its 95% interval over deals: in the zero-sum games (Briscola, Picchetto) the lone player's own reward; in Pigugnìn (not zero-sum) its reward minus the mean reward of the other seats (busche it pays less than the field). 0 for equal players |
| ratings | OpenSkill Plackett-Luce over every line-up on every deal (as ``train.evaluation.rating.round_robin``: each spec's score in a match is its mean reward per seat), sorted by the ordinal ``mu - 3 sigma`` |
| time | milliseconds per decision with a choice (median, p95, wall and CPU), the player at one seat among heuristics (``--time-decisions``) |
| roles | in a game whose figures count roles (Briscola: caller, partner, defender), each player's share of hands in each, its contracts made and mean contract, over all its seats in all line-ups |

Configurations: every game's ``GameSpec.variants`` (Pigugnìn also with 5 players), each played one hand per
deal (``GameSpec.single_hand``: ``episode="hand"`` in Pigugnìn and Picchetto; Briscola's default is one hand), so
every seat of a duplicate deal plays the very same cards; ``--flag k=v`` adds flags. The margin is the lone
player's own reward in a zero-sum game (``GameSpec.utility``), else its reward minus the field's mean.

    python benchmarks/strength.py --deals 200 --workers 2            # the full table (long)
    python benchmarks/strength.py --deals 2 --games picchetto --time-decisions 5 --out /tmp/strength.md
"""

from __future__ import annotations

import argparse
import ast
import datetime
import os
import platform
import subprocess
import sys
import time
from pathlib import Path

import numpy as np

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

from decision_time import time_player  # noqa: E402

from agents.registry import SEARCH_KINDS, make_agent  # noqa: E402
from envs.core.errors import ConfigError  # noqa: E402
from envs.registry import GAMES as SPECS  # noqa: E402
from envs.registry import game_spec, make_raw_env  # noqa: E402
from train.evaluation import evaluate  # noqa: E402
from train.evaluation.rating import lineups  # noqa: E402
from train.evaluation.stats import Interval, proportion_ci, ratio_ci  # noqa: E402

#: label -> (game, flags): every configuration of every game, one hand per episode
GAMES = {label: (spec.name, {**spec.single_hand, **flags})
         for spec in SPECS.values() for label, flags in spec.benchmark_variants().items()}
#: the counters of the roles table (a game's figures count them or the table is left out)
ROLES = ("hands", "played", "caller", "made", "contract", "partner", "defender")


def players_for(game: str, flags: dict) -> list[str]:
    """The shipped players; ``pimc-v1`` too where its defaults are not today's PIMC's (learned playouts)."""
    search = game_spec(game).search
    resolved = game_spec(game).resolve_flags(flags)
    changed = search.pimc_defaults(resolved) != search.pimc_defaults(resolved, v1=True)
    return ["random", "plain", "heuristic-v1", "heuristic", f"pretrained:{game}", "pimc",
            *(["pimc-v1"] if changed else []), "ismcts"]


def usable(specs: list[str], game: str, flags: dict) -> tuple[list[str], list[str]]:
    """The specs that build and act for these flags, and a note for each one that does not."""
    env = make_raw_env(game, **flags)
    env.reset(seed=0)
    obs = env.observe(env.agent_selection)
    ok, notes = [], []
    for spec in specs:
        try:
            agent = make_agent(spec, game, seed=0, flags=flags)
            agent.reset()
            agent.act(obs)
        except (ConfigError, ImportError, ValueError, RuntimeError) as err:
            notes.append(f"`{spec}` left out: {type(err).__name__}: {err}")
            continue
        ok.append(spec)
    return ok, notes


def rate(specs: list[str], scores: list[dict[str, np.ndarray]], num_deals: int) -> list[dict]:
    """OpenSkill Plackett-Luce, matches rated deal by deal, line-up by line-up (as ``round_robin``); a line-up
    played on fewer deals (``--search-deals``) drops out after its last one."""
    from openskill.models import PlackettLuce

    model = PlackettLuce()
    ratings = {s: model.rating(name=s) for s in specs}
    for d in range(num_deals):
        for per_spec in scores:
            names = list(per_spec)
            if d >= len(per_spec[names[0]]):
                continue
            new = model.rate([[ratings[s]] for s in names], scores=[float(per_spec[s][d]) for s in names])
            for s, team in zip(names, new, strict=True):
                ratings[s] = team[0]
    return sorted(({"spec": s, "ordinal": float(ratings[s].ordinal()), "mu": float(ratings[s].mu),
                    "sigma": float(ratings[s].sigma)} for s in specs), key=lambda r: -r["ordinal"])


def is_search(spec: str) -> bool:
    return spec.partition(":")[0] in SEARCH_KINDS


def plan_lineups(specs: list[str], n: int, search_alone: bool) -> list[list[str]]:
    """The round robin's line-ups; with ``search_alone`` (4-5 seats) a search player only ever sits alone
    against a field of the other player (the field of search players is the costly half)."""
    plan = lineups(specs, n)
    if search_alone and n > 2:
        plan = [lu for lu in plan if not is_search(lu[1])]
    return plan


def run_game(key: str, specs: list[str], deals: int, seed: int, workers: int, extra: dict,
             search_deals: int | None = None, search_alone: bool = False) -> dict:
    game, flags = GAMES[key]
    flags = {**flags, **extra}
    n = len(make_raw_env(game, **flags).possible_agents)
    plan = plan_lineups(specs, n, search_alone)
    scores: list[dict[str, np.ndarray]] = []
    margins: dict[tuple[str, str], Interval] = {}
    roles: dict[str, dict[str, np.ndarray]] = {}
    for lineup in plan:
        num = search_deals if search_deals and any(is_search(x) for x in lineup) else deals
        print(f"{key}: {' '.join(lineup)} x {num} deals", flush=True)
        res = evaluate(game, lineup, num_deals=num, seed=seed, flags=flags, workers=workers)
        per_spec, reward, hands = {}, {}, {}
        for spec in dict.fromkeys(lineup):
            idx = [i for i, s in enumerate(lineup) if s == spec]
            reward[spec] = sum(res.column(i, "reward") for i in idx)
            hands[spec] = sum(res.column(i, "hands") for i in idx)
            per_spec[spec] = reward[spec] / sum(res.column(i, "episodes") for i in idx)
            if set(ROLES) <= set(res.counters):
                acc = roles.setdefault(spec, {})
                for counter in ROLES:
                    # per-deal counts of every line-up, end to end (line-ups may differ in deals: --search-deals)
                    acc[counter] = np.concatenate((acc.get(counter, np.zeros(0)),
                                                   sum(res.column(i, counter) for i in idx)))
        scores.append(per_spec)
        a, b = lineup[0], lineup[1]
        pairs = [(a, b)] + ([(b, a)] if n == 2 else [])
        for x, y in pairs:
            if game_spec(game).zero_sum:
                margins[(x, y)] = ratio_ci(reward[x], hands[x])
            else:  # minus the field's mean per seat (every seat plays the same hands of a deal)
                margins[(x, y)] = ratio_ci(reward[x] - reward[y] / (n - 1), hands[x])
    return {"key": key, "game": game, "flags": flags, "specs": specs, "ratings": rate(specs, scores, deals),
            "margins": margins, "roles": roles, "lineups": len(plan)}


def fmt(iv: Interval) -> str:
    if np.isnan(iv.low):
        return f"{iv.mean:+.3f}"
    star = "**" if iv.excludes_zero() else ""
    return f"{star}{iv.mean:+.3f}{star} [{iv.low:+.3f}, {iv.high:+.3f}]"


def report(results: list[dict], times: dict, notes: dict, args: argparse.Namespace, command: str, load: tuple,
           seconds: float) -> str:
    commit = subprocess.run(["git", "rev-parse", "--short", "HEAD"], cwd=ROOT, capture_output=True, text=True).stdout
    lines = [
        "# Strength table",
        "",
        f"Produced by `{command}` at {datetime.datetime.now(datetime.timezone.utc):%Y-%m-%d %H:%M} UTC "
        f"(commit {commit.strip() or '?'}; {platform.python_implementation()} {platform.python_version()}, "
        f"{os.cpu_count()} CPUs; 1-minute load average {load[0]:.2f} at the start, {load[1]:.2f} at the end; "
        f"{seconds / 60:.1f} minutes).",
        "",
        f"{args.deals} duplicate deals per line-up (every seat rotated)"
        + (f", {args.search_deals} for the line-ups with a search player" if args.search_deals else "")
        + (" (a search player only alone against a field: '-' where it would have filled the field)"
           if args.search_alone else "")
        + f", seed {args.seed}. **Head to head**: the "
        "margin per hand of the row player alone against the column player (zero-sum games, Briscola and Picchetto: "
        "its reward; Pigugnìn: its reward minus the other seats' mean, i.e. busche paid less than the field), 95% interval "
        "over deals; bold where the interval excludes 0 (with only a few deals the intervals mean little: a Student-t "
        "interval over 2 deals can even have width 0). See `benchmarks/strength.py` for the definitions.",
    ]
    for r in results:
        specs = r["specs"]
        lines += ["", f"## {r['key']} (flags {r['flags'] or '{}'}; {r['lineups']} line-ups)", ""]
        lines += [f"- {note}" for note in notes.get(r["key"], [])]
        lines += ["", "| rank | player | OpenSkill ordinal | mu | sigma |", "|---|---|---|---|---|"]
        for i, row in enumerate(r["ratings"], 1):
            lines.append(f"| {i} | {row['spec']} | {row['ordinal']:.2f} | {row['mu']:.2f} | {row['sigma']:.3f} |")
        lines += ["", "| alone \\ against | " + " | ".join(specs) + " |", "|---|" + "---|" * len(specs)]
        for a in specs:
            cells = [fmt(r["margins"][(a, b)]) if (a, b) in r["margins"] else "-" for b in specs]
            lines.append(f"| {a} | " + " | ".join(cells) + " |")
        t = times.get(r["key"], {})
        if t:
            lines += ["", "| player | ms per decision: wall median | wall p95 | CPU median | CPU p95 | decisions |",
                      "|---|---|---|---|---|---|"]
            for spec in specs:
                if spec in t:
                    x = t[spec]
                    lines.append(f"| {spec} | {x['wall_median']:.2f} | {x['wall_p95']:.2f} | {x['cpu_median']:.2f} | "
                                 f"{x['cpu_p95']:.2f} | {x['decisions']} |")
        if r["roles"]:
            lines += ["", "| player | caller | partner | defender | contracts made | mean contract |",
                      "|---|---|---|---|---|---|"]
            for spec in specs:
                c = r["roles"][spec]
                hands = c["hands"]

                def share(num, den):
                    iv = proportion_ci(num, den)
                    return "-" if np.isnan(iv.mean) else f"{100 * iv.mean:.1f}%"

                contract = ratio_ci(c["contract"], c["caller"])
                mean_contract = "-" if np.isnan(contract.mean) else f"{contract.mean:.1f}"
                lines.append(f"| {spec} | {share(c['caller'], hands)} | {share(c['partner'], hands)} | "
                             f"{share(c['defender'], hands)} | {share(c['made'], c['caller'])} | {mean_contract} |")
    return "\n".join(lines) + "\n"


def parse_flag(text: str) -> tuple[str, object]:
    key, eq, raw = text.partition("=")
    if not eq:
        raise argparse.ArgumentTypeError(f"--flag takes key=value; got {text!r}")
    try:
        value = ast.literal_eval(raw)
    except (ValueError, SyntaxError):
        value = raw
    return key, value


def main(argv: list[str] | None = None) -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0],
                                     formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--deals", type=int, default=200, help="duplicate deals per line-up (default 200)")
    parser.add_argument("--games", nargs="+", default=list(GAMES), choices=list(GAMES))
    parser.add_argument("--players", nargs="+", default=None,
                        help="agent specs (default: every shipped player; GAME in pretrained:GAME is filled in)")
    parser.add_argument("--seed", type=int, default=0)
    parser.add_argument("--workers", type=int, default=1)
    parser.add_argument("--time-decisions", type=int, default=40, help="timed decisions per player (0: no timing)")
    parser.add_argument("--flag", type=parse_flag, action="append", default=[], help="extra env flag key=value")
    parser.add_argument("--out", type=Path, default=ROOT / "benchmarks" / "strength.md")
    parser.add_argument("--search-deals", type=int, default=None,
                        help="duplicate deals of the line-ups with a search player (default: --deals)")
    parser.add_argument("--search-alone", action="store_true",
                        help="4-5 seats: a search player only plays alone against a field (no field of search players)")
    args = parser.parse_args(argv)
    if args.deals < 2:
        parser.error("--deals must be >= 2 (an interval needs two deals)")
    command = "python benchmarks/strength.py " + " ".join(sys.argv[1:] if argv is None else argv)
    load0 = os.getloadavg()[0]
    t0 = time.time()
    results, times, notes = [], {}, {}
    extra = dict(args.flag)
    for key in args.games:
        game, flags = GAMES[key]
        flags = {**flags, **extra}
        wanted = [p.replace("GAME", game) for p in args.players] if args.players else players_for(game, flags)
        specs, notes[key] = usable(wanted, game, flags)
        for note in notes[key]:
            print(f"{key}: {note}", flush=True)
        n = len(make_raw_env(game, **flags).possible_agents)
        plan = plan_lineups(specs, n, args.search_alone)
        print(f"{key}: {len(specs)} players, {len(plan)} line-ups x {args.deals} deals", flush=True)
        results.append(run_game(key, specs, args.deals, args.seed, args.workers, extra, args.search_deals,
                                args.search_alone))
        if args.time_decisions:
            times[key] = {s: time_player(s, game, flags, args.time_decisions, args.seed) for s in specs}
        args.out.write_text(report(results, times, notes, args, command, (load0, os.getloadavg()[0]),
                                   time.time() - t0))
    print(f"wrote {args.out}")


if __name__ == "__main__":
    main()
