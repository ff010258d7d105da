"""The scaling study: which recipe turns compute into strength? Writes benchmarks/learning.md, .json and a plot per game.

Every recipe trains on the batched engine from ``configs/<game>/learning.yaml`` (its ``checkpoint_at`` keeps a
checkpoint at 1M, 3M, 10M, 30M and 100M learner steps) with the recipe's overrides:

| recipe | overrides of the base config |
|---|---|
| ``ppo`` | none: today's PPO (warm start on the heuristic, half self-play, snapshots, the heuristics as opponents) |
| ``ppo_oracle`` | ``critic: oracle`` (the critic also reads every hidden card; the actor never does) |
| ``dmc`` | ``algo: dmc``, ``bc_episodes: 0`` (Deep Monte-Carlo: a Q-network on Monte-Carlo returns) |
| ``ppo_oracle_league`` | ``critic: oracle``, ``selfplay: true``, ``opponent_sampling: pfsp`` (a league: prioritized fictitious self-play over the anchors and snapshots) |

Each checkpoint at a budget of ``--budgets`` then faces a fixed panel:

| panel | how | figure |
|---|---|---|
| heuristic | ``train.evaluation.batched.batched_margin``: ``--heuristic-deals`` duplicate deals on the batched engine, the checkpoint alone at each seat in turn among the current heuristic's numba port | margin per hand, 95% interval |
| PIMC | ``train.evaluate.evaluate``: ``--pimc-deals`` duplicate deals through the AEC env, the checkpoint alone among PIMC players at their default budget (only at the budgets of ``--pimc-at``) | margin per hand, 95% interval; Briscola's roles |
| roles | the same against the heuristic, ``--roles-deals`` deals (``--pimc-at`` budgets; games that count roles) | Briscola's caller and contract-made rates |
| growth | ``batched_margin`` again: the checkpoint alone among copies of the same run's ``--growth-from`` checkpoint (10M), ``--heuristic-deals`` deals (larger budgets only) | does more compute beat less, on the same deals: margin per hand, 95% interval |

Margins follow the evaluation tool: in the zero-sum games (Briscola, Picchetto) the player's own reward per hand;
in Pigugnìn its reward minus the field's mean per seat in the same games (busche paid less than the field). One
hand per episode (``GameSpec.single_hand``), so per episode is per hand. Training runs live in ``--runs``
(``<game>/<recipe>/``); a run that stopped is resumed from its latest training state (written at every
evaluation, ``eval_every``), a finished run is reused, and a larger budget continues it (``--resume`` with a higher
``total_timesteps``; the resumed folder keeps the earlier checkpoints). A run's figures are kept with the name of
its first folder, and measured again if the run is another one. Results are kept in the JSON as they come, so the study can
be stopped and started again; ``--report-only`` rewrites the Markdown and plots from the JSON.

    python benchmarks/learning.py --games picchetto --recipes ppo dmc --budgets 1000000 3000000   # a small study
    python benchmarks/learning.py --report-only
"""

from __future__ import annotations

import argparse
import datetime
import json
import os
import platform
import subprocess
import sys
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

from envs.registry import GAMES as SPECS  # noqa: E402
from envs.registry import game_spec  # noqa: E402

RECIPES: dict[str, dict[str, Any]] = {
    "ppo": {},
    "ppo_oracle": {"critic": "oracle"},
    "dmc": {"algo": "dmc", "bc_episodes": 0},
    "ppo_oracle_league": {"critic": "oracle", "selfplay": True, "opponent_sampling": "pfsp"},
}
GAMES = tuple(SPECS)
BUDGETS = (1_000_000, 3_000_000, 10_000_000, 30_000_000)


def run_folders(runs: Path, game: str, recipe: str) -> list[Path]:
    """The folders of ``game`` and ``recipe``'s run under ``runs``, oldest first (a resume adds one)."""
    return sorted((runs / game / recipe).glob(f"{game}__*"), key=lambda p: p.stat().st_mtime)


