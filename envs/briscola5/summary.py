"""Briscola in cinque, summarized for people: the scoreboard while playing, trick winners, what a
hand and an episode came to, and the moves a person should confirm.

Everything here is public: no seat learns from it anything the table does not show (the partner
stays hidden until the called card is played, except to the partner). The `mazzo` command, the
web page and record viewers reach it through `GameSpec.summary_module()`; the three games'
summary modules have the same functions:

| name                          | gives                                                                      |
|-------------------------------|----------------------------------------------------------------------------|
| `TITLE`, `ABOUT`              | the game's name and a one-line description                                 |
| `board(game, state, seat, viewer=None)` | `{"columns": [[name, [value per seat]], ...], "lines": [status line, ...]}` (`viewer`: below) |
| `trick_winner(plays, moves)`  | the seat that wins a full trick `[(seat, code), ...]` (`moves`: the hand's public moves) |
| `caution(game, state, action)`| a sentence asking to confirm a risky move, or None                         |
| `hand_lines(hand)`            | the headline of a finished hand (an engine hand record)                    |
| `summary(result, returns, hands)` | the episode's end: `{"lines": [...], "rows": [{"seat", column: value, ..., "return"}]}` (`result`: the env's `info["result"]` or a record's; `hands`: the finished hands' results) |

`board` shows what `seat` knows; `viewer` is the seat of the person reading it, whom the lines call
"you" (live play passes its own seat), None for a reader who sat nowhere (a record viewer such as
`mazzo replay --seat 2`: "player_2 is the partner").

The board's columns are `points` (card points taken this hand) and `classifica` (credits over
the episode); the rows of `summary` have the same two (same values at the end), with the
hand's `credits` between them and the episode's `return` last.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any

from envs.briscola5.game import (
    AUCTION,
    BID_IDS,
    CALL,
    CALL_CARD,
    DECK,
    FORFEIT_CHECK,
    NUM_TRICKS,
    PASS,
    STRENGTH,
    SUIT,
    TOTAL_POINTS,
    TRICK_PLAY,
    Briscola5Game,
    Briscola5State,
    bid_value,
)
from envs.core.trick import trick_winner as _winner_index

__all__ = ["TITLE", "ABOUT", "JUMP_BID", "board", "trick_winner", "caution", "hand_lines", "summary"]

TITLE = "Briscola in cinque"
ABOUT = "5 players: bid for the contract, call a card; its holder is your secret partner"
#: a bid more than this over the lowest legal bid is a jump bid, which a person confirms
JUMP_BID = 10


def _seat(p: int) -> str:
    return f"player_{p}"


def board(game: Briscola5Game, state: Briscola5State, seat: int | None, viewer: int | None = None) -> dict[str, Any]:
    """The public scoreboard and status lines of the position, as `seat` sees it (None: the public view), told
    to `viewer` (module docstring: "you" for that seat, names for every other)."""
    s = state
    lines = [f"hand {s.hand_no} of {game.flags['num_hands']} · dealer {_seat(s.dealer)}"]
    if s.phase == FORFEIT_CHECK:
        lines.append(f"forfeit check: {_seat(s.to_act)} holds no card points and may void the deal")
    elif s.phase == AUCTION:
        passed = [_seat(p) for p in range(5) if s.passed >> p & 1]
        high = f"high bid {s.high} by {_seat(s.high_bidder)}" if s.high_bidder >= 0 else \
            f"no bid yet (lowest {game.flags['min_bid']})"
        lines.append(f"auction: {high}" + (f" · passed: {', '.join(passed)}" if passed else ""))
    elif s.phase == CALL_CARD:
        lines.append(f"{_seat(s.caller)} won the auction at {s.contract} and calls a card (its suit is trump)")
    elif s.caller >= 0 and s.called >= 0:
        lines.append(_contract(s.caller, s.contract, DECK.codes[s.called], _partner_text(s, seat, viewer)))
        if s.phase == TRICK_PLAY:
            lines.append(f"trick {s.trick_no + 1} of {NUM_TRICKS}")
    return {"columns": [["points", list(s.points)], ["classifica", list(s.scores)]], "lines": lines}


def _partner_text(s: Briscola5State, seat: int | None, viewer: int | None) -> str:
    if s.revealed:
        return "solo" if s.partner == s.caller else f"partner {_seat(s.partner)}"
    if seat is not None and seat == s.partner:  # only the partner knows before the called card is played
        if seat == viewer:
            return "you hold it: solo" if seat == s.caller else "you are the partner"
        return f"{_seat(seat)} holds it: solo" if seat == s.caller else f"{_seat(seat)} is the partner"
    return "partner hidden"


def _contract(caller: int, bid: int, called: str, partner: str) -> str:
    trump = DECK.suit_names[DECK.suit_codes.index(called[-1])]
    return f"contract {bid} by {_seat(caller)} · called {called} (trump {trump}) · {partner}"


def trick_winner(plays: Sequence[Sequence[Any]], moves: Sequence[Mapping[str, Any]]) -> int:
    """The winner of the full trick `plays` (`(seat, code)` in play order); the trump is the suit
    of the card called in `moves` (the hand's public moves)."""
    called = next(m["name"][5:] for m in moves if str(m.get("name", "")).startswith("call "))
    cards = [DECK.parse(code) for _, code in plays]
    return plays[_winner_index(cards, SUIT, STRENGTH, SUIT[DECK.parse(called)])][0]


def caution(game: Briscola5Game, state: Briscola5State, action: int) -> str | None:
    """Why a person should confirm `action` (a jump bid, a solo call), or None."""
    s = state
    if s.phase == AUCTION and action in BID_IDS:
        legal = game.legal_mask(s)
        lowest = next(bid_value(a) for a in BID_IDS if legal >> a & 1)
        value = bid_value(action)
        if value > lowest + JUMP_BID:
            return (f"bid {value} is {value - lowest} over the lowest bid now ({lowest}): your side will need "
                    f"{value} of the {TOTAL_POINTS} card points")
    if s.phase == CALL_CARD and CALL <= action < PASS and s.hands[s.to_act] >> (action - CALL) & 1:
        return f"you hold {DECK.codes[action - CALL]}: calling it means playing alone (solo) against the other four"
    return None


def hand_lines(hand: Mapping[str, Any]) -> list[str]:
    """Who bid and called what, and whether the contract was made with the caller team's points."""
    no = hand.get("hand_no")
    if hand.get("void") == "forfeit":
        return [f"hand {no}: {_seat(hand['forfeited_by'])} forfeited (no card points in hand): the hand is void"]
    if hand.get("void"):
        return [f"hand {no}: everyone passed: the hand is void (no credits)"]
    caller, bid = hand["caller"], hand["bid"]
    partner = "solo" if hand["solo"] else f"partner {_seat(hand['partner'])}"
    made = "made" if hand["caller_team_won"] else "lost"
    team = "the caller" if hand["solo"] else "the caller's team"
    lines = [
        f"hand {no}: " + _contract(caller, bid, hand["called_card"], partner),
        f"contract {made}: {team} took {hand['caller_team_points']} of {TOTAL_POINTS} card points ({bid} needed)"
        + (" · cappotto" if hand["cappotto"] else ""),
    ]
    credits = hand["credits"]
    lines.append("credits: " + ", ".join(f"{_seat(p)} {c:+d}" for p, c in enumerate(credits)))
    return lines


def summary(result: Mapping[str, Any], returns: Sequence[float], hands: Sequence[Mapping]) -> dict:
    """The end of an episode: the last hand's headline, the match line, and one row per seat.
    `hands`: the results of the finished hands (see `play.session.summary_of`)."""
    last = hands[-1] if hands else None
    lines = hand_lines(last) if last else []
    totals = list(result["totals"])
    if len(hands) > 1:
        lines.append(f"after {result.get('hands_played', len(hands))} hands: classifica "
                     + ", ".join(f"{_seat(p)} {t:+d}" for p, t in enumerate(totals)))
    rows = []
    for p, ret in enumerate(returns):
        points = last["points"][p] if last and last.get("points") else 0
        credits = last["credits"][p] if last else 0
        rows.append({"seat": p, "points": points, "credits": credits, "classifica": totals[p], "return": ret})
    return {"lines": lines, "rows": rows}
