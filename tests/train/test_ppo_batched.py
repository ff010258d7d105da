"""train/batched/: per-seat credit assignment, seats, opponents, checkpoints, tiny runs, bad configs."""

from __future__ import annotations

import csv
import subprocess
import sys
import types
from pathlib import Path

import numpy as np
import pytest

torch = pytest.importorskip("torch")
pytest.importorskip("numba")

from agents import make_agent  # noqa: E402
from agents.checkpoint import load_actor, read_metadata, save_actor  # noqa: E402
from agents.rows import ActorRows, AgentRows, MaskedRandom, make_opponent  # noqa: E402
from agents.trained import TrainedAgent  # noqa: E402
from envs.core.errors import ConfigError  # noqa: E402
from envs.registry import make_env, make_vector_env  # noqa: E402
from train.batched import Args, check_args, main  # noqa: E402
from train.batched.rollout import SeatAssigner, SeatRollout  # noqa: E402
from train.config import parse_args  # noqa: E402
from train.dispatch import trainer_of  # noqa: E402
from train.networks import build_actor  # noqa: E402

ROOT = Path(__file__).resolve().parents[2]
GAMES = ("briscola5", "pigugnin", "picchetto")
FLAGS = {"briscola5": {}, "pigugnin": {"num_players": 4, "episode": "hand"}, "picchetto": {"episode": "hand"}}
TINY = ["--total_timesteps", "3000", "--num_envs", "16", "--num_steps", "32", "--minibatch_size", "256",
        "--n_epochs", "1", "--net_arch", "[16]", "--eval_every", "1500", "--eval_deals", "2", "--final_deals", "2",
        "--eval_opponents", "[random]", "--reference_levels", "false", "--opponents", "random", "--progress", "false",
        "--bc_episodes", "0"]


def rows(path: Path) -> list[dict[str, str]]:
    with path.open() as f:
        return list(csv.DictReader(f))


def tiny_argv(game: str, runs: Path, *extra: str) -> list[str]:
    flags = [f"--env.{k}={v}" for k, v in FLAGS[game].items()]
    return ["--config", f"configs/{game}/ppo_batched.yaml", *TINY, *flags, "--runs_dir", str(runs), *extra]


# -- per-seat credit assignment (hand-computed) --------------------------------------------------------------


def _decide(buf: SeatRollout, seat: int, value: float) -> int:
    s = buf.add(np.array([0]), np.array([seat]))
    buf.val[s] = value
    return s.start


def _after(buf: SeatRollout, rewards: list[float], ended: bool = False) -> None:
    buf.credit(np.array([rewards], dtype=np.float32), np.array([ended]))


def test_rewards_paid_while_others_act_go_to_the_seats_last_decision():
    """One game, 3 seats; the learner at seats 0 and 2, an opponent at seat 1 (its steps add no sample).

    step  actor  rewards after the step      credited to
    0     0      -                           -
    1     1      [1, -1, 0.5]                seat 0 -> k0 (+1); seat 2 has not decided yet: 0.5 not credited
    2     2      -                           -
    3     0      [0, 0, 2]                   seat 2 -> k1 (+2); k0's next decision is k2
    4     1      [3, -4, -1], episode ends   seat 0 -> k2 (+3), seat 2 -> k1 (-1); k1, k2 done
    5     2      (new episode)               k3: no next decision yet: incomplete, carried
    """
    buf = SeatRollout(num_envs=1, num_players=3, obs_size=1, num_actions=2, num_steps=8)
    gamma, lam = 0.9, 0.5
    k0 = _decide(buf, 0, 0.5)
    _after(buf, [0, 0, 0])
    _after(buf, [1, -1, 0.5])  # seat 1 (opponent) acted
    k1 = _decide(buf, 2, 0.2)
    _after(buf, [0, 0, 0])
    k2 = _decide(buf, 0, 1.0)
    _after(buf, [0, 0, 2])
    _after(buf, [3, -4, -1], ended=True)  # seat 1 acted, the episode ended
    k3 = _decide(buf, 2, 0.3)
    _after(buf, [0, 0, 0])
    assert (k0, k1, k2, k3) == (0, 1, 2, 3)
    assert buf.rew[:4].tolist() == [1.0, 1.0, 3.0, 0.0]
    assert buf.nxt[:4].tolist() == [2, -1, -1, -1] and buf.done[:4].tolist() == [False, True, True, False]
    comp, adv, ret = buf.advantages(gamma, lam)
    assert comp.tolist() == [True, True, True, False]
    # k2: 3 - 1.0 = 2;  k1: 1 - 0.2 = 0.8;  k0: (1 + 0.9 * 1.0 - 0.5) + 0.9 * 0.5 * 2 = 2.3
    np.testing.assert_allclose(adv, [2.3, 0.8, 2.0, 0.0], rtol=1e-6)
    np.testing.assert_allclose(ret, [2.8, 1.0, 3.0, 0.0], rtol=1e-6)
    # the incomplete decision (seat 2's, in the new episode) moves to the next rollout ...
    buf.obs[3] = 7.0
    assert buf.carry() == 1
    assert buf.size == 1 and buf.last.tolist() == [[-1, -1, 0]] and buf.obs[0, 0] == 7.0 and buf.val[0] == pytest.approx(0.3)
    # ... where it gets its later rewards and its successor
    _after(buf, [0, 0, 1.5])
    k = _decide(buf, 2, 0.4)
    _after(buf, [0, 0, -0.5], ended=True)
    comp, adv, ret = buf.advantages(gamma, lam)
    assert k == 1 and comp.tolist() == [True, True]
    # k': -0.5 - 0.4 = -0.9;  carried: (1.5 + 0.9 * 0.4 - 0.3) + 0.45 * (-0.9) = 1.155
    np.testing.assert_allclose(adv, [1.155, -0.9], rtol=1e-6)
    np.testing.assert_allclose(ret, [1.455, -0.5], rtol=1e-6)


