"""The batched trainer's algorithms beyond plain PPO: the oracle critic (``critic: oracle``), Deep Monte-Carlo
(``algo: dmc``), the league (``opponent_sampling: pfsp``) and ``checkpoint_at``: their bookkeeping on scripted
sequences, their runs end to end, resume, and that nothing hidden reaches an exported player."""

from __future__ import annotations

import csv
import json
from pathlib import Path

import numpy as np
import pytest

torch = pytest.importorskip("torch")
pytest.importorskip("numba")

from agents.checkpoint import load_actor, read_metadata  # noqa: E402
from agents.registry import make_agent  # noqa: E402
from agents.rows import MaskedRandom, make_opponent  # noqa: E402
from envs.core.errors import ConfigError  # noqa: E402
from envs.registry import make_raw_env  # noqa: E402
from train.batched import main  # noqa: E402
from train.batched.args import Args, check_args  # noqa: E402
from train.batched.league import match  # noqa: E402
from train.batched.rollout import EpisodeRollout, SeatAssigner  # noqa: E402
from train.batched.state import STATE_NAME  # noqa: E402
from train.config import parse_args  # noqa: E402
from train.resume import read_train_state  # noqa: E402

ROOT = Path(__file__).resolve().parents[2]
TINY = ["--num_envs", "16", "--num_steps", "32", "--minibatch_size", "128", "--n_epochs", "2", "--net_arch", "[16]",
        "--eval_deals", "2", "--final_deals", "2", "--eval_opponents", "[random]", "--reference_levels", "false",
        "--progress", "false"]
TIMED = {"time", "fps"}


@pytest.fixture(autouse=True)
def _root(monkeypatch):
    monkeypatch.chdir(ROOT)


def rows(path: Path) -> list[dict[str, str]]:
    with path.open() as f:
        return [{k: v for k, v in r.items() if k not in TIMED} for r in csv.DictReader(f)]


# -- Monte-Carlo returns (hand-computed) --------------------------------------------------------------------------


def _decide(buf: EpisodeRollout, game: int, seat: int) -> int:
    return buf.add(np.array([game]), np.array([seat])).start


def _after(buf: EpisodeRollout, rewards: list[list[float]], ended: list[bool]) -> None:
    buf.credit(np.array(rewards, dtype=np.float32), np.array(ended))


def test_monte_carlo_returns_sum_a_seats_rewards_to_the_episodes_end():
    buf = EpisodeRollout(num_envs=2, num_players=2, obs_size=3, num_actions=4, num_steps=8)
    a0 = _decide(buf, 0, 0)
    _after(buf, [[0, 0], [0, 0]], [False, False])
    b0 = _decide(buf, 0, 1)
    _after(buf, [[1, -1], [0, 0]], [False, False])  # a trick: seat 0's latest decision gets +1, seat 1's -1
    a1 = _decide(buf, 0, 0)
    g = _decide(buf, 1, 0)  # a decision of game 1 that stays open
    _after(buf, [[2, 5], [0, 0]], [True, False])  # game 0 ends
    complete, ret = buf.returns(gamma=1.0)
    assert complete.tolist() == [True, True, True, False]
    assert ret[a0] == 1 + 2 and ret[a1] == 2 and ret[b0] == -1 + 5 and ret[g] == 0
    _, discounted = buf.returns(gamma=0.5)
    assert discounted[a0] == pytest.approx(1 + 0.5 * 2)
    # the open episode is carried whole, renumbered; its later rewards still reach it
    assert buf.carry() == 1 and buf.size == 1 and buf.last[1, 0] == 0 and buf.last[0].tolist() == [-1, -1]
    g2 = _decide(buf, 1, 0)
    _after(buf, [[0, 0], [-3, 3]], [False, True])
    complete, ret = buf.returns(gamma=1.0)
    assert complete.tolist() == [True, True] and ret[0] == -3 and ret[g2] == -3
    assert buf.carry() == 0


def test_a_long_episode_grows_the_buffer_and_keeps_its_chain():
    buf = EpisodeRollout(num_envs=1, num_players=1, obs_size=2, num_actions=2, num_steps=2)
    cap = len(buf.rew)
    for t in range(5 * cap):
        i = _decide(buf, 0, 0)  # first: the decision may grow the arrays
        buf.obs[i] = t
        _after(buf, [[1.0]], [False])
    assert len(buf.rew) > cap
    buf.carry()  # nothing ended: everything is kept, in order
    assert buf.size == 5 * cap and buf.obs[:buf.size, 0].tolist() == list(range(5 * cap))
    _after(buf, [[1.0]], [True])
    complete, ret = buf.returns(1.0)
    assert complete.all() and ret[0] == 5 * cap + 1 and ret[-1] == 2


