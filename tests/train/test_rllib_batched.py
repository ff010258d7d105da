"""The RLlib trainer's batched engine (``env_engine: batched``) without a Ray cluster: RLlib's
``SingleAgentEnvRunner`` built in this process over the vector env, the batched connectors against RLlib's default
ones, the flat observation and the module that splits it, the self-play sync into a runner's ``self`` opponent, the
export, and the config checks.

The runs on a local Ray cluster (PPO, APPO, the CLI, no Ray process left) are in test_rllib_batched_cluster.py.
"""

from __future__ import annotations

from pathlib import Path

import numpy as np
import pytest

pytest.importorskip("ray.rllib")
pytest.importorskip("numba")

import torch  # noqa: E402
from ray.rllib.callbacks.callbacks import RLlibCallback  # noqa: E402
from ray.rllib.core.columns import Columns  # noqa: E402
from ray.rllib.env.single_agent_env_runner import SingleAgentEnvRunner  # noqa: E402

from agents.checkpoint import HUGE_NEG  # noqa: E402
from agents.registry import make_agent  # noqa: E402
from envs.core.errors import ConfigError  # noqa: E402
from envs.registry import game_spec  # noqa: E402
from train.config import load_config  # noqa: E402
from train.rllib import Args, check_args  # noqa: E402
from train.rllib.algorithm import build_config, metrics_row  # noqa: E402
from train.rllib.args import SINGLE  # noqa: E402
from train.rllib.connectors import ActionsToNumpy, StackObservations  # noqa: E402
from train.rllib.env_runner import BatchedEnvRunner  # noqa: E402
from train.rllib.module import MaskedActorCriticModule, export_policy  # noqa: E402
from train.rllib.selfplay import _set_opponent  # noqa: E402
from train.rllib.vector_env import FlatMaskedObservations, make_vector_env  # noqa: E402

ROOT = Path(__file__).resolve().parents[2]
SMOKE = ROOT / "configs/briscola5/rllib_batched_smoke.yaml"


def _args(**overrides) -> Args:
    args = load_config(Args, SMOKE, {"num_env_runners": 0, "num_envs_per_env_runner": 8, **overrides})
    check_args(args)
    return args


def _runner(args: Args, default_connectors: bool = False, runner_cls: type | None = None) -> SingleAgentEnvRunner:
    """The env runner the config names (``BatchedEnvRunner``), or ``runner_cls``, built in this process."""
    config = build_config(args)
    if default_connectors:
        config = config.env_runners(env_to_module_connector=None, module_to_env_connector=None,
                                    add_default_connectors_to_env_to_module_pipeline=True,
                                    add_default_connectors_to_module_to_env_pipeline=True)
    return (runner_cls or config.env_runner_cls)(config=config)


def _assert_same_episodes(a: list, b: list) -> None:
    assert [len(e) for e in a] == [len(e) for e in b] and len(a) > 8
    for x, y in zip(a, b, strict=True):
        assert np.array_equal(x.get_observations(), y.get_observations())
        assert np.array_equal(x.get_actions(), y.get_actions())
        assert np.array_equal(x.get_rewards(), y.get_rewards())
        assert (x.is_terminated, x.is_truncated) == (y.is_terminated, y.is_truncated)
        for k in (Columns.ACTION_LOGP, Columns.ACTION_DIST_INPUTS):
            np.testing.assert_allclose(x.get_extra_model_outputs(k), y.get_extra_model_outputs(k), rtol=1e-6)


def test_the_env_runner_steps_one_vector_env_of_the_batched_engine():
    """RLlib's SingleAgentEnvRunner (gym_env_vectorize_mode vector_entry_point) gets num_envs from its config and
    builds one VectorSingleSeatEnv holding every game, with the flat [observation | mask] vector."""
    args = _args()
    runner = _runner(args)
    env = runner.env.unwrapped
    assert type(env).__name__ == "VectorSingleSeatEnv" and env.num_envs == 8 and env.engine.num_envs == 8
    obs_size = game_spec("briscola5").observation_shape({})[0]
    assert runner.env.single_observation_space.shape == (obs_size + 143,)
    episodes = runner.sample(num_timesteps=300, random_actions=False)
    assert sum(e.env_steps() for e in episodes) >= 300
    for e in episodes:
        obs = np.asarray(e.get_observations())
        acts = np.asarray(e.get_actions())
        mask = obs[:-1, obs_size:]
        assert set(np.unique(mask)) <= {0.0, 1.0}
        assert (mask[np.arange(len(acts)), acts] == 1).all()  # every sampled action was legal
    runner.stop()


