"""The printed table of an evaluation (``print(result)``, what ``python -m train.evaluate`` shows).

| part     | rows                                                                                |
|----------|-------------------------------------------------------------------------------------|
| rewards  | one player against a field: the margin over the field (the headline figure, marked ``*``), the player, the field summed into one row; any other line-up: every entry |
| figures  | the same columns: ``win_rate``, ``draw_rate``, ``lose_rate``, then the game's figures |
| legend   | a line for each mark the cells show: ``*`` (the margin's definition), ``n/a`` (undefined: which figures, whose, and the count that was 0), ``[n/a]`` (no interval: one deal) |

Every figure is printed ``mean [low, high]`` (``train.evaluation.stats.format_interval``), rewards and
margins with their sign.
"""

from __future__ import annotations

import textwrap
from typing import Any

from train.evaluation.stats import format_interval

__all__ = ["render_result", "MARGIN_MARK"]

MARGIN_MARK = "*"
RATES = ("win", "draw", "lose")
#: what a zero count of a common denominator means (the game's own counters are named as they are)
_ZERO = {
    "decided": "no episode ended with a winner; an episode that ends no game, such as one hand with "
               "episode=hand, has none",
    "hands": "no hand was dealt",
    "episodes": "no episode was played",
}
LEGEND_WIDTH = 110


def _legend(mark: str, text: str) -> list[str]:
    """One legend entry: the mark, then its text wrapped under itself."""
    return textwrap.wrap(text, LEGEND_WIDTH, initial_indent=f"{mark:<7}", subsequent_indent=" " * 7)


def _table(header: list[str], rows: list[list[str]]) -> list[str]:
    widths = [max(len(r[i]) for r in [header, *rows]) for i in range(len(header))]

    def line(cells: list[str]) -> str:
        return "  ".join(f"{c:<{w}}" for c, w in zip(cells, widths, strict=True)).rstrip()

    return [line(header), "-" * len(line(header)), *(line(r) for r in rows)]


def render_result(res: Any) -> str:
    """The table of an ``EvalResult`` (see the module docstring)."""
    mode = f"duplicate ({res.seatings_per_deal} seatings per deal, {res.seating})" if res.duplicate else "plain"
    deals = f"{res.num_deals} deal" + ("s" if res.num_deals != 1 else "")
    lines = [f"{res.game}: {deals}, {mode}, {res.config['episodes']} episodes, "
             f"seed {res.seed}, flags {res.flags or '{}'}"]
    shown = res.display_rows()
    one_deal = False

    def cell(iv: dict[str, Any] | None, signed: bool) -> str:
        nonlocal one_deal
        text = format_interval(iv, signed)
        one_deal |= text.endswith("[n/a]")
        return text

    body = []
    for label, row in shown:
        mark = f" {MARGIN_MARK}" if row.get("margin") else ""
        body.append([label + mark, cell(row["reward_per_episode"], True), cell(row["reward_per_hand"], True)])
    lines += [""] + _table(["player", "reward/episode [95% CI]", "reward/hand [95% CI]"], body)

    columns = [(label, row) for label, row in shown if not row.get("margin")]
    undefined: dict[str, tuple[list[str], list[str]]] = {}  # denominator -> (figures, columns) shown as n/a

    def figure_cell(name: str, den: str, label: str, iv: dict[str, Any] | None) -> str:
        text = cell(iv, False)
        if text == "n/a":
            figs, cols = undefined.setdefault(den, ([], []))
            if name not in figs:
                figs.append(name)
            if label not in cols:
                cols.append(label)
        return text

    names = [(f"{k}_rate", k, "decided") for k in RATES] + [(name, None, den) for name, _, den, _ in res.figures]
    fig_rows = []
    for name, rate, den in names:
        fig_rows.append([name] + [
            figure_cell(name, den, label, row["rate_intervals"][rate] if rate else row["figures"][name])
            for label, row in columns])
    lines += [""] + _table(["figure [95% CI]"] + [label for label, _ in columns], fig_rows)

    legend = []
    margin = res.margin
    if margin is not None:
        legend += _legend(MARGIN_MARK, f"margin over the field, the headline figure: {margin['definition']}; 95% "
                                       f"interval over the {deals}")
    if undefined:
        parts = []
        for den, (figs, cols) in undefined.items():
            whose = "every player" if len(cols) == len(columns) else ", ".join(cols)
            why = f": {_ZERO[den]}" if den in _ZERO else ""
            parts.append(f"{', '.join(figs)} for {whose} ('{den}' is 0{why})")
        legend += _legend("n/a", "undefined, the figure divides by a count that is 0 on every deal: "
                          + "; ".join(parts))
    if one_deal:
        legend += _legend("[n/a]", f"no interval: an interval over deals needs at least 2 deals (this run has "
                                   f"{res.num_deals})")
    if legend:
        lines += [""] + legend
    return "\n".join(lines)
