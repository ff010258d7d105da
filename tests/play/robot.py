"""A scripted player for `mazzo play`: reads the last screen as a person would and types a move.

It never bids or calls (so it is never asked to confirm): `pass` in an auction, `no forfeit`,
`end exchange` when offered, else the first card the menu or the hand line shows, typed as a
bare lower-case code.
"""

from __future__ import annotations

import re

_CARD = re.compile(r"\[([^\]]{2})\]")


def last_screen(text: str) -> list[str]:
    """The lines of the last screen in a recording of the terminal (from its last title line on)."""
    lines = text.splitlines()
    starts = [i for i, line in enumerate(lines) if " · you are player_" in line]
    return lines[starts[-1]:] if starts else lines


def pick(screen: list[str]) -> str:
    menu = next((line for line in reversed(screen) if line.startswith("moves: ")), "")
    hand = next((line for line in reversed(screen) if line.startswith("your hand: ")), "")
    options = [o.strip() for o in menu[len("moves: "):].split("·")]
    for plain in ("pass", "no forfeit", "end exchange"):
        if plain in options:
            return plain
    for o in options:
        verb, _, rest = o.partition(" ")
        if rest and not rest.startswith("any") and not re.fullmatch(r"[\d, -]+", rest):  # not "bid 61-120"
            return rest.split()[0].lower()  # "play 4C 5C": the first listed card
    cards = _CARD.findall(hand)
    assert cards, "no move found on the screen:\n" + "\n".join(screen)
    return cards[0].lower()