def test_gae_is_truncated_at_a_carried_successor_and_games_are_independent():
    buf = SeatRollout(num_envs=2, num_players=2, obs_size=1, num_actions=2, num_steps=8)
    gamma, lam = 1.0, 0.95
    s = buf.add(np.array([0, 1]), np.array([0, 1]))  # game 0: seat 0; game 1: seat 1
    buf.val[s] = [0.1, 0.2]
    buf.credit(np.array([[2.0, -2.0], [0.0, 5.0]], dtype=np.float32), np.array([False, False]))
    s = buf.add(np.array([0, 1]), np.array([0, 0]))  # game 0: seat 0 again; game 1: seat 0's first decision
    buf.val[s] = [0.7, -0.3]
    buf.credit(np.zeros((2, 2), dtype=np.float32), np.array([False, True]))
    comp, adv, ret = buf.advantages(gamma, lam)
    # game 0, seat 0: first decision complete (successor k2, itself incomplete: no lambda term)
    #   adv = 2 + 1.0 * 0.7 - 0.1 = 2.6; its successor k2 waits for the next rollout
    # game 1: seat 1's decision got +5 then the game ended: adv = 5 - 0.2; seat 0's: 0 - (-0.3) = 0.3
    assert comp.tolist() == [True, True, False, True]
    np.testing.assert_allclose(adv, [2.6, 4.8, 0.0, 0.3], rtol=1e-6)
    assert buf.carry() == 1 and buf.last.tolist() == [[0, -1], [-1, -1]]


def test_seat_assigner_draws():
    rng = np.random.default_rng(0)
    a = SeatAssigner(64, 5, num_base=2, max_snapshots=3, all_seats_share=0.0, seat="random", snapshot_share=0.5,
                     rng=rng)
    assert ((a.owner == 0).sum(1) == 1).all() and set(np.unique(a.owner)) == {0, 1, 2}
    assert len(set(np.argmin(a.owner, 1).tolist())) == 5  # the learner's seat varies
    slots = [a.add_snapshot() for _ in range(4)]
    assert slots == [3, 4, 5, 3]  # the newest replaces the oldest
    a.draw(np.arange(64))
    assert set(np.unique(a.owner)) == {0, 1, 2, 3, 4, 5}
    sp = SeatAssigner(8, 4, 1, 1, all_seats_share=1.0, seat="random", snapshot_share=0.0, rng=rng)
    assert (sp.owner == 0).all() and sp.selfplay.all()
    rot = SeatAssigner(3, 2, 1, 1, all_seats_share=0.0, seat="rotate", snapshot_share=0.0, rng=rng)
    assert np.argmin(rot.owner, 1).tolist() == [0, 1, 0]
    rot.draw(np.array([0, 2]))
    assert np.argmin(rot.owner, 1).tolist() == [1, 1, 1]
    fixed = SeatAssigner(4, 2, 1, 1, all_seats_share=0.0, seat=1, snapshot_share=0.0, rng=rng)
    assert (fixed.owner[:, 1] == 0).all() and (fixed.owner[:, 0] == 1).all()


# -- opponents ---------------------------------------------------------------------------------------------------


