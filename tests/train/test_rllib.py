"""The RLlib trainer's pieces without a Ray cluster: the turn-based adapter, the masked module and its
export to the safe checkpoint format, the seat mapping of self-play, and the config checks.

The tests that start Ray (the smoke training, the ray evaluation backend) are in test_rllib_cluster.py.
"""

from __future__ import annotations

from pathlib import Path

import numpy as np
import pytest

pytest.importorskip("ray.rllib")

import torch  # noqa: E402

from agents.checkpoint import HUGE_NEG, read_policy_metadata  # noqa: E402
from agents.registry import make_agent  # noqa: E402
from envs.core.errors import ConfigError  # noqa: E402
from envs.registry import game_spec  # noqa: E402
from train.config import load_config  # noqa: E402
from train.rllib import Args, check_args  # noqa: E402
from train.rllib.env import MazzoMultiAgentEnv  # noqa: E402
from train.rllib.module import MaskedActorCriticModule, export_policy  # noqa: E402
from train.rllib.selfplay import MAIN, SeatMapping, seat_module  # noqa: E402

ROOT = Path(__file__).resolve().parents[2]
GAMES = [("briscola5", {}), ("pigugnin", {"num_players": 5, "episode": "hand"}), ("picchetto", {"episode": "game"})]


@pytest.mark.parametrize(("game", "flags"), GAMES, ids=[g for g, _ in GAMES])
def test_adapter_plays_the_aec_episode_and_delivers_every_reward(game, flags):
    """Same seed, same actions: the adapter's observations are the AEC env's, each agent's rewards add up
    to its AEC return, only the seat to act gets an observation, and the end reaches every seat."""
    rng = np.random.default_rng(0)
    for episode in range(3):
        env = MazzoMultiAgentEnv({"game": game, "flags": flags, "reward_scale": 0.5})
        ref = game_spec(game).raw_env(**flags)
        obs, _ = env.reset(seed=100 + episode)
        ref.reset(seed=100 + episode)
        got = dict.fromkeys(ref.possible_agents, 0.0)
        want = dict.fromkeys(ref.possible_agents, 0.0)
        while True:
            (name,) = obs  # one seat acts at a time
            assert name == ref.agent_selection
            np.testing.assert_array_equal(obs[name]["observation"], ref.observe(name)["observation"])
            np.testing.assert_array_equal(obs[name]["action_mask"], ref.observe(name)["action_mask"])
            action = int(rng.choice(np.flatnonzero(obs[name]["action_mask"])))
            obs, rewards, terminateds, truncateds, _ = env.step({name: action})
            ref.step(action)
            for a, r in ref.rewards.items():
                want[a] += r
            for a, r in rewards.items():
                got[a] += r / 0.5
            if terminateds["__all__"] or truncateds["__all__"]:
                break
            assert set(rewards) == set(obs)
        assert ref.episode_over
        assert set(obs) == set(ref.possible_agents)  # every seat acted, so every seat gets its last step
        assert all(terminateds[a] for a in obs) and not any(truncateds[a] for a in obs)
        assert got == pytest.approx(want, abs=1e-9)
        assert sum(abs(v) for v in want.values()) > 0


def _module(game: str, flags: dict, net_arch=(16, 16), inference_only=False) -> MaskedActorCriticModule:
    env = MazzoMultiAgentEnv({"game": game, "flags": flags})
    return MaskedActorCriticModule(observation_space=env.observation_spaces["player_0"],
                                   action_space=env.action_spaces["player_0"], inference_only=inference_only,
                                   model_config={"net_arch": list(net_arch), "activation": "Tanh"})


def _batch(game: str, flags: dict, n: int = 32):
    env = game_spec(game).raw_env(**flags)
    rng = np.random.default_rng(1)
    obs, masks = [], []
    env.reset(seed=5)
    while len(obs) < n:
        if env.episode_over:
            env.reset()
        o = env.observe(env.agent_selection)
        obs.append(o["observation"])
        masks.append(o["action_mask"])
        env.step(int(rng.choice(np.flatnonzero(o["action_mask"]))))
    return {"obs": {"observation": torch.as_tensor(np.stack(obs)), "action_mask": torch.as_tensor(np.stack(masks))}}


