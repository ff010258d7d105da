"""The Gymnasium vector env of the single-seat game on the batched engine (issue 23 item 1).

The proof that it is the same env: ``SyncVectorEnv`` over ``SingleSeatEnv`` and
``gymnasium.make_vec(..., vectorization_mode="vector_entry_point")`` are given the same deals (one-hand
episodes: later hands come from different random streams), the same fixed seats, heuristic opponents (the
numba ports take the Python heuristics' actions) and the same learner actions; over every sub-env's first
episode the observation bytes, masks, rewards, terminations, truncations, episode returns and results must be
identical, in each of Gymnasium's three autoreset modes, on 2,000+ deals per game. Then the semantics of their
own: illegal actions, skipped deals, dict observations, seeding, opponents and self-play weights.
"""

from __future__ import annotations

import gymnasium as gym
import numpy as np
import pytest
from gymnasium.vector import AutoresetMode

import train  # noqa: F401  (registers the ids)
from envs.core.cards import iter_bits
from envs.core.errors import ConfigError, DealError, IllegalActionError, ResetNeededError
from envs.registry import GAMES, game_spec
from train.single_seat import SingleSeatEnv
from train.vector_single_seat import VectorSingleSeatEnv

pytest.importorskip("numba")

#: one-hand flag sets (a given deal is the whole episode), with some non-default rules
EQUIVALENCE = [
    ("briscola5", {}),
    ("briscola5", {"min_raise": 5, "all_pass_policy": "force_dealer", "first_lead": "caller"}),
    ("pigugnin", {"episode": "hand"}),
    ("pigugnin", {"episode": "hand", "num_players": 5, "pigugnin_first_trick_restriction": True}),
    ("picchetto", {"episode": "hand"}),
    ("picchetto", {"episode": "hand", "allow_peek": True, "reveal_leftover_talon": True, "trick_scoring": "classic"}),
]
#: the first flag set of each game in the fast tier, the others in `make test` only (7-15 s each)
EQ_PARAMS = [pytest.param(g, f, id=f"{g}-{i}", marks=[pytest.mark.slow] if i % 2 else [])
             for i, (g, f) in enumerate(EQUIVALENCE)]


def make(game: str, num_envs: int, **kwargs) -> VectorSingleSeatEnv:
    return gym.make_vec(game_spec(game).gym_id, num_envs=num_envs, vectorization_mode="vector_entry_point", **kwargs)


def deals(game: str, flags: dict, count: int, seed: int) -> list[dict]:
    """``count`` deals of seeded AEC envs as reset options (dealer, hands, and the talon where there is one)."""
    env = game_spec(game).raw_env(**flags)
    out = []
    for k in range(count):
        env.reset(seed=seed + k)
        deal = dict(env.game.hand_deal(env.state_, env.state_.hand_no))
        deal["hands"] = [list(iter_bits(h)) if isinstance(h, int) else list(h) for h in deal["hands"]]
        out.append(deal)
    return out


class DealOfIndex(gym.Wrapper):
    """``reset(options={"deals": [...]})`` gives sub-env ``i`` its own deal (SyncVectorEnv passes one options dict)."""

    def __init__(self, env: gym.Env, i: int):
        super().__init__(env)
        self.i = i

    def reset(self, *, seed=None, options=None):
        deal = None if not options or options.get("deals") is None else options["deals"][self.i]
        return self.env.reset(seed=seed, options=deal)


def sync_of(game: str, flags: dict, seats: list[int], mode: AutoresetMode) -> gym.vector.SyncVectorEnv:
    fns = [lambda i=i: DealOfIndex(SingleSeatEnv(game, opponents="heuristic", seat=seats[i], **flags), i)
           for i in range(len(seats))]
    return gym.vector.SyncVectorEnv(fns, autoreset_mode=mode)