def test_the_batched_connectors_give_the_same_episodes_as_rllibs_default_ones():
    """Same seed, same weights, greedy actions: the batched connectors (no per-episode unbatching and restacking)
    and RLlib's default env-to-module and module-to-env pipelines give identical episodes."""
    args = _args(opponents="heuristic", selfplay=False)
    fast, slow = _runner(args), _runner(args, default_connectors=True)
    slow.module.set_state(fast.module.get_state())
    for explore in (False, True):
        a = fast.sample(num_timesteps=240, explore=explore)
        b = slow.sample(num_timesteps=240, explore=explore)
        if explore:  # sampled actions come from each process's torch generator: compare the shapes only
            assert [len(e) for e in a] and all(set(e.extra_model_outputs) == set(f.extra_model_outputs)
                                               for e, f in zip(a, b, strict=False))
            continue
        _assert_same_episodes(a, b)
    fast.stop()
    slow.stop()


def test_the_batched_env_runner_samples_what_rllibs_runner_samples():
    """The config names BatchedEnvRunner; with no episode callback listening it skips them and its episodes are
    RLlib's SingleAgentEnvRunner's, on the same seed and weights (greedy actions)."""
    args = _args(opponents="heuristic", selfplay=False)
    assert build_config(args).env_runner_cls is BatchedEnvRunner
    ours, rllibs = _runner(args), _runner(args, runner_cls=SingleAgentEnvRunner)
    assert type(ours) is BatchedEnvRunner
    rllibs.module.set_state(ours.module.get_state())
    _assert_same_episodes(ours.sample(num_timesteps=240, explore=False), rllibs.sample(num_timesteps=240, explore=False))
    assert not any(ours._listens(w) for w in ("on_episode_created", "on_episode_start", "on_episode_step",
                                              "on_episode_end"))
    ours.stop()
    rllibs.stop()


class _CountSteps(RLlibCallback):
    steps = 0

    def on_episode_step(self, **kwargs) -> None:
        type(self).steps += 1


def test_the_batched_env_runner_still_calls_the_episode_callbacks_that_listen():
    """A callback object that overrides an episode event, and a callback function, are called as RLlib calls them:
    once per sub-env and step (on_episode_step) and once per finished episode (on_episode_end)."""
    ended = []
    config = build_config(_args(opponents="heuristic", selfplay=False))
    config = config.callbacks(_CountSteps, on_episode_end=lambda episode, **kw: ended.append(len(episode)))
    runner = BatchedEnvRunner(config=config)
    episodes = runner.sample(num_timesteps=200, explore=False)
    assert runner._listens("on_episode_step") and runner._listens("on_episode_end")
    assert not runner._listens("on_episode_created")
    done = [e for e in episodes if e.is_done]
    assert _CountSteps.steps >= 200 and len(ended) == len(done) > 0
    runner.stop()


def test_flat_observations_hold_the_observation_then_the_mask_and_the_last_batch():
    env = make_vector_env({"game": "pigugnin", "num_envs": 6, "opponents": "heuristic", "flags": {"episode": "hand"}})
    assert isinstance(env, FlatMaskedObservations)
    inner = env.unwrapped
    obs, infos = env.reset(seed=3)
    assert infos == {} and obs.dtype == np.float32 and obs is env.last_observation
    n = inner.single_observation_space.shape[0]
    np.testing.assert_array_equal(obs[:, n:], inner.action_masks().astype(np.float32))
    np.testing.assert_array_equal(obs[:, :n], inner.engine.observe(inner.learner))
    acts = np.argmax(obs[:, n:], axis=1)
    obs2, rewards, term, trunc, infos = env.step(acts)
    assert infos == {} and obs2 is env.last_observation and not np.shares_memory(obs, obs2)
    np.testing.assert_array_equal(obs2[:, n:], inner.action_masks().astype(np.float32))
    assert env.observation_space.shape == (6, n + 40) and env.single_observation_space.contains(obs2[0])


