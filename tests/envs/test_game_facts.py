"""What code outside a game asks of it (issue 19, "Games as data"): the engine's hooks and the GameSpec's
fields say what is true of the game.

Random playouts of every game check each declared fact against the rules as played: the utility
(zero-sum rewards), the one-hand flags, the trick play, the sides, the pruned candidates, the moves
hidden from the other seats (the observation and the record both hide them), the copies of a state;
and that every dotted name of a GameSpec resolves.
"""

from __future__ import annotations

import importlib
import random
import subprocess
import sys
from pathlib import Path

import numpy as np
import pytest

from envs import records
from envs.core.game import CardGame
from envs.registry import GAMES, UTILITIES, game_spec, make_raw_env, variants

ROOT = Path(__file__).resolve().parents[2]
#: every benchmark configuration of every game (a new game is picked up), one hand per episode (short)
CONFIGS = [(game, {**game_spec(game).single_hand, **flags}) for game, flags in variants().values()]
IDS = list(variants())


def _states(game: str, flags: dict, seeds=range(4)):
    """(env, state before the move, actor, action, rewards of the step) along random episodes."""
    env = make_raw_env(game, **flags)
    for seed in seeds:
        rnd = random.Random(seed)
        env.reset(seed=seed)
        while not env.episode_over:
            actor = env.agent_name_mapping[env.agent_selection]
            action = rnd.choice(env.legal_actions())
            before = env.state_.copy()
            env.step(action)
            yield env, before, actor, action, [env.rewards[a] for a in env.possible_agents]


# -- GameSpec -----------------------------------------------------------------------------------------


@pytest.mark.parametrize("game", list(GAMES))
def test_every_dotted_name_resolves(game):
    spec = game_spec(game)
    assert spec.utility in UTILITIES
    for field in ("heuristic", "heuristic_v1", "plain", "figures"):
        cls = spec.player_class(field)
        assert isinstance(cls, type), field
    assert spec.figures.startswith(f"envs.{game}.figures:")  # the scorers live with the game
    assert spec.plain_alias is None or spec.plain_alias.isidentifier()
    search = spec.search
    assert search.pimc_worlds >= 1 and search.ismcts_iterations >= 1 and 0 <= search.pimc_endgame <= 12
    if search.endgame_solver:
        module = importlib.import_module(search.endgame_solver)
        assert all(callable(getattr(module, f)) for f in ("warm_up", "supported", "candidate_values"))
    if search.opponent_model:
        module, _, name = search.opponent_model.partition(":")
        model = getattr(importlib.import_module(module), name)(3.5)
        assert all(callable(getattr(model, f)) for f in ("reset", "informed", "log_weight"))


@pytest.mark.parametrize("game", list(GAMES))
def test_batched_players_resolve(game):
    pytest.importorskip("numba")
    spec = game_spec(game)
    for field in ("batched_heuristic", "batched_heuristic_v1"):
        player = spec.player_class(field)(game, seed=0, flags={})
        assert callable(player.act), field


def test_variants_are_valid_flag_sets_and_every_game_has_one():
    table = variants()
    assert {game for game, _ in table.values()} == set(GAMES)
    for label, (game, flags) in table.items():
        game_spec(game).resolve_flags(flags)  # raises on a bad flag
        assert label == game or flags, label  # only the defaults carry the game's own name
    assert table["pigugnin5"] == ("pigugnin", {"num_players": 5})


@pytest.mark.parametrize("game", list(GAMES))
def test_single_hand_flags_make_one_hand_episodes(game):
    spec = game_spec(game)
    env = make_raw_env(game, **spec.single_hand)
    rnd = random.Random(0)
    for seed in range(3):
        env.reset(seed=seed)
        while not env.episode_over:
            env.step(rnd.choice(env.legal_actions()))
        assert len(env.infos[env.possible_agents[0]]["result"]["hands"]) == 1


@pytest.mark.parametrize(("game", "flags"), CONFIGS, ids=IDS)
def test_the_declared_utility_holds(game, flags):
    sums = [sum(r) for *_, r in _states(game, flags)]
    if game_spec(game).zero_sum:
        assert all(abs(s) < 1e-9 for s in sums)
    else:
        assert any(abs(s) > 1e-9 for s in sums)  # general-sum: the declaration is not merely cautious


# -- engine hooks ---------------------------------------------------------------------------------------


