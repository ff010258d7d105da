"""The evaluation protocol: every game, duplicate rotation, reproducibility, outputs and bad input."""

from __future__ import annotations

import csv
import importlib.util
import json
import re
import zipfile
from collections import Counter

import numpy as np
import pytest

import train.evaluation.core as evaluate_mod
import train.evaluation.play as eval_play
from agents.base import BaseAgent, legal_actions
from envs.core.errors import ConfigError
from tests.envs.common import first_fast
from train.evaluate import evaluate, head_to_head, main, parse_flag
from train.evaluation.play import derive_seed, seatings


class FirstLegal(BaseAgent):
    """Deterministic: the lowest legal action id (ignores its seed)."""

    name = "first"

    def act(self, observation):
        return int(legal_actions(observation)[0])


class ObsHash(BaseAgent):
    """Deterministic but deal-dependent: a legal action chosen by a hash of the observation."""

    name = "hash"

    def act(self, observation):
        legal = legal_actions(observation)
        return int(legal[int(observation["observation"].sum() * 997) % legal.size])


class Illegal(BaseAgent):
    """Always answers an action id no mask allows: a player that does not fit any game."""

    name = "illegal"

    def act(self, observation):
        return len(observation["action_mask"]) + 3


SEATS = {"briscola5": 5, "pigugnin": 4, "picchetto": 2}
ZERO_SUM = {"briscola5", "picchetto"}

CASES = [
    ("briscola5", {}),
    ("briscola5", {"num_hands": 2}),
    ("pigugnin", {}),
    ("pigugnin", {"num_players": 5, "episode": "hand"}),
    ("picchetto", {}),
    ("picchetto", {"episode": "game"}),
    ("picchetto", {"episode": "hand"}),
]


@pytest.mark.parametrize(("game", "flags"), CASES)
def test_protocol_on_every_game(game, flags, tmp_path):
    n = flags.get("num_players", SEATS[game])
    deals = 3
    res = evaluate(game, ["random"] * n, num_deals=deals, seed=5, flags=flags)
    assert res.deal_counts.shape[:2] == (deals, n)
    assert [r["player"] for r in res.table] == [f"random#{i}" for i in range(1, n + 1)]
    for i, row in enumerate(res.table):
        assert row["episodes"] == deals * n  # duplicate: every entry plays every seating of every deal
        assert np.all(res.column(i, "episodes") == n)
        assert row["hands"] >= row["episodes"]
        assert row["decided"] == row["episodes"] or row["decided"] == 0
        if row["decided"]:
            assert row["win"] + row["draw"] + row["lose"] == pytest.approx(1.0)
        else:
            assert row["win"] is None
        assert set(row["figures"]) == {f[0] for f in res.figures}
    rewards = np.stack([res.column(i, "reward") for i in range(n)])
    if game in ZERO_SUM:
        assert np.allclose(rewards.sum(axis=0), 0.0)
    if game == "briscola5":
        hands = res.column(0, "hands")
        assert np.all(hands == n * flags.get("num_hands", 1))
        callers = sum(res.column(i, "caller") for i in range(n))
        assert np.array_equal(callers, res.column(0, "played"))  # one caller per played hand
        assert all(np.all(res.column(i, "made") <= res.column(i, "caller")) for i in range(n))
    if game == "pigugnin":
        for i in range(n):  # default outcome_reward is 0: the return is minus the busche paid
            assert np.array_equal(res.column(i, "reward"), -res.column(i, "busche"))
        pig = sum(res.column(i, "pigugnin") for i in range(n))
        assert np.array_equal(pig, res.column(0, "hands"))  # somebody takes the JS in every hand
    if game == "picchetto":
        assert all(r["draw"] in (0.0, None) for r in res.table)
        if flags.get("episode") == "hand":
            assert np.all(res.column(0, "hands") == n)
    # outputs
    paths = res.save(tmp_path)
    data = json.loads(paths["json"].read_text())
    assert data["config"]["game"] == game and data["config"]["flags"] == flags
    assert len(data["players"]) == n and len(data["per_deal_reward_per_episode"]["random#1"]) == deals
    with paths["csv"].open() as f:
        rows = list(csv.DictReader(f))
    assert [r["player"] for r in rows] == res.labels
    assert float(rows[0]["reward_per_episode_mean"]) == pytest.approx(res.table[0]["reward_per_episode"]["mean"])
    assert paths["png"].read_bytes()[:8] == b"\x89PNG\r\n\x1a\n"
    text = str(res)
    assert all(label in text for label in res.labels) and all(f[0] in text for f in res.figures)


