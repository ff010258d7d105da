"""The RLModule of the RLlib trainer (new API stack) and its export to Mazzo's safe checkpoint format.

``MaskedActorCriticModule`` is a ``TorchRLModule`` with the ``ValueFunctionAPI`` (PPO's critic for GAE), the
``InferenceOnlyAPI`` (env runners build it without the critic) and the ``TargetNetworkAPI`` (APPO's frozen copy of
the actor, ``_old_actor``, synced by APPO's learner; PPO never builds it). Its actor is exactly the
actor of Mazzo's safe checkpoints (``agents/checkpoint.py``, built by ``train.networks.build_actor``):

    logits = action_net(policy_net(flatten(obs["observation"])))     policy_net = Linear/activation pairs

and the action mask (``obs["action_mask"]``, the env's int8 vector) sets every illegal logit to ``-1e8``
before RLlib's categorical distribution samples (exploration), takes the argmax (inference) or computes
log-probabilities and entropies (training): an illegal action is never drawn and never trained on. The
critic is a separate MLP of the same sizes. ``model_config``: ``{"net_arch": [64, 64], "activation": "Tanh"}``.
The observation is the AEC env's dict (``"observation"``, ``train/rllib/env.py``), RLlib's action-masking Dict
(``"observations"``, ``VectorSingleSeatEnv(dict_obs=True)``) or one vector, the observation then the mask
(``train/rllib/vector_env.py``); the mask is int8 or float32 0/1.

RLlib 2.60's own ``RLModule.__init__`` builds a deprecated ``RLModuleConfig`` for old custom models, whatever the
constructor was given, and so logs "``RLModule(config=[RLModuleConfig object])`` has been deprecated" once per
process for every module, ours included (they are built with ``observation_space=``, ``action_space=``,
``inference_only=``, ``model_config=``: the new signature). Importing this module marks that one message as shown
(``ray.util.log_once``), in the driver and in every env runner (which import it to build the module); any other
deprecation still shows.

``export_policy`` turns the module's weights (its ``get_state()``, NumPy arrays) into a safe checkpoint
``*.mazzo.zip`` that ``make_agent("ppo:PATH", game)``, ``--players ppo:PATH`` and the pretrained loader play
unchanged: the weights are copied into a freshly built actor and written by ``agents.checkpoint.save_actor``
(which reads the file back and checks the logits bit for bit); nothing of RLlib's own checkpoint (which
pickles) is ever loaded by a player.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

import numpy as np
import torch
from ray.rllib.core.columns import Columns
from ray.rllib.core.rl_module.apis import (
    TARGET_NETWORK_ACTION_DIST_INPUTS,
    InferenceOnlyAPI,
    TargetNetworkAPI,
    ValueFunctionAPI,
)
from ray.rllib.core.rl_module.torch import TorchRLModule
from ray.util import log_once

from agents.checkpoint import HUGE_NEG, CheckpointError, save_actor
from train.networks import build_actor, build_critic

__all__ = ["MaskedActorCriticModule", "actor_from_state", "export_policy", "masked_logits"]

ACTOR_PREFIX = "actor."
#: the observation's key: the AEC env's dicts (``train/rllib/env.py``), or RLlib's action-masking convention
#: (``VectorSingleSeatEnv(dict_obs=True)``)
OBS_KEYS = ("observation", "observations")
#: the key of RLlib's own false alarm (module docstring)
RLMODULE_CONFIG_NOTICE = "RLModule(config=[RLModuleConfig object])"
log_once(RLMODULE_CONFIG_NOTICE)


def masked_logits(logits: torch.Tensor, mask: torch.Tensor) -> torch.Tensor:
    """Illegal logits (mask 0) set to ``-1e8``: finite, so entropies and log-probabilities stay free of NaN."""
    return logits.masked_fill(mask == 0, HUGE_NEG)


class MaskedActorCriticModule(TorchRLModule, ValueFunctionAPI, InferenceOnlyAPI, TargetNetworkAPI):
    """Masked MLP actor (the safe checkpoint's layout) and a separate MLP critic (module docstring)."""

    def setup(self) -> None:
        num_actions = int(self.action_space.n)
        obs_size = self._layout(self.observation_space, num_actions)
        cfg = dict(self.model_config or {})
        hidden = [int(h) for h in cfg.get("net_arch", [64, 64])]
        activation = str(cfg.get("activation", "Tanh"))
        self.actor = build_actor(obs_size, num_actions, hidden, activation)
        self.critic = build_critic(obs_size, hidden, activation)  # removed again on inference-only copies

    def _layout(self, space: Any, num_actions: int) -> int:
        """Where the observation and the mask are (``obs_key``, ``obs_size``); returns the observation's size."""
        keys = getattr(space, "spaces", None)
        if keys is None and len(getattr(space, "shape", ()) or ()) == 1 and space.shape[0] > num_actions:
            self.obs_key, self.obs_size = None, int(space.shape[0]) - num_actions  # [observation | mask]
            return self.obs_size
        self.obs_key = next((k for k in OBS_KEYS if k in (keys or {})), None)
        try:
            self.obs_size = int(space[self.obs_key].shape[0])
            mask_size = int(space["action_mask"].shape[0])
        except (KeyError, TypeError, IndexError):
            raise ValueError(f"MaskedActorCriticModule needs a Dict observation space with 'observation' (or "
                             f"'observations') and 'action_mask' (a Mazzo env's), or one vector of the observation "
                             f"then the mask; got {space}") from None
        if mask_size != num_actions:
            raise ValueError(f"action_mask has {mask_size} entries for {num_actions} actions")
        return self.obs_size

    def split(self, obs: Any) -> tuple[torch.Tensor, torch.Tensor]:
        """``(observation, mask)`` of a batch of observations, whatever the layout."""
        if self.obs_key is None:
            return obs[:, : self.obs_size], obs[:, self.obs_size:]
        return obs[self.obs_key], obs["action_mask"]

    def get_non_inference_attributes(self) -> list[str]:
        return ["critic", "_old_actor"]

    def _forward(self, batch: dict[str, Any], **kwargs: Any) -> dict[str, Any]:
        x, mask = self.split(batch[Columns.OBS])
        return {Columns.ACTION_DIST_INPUTS: masked_logits(self.actor(x), mask)}

    def compute_values(self, batch: dict[str, Any], embeddings: Any = None) -> torch.Tensor:
        return self.critic(self.split(batch[Columns.OBS])[0]).squeeze(-1)

    # -- APPO's target network: a frozen copy of the actor, synced by its learner -------------------------------
    def make_target_networks(self) -> None:
        from ray.rllib.core.learner.utils import make_target_network

        self._old_actor = make_target_network(self.actor)

    def get_target_network_pairs(self) -> list[tuple[Any, Any]]:
        return [(self.actor, self._old_actor)]

    def forward_target(self, batch: dict[str, Any]) -> dict[str, Any]:
        x, mask = self.split(batch[Columns.OBS])
        return {TARGET_NETWORK_ACTION_DIST_INPUTS: masked_logits(self._old_actor(x), mask)}


def actor_from_state(state: dict[str, Any], net_arch: list[int], activation: str, obs_size: int,
                     num_actions: int) -> torch.nn.Module:
    """The actor (``build_actor``'s layout) holding the ``actor.*`` weights of a module state."""
    actor = build_actor(obs_size, num_actions, list(net_arch), activation)
    weights = {k[len(ACTOR_PREFIX):]: v for k, v in state.items() if k.startswith(ACTOR_PREFIX)}
    expected = actor.state_dict()
    if set(weights) != set(expected):
        raise CheckpointError(f"the module state does not hold the actor's tensors (expected "
                              f"{sorted(expected)}, got {sorted(weights)})")
    tensors = {k: torch.as_tensor(np.asarray(v), dtype=torch.float32) for k, v in weights.items()}
    for k, t in tensors.items():
        if tuple(t.shape) != tuple(expected[k].shape):
            raise CheckpointError(f"module tensor actor.{k} has shape {tuple(t.shape)}; the network "
                                  f"{list(net_arch)} ({activation}) needs {tuple(expected[k].shape)}")
    actor.load_state_dict(tensors, strict=True)
    actor.requires_grad_(False)
    return actor


def export_policy(state: dict[str, Any], path: str | Path, meta: dict[str, Any], *, net_arch: list[int],
                  activation: str, num_timesteps: int | None = None) -> Path:
    """Write the safe checkpoint (``mazzo-policy/1``) of a ``MaskedActorCriticModule`` state to ``path``.

    ``meta`` holds ``game``, ``flags``, ``obs_shape``, ``num_actions`` and the provenance (``run_name``,
    ``config``); ``save_actor`` checks them against the network and the written file against the actor."""
    actor = actor_from_state(state, net_arch, activation, int(meta["obs_shape"][0]), int(meta["num_actions"]))
    return save_actor(actor, path, meta, vf=list(net_arch), num_timesteps=num_timesteps)
