"""The one registry of Mazzo's games: a `GameSpec` per game, and `game_spec(name)` to get it.

Everything that needs a game by name (agents, evaluation, training, the Gymnasium ids, the
benchmarks, the docs tests) looks it up here, and the name is validated here once. What code
outside `envs/<game>/` needs to know about a game is a field of its `GameSpec` (below) or a hook
of its engine (`envs.core.game`: what a move hides, teams, trick play, a search's candidate
moves), as OpenSpiel's `GameType` and `GameInfo` declare a game's utility and information: no
module of agents/, train/, play/ or benchmarks/ asks which game it is playing
(`tests/test_games_as_data.py`). Adding a game: `docs/adding-a-game.md`.

| name | public module | players | utility | Gymnasium id (single seat) | heuristic |
|---|---|---|---|---|---|
| `briscola5` | `envs.briscola5_v0` | 5 | zero-sum | `mazzo/Briscola5-v0` | `agents.briscola5_heuristic:Briscola5Heuristic` |
| `pigugnin` | `envs.pigugnin_v0` | 4 or 5 | general-sum | `mazzo/Pigugnin-v0` | `agents.pigugnin_heuristic:PigugninHeuristic` |
| `picchetto` | `envs.picchetto_v0` | 2 | zero-sum | `mazzo/Picchetto-v0` | `agents.picchetto_heuristic:PicchettoHeuristic` |

Other packages are named by dotted strings (`"module:attribute"`) and imported only when
asked for, so `envs` never imports `agents` or `train` (and nothing here needs torch or numba).
"""

from __future__ import annotations

import importlib
from collections.abc import Callable, Mapping
from dataclasses import dataclass, field
from types import ModuleType
from typing import Any

from envs.core.errors import ConfigError
from envs.core.flags import resolve_flags
from envs.core.layout import ObsLayout

__all__ = [
    "GameSpec", "SearchSpec", "GAMES", "UTILITIES", "game_spec", "env_module", "make_env", "make_raw_env",
    "make_vector_env", "observation_module", "variants",
]

#: `GameSpec.utility` values (OpenSpiel's `GameType.Utility` names)
UTILITIES = ("zero_sum", "general_sum")


def _resolve(path: str) -> Any:
    module, _, attribute = path.partition(":")
    return getattr(importlib.import_module(module), attribute)


@dataclass(frozen=True)
class SearchSpec:
    """What the search players (`agents/search`) use in one game by default.

    The default budgets each stay under 100 ms of CPU per decision on a 2-core machine at the median (measured
    by `benchmarks/search_speed.py`; the search players' docstrings give the figures); four-player Pigugnìn's
    PIMC, whose playouts a 3 x 512 network plays, takes about 150 ms at the 95th percentile."""

    #: PIMC: worlds sampled per decision
    pimc_worlds: int = 32
    #: PIMC: the playout policy of every seat ("heuristic", "random", "pretrained:GAME", "ppo:PATH")
    pimc_playout: str = "heuristic"
    #: PIMC: in trick play, solve every world exactly once the seat holds this many cards (0: never)
    pimc_endgame: int = 0
    #: PIMC: defaults that differ for some flag values, ``((flag, value, ((keyword, default), ...)), ...)``,
    #: e.g. network playouts only where the network was shown to make the search stronger
    pimc_when: tuple[tuple[str, Any, tuple[tuple[str, Any], ...]], ...] = ()
    #: ``pimc-v1``: the defaults that were PIMC's before the learned networks played its playouts (issue 22),
    #: ``((keyword, default), ...)`` over the three above, without ``pimc_when``; every figure published
    #: against PIMC before then names ``pimc-v1`` and reproduces with it
    pimc_v1: tuple[tuple[str, Any], ...] = ()
    #: IS-MCTS: iterations per decision
    ismcts_iterations: int = 128
    #: a module with a fast exact endgame solver (`warm_up()`, `supported(rules, state)`,
    #: `candidate_values(rules, worlds, seat, candidates)`), used where it covers the state; else the
    #: generic alpha-beta `agents.search.common.solve`
    endgame_solver: str | None = None
    #: "module:Class" of the opponent model of PIMC's `infer` (`Class(temperature)`: `informed(world, seat)`,
    #: `log_weight(world, seat)`, `reset()`); None: `infer` is refused
    opponent_model: str | None = None

    def pimc_defaults(self, flags: Mapping[str, Any], v1: bool = False) -> dict[str, Any]:
        """PIMC's default ``worlds``, ``playout`` and ``endgame`` for an env's resolved ``flags``; with ``v1``
        those of ``pimc-v1`` (the frozen defaults of the published figures)."""
        defaults: dict[str, Any] = {"worlds": self.pimc_worlds, "playout": self.pimc_playout,
                                    "endgame": self.pimc_endgame}
        if v1:
            return {**defaults, **dict(self.pimc_v1)}
        for flag, value, overrides in self.pimc_when:
            if flags.get(flag) == value:
                defaults.update(overrides)
        return defaults