def train(runs: Path, game: str, recipe: str, steps: int, seed: int, extra: list[str]) -> Path:
    """Train (or continue) ``recipe`` on ``game`` to ``steps`` learner steps; returns the newest run folder.
    A run that stopped continues from its latest training state (``--resume``); ``extra``: more ``--key value``
    for a new run (``--set``; the recipe's own keys win)."""
    folders = run_folders(runs, game, recipe)
    newest = folders[-1] if folders else None
    if newest is not None and (newest / "final_eval.json").is_file() and _steps(newest) >= steps:
        return newest
    resumable = [f for f in folders if (f / "last_state.zip").is_file()]
    if resumable:
        argv = ["--resume", str(resumable[-1] / "last.mazzo.zip"), "--total_timesteps", str(steps)]
    else:
        overrides = [x for k, v in RECIPES[recipe].items() for x in (f"--{k}", v if isinstance(v, str) else json.dumps(v))]
        argv = ["--config", f"configs/{game}/learning.yaml", "--exp_name", recipe, "--seed", str(seed),
                "--total_timesteps", str(steps), "--runs_dir", str(runs / game / recipe), *extra, *overrides]
    print(f"training {game} {recipe} to {steps:,} steps: python -m train {' '.join(argv)}", flush=True)
    subprocess.run([sys.executable, "-m", "train", *argv, "--progress", "false"], cwd=ROOT, check=True)
    return run_folders(runs, game, recipe)[-1]


def checkpoint_of(runs: Path, game: str, recipe: str, budget: int) -> Path:
    """``checkpoints/step_<budget>.mazzo.zip`` of the run (a resumed run's folder holds the earlier ones too)."""
    for folder in reversed(run_folders(runs, game, recipe)):
        if (folder / "checkpoints" / f"step_{budget}.mazzo.zip").is_file():
            return folder / "checkpoints" / f"step_{budget}.mazzo.zip"
    raise FileNotFoundError(f"no checkpoint of {budget:,} steps in {runs / game / recipe}")


def set_argv(pairs: list[str]) -> list[str]:
    """``--set KEY=VALUE ...`` as the trainer's ``--KEY VALUE`` arguments."""
    return [x for kv in pairs for x in (f"--{kv.split('=', 1)[0]}", kv.split("=", 1)[1])]


def check_budgets(games: list[str], budgets: list[int], extra: list[str]) -> None:
    """Every budget must be one of the configs' ``checkpoint_at`` (else the study would train, then miss it)."""
    import yaml

    for game in games:
        kept = yaml.safe_load((ROOT / "configs" / game / "learning.yaml").read_text())["checkpoint_at"]
        if any(k == "--checkpoint_at" for k in extra):
            kept = yaml.safe_load(extra[extra.index("--checkpoint_at") + 1])
        missing = [b for b in budgets if b not in kept]
        if missing:
            raise SystemExit(f"error: budgets {missing} are not in configs/{game}/learning.yaml's checkpoint_at "
                             f"{kept}: no checkpoint would be kept there")


def _steps(folder: Path) -> int:
    from agents.checkpoint import read_metadata

    return int(read_metadata(folder / "last.mazzo.zip").get("num_timesteps") or 0)


def _wall(folder: Path) -> float:
    timing = json.loads((folder / "final_eval.json").read_text()).get("timing", {})
    return float(timing.get("wall_time") or 0.0)


def flags_of(game: str, checkpoint: Path) -> dict:
    """The game flags the checkpoint was trained with, one hand per episode (``GameSpec.single_hand``)."""
    from agents.checkpoint import read_metadata

    return {**read_metadata(checkpoint).get("flags", {}), **game_spec(game).single_hand}


#: the search of every "vs PIMC" panel: PIMC at the defaults of the published figures (``pimc-v1``, frozen when the
#: learned networks became PIMC's default playouts), so that every published command reproduces its figure
PIMC_PANEL = "pimc-v1"


def batched_panel(game: str, flags: dict, checkpoint: Path, field: str, deals: int, seed: int) -> dict:
    """The checkpoint (greedy) alone among ``field`` players on the batched engine's duplicate deals: the heuristic
    panel (``field="heuristic"``) and the growth panel (``field="ppo:<the run's earlier checkpoint>"``)."""
    from agents.checkpoint import load_actor
    from agents.rows import ActorRows
    from train.evaluation.batched import batched_margin

    player = ActorRows(load_actor(checkpoint)[0], name=checkpoint.name, greedy=True)
    return batched_margin(game, flags, player, field, deals, seed)


