"""What the evaluator counts in Picchetto (``GameSpec.figures``; the protocol: ``envs.core.figures``).

Outcome: the match winner, else the winner of the last finished game; undecided in a hand episode that
ends no game (no draws exist).
Counters and figures: ``PicchettoScorer.EXTRA`` and ``PicchettoScorer.FIGURES``.
"""

from __future__ import annotations

from typing import Any

from envs.core.figures import GameScorer

__all__ = ["PicchettoScorer"]


class PicchettoScorer(GameScorer):
    """Pique, repique, capot and Bianco per hand; points per hand; games won."""

    game = "picchetto"
    EXTRA = ("pique", "repique", "capot", "bianco", "points", "games", "games_won")
    FIGURES = (
        ("pique_rate", "pique", "hands", "share of hands with a pique (30) scored"),
        ("repique_rate", "repique", "hands", "share of hands with a repique (60) scored"),
        ("capot_rate", "capot", "hands", "share of hands with a capot (all 12 tricks)"),
        ("bianco_rate", "bianco", "hands", "share of hands with a Bianco (no face cards)"),
        ("points_per_hand", "points", "hands", "points scored per hand"),
        ("games_won", "games_won", "games", "finished games won"),
    )
    PROPORTIONS = frozenset({"pique_rate", "repique_rate", "capot_rate", "bianco_rate", "games_won"})
    _KINDS = ("pique", "repique", "capot", "bianco")

    def outcomes(self, result: dict[str, Any], n: int) -> list[str | None]:
        winner = result.get("match_winner")
        if winner is None:
            finished = [g["winner"] for g in result.get("games", ()) if g.get("winner") is not None]
            winner = finished[-1] if finished else None
        if winner is None:
            return [None] * n
        return ["win" if seat == winner else "lose" for seat in range(n)]

    def extra(self, result: dict[str, Any], rows: list[list[float]]) -> None:
        ix = self.index
        for h in result["hands"]:
            for kind, seat, pts in h["events"]:
                if kind in self._KINDS:
                    rows[seat][ix[kind]] += 1
                rows[seat][ix["points"]] += pts
        for g in result.get("games", ()):
            if g.get("winner") is None:
                continue
            for seat, row in enumerate(rows):
                row[ix["games"]] += 1
                row[ix["games_won"]] += g["winner"] == seat
