"""The `mazzo` command: `play` and `replay` driven by scripted input, `eval`/`train` forwarding."""

from __future__ import annotations

import io
import json
import re
import subprocess
import sys

import pytest

pytest.importorskip("rich")
from rich.console import Console  # noqa: E402

from envs.core.cards import ITALIAN  # noqa: E402
from envs.records import load_records, redact, replay  # noqa: E402
from play.cli import main  # noqa: E402
from tests.play.robot import last_screen, pick  # noqa: E402

CODES = ITALIAN.codes


def run(argv, lines, height=24, width=80):
    """``main(argv)`` with a recording console; ``lines``: the answers, a list, or a function
    of the screen so far (the robot)."""
    buf = io.StringIO()
    console = Console(file=buf, width=width, height=height, color_system=None)
    feed = iter(lines) if not callable(lines) else None
    asked = []

    def ask(prompt):
        asked.append(prompt)
        return next(feed) if feed is not None else lines(buf.getvalue(), prompt)

    code = main(argv, ask=ask, console=console)
    return code, buf.getvalue(), asked


def scripted(first):
    """The answers ``first``, then the robot's moves."""
    queue = list(first)

    def answer(text, prompt):
        return queue.pop(0) if queue else pick(last_screen(text))

    return answer


@pytest.mark.parametrize("game,flags", [("briscola5", []), ("pigugnin", ["episode='hand'"]),
                                        ("picchetto", ["episode=hand"])])
def test_play_a_whole_episode_with_bad_input_on_the_way(tmp_path, game, flags):
    path = tmp_path / "game.json"
    argv = ["play", game, "--seat", "1", "--seed", "4", "--save", str(path)] + [a for f in flags for a in ("--flag", f)]
    code, out, asked = run(argv, scripted(["hello", "0", "zz9"]))
    assert code == 0
    assert "'hello' is not a move here" in out and "'zz9' is not a move here" in out
    assert "0 is not a legal bid now" in out if game == "briscola5" else "a number is not a move here" in out
    assert "your hand:" in out and f"record saved to {path}" in out
    rec = json.loads(path.read_text())
    assert rec["over"] and rec["players"][1]["spec"] == "human" and rec["players"][0]["spec"] == "heuristic"
    replay(rec)
    human = sum(1 for h in rec["hands"] for m in h["moves"] if m["seat"] == 1)
    assert len(asked) == human + 3  # asked again after each bad line, once per move otherwise
    # the end screen: the table's columns are the summary's rows, then the game's headline
    end = last_screen(out)
    assert "return" in end[1] and not any(line.startswith("your move") for line in end)
    headline = {"briscola5": ("contract made", "contract lost", "the hand is void"),
                "pigugnin": ("busche paid",), "picchetto": ("declarations:",)}[game]
    assert any(h in line for line in end for h in headline), "\n".join(end)


def test_a_bid_is_typed_by_its_value_and_never_confused_with_a_menu_number(tmp_path):
    """The `61` trap: typing 61 bid 120 when 61 was the 61st line of a numbered menu."""
    path = tmp_path / "g.json"
    code, out, asked = run(["play", "briscola5", "--seed", "7", "--save", str(path)], scripted(["61", "bid 95", "n", "pass"]))
    assert code == 0
    assert "moves: bid 61-120 · pass" in out and "bid 82-120 · pass" in out
    first = [m["name"] for h in json.loads(path.read_text())["hands"] for m in h["moves"] if m["seat"] == 0]
    assert first[:2] == ["bid 61", "pass"]  # 61 is bid 61; the declined jump bid 95 was not played
    assert "bid 95? bid 95 is 13 over the lowest bid now (82)" in out and "not played: bid 95" in out
    assert asked[1:4] == ["your move> ", "confirm bid 95? [y/N]> ", "your move> "]


def test_a_jump_bid_and_a_solo_call_ask_first_and_a_bare_code_is_the_move(tmp_path):
    path = tmp_path / "g.json"
    # seat 0 of seed 7 holds 6C 7C 4D 5D 3S AB 6B JB: bid 120 (a jump), call AB (a card it holds: solo)
    code, out, asked = run(["play", "briscola5", "--seed", "7", "--save", str(path)], ["120", "y", "ab", "y", "jB", "q"])
    assert code == 0 and "stopped before the end" in out
    assert asked[1] == "confirm bid 120? [y/N]> " and asked[3] == "confirm call AB? [y/N]> "
    assert "you hold AB: calling it means playing alone (solo)" in out
    mine = [m["name"] for h in json.loads(path.read_text())["hands"] for m in h["moves"] if m["seat"] == 0]
    assert mine[:2] == ["bid 120", "call AB"] and "play JB" in mine