def test_pfsp_weights_decide_the_opponent_draws():
    rng = np.random.default_rng(0)
    seats = SeatAssigner(4000, 4, num_base=2, max_snapshots=2, all_seats_share=0.0, seat=0, snapshot_share=0.5,
                         rng=rng)
    seats.weights = np.array([0.0, 3.0, 1.0, 0.0])  # slot 1 never, slot 2: 3/4, slot 3: 1/4, slot 4 (empty) never
    seats.draw(np.arange(4000))
    others = seats.owner[:, 1:].ravel()
    assert (seats.owner[:, 0] == 0).all() and set(np.unique(others)) == {2, 3}
    assert abs((others == 2).mean() - 0.75) < 0.02


def test_table_draws_seat_one_opponent_at_every_opponent_seat_of_a_game():
    draws = {}
    for per_table in (False, True):
        seats = SeatAssigner(3000, 5, num_base=3, max_snapshots=1, all_seats_share=0.0, seat="random",
                             snapshot_share=0.0, rng=np.random.default_rng(4), per_table=per_table)
        seats.draw(np.arange(3000))
        draws[per_table] = seats.owner
    for owner in draws.values():
        assert ((owner == 0).sum(axis=1) == 1).all()  # the learner at one seat of every game
    kinds = [{int(k) for k in row if k} for row in draws[True]]
    assert all(len(kind) == 1 for kind in kinds)  # one opponent per table
    assert {k for kind in kinds for k in kind} == {1, 2, 3}  # every opponent still drawn
    assert sum(len({int(k) for k in row if k}) > 1 for row in draws[False]) > 2500  # per seat: mixed tables
    assert (np.argmin(draws[True], axis=1) == np.argmin(draws[False], axis=1)).all()  # the same random numbers


def test_a_match_rewards_the_better_player_and_is_seeded():
    hero = make_opponent("heuristic", "pigugnin", {"num_players": 4, "episode": "hand"}, 1)
    field = MaskedRandom(2)
    mean, win = match("pigugnin", {"num_players": 4, "episode": "hand"}, hero, field, 64, seed=3)
    assert win > 0.6
    again = match("pigugnin", {"num_players": 4, "episode": "hand"},
                  make_opponent("heuristic", "pigugnin", {"num_players": 4, "episode": "hand"}, 1), MaskedRandom(2), 64, 3)
    assert again == (mean, win)


# -- configs ------------------------------------------------------------------------------------------------------


@pytest.mark.parametrize(("override", "message"), [
    (["--algo", "dqn"], "'algo'; allowed: 'ppo', 'dmc'"),
    (["--critic", "god"], "'critic'"),
    (["--algo", "dmc", "--critic", "oracle"], "has no critic"),
    (["--critic", "oracle", "--stack_first_layers", "true"], "stack_first_layers"),
    (["--algo", "dmc", "--bc_episodes", "10"], "bc_episodes"),
    (["--opponent_sampling", "pfsp"], "selfplay: true"),
    (["--opponent_sampling", "elo"], "'opponent_sampling'"),
    (["--opponent_draw", "game"], "'opponent_draw'; allowed: 'seat', 'table'"),
    (["--epsilon", "2"], "'epsilon'"),
    (["--checkpoint_at", "[0]"], "'checkpoint_at'"),
    (["--league_games", "0"], "'league_games'"),
])
def test_bad_algorithm_keys_raise_clear_errors(override, message):
    with pytest.raises(ConfigError, match=message):
        check_args(parse_args(Args, ["--config", "configs/picchetto/ppo_batched.yaml", *override]))


# -- runs ---------------------------------------------------------------------------------------------------------

DMC_LEAGUE = ["--config", "configs/picchetto/ppo_batched.yaml", *TINY, "--algo", "dmc", "--epsilon", "0.1",
              "--selfplay", "true", "--opponent_sampling", "pfsp", "--snapshot_every", "700", "--max_snapshots", "2",
              "--opponents", "[heuristic, random]", "--league_games", "16", "--eval_every", "1500",
              "--checkpoint_at", "[1000, 3000]", "--all_seats_share", "0.5"]
ORACLE = ["--config", "configs/briscola5/ppo_batched.yaml", *TINY, "--critic", "oracle", "--eval_every", "1500",
          "--bc_episodes", "16", "--bc_epochs", "1", "--opponents", "[heuristic, random]", "--all_seats_share", "0.5"]


@pytest.fixture(scope="module")
def runs(tmp_path_factory):
    """Per recipe: an uninterrupted run to 3,200 steps, the same run stopped at 1,500 steps, and its resume."""
    tmp = tmp_path_factory.mktemp("algos")
    out = {}
    for name, argv in (("dmc_league", DMC_LEAGUE), ("oracle", ORACLE)):
        whole = main([*argv, "--total_timesteps", "3200", "--runs_dir", str(tmp / name / "whole")])
        stopped = main([*argv, "--total_timesteps", "1500", "--runs_dir", str(tmp / name / "parts")])
        resumed = main(["--resume", str(stopped / "last.mazzo.zip"), "--total_timesteps", "3200"])
        out[name] = whole, stopped, resumed
    return out