@pytest.mark.parametrize("game", GAMES)
def test_opponents_act_legally_in_batch(game):
    env = make_vector_env(game, 32, **FLAGS[game])
    obs, mask = env.reset(seed=3)
    heur = make_opponent("heuristic-python", game, FLAGS[game], seed=0)
    python = make_agent("heuristic", game, seed=0)
    for _ in range(40):
        for opp in (MaskedRandom(1), heur, ActorRows(build_actor(env.obs_size, env.num_actions, [8]), "a", False, 2)):
            acts = opp.act(obs, mask)
            assert acts.dtype == np.int64 and acts.shape == (32,) and mask[np.arange(32), acts].all()
        expected = [python.act({"observation": o, "action_mask": m}) for o, m in zip(obs, mask, strict=True)]
        assert heur.act(obs, mask).tolist() == expected
        obs, mask, *_ = env.step(MaskedRandom(4).act(obs, mask))


def test_a_batched_heuristic_drops_in(monkeypatch):
    """agents/batched/<game>.py with a class named like the Python heuristic is what 'heuristic' uses."""
    built = {}

    class Picchetto:
        def __init__(self, game, seed=None, flags=None):
            built.update(game=game, seed=seed, flags=flags)

        def act(self, obs, mask):
            return np.argmax(mask, axis=1).astype(np.int64)

    package = types.ModuleType("agents.batched")
    package.__path__ = []
    module = types.ModuleType("agents.batched.picchetto")
    module.PicchettoHeuristic = Picchetto
    monkeypatch.setitem(sys.modules, "agents.batched", package)
    monkeypatch.setitem(sys.modules, "agents.batched.picchetto", module)
    opp = make_opponent("heuristic", "picchetto", {"episode": "hand"}, seed=5)
    assert isinstance(opp, Picchetto) and built == {"game": "picchetto", "seed": 5, "flags": {"episode": "hand"}}
    assert isinstance(make_opponent("heuristic-python", "picchetto", {}, seed=5), AgentRows)
    module.PicchettoHeuristic = None
    del module.PicchettoHeuristic
    with pytest.raises(ConfigError, match="defines no PicchettoHeuristic"):
        make_opponent("heuristic", "picchetto", {}, seed=5)


def test_warm_start_demonstrations_on_the_batched_engine():
    from train.imitation import collect_batched

    demos = collect_batched("picchetto", "heuristic", {"episode": "hand"}, 5, seed=3, reward_scale=0.5, num_envs=2)
    assert sorted(set(demos.episodes.tolist())) == [0, 1, 2, 3, 4]
    assert demos.masks[np.arange(len(demos.actions)), demos.actions].all()
    for e in range(5):  # returns to go: at each seat's first decision (the exchange, nothing banked yet) the
        # hand's whole point difference, zero-sum; later decisions exclude the points already banked
        first = [demos.returns[(demos.episodes == e) & (demos.seats == s)][0] for s in (0, 1)]
        assert first[0] + first[1] == 0 and first[0] != 0
    assert len(set(demos.returns[(demos.episodes == 0) & (demos.seats == 0)].tolist())) > 1
    python = collect_batched("picchetto", "heuristic-python", {"episode": "hand"}, 5, seed=3, reward_scale=0.5,
                           num_envs=2)
    assert np.array_equal(python.obs, demos.obs) and np.array_equal(python.actions, demos.actions)


# -- the checkpoint plays as the trainer's actor -----------------------------------------------------------------


@pytest.mark.parametrize("game", GAMES)
def test_saved_actor_loads_and_acts_as_the_trainers_actor(game, tmp_path):
    torch.manual_seed(0)
    env = make_vector_env(game, 64, **FLAGS[game])
    actor = build_actor(env.obs_size, env.num_actions, [32, 16], "ReLU")
    with torch.no_grad():
        actor.action_net.weight.mul_(300.0)  # far from uniform: the greedy choice matters
    meta = {"game": game, "flags": FLAGS[game], "obs_shape": [env.obs_size], "num_actions": env.num_actions}
    path = save_actor(actor, tmp_path / "a.mazzo.zip", meta, vf=[32, 16], num_timesteps=123)
    m = read_metadata(path)
    assert m["network"] == {"features": "flatten", "shared": [], "pi": [32, 16], "vf": [32, 16], "activation": "ReLU",
                            "share_features_extractor": False} and m["num_timesteps"] == 123
    agent = make_agent(f"ppo:{path}", game, flags=FLAGS[game])
    assert isinstance(agent, TrainedAgent)
    greedy = ActorRows(actor, "live", greedy=True)
    obs, mask = env.reset(seed=1)
    for _ in range(30):
        live = greedy.act(obs, mask)
        with torch.no_grad():
            logits = actor(torch.from_numpy(obs)).masked_fill(torch.from_numpy(mask) == 0, -1e8)
        assert live.tolist() == logits.argmax(-1).tolist()
        assert [agent.act({"observation": o, "action_mask": k}) for o, k in zip(obs, mask, strict=True)] == live.tolist()
        obs, mask, *_ = env.step(live)
    # it plays a whole legal game through the AEC env
    aec = make_env(game, **FLAGS[game])
    aec.reset(seed=0)
    for _name in aec.agent_iter():
        o, _, term, trunc, _ = aec.last()
        aec.step(None if term or trunc else agent.act(o))


