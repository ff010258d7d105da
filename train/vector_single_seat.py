"""``VectorSingleSeatEnv``: the single-seat game of ``train.single_seat`` as a Gymnasium vector env on the batched engine.

``gymnasium.make_vec("mazzo/Briscola5-v0", num_envs=1024, vectorization_mode="vector_entry_point",
opponents="heuristic", seat="random", **flags)`` (after ``import train``) returns one; the ids are those of the
single-seat env. Each of the ``num_envs`` sub-envs is ``SingleSeatEnv``'s game: the learner plays one seat, the
opponents play the others, inside the env; here the games are held by one batched numba engine
(``envs/<game>/batched.py``) and the opponents act for every game at once (one ``act`` call per opponent slot and
round). The semantics are the single-seat env's, step for step:

| returned | what (per sub-env ``i``) |
|---|---|
| observation | the learner's seat-relative vector, float32 ``(num_envs, obs_size)`` (``dict_obs=True``: ``{"observations", "action_mask"}``) |
| reward | float64: the learner's rewards since its previous action, times ``reward_scale`` |
| terminated, truncated | the episode ended (``truncated``: the game truncated it) |
| infos | ``seat`` (int64) and ``action_mask`` (bool ``(num_envs, num_actions)``) always; at an episode's end ``episode_return`` (unscaled), ``result`` (dicts: the AEC result's summary keys, ``VectorEnv.episode_result``) and ``opponents`` (dicts ``{seat: name}``); after an illegal action ``illegal_action`` and ``reason`` (with ``result`` None); each key with its ``_key`` mask, Gymnasium's convention |
| ``action_masks()`` | the learner's legal actions, bool ``(num_envs, num_actions)`` (all False once an episode is over) |

The rules the sub-envs share with ``SingleSeatEnv``:

| rule | behaviour |
|---|---|
| reward | the learner's own rewards since its previous action; what the seat received before its first action of an episode (a Picchetto Bianco paid while the elder exchanges) comes with its first step, as in ``SingleSeatEnv`` |
| skipped deals | a deal that ends before the learner acts is skipped: seats and opponents are drawn again and the next deal is dealt (``skipped`` counts them per sub-env), also for a given deal |
| illegal actions | ``illegal_action="terminate"`` (default): an illegal or out-of-range id ends that sub-env's episode with ``illegal_reward`` (not scaled), the unchanged observation, an empty mask and ``infos["illegal_action"]``/``["reason"]``; ``"raise"``: ``step`` raises ``IllegalActionError`` naming the sub-env, its action and the legal ones, and changes nothing in any sub-env |
| seats | ``seat="random"``: drawn per sub-env and episode; an int: that seat everywhere; a list of ``num_envs`` ints: one per sub-env |
| opponents | one spec, a comma list, a list or a ``{spec: weight}`` dict of batched specs (``agents.rows.make_opponent``: ``random``, ``heuristic``, ``heuristic-v1``, ``ppo:PATH``, ``pretrained:GAME`` ...), ``Agent`` objects, and ``self`` (frozen learner weights, ``set_opponent_weights``); each non-learner seat draws one per episode, by weight; ``add_opponent(spec)`` adds snapshots, drawn with probability ``snapshot_share`` (the latest ``max_snapshots``), as ``OpponentPool`` does |
| spaces | ``single_observation_space`` and ``single_action_space`` are the single-seat env's (``Box``, ``Discrete``); ``observation_space``/``action_space`` batched |
| given deals | ``reset(options={"deals": [one AEC reset-options dict (or None) per sub-env]})`` plays those deals |
| autoreset | ``autoreset_mode`` (``metadata["autoreset_mode"]``): ``NEXT_STEP`` (default, Gymnasium's and RLlib's: the step after an episode's end resets that sub-env, ignores its action and returns reward 0), ``SAME_STEP`` (the step that ends it returns the next episode's first observation; the last one in ``infos["final_obs"]``, its info in ``infos["final_info"]``) or ``DISABLED`` (``reset(options={"reset_mask": mask})``) |

What differs from ``SyncVectorEnv`` over ``SingleSeatEnv``: the random streams. The cards of random deals (and of
the later hands of an episode of several hands) come from the batched engine's per-game streams, the seat and
opponent draws from vectorized generators; the same ``seed`` gives the same trajectories, but not the single-seat
env's. Given deals, fixed seats and deterministic opponents (the heuristics: their numba ports take the Python
heuristics' actions) give the very same episodes, byte for byte (``tests/train/test_vector_single_seat.py``
checks it on 2,000+ one-hand deals per game). ``infos["result"]`` is the AEC result without its per-hand records,
as a dict per sub-env (SyncVectorEnv would spread the dict's keys into arrays).

Self-play: list ``self`` among the opponents; it plays uniformly at random until
``set_opponent_weights(weights)`` gives it the learner's frozen weights: a safe checkpoint path (``*.mazzo.zip``),
a state dict of the checkpoint actor (``agents.checkpoint.build_actor``'s ``policy_net.*``/``action_net.*``
tensors or arrays, as an RLlib callback can push to every env runner), a torch module (``logits = module(obs)``)
or any row player (``act(obs, mask)``). ``privileged()`` gives the learner seats' privileged vectors (what they
cannot see: for a critic in training only).

| module | job |
|---|---|
| ``train/vector_single_seat.py`` | this env: arguments, spaces, ``reset``/``step``, the episodes on the engine (deals, skipped deals, the opponents' rounds up to the learner's turn), rewards and infos |
| ``train/vector_opponents.py`` | ``OpponentSlots``: the row player of each opponent slot, the per-episode draw of the seats' slots, their seeds, the ``self`` slot's weights |

This module never imports torch; a network opponent imports it when it is built.
"""