def compare_first_episodes(game: str, flags: dict, num_envs: int, seed: int, mode=AutoresetMode.NEXT_STEP) -> dict:
    """One round: both vector envs reset with the same deals; every sub-env compared until its first episode ends."""
    n = len(game_spec(game).raw_env(**flags).possible_agents)
    seats = [(i + seed) % n for i in range(num_envs)]
    given = deals(game, flags, num_envs, seed=10_000 * seed)
    venv = make(game, num_envs, opponents="heuristic", seat=seats, autoreset_mode=mode, **flags)
    sync = sync_of(game, flags, seats, mode)
    vo, vi = venv.reset(seed=seed, options={"deals": given})
    so, si = sync.reset(seed=seed, options={"deals": given})
    skipped_v = venv.unwrapped.skipped > 0
    skipped_s = np.array([e.unwrapped.skipped_deals > 0 for e in sync.envs])
    assert np.array_equal(skipped_v, skipped_s)  # the same deals end before the learner acts
    live = ~skipped_v  # sub-envs still in their first (given) episode
    assert np.array_equal(vi["seat"], si["seat"]) and vi["seat"].tolist() == seats
    rnd = np.random.default_rng(seed)
    counts = {"deals": int(live.sum()), "steps": 0, "rewards": 0}
    steps = 0
    while live.any():
        vmask, smask = venv.unwrapped.action_masks(), np.stack(sync.call("action_masks"))
        assert vmask.dtype == np.bool_ and vmask.shape == (num_envs, venv.unwrapped.num_actions)
        assert vo[live].tobytes() == so[live].tobytes(), steps
        assert np.array_equal(vmask[live], smask[live]) and np.array_equal(vi["action_mask"][live], vmask[live])
        acts_v = np.argmax(rnd.random(vmask.shape) * vmask, axis=1)
        acts_s = np.where(live, acts_v, np.argmax(rnd.random(smask.shape) * smask, axis=1))
        vo, vr, vterm, vtrunc, vi = venv.step(acts_v)
        so, sr, sterm, strunc, si = sync.step(acts_s)
        steps += 1
        counts["steps"] += int(live.sum())
        counts["rewards"] += int((vr[live] != 0).sum())
        assert vr.dtype == np.float64 and np.array_equal(vr[live], sr[live]), steps
        assert np.array_equal(vterm[live], sterm[live]) and np.array_equal(vtrunc[live], strunc[live]), steps
        ended = live & (vterm | vtrunc)
        if ended.any():
            if mode == AutoresetMode.SAME_STEP:  # the last observation and info moved to final_obs / final_info
                assert np.array_equal(vi["_final_obs"][live], si["_final_obs"][live])
                for i in np.flatnonzero(ended):
                    assert vi["final_obs"][i].tobytes() == si["final_obs"][i].tobytes()
                vinfo, sinfo = vi["final_info"], si["final_info"]
            else:
                vinfo, sinfo = vi, si
                assert vo[ended].tobytes() == so[ended].tobytes()  # the final observation
                assert not venv.unwrapped.action_masks()[ended].any()
            for i in np.flatnonzero(ended):
                assert vinfo["episode_return"][i] == sinfo["episode_return"][i]
                if mode != AutoresetMode.SAME_STEP:
                    want = sync.envs[i].unwrapped.raw.infos["player_0"]["result"]
                    assert vinfo["result"][i] == {k: want[k] for k in vinfo["result"][i]}
        live &= ~ended
        if mode == AutoresetMode.DISABLED and (vterm | vtrunc).any():
            done = vterm | vtrunc
            vo, vi = venv.reset(options={"reset_mask": done})
            so, si = sync.reset(options={"reset_mask": done.copy()})
        assert steps < 2000
    return counts


@pytest.mark.parametrize("game,flags", EQ_PARAMS)
def test_the_same_env_as_sync_vector_env_over_the_single_seat_env(game, flags):
    total = {"deals": 0, "steps": 0, "rewards": 0}
    rounds = 0
    while total["deals"] < 2000:
        counts = compare_first_episodes(game, flags, num_envs=256, seed=rounds)
        total = {k: total[k] + counts[k] for k in total}
        rounds += 1
    assert total["steps"] > 5 * total["deals"] and total["rewards"] > 0.2 * total["deals"], total


@pytest.mark.parametrize("mode", [AutoresetMode.SAME_STEP, AutoresetMode.DISABLED])
@pytest.mark.parametrize("game", list(GAMES))
def test_the_same_env_in_the_other_autoreset_modes(game, mode):
    flags = dict(game_spec(game).single_hand)
    counts = compare_first_episodes(game, flags, num_envs=48, seed=3, mode=mode)
    assert counts["deals"] >= 40


