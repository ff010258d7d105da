"""Players that act on rows of many games at once: the adapters that let any Mazzo player decide for a batch.

The interface, ``OpponentPolicy``: one call decides for every game in which this player is to act.

| member | what |
|---|---|
| ``name`` | a short label for logs (optional) |
| ``act(obs, mask)`` | ``obs``: float32 ``(k, obs_size)``, ``mask``: int8 ``(k, num_actions)``, ``k >= 1`` rows; returns int64 ``(k,)``, a legal action per row |

Each row is one game's observation of the seat now to act (seat-relative, byte-identical to the AEC
env's ``observe(agent)["observation"]``) and its mask; rows of different games and seats come in any
order, and the arrays are the caller's (copy what you keep). A player decides from the row alone,
as every Mazzo player does (heuristics read ``decode(obs)``, never the env), so it keeps no per-game
memory. Its randomness comes from its own generator, seeded at construction: the same seed and the
same calls give the same actions. Users: the batched trainer (opponents, self-play snapshots, the warm
start's teacher), and anything else that steps many games (a vector env, search playouts).

| spec (``make_opponent``) | player |
|---|---|
| ``random`` | ``MaskedRandom``: uniform over the legal actions of each row (NumPy) |
| ``heuristic`` | the game's batched heuristic (``GameSpec.batched_heuristic``, ``batched_heuristic_class``; all three games have one), else ``AgentRows`` over the Python heuristic |
| ``heuristic-python`` | ``AgentRows`` over the Python heuristic (``make_agent("heuristic", game)``), whatever exists |
| ``heuristic-v1`` | the frozen numba port of the 0.1 heuristic (``GameSpec.batched_heuristic_v1``, ``agents/legacy/``) |
| ``heuristic-overbid[:SHIFT]`` | a training opponent of a game with an auction (``GameSpec.batched_overbidder``, Briscola): the heuristic bidding as if its hand were worth ``SHIFT`` more card points (default 10) |
| ``heuristic-seer[:SHIFT]`` | a training opponent that cheats (``GameSpec.batched_seer``, Briscola): the heuristic knowing the partner and the foes' cards, bidding like ``heuristic-overbid:SHIFT`` (default 0); it reads hidden rows (below) |
| ``plain``, ``ducking``, ``greedy`` | the numba port of the game's plain player (``batched_plain_class``: the class named like the Python player, ``GameSpec.plain``, in the module of the game's batched heuristic; all three games have one), else ``AgentRows`` over the Python player |
| ``ppo:PATH``, ``pretrained:GAME`` | ``ActorRows`` over the checkpoint's actor (safe format), greedy like ``make_agent`` |
| (a network in memory) | ``ActorRows(actor, ...)``: greedy, or sampling its policy (self-play snapshots) |

A player with ``sees_hidden = True`` (the seer) is called ``act(obs, mask, hidden)``, ``hidden`` the
``vector_env.privileged`` rows of the same seats: every caller that steps a batched engine calls players
through ``decide(player, env, rows)``, which passes them. Such a player is a training opponent only (the
trainer, the batched Gymnasium vector env, the batched evaluation's tables); no exported player reads hidden
cards.

The search players (``pimc``, ``ismcts``) are not row players: they remember their seat's episode
(``agents/search``), and rows of many games arrive in any order.

Batched heuristics (numba ports, ``agents/batched/<game>.py``) are built as ``Class(game, seed=seed,
flags=flags)`` (the Python heuristics' signature plus the game flags) and used through ``act(obs, mask)``
exactly like any ``OpponentPolicy``. ``AgentRows`` calls a Python agent once per row (decoding the
observation): the same decisions, and the bottleneck of training against Python players
(``benchmarks/train_speed.py`` measures both).

``opponent_specs`` and ``parse_opponents`` read an ``opponents`` value (one spec, ``"a,b"``, a list, or a
``{spec: weight}`` dict) for every trainer and for the single-seat env. This module imports torch only to
build or run ``ActorRows``.
"""

from __future__ import annotations

import importlib
from collections.abc import Mapping, Sequence
from typing import Any, Protocol, runtime_checkable

import numpy as np

from agents.base import Agent
from envs.core.errors import ConfigError
from envs.registry import GAMES, game_spec

__all__ = ["OpponentPolicy", "MaskedRandom", "AgentRows", "ActorRows", "make_opponent", "decide",
           "batched_heuristic_class", "batched_plain_class",
           "opponent_specs", "parse_opponents", "OPPONENT_SPECS"]

OPPONENT_SPECS = ("random", "heuristic", "heuristic-python", "heuristic-v1", "heuristic-overbid[:SHIFT]",
                  "heuristic-seer[:SHIFT]", "plain", "ppo:PATH", "pretrained:GAME")


@runtime_checkable
class OpponentPolicy(Protocol):
    """Acts in many games at once (see the module docstring)."""

    def act(self, obs: np.ndarray, mask: np.ndarray) -> np.ndarray: ...


