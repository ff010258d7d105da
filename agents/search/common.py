"""What the search players share: information states, worlds, clones, candidate moves and batched playouts.

| piece | what |
|---|---|
| ``SampledWorlds(game, flags)`` | the seat's information state: ``envs/<game>/worlds.py``'s ``Tracker`` folds the seat's observations, ``sample_worlds`` draws complete engine states consistent with it |
| ``PerfectInformation(env, agent)`` | the true engine state of an AEC env (cheating: for tests, analysis and an upper bound, never for play against others) |
| ``clone(game, state, rng)``, ``hand_no(game, state)``, ``vector_hand_no(game, vec)`` | a copy for search, the hand in progress of a state and of every game of a VectorEnv (the game's ``worlds.vector_hand_no`` when it exists) |
| ``candidates(game, state, legal)`` | the moves a search considers (Briscola's auction and call are pruned, see below) |
| ``solve(game, rules, state, seat, start)`` | the exact value of a small endgame in one world (alpha-beta: teams in Briscola, the seat alone against the others in Pigugnìn, two players in Picchetto) |
| ``Playouts`` | loads worlds into one batched engine (``VectorEnv.load``) and plays every game to the end of its hand with the numba heuristics, a trained network (``NetworkRows``: ``pretrained:GAME``, ``ppo:PATH``) or uniformly random moves, summing each seat's rewards |

A determinizer has ``seat`` (the absolute seat of the searching player in its worlds: observations are
seat-relative, so any seat serves), ``reset()``, ``observe(observation)`` and ``sample(n, rng)``.

Pruned moves (Briscola in cinque; the other games' moves are all searched):

| phase | candidates |
|---|---|
| auction (up to 61 legal ids) | ``PASS``, the bids ``lo + d`` for ``d`` in ``BID_STEPS`` = 0, 2, 5, 10, 15, 20 (``lo`` = the lowest legal bid) and the bids 71 and 81 (where the stake doubles and triples), those that are legal |
| call (40 legal ids) | per suit, the strongest card the caller does not hold (a partner call) and the strongest it holds (a solo, when calling one's own card is allowed) |

Everything here imports numba only through the batched engines, when a ``Playouts`` is built.
"""

from __future__ import annotations

import importlib
import math
from collections.abc import Mapping, Sequence
from typing import Any

import numpy as np

from envs.core.errors import ConfigError
from envs.registry import game_spec

__all__ = [
    "require_numba", "worlds_module", "SampledWorlds", "PerfectInformation", "clone", "hand_no", "vector_hand_no",
    "candidates", "hidden_move", "Playouts", "BID_STEPS", "BID_LEVELS", "engine", "resolve_flags", "solve",
    "same_side", "in_trick_play", "NetworkRows",
]

#: bid raises over the lowest legal bid that the Briscola auction searches (besides PASS)
BID_STEPS = (0, 2, 5, 10, 15, 20)
#: bids searched whenever legal: where the stake doubles (71) and triples (81)
BID_LEVELS = (71, 81)

_BATCHED = {
    "briscola5": "agents.batched.briscola5:Briscola5BatchedHeuristic",
    "pigugnin": "agents.batched.pigugnin:PigugninBatchedHeuristic",
    "picchetto": "agents.batched.picchetto:PicchettoBatchedHeuristic",
}


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


# -- state helpers ------------------------------------------------------------------------------


def _generic_clone(state: Any) -> Any:
    other = type(state).__new__(type(state))
    for name in type(state).__slots__:
        value = getattr(state, name)
        setattr(other, name, value.copy() if isinstance(value, (list, dict)) else value)
    return other


def clone(game: str, state: Any, rng: np.random.Generator | None = None) -> Any:
    """An independent copy of an engine state for search, drawing from ``rng`` if it deals a new hand.

    The engine's own ``copy()`` (Briscola, Picchetto) or a copy of every slot's list (Pigugnìn): a copy of
    the generator, as ``worlds.clone_state`` makes, costs more than the rest of the copy and the search
    never needs it (a playout stops at the end of the hand), so the copy gets ``rng`` instead."""
    other = state.copy() if hasattr(state, "copy") else _generic_clone(state)
    other.rng = rng
    return other


