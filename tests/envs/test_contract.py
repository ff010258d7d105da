"""Contract tests shared by every game (parametrized over the registry, not copied per game).

Every test runs for each game of ``envs.registry.GAMES``, most of them for each flag set
("config") of that game's row in ``tests/envs/cases.py``: the defaults, a non-default set and
the game's extra sets (Pigugnìn with 5 players, hand episodes). What a test needs to know
about a game (bad flags and options with their messages, how to hide or leak a card) is in
that table, never here.

* PettingZoo's ``api_test`` and ``seed_test``;
* determinism: the same seed and actions give the same trajectory, other seeds another one,
  and ``reset()`` without a seed continues the seeded stream;
* no leak: changing what a seat cannot see never changes its observation or mask, and the
  check fails when a leak is planted;
* bad input: bad flags, render modes, malformed deals and illegal actions raise clear errors
  (game, key, allowed values) and leave a running episode exactly as it was; unknown reset
  option keys warn and are ignored;
* rendering every seat's view.

Rules-specific tests (a game's flags' effects, its render content, its result records) stay in
``test_<game>_env.py`` and ``test_<game>_rules.py``.
"""

from __future__ import annotations

import random
import re
import warnings

import numpy as np
import pytest
from pettingzoo.test import api_test, seed_test

from envs.core.errors import ConfigError, DealError, IllegalActionError
from envs.registry import GAMES, make_env, make_raw_env
from tests.envs.cases import CASES
from tests.envs.common import trajectory

# Games without a row in the table are reported by test_every_registry_game_has_a_case.
GAMES_WITH_CASES = [game for game in GAMES if game in CASES]
CONFIGS = [pytest.param(game, name, id=f"{game}-{name}") for game in GAMES_WITH_CASES for name in CASES[game].configs]
MAIN_CONFIGS = [
    pytest.param(game, name, id=f"{game}-{name}") for game in GAMES_WITH_CASES for name in ("defaults", "non-default")
]


def flags_of(game: str, config: str) -> dict:
    return CASES[game].configs[config]


def test_every_registry_game_has_a_case():
    assert set(CASES) == set(GAMES), "add a GameCase row to tests/envs/cases.py for every registry game"
    for game, case in CASES.items():
        assert list(case.configs)[:2] == ["defaults", "non-default"] and case.configs["defaults"] == {}, game
        # the non-default set really moves every flag it names away from its default
        defaults = {f.name: f.default for f in make_raw_env(game).game.FLAGS}
        changed = case.configs["non-default"]
        assert changed and all(changed[k] != defaults[k] for k in changed), (game, changed)


# -- PettingZoo's own tests -------------------------------------------------------------------------


@pytest.mark.parametrize("game,config", CONFIGS)
def test_pettingzoo_api(game, config):
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        api_test(make_env(game, **flags_of(game, config)), num_cycles=CASES[game].api_cycles)


@pytest.mark.parametrize("game,config", CONFIGS)
def test_pettingzoo_seed(game, config):
    flags = flags_of(game, config)
    seed_test(lambda: make_env(game, **flags), num_cycles=CASES[game].api_cycles)


# -- determinism ------------------------------------------------------------------------------------


@pytest.mark.parametrize("game,config", CONFIGS)
def test_same_seed_same_trajectory_and_different_seeds_differ(game, config):
    flags = flags_of(game, config)

    def make(**kw):
        return make_env(game, **kw)

    first = trajectory(make, 42, **flags)
    assert {agent for agent, _, _ in first} == set(make_raw_env(game, **flags).possible_agents)  # everyone played
    assert trajectory(make, 42, **flags) == first
    assert trajectory(make, 43, **flags) != first


def _deal_signature(env) -> tuple:
    """Every seat's observation right after a reset: each seat sees its own dealt cards."""
    return tuple(env.observe(a)["observation"].tobytes() for a in env.possible_agents)


