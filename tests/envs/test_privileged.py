"""The privileged vector (issue 22): exactly what a seat's observation hides, from the AEC state and the batched engine.

* The kernel equals the pure-Python reference (`envs/<game>/privileged.py`) on random playouts of
  every flag variant: the differential harnesses of `test_<game>_batched.py` compare one seat's
  vector per game after every step (`tests/envs/common.assert_privileged_matches`); here the API.
* It is what the observation hides: twin deals that differ only in cards a seat cannot see (the
  contract tests' `hidden_variant` of `tests/envs/cases.py`, replayed to the same public history)
  leave that seat's observation unchanged, and change its privileged vector exactly when the
  hidden state differs (the other hands; in Picchetto also the opponent's discards and the
  undrawn talon with its order). A change the seat can see changes its observation (the control).
* The vector decodes back to the hidden state (nothing is missing).
"""

from __future__ import annotations

import importlib
import random
import subprocess
import sys

import numpy as np
import pytest

from envs.core.cards import iter_bits
from envs.core.errors import ConfigError, IllegalActionError
from envs.registry import GAMES, game_spec
from tests.envs.cases import CASES

pytest.importorskip("numba")

CONFIGS = [(game, name) for game in GAMES for name in CASES[game].configs]


def reference(game: str):
    return importlib.import_module(f"envs.{game}.privileged").privileged


def hidden_state(game: str, state, seat: int) -> tuple:
    """Everything `seat` cannot see, as plain values (the test's own statement of what is hidden)."""
    n = len(state.hands)
    others = tuple(state.hands[(seat + k) % n] for k in range(1, n))
    if game != "picchetto":
        return others
    start = state.drawn[0].bit_count() + state.drawn[1].bit_count()
    return others, state.discards[1 - seat], tuple(state.talon[start:])


def decode(game: str, vec: np.ndarray, n: int, num_cards: int) -> tuple:
    """`hidden_state` read back from a privileged vector."""
    planes = vec.reshape(-1, num_cards)
    hands = tuple(sum(1 << int(c) for c in np.flatnonzero(planes[k])) for k in range(n - 1))
    if game != "picchetto":
        return hands
    discards = sum(1 << int(c) for c in np.flatnonzero(planes[1]))
    talon = [int(c) for c in np.flatnonzero(planes[2])]
    order = sorted(talon, key=lambda c: planes[3][c])
    return hands, discards, tuple(order)


def random_history(env, case, episode: int, rnd: random.Random) -> list[tuple[int, int]]:
    """Random play from `reset(seed=episode)`, within hand 1 (twin deals cannot replay a later deal)."""
    env.reset(seed=episode)
    stop = rnd.randrange(1, case.no_leak_steps)
    history: list[tuple[int, int]] = []
    while len(history) < stop and not env.episode_over:
        actor = env.agent_name_mapping[env.agent_selection]
        action = case.choose(rnd, env.legal_actions(), env)
        env.step(action)
        if env.episode_over or env.state_.hand_no != 1:
            env.reset(seed=episode)  # stop before the hand ends: replay all but the last action
            for _, a in history:
                env.step(a)
            break
        history.append((actor, action))
    return history


@pytest.mark.parametrize("game,config", CONFIGS)
def test_privileged_is_exactly_what_the_observation_hides(game, config):
    case = CASES[game]
    flags = case.configs[config]
    spec = game_spec(game)
    ref = reference(game)
    rnd = random.Random(7)
    env = spec.raw_env(**flags)
    venv = spec.vector_env(2, **flags)
    n = len(env.possible_agents)
    d = env.game.deck.size
    twins = changed = control = 0
    for episode in range(40):
        history = random_history(env, case, episode, rnd)
        for seat in range(n):
            mine = ref(env.game, env.state_, seat)
            assert mine.dtype == np.float32 and mine.shape == (venv.privileged_size,)
            assert decode(game, mine, n, d) == hidden_state(game, env.state_, seat)
            variant = case.hidden_variant(env, seat, history, rnd)
            if variant is None:
                continue
            options, replay = variant
            twin = spec.raw_env(**flags)
            twin.reset(seed=episode, options=options)
            try:
                for a in replay:
                    twin.step(a)
            except IllegalActionError:
                continue
            if case.public(twin) != case.public(env):
                continue
            twins += 1
            agent = env.possible_agents[seat]
            assert twin.observe(agent)["observation"].tobytes() == env.observe(agent)["observation"].tobytes()
            theirs = ref(twin.game, twin.state_, seat)
            same_hidden = hidden_state(game, twin.state_, seat) == hidden_state(game, env.state_, seat)
            assert (theirs.tobytes() == mine.tobytes()) == same_hidden, (game, config, episode, seat)
            changed += not same_hidden
            # the batched engine on the same two states: the same observation, the reference's vectors
            venv.reset(seed=0)
            venv.load(0, env.state_)
            venv.load(1, twin.state_)
            assert venv.observe(seat)[0].tobytes() == venv.observe(seat)[1].tobytes()
            got = venv.privileged(seat)
            assert got[0].tobytes() == mine.tobytes() and got[1].tobytes() == theirs.tobytes()
            # the control: another seat's observation saw the change whenever its own cards moved
            control += any(twin.observe(a)["observation"].tobytes() != env.observe(a)["observation"].tobytes()
                           for a in env.possible_agents if a != agent)
    # (a twin may only permute cards within one hidden place: then nothing hidden changed, nor may the vector)
    assert twins >= 20 and changed >= max(10, 0.3 * twins) and control >= 10, (twins, changed, control)