from __future__ import annotations

import warnings
from collections.abc import Mapping, Sequence
from typing import Any

import gymnasium as gym
import numpy as np
from gymnasium import spaces
from gymnasium.vector import AutoresetMode
from gymnasium.vector.utils import batch_space

from envs.core.errors import ConfigError, DealError, IllegalActionError, ResetNeededError
from envs.registry import game_spec
from train.single_seat import ILLEGAL_ACTION_MODES, MAX_SKIPPED_DEALS
from train.vector_opponents import SELF, OpponentSlots

__all__ = ["VectorSingleSeatEnv", "SELF"]


AUTORESET_MODES = {m.value: m for m in AutoresetMode} | {m.name: m for m in AutoresetMode}


def _check_options(spec: Any, num_envs: Any, illegal_action: Any, illegal_reward: Any, reward_scale: Any,
                   dict_obs: Any, autoreset_mode: Any, render_mode: Any) -> AutoresetMode:
    """The arguments of ``VectorSingleSeatEnv`` that are not flags, checked; returns the autoreset mode."""
    if isinstance(num_envs, bool) or not isinstance(num_envs, (int, np.integer)) or num_envs < 1:
        raise ConfigError(f"num_envs must be an int >= 1; got {num_envs!r}")
    if not isinstance(illegal_action, str) or illegal_action not in ILLEGAL_ACTION_MODES:
        raise ConfigError(
            f"illegal_action must be one of {', '.join(map(repr, ILLEGAL_ACTION_MODES))}; got {illegal_action!r}"
        )
    if (isinstance(illegal_reward, bool) or not isinstance(illegal_reward, (int, float, np.integer, np.floating))
            or not np.isfinite(illegal_reward)):
        raise ConfigError(f"illegal_reward must be a finite number; got {illegal_reward!r}")
    if isinstance(reward_scale, bool) or not isinstance(reward_scale, (int, float)) or not reward_scale > 0:
        raise ConfigError(f"reward_scale must be a number > 0; got {reward_scale!r}")
    if not isinstance(dict_obs, bool):
        raise ConfigError(f"dict_obs must be True or False; got {dict_obs!r}")
    mode = autoreset_mode if isinstance(autoreset_mode, AutoresetMode) else AUTORESET_MODES.get(autoreset_mode)
    if mode is None:
        raise ConfigError(f"autoreset_mode must be a gymnasium.vector.AutoresetMode or one of "
                          f"{', '.join(repr(m.value) for m in AutoresetMode)}; got {autoreset_mode!r}")
    if render_mode is not None:
        raise ConfigError(f"the vector env draws no pictures (render_mode={render_mode!r}); "
                          f"render one game with gymnasium.make({spec.gym_id!r}, render_mode=...)")
    return mode


