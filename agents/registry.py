"""Agent specs: ``parse_agent_spec`` validates a spec string once, ``make_agent`` builds the player.

| spec              | player                                                              |
|-------------------|---------------------------------------------------------------------|
| ``random``        | ``RandomAgent``: a uniformly random legal action                    |
| ``heuristic``     | the game's heuristic (``GameSpec.heuristic_class()``, ``envs.registry``) |
| ``ppo:PATH``      | ``TrainedAgent`` playing the safe checkpoint ``PATH`` (``.mazzo.zip`` may be left out) |
| ``pretrained:GAME`` | the checkpoint shipped in ``agents/pretrained/`` for ``GAME``     |
| ``heuristic-v1``  | the heuristic as shipped in Mazzo 0.1, frozen (``GameSpec.heuristic_v1``, ``agents/legacy/``) |
| ``plain``         | the plain baseline (``GameSpec.plain``, ``agents/plain/``): ducking in Pigugnìn, greedy in the others; its ``GameSpec.plain_alias`` (``ducking``, ``greedy``) names it too |
| ``pimc[:K=V,...]``   | Perfect Information Monte Carlo search (``agents/search/pimc.py``); ``K=V`` set its budget, e.g. ``pimc:worlds=64`` |
| ``pimc-v1[:K=V,...]`` | PIMC at its defaults before learned networks played its playouts (``PIMCv1Agent``, ``GameSpec.search.pimc_v1``), frozen: the PIMC of every figure published before then |
| ``ismcts[:K=V,...]`` | information-set MCTS (``agents/search/ismcts.py``), e.g. ``ismcts:iterations=2000`` |
| ``sound[:K=V,...]`` | a game with an auction (``GameSpec.sound_bidder``, Briscola's ``agents/briscola5_bidding.py``): a trained player that bids only the contracts a learned contract model gives it to make, e.g. ``sound:tau=0.6`` |

Every caller (training's config check, the single-seat env, evaluation, the play page) goes
through ``parse_agent_spec``, so a spec means the same thing and fails the same way everywhere.
"""

from __future__ import annotations

import importlib
from dataclasses import dataclass, field
from typing import Any

from agents.base import BaseAgent
from agents.checkpoint import checkpoint_path
from agents.random_agent import RandomAgent
from envs.core.errors import ConfigError
from envs.registry import GAMES, game_spec

__all__ = ["make_agent", "parse_agent_spec", "AgentSpec", "AGENT_KINDS", "PLAIN_ALIASES", "SEARCH_KINDS"]

AGENT_KINDS = ("random", "heuristic", "heuristic-v1", "plain", "pimc[:K=V,...]", "pimc-v1[:K=V,...]",
               "ismcts[:K=V,...]", "sound[:K=V,...]", "ppo:PATH", "pretrained:GAME")

#: the other names of the games' plain players (``GameSpec.plain_alias``)
PLAIN_ALIASES = tuple(dict.fromkeys(s.plain_alias for s in GAMES.values() if s.plain_alias))
#: the fields of ``GameSpec`` that name the player of a spec kind
_FIELDS = {"heuristic": "heuristic", "heuristic-v1": "heuristic_v1", "plain": "plain", "sound": "sound_bidder"}
#: the spec kinds of ``_FIELDS`` that take ``K=V`` parameters
_WITH_PARAMS = ("sound",)
#: "module:Class" of the search players
_SEARCH = {"pimc": "agents.search.pimc:PIMCAgent", "pimc-v1": "agents.search.pimc:PIMCv1Agent",
           "ismcts": "agents.search.ismcts:ISMCTSAgent"}
#: the search players' spec kinds (a search remembers its seat's episode and decides one game at a time)
SEARCH_KINDS = tuple(_SEARCH)


def _import(path: str) -> Any:
    module, _, name = path.partition(":")
    return getattr(importlib.import_module(module), name)


def _player_class(game: str, kind: str) -> type:
    cls = game_spec(game).player_class(_FIELDS[kind])
    if cls is None:
        raise ConfigError(f"agent {kind!r} is not available for {game} (its GameSpec.{_FIELDS[kind]} is not set)")
    return cls


def _parse_params(spec: str, text: str) -> tuple[tuple[str, int | float | str], ...]:
    """``worlds=64,seconds=0.5`` -> ``(("worlds", 64), ("seconds", 0.5))``: ints, then floats, else strings."""
    params = []
    for item in filter(None, text.split(",")):
        key, eq, raw = item.partition("=")
        if not eq or not key.isidentifier() or not raw:
            raise ConfigError(f"agent {spec!r}: parameters are KEY=VALUE pairs separated by commas; got {item!r}")
        value: int | float | str
        try:
            value = int(raw)
        except ValueError:
            try:
                value = float(raw)
            except ValueError:
                value = raw
        params.append((key, value))
    return tuple(params)


