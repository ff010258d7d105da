"""Playing and replaying in the terminal (rich): `mazzo play` and `mazzo replay`.

Both loops read lines through an `ask(prompt) -> str` function and print through a rich
`Console`, so tests drive them with scripted input and a recording console.
"""

from __future__ import annotations

import json
from collections.abc import Callable
from pathlib import Path
from typing import Any

from rich.console import Console, Group
from rich.panel import Panel
from rich.table import Table
from rich.text import Text

from envs import records
from play.session import Session, result_rows

__all__ = ["play_terminal", "replay_terminal", "card_text"]

# Suits in colour; the code is always printed too (readable without colour).
_SUIT_STYLE = {"C": "red", "D": "yellow", "S": "blue", "B": "green", "h": "red", "d": "red", "s": "white", "c": "white"}
_SUIT_NAME = {"C": "Coppe", "D": "Denari", "S": "Spade", "B": "Bastoni", "h": "♥", "d": "♦", "s": "♠", "c": "♣"}


def card_text(code: str, dim: bool = False) -> Text:
    style = "dim" if dim else f"bold {_SUIT_STYLE.get(code[-1], 'white')}"
    return Text(f"[{code}]", style=style)


def _cards(codes: list[str], legal: set[str] | None = None) -> Text:
    out = Text()
    for i, c in enumerate(codes):
        if i:
            out.append(" ")
        out.append_text(card_text(c, dim=legal is not None and c not in legal))
    return out or Text("-")


def _seat_label(players: list[str] | None, p: int, you: int | None) -> str:
    who = "you" if p == you else (players[p] if players else None)
    return f"player_{p}" + (f" ({who})" if who else "")


def _table(view: dict[str, Any], you: int | None, players: list[str] | None) -> Panel:
    seats = Table(show_header=True, header_style="bold", box=None, pad_edge=False)
    for col in ("seat", "cards", "score", ""):
        seats.add_column(col)
    for p, count in enumerate(view["counts"]):
        mark = "to act" if view["to_act"] == p else ""
        seats.add_row(_seat_label(players, p, you), str(count), str(view["returns"][p]), mark)
    trick = Text("trick in progress: ")
    if view["trick"]:
        for t in view["trick"]:
            trick.append(f"player_{t['seat']} ")
            trick.append_text(card_text(t["card"]))
            trick.append("  ")
    else:
        trick.append("-")
    return Panel(Group(seats, trick, Text(view["text"], style="dim")), title=f"hand {view['hand_no']}")


def _result_table(rows: list[dict[str, Any]], players: list[str] | None, you: int | None) -> Table:
    cols = [k for k in rows[0] if k != "seat"]
    t = Table(title="result")
    t.add_column("seat")
    for c in cols:
        t.add_column(c)
    for r in rows:
        t.add_row(_seat_label(players, r["seat"], you), *(str(r[c]) for c in cols))
    return t


def _moves_text(moves: list[dict[str, Any]], you: int | None) -> Text:
    out = Text()
    for m in moves:
        who = "you" if m["seat"] == you else f"player_{m['seat']}"
        out.append(f"{who}: {m['name']}\n", style="bold" if m["seat"] == you else "")
    return out


def play_terminal(session: Session, console: Console, ask: Callable[[str], str], save: str | Path | None = None) -> dict:
    """Play ``session`` until the end (or ``q``); returns the full record (saved to ``save`` if given)."""
    you = session.seat
    console.print(f"[bold]{session.game}[/bold]: you are player_{you}; opponents: "
                  + ", ".join(f"player_{p} {s}" for p, s in enumerate(session.players) if p != you)
                  + f"; seed {session.seed}")
    while True:
        view = session.view()
        if view["moves"]:
            console.print(Panel(_moves_text(view["moves"], you), title="moves since your last action"))
        console.print(_table(view, you, session.players))
        if view["over"]:
            break
        legal = view["legal"]
        cards = {a["name"].split(" ", 1)[1] for a in legal if a["name"].startswith(("play ", "discard "))}
        hand = Text("your hand: ")
        hand.append_text(_cards(view["hands"][you] or [], cards if cards else None))
        console.print(hand)
        menu = Table(show_header=False, box=None)
        for i, a in enumerate(legal, 1):
            menu.add_row(f"[bold]{i:>3}[/bold]", a["name"])
        console.print(menu)
        while True:
            line = ask(f"your move (1-{len(legal)}, or a name such as '{legal[0]['name']}'; q to quit): ").strip()
            if line.lower() in ("q", "quit", "exit"):
                console.print("[yellow]stopped before the end[/yellow]")
                return _finish(session, console, save)
            choice = None
            if line.isdigit() and 1 <= int(line) <= len(legal):
                choice = legal[int(line) - 1]["id"]
            else:
                named = [a["id"] for a in legal if a["name"].lower() == line.lower()]
                choice = named[0] if named else None
            if choice is not None:
                break
            console.print(f"[red]{line!r} is not one of the choices: give a number 1-{len(legal)} or an action name[/red]")
        session.act(choice)
    return _finish(session, console, save)


def _finish(session: Session, console: Console, save: str | Path | None) -> dict:
    rec = session.record()
    rows = session.result()
    if rows:
        console.print(_result_table(rows, session.players, session.seat))
    for hand in rec["hands"]:
        console.print(Text(f"hand {hand['hand_no']} (dealer player_{hand['dealer']}): "
                           + ", ".join(f"p{m['seat']} {m['name']}" for m in hand["moves"]), style="dim"))
    if save is not None:
        Path(save).write_text(json.dumps(rec, indent=1), encoding="utf-8")
        console.print(f"record saved to {save} (replay it with: mazzo replay {save})")
    return rec


def replay_terminal(record: dict, console: Console, ask: Callable[[str], str], seat: int | None = None) -> int:
    """Step through a record: Enter or n forward, b back, a number jumps there, q quits.
    Returns the last position shown."""
    frames = records.views(record, seat)
    if record.get("redacted_for") is not None:
        seat = record["redacted_for"]
    players = [p.get("spec") for p in record["players"]] if record.get("players") else None
    last = len(frames) - 1
    i = 0
    console.print(f"[bold]{record['game']}[/bold] record: {last} moves in {len(record['hands'])} hand(s)"
                  + (f", as player_{seat} saw it" if seat is not None else ", every seat's cards shown"))
    while True:
        f = frames[i]
        head = f"position {i}/{last}" + (f": player_{f['last']['seat']} {f['last']['name']}" if f["last"] else ": the deal")
        console.print(Text(head, style="bold"))
        hands = Text()
        for p, h in enumerate(f["hands"]):
            if h is not None:
                hands.append(f"player_{p}: ")
                hands.append_text(_cards(h))
                hands.append("\n")
        if hands:
            console.print(hands)
        console.print(_table(f, seat, players))
        if i == last and record.get("over") and record.get("result") is not None:
            try:
                console.print(_result_table(result_rows(record["game"], record["result"], record["returns"]), players, seat))
            except (KeyError, IndexError, TypeError):
                pass
        line = ask("[Enter]/n forward, b back, a number to jump, q quit: ").strip().lower()
        if line in ("q", "quit", "exit"):
            return i
        if line in ("", "n", "next"):
            if i == last:
                console.print("(the end of the record; b goes back, q quits)")
            i = min(i + 1, last)
        elif line in ("b", "p", "back", "prev"):
            i = max(i - 1, 0)
        elif line.isdigit():
            i = min(int(line), last)
        else:
            console.print(f"[red]{line!r}: use Enter/n, b, a number or q[/red]")