@pytest.mark.parametrize(("game", "flags"), CONFIGS, ids=IDS)
def test_trick_play_sides_and_candidates(game, flags):
    phase_names = importlib.import_module(f"envs.{game}.game").PHASE_NAMES
    pruned = False
    for env, state, _, _, _ in _states(game, flags):
        rules = env.game
        n = rules.num_players
        assert rules.in_trick_play(state) == phase_names[state.phase].startswith("TRICK")
        legal = rules.legal_actions(state)
        row = np.zeros((1, rules.num_actions), np.int8)
        row[0, legal] = 1  # the batched counterpart, read from the legal mask alone (the playouts' policy split)
        assert rules.trick_play_rows(row).tolist() == [rules.in_trick_play(state)], (phase_names[state.phase], legal)
        cands = rules.search_candidates(state, legal)
        assert cands and cands == sorted(set(cands)) and set(cands) <= set(legal)
        pruned |= cands != legal
        for a in range(n):
            assert rules.same_side(state, a, a)
            for b in range(n):
                assert rules.same_side(state, a, b) == rules.same_side(state, b, a)
        if game == "briscola5" and rules.in_trick_play(state):
            team = {state.caller, state.partner}
            assert all(rules.same_side(state, a, b) == ((a in team) == (b in team)) for a in range(n) for b in range(n))
    overrides = type(env.game).search_candidates is not CardGame.search_candidates
    assert pruned == overrides == (game == "briscola5")  # of the three games only Briscola prunes (auction, call)


@pytest.mark.parametrize(("game", "flags"), CONFIGS, ids=IDS)
def test_a_hidden_move_is_hidden_from_the_others_observations_and_records(game, flags):
    """A move is hidden (``hidden_move_name``) exactly when another seat's observation does not tell which
    of the actor's hidden moves it was, and the redacted record shows its hidden name without the id."""
    rules = make_raw_env(game, **flags).game
    hidden = [a for a in range(rules.num_actions) if rules.hidden_move_name(a) is not None]
    assert bool(hidden) == (type(rules).hidden_move_name is not CardGame.hidden_move_name)
    if game == "picchetto":  # its discards, of the three games
        assert hidden == list(range(32, 64)) and {rules.hidden_move_name(a) for a in hidden} == {"discard"}
    elif game in ("briscola5", "pigugnin"):
        assert hidden == []
    env = make_raw_env(game, **flags)
    rnd = random.Random(1)
    env.reset(seed=1)
    compared = False
    while not env.episode_over:
        seat = env.agent_name_mapping[env.agent_selection]
        legal = env.legal_actions()
        choice = [a for a in legal if a in hidden]
        if len(choice) >= 2:  # two different hidden moves look alike to the other seat
            other = env.possible_agents[1 - seat] if len(env.possible_agents) == 2 else None
            views, own = [], []
            for a in choice[:2]:
                twin = make_raw_env(game, **flags)
                twin.reset(seed=1)
                for m in env.unwrapped._rec_moves:
                    twin.step(m)
                twin.step(a)
                views.append(bytes(twin.observe(other)["observation"]))
                own.append(bytes(twin.observe(env.possible_agents[seat])["observation"]))
            assert views[0] == views[1] and own[0] != own[1]  # the actor knows which; the other seat does not
            compared = True
        env.step(rnd.choice(legal))
    record = env.episode_record()
    for seat in range(len(env.possible_agents)):
        for hand in records.redact(record, seat)["hands"]:
            for move in hand["moves"]:
                if move["seat"] != seat and move["id"] is None:
                    assert move["name"] == "discard"
    full = [m for h in record["hands"] for m in h["moves"]]
    for seat in range(len(env.possible_agents)):  # a seat sees its own moves whole, the others' as the engine shows them
        for m in full:
            seen = records.public_move(m, seat, env.game)
            assert seen == ({k: m[k] for k in ("seat", "id", "name")} if m["seat"] == seat or m["id"] not in hidden
                            else {"seat": m["seat"], "id": None, "name": "discard"})
    assert any(m["id"] in hidden for m in full) == bool(hidden) == compared


def test_the_hooks_have_defaults_for_a_new_game():
    rules = CardGame.__new__(CardGame)
    assert rules.hidden_move_name(5) is None and rules.in_trick_play(object())
    assert rules.same_side(None, 1, 1) and not rules.same_side(None, 1, 2)
    assert rules.search_candidates(None, [1, 4]) == [1, 4] and rules.public_hand_result({"a": 1}, 0) == {"a": 1}


