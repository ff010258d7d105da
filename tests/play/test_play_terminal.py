"""`mazzo play` and `mazzo replay` in a real pseudo-terminal of 80x24, as a person runs them.

pexpect runs the command with scripted input; pyte (a VT100 emulator) turns what it wrote
into the 24 lines of the screen, so the tests read exactly what a person would see at each
prompt: the title on the first line (nothing scrolled away), the table, the hand and the menu.
"""

from __future__ import annotations

import json
import os
import sys
from pathlib import Path

import pytest

pexpect = pytest.importorskip("pexpect")
pyte = pytest.importorskip("pyte")
pytest.importorskip("rich")

from tests.play.robot import pick  # noqa: E402

ROOT = Path(__file__).resolve().parents[2]
ROWS, COLS = 24, 80
PROMPT = r"(your move|confirm [^?]+\? \[y/N\]|\[Enter\]/n forward, b back, a number to jump, q quit)> "


class Terminal:
    """A command in an 80x24 pseudo-terminal and the screen it draws."""

    def __init__(self, *args: str):
        env = dict(os.environ, TERM="xterm-256color", COLUMNS=str(COLS), LINES=str(ROWS), PYTHONPATH=str(ROOT))
        env.pop("NO_COLOR", None)
        self.child = pexpect.spawn(sys.executable, ["-m", "play.cli", *args], cwd=str(ROOT), env=env,
                                   dimensions=(ROWS, COLS), encoding="utf-8", timeout=60)
        self.screen = pyte.Screen(COLS, ROWS)
        self.stream = pyte.Stream(self.screen)

    def _feed(self) -> None:
        self.stream.feed(self.child.before + (self.child.after if isinstance(self.child.after, str) else ""))

    def prompt(self) -> list[str]:
        """Wait for the next prompt; the screen's lines then."""
        self.child.expect(PROMPT)
        self._feed()
        return self.lines()

    def lines(self) -> list[str]:
        return [line.rstrip() for line in self.screen.display]

    def send(self, line: str) -> None:
        self.child.sendline(line)

    def end(self) -> tuple[int, list[str]]:
        """Wait for the command to end: its exit status and the last screen."""
        if not self.child.eof():  # play_out may have read to the end already
            self.child.expect(pexpect.EOF)
            self._feed()
        self.child.close()
        return self.child.exitstatus, self.lines()


def check_fits(screen: list[str], title: str) -> None:
    """The whole screen of a turn is on the 80x24 terminal: title first, table, hand, menu, prompt last."""
    text = "\n".join(screen)
    assert screen[0].startswith(title), text
    assert screen[1].lstrip().startswith("seat") and "cards" in screen[1], text
    assert any(line.startswith("your hand: ") for line in screen), text
    assert any(line.startswith("moves: ") for line in screen), text
    last = max(i for i, line in enumerate(screen) if line)
    assert screen[last].startswith(("your move>", "confirm ")), text


def play_out(term: Terminal, title: str, first: list[str] = (), screen: list[str] | None = None) -> list[list[str]]:
    """Answer ``first``, then let the robot play to the end; every screen is checked to fit.
    ``screen``: the screen of a prompt already waited for (answered first)."""
    queue, screens = list(first), []
    if screen is not None:
        term.send(queue.pop(0) if queue else pick(screen))
    while True:
        i = term.child.expect([PROMPT, pexpect.EOF])
        term._feed()
        if i == 1:
            return screens
        screen = term.lines()
        screens.append(screen)
        if screen[max(i for i, line in enumerate(screen) if line)].startswith("your move>"):
            check_fits(screen, title)
        term.send(queue.pop(0) if queue else pick(screen))


