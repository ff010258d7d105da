"""What the search players share: information states, worlds, clones, batched playouts and exact endgames.

| piece | what |
|---|---|
| ``SampledWorlds(game, flags)`` | the seat's information state: ``envs/<game>/worlds.py``'s ``Tracker`` folds the seat's observations, ``sample_worlds`` draws complete engine states consistent with it |
| ``PerfectInformation(env, agent)`` | the true engine state of an AEC env (cheating: for tests, analysis and an upper bound, never for play against others) |
| ``clone(state, rng)`` | a copy of an engine state for search (its ``copy()``) |
| ``solve(rules, state, seat, start)`` | the exact value of a small endgame in one world (alpha-beta, the sides from the engine's ``same_side``) |
| ``Playouts`` | loads worlds into one batched engine (``VectorEnv.load``) and plays every game to the end of its hand with the game's numba heuristic (``GameSpec.batched_heuristic``), a trained network (``NetworkRows``: ``pretrained:GAME``, ``ppo:PATH``) or uniformly random moves, summing each seat's rewards |

What a search needs to know about the game comes from the engine's hooks (``envs.core.game``): the
moves it considers (``search_candidates``: Briscola prunes its auction and call), the moves it cannot
see (``hidden_move_name``: Picchetto's discards), when the trick play starts (``in_trick_play``) and
who plays together (``same_side``); and from ``GameSpec.search`` (default budgets, a fast endgame
solver, an opponent model).

A determinizer has ``seat`` (the absolute seat of the searching player in its worlds: observations are
seat-relative, so any seat serves), ``reset()``, ``observe(observation)`` and ``sample(n, rng)``.

Everything here imports numba only through the batched engines, when a ``Playouts`` is built.
"""

from __future__ import annotations

import importlib
import math
from collections.abc import Mapping, Sequence
from typing import Any

import numpy as np

from envs.core.errors import ConfigError
from envs.records import game_name
from envs.registry import game_spec

__all__ = [
    "require_numba", "worlds_module", "SampledWorlds", "PerfectInformation", "clone", "Playouts", "engine",
    "resolve_flags", "solve", "NetworkRows",
]


def require_numba(who: str) -> None:
    """Raise a clear ImportError naming the extra when numba is missing."""
    try:
        import numba  # noqa: F401
    except ImportError as err:
        raise ImportError(f"{who} plays out on the batched engines, which need numba: "
                          "pip install 'mazzo[vector]'") from err


def resolve_flags(game: str, flags: Mapping[str, Any] | None) -> dict[str, Any]:
    return game_spec(game).resolve_flags(flags)


def engine(game: str, flags: Mapping[str, Any]) -> Any:
    """The Python rules engine (``CardGame``) of ``game`` for ``flags``."""
    return game_spec(game).engine_class()(**dict(flags))


_WORLDS: dict[str, Any] = {}


def worlds_module(game: str) -> Any:
    """``envs.<game>.worlds``, or None while that module does not exist."""
    if game not in _WORLDS:
        try:
            _WORLDS[game] = importlib.import_module(f"envs.{game}.worlds")
        except ModuleNotFoundError as err:
            if err.name != f"envs.{game}.worlds":
                raise
            _WORLDS[game] = None
    return _WORLDS[game]


def _require_worlds(game: str) -> Any:
    mod = worlds_module(game)
    if mod is None:
        raise ImportError(f"the search players of {game} need envs/{game}/worlds.py (determinization), "
                          "which does not exist yet")
    return mod


# -- state helpers ------------------------------------------------------------------------------


def clone(state: Any, rng: np.random.Generator | None = None) -> Any:
    """An independent copy of an engine state for search (its ``copy()``), drawing from ``rng`` if it deals a
    new hand: a copy of the generator, as ``worlds.clone_state`` makes, costs more than the rest of the copy
    and the search never needs it (a playout stops at the end of the hand), so the copy gets ``rng`` instead."""
    other = state.copy()
    other.rng = rng
    return other