def test_module_masks_illegal_actions_and_inference_copies_have_no_critic():
    torch.manual_seed(0)
    module = _module("briscola5", {})
    batch = _batch("briscola5", {})
    mask = batch["obs"]["action_mask"].bool()
    logits = module.forward_exploration(batch)["action_dist_inputs"]
    assert torch.all(logits[~mask] == HUGE_NEG) and torch.all(logits[mask] > HUGE_NEG / 2)
    dist = module.get_exploration_action_dist_cls().from_logits(logits)
    for _ in range(20):
        actions = dist.sample()
        assert mask[torch.arange(len(actions)), actions].all()
    values = module.compute_values(batch)
    assert values.shape == (32,) and torch.isfinite(values).all()
    lean = _module("briscola5", {}, inference_only=True)
    assert not hasattr(lean, "critic")
    assert not any(k.startswith("critic.") for k in module.get_state(inference_only=True))
    lean.set_state(module.get_state(inference_only=True))
    assert torch.equal(lean.forward_inference(batch)["action_dist_inputs"], module.forward_inference(batch)["action_dist_inputs"])


@pytest.mark.parametrize(("game", "flags"), GAMES, ids=[g for g, _ in GAMES])
def test_export_plays_through_make_agent_as_the_module_decides(tmp_path, game, flags):
    """The exported file is an ordinary safe checkpoint: make_agent("ppo:PATH") loads it and plays the
    module's greedy (masked argmax) action on every observation."""
    torch.manual_seed(1)
    module = _module(game, flags, net_arch=(24, 8))
    spec = game_spec(game)
    meta = {"game": game, "flags": flags, "obs_shape": list(spec.observation_shape(flags)),
            "num_actions": spec.num_actions, "run_name": "test"}
    path = export_policy(module.get_state(), tmp_path / "m.mazzo.zip", meta, net_arch=[24, 8], activation="Tanh",
                         num_timesteps=123)
    _, saved = read_policy_metadata(path)
    assert saved["format"] == "mazzo-policy/1" and saved["network"]["pi"] == [24, 8] and saved["num_timesteps"] == 123
    agent = make_agent(f"ppo:{path}", game)
    batch = _batch(game, flags, 40)
    greedy = module.forward_inference(batch)["action_dist_inputs"].argmax(-1)
    for i in range(40):
        obs = {"observation": batch["obs"]["observation"][i].numpy(), "action_mask": batch["obs"]["action_mask"][i].numpy()}
        assert agent.act(obs) == int(greedy[i])


def test_export_refuses_a_state_that_is_not_the_actor(tmp_path):
    module = _module("picchetto", {})
    meta = {"game": "picchetto", "flags": {}, "obs_shape": [442], "num_actions": 65}
    state = {k: v for k, v in module.get_state().items() if not k.startswith("actor.action_net")}
    with pytest.raises(ConfigError, match="actor's tensors"):
        export_policy(state, tmp_path / "x.mazzo.zip", meta, net_arch=[16, 16], activation="Tanh")
    with pytest.raises(ConfigError):  # the sizes of another network
        export_policy(module.get_state(), tmp_path / "x.mazzo.zip", meta, net_arch=[32, 32], activation="Tanh")
    assert not (tmp_path / "x.mazzo.zip").exists()


class _Episode:
    def __init__(self, id_: str):
        self.id_ = id_


def test_seat_mapping_self_play_snapshot_episodes_and_per_seat():
    agents = [f"player_{i}" for i in range(5)]
    plain = SeatMapping("shared", 5, salt=1)
    assert {plain(a, _Episode("x")) for a in agents} == {MAIN}
    always = SeatMapping("shared", 5, ("snap_3", "snap_6"), share=1.0, salt=1)
    seen_seats, seen_snaps = set(), set()
    for k in range(200):
        ep = _Episode(f"episode-{k}")
        mods = [always(a, ep) for a in agents]
        assert mods == [always(a, ep) for a in reversed(agents)][::-1]  # the same whatever the order asked
        assert mods.count(MAIN) == 1 and len(set(mods) - {MAIN}) == 1
        seen_seats.add(mods.index(MAIN))
        seen_snaps |= set(mods) - {MAIN}
    assert seen_seats == set(range(5)) and seen_snaps == {"snap_3", "snap_6"}
    half = SeatMapping("shared", 5, ("snap_3",), share=0.5, salt=1)
    share = np.mean([half.draw(f"e{k}") is not None for k in range(2000)])
    assert 0.45 < share < 0.55
    assert [SeatMapping("per_seat", 5)(a, None) for a in agents] == [seat_module(a) for a in agents] == \
        [f"seat_{i}" for i in range(5)]


