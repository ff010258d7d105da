"""Who plays the opponent seats of ``VectorSingleSeatEnv``: one row player per opponent slot, drawn per seat and episode.

| piece | what |
|---|---|
| ``OpponentSlots`` | the slots: one row player per opponent key (a batched spec, an ``Agent``, ``self``, a snapshot), built when the key is first seen (a bad spec fails at once); the draw of each seat's slot for new episodes (by the pool's weights, snapshots with ``snapshot_share``); a stable seed per slot |
| ``OpponentSlots.set_weights`` | the ``self`` slot's frozen learner weights, swapped at run time (``VectorSingleSeatEnv.set_opponent_weights``) |
| ``reseed_player`` | a new seed for a row player of any kind ``agents.rows.make_opponent`` builds |

A slot acts for all the rows its seats hold in a round, in one ``act(obs, mask)`` call (``VectorSingleSeatEnv`` groups
them). The weights of ``self`` arrive as a safe checkpoint path, a state dict of the checkpoint actor (``policy_net.*``,
``action_net.*``: torch tensors or NumPy arrays, what an RLlib callback pushes to every env runner), a torch module or
a row player. This module imports torch only when a network is built.
"""

from __future__ import annotations

import copy
import os
import zlib
from collections.abc import Mapping
from typing import Any

import numpy as np

from agents.base import Agent
from agents.rows import ActorRows, AgentRows, MaskedRandom, make_opponent
from envs.core.errors import ConfigError
from train.single_seat import OpponentPool

__all__ = ["OpponentSlots", "SELF", "reseed_player"]

#: the opponent spec of the learner's frozen weights (``set_weights``)
SELF = "self"


def reseed_player(policy: Any, seed: int) -> None:
    """Give a row player a new seed (the kinds ``make_opponent`` builds; others by their ``seed`` method)."""
    if isinstance(policy, MaskedRandom):
        policy.rng = np.random.default_rng(seed)
    elif isinstance(policy, ActorRows):
        policy.gen.manual_seed(seed)
    elif isinstance(policy, AgentRows):
        policy.agent.seed(seed)
    elif callable(getattr(policy, "seed", None)):
        policy.seed(seed)


