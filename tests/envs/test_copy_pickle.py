"""Copying and pickling an env at any point of an episode: the copy continues exactly like the original.

For every game, flag set and wrapper (``raw_env`` and ``env()``) a reference run records, step by
step, everything an agent can see: every agent's observation bytes and mask, ``last()``,
rewards, cumulative rewards, terminations, truncations, infos, the agents still in and the
agent to act. A second run of the same episode then copies the env (``copy.deepcopy`` and a
``pickle`` round trip) at checkpoints covering every phase of the game (and every hand of a
multi-hand episode, the end of the episode and its dead steps), and plays each copy to the end
of the reference run, which includes a second episode started by ``reset()`` without a seed
(so the copied random generator is checked too). The original keeps playing after each copy and
must still match the reference: a copy that shared state with it would disturb it.
"""

from __future__ import annotations

import copy
import pickle

import numpy as np
import pytest

from envs import briscola5_v0, picchetto_v0, pigugnin_v0
from envs.briscola5.game import AUCTION, CALL_CARD, FORFEIT_CHECK, TRICK_PLAY
from envs.picchetto.game import Phase as PicchettoPhase
from tests.envs.cases import BRISCOLA5_NON_DEFAULT, PICCHETTO_NON_DEFAULT, PIGUGNIN_NON_DEFAULT
from tests.envs.common import first_fast

# A Briscola deal in which seat 1 holds no card points, so the hand opens with the forfeit check.
_ZERO = ["2C", "4C", "5C", "6C", "7C", "2D", "4D", "5D"]
_REST = ["6D", "7D", "2S", "4S", "5S", "6S", "7S", "2B", "4B", "5B", "6B", "7B"]
_POINTS = [f"{r}{s}" for s in "CDSB" for r in "A3JHK"]
FORFEIT_DEAL = {
    "dealer": 0,
    "hands": [_POINTS[0:5] + _REST[0:3], _ZERO, _POINTS[5:10] + _REST[3:6], _POINTS[10:15] + _REST[6:9],
              _POINTS[15:20] + _REST[9:12]],
}
_B5_PHASES = {FORFEIT_CHECK, AUCTION, CALL_CARD, TRICK_PLAY}
_PIC_PHASES = {int(p) for p in PicchettoPhase if p != PicchettoPhase.OVER}

# (id, env module, flags, reset options, phases that must be visited, hands that must be played at least)
CASES = [
    ("briscola5-forfeit-2hands", briscola5_v0, {"num_hands": 2}, FORFEIT_DEAL, _B5_PHASES, 2),
    ("briscola5-non-default", briscola5_v0, {**BRISCOLA5_NON_DEFAULT, "num_hands": 2}, None,
     _B5_PHASES - {FORFEIT_CHECK}, 2),
    ("pigugnin-4p-game", pigugnin_v0, {"loss_threshold": 2, "sole_loss_threshold": 3}, None, None, 2),
    ("pigugnin-5p-game", pigugnin_v0, {"num_players": 5, "loss_threshold": 2, "sole_loss_threshold": 3}, None,
     None, 2),
    ("pigugnin-4p-non-default", pigugnin_v0, {**PIGUGNIN_NON_DEFAULT, "loss_threshold": 2, "sole_loss_threshold": 3},
     None, None, 2),
    ("pigugnin-5p-hand", pigugnin_v0, {"num_players": 5, "episode": "hand"}, None, None, 1),
    ("picchetto-game", picchetto_v0, {"episode": "game", "game_target": 60}, None, _PIC_PHASES, 2),
    ("picchetto-non-default", picchetto_v0, {**PICCHETTO_NON_DEFAULT, "game_target": 30, "bella_target": 40}, None,
     _PIC_PHASES, 2),
]
WRAPPERS = ["raw_env", "env"]


def _copy(env, how: str):
    return copy.deepcopy(env) if how == "deepcopy" else pickle.loads(pickle.dumps(env, pickle.HIGHEST_PROTOCOL))


def snapshot(env) -> tuple:
    """Everything an agent of ``env`` can see right now (plain, comparable values)."""
    observations = []
    for agent in env.possible_agents:
        obs = env.observe(agent)
        observations.append((obs["observation"].tobytes(), obs["action_mask"].tobytes()))
    last = None
    if env.agents:
        obs, reward, term, trunc, info = env.last()
        last = (obs["observation"].tobytes(), obs["action_mask"].tobytes(), reward, term, trunc, copy.deepcopy(info))
    return (
        list(env.agents),
        env.agent_selection,
        observations,
        last,
        dict(env.rewards),
        dict(env._cumulative_rewards),
        dict(env.terminations),
        dict(env.truncations),
        copy.deepcopy(env.infos),
    )


def _engine(env):
    return env.unwrapped.state_


def _phase_key(env) -> tuple:
    s = _engine(env)
    return (getattr(s, "hand_no", None), getattr(s, "epoch", None), getattr(s, "phase", None))


