"""Past the scaling study's largest budget: the shipped agents trained further, and what it bought.

The study (``benchmarks/learning.py``) stopped at 30M learner steps, and a play-only checkpoint cannot be resumed.
``configs/<game>/learning_finetune.yaml`` starts a new run from ``pretrained:<game>`` (``init_from``; a fresh oracle
critic trained alone for ``critic_warmup`` steps, then PPO in the study's own setup) for 30M more steps. Each kept
checkpoint (10M, 20M, 30M steps of the fine-tune: 40M, 50M, 60M in all) then faces the panels of the study:

| panel | how | figure |
|---|---|---|
| heuristic | ``--heuristic-deals`` duplicate deals on the batched engine, alone among the current heuristic | margin per hand, 95% interval |
| growth | the same deals, alone among copies of the checkpoint it started from (``pretrained:<game>``, 30M) | does more compute beat less |
| PIMC | ``--pimc-deals`` duplicate deals through the AEC env, alone among PIMC players at their default budget (last checkpoint only) | margin per hand, 95% interval; Briscola's roles |
| roles | ``--roles-deals`` AEC deals against the heuristic (last checkpoint; the games that count roles: Briscola) | caller and contracts-made rates, credits per contract |

``--start PATH`` fine-tunes another checkpoint instead (a distilled agent of ``benchmarks/distill_pimc.py``, a
wider network): ``init_from: ppo:PATH`` with its ``net_arch`` and ``activation``, and the growth panel alone among
copies of it. Its steps "in all" are not counted (a distilled agent's steps are not PPO's).

``--stage 2`` (3, ...) goes on from the previous stage: a new run of the same config from that stage's last
checkpoint (``init_from: ppo:<its last.mazzo.zip>``, ``seed: stage + 1``, in ``<runs>/<game>/stage<N>/``), whose
growth panel is alone among copies of that checkpoint instead of the shipped agent.

The PIMC panel's deals (``--seed 1``) are the first ones of the shipped agents' own PIMC measurement
(``agents/pretrained/README.md``): the same deals, so the two figures compare directly.

    python benchmarks/finetune.py --games briscola5 --pimc-deals 100     # trains if no run is there, then measures
    python benchmarks/finetune.py --games picchetto --pimc-deals 200 --stage 2   # 30M steps more: 90M in all
    python benchmarks/finetune.py --report-only
"""

from __future__ import annotations

import argparse
import hashlib
import json
import subprocess
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT / "benchmarks"))

from learning import (  # noqa: E402
    GAMES,
    PIMC_PANEL,
    _counts_roles,
    _made,
    _meta,
    _pct,
    aec_panel,
    batched_panel,
    flags_of,
    fmt,
    saver,
    set_argv,
    shipped,
    shown,
    study_args,
)

STEPS = [10_000_000, 20_000_000, 30_000_000]  # configs/<game>/learning_finetune.yaml's checkpoint_at


def stage_folder(runs: Path, game: str, stage: int) -> Path:
    """Where a stage's run lives: ``<runs>/<game>`` (stage 1), ``<runs>/<game>/stage<N>``."""
    return runs / game if stage == 1 else runs / game / f"stage{stage}"


def finished(where: Path, game: str) -> Path | None:
    """The latest finished run in ``where``, if any."""
    done = sorted((f for f in where.glob(f"{game}__*") if (f / "final_eval.json").is_file()),
                  key=lambda p: p.stat().st_mtime)
    return done[-1] if done else None


def run_folder(where: Path, game: str, extra: list[str] = ()) -> Path:
    """The fine-tune run in ``where`` (trained here if none has finished)."""
    done = finished(where, game)
    if done is not None:
        return done
    argv = ["--config", f"configs/{game}/learning_finetune.yaml", "--runs_dir", str(where), *extra]
    print(f"training: python -m train {' '.join(argv)}", flush=True)
    subprocess.run([sys.executable, "-m", "train", *argv, "--progress", "false"], cwd=ROOT, check=True)
    return run_folder(where, game)


