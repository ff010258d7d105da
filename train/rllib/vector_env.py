"""The batched engine for RLlib's env runners (``engine: batched``): ``VectorSingleSeatEnv`` as the env of a
``SingleAgentEnvRunner``.

RLlib 2.60's ``SingleAgentEnvRunner`` registers the env creator of ``config.environment(ENV_NAME, env_config=...)``
with Gymnasium under a ``vector_entry_point`` and calls ``gymnasium.make_vec(..., num_envs=num_envs_per_env_runner,
vectorization_mode="vector_entry_point")`` (``gym_env_vectorize_mode="vector_entry_point"``), so the creator gets
``env_config | {"num_envs": num_envs_per_env_runner}`` and returns one vector env holding all of the runner's games
in one batched engine. The creator is registered through Ray's registry (``ray.tune.register_env``), which ships it
to every node of a cluster: the env runners need Mazzo installed, nothing else.

``env_config`` (``env_config(args)``): ``game``, ``flags``, ``opponents`` (batched specs and ``self``), ``seat``,
``reward_scale``. The env's observations are RLlib's action-masking Dict ``{"observations", "action_mask"}``
(``dict_obs=True``), which ``MaskedActorCriticModule`` reads; autoreset ``NEXT_STEP`` (RLlib's own convention);
illegal actions cannot happen (the module masks them), and would end the episode with ``illegal_reward``.
"""

from __future__ import annotations

from typing import Any

__all__ = ["VECTOR_ENV_NAME", "make_vector_env", "register_vector", "vector_env_config"]

VECTOR_ENV_NAME = "mazzo_vector"


def make_vector_env(config: dict[str, Any]) -> Any:
    """The env creator: a ``VectorSingleSeatEnv`` of ``config["num_envs"]`` games (RLlib passes it)."""
    from train.vector_single_seat import VectorSingleSeatEnv

    config = dict(config)
    return VectorSingleSeatEnv(game=config["game"], num_envs=int(config.get("num_envs", 1)),
                               opponents=config.get("opponents", "random"), seat=config.get("seat", "random"),
                               flags=dict(config.get("flags") or {}), reward_scale=float(config.get("reward_scale", 1.0)),
                               dict_obs=True)


def register_vector() -> str:
    """Register ``make_vector_env`` with Ray's registry under ``VECTOR_ENV_NAME`` (idempotent); returns the name."""
    from ray.tune.registry import register_env

    register_env(VECTOR_ENV_NAME, make_vector_env)
    return VECTOR_ENV_NAME


def vector_env_config(args: Any) -> dict[str, Any]:
    """The ``env_config`` of a run's ``Args`` (``train/rllib/args.py``)."""
    opponents = args.opponents
    return {"game": args.game, "flags": dict(args.env), "opponents": list(opponents) if isinstance(opponents, list)
            else dict(opponents) if isinstance(opponents, dict) else opponents,
            "seat": args.seat, "reward_scale": args.reward_scale}
