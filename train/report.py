"""The end-of-run report of ``train/ppo.py``: ``report.md`` and ``learning_curve.png``.

| input (in the run directory) | used for                                                     |
|------------------------------|--------------------------------------------------------------|
| ``eval.csv``                 | the learning curve: mean reward vs steps per eval opponent, with its 95% CI band |
| ``metrics.csv``              | the training-return curve (the opponents of training)        |
| ``final_eval.json``          | the final table and the reference lines: the heuristic's and the random player's level in the learner's seat |

Also usable on a finished run: ``python -m train.report runs/<run>`` rewrites both files.
"""

from __future__ import annotations

import csv
import json
import sys
from pathlib import Path
from typing import Any

import yaml

__all__ = ["write_report", "plot_learning_curve", "final_table"]


def _read_csv(path: Path) -> list[dict[str, Any]]:
    if not path.exists():
        return []
    out = []
    with path.open() as f:
        for r in csv.DictReader(f):
            row: dict[str, Any] = {}
            for k, v in r.items():
                try:
                    row[k] = float(v)
                except (TypeError, ValueError):
                    row[k] = v
            out.append(row)
    return out


def _fmt(mean: float | None, low: float | None = None, high: float | None = None) -> str:
    if mean is None:
        return "n/a"
    if low is None or high is None:
        return f"{mean:+.3f}"
    return f"{mean:+.3f} [{low:+.3f}, {high:+.3f}]"


def _verdict(row: dict[str, Any]) -> str:
    """Where the trained agent stands against the heuristic's level in the same seat, from the intervals."""
    if row.get("heuristic_mean") is None:
        return ""
    if row["low"] > row["heuristic_high"]:
        return "above the heuristic"
    if row["high"] < row["heuristic_low"]:
        return "below the heuristic"
    return "level with the heuristic (intervals overlap)"


def final_table(final: dict[str, Any]) -> str:
    """Markdown table of the final evaluation (mean reward per episode, 95% CI over deals)."""
    refs = any("heuristic_mean" in r for r in final["rows"])
    head = "| opponents at the other seats | trained agent | deals |"
    sep = "|---|---|---|"
    if refs:
        head += " heuristic in its seat | random in its seat | trained vs heuristic |"
        sep += "---|---|---|"
    lines = [head, sep]
    for r in final["rows"]:
        line = f"| {r['opponent']} | {_fmt(r['mean'], r['low'], r['high'])} | {int(r['n_deals'])} |"
        if refs:
            line += (f" {_fmt(r.get('heuristic_mean'), r.get('heuristic_low'), r.get('heuristic_high'))} |"
                     f" {_fmt(r.get('random_mean'), r.get('random_low'), r.get('random_high'))} | {_verdict(r)} |")
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
        ax.fill_between(x, [r["low"] for r in rows], [r["high"] for r in rows], color="C0", alpha=0.2,
                        label="95% CI")
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
        f"* steps: {int(last.get('step', 0))}, training episodes: {int(last.get('episodes', 0))}, "
        f"wall time of the last segment: {last.get('time', 0):.0f} s",
        f"* training opponents: `{config['opponents']}`" + (", self-play snapshots" if config.get("selfplay") else ""),
        f"* best checkpoint: `best.zip` (step {final.get('best_step')}), last: `last.zip`",
        "",
        f"## Final evaluation of best.zip ({int(final['rows'][0]['n_deals']) if final['rows'] else 0} fresh deals)",
        "",
        "Mean reward per episode of the seat, with its 95% confidence interval over deals; every deal is",
        "replayed with the player at each seat in turn (duplicate), the named opponents at the other seats.",
        "The reference columns put the heuristic or the random player in the same seat on the same deals.",
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
        f'agent = make_agent("ppo:{run_dir / "best.zip"}", "{config["game"]}")',
        "```",
        "",
        "## Config",
        "",
        "```yaml",
        yaml.safe_dump(config, sort_keys=False).rstrip(),
        "```",
        "",
    ]
    path = run_dir / "report.md"
    path.write_text("\n".join(lines))
    return path


if __name__ == "__main__":
    _dir = Path(sys.argv[1])
    _final = json.loads((_dir / "final_eval.json").read_text())
    print(write_report(_dir, yaml.safe_load((_dir / "config.yaml").read_text()), _final).read_text())
