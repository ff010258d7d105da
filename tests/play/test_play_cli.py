"""The `mazzo` command: `play` and `replay` driven by scripted input, `eval`/`train` forwarding."""

from __future__ import annotations

import io
import json
import subprocess
import sys

import pytest

pytest.importorskip("rich")
from rich.console import Console  # noqa: E402

from envs.records import load_records, redact, replay  # noqa: E402
from play.cli import main  # noqa: E402


def run(argv, lines):
    buf = io.StringIO()
    console = Console(file=buf, width=120, color_system=None)
    feed = iter(lines)
    asked = []

    def ask(prompt):
        asked.append(prompt)
        return next(feed)

    code = main(argv, ask=ask, console=console)
    return code, buf.getvalue(), asked


@pytest.mark.parametrize("game,flags", [("briscola5", []), ("pigugnin", ["episode='hand'"]),
                                        ("picchetto", ["episode=hand"])])
def test_play_a_whole_episode_with_bad_input_on_the_way(tmp_path, game, flags):
    path = tmp_path / "game.json"
    argv = ["play", game, "--seat", "1", "--seed", "4", "--save", str(path)] + [a for f in flags for a in ("--flag", f)]
    # nonsense, out of range, then always the first legal action
    code, out, asked = run(argv, ["hello", "0", "999"] + ["1"] * 2000)
    assert code == 0
    assert "'hello' is not one of the choices" in out and "'999' is not one of the choices" in out
    assert "your hand:" in out and "result" in out and f"record saved to {path}" in out
    rec = json.loads(path.read_text())
    assert rec["over"] and rec["players"][1]["spec"] == "human" and rec["players"][0]["spec"] == "heuristic"
    replay(rec)
    human = sum(1 for h in rec["hands"] for m in h["moves"] if m["seat"] == 1)
    assert len(asked) == human + 3  # asked again after each bad line, once per move otherwise


def test_play_by_action_name_and_quit(tmp_path):
    code, out, _ = run(["play", "briscola5", "--seed", "2", "--flag", "forfeit_enabled=False", "--seat", "1"],
                       ["pass", "q"])
    assert code == 0 and "you: pass" in out and "stopped before the end" in out


def test_play_bad_options_exit_2(capsys):
    assert main(["play", "briscola5", "--seat", "7"], ask=lambda p: "q") == 2
    assert "seat must be 0..4" in capsys.readouterr().err
    assert main(["play", "pigugnin", "--flag", "num_players=6"], ask=lambda p: "q") == 2
    assert "allowed: 4, 5" in capsys.readouterr().err
    assert main(["play", "picchetto", "--opponents", "a,b"], ask=lambda p: "q") == 2
    assert "give one opponent for all or 1" in capsys.readouterr().err


def test_replay_steps_forward_and_back(tmp_path):
    path = tmp_path / "g.json"
    run(["play", "picchetto", "--seed", "1", "--flag", "episode=hand", "--save", str(path)], ["1"] * 500)
    rec = load_records(path)[0]
    moves = sum(len(h["moves"]) for h in rec["hands"])
    code, out, asked = run(["replay", str(path)], ["", "n", "b", "5", "what", "999", "", "q"])
    assert code == 0
    positions = [line.split(":")[0] for line in out.splitlines() if line.startswith("position ")]
    assert positions == [f"position {i}/{moves}" for i in (0, 1, 2, 1, 5, 5, moves, moves)]
    assert "'what': use Enter/n, b, a number or q" in out and "the end of the record" in out
    assert "player_1: " in out  # every hand is shown for a full record


def test_replay_a_seat_and_a_redacted_record_and_jsonl(tmp_path):
    path = tmp_path / "g.json"
    run(["play", "briscola5", "--seed", "3", "--save", str(path)], ["1"] * 500)
    rec = load_records(path)[0]
    code, out, _ = run(["replay", str(path), "--seat", "2"], ["q"])
    assert code == 0 and "as player_2 saw it" in out
    red = tmp_path / "r.jsonl"
    red.write_text(json.dumps(redact(rec, 0)) + "\n" + json.dumps(rec) + "\n")
    code, out, _ = run(["replay", str(red)], ["q"])
    assert code == 0 and "as player_0 saw it" in out
    code, out, _ = run(["replay", str(red), "--index", "1"], ["q"])
    assert code == 0 and "every seat's cards shown" in out


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


def test_the_console_script_is_installed():
    out = subprocess.run([sys.executable, "-m", "play.cli", "--help"], capture_output=True, text=True, check=True).stdout
    assert "play" in out and "replay" in out and "serve" in out


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
