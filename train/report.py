"""The end-of-run report of every trainer: ``report.md`` and ``learning_curve.png``.

| input (in the run directory) | used for                                                     |
|------------------------------|--------------------------------------------------------------|
| ``eval.csv``                 | the learning curve: mean reward vs steps per eval opponent, with its 95% CI band |
| ``metrics.csv``              | the training-return curve (the opponents of training)        |
| ``final_eval.json``          | the final table and the reference lines: the heuristic's and the random player's level in the learner's seat; what the trainer says of its files (``checkpoints``) and of its opponents (``opponents``, if not the config's) |

On finished runs:

    python -m train.report runs/<run>                      # rewrite report.md and learning_curve.png
    python -m train.report --table runs/<run1> runs/<run2>  # the results table of several runs (markdown)
"""

from __future__ import annotations

import csv
import json
import math
from pathlib import Path
from typing import Any

import yaml

__all__ = ["write_report", "plot_learning_curve", "final_table", "results_table", "CONFIG_HEADING"]

CONFIG_HEADING = "## Config"


def _read_csv(path: Path) -> list[dict[str, Any]]:
    if not path.exists():
        return []
    out = []
    with path.open() as f:
        for r in csv.DictReader(f):
            row: dict[str, Any] = {}
            for k, v in r.items():
                if v in ("", "None", "nan"):  # an empty cell: no interval (one deal) or no value
                    row[k] = None
                    continue
                try:
                    row[k] = float(v)
                except (TypeError, ValueError):
                    row[k] = v
            out.append(row)
    return out


def _missing(x: Any) -> bool:
    return x is None or x == "" or (isinstance(x, float) and math.isnan(x))


def _nan(x: Any) -> float:
    return math.nan if _missing(x) else float(x)


def _fmt(mean: float | None, low: float | None = None, high: float | None = None, interval: bool = True) -> str:
    """``mean [low, high]``; ``n/a`` for what is missing (one deal has a mean but no interval)."""
    if _missing(mean):
        return "n/a"
    if not interval:
        return f"{mean:+.3f}"
    if _missing(low) or _missing(high):
        return f"{mean:+.3f} [n/a]"
    return f"{mean:+.3f} [{low:+.3f}, {high:+.3f}]"


def _verdict(row: dict[str, Any], ref: str = "heuristic") -> str:
    """Where the trained agent stands against ``ref``'s level in the same seat, from the 95% intervals."""
    if _missing(row.get(f"{ref}_mean")):
        return ""
    if any(_missing(row.get(k)) for k in ("low", "high", f"{ref}_low", f"{ref}_high")):
        return "n/a (no interval)"
    if row["low"] > row[f"{ref}_high"]:
        return "above"
    if row["high"] < row[f"{ref}_low"]:
        return "below"
    return "level (intervals overlap)"


def final_table(final: dict[str, Any]) -> str:
    """Markdown table of the final evaluation (mean reward per episode, 95% CI over deals)."""
    refs = any("heuristic_mean" in r for r in final["rows"])
    head = "| opponents at the other seats | trained agent | deals |"
    sep = "|---|---|---|"
    if refs:
        head += " heuristic in its seat | random in its seat | trained vs heuristic | trained vs random |"
        sep += "---|---|---|---|"
    lines = [head, sep]
    for r in final["rows"]:
        line = f"| {r['opponent']} | {_fmt(r['mean'], r['low'], r['high'])} | {int(r['n_deals'])} |"
        if refs:
            line += (f" {_fmt(r.get('heuristic_mean'), r.get('heuristic_low'), r.get('heuristic_high'))} |"
                     f" {_fmt(r.get('random_mean'), r.get('random_low'), r.get('random_high'))} | {_verdict(r)} |"
                     f" {_verdict(r, 'random')} |")
        lines.append(line)
    return "\n".join(lines)