@pytest.mark.slow
@pytest.mark.parametrize("name", ["dmc_league", "oracle"])
def test_a_resumed_run_is_the_run_never_stopped(runs, name):
    whole, _, resumed = runs[name]
    assert rows(resumed / "metrics.csv") == rows(whole / "metrics.csv")
    assert rows(resumed / "eval.csv") == rows(whole / "eval.csv")
    wa, wb = load_actor(whole / "last.mazzo.zip")[0].state_dict(), load_actor(resumed / "last.mazzo.zip")[0].state_dict()
    assert all(torch.equal(wa[k], wb[k]) for k in wa)
    if name == "dmc_league":
        assert json.loads((whole / "league.json").read_text()) == json.loads((resumed / "league.json").read_text())
        # the checkpoints kept before the stop come along (step_1000), the later ones are the same
        kept = sorted(p.name for p in (whole / "checkpoints").iterdir())
        assert sorted(p.name for p in (resumed / "checkpoints").iterdir()) == kept
        for name in kept:
            wa = load_actor(whole / "checkpoints" / name)[0].state_dict()
            wb = load_actor(resumed / "checkpoints" / name)[0].state_dict()
            assert all(torch.equal(wa[k], wb[k]) for k in wa)


@pytest.mark.slow
def test_dmc_exports_a_greedy_q_player_and_the_league_writes_its_payoffs(runs):
    whole, _, _ = runs["dmc_league"]
    meta = read_metadata(whole / "best.mazzo.zip")
    assert meta["algo"] == "dmc" and meta["outputs"] == "q_values" and meta["network"]["vf"] == []
    assert sorted(p.name for p in (whole / "checkpoints").iterdir()) == ["step_1000.mazzo.zip", "step_3000.mazzo.zip"]
    assert read_metadata(whole / "checkpoints" / "step_1000.mazzo.zip")["num_timesteps"] >= 1000
    league = json.loads((whole / "league.json").read_text())
    names = [m["name"] for m in league["members"]]
    assert names[:2] == ["heuristic", "random"] and len(names) >= 5  # 4 snapshots by 3,200 steps, 2 in the pool
    assert sum(m["in_pool"] for m in league["members"]) == 4
    n = len(names)
    assert len(league["payoff"]) == n and all(len(r) == n for r in league["win_rate"])
    assert league["win_rate"][0][1] > 0.5  # the heuristic beats the random player
    newest = max(i for i, m in enumerate(league["members"]) if m["in_pool"])
    assert all(league["payoff"][newest][j] is not None for j, m in enumerate(league["members"]) if m["in_pool"] and j != newest)
    weights = np.array(league["weights"])
    assert weights.shape == (4,) and (weights > 0).all()
    # make_agent plays it greedily: the argmax of its Q-values over the legal actions
    agent = make_agent(f"ppo:{whole / 'best.mazzo.zip'}", "picchetto", flags={"episode": "hand"})
    env = make_raw_env("picchetto", episode="hand")
    env.reset(seed=5)
    obs = env.observe(env.agent_selection)
    q = load_actor(whole / "best.mazzo.zip")[0](torch.from_numpy(obs["observation"][None]))[0]
    q[torch.from_numpy(obs["action_mask"] == 0)] = -float("inf")
    assert agent.act(obs) == int(q.argmax())


@pytest.mark.slow
def test_the_oracle_critic_reads_the_privileged_vector_and_the_checkpoint_keeps_the_actor_alone(runs):
    whole, stopped, _ = runs["oracle"]
    state, arrays = read_train_state(stopped / STATE_NAME, "mazzo-batched-state/1")
    actor_in = arrays["actor.policy_net.0.weight"].shape[1]
    critic_in = arrays["critic.0.0.weight"].shape[1]
    assert critic_in == actor_in + 4 * 40  # Briscola: the four other hands
    assert len(arrays["buf.priv"]) == state["trainer"]["buffer_size"]
    meta = read_metadata(whole / "best.mazzo.zip")
    assert meta["obs_shape"] == [actor_in]
    actor, _ = load_actor(whole / "best.mazzo.zip")
    assert all(not k.startswith("critic") for k in actor.state_dict())
    assert json.loads((whole / "imitation.json").read_text())["samples"] > 0  # the warm start fits the oracle too


def _oracle_trainer(num_envs: int) -> object:
    from train.batched.ppo import BatchedPPO

    args = parse_args(Args, ["--config", "configs/briscola5/ppo_batched.yaml", "--critic", "oracle", "--num_envs",
                             str(num_envs), "--num_steps", "1", "--net_arch", "[16]", "--all_seats_share", "1.0",
                             "--opponents", "[random]", "--progress", "false"])
    check_args(args)
    return BatchedPPO(args, np.random.SeedSequence(1).generate_state(6))


