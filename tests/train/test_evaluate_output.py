"""What the evaluation prints and saves: one player against a field (--field), its margin over the field,
the one format of every figure, and the legend of every mark a cell shows."""

from __future__ import annotations

import csv
import json
import math
import re

import numpy as np
import pytest

from envs.core.errors import ConfigError
from train.evaluate import evaluate, main, with_field
from train.evaluation.stats import mean_ci

# Student-t 0.975 quantile for 5 degrees of freedom (R: qt(0.975, 5)): the hand computation's own constant
T975_DF5 = 2.570581836
DEALS = 6
CELL = re.compile(r"^(n/a|[+-]?\d+\.\d{3} \[(n/a|[+-]?\d+\.\d{3}, [+-]?\d+\.\d{3})\])$")

# every game and seat count, one player against a field (the README's headline line-up)
FIELD_CASES = [
    ("briscola5", {}, 5),
    ("pigugnin", {"episode": "hand"}, 4),
    ("pigugnin", {"episode": "hand", "num_players": 5}, 5),
    ("pigugnin", {}, 4),  # whole games: the hands per episode vary, the margin is a ratio per hand
    ("picchetto", {"episode": "hand"}, 2),
]


def _flag_args(flags: dict) -> list[str]:
    return [a for k, v in flags.items() for a in ("--flag", f"{k}={v}")]


def _run_cli(tmp_path, capsys, game, flags, *extra) -> tuple[str, dict, list[dict]]:
    out = tmp_path / "out"
    argv = ["--game", game, *_flag_args(flags), "--players", "heuristic", "--field", "random", "--deals", str(DEALS),
            "--seed", "3", "--out", str(out), "--no-progress", "--no-plot", *extra]
    assert main(argv) == 0
    printed = capsys.readouterr().out
    data = json.loads((out / "eval.json").read_text())
    with (out / "eval.csv").open() as f:
        rows = list(csv.DictReader(f))
    return printed, data, rows


def _hand_margin(data: dict, n: int) -> tuple[float, float, float, bool]:
    """The margin per hand from eval.json alone: mean, low, high (delta method, t with 5 df), zero-sum."""
    labels = [p["player"] for p in data["players"]]
    episodes_per_deal = data["config"]["seatings_per_deal"]  # duplicate: every entry plays every seating
    reward = {lab: np.array(data["per_deal_reward_per_episode"][lab]) * episodes_per_deal for lab in labels}
    hands = {lab: np.array(data["per_deal_hands"][lab]) for lab in labels}
    player, field = labels[0], labels[1:]
    zero_sum = bool(np.all(np.abs(sum(reward.values())) < 1e-9))
    num = reward[player] if zero_sum else reward[player] - sum(reward[f] for f in field) / (n - 1)
    den = hands[player]
    r = num.sum() / den.sum()
    resid = num - r * den
    se = math.sqrt((resid ** 2).sum() / (DEALS * (DEALS - 1))) / den.mean()
    return r, r - T975_DF5 * se, r + T975_DF5 * se, zero_sum


@pytest.mark.parametrize(("game", "flags", "n"), FIELD_CASES)
def test_field_fills_the_seats_and_the_first_row_is_the_margin(game, flags, n, tmp_path, capsys):
    printed, data, rows = _run_cli(tmp_path, capsys, game, flags)
    assert data["config"]["players"] == ["heuristic"] + ["random"] * (n - 1)
    # the same numbers as the line-up written out seat by seat
    explicit = evaluate(game, ["heuristic"] + ["random"] * (n - 1), num_deals=DEALS, seed=3, flags=flags)
    assert data["players"] == json.loads(json.dumps(explicit.table))
    # the margin, recomputed by hand from eval.json
    mean, low, high, zero_sum = _hand_margin(data, n)
    margin = data["margin"]
    assert margin["zero_sum"] is zero_sum is (game != "pigugnin")
    assert margin["per_hand"]["mean"] == pytest.approx(mean, abs=1e-12)
    assert margin["per_hand"]["low"] == pytest.approx(low, rel=1e-8)  # the constant has 10 digits
    assert margin["per_hand"]["high"] == pytest.approx(high, rel=1e-8)
    assert margin["player"] == "heuristic" and margin["field"] == "random" and len(margin["field_entries"]) == n - 1
    # the table's first row is that margin, in the one format
    lines = printed.splitlines()
    first = lines[lines.index(next(x for x in lines if x.startswith("player"))) + 2]
    label = "heuristic - random *" if n == 2 else "heuristic - field *"
    assert first.startswith(label), printed
    assert first.split("  ")[-1].strip() == f"{mean:+.3f} [{low:+.3f}, {high:+.3f}]"
    # the field is one row in the table; every entry stays in the JSON and the CSV
    field_label = "random" if n == 2 else f"field: {n - 1} x random"
    assert [x.split("  ")[0] for x in lines[lines.index(first):lines.index(first) + 3]] == \
        [label, "heuristic", field_label]
    assert not any(x.startswith("random#") for x in lines)
    assert [r["kind"] for r in rows] == ["entry"] * n + ["field", "margin"]
    assert float(rows[-1]["reward_per_hand_mean"]) == pytest.approx(mean, abs=1e-12)
    assert data["field"]["episodes"] == sum(p["episodes"] for p in data["players"][1:])


