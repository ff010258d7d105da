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

``table`` has one such row per line-up entry; ``field_row`` sums the entries of a field into one row
of the same keys (``spec`` is the field's, ``entries`` its labels).

**One player against a field** (every other entry the same spec: ``--players pimc --field heuristic``;
with two seats, the first entry against the second): ``margin`` is the headline figure, the player's
margin over the field per hand (and per episode), with its 95% interval over deals, defined as in
``benchmarks/strength.py`` and the README's strength tables: the player's reward minus what a field
player scores in the same seat on the same deals. Duplicate deals put every entry in every seat of
every deal, so that is

| rewards of each deal                     | margin per hand (a ratio over deals, delta method)             |
|------------------------------------------|----------------------------------------------------------------|
| sum to 0 (a zero-sum game: Briscola, Picchetto) | ``reward(player) / hands(player)``: a field player in the seat scores 0 by symmetry, so the margin is the player's own reward |
| do not (Pigugnìn: everyone pays busche)  | ``(reward(player) - reward(field) / (n - 1)) / hands(player)``: minus the field's mean per seat |

The JSON has the margin (``margin``: ``per_hand``, ``per_episode``, the definition, per-deal values),
the field's row (``field``) and every entry's row (``players``), so the margin can be recomputed from it.
"""

from __future__ import annotations

import csv
import json
import math
import warnings
from collections import Counter
from pathlib import Path
from typing import Any

import numpy as np

from envs.core.figures import Figure
from train.evaluation.stats import Interval, proportion_ci, ratio_ci
from train.evaluation.text import render_result

__all__ = ["EvalResult", "player_labels", "versus_field", "save_outputs", "PlotWarning"]


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


def versus_field(specs: list[str]) -> tuple[int, list[int]] | None:
    """``(player, field entries)`` when the line-up is one player against a field: every entry but one has
    the same spec (with two seats: the first entry against the second); None otherwise."""
    n = len(specs)
    if n < 2 or len(set(specs)) != 2:
        return None
    if n == 2:
        return 0, [1]
    counts = Counter(specs)
    lone = [i for i, s in enumerate(specs) if counts[s] == 1]
    if len(lone) != 1:
        return None
    return lone[0], [i for i in range(n) if i != lone[0]]


class PlotWarning(UserWarning):
    """A chart could not be drawn; the results it shows are saved all the same (JSON, CSV)."""


def save_outputs(result: Any, out_dir: str | Path, stem: str, plot: bool = True) -> dict[str, Path]:
    """``result``'s JSON and CSV, then (``plot``) its PNG, into ``out_dir``: the results are on disk before
    the chart is tried, and a chart that cannot be drawn (matplotlib missing, a broken backend) is a
    ``PlotWarning``, not a lost run. Returns the paths written."""
    out = Path(out_dir)
    paths = {"json": result.to_json(out / f"{stem}.json"), "csv": result.to_csv(out / f"{stem}.csv")}
    if plot:
        try:
            paths["png"] = result.plot(out / f"{stem}.png")
        except Exception as e:  # noqa: BLE001 (any failure to draw: the numbers are saved)
            warnings.warn(PlotWarning(f"{stem}.png was not drawn ({e}); the results are saved in "
                                      f"{paths['json']} and {paths['csv']}"), stacklevel=2)
    return paths


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
    def column(self, entry: int | list[int], counter: str) -> np.ndarray:
        """Per-deal values of one counter for one line-up entry (or summed over a list of entries)."""
        if isinstance(entry, (int, np.integer)):
            return self.deal_counts[:, entry, self._ix[counter]]
        return self.deal_counts[:, list(entry), self._ix[counter]].sum(axis=1)

    def interval(self, entry: int | list[int], num: str, den: str, proportion: bool = False) -> Interval:
        """``sum(num) / sum(den)`` over deals: Wilson (inside [0, 1]) for a proportion, else delta method."""
        ci = proportion_ci if proportion else ratio_ci
        return ci(self.column(entry, num), self.column(entry, den))

    def rate_interval(self, entry: int | list[int], outcome: str) -> Interval:
        """Share of the decided episodes with this outcome (``win``, ``draw``, ``lose``), Wilson interval."""
        return self.interval(entry, outcome, "decided", proportion=True)

    def reward_per_episode(self, entry: int | list[int]) -> Interval:
        return self.interval(entry, "reward", "episodes")

    def reward_per_hand(self, entry: int | list[int]) -> Interval:
        return self.interval(entry, "reward", "hands")

    def per_deal_means(self, entry: int) -> np.ndarray:
        """Mean episode reward of an entry on each deal (the unit of the intervals)."""
        return self.column(entry, "reward") / self.column(entry, "episodes")

    def _row(self, entry: int | list[int], label: str, spec: str) -> dict[str, Any]:
        decided = float(self.column(entry, "decided").sum())
        rates = {k: (float(self.column(entry, k).sum()) / decided if decided else None)
                 for k in ("win", "draw", "lose")}
        rate_intervals = {k: (_idict(self.rate_interval(entry, k)) if decided else None)
                          for k in ("win", "draw", "lose")}
        return {
            "player": label,
            "spec": spec,
            "reward_per_episode": _idict(self.reward_per_episode(entry)),
            "reward_per_hand": _idict(self.reward_per_hand(entry)),
            **rates,
            "rate_intervals": rate_intervals,
            "figures": {name: _idict(self.interval(entry, num, den, name in self.proportions))
                        for name, num, den, _ in self.figures},
            "episodes": int(self.column(entry, "episodes").sum()),
            "hands": int(self.column(entry, "hands").sum()),
            "decided": int(decided),
        }

    @property
    def table(self) -> list[dict[str, Any]]:
        """One dict per line-up entry (see the module docstring)."""
        if self._table is None:
            self._table = [self._row(i, label, spec)
                           for i, (label, spec) in enumerate(zip(self.labels, self.specs, strict=True))]
        return self._table

    @property
    def versus(self) -> tuple[int, list[int]] | None:
        """``(player entry, field entries)`` for one player against a field (``versus_field``), else None."""
        return versus_field(self.specs)

    @property
    def margin_label(self) -> str | None:
        """``"heuristic - field"`` (``"heuristic - random"`` for a field of one), None without a field."""
        if self.versus is None:
            return None
        player, field = self.versus
        return f"{self.labels[player]} - {self.specs[field[0]] if len(field) == 1 else 'field'}"

    @property
    def field_label(self) -> str | None:
        """``"field: 4 x random"`` (``"random"`` for a field of one), None without a field."""
        if self.versus is None:
            return None
        field = self.versus[1]
        spec = self.specs[field[0]]
        return spec if len(field) == 1 else f"field: {len(field)} x {spec}"

    @property
    def field_row(self) -> dict[str, Any] | None:
        """The field's entries summed into one row (every figure a ratio of their summed counters), with
        ``entries``: their labels; None unless one player against a field."""
        if self.versus is None:
            return None
        field = self.versus[1]
        return {**self._row(field, self.field_label, self.specs[field[0]]),
                "entries": [self.labels[i] for i in field]}

    def zero_sum(self) -> bool:
        """Whether the game is zero-sum (``GameSpec.zero_sum``: every deal's rewards sum to 0)."""
        from envs.registry import game_spec

        return game_spec(self.game).zero_sum

    def margin_numerator(self) -> np.ndarray | None:
        """Per deal: the player's reward minus what the field scores in its seats (module docstring)."""
        if self.versus is None:
            return None
        player, field = self.versus
        reward = self.column(player, "reward")
        if self.zero_sum():
            return reward
        return reward - self.column(field, "reward") / len(field)

    @property
    def margin(self) -> dict[str, Any] | None:
        """The player's margin over the field (module docstring), None unless one player against a field:
        ``player``, ``field`` (spec), ``field_entries``, ``zero_sum``, ``definition``, ``per_hand`` and
        ``per_episode`` (interval dicts)."""
        num = self.margin_numerator()
        if num is None:
            return None
        player, field = self.versus
        who, k = self.labels[player], len(field)
        if self.zero_sum():
            definition = (f"{who}'s reward per hand minus a field player's in the same seat on the same deals; the "
                          f"rewards of every deal sum to 0 (zero-sum), so a field player's expected reward in any seat "
                          f"is 0 and the margin is {who}'s own reward per hand")
        else:
            definition = (f"{who}'s reward per hand minus the mean reward per hand of the {k} field seats on the same "
                          "deals (the rewards do not sum to 0, so the field's level is measured)")
        return {
            "player": who, "field": self.specs[field[0]], "field_entries": [self.labels[i] for i in field],
            "zero_sum": self.zero_sum(), "definition": definition,
            "per_hand": _idict(ratio_ci(num, self.column(player, "hands"))),
            "per_episode": _idict(ratio_ci(num, self.column(player, "episodes"))),
            "interval": "95% Student-t over deals, ratio of sums (delta method), as benchmarks/strength.py",
        }

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
            "margin": self.margin,
            "field": self.field_row,
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
            out["per_deal_hands"] = {
                label: [float(x) for x in self.column(i, "hands")] for i, label in enumerate(self.labels)
            }
            if out["margin"] is not None:  # the numerator and denominator of the margin on each deal
                out["margin"]["per_deal"] = {"numerator": [float(x) for x in self.margin_numerator()],
                                             "hands": [float(x) for x in self.column(self.versus[0], "hands")]}
        return out

    def to_json(self, path: str | Path, per_deal: bool = True) -> Path:
        path = Path(path)
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(json.dumps(self.to_dict(per_deal), indent=2, default=str) + "\n")
        return path

    def _csv_row(self, kind: str, r: dict[str, Any]) -> dict[str, Any]:
        flat: dict[str, Any] = {"kind": kind, "game": self.game, "player": r["player"], "spec": r["spec"],
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
        return flat

    def to_csv(self, path: str | Path) -> Path:
        """One row per line-up entry (``kind`` entry): every interval as ``_mean/_low/_high/_ci95`` columns;
        for one player against a field, then the field's row (``kind`` field) and the margin's (``kind``
        margin: its ``reward_per_episode_*`` and ``reward_per_hand_*`` columns hold the margin)."""
        path = Path(path)
        path.parent.mkdir(parents=True, exist_ok=True)
        rows = [self._csv_row("entry", r) for r in self.table]
        if self.versus is not None:
            rows.append(self._csv_row("field", self.field_row))
            m = self.margin
            margin = dict.fromkeys(rows[0])
            margin.update({"kind": "margin", "game": self.game, "player": self.margin_label,
                           "spec": m["player"], "num_deals": self.num_deals, "duplicate": self.duplicate,
                           "seed": self.seed, "episodes": self.table[self.versus[0]]["episodes"],
                           "hands": self.table[self.versus[0]]["hands"]})
            for key, iv in (("reward_per_episode", m["per_episode"]), ("reward_per_hand", m["per_hand"])):
                for k in ("mean", "low", "high", "ci95"):
                    margin[f"{key}_{k}"] = iv[k]
            rows.append(margin)
        with path.open("w", newline="") as f:
            writer = csv.DictWriter(f, fieldnames=list(rows[0]))
            writer.writeheader()
            writer.writerows(rows)
        return path

    def display_rows(self) -> list[tuple[str, dict[str, Any]]]:
        """The rows of the printed table and the chart: ``(label, row)``; for one player against a field the
        margin (a row with the two reward intervals only), the player and the field; else every entry."""
        if self.versus is None:
            return [(r["player"], r) for r in self.table]
        m = self.margin
        margin = {"reward_per_episode": m["per_episode"], "reward_per_hand": m["per_hand"], "margin": True}
        return [(self.margin_label, margin), (m["player"], self.table[self.versus[0]]),
                (self.field_label, self.field_row)]

    def plot(self, path: str | Path) -> Path:
        """A PNG: mean reward per episode and per hand of every row of the table, with 95% intervals."""
        from train.evaluation.deps import pyplot  # matplotlib (an extra), only for the chart

        plt = pyplot()
        path = Path(path)
        path.parent.mkdir(parents=True, exist_ok=True)
        rows = self.display_rows()
        n = len(rows)
        fig, axes = plt.subplots(1, 2, figsize=(10, 1.2 + 0.45 * n), sharey=True)
        y = np.arange(n)[::-1]
        for ax, key, title in zip(axes, ("reward_per_episode", "reward_per_hand"),
                                  ("reward per episode", "reward per hand"), strict=True):
            means = [r[key]["mean"] or 0.0 for _, r in rows]
            errs = [r[key]["ci95"] or 0.0 for _, r in rows]
            colors = ["tab:blue" if m >= 0 else "tab:red" for m in means]
            ax.barh(y, means, xerr=errs, color=colors, alpha=0.8, capsize=4)
            ax.axvline(0.0, color="black", linewidth=0.8)
            ax.set_title(f"{title} (95% CI)")
        axes[0].set_yticks(y, [label for label, _ in rows])
        mode = "duplicate" if self.duplicate else "plain"
        fig.suptitle(f"{self.game}: {self.num_deals} deals, {mode}, seed {self.seed}")
        fig.tight_layout()
        fig.savefig(path, dpi=110)
        plt.close(fig)
        return path

    def save(self, out_dir: str | Path, stem: str = "eval", plot: bool = True) -> dict[str, Path]:
        """JSON and CSV into ``out_dir``, then the PNG (``plot``; a ``PlotWarning`` if it cannot be drawn)."""
        return save_outputs(self, out_dir, stem, plot)

    def __str__(self) -> str:
        return render_result(self)
