"""``EvalResult``: the numbers of one evaluation, as a table, JSON, CSV and a PNG chart.

It keeps the per-deal counters (``deal_counts[deal, entry, counter]``, see
``envs.core.figures``) and derives every figure from them with the deal as the unit:

| row key              | value                                                          |
|----------------------|----------------------------------------------------------------|
| ``player``, ``spec`` | the line-up entry's label (``random#2`` for repeated specs) and spec |
| ``reward_per_episode`` | mean episode return, 95% t interval over per-deal means     |
| ``reward_per_hand``  | total reward / total hands, delta-method 95% interval          |
| ``win``, ``draw``, ``lose`` | rates over the decided episodes (None where undefined)  |
| ``rate_intervals``   | ``{"win"|"draw"|"lose": interval dict}``: Wilson 95% intervals of those rates (None where undefined) |
| ``figures``          | the game's figures (name -> interval dict; Wilson for the proportions) |
| ``episodes``, ``hands``, ``decided`` | totals                                         |
"""

from __future__ import annotations

import csv
import json
import math
from collections import Counter
from pathlib import Path
from typing import Any

import numpy as np

from envs.core.figures import Figure
from train.evaluation.stats import Interval, proportion_ci, ratio_ci

__all__ = ["EvalResult", "player_labels"]


def player_labels(names: list[str]) -> list[str]:
    """Unique labels: a name used once stays; repeated ones become ``name#1``, ``name#2`` ..."""
    counts = Counter(names)
    seen: Counter[str] = Counter()
    out = []
    for name in names:
        if counts[name] == 1:
            out.append(name)
        else:
            seen[name] += 1
            out.append(f"{name}#{seen[name]}")
    return out


def _num(x: float) -> float | None:
    return None if x is None or (isinstance(x, float) and math.isnan(x)) else float(x)


def _idict(iv: Interval) -> dict[str, Any]:
    return {k: _num(v) if k != "n" else v for k, v in iv.to_dict().items()}