def test_save_actor_refuses_other_modules(tmp_path):
    from agents.checkpoint import CheckpointError

    with pytest.raises(CheckpointError, match="cannot be saved"):
        save_actor(torch.nn.Linear(4, 2), tmp_path / "x.mazzo.zip", {"game": "picchetto"})


# -- bad configs --------------------------------------------------------------------------------------------------


@pytest.mark.parametrize(("override", "message"), [
    (["--game", "poker"], "'game'"),
    (["--env.num_players", "9"], "num_players"),
    (["--num_envs", "0"], "'num_envs'"),
    (["--num_steps", "-3"], "'num_steps'"),
    (["--all_seats_share", "1.5"], "'all_seats_share'"),
    (["--seat", "7"], "'seat'"),
    (["--seat", "left"], "'seat'"),
    (["--opponents", "chess_master"], "unknown opponent"),
    (["--opponents", "[]"], "'opponents'"),
    (["--net_arch", "[]"], "'net_arch'"),
    (["--activation", "Softmax"], "'activation'"),
    (["--gamma", "0"], "'gamma'"),
    (["--clip_range", "-1"], "'clip_range'"),
    (["--target_kl", "0"], "'target_kl'"),
    (["--eval_opponents", "[]"], "'eval_opponents'"),
    (["--trainer", "sb3"], "'trainer'"),
    (["--engine", "sb3"], "'trainer'"),  # the older name of the key
    (["--learning_rate", "fast"], "learning_rate"),
    (["--no_such_key", "1"], "unknown config key"),
])
def test_bad_config_values_raise_clear_errors(override, message):
    with pytest.raises(ConfigError, match=message):
        check_args(parse_args(Args, ["--config", "configs/picchetto/ppo_batched.yaml", *override]))


def test_configs_select_the_batched_trainer():
    for game in GAMES:
        path = f"configs/{game}/ppo_batched.yaml"
        assert trainer_of(["--config", str(ROOT / path)]) == "batched"
        check_args(parse_args(Args, ["--config", str(ROOT / path)]))
        assert trainer_of(["--config", str(ROOT / f"configs/{game}/ppo.yaml")]) == "sb3"
    assert trainer_of(["--config", str(ROOT / "configs/picchetto/ppo.yaml"), "--trainer", "batched"]) == "batched"
    assert trainer_of(["--config", str(ROOT / "configs/picchetto/ppo.yaml"), "--engine", "batched"]) == "batched"
    with pytest.raises(ConfigError, match="config file not found"):
        trainer_of(["--config=/no/such/file.yaml"])
    with pytest.raises(ConfigError, match="invalid value 'gpu' for 'trainer'; allowed: sb3, batched, rllib"):
        trainer_of(["--trainer", "gpu"])


# -- runs -----------------------------------------------------------------------------------------------------------


