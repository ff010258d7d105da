"""The frozen 0.1 players (`heuristic-v1`): the numba port decides exactly as the Python player.

Observations come from seeded AEC playouts in which every seat is the frozen Python heuristic or a
random player; the frozen port (`agents/legacy/batched_<game>_v1.py`, the batched trainer's
`heuristic-v1` opponent) must choose the Python player's action on every row.
"""

from __future__ import annotations

import numpy as np
import pytest

pytest.importorskip("numba")

from agents import make_agent  # noqa: E402
from agents.rows import make_opponent  # noqa: E402
from envs.registry import make_raw_env  # noqa: E402

CASES = [("briscola5", {}), ("pigugnin", {}), ("pigugnin", {"num_players": 5}), ("picchetto", {})]


def _rows(game: str, flags: dict, episodes: int, seed: int):
    env = make_raw_env(game, **flags)
    frozen = make_agent("heuristic-v1", game, seed=seed)
    rng = np.random.default_rng(seed)
    obs, masks, want = [], [], []
    for episode in range(episodes):
        env.reset(seed=seed + episode)
        random_seats = rng.random(len(env.possible_agents)) < 0.5
        for name in env.agent_iter():
            o, _, term, trunc, _ = env.last()
            if term or trunc:
                env.step(None)
                continue
            action = frozen.act(o)
            obs.append(o["observation"])
            masks.append(o["action_mask"])
            want.append(action)
            if random_seats[env.agent_name_mapping[name]]:
                action = int(rng.choice(np.flatnonzero(o["action_mask"])))
            env.step(action)
    return np.array(obs), np.array(masks), np.array(want)


@pytest.mark.parametrize(("game", "flags"), CASES)
def test_frozen_port_matches_the_frozen_python_player(game, flags):
    obs, masks, want = _rows(game, flags, episodes=6, seed=7)
    assert len(want) > 100
    port = make_opponent("heuristic-v1", game, flags, seed=0)
    assert port.name == "heuristic-v1"
    np.testing.assert_array_equal(port.act(obs, masks), want)


def test_search_players_are_not_batched_opponents():
    from envs.core.errors import ConfigError

    with pytest.raises(ConfigError, match="unknown opponent 'pimc'"):
        make_opponent("pimc", "picchetto", {}, seed=0)
