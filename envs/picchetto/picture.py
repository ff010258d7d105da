"""Picchetto as a picture (``render_mode="rgb_array"``): the table as one seat sees it.

Drawn from the seat's observation only (``decode(obs)``), so nothing hidden can appear: the
seat's own hand face up and its own discards and draws, the opponent's hand as backs with its
count, the talon's count (and its set-aside cards when ``reveal_leftover_talon`` shows them),
the trick in progress, the declarations with the dealer's Italian answers and the cards shown,
Bianco, pique and repique, and the scores. Frames are ``SIZE`` pixels for every state.
"""

from __future__ import annotations

from typing import Any

import numpy as np

from envs.core.cards import FRENCH
from envs.core.picture import Table, turn
from envs.picchetto.game import DECLARATIONS, HAND_SIZE, NUM_TRICKS, TALON_SIZE, PicchettoGame, _best_text
from envs.picchetto.observation import decode

__all__ = ["SIZE", "HAND_BOX", "draw"]

#: (width, height) of every frame
SIZE = (960, 560)
#: (top, height) of the "Your hand" box, across the table
HAND_BOX = (414, 132)
_GAMES = ("partita", "rivincita", "bella")
_TITLES = {"point": "Punto", "sequence": "Scala", "sets": "Tris/Quattordici"}
_VERBS = {"elder_exchange": "discard, then end the exchange", "dealer_exchange": "discard, then end the exchange",
          "trick_lead": "lead a card", "trick_follow": "play a card to the trick"}


def draw(game: PicchettoGame, seat: int, observation: dict[str, np.ndarray], to_act: int | None) -> np.ndarray:
    """The frame for ``seat``: ``uint8[560, 960, 3]``. ``observation`` is the seat's own
    (``env.observe``); ``to_act`` the seat to act (public), None once the episode is over."""
    v = decode(observation, codes=True)
    mask = observation["action_mask"]
    phase = v["phase"]
    dealer_r = v["dealer"] if v["dealer"] is not None else 1
    elder_r = 1 - dealer_r

    def absolute(r: int) -> int:
        return (seat + r) % 2

    t = Table(*SIZE)
    g = v["game_number"]
    t.header(turn(seat, to_act, _VERBS.get(phase, "")),
             f"Picchetto · game {g} ({_GAMES[g - 1]}) to {v['target']} · games won "
             f"{v['games_won'][seat]}-{v['games_won'][1 - seat]}")

    # the seats
    counts = _hand_counts(v, elder_r)
    seats = []
    for p in range(2):
        r = (p - seat) % 2
        lines = [
            f"{counts[r]} cards · game score {v['game_score'][r]} · this hand {v['hand_score'][r]}",
            f"tricks {v['tricks_won'][r]} · exchanged {v['exchanged'][r]} · games won {v['games_won'][r]}",
        ]
        tags = [tag for tag, on in (("Bianco", v["bianco"][r]), ("picca", v["pique"][r]),
                                    ("ripicca", v["repique"][r])) if on]
        if tags:
            lines.append(" · ".join(tags))
        name = f"player_{p}" + (" (you)" if r == 0 else "") + (" · dealer" if r == dealer_r else " · elder")
        seats.append(dict(name=name, lines=lines, count=counts[r], you=r == 0, acting=p == to_act))
    t.seat_row(56, 104, seats)

    # the trick in progress: at most the led card
    trick_phase = phase in ("trick_lead", "trick_follow")
    title = f"Trick {min(v['trick_no'] + 1, NUM_TRICKS)}/{NUM_TRICKS}" if trick_phase else "Trick"
    led = [] if v["trick_card"] is None else [(v["trick_card"], f"player_{absolute(v['leader'])}")]
    t.trick(14, 170, 124, 124, title, led)

    # the talon
    x = 148
    t.box(x, 170, 150, 124, "Talon")
    left = _talon_left(v, phase, elder_r)
    t.backs(x + 10, 198, left, 130)
    t.text(x + 10, 228, f"{left} cards" + (" set aside" if trick_phase or phase == "over" else ""), 13)
    if v["leftover"]:
        t.lines(x + 10, 246, [" ".join(v["leftover"][:4]), " ".join(v["leftover"][4:])], 130, size=12, step=15)

    # the declarations
    x = 308
    t.box(x, 170, SIZE[0] - 14 - x, 124, "Declarations")
    t.lines(x + 10, 196, _declaration_lines(v, elder_r, dealer_r, absolute), SIZE[0] - 14 - x - 20, size=12,
            step=16)

    # the seat's exchange (its own discards and draws: private to it)
    t.box(14, 304, SIZE[0] - 28, 100, f"Your exchange (player_{seat})")
    xx = 24
    for label, cards in (("discarded", v["discards"]), ("drew", v["drawn"]), ("could have drawn", v["peeked"])):
        if cards:
            t.text(xx, 348, label, 12)
            xx += t.text_width(label, 12) + 8
            xx += t.cards(xx, 330, cards, small=True) + 18
    if xx == 24:
        t.text(24, 348, "nothing exchanged yet" if phase in ("elder_exchange", "dealer_exchange") else "-", 13)

    # the seat's hand: the cards it may play (or discard) raised in gold, the others dimmed
    legal = None
    if to_act == seat:
        ids = np.flatnonzero(mask[32:64]) if phase.endswith("exchange") else np.flatnonzero(mask[:32])
        legal = {FRENCH.codes[c] for c in ids}
    t.hand(*HAND_BOX, seat, v["hand"], legal)
    return t.array()


