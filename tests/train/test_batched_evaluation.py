"""Duplicate deals on the batched engine (``train/evaluation/batched.py``) and the scaling study's script
(``benchmarks/learning.py``) on a tiny budget."""

from __future__ import annotations

import json
import sys
from pathlib import Path

import numpy as np
import pytest

pytest.importorskip("numba")

from agents.rows import MaskedRandom, make_opponent  # noqa: E402
from envs.core.errors import ConfigError  # noqa: E402
from envs.registry import GAMES, game_spec  # noqa: E402
from train.evaluation.batched import batched_margin, play_seated  # noqa: E402

ROOT = Path(__file__).resolve().parents[2]
FLAGS = {name: dict(spec.single_hand) for name, spec in GAMES.items()}


@pytest.mark.parametrize("game", list(GAMES))
def test_a_player_against_a_field_of_itself_has_a_margin_of_exactly_zero(game):
    """The heuristic is deterministic: alone among heuristics it plays exactly as the field-only replay."""
    r = batched_margin(game, FLAGS[game], "heuristic", "heuristic", 48, seed=3)
    assert abs(r["mean"]) < 1e-12 and abs(r["in_seat"]["mean"]) < 1e-12 and r["n_deals"] == 48


def test_the_better_player_has_a_positive_margin_and_the_same_seed_the_same_figures():
    r = batched_margin("picchetto", FLAGS["picchetto"], "heuristic", "random", 200, seed=1)
    assert r["low"] > 0 and r["in_seat"]["low"] > 0
    assert batched_margin("picchetto", FLAGS["picchetto"], "heuristic", "random", 200, seed=1) == r
    worse = batched_margin("pigugnin", FLAGS["pigugnin"], "random", "heuristic", 200, seed=1)
    assert worse["high"] < 0 and worse["in_seat"]["high"] < 0


@pytest.mark.parametrize("deals", [0, -3])
def test_a_margin_on_no_deals_is_refused_with_the_count(deals):
    with pytest.raises(ConfigError, match=f"at least 1 deal; got {deals}"):
        batched_margin("picchetto", FLAGS["picchetto"], "heuristic", "random", deals, seed=1)


def test_every_seat_replays_the_same_deal():
    flags = FLAGS["briscola5"]
    player = make_opponent("heuristic", "briscola5", flags, 0)
    a = play_seated("briscola5", flags, [player] * 5, 16, seed=9)
    b = play_seated("briscola5", flags, [make_opponent("heuristic", "briscola5", flags, 0)] * 5, 16, seed=9)
    assert np.array_equal(a, b) and np.allclose(a.sum(1), 0)  # the same deals, zero-sum credits
    c = play_seated("briscola5", flags, [MaskedRandom(1)] * 5, 16, seed=9)
    assert not np.array_equal(a, c)
    assert game_spec("briscola5").zero_sum


@pytest.mark.slow
def test_the_scaling_study_trains_evaluates_and_reports(tmp_path, monkeypatch):
    monkeypatch.chdir(ROOT)
    sys.path.insert(0, str(ROOT / "benchmarks"))
    import learning

    out, js = tmp_path / "learning.md", tmp_path / "learning.json"
    argv = ["--games", "picchetto", "--recipes", "ppo", "dmc", "--budgets", "1000", "2000", "--pimc-at", "1000",
            "--growth-from", "1000", "--heuristic-deals", "16", "--pimc-deals", "2", "--runs", str(tmp_path / "runs"),
            "--json", str(js), "--out", str(out), "--set", "num_envs=16", "bc_episodes=16", "checkpoint_at=[1000,2000]",
            "eval_deals=2", "final_deals=2", "net_arch=[16]"]
    learning.main(argv)
    results = json.loads(js.read_text())
    for recipe in ("ppo", "dmc"):
        point = results["picchetto"][recipe]["points"]["1000"]
        assert point["heuristic"]["n_deals"] == 16 and point["pimc"]["n_deals"] == 2
        assert -200 < point["pimc"]["margin"]["mean"] < 200 and "growth" not in point
        growth = results["picchetto"][recipe]["points"]["2000"]["growth"]  # 2,000 steps alone among the 1,000-step
        assert growth["against"] == 1000 and growth["n_deals"] == 16 and growth["low"] <= growth["mean"] <= growth["high"]
        assert results["picchetto"][recipe]["meta"]["command"].startswith("python benchmarks/learning.py --games")
    text = out.read_text()
    assert "| ppo | 1,000 |" in text and "| dmc | 1,000 |" in text and (tmp_path / "learning_picchetto.png").is_file()
    learning.main([*argv])  # finished runs and evaluations are reused, not redone
    again = json.loads(js.read_text())["picchetto"]
    assert {k: v for k, v in again.items() if k != "_meta"} == {k: v for k, v in results["picchetto"].items() if k != "_meta"}
    with pytest.raises(SystemExit, match="not in configs/picchetto/learning.yaml's checkpoint_at"):
        learning.main([*argv[:argv.index("--set")], "--budgets", "1500", "--set", "checkpoint_at=[1000,2000]"])