@pytest.mark.parametrize("line,expected", [
    ("75", "bid 75"), ("bid 75", "bid 75"), ("  BID   75 ", "bid 75"), ("pass", "pass"), ("pa", "pass"),
])
def test_parse_move_in_the_auction(line, expected):
    from play.terminal import parse_move

    legal = [{"id": 80, "name": "pass"}] + [{"id": 81 + v - 61, "name": f"bid {v}"} for v in range(70, 121)]
    ids = {a["name"]: a["id"] for a in legal}
    assert parse_move(line, legal, ["AB"], CODES) == ids[expected]


@pytest.mark.parametrize("line,message", [
    ("61", "61 is not a legal bid now: bid 70-120 · pass"), ("3", "3 is not a legal bid now"),
    ("AB", "AB: you hold it, but no move with that card is legal now"), ("", "type a move: bid 70-120 · pass"),
    ("p", "'p' is not a move here"),
])
def test_parse_move_says_what_is_allowed(line, message):
    from play.terminal import MoveError, parse_move

    legal = [{"id": 80, "name": "pass"}] + [{"id": 81 + v - 61, "name": f"bid {v}"} for v in range(70, 121)]
    with pytest.raises(MoveError, match=re.escape(message)):
        parse_move(line, legal, ["AB"], CODES)


def test_parse_move_plays_a_bare_card_code_and_the_menu_is_compact():
    from play.terminal import menu_text, parse_move

    legal = [{"id": 0, "name": "play AC"}, {"id": 21, "name": "play 2S"}]
    assert parse_move("ac", legal, ["AC", "2S", "KB"], CODES) == 0 and parse_move("play 2s", legal, ["AC"], CODES) == 21
    assert menu_text(legal, ["AC", "2S", "KB"], CODES) == "play AC 2S"
    assert menu_text(legal, ["AC", "2S"], CODES) == "play any card of your hand"
    calls = [{"id": 40 + c, "name": f"call {code}"} for c, code in enumerate(CODES)]
    assert menu_text(calls, ["AC"], CODES) == "call any of 40 cards"
    gaps = [{"id": 1, "name": "bid 61"}, {"id": 2, "name": "bid 62"}, {"id": 9, "name": "bid 70"}, {"id": 0, "name": "pass"}]
    assert menu_text(gaps, [], CODES) == "bid 61-62, 70 · pass"


def test_the_screen_fits_the_terminal_however_many_moves():
    """At 80x24 and at 60x16 every screen keeps the table, the hand and the menu (the oldest moves go)."""
    for width, height in ((80, 24), (60, 16)):
        code, out, _ = run(["play", "pigugnin", "--seat", "3", "--seed", "1", "--flag", "num_players=5",
                            "--flag", "episode=hand"], scripted([]), height=height, width=width)
        assert code == 0
        screens = out.split("Pigugnìn · you are player_3")[1:]
        assert len(screens) > 5
        for screen in screens[:-1]:
            lines = screen.splitlines()
            assert len(lines) <= height - 1, screen  # the prompt takes the last line
            assert all(len(line) < width for line in lines)
            assert lines[1].lstrip().startswith("seat") and any(line.startswith("your hand: ") for line in lines)
            assert any(line.startswith("moves: ") for line in lines)


def test_play_by_action_name_and_quit(tmp_path):
    code, out, _ = run(["play", "briscola5", "--seed", "2", "--flag", "forfeit_enabled=False", "--seat", "1"],
                       ["pass", "q"])
    assert code == 0 and "you pass" in out and "stopped before the end" in out


def test_play_bad_options_exit_2(capsys):
    assert main(["play", "briscola5", "--seat", "7"], ask=lambda p: "q") == 2
    assert "seat must be 0..4" in capsys.readouterr().err
    assert main(["play", "pigugnin", "--flag", "num_players=6"], ask=lambda p: "q") == 2
    assert "allowed: 4, 5" in capsys.readouterr().err
    assert main(["play", "picchetto", "--opponents", "a,b"], ask=lambda p: "q") == 2
    assert "give one opponent for all or 1" in capsys.readouterr().err