def steps_before(runs: Path, game: str, stage: int, start: Path | None = None) -> int | None:
    """Learner steps in all at the start of ``stage``: the shipped agent's, plus each earlier stage's last checkpoint's
    (a fine-tune's checkpoints count its own steps); None from another ``start`` (not counted)."""
    from agents.checkpoint import read_metadata

    if start is not None:
        return None
    total = int(read_metadata(shipped(game))["num_timesteps"])
    for earlier in range(1, stage):
        total += int(read_metadata(finished(stage_folder(runs, game, earlier), game) / "last.mazzo.zip")["num_timesteps"])
    return total


def measure(args: argparse.Namespace, game: str, entry: dict, save) -> None:
    """The panels each checkpoint has not faced yet (saved as they come)."""
    from agents.checkpoint import read_metadata

    start, from_start, from_stage = shipped(game), [], []  # the config's keys, in the order that wins (the last)
    if args.start is not None:  # another checkpoint, of its own shape
        start, net = args.start, read_metadata(args.start)["network"]
        from_start = [f"init_from=ppo:{shown(start)}", f"net_arch={list(net['pi'])}", f"activation={net['activation']}"]
    if args.stage > 1:  # from the previous stage's last checkpoint
        where = stage_folder(args.runs, game, args.stage - 1)
        previous = finished(where, game)
        if previous is None:
            raise SystemExit(f"error: stage {args.stage} starts from stage {args.stage - 1}'s run, and there is none "
                             f"in {where}: run --stage {args.stage - 1} first")
        start = previous / "last.mazzo.zip"
        from_stage = [f"init_from=ppo:{shown(start)}", f"seed={args.stage + 1}", f"exp_name=finetune{args.stage}_oracle"]
    extra = set_argv([*from_start, *from_stage, *args.set])
    folder = run_folder(stage_folder(args.runs, game, args.stage), game, extra)
    entry["run"], entry["start"] = shown(folder), shown(start)
    entry["wall_s"] = json.loads((folder / "final_eval.json").read_text()).get("timing", {}).get("wall_time", 0.0)
    entry["start_steps"] = steps_before(args.runs, game, args.stage, args.start)
    started = read_metadata(folder / "last.mazzo.zip").get("init_from", {}).get("sha256")
    if started is not None and started != hashlib.sha256(start.read_bytes()).hexdigest():
        raise SystemExit(f"error: {folder} started from another checkpoint than today's {start} (the start "
                         "changed since): its growth panel would compare with the wrong agent")
    for steps in args.steps:
        ckpt = folder / "checkpoints" / f"step_{steps}.mazzo.zip"
        flags = flags_of(game, ckpt)
        point = entry["points"].setdefault(str(steps), {})
        if "heuristic" not in point:
            point["heuristic"] = batched_panel(game, flags, ckpt, "heuristic", args.heuristic_deals, args.seed)
            save()
        if "growth" not in point:
            point["growth"] = batched_panel(game, flags, ckpt, f"ppo:{start}", args.heuristic_deals, args.seed)
            save()
        print(f"{game} +{steps:,}: vs heuristic {point['heuristic']['mean']:+.3f}, vs the start "
              f"{point['growth']['mean']:+.3f}", flush=True)
    last = entry["points"][str(args.steps[-1])]
    ckpt = folder / "checkpoints" / f"step_{args.steps[-1]}.mazzo.zip"
    if args.pimc_deals and "pimc" not in last:
        last["pimc"] = aec_panel(game, flags_of(game, ckpt), ckpt, PIMC_PANEL, args.pimc_deals, args.seed,
                                 args.workers)
        print(f"{game} +{args.steps[-1]:,}: vs PIMC {last['pimc']['margin']['mean']:+.3f}", flush=True)
        save()
    if args.roles_deals and _counts_roles(game) and "roles" not in last:
        last["roles"] = aec_panel(game, flags_of(game, ckpt), ckpt, "heuristic", args.roles_deals, args.seed,
                                  args.workers)
        save()