@pytest.mark.parametrize("game", list(GAMES))
def test_the_privileged_vector_follows_every_hidden_card(game):
    """Moving one hidden card to another hidden place changes the vector in those two places only, and changes no
    observation of the seat; moving one of its own cards to another seat changes its observation (the control)."""
    spec = game_spec(game)
    env = spec.raw_env()
    env.reset(seed=3)
    ref = reference(game)
    seat = env.agent_name_mapping[env.agent_selection]
    s = env.state_
    n = len(env.possible_agents)
    other, third = (seat + 1) % n, (seat + 2) % n
    a = next(iter_bits(s.hands[other]))
    if game == "picchetto":  # the opponent's card and an undrawn talon card change places
        b = s.talon[-1]
        twin = s.copy()
        twin.hands = list(s.hands)
        twin.dealt = list(s.dealt)
        twin.hands[other] ^= (1 << a) | (1 << b)
        twin.dealt[other] ^= (1 << a) | (1 << b)
        twin.talon = [a if c == b else c for c in s.talon]
    else:  # two other seats swap one card each
        b = next(iter_bits(s.hands[third]))
        twin = s.copy()
        twin.hands = list(s.hands)
        twin.hands[other] ^= (1 << a) | (1 << b)
        twin.hands[third] ^= (1 << a) | (1 << b)
    observer = type(env.observer)(env.game)
    observer.reset(s)
    before = observer.observe(seat).copy()
    observer.reset(twin)
    assert observer.observe(seat).tobytes() == before.tobytes()
    diff = np.flatnonzero(ref(env.game, twin, seat) != ref(env.game, s, seat))
    assert len(diff) >= 2 and set(diff % env.game.deck.size) == {a, b}
    # the control: a card of the seat's own hand moving is seen
    mine = next(iter_bits(s.hands[seat]))
    seen = s.copy()
    seen.hands = list(s.hands)
    seen.hands[seat] ^= (1 << mine) | (1 << a)
    seen.hands[other] ^= (1 << mine) | (1 << a)
    observer.reset(seen)
    assert observer.observe(seat).tobytes() != before.tobytes()


@pytest.mark.parametrize("game,flags", [("briscola5", {}), ("pigugnin", {}), ("pigugnin", {"num_players": 5}),
                                        ("picchetto", {})])
def test_privileged_api(game, flags):
    venv = game_spec(game).vector_env(6, **flags)
    venv.reset(seed=1)
    n, d = venv.num_players, venv.game.deck.size
    assert venv.privileged_size >= (n - 1) * d
    a = venv.privileged(1)
    assert a.shape == (6, venv.privileged_size) and a.dtype == np.float32
    assert np.array_equal(a, venv.privileged([1] * 6)) and np.array_equal(a, venv.privileged(np.full(6, 1, np.int8)))
    out = np.full((6, venv.privileged_size), 7.0, dtype=np.float32)
    assert venv.privileged(venv.current_player, out=out) is out and np.isin(out, (0.0, 1.0)).all() == (game != "picchetto")
    # every card is in exactly one place: the seat's own hand (its observation) or one of the hand planes
    for i in range(6):
        planes = a[i, : (n - 1) * d].reshape(n - 1, d)
        assert planes.sum(axis=0).max() == 1.0
    for bad in (n, -1, [0] * 5, 1.5, True, "0"):
        with pytest.raises(ConfigError, match="seats must be"):
            venv.privileged(bad)
    for bad_out in (np.zeros((6, venv.privileged_size), np.float64), np.zeros((5, venv.privileged_size), np.float32),
                    np.zeros((venv.privileged_size, 6), np.float32).T, [[0.0]]):
        with pytest.raises(ConfigError, match=r"privileged\(out=...\)"):
            venv.privileged(0, out=bad_out)


def test_the_references_import_without_numba():
    code = ("import sys; sys.modules['numba'] = None\n"
            "from envs.briscola5.privileged import privileged\nfrom envs.pigugnin.privileged import privileged\n"
            "from envs.picchetto.privileged import privileged\nprint('ok')")
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True)
    assert out.stdout.strip() == "ok"
