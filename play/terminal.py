"""Playing and replaying in the terminal (rich): `mazzo play` and `mazzo replay`.

Every turn redraws one screen that fits the terminal (80x24 and up), top to bottom: a title,
the table (one row per seat: cards held, the game's score columns, the card it has on the
table), the game's status lines, the moves since your last action grouped by trick with each
trick's winner, your hand (the cards you may play bright), a compact menu (`bid 61-120 · pass`)
and the prompt. When the screen is short, the oldest moves go first, then the status lines: the
table, the hand and the menu always stay.

What a person types (`parse_move`): a move's name (`pass`, `bid 75`, `play AB`, `no forfeit`),
a bare card code (`AB`: the one legal move with that card), a bare number (`75`: the legal
move with that number, a bid), or a unique start of a name (`no` for `no forfeit`). There are
no menu numbers, so a number is never mistaken for another move. A move the game marks as
risky (a jump bid, a solo call: `envs.<game>.summary.caution`) asks for a `y` first.

Both loops read lines through an `ask(prompt) -> str` function and print through a rich
`Console`, so tests drive them with scripted input and a recording console.
"""

from __future__ import annotations

import json
from collections.abc import Callable, Sequence
from pathlib import Path
from typing import Any

from rich.console import Console
from rich.text import Text

from envs.core.errors import MazzoError
from envs.registry import game_spec
from play.session import Session
from play.views import frames as record_frames

__all__ = ["play_terminal", "replay_terminal", "card_text", "parse_move", "menu_text", "MoveError"]

# Suits in colour; the code is always printed too (readable without colour).
_SUIT_STYLE = {"C": "red", "D": "yellow", "S": "blue", "B": "green", "h": "red", "d": "red", "s": "white", "c": "white"}
_QUIT = ("q", "quit", "exit")
_YES = ("y", "yes")
_SPEC_WIDTH = 18  # an agent spec longer than this is cut in the table


class MoveError(MazzoError):
    """A line that is not a legal move now (the message says what is allowed)."""


def card_text(code: str, dim: bool = False) -> Text:
    style = "dim" if dim else f"bold {_SUIT_STYLE.get(code[-1], 'white')}"
    return Text(f"[{code}]", style=style)


def _cards(codes: Sequence[str], legal: set[str] | None = None) -> Text:
    out = Text()
    for i, c in enumerate(codes):
        if i:
            out.append(" ")
        out.append_text(card_text(c, dim=legal is not None and c not in legal))
    return out or Text("-")


# -- what the person types -------------------------------------------------------------------


def _split(name: str, codes: set[str]) -> tuple[str, str, str]:
    """``(verb, argument, kind)`` of an action name: kind "number" (``bid 75``), "card"
    (``play AB``) or "plain" (``pass``, ``no forfeit``)."""
    verb, _, arg = name.rpartition(" ")
    if verb and arg.isdigit():
        return verb, arg, "number"
    if verb and arg.upper() in codes:
        return verb, arg, "card"
    return name, "", "plain"


def _ranges(values: list[int]) -> str:
    """``61-120``, or ``61-70, 75`` for values with gaps."""
    runs: list[list[int]] = []
    for v in sorted(values):
        if runs and v == runs[-1][1] + 1:
            runs[-1][1] = v
        else:
            runs.append([v, v])
    return ", ".join(f"{a}-{b}" if b > a else str(a) for a, b in runs)


def menu_text(legal: Sequence[dict[str, Any]], hand: Sequence[str], codes: Sequence[str]) -> str:
    """The legal moves in one short line: ``bid 61-120 · pass``, ``play AB 3C``, ``call any of 40 cards``."""
    upper = {c.upper() for c in codes}
    groups: dict[str, tuple[str, list[str]]] = {}
    for a in legal:
        verb, arg, kind = _split(a["name"], upper)
        groups.setdefault(verb if kind != "plain" else a["name"], (kind, []))[1].append(arg)
    parts = []
    for verb, (kind, args) in sorted(groups.items(), key=lambda g: g[1][0] == "plain"):  # choices of many first
        if kind == "number":
            parts.append(f"{verb} {_ranges([int(a) for a in args])}")
        elif kind == "card":
            if set(args) == set(hand):
                parts.append(f"{verb} any card of your hand")
            elif len(args) <= 12:
                parts.append(f"{verb} " + " ".join(args))
            else:
                parts.append(f"{verb} any of {len(args)} cards")
        else:
            parts.append(verb)
    return " · ".join(parts)


