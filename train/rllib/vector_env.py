"""The batched engine for RLlib's env runners (``engine: batched``): ``VectorSingleSeatEnv`` as the env of a
``SingleAgentEnvRunner``.

RLlib 2.60's ``SingleAgentEnvRunner`` registers the env creator of ``config.environment(ENV_NAME, env_config=...)``
with Gymnasium under a ``vector_entry_point`` and calls ``gymnasium.make_vec(..., num_envs=num_envs_per_env_runner,
vectorization_mode="vector_entry_point")`` (``gym_env_vectorize_mode="vector_entry_point"``), so the creator gets
``env_config | {"num_envs": num_envs_per_env_runner}`` and returns one vector env holding all of the runner's games
in one batched engine. The creator is registered through Ray's registry (``ray.tune.register_env``), which ships it
to every node of a cluster: the env runners need Mazzo installed, nothing else.

``env_config`` (``vector_env_config(args)``): ``game``, ``flags``, ``opponents`` (batched specs and ``self``),
``seat``, ``reward_scale``. Autoreset ``NEXT_STEP`` (RLlib's own convention); illegal actions cannot happen (the
module masks them), and would end the episode with ``illegal_reward``.

``FlatMaskedObservations`` is the wrapper RLlib sees, for speed (``benchmarks/rllib_speed.py``):

| what | why |
|---|---|
| the observation is one float32 vector, the learner's observation then its action mask as 0/1 (``MaskedActorCriticModule`` splits it) | RLlib's episodes handle a Dict observation (its action-masking convention, ``dict_obs=True``) key by key, through ``dm-tree``, for every step of every sub-env: a flat vector is one array per step |
| ``last_observation`` holds the batch the last ``reset``/``step`` returned | the env-to-module connector gives it to the module as it is (``train/rllib/connectors.py``) instead of stacking the rows RLlib unbatched |
| infos are empty | RLlib's ``DictInfoToList`` would turn the per-step ``seat`` and ``action_mask`` into one dict per sub-env and step, and store them in the episodes; nothing reads them (the mask is in the observation) |
"""

from __future__ import annotations

from typing import Any

import gymnasium as gym
import numpy as np

__all__ = ["VECTOR_ENV_NAME", "FlatMaskedObservations", "make_vector_env", "register_vector", "vector_env_config"]

VECTOR_ENV_NAME = "mazzo_vector"


class FlatMaskedObservations(gym.vector.VectorWrapper):
    """``[observation | action mask]`` as one float32 vector per sub-env, the last batch kept, no infos (module
    docstring). ``env.unwrapped`` is the ``VectorSingleSeatEnv`` (``set_opponent_weights``)."""

    def __init__(self, env: gym.vector.VectorEnv):
        super().__init__(env)
        box = env.single_observation_space
        self.obs_size = int(box.shape[0])
        self.num_actions = int(env.single_action_space.n)
        self.single_observation_space = gym.spaces.Box(
            np.concatenate([box.low, np.zeros(self.num_actions, np.float32)]),
            np.concatenate([box.high, np.ones(self.num_actions, np.float32)]), dtype=np.float32)
        self.observation_space = gym.vector.utils.batch_space(self.single_observation_space, self.num_envs)
        self.last_observation: np.ndarray | None = None

    def _flat(self, obs: np.ndarray) -> np.ndarray:
        out = np.empty((self.num_envs, self.obs_size + self.num_actions), dtype=np.float32)
        out[:, : self.obs_size] = obs
        out[:, self.obs_size:] = self.env.unwrapped.action_masks()
        self.last_observation = out
        return out

    def reset(self, *, seed: Any = None, options: Any = None) -> tuple[np.ndarray, dict]:
        obs, _ = self.env.reset(seed=seed, options=options)
        return self._flat(obs), {}

    def step(self, actions: Any) -> tuple[np.ndarray, Any, Any, Any, dict]:
        obs, rewards, terminated, truncated, _ = self.env.step(actions)
        return self._flat(obs), rewards, terminated, truncated, {}


def make_vector_env(config: dict[str, Any]) -> FlatMaskedObservations:
    """The env creator: a ``VectorSingleSeatEnv`` of ``config["num_envs"]`` games (RLlib passes it), wrapped."""
    from train.vector_single_seat import VectorSingleSeatEnv

    config = dict(config)
    env = VectorSingleSeatEnv(game=config["game"], num_envs=int(config.get("num_envs", 1)),
                              opponents=config.get("opponents", "random"), seat=config.get("seat", "random"),
                              flags=dict(config.get("flags") or {}), reward_scale=float(config.get("reward_scale", 1.0)))
    return FlatMaskedObservations(env)


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
