"""The three games say the same things the same way (issue 10, "One game, one place").

Each game has an `IntEnum Phase` with plain-int aliases and `PHASE_NAMES`, a `<Game>State`,
an engine named `<game>_v0`, `_new_hand`, the same observer style (flat offsets from the
layout, a memoryview of the one buffer, no NumPy views kept), `decode(obs, codes=True)`,
result records with the same keys (`result_version` 2), `player_N` in rendering, and Markdown
docstrings whose tables are generated from the code.
"""

from __future__ import annotations

import copy
import importlib
import pickle
import random
import re
from enum import IntEnum

import numpy as np
import pytest

from envs.core.cards import ITALIAN
from envs.core.flags import flags_table
from envs.core.game import RESULT_VERSION
from envs.registry import GAMES, make_raw_env

GAME_NAMES = {"briscola5": "Briscola5", "pigugnin": "Pigugnin", "picchetto": "Picchetto"}
#: flag sets whose episodes are short and reach every part of a record
CONFIGS = [
    ("briscola5", {"num_hands": 2}),
    ("pigugnin", {}),
    ("pigugnin", {"num_players": 5, "episode": "hand"}),
    ("picchetto", {"episode": "game", "allow_peek": True, "reveal_leftover_talon": True}),
]
#: the decode fields that hold card ids, written out here independently of the code
CARD_FIELDS = {
    "briscola5": {"hand", "called_card", "played", "trick"},
    "pigugnin": {"hand", "played", "trick", "captured", "legal"},
    "picchetto": {"hand", "discards", "drawn", "peeked", "bianco_hand", "revealed", "played", "trick_card", "leftover"},
}


def _module(game: str, part: str):
    return importlib.import_module(f"envs.{game}.{part}")


def _play(raw, seed: int, each=None):
    """One random episode; calls `each(raw)` before every step; returns the result."""
    rnd = random.Random(seed)
    raw.reset(seed=seed)
    while not (raw.terminations[raw.agent_selection] or raw.truncations[raw.agent_selection]):
        if each is not None:
            each(raw)
        raw.step(rnd.choice(raw.legal_actions()))
    return raw.infos[raw.agent_selection]["result"]


# -- names ---------------------------------------------------------------------------------------


@pytest.mark.parametrize("game", list(GAMES))
def test_phase_enum_with_plain_int_aliases(game):
    g = _module(game, "game")
    assert issubclass(g.Phase, IntEnum)
    assert g.PHASE_NAMES == tuple(p.name for p in g.Phase)
    for p in g.Phase:
        alias = getattr(g, p.name)
        assert type(alias) is int and alias == int(p)
    raw = make_raw_env(game)
    phases = []
    _play(raw, 0, lambda r: phases.append(r.state_.phase))
    phases.append(raw.state_.phase)
    assert {type(p) for p in phases} == {int}  # the state stores plain ints (speed)


@pytest.mark.parametrize("game", list(GAMES))
def test_state_engine_and_hand_setup_names(game):
    g = _module(game, "game")
    raw = make_raw_env(game)
    raw.reset(seed=1)
    state_class = getattr(g, f"{GAME_NAMES[game]}State")
    assert type(raw.state_) is state_class and not hasattr(g, "State")
    assert raw.game.name == f"{game}_v0" == raw.metadata["name"]
    assert callable(getattr(raw.game, "_new_hand", None)) and not hasattr(raw.game, "_start_hand")


@pytest.mark.parametrize("game", ["briscola5", "pigugnin"])
def test_card_tables_per_rank_and_per_card(game):
    g = _module(game, "game")
    assert len(g.RANK_STRENGTH) == len(g.RANK_POINTS) == ITALIAN.num_ranks
    assert list(g.STRENGTH) == [g.RANK_STRENGTH[ITALIAN.rank_of[c]] for c in range(ITALIAN.size)]
    assert list(g.POINTS) == [g.RANK_POINTS[ITALIAN.rank_of[c]] for c in range(ITALIAN.size)]


# -- observer style --------------------------------------------------------------------------------


@pytest.mark.parametrize("game,flags", CONFIGS, ids=[f"{g}-{f}" for g, f in CONFIGS])
def test_observer_keeps_no_view_and_its_copies_write_their_own_buffer(game, flags):
    raw = make_raw_env(game, **flags)
    _play(raw, 2)
    observer = raw.observer
    arrays = [k for k, v in vars(observer).items() if isinstance(v, np.ndarray)]
    assert arrays == ["buf"]
    for other in (copy.deepcopy(observer), pickle.loads(pickle.dumps(observer))):
        assert np.array_equal(other.buf, observer.buf)
        before = observer.buf.copy()
        other._mv[0] = 7.0
        assert other.buf[0] == 7.0 and np.array_equal(observer.buf, before)


@pytest.mark.parametrize("game", list(GAMES))
def test_offsets_are_the_layouts(game):
    obs = _module(game, "observation")
    offsets = {name: value for name, value in vars(obs).items() if name.startswith("O_")}
    assert offsets
    layouts = obs.LAYOUTS if hasattr(obs, "LAYOUTS") else {None: obs.LAYOUT}
    for n, layout in layouts.items():
        starts = {layout.abs_offset(f) for f in layout.fields}
        for name, value in offsets.items():
            assert (value[n] if n is not None else value) in starts, name