def test_briscola_the_61_trap_a_declined_jump_bare_codes_and_the_end_screen(tmp_path):
    path = tmp_path / "g.json"
    term = Terminal("play", "briscola5", "--seat", "0", "--opponents", "heuristic", "--seed", "7", "--save", str(path))
    screen = term.prompt()
    check_fits(screen, "Briscola in cinque · you are player_0 · seed 7")
    assert "moves: bid 61-120 · pass" in screen
    assert "▶ player_0 (you)" in "\n".join(screen)
    term.send("61")  # a bid value, never a menu number
    screen = term.prompt()
    assert any(line.startswith("you bid 61 · p1 bid 81") for line in screen), "\n".join(screen)
    assert "moves: bid 82-120 · pass" in screen
    term.send("95")  # 13 over the lowest bid: asks first
    screen = term.prompt()
    assert screen[max(i for i, line in enumerate(screen) if line)].startswith("confirm bid 95? [y/N]>")
    assert any("bid 95 is 13 over the lowest bid now (82)" in line for line in screen)
    term.send("n")
    screen = term.prompt()
    assert any("not played: bid 95" in line for line in screen)
    term.send("pass")
    screen = term.prompt()
    assert any("contract 81 by player_1 · called JC (trump Coppe)" in line for line in screen), "\n".join(screen)
    assert "moves: play any card of your hand" in screen
    term.send("6c")  # a bare card code, any case
    screen = term.prompt()
    check_fits(screen, "Briscola in cinque")
    trick = next(line for line in screen if line.startswith("trick 1: "))
    assert trick.startswith("trick 1: you [6C]") and trick.endswith("→ you win")  # each trick with its winner
    play_out(term, "Briscola in cinque", screen=screen)
    status, end = term.end()
    assert status == 0
    text = "\n".join(end)
    rec = json.loads(path.read_text())
    hand = rec["hands"][0]["result"]
    made = "contract made" if hand["caller_team_won"] else "contract lost"
    assert f"{made}: the caller's team took {hand['caller_team_points']} of 120 card points (81 needed)" in text
    # the end screen's table is the summary's rows, its points column the card points of the hand
    header = next(line for line in end if line.lstrip().startswith("seat"))
    assert header.split()[1:] == ["points", "credits", "classifica", "return"]
    rows = [line.split() for line in end if line.lstrip().startswith("player_")][:5]
    assert [int(r[-4]) for r in rows] == hand["points"] and [int(r[-1]) for r in rows] == rec["returns"]
    assert "record saved to" in text
    mine = [m["name"] for h in rec["hands"] for m in h["moves"] if m["seat"] == 0]
    assert mine[:2] == ["bid 61", "pass"] and "bid 120" not in mine


def test_a_jump_bid_and_a_solo_call_are_confirmed():
    term = Terminal("play", "briscola5", "--seed", "7")
    term.prompt()
    term.send("120")
    screen = term.prompt()
    assert screen[max(i for i, line in enumerate(screen) if line)].startswith("confirm bid 120? [y/N]>")
    term.send("y")
    screen = term.prompt()  # everyone else passes: player_0 calls
    assert "moves: call any of 40 cards" in screen, "\n".join(screen)
    term.send("AB")  # a card of its own hand: solo
    screen = term.prompt()
    assert any("you hold AB: calling it means playing alone (solo)" in line for line in screen)
    term.send("y")
    screen = term.prompt()
    assert "contract 120 by player_0 · called AB (trump Bastoni) · you hold it: solo" in screen
    term.send("q")
    status, end = term.end()
    assert status == 0 and any("stopped before the end" in line for line in end)


@pytest.mark.parametrize("game,flags,seat,title", [
    ("pigugnin", ["num_players=5", "episode=hand"], 2, "Pigugnìn"),
    ("picchetto", ["episode=hand"], 1, "Picchetto"),
])
def test_every_screen_fits_80x24_to_the_end(game, flags, seat, title, tmp_path):
    path = tmp_path / "g.json"
    term = Terminal("play", game, "--seat", str(seat), "--seed", "3", "--save", str(path),
                    *[a for f in flags for a in ("--flag", f)])
    screens = play_out(term, f"{title} · you are player_{seat} · seed 3")
    status, end = term.end()
    assert status == 0 and len(screens) >= 8
    text = "\n".join(end)
    assert end[0].startswith(title) and "return" in end[1]
    result = json.loads(path.read_text())["hands"][-1]["result"]
    if game == "pigugnin":
        trickless = [p for p, t in enumerate(result["tricks"]) if t == 0]
        assert "busche paid:" in text
        assert (f"without a trick: player_{trickless[0]}" if trickless else "every player took a trick") in text
    else:
        assert "declarations:" in text and ("pique" in text or "capot" in text or "no pique, repique or capot" in text)


def test_replay_labels_the_person_from_the_record_and_says_how_it_ended(tmp_path):
    path = tmp_path / "g.json"
    term = Terminal("play", "briscola5", "--seat", "0", "--seed", "7", "--save", str(path))
    play_out(term, "Briscola in cinque", ["61", "pass"])
    assert term.end()[0] == 0
    term = Terminal("replay", str(path), "--seat", "2")
    screen = term.prompt()
    text = "\n".join(screen)
    assert screen[0].startswith("Briscola in cinque record: ") and "as player_2 saw it" in screen[0]
    assert "player_0 human" in text and "player_2 heuristic" in text and "(you)" not in text
    term.send("999")
    screen = term.prompt()
    text = "\n".join(screen)
    rec = json.loads(path.read_text())
    moves = sum(len(h["moves"]) for h in rec["hands"])
    made = "contract made" if rec["hands"][0]["result"]["caller_team_won"] else "contract lost"
    assert screen[1].startswith(f"position {moves}/{moves}") and made in text, text
    assert "player_0 human" in text
    term.send("q")
    assert term.end()[0] == 0