# -- the API ------------------------------------------------------------------------------------------------------


@pytest.mark.parametrize("game", list(GAMES))
def test_make_vec_returns_a_gymnasium_vector_env_with_the_single_seat_spaces(game):
    spec = game_spec(game)
    venv = gym.make_vec(spec.gym_id, num_envs=8, vectorization_mode="vector_entry_point", opponents="heuristic",
                        seat="random")
    assert isinstance(venv, gym.vector.VectorEnv) and isinstance(venv.unwrapped, VectorSingleSeatEnv)
    assert gym.make_vec(spec.gym_id, num_envs=2).unwrapped.__class__ is VectorSingleSeatEnv  # the default mode
    single = SingleSeatEnv(game)
    assert venv.single_observation_space == single.observation_space
    assert venv.single_action_space == single.action_space
    assert venv.metadata["autoreset_mode"] == AutoresetMode.NEXT_STEP
    obs, info = venv.reset(seed=1)
    assert obs.shape == (8, *single.observation_space.shape) and obs.dtype == np.float32 and obs in venv.observation_space
    assert info["action_mask"].shape == (8, single.action_space.n) and info["action_mask"].dtype == np.bool_
    assert info["action_mask"].any(axis=1).all() and np.array_equal(info["action_mask"], venv.unwrapped.action_masks())
    seen = set()
    for _ in range(40):
        obs, r, term, trunc, info = venv.step(np.argmax(venv.unwrapped.action_masks(), axis=1))
        assert obs in venv.observation_space and r.shape == (8,) and term.dtype == np.bool_
        seen |= set(info["seat"].tolist())
        for i in np.flatnonzero(term | trunc):
            assert info["_episode_return"][i] and info["result"][i]["result_version"] >= 1
            assert sorted(info["opponents"][i]) == sorted(set(range(single.num_players)) - {info["seat"][i]})
    assert len(seen) > 1  # seat="random"
    assert venv.unwrapped.privileged().shape == (8, venv.unwrapped.engine.privileged_size)


def test_dict_observations_for_rllib_action_masking():
    venv = make("pigugnin", 4, opponents="heuristic", dict_obs=True)
    obs, info = venv.reset(seed=0)
    assert set(obs) == {"observations", "action_mask"} and obs in venv.observation_space
    assert obs["action_mask"].dtype == np.float32 and np.array_equal(obs["action_mask"] != 0, info["action_mask"])
    obs, *_ = venv.step(np.argmax(info["action_mask"], axis=1))
    assert obs in venv.observation_space


def test_illegal_actions_terminate_or_raise():
    venv = make("briscola5", 4, opponents="heuristic", seat=0)
    obs, info = venv.reset(seed=2)
    acts = np.argmax(info["action_mask"], axis=1)
    bad = int(np.flatnonzero(~info["action_mask"][1])[0])
    acts[1], acts[2] = bad, 999
    obs2, r, term, trunc, info2 = venv.step(acts)
    assert r[1] == r[2] == -1.0 and term[1] and term[2] and not trunc.any()
    assert obs2[1].tobytes() == obs[1].tobytes() and not venv.unwrapped.action_masks()[1:3].any()
    assert info2["illegal_action"][1] == bad and info2["_illegal_action"].tolist() == [False, True, True, False]
    assert "not legal now" in info2["reason"][1] and "not an action id" in info2["reason"][2]
    assert info2["result"][1] is None and info2["episode_return"][1] == -1.0
    obs3, r3, term3, *_ = venv.step(np.zeros(4, dtype=np.int64))  # the next step resets them (its actions ignored)
    assert r3[1] == r3[2] == 0.0 and not term3[1:3].any() and venv.unwrapped.action_masks()[1:3].any(axis=1).all()
    strict = make("briscola5", 4, opponents="heuristic", seat=0, illegal_action="raise")
    obs, info = strict.reset(seed=2)
    acts = np.argmax(info["action_mask"], axis=1)
    acts[3] = bad
    before = (strict.unwrapped.engine.buf.copy(), strict.unwrapped.action_masks())
    with pytest.raises(IllegalActionError, match=r"sub-env 3: action \d+ .* is not legal now for player_0; legal actions"):
        strict.step(acts)
    assert np.array_equal(before[0], strict.unwrapped.engine.buf) and np.array_equal(before[1], strict.unwrapped.action_masks())