def hand_no(game: str, state: Any) -> int:
    """The hand in progress (every engine state has ``hand_no``, ``envs.core.game``)."""
    return int(state.hand_no)


def vector_hand_no(game: str, vec: Any) -> np.ndarray:
    """The hand in progress in every game of a VectorEnv (the game's ``worlds.vector_hand_no`` when it exists)."""
    mod = worlds_module(game)
    if mod is not None and hasattr(mod, "vector_hand_no"):
        return mod.vector_hand_no(vec)
    if "hand_no" in vec.state:
        return vec.state["hand_no"]
    from envs.picchetto.batched import HAND_NO

    return vec.state["st"][:, HAND_NO]


# -- determinizers --------------------------------------------------------------------------


class SampledWorlds:
    """The seat's information state, from ``envs/<game>/worlds.py`` (see the module docstring)."""

    def __init__(self, game: str, flags: Mapping[str, Any], seat: int = 0):
        mod = worlds_module(game)
        if mod is None:
            raise ImportError(f"the search players of {game} need envs/{game}/worlds.py (determinization), "
                              "which does not exist yet")
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
        self.game = game or next(n for n in ("briscola5", "pigugnin", "picchetto")
                                 if self.env.metadata["name"].startswith(n))

    def reset(self) -> None:
        pass

    def observe(self, observation: Any) -> None:
        pass

    def sample(self, n: int, rng: np.random.Generator) -> list:
        state = self.env.state_
        return [clone(self.game, state, rng) for _ in range(n)]


# -- moves ------------------------------------------------------------------------------------


def candidates(game: str, state: Any, legal: Sequence[int], flags: Mapping[str, Any] | None = None) -> list[int]:
    """The legal moves a search considers in ``state`` (sorted ids; see the module docstring)."""
    legal = [int(a) for a in legal]
    if game != "briscola5" or len(legal) <= 10:
        return legal
    from envs.briscola5.game import BID, BID_MIN, CALL, PASS, STRENGTH

    if legal[-1] < PASS and legal[0] >= CALL:  # the call
        hand = state.hands[state.caller]
        keep = set()
        for suit in range(4):
            cards = range(10 * suit, 10 * suit + 10)
            out = [c for c in cards if not hand >> c & 1 and (CALL + c) in legal]
            own = [c for c in cards if hand >> c & 1 and (CALL + c) in legal]
            if out:
                keep.add(CALL + max(out, key=lambda c: STRENGTH[c]))
            if own:
                keep.add(CALL + max(own, key=lambda c: STRENGTH[c]))
        return sorted(keep)
    if PASS in legal:  # the auction
        bids = [a for a in legal if a >= BID]
        keep = {PASS}
        if bids:
            lo = bids[0]
            keep.update(lo + d for d in BID_STEPS if lo + d in bids)
            keep.update(BID + v - BID_MIN for v in BID_LEVELS if BID + v - BID_MIN in bids)
        return sorted(keep)
    return legal


def hidden_move(game: str, actor: int, action: int, observer: int) -> bool:
    """Does ``observer`` see which move ``actor`` made? (Only Picchetto's discards are hidden from the other seat.)"""
    return game == "picchetto" and actor != observer and 32 <= action < 64


# -- batched playouts -----------------------------------------------------------------------


