"""RLlib's side of the RLlib trainer: the ``PPOConfig`` (or ``APPOConfig``) of a run, the cluster, the export of a module to a safe
checkpoint, and a training iteration's ``metrics.csv`` row. Ray is imported inside the functions."""

from __future__ import annotations

import functools
import os
import time
from pathlib import Path
from typing import Any

import numpy as np

from envs.core.errors import ConfigError
from envs.registry import game_spec
from train.rllib.args import Args, module_ids

__all__ = ["build_config", "checked_config", "export_module", "start_ray", "stop", "metrics_row", "require_ray", "versions"]


def require_ray() -> None:
    try:
        import ray  # noqa: F401
    except ImportError:
        raise ConfigError('train.rllib needs Ray RLlib: pip install -e ".[train,ray]"') from None


def build_config(args: Args) -> Any:
    """The ``PPOConfig`` or ``APPOConfig`` of a run (new API stack); Ray must be initialised before ``build_algo()``.

    | ``env_engine`` | env runner | env | modules | callback |
    |---|---|---|---|---|
    | ``aec`` | ``MultiAgentEnvRunner`` | ``train/rllib/env.py`` (every seat) | ``main`` or ``seat_<i>`` | ``SnapshotPool`` |
    | ``batched`` | ``SingleAgentEnvRunner`` | ``train/rllib/vector_env.py`` (one seat, ``num_envs_per_env_runner`` games) | ``default_policy`` | ``OpponentSync`` |
    """
    config = _algorithm(args).framework("torch").learners(num_learners=0).debugging(seed=args.seed, log_level="WARN")
    return _batched(config, args) if args.env_engine == "batched" else _aec(config, args)


def checked_config(args: Args) -> Any:
    """``build_config(args)`` validated by RLlib, which needs no Ray: what RLlib refuses (a train batch its env runners
    cannot fill, APPO's minibatches not a multiple of the fragment...) is a ``ConfigError`` before Ray starts."""
    config = build_config(args)
    try:
        config.validate()
    except ValueError as err:
        raise ConfigError(f"RLlib refuses this configuration: {err}") from None
    return config


def _algorithm(args: Args) -> Any:
    """RLlib's PPO or APPO with the run's coefficients (APPO: ``num_epochs`` passes over each batch of its buffer)."""
    common = dict(train_batch_size_per_learner=args.train_batch_size, minibatch_size=args.minibatch_size,
                  lr=args.learning_rate, gamma=args.gamma, lambda_=args.gae_lambda, clip_param=args.clip_param,
                  entropy_coeff=args.entropy_coeff, vf_loss_coeff=args.vf_loss_coeff, grad_clip=args.grad_clip,
                  use_kl_loss=args.kl_coeff > 0, kl_coeff=args.kl_coeff)
    if args.algo == "appo":
        from ray.rllib.algorithms.appo import APPOConfig

        return APPOConfig().training(**common, circular_buffer_iterations_per_batch=args.num_epochs)
    from ray.rllib.algorithms.ppo import PPOConfig

    return PPOConfig().training(**common, num_epochs=args.num_epochs, vf_clip_param=args.vf_clip_param)


def _aec(config: Any, args: Args) -> Any:
    """The game's AEC env as a turn-based ``MultiAgentEnv``, every seat learning (``policies``, ``SnapshotPool``)."""
    from ray.rllib.core.rl_module.multi_rl_module import MultiRLModuleSpec
    from ray.rllib.core.rl_module.rl_module import RLModuleSpec

    from train.rllib.env import register
    from train.rllib.module import MaskedActorCriticModule
    from train.rllib.selfplay import SeatMapping, SnapshotPool

    n = game_spec(args.game).num_players(args.env)
    ids = module_ids(args)
    specs = {mid: RLModuleSpec(module_class=MaskedActorCriticModule, model_config=_model_config(args)) for mid in ids}
    pool = dict(policies=args.policies, num_players=n, selfplay=args.selfplay, snapshot_every=args.snapshot_every,
                max_snapshots=args.max_snapshots, share=args.snapshot_share, salt=args.seed,
                reward_scale=args.reward_scale)
    return (
        config
        .environment(register(), env_config={"game": args.game, "flags": dict(args.env),
                                             "reward_scale": args.reward_scale},
                     disable_env_checking=True)  # the checker steps random, illegal actions
        .env_runners(num_env_runners=args.num_env_runners, num_envs_per_env_runner=args.num_envs_per_env_runner,
                     rollout_fragment_length=args.rollout_fragment_length, sample_timeout_s=args.sample_timeout_s)
        .multi_agent(policies=set(ids), policy_mapping_fn=SeatMapping(args.policies, n, salt=args.seed),
                     policies_to_train=list(ids))
        .rl_module(rl_module_spec=MultiRLModuleSpec(rl_module_specs=specs))
        .callbacks(functools.partial(SnapshotPool, **pool))
    )


