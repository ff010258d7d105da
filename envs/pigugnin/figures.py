"""What the evaluator counts in Pigugnìn (``GameSpec.figures``; the protocol: ``envs.core.figures``).

Outcome: ``result["outcome"]`` per seat (an annulled game counts as a draw, as ``outcome_reward`` pays it);
undecided in a hand episode that does not end the game.
Counters and figures: ``PigugninScorer.EXTRA`` and ``PigugninScorer.FIGURES``.
"""

from __future__ import annotations

from typing import Any

from envs.core.figures import GameScorer

__all__ = ["PigugninScorer"]


class PigugninScorer(GameScorer):
    """Busche, the Pigugnìn (JS), tricks and card points per hand."""

    game = "pigugnin"
    EXTRA = ("busche", "pigugnin", "tricks", "card_points", "no_trick", "cappotto")
    FIGURES = (
        ("busche_per_hand", "busche", "hands", "busche paid per hand (lower is better)"),
        ("pigugnin_taken", "pigugnin", "hands", "share of hands in which the player took the Pigugnìn (JS)"),
        ("tricks_per_hand", "tricks", "hands", "tricks taken per hand"),
        ("card_points", "card_points", "hands", "card points taken per hand (35 in all)"),
        ("no_trick_rate", "no_trick", "hands", "share of hands without a trick"),
        ("cappotto_rate", "cappotto", "hands", "share of hands taking every trick"),
    )
    PROPORTIONS = frozenset({"pigugnin_taken", "no_trick_rate", "cappotto_rate"})

    def outcomes(self, result: dict[str, Any], n: int) -> list[str | None]:
        out = result.get("outcome")
        if out is None:
            return [None] * n
        return ["draw" if o == "annulled" else o for o in out]

    def extra(self, result: dict[str, Any], rows: list[list[float]]) -> None:
        ix = self.index
        for h in result["hands"]:
            for seat, row in enumerate(rows):
                row[ix["busche"]] += h["busche_paid"][seat]
                row[ix["pigugnin"]] += h["pig_taker"] == seat
                row[ix["tricks"]] += h["tricks"][seat]
                row[ix["card_points"]] += h["points"][seat]
                row[ix["no_trick"]] += h["tricks"][seat] == 0
                row[ix["cappotto"]] += h.get("cappotto_maker") == seat