@pytest.mark.parametrize("game,config", CONFIGS)
def test_reset_without_seed_continues_the_stream(game, config):
    flags = flags_of(game, config)
    env, other = make_raw_env(game, **flags), make_raw_env(game, **flags)
    env.reset(seed=9)
    first = _deal_signature(env)
    env.reset()
    second = _deal_signature(env)
    assert second != first  # a new deal ...
    other.reset(seed=9)
    assert _deal_signature(other) == first
    other.reset()
    assert _deal_signature(other) == second  # ... drawn from the same seeded stream
    env.reset(seed=9)
    assert _deal_signature(env) == first  # reseeding replays it


# -- no leak ----------------------------------------------------------------------------------------


def _views(env) -> list[tuple[bytes, bytes]]:
    return [
        (obs["observation"].tobytes(), obs["action_mask"].tobytes())
        for obs in (env.observe(a) for a in env.possible_agents)
    ]


def _history(env, case, episode: int, rnd: random.Random):
    """Random play from ``reset(seed=episode)`` for a random number of actions, within hand 1.

    Returns the ``(actor, action)`` history and every seat's view before each action and after
    the last one.
    """
    env.reset(seed=episode)
    hand_no = env.state_.hand_no
    stop = rnd.randrange(1, case.no_leak_steps)
    history: list[tuple[int, int]] = []
    seen = [_views(env)]
    while len(history) < stop and not env.episode_over:
        actor = env.agent_name_mapping[env.agent_selection]
        action = case.choose(rnd, env.legal_actions(), env)
        env.step(action)
        if env.state_.hand_no != hand_no:
            # The next hand is dealt from the generator, which a twin reset with explicit hands
            # does not share: stop just before, by replaying the history without the last action.
            env.reset(seed=episode)
            for _, a in history:
                env.step(a)
            break
        history.append((actor, action))
        seen.append(_views(env))
    return history, seen


def check_no_leak(game: str, flags: dict, plant=None, episodes: int | None = None, seed: int = 0) -> dict:
    """For random states of hand 1 and every seat: a twin deal that differs only in cards the seat
    has not seen, with the same public history, gives the seat the same observation and mask
    after every action. Raises ``AssertionError("leak ...")`` on a difference.

    ``plant(env)`` patches every env made (to plant a leak). Returns counts: ``checked``
    (observations compared), ``variants`` (twins replayed) and ``changed`` (twins in which
    another seat's observation did change, so the variant moved something).
    """
    case = CASES[game]
    rnd = random.Random(seed)

    def make():
        env = make_raw_env(game, **flags)
        if plant is not None:
            plant(env)
        return env

    checked = variants = changed = 0
    env = make()
    for episode in range(case.no_leak_episodes if episodes is None else episodes):
        history, seen = _history(env, case, episode, rnd)
        for seat in range(len(env.possible_agents)):
            variant = case.hidden_variant(env, seat, history, rnd)
            if variant is None:
                continue
            options, replay = variant
            twin = make()
            twin.reset(seed=episode, options=options)
            twin_seen = [_views(twin)]
            try:
                for action in replay:
                    twin.step(action)
                    twin_seen.append(_views(twin))
            except IllegalActionError:
                continue  # the other cards make a past action illegal: not consistent with the history
            if case.public(twin) != case.public(env):
                continue  # a fact the rules make public (a Bianco, a declaration) came out differently
            variants += 1
            for step, (ours, theirs) in enumerate(zip(seen, twin_seen, strict=True)):
                assert ours[seat] == theirs[seat], (
                    f"leak: {game} {flags} seat {seat} sees the hidden cards change (episode {episode}, "
                    f"after {step} actions, twin deal {options})"
                )
                checked += 1
            changed += any(seen[-1][p][0] != twin_seen[-1][p][0] for p in range(len(seen[-1])) if p != seat)
    return {"checked": checked, "variants": variants, "changed": changed}


@pytest.mark.parametrize("game,config", CONFIGS)
def test_no_leak_hidden_cards_never_change_a_seats_observation(game, config):
    counts = check_no_leak(game, flags_of(game, config))
    case = CASES[game]
    assert counts["variants"] >= case.min_variants and counts["checked"] >= case.min_checked, counts
    # the control: most twins really moved hidden cards (another seat's own view changed)
    assert counts["changed"] >= max(case.min_changed, 0.5 * counts["variants"]), counts