def test_the_oracle_critic_reads_the_privileged_vector_of_each_deciding_seat():
    t = _oracle_trainer(8)
    t.env.step(np.array([t.env.mask[i].nonzero()[0][0] for i in range(8)]))  # games move on: several seats act
    expected = t.env.privileged(t.env.current_player).copy()
    assert (expected.sum(1) > 0).all()
    t.collect()  # one engine step, every game's seat is the learner (all_seats_share 1)
    assert t.buf.size == 8 and np.array_equal(t.buf.priv[:8], expected)
    assert not np.array_equal(t.buf.priv[:8], t.env.privileged(np.zeros(8, dtype=np.int64)))  # the seat matters


def test_an_exported_player_decides_the_same_whatever_it_cannot_see(tmp_path):
    """The no-leak test for trained players: two deals that differ only in cards the acting seat cannot see (the
    other hands, shuffled among the others) give the oracle critic different values, and the actor, live and
    exported, the very same logits, hence the same decisions. Each row is its own batch: on some CPUs (AMD EPYC) a
    matrix product rounds identical rows of one batch differently, which is arithmetic, not a leak."""
    from agents.checkpoint import save_actor

    t = _oracle_trainer(2)
    rng = np.random.default_rng(0)
    for _ in range(10):
        cards = rng.permutation(40)
        hands = [sorted(cards[8 * s: 8 * s + 8].tolist()) for s in range(5)]
        shuffled = rng.permutation(np.concatenate(hands[1:]))
        moved = [hands[0]] + [sorted(shuffled[8 * k: 8 * k + 8].tolist()) for k in range(4)]
        t.env.reset(options=[{"hands": hands, "dealer": 4}, {"hands": moved, "dealer": 4}])
        assert t.env.current_player.tolist() == [0, 0]
        x = torch.from_numpy(t.env.obs.copy())
        priv = torch.from_numpy(t.env.privileged(t.env.current_player).copy())
        assert torch.equal(x[0], x[1]) and not torch.equal(priv[0], priv[1])
        with torch.no_grad():
            values = t.critic(t.critic_input(x, priv))[:, 0]
            logits = torch.cat([t.actor(x[i:i + 1]) for i in range(2)])
        assert values[0] != values[1] and torch.equal(logits[0], logits[1])
    exported = load_actor(save_actor(t.actor, tmp_path / "a.mazzo.zip", {"game": "briscola5"}))[0]
    with torch.no_grad():
        rows = torch.cat([exported(x[i:i + 1]) for i in range(2)])
        assert torch.equal(rows[0], rows[1]) and torch.equal(rows, logits)
    agent = make_agent(f"ppo:{tmp_path / 'a.mazzo.zip'}", "briscola5")
    obs = [{"observation": t.env.obs[i].copy(), "action_mask": t.env.mask[i].copy()} for i in range(2)]
    assert agent.act(obs[0]) == agent.act(obs[1])


# -- the warm start's value targets ---------------------------------------------------------------------------------


def test_returns_to_go_leave_out_what_a_seat_banked_before_deciding():
    from train.imitation import returns_to_go

    # one episode: seat 0 decides with 0 banked, then with 3 banked, seat 1 decides once with 0; totals 5 and -5
    eps, seats = np.array([0, 0, 0]), np.array([0, 1, 0])
    out = returns_to_go(eps, seats, banked=np.array([0.0, 0.0, 3.0]), totals=np.array([5.0, -5.0, 5.0]))
    assert out.tolist() == [5.0, -5.0, 2.0]
    assert returns_to_go(eps, seats, np.array([0.0, 0.0, 3.0]), np.array([5.0, -5.0, 5.0]), gamma=0.5).tolist() == \
        [3.0 + 0.5 * 2.0, -5.0, 2.0]


def test_picchetto_demonstrations_target_the_return_from_each_decision_on():
    """Picchetto pays during the hand (declarations, tricks): a decision's target is what its seat still receives,
    the same on the batched engine and through the AEC env (the same teacher, its numba port)."""
    from train.imitation import collect, collect_batched

    flags = {"episode": "hand"}
    demos = collect_batched("picchetto", "heuristic", flags, 6, seed=2, num_envs=3)
    for ep in range(6):
        for seat in (0, 1):
            rows = np.flatnonzero((demos.episodes == ep) & (demos.seats == seat))
            ret = demos.returns[rows]
            assert len(set(ret.tolist())) > 1  # points banked as the hand goes: not one episode total
    aec = collect("picchetto", "heuristic", flags, 3, seed=2)
    assert len(set(aec.returns[(aec.episodes == 0) & (aec.seats == 0)].tolist())) > 1