class Playouts:
    """Plays engine states to the end of their hand on one game's batched engine.

    ``run(states, first_actions, seat_rows)``: game ``i`` of the batch starts from ``states[src[i]]``,
    plays ``first_actions[i]`` (or nothing when it is -1), then the playout policy acts for every seat
    until the hand in progress is over (its ``hand_no`` changes, or the episode ends). Returns the rewards
    of every seat summed over each game's playout (float64 ``(batch, num_players)``).

    The playout policy: ``"heuristic"`` (the game's numba heuristic, ``agents/batched``: deterministic),
    ``"random"`` (uniform over the legal moves, from ``rng``) or a trained agent's spec, ``"pretrained:GAME"``
    or ``"ppo:PATH"`` (``NetworkRows``: its most probable legal move, batched; deterministic; needs torch).
    """

    MAX_STEPS = 2000

    def __init__(self, game: str, flags: Mapping[str, Any], policy: str = "heuristic"):
        require_numba("the search players")
        if not isinstance(policy, str) or not (policy in ("heuristic", "random") or (
                policy.partition(":")[0] in ("pretrained", "ppo") and policy.partition(":")[2])):
            raise ConfigError(f"unknown playout {policy!r}; allowed: 'heuristic', 'random', 'pretrained:GAME', "
                              "'ppo:PATH'")
        self.game = game
        self.flags = dict(flags)
        self.policy = policy
        if policy in ("heuristic", "random"):
            module, _, name = _BATCHED[game].partition(":")
            self._heuristic = getattr(importlib.import_module(module), name)(game, flags=self.flags)
        else:
            self._heuristic = NetworkRows(policy, game, self.flags)
        self._vecs: dict[int, Any] = {}
        self._observer: Any = None
        self.games_played = 0

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
        if self.policy == "random":
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
        return int(self._heuristic.act(obs, mask)[0])

    def act(self, vec: Any, rng: np.random.Generator) -> np.ndarray:
        if self.policy != "random":
            return self._heuristic.act(vec.obs, vec.mask)
        noise = rng.random(vec.mask.shape, dtype=np.float32) + 1.0
        return np.argmax(noise * (vec.mask != 0), axis=1).astype(np.int64)

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
        start = vector_hand_no(self.game, vec).copy()
        total = np.zeros((size, vec.num_players), dtype=np.float64)
        done = np.zeros(size, dtype=bool)
        actions = np.asarray(first_actions, dtype=np.int64)
        if (actions < 0).any():  # games without a first move start with the policy's
            actions = np.where(actions < 0, self.act(vec, rng), actions)
        for _ in range(self.MAX_STEPS):
            _, _, rewards, terminated, truncated, _ = vec.step(actions)
            total[~done] += rewards[~done]
            done |= terminated | truncated | (vector_hand_no(self.game, vec) != start)
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


def in_trick_play(game: str, state: Any) -> bool:
    """Is the hand in its trick play (no auction, call or exchange left)?"""
    if game == "briscola5":
        return state.phase == 3  # TRICK_PLAY
    if game == "picchetto":
        return state.phase in (2, 3)  # TRICK_LEAD, TRICK_FOLLOW
    return True


def same_side(game: str, state: Any, actor: int, seat: int) -> bool:
    """Does ``actor`` play for ``seat`` in an exact endgame search? Briscola: the two teams of the world
    (caller and partner against the defenders); Picchetto: the seat alone (two-player zero-sum: alpha-beta);
    Pigugnìn: the seat alone against all the others (paranoid)."""
    if actor == seat:
        return True
    if game == "briscola5":
        team = (state.caller, state.partner)
        return (actor in team) == (seat in team)
    return False


def solve(game: str, rules: Any, state: Any, seat: int, start: int, alpha: float = -math.inf,
          beta: float = math.inf, rng: np.random.Generator | None = None) -> float:
    """The seat's rewards from ``state`` to the end of the hand under best play, every card known: the seat's
    side maximizes, the other side minimizes (``same_side``), alpha-beta pruned. ``start``: the hand number."""
    if rules.is_over(state) or state.hand_no != start:
        return 0.0
    maximize = same_side(game, state, rules.current_player(state), seat)
    best = -math.inf if maximize else math.inf
    for a in rules.legal_actions(state):
        child = clone(game, state, rng)
        r = rules.apply(child, a)
        got = 0.0 if r is None else float(r[seat])
        v = got + solve(game, rules, child, seat, start, alpha - got, beta - got, rng)
        if maximize:
            best = max(best, v)
            alpha = max(alpha, v)
        else:
            best = min(best, v)
            beta = min(beta, v)
        if alpha >= beta:
            break
    return best
