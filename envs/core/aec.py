"""``CardGameEnv``: the PettingZoo AEC environment shared by every Mazzo game.

A game subclasses it and sets ``game_class`` and ``observer_class``; everything else (agents,
spaces, seeding, reward accumulation, explicit deals, illegal-action checks, rendering,
termination and dead steps) lives here once.

Conventions (the project's architecture notes, summarised):

* agents are ``player_0 .. player_{n-1}``; ``agent_selection`` comes from the engine's
  ``current_player`` (trick winners lead, passed bidders are skipped), never a fixed cycle;
* ``observe(agent)`` returns ``{"observation": float32[obs_size], "action_mask": int8[num_actions]}``;
  the mask is all zeros for an agent who is not to act;
* rewards arrive whenever the engine scores; each step's rewards are accumulated into
  ``_cumulative_rewards`` the PettingZoo way, so ``last()`` returns what an agent got since its
  previous action;
* an illegal or out-of-range action raises ``IllegalActionError`` naming the legal ids, and
  leaves the state untouched;
* ``reset(seed)`` seeds one ``np.random.Generator`` that is the only source of randomness;
  ``reset()`` without a seed continues the same stream;
* ``step``, ``last`` and ``observe`` before the first ``reset()``, and ``step`` / ``last`` once the
  episode is over and every agent has been removed, raise ``ResetNeededError`` saying to call
  ``reset()`` (``env()``'s order-enforcing wrapper keeps PettingZoo's own checks in front, see
  ``envs.core.wrappers``);
* an env survives ``copy.deepcopy`` and ``pickle`` at any point: the copy continues exactly
  like the original (observers keep no view of their buffer across a copy);
* every episode is recorded: ``reset`` keeps where it started (seed, options, the generator's
  state) and each step appends its action id to a list; at the end every agent's
  ``info["record"]`` holds the episode in the ``mazzo-record/1`` format, built when first read
  by re-running the engine over those actions (``envs.records``; ``episode_record()`` builds it
  at any time).
"""

from __future__ import annotations

import copy
import importlib
from typing import Any

import numpy as np
from gymnasium import spaces
from pettingzoo import AECEnv

from envs.core.errors import ConfigError, IllegalActionError, ResetNeededError
from envs.core.game import CardGame, Observer
from envs.records import Episode, EpisodeInfo, build_record

__all__ = ["CardGameEnv", "mask_to_array"]


def mask_to_array(mask: int, num_actions: int, nbytes: int) -> np.ndarray:
    """int8 0/1 array of length ``num_actions`` from an action bitmask."""
    raw = np.frombuffer(mask.to_bytes(nbytes, "little"), dtype=np.uint8)
    return np.unpackbits(raw, count=num_actions, bitorder="little").view(np.int8)


