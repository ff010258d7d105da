"""The env runner's connectors for the batched engine (``engine: batched``): the vector env's batches in, the
actions out as one array, with none of RLlib's per-episode reshuffling in between.

RLlib's default pipelines treat a vector env as ``num_envs`` separate envs: the env-to-module pipeline reads each
episode's last observation back and stacks them (``AddObservationsFromEpisodesToBatch``, ``BatchIndividualItems``,
``NumpyToTensor``), the module-to-env pipeline splits the module's output into one item per episode and joins it
again (``UnBatchToIndividualItems``, ``NormalizeAndClipActions``, ``ListifyDataForVectorEnv``). The vector env
already speaks in batches, so these two replace them:

| connector | pipeline | what |
|---|---|---|
| ``StackObservations`` | env-to-module | this step's observations of every sub-env as one tensor: the env's own batch (``FlatMaskedObservations.last_observation``, no copy) when the rows RLlib passes are that batch's, else the rows stacked (one tensor per key of a Dict) |
| ``ActionsToNumpy`` | module-to-env | the action sampled from the masked logits (RLlib's ``GetActions``: the module's exploration or inference distribution), its log-probability and the logits as NumPy arrays of ``num_envs`` rows |

What reaches the module and what is stored in the episodes is the same as with the default pipelines (the
observation of each sub-env, its sampled action, ``action_logp`` and ``action_dist_inputs``): only the way there is
shorter. ``tests/train/test_rllib_batched.py`` checks the module's input against the default pipeline's. Used
only with a stateless module (no recurrent state: nothing to add from the episodes) and a Discrete action space
(nothing to clip).
"""

from __future__ import annotations

from typing import Any

import numpy as np
import torch
from ray.rllib.connectors.connector_v2 import ConnectorV2
from ray.rllib.connectors.module_to_env.get_actions import GetActions
from ray.rllib.core.columns import Columns

__all__ = ["StackObservations", "ActionsToNumpy", "env_to_module", "module_to_env"]


def _address(a: np.ndarray) -> int:
    return a.__array_interface__["data"][0]


def _batch_of(env: Any) -> np.ndarray | None:
    """The last observation batch of the ``FlatMaskedObservations`` in ``env``'s wrapper chain, if any."""
    while env is not None:
        if hasattr(env, "last_observation"):
            return env.last_observation
        env = getattr(env, "env", None)
    return None


def _is_batch(rows: list[Any], batch: np.ndarray | None) -> bool:
    """The rows are ``batch``'s rows, in order (the first and the last at their addresses; the batch is a fresh array
    per step and the rows are RLlib's views of it)."""
    if batch is None or not isinstance(rows[0], np.ndarray) or len(rows) != len(batch):
        return False
    return _address(rows[0]) == _address(batch[0]) and _address(rows[-1]) == _address(batch[-1])


class StackObservations(ConnectorV2):
    """env-to-module: ``{"obs": tensor(num_envs, ...)}`` (a Dict observation: one tensor per key) of this step."""

    def __init__(self, env: Any = None, **kwargs: Any):
        super().__init__(**kwargs)
        self.env = env

    def __call__(self, *, rl_module: Any, batch: dict[str, Any], episodes: list[Any], explore: Any = None,
                 shared_data: Any = None, **kwargs: Any) -> Any:
        obs = kwargs.get(Columns.OBS)
        if obs is None:  # called without them (not by the env runner's loop): the episodes' last observations
            obs = [episode.get_observations(-1) for episode in episodes]
        whole = _batch_of(self.env)
        if _is_batch(obs, whole):
            batch[Columns.OBS] = torch.from_numpy(whole)
        elif isinstance(obs[0], dict):
            batch[Columns.OBS] = {k: torch.from_numpy(np.stack([o[k] for o in obs])) for k in obs[0]}
        else:
            batch[Columns.OBS] = torch.from_numpy(np.stack(obs))
        return batch


class ActionsToNumpy(ConnectorV2):
    """module-to-env: RLlib's ``GetActions``, then every output as a NumPy array with one row per sub-env."""

    def __init__(self, *args: Any, **kwargs: Any):
        super().__init__(*args, **kwargs)
        self.get_actions = GetActions()

    def __call__(self, *, rl_module: Any, batch: dict[str, Any], episodes: list[Any], explore: Any = None,
                 shared_data: Any = None, **kwargs: Any) -> Any:
        batch = self.get_actions(rl_module=rl_module, batch=batch, episodes=episodes, explore=explore,
                                 shared_data=shared_data)
        return {k: v.detach().numpy() if isinstance(v, torch.Tensor) else v for k, v in batch.items()}


def env_to_module(env: Any = None, spaces: Any = None, device: Any = None) -> list[ConnectorV2]:
    """``AlgorithmConfig.env_runners(env_to_module_connector=...)`` (with the default connectors left out)."""
    return [StackObservations(env)]


def module_to_env(env: Any = None, spaces: Any = None) -> list[ConnectorV2]:
    """``AlgorithmConfig.env_runners(module_to_env_connector=...)`` (with the default connectors left out)."""
    return [ActionsToNumpy()]