@pytest.mark.parametrize("n", [2, 4, 5])
def test_rotations_put_every_entry_on_every_seat_once(n):
    table = seatings(n, "rotate")
    assert len(table) == n
    for entry in range(n):
        assert sorted(t.index(entry) for t in table) == list(range(n))
    perms = seatings(n, "permute")
    assert len(set(perms)) == len(perms) == {2: 2, 4: 24, 5: 120}[n]


@pytest.mark.parametrize("game", sorted(SEATS))
def test_duplicate_play_rotates_the_line_up_over_the_same_deal(game, monkeypatch):
    n = SEATS[game]
    agents = [FirstLegal(game) for _ in range(n)]
    calls = []
    real = eval_play.play_episode

    def spy(env, seat_agents, deal_seed, agent_seeds, scorer):
        calls.append(([agents.index(a) for a in seat_agents], deal_seed, tuple(agent_seeds)))
        return real(env, seat_agents, deal_seed, agent_seeds, scorer)

    monkeypatch.setattr(eval_play, "play_episode", spy)
    evaluate(game, agents, num_deals=2, seed=9)
    assert len(calls) == 2 * n
    for d in range(2):
        deal = calls[d * n:(d + 1) * n]
        assert {c[1] for c in deal} == {derive_seed(9, 0, d)}  # the same cards every time
        for entry in range(n):  # each entry at each seat exactly once
            assert Counter(c[0].index(entry) for c in deal) == Counter(range(n))
    assert len({s for c in calls for s in c[2]}) == 2 * n * n  # a distinct agent seed per (deal, seating, seat)


@pytest.mark.parametrize("game", sorted(SEATS))
def test_duplicate_cancels_card_luck_for_identical_players(game):
    """Identical deterministic players: every entry plays every hand, so all get the same total."""
    n = SEATS[game]
    flags = {"episode": "game"} if game == "picchetto" else {}
    res = evaluate(game, [ObsHash(game) for _ in range(n)], num_deals=4, seed=2, flags=flags)
    rewards = np.stack([res.column(i, "reward") for i in range(n)])
    assert np.allclose(rewards, rewards[0])
    if game in ZERO_SUM:
        assert np.allclose(rewards, 0.0) and res.table[0]["reward_per_episode"]["ci95"] == 0.0
    plain = evaluate(game, [ObsHash(game) for _ in range(n)], num_deals=4 * n, seed=2, flags=flags,
                     duplicate=False)
    assert np.all(plain.column(0, "episodes") == 1)
    assert plain.table[0]["reward_per_episode"]["ci95"] > 0.0  # plain deals keep the luck of the cards


def test_plain_deals_rotate_the_seating_from_deal_to_deal(monkeypatch):
    agents = [FirstLegal("picchetto"), FirstLegal("picchetto")]
    seen = []
    real = eval_play.play_episode

    def spy(env, seat_agents, deal_seed, agent_seeds, scorer):
        seen.append((agents.index(seat_agents[0]), deal_seed))
        return real(env, seat_agents, deal_seed, agent_seeds, scorer)

    monkeypatch.setattr(eval_play, "play_episode", spy)
    evaluate("picchetto", agents, num_deals=4, duplicate=False, flags={"episode": "hand"})
    assert [s[0] for s in seen] == [0, 1, 0, 1]
    assert len({s[1] for s in seen}) == 4


@pytest.mark.parametrize("game", first_fast(sorted(SEATS)))
def test_reproducible_and_independent_of_worker_count(game):
    n = SEATS[game]
    flags = {"episode": "game"} if game == "picchetto" else {}
    players = ["random"] * n
    for duplicate in (True, False):
        one = evaluate(game, players, num_deals=5, seed=11, flags=flags, duplicate=duplicate)
        again = evaluate(game, players, num_deals=5, seed=11, flags=flags, duplicate=duplicate)
        two = evaluate(game, players, num_deals=5, seed=11, flags=flags, duplicate=duplicate, workers=2)
        assert np.array_equal(one.deal_counts, again.deal_counts)
        assert np.array_equal(one.deal_counts, two.deal_counts)
        assert one.table == two.table
    other = evaluate(game, players, num_deals=5, seed=12, flags=flags)
    assert not np.array_equal(one.deal_counts, other.deal_counts)


