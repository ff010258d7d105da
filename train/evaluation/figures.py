"""What the evaluator counts in each game: hands, win/draw/lose and game-specific figures.

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

Outcomes, per game:

| game      | win / draw / lose                                                         |
|-----------|---------------------------------------------------------------------------|
| briscola5 | sign of the seat's classifica (``totals``): > 0, = 0 (void hands), < 0   |
| pigugnin  | ``result["outcome"]`` per seat (an annulled game counts as a draw, as ``outcome_reward`` pays it); undecided in a hand episode that does not end the game |
| picchetto | the match winner, else the winner of the last finished game; undecided in a hand episode that ends no game (no draws exist) |

Game figures: see ``FIGURES`` of each scorer (name, numerator, denominator, meaning). The
figures named in a scorer's ``PROPORTIONS`` (and the win/draw/lose rates) are shares (the
numerator counts a subset of the denominator), so their intervals are Wilson intervals
(``train.evaluation.stats.proportion_ci``) and stay inside [0, 1]; the others are ratios (delta method).
"""

from __future__ import annotations

from typing import Any

from envs.briscola5.game import BID_IDS, bid_value

__all__ = ["COMMON", "Figure", "GameScorer", "Briscola5Scorer", "PigugninScorer", "PicchettoScorer"]

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


class Briscola5Scorer(GameScorer):
    """Roles and contracts: caller (contract made), partner, defender; bids in the auction."""

    game = "briscola5"
    EXTRA = ("played", "card_points", "caller", "made", "contract", "solo", "partner", "partner_won",
             "defender", "defender_won", "bids", "bid_sum")
    FIGURES = (
        ("caller_rate", "caller", "hands", "share of hands as caller"),
        ("contract_made", "made", "caller", "contracts made / contracts called"),
        ("mean_contract", "contract", "caller", "mean contract (winning bid) when caller"),
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
                    row[ix["solo"]] += bool(h["solo"])
                elif seat == partner:
                    row[ix["partner"]] += 1
                    row[ix["partner_won"]] += won
                else:
                    row[ix["defender"]] += 1
                    row[ix["defender_won"]] += not won


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
