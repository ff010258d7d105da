"""A Mazzo game as an RLlib ``MultiAgentEnv`` (turn-based): the adapter the RLlib trainer samples with.

Each ``step`` gets the action of the one seat to act and returns the observation of the next seat to act
(PettingZoo AEC order: trick winners lead, passed bidders are skipped), with the reward that seat earned
since its previous decision. Rewards paid while other seats act (a trick or a hand ends on someone else's
card) are accumulated per seat and delivered with that seat's next observation, so every reward reaches
the decision that preceded it; at the end of the episode every seat that has acted gets its final
observation, its remaining reward and ``terminated`` (or ``truncated``). This is what RLlib's own
``PettingZooEnv`` wrapper does through ``last()``, on the raw env (no order wrapper, no dead steps).
Rewards are multiplied by ``env_config["reward_scale"]`` (default 1) on the way out.

Agents are the env's ``player_0 .. player_{n-1}``; observations are the env's own dicts
``{"observation": float32[obs_size], "action_mask": int8[num_actions]}`` (``MaskedActorCriticModule``
reads both). ``env_config`` is ``{"game": NAME, "flags": {...}, "reward_scale": 1.0}``. A deal that ends the episode before any
decision (a Picchetto Bianco past the target) is skipped: the next deal of the same stream is played.
"""

from __future__ import annotations

from typing import Any

from ray.rllib.env.multi_agent_env import MultiAgentEnv

from envs.core.errors import ConfigError
from envs.registry import game_spec

__all__ = ["MazzoMultiAgentEnv", "ENV_NAME", "register"]

ENV_NAME = "mazzo_multi_agent"


class MazzoMultiAgentEnv(MultiAgentEnv):
    """The raw AEC env of ``env_config["game"]`` with ``env_config["flags"]``, turn by turn (module docstring)."""

    def __init__(self, env_config: dict[str, Any] | None = None):
        super().__init__()
        config = dict(env_config or {})
        if "game" not in config:
            raise ConfigError("env_config needs 'game' (briscola5, pigugnin or picchetto)")
        self.game = config["game"]
        self.flags = dict(config.get("flags") or {})
        self.reward_scale = float(config.get("reward_scale", 1.0))
        self.env = game_spec(self.game).raw_env(**self.flags)
        self.possible_agents = list(self.env.possible_agents)
        self.agents = list(self.possible_agents)
        self.observation_spaces = {a: self.env.observation_space(a) for a in self.possible_agents}
        self.action_spaces = {a: self.env.action_space(a) for a in self.possible_agents}
        self._pending = dict.fromkeys(self.possible_agents, 0.0)
        self._acted: set[str] = set()

    def reset(self, *, seed: int | None = None, options: dict | None = None):
        env = self.env
        env.reset(seed=seed, options=options)
        for _ in range(1000):
            if not env.episode_over:
                break
            env.reset()  # the deal ended the episode by itself: no decision to learn from
        else:
            raise RuntimeError(f"{self.game}: 1000 deals in a row ended before any decision")
        self.agents = list(self.possible_agents)
        self._pending = dict.fromkeys(self.possible_agents, 0.0)
        self._acted = set()
        name = env.agent_selection
        return {name: env.observe(name)}, {}

    def step(self, action_dict: dict[str, Any]):
        env = self.env
        name = env.agent_selection
        if name not in action_dict:
            raise ValueError(f"{self.game}: expected an action for {name}, got actions for {sorted(action_dict)}")
        env.step(int(action_dict[name]))
        self._acted.add(name)
        pending = self._pending
        for a, r in env.rewards.items():
            if r:
                pending[a] += float(r)
        if not env.episode_over:
            nxt = env.agent_selection
            reward, pending[nxt] = pending[nxt] * self.reward_scale, 0.0
            return ({nxt: env.observe(nxt)}, {nxt: reward}, {"__all__": False}, {"__all__": False}, {})
        truncated = any(env.truncations.values())
        finishing = [a for a in self.possible_agents if a in self._acted]
        obs = {a: env.observe(a) for a in finishing}
        rewards = {a: pending[a] * self.reward_scale for a in finishing}
        terminateds = {a: not truncated for a in finishing}
        truncateds = {a: truncated for a in finishing}
        terminateds["__all__"], truncateds["__all__"] = not truncated, truncated
        self.agents = []
        return obs, rewards, terminateds, truncateds, {}


def register() -> str:
    """Register the env with Ray's registry under ``ENV_NAME`` (idempotent); returns the name."""
    from ray.tune.registry import register_env

    register_env(ENV_NAME, lambda cfg: MazzoMultiAgentEnv(dict(cfg)))
    return ENV_NAME