def test_agent_objects_are_reseeded_every_episode():
    from agents.random_agent import RandomAgent

    a = evaluate("picchetto", [RandomAgent("picchetto"), RandomAgent("picchetto")], num_deals=3, seed=4,
                 flags={"episode": "hand"})
    b = evaluate("picchetto", ["random", "random"], num_deals=3, seed=4, flags={"episode": "hand"})
    assert np.array_equal(a.deal_counts, b.deal_counts)


def test_head_to_head_is_the_candidate_row():
    h = head_to_head("pigugnin", "random", "random", num_deals=3, seed=1, flags={"episode": "hand"})
    res = evaluate("pigugnin", ["random"] * 4, num_deals=3, seed=1, flags={"episode": "hand"})
    row = res.table[0]
    assert h["mean"] == row["reward_per_episode"]["mean"] and h["ci95"] == row["reward_per_episode"]["ci95"]
    assert h["mean_per_hand"] == row["reward_per_hand"]["mean"]
    assert h["low"] < h["mean"] < h["high"] and h["n_deals"] == 3 and h["episodes"] == 12
    obj = head_to_head("briscola5", FirstLegal("briscola5"), FirstLegal("briscola5"), num_deals=2)
    assert obj["mean"] == 0.0  # identical players in duplicate deals of a zero-sum game


@pytest.mark.skipif(importlib.util.find_spec("agents.briscola5_heuristic") is None, reason="no Briscola heuristic")
def test_briscola_heuristic_beats_random_with_an_interval_above_zero():
    h = head_to_head("briscola5", "heuristic", "random", num_deals=30, seed=0)
    assert h["low"] > 0.0


# -- bad input -----------------------------------------------------------------------------------

@pytest.fixture
def no_games(monkeypatch):
    def boom(*a, **k):
        raise AssertionError("a game was played")

    monkeypatch.setattr(evaluate_mod, "play_deal", boom)
    monkeypatch.setattr(evaluate_mod, "run_chunk", boom)
    monkeypatch.setattr(eval_play, "play_episode", boom)


def _fake_checkpoint(path, game, obs_size, num_actions):
    with zipfile.ZipFile(path, "w") as z:
        z.writestr("mazzo.json", json.dumps({"format": "mazzo-ppo/1", "game": game, "flags": {},
                                             "obs_shape": [obs_size], "num_actions": num_actions}))
    return path


def test_bad_input_raises_before_any_game(no_games, tmp_path, monkeypatch):
    five = ["random"] * 5
    cases = [
        (lambda: evaluate("scopa", five, num_deals=2), "unknown game 'scopa'"),
        (lambda: evaluate("briscola5", ["random"] * 4 + ["wizard"], num_deals=2), "unknown agent 'wizard'"),
        (lambda: evaluate("briscola5", five, num_deals=2, flags={"colour": 1}), "unknown flag 'colour'"),
        (lambda: evaluate("briscola5", five, num_deals=2, flags={"num_hands": 0}), "num_hands"),
        (lambda: evaluate("pigugnin", five, num_deals=2), "has 4 seats; got 5 players"),
        (lambda: evaluate("pigugnin", ["random"] * 4, num_deals=2, flags={"num_players": 5}), "has 5 seats"),
        (lambda: evaluate("briscola5", five, num_deals=0), "num_deals"),
        (lambda: evaluate("briscola5", five, num_deals=2, seed=-1), "seed"),
        (lambda: evaluate("briscola5", five, num_deals=2, workers=0), "workers"),
        (lambda: evaluate("briscola5", five, num_deals=2, seating="shuffle"), "unknown seating"),
        (lambda: evaluate("briscola5", "random", num_deals=2), "list"),
        (lambda: evaluate("briscola5", ["random"] * 4 + [42], num_deals=2), "agent spec string or an Agent"),
        (lambda: evaluate("picchetto", ["random", "ppo:/nowhere/model.zip"], num_deals=2), "does not exist"),
        (lambda: evaluate("picchetto", ["random", Illegal("picchetto")], num_deals=2), "does not fit"),
        (lambda: evaluate("picchetto", ["random", FirstLegal("picchetto")], num_deals=2, workers=2), "workers=1"),
        (lambda: evaluate("briscola5", five, num_deals=2, flags={"render_mode": "ansi"}), "render_mode"),
        (lambda: evaluate("picchetto", ["random", "pretrained:briscola5"], num_deals=2), "does not fit"),
    ]
    for call, message in cases:
        with pytest.raises(ConfigError, match=message):
            call()
    # a checkpoint of another game, one of the wrong shape, and a file that is no checkpoint
    other = _fake_checkpoint(tmp_path / "pig.zip", "pigugnin", 546, 40)
    junk = tmp_path / "junk.zip"
    junk.write_bytes(b"not a zip")
    for game, players, flags in [
        ("briscola5", [f"ppo:{other}"] + ["random"] * 4, {}),
        ("pigugnin", [f"ppo:{other}"] + ["random"] * 4, {"num_players": 5}),
        ("picchetto", [f"ppo:{junk}", "random"], {}),
    ]:
        with pytest.raises(ConfigError, match="ppo:"):
            evaluate(game, players, num_deals=2, flags=flags)