def aec_panel(game: str, flags: dict, checkpoint: Path, field: str, deals: int, seed: int, workers: int) -> dict:
    """The checkpoint alone among ``field`` players through the AEC evaluation tool: its margin per hand and,
    where the game counts them (Briscola), its roles."""
    from train.evaluate import evaluate
    from train.evaluation.stats import proportion_ci

    res = evaluate(game, [f"ppo:{checkpoint}"], field=field, num_deals=deals, seed=seed, flags=flags,
                   workers=workers, progress=False)
    out = {"margin": res.margin["per_hand"], "n_deals": deals}
    if {"caller", "made", "hands"} <= set(res.counters):
        hands, caller, made = (res.column(0, c) for c in ("hands", "caller", "made"))
        out["caller"] = proportion_ci(caller, hands).to_dict()
        out["made"] = proportion_ci(made, caller).to_dict()
        if "caller_credit" in res.counters:  # does calling pay? (a made tripla earns 6, a lost one costs 2)
            out["caller_credits"] = res.interval(0, "caller_credit", "caller").to_dict()
    return out


def _counts_roles(game: str) -> bool:
    return "caller" in game_spec(game).figures_class().EXTRA


def study(args: argparse.Namespace, results: dict, save: Any) -> None:
    extra = set_argv(args.set)
    for game in args.games:
        for recipe in args.recipes:
            folder = train(args.runs, game, recipe, max(args.budgets), args.seed, extra)
            origin = run_folders(args.runs, game, recipe)[0].name
            entry = results.setdefault(game, {}).setdefault(recipe, {"points": {}})
            before = json.dumps({k: v for k, v in entry.items() if k != "meta"}, sort_keys=True)
            if entry.setdefault("origin", origin) != origin:  # another run than the figures': measure again
                entry.update(origin=origin, points={})
            entry.update(run=shown(folder),
                         wall_s=_wall(folder), steps=_steps(folder))
            for budget in args.budgets:
                evaluate_point(args, game, recipe, budget, entry["points"].setdefault(str(budget), {}), save)
            if json.dumps({k: v for k, v in entry.items() if k != "meta"}, sort_keys=True) != before:
                entry["meta"] = results[game]["_meta"]  # this command trained or measured the recipe
                save()


def evaluate_point(args: argparse.Namespace, game: str, recipe: str, budget: int, point: dict, save: Any) -> None:
    """The panels a budget's checkpoint has not faced yet (each saved as it comes)."""
    ckpt = checkpoint_of(args.runs, game, recipe, budget)
    flags = flags_of(game, ckpt)
    if "heuristic" not in point:
        point["heuristic"] = batched_panel(game, flags, ckpt, "heuristic", args.heuristic_deals, args.seed)
        print(f"{game} {recipe} {budget:,}: vs heuristic {point['heuristic']['mean']:+.3f}", flush=True)
        save()
    if args.growth_from and budget > args.growth_from and "growth" not in point:
        earlier = checkpoint_of(args.runs, game, recipe, args.growth_from)
        point["growth"] = {**batched_panel(game, flags, ckpt, f"ppo:{earlier}", args.heuristic_deals, args.seed),
                           "against": args.growth_from}
        print(f"{game} {recipe} {budget:,}: vs its {args.growth_from:,}-step checkpoint "
              f"{point['growth']['mean']:+.3f}", flush=True)
        save()
    if budget in args.pimc_at and "pimc" not in point:
        point["pimc"] = aec_panel(game, flags, ckpt, PIMC_PANEL, args.pimc_deals, args.seed, args.workers)
        print(f"{game} {recipe} {budget:,}: vs PIMC {point['pimc']['margin']['mean']:+.3f}", flush=True)
        save()
    if budget in args.pimc_at and _counts_roles(game) and "roles" not in point and args.roles_deals:
        # the roles against the heuristic (Briscola: caller, contracts made), through the AEC tool
        point["roles"] = aec_panel(game, flags, ckpt, "heuristic", args.roles_deals, args.seed, args.workers)
        save()


def fmt(iv: dict | None) -> str:
    if not iv:
        return "-"
    star = "**" if iv["low"] > 0 or iv["high"] < 0 else ""
    return f"{star}{iv['mean']:+.3f}{star} [{iv['low']:+.3f}, {iv['high']:+.3f}]"


