"""An OpenSkill (Plackett-Luce) leaderboard from a duplicate-deal round robin of agent specs.

For every pair of specs ``A, B`` the round robin plays, on the same ``num_deals`` deals:

| seats | line-ups                                                      |
|-------|---------------------------------------------------------------|
| 2     | ``[A, B]``                                                    |
| n > 2 | ``[A, B, ..., B]`` and ``[B, A, ..., A]`` (one against the field) |

Each line-up is an ``evaluate`` run (duplicate deals, every seat rotated). One *match* is
one line-up on one deal: each spec's score is its mean episode reward per seat over the
seatings of that deal, and ``PlackettLuce.rate`` ranks the two specs by it (equal scores
tie). Matches are rated in a fixed order (deal by deal, line-up by line-up), so the
leaderboard is identical for any number of workers. Sorted by the ordinal ``mu - 3 sigma``.

``Leaderboard.pairwise[A][B]`` is the head-to-head figure: the mean episode reward of a lone
``A`` among ``B`` s (for 2 seats: ``A`` against ``B``), with its 95% interval over deals.
"""

from __future__ import annotations

import csv
import json
import math
from collections.abc import Callable
from itertools import combinations
from pathlib import Path
from typing import Any

import numpy as np

from envs.core.errors import ConfigError
from train.evaluation.core import evaluate, num_seats, prepare
from train.evaluation.deps import pyplot, require
from train.evaluation.result import save_outputs
from train.evaluation.stats import format_interval, mean_ci

__all__ = ["Leaderboard", "round_robin", "lineups"]


def _clean(d: dict[str, Any]) -> dict[str, Any]:
    """NaN -> None, so the JSON stays valid."""
    return {k: (None if isinstance(v, float) and math.isnan(v) else v) for k, v in d.items()}


def lineups(specs: list[str], n: int) -> list[list[str]]:
    """The round robin's line-ups (see the module docstring)."""
    out = []
    for a, b in combinations(specs, 2):
        if n == 2:
            out.append([a, b])
        else:
            out.append([a] + [b] * (n - 1))
            out.append([b] + [a] * (n - 1))
    return out


class Leaderboard:
    """Ratings and head-to-head figures of a round robin."""

    def __init__(self, game: str, rows: list[dict[str, Any]], pairwise: dict[str, dict[str, dict]],
                 config: dict[str, Any]):
        self.game = game
        self.rows = rows
        self.pairwise = pairwise
        self.config = config

    def to_dict(self) -> dict[str, Any]:
        return {"config": self.config, "leaderboard": self.rows, "pairwise": self.pairwise}

    def to_json(self, path: str | Path) -> Path:
        path = Path(path)
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(json.dumps(self.to_dict(), indent=2) + "\n")
        return path

    def to_csv(self, path: str | Path) -> Path:
        path = Path(path)
        path.parent.mkdir(parents=True, exist_ok=True)
        with path.open("w", newline="") as f:
            writer = csv.DictWriter(f, fieldnames=list(self.rows[0]))
            writer.writeheader()
            writer.writerows(self.rows)
        return path

    def plot(self, path: str | Path) -> Path:
        """A PNG of each spec's ``mu`` with ``± 3 sigma``."""
        plt = pyplot()
        path = Path(path)
        path.parent.mkdir(parents=True, exist_ok=True)
        fig, ax = plt.subplots(figsize=(7, 1.2 + 0.45 * len(self.rows)))
        y = np.arange(len(self.rows))[::-1]
        ax.barh(y, [r["mu"] for r in self.rows], xerr=[3 * r["sigma"] for r in self.rows], capsize=4, alpha=0.8)
        ax.set_yticks(y, [r["spec"] for r in self.rows])
        ax.set_title(f"{self.game}: OpenSkill mu ± 3 sigma ({self.config['num_deals']} deals per line-up)")
        fig.tight_layout()
        fig.savefig(path, dpi=110)
        plt.close(fig)
        return path

    def save(self, out_dir: str | Path, stem: str = "rating", plot: bool = True) -> dict[str, Path]:
        """JSON and CSV into ``out_dir``, then the PNG (``plot``; a ``PlotWarning`` if it cannot be drawn)."""
        return save_outputs(self, out_dir, stem, plot)

    def __str__(self) -> str:
        width = max(8, *(len(r["spec"]) for r in self.rows))
        lines = [f"{self.game}: OpenSkill Plackett-Luce round robin, {self.config['num_deals']} deals per line-up, "
                 f"seed {self.config['seed']}",
                 f"{'rank':<5} {'spec':<{width}} {'ordinal':>8} {'mu':>8} {'sigma':>7} {'matches':>8} {'reward/seat':>12}"]
        for i, r in enumerate(self.rows, 1):
            lines.append(f"{i:<5} {r['spec']:<{width}} {r['ordinal']:>8.2f} {r['mu']:>8.2f} {r['sigma']:>7.3f} "
                         f"{r['matches']:>8} {r['mean_reward_per_seat']:>+12.3f}")
        specs = [r["spec"] for r in self.rows]
        lines += ["", "head to head: mean reward per episode of the row spec alone against the column spec"]
        grid = [[format_interval(self.pairwise[a][b], signed=True) if b in self.pairwise.get(a, {}) else "-"
                 for b in specs] for a in specs]
        col = max(len(c) for row in [specs, *grid] for c in row)
        lines.append(f"{'':<{width}} " + " ".join(f"{s:>{col}}" for s in specs))
        for a, cells in zip(specs, grid, strict=True):
            lines.append(f"{a:<{width}} " + " ".join(f"{c:>{col}}" for c in cells))
        lines += ["", "-      not played: a spec against a field of itself is not a match (95% intervals over deals)"]
        if any(c.endswith("[n/a]") for row in grid for c in row):
            lines.append("[n/a]  no interval: an interval over deals needs at least 2 deals")
        return "\n".join(lines)