@dataclass(frozen=True)
class GameSpec:
    """Everything the rest of the project needs to know about one game, in one place. The fields from
    `heuristic` on have defaults: a new game leaves out the players it does not have (None), and gets one
    benchmark configuration (its defaults), the general-sum utility and the default search budgets.

    | field | type | meaning |
    |---|---|---|
    | `name` | str | registry name, e.g. "briscola5" |
    | `module` | str | the public `<game>_v0` module: `env()`, `raw_env`, `vector_env()` |
    | `engine` | "module:Class" | the rules engine (flags, action ids, names and the hooks of `envs.core.game`) |
    | `figures` | "module:Class" | the evaluation's counters and figures (`envs/<game>/figures.py`, an `envs.core.figures.GameScorer`) |
    | `gym_id` | str | Gymnasium id of the single-seat env (registered on `import train`) |
    | `layout_for` | flags -> `ObsLayout` | the observation layout for resolved flags (no env is built) |
    | `heuristic` | "module:Class" or None | the heuristic player (spec `heuristic`) |
    | `utility` | "zero_sum" or "general_sum" | whether the seats' rewards always sum to zero |
    | `single_hand` | flags | the flags that make an episode one hand (duplicate deals then deal every seat the same cards) |
    | `variants` | label -> flags | the configurations the benchmarks measure (label `name`: the defaults) |
    | `heuristic_v1` | "module:Class" or None | the heuristic as shipped in Mazzo 0.1, frozen (spec `heuristic-v1`) |
    | `batched_heuristic` | "module:Class" or None | the numba port of the heuristic (`Class(game, seed=, flags=)`, `act(obs, mask)` on many rows; the shipped ports are also exported under the Python heuristic's class name) |
    | `batched_heuristic_v1` | "module:Class" or None | the numba port of `heuristic_v1` |
    | `batched_overbidder` | "module:Class" or None | a numba heuristic that bids above its hand (`Class(game, seed=, flags=, shift=)`): the training opponent `heuristic-overbid[:SHIFT]` of a game with an auction |
    | `batched_seer` | "module:Class" or None | a numba heuristic that sees the hidden cards (`Class(game, seed=, flags=, shift=)`, `act(obs, mask, hidden)`): the cheating training opponent `heuristic-seer[:SHIFT]` |
    | `sound_bidder` | "module:Class" or None | a trained player whose auction bids only what a learned contract model gives it to make (spec `sound[:K=V,...]`, a game with an auction) |
    | `plain` | "module:Class" or None | the plain baseline (spec `plain`) |
    | `plain_alias` | str or None | the plain baseline's other spec name ("greedy", "ducking") |
    | `search` | `SearchSpec` | the search players' defaults in this game |
    """

    #: registry name, e.g. "briscola5"
    name: str
    #: the public `<game>_v0` module: env(), raw_env, vector_env()
    module: str
    #: "module:Class" of the rules engine (flags, action ids, names, the hooks of `envs.core.game`)
    engine: str
    #: "module:Class" of the evaluation figures (game-specific statistics of results)
    figures: str
    #: Gymnasium id of the single-seat env (registered on `import train`)
    gym_id: str
    #: the observation layout for resolved flags (no env is built)
    layout_for: Callable[[Mapping[str, Any]], ObsLayout]
    #: "module:Class" of the heuristic player (optional, like every player below)
    heuristic: str | None = None
    #: "zero_sum" (the rewards of a step sum to zero) or "general_sum"
    utility: str = "general_sum"
    #: flags that make an episode a single hand
    single_hand: Mapping[str, Any] = field(default_factory=dict)
    #: label -> flags of each configuration the benchmarks measure; empty: the defaults, labelled `name`
    variants: Mapping[str, Mapping[str, Any]] = field(default_factory=dict)
    #: "module:Class" of the frozen 0.1 heuristic
    heuristic_v1: str | None = None
    #: "module:Class" of the numba port of the heuristic
    batched_heuristic: str | None = None
    #: "module:Class" of the numba port of the 0.1 heuristic
    batched_heuristic_v1: str | None = None
    #: "module:Class" of the numba heuristic that overbids (training opponent `heuristic-overbid`)
    batched_overbidder: str | None = None
    #: "module:Class" of the numba heuristic that reads the hidden cards (cheating training opponent `heuristic-seer`)
    batched_seer: str | None = None
    #: "module:Class" of the plain baseline
    plain: str | None = None
    #: "module:Class" of the sound bidder (spec `sound`)
    sound_bidder: str | None = None
    #: the plain baseline's other name
    plain_alias: str | None = None
    #: the search players' defaults
    search: SearchSpec = field(default_factory=SearchSpec)

    def __post_init__(self) -> None:
        if self.utility not in UTILITIES:
            raise ValueError(f"{self.name}: utility must be one of {', '.join(UTILITIES)}; got {self.utility!r}")

    @property
    def zero_sum(self) -> bool:
        return self.utility == "zero_sum"

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

    def heuristic_class(self) -> type | None:
        return self.player_class("heuristic")

    def figures_class(self) -> type:
        return _resolve(self.figures)

    def player_class(self, kind: str) -> type | None:
        """The class named by the field `kind` ("heuristic_v1", "batched_heuristic", "plain", ...), or None
        when this game has none."""
        path = getattr(self, kind)
        return None if path is None else _resolve(path)

    def benchmark_variants(self) -> dict[str, dict[str, Any]]:
        """label -> flags of the configurations the benchmarks measure (`variants`, else the defaults)."""
        return {label: dict(flags) for label, flags in (self.variants or {self.name: {}}).items()}

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
            figures="envs.briscola5.figures:Briscola5Scorer",
            gym_id="mazzo/Briscola5-v0",
            layout_for=_fixed_layout("envs.briscola5.observation"),
            utility="zero_sum",
            single_hand={},  # num_hands defaults to 1
            heuristic_v1="agents.legacy.briscola5_heuristic_v1:Briscola5HeuristicV1",
            batched_heuristic="agents.batched.briscola5:Briscola5Heuristic",
            batched_heuristic_v1="agents.legacy.batched_briscola5_v1:Briscola5BatchedHeuristicV1",
            batched_overbidder="agents.batched.briscola5:Briscola5BatchedOverbidder",
            batched_seer="agents.batched.briscola5:Briscola5BatchedSeer",
            plain="agents.plain.briscola5:GreedyAgent",
            plain_alias="greedy",
            sound_bidder="agents.briscola5_bidding:SoundBidder",
            search=SearchSpec(pimc_worlds=32, ismcts_iterations=128),
        ),
        GameSpec(
            name="pigugnin",
            module="envs.pigugnin_v0",
            engine="envs.pigugnin.game:PigugninGame",
            heuristic="agents.pigugnin_heuristic:PigugninHeuristic",
            figures="envs.pigugnin.figures:PigugninScorer",
            gym_id="mazzo/Pigugnin-v0",
            layout_for=_pigugnin_layout,
            utility="general_sum",  # busche: everyone may pay
            single_hand={"episode": "hand"},
            variants={"pigugnin": {}, "pigugnin5": {"num_players": 5}},
            heuristic_v1="agents.legacy.pigugnin_heuristic_v1:PigugninHeuristicV1",
            batched_heuristic="agents.batched.pigugnin:PigugninHeuristic",
            batched_heuristic_v1="agents.legacy.batched_pigugnin_v1:PigugninBatchedHeuristicV1",
            plain="agents.plain.pigugnin:DuckingAgent",
            plain_alias="ducking",
            # at four players the distilled network's playouts make a stronger search (docs/search-players.md);
            # at five they do not, and the heuristic plays them
            search=SearchSpec(pimc_worlds=40, ismcts_iterations=160,
                              pimc_when=(("num_players", 4, (("playout", "pretrained:pigugnin_distilled"),)),)),
        ),
        GameSpec(
            name="picchetto",
            module="envs.picchetto_v0",
            engine="envs.picchetto.game:PicchettoGame",
            heuristic="agents.picchetto_heuristic:PicchettoHeuristic",
            figures="envs.picchetto.figures:PicchettoScorer",
            gym_id="mazzo/Picchetto-v0",
            layout_for=_fixed_layout("envs.picchetto.observation"),
            utility="zero_sum",
            single_hand={"episode": "hand"},
            heuristic_v1="agents.legacy.picchetto_heuristic_v1:PicchettoHeuristicV1",
            batched_heuristic="agents.batched.picchetto:PicchettoHeuristic",
            batched_heuristic_v1="agents.legacy.batched_picchetto_v1:PicchettoBatchedHeuristicV1",
            plain="agents.plain.picchetto:GreedyAgent",
            plain_alias="greedy",
            # a shipped network plays the playouts (agents/search/pimc.py: why; pimc-v1 the first one), exact
            # endgames from 3 cards
            search=SearchSpec(pimc_worlds=64, pimc_playout="pretrained:picchetto_distilled", pimc_endgame=3,
                              pimc_v1=(("playout", "pretrained:picchetto_v1"),),
                              ismcts_iterations=192, endgame_solver="agents.search.picchetto_endgame",
                              opponent_model="agents.search.picchetto_discards:DiscardModel"),
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


def variants() -> dict[str, tuple[str, dict[str, Any]]]:
    """label -> (game, flags) of every configuration the benchmarks measure, game by game."""
    return {label: (spec.name, flags) for spec in GAMES.values() for label, flags in spec.benchmark_variants().items()}