def test_replay_steps_forward_and_back(tmp_path):
    path = tmp_path / "g.json"
    run(["play", "picchetto", "--seed", "1", "--flag", "episode=hand", "--save", str(path)], scripted([]))
    rec = load_records(path)[0]
    moves = sum(len(h["moves"]) for h in rec["hands"])
    code, out, asked = run(["replay", str(path)], ["", "n", "b", "5", "what", "999", "", "q"])
    assert code == 0
    positions = [line.split(":")[0] for line in out.splitlines() if line.startswith("position ")]
    assert positions == [f"position {i}/{moves}" for i in (0, 1, 2, 1, 5, 5, moves, moves)]
    assert "'what': use Enter/n, b, a number or q" in out and "the end of the record" in out
    assert "player_1: " in out  # every hand is shown for a full record
    # the last position says how the hand went, and its table is the summary's
    end = out.split(f"position {moves}/{moves}")[-1]
    assert "declarations:" in end and "return" in end


def test_replay_a_seat_and_a_redacted_record_and_jsonl(tmp_path):
    path = tmp_path / "g.json"
    run(["play", "briscola5", "--seed", "3", "--save", str(path)], scripted([]))
    rec = load_records(path)[0]
    code, out, _ = run(["replay", str(path), "--seat", "2"], ["q"])
    assert code == 0 and "as player_2 saw it" in out
    # the person sat at seat 0: the record says so, whoever's view is replayed
    assert "player_0 human" in out and "player_2 heuristic" in out and "(you)" not in out
    code, out, _ = run(["replay", str(path), "--seat", "2"], ["999", "q"])
    tricks = [line for line in out.splitlines() if line.startswith("trick ") and ": " in line]
    assert tricks and all("p2 [" in t for t in tricks) and not [t for t in tricks if "you" in t], tricks
    red = tmp_path / "r.jsonl"
    red.write_text(json.dumps(redact(rec, 0)) + "\n" + json.dumps(rec) + "\n")
    code, out, _ = run(["replay", str(red)], ["q"])
    assert code == 0 and "as player_0 saw it" in out
    code, out, _ = run(["replay", str(red), "--index", "1"], ["q"])
    assert code == 0 and "every seat's cards shown" in out


def test_replay_of_the_partners_view_names_the_partner(tmp_path):
    """`mazzo replay --seat P` shows what the partner knew, in the third person: the reader sat nowhere."""
    path = tmp_path / "g.json"
    run(["play", "briscola5", "--seed", "7", "--save", str(path)], scripted([]))
    hand = load_records(path)[0]["hands"][-1]
    caller, partner = hand["result"]["caller"], hand["result"]["partner"]
    assert partner not in (0, caller)  # seed 7: a secret partner, not the person's seat 0
    called = next(k for k, m in enumerate(hand["moves"], 1) if m["name"].startswith("call "))
    code, out, _ = run(["replay", str(path), "--seat", str(partner)], [str(called), "q"])
    shown = out.rsplit("position ", 1)[-1]  # the position right after the call
    assert code == 0 and shown.startswith(f"{called}/") and f"player_{partner} is the partner" in shown
    assert "you are the partner" not in out
    code, out, _ = run(["replay", str(path), "--seat", "0"], [str(called), "q"])
    assert "partner hidden" in out.rsplit("position ", 1)[-1] and "is the partner" not in out


def test_replay_says_whether_the_contract_was_made(tmp_path):
    path = tmp_path / "g.json"
    run(["play", "briscola5", "--seed", "7", "--save", str(path)], scripted(["61"]))
    rec = load_records(path)[0]
    made = rec["hands"][-1]["result"]["caller_team_won"]
    code, out, _ = run(["replay", str(path), "--seat", "2"], ["999", "q"])
    end = out.rsplit("position ", 1)[-1]  # the last screen: 999 jumps to the end
    assert code == 0 and ("contract made" if made else "contract lost") in end
    points = rec["hands"][-1]["result"]["caller_team_points"]
    assert f"took {points} of 120 card points" in end