# -- decode with card codes ---------------------------------------------------------------------------


@pytest.mark.parametrize("game,flags", CONFIGS, ids=[f"{g}-{f}" for g, f in CONFIGS])
def test_decode_codes_converts_every_card_field_and_nothing_else(game, flags):
    obs_module = _module(game, "observation")
    deck = _module(game, "game").DECK
    assert set(obs_module.CARD_FIELDS) == CARD_FIELDS[game]
    seen: set[str] = set()

    def check(raw):
        for agent in raw.agents:
            obs = raw.observe(agent)
            for given in (obs, obs["observation"]):
                view = obs_module.decode(given)
                shown = obs_module.decode(given, codes=True)
                assert list(shown) == list(view)
                for key, value in view.items():
                    if key not in CARD_FIELDS[game]:
                        assert shown[key] == value, key
                        continue
                    assert _parse(shown[key], value, deck) == value, key
                    if _holds_a_card(value):
                        seen.add(key)

    raw = make_raw_env(game, **flags)
    for seed in range(3):
        _play(raw, seed, check)
    missing = CARD_FIELDS[game] - seen
    # peeked/leftover/bianco_hand/called_card may stay empty in three episodes; the rest must show up
    assert missing <= {"peeked", "leftover", "bianco_hand", "called_card", "drawn"}, missing


def _holds_a_card(value) -> bool:
    if isinstance(value, (list, tuple)):
        return any(_holds_a_card(v) for v in value)
    return value is not None


def _parse(shown, ids, deck):
    """`shown` with every card code turned back into its id (checking it is a code)."""
    if shown is None:
        return None
    if isinstance(shown, str):
        assert shown in deck.codes
        return deck.parse(shown)
    if isinstance(shown, tuple):
        return tuple(_parse(s, i, deck) if isinstance(s, str) else s for s, i in zip(shown, ids, strict=True))
    assert isinstance(shown, list)
    return [_parse(s, i, deck) for s, i in zip(shown, ids, strict=True)]


# -- results and rendering ---------------------------------------------------------------------------


@pytest.mark.parametrize("game,flags", CONFIGS, ids=[f"{g}-{f}" for g, f in CONFIGS])
def test_results_have_the_unified_keys(game, flags):
    result = _play(make_raw_env(game, **flags), 3)
    assert next(iter(result)) == "result_version" and result["result_version"] == RESULT_VERSION == 2
    assert result["hands"]
    for i, hand in enumerate(result["hands"]):
        assert hand["hand_no"] >= i + 1
        assert not {"hand", "game", "tricks_won", "busche_delta"} & set(hand)
        if game != "briscola5":
            assert "tricks" in hand
    for g in result.get("games", ()):
        assert "game_no" in g and "game" not in g
    if game == "pigugnin":
        assert all("busche_paid" in h for h in result["hands"])


@pytest.mark.parametrize("game", list(GAMES))
def test_render_names_seats_player_n(game):
    raw = make_raw_env(game, render_mode="ansi")
    raw.render_seat = "all"
    texts = []
    _play(raw, 4, lambda r: texts.append(r.render()))
    texts.append(raw.render())
    assert all(re.search(r"player_\d", t) for t in texts)
    assert not [t for t in texts if re.search(r"\bseat \d|\b\d:[0-9A-Za-z]{2}\b", t)]


# -- docstrings ----------------------------------------------------------------------------------------

SECTIONS = ("## Flags", "## Observation", "## Actions", "## Rewards", "## Episodes and the result record",
            "## Explicit deals", "## Rule decisions", "## Version History")


@pytest.mark.parametrize("game", list(GAMES))
def test_docstrings_are_markdown_with_generated_tables(game):
    env_module, obs_module, game_module = (_module(game, p) for p in ("env", "observation", "game"))
    table = (obs_module.LAYOUTS[4] if hasattr(obs_module, "LAYOUTS") else obs_module.LAYOUT).table()
    assert flags_table(game_module.FLAGS) in env_module.__doc__
    assert table in env_module.__doc__ and table in obs_module.__doc__
    assert [s for s in SECTIONS if s in env_module.__doc__] == list(SECTIONS)
    assert "result_version" in env_module.__doc__ and "hand_no" in env_module.__doc__
    for module in (env_module, obs_module, game_module):
        assert not re.search(r"(?<!`)``(?!`)", module.__doc__), f"{module.__name__}: reST ``literal``"
        assert "{{" not in module.__doc__, f"{module.__name__}: a table placeholder was not filled"
    for module in (env_module, game_module):
        assert f"docs/rules/{game}.md" in module.__doc__  # where the cited rule codes live


@pytest.mark.parametrize("game", list(GAMES))
def test_the_env_docstring_example_runs(game, capsys):
    (code,) = re.findall(r"```python\n(.*?)```", _module(game, "env").__doc__, re.S)
    exec(compile(code, f"{game} env docstring", "exec"), {"__name__": "docstring_example"})
    assert capsys.readouterr().out.strip()