def round_robin(game: str, specs: list[str], *, num_deals: int, seed: int = 0, flags: dict[str, Any] | None = None,
                workers: int = 1, duplicate: bool = True, progress: bool = False,
                command: str | None = None, progress_every: int | None = None,
                on_start: Callable[[], Any] | None = None) -> Leaderboard:
    """Rate ``specs`` (strings, at least two distinct) by a round robin on ``game``; ``on_start``: called once
    every line-up is checked, before the first deal."""
    require("openskill", "a rating (round_robin, --rating)")
    from openskill.models import PlackettLuce

    if isinstance(specs, str) or len(specs) < 2 or len(set(specs)) != len(specs) or \
            not all(isinstance(s, str) for s in specs):
        raise ConfigError(f"a rating needs at least two distinct agent spec strings; got {specs!r}")
    n = num_seats(game, flags)
    plan = lineups(list(specs), n)
    # Validate every spec before any game (evaluate validates again per line-up, cheaply).
    for lineup in plan:
        prepare(game, lineup, num_deals=num_deals, seed=seed, flags=flags, duplicate=duplicate, workers=workers)
    if on_start is not None:
        on_start()
    # per line-up: per-deal mean reward per seat of each spec in it
    scores: list[dict[str, np.ndarray]] = []
    for lineup in plan:
        res = evaluate(game, lineup, num_deals=num_deals, seed=seed, flags=flags, duplicate=duplicate,
                       workers=workers, progress=progress, progress_every=progress_every)
        per_spec = {}
        for spec in dict.fromkeys(lineup):
            idx = [i for i, s in enumerate(lineup) if s == spec]
            reward = sum(res.column(i, "reward") for i in idx)
            episodes = sum(res.column(i, "episodes") for i in idx)
            per_spec[spec] = reward / episodes
        scores.append(per_spec)

    model = PlackettLuce()
    ratings = {s: model.rating(name=s) for s in specs}
    matches = dict.fromkeys(specs, 0)
    totals = dict.fromkeys(specs, 0.0)
    for d in range(num_deals):
        for per_spec in scores:
            names = list(per_spec)
            values = [float(per_spec[s][d]) for s in names]
            new = model.rate([[ratings[s]] for s in names], scores=values)
            for s, team in zip(names, new, strict=True):
                ratings[s] = team[0]
                matches[s] += 1
                totals[s] += per_spec[s][d]
    rows = sorted(
        ({"spec": s, "ordinal": float(ratings[s].ordinal()), "mu": float(ratings[s].mu),
          "sigma": float(ratings[s].sigma), "matches": matches[s],
          "mean_reward_per_seat": float(totals[s] / matches[s]) if matches[s] else math.nan} for s in specs),
        key=lambda r: -r["ordinal"],
    )
    pairwise: dict[str, dict[str, dict]] = {s: {} for s in specs}
    for lineup, per_spec in zip(plan, scores, strict=True):
        a, b = lineup[0], lineup[1]
        pairwise[a][b] = _clean(mean_ci(per_spec[a]).to_dict())
        if n == 2:
            pairwise[b][a] = _clean(mean_ci(per_spec[b]).to_dict())
    config = {"game": game, "specs": list(specs), "flags": dict(flags or {}), "num_deals": num_deals, "seed": seed,
              "duplicate": duplicate, "lineups": plan, "model": "openskill PlackettLuce (default mu 25, sigma 25/3)",
              "command": command}
    return Leaderboard(game, rows, pairwise, config)