def plot(game: str, entries: dict, path: Path) -> None:
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    fig, axes = plt.subplots(1, 2, figsize=(10, 3.6), sharex=True)
    for ax, panel, title in ((axes[0], "heuristic", "vs the heuristic"), (axes[1], "pimc", "vs PIMC")):
        for recipe, entry in entries.items():
            pts = sorted((int(b), p[panel] if panel == "heuristic" else p[panel]["margin"])
                         for b, p in entry["points"].items() if panel in p)
            if pts:
                x = [b for b, _ in pts]
                y = [iv["mean"] for _, iv in pts]
                err = [[iv["mean"] - iv["low"] for _, iv in pts], [iv["high"] - iv["mean"] for _, iv in pts]]
                ax.errorbar(x, y, yerr=err, marker="o", capsize=3, label=recipe)
        ax.axhline(0, color="grey", lw=0.8)
        ax.set_xscale("log")
        ax.set_title(f"{game}: {title}")
        ax.set_xlabel("learner steps")
    axes[0].set_ylabel("margin per hand (95% interval)")
    axes[0].legend(fontsize=8)
    fig.tight_layout()
    fig.savefig(path, dpi=110)
    plt.close(fig)


def report(results: dict, out: Path) -> None:
    lines = ["# The scaling study", "", "Definitions and recipes: `benchmarks/learning.py`'s docstring; the analysis: "
             "`docs/results/learning.md`. Margins per hand with their 95% intervals, bold where the interval excludes 0. "
             f"PIMC is `{PIMC_PANEL}`: PIMC at the defaults it had before learned networks played its playouts.",
             ""]
    for game, by_recipe in ((g, results[g]) for g in GAMES if g in results):
        meta = by_recipe.get("_meta", {})
        entries = {k: v for k, v in by_recipe.items() if not k.startswith("_")}
        lines += [f"## {game}", "", f"Each recipe's figures come from the command next to its run below (the last "
                  f"one: started {meta.get('when')}; commit {meta.get('commit')}; {meta.get('machine')}; "
                  f"{meta.get('versions')}).", "",
                  f"![{game}]({out.stem}_{game}.png)", "",
                  "| recipe | learner steps | vs heuristic | deals | vs PIMC | deals | caller | contracts made "
                  "| caller (vs heuristic) | contracts made (vs heuristic) | vs its earlier checkpoint |",
                  "|---|---|---|---|---|---|---|---|---|---|---|"]
        for recipe, entry in entries.items():
            for budget, p in sorted(entry["points"].items(), key=lambda kv: int(kv[0])):
                pimc = p.get("pimc", {})
                lines.append(f"| {recipe} | {int(budget):,} | {fmt(p.get('heuristic'))} | "
                             f"{p.get('heuristic', {}).get('n_deals', '-')} | {fmt(pimc.get('margin'))} | "
                             f"{pimc.get('n_deals', '-')} | {_pct(pimc.get('caller'))} | {_pct(pimc.get('made'))} | "
                             f"{_pct(p.get('roles', {}).get('caller'))} | {_made(p.get('roles', {}))} | "
                             f"{_growth(p.get('growth'))} |")
        lines += ["", "| recipe | run | steps trained | wall time | command (commit, started) |", "|---|---|---|---|---|"]
        for recipe, entry in entries.items():
            m = entry.get("meta", meta)  # the command that last trained or measured this recipe
            lines.append(f"| {recipe} | `{entry['run']}` | {entry.get('steps', 0):,} | "
                         f"{entry.get('wall_s', 0) / 60:.1f} min | `{m.get('command')}` ({m.get('commit')}, "
                         f"{m.get('when')}) |")
        lines.append("")
        plot(game, entries, out.with_name(f"{out.stem}_{game}.png"))  # beside --out, named after it
    out.write_text("\n".join(lines))


def _growth(iv: dict | None) -> str:
    return "-" if not iv else f"{fmt(iv)} vs {iv['against']:,} ({iv['n_deals']} deals)"


def _made(roles: dict) -> str:
    """Contracts made, and what each contract called earned where it was measured."""
    credits = roles.get("caller_credits")
    return _pct(roles.get("made")) + (f" ({credits['mean']:+.2f} credits per contract)" if credits else "")


def _pct(iv: dict | None) -> str:
    """A proportion as a percentage; ``-`` where it is undefined (no interval, or nothing to divide by)."""
    return "-" if not iv or iv.get("mean") is None else f"{100 * iv['mean']:.1f}%"


