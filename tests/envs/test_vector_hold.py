"""The batched engines' support for stepping some games while others wait (issue 23).

* `autoreset=False` holds a finished game at its end: `finished[i]`, an all-zero mask, and every seat's
  observation (and privileged vector) is the AEC env's at the end of the episode, `episode_result(i)` its
  result without the per-hand records; stepping it raises until
  `deal([i])`, which deals the very cards `autoreset=True` deals at once (same streams, same arrays).
* `step(actions, active)` steps only the active games: a game stepped now and then goes through exactly the
  states of the same game stepped every time.
"""

from __future__ import annotations

import importlib

import numpy as np
import pytest

from envs.core.errors import ConfigError, IllegalActionError
from envs.registry import game_spec

pytest.importorskip("numba")

CONFIGS = [
    ("briscola5", {}),
    ("briscola5", {"num_hands": 3, "all_pass_policy": "force_dealer"}),
    ("pigugnin", {"loss_threshold": 4, "sole_loss_threshold": 6}),  # games of a few hands
    ("pigugnin", {"episode": "hand", "num_players": 5}),
    ("picchetto", {"game_target": 20, "bella_target": 25}),  # matches of a few hands
    ("picchetto", {"episode": "hand", "allow_peek": True, "reveal_leftover_talon": True}),
    ("picchetto", {"episode": "game", "game_target": 30, "game_end_check": "end_of_hand"}),
]
IDS = [f"{g}-{'-'.join(map(str, f.values())) or 'defaults'}" for g, f in CONFIGS]


def pick(mask: np.ndarray, counter: np.ndarray) -> np.ndarray:
    """A legal action per row, a fixed function of the row's mask and its game's step count."""
    out = np.zeros(len(mask), dtype=np.int64)
    for i, row in enumerate(mask):
        legal = np.flatnonzero(row)
        if len(legal):
            out[i] = legal[(int(counter[i]) * 7919 + i * 104729) % len(legal)]
    return out


def snapshot(v) -> dict:
    out = {k: a.copy() for k, a in v.state.items()}
    for k in ("buf", "obs", "mask", "rng", "current_player"):
        out["_" + k] = getattr(v, k).copy()
    return out


def assert_same(a: dict, b: dict) -> None:
    assert a.keys() == b.keys()
    for k in a:
        assert np.array_equal(a[k], b[k]), k


@pytest.mark.parametrize("game,flags", CONFIGS, ids=IDS)
def test_hold_then_deal_is_autoreset(game, flags):
    spec = game_spec(game)
    auto = spec.vector_env(24, **flags)
    held = spec.vector_env(24, autoreset=False, **flags)
    auto.reset(seed=5)
    held.reset(seed=5)
    counter = np.zeros(24, dtype=np.int64)
    ended = 0
    for _ in range(400):
        acts = pick(auto.mask, counter)
        ra = auto.step(acts)
        rh = held.step(acts)
        for x, y in zip(ra[2:5], rh[2:5], strict=True):  # rewards, terminated, truncated
            assert np.array_equal(x, y)
        done = rh[3] | rh[4]
        assert np.array_equal(held.finished, done)
        assert not held.mask[done].any()
        ended += int(done.sum())
        held.deal(np.flatnonzero(done))
        assert not held.finished.any()
        assert_same(snapshot(auto), snapshot(held))
        counter += 1
    assert ended >= 24