def test_the_scaling_studys_roles_panel_says_what_each_contract_earned(monkeypatch):
    """Briscola's roles panel keeps the caller's credits per contract called beside the contracts made, and the
    report shows both: a made-contract rate alone cannot say whether the bidding pays."""
    monkeypatch.syspath_prepend(str(ROOT / "benchmarks"))
    import learning

    checkpoint = ROOT / "agents" / "pretrained" / "briscola5.mazzo.zip"
    roles = learning.aec_panel("briscola5", {}, checkpoint, "heuristic", deals=3, seed=0, workers=1)
    assert {"caller", "made", "caller_credits"} <= set(roles)
    credits = roles["caller_credits"]["mean"]
    assert credits is not None and -24 <= credits <= 24  # at most a solo tripla with cappotto: 4 x 3 x 2
    assert f"({credits:+.2f} credits per contract)" in learning._made(roles)
    assert learning._made({"made": roles["made"]}) == learning._pct(roles["made"])  # older results: the rate only


@pytest.mark.slow
def test_the_fine_tune_study_trains_from_the_shipped_agent_and_measures_it_against_it(tmp_path, monkeypatch):
    monkeypatch.chdir(ROOT)
    monkeypatch.syspath_prepend(str(ROOT / "benchmarks"))
    import finetune

    out, js = tmp_path / "finetune.md", tmp_path / "finetune.json"
    argv = ["--games", "picchetto", "--steps", "1000", "2000", "--heuristic-deals", "16", "--pimc-deals", "2",
            "--runs", str(tmp_path / "runs"), "--json", str(js), "--out", str(out), "--set", "num_envs=16",
            "total_timesteps=2000", "critic_warmup=500", "checkpoint_at=[1000,2000]", "eval_deals=2", "final_deals=2"]
    finetune.main(argv)
    entry = json.loads(js.read_text())["picchetto"]
    config = (tmp_path / "runs" / "picchetto").glob("*/config.yaml")
    assert "init_from: pretrained:picchetto" in next(config).read_text()
    assert entry["start_steps"] == 30_009_894 and sorted(entry["points"]) == ["1000", "2000"]
    growth = entry["points"]["1000"]["growth"]  # 1,000 steps past the shipped agent, alone among copies of it
    assert growth["n_deals"] == 16 and growth["low"] <= growth["mean"] <= growth["high"]
    assert "pimc" in entry["points"]["2000"] and "pimc" not in entry["points"]["1000"]
    assert "| +1,000 (30,010,894) |" in out.read_text()
    finetune.main(argv)  # the finished run and its figures are reused
    assert json.loads(js.read_text())["picchetto"]["points"] == entry["points"]

    with pytest.raises(SystemExit, match="run --stage 2 first"):
        finetune.main([*argv, "--stage", "3"])
    finetune.main([*argv, "--stage", "2"])  # from stage 1's last checkpoint
    results = json.loads(js.read_text())["picchetto"]
    stage1 = next((tmp_path / "runs" / "picchetto").glob("picchetto__*"))
    config = next((tmp_path / "runs" / "picchetto" / "stage2").glob("picchetto__*/config.yaml")).read_text()
    assert f"init_from: ppo:{stage1}/last.mazzo.zip" in config and "\nseed: 3\n" in config
    stage2 = results["stages"]["2"]
    from agents.checkpoint import read_metadata

    in_all = 30_009_894 + read_metadata(stage1 / "last.mazzo.zip")["num_timesteps"]  # the shipped agent's + stage 1's
    assert stage2["start"] == f"{stage1}/last.mazzo.zip" and stage2["start_steps"] == in_all
    assert results["points"] == entry["points"] and sorted(stage2["points"]) == ["1000", "2000"]
    assert "## picchetto, stage 2" in out.read_text() and f"| +1,000 ({in_all + 1000:,}) |" in out.read_text()

    # --start: another checkpoint of another shape (a distilled, wider network) is fine-tuned in its own shape
    from agents.checkpoint import build_actor, save_actor
    from agents.trained import PRETRAINED_DIR

    meta = read_metadata(PRETRAINED_DIR / "picchetto.mazzo.zip")
    other = save_actor(build_actor(meta["obs_shape"][0], meta["num_actions"], [16, 8], "ReLU"),
                       tmp_path / "other.mazzo.zip", meta)
    with pytest.raises(SystemExit):  # a missing start is refused before any training
        finetune.main([*argv, "--start", str(tmp_path / "missing.mazzo.zip")])
    js2, out2 = tmp_path / "wide.json", tmp_path / "wide.md"
    wide = [*argv, "--runs", str(tmp_path / "wide_runs"), "--json", str(js2), "--out", str(out2), "--start", str(other)]
    finetune.main(wide)
    config = next((tmp_path / "wide_runs" / "picchetto").glob("picchetto__*/config.yaml")).read_text()
    assert f"init_from: ppo:{other}" in config and "activation: ReLU" in config
    assert "net_arch:\n- 16\n- 8\n" in config
    entry = json.loads(js2.read_text())["picchetto"]
    assert entry["start"] == str(other) and entry["start_steps"] is None
    assert "| +1,000 |" in out2.read_text() and "(steps not counted)" in out2.read_text()