class CardGameEnv(AECEnv):
    """Shared AEC environment; subclasses set ``metadata``, ``game_class`` and ``observer_class``."""

    metadata = {"render_modes": ["ansi", "human", "rgb_array"], "name": "mazzo_card_game", "is_parallelizable": False,
                "render_fps": 2}
    game_class: type[CardGame]
    observer_class: type[Observer]
    #: the module that draws ``render_mode="rgb_array"`` frames (``SIZE`` and ``draw(game, seat,
    #: observation, to_act)``); None: ``picture`` beside the env's module (``envs.<game>.picture``)
    picture_module: str | None = None

    def __init__(self, render_mode: str | None = None, **flags: Any):
        super().__init__()
        if render_mode is not None and render_mode not in self.metadata["render_modes"]:
            raise ConfigError(
                f"{self.metadata['name']}: invalid render_mode {render_mode!r}; allowed: None, "
                + ", ".join(repr(m) for m in self.metadata["render_modes"])
            )
        self.render_mode = render_mode
        self.game = self.game_class(**flags)
        self.observer = self.observer_class(self.game)
        n = self.game.num_players
        self.possible_agents = [f"player_{i}" for i in range(n)]
        self.agent_name_mapping = {a: i for i, a in enumerate(self.possible_agents)}
        obs_size = self.observer.layout.obs_size
        num_actions = self.game.num_actions
        self.observation_spaces = {
            a: spaces.Dict(
                {
                    "observation": spaces.Box(
                        self.observer.obs_low, self.observer.obs_high, (obs_size,), dtype=np.float32
                    ),
                    "action_mask": spaces.Box(0, 1, (num_actions,), dtype=np.int8),
                }
            )
            for a in self.possible_agents
        }
        self.action_spaces = {a: spaces.Discrete(num_actions) for a in self.possible_agents}
        self._num_actions = num_actions
        self._mask_bytes = (num_actions + 7) // 8
        self._zero_mask = np.zeros(num_actions, dtype=np.int8)
        self._rng: np.random.Generator | None = None
        self.state_ = None  # the engine state (``state()`` is PettingZoo's global-state method)
        self._actor = -1
        self._legal = 0
        self._over = True
        #: whose view ``render()`` shows: None = the seat to act, an int seat, or "all" (every
        #: seat's view one after another, all hands visible: for analysis, never for play)
        self.render_seat: int | str | None = None

    # -- spaces -------------------------------------------------------------------------
    def observation_space(self, agent: str) -> spaces.Space:
        return self.observation_spaces[agent]

    def action_space(self, agent: str) -> spaces.Space:
        return self.action_spaces[agent]

    # -- episode ------------------------------------------------------------------------
    def reset(self, seed: int | None = None, options: dict[str, Any] | None = None) -> None:
        # Validate the options first: a malformed deal raises and leaves the old episode intact.
        setup = self.game.parse_options(options)
        if seed is not None or self._rng is None:
            self._rng = np.random.default_rng(seed)
        # The recorder: where the episode starts (a seed replays by itself, otherwise the
        # generator's state; a test may stand a stream in for the generator) and every action.
        bits = None if seed is not None else getattr(self._rng, "bit_generator", None)
        self._rec_start = (seed, None if options is None else copy.deepcopy(options),
                           None if bits is None else bits.state)
        self._rec_moves: list[int] = []
        state = self.game.new_state(self._rng, setup)
        self.state_ = state
        self.agents = self.possible_agents[:]
        self.rewards = dict.fromkeys(self.agents, 0)
        self._cumulative_rewards = dict.fromkeys(self.agents, 0)
        self.terminations = dict.fromkeys(self.agents, False)
        self.truncations = dict.fromkeys(self.agents, False)
        self.infos = {a: {} for a in self.agents}
        # Points scored at the deal are paid with the first step, so that ``last()`` right
        # after reset shows 0 as PettingZoo's API test expects.
        self._pending_rewards = self.game.initial_rewards(state)
        self._rewards_dirty = False
        self._skip_agent_selection = None
        self.observer.reset(state)
        self._over = False
        if self.game.is_over(state):
            # The deal itself ended the episode (a Picchetto Bianco past the target): there is
            # no first step to pay with, so the points go straight into the rewards that the
            # dead steps return, and the episode return stays the score difference.
            if self._pending_rewards is not None:
                for a, r in zip(self.possible_agents, self._pending_rewards, strict=True):
                    self.rewards[a] = r
                    self._cumulative_rewards[a] = r
                self._pending_rewards = None
            self._finish(state)
            self.agent_selection = self.agents[0]
        else:
            self._advance(state)

    def _advance(self, state: Any) -> None:
        self._actor = self.game.current_player(state)
        self.agent_selection = self.possible_agents[self._actor]
        self._legal = self.game.legal_mask(state)

    def _finish(self, state: Any) -> None:
        self._over = True
        self._actor = -1
        self._legal = 0
        result = self.game.result(state)
        if self.game.is_truncated(state):
            self.truncations = dict.fromkeys(self.agents, True)
        else:
            self.terminations = dict.fromkeys(self.agents, True)
        # {"result", "record"}: the record is built when first read (see envs.records.EpisodeInfo)
        self.infos.update(EpisodeInfo.for_agents(self.agents, result, Episode.of(self)))

    def episode_record(self, result: dict | None = None) -> dict[str, Any]:
        """The episode so far as a ``mazzo-record/1`` dict (``envs.records``); complete once it is over."""
        if self.state_ is None:
            raise ResetNeededError(self._reset_needed_message("episode_record()"))
        return build_record(self, result)

    def step(self, action: Any) -> None:
        try:
            agent = self.agent_selection
            dead = self.terminations[agent] or self.truncations[agent]
        except (AttributeError, KeyError):  # not reset yet, or every agent removed (no cost when not raised)
            raise ResetNeededError(self._reset_needed_message("step()")) from None
        if dead:
            self._was_dead_step(action)
            return
        if (
            isinstance(action, (int, np.integer))
            and not isinstance(action, bool)
            and 0 <= action < self._num_actions
            and (self._legal >> int(action)) & 1
        ):
            action = int(action)
        else:
            raise IllegalActionError(self._illegal_message(action))
        state = self.state_
        actor = self._actor
        rewards = self.game.apply(state, action)
        self._rec_moves.append(action)
        self.observer.update(state, actor, action)
        self._cumulative_rewards[agent] = 0
        if self._pending_rewards is not None:
            rewards = self._pending_rewards if rewards is None else [a + b for a, b in zip(rewards, self._pending_rewards, strict=False)]
            self._pending_rewards = None
        if rewards is not None:
            for a, r in zip(self.possible_agents, rewards, strict=False):
                self.rewards[a] = r
                self._cumulative_rewards[a] += r
            self._rewards_dirty = True
        elif self._rewards_dirty:
            for a in self.possible_agents:
                self.rewards[a] = 0
            self._rewards_dirty = False
        if self.game.is_over(state):
            self._finish(state)
        else:
            self._advance(state)

    def _reset_needed_message(self, call: str) -> str:
        name = self.metadata["name"]
        if self.state_ is None:
            return f"{name}: reset() needs to be called before {call}; call reset() first"
        return f"{name}: {call} called after the episode is over (every agent was removed); call reset() to start a new one"

    def _illegal_message(self, action: Any) -> str:
        legal = self.game.legal_actions(self.state_) if not self._over else []
        names = ", ".join(f"{a} ({self.game.action_name(a)})" for a in legal)
        if isinstance(action, (int, np.integer)) and not isinstance(action, bool) and 0 <= action < self._num_actions:
            what = f"action {int(action)} ({self.game.action_name(int(action))}) is not legal now"
        else:
            what = f"action {action!r} is not an action id (0..{self._num_actions - 1})"
        return f"{self.metadata['name']}: {what} for {self.agent_selection}; legal actions: {names}"

    # -- observations -------------------------------------------------------------------
    def observe(self, agent: str) -> dict[str, np.ndarray]:
        seat = self.agent_name_mapping[agent]
        if seat == self._actor:
            mask = mask_to_array(self._legal, self._num_actions, self._mask_bytes)
        elif self.state_ is None:  # only the non-actor branch can be reached before reset
            raise ResetNeededError(self._reset_needed_message("observe()"))
        else:
            mask = self._zero_mask.copy()
        return {"observation": self.observer.observe(seat), "action_mask": mask}

    def last(self, observe: bool = True) -> tuple[dict[str, np.ndarray] | None, float, bool, bool, dict]:
        """PettingZoo's ``last()``: the agent to act's observation, cumulative reward, flags and info."""
        try:
            agent = self.agent_selection
            reward = self._cumulative_rewards[agent]  # the dead step removes an agent from every dict at once
        except (AttributeError, KeyError):
            raise ResetNeededError(self._reset_needed_message("last()")) from None
        observation = self.observe(agent) if observe else None
        return observation, reward, self.terminations[agent], self.truncations[agent], self.infos[agent]

    @property
    def episode_over(self) -> bool:
        """True once the episode has ended (before the dead steps), and before the first reset."""
        return self._over

    def legal_actions(self) -> list[int]:
        """Legal action ids of the agent to act (empty when the episode is over)."""
        return [] if self._over else self.game.legal_actions(self.state_)

    # -- rendering ----------------------------------------------------------------------
    def render(self) -> str | np.ndarray | None:
        """The table as ``render_seat`` sees it: text (``"ansi"``; ``"human"`` prints it) or an
        ``uint8[H, W, 3]`` picture (``"rgb_array"``, drawn on demand from the seat's observation
        by the game's ``picture`` module; needs Pillow, ``pip install 'mazzo[render]'``)."""
        if self.render_mode is None:
            return None
        if self.render_mode == "rgb_array":
            return self._render_picture()
        if self.state_ is None:
            return "(not reset)"
        if self.render_seat == "all":
            # For analysis: every seat's view in turn, so every hand is shown (never for play).
            text = "\n\n".join(
                f"== view of {agent} ==\n{self.game.render(self.state_, seat)}"
                for seat, agent in enumerate(self.possible_agents)
            )
        else:
            text = self.game.render(self.state_, self._view_seat())
        if self.render_mode == "human":
            print(text)
            return None
        return text

    def _view_seat(self) -> int:
        """The seat whose view ``render`` shows: ``render_seat``, or the seat to act."""
        seat = self.render_seat if self.render_seat is not None else max(self._actor, 0)
        if isinstance(seat, bool) or not isinstance(seat, (int, np.integer)) or not 0 <= seat < len(self.possible_agents):
            raise ConfigError(
                f"{self.metadata['name']}: invalid render_seat {seat!r}; allowed: None (the seat to act), "
                f"a seat 0..{len(self.possible_agents) - 1}, or 'all' (every seat's view, for analysis)"
            )
        return int(seat)

    def _render_picture(self) -> np.ndarray:
        # Imported here: Pillow is an extra, and nothing is drawn or kept per step.
        picture = importlib.import_module(self.picture_module or f"{type(self).__module__.rpartition('.')[0]}.picture")
        if self.state_ is None:
            from envs.core.picture import blank

            return blank(picture.SIZE, "(not reset)")
        if isinstance(self.render_seat, str) and self.render_seat == "all":
            raise ConfigError(
                f"{self.metadata['name']}: render_seat 'all' is for the text modes; a picture (render_mode='rgb_array') "
                f"shows one seat's view: allowed render_seat None (the seat to act) or a seat 0..{len(self.possible_agents) - 1}"
            )
        seat = self._view_seat()
        observation = self.observe(self.possible_agents[seat])
        return picture.draw(self.game, seat, observation, None if self._over else self._actor)

    def close(self) -> None:
        pass

    def __str__(self) -> str:
        return self.metadata["name"]