class MaskedRandom:
    """Uniform over each row's legal actions: the argmax of uniform noise on the legal entries."""

    name = "random"

    def __init__(self, seed: int | None = None):
        self.rng = np.random.default_rng(seed)

    def act(self, obs: np.ndarray, mask: np.ndarray) -> np.ndarray:
        noise = self.rng.random(mask.shape, dtype=np.float32) + 1.0  # in [1, 2): a legal entry beats every illegal 0
        return np.argmax(noise * (mask != 0), axis=1).astype(np.int64)


class AgentRows:
    """Any per-observation player (the Agent protocol, ``act(obs_dict)``), called once per row."""

    def __init__(self, agent: Any, name: str | None = None):
        self.agent = agent
        self.name = name or str(getattr(agent, "name", type(agent).__name__))

    def act(self, obs: np.ndarray, mask: np.ndarray) -> np.ndarray:
        act = self.agent.act
        return np.fromiter((act({"observation": o, "action_mask": m}) for o, m in zip(obs, mask, strict=True)),
                           dtype=np.int64, count=len(obs))


class ActorRows:
    """A policy network (the safe checkpoint's actor: ``logits = actor(obs)``): greedy or sampled, batched.

    Greedy: the most probable legal action, computed as ``TrainedAgent`` does (``masked_probs``, first of
    equal maxima). Sampled: ``gumbel_max`` or ``sample_masked`` (``sampling``, ``agents/sampling.py``) on the
    masked logits with its own seeded generator.
    """

    def __init__(self, actor: Any, name: str, greedy: bool, seed: int | None = None, sampling: str = "gumbel"):
        import torch

        from agents.sampling import SAMPLERS

        self.actor, self.name, self.greedy = actor, name, greedy
        self.sample = SAMPLERS[sampling]
        self.gen = torch.Generator().manual_seed(int(seed or 0))

    def act(self, obs: np.ndarray, mask: np.ndarray) -> np.ndarray:
        import torch

        from agents.checkpoint import HUGE_NEG, masked_probs
        from agents.sampling import gumbel_max, gumbel_max_legal

        with torch.inference_mode():
            logits = self.actor(torch.from_numpy(np.ascontiguousarray(obs, dtype=np.float32)))
            legal = torch.from_numpy(np.ascontiguousarray(mask)) != 0
            if self.greedy:
                return masked_probs(logits, legal).argmax(-1).numpy().astype(np.int64)
            if self.sample is gumbel_max:  # the same draws, on the legal logits only
                return gumbel_max_legal(logits.masked_fill(~legal, HUGE_NEG), legal, self.gen).numpy().astype(np.int64)
            return self.sample(logits.masked_fill(~legal, HUGE_NEG), self.gen).numpy().astype(np.int64)


# -- which class plays a spec (one lookup per kind of port) ------------------------------------------------------


def batched_heuristic_class(game: str, kind: str = "batched_heuristic") -> type | None:
    """The numba heuristic named by the game's ``GameSpec.batched_heuristic`` (``kind="batched_heuristic_v1"``:
    the frozen port of the 0.1 heuristic), or None when the game has none."""
    path = getattr(game_spec(game), kind)
    if path is None:
        return None
    module, _, cls_name = path.partition(":")
    cls = getattr(importlib.import_module(module), cls_name, None)
    if cls is None:
        raise ConfigError(f"{module} exists but defines no {cls_name} (GameSpec.{kind} of {game})")
    return cls


def batched_plain_class(game: str) -> type | None:
    """The numba port of the game's plain player: the class named like the Python player (``GameSpec.plain``) in the
    module of the game's batched heuristic (``GameSpec.batched_heuristic``), or None when there is none."""
    spec = game_spec(game)
    if spec.plain is None or spec.batched_heuristic is None:
        return None
    module = importlib.import_module(spec.batched_heuristic.partition(":")[0])
    return getattr(module, spec.plain.partition(":")[2], None)


