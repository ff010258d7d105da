"""Picchetto, summarized for people: the scoreboard while playing, trick winners, what a hand and
an episode came to (the declarations, Bianco, pique, repique, capot, the games and the match).

Everything here is public: a declaration is shown as announced (the dealer's holding only when
he answered "uguale" or "non basta", as at the table). The functions are those of every game's
summary module (`envs.briscola5.summary` tables them): `TITLE`, `ABOUT`, `board`,
`trick_winner`, `caution`, `hand_lines`, `summary`.

The board's columns are `game score`, `hand` (this hand's score), `tricks` (this hand) and, in a
match, `games won`; the rows of `summary` have the same ones (same values at the end) and the
`return` last, with `match` (won or lost) once a match is decided.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any

from envs.picchetto.game import (
    ANSWERS,
    BIANCO,
    DEALER_EXCHANGE,
    DECK,
    DECLARATIONS,
    ELDER_EXCHANGE,
    NESSUNO,
    NUM_TRICKS,
    PIQUE,
    REPIQUE,
    VA_BENE,
    PicchettoGame,
    PicchettoState,
    _best_text,
)

__all__ = ["TITLE", "ABOUT", "board", "trick_winner", "caution", "hand_lines", "summary"]

TITLE = "Picchetto"
ABOUT = "2 players, Italian Piquet: exchange with the talon, declare point, sequences and sets, then 12 tricks"
_GAME_NAMES = ("partita", "rivincita", "bella")
#: how the hand records name the bonuses that end a pique race or a hand
_BONUS = {"bianco": f"Bianco +{BIANCO}", "pique": f"pique +{PIQUE}", "repique": f"repique +{REPIQUE}",
          "capot": "capot (all 12 tricks)", "cards": "the cards (most tricks)"}


def _seat(p: int) -> str:
    return f"player_{p}"


def board(game: PicchettoGame, state: PicchettoState, seat: int | None, viewer: int | None = None) -> dict[str, Any]:
    """The public scoreboard and status lines of the position, as `seat` sees it; they name every seat, so
    `viewer` (the reader's seat in every game's `board`) changes nothing here."""
    s = state
    lines = [f"game {s.game_no + 1} ({_GAME_NAMES[min(s.game_no, 2)]}) to {s.target} · hand {s.hand_no} · "
             f"elder {_seat(s.elder)}, dealer {_seat(s.dealer)}"]
    if s.phase in (ELDER_EXCHANGE, DEALER_EXCHANGE):
        lines.append(f"exchange: {_seat(s.to_act)} discards, then draws as many from the talon")
    else:
        lines.append(f"exchanged: elder {s.ndisc[s.elder]}, dealer {s.ndisc[s.dealer]}"
                     + (f" · trick {min(s.trick_no + 1, NUM_TRICKS)} of {NUM_TRICKS}" if not s.over else ""))
    said = _announced(s)
    if said:
        lines.append(" · ".join(said))
    columns = [["game score", list(s.game_score)], ["hand", list(s.hand_score)], ["tricks", list(s.tricks_won)]]
    if game.flags["episode"] == "match":
        columns.append(["games won", list(s.games_won)])
    return {"columns": columns, "lines": lines}


def _announced(s: PicchettoState) -> list[str]:
    """The hand's announcements so far: Bianco, the three declarations as answered, pique/repique."""
    out = [f"{_seat(p)} Bianco +{BIANCO}" for p in (s.elder, s.dealer) if s.bianco[p]]
    if s.decl is not None:
        pubs = ([s.pub_point[0] or None, s.pub_point[1] or None], s.pub_seq, s.pub_set)  # per seat
        for i, name in enumerate(DECLARATIONS):
            if s.answers[i] == NESSUNO:
                continue
            elder, dealer = pubs[i][s.elder], pubs[i][s.dealer]
            text = str(elder) if i == 0 else _best_text(name, elder) if elder is not None else "-"
            if s.answers[i] != VA_BENE and dealer is not None:
                text += f" / {dealer if i == 0 else _best_text(name, dealer)}"
            won = [f"{_seat(p)} +{s.decl_points[p][i]}" for p in (0, 1) if s.decl_points[p][i]]
            out.append(f"{name} {text}" + (f": {won[0]}" if won else f" ({ANSWERS[s.answers[i]]})"))
    if s.repique_by >= 0:
        out.append(f"{_seat(s.repique_by)} repique +{REPIQUE}")
    if s.pique_by >= 0:
        out.append(f"{_seat(s.pique_by)} pique +{PIQUE}")
    return out