@pytest.mark.parametrize("path", sorted(ROOT.glob("configs/*/rllib*.yaml")), ids=lambda p: f"{p.parent.name}/{p.name}")
def test_shipped_configs_are_valid(path):
    meta = check_args(load_config(Args, path))
    assert meta["game"] == path.parent.name


@pytest.mark.parametrize(("override", "match"), [
    ({"policies": "per_role"}, "policies"),
    ({"policies": "per_seat", "selfplay": True}, "selfplay"),
    ({"rollout_fragment_length": 0}, "rollout_fragment_length"),
    ({"num_env_runners": -1}, "num_env_runners"),
    ({"env.num_players": 3}, "num_players"),
    ({"activation": "Softmax"}, "activation"),
    ({"eval_opponents": ["nobody"]}, "nobody"),
])
def test_bad_configs_fail_before_ray_starts(override, match):
    with pytest.raises(ConfigError, match=match):
        check_args(load_config(Args, ROOT / "configs/pigugnin/rllib.yaml", override))


def test_build_config_new_api_stack_shared_and_per_seat_policies():
    """The PPOConfig is RLlib's new API stack (RLModules, learners, env runners and connectors), with one
    trained module per policy mode, the masked module for each, and the seat mapping; Ray is not started."""
    import ray

    from train.rllib.algorithm import build_config

    shared = build_config(load_config(Args, ROOT / "configs/briscola5/rllib.yaml", {"num_env_runners": 3}))
    assert shared.enable_rl_module_and_learner and shared.enable_env_runner_and_connector_v2
    assert set(shared.policies) == {MAIN} and list(shared.policies_to_train) == [MAIN]
    assert shared.num_env_runners == 3 and shared.train_batch_size_per_learner == 4000
    assert shared.rl_module_spec.rl_module_specs[MAIN].module_class is MaskedActorCriticModule
    assert {shared.policy_mapping_fn(f"player_{i}", _Episode("e")) for i in range(5)} == {MAIN}
    per_seat = build_config(load_config(Args, ROOT / "configs/pigugnin/rllib.yaml", {"policies": "per_seat",
                                                                                      "selfplay": False}))
    assert set(per_seat.policies) == set(per_seat.policies_to_train) == {f"seat_{i}" for i in range(4)}
    assert [per_seat.policy_mapping_fn(f"player_{i}", None) for i in range(4)] == [f"seat_{i}" for i in range(4)]
    assert not ray.is_initialized()


def test_command_line_help_and_a_bad_config_fail_fast_without_starting_ray(tmp_path):
    import subprocess
    import sys
    root = ROOT
    run = [sys.executable, "-m", "train.rllib"]
    out = subprocess.run([*run, "--help"], capture_output=True, text=True, timeout=300, cwd=root)
    assert out.returncode == 0 and "usage:" in out.stdout and "--num_env_runners" in out.stdout
    out = subprocess.run([*run, "--config", "configs/picchetto/rllib_smoke.yaml", "--policies", "per_role",
                          "--runs_dir", str(tmp_path)], capture_output=True, text=True, timeout=300, cwd=root)
    assert out.returncode == 2 and out.stderr.startswith("error: invalid value 'per_role' for 'policies'")
    assert not any(tmp_path.iterdir())  # no run folder: the config is checked first
    out = subprocess.run([sys.executable, "benchmarks/rllib_speed.py", "--help"], capture_output=True, text=True,
                         timeout=300, cwd=root)
    assert out.returncode == 0 and "--runners" in out.stdout