def _batched(config: Any, args: Args) -> Any:
    """The batched engine's vector env in every env runner (``gym_env_vectorize_mode="vector_entry_point"``), the
    batched connectors (``train/rllib/connectors.py``) in place of RLlib's per-episode ones, ``OpponentSync``."""
    import gymnasium as gym
    from ray.rllib.core.rl_module.rl_module import RLModuleSpec

    from train.rllib import connectors
    from train.rllib.env_runner import BatchedEnvRunner
    from train.rllib.module import MaskedActorCriticModule
    from train.rllib.selfplay import OpponentSync
    from train.rllib.vector_env import register_vector, vector_env_config

    return (
        config
        .environment(register_vector(), env_config=vector_env_config(args), disable_env_checking=True)
        .env_runners(num_env_runners=args.num_env_runners, num_envs_per_env_runner=args.num_envs_per_env_runner,
                     gym_env_vectorize_mode=gym.VectorizeMode.VECTOR_ENTRY_POINT,
                     env_runner_cls=BatchedEnvRunner,
                     rollout_fragment_length=args.rollout_fragment_length, sample_timeout_s=args.sample_timeout_s,
                     env_to_module_connector=connectors.env_to_module,
                     module_to_env_connector=connectors.module_to_env,
                     add_default_connectors_to_env_to_module_pipeline=False,
                     add_default_connectors_to_module_to_env_pipeline=False)
        .rl_module(rl_module_spec=RLModuleSpec(module_class=MaskedActorCriticModule,
                                               model_config=_model_config(args)))
        .callbacks(functools.partial(OpponentSync, every=args.snapshot_every, activation=args.activation,
                                     enabled=args.selfplay))
    )


def _model_config(args: Args) -> dict[str, Any]:
    return {"net_arch": list(args.net_arch), "activation": args.activation}


def export_module(algo: Any, module_id: str, path: Path, meta: dict[str, Any], args: Args, step: int) -> Path:
    """The learner's current weights of ``module_id`` as a safe checkpoint (``train.rllib.module.export_policy``)."""
    from train.rllib.module import export_policy

    state = algo.learner_group.get_weights(module_ids=[module_id])[module_id]
    return export_policy(state, path, meta, net_arch=list(args.net_arch), activation=args.activation,
                         num_timesteps=step)


def start_ray(args: Args) -> bool:
    """Start (``address: null``) or join Ray; True when this process started it (and must shut it down)."""
    import ray

    if ray.is_initialized():
        return False
    os.environ.setdefault("RAY_USAGE_STATS_ENABLED", "0")  # no usage report to Ray's servers (set it to opt in)
    kwargs: dict[str, Any] = {"include_dashboard": False, "logging_level": "warning"}
    if args.address is None and args.num_cpus is not None:
        kwargs["num_cpus"] = args.num_cpus
    try:
        ray.init(address=args.address, **kwargs)
    except ConnectionError as e:
        from train.evaluation.ray_backend import AUTH_HINT

        raise ConfigError(f"address {args.address!r}: no Ray cluster there ({e})" + AUTH_HINT) from None
    return True


def stop(algo: Any, started_ray: bool) -> None:
    """Stop the algorithm (its env runners) and the Ray cluster this process started (a joined one keeps running)."""
    if algo is not None:
        algo.stop()
    if started_ray:
        import ray

        ray.shutdown()


def _get(d: Any, *keys: str) -> Any:
    for k in keys:
        if not isinstance(d, dict) or k not in d:
            return None
        d = d[k]
    return d


def _num(x: Any) -> Any:
    try:
        x = float(x)
    except (TypeError, ValueError):
        return ""
    return "" if not np.isfinite(x) else x


def metrics_row(result: dict[str, Any], mid: str, started: float, fps: float, unscale: float = 1.0) -> dict[str, Any]:
    """A training iteration's result as a ``metrics.csv`` row, in the other trainers' columns first. ``ep_return_mean``
    is the learners' return in game units: the ``SnapshotPool`` callback's ``learner_return`` (``env_engine: aec``),
    else RLlib's ``episode_return_mean`` (the single learner seat's) times ``unscale`` (1 / ``reward_scale``)."""
    learner = _get(result, "learners", mid) or {}
    runners = result.get("env_runners") or {}
    ret = runners.get("learner_return")
    if ret is None and _num(runners.get("episode_return_mean")) != "":
        ret = float(runners["episode_return_mean"]) * unscale
    return {
        "step": int(result.get("num_env_steps_sampled_lifetime") or _get(result, "env_runners",
                                                                         "num_env_steps_sampled_lifetime") or 0),
        "episodes": int(runners.get("num_episodes_lifetime") or 0),
        "ep_return_mean": _num(ret),
        "ep_len_mean": _num(runners.get("episode_len_mean")),
        "time": round(time.time() - started, 2),
        "loss": _num(learner.get("total_loss")),
        "policy_gradient_loss": _num(learner.get("policy_loss")),
        "value_loss": _num(learner.get("vf_loss")),
        "entropy_loss": _num(-float(learner["entropy"]) if "entropy" in learner else None),
        "approx_kl": _num(learner.get("mean_kl_loss")),
        "clip_fraction": "",
        "explained_variance": _num(learner.get("vf_explained_var")),
        "ep_return_vs_snapshots": _num(runners.get("learner_return_vs_snapshots")),
        "snapshots": int(result.get("snapshots") or 0),
        "iteration": int(result.get("training_iteration") or 0),
        "fps": round(fps, 1),
    }


def versions() -> dict[str, str | None]:
    """The versions of Ray and Gymnasium (``final_eval.json``'s ``trainer``)."""
    from importlib.metadata import PackageNotFoundError, version

    out: dict[str, str | None] = {}
    for name in ("ray", "gymnasium"):
        try:
            out[name] = version(name)
        except PackageNotFoundError:
            out[name] = None
    return out