@pytest.mark.slow
def test_the_pimc_distillation_collects_the_search_values_trains_a_copy_and_measures_it(tmp_path, monkeypatch):
    monkeypatch.chdir(ROOT)
    monkeypatch.syspath_prepend(str(ROOT / "benchmarks"))
    import distill_pimc

    out, js, runs = tmp_path / "d.md", tmp_path / "d.json", tmp_path / "runs"
    argv = ["--hands", "3", "--demo-workers", "2", "--epochs", "2", "--growth-deals", "8", "--pimc-deals", "2", "--runs", str(runs),
            "--json", str(js), "--out", str(out)]
    distill_pimc.main(argv)
    entry = json.loads(js.read_text())["picchetto"]["best"]
    with np.load(runs / "picchetto" / "demos_3_777_w2.npz") as z:
        values, mask, hands = z["values"], z["mask"], z["hand"]
    assert len(values) == entry["train_decisions"] + entry["held_out_decisions"] and set(hands) == {0, 1, 2}
    assert (mask.sum(1) > 1).all()  # only decisions with a choice
    assert not np.isnan(values[mask]).all() and np.isnan(values[~mask]).all()  # values only for legal moves
    assert [e["epoch"] for e in entry["epochs"]] == [1, 2]
    assert 0.0 <= entry["start_agreement"]["no_regret"] <= 1.0 and entry["start_agreement"]["regret"] >= 0.0
    distilled = runs / "picchetto" / "distilled_best.mazzo.zip"
    from agents.checkpoint import read_metadata

    assert read_metadata(distilled)["distilled"]["teacher"] == "pimc-v1"  # the published rounds' PIMC by default
    assert entry["growth"]["n_deals"] == 8 and entry["pimc"]["n_deals"] == 2
    assert "| alone among PIMC |" in out.read_text()
    before = (runs / "picchetto" / "demos_3_777_w2.npz").stat().st_mtime_ns
    distill_pimc.main(argv)  # the demonstrations are reused
    assert (runs / "picchetto" / "demos_3_777_w2.npz").stat().st_mtime_ns == before
    # an on-policy round: the start agent plays one seat per deal, PIMC labels it, the earlier collection is added
    earlier = runs / "picchetto" / "demos_3_777_w2.npz"
    with pytest.raises(SystemExit, match="--with-demos: no file"):
        distill_pimc.main([*argv, "--behaviour", "start", "--with-demos", str(tmp_path / "none.npz")])
    distill_pimc.main([*argv, "--behaviour", "start", "--with-demos", str(earlier), "--demo-seed", "5",
                       "--demo-workers", "1", "--label", "dagger", "--pimc-deals", "0", "--growth-deals", "0",
                       "--hidden", "16", "8"])
    entry = json.loads(js.read_text())["picchetto"]["dagger"]
    assert "growth" not in entry and "pimc" not in entry  # both panels skipped at 0 deals
    (collection,) = (runs / "picchetto").glob("demos_3_5_by-*.npz")
    with np.load(collection) as z:
        by_learner, hands = z["by_learner"], z["hand"]
    assert by_learner.any() and not by_learner.all()  # the learner's seat and PIMC's seats are both labelled
    assert entry["train_decisions"] + entry["held_out_decisions"] == len(hands) + len(values)
    assert entry["held_out_decisions"] == (hands == 2).sum()  # held out: this collection's last deal only
    assert entry["own_decisions"]["start"]["decisions"] == by_learner[hands == 2].sum()
    assert entry["behaviour"] == "start" and entry["with_demos"] == [str(earlier)]
    assert "the start agent at one seat, `pimc-v1` at the others and earlier collections" in out.read_text()
    network = read_metadata(runs / "picchetto" / "distilled_dagger.mazzo.zip")["network"]  # --hidden: a new shape
    assert network["pi"] == [16, 8] and network["activation"] == "ReLU" and entry["setup"]["hidden"] == [16, 8]
    with pytest.raises(SystemExit, match="--teacher: 'heuristic' is not a PIMC spec"):
        distill_pimc.main([*argv, "--teacher", "heuristic"])
    with pytest.raises(ValueError, match="unexpected keyword argument .wordls."):  # before any collection
        distill_pimc.main([*argv, "--teacher", "pimc:wordls=4"])
    assert not list((runs / "picchetto").glob("*wordls*"))
    # another search as the teacher: its own collection (same deals), its name in the metadata and the report
    distill_pimc.main([*argv, "--teacher", "pimc:worlds=4", "--label", "small_pimc", "--pimc-deals", "0"])
    with np.load(runs / "picchetto" / "demos_3_777_w2_t-pimc-worlds-4.npz") as z:
        small = z["values"]
    assert small.shape != values.shape or not np.array_equal(small, values, equal_nan=True)  # a different search
    assert read_metadata(runs / "picchetto" / "distilled_small_pimc.mazzo.zip")["distilled"]["teacher"] == "pimc:worlds=4"
    assert json.loads(js.read_text())["picchetto"]["small_pimc"]["teacher"] == "pimc:worlds=4"
    assert "3 hands of `pimc:worlds=4` at every seat" in out.read_text()