@pytest.mark.parametrize("game", GAMES_WITH_CASES)
def test_no_leak_check_fails_on_a_planted_leak(game):
    with pytest.raises(AssertionError, match=f"leak: {game}"):
        check_no_leak(game, {}, plant=CASES[game].plant_leak)


# -- bad input --------------------------------------------------------------------------------------


BAD_FLAGS = [
    pytest.param(game, flags, text, id=f"{game}-{'-'.join(flags)}-{i}")
    for game in GAMES_WITH_CASES
    for i, (flags, text) in enumerate(CASES[game].bad_flags)
]


@pytest.mark.parametrize("game,flags,text", BAD_FLAGS)
def test_bad_flags_raise_naming_the_game_the_key_and_the_allowed_values(game, flags, text):
    for factory in (make_env, make_raw_env):
        with pytest.raises(ConfigError, match=rf"^{game}\w*: .*{re.escape(text)}") as err:
            factory(game, **flags)
        message = str(err.value)
        assert text in message
        assert message.startswith(game) and any(f"'{key}'" in message or f"{key}=" in message for key in flags)
        assert "allowed" in message or "known flags" in message


@pytest.mark.parametrize("game", GAMES_WITH_CASES)
@pytest.mark.parametrize("mode", ["rgb", "ANSI", 1])
def test_bad_render_mode_raises_naming_the_allowed_modes(game, mode):
    with pytest.raises(ConfigError, match=rf"^{game}\w*: invalid render_mode {mode!r}; allowed: None, 'ansi', 'human', 'rgb_array'$"):
        make_env(game, render_mode=mode)


def snapshot(env) -> tuple:
    """Everything an episode consists of: the engine state, the generator, the per-agent dicts and
    every seat's observation and mask."""
    raw = env.unwrapped
    s = raw.state_
    slots = [name for cls in type(s).__mro__ for name in getattr(cls, "__slots__", ()) if name != "rng"]
    state = [(name, repr(getattr(s, name))) for name in slots]
    return (
        raw.agent_selection,
        state,
        repr(s.rng.bit_generator.state),
        repr(raw._rng.bit_generator.state),
        repr((raw.agents, raw.rewards, raw._cumulative_rewards, raw.terminations, raw.truncations, raw.infos)),
        _views(raw),
    )


def _play_to_the_end(env) -> int:
    steps = 0
    for _agent in env.agent_iter():
        obs, _, term, trunc, _ = env.last()
        env.step(None if term or trunc else int(np.flatnonzero(obs["action_mask"])[0]))
        steps += 1
    return steps


MALFORMED = [
    pytest.param(game, options, text, id=f"{game}-{i}")
    for game in GAMES_WITH_CASES
    for i, (options, text) in enumerate(
        CASES[game].malformed_options + [("dealer=1", "options must be a dict"), ([1, 2], "options must be a dict")]
    )
]


@pytest.mark.parametrize("game,options,text", MALFORMED)
def test_malformed_deals_raise_and_keep_the_episode(game, options, text):
    env = make_env(game)
    env.reset(seed=3)
    env.step(int(np.flatnonzero(env.observe(env.agent_selection)["action_mask"])[0]))
    before = snapshot(env)
    state = env.unwrapped.state_
    for seed in (None, 4):
        with pytest.raises(DealError, match=rf"^{game}\w*: .*{re.escape(text)}") as err:
            env.reset(seed=seed, options=options)
        assert text in str(err.value) and str(err.value).startswith(game)
        assert env.unwrapped.state_ is state and snapshot(env) == before
    assert _play_to_the_end(env) > 0  # the old episode plays on to its end


GENERIC_BAD_ACTIONS = [-1, 10**6, 2.0, "1", None, True, [1], np.float32(1)]


