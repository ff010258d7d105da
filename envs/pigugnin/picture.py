"""Pigugnìn as a picture (``render_mode="rgb_array"``): the table as one seat sees it.

Drawn from the seat's observation only (``decode(obs)``), so nothing hidden can appear: the
seat's own hand face up, the others as backs with their counts, the trick in progress, each
seat's busche total, tricks and card points this hand, and who took the Pigugnìn (JS).
Frames are ``SIZE`` pixels for every state, with 4 or 5 players.
"""

from __future__ import annotations

import numpy as np

from envs.core.cards import ITALIAN
from envs.core.picture import Table, turn
from envs.pigugnin.game import PigugninGame
from envs.pigugnin.observation import decode

__all__ = ["SIZE", "HAND_BOX", "draw"]

#: (width, height) of every frame
SIZE = (960, 448)
#: (top, height) of the "Your hand" box, across the table
HAND_BOX = (304, 130)


def draw(game: PigugninGame, seat: int, observation: dict[str, np.ndarray], to_act: int | None) -> np.ndarray:
    """The frame for ``seat``: ``uint8[448, 960, 3]``. ``observation`` is the seat's own
    (``env.observe``); ``to_act`` the seat to act (public), None once the episode is over."""
    v = decode(observation, codes=True)
    n, hand_size = v["num_players"], game.hand_size
    flags = game.flags

    def absolute(r: int | None) -> int | None:
        return None if r is None else (seat + r) % n

    t = Table(*SIZE)
    dealer = absolute(v["dealer"])
    done = sum(v["tricks_won"])
    t.header(turn(seat, to_act, "play a card", "Hand over" if flags["episode"] == "hand" else "Game over"),
             f"Pigugnin · {n} players · dealer player_{dealer}")

    # the seats
    seats = []
    for p in range(n):
        r = (p - seat) % n
        count = hand_size - len(v["played"][r])
        lines = [f"{count} cards · busche {v['busche'][r]}", f"tricks {v['tricks_won'][r]} · points {v['points'][r]}"]
        if v["pig_taker"] == r:
            lines.append("took the Pigugnin (JS)")
        name = f"player_{p}" + (" (you)" if r == 0 else "") + (" · dealer" if p == dealer else "")
        seats.append(dict(name=name, lines=lines, count=count, you=r == 0, acting=p == to_act))
    t.seat_row(56, 104, seats)

    # the trick in progress, in play order from its leader
    trick_w = 20 + 50 * 5 - 6
    t.trick(14, 170, trick_w, 124, f"Trick {min(done + 1, hand_size)}/{hand_size}",
            [(code, f"player_{absolute(r)}") for r, code in v["trick"]])

    # the hand and the game
    x = 14 + trick_w + 10
    box_w = SIZE[0] - 14 - x
    t.box(x, 170, box_w, 124, "This hand" if flags["episode"] == "hand" else "The game")
    taker = "not taken yet" if v["pig_taker"] is None else f"taken by player_{absolute(v['pig_taker'])}"
    lines = [
        f"tricks played {done} of {hand_size} · card points taken {sum(v['points'])}",
        f"the Pigugnin (JS): {taker}",
        f"a player loses at {flags['sole_loss_threshold']} busche, or at {flags['loss_threshold']} "
        f"once a second player has {flags['loss_threshold']}",
    ]
    t.lines(x + 10, 198, lines, box_w - 20)

    # the seat's hand: when it is to play, the legal cards raised in gold and the others dimmed
    legal = None
    if to_act == seat:
        legal = {ITALIAN.codes[c] for c in np.flatnonzero(observation["action_mask"][: ITALIAN.size])}
    t.hand(*HAND_BOX, seat, v["hand"], legal)
    return t.array()