def test_a_deal_over_before_the_learner_acts_is_skipped():
    # the elder (seat 1) holds no face card: a Bianco at the deal carries him past the target, the game is over
    hands = [["7h", "8h", "9h", "Th", "Ah", "7d", "8d", "9d", "Td", "Ad", "7s", "8s"],
             ["Jh", "Qh", "Kh", "Jd", "Qd", "Kd", "Js", "Qs", "Ks", "Jc", "Qc", "Kc"]]
    flags = {"match_format": "single_game", "game_target": 100}
    over = {"dealer": 1, "hands": hands, "scores": [95, 0]}  # dealer 1: the elder is seat 0, hands[0] is a Bianco
    venv = make("picchetto", 2, opponents="heuristic", seat=0, **flags)
    single = SingleSeatEnv("picchetto", opponents="heuristic", seat=0, **flags)
    single.reset(seed=0, options=over)
    assert single.skipped_deals == 1
    obs, info = venv.reset(seed=0, options={"deals": [over, None]})
    assert venv.unwrapped.skipped.tolist() == [1, 0]
    assert info["action_mask"].any(axis=1).all()


def test_same_seed_same_trajectory_other_seed_other_deals():
    def run(seed):
        venv = make("pigugnin", 16, opponents="random,heuristic", seat="random")
        obs, _ = venv.reset(seed=seed)
        out = [obs.tobytes()]
        for _ in range(30):
            obs, r, *_ = venv.step(np.argmax(venv.unwrapped.action_masks(), axis=1))
            out.append(obs.tobytes() + r.tobytes())
        return out

    assert run(4) == run(4) and run(4) != run(5)


def test_opponents_are_drawn_per_seat_by_weight():
    venv = make("pigugnin", 256, opponents={"random": 1, "heuristic": 3}, seat=0, flags={"episode": "hand"})
    venv.reset(seed=0)
    names = []
    for _ in range(30):
        _, _, term, trunc, info = venv.step(np.argmax(venv.unwrapped.action_masks(), axis=1))
        for i in np.flatnonzero(term | trunc):
            names += list(info["opponents"][i].values())
    share = names.count("heuristic") / len(names)
    assert len(names) > 1000 and 0.7 < share < 0.8, share


def test_self_play_weights_are_swapped_at_run_time(tmp_path):
    torch = pytest.importorskip("torch")
    from agents.checkpoint import build_actor, save_actor
    from agents.rows import ActorRows

    venv = make("pigugnin", 32, opponents="self", seat=0, flags={"episode": "hand"})
    with pytest.raises(ConfigError, match="needs a 'self' opponent"):
        make("pigugnin", 2, opponents="heuristic").unwrapped.set_opponent_weights({})
    inner = venv.unwrapped
    venv.reset(seed=0)
    torch.manual_seed(0)
    actor = build_actor(inner.engine.obs_size, 40, [16])
    inner.set_opponent_weights({k: v.numpy() for k, v in actor.state_dict().items()}, greedy=True)
    policy = inner.opponent_player("self")
    assert isinstance(policy, ActorRows)
    obs = inner.engine.observe(1)
    mask = inner.engine.mask.copy()
    mask[:] = 1
    want = ActorRows(actor, name="ref", greedy=True).act(obs, mask)
    assert np.array_equal(policy.act(obs, mask), want)
    path = save_actor(actor, tmp_path / "snap.mazzo.zip", {"game": "pigugnin", "flags": {}})
    inner.set_opponent_weights(str(path), greedy=True)
    assert np.array_equal(inner.opponent_player("self").act(obs, mask), want)
    inner.set_opponent_weights(actor, greedy=True)  # a module
    for _ in range(20):
        venv.step(np.argmax(inner.action_masks(), axis=1))
    with pytest.raises(ConfigError, match="does not fit the checkpoint actor"):
        inner.set_opponent_weights({"policy_net.0.weight": np.zeros((3, 3))})