def test_missing_heuristic_is_a_clear_error(no_games, monkeypatch):
    import dataclasses

    from envs.registry import GAMES

    monkeypatch.setitem(GAMES, "picchetto", dataclasses.replace(GAMES["picchetto"], heuristic="agents.no_such_heuristic:Nope"))
    with pytest.raises(ConfigError, match="agent 'heuristic' is not available for game 'picchetto'"):
        evaluate("picchetto", ["heuristic", "random"], num_deals=2)


# -- command line -----------------------------------------------------------------------------------

def test_parse_flag_literals_yaml_and_text():
    assert parse_flag("num_hands=3") == ("num_hands", 3)
    assert parse_flag("episode=hand") == ("episode", "hand")
    assert parse_flag("forfeit_enabled=false") == ("forfeit_enabled", False)
    assert parse_flag("outcome_reward={'win': 1, 'lose': -1}") == ("outcome_reward", {"win": 1, "lose": -1})
    assert parse_flag("outcome_reward={win: 1}") == ("outcome_reward", {"win": 1})
    with pytest.raises(ConfigError, match="key=value"):
        parse_flag("episode")


def test_cli_writes_table_json_csv_png(tmp_path, capsys):
    out = tmp_path / "run"
    argv = ["--game", "picchetto", "--players", "random", "random", "--deals", "3", "--seed", "2",
            "--flag", "episode=hand", "--out", str(out), "--no-progress"]
    assert main(argv) == 0
    printed = capsys.readouterr().out
    assert "reward/episode" in printed and "pique_rate" in printed
    data = json.loads((out / "eval.json").read_text())
    assert data["config"]["command"] == "python -m train.evaluate " + " ".join(argv)
    assert data["config"]["flags"] == {"episode": "hand"} and data["config"]["num_deals"] == 3
    assert (out / "eval.csv").exists() and (out / "eval.png").exists()
    res = evaluate("picchetto", ["random", "random"], num_deals=3, seed=2, flags={"episode": "hand"})
    assert data["players"][0]["reward_per_episode"]["mean"] == res.table[0]["reward_per_episode"]["mean"]


def test_cli_bad_input_exits_2_without_output(tmp_path, capsys, no_games):
    out = tmp_path / "run"
    assert main(["--game", "briscola5", "--players", "random", "--out", str(out)]) == 2
    assert "has 5 seats; got 1 players" in capsys.readouterr().err
    assert main(["--game", "picchetto", "--players", "random", "random", "--flag", "nope=1", "--out", str(out)]) == 2
    assert "unknown flag 'nope'" in capsys.readouterr().err
    assert not out.exists()


# -- one deal and proportions ----------------------------------------------------------------------