def _hint(legal: Sequence[dict[str, Any]], codes: Sequence[str]) -> str:
    upper = {c.upper() for c in codes}
    kinds: dict[str, str] = {}
    for a in legal:
        kinds.setdefault(_split(a["name"], upper)[2], a["name"])
    tips = []
    if "card" in kinds:
        tips.append(f"a card's code ({kinds['card'].rpartition(' ')[2]})")
    if "number" in kinds:
        tips.append(f"a number ({kinds['number'].rpartition(' ')[2]})")
    tips.append("a move's name")
    return "type " + ", ".join(tips) + " · q quits"


def parse_move(line: str, legal: Sequence[dict[str, Any]], hand: Sequence[str], codes: Sequence[str]) -> int:
    """The action id that ``line`` names (module docstring); `MoveError` says why not."""
    text = " ".join(line.split()).lower()
    menu = menu_text(legal, hand, codes)
    if not text:
        raise MoveError(f"type a move: {menu}")
    by_name = {a["name"].lower(): a["id"] for a in legal}
    if text in by_name:
        return by_name[text]
    upper = {c.upper() for c in codes}
    split = [(_split(a["name"], upper), a["id"]) for a in legal]
    if text.isdigit():
        numbered = [aid for (_, arg, kind), aid in split if kind == "number" and int(arg) == int(text)]
        if numbered:
            return numbered[0]
        verbs = sorted({verb for (verb, _, kind), _ in split if kind == "number"})
        if verbs:
            raise MoveError(f"{text} is not a legal {' or '.join(verbs)} now: {menu}")
        raise MoveError(f"a number is not a move here: {menu}")
    if text.upper() in upper:
        carded = [aid for (_, arg, kind), aid in split if kind == "card" and arg.upper() == text.upper()]
        if len(carded) == 1:
            return carded[0]
        code = next(c for c in codes if c.upper() == text.upper())
        if carded:
            raise MoveError(f"{code} names {len(carded)} moves here: type the whole name ({menu})")
        where = "you hold it, but " if code in hand else ""
        raise MoveError(f"{code}: {where}no move with that card is legal now: {menu}")
    starts = [aid for name, aid in by_name.items() if len(text) >= 2 and name.startswith(text)]
    if len(starts) == 1:
        return starts[0]
    raise MoveError(f"{line.strip()!r} is not a move here: {menu}")


# -- the screen ------------------------------------------------------------------------------------


def _spec_label(players: Sequence[str] | None, p: int, you: int | None, live: bool) -> str:
    if live and p == you:
        return f"player_{p} (you)"
    spec = players[p] if players else None
    if not spec:
        return f"player_{p}"
    return f"player_{p} {spec if len(spec) <= _SPEC_WIDTH else spec[:_SPEC_WIDTH - 1] + '…'}"


def _who(p: int, you: int | None) -> str:
    return "you" if p == you else f"p{p}"


def _fmt(x: Any) -> str:
    if isinstance(x, float):
        return f"{x:g}" if float(x).is_integer() else f"{x:.2f}"
    return "-" if x is None else str(x)


def _seat_table(view: dict[str, Any], labels: list[str], columns: list[tuple[str, list[Any]]], cards: bool) -> list[Text]:
    """The table: a header and one line per seat (to-act mark, label, cards, score columns, table card)."""
    n = len(labels)
    on_table = {t["seat"]: t["card"] for t in view.get("trick") or ()}
    cols = ([("cards", [str(c) for c in view["counts"]])] if cards else []) + \
        [(name, [_fmt(v) for v in values]) for name, values in columns]
    label_w = max(len("seat"), *(len(x) for x in labels))
    widths = [max(len(name), *(len(v) for v in values)) for name, values in cols]
    head = Text("  " + "seat".ljust(label_w), style="bold")
    for (name, _), w in zip(cols, widths, strict=True):
        head.append("  " + name.rjust(w), style="bold")
    if on_table:
        head.append("  table", style="bold")
    lines = [head]
    for p in range(n):
        acting = view.get("to_act") == p
        row = Text("▶ " if acting else "  ", style="bold yellow")
        row.append(labels[p].ljust(label_w), style="bold" if acting else "")
        for (_, values), w in zip(cols, widths, strict=True):
            row.append("  " + values[p].rjust(w))
        if p in on_table:
            row.append("  ")
            row.append_text(card_text(on_table[p]))
        lines.append(row)
    return lines


