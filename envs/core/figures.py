"""What the evaluator counts in every game: the scorer protocol and the common counters.

Each game's scorer is ``envs/<game>/figures.py`` (``GameSpec.figures``); ``train.evaluation``
plays the episodes and calls it.

Every episode is reduced to a vector of per-seat counters (``COMMON`` first, then the
game's own); the evaluator sums them over the seatings of a deal. Figures are ratios of two
counters summed over deals (see ``train.evaluation.stats.ratio_ci``), so they all get 95% intervals.

Common counters (every game):

| counter   | meaning                                                                  |
|-----------|--------------------------------------------------------------------------|
| episodes  | episodes played by the player                                             |
| reward    | sum of the env's rewards (the episode return)                             |
| hands     | hands dealt (``len(info["result"]["hands"])``, void hands included)        |
| decided   | episodes whose outcome the game defines                                   |
| win, draw, lose | outcomes of the decided episodes                                    |

Each game's scorer says what win, draw and lose mean there (``outcomes``) and adds its own
counters (``EXTRA``) and figures (``FIGURES``: name, numerator, denominator, meaning).

The figures named in a scorer's ``PROPORTIONS`` (and the win/draw/lose rates) are shares (the
numerator counts a subset of the denominator), so their intervals are Wilson intervals
(``train.evaluation.stats.proportion_ci``) and stay inside [0, 1]; the others are ratios (delta method).
"""

from __future__ import annotations

from typing import Any

__all__ = ["COMMON", "Figure", "GameScorer"]

COMMON = ("episodes", "reward", "hands", "decided", "win", "draw", "lose")

Figure = tuple[str, str, str, str]  # (name, numerator counter, denominator counter, meaning)


class GameScorer:
    """Base scorer: common counters only. Subclasses add ``EXTRA`` counters and ``FIGURES``."""

    game = ""
    EXTRA: tuple[str, ...] = ()
    FIGURES: tuple[Figure, ...] = ()
    #: names of the FIGURES that are proportions (0 <= numerator <= denominator): Wilson intervals
    PROPORTIONS: frozenset[str] = frozenset()
    #: whether ``on_action`` must see every action (costs a call per step)
    tracks_actions = False

    def __init__(self) -> None:
        self.counters = COMMON + self.EXTRA
        self.index = {name: i for i, name in enumerate(self.counters)}

    def on_action(self, row: list[float], action: int) -> None:
        """Count an action taken by the seat whose counter row is ``row``."""

    def outcomes(self, result: dict[str, Any], n: int) -> list[str | None]:
        """Per seat ``"win"``/``"draw"``/``"lose"`` or None (undefined)."""
        return [None] * n

    def extra(self, result: dict[str, Any], rows: list[list[float]]) -> None:
        """Add the game's own counters of one finished episode to the per-seat rows."""

    def episode(self, result: dict[str, Any], returns: list[float], rows: list[list[float]]) -> None:
        """Fill the common counters of a finished episode, then the game's own."""
        ix = self.index
        hands = len(result.get("hands", ()))
        for seat, outcome in enumerate(self.outcomes(result, len(rows))):
            row = rows[seat]
            row[ix["episodes"]] += 1
            row[ix["reward"]] += returns[seat]
            row[ix["hands"]] += hands
            if outcome is not None:
                row[ix["decided"]] += 1
                row[ix[outcome]] += 1
        self.extra(result, rows)
