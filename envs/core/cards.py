"""Card identities: the two decks of the rule specs, card codes, and card sets as bitmasks.

This module owns every card id and code in Mazzo. A card is an ``int`` (its canonical index);
a set of cards is an ``int`` bitmask with bit ``c`` set for card ``c``. Codes are rank code +
suit code and parse case-insensitively within a deck.

| deck            | ids   | id formula         | ranks (index order) | suits (index order) | examples            |
|-----------------|-------|--------------------|---------------------|---------------------|---------------------|
| ``ITALIAN`` 40  | 0..39 | ``10*suit + rank`` | A 2 3 4 5 6 7 J H K | C D S B             | AC=0, 3D=12, JS=27  |
| ``FRENCH``  32  | 0..31 | ``8*suit + rank``  | 7 8 9 T J Q K A     | h d s c             | 7h=0, Ts=19, Ac=31  |
"""

from __future__ import annotations

from collections.abc import Iterable, Iterator, Mapping
from typing import Any

from envs.core.errors import CardCodeError

__all__ = ["Deck", "ITALIAN", "FRENCH", "iter_bits", "with_codes", "CARD", "CARDS", "SEAT_CARDS"]


def iter_bits(mask: int) -> Iterator[int]:
    """Yield the set bit positions of ``mask`` in increasing order (card ids of a card set)."""
    while mask:
        low = mask & -mask
        yield low.bit_length() - 1
        mask ^= low


class Deck:
    """A deck of ``num_suits * num_ranks`` cards with canonical ids ``num_ranks*suit + rank``.

    The lookup tables (``suit_of``, ``rank_of``, ``suit_mask``) are plain tuples so that the
    engines can index them on the hot path without NumPy scalar overhead.
    """

    def __init__(self, name: str, rank_codes: str, suit_codes: str, suit_names: tuple[str, ...]):
        self.name = name
        self.rank_codes = rank_codes
        self.suit_codes = suit_codes
        self.suit_names = suit_names
        self.num_ranks = len(rank_codes)
        self.num_suits = len(suit_codes)
        self.size = self.num_ranks * self.num_suits
        self.full_mask = (1 << self.size) - 1
        self.suit_of = tuple(c // self.num_ranks for c in range(self.size))
        self.rank_of = tuple(c % self.num_ranks for c in range(self.size))
        self.suit_mask = tuple(((1 << self.num_ranks) - 1) << (s * self.num_ranks) for s in range(self.num_suits))
        self.codes = tuple(rank_codes[c % self.num_ranks] + suit_codes[c // self.num_ranks] for c in range(self.size))
        self._by_code = {code.upper(): c for c, code in enumerate(self.codes)}

    def card(self, suit: int, rank: int) -> int:
        """Canonical id of the card of ``suit`` and ``rank`` (both indices)."""
        return self.num_ranks * suit + rank

    def code(self, card: int) -> str:
        """The code of a card id, e.g. ``ITALIAN.code(27) == "JS"``."""
        if not isinstance(card, int) or not 0 <= card < self.size:
            raise CardCodeError(f"{card!r} is not a card id of the {self.name} deck (0..{self.size - 1})")
        return self.codes[card]

    def parse(self, card: int | str) -> int:
        """Card id from a code (``"JS"``, case-insensitive) or an id; raises ``CardCodeError``."""
        if isinstance(card, str):
            found = self._by_code.get(card.strip().upper())
            if found is None:
                raise CardCodeError(
                    f"{card!r} is not a card code of the {self.name} deck: codes are a rank of "
                    f"{' '.join(self.rank_codes)} followed by a suit of {' '.join(self.suit_codes)} "
                    f"(e.g. {self.codes[0]!r}, {self.codes[-1]!r})"
                )
            return found
        # Accept NumPy integers as well as ints, but not bools or floats.
        if hasattr(card, "__index__") and not isinstance(card, bool):
            value = card.__index__()
            if 0 <= value < self.size:
                return value
        raise CardCodeError(f"{card!r} is not a card of the {self.name} deck: give a code or an id 0..{self.size - 1}")

    def parse_many(self, cards: Iterable[int | str]) -> list[int]:
        """Parse a sequence of codes or ids."""
        if isinstance(cards, (str, bytes)) or not isinstance(cards, Iterable):
            raise CardCodeError(f"expected a list of card codes or ids, got {cards!r}")
        return [self.parse(c) for c in cards]

    def mask(self, cards: Iterable[int | str]) -> int:
        """Card set (bitmask) of the given codes or ids."""
        m = 0
        for c in self.parse_many(cards):
            m |= 1 << c
        return m

    def format_mask(self, mask: int) -> str:
        """Space-separated codes of a card set, grouped by suit in id order."""
        return " ".join(self.codes[c] for c in iter_bits(mask))

    def __repr__(self) -> str:
        return f"Deck({self.name!r}, {self.size} cards)"


ITALIAN = Deck("italian", "A234567JHK", "CDSB", ("Coppe", "Denari", "Spade", "Bastoni"))
FRENCH = Deck("french", "789TJQKA", "hdsc", ("Cuori", "Quadri", "Picche", "Fiori"))


# -- decode views with card codes ---------------------------------------------------------------

#: How a field of a ``decode`` view holds card ids (the values of a game's ``CARD_FIELDS``):
#: ``CARD`` one id or None, ``CARDS`` a list of ids, ``SEAT_CARDS`` one list of ids per seat;
#: an int ``i`` is a list of tuples whose item ``i`` is a card id (e.g. ``(seat, card)``: 1).
CARD, CARDS, SEAT_CARDS = "card", "cards", "seat_cards"


def with_codes(view: dict[str, Any], deck: Deck, card_fields: Mapping[str, str | int]) -> dict[str, Any]:
    """A copy of a ``decode`` view with every card id of ``card_fields`` replaced by its code.

    Fields missing from ``view`` are skipped (e.g. ``legal`` without a mask); every other field
    is kept as it is. ``decode(obs, codes=True)`` of each game is this over its ``CARD_FIELDS``.
    """
    codes = deck.codes
    out = dict(view)
    for key, kind in card_fields.items():
        if key not in out:
            continue
        value = out[key]
        if kind == CARD:
            out[key] = None if value is None else codes[value]
        elif kind == CARDS:
            out[key] = [codes[c] for c in value]
        elif kind == SEAT_CARDS:
            out[key] = [[codes[c] for c in row] for row in value]
        else:
            out[key] = [(*t[:kind], codes[t[kind]], *t[kind + 1 :]) for t in value]
    return out