def test_the_margin_is_the_definition_of_the_strength_benchmarks():
    """Pigugnìn (not zero-sum): the player's reward minus the field's mean, per deal, as
    tests/agents/test_pigugnin_agents.py and benchmarks/strength.py compute it; Briscola (zero-sum):
    the player's own reward per hand, the README's headline."""
    res = evaluate("pigugnin", ["heuristic"], field="random", num_deals=DEALS, seed=1, flags={"episode": "hand"})
    first = res.per_deal_means(0)
    others = np.mean([res.per_deal_means(i) for i in range(1, 4)], axis=0)
    by_deal = mean_ci(first - others)  # one hand per episode: per episode is per hand
    assert res.margin["per_hand"]["mean"] == pytest.approx(by_deal.mean, abs=1e-12)
    assert res.margin["per_hand"]["ci95"] == pytest.approx(by_deal.ci95, abs=1e-12)
    b5 = evaluate("briscola5", ["heuristic"], field="random", num_deals=DEALS, seed=1)
    assert b5.margin["per_hand"] == b5.table[0]["reward_per_hand"]
    assert "zero-sum" in b5.margin["definition"] and "zero-sum" not in res.margin["definition"]


def test_field_and_margin_only_for_one_player_against_a_field():
    mixed = evaluate("pigugnin", ["heuristic", "random", "plain", "random"], num_deals=2, flags={"episode": "hand"})
    same = evaluate("pigugnin", ["random"] * 4, num_deals=2, flags={"episode": "hand"})
    for res in (mixed, same):
        assert res.margin is None and res.field_row is None
        text = str(res)
        assert "*" not in text and all(label in text for label in res.labels)
    # the lone player need not sit first; with two seats the first entry is the player
    late = evaluate("briscola5", ["random", "random", "heuristic", "random", "random"], num_deals=2)
    assert late.versus == (2, [0, 1, 3, 4]) and late.margin["player"] == "heuristic"
    assert evaluate("picchetto", ["random", "heuristic"], num_deals=2, flags={"episode": "hand"}).versus == (0, [1])
    # an Agent object as the field is copied into every other seat
    from agents.random_agent import RandomAgent

    lineup = with_field("briscola5", "heuristic", RandomAgent("briscola5"))
    assert len(lineup) == 5 and len({id(a) for a in lineup[1:]}) == 4


def test_field_input_errors(tmp_path, capsys):
    with pytest.raises(ConfigError, match="has 5 seats, so give 1 to 4 players before the field; got 5"):
        with_field("briscola5", ["random"] * 5, "random")
    with pytest.raises(ConfigError, match="has 5 seats; got 2 players.*--players pimc --field heuristic"):
        evaluate("briscola5", ["pimc", "heuristic"], num_deals=1)
    out = str(tmp_path / "o")
    # the Briscola line-up of issue 20: refused, and the error shows the way
    assert main(["--game", "briscola5", "--players", "pimc", "heuristic", "--out", out]) == 2
    err = capsys.readouterr().err
    assert "has 5 seats; got 2 players" in err and "--players pimc --field heuristic" in err
    assert main(["--game", "picchetto", "--rating", "random", "heuristic", "--field", "random", "--out", out]) == 2
    assert "--field fills a line-up" in capsys.readouterr().err
    assert main(["--game", "picchetto", "--players", "random", "--field", "random", "--progress-every", "0",
                 "--out", out]) == 2
    assert "--progress-every" in capsys.readouterr().err


def _cells(text: str) -> list[str]:
    """Every cell after the first column of both tables (columns are 2+ spaces apart)."""
    cells, in_table = [], False
    for line in text.splitlines():
        if line.startswith(("player ", "figure ")):
            in_table = True
            continue
        if not line.strip():
            in_table = False
            continue
        if in_table and not line.startswith("-"):
            cells += re.split(r"\s{2,}", line.strip())[1:]
    return cells


@pytest.mark.parametrize(("game", "flags", "players"), [
    ("briscola5", {}, ["heuristic"] + ["random"] * 4),
    ("picchetto", {"episode": "hand"}, ["heuristic", "random"]),
    ("pigugnin", {"episode": "hand"}, ["heuristic", "random", "plain", "random"]),
])
def test_every_figure_has_one_format(game, flags, players):
    for deals in (1, 3):
        text = str(evaluate(game, players, num_deals=deals, flags=flags, seed=2))
        cells = _cells(text)
        assert len(cells) > 20
        bad = [c for c in cells if not CELL.match(c)]
        assert not bad, bad
        assert "±" not in text
        table = text.split("\n\nfigure")[0]  # rewards and margins carry their sign
        assert all(c[0] in "+-" for c in _cells(table) if c != "n/a")


def test_the_legend_explains_every_mark():
    # Picchetto hands: no game ends, so no win/draw/lose and no games_won; one deal: no interval
    text = str(evaluate("picchetto", ["heuristic"], field="random", num_deals=1, flags={"episode": "hand"}))
    legend = text.split("\n\n")[-1].splitlines()
    marks = [line[:7].strip() for line in legend if line[:7].strip()]
    assert marks == ["*", "n/a", "[n/a]"], legend
    joined = " ".join(x.strip() for x in legend)
    assert "win_rate, draw_rate, lose_rate for every player ('decided' is 0: no episode ended with a winner" in joined
    assert "games_won for every player ('games' is 0)" in joined
    assert "needs at least 2 deals (this run has 1)" in joined
    # the heuristic never calls against random players in these deals: its contract figures are undefined
    b5 = str(evaluate("briscola5", ["heuristic"], field="random", num_deals=3))
    assert re.search(r"^contract_made\s+n/a\s+\d", b5, re.M)
    joined = " ".join(x.strip() for x in b5.split("\n\n")[-1].splitlines())
    assert "contract_made, mean_contract, caller_credits, solo_rate for heuristic ('caller' is 0)" in joined
    assert "[n/a]" not in b5  # no mark without its cells
    # whole Pigugnìn games: every figure defined, no marks and no legend except the margin's
    pig = str(evaluate("pigugnin", ["heuristic"], field="random", num_deals=2))
    assert "n/a" not in pig and pig.split("\n\n")[-1].startswith("*      margin over the field")