def make_opponent(spec: str, game: str, flags: dict[str, Any], seed: int) -> Any:
    """The ``OpponentPolicy`` of an opponent spec (see the module table); ``ConfigError`` if unknown."""
    from agents.registry import PLAIN_ALIASES, make_agent

    if not isinstance(spec, str):
        raise ConfigError(f"an opponent must be an agent spec string; got {spec!r}")
    if spec == "random":
        return MaskedRandom(seed)
    if spec in ("heuristic", "heuristic-python"):
        cls = batched_heuristic_class(game) if spec == "heuristic" else None
        if cls is not None:
            return cls(game, seed=seed, flags=dict(flags))
        return AgentRows(make_agent("heuristic", game, seed=seed), name=spec)
    if spec == "heuristic-v1":
        cls = batched_heuristic_class(game, "batched_heuristic_v1")
        if cls is None:
            raise ConfigError(f"opponent 'heuristic-v1' is not available for {game} (no GameSpec.batched_heuristic_v1)")
        return cls(game, seed=seed, flags=dict(flags))
    kind, _, arg = spec.partition(":")
    if kind in _SHIFTED:
        return _shifted(spec, kind, arg, game, flags, seed)
    if kind in ("ppo", "pretrained") and arg:
        agent = make_agent(spec, game, seed=seed, flags=dict(flags))  # the safe loader and its checks
        return ActorRows(agent.actor, name=spec, greedy=True, seed=seed)
    if spec == "plain" or spec in PLAIN_ALIASES:
        agent = make_agent(spec, game, seed=seed)  # the checks of the spec (an alias of another game's player)
        cls = batched_plain_class(game)
        return cls(game, seed=seed, flags=dict(flags)) if cls is not None else AgentRows(agent, name=spec)
    raise ConfigError(f"unknown opponent {spec!r}; known opponents: {', '.join(OPPONENT_SPECS)}")


#: the heuristics with a bid shift: spec -> (the GameSpec field of their class, what the game needs for one)
_SHIFTED = {"heuristic-overbid": ("batched_overbidder", "no auction to overbid in"),
            "heuristic-seer": ("batched_seer", "no seer written for it")}


def _shifted(spec: str, kind: str, arg: str, game: str, flags: dict[str, Any], seed: int) -> Any:
    """``heuristic-overbid[:SHIFT]``, ``heuristic-seer[:SHIFT]``: the game's class for ``kind`` (``ConfigError`` if it
    has none, or if SHIFT is not an int)."""
    field, why = _SHIFTED[kind]
    cls = batched_heuristic_class(game, field)
    if cls is None:
        with_one = [name for name in GAMES if getattr(GAMES[name], field)]
        raise ConfigError(f"opponent {spec!r} is not available for {game} ({why}; games with "
                          f"one: {', '.join(with_one)})")
    if not arg:
        return cls(game, seed=seed, flags=dict(flags))
    if not arg.isdigit():
        raise ConfigError(f"invalid opponent {spec!r}; allowed: {kind!r} or '{kind}:SHIFT', "
                          "SHIFT an int 0..60 (card points added to the hand estimate in the auction)")
    return cls(game, seed=seed, flags=dict(flags), shift=int(arg))


def decide(player: Any, env: Any, rows: np.ndarray) -> np.ndarray:
    """``player``'s actions in games ``rows`` of the batched engine ``env``, each for the seat to act there: its
    observation rows and masks, and for a player that ``sees_hidden`` the privileged rows of those seats too."""
    if getattr(player, "sees_hidden", False):
        hidden = env.privileged(env.current_player)[rows]
        return player.act(env.obs[rows], env.mask[rows], hidden)
    return player.act(env.obs[rows], env.mask[rows])


# -- the `opponents` value of a config or an env --------------------------------------------------------------------


def _bad_opponents(opponents: Any) -> ConfigError:
    return ConfigError(f"invalid value {opponents!r} for 'opponents'; the opponents must be an agent spec (random, "
                       "heuristic, heuristic-python, ppo:PATH, pretrained:GAME ...), a comma-separated string, a list "
                       "of specs or a {spec: weight} dict")


def opponent_specs(opponents: Any, agents: bool = False) -> list[Any]:
    """``opponents`` (one spec, ``"a,b"`` or a list; ``agents``: ``Agent`` objects too) as a non-empty list, in order
    and with repeats (a trainer gives each entry its own slot)."""
    if agents and isinstance(opponents, Agent):
        return [opponents]
    if isinstance(opponents, str):
        specs = [s.strip() for s in opponents.split(",") if s.strip()]
    elif isinstance(opponents, Sequence):
        specs = [o.strip() if isinstance(o, str) else o for o in opponents]
        if not all((isinstance(o, str) and o) or (agents and isinstance(o, Agent)) for o in specs):
            raise _bad_opponents(opponents)
    else:
        specs = []
    if not specs:
        raise _bad_opponents(opponents)
    return specs


def parse_opponents(opponents: Any) -> dict[Any, float]:
    """``opponents`` as ``{spec or Agent: weight}`` (a list counts each distinct entry once, with weight 1)."""
    if not isinstance(opponents, Mapping):
        return {o: 1.0 for o in opponent_specs(opponents, agents=True)}
    if not opponents:
        raise _bad_opponents(opponents)
    for spec, w in opponents.items():
        if not isinstance(spec, (str, Agent)):
            raise ConfigError(f"an opponent must be an agent spec string or an Agent; got {spec!r}")
        if isinstance(w, bool) or not isinstance(w, (int, float)) or not w > 0:
            raise ConfigError(f"opponent weight for {spec!r} must be a number > 0; got {w!r}")
    return {k: float(v) for k, v in opponents.items()}

