"""``SingleSeatEnv``: one seat of a Mazzo AEC game as a Gymnasium env, for single-agent RL.

The learner sits at one seat (a random one each episode, or a fixed one); every other seat is
played by an opponent drawn from an ``OpponentPool`` at the start of each episode. ``step``
plays the learner's action, then lets the opponents act until it is the learner's turn again
or the episode is over, and returns only what belongs to the learner:

| returned         | what                                                                     |
|------------------|--------------------------------------------------------------------------|
| observation      | the learner's seat-relative vector (``float32[obs_size]``, the AEC ``observation``) |
| reward           | the sum of the learner's own rewards since its previous action (the first step's: since the episode began), times ``reward_scale`` |
| terminated       | the AEC episode terminated (``truncated``: the game truncated it)         |
| info             | ``seat``; at the end also ``result`` (the game's record), ``episode_return`` (unscaled), ``opponents`` |
| ``action_masks()`` | bool mask of the learner's legal actions (for sb3-contrib's MaskablePPO) |

Spaces: ``Box(obs_low, obs_high, (obs_size,), float32)`` and ``Discrete(num_actions)`` of the
game (for Pigugnìn they depend on ``num_players``). A deal that ends before the learner ever
acts (e.g. a Briscola forfeit or all-pass before its turn) is skipped: ``reset`` deals again.

Illegal actions: with ``illegal_action="terminate"`` (the default, what PettingZoo's own classic
``env()`` does with its ``TerminateIllegalWrapper``, and what checkers that sample any id from the
action space need: Gymnasium's and Stable-Baselines3's ``check_env``) an illegal or out-of-range
action ends the episode: the learner gets ``illegal_reward`` (default -1, returned as given, not
multiplied by ``reward_scale``), ``terminated=True``, the observation is the unchanged one, the
mask is empty and ``info`` holds ``illegal_action`` (the id) and ``reason`` (the error message,
with the legal actions), with ``result=None`` (the game was not finished). With
``illegal_action="raise"`` ``step`` raises the game's ``IllegalActionError`` instead and changes
nothing (the episode goes on): the strict mode for debugging an agent. A masked learner
(MaskablePPO, ``action_masks()``) never meets either.

Copying: the env survives ``copy.deepcopy`` and ``pickle`` (``gymnasium.make`` wrappers
included) at any point; the copy continues exactly like the original under the same actions.

Opponents (the ``opponents`` argument) are agent specs (``"random"``, ``"heuristic"``,
``"ppo:PATH"``, ``"pretrained:GAME"``) or ``Agent`` objects, given as one spec, a
comma-separated string, a list, or a ``{spec: weight}`` dict. Self-play adds frozen snapshots
of the learner with ``add_opponent("ppo:PATH")`` (``env_method`` on a vector env); once some
exist, a share ``snapshot_share`` of the seats is played by snapshots (uniform over the latest
``max_snapshots``).

Seeding: ``reset(seed=s)`` derives, from ``np.random.SeedSequence(s)``, the game's generator,
the seat draw, the opponent draw and every opponent's own generator; ``reset()`` without a seed
continues all of them. Same seed and same learner actions give the same episodes.

Registered with Gymnasium as ``mazzo/Briscola5-v0``, ``mazzo/Pigugnin-v0``, ``mazzo/Picchetto-v0``
(``import train`` first, or ``gymnasium.make("train.single_seat:mazzo/Briscola5-v0")``), with a vector entry
point: ``gymnasium.make_vec(id, num_envs, vectorization_mode="vector_entry_point", ...)`` is the same env on the
batched engine, ``num_envs`` games at once (``train.vector_single_seat``);
keyword arguments of ``gymnasium.make`` are those of ``SingleSeatEnv``, and any other keyword
is a game flag: ``gymnasium.make("mazzo/Pigugnin-v0", opponents="heuristic", num_players=5)``.

This module never imports torch; a trained opponent imports it when it is built.
"""

from __future__ import annotations

import pickle
import zlib
from collections.abc import Mapping
from typing import Any

import gymnasium as gym
import numpy as np
from gymnasium import spaces