def test_the_pimc_distillation_trains_on_the_named_roles_only(tmp_path, monkeypatch):
    monkeypatch.chdir(ROOT)
    monkeypatch.syspath_prepend(str(ROOT / "benchmarks"))
    import briscola5_roles
    import distill_pimc

    out, js, runs = tmp_path / "d.md", tmp_path / "d.json", tmp_path / "runs"
    argv = ["--games", "briscola5", "--hands", "3", "--epochs", "1", "--growth-deals", "4", "--pimc-deals", "0",
            "--runs", str(runs), "--json", str(js), "--out", str(out)]
    distill_pimc.main([*argv, "--roles", "defender", "partner", "--label", "defence"])
    entry = json.loads(js.read_text())["briscola5"]["defence"]
    with np.load(runs / "briscola5" / "demos_3_777.npz") as z:
        obs, hands = z["obs"], z["hand"]
    roles = np.array([briscola5_roles.role(o) for o in obs])
    wanted = np.isin(roles, ["defender", "partner"])
    assert 0 < wanted.sum() < len(roles)  # the auction and the caller's decisions are left out
    assert entry["train_decisions"] == (wanted & (hands != 2)).sum()
    assert entry["held_out_decisions"] == (wanted & (hands == 2)).sum()
    assert entry["setup"]["roles"] == ["defender", "partner"]
    distill_pimc.main([*argv, "--label", "all"])  # the same collection, every decision
    everything = json.loads(js.read_text())["briscola5"]["all"]
    assert everything["train_decisions"] + everything["held_out_decisions"] == len(roles)
    distill_pimc.main([*argv, "--roles", "defender", "partner", "--anchor", "2", "--label", "anchored"])
    anchored = json.loads(js.read_text())["briscola5"]["anchored"]
    assert anchored["train_decisions"] == entry["train_decisions"]  # the same decisions are taught
    assert anchored["anchored"]["train_decisions"] == (~wanted & (hands != 2)).sum()  # the others only anchor
    assert 0 <= anchored["anchored"]["same_as_start"] <= 1 and "'anchor': 2.0" in out.read_text()
    with pytest.raises(SystemExit, match="--anchor holds the roles not taught to the start: it needs --roles"):
        distill_pimc.main([*argv, "--anchor", "1"])
    # --anchor-hands: the start's own decisions at heuristic tables join the anchored ones, untaught
    distill_pimc.main([*argv, "--roles", "defender", "partner", "--anchor", "2", "--anchor-hands", "5",
                       "--label", "field"])
    field = json.loads(js.read_text())["briscola5"]["field"]
    (own,) = (runs / "briscola5").glob("own_5_777_heuristic_by-*.npz")
    with np.load(own) as z:
        own_hands, own_values = z["hand"], z["values"]
    assert np.isnan(own_values).all() and set(own_hands) <= set(range(5))
    assert len(own_hands) < 20 * 5  # one seat's decisions per deal, not the table's (about 40)
    assert field["train_decisions"] == entry["train_decisions"]  # still only PIMC's labelled roles are taught
    assert field["anchored"]["at_field"] == (own_hands != 4).sum() > 0  # the last deal held out
    assert field["anchored"]["train_decisions"] == anchored["anchored"]["train_decisions"] + field["anchored"]["at_field"]
    assert 0 <= field["anchored"]["same_as_start_at_field"] <= 1
    assert field["setup"]["anchor_field"] == "heuristic" and "every role, at tables of `heuristic` (`--anchor-hands`)" in out.read_text()
    with pytest.raises(SystemExit, match="--anchor-hands adds decisions held to the start only: it needs --anchor"):
        distill_pimc.main([*argv, "--roles", "defender", "--anchor-hands", "5"])
    with pytest.raises(SystemExit, match="--anchor-hands: -5 is negative"):
        distill_pimc.main([*argv, "--roles", "defender", "--anchor", "1", "--anchor-hands", "-5"])
    with pytest.raises(SystemExit, match=r"unknown role\(s\) \['dealer'\]; briscola5 has"):
        distill_pimc.main([*argv, "--roles", "dealer"])
    with pytest.raises(SystemExit, match="pigugnin has no benchmarks/pigugnin_roles.py"):
        distill_pimc.main([*argv[2:], "--games", "pigugnin", "--roles", "defender"])