def test_stack_observations_hands_over_the_env_batch_without_a_copy_else_stacks():
    env = make_vector_env({"game": "briscola5", "num_envs": 4, "opponents": "heuristic"})
    obs, _ = env.reset(seed=0)
    rows = list(obs)  # RLlib's unbatched rows: views of the batch
    out = StackObservations(env)(rl_module=None, batch={}, episodes=[], obs=rows)
    assert out[Columns.OBS].data_ptr() == obs.__array_interface__["data"][0]  # the env's batch itself
    copies = [r.copy() for r in rows]  # rows that are not the env's batch: stacked
    out = StackObservations(env)(rl_module=None, batch={}, episodes=[], obs=copies)
    assert out[Columns.OBS].data_ptr() != obs.__array_interface__["data"][0]
    np.testing.assert_array_equal(out[Columns.OBS].numpy(), obs)
    dicts = [{"observations": r[:5], "action_mask": r[5:9]} for r in rows]
    out = StackObservations(None)(rl_module=None, batch={}, episodes=[], obs=dicts)
    np.testing.assert_array_equal(out[Columns.OBS]["observations"].numpy(), obs[:, :5])


def _module(space, num_actions: int, hidden=(16,)) -> MaskedActorCriticModule:
    import gymnasium as gym

    return MaskedActorCriticModule(observation_space=space, action_space=gym.spaces.Discrete(num_actions),
                                   model_config={"net_arch": list(hidden), "activation": "Tanh"})


def test_module_splits_the_flat_vector_as_the_dict_layout_and_samples_legal_actions():
    env = make_vector_env({"game": "briscola5", "num_envs": 32, "opponents": "heuristic"})
    obs, _ = env.reset(seed=1)
    inner = env.unwrapped
    torch.manual_seed(0)
    flat = _module(env.single_observation_space, 143)
    as_dict = _module(_dict_space(inner), 143)
    as_dict.set_state(flat.get_state())
    n = inner.single_observation_space.shape[0]
    x = torch.from_numpy(obs)
    logits = flat.forward_exploration({Columns.OBS: x})[Columns.ACTION_DIST_INPUTS]
    ref = as_dict.forward_exploration({Columns.OBS: {"observations": x[:, :n], "action_mask": x[:, n:]}})
    assert torch.equal(logits, ref[Columns.ACTION_DIST_INPUTS])
    legal = x[:, n:] == 1
    assert torch.all(logits[~legal] == HUGE_NEG) and torch.all(logits[legal] > HUGE_NEG / 2)
    from ray.rllib.env.single_agent_episode import SingleAgentEpisode

    eps = [SingleAgentEpisode()]
    out = ActionsToNumpy()(rl_module=flat, batch={Columns.ACTION_DIST_INPUTS: logits}, episodes=eps, explore=True)
    acts = out[Columns.ACTIONS]
    assert isinstance(acts, np.ndarray) and acts.shape == (32,) and legal.numpy()[np.arange(32), acts].all()
    probs = torch.softmax(logits, -1).numpy()
    np.testing.assert_allclose(np.exp(out[Columns.ACTION_LOGP]), probs[np.arange(32), acts], rtol=1e-5)
    greedy = ActionsToNumpy()(rl_module=flat, batch={Columns.ACTION_DIST_INPUTS: logits}, episodes=eps, explore=False)
    np.testing.assert_array_equal(greedy[Columns.ACTIONS], logits.argmax(-1).numpy())
    flat.make_target_networks()  # APPO's target actor: the actor's copy, masked the same way
    target = flat.forward_target({Columns.OBS: x})["target_network_action_dist_inputs"]
    assert torch.equal(target, logits)


def _dict_space(inner):
    import gymnasium as gym

    box = inner.single_observation_space
    return gym.spaces.Dict({"observations": box, "action_mask": gym.spaces.Box(0.0, 1.0, (143,), np.float32)})