class OpponentSlots:
    """The opponent slots of a vector env of ``game`` (module docstring).

    | attribute | meaning |
    |---|---|
    | ``pool`` | the ``OpponentPool`` (base keys and weights, snapshots) |
    | ``keys``, ``names``, ``players`` | per slot: its key, its name in ``infos["opponents"]``, its row player |
    | ``base`` | the slots of the pool's base keys, in the pool's order |
    """

    def __init__(self, game: str, flags: dict[str, Any], opponents: Any, snapshot_share: float, max_snapshots: int,
                 obs_size: int, num_actions: int):
        self.game, self.flags, self.obs_size, self.num_actions = game, flags, obs_size, num_actions
        self.pool = OpponentPool(opponents, snapshot_share=snapshot_share, max_snapshots=max_snapshots)
        self.keys: list[Any] = []
        self.names: list[str] = []
        self.players: list[Any] = []
        self._agent_ss: np.random.SeedSequence | None = None  # set by the first reseed
        for key in self.pool.base:
            self.add(key)
        self.base = np.array([self.keys.index(k) for k in self.pool.base], dtype=np.int64)

    def add(self, key: Any) -> int:
        """The slot of an opponent key (built now, so that a bad spec fails at once), made if new."""
        if key in self.keys:
            return self.keys.index(key)
        if isinstance(key, str) and key == SELF:
            player, name = MaskedRandom(0), SELF  # until set_weights
        elif isinstance(key, str):
            player, name = make_opponent(key, self.game, self.flags, seed=0), key
        elif isinstance(key, Agent):
            player = AgentRows(key)
            name = player.name
        else:
            raise ConfigError(f"an opponent must be an agent spec string, {SELF!r} or an Agent; got {key!r}")
        self.keys.append(key)
        self.names.append(name)
        self.players.append(player)
        if self._agent_ss is not None:
            reseed_player(player, self.seed_of(len(self.players) - 1))
        return len(self.players) - 1

    def add_snapshot(self, spec: str) -> None:
        """A frozen snapshot (``"ppo:PATH"``) joins the pool (``OpponentPool.add``); loaded now to fail early."""
        if not isinstance(spec, str):
            raise ConfigError(f"add_opponent takes an agent spec string; got {spec!r}")
        self.add(spec)
        self.pool.add(spec)

    def player(self, key: Any) -> Any:
        """The row player of an opponent key (``"self"``, ``"heuristic"`` ...): ``act(obs, mask)``."""
        if key not in self.keys:
            raise ConfigError(f"no opponent {key!r}; opponents now: {self.keys}")
        return self.players[self.keys.index(key)]

    # -- seeding ------------------------------------------------------------------------------------
    def reseed(self, agent_ss: np.random.SeedSequence) -> None:
        """Every slot's player gets its seed from ``agent_ss`` (and so does every slot added later)."""
        self._agent_ss = agent_ss
        for k, player in enumerate(self.players):
            reseed_player(player, self.seed_of(k))

    def seed_of(self, k: int) -> int:
        # a stable seed per opponent slot: the same opponent replays the same choices
        key = zlib.crc32(f"{k}:{self.names[k]}".encode())
        return int(np.random.SeedSequence(self._agent_ss.entropy, spawn_key=(key,)).generate_state(1)[0])

    def draw(self, rng: np.random.Generator, seats: np.ndarray, num_players: int) -> np.ndarray:
        """The slot of every seat of ``len(seats)`` new episodes, ``(k, num_players)``, -1 at the learner's ``seats``."""
        k, pool = len(seats), self.pool
        slots = self.base[rng.choice(len(self.base), size=(k, num_players), p=pool._probs)]
        if pool.snapshots:
            snap = rng.random((k, num_players)) < pool.snapshot_share
            which = np.array([self.keys.index(s) for s in pool.snapshots])[
                rng.integers(len(pool.snapshots), size=(k, num_players))]
            slots = np.where(snap, which, slots)
        slots[np.arange(k), seats] = -1
        return slots

    # -- self-play ------------------------------------------------------------------------------------
    def set_weights(self, weights: Any, greedy: bool = False, activation: str = "Tanh") -> None:
        """The ``self`` slot plays ``weights`` from now on (``VectorSingleSeatEnv.set_opponent_weights``)."""
        if SELF not in self.keys:
            raise ConfigError(f"set_opponent_weights needs a {SELF!r} opponent; list it among the opponents "
                              f"(e.g. opponents='heuristic,{SELF}'); opponents now: {list(self.pool.base)}")
        k = self.keys.index(SELF)
        player = self._weights_player(weights, greedy, activation)
        if self._agent_ss is not None:
            reseed_player(player, self.seed_of(k))
        self.players[k] = player

    def _weights_player(self, weights: Any, greedy: bool, activation: str) -> Any:
        if isinstance(weights, (str, os.PathLike)):
            from agents.checkpoint import load_actor

            actor, meta = load_actor(weights)
            if list(meta["obs_shape"]) != [self.obs_size] or meta["num_actions"] != self.num_actions:
                raise ConfigError(f"{weights}: a policy for observations {meta['obs_shape']} and {meta['num_actions']} "
                                  f"actions; this env has ({self.obs_size},) and {self.num_actions}")
            return ActorRows(actor, name=SELF, greedy=greedy)
        if isinstance(weights, Agent):
            return AgentRows(weights, name=SELF)
        if callable(getattr(weights, "act", None)) and not hasattr(weights, "state_dict"):
            return weights
        import torch

        if isinstance(weights, torch.nn.Module):
            actor = copy.deepcopy(weights).eval().requires_grad_(False)
        elif isinstance(weights, Mapping):
            actor = self._actor_from_state(weights, activation)
        else:
            raise ConfigError(f"set_opponent_weights takes a checkpoint path, a state dict, a torch module or a row "
                              f"player (act(obs, mask)); got {type(weights).__name__}")
        return ActorRows(actor, name=SELF, greedy=greedy)

    def _actor_from_state(self, state: Mapping[str, Any], activation: str) -> Any:
        import torch

        from agents.checkpoint import build_actor

        tensors = {str(k): torch.as_tensor(np.asarray(v, dtype=np.float32)) for k, v in state.items()}
        hidden, k = [], 0
        while f"policy_net.{2 * k}.weight" in tensors:
            hidden.append(int(tensors[f"policy_net.{2 * k}.weight"].shape[0]))
            k += 1
        actor = build_actor(self.obs_size, self.num_actions, hidden, activation)
        try:
            actor.load_state_dict(tensors, strict=True)
        except RuntimeError as err:
            raise ConfigError(f"set_opponent_weights: the state dict does not fit the checkpoint actor "
                              f"(obs {self.obs_size}, hidden {hidden}, {self.num_actions} actions): {err}") from None
        return actor.eval().requires_grad_(False)