class EvalResult:
    """Per-deal counters of an evaluation plus the settings that produced them."""

    def __init__(self, *, game: str, specs: list[str], flags: dict[str, Any], seed: int, num_deals: int,
                 duplicate: bool, seating: str, seatings_per_deal: int, counters: tuple[str, ...],
                 figures: tuple[Figure, ...], deal_counts: np.ndarray, command: str | None = None,
                 proportions: frozenset[str] | set[str] = frozenset()):
        self.game = game
        self.specs = list(specs)
        self.labels = player_labels(self.specs)
        self.flags = dict(flags)
        self.seed = seed
        self.num_deals = num_deals
        self.duplicate = duplicate
        self.seating = seating
        self.seatings_per_deal = seatings_per_deal
        self.counters = tuple(counters)
        self.figures = tuple(figures)
        self.proportions = frozenset(proportions)  # figures with Wilson intervals (shares, inside [0, 1])
        self.deal_counts = deal_counts
        self.command = command
        self._ix = {c: i for i, c in enumerate(self.counters)}
        self._table: list[dict[str, Any]] | None = None

    # -- statistics ---------------------------------------------------------------------
    def column(self, entry: int, counter: str) -> np.ndarray:
        """Per-deal values of one counter for one line-up entry."""
        return self.deal_counts[:, entry, self._ix[counter]]

    def interval(self, entry: int, num: str, den: str, proportion: bool = False) -> Interval:
        """``sum(num) / sum(den)`` over deals: Wilson (inside [0, 1]) for a proportion, else delta method."""
        ci = proportion_ci if proportion else ratio_ci
        return ci(self.column(entry, num), self.column(entry, den))

    def rate_interval(self, entry: int, outcome: str) -> Interval:
        """Share of the decided episodes with this outcome (``win``, ``draw``, ``lose``), Wilson interval."""
        return self.interval(entry, outcome, "decided", proportion=True)

    def reward_per_episode(self, entry: int) -> Interval:
        return self.interval(entry, "reward", "episodes")

    def reward_per_hand(self, entry: int) -> Interval:
        return self.interval(entry, "reward", "hands")

    def per_deal_means(self, entry: int) -> np.ndarray:
        """Mean episode reward of an entry on each deal (the unit of the intervals)."""
        return self.column(entry, "reward") / self.column(entry, "episodes")

    @property
    def table(self) -> list[dict[str, Any]]:
        """One dict per line-up entry (see the module docstring)."""
        if self._table is None:
            rows = []
            for i, (label, spec) in enumerate(zip(self.labels, self.specs, strict=True)):
                decided = float(self.column(i, "decided").sum())
                rates = {k: (float(self.column(i, k).sum()) / decided if decided else None)
                         for k in ("win", "draw", "lose")}
                rate_intervals = {k: (_idict(self.rate_interval(i, k)) if decided else None)
                                  for k in ("win", "draw", "lose")}
                rows.append({
                    "player": label,
                    "spec": spec,
                    "reward_per_episode": _idict(self.reward_per_episode(i)),
                    "reward_per_hand": _idict(self.reward_per_hand(i)),
                    **rates,
                    "rate_intervals": rate_intervals,
                    "figures": {name: _idict(self.interval(i, num, den, name in self.proportions))
                                for name, num, den, _ in self.figures},
                    "episodes": int(self.column(i, "episodes").sum()),
                    "hands": int(self.column(i, "hands").sum()),
                    "decided": int(decided),
                })
            self._table = rows
        return self._table

    @property
    def config(self) -> dict[str, Any]:
        return {
            "game": self.game, "players": self.specs, "flags": self.flags, "seed": self.seed,
            "num_deals": self.num_deals, "duplicate": self.duplicate, "seating": self.seating,
            "seatings_per_deal": self.seatings_per_deal,
            "episodes": int(self.deal_counts[:, 0, self._ix["episodes"]].sum()),
            "command": self.command,
        }

    # -- output -------------------------------------------------------------------------
    def to_dict(self, per_deal: bool = True) -> dict[str, Any]:
        out: dict[str, Any] = {
            "config": self.config,
            "players": self.table,
            "figures": {name: {"numerator": num, "denominator": den, "meaning": meaning}
                        for name, num, den, meaning in self.figures},
            "interval": "95% Student-t over deals; per-hand and figures: ratio of sums, delta method; "
                        "rates and proportion figures: Wilson score with the deals' effective sample size",
            "proportions": sorted(self.proportions),
        }
        if per_deal:
            out["per_deal_reward_per_episode"] = {
                label: [float(x) for x in self.per_deal_means(i)] for i, label in enumerate(self.labels)
            }
        return out

    def to_json(self, path: str | Path, per_deal: bool = True) -> Path:
        path = Path(path)
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(json.dumps(self.to_dict(per_deal), indent=2, default=str) + "\n")
        return path

    def to_csv(self, path: str | Path) -> Path:
        """One row per player: every interval as ``_mean/_low/_high/_ci95`` columns."""
        path = Path(path)
        path.parent.mkdir(parents=True, exist_ok=True)
        rows = []
        for r in self.table:
            flat: dict[str, Any] = {"game": self.game, "player": r["player"], "spec": r["spec"],
                                    "num_deals": self.num_deals, "duplicate": self.duplicate, "seed": self.seed,
                                    "episodes": r["episodes"], "hands": r["hands"]}
            for key in ("reward_per_episode", "reward_per_hand"):
                for k in ("mean", "low", "high", "ci95"):
                    flat[f"{key}_{k}"] = r[key][k]
            for k in ("win", "draw", "lose"):
                flat[f"{k}_rate"] = r[k]
                iv = r["rate_intervals"][k] or {}
                flat[f"{k}_low"], flat[f"{k}_high"] = iv.get("low"), iv.get("high")
            for name, iv in r["figures"].items():
                for k in ("mean", "low", "high"):
                    flat[f"{name}_{k}"] = iv[k]
            rows.append(flat)
        with path.open("w", newline="") as f:
            writer = csv.DictWriter(f, fieldnames=list(rows[0]))
            writer.writeheader()
            writer.writerows(rows)
        return path

    def plot(self, path: str | Path) -> Path:
        """A PNG: mean reward per episode and per hand of every player, with 95% intervals."""
        import matplotlib

        matplotlib.use("Agg")
        import matplotlib.pyplot as plt

        path = Path(path)
        path.parent.mkdir(parents=True, exist_ok=True)
        n = len(self.labels)
        fig, axes = plt.subplots(1, 2, figsize=(10, 1.2 + 0.45 * n), sharey=True)
        y = np.arange(n)[::-1]
        for ax, key, title in zip(axes, ("reward_per_episode", "reward_per_hand"),
                                  ("reward per episode", "reward per hand"), strict=True):
            means = [r[key]["mean"] for r in self.table]
            errs = [r[key]["ci95"] or 0.0 for r in self.table]
            colors = ["tab:blue" if (m or 0) >= 0 else "tab:red" for m in means]
            ax.barh(y, means, xerr=errs, color=colors, alpha=0.8, capsize=4)
            ax.axvline(0.0, color="black", linewidth=0.8)
            ax.set_title(f"{title} (95% CI)")
        axes[0].set_yticks(y, self.labels)
        mode = "duplicate" if self.duplicate else "plain"
        fig.suptitle(f"{self.game}: {self.num_deals} deals, {mode}, seed {self.seed}")
        fig.tight_layout()
        fig.savefig(path, dpi=110)
        plt.close(fig)
        return path

    def save(self, out_dir: str | Path, stem: str = "eval") -> dict[str, Path]:
        """JSON, CSV and PNG into ``out_dir``."""
        out = Path(out_dir)
        return {"json": self.to_json(out / f"{stem}.json"), "csv": self.to_csv(out / f"{stem}.csv"),
                "png": self.plot(out / f"{stem}.png")}

    def __str__(self) -> str:
        mode = f"duplicate ({self.seatings_per_deal} seatings per deal, {self.seating})" if self.duplicate else "plain"
        lines = [f"{self.game}: {self.num_deals} deals, {mode}, {self.config['episodes']} episodes, "
                 f"seed {self.seed}, flags {self.flags or '{}'}"]
        width = max(8, *(len(lab) for lab in self.labels))

        def fmt(iv: dict[str, Any]) -> str:
            if iv["mean"] is None:
                return "n/a"
            if iv["low"] is None:  # one deal: no interval
                return f"{iv['mean']:+.3f} [n/a]"
            return f"{iv['mean']:+.3f} [{iv['low']:+.3f}, {iv['high']:+.3f}]"

        def cell(name: str, iv: dict[str, Any]) -> str:
            if iv["mean"] is None:
                return "n/a"
            if iv["low"] is None:
                return f"{iv['mean']:.3f} [n/a]" if name in self.proportions else f"{iv['mean']:.3f} ±n/a"
            if name in self.proportions:  # Wilson: not symmetric around the mean
                return f"{iv['mean']:.3f} [{iv['low']:.3f}, {iv['high']:.3f}]"
            return f"{iv['mean']:.3f} ±{iv['ci95']:.3f}"

        def rate(x: float | None) -> str:
            return "  -  " if x is None else f"{x:.3f}"

        head = f"{'player':<{width}}  {'reward/episode [95% CI]':<28}  {'reward/hand [95% CI]':<28}  win    draw   lose"
        lines += [head, "-" * len(head)]
        for r in self.table:
            lines.append(f"{r['player']:<{width}}  {fmt(r['reward_per_episode']):<28}  {fmt(r['reward_per_hand']):<28}  "
                         f"{rate(r['win'])}  {rate(r['draw'])}  {rate(r['lose'])}")
        if self.figures:
            fwidth = max(len(f[0]) for f in self.figures)
            col = max(20 if self.proportions else 14, width)
            lines += ["", f"{'figure':<{fwidth}}  " + "  ".join(f"{lab:>{col}}" for lab in self.labels)]
            for name, *_ in self.figures:
                cells = [cell(name, r["figures"][name]) for r in self.table]
                lines.append(f"{name:<{fwidth}}  " + "  ".join(f"{c:>{col}}" for c in cells))
        return "\n".join(lines)
