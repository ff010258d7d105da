"""What the evaluator counts in Briscola in cinque (``GameSpec.figures``; the protocol: ``envs.core.figures``).

Outcome: the sign of the seat's classifica (``totals``): > 0 win, = 0 draw (void hands), < 0 lose.
Counters and figures: ``Briscola5Scorer.EXTRA`` and ``Briscola5Scorer.FIGURES``.
"""

from __future__ import annotations

from typing import Any

from envs.briscola5.game import BID_IDS, bid_value
from envs.core.figures import GameScorer

__all__ = ["Briscola5Scorer"]


class Briscola5Scorer(GameScorer):
    """Roles and contracts: caller (contract made), partner, defender; bids in the auction."""

    game = "briscola5"
    EXTRA = ("played", "card_points", "caller", "made", "contract", "caller_credit", "solo", "partner",
             "partner_won", "defender", "defender_won", "bids", "bid_sum")
    FIGURES = (
        ("caller_rate", "caller", "hands", "share of hands as caller"),
        ("contract_made", "made", "caller", "contracts made / contracts called"),
        ("mean_contract", "contract", "caller", "mean contract (winning bid) when caller"),
        # Whether bidding pays: the doppia/tripla multiply a made contract only (flag bid_multiplier_on_loss),
        # so a contract of 81+ pays 6 when made and costs 2 when lost and breaks even at 25% made.
        ("caller_credits", "caller_credit", "caller", "credits per contract called"),
        ("solo_rate", "solo", "caller", "solo calls (own card) / contracts called"),
        ("partner_rate", "partner", "hands", "share of hands as (non-solo) partner"),
        ("partner_won", "partner_won", "partner", "partner hands won"),
        ("defender_won", "defender_won", "defender", "defender hands won (contract beaten)"),
        ("bids_per_hand", "bids", "hands", "BID actions per hand (passes excluded)"),
        ("mean_bid", "bid_sum", "bids", "mean value of a bid"),
        ("card_points", "card_points", "played", "card points taken per played (non-void) hand"),
    )
    PROPORTIONS = frozenset({"caller_rate", "contract_made", "solo_rate", "partner_rate", "partner_won",
                             "defender_won"})
    tracks_actions = True
    # The ids of BID(v) and their values are the game's (``envs.briscola5.game``); they are the
    # same under every ``min_bid``/``max_bid`` (the flags only narrow which ids are legal).

    def on_action(self, row: list[float], action: int) -> None:
        if action in BID_IDS:
            row[self._bids] += 1
            row[self._bid_sum] += bid_value(action)

    def __init__(self) -> None:
        super().__init__()
        self._bids, self._bid_sum = self.index["bids"], self.index["bid_sum"]

    def outcomes(self, result: dict[str, Any], n: int) -> list[str | None]:
        return ["win" if t > 0 else "lose" if t < 0 else "draw" for t in result["totals"]]

    def extra(self, result: dict[str, Any], rows: list[list[float]]) -> None:
        ix = self.index
        for h in result["hands"]:
            if h.get("void") is not None or h.get("caller") is None:
                continue
            caller, partner, won = h["caller"], h["partner"], bool(h["caller_team_won"])
            for seat, row in enumerate(rows):
                row[ix["played"]] += 1
                row[ix["card_points"]] += h["points"][seat]
                if seat == caller:
                    row[ix["caller"]] += 1
                    row[ix["made"]] += won
                    row[ix["contract"]] += h["bid"]
                    row[ix["caller_credit"]] += h["credits"][seat]
                    row[ix["solo"]] += bool(h["solo"])
                elif seat == partner:
                    row[ix["partner"]] += 1
                    row[ix["partner_won"]] += won
                else:
                    row[ix["defender"]] += 1
                    row[ix["defender_won"]] += not won
