"""Helpers shared by the env tests of every game."""

from __future__ import annotations

import numpy as np


def trajectory(make_env, seed: int, **flags) -> list:
    """(agent, observation bytes, reward) of every step of one seeded random-play episode."""
    env = make_env(**flags)
    env.reset(seed=seed)
    rng = np.random.default_rng(seed)
    out = []
    for agent in env.agent_iter():
        obs, reward, term, trunc, _ = env.last()
        out.append((agent, obs["observation"].tobytes(), reward))
        env.step(None if term or trunc else int(rng.choice(np.flatnonzero(obs["action_mask"]))))
    return out


def first_fast(values) -> list:
    """Parameters for a variant-parametrized test: the first runs in the fast tier, the rest are slow."""
    import pytest
    from _pytest.mark import ParameterSet

    values = list(values)
    out = values[:1]
    for v in values[1:]:
        if isinstance(v, ParameterSet):
            out.append(pytest.param(*v.values, marks=[*v.marks, pytest.mark.slow], id=v.id))
        else:
            out.append(pytest.param(v, marks=pytest.mark.slow))
    return out


def assert_privileged_matches(venv, aecs, reference, seats) -> None:
    """The batched engine's privileged vectors of `seats` (one per game) are the pure-Python reference's
    (`reference(game, state, seat)`, `envs/<game>/privileged.py`) on the AEC env of each game, float for float."""
    got = venv.privileged(seats)
    assert got.shape == (venv.num_envs, venv.privileged_size) and got.dtype == np.float32
    for i, aec in enumerate(aecs):
        want = reference(aec.game, aec.state_, int(seats[i]))
        if want.tobytes() != got[i].tobytes():
            bad = np.flatnonzero(want != got[i])
            raise AssertionError(f"game {i}, seat {int(seats[i])}: privileged differs at {bad[:10].tolist()}: "
                                 f"reference {want[bad[:10]].tolist()}, batched {got[i][bad[:10]].tolist()}")
