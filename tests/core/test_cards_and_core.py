"""The shared core: card codes, flags, layouts and trick resolution."""

from __future__ import annotations

import re

import pytest

from envs.core.cards import FRENCH, ITALIAN, iter_bits
from envs.core.errors import CardCodeError, ConfigError, UnknownFlagError
from envs.core.flags import Flag, int_range, resolve_flags
from envs.core.layout import ObsLayout
from envs.core.trick import card_strengths, trick_winner


@pytest.mark.parametrize(
    "deck,code,card",
    [(ITALIAN, "AC", 0), (ITALIAN, "3D", 12), (ITALIAN, "KS", 29), (ITALIAN, "2B", 31), (ITALIAN, "JS", 27),
     (ITALIAN, "7D", 16), (ITALIAN, "KB", 39), (FRENCH, "7h", 0), (FRENCH, "Ah", 7), (FRENCH, "Ts", 19),
     (FRENCH, "Ac", 31)],
)
def test_canonical_ids_of_the_specs(deck, code, card):
    assert deck.parse(code) == card and deck.code(card) == code
    assert deck.parse(code.lower()) == card and deck.parse(card) == card


def test_every_code_round_trips():
    for deck in (ITALIAN, FRENCH):
        assert [deck.parse(deck.code(c)) for c in range(deck.size)] == list(range(deck.size))
        assert len(set(deck.codes)) == deck.size


@pytest.mark.parametrize("bad", ["ZZ", "1C", "JX", "", 40, -1, 2.0, True, None])
def test_bad_codes_name_the_code(bad):
    with pytest.raises(CardCodeError, match=re.escape(repr(bad))) as err:
        ITALIAN.parse(bad)
    assert "italian deck" in str(err.value)


def test_card_sets_as_bitmasks():
    mask = ITALIAN.mask(["AC", "JS", "KB"])
    assert list(iter_bits(mask)) == [0, 27, 39]
    assert ITALIAN.format_mask(mask) == "AC JS KB"
    assert ITALIAN.suit_mask[2] == sum(1 << c for c in range(20, 30))


def test_flags_resolve_and_reject():
    specs = (Flag("a", 1, "doc", check=int_range(1, 3), allowed_text="1..3"), Flag("b", "x", "doc", allowed=("x", "y")))
    assert resolve_flags(specs, {"b": "y"}, "g") == {"a": 1, "b": "y"}
    with pytest.raises(ConfigError, match="unknown flag 'c'; known flags: a, b"):
        resolve_flags(specs, {"c": 1}, "g")
    with pytest.raises(TypeError, match=r"^g: unknown flag 'c'; known flags: a, b$") as err:  # like any unexpected keyword
        resolve_flags(specs, {"c": 1}, "g")
    assert isinstance(err.value, UnknownFlagError)
    with pytest.raises(ConfigError, match="allowed: 1..3"):
        resolve_flags(specs, {"a": 4}, "g")
    with pytest.raises(ConfigError, match="allowed: 'x', 'y'"):
        resolve_flags(specs, {"b": "z"}, "g")
    with pytest.raises(ConfigError, match=r"^g: invalid value 1 for flag 't'; allowed: True, False$"):
        resolve_flags((Flag("t", True, "doc", allowed=(True, False)),), {"t": 1}, "g")  # 1 is not True


def test_layout_rotates_seats_and_hides_other_private_rows():
    layout = ObsLayout(3)
    layout.private("hand", (2,), "")
    layout.seat("score", (3,), "")
    layout.seat("grid", (2, 3), "", seat_axis=1)
    layout.build()
    buf = layout.new_buffer()
    layout.abs_view(buf, "hand")[1] = [7, 8]
    layout.abs_view(buf, "score")[:] = [10, 11, 12]
    layout.abs_view(buf, "grid")[:] = [[1, 2, 3], [4, 5, 6]]
    obs = layout.unpack(layout.observe(buf, 1))
    assert obs["hand"].tolist() == [7, 8]
    assert obs["score"].tolist() == [11, 12, 10]
    assert obs["grid"].tolist() == [[2, 3, 1], [5, 6, 4]]
    assert layout.unpack(layout.observe(buf, 0))["hand"].tolist() == [0, 0]
    assert layout.observe(buf, 0) is not layout.observe(buf, 0)  # fresh arrays


def test_trick_winner_with_and_without_trump():
    strength = card_strengths((9, 0, 8, 1, 2, 3, 4, 5, 6, 7), 4)
    cards = [ITALIAN.parse(c) for c in ("7C", "AC", "2D", "KD", "AS")]
    assert trick_winner(cards, ITALIAN.suit_of, strength, trump=1) == 3
    assert trick_winner(cards, ITALIAN.suit_of, strength) == 1
    assert trick_winner([ITALIAN.parse(c) for c in ("4B", "AC")], ITALIAN.suit_of, strength) == 0