def test_one_deal_has_no_interval_and_prints_n_a(tmp_path):
    import yaml

    from train.report import final_table, results_table, write_report

    res = evaluate("briscola5", ["heuristic"] + ["random"] * 4, num_deals=1, seed=3)
    row = res.table[0]
    assert row["reward_per_episode"]["mean"] is not None and row["reward_per_episode"]["low"] is None
    text = str(res)
    assert "[n/a]" in text and "caller_rate" in text
    paths = res.save(tmp_path / "eval")
    assert json.loads(paths["json"].read_text())["players"][0]["reward_per_episode"]["high"] is None
    # the training report of a run evaluated on one deal (train.ppo --eval_deals 1 --final_deals 1)
    run = tmp_path / "briscola5__ppo__1__0"
    run.mkdir()
    h = head_to_head("briscola5", "heuristic", "random", num_deals=1, seed=3)
    with (run / "eval.csv").open("w", newline="") as f:  # as train.ppo writes it: None is an empty cell
        w = csv.writer(f)
        w.writerow(["step", "opponent", "mean", "low", "high", "ci95", "n_deals", "mean_per_hand"])
        for step in (0, 128):
            w.writerow([step, "random", h["mean"], h["low"], h["high"], h["ci95"], 1, h["mean_per_hand"]])
    (run / "metrics.csv").write_text("step,episodes,ep_return_mean,time\n128,20,-1.5,3.2\n")
    final = {"best_step": 128, "rows": [{"opponent": "random", "mean": h["mean"], "low": None, "high": None,
                                         "ci95": None, "n_deals": 1, "heuristic_mean": h["mean"],
                                         "heuristic_low": None, "heuristic_high": None, "random_mean": -1.0,
                                         "random_low": None, "random_high": None}]}
    config = {"game": "briscola5", "env": {}, "opponents": "heuristic", "exp_name": "ppo", "total_timesteps": 128}
    report = write_report(run, config, final).read_text()
    assert f"| 0 | random | {h['mean']:+.3f} [n/a] | 1 |" in report
    assert f"| random | {h['mean']:+.3f} [n/a] | 1 |" in report and "n/a (no interval)" in report
    assert (run / "learning_curve.png").read_bytes()[:8] == b"\x89PNG\r\n\x1a\n"
    assert "[n/a]" in final_table(final)
    (run / "final_eval.json").write_text(json.dumps(final))
    (run / "config.yaml").write_text(yaml.safe_dump(config))
    assert "[n/a]" in results_table([run])
    if importlib.util.find_spec("openskill") is not None:  # the leaderboard's head-to-head cells too
        from train.evaluation.rating import round_robin

        board = round_robin("picchetto", ["random", "heuristic"], num_deals=1, flags={"episode": "hand"})
        assert re.search(r"[+-]\d+\.\d{3} \[n/a\]", str(board))  # mean [n/a], the one format


@pytest.mark.skipif(importlib.util.find_spec("agents.briscola5_heuristic") is None, reason="no Briscola heuristic")
def test_rate_intervals_stay_inside_zero_one(tmp_path):
    """Near 0 and 1 (the heuristic never calls; defenders almost always win) a symmetric interval would not."""
    res = evaluate("briscola5", ["heuristic"] + ["random"] * 4, num_deals=20, seed=0)
    checked = 0
    for row in res.table:
        ivs = [iv for k, iv in row["figures"].items() if k in res.proportions]
        ivs += [iv for iv in row["rate_intervals"].values() if iv is not None]
        for iv in ivs:
            if iv["mean"] is not None:
                assert 0.0 <= iv["low"] <= iv["mean"] <= iv["high"] <= 1.0, (row["player"], iv)
                checked += 1
    assert checked > 40
    heur = res.table[0]
    assert heur["figures"]["caller_rate"]["mean"] == 0.0 < heur["figures"]["caller_rate"]["high"]
    assert res.proportions == {"caller_rate", "contract_made", "solo_rate", "partner_rate", "partner_won",
                               "defender_won"}
    # the ratio figures keep their delta-method intervals
    assert heur["figures"]["card_points"]["ci95"] == pytest.approx(res.interval(0, "card_points", "played").ci95)
    with res.save(tmp_path)["csv"].open() as f:
        first = next(csv.DictReader(f))
    assert float(first["win_low"]) <= float(first["win_rate"]) <= float(first["win_high"])