def test_sync_gives_the_runners_self_opponent_the_learners_actor_and_changes_its_actions(tmp_path):
    """What the OpponentSync callback runs on every env runner: the learner's actor.* tensors into the vector env's
    'self' slot. Before: the self opponent plays its own weights; after: the learner's (its greedy actions are the
    exported checkpoint's, which make_agent plays)."""
    args = _args(opponents="self", num_envs_per_env_runner=16)
    runner = _runner(args)
    env = runner.env.unwrapped
    probe = make_vector_env({"game": "briscola5", "num_envs": 64, "opponents": "heuristic"})
    obs, _ = probe.reset(seed=5)
    n = probe.obs_size
    x, mask = obs[:, :n], obs[:, n:]

    def self_greedy() -> np.ndarray:
        from agents.rows import ActorRows

        player = env.opponent_player("self")
        return ActorRows(player.actor, name="probe", greedy=True).act(x, mask) if hasattr(player, "actor") else None

    assert self_greedy() is None  # no sync yet: the self slot plays at random
    torch.manual_seed(3)
    state = _module(runner.env.single_observation_space, 143, hidden=(16,)).get_state()
    state["actor.action_net.bias"] = -np.arange(143, dtype=np.float32) * 10  # prefers the lowest legal id
    weights = {k[len("actor."):]: v for k, v in state.items() if k.startswith("actor.")}
    assert _set_opponent(runner, weights, "Tanh")
    lowest = np.argmax(mask, axis=1)
    np.testing.assert_array_equal(self_greedy(), lowest)
    state["actor.action_net.bias"] = np.arange(143, dtype=np.float32) * 10  # now the highest legal id
    weights2 = {k[len("actor."):]: v for k, v in state.items() if k.startswith("actor.")}
    before = self_greedy()
    assert _set_opponent(runner, weights2, "Tanh")
    after = self_greedy()
    highest = mask.shape[1] - 1 - np.argmax(mask[:, ::-1], axis=1)
    np.testing.assert_array_equal(after, highest)
    assert (after != before).sum() >= 32  # the sync changed what the opponent plays
    runner.sample(num_timesteps=100)  # and the runner samples on with it
    meta = {"game": "briscola5", "flags": {}, "obs_shape": [n], "num_actions": 143, "run_name": "t"}
    path = export_policy(state, tmp_path / "s.mazzo.zip", meta, net_arch=[16], activation="Tanh")
    agent = make_agent(f"ppo:{path}", "briscola5")
    for i in range(8):
        assert agent.act({"observation": x[i], "action_mask": mask[i].astype(np.int8)}) == highest[i]
    assert _set_opponent(type("NoEnv", (), {"env": None})(), weights, "Tanh") is False
    runner.stop()


@pytest.mark.parametrize(("override", "match"), [
    ({"env_engine": "gpu"}, "env_engine"),
    ({"algo": "dqn"}, "algo"),
    ({"env_engine": "aec", "algo": "appo"}, "needs env_engine: batched"),
    ({"policies": "per_seat", "selfplay": False}, "needs env_engine: aec"),
    ({"opponents": "heuristic"}, "list it among the opponents"),
    ({"selfplay": False}, "only with selfplay: true"),
    ({"opponents": ["heuristic", "nobody", "self"]}, "nobody"),
    ({"seat": 5}, "seat"),
    ({"seat": "first"}, "seat"),
    ({"bc_episodes": 10, "bc_teacher": "nobody"}, "nobody"),
    ({"bc_episodes": -1}, "bc_episodes"),
    ({"torch_threads": 0}, "torch_threads"),
    ({"bc_lr": 0}, "bc_lr"),
])
def test_bad_batched_configs_fail_before_ray_starts(override, match):
    import ray

    with pytest.raises(ConfigError, match=match):
        check_args(load_config(Args, SMOKE, override))
    assert not ray.is_initialized()