def _group_lines(groups: list[dict[str, Any]], you: int | None) -> list[Text]:
    """``play.moves.recent`` groups as lines: a trick per line with its winner, other moves joined."""
    out = []
    for g in groups:
        if g["kind"] == "hand end":
            out.extend(Text(line, style="bold cyan") for line in g["lines"])
        elif g["kind"] == "trick":
            line = Text(f"trick {g['trick']}: ", style="bold")
            for m in g["moves"]:
                line.append(f"{_who(m['seat'], you)} ", style="" if m["new"] else "dim")
                line.append_text(card_text(m["name"].rpartition(" ")[2], dim=not m["new"]))
                line.append("  ")
            if g["winner"] is not None:
                won = "you win" if g["winner"] == you else f"p{g['winner']} wins"
                line.append(f"→ {won}", style="bold green" if g["winner"] == you else "bold")
            out.append(line)
        else:
            runs: list[list[Any]] = []  # the same move repeated (another seat's hidden discards) once, "×5"
            for m in g["moves"]:
                if runs and (runs[-1][0]["seat"], runs[-1][0]["name"]) == (m["seat"], m["name"]):
                    runs[-1][1] += 1
                else:
                    runs.append([m, 1])
            line = Text()
            for i, (m, times) in enumerate(runs):
                if i:
                    line.append(" · ", style="dim")
                line.append(f"{_who(m['seat'], you)} {m['name']}" + (f" ×{times}" if times > 1 else ""),
                            style="bold" if m["seat"] == you else "")
            out.append(line)
    return out


class _Screen:
    """One screen that fits the console: the fixed parts always, then as many status lines and
    (newest) moves as there is room for; cleared and redrawn on a terminal, appended otherwise."""

    def __init__(self, console: Console):
        self.console = console

    def wrap(self, line: Text | str) -> list[Text]:
        text = Text(line) if isinstance(line, str) else line
        width = max(20, self.console.width - 1)
        return list(text.wrap(self.console, width, overflow="fold")) or [Text("")]

    def show(self, top: list[Text], status: list[Text], middle: list[Text], bottom: list[Text]) -> None:
        top = [w for line in top for w in self.wrap(line)]
        status = [w for line in status for w in self.wrap(line)]
        middle = [w for line in middle for w in self.wrap(line)]
        bottom = [w for line in bottom for w in self.wrap(line)]
        room = max(0, self.console.height - 1 - len(top) - len(bottom))  # the prompt takes the last line
        status = status[:room]
        room -= len(status)
        if len(middle) > room:
            cut = len(middle) - room + 1
            middle = [Text(f"… {cut} earlier line{'s' if cut > 1 else ''}", style="dim"), *middle[cut:]] if room > 1 \
                else []
        if self.console.is_terminal:
            self.console.clear()
        for line in top + status + middle + bottom:
            self.console.print(line, no_wrap=True, overflow="crop", crop=True)


# -- play ------------------------------------------------------------------------------------------


def _draw_play(screen: _Screen, session: Session, view: dict[str, Any], message: Text | None) -> None:
    you = session.seat
    labels = [_spec_label(session.players, p, you, live=True) for p in range(view["num_players"])]
    title = Text(f"{view['title']} · you are player_{you} · seed {session.seed}", style="bold")
    over = view["over"]
    if over:
        rows = view["summary"]["rows"]
        columns = [(k, [r[k] for r in rows]) for k in rows[0] if k != "seat"]
    else:
        columns = [(name, values) for name, values in view["board"]["columns"]]
    table = _seat_table(view, labels, columns, cards=not over)
    status = [] if over else [Text(line, style="cyan") for line in view["board"]["lines"]]
    groups = view["recent"]
    if over:  # the summary below has the last hand's headline
        groups = [g for g in groups if not (g["kind"] == "hand end" and g["hand_no"] == view["hand_no"])]
    middle = _group_lines(groups, you) or [Text("(no moves since your last action)", style="dim")]
    bottom: list[Text] = []
    if over:
        bottom += [Text(line, style="bold cyan") for line in view["summary"]["lines"]]
    else:
        legal = view["legal"]
        codes = session.env.game.deck.codes
        upper = {c.upper() for c in codes}
        playable = {_split(a["name"], upper)[1] for a in legal if _split(a["name"], upper)[2] == "card"}
        hand = Text("your hand: ", style="bold")
        hand.append_text(_cards(view["hands"][you] or [], playable & set(view["hands"][you] or ()) or None))
        bottom += [hand, Text("moves: " + menu_text(legal, view["hands"][you] or [], codes), style="bold"),
                   Text(_hint(legal, codes), style="dim")]
    if message is not None:
        bottom.append(message)
    screen.show([title, *table], status, [Text("moves since your last action", style="underline"), *middle], bottom)