def _hand_counts(v: dict[str, Any], elder_r: int) -> list[int]:
    """Cards in each relative seat's hand: a seat that is discarding holds 12 minus its discards."""
    phase = v["phase"]
    counts = [max(HAND_SIZE - len(v["played"][r]), 0) for r in range(2)]
    if phase == "elder_exchange":
        counts[elder_r] = HAND_SIZE - v["exchanged"][elder_r]
    elif phase == "dealer_exchange":
        counts[1 - elder_r] = HAND_SIZE - v["exchanged"][1 - elder_r]
    counts[0] = len(v["hand"])
    return counts


def _talon_left(v: dict[str, Any], phase: str, elder_r: int) -> int:
    """Cards still in the talon (the elder draws when its exchange ends, the dealer after it)."""
    if phase == "elder_exchange":
        return TALON_SIZE
    if phase == "dealer_exchange":
        return TALON_SIZE - v["exchanged"][elder_r]
    return TALON_SIZE - sum(v["exchanged"])


def _declaration_lines(v: dict[str, Any], elder_r: int, dealer_r: int, absolute) -> list[str]:
    """The declarations as the ansi rendering says them: the elder declares, the dealer answers."""
    lines = []
    for r in range(2):
        if v["bianco"][r]:
            lines.append(f'player_{absolute(r)}: "Bianco", shows {" ".join(v["bianco_hand"][r])}')
    decl = v["declarations"]
    if all(decl[name]["answer"] is None for name in DECLARATIONS):
        return lines + ["after the exchange: point, sequence, sets"]
    e, d = absolute(elder_r), absolute(dealer_r)
    for name in DECLARATIONS:
        item = decl[name]
        answer, best, points = item["answer"], item["best"], item["points"]
        if name == "point":
            said, theirs = str(best[elder_r] or 0), (str(best[dealer_r]) if best[dealer_r] else None)
        else:
            said, theirs = _best_text(name, best[elder_r]) or "niente", _best_text(name, best[dealer_r])
        if answer == "nessuno":
            line = f"{_TITLES[name]}: nessuno dei due"
        else:
            line = f'{_TITLES[name]}: player_{e} dichiara {said}; player_{d}: "{answer}"'
            if answer != "va bene" and theirs is not None:
                line += f" ({theirs})"
        for r in range(2):
            if points[r]:
                line += f" -> player_{absolute(r)} +{points[r]}"
        lines.append(line)
    shown = [f"player_{absolute(r)} [{' '.join(v['revealed'][r]) or '-'}]" for r in (elder_r, dealer_r)]
    lines.append("shown: " + ", ".join(shown))
    return lines