@pytest.mark.parametrize("game,flags", CONFIGS, ids=IDS)
def test_a_held_game_shows_the_aec_envs_final_observation(game, flags):
    spec = game_spec(game)
    ref = importlib.import_module(f"envs.{game}.privileged").privileged
    B = 16
    v = spec.vector_env(B, autoreset=False, **flags)
    v.reset(seed=0)
    aecs = [spec.raw_env(**flags) for _ in range(B)]
    rnd = np.random.default_rng(1)
    episodes = [0] * B

    def restart(i: int) -> None:
        aecs[i].reset(seed=1000 * i + episodes[i])
        v.load(i, aecs[i].state_)

    for i in range(B):
        restart(i)
    n = v.num_players
    finals = 0
    for _ in range(500):
        acts = np.zeros(B, dtype=np.int64)
        for i, aec in enumerate(aecs):
            acts[i] = rnd.choice(np.flatnonzero(aec.observe(aec.agent_selection)["action_mask"]))
        hands = [aec.state_.hand_no for aec in aecs]
        _, mask, rewards, term, trunc, _ = v.step(acts, active=~v.finished)
        for i, aec in enumerate(aecs):
            aec.step(int(acts[i]))
            if not aec.episode_over:
                assert not (term[i] or trunc[i] or v.finished[i])
                if aec.state_.hand_no != hands[i]:  # the next hand: dealt from another stream, so copied over
                    v.load(i, aec.state_)
                continue
            # the final step: its rewards, the flags, every seat's final view and hidden state
            assert np.array_equal(rewards[i], np.array([aec.rewards[a] for a in aec.possible_agents], np.float32))
            assert bool(term[i]) == any(aec.terminations.values()) and bool(trunc[i]) == any(aec.truncations.values())
            assert v.finished[i] and not mask[i].any()
            want = aec.infos[aec.possible_agents[0]]["result"]
            got = v.episode_result(i)
            assert set(got) == set(want) - {"hands", "games"}, (set(got), set(want))
            assert got == {k: want[k] for k in got}, (got, want)
            for seat in range(n):
                want = aec.observe(aec.possible_agents[seat])["observation"]
                assert v.observe(seat)[i].tobytes() == want.tobytes(), (game, i, seat)
                assert v.privileged(seat)[i].tobytes() == ref(aec.game, aec.state_, seat).tobytes()
            finals += 1
        over = np.flatnonzero(v.finished)
        if len(over):
            before = snapshot(v)
            with pytest.raises(IllegalActionError, match=rf"game {over[0]} is over \(autoreset=False holds it\): "
                                                         rf"deal\(\[{over[0]}\]\)"):
                v.step(pick(v.mask, np.zeros(B, np.int64)))
            assert_same(before, snapshot(v))  # a rejected step changes nothing
            for i in over:
                episodes[i] += 1
                restart(int(i))
            assert not v.finished.any()
    assert finals >= 20, finals


@pytest.mark.parametrize("game,flags", CONFIGS[::2], ids=IDS[::2])
def test_inactive_games_wait(game, flags):
    spec = game_spec(game)
    every = spec.vector_env(16, **flags)
    some = spec.vector_env(16, **flags)
    every.reset(seed=3)
    some.reset(seed=3)
    T = 150
    history = []  # (obs, mask, rewards) of every game after each of its steps
    counter = np.zeros(16, dtype=np.int64)
    for _ in range(T):
        _, _, rewards, _, _, _ = every.step(pick(every.mask, counter))
        history.append((every.obs.copy(), every.mask.copy(), rewards.copy(), every.current_player.copy()))
        counter += 1
    rnd = np.random.default_rng(4)
    mine = np.zeros(16, dtype=np.int64)
    while (mine < T).any():
        on = (rnd.random(16) < 0.4) & (mine < T)
        acts = np.where(on, pick(some.mask, mine), 999)  # inactive games' actions are never read
        _, _, rewards, term, trunc, _ = some.step(acts, active=on)
        assert not rewards[~on].any() and not term[~on].any() and not trunc[~on].any()
        mine += on
        for i in np.flatnonzero(on):
            obs, mask, rew, cur = history[mine[i] - 1]
            assert some.obs[i].tobytes() == obs[i].tobytes() and np.array_equal(some.mask[i], mask[i])
            assert np.array_equal(rewards[i], rew[i]) and some.current_player[i] == cur[i]


def test_bad_active_and_deal_arguments():
    v = game_spec("pigugnin").vector_env(4, autoreset=False)
    with pytest.raises(RuntimeError, match="before reset"):
        v.deal([0])
    v.reset(seed=0)
    acts = np.argmax(v.mask, axis=1)
    for bad in ([1, 0, 1, 1], np.ones(3, bool), np.ones(4, np.int8)):
        with pytest.raises(ConfigError, match="active must be None or a bool array of shape"):
            v.step(acts, active=bad)
    for bad in ([4], [-1], [1, 1], [[0]], [0.5], np.array([True, False])):
        with pytest.raises(ConfigError, match="deal"):
            v.deal(bad)
    with pytest.raises(ConfigError, match=r"episode_result\(0\) needs a finished game"):
        v.episode_result(0)
    with pytest.raises(ConfigError, match="autoreset must be True"):
        game_spec("pigugnin").vector_env(4, autoreset="no")
    # an illegal action of an inactive game is not read; of an active one it raises and changes nothing
    acts[1] = 99
    on = np.array([True, False, True, True])
    v.step(acts, active=on)
    acts = np.argmax(v.mask, axis=1)
    acts[1] = 99
    before = snapshot(v)
    with pytest.raises(IllegalActionError, match="game 1: action 99"):
        v.step(acts, active=np.ones(4, bool))
    assert_same(before, snapshot(v))