@dataclass(frozen=True)
class AgentSpec:
    """A validated agent spec for one game: ``kind`` (random, heuristic, heuristic-v1, plain, pimc, ismcts,
    ppo, pretrained), its ``arg`` (the checkpoint path or the pretrained game; ``""`` otherwise) and, for the
    search players, ``params`` (keyword arguments from ``pimc:worlds=64``)."""

    text: str
    kind: str
    arg: str
    game: str
    params: tuple[tuple[str, Any], ...] = field(default=())

    @property
    def trained(self) -> bool:
        return self.kind in ("ppo", "pretrained")

    def build(self, seed: int | None = None, flags: dict[str, Any] | None = None, **kwargs: Any) -> BaseAgent:
        """The player. ``flags`` (the env's flags) go to trained agents, which check their input
        shape against them, and to the search players, which build the engine from them. Without torch a trained agent raises ``ImportError``."""
        if self.kind == "random":
            return RandomAgent(self.game, seed=seed)
        if self.kind in _FIELDS and self.kind not in _WITH_PARAMS:
            return _player_class(self.game, self.kind)(self.game, seed=seed, **kwargs)
        if self.kind in _SEARCH or self.kind in _WITH_PARAMS:
            cls = _import(_SEARCH[self.kind]) if self.kind in _SEARCH else _player_class(self.game, self.kind)
            options = {**dict(self.params), **kwargs}
            if flags is not None:
                options["flags"] = dict(flags)
            try:
                return cls(self.game, seed=seed, **options)
            except TypeError as err:  # an unknown parameter (a search's budget keyword, ...)
                raise ConfigError(f"agent {self.text!r}: {err}") from None
        from agents.trained import TrainedAgent  # imports torch: only when asked for

        if flags is not None:
            kwargs["flags"] = dict(flags)
        if self.kind == "pretrained":
            return TrainedAgent.pretrained(self.arg, game=self.game, seed=seed, **kwargs)
        return TrainedAgent(self.arg, game=self.game, seed=seed, **kwargs)


def parse_agent_spec(spec: str, game: str) -> AgentSpec:
    """Validate ``spec`` for ``game`` without building the player.

    Raises ``ConfigError`` for an unknown game (``envs.registry.game_spec``), a spec that is not a
    string or not one of ``AGENT_KINDS``, or ``pretrained:OTHER`` for another game of the registry;
    ``FileNotFoundError`` ("checkpoint not found") for a ``ppo:PATH`` whose file does not exist."""
    game_spec(game)
    if not isinstance(spec, str):
        raise ConfigError(f"an agent spec must be a string, one of {', '.join(AGENT_KINDS)}; got {spec!r}")
    if spec in ("random", "heuristic", "heuristic-v1", "plain"):
        return AgentSpec(spec, spec, "", game)
    if spec in PLAIN_ALIASES:
        alias = game_spec(game).plain_alias
        if alias != spec:
            raise ConfigError(f"agent {spec!r} is not a {game} player; its plain player is "
                              + (f"{alias!r}" if alias else "'plain'"))
        return AgentSpec(spec, "plain", "", game)
    kind, _, arg = spec.partition(":")
    if kind in _SEARCH:
        return AgentSpec(spec, kind, "", game, _parse_params(spec, arg))
    if kind in _WITH_PARAMS:
        _player_class(game, kind)  # a game without one says so now
        return AgentSpec(spec, kind, "", game, _parse_params(spec, arg))
    if kind not in ("ppo", "pretrained") or not arg:
        raise ConfigError(f"unknown agent {spec!r}; known agents: {', '.join(AGENT_KINDS)}")
    if kind == "ppo":
        checkpoint_path(arg)
    elif arg in GAMES and arg != game:
        raise ConfigError(f"agent {spec!r} was trained on {arg!r} and does not fit game {game!r}")
    return AgentSpec(spec, kind, arg, game)


def make_agent(spec: str, game: str, seed: int | None = None, **kwargs: Any) -> BaseAgent:
    """Build a player for ``game`` from ``spec`` (see ``AGENT_KINDS``; ``parse_agent_spec`` validates it).

    ``ppo:PATH`` plays a safe checkpoint (``*.mazzo.zip``, ``agents/checkpoint.py``): nothing in the file is
    executed, and a Stable-Baselines3 ``.zip`` is refused unopened (convert one you trust with
    ``python -m agents.trained export SRC DST``).
    """
    return parse_agent_spec(spec, game).build(seed=seed, **kwargs)
