"""Pigugnìn, summarized for people: the scoreboard while playing, trick winners, what a hand and
an episode came to (busche, trickless players, the Pigugnìn, the outcome).

Everything here is public (played cards, trick winners, points and busche are public history,
spec §5.4). The functions are those of every game's summary module (`envs.briscola5.summary`
tables them): `TITLE`, `ABOUT`, `board`, `trick_winner`, `caution`, `hand_lines`, `summary`.

The board's columns are `busche` (the running totals), `tricks` and `points` (this hand, the
last-trick bonus included at its end); the rows of `summary` have the same three (same values
at the end), the hand's `paid`, the `outcome` once the game is decided, and the `return` last.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any

from envs.core.trick import trick_winner as _winner_index
from envs.pigugnin.game import DECK, DRAW, LOSE, STRENGTH, WIN, PigugninGame, PigugninState

__all__ = ["TITLE", "ABOUT", "board", "trick_winner", "caution", "hand_lines", "summary"]

TITLE = "Pigugnìn"
ABOUT = "4 or 5 players: take at least one trick but few card points, and not the Jack of Spade"


def _seat(p: int) -> str:
    return f"player_{p}"


def _seats(seats: Sequence[int]) -> str:
    return ", ".join(_seat(p) for p in seats)


def board(game: PigugninGame, state: PigugninState, seat: int | None, viewer: int | None = None) -> dict[str, Any]:
    """The public scoreboard and status line of the position (the same for every seat); they name every
    seat, so `viewer` (the reader's seat in every game's `board`) changes nothing here."""
    s = state
    taker = f"Pigugnìn taken by {_seat(s.pig_taker)}" if s.pig_taker >= 0 else "Pigugnìn not taken yet"
    trick = min(s.tricks_done + 1, game.hand_size)
    lines = [f"hand {s.hand_no} · dealer {_seat(s.dealer)} · trick {trick} of {game.hand_size} · {taker}"]
    if game.flags["episode"] == "game":
        lines.append(f"a second player reaching {game.flags['loss_threshold']} busche ends the game")
    columns = [["busche", list(s.busche)], ["tricks", list(s.tricks_won)], ["points", list(s.points)]]
    return {"columns": columns, "lines": lines}


def trick_winner(plays: Sequence[Sequence[Any]], moves: Sequence[Mapping[str, Any]]) -> int:
    """The winner of the full trick `plays` (`(seat, code)` in play order): the highest card of
    the led suit (no trumps)."""
    cards = [DECK.parse(code) for _, code in plays]
    return plays[_winner_index(cards, DECK.suit_of, STRENGTH)][0]


def caution(game: PigugninGame, state: PigugninState, action: int) -> str | None:
    """No move of Pigugnìn asks for a confirmation."""
    return None


def hand_lines(hand: Mapping[str, Any]) -> list[str]:
    """The busche paid, the players without a trick, the Pigugnìn's taker and a cappotto."""
    paid = hand["busche_paid"]
    payers = [f"{_seat(p)} {b}" for p, b in enumerate(paid) if b]
    lines = [f"hand {hand['hand_no']}: busche paid: " + (", ".join(payers) or "none")]
    trickless = [p for p, t in enumerate(hand["tricks"]) if t == 0]
    if hand.get("cappotto"):
        lines.append(f"cappotto: {_seat(hand['cappotto_maker'])} took every trick")
    elif trickless:
        lines.append(f"without a trick: {_seats(trickless)} (they pay; points are not counted)")
    else:
        lines.append("every player took a trick")
    if hand.get("pig_taker") is not None and hand["pig_taker"] >= 0:
        lines.append(f"the Pigugnìn taken by {_seat(hand['pig_taker'])}: +1 busca")
    return lines


def summary(result: Mapping[str, Any], returns: Sequence[float], hands: Sequence[Mapping]) -> dict:
    """The end of an episode: the last hand's headline, the game's outcome, one row per seat.
    `hands`: the results of the finished hands (see `play.session.summary_of`)."""
    last = hands[-1] if hands else None
    lines = hand_lines(last) if last else []
    outcome = result.get("outcome")
    if result.get("annulled"):
        lines.append(f"game over: annulled ({result.get('reason')})")
    elif outcome:
        words = ((WIN, "won by"), (DRAW, "drawn by"), (LOSE, "lost by"))
        parts = [f"{word} {_seats([p for p, x in enumerate(outcome) if x == o])}" for o, word in words if o in outcome]
        lines.append(f"game over ({result.get('reason')}): " + "; ".join(parts))
    rows = []
    for p, ret in enumerate(returns):
        row: dict[str, Any] = {"seat": p, "busche": result["busche"][p]}
        row["tricks"] = last["tricks"][p] if last else 0
        row["points"] = last["points"][p] if last else 0
        row["paid"] = last["busche_paid"][p] if last else 0
        if outcome:
            row["outcome"] = outcome[p]
        row["return"] = ret
        rows.append(row)
    return {"lines": lines, "rows": rows}