@pytest.mark.parametrize(("override", "match"), [
    ({"rollout_fragment_length": 8, "num_envs_per_env_runner": 32, "train_batch_size": 200, "minibatch_size": 100},
     "train_batch_size"),
    ({"algo": "appo", "minibatch_size": 100}, "minibatch_size"),
])
def test_what_rllib_refuses_fails_before_ray_starts_and_leaves_no_run_folder(tmp_path, override, match):
    import ray

    from train.rllib import main

    argv = ["--config", str(SMOKE), "--runs_dir", str(tmp_path)]
    for key, value in override.items():
        argv += [f"--{key}", str(value)]
    with pytest.raises(ConfigError, match=f"RLlib refuses this configuration: .*{match}"):
        main(argv)
    assert not ray.is_initialized() and not any(tmp_path.iterdir())


def test_engine_beside_trainer_rllib_names_the_env_runners_engine():
    """Beside ``trainer: rllib`` (the smoke config's), ``engine`` is what the env runners step (``env_engine``,
    the issue's ``engine: batched``); a value that is no engine is refused with what is allowed."""
    assert load_config(Args, SMOKE, {"engine": "aec"}).env_engine == "aec"
    assert load_config(Args, SMOKE, {"engine": "batched"}).env_engine == "batched"
    with pytest.raises(ConfigError, match="'engine: sb3' and 'trainer: rllib' disagree"):
        load_config(Args, SMOKE, {"engine": "sb3"})


def test_build_config_batched_ppo_and_appo():
    import gymnasium as gym
    from ray.rllib.algorithms.appo import APPOConfig
    from ray.rllib.algorithms.ppo import PPOConfig

    from train.rllib import connectors

    ppo = build_config(_args())
    assert type(ppo) is PPOConfig and not ppo.is_multi_agent
    assert gym.VectorizeMode(ppo.gym_env_vectorize_mode) == gym.VectorizeMode.VECTOR_ENTRY_POINT
    assert ppo._env_to_module_connector is connectors.env_to_module
    assert not ppo.add_default_connectors_to_env_to_module_pipeline
    assert ppo.rl_module_spec.module_class is MaskedActorCriticModule
    assert ppo.env_config["opponents"] == ["heuristic", "self"] and ppo.num_envs_per_env_runner == 8
    appo = build_config(_args(algo="appo", num_epochs=2))
    assert type(appo) is APPOConfig and appo.circular_buffer_iterations_per_batch == 2
    assert appo.lr == ppo.lr == 3.0e-4


def test_metrics_row_gives_the_learners_return_in_game_units():
    result = {"env_runners": {"episode_return_mean": 0.5, "num_episodes_lifetime": 7},
              "learners": {SINGLE: {"total_loss": 1.0}}, "num_env_steps_sampled_lifetime": 100}
    row = metrics_row(result, SINGLE, 0.0, 0.0, unscale=20.0)
    assert row["ep_return_mean"] == 10.0 and row["step"] == 100 and row["loss"] == 1.0
    result["env_runners"]["learner_return"] = 3.0  # env_engine aec: the SnapshotPool callback's figure wins
    assert metrics_row(result, SINGLE, 0.0, 0.0, unscale=20.0)["ep_return_mean"] == 3.0


def test_constructing_the_module_logs_no_rlmodule_config_deprecation(run_python):
    """RLlib's RLModule.__init__ logs the RLModuleConfig deprecation for every module; importing ours marks that one
    notice as shown (in the driver and in every env runner, which import the class)."""
    build = ("from train.rllib.vector_env import make_vector_env; import train.rllib.module as m; {reset}"
             "env = make_vector_env({{'game': 'pigugnin', 'num_envs': 2, 'flags': {{'episode': 'hand'}}}}); "
             "m.MaskedActorCriticModule(observation_space=env.single_observation_space, "
             "action_space=env.single_action_space, model_config={{'net_arch': [8]}}); print('built')")
    ours = run_python(["-c", build.format(reset="")], timeout=300)
    assert ours.returncode == 0 and "built" in ours.stdout, ours.stderr[-2000:]
    assert "RLModuleConfig" not in ours.stderr
    reset = "from ray.util import debug; debug.reset_log_once(m.RLMODULE_CONFIG_NOTICE); "
    plain = run_python(["-c", build.format(reset=reset)], timeout=300)  # without the mark: RLlib's notice
    assert plain.returncode == 0 and "RLModule(config=[RLModuleConfig object])` has been deprecated" in plain.stderr