@pytest.mark.parametrize(("game", "flags"), CONFIGS, ids=IDS)
def test_state_copies_are_independent_and_play_on_alike(game, flags):
    """``copy()`` of every state (Pigugnìn's too): the copy continues exactly like the original, and playing
    it leaves the original untouched."""
    env = make_raw_env(game, **flags)
    rules = env.game
    env.reset(seed=2)
    rnd = random.Random(2)
    for _ in range(7):
        env.step(rnd.choice(env.legal_actions()))
    original = env.state_
    snapshot = records.plain({k: getattr(original, k) for k in type(original).__slots__ if k != "rng"})
    copy = original.copy()
    moves = []
    while not rules.is_over(copy):
        a = rnd.choice(rules.legal_actions(copy))
        moves.append((a, rules.apply(copy, a)))
    assert records.plain({k: getattr(original, k) for k in type(original).__slots__ if k != "rng"}) == snapshot
    again = original.copy()
    assert [(a, rules.apply(again, a)) for a, _ in moves] == moves


# -- the public modules ------------------------------------------------------------------------------------


def test_errors_come_from_one_place_and_envs_stays_light():
    import envs
    from envs.core import errors

    for name in ("MazzoError", "ConfigError", "UnknownFlagError", "DealError", "IllegalActionError",
                 "CardCodeError", "ResetNeededError", "RecordError"):
        assert getattr(envs, name) is getattr(errors, name) and name in envs.__all__
        assert issubclass(getattr(envs, name), envs.MazzoError)
    assert records.RecordError is envs.RecordError
    code = ("import sys, envs\nfrom envs import ConfigError, IllegalActionError, DealError, RecordError\n"
            "print(sorted(m.split('.')[0] for m in sys.modules if m.split('.')[0] in ('torch', 'numba', 'agents',"
            " 'train')))\n")
    out = subprocess.run([sys.executable, "-c", code], cwd=ROOT, capture_output=True, text=True, timeout=120)
    assert out.returncode == 0 and out.stdout.strip() == "[]", out.stderr


@pytest.mark.parametrize("game", list(GAMES))
def test_help_of_env_shows_the_env_docstring_and_the_modules_are_alike(game):
    import inspect
    import pydoc

    public = importlib.import_module(f"envs.{game}_v0")
    env_module = importlib.import_module(f"envs.{game}.env")
    for obj in (public.env, public.raw_env):
        text = pydoc.render_doc(obj, renderer=pydoc.plaintext)
        for section in ("## Flags", "## Observation", "## Actions", "## Rewards", "## Version History"):
            assert section in text, (obj, section)
        assert env_module.__doc__.strip().splitlines()[0] in text
    assert public.__all__ == ["env", "raw_env", "vector_env"] and env_module.__all__ == ["env", "raw_env"]
    assert str(inspect.signature(public.env)) == str(inspect.signature(importlib.import_module("envs.briscola5_v0").env))
    assert str(inspect.signature(public.raw_env)) == "(render_mode: 'str | None' = None, **flags: 'Any')"
    assert "* v0 (Mazzo 0.1.0):" in env_module.__doc__
    raw = public.env(render_mode="ansi").unwrapped
    assert raw.render_mode == "ansi"


def test_briscola_scorer_counts_the_callers_credits_per_contract_called():
    """caller_credits = the caller's own credits over the contracts he called: a made tripla pays the caller 6, a
    lost one costs 2 (the multiplier applies to a win only); void hands count for nobody."""
    from envs.briscola5.figures import Briscola5Scorer

    scorer = Briscola5Scorer()
    ix = scorer.index
    rows = [[0.0] * len(scorer.counters) for _ in range(5)]
    made = {"void": None, "caller": 0, "partner": 1, "caller_team_won": True, "bid": 85, "solo": False,
            "points": [40, 45, 10, 15, 10], "credits": [6, 3, -3, -3, -3]}
    lost = {**made, "caller": 2, "partner": 3, "caller_team_won": False, "bid": 90, "credits": [1, 1, -2, -1, 1]}
    void = {**made, "void": "all_pass", "caller": None, "credits": [0] * 5}
    scorer.extra({"hands": [made, lost, void], "totals": [7, 4, -5, -4, -2]}, rows)
    assert [r[ix["caller"]] for r in rows] == [1, 0, 1, 0, 0]
    assert [r[ix["caller_credit"]] for r in rows] == [6, 0, -2, 0, 0]
    assert ("caller_credits", "caller_credit", "caller", "credits per contract called") in scorer.FIGURES