def test_replay_errors(tmp_path, capsys):
    assert main(["replay", str(tmp_path / "missing.json")], ask=lambda p: "q") == 2
    assert "cannot read" in capsys.readouterr().err
    bad = tmp_path / "bad.json"
    bad.write_text('{"format": "mazzo-record/1", "game": "briscola5", "flags": {}, "num_players": 5, "hands": '
                   '[{"hand_no": 1, "dealer": 0, "deal": {"hands": [[], [], [], [], []]}, "moves": []}]}')
    assert main(["replay", str(bad)], ask=lambda p: "q") == 2
    assert "hand 1: the " in capsys.readouterr().err
    assert main(["replay", str(bad), "--index", "3"], ask=lambda p: "q") == 2


def test_eval_and_train_forward(tmp_path):
    code = main(["eval", "--game", "picchetto", "--players", "heuristic", "random", "--deals", "1", "--plain",
                 "--flag", "episode='hand'", "--out", str(tmp_path / "e"), "--no-progress",
                 "--save-games", str(tmp_path / "g.jsonl")])
    assert code == 0 and len(load_records(tmp_path / "g.jsonl")) == 1
    assert main(["eval", "--game", "nope", "--players", "random"]) == 2


def test_train_takes_the_config_as_its_first_argument(capsys):
    """`mazzo train CONFIG` is `python -m train --config CONFIG`: the config's trainer parses the rest."""
    pytest.importorskip("torch")
    with pytest.raises(SystemExit) as done:
        main(["train", "configs/briscola5/ppo_batched.yaml", "--help"])
    out = capsys.readouterr().out
    assert done.value.code in (0, None) and out.startswith("usage: mazzo train [--config FILE.yaml]")
    assert "(default: 'ppo_batched')" in out  # the config's values are the defaults shown: it was read
    assert main(["train", "configs/briscola5/nope.yaml"]) == 2
    assert capsys.readouterr().err == "error: config file not found: 'configs/briscola5/nope.yaml'\n"
    assert main(["train", "configs/picchetto/ppo.yaml", "--resume", "missing.mazzo.zip"]) == 2
    err = capsys.readouterr().err
    assert err.startswith("error: checkpoint not found: 'missing.mazzo.zip'") and err.count("\n") == 1


def test_help_lists_every_command():
    out = subprocess.run([sys.executable, "-m", "play.cli", "--help"], capture_output=True, text=True, check=True).stdout
    listed = re.search(r"\{([a-z,]+)\}", out).group(1).split(",")
    assert listed == ["play", "replay", "serve", "eval", "train"]
    for command in listed:
        assert re.search(rf"^\s+{command}\s+\S", out, re.M), f"{command} has no help line"


@pytest.mark.parametrize("command,argv,extra,missing", [
    ("play", ["play", "briscola5"], "play", "rich"), ("replay", ["replay", "x.json"], "play", "rich"),
    ("serve", ["serve"], "play", "uvicorn"), ("train", ["train", "--config", "x.yaml"], "train", "torch"),
])
def test_a_missing_extra_is_one_line_and_exit_2_before_any_work(command, argv, extra, missing):
    """As after `pip install -e .` alone: the module cannot be found (``sys.modules[name] = None``)."""
    code = (f"import sys; sys.modules[{missing!r}] = None\n"
            f"from play.cli import main\nsys.exit(main({argv!r}))")
    done = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True)
    assert done.returncode == 2 and done.stdout == ""
    assert done.stderr == f"error: mazzo {command} needs the '{extra}' extra (missing: {missing}): pip install 'mazzo[{extra}]'\n"


def test_a_trained_bots_probabilities_are_kept_in_the_record():
    import numpy as np

    from play.session import Session

    class Policy:
        """Stands in for a trained agent: uniform over the legal actions, and says so."""

        name = "policy"

        def act(self, obs):
            return int(np.flatnonzero(obs["action_mask"])[0])

        def probs(self, obs):
            mask = obs["action_mask"].astype(float)
            return mask / mask.sum()

        def reset(self):
            pass

    s = Session("picchetto", seat=0, seed=3, flags={"episode": "hand"}, opponents="random")
    s.bots[1] = Policy()
    s.notes.clear()
    while not s.over:
        s.act(s.legal()[0]["id"])
        s._play_bots()
    rec = s.record()
    notes = [m for h in rec["hands"] for m in h["moves"] if "note" in m]
    assert notes and all(m["seat"] == 1 and m["name"] in m["note"]["probs"] for m in notes)
    replay(rec)
    assert not [m for h in s.record(redacted=True)["hands"] for m in h["moves"] if "note" in m]