# -- determinizers --------------------------------------------------------------------------


class SampledWorlds:
    """The seat's information state, from ``envs/<game>/worlds.py`` (see the module docstring)."""

    def __init__(self, game: str, flags: Mapping[str, Any], seat: int = 0):
        mod = _require_worlds(game)
        self.game = game
        self.seat = seat
        self._mod = mod
        self.tracker = mod.Tracker(dict(flags), seat=seat)

    def reset(self) -> None:
        self.tracker.reset()

    def observe(self, observation: Any) -> None:
        self.tracker.observe(observation)

    def sample(self, n: int, rng: np.random.Generator) -> list:
        return self._mod.sample_worlds(self.tracker.view(), n, rng)


class PerfectInformation:
    """The true state of ``env`` (an AEC env of the game, wrapped or raw) for ``agent``: every card known.

    For tests, analysis and as an upper bound of what determinization can give; a player built
    with it cheats."""

    def __init__(self, env: Any, agent: str | int, game: str | None = None):
        self.env = env.unwrapped
        self.seat = agent if isinstance(agent, int) else self.env.agent_name_mapping[agent]
        self.game = game or game_name(self.env)

    def reset(self) -> None:
        pass

    def observe(self, observation: Any) -> None:
        pass

    def sample(self, n: int, rng: np.random.Generator) -> list:
        state = self.env.state_
        return [clone(state, rng) for _ in range(n)]


# -- batched playouts -----------------------------------------------------------------------