def plot_learning_curve(run_dir: Path, final: dict[str, Any] | None = None) -> Path:
    """``learning_curve.png``: one panel per eval opponent plus the training return."""
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    evals = _read_csv(run_dir / "eval.csv")
    metrics = _read_csv(run_dir / "metrics.csv")
    opponents = list(dict.fromkeys(r["opponent"] for r in evals))
    refs = {r["opponent"]: r for r in (final or {}).get("rows", [])}
    fig, axes = plt.subplots(1, len(opponents) + 1, figsize=(5 * (len(opponents) + 1), 4), squeeze=False)
    for ax, opp in zip(axes[0], opponents, strict=False):
        rows = sorted((r for r in evals if r["opponent"] == opp), key=lambda r: r["step"])
        x = [r["step"] for r in rows]
        ax.plot(x, [r["mean"] for r in rows], marker="o", color="C0", label="trained agent (greedy)")
        ax.fill_between(x, [_nan(r["low"]) for r in rows], [_nan(r["high"]) for r in rows], color="C0", alpha=0.2,
                        label="95% CI")  # no band where there is no interval (one deal)
        ref = refs.get(opp, {})
        for name, color in (("heuristic", "C2"), ("random", "C3")):
            if ref.get(f"{name}_mean") is not None:
                ax.axhline(ref[f"{name}_mean"], color=color, linestyle="--", label=f"{name} in the same seat")
        ax.set_title(f"vs {opp} opponents")
        ax.set_xlabel("training steps")
        ax.set_ylabel("mean reward per episode")
        ax.grid(alpha=0.3)
        ax.legend(fontsize=8)
    ax = axes[0][-1]
    rows = [r for r in metrics if isinstance(r.get("ep_return_mean"), float)]
    ax.plot([r["step"] for r in rows], [r["ep_return_mean"] for r in rows], color="C1")
    ax.set_title("training return (last 100 episodes)")
    ax.set_xlabel("training steps")
    ax.set_ylabel("mean episode return")
    ax.grid(alpha=0.3)
    fig.suptitle(run_dir.name)
    fig.tight_layout()
    path = run_dir / "learning_curve.png"
    fig.savefig(path, dpi=90)
    plt.close(fig)
    return path


def _imitation_line(run_dir: Path) -> list[str]:
    path = run_dir / "imitation.json"
    if not path.exists():
        return []
    s = json.loads(path.read_text())
    return [f"* warm start: imitated `{s['teacher']}` on {s['samples']} decisions of {s['episodes']} deals "
            f"(accuracy {s['accuracy']:.3f}, {s['seconds']} s), then PPO"]


def _wall_time(timing: dict[str, Any] | None, last: dict[str, Any]) -> str:
    """The wall time of training and periodic evaluations: in total and, for a resumed run, this segment's."""
    if not timing:  # a run written before timing was recorded: metrics.csv's time is cumulative
        return f"wall time (training and periodic evaluations, all segments): {last.get('time') or 0:.0f} s"
    text = f"wall time (training and periodic evaluations): {timing['wall_time']:.0f} s"
    if timing.get("resumed_from"):
        if timing.get("segments", 1) > 1:
            text += f" in total over {timing['segments']} segments"
        text += (f", of which this resumed segment (steps {timing['from_step']} to {timing['to_step']}): "
                 f"{timing['segment_time']:.0f} s; resumed from `{timing['resumed_from']}`")
    return text


def _numerics_line(n: dict[str, Any] | None) -> list[str]:
    if not n:
        return []
    if not n.get("pinned"):
        pinned = "not pinned: reproduces on this machine"
    elif n.get("mode") == "portable":
        pinned = "pinned, portable: reproduces bit for bit with the same versions on any x86-64 CPU with AVX2"
    else:  # "fast" (and runs recorded before the modes existed)
        pinned = ("pinned, fast: reproduces bit for bit with the same versions on the same CPU model; another model "
                  "may differ in the last bits (MKL picks its kernels by CPU), and sampling turns that into another run")
    return [f"* numerics: torch {n['torch']}, {n['threads']} thread(s), ATen {n['cpu_capability']}, "
            f"MKL_CBWR={n.get('mkl_cbwr')} ({pinned}); {n.get('machine', '')}"]