def test_the_pimc_distillation_keeps_the_hidden_cards_and_trains_a_belief_head_it_does_not_export(tmp_path, monkeypatch):
    """Every collected decision keeps the decider's privileged vector (the other seats' hands): exactly the cards
    that are neither in its own hand nor played, each in the plane of the seat that holds it. ``--belief`` trains a
    head on them beside the actor; the saved checkpoint is the actor alone, of the start's shape."""
    monkeypatch.chdir(ROOT)
    monkeypatch.syspath_prepend(str(ROOT / "benchmarks"))
    import distill_pimc

    from agents.checkpoint import load_actor, read_metadata
    from envs.briscola5.observation import decode

    out, js, runs = tmp_path / "d.md", tmp_path / "d.json", tmp_path / "runs"
    argv = ["--games", "briscola5", "--hands", "3", "--epochs", "2", "--growth-deals", "0", "--pimc-deals", "0",
            "--runs", str(runs), "--json", str(js), "--out", str(out)]
    distill_pimc.main([*argv, "--belief", "1", "--label", "belief"])
    collection = runs / "briscola5" / "demos_3_777.npz"
    with np.load(collection) as z:
        obs, privileged = z["obs"], z["privileged"]
    assert privileged.shape == (len(obs), 160) and np.isin(privileged, (0.0, 1.0)).all()
    for o, v in zip(obs, privileged, strict=True):
        seen = decode(o)
        planes = v.reshape(4, 40)
        assert planes.sum(0).max() <= 1  # a card is in one hand only
        hidden = set(np.flatnonzero(planes.sum(0)).tolist())
        played = {card for _, _, card in seen["played"]}
        assert hidden == set(range(40)) - set(seen["hand"]) - played
        for k in range(1, 5):  # relative seat k holds 8 cards minus those it has played
            assert planes[k - 1].sum() == 8 - sum(1 for _, seat, _ in seen["played"] if seat == k)
    entry = json.loads(js.read_text())["briscola5"]["belief"]
    assert entry["setup"]["belief"] == 1.0 and [e["epoch"] for e in entry["epochs"]] == [1, 2]
    assert all(e["belief"]["bce"] > 0 and e["belief"]["constant_bce"] > 0 for e in entry["epochs"])
    # counting (own hand and cards played out, the rest spread by cards left) beats any constant guess
    assert all(0 < e["belief"]["counting_bce"] < e["belief"]["constant_bce"] for e in entry["epochs"])
    assert "The belief head's held-out cross-entropy" in out.read_text()
    saved = runs / "briscola5" / "distilled_belief.mazzo.zip"
    actor, meta = load_actor(saved)  # the start's network, nothing more: the head stayed behind
    start, _ = load_actor(distill_pimc.shipped("briscola5"))
    assert [tuple(t.shape) for t in actor.state_dict().values()] == [tuple(t.shape) for t in start.state_dict().values()]
    assert read_metadata(saved)["distilled"]["belief"] == 1.0
    with pytest.raises(SystemExit, match="--belief: -1.0 is negative"):
        distill_pimc.main([*argv, "--belief", "-1"])
    with np.load(collection) as z:  # a collection from before the privileged vectors were kept
        np.savez_compressed(collection, **{k: z[k] for k in z.files if k != "privileged"})
    distill_pimc.main([*argv, "--label", "plain"])  # trains as before without --belief
    with pytest.raises(SystemExit, match="--belief: a collection used here has no privileged vectors"):
        distill_pimc.main([*argv, "--belief", "1"])