def trick_winner(plays: Sequence[Sequence[Any]], moves: Sequence[Mapping[str, Any]]) -> int:
    """The winner of the full trick `plays` (`(seat, code)`, the lead first): the follower wins
    with a higher card of the led suit (no trumps)."""
    (leader, led), (follower, card) = plays
    a, b = DECK.parse(led), DECK.parse(card)
    return follower if DECK.suit_of[a] == DECK.suit_of[b] and b > a else leader


def caution(game: PicchettoGame, state: PicchettoState, action: int) -> str | None:
    """No move of Picchetto asks for a confirmation."""
    return None


def hand_lines(hand: Mapping[str, Any]) -> list[str]:
    """The declarations as answered, Bianco, pique/repique/capot/cards, the hand's score."""
    elder, dealer = hand["elder"], hand["dealer"]
    lines = [f"hand {hand['hand_no']} (game {hand['game_no']}): elder {_seat(elder)}, dealer {_seat(dealer)}"
             + (f" · exchanged {hand['exchanged'][elder]} and {hand['exchanged'][dealer]}" if hand.get("exchanged") else "")]
    decl = hand.get("declarations") or {}
    said = []
    for name in DECLARATIONS:
        d = decl.get(name)
        if not d or d["answer"] == "nessuno":
            continue
        text = f"{name}: {d['elder'] or '-'}"
        if d["answer"] != "va bene" and d.get("dealer"):
            text += f" / {d['dealer']}"
        text += f" ({d['answer']})"
        if d.get("winner") is not None and d.get("points"):
            text += f" {_seat(d['winner'])} +{d['points']}"
        said.append(text)
    lines.append("declarations: " + ("; ".join(said) if said else "none"))
    events = [tuple(e) for e in hand.get("events") or ()]
    bonuses = [f"{_seat(seat)} {_BONUS[kind]}" + ("" if kind in ("bianco", "pique", "repique") else f" +{pts}")
               for kind, seat, pts in events if kind in _BONUS]
    if not any(kind in ("pique", "repique", "capot") for kind, _, _ in events):
        bonuses.append("no pique, repique or capot")
    lines.append(" · ".join(bonuses))
    if hand.get("hand_scores") is not None:
        tricks = hand.get("tricks") or [0, 0]
        lines.append(f"hand score {hand['hand_scores'][0]}-{hand['hand_scores'][1]}, "
                     f"tricks {tricks[0]}-{tricks[1]}" + ("" if hand.get("completed") else " (the game ended before the end of the hand)"))
    return lines


def summary(result: Mapping[str, Any], returns: Sequence[float], hands: Sequence[Mapping]) -> dict:
    """The end of an episode: the last hand's headline, the games and the match, one row per seat.
    `hands`: the results of the finished hands (see `play.session.summary_of`)."""
    last = hands[-1] if hands else None
    lines = hand_lines(last) if last else []
    for g in result.get("games") or ():
        if g.get("winner") is not None:
            lines.append(f"game {g['game_no']} won by {_seat(g['winner'])}, {g['scores'][0]}-{g['scores'][1]}")
    winner = result.get("match_winner")
    if winner is not None:
        won = result["games_won"]
        lines.append(f"match won by {_seat(winner)}, {won[winner]} games to {won[1 - winner]}")
    match = result.get("episode") == "match"
    rows = []
    for p, ret in enumerate(returns):
        row: dict[str, Any] = {"seat": p, "game score": result["scores"][p]}
        row["hand"] = last["hand_scores"][p] if last and last.get("hand_scores") else 0
        row["tricks"] = last["tricks"][p] if last and last.get("tricks") else 0
        if match:
            row["games won"] = result["games_won"][p]
            if winner is not None:
                row["match"] = "won" if winner == p else "lost"
        row["return"] = ret
        rows.append(row)
    return {"lines": lines, "rows": rows}