def _observation_space(raw: Any, num_actions: int, dict_obs: bool) -> spaces.Space:
    """The single-seat env's observation space (``dict_obs``: RLlib's action-masking Dict)."""
    box = raw.observation_space(raw.possible_agents[0])["observation"]
    obs_space = spaces.Box(box.low, box.high, box.shape, dtype=np.float32)
    if dict_obs:
        mask_space = spaces.Box(0.0, 1.0, (num_actions,), dtype=np.float32)
        obs_space = spaces.Dict({"observations": obs_space, "action_mask": mask_space})
    return obs_space


class VectorSingleSeatEnv(gym.vector.VectorEnv):
    """One seat of a Mazzo game in ``num_envs`` sub-envs on the batched engine (see the module docstring).

    | argument | default | meaning |
    |---|---|---|
    | ``game`` | (required) | ``"briscola5"``, ``"pigugnin"``, ``"picchetto"`` (the registered ids pass it) |
    | ``num_envs`` | 1 | sub-envs (games held by the engine) |
    | ``opponents`` | ``"random"`` | batched specs, ``Agent`` objects, ``self``; one spec, ``"a,b"``, a list or ``{spec: weight}`` |
    | ``seat`` | ``"random"`` | the learner's seat: ``"random"`` (per sub-env and episode), an int, or one int per sub-env |
    | ``flags`` | None | game flags (dict); extra keyword arguments are flags too |
    | ``reward_scale`` | 1.0 | the learner's rewards are multiplied by it (``episode_return`` is unscaled) |
    | ``snapshot_share``, ``max_snapshots`` | 0.5, 5 | the snapshots of ``add_opponent`` (``OpponentPool``) |
    | ``illegal_action``, ``illegal_reward`` | ``"terminate"``, -1.0 | as ``SingleSeatEnv`` |
    | ``dict_obs`` | False | observations as ``{"observations": obs, "action_mask": float32 0/1}`` (RLlib's action masking) |
    | ``autoreset_mode`` | ``NEXT_STEP`` | a ``gymnasium.vector.AutoresetMode`` or its name/value |
    | ``threads`` | 1 | cores the engine's kernels run on (``vector_env(threads=)``) |
    """

    metadata = {"autoreset_mode": AutoresetMode.NEXT_STEP, "render_modes": []}

    def __init__(
        self,
        game: str,
        num_envs: int = 1,
        opponents: Any = "random",
        seat: int | str | Sequence[int] = "random",
        flags: Mapping[str, Any] | None = None,
        reward_scale: float = 1.0,
        snapshot_share: float = 0.5,
        max_snapshots: int = 5,
        illegal_action: str = "terminate",
        illegal_reward: float = -1.0,
        dict_obs: bool = False,
        autoreset_mode: AutoresetMode | str = AutoresetMode.NEXT_STEP,
        threads: int = 1,
        render_mode: str | None = None,
        **more_flags: Any,
    ):
        spec = game_spec(game)
        mode = _check_options(spec, num_envs, illegal_action, illegal_reward, reward_scale, dict_obs, autoreset_mode,
                              render_mode)
        self.game = game
        self.flags = {**dict(flags or {}), **more_flags}
        raw = spec.raw_env(**self.flags)  # validates the flags, gives the spaces
        self.num_envs = int(num_envs)
        self.num_players = n = len(raw.possible_agents)
        self.num_actions = raw.action_space(raw.possible_agents[0]).n
        self.illegal_action, self.illegal_reward = illegal_action, float(illegal_reward)
        self.reward_scale, self.dict_obs = float(reward_scale), dict_obs
        self.autoreset_mode = mode
        self.metadata = {**type(self).metadata, "autoreset_mode": mode}
        self.render_mode = None
        self._seats = self._check_seat(seat)
        self.seat_option = seat
        # spaces: the single-seat env's, batched
        self.single_observation_space = _observation_space(raw, self.num_actions, dict_obs)
        self.single_action_space = spaces.Discrete(self.num_actions)
        self.observation_space = batch_space(self.single_observation_space, self.num_envs)
        self.action_space = batch_space(self.single_action_space, self.num_envs)
        # the engine: finished games wait (their final observation is the learner's last one)
        # (its steps gather no views: the opponents' rows are gathered packed, the learner's once per step)
        self.engine = spec.vector_env(self.num_envs, threads=threads, autoreset=False, step_obs=False, **self.flags)
        self.engine.copy_outputs = False
        # opponents: one row player per slot; every sub-env's seat points at a slot for the episode
        self._rngs: dict[str, np.random.Generator] | None = None  # seeded by the first reset
        self.opponents = OpponentSlots(game, self.flags, opponents, snapshot_share, max_snapshots,
                                       obs_size=int(np.prod(self.engine.obs.shape[1:])), num_actions=self.num_actions)
        self.pool = self.opponents.pool
        self._new_arrays(self.num_envs, n)

    # -- construction helpers -------------------------------------------------------------------
    def _new_arrays(self, b: int, n: int) -> None:
        """The state of every sub-env (``b`` of them, ``n`` seats) beside the engine's."""
        self.learner = np.zeros(b, dtype=np.int64)
        self.skipped = np.zeros(b, dtype=np.int64)
        self._opp = np.full((b, n), -1, dtype=np.int64)  # slot of each seat this episode (-1: the learner)
        self._acc = np.zeros(b, dtype=np.float64)  # the learner's rewards since its last action (unscaled)
        self._carry = np.zeros(b, dtype=np.float64)  # its rewards before its first action, paid with its first step
        self._trunc = np.zeros(b, dtype=np.bool_)  # the game truncated the episode during this call
        self._return = np.zeros(b, dtype=np.float64)
        self._illegal = np.zeros(b, dtype=np.bool_)  # the episode was ended by an illegal action
        self._pending = np.zeros(b, dtype=np.bool_)  # NEXT_STEP: reset in the next step; DISABLED: over
        self._mask = np.zeros((b, self.num_actions), dtype=np.bool_)
        self._acts = np.zeros(b, dtype=np.int64)
        self._rows_obs = np.zeros_like(self.engine.obs)  # the opponents' rows of a round (no allocation per round)
        self._rows_mask = np.zeros_like(self.engine.mask)
        self._ar = np.arange(b)

    def _check_seat(self, seat: Any) -> np.ndarray | None:
        n, b = self.num_players, self.num_envs
        if isinstance(seat, str) and seat == "random":
            return None
        if isinstance(seat, (int, np.integer)) and not isinstance(seat, bool) and 0 <= seat < n:
            return np.full(b, int(seat), dtype=np.int64)
        if (isinstance(seat, Sequence) and not isinstance(seat, str) and len(seat) == b
                and all(isinstance(s, (int, np.integer)) and not isinstance(s, bool) and 0 <= s < n for s in seat)):
            return np.array(seat, dtype=np.int64)
        raise ConfigError(f"seat must be 'random', an int 0..{n - 1} or a list of {b} such ints (one per sub-env); "
                          f"got {seat!r}")

    # -- seeding ------------------------------------------------------------------------------------
    def _reseed(self, seed: int | None) -> None:
        ss = np.random.SeedSequence(seed)
        engine_ss, seat_ss, pool_ss, agent_ss = ss.spawn(4)
        self._rngs = {name: np.random.default_rng(s) for name, s in
                      (("engine", engine_ss), ("seat", seat_ss), ("pool", pool_ss))}
        self.opponents.reseed(agent_ss)

    # -- Gymnasium API ------------------------------------------------------------------------------
    def reset(self, *, seed: int | None = None, options: dict[str, Any] | None = None):
        """New episodes in every sub-env (``options["reset_mask"]``: in those only); ``options["deals"]``: the deals."""
        if seed is not None and (isinstance(seed, bool) or not isinstance(seed, (int, np.integer))):
            raise ConfigError(f"seed must be None or an int (one seed for the whole vector env); got {seed!r}")
        options = dict(options or {})
        reset_mask = options.pop("reset_mask", None)
        deals = options.pop("deals", None)
        if options:
            warnings.warn(f"{self.game}: reset options {sorted(options)} are not known and were ignored "
                          f"(known: 'deals', 'reset_mask')", stacklevel=2)
        setups = self._parse_deals(deals)
        if reset_mask is not None:
            mask = np.asarray(reset_mask)
            if mask.dtype != np.bool_ or mask.shape != (self.num_envs,) or not mask.any():
                raise ConfigError(f"options['reset_mask'] must be a bool array of shape ({self.num_envs},) with a True; "
                                  f"got {reset_mask!r}")
        first = self._rngs is None
        if seed is not None or first:
            super().reset(seed=None if seed is None else int(seed))
            self._reseed(None if seed is None else int(seed))
        if reset_mask is None or first:
            self.engine.reset(seed=int(self._rngs["engine"].integers(2**63)))
            idx = self._ar
            self._begin(idx, setups, dealt=True)
        else:
            idx = np.flatnonzero(mask)
            self._begin(idx, setups, dealt=False)
        self._pending[idx] = False
        self._illegal[idx] = False
        self._return[idx] = 0.0
        obs = self._observe()
        self._mask = self._learner_masks()
        infos = self._base_infos()
        if reset_mask is not None and not first:
            infos["_seat"] = mask.copy()
            infos["_action_mask"] = mask.copy()
        return self._obs_out(obs), infos

    def step(self, actions: Any):
        if self._rngs is None:
            raise ResetNeededError(f"{self.game}: reset() needs to be called before step(); call reset() first")
        acts = np.asarray(actions)
        if acts.shape != (self.num_envs,) or not np.issubdtype(acts.dtype, np.integer):
            raise IllegalActionError(f"{self.game}: actions must be ints, one per sub-env, shape ({self.num_envs},); "
                                     f"got {acts.dtype} {acts.shape}")
        acts = acts.astype(np.int64)
        eng = self.engine
        resetting = self._pending.copy() if self.autoreset_mode == AutoresetMode.NEXT_STEP else np.zeros_like(self._pending)
        if self.autoreset_mode != AutoresetMode.NEXT_STEP and self._pending.any():
            i = int(np.flatnonzero(self._pending)[0])
            raise ResetNeededError(f"{self.game}: sub-env {i}: step() called after its episode ended "
                                   f"(autoreset_mode DISABLED); reset(options={{'reset_mask': ...}}) it first")
        playing = ~resetting
        in_range = (acts >= 0) & (acts < self.num_actions)
        legal = playing & in_range
        legal[legal] = self._mask[legal, acts[legal]]
        illegal = playing & ~legal
        if illegal.any() and self.illegal_action == "raise":
            raise IllegalActionError(self._illegal_message(int(np.flatnonzero(illegal)[0]), acts))
        reasons = [self._illegal_message(int(i), acts) for i in np.flatnonzero(illegal)]
        # the learner's actions; new episodes where one ended at the previous step; then the opponents
        self._acc[:] = 0.0
        self._trunc[:] = False
        if legal.any():
            eng.step(np.where(legal, acts, 0), active=legal)
            self._collect(legal)
        ridx = np.flatnonzero(resetting)
        if len(ridx):
            self._draw(ridx)
            eng.deal(ridx)
        self._advance(legal | resetting)
        if len(ridx):
            self._skip_deals_before_the_learner(ridx)
        ended = legal & eng.finished
        acted = legal | illegal  # their first step delivers what was carried (the resetting ones' carry is new)
        got = self._acc + np.where(acted, self._carry, 0.0)
        rewards = np.where(legal, got * self.reward_scale, 0.0)
        rewards[illegal] = self.illegal_reward + self._carry[illegal] * self.reward_scale
        self._return[legal] += got[legal]
        self._return[illegal] += self.illegal_reward + self._carry[illegal]
        self._carry[acted] = 0.0
        self._return[resetting] = 0.0
        self._illegal[resetting] = False
        self._illegal |= illegal
        truncated = ended & self._trunc
        terminated = (ended & ~self._trunc) | illegal
        done = ended | illegal
        obs = self._observe()
        self._mask = self._learner_masks()
        infos = self._base_infos()
        if done.any():
            self._final_infos(infos, ended, illegal, acts, reasons)
        if self.autoreset_mode == AutoresetMode.SAME_STEP and done.any():
            obs, infos = self._same_step_reset(done, obs, infos)
        else:
            self._pending = done
        return self._obs_out(obs), rewards, terminated, truncated, infos

    def action_masks(self) -> np.ndarray:
        """The learner's legal actions in every sub-env, bool ``(num_envs, num_actions)`` (all False once over)."""
        return self._mask.copy()

    def privileged(self) -> np.ndarray:
        """What each sub-env's learner cannot see (``VectorEnv.privileged`` of its seat): for a critic in training only."""
        return self.engine.privileged(self.learner)

    def render(self) -> None:
        return None

    def close_extras(self, **kwargs: Any) -> None:
        pass

    # -- self-play ------------------------------------------------------------------------------------
    def set_opponent_weights(self, weights: Any, greedy: bool = False, activation: str = "Tanh") -> None:
        """Give the ``self`` opponent slot frozen weights of the learner (at any time; episodes in progress continue
        with them).

        ``weights``: a safe checkpoint path (``*.mazzo.zip``, loaded without running code), a state dict of the
        checkpoint actor (``policy_net.{2k}.weight/bias`` and ``action_net.weight/bias``, torch tensors or NumPy
        arrays: the hidden sizes are read from their shapes, ``activation`` names the activation), a torch module
        mapping observations to logits (copied), or a row player with ``act(obs, mask)``. The network plays its
        greedy action (``greedy=True``) or samples its masked policy with the slot's seeded generator.
        """
        self.opponents.set_weights(weights, greedy=greedy, activation=activation)

    def opponent_player(self, key: Any) -> Any:
        """The row player of an opponent (``"self"``, ``"heuristic"``, a snapshot spec...): ``act(obs, mask)``."""
        return self.opponents.player(key)

    def add_opponent(self, spec: str) -> None:
        """Add a frozen snapshot (``"ppo:PATH"``) to the opponent pool (``OpponentPool.add``); loaded now to fail early."""
        self.opponents.add_snapshot(spec)

    # -- episodes ---------------------------------------------------------------------------------------
    def _parse_deals(self, deals: Any) -> list | None:
        if deals is None:
            return None
        if isinstance(deals, (dict, str)) or not isinstance(deals, Sequence) or len(deals) != self.num_envs:
            raise DealError(f"{self.game}: options['deals'] must be a list of {self.num_envs} reset-options dicts "
                            f"(one per sub-env, None for a shuffled deal); got {type(deals).__name__}")
        setups = []
        for i, opt in enumerate(deals):
            try:
                setups.append(None if opt is None else self.engine.game.parse_options(opt))
            except DealError as err:
                raise DealError(f"sub-env {i}: {err}") from None
        return setups

    def _draw(self, idx: np.ndarray) -> None:
        """Seats and opponents of a new episode in the sub-envs ``idx``."""
        k, n = len(idx), self.num_players
        rngs = self._rngs
        seats = rngs["seat"].integers(n, size=k) if self._seats is None else self._seats[idx]
        self.learner[idx] = seats
        slots = self.opponents.draw(rngs["pool"], seats, n)
        self._opp[idx] = slots

    def _begin(self, idx: np.ndarray, setups: list | None, dealt: bool) -> None:
        """New episodes in the sub-envs ``idx``: seats, opponents, the deals (given or from the engine's streams; the
        engine has just dealt them when ``dealt``), the opponents up to the learner's turn, skipped deals."""
        eng = self.engine
        self._draw(idx)
        given = [] if setups is None else [int(i) for i in idx if setups[i] is not None]
        plain = idx if not given else np.setdiff1d(idx, given)
        if not dealt and len(plain):
            eng.deal(plain)
        over = []
        for i in given:
            state = eng.game.new_state(np.random.default_rng(int(eng.rng[i])), setups[i])
            if eng.game.is_over(state):
                over.append(i)  # over at its deal: the learner never acts, the next deal is dealt
            else:
                eng.load(i, state)
        if over:
            eng.deal(over)
            self.skipped[over] += 1
        active = np.zeros(self.num_envs, dtype=np.bool_)
        active[idx] = True
        self._acc[idx] = 0.0
        self._advance(active)
        self._skip_deals_before_the_learner(idx)

    def _skip_deals_before_the_learner(self, idx: np.ndarray) -> None:
        """Deals of new episodes that ended before the learner acted are skipped, as ``SingleSeatEnv.reset`` does;
        what the learner received before its first action is carried to its first step."""
        eng = self.engine
        started = idx
        for _ in range(MAX_SKIPPED_DEALS):
            skipped = idx[eng.finished[idx]]
            if not len(skipped):
                break
            self.skipped[skipped] += 1
            self._draw(skipped)
            eng.deal(skipped)
            self._acc[skipped] = 0.0  # a skipped deal pays nothing
            active = np.zeros(self.num_envs, dtype=np.bool_)
            active[skipped] = True
            self._advance(active)
            idx = skipped
        else:
            raise RuntimeError(f"{self.game}: {MAX_SKIPPED_DEALS} deals in a row ended before the learner could act")
        self._carry[started] = self._acc[started]
        self._acc[started] = 0.0

    def _advance(self, active: np.ndarray) -> None:
        """The opponents act in the ``active`` sub-envs, one action per game and round, each slot's rows in one call,
        until it is the learner's turn or the episode is over."""
        eng = self.engine
        learner = self.learner
        acts = self._acts
        players = self.opponents.players
        while True:
            cur = eng.current_player
            todo = active & ~eng.finished & (cur != learner)
            rows = np.flatnonzero(todo)
            if not len(rows):
                return
            slot = self._opp[rows, cur[rows]]
            first = slot[0]
            if (slot == first).all():
                groups = [(first, rows)]
            else:
                groups = [(k, rows[slot == k]) for k in np.unique(slot)]
            for k, sub in groups:
                obs = eng.observe_rows(sub, cur[sub], out=self._rows_obs)
                mask = eng.mask if len(sub) == self.num_envs else np.take(eng.mask, sub, axis=0,
                                                                           out=self._rows_mask[: len(sub)])
                if getattr(players[k], "sees_hidden", False):  # a cheating training opponent (agents.rows.decide)
                    acts[sub] = players[k].act(obs, mask, eng.privileged(cur)[sub])
                else:
                    acts[sub] = players[k].act(obs, mask)
            eng.step(acts, active=todo)
            self._collect(todo)

    def _collect(self, stepped: np.ndarray) -> None:
        eng = self.engine  # (a game not stepped has no rewards)
        self._acc += eng.rewards[self._ar, self.learner]
        self._trunc |= eng.truncated

    # -- outputs ------------------------------------------------------------------------------------------
    def _observe(self) -> np.ndarray:
        return self.engine.observe(self.learner)

    def _learner_masks(self) -> np.ndarray:
        eng = self.engine
        mask = eng.mask != 0
        mask &= ((eng.current_player == self.learner) & ~eng.finished & ~self._illegal)[:, None]
        return mask

    def _obs_out(self, obs: np.ndarray) -> Any:
        if self.dict_obs:
            return {"observations": obs, "action_mask": self._mask.astype(np.float32)}
        return obs

    def _base_infos(self) -> dict[str, Any]:
        every = np.ones(self.num_envs, dtype=np.bool_)
        return {"seat": self.learner.copy(), "_seat": every, "action_mask": self._mask.copy(), "_action_mask": every.copy()}

    def _final_infos(self, infos: dict, ended: np.ndarray, illegal: np.ndarray, acts: np.ndarray, reasons: list) -> None:
        """``episode_return``, ``result`` and ``opponents`` of the sub-envs whose episode ended; ``illegal_action``
        and ``reason`` of those ended by an illegal action (``result`` None)."""
        done = ended | illegal
        b = self.num_envs
        result = np.full(b, None, dtype=object)
        opponents = np.full(b, None, dtype=object)
        for i in np.flatnonzero(done):
            if ended[i]:
                result[i] = self.engine.episode_result(int(i))
            opponents[i] = {s: self.opponents.names[k] for s, k in enumerate(self._opp[i].tolist()) if k >= 0}
        infos["episode_return"] = np.where(done, self._return, 0.0)
        infos["_episode_return"] = done.copy()
        infos["result"], infos["_result"] = result, done.copy()
        infos["opponents"], infos["_opponents"] = opponents, done.copy()
        if illegal.any():
            infos["illegal_action"] = np.where(illegal, acts, 0)
            infos["_illegal_action"] = illegal.copy()
            reason = np.full(b, None, dtype=object)
            reason[illegal] = reasons
            infos["reason"], infos["_reason"] = reason, illegal.copy()

    def _same_step_reset(self, done: np.ndarray, obs: np.ndarray, infos: dict) -> tuple[np.ndarray, dict]:
        """SAME_STEP: the finished episodes' last observation and info go to ``final_obs``/``final_info``, and the
        sub-envs start their next episode in this step."""
        final_obs = np.full(self.num_envs, None, dtype=object)
        out_obs = self._obs_out(obs)
        for i in np.flatnonzero(done):
            final_obs[i] = {k: v[i].copy() for k, v in out_obs.items()} if self.dict_obs else obs[i].copy()
        final_info = {k: (v & done if k.startswith("_") else v) for k, v in infos.items()}
        idx = np.flatnonzero(done)
        self._begin(idx, None, dealt=False)
        self._return[idx] = 0.0
        self._illegal[idx] = False
        obs = self._observe()
        self._mask = self._learner_masks()
        infos = self._base_infos()
        infos["final_obs"], infos["_final_obs"] = final_obs, done.copy()
        infos["final_info"], infos["_final_info"] = final_info, done.copy()
        return obs, infos

    def _illegal_message(self, i: int, acts: np.ndarray) -> str:
        a = int(acts[i])
        game = self.engine.game
        legal = np.flatnonzero(self._mask[i])
        names = ", ".join(f"{x} ({game.action_name(int(x))})" for x in legal)
        if 0 <= a < self.num_actions:
            what = f"action {a} ({game.action_name(a)}) is not legal now"
        else:
            what = f"action {a} is not an action id (0..{self.num_actions - 1})"
        return f"{game.name}: sub-env {i}: {what} for player_{int(self.learner[i])}; legal actions: {names}"