def _meta(argv: list[str], script: str = "learning.py") -> dict:
    """Provenance of a result: the command (``python benchmarks/<script> <argv>``), commit, time, CPU, versions."""
    import numpy
    import torch

    commit = subprocess.run(["git", "rev-parse", "--short", "HEAD"], cwd=ROOT, capture_output=True, text=True).stdout
    cpu = next((ln.split(":", 1)[1].strip() for ln in Path("/proc/cpuinfo").read_text().splitlines()
                if ln.startswith("model name")), platform.processor())
    return {"command": f"python benchmarks/{script} " + " ".join(argv), "commit": commit.strip(),
            "when": f"{datetime.datetime.now(datetime.timezone.utc):%Y-%m-%d %H:%M} UTC",
            "machine": f"{cpu}, {os.cpu_count()} CPUs, load {os.getloadavg()[0]:.1f}",
            "versions": f"Python {platform.python_version()}, torch {torch.__version__}, numpy {numpy.__version__}"}


def shown(path: Path) -> str:
    """``path`` as the reports print it: relative to the repository when it is inside it."""
    return str(path.relative_to(ROOT) if path.is_relative_to(ROOT) else path)


def shipped(game: str) -> Path:
    """The game's shipped agent, ``agents/pretrained/<game>.mazzo.zip`` (``pretrained:<game>``)."""
    from agents.trained import EXT, PRETRAINED_DIR

    return PRETRAINED_DIR / f"{game}{EXT}"


def study_args(p: argparse.ArgumentParser, name: str) -> None:
    """The options every study shares: ``--seed``, ``--workers`` (AEC evaluation processes), ``--runs`` (its training
    runs, ``runs/<name>``), ``--json`` and ``--out`` (its results, ``benchmarks/<name>.json`` and ``.md``)."""
    p.add_argument("--seed", type=int, default=1)
    p.add_argument("--workers", type=int, default=1)
    p.add_argument("--runs", type=Path, default=ROOT / "runs" / name)
    p.add_argument("--json", type=Path, default=ROOT / "benchmarks" / f"{name}.json")
    p.add_argument("--out", type=Path, default=ROOT / "benchmarks" / f"{name}.md")


def saver(path: Path, games: list[str], results: dict) -> Any:
    """``save()``: this process's ``games`` of ``results`` into the JSON at ``path`` as they are now, beside the other
    games' figures on disk (studies of other games may run beside it), written whole or not at all."""
    def save() -> None:
        on_disk = json.loads(path.read_text()) if path.is_file() else {}
        on_disk.update({k: v for k, v in results.items() if k in games})
        results.update(on_disk)
        tmp = path.with_suffix(".part")
        tmp.write_text(json.dumps(on_disk, indent=1) + "\n")
        tmp.replace(path)
    return save


def main(argv: list[str] | None = None) -> None:
    argv = list(sys.argv[1:] if argv is None else argv)
    p = argparse.ArgumentParser(description=__doc__.split("\n\n")[0], formatter_class=argparse.RawDescriptionHelpFormatter)
    p.add_argument("--games", nargs="+", default=list(GAMES), choices=GAMES)
    p.add_argument("--recipes", nargs="+", default=["ppo", "ppo_oracle", "dmc"], choices=list(RECIPES))
    p.add_argument("--budgets", nargs="+", type=int, default=list(BUDGETS))
    p.add_argument("--pimc-at", nargs="*", type=int, default=[10_000_000, 30_000_000])
    p.add_argument("--heuristic-deals", type=int, default=2000)
    p.add_argument("--pimc-deals", type=int, default=60)
    p.add_argument("--roles-deals", type=int, default=200,
                   help="AEC deals against the heuristic at the --pimc-at budgets, for the roles (0: none)")
    study_args(p, "learning")
    p.add_argument("--set", nargs="*", default=[], metavar="KEY=VALUE",
                   help="more config keys for new runs (e.g. num_envs=64: a smaller study; not for published figures)")
    p.add_argument("--growth-from", type=int, default=10_000_000,
                   help="each larger budget's checkpoint also plays alone among copies of this budget's "
                        "(--heuristic-deals batched deals; 0: never)")
    p.add_argument("--report-only", action="store_true")
    args = p.parse_args(argv)
    results = json.loads(args.json.read_text()) if args.json.is_file() else {}

    save = saver(args.json, args.games, results)

    if not args.report_only:
        check_budgets(args.games, args.budgets, set_argv(args.set))
        for game in args.games:  # the command that last worked on each game
            results.setdefault(game, {})["_meta"] = _meta(argv)
        study(args, results, save)
        save()
    report(results, args.out)
    print(f"wrote {args.out}")


if __name__ == "__main__":
    main()