from agents.base import Agent
from agents.registry import make_agent
from agents.rows import parse_opponents
from envs.core.errors import ConfigError, IllegalActionError, ResetNeededError
from envs.registry import GAMES, game_spec

__all__ = ["SingleSeatEnv", "OpponentPool", "register_envs"]

#: deals skipped in a row (learner never acted) before ``reset`` gives up: a safety net only.
MAX_SKIPPED_DEALS = 1000
#: allowed values of ``illegal_action``.
ILLEGAL_ACTION_MODES = ("raise", "terminate")


#: ``gymnasium.make_vec(id, num_envs, vectorization_mode="vector_entry_point", ...)``: the batched engine's vector env
VECTOR_ENTRY_POINT = "train.vector_single_seat:VectorSingleSeatEnv"


def register_envs() -> None:
    """Register every game's single-seat env with Gymnasium under its ``GameSpec.gym_id`` (idempotent): ``make``
    builds a ``SingleSeatEnv``, ``make_vec`` (``vectorization_mode="vector_entry_point"``, also its default for
    these ids) a ``train.vector_single_seat.VectorSingleSeatEnv`` of ``num_envs`` sub-envs on the batched engine."""
    for name, spec in GAMES.items():
        if spec.gym_id not in gym.registry:
            gym.register(id=spec.gym_id, entry_point="train.single_seat:SingleSeatEnv",
                         vector_entry_point=VECTOR_ENTRY_POINT, kwargs={"game": name})
        elif gym.registry[spec.gym_id].vector_entry_point is None:  # registered by an older version of this module
            gym.registry[spec.gym_id].vector_entry_point = VECTOR_ENTRY_POINT


class OpponentPool:
    """Weighted opponents plus frozen snapshots of the learner.

    | attribute         | meaning                                                    |
    |-------------------|------------------------------------------------------------|
    | ``base``          | ``{spec or Agent: weight}`` given at construction          |
    | ``snapshots``     | snapshot specs (``"ppo:PATH"``), oldest first, at most ``max_snapshots`` |
    | ``snapshot_share``| probability that a seat is played by a snapshot, once any exist |
    """

    def __init__(self, opponents: Any = "random", snapshot_share: float = 0.5, max_snapshots: int = 5):
        self.base = parse_opponents(opponents)
        if not 0.0 <= float(snapshot_share) <= 1.0:
            raise ConfigError(f"snapshot_share must be in [0, 1]; got {snapshot_share!r}")
        if isinstance(max_snapshots, bool) or not isinstance(max_snapshots, int) or max_snapshots < 1:
            raise ConfigError(f"max_snapshots must be an int >= 1; got {max_snapshots!r}")
        self.snapshot_share = float(snapshot_share)
        self.max_snapshots = max_snapshots
        self.snapshots: list[str] = []
        self._keys = list(self.base)
        w = np.array([self.base[k] for k in self._keys])
        self._probs = w / w.sum()

    def add(self, spec: str) -> None:
        """Add a frozen snapshot spec; the oldest one leaves when the pool is full."""
        if spec not in self.snapshots:
            self.snapshots.append(spec)
            del self.snapshots[: -self.max_snapshots]

    def draw(self, rng: np.random.Generator) -> Any:
        """One opponent spec (or Agent) for one seat."""
        if self.snapshots and rng.random() < self.snapshot_share:
            return self.snapshots[int(rng.integers(len(self.snapshots)))]
        return self._keys[int(rng.choice(len(self._keys), p=self._probs))]

    def __repr__(self) -> str:
        return f"OpponentPool(base={self.base!r}, snapshots={self.snapshots!r})"


# Loaders for states saved by ``get_state`` before the envs pickled by themselves (it then
# pickled the observers' views of their buffer as (base, offset, shape, strides)); kept so that
# ``set_state`` can still resume such a run. New states are plain pickles.
def _memoryview_of(obj: Any, fmt: str, shape: tuple[int, ...]) -> memoryview:
    mv = memoryview(obj)
    return mv if (mv.format, mv.shape) == (fmt, shape) else mv.cast("B").cast(fmt, shape)