def test_the_anchor_holds_the_roles_not_taught_to_the_start(monkeypatch):
    """``--anchor``: a teacher that wants move 0 everywhere, taught on half the decisions. Without the anchor the
    shared layers carry the other half to move 0 as well; with it they keep the start's moves."""
    import argparse

    torch = pytest.importorskip("torch")
    monkeypatch.syspath_prepend(str(ROOT / "benchmarks"))
    import distill_pimc

    from agents.checkpoint import build_actor

    rng = np.random.default_rng(0)
    n, actions = 512, 6
    values = np.zeros((n, actions), np.float32)
    values[:, 0] = 1.0  # the teacher's best move is always 0
    data = {"obs": rng.normal(size=(n, 16)).astype(np.float32), "mask": np.ones((n, actions), bool),
            "values": values, "by_learner": np.zeros(n, bool)}
    taught = np.arange(n) % 2 == 0
    data["obs"][:, 0] = np.where(taught, 3.0, -3.0)  # the role, as the observation shows it
    torch.manual_seed(1)
    start = build_actor(16, actions, [32]).requires_grad_(False)
    others = np.flatnonzero(~taught)

    def still_the_starts(anchor: float) -> float:
        args = argparse.Namespace(seed=0, hidden=[], objective="q", scale=0.1, lr=1e-2, epochs=20, beta=0.0,
                                  anchor=anchor, belief=0.0)
        actor = distill_pimc.distill(start, data, np.arange(n), args, np.flatnonzero(taught)[:32], [], taught)
        assert distill_pimc.agreement(actor, data, np.flatnonzero(taught))["no_regret"] > 0.9  # the taught ones learnt
        return distill_pimc.same_moves(start, actor, data, others)

    free, held = still_the_starts(0.0), still_the_starts(20.0)
    assert free < 0.4 and held > 0.8, (free, held)  # seeded: 0.26 and 0.87 here
    assert distill_pimc.same_moves(start, start, data, np.array([], int)) is None