def write_report(run_dir: Path, config: dict[str, Any], final: dict[str, Any], command: str = "") -> Path:
    """Write ``report.md`` and ``learning_curve.png`` in ``run_dir``; returns the report's path."""
    run_dir = Path(run_dir)
    plot_learning_curve(run_dir, final)
    evals = _read_csv(run_dir / "eval.csv")
    metrics = _read_csv(run_dir / "metrics.csv")
    last = metrics[-1] if metrics else {}
    lines = [
        f"# Training report: `{run_dir.name}`",
        "",
        f"* game: **{config['game']}**, flags: `{config.get('env') or {}}`",
        f"* command: `{command}`" if command else "* command: (not recorded)",
        f"* steps: {int(last.get('step') or 0)}, training episodes: {int(last.get('episodes') or 0)}, "
        + _wall_time(final.get("timing"), last),
        *_numerics_line(final.get("numerics")),
        f"* training opponents: `{final.get('opponents') or config.get('opponents')}`"
        + (", self-play snapshots" if config.get("selfplay") and "opponents" not in final else "")
        + (f", the current policy at every seat in {config['all_seats_share']:.0%} of the games"
           if config.get("all_seats_share") else ""),
        *_imitation_line(run_dir),
        f"* best checkpoint: `best.mazzo.zip` (step {final.get('best_step')}), last: `last.mazzo.zip` (safe to play"
        + (f"; {final['checkpoints']})" if final.get("checkpoints") else ")"),
        "",
        f"## Final evaluation of {Path(final.get('checkpoint') or 'best.zip').name} "
        f"({int(final['rows'][0]['n_deals']) if final['rows'] else 0} fresh deals)",
        "",
        "Mean reward per episode of the seat, with its 95% confidence interval over deals; every deal is",
        "replayed with the player at each seat in turn (duplicate), the named opponents at the other seats.",
        "The reference columns put the heuristic or the random player in the same seat on the same deals;",
        "the verdicts compare the intervals (above / below: they do not overlap).",
        "",
        final_table(final),
        "",
        "## Learning curve",
        "",
        "![learning curve](learning_curve.png)",
        "",
        "## Periodic evaluations",
        "",
        "| step | opponents | mean [95% CI] | deals |",
        "|---|---|---|---|",
    ]
    for r in evals:
        lines.append(f"| {int(r['step'])} | {r['opponent']} | {_fmt(r['mean'], r['low'], r['high'])} | {int(r['n_deals'])} |")
    lines += [
        "",
        "## Use the trained agent",
        "",
        "```python",
        "from agents import make_agent",
        f'agent = make_agent("ppo:{run_dir / "best.mazzo.zip"}", "{config["game"]}")',
        "```",
        "",
        CONFIG_HEADING,
        "",
        "```yaml",
        yaml.safe_dump(config, sort_keys=False).rstrip(),
        "```",
        "",
    ]
    path = run_dir / "report.md"
    path.write_text("\n".join(lines))
    return path


def results_table(run_dirs: list[Path]) -> str:
    """One row per run and eval opponent: the trained agent next to the heuristic and random levels."""
    lines = ["| game | config | steps | opponents | trained agent | heuristic in its seat | random in its seat | "
             "trained vs heuristic | trained vs random | deals |", "|---|---|---|---|---|---|---|---|---|---|"]
    for d in map(Path, run_dirs):
        final = json.loads((d / "final_eval.json").read_text())
        config = yaml.safe_load((d / "config.yaml").read_text())
        flags = ", ".join(f"{k}={v}" for k, v in (config.get("env") or {}).items())
        for r in final["rows"]:
            lines.append(
                f"| {config['game']}{f' ({flags})' if flags else ''} | {config['exp_name']} | {config['total_timesteps']} "
                f"| {r['opponent']} | {_fmt(r['mean'], r['low'], r['high'])} "
                f"| {_fmt(r.get('heuristic_mean'), r.get('heuristic_low'), r.get('heuristic_high'))} "
                f"| {_fmt(r.get('random_mean'), r.get('random_low'), r.get('random_high'))} | {_verdict(r)} "
                f"| {_verdict(r, 'random')} | {int(r['n_deals'])} |")
    return "\n".join(lines)


def main(argv: list[str] | None = None) -> None:
    """`python -m train.report RUN` rewrites RUN's report.md; `--table RUN [RUN ...]` prints the results table."""
    import argparse

    parser = argparse.ArgumentParser(
        prog="python -m train.report",
        description="Write a run's report.md again from its files, or print the results table of several runs.",
    )
    parser.add_argument("runs", nargs="+", type=Path, help="run folders (runs/<game>__<exp>__<seed>__<time>)")
    parser.add_argument("--table", action="store_true", help="print the results table of every run given")
    args = parser.parse_args(argv)
    if args.table:
        print(results_table(args.runs))
        return
    for run in args.runs:
        if not (run / "final_eval.json").is_file():
            parser.error(f"{run} has no final_eval.json: is it a finished run folder?")
        final = json.loads((run / "final_eval.json").read_text())
        print(write_report(run, yaml.safe_load((run / "config.yaml").read_text()), final).read_text())


if __name__ == "__main__":
    main()