def play_terminal(session: Session, console: Console, ask: Callable[[str], str], save: str | Path | None = None) -> dict:
    """Play ``session`` until the end (or ``q``); returns the full record (saved to ``save`` if given)."""
    screen = _Screen(console)
    you = session.seat
    codes = session.env.game.deck.codes
    view = session.view()
    message: Text | None = None
    while not view["over"]:
        _draw_play(screen, session, view, message)
        line = ask("your move> ")
        if line.strip().lower() in _QUIT:
            return _finish(session, console, save, stopped=True)
        try:
            action = parse_move(line, view["legal"], view["hands"][you] or [], codes)
        except MoveError as e:
            message = Text(str(e), style="red")
            continue
        why = session.caution(action)
        if why:
            name = next(a["name"] for a in view["legal"] if a["id"] == action)
            _draw_play(screen, session, view, Text(f"{name}? {why}. Type y to confirm.", style="bold yellow"))
            if ask(f"confirm {name}? [y/N]> ").strip().lower() not in _YES:
                message = Text(f"not played: {name}. Choose again.", style="yellow")
                continue
        session.act(action)
        view = session.view()
        message = None
    _draw_play(screen, session, view, None)
    return _finish(session, console, save)


def _finish(session: Session, console: Console, save: str | Path | None, stopped: bool = False) -> dict:
    rec = session.record()
    if stopped:
        console.print(Text("stopped before the end", style="yellow"))
    if save is not None:
        Path(save).write_text(json.dumps(rec, indent=1), encoding="utf-8")
        console.print(f"record saved to {save} (replay it with: mazzo replay {save})", soft_wrap=True)
    return rec


# -- replay ----------------------------------------------------------------------------------------


def replay_terminal(record: dict, console: Console, ask: Callable[[str], str], seat: int | None = None) -> int:
    """Step through a record: Enter or n forward, b back, a number jumps there, q quits.
    Returns the last position shown."""
    frames = record_frames(record, seat)
    if record.get("redacted_for") is not None:
        seat = record["redacted_for"]
    title = game_spec(record["game"]).summary_module().TITLE
    players = [p.get("spec") for p in record["players"]] if record.get("players") else None
    labels = [_spec_label(players, p, None, live=False) for p in range(record["num_players"])]
    last = len(frames) - 1
    head = Text(f"{title} record: {last} moves in {len(record['hands'])} hand(s)"
                + (f", as player_{seat} saw it" if seat is not None else ", every seat's cards shown"), style="bold")
    screen = _Screen(console)
    i, message = 0, None
    while True:
        _draw_replay(screen, frames[i], i, last, head, labels, seat, message)
        message = None
        line = ask("[Enter]/n forward, b back, a number to jump, q quit> ").strip().lower()
        if line in _QUIT:
            return i
        if line in ("", "n", "next"):
            if i == last:
                message = Text("(the end of the record; b goes back, q quits)", style="yellow")
            i = min(i + 1, last)
        elif line in ("b", "p", "back", "prev"):
            i = max(i - 1, 0)
        elif line.isdigit():
            i = min(int(line), last)
        else:
            message = Text(f"{line!r}: use Enter/n, b, a number or q", style="red")


def _draw_replay(screen: _Screen, f: dict[str, Any], i: int, last: int, head: Text, labels: list[str],
                 seat: int | None, message: Text | None) -> None:
    where = Text(f"position {i}/{last}" + (f": player_{f['last']['seat']} {f['last']['name']}" if f["last"] else ": the deal"),
                 style="bold")
    summary = f.get("summary")
    if summary:
        rows = summary["rows"]
        columns = [(k, [r[k] for r in rows]) for k in rows[0] if k != "seat"]
    elif f.get("board"):
        columns = [(name, values) for name, values in f["board"]["columns"]]
    else:  # a redacted record made without boards: the rewards so far are all it has
        columns = [("return", f["returns"])]
    table = _seat_table(f, labels, columns, cards=not summary)
    status = [Text(line, style="cyan") for line in (f.get("board") or {}).get("lines", [])] if not summary else []
    middle: list[Text] = []
    done = f.get("trick_done")
    if done:
        # seats by number: the replay's reader is not the seat whose view it shows (the table says who played)
        middle += _group_lines([{"kind": "trick", "trick": done["trick"], "winner": done["winner"],
                                 "moves": [{"seat": s, "name": f"play {c}", "new": True} for s, c in done["plays"]]}], None)
    # the summary repeats the last hand's headline, then says how the episode ended
    middle += [Text(line, style="bold cyan") for line in (summary["lines"] if summary else f.get("ended") or ())]
    for p, h in enumerate(f["hands"]):
        if h is not None:
            middle.append(Text(f"player_{p}: ").append_text(_cards(h)))
    bottom = []
    if message is not None:
        bottom.append(message)
    screen.show([head, where, *table], status, middle, bottom)
