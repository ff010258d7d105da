"""Every game is complete in the one registry (envs.registry.GAMES)."""

from __future__ import annotations

from pathlib import Path

import pytest

from envs.core.errors import ConfigError
from envs.registry import GAMES, game_spec

ROOT = Path(__file__).resolve().parents[1]
#: non-default flags that change the observation shape or the player count, per game
SHAPED_FLAGS = {"briscola5": [{}, {"num_hands": 3}], "pigugnin": [{}, {"num_players": 5}], "picchetto": [{}]}


def test_the_registry_knows_the_three_games_and_nothing_else():
    assert set(GAMES) == {"briscola5", "pigugnin", "picchetto"} == set(SHAPED_FLAGS)


@pytest.mark.parametrize("game", list(GAMES))
def test_every_game_is_complete(game):
    spec = game_spec(game)
    assert spec.name == game and spec.module == f"envs.{game}_v0"
    module = spec.public_module()
    assert {"env", "raw_env", "vector_env"} <= set(module.__all__)
    engine = spec.engine_class()
    assert engine.name == f"{game}_v0"  # every error message starts with it
    assert spec.num_actions == engine.num_actions
    if spec.heuristic is not None:  # optional
        assert spec.heuristic_class().__name__.lower().startswith(game)
    assert spec.figures_class().game == game
    assert spec.gym_id.startswith("mazzo/") and spec.gym_id.endswith("-v0")
    assert (ROOT / "docs" / "rules" / f"{game}.md").is_file()
    assert hasattr(spec.observation_module(), "decode")


@pytest.mark.parametrize("game", list(GAMES))
def test_shapes_come_from_the_registry_without_an_env_and_match_the_env(game):
    spec = game_spec(game)
    for flags in SHAPED_FLAGS[game]:
        env = spec.raw_env(**flags)
        agent = env.possible_agents[0]
        assert spec.observation_shape(flags) == env.observation_space(agent)["observation"].shape
        assert spec.num_players(flags) == len(env.possible_agents)
        assert env.action_space(agent).n == spec.num_actions


@pytest.mark.parametrize("game", list(GAMES))
def test_gym_ids_are_registered_by_import_train(game):
    import gymnasium as gym

    import train  # noqa: F401 - registers the single-seat envs

    assert game_spec(game).gym_id in gym.registry


def test_unknown_games_and_bad_flags_are_refused_once_with_the_known_names():
    with pytest.raises(ConfigError, match="unknown game 'scopa'; known games: briscola5, pigugnin, picchetto"):
        game_spec("scopa")
    with pytest.raises(ConfigError, match="unknown game"):
        game_spec(None)
    with pytest.raises(ConfigError, match="num_players"):
        game_spec("pigugnin").observation_shape({"num_players": 6})