@pytest.mark.parametrize("game,config", MAIN_CONFIGS)
def test_every_illegal_action_raises_and_changes_nothing(game, config):
    """In random states of every phase: each illegal id, out-of-range or malformed action raises
    ``IllegalActionError`` naming it and the legal ids, and leaves the episode untouched."""
    env = make_env(game, **flags_of(game, config))
    raw = env.unwrapped
    n = raw.action_space(raw.possible_agents[0]).n
    rnd = random.Random(1)
    env.reset(seed=5)
    tried = 0
    for step in range(10_000):
        if raw.episode_over:
            break
        legal = raw.legal_actions()
        if step % 7 == 0:
            before = snapshot(env)
            legal_text = "legal actions: " + ", ".join(f"{a} ({raw.game.action_name(a)})" for a in legal)
            bad = [a for a in range(n) if a not in legal] + [n] + GENERIC_BAD_ACTIONS
            for action in bad:
                with pytest.raises(IllegalActionError, match=rf"^{game}\w*: action .* for {env.agent_selection}; ") as err:
                    env.step(action)
                message = str(err.value)
                assert message.startswith(game) and message.endswith(legal_text)
                if isinstance(action, int) and not isinstance(action, bool) and 0 <= action < n:
                    assert f"action {action} ({raw.game.action_name(action)}) is not legal now" in message
                else:
                    assert f"action {action!r} is not an action id (0..{n - 1})" in message
                tried += 1
            assert snapshot(env) == before
        env.step(rnd.choice(legal))
    assert tried > 100


@pytest.mark.parametrize("game", GAMES_WITH_CASES)
def test_scripted_illegal_actions_name_the_legal_ones_and_the_episode_goes_on(game):
    ex = CASES[game].illegal
    env = make_env(game, **ex.flags)
    env.reset(seed=ex.seed, options=ex.options)
    for action in ex.prefix:
        env.step(action)
    agent = env.agent_selection
    before = snapshot(env)
    n = env.unwrapped.action_space(agent).n
    for bad in (n, -1, 999, 2.0, str(ex.legal_action), None, True, [1]):
        with pytest.raises(IllegalActionError, match=f"is not an action id .*for {agent}; legal actions: ") as err:
            env.step(bad)
        assert ex.legal_text in str(err.value)
        assert snapshot(env) == before
    env.step(ex.legal_action)
    assert env.agent_selection == ex.next_agent


@pytest.mark.parametrize("game", GAMES_WITH_CASES)
def test_unknown_reset_option_warns_naming_the_known_keys_and_is_ignored(game):
    env = make_env(game)
    known = env.unwrapped.game.OPTION_KEYS
    for key in ("options", "dealr"):  # api_test's own probe, and a typo
        with pytest.warns(UserWarning, match="ignoring unknown reset option") as caught:
            env.reset(seed=0, options={key: 1})
        message = str(caught[0].message)
        assert f"'{key}'" in message
        assert all(k in message for k in known) and "dealer" in message
        assert env.agents == env.possible_agents
        ignored = _views(env.unwrapped)
        env.reset(seed=0)
        assert _views(env.unwrapped) == ignored  # the same episode as without the key


# -- rendering --------------------------------------------------------------------------------------


def _midgame(game: str, flags: dict, steps: int = 7):
    env = make_env(game, render_mode="ansi", **flags)
    env.reset(seed=3)
    rng = np.random.default_rng(0)
    for _ in range(steps):
        env.step(int(rng.choice(np.flatnonzero(env.observe(env.agent_selection)["action_mask"]))))
    return env


@pytest.mark.parametrize("game,config", CONFIGS)
def test_render_seat_all_shows_every_seats_view(game, config):
    env = _midgame(game, flags_of(game, config))
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


@pytest.mark.parametrize("game,config", MAIN_CONFIGS)
@pytest.mark.parametrize("bad", [-1, 9, "everyone", True, 1.5])
def test_render_seat_rejects_what_is_not_a_seat(game, config, bad):
    env = _midgame(game, flags_of(game, config), steps=0)
    env.unwrapped.render_seat = bad
    with pytest.raises(ConfigError, match="render_seat.*allowed"):
        env.render()