class Playouts:
    """Plays engine states to the end of their hand on one game's batched engine.

    ``run(states, first_actions, seat_rows)``: game ``i`` of the batch starts from ``states[src[i]]``,
    plays ``first_actions[i]`` (or nothing when it is -1), then the playout policy acts for every seat
    until the hand in progress is over (its ``hand_no``, the game's ``worlds.vector_hand_no``, changes, or the
    episode ends). Returns the rewards of every seat summed over each game's playout (float64
    ``(batch, num_players)``).

    The playout policy: ``"heuristic"`` (the game's numba heuristic, ``GameSpec.batched_heuristic``: deterministic),
    ``"random"`` (uniform over the legal moves, from ``rng``) or a trained agent's spec, ``"pretrained:GAME"``
    or ``"ppo:PATH"`` (``NetworkRows``: its most probable legal move, batched; deterministic; needs torch).
    ``card_policy`` (one of the same, or None: ``policy`` throughout) plays instead of it in the rows that are in
    trick play (the engine's ``trick_play_rows``), so that, say, the heuristic bids and calls in Briscola's
    playouts and a network plays the cards.
    """

    MAX_STEPS = 2000

    def __init__(self, game: str, flags: Mapping[str, Any], policy: str = "heuristic",
                 card_policy: str | None = None):
        require_numba("the search players")
        self.game = game
        self.flags = dict(flags)
        self.policy = policy
        self.card_policy = card_policy
        self._base = self._rows(policy, "playout")
        self._cards = None if card_policy is None else self._rows(card_policy, "card_playout")
        self._trick_rows = None if card_policy is None else engine(game, self.flags).trick_play_rows
        self._hand_no = _require_worlds(game).vector_hand_no
        self._vecs: dict[int, Any] = {}
        self._observer: Any = None
        self.games_played = 0

    def _rows(self, policy: Any, key: str) -> Any:
        """The batched player of a policy spec (None for ``"random"``, which ``rows`` plays itself)."""
        if not isinstance(policy, str) or not (policy in ("heuristic", "random") or (
                policy.partition(":")[0] in ("pretrained", "ppo") and policy.partition(":")[2])):
            raise ConfigError(f"unknown {key} {policy!r}; allowed: 'heuristic', 'random', 'pretrained:GAME', "
                              "'ppo:PATH'")
        if policy == "random":
            return None
        if policy == "heuristic":
            batched = game_spec(self.game).player_class("batched_heuristic")
            if batched is None:
                raise ConfigError(f"the playouts of {self.game} need a batched heuristic (GameSpec.batched_heuristic), "
                                  "which it does not have")
            return batched(self.game, flags=self.flags)
        return NetworkRows(policy, self.game, self.flags)

    def vec(self, size: int) -> Any:
        """A VectorEnv of exactly ``size`` games (kept for reuse)."""
        vec = self._vecs.get(size)
        if vec is None:
            vec = game_spec(self.game).vector_env(size, **self.flags)
            vec.reset(seed=size)
            vec.copy_outputs = False
            self._vecs[size] = vec
        return vec

    def choose(self, rules: Any, state: Any, rng: np.random.Generator) -> int:
        """The playout policy's move in one engine state (the observation rebuilt from the state)."""
        if self.policy == "random" and self._cards is None:
            legal = rules.legal_actions(state)
            return legal[int(rng.integers(len(legal)))]
        if self._observer is None:
            self._observer = game_spec(self.game).raw_env(**self.flags).observer_class(rules)
            self._mask = np.zeros((1, rules.num_actions), dtype=np.int8)
        self._observer.reset(state)
        obs = self._observer.observe(rules.current_player(state))[None, :]
        legal = rules.legal_mask(state)
        mask = self._mask
        for a in range(rules.num_actions):
            mask[0, a] = legal >> a & 1
        return int(self.rows(obs, mask, rng)[0])

    def act(self, vec: Any, rng: np.random.Generator) -> np.ndarray:
        return self.rows(vec.obs, vec.mask, rng)

    def rows(self, obs: np.ndarray, mask: np.ndarray, rng: np.random.Generator) -> np.ndarray:
        """The playout policy's move in every row (``card_policy``'s in the rows in trick play)."""
        if self._cards is None:
            return self._play(self._base, obs, mask, rng)
        cards = self._trick_rows(mask)
        moves = np.empty(len(mask), dtype=np.int64)
        for player, rows in ((self._cards, cards), (self._base, ~cards)):
            if rows.any():
                moves[rows] = self._play(player, obs[rows], mask[rows], rng)
        return moves

    @staticmethod
    def _play(player: Any, obs: np.ndarray, mask: np.ndarray, rng: np.random.Generator) -> np.ndarray:
        if player is not None:
            return np.asarray(player.act(obs, mask), dtype=np.int64)
        noise = rng.random(mask.shape, dtype=np.float32) + 1.0  # uniform over the legal moves
        return np.argmax(noise * (mask != 0), axis=1).astype(np.int64)

    def load(self, vec: Any, states: Sequence[Any], src: np.ndarray) -> None:
        """Game ``i`` of ``vec`` becomes ``states[src[i]]``: each state is loaded once, then copied."""
        first: dict[int, int] = {}
        for i, k in enumerate(src.tolist()):
            if k not in first:
                first[k] = i
                vec.load(i, states[k])
        dst = np.array([i for i, k in enumerate(src.tolist()) if first[k] != i], dtype=np.int64)
        if dst.size:
            origin = np.array([first[k] for k in src[dst].tolist()], dtype=np.int64)
            replicate(vec, origin, dst)

    def run(self, states: Sequence[Any], src: np.ndarray, first_actions: np.ndarray,
            rng: np.random.Generator, seat: int | None = None) -> np.ndarray:
        """(``seat``: the seat that must be to act in every loaded game, checked when given.)"""
        size = len(src)
        vec = self.vec(size)
        self.load(vec, states, np.asarray(src, dtype=np.int64))
        if seat is not None and (vec.current_player != seat).any():
            raise RuntimeError(f"{self.game}: a world has seat {int(vec.current_player[vec.current_player != seat][0])} "
                               f"to act, not the searching seat {seat}")
        start = self._hand_no(vec).copy()
        total = np.zeros((size, vec.num_players), dtype=np.float64)
        done = np.zeros(size, dtype=bool)
        actions = np.asarray(first_actions, dtype=np.int64)
        if (actions < 0).any():  # games without a first move start with the policy's
            actions = np.where(actions < 0, self.act(vec, rng), actions)
        for _ in range(self.MAX_STEPS):
            _, _, rewards, terminated, truncated, _ = vec.step(actions)
            total[~done] += rewards[~done]
            done |= terminated | truncated | (self._hand_no(vec) != start)
            if done.all():
                break
            actions = self.act(vec, rng)
        else:
            raise RuntimeError(f"{self.game}: a playout did not end its hand within {self.MAX_STEPS} steps")
        self.games_played += size
        return total


