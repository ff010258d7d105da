"""The one registry of Mazzo's games: a `GameSpec` per game, and `game_spec(name)` to get it.

Everything that needs a game by name (agents, evaluation, training, the Gymnasium ids, the
docs tests) looks it up here, and the name is validated here once.

| name | public module | players | Gymnasium id (single seat) | heuristic |
|---|---|---|---|---|
| `briscola5` | `envs.briscola5_v0` | 5 | `mazzo/Briscola5-v0` | `agents.briscola5_heuristic:Briscola5Heuristic` |
| `pigugnin` | `envs.pigugnin_v0` | 4 or 5 | `mazzo/Pigugnin-v0` | `agents.pigugnin_heuristic:PigugninHeuristic` |
| `picchetto` | `envs.picchetto_v0` | 2 | `mazzo/Picchetto-v0` | `agents.picchetto_heuristic:PicchettoHeuristic` |

Other packages are named by dotted strings (`"module:attribute"`) and imported only when
asked for, so `envs` never imports `agents` or `train` (and nothing here needs torch or numba).
"""

from __future__ import annotations

import importlib
from collections.abc import Callable, Mapping
from dataclasses import dataclass
from types import ModuleType
from typing import Any

from envs.core.errors import ConfigError
from envs.core.flags import resolve_flags
from envs.core.layout import ObsLayout

__all__ = [
    "GameSpec", "GAMES", "game_spec", "env_module", "make_env", "make_raw_env", "make_vector_env",
    "observation_module",
]


def _resolve(path: str) -> Any:
    module, _, attribute = path.partition(":")
    return getattr(importlib.import_module(module), attribute)


@dataclass(frozen=True)
class GameSpec:
    """Everything the rest of the project needs to know about one game, in one place."""

    #: registry name, e.g. "briscola5"
    name: str
    #: the public `<game>_v0` module: env(), raw_env, vector_env()
    module: str
    #: "module:Class" of the rules engine (flags, action ids, names)
    engine: str
    #: "module:Class" of the heuristic player
    heuristic: str
    #: "module:Class" of the evaluation figures (game-specific statistics of results)
    figures: str
    #: Gymnasium id of the single-seat env (registered on `import train`)
    gym_id: str
    #: the observation layout for resolved flags (no env is built)
    layout_for: Callable[[Mapping[str, Any]], ObsLayout]

    # -- factories ------------------------------------------------------------------------
    def public_module(self) -> ModuleType:
        return importlib.import_module(self.module)

    def env(self, **flags: Any):
        """`env(**flags)`: the PettingZoo AEC env with its wrapper chain."""
        return self.public_module().env(**flags)

    def raw_env(self, **flags: Any):
        """`raw_env(**flags)`: no wrappers (fastest)."""
        return self.public_module().raw_env(**flags)

    def vector_env(self, num_envs: int, **flags: Any):
        """`vector_env(num_envs, **flags)`: the batched engine (needs numba)."""
        return self.public_module().vector_env(num_envs, **flags)

    def engine_class(self) -> type:
        return _resolve(self.engine)

    def heuristic_class(self) -> type:
        return _resolve(self.heuristic)

    def figures_class(self) -> type:
        return _resolve(self.figures)

    def observation_module(self) -> ModuleType:
        """The game's observation module (layout table and `decode`)."""
        return importlib.import_module(f"envs.{self.name}.observation")

    def summary_module(self) -> ModuleType:
        """The game's public summaries for people (scoreboard, trick winners, hand and episode
        results, moves to confirm): `envs.<game>.summary`, the same functions in every game."""
        return importlib.import_module(f"envs.{self.name}.summary")

    # -- facts for given flags, without building an env ----------------------------------------
    def resolve_flags(self, flags: Mapping[str, Any] | None = None) -> dict[str, Any]:
        """The complete, validated flags (defaults filled in); raises `ConfigError` like `env()`."""
        engine = self.engine_class()
        return resolve_flags(engine.FLAGS, dict(flags or {}), engine.name)

    def layout(self, flags: Mapping[str, Any] | None = None) -> ObsLayout:
        return self.layout_for(self.resolve_flags(flags))

    def observation_shape(self, flags: Mapping[str, Any] | None = None) -> tuple[int]:
        """Shape of the observation vector for these flags."""
        return (self.layout(flags).obs_size,)

    def num_players(self, flags: Mapping[str, Any] | None = None) -> int:
        return self.layout(flags).num_players

    @property
    def num_actions(self) -> int:
        return self.engine_class().num_actions


def _fixed_layout(module: str) -> Callable[[Mapping[str, Any]], ObsLayout]:
    return lambda flags: importlib.import_module(module).LAYOUT


def _pigugnin_layout(flags: Mapping[str, Any]) -> ObsLayout:
    from envs.pigugnin.observation import LAYOUTS

    return LAYOUTS[flags["num_players"]]


GAMES: dict[str, GameSpec] = {
    spec.name: spec
    for spec in (
        GameSpec(
            name="briscola5",
            module="envs.briscola5_v0",
            engine="envs.briscola5.game:Briscola5Game",
            heuristic="agents.briscola5_heuristic:Briscola5Heuristic",
            figures="train.evaluation.figures:Briscola5Scorer",
            gym_id="mazzo/Briscola5-v0",
            layout_for=_fixed_layout("envs.briscola5.observation"),
        ),
        GameSpec(
            name="pigugnin",
            module="envs.pigugnin_v0",
            engine="envs.pigugnin.game:PigugninGame",
            heuristic="agents.pigugnin_heuristic:PigugninHeuristic",
            figures="train.evaluation.figures:PigugninScorer",
            gym_id="mazzo/Pigugnin-v0",
            layout_for=_pigugnin_layout,
        ),
        GameSpec(
            name="picchetto",
            module="envs.picchetto_v0",
            engine="envs.picchetto.game:PicchettoGame",
            heuristic="agents.picchetto_heuristic:PicchettoHeuristic",
            figures="train.evaluation.figures:PicchettoScorer",
            gym_id="mazzo/Picchetto-v0",
            layout_for=_fixed_layout("envs.picchetto.observation"),
        ),
    )
}


def game_spec(game: str) -> GameSpec:
    """The `GameSpec` of `game`; an unknown name raises `ConfigError` listing the known games."""
    spec = GAMES.get(game) if isinstance(game, str) else None
    if spec is None:
        raise ConfigError(f"unknown game {game!r}; known games: {', '.join(GAMES)}")
    return spec


# Short forms used across the project (each one a GameSpec lookup).
def env_module(game: str) -> ModuleType:
    return game_spec(game).public_module()


def observation_module(game: str) -> ModuleType:
    return game_spec(game).observation_module()


def make_env(game: str, **flags: Any):
    return game_spec(game).env(**flags)


def make_raw_env(game: str, **flags: Any):
    return game_spec(game).raw_env(**flags)


def make_vector_env(game: str, num_envs: int, **flags: Any):
    return game_spec(game).vector_env(num_envs, **flags)