def _view_of(base: np.ndarray, offset: int, shape: tuple, strides: tuple, dtype: np.dtype) -> np.ndarray:
    return np.ndarray(shape, dtype, buffer=base, offset=offset, strides=strides)


class SingleSeatEnv(gym.Env):
    """One seat of a Mazzo game against opponents from a pool (see the module docstring).

    | argument        | default     | meaning                                                     |
    |-----------------|-------------|-------------------------------------------------------------|
    | ``game``        | (required)  | ``"briscola5"``, ``"pigugnin"`` or ``"picchetto"``           |
    | ``opponents``   | ``"random"``| spec(s), Agent(s) or ``{spec: weight}`` (see ``OpponentPool``) |
    | ``seat``        | ``"random"``| the learner's seat: ``"random"`` (drawn each episode) or an int |
    | ``flags``       | ``None``    | game flags (dict); extra keyword arguments are flags too     |
    | ``reward_scale``| ``1.0``     | the learner's rewards are multiplied by it (info keeps the raw return) |
    | ``snapshot_share``, ``max_snapshots`` | 0.5, 5 | self-play pool settings          |
    | ``render_mode`` | ``None``    | ``"ansi"``: ``render()`` returns the table from the learner's seat as text; ``"rgb_array"``: as a ``uint8[H, W, 3]`` picture (needs ``pip install 'mazzo[render]'``) |
    | ``illegal_action`` | ``"terminate"`` | ``"terminate"``: an illegal action ends the episode with ``illegal_reward`` (PettingZoo's default); ``"raise"``: it raises ``IllegalActionError`` and nothing changes |
    | ``illegal_reward`` | ``-1.0``  | the learner's reward for an illegal action with ``"terminate"`` (not scaled) |

    With ``illegal_action="terminate"`` the step of an illegal (or out-of-range) action returns the
    unchanged observation, ``illegal_reward``, ``terminated=True``, ``truncated=False`` and an info
    with ``seat``, ``illegal_action`` (the id), ``reason`` (the ``IllegalActionError`` message),
    ``result=None``, ``episode_return`` (the unscaled game rewards so far plus ``illegal_reward``)
    and ``opponents``; ``action_masks()`` is then all False and ``step`` raises until ``reset``.
    This makes the env pass Gymnasium's and Stable-Baselines3's ``check_env`` with its defaults,
    which step with random ids.
    """

    #: the default for states pickled before it existed (``set_state``)
    _carry = 0.0
    metadata = {"render_modes": ["ansi", "rgb_array"], "render_fps": 2}

    def __init__(
        self,
        game: str,
        opponents: Any = "random",
        seat: int | str = "random",
        flags: Mapping[str, Any] | None = None,
        reward_scale: float = 1.0,
        snapshot_share: float = 0.5,
        max_snapshots: int = 5,
        render_mode: str | None = None,
        illegal_action: str = "terminate",
        illegal_reward: float = -1.0,
        **more_flags: Any,
    ):
        spec = game_spec(game)
        if not isinstance(illegal_action, str) or illegal_action not in ILLEGAL_ACTION_MODES:
            raise ConfigError(
                f"illegal_action must be one of {', '.join(map(repr, ILLEGAL_ACTION_MODES))}; got {illegal_action!r}"
            )
        if (
            isinstance(illegal_reward, bool)
            or not isinstance(illegal_reward, (int, float, np.integer, np.floating))
            or not np.isfinite(illegal_reward)
        ):
            raise ConfigError(f"illegal_reward must be a finite number; got {illegal_reward!r}")
        self.illegal_action = illegal_action
        self.illegal_reward = float(illegal_reward)
        if render_mode is not None and render_mode not in self.metadata["render_modes"]:
            raise ConfigError(f"invalid render_mode {render_mode!r}; allowed: None, 'ansi', 'rgb_array'")
        self.game = game
        self.flags = {**dict(flags or {}), **more_flags}
        self.raw = spec.raw_env(render_mode=render_mode, **self.flags)  # validates the flags
        self.render_mode = render_mode
        self.num_players = len(self.raw.possible_agents)
        if seat != "random" and (isinstance(seat, bool) or not isinstance(seat, int) or not 0 <= seat < self.num_players):
            raise ConfigError(f"seat must be 'random' or an int 0..{self.num_players - 1}; got {seat!r}")
        self.seat_option = seat
        if isinstance(reward_scale, bool) or not isinstance(reward_scale, (int, float)) or not reward_scale > 0:
            raise ConfigError(f"reward_scale must be a number > 0; got {reward_scale!r}")
        self.reward_scale = float(reward_scale)
        self.pool = OpponentPool(opponents, snapshot_share=snapshot_share, max_snapshots=max_snapshots)
        # Build every base opponent once now, so a bad spec fails before any game is played.
        for key in self.pool.base:
            if isinstance(key, str):
                make_agent(key, game)
        space = self.raw.observation_space(self.raw.possible_agents[0])["observation"]
        self.observation_space = spaces.Box(space.low, space.high, space.shape, dtype=np.float32)
        self.action_space = spaces.Discrete(self.raw.action_space(self.raw.possible_agents[0]).n)
        self.learner = 0
        self.learner_agent = self.raw.possible_agents[0]
        self.seated: dict[int, Agent] = {}
        self._agents: dict[tuple[int, Any], Agent] = {}
        self._rngs: dict[str, np.random.Generator] | None = None
        self._seed_seq: np.random.SeedSequence | None = None
        self._return = 0.0
        self._carry = 0.0  # the learner's rewards before its first action, paid with its first step
        self._illegal_end = False  # the episode was ended by an illegal action ("terminate")
        self.skipped_deals = 0

    # -- seeding ------------------------------------------------------------------------
    def _reseed(self, seed: int | None) -> None:
        self._seed_seq = np.random.SeedSequence(seed)
        env_ss, seat_ss, pool_ss, self._agent_ss = self._seed_seq.spawn(4)
        self._env_seed = int(env_ss.generate_state(1)[0])
        self._rngs = {"seat": np.random.default_rng(seat_ss), "pool": np.random.default_rng(pool_ss)}
        for (seat, key), agent in self._agents.items():
            agent.seed(self._agent_seed(seat, key))

    def _agent_seed(self, seat: int, key: Any) -> int:
        # A stable per-(seat, opponent) seed: the same opponent at the same seat replays the same choices.
        name = key if isinstance(key, str) else f"agent#{list(self.pool.base).index(key)}"
        ss = np.random.SeedSequence(self._agent_ss.entropy, spawn_key=(seat, zlib.crc32(name.encode())))
        return int(ss.generate_state(1)[0])

    def _opponent(self, seat: int, key: Any) -> Agent:
        agent = self._agents.get((seat, key))
        if agent is None:
            agent = make_agent(key, self.game) if isinstance(key, str) else key
            agent.seed(self._agent_seed(seat, key))
            self._agents[(seat, key)] = agent
        return agent

    # -- Gymnasium API ------------------------------------------------------------------
    def reset(self, *, seed: int | None = None, options: dict[str, Any] | None = None) -> tuple[np.ndarray, dict]:
        """Start an episode; ``options`` are passed to the game's ``reset`` (explicit deals)."""
        super().reset(seed=seed)  # Gymnasium's own np_random (unused here; the env checker expects it)
        first = self._rngs is None
        if seed is not None or first:
            self._reseed(seed)
        raw = self.raw
        for skipped in range(MAX_SKIPPED_DEALS):
            if self.seat_option == "random":
                self.learner = int(self._rngs["seat"].integers(self.num_players))
            else:
                self.learner = self.seat_option
            self.learner_agent = raw.possible_agents[self.learner]
            self.seated = {}
            for s in range(self.num_players):
                if s != self.learner:
                    agent = self._opponent(s, self.pool.draw(self._rngs["pool"]))
                    agent.reset()
                    self.seated[s] = agent
            raw.reset(seed=self._env_seed if (seed is not None or first) and skipped == 0 else None, options=options)
            self._return = 0.0
            self._illegal_end = False
            # what the seat receives before its first action (a Picchetto Bianco paid to or by the dealer) comes
            # with its first step's reward, so that the step rewards add up to the game's return
            self._carry = self._play_opponents()
            if not self._over():
                self.skipped_deals += skipped
                return self._obs(), {"seat": self.learner}
            options = None  # an explicit deal that never reaches the learner: later deals are shuffled
        raise RuntimeError(f"{self.game}: {MAX_SKIPPED_DEALS} deals in a row ended before the learner could act")

    def step(self, action: Any) -> tuple[np.ndarray, float, bool, bool, dict]:
        raw = self.raw
        if self._over():
            if self._rngs is None:
                raise ResetNeededError(f"{self.game}: reset() needs to be called before step(); call reset() first")
            raise ResetNeededError(f"{self.game}: step() called after the episode ended; call reset() to start a new one")
        try:
            raw.step(int(action))  # raises IllegalActionError (state untouched) for an illegal id
        except IllegalActionError as err:
            if self.illegal_action == "raise":
                raise
            return self._end_by_illegal_action(action, err)
        reward = raw.rewards[self.learner_agent] + self._carry
        self._carry = 0.0
        reward += self._play_opponents()
        self._return += reward
        info: dict[str, Any] = {"seat": self.learner}
        terminated = truncated = False
        if self._over():
            truncated = bool(raw.truncations[self.learner_agent])
            terminated = not truncated
            info.update(
                result=raw.infos[self.learner_agent].get("result"),
                episode_return=self._return,
                opponents={s: getattr(a, "name", type(a).__name__) for s, a in self.seated.items()},
            )
        return self._obs(), float(reward) * self.reward_scale, terminated, truncated, info

    def _end_by_illegal_action(self, action: Any, err: IllegalActionError) -> tuple[np.ndarray, float, bool, bool, dict]:
        """``illegal_action="terminate"``: end the episode with ``illegal_reward`` (the game is left as it was)."""
        self._illegal_end = True
        carried, self._carry = self._carry, 0.0
        self._return += self.illegal_reward + carried
        info = {
            "seat": self.learner,
            "illegal_action": int(action) if isinstance(action, (int, np.integer)) else action,
            "reason": str(err),
            "result": None,
            "episode_return": self._return,
            "opponents": {s: getattr(a, "name", type(a).__name__) for s, a in self.seated.items()},
        }
        return self._obs(), self.illegal_reward + carried * self.reward_scale, True, False, info

    def action_masks(self) -> np.ndarray:
        """The learner's legal actions as a bool array (all False once the episode is over)."""
        if self._illegal_end:
            return np.zeros(self.action_space.n, dtype=bool)
        return self.raw.observe(self.learner_agent)["action_mask"].astype(bool)

    def render(self) -> str | np.ndarray | None:
        if self.render_mode is None:
            return None
        self.raw.render_seat = self.learner
        return self.raw.render()

    # -- helpers ------------------------------------------------------------------------
    def _over(self) -> bool:
        return self._illegal_end or self.raw.episode_over

    def _obs(self) -> np.ndarray:
        return self.raw.observe(self.learner_agent)["observation"]

    def _play_opponents(self) -> float:
        """Let the opponents act until the learner is to act or the episode ends; the learner's rewards."""
        raw = self.raw
        learner, reward = self.learner_agent, 0.0
        while not raw.episode_over and raw.agent_selection != learner:
            actor = raw.agent_selection
            raw.step(self.seated[raw.agent_name_mapping[actor]].act(raw.observe(actor)))
            reward += raw.rewards[learner]
        return reward

    # -- self-play and checkpointing (``env_method`` targets) ---------------------------
    def add_opponent(self, spec: str) -> None:
        """Add a frozen snapshot (``"ppo:PATH"``) to the opponent pool; it is loaded now to fail early."""
        if not isinstance(spec, str):
            raise ConfigError(f"add_opponent takes an agent spec string; got {spec!r}")
        make_agent(spec, self.game)
        self.pool.add(spec)

    def get_state(self) -> bytes:
        """The whole env (game, generators, pool, opponents) pickled, to resume training exactly."""
        return pickle.dumps(self.__dict__, protocol=pickle.HIGHEST_PROTOCOL)

    def set_state(self, state: bytes) -> None:
        """Restore what ``get_state`` returned."""
        self.__dict__.update(pickle.loads(state))

    def close(self) -> None:
        self.raw.close()


register_envs()
