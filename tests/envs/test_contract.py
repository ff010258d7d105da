"""Contract tests shared by every game (parametrized over the games, not copied per game)."""

from __future__ import annotations

import numpy as np
import pytest

from envs import briscola5_v0, picchetto_v0, pigugnin_v0
from envs.core.errors import ConfigError

ENVS = {
    "briscola5": lambda **kw: briscola5_v0.env(**kw),
    "pigugnin": lambda **kw: pigugnin_v0.env(**kw),
    "pigugnin5": lambda **kw: pigugnin_v0.env(num_players=5, **kw),
    "picchetto": lambda **kw: picchetto_v0.env(**kw),
}


def _midgame(make, steps: int = 7):
    env = make(render_mode="ansi")
    env.reset(seed=3)
    rng = np.random.default_rng(0)
    for _ in range(steps):
        env.step(int(rng.choice(np.flatnonzero(env.observe(env.agent_selection)["action_mask"]))))
    return env


@pytest.mark.parametrize("game", ENVS)
def test_render_seat_all_shows_every_seats_view(game):
    env = _midgame(ENVS[game])
    raw = env.unwrapped
    views = []
    for seat in range(len(raw.possible_agents)):
        raw.render_seat = seat
        views.append(env.render())
    assert len(set(views)) == len(views)  # each seat sees its own hand
    raw.render_seat = "all"
    table = env.render()
    for agent, view in zip(raw.possible_agents, views, strict=True):
        assert f"== view of {agent} ==\n{view}" in table


@pytest.mark.parametrize("game", ENVS)
@pytest.mark.parametrize("bad", [-1, 9, "everyone", True, 1.5])
def test_render_seat_rejects_what_is_not_a_seat(game, bad):
    env = _midgame(ENVS[game], steps=0)
    env.unwrapped.render_seat = bad
    with pytest.raises(ConfigError, match="render_seat.*allowed"):
        env.render()


@pytest.mark.parametrize("game", ENVS)
def test_unknown_reset_option_warns_naming_the_known_keys(game):
    env = ENVS[game]()
    known = env.unwrapped.game.OPTION_KEYS
    with pytest.warns(UserWarning, match="ignoring unknown reset option") as caught:
        env.reset(seed=0, options={"options": 1})
    message = str(caught[0].message)
    assert "'options'" in message
    assert all(key in message for key in known) and "dealer" in message