class NetworkRows:
    """A trained policy (``pretrained:GAME`` or ``ppo:PATH``, the safe checkpoint's actor) as a playout policy:
    the legal action of the largest logit in every row of a batch (the most probable one, as ``TrainedAgent``
    plays by default: deterministic), computed on one thread (a small network on a few hundred rows: more
    threads only cost more CPU)."""

    def __init__(self, spec: str, game: str, flags: Mapping[str, Any]):
        from agents.registry import make_agent

        self.spec = spec
        try:
            self.actor = make_agent(spec, game, flags=dict(flags)).actor  # the safe loader and its shape check
        except ImportError as err:
            raise ImportError(
                f"playouts by {spec!r} need torch (pip install -e '.[train]'): {err}. Without torch, search with "
                f"heuristic playouts: 'pimc:playout=heuristic'"
            ) from err

    def act(self, obs: np.ndarray, mask: np.ndarray) -> np.ndarray:
        import torch

        threads = torch.get_num_threads()
        torch.set_num_threads(1)
        try:
            with torch.inference_mode():
                logits = self.actor(torch.from_numpy(np.ascontiguousarray(obs, dtype=np.float32)))
                legal = torch.from_numpy(np.ascontiguousarray(mask)) != 0
                return logits.masked_fill(~legal, -math.inf).argmax(-1).numpy().astype(np.int64)
        finally:
            torch.set_num_threads(threads)


def replicate(vec: Any, src: np.ndarray, dst: np.ndarray) -> None:
    """Game ``dst[k]`` of ``vec`` becomes a copy of game ``src[k]`` (every state array, buffer, mask, actor;
    the random streams stay: the search stops at the end of a hand, before any new deal)."""
    from envs.core.vector import gather_seats

    for arr in vec.state.values():
        arr[dst] = arr[src]
    vec.buf[dst] = vec.buf[src]
    vec.current_player[dst] = vec.current_player[src]
    vec.mask[dst] = vec.mask[src]
    vec.rewards[dst] = 0.0
    vec.terminated[dst] = False
    vec.truncated[dst] = False
    gather_seats(vec.buf, vec.current_player, vec.obs, *vec.gather_tables)


# -- exact endgames ---------------------------------------------------------------------------------


def solve(rules: Any, state: Any, seat: int, start: int, alpha: float = -math.inf, beta: float = math.inf,
          rng: np.random.Generator | None = None) -> float:
    """The seat's rewards from ``state`` to the end of the hand under best play, every card known: the seat's
    side maximizes, the other side minimizes, alpha-beta pruned. The sides are the engine's ``same_side``
    (Briscola: caller and partner against the defenders; a seat alone otherwise: in Pigugnìn the seat against
    all the others, paranoid). ``start``: the hand number."""
    if rules.is_over(state) or state.hand_no != start:
        return 0.0
    maximize = rules.same_side(state, seat, rules.current_player(state))
    best = -math.inf if maximize else math.inf
    for a in rules.legal_actions(state):
        child = clone(state, rng)
        r = rules.apply(child, a)
        got = 0.0 if r is None else float(r[seat])
        v = got + solve(rules, child, seat, start, alpha - got, beta - got, rng)
        if maximize:
            best = max(best, v)
            alpha = max(alpha, v)
        else:
            best = min(best, v)
            beta = min(beta, v)
        if alpha >= beta:
            break
    return best