def report(results: dict, out: Path) -> None:
    lines = ["# Past the scaling study: the shipped agents trained further", "",
             "Definitions: `benchmarks/finetune.py`'s docstring; the analysis: `docs/results/learning.md`. Margins "
             "per hand with their 95% intervals, bold where the interval excludes 0. \"vs the start\": alone among "
             "copies of the agent it started from (stage 1: the shipped 30M-step agent, or the checkpoint `--start` "
             "names; a later stage: the previous stage's last checkpoint), on the same deals. PIMC is "
             f"`{PIMC_PANEL}`: PIMC at the defaults it had before learned networks played its playouts.", ""]
    for game in (g for g in GAMES if g in results):
        stages = [("", results[game])] + [(f", stage {k}", e) for k, e in sorted(
            results[game].get("stages", {}).items(), key=lambda kv: int(kv[0]))]
        for title, entry in stages:
            m = entry["meta"]
            before = entry["start_steps"]
            lines += [f"## {game}{title}", "", f"Run `{entry['run']}` ({entry['wall_s'] / 60:.1f} min of wall time), "
                      f"started from `{entry.get('start', f'pretrained:{game}')}` "
                      f"({'steps not counted' if before is None else f'{before:,} steps'}); "
                      f"measured by `{m['command']}` (commit {m['commit']}, started {m['when']}; {m['machine']}; "
                      f"{m['versions']}).", "",
                      "| learner steps (in all) | vs heuristic | vs the start | deals | vs PIMC | deals | caller "
                      "(vs heuristic) | contracts made (vs heuristic) |", "|---|---|---|---|---|---|---|---|"]
            for steps, p in sorted(entry["points"].items(), key=lambda kv: int(kv[0])):
                pimc, roles = p.get("pimc", {}), p.get("roles", {})
                in_all = "" if before is None else f" ({before + int(steps):,})"
                lines.append(f"| +{int(steps):,}{in_all} | {fmt(p.get('heuristic'))} | "
                             f"{fmt(p.get('growth'))} | {p.get('heuristic', {}).get('n_deals', '-')} | "
                             f"{fmt(pimc.get('margin'))} | {pimc.get('n_deals', '-')} | {_pct(roles.get('caller'))} | "
                             f"{_made(roles)} |")
            lines.append("")
    out.write_text("\n".join(lines))


def main(argv: list[str] | None = None) -> None:
    argv = list(sys.argv[1:] if argv is None else argv)
    p = argparse.ArgumentParser(description=__doc__.split("\n\n")[0], formatter_class=argparse.RawDescriptionHelpFormatter)
    p.add_argument("--games", nargs="+", default=list(GAMES), choices=GAMES)
    p.add_argument("--heuristic-deals", type=int, default=2000)
    p.add_argument("--pimc-deals", type=int, default=100)
    p.add_argument("--roles-deals", type=int, default=200)
    study_args(p, "finetune")
    p.add_argument("--steps", nargs="+", type=int, default=STEPS,
                   help="the fine-tune's checkpoints to measure (its config's checkpoint_at); PIMC and roles: the last")
    p.add_argument("--set", nargs="*", default=[], metavar="KEY=VALUE",
                   help="more config keys for a new fine-tune run (a smaller one; not for published figures)")
    p.add_argument("--stage", type=int, default=1,
                   help="1: from the shipped agent; N > 1: from stage N-1's last checkpoint (that run must exist)")
    p.add_argument("--start", type=Path, default=None,
                   help="fine-tune this checkpoint (its own net_arch and activation) instead of the shipped agent")
    p.add_argument("--report-only", action="store_true")
    args = p.parse_args(argv)
    if args.stage < 1:
        p.error(f"--stage must be 1 or more, got {args.stage}")
    if args.start is not None and not args.start.is_file():
        p.error(f"--start {args.start}: no such checkpoint")
    results = json.loads(args.json.read_text()) if args.json.is_file() else {}

    save = saver(args.json, args.games, results)

    if not args.report_only:
        for game in args.games:
            entry = results.setdefault(game, {"points": {}})
            if args.stage > 1:
                entry = entry.setdefault("stages", {}).setdefault(str(args.stage), {"points": {}})
            entry["meta"] = _meta(argv, "finetune.py")
            measure(args, game, entry, save)
            save()
    report(results, args.out)
    print(f"wrote {args.out}")


if __name__ == "__main__":
    main()