@pytest.mark.parametrize("game", [pytest.param("briscola5", marks=pytest.mark.slow), "pigugnin", "picchetto"])
def test_tiny_run_writes_every_artifact(game, tmp_path, monkeypatch):
    monkeypatch.chdir(ROOT)
    warm = ["--bc_episodes", "3", "--bc_epochs", "1"] if game == "briscola5" else []  # the warm start too
    run = main(tiny_argv(game, tmp_path, "--selfplay", "true", "--snapshot_every", "1000", "--all_seats_share", "0.5",
                         "--reference_levels", "true", *warm))
    assert run.name.startswith(f"{game}__ppo_batched__1__")
    for name in ("config.yaml", "best.mazzo.zip", "last.mazzo.zip", "metrics.csv", "eval.csv", "final_eval.json",
                 "report.md", "learning_curve.png"):
        assert (run / name).is_file(), name
    assert any((run / "tb").iterdir()) and any((run / "snapshots").iterdir())
    assert (run / "imitation.json").is_file() == (game == "briscola5")
    steps = [int(r["step"]) for r in rows(run / "metrics.csv")]
    assert steps == sorted(steps) and steps[-1] >= 3000
    evals = rows(run / "eval.csv")
    assert [r["opponent"] for r in evals] == ["random"] * len(evals) and int(evals[-1]["step"]) == steps[-1]
    report = (run / "report.md").read_text()
    assert "## Final evaluation" in report and "| random |" in report and "batched engine" in report
    assert (run / "learning_curve.png").read_bytes()[:8] == b"\x89PNG\r\n\x1a\n"
    meta = read_metadata(run / "best.mazzo.zip")
    assert meta["format"] == "mazzo-policy/1" and meta["game"] == game and meta["run_name"] == run.name
    agent = make_agent(f"ppo:{run / 'last.mazzo.zip'}", game, flags=FLAGS[game])
    aec = make_env(game, **FLAGS[game])
    aec.reset(seed=1)
    moves = 0
    for _name in aec.agent_iter():
        o, _, term, trunc, _ = aec.last()
        aec.step(None if term or trunc else agent.act(o))
        moves += 1
    assert moves > 10


@pytest.mark.slow
def test_same_seed_same_numbers(tmp_path, monkeypatch):
    monkeypatch.chdir(ROOT)
    runs = [main(tiny_argv("briscola5", tmp_path / str(k), "--all_seats_share", "0.5", "--selfplay", "true",
                           "--snapshot_every", "1000")) for k in (1, 2)]
    timed = {"time", "fps"}
    a, b = ([{k: v for k, v in r.items() if k not in timed} for r in rows(run / "metrics.csv")] for run in runs)
    assert a == b and len(a) > 3
    assert rows(runs[0] / "eval.csv") == rows(runs[1] / "eval.csv")
    wa, wb = (load_actor(run / "last.mazzo.zip")[0].state_dict() for run in runs)
    assert all(torch.equal(wa[k], wb[k]) for k in wa)
    other = main(tiny_argv("briscola5", tmp_path / "3", "--all_seats_share", "0.5", "--seed", "2"))
    assert [r["loss"] for r in rows(other / "metrics.csv")] != [r["loss"] for r in a]


@pytest.mark.slow
def test_train_ppo_dispatches_on_engine_batched(tmp_path):
    out = subprocess.run([sys.executable, "-m", "train.ppo", *tiny_argv("picchetto", tmp_path)], cwd=ROOT,
                         capture_output=True, text=True, timeout=900,
                         env={"PATH": "/usr/bin:/bin", "PYTHONPATH": str(ROOT), "HOME": str(tmp_path)})
    assert out.returncode == 0, out.stderr[-3000:]
    (run,) = tmp_path.glob("picchetto__ppo_batched__*")
    assert (run / "best.mazzo.zip").is_file() and "python -m train.ppo --config" in (run / "report.md").read_text()
    bad = subprocess.run([sys.executable, "-m", "train.ppo", "--config", "configs/picchetto/ppo_batched.yaml",
                          "--num_envs", "0"], cwd=ROOT, capture_output=True, text=True, timeout=300,
                         env={"PATH": "/usr/bin:/bin", "PYTHONPATH": str(ROOT)})
    assert bad.returncode == 2 and "error: invalid value 0 for 'num_envs'" in bad.stderr


def test_sample_masked_never_picks_an_action_of_probability_zero():
    """The inverse CDF at its edges (u = 0 and u just below 1) and in between, with illegal actions first,
    between and last: only legal actions come out, with the softmax's frequencies."""
    torch = pytest.importorskip("torch")
    from agents.checkpoint import HUGE_NEG
    from agents.sampling import sample_masked

    logits = torch.tensor([[HUGE_NEG, 0.0, HUGE_NEG, 1.0, HUGE_NEG]] * 4)
    edges = torch.tensor([0.0, 1e-12, 1.0 - 1e-7, 0.9999999999])
    assert sample_masked(logits, None, uniform=edges).tolist() == [1, 1, 3, 3]
    rows = torch.tensor([[HUGE_NEG, 0.0, HUGE_NEG, 1.0, HUGE_NEG]] * 20000)
    draws = sample_masked(rows, torch.Generator().manual_seed(0))
    assert set(draws.tolist()) == {1, 3}
    share = (draws == 3).float().mean().item()
    assert abs(share - 1 / (1 + torch.e ** -1)) < 0.02  # e^1 / (e^0 + e^1) = 0.731
