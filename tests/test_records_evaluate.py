"""Records from evaluation: ``python -m train.evaluate ... --save-games FILE.jsonl``."""

from __future__ import annotations

import json

import pytest

from envs.core.errors import ConfigError
from envs.records import load_records, replay
from train import evaluate as evaluate_mod
from train.evaluate import evaluate


@pytest.mark.parametrize("workers", [1, 2])
def test_save_games_writes_one_replayable_record_per_episode(tmp_path, workers):
    path = tmp_path / "games.jsonl"
    evaluate("picchetto", ["heuristic", "random"], num_deals=3, seed=4, flags={"episode": "hand"},
             workers=workers, save_games=path)
    recs = load_records(path)
    assert len(recs) == 3 * 2  # two seatings (rotations) per deal
    for i, rec in enumerate(recs):
        assert rec["seating"]["deal"] == i // 2 and rec["seating"]["seating"] == i % 2
        entry_at = rec["seating"]["entry_at"]
        assert [p["entry"] for p in rec["players"]] == entry_at
        assert [p["spec"] for p in rec["players"]] == [["heuristic", "random"][e] for e in entry_at]
        replay(rec)
    # the same deal gives the same cards to both seatings (duplicate deals)
    assert recs[0]["hands"][0]["deal"] == recs[1]["hands"][0]["deal"]


def test_save_games_is_the_same_for_any_number_of_workers(tmp_path):
    files = []
    for workers in (1, 2):
        path = tmp_path / f"g{workers}.jsonl"
        evaluate("briscola5", ["heuristic"] + ["random"] * 4, num_deals=2, seed=1, workers=workers, save_games=path,
                 duplicate=False)
        files.append(path.read_text())
    assert files[0] == files[1] and len(files[0].splitlines()) == 2


def test_save_games_from_the_command_line(tmp_path, capsys):
    path = tmp_path / "sub" / "games.jsonl"
    code = evaluate_mod.main(["--game", "pigugnin", "--players", "heuristic", "random", "random", "random",
                              "--deals", "1", "--plain", "--flag", "episode='hand'", "--out", str(tmp_path / "out"),
                              "--no-progress", "--save-games", str(path)])
    assert code == 0
    (rec,) = [json.loads(line) for line in path.read_text().splitlines()]
    assert rec["format"] == "mazzo-record/1" and rec["flags"]["episode"] == "hand" and len(rec["players"]) == 4
    replay(rec)
    assert str(path) in capsys.readouterr().out


def test_save_games_bad_path_fails_before_playing(tmp_path, capsys):
    with pytest.raises(ConfigError, match="is a folder"):
        evaluate("picchetto", ["random", "random"], num_deals=1, save_games=tmp_path)
    code = evaluate_mod.main(["--game", "picchetto", "--rating", "random", "heuristic", "--deals", "1",
                              "--out", str(tmp_path / "o"), "--save-games", str(tmp_path / "g.jsonl")])
    assert code == 2 and "--save-games works with --players" in capsys.readouterr().err
