"""Briscola in cinque as a picture (``render_mode="rgb_array"``): the table as one seat sees it.

Drawn from the seat's observation only (``decode(obs)``), so nothing hidden can appear: the
seat's own hand face up, the others as backs with their counts, the trick in progress, the
auction (each seat's last bid or pass), the contract, the called card, the trump suit and the
partner once the called card is played. Frames are ``SIZE`` pixels for every state.
"""

from __future__ import annotations

from typing import Any

import numpy as np

from envs.briscola5.game import HAND_SIZE, NUM_PLAYERS, NUM_TRICKS, Briscola5Game
from envs.briscola5.observation import decode
from envs.core.cards import ITALIAN
from envs.core.picture import RGB, Table, suit_name, turn

__all__ = ["SIZE", "HAND_BOX", "draw"]

#: (width, height) of every frame
SIZE = (960, 448)
#: (top, height) of the "Your hand" box, across the table
HAND_BOX = (304, 130)
N = NUM_PLAYERS
_VERBS = {"forfeit_check": "forfeit or play the hand", "auction": "bid or pass", "call": "call a card",
          "trick_play": "play a card"}


def draw(game: Briscola5Game, seat: int, observation: dict[str, np.ndarray], to_act: int | None) -> np.ndarray:
    """The frame for ``seat``: ``uint8[448, 960, 3]``. ``observation`` is the seat's own
    (``env.observe``); ``to_act`` the seat to act (public), None once the episode is over."""
    v = decode(observation, codes=True)
    mask = observation["action_mask"]
    phase = v["phase"]

    def absolute(r: int | None) -> int | None:
        return None if r is None else (seat + r) % N

    t = Table(*SIZE)
    num_hands = game.flags["num_hands"]
    hand_no = num_hands - round(v["hands_left"] * num_hands)
    dealer = absolute(v["dealer"])
    t.header(turn(seat, to_act, _VERBS.get(phase, ""), "Match over"),
             f"Briscola in cinque · hand {hand_no} of {num_hands}" + ("" if dealer is None else f" · dealer player_{dealer}"))

    # the seats
    played_by = [0] * N
    for _, r, _ in v["played"]:
        played_by[r] += 1
    scores = [round(x * 24 * num_hands) for x in v["match_scores"]]
    seats = []
    for p in range(N):
        r = (p - seat) % N
        count = len(v["hand"]) if r == 0 or phase == "over" else HAND_SIZE - played_by[r]
        lines = [f"{count} cards · classifica {scores[r]}", _seat_role(v, r)]
        if phase == "trick_play":
            lines.append(f"points {v['points_taken'][r]} · tricks {v['tricks_taken'][r]}")
        name = f"player_{p}" + (" (you)" if r == 0 else "") + (" · dealer" if p == dealer else "")
        seats.append(dict(name=name, lines=[x for x in lines if x], count=count, you=r == 0, acting=p == to_act))
    t.seat_row(56, 104, seats)

    # the trick in progress, in play order from its leader
    trick_w = 20 + 50 * N - 6
    title = f"Trick {v['trick_no'] + 1}/{NUM_TRICKS}" if phase == "trick_play" else "Trick in progress"
    t.trick(14, 170, trick_w, 124, title,
            [(code, f"player_{absolute(v['trick_leader'] + i)}") for i, code in enumerate(v["trick"])])

    # the auction or the contract
    x = 14 + trick_w + 10
    box_w = SIZE[0] - 14 - x
    t.box(x, 170, box_w, 124, {"forfeit_check": "Auction", "auction": "Auction", "over": "Result"}.get(phase, "Contract"))
    if phase == "over":
        ranked = sorted(range(N), key=lambda p: (-scores[(p - seat) % N], p))
        lines, note = [f"the match of {num_hands} hand{'s' if num_hands > 1 else ''} is over; classifica:",
                       " · ".join(f"player_{p} {scores[(p - seat) % N]:+d}" for p in ranked)], None
    else:
        lines, note = _contract_lines(game, v, seat, absolute)
    if v["called_card"] is not None:
        t.card(x + box_w - 58, 198, v["called_card"], small=True)
        t.text(x + box_w - 36, 266, "called", 11, anchor="ma")
    y = t.lines(x + 10, 198, lines, box_w - 80)
    if note:
        t.text(x + 10, y + 2, t.fit(note, box_w - 80), 13, fill=RGB["gold"], bold=True)

    # the seat's hand: in trick play, the legal cards raised in gold and the others dimmed
    legal = None
    if phase == "trick_play" and to_act == seat:
        legal = {ITALIAN.codes[c] for c in np.flatnonzero(mask[: ITALIAN.size])}
    t.hand(*HAND_BOX, seat, v["hand"], legal)
    return t.array()


def _seat_role(v: dict[str, Any], r: int) -> str:
    """What the auction and the call say of relative seat ``r``."""
    if v["caller"] is not None:
        if r == v["caller"]:
            return f"caller · {v['contract']}" + (" · solo" if v["partner"] == r else "")
        return "partner" if v["partner"] == r else ""
    bids = v["bids"][r]
    if r in v["passed"]:
        return f"bid {max(bids)}, passed" if bids else "passed"
    if bids:
        return f"bid {max(bids)}" + (" (highest)" if v["high_bidder"] == r else "")
    return "declined to forfeit" if r in v["forfeit_declined"] else ""


def _contract_lines(game: Briscola5Game, v: dict[str, Any], seat: int, absolute) -> tuple[list[str], str | None]:
    """The auction or contract box: its lines, and a note of what only this seat knows."""
    phase = v["phase"]
    if phase == "forfeit_check":
        return ["forfeit check: a hand with no card points may be given up", "the auction follows"], None
    if phase == "auction":
        lo, hi = game.flags["min_bid"], game.flags["max_bid"]
        high = (f"highest bid {v['high_bid']} by player_{absolute(v['high_bidder'])}" if v["high_bid"] is not None
                else "no bid yet")
        passed = ", ".join(f"player_{absolute(r)}" for r in sorted(v["passed"], key=absolute)) or "nobody"
        return [high, f"bids {lo}-{hi} · passed: {passed}"], None
    caller = absolute(v["caller"])
    lines = [f"player_{caller} won the auction at {v['contract']}"]
    if v["called_card"] is None:
        lines.append(f"player_{caller} calls a card: its suit becomes trump")
        return lines, None
    code = v["called_card"]
    lines.append(f"called {code} ({suit_name(code)}) · trump {suit_name(code)}")
    if v["partner_revealed"]:
        partner = absolute(v["partner"])
        lines.append("solo: the caller holds the called card" if partner == caller else f"partner: player_{partner}")
        return lines, None
    lines.append("partner: hidden until the called card is played")
    if v["holds_called"]:
        return lines, "You hold the called card: " + ("you play alone" if caller == seat else "you are the partner")
    return lines, None