def test_bad_arguments_raise_config_errors():
    for kwargs, text in [
        ({"seat": 4}, "seat must be 'random', an int 0..3"),
        ({"seat": [0, 1]}, "list of 4 such ints"),
        ({"opponents": "nobody"}, "unknown opponent"),
        ({"illegal_action": "ignore"}, "illegal_action must be one of"),
        ({"reward_scale": 0}, "reward_scale"),
        ({"autoreset_mode": "later"}, "autoreset_mode must be"),
        ({"dict_obs": 1}, "dict_obs"),
        ({"num_players": 6}, "num_players"),
        ({"render_mode": "rgb_array"}, "draws no pictures"),
    ]:
        with pytest.raises(ConfigError, match=text):
            make("pigugnin", 4, **kwargs)
    venv = make("pigugnin", 4)
    with pytest.raises(ResetNeededError, match="reset"):
        venv.step(np.zeros(4, dtype=np.int64))
    with pytest.raises(DealError, match="sub-env 1"):
        venv.reset(options={"deals": [None, {"dealer": 9}, None, None]})
    with pytest.raises(DealError, match="list of 4"):
        venv.reset(options={"deals": [None]})
    venv.reset(seed=0)
    with pytest.raises(IllegalActionError, match="one per sub-env"):
        venv.step(np.zeros(3, dtype=np.int64))
    disabled = make("pigugnin", 2, autoreset_mode="Disabled", flags={"episode": "hand"})
    disabled.reset(seed=0)
    for _ in range(12):
        _, _, term, *_ = disabled.step(np.argmax(disabled.unwrapped.action_masks(), axis=1))
        if term.any():
            break
    with pytest.raises(ResetNeededError, match="reset_mask"):
        disabled.step(np.argmax(disabled.unwrapped.action_masks(), axis=1))


@pytest.mark.slow  # a subprocess that imports torch and trains for two updates
def test_the_cleanrl_style_script_trains_on_make_vec(tmp_path):
    import math
    import os
    import re
    import subprocess
    import sys
    from pathlib import Path

    pytest.importorskip("torch")
    root = Path(__file__).resolve().parents[2]
    env = {**os.environ, "PYTHONPATH": os.pathsep.join(filter(None, [str(root), os.environ.get("PYTHONPATH")])),
           "OMP_NUM_THREADS": "1"}
    out = subprocess.run([sys.executable, str(root / "notebooks" / "cleanrl_ppo_vector.py"), "--total-timesteps", "2048",
                          "--num-envs", "32", "--num-steps", "32", "--update-epochs", "2"],
                         capture_output=True, text=True, env=env, cwd=tmp_path, timeout=300)
    assert out.returncode == 0, out.stderr[-2000:]
    assert "update 2/2" in out.stdout
    final = re.search(r"final episodic_return\(last 100\)=(\S+) after (\d+) steps", out.stdout)
    assert final and math.isfinite(float(final.group(1))) and int(final.group(2)) > 1500, out.stdout


def test_rewards_before_the_learners_first_action_come_with_its_first_step():
    """The elder's Bianco, paid by the dealer learner at the deal, comes with the learner's first step, exactly as
    in ``SingleSeatEnv`` (the same deal, seat and actions), in every autoreset mode's first episode."""
    from tests.train.test_single_seat import BIANCO_DEAL

    for mode in (AutoresetMode.NEXT_STEP, AutoresetMode.SAME_STEP):
        venv = make("picchetto", 2, opponents="heuristic", seat=0, autoreset_mode=mode, episode="hand")
        single = SingleSeatEnv("picchetto", opponents="heuristic", seat=0, episode="hand")
        venv.reset(seed=0, options={"deals": [BIANCO_DEAL, BIANCO_DEAL]})
        single.reset(seed=0, options=BIANCO_DEAL)
        got, want, done = [], [], False
        while not done:
            a = int(np.flatnonzero(single.action_masks())[0])
            assert venv.unwrapped.action_masks()[0, a]
            _, r, term, trunc, _ = single.step(a)
            _, vr, _, _, _ = venv.step(np.array([a, a]))
            want.append(r)
            got.append(vr[0])
            done = term or trunc
        assert got == want and want[0] <= -10 and sum(got) == sum(want)