def reference_run(make, seed: int, options) -> tuple[list, list, list]:
    """Two episodes (seeded reset, then ``reset()``): the moves, a snapshot after each, phase keys."""
    env = make()
    rng = np.random.default_rng(seed)
    moves, snaps, keys = [], [], []
    for episode in range(2):
        move = ("reset", seed if episode == 0 else None, options if episode == 0 else None)
        while True:
            _apply(env, move)
            moves.append(move)
            snaps.append(snapshot(env))
            keys.append(_phase_key(env) + (episode,))
            if not env.agents:
                break
            agent = env.agent_selection
            if env.terminations[agent] or env.truncations[agent]:
                move = ("step", None)
            else:
                move = ("step", int(rng.choice(np.flatnonzero(env.observe(agent)["action_mask"]))))
    return moves, snaps, keys


def _apply(env, move) -> None:
    if move[0] == "reset":
        env.reset(seed=move[1], options=move[2])
    else:
        env.step(move[1])


def checkpoints(moves: list, keys: list) -> list[int]:
    """Indices after which to copy: each new phase/hand of the first episode, some moves in between,
    its end and its dead steps."""
    first_episode = [i for i, k in enumerate(keys) if k[-1] == 0]
    points = {0, first_episode[-1], *first_episode[::25]}  # plus a few mid-hand positions
    seen = set()
    for i in first_episode:
        if keys[i] not in seen:
            seen.add(keys[i])
            points.update({i, i + 1})  # the first state of a phase, and one move into it
    dead = [i for i in first_episode if moves[i + 1][0] == "step" and moves[i + 1][1] is None]
    if dead:
        points.update({dead[0] - 1, dead[0], dead[-1]})  # the last live move, the first and last dead step
    return sorted(p for p in points if p < len(moves) - 1)


@pytest.mark.parametrize("how", first_fast(["deepcopy", "pickle"]))
@pytest.mark.parametrize("wrapper", WRAPPERS)
@pytest.mark.parametrize(("name", "module", "flags", "options", "phases", "min_hands"), CASES, ids=[c[0] for c in CASES])
def test_copy_continues_like_the_original(name, module, flags, options, phases, min_hands, wrapper, how):
    def make():
        return getattr(module, wrapper)(**flags)

    moves, snaps, keys = reference_run(make, seed=3, options=options)
    # the reference run covers what the test claims to cover
    first = [k for k in keys if k[-1] == 0]
    hands_played = len({k[0] if k[0] is not None else k[1] for k in first})
    assert hands_played >= min_hands, f"{name}: only {hands_played} hand(s) in the first episode"
    if phases is not None:
        assert phases <= {k[2] for k in first}, f"{name}: phases visited {sorted({k[2] for k in first})}"
    points = checkpoints(moves, keys)
    assert len(points) >= 6

    env = make()
    for i, move in enumerate(moves):
        _apply(env, move)
        assert snapshot(env) == snaps[i], f"the original diverged at move {i} (disturbed by a copy?)"
        if i not in points:
            continue
        twin = _copy(env, how)
        assert snapshot(twin) == snaps[i], f"copy made after move {i} differs at once"
        for j in range(i + 1, len(moves)):
            _apply(twin, moves[j])
            assert snapshot(twin) == snaps[j], f"copy made after move {i} ({how}) diverged at move {j}"


@pytest.mark.parametrize("how", ["deepcopy", "pickle"])
@pytest.mark.parametrize("wrapper", WRAPPERS)
@pytest.mark.parametrize("module", [briscola5_v0, pigugnin_v0, picchetto_v0], ids=["briscola5", "pigugnin", "picchetto"])
def test_copy_before_reset_and_copies_of_copies(module, wrapper, how):
    """An env copied before its first reset plays like a fresh one; a copy of a copy still works."""
    make = getattr(module, wrapper)
    moves, snaps, _ = reference_run(make, seed=5, options=None)
    twin = _copy(make(), how)
    for i, move in enumerate(moves):
        _apply(twin, move)
        assert snapshot(twin) == snaps[i]
        if i % 17 == 5:
            twin = _copy(twin, how)
            assert snapshot(twin) == snaps[i]


@pytest.mark.parametrize("module", [briscola5_v0, pigugnin_v0, picchetto_v0], ids=["briscola5", "pigugnin", "picchetto"])
def test_observer_views_point_into_the_copys_own_buffer(module):
    """White box: after a copy, whatever the observer writes through goes into the copy's buffer
    only; the layout, a module constant, is shared rather than copied."""
    env = module.raw_env()
    env.reset(seed=0)
    for how in ("deepcopy", "pickle"):
        twin = _copy(env, how)
        obs = twin.observer
        assert not np.shares_memory(obs.buf, env.observer.buf)
        assert obs.layout is env.observer.layout
        for value in vars(obs).values():
            views = value.values() if isinstance(value, dict) else [value]
            for v in views:
                if isinstance(v, (np.ndarray, memoryview)) and v is not obs.buf:
                    arr = np.asarray(v)
                    if arr.dtype == np.float32:
                        assert np.shares_memory(arr, obs.buf), "a view of the observer points outside its buffer"
