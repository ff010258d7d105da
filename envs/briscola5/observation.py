"""Briscola in cinque: the observation encoder and its inverse `decode`.

Seat-relative: relative seat 0 is the observer, relative seat `r` is absolute seat
`(observer + r) % 5` (the direction of play). Shape `(1169,)`, float32, values in
`[-1, 1]`. Only public facts and the observer's own private facts are encoded: its hand
and, from the call on, whether it holds the called card (the partner's private knowledge;
for the caller this says "solo").

{{observation_table}}

`decode(obs)` turns one observation back into a readable dict with card ids (relative seats);
`decode(obs, codes=True)` gives the same dict with card codes such as `"JS"` for people.
"""

from __future__ import annotations

from typing import Any

import numpy as np

from envs.briscola5.game import (
    AUCTION,
    BID,
    BID_MIN,
    CALL,
    CALL_CARD,
    DECK,
    FORFEIT,
    FORFEIT_CHECK,
    NUM_PLAYERS,
    NUM_TRICKS,
    OVER,
    PASS,
    TOTAL_POINTS,
    TRICK_PLAY,
    Briscola5Game,
    Briscola5State,
)
from envs.core.cards import CARD, CARDS, iter_bits, with_codes
from envs.core.docs import fill_tables
from envs.core.game import Observer
from envs.core.layout import ObsLayout, first_hit, row_hits

N = NUM_PLAYERS
LAYOUT = ObsLayout(N)
LAYOUT.private("hand", (40,), "own cards (card id)")
LAYOUT.private("holds_called", (1,), "1 from the call on if this seat was dealt the called card (partner, or a solo caller)")
LAYOUT.public("phase", (4,), "one-hot: forfeit check, auction, call, trick play")
LAYOUT.seat("dealer", (N,), "one-hot dealer")
LAYOUT.seat("forfeit_declined", (N,), "seats that declined to forfeit (0-point hands)")
LAYOUT.seat("bids", (N, 60), "seat r bid 61+j at some point of the auction")
LAYOUT.seat("passed", (N,), "seat r has passed (final)")
LAYOUT.public("high_bid", (1,), "(highest bid - 60) / 60, 0 before the first bid")
LAYOUT.seat("high_bidder", (N,), "one-hot holder of the highest bid")
LAYOUT.seat("caller", (N,), "one-hot caller (auction winner)")
LAYOUT.public("contract", (1,), "(contract - 60) / 60")
LAYOUT.public("called_card", (40,), "one-hot called card")
LAYOUT.public("trump", (4,), "one-hot trump suit (suit of the called card)")
LAYOUT.seat("played_by", (40, N), "card c was played by seat r", seat_axis=1)
LAYOUT.public("played_in_trick", (40, NUM_TRICKS), "card c was played in trick t")
LAYOUT.seat("current_trick", (N, 40), "card on the table from seat r in the trick in progress")
LAYOUT.seat("trick_leader", (N,), "one-hot leader of the trick in progress")
LAYOUT.seat("points_taken", (N,), "card points won by seat r this hand / 120")
LAYOUT.seat("tricks_taken", (N,), "tricks won by seat r this hand / 8")
LAYOUT.public("partner_revealed", (1,), "the called card has been played")
LAYOUT.seat("partner", (N,), "one-hot partner once revealed (the caller's own seat for a solo)")
LAYOUT.seat("match_scores", (N,), "classifica of seat r / (24 * num_hands)")
LAYOUT.public("hands_left", (1,), "hands still to play after this one / num_hands")
LAYOUT.public("reserved", (6,), "always 0 (keeps the shape stable for v0 extensions)")
LAYOUT.build()

OBS_SIZE = LAYOUT.obs_size
__doc__ = fill_tables(__doc__, observation_table=LAYOUT.table())
_PHASE_SLOT = {FORFEIT_CHECK: 0, AUCTION: 1, CALL_CARD: 2, TRICK_PLAY: 3}

# Flat absolute offsets, resolved once (the hot path does integer arithmetic only).
O_HAND, O_HOLDS, O_PHASE, O_DEALER = (LAYOUT.abs_offset(f) for f in ("hand", "holds_called", "phase", "dealer"))
O_DECLINED, O_BIDS, O_PASSED, O_HIGH = (LAYOUT.abs_offset(f) for f in ("forfeit_declined", "bids", "passed", "high_bid"))
O_HIGH_BIDDER, O_CALLER, O_CONTRACT = (LAYOUT.abs_offset(f) for f in ("high_bidder", "caller", "contract"))
O_CALLED, O_TRUMP, O_PLAYED_BY, O_PLAYED_IN = (
    LAYOUT.abs_offset(f) for f in ("called_card", "trump", "played_by", "played_in_trick"))
O_TRICK, O_LEADER, O_POINTS, O_TRICKS = (
    LAYOUT.abs_offset(f) for f in ("current_trick", "trick_leader", "points_taken", "tricks_taken"))
O_REVEALED, O_PARTNER, O_SCORES, O_LEFT = (
    LAYOUT.abs_offset(f) for f in ("partner_revealed", "partner", "match_scores", "hands_left"))


class Briscola5Observer(Observer):
    """Keeps the absolute buffer in step with the engine state."""

    layout = LAYOUT
    obs_low = -1.0
    obs_high = 1.0

    def __init__(self, game: Briscola5Game):
        super().__init__(game)
        self._score_scale = 1.0 / (24 * game.flags["num_hands"])
        self._num_hands = game.flags["num_hands"]
        self._hand_no = -1

    def reset(self, s: Briscola5State) -> None:
        """Full rebuild from the state (reset, and every new hand)."""
        self.buf.fill(0.0)
        b = self._mv
        self._hand_no = s.hand_no
        for p in range(N):
            for c in iter_bits(s.hands[p]):
                b[O_HAND + 40 * p + c] = 1.0
            b[O_SCORES + p] = s.scores[p] * self._score_scale
            if s.forfeit_declined >> p & 1:
                b[O_DECLINED + p] = 1.0
        b[O_LEFT] = max(self._num_hands - s.hands_played - 1, 0) / self._num_hands
        if s.over:
            return
        b[O_DEALER + s.dealer] = 1.0
        b[O_PHASE + _PHASE_SLOT[s.phase]] = 1.0
        for p, v in s.bids:
            if v:
                b[O_BIDS + 60 * p + v - BID_MIN] = 1.0
            else:
                b[O_PASSED + p] = 1.0
        if s.high_bidder >= 0:
            b[O_HIGH] = (s.high - 60) / 60
            b[O_HIGH_BIDDER + s.high_bidder] = 1.0
        if s.caller >= 0:
            self._set_contract(s)
        if s.called >= 0:
            self._set_call(s)
        for c in range(40):
            p = s.played_by[c]
            if p >= 0:
                b[O_PLAYED_BY + N * c + p] = 1.0
                b[O_PLAYED_IN + NUM_TRICKS * c + s.played_trick[c]] = 1.0
        for i, c in enumerate(s.trick):
            b[O_TRICK + 40 * ((s.leader + i) % N) + c] = 1.0
        for p in range(N):
            b[O_POINTS + p] = s.points[p] / TOTAL_POINTS
            b[O_TRICKS + p] = s.tricks_won[p] / NUM_TRICKS
        if s.revealed:
            b[O_REVEALED] = 1.0
            b[O_PARTNER + s.partner] = 1.0

    def _set_phase(self, phase: int) -> None:
        self.buf[O_PHASE : O_PHASE + 4] = 0.0
        self._mv[O_PHASE + _PHASE_SLOT[phase]] = 1.0

    def _set_contract(self, s: Briscola5State) -> None:
        self._mv[O_CALLER + s.caller] = 1.0
        self._mv[O_CONTRACT] = (s.contract - 60) / 60

    def _set_call(self, s: Briscola5State) -> None:
        b = self._mv
        b[O_CALLED + s.called] = 1.0
        b[O_TRUMP + s.trump] = 1.0
        b[O_HOLDS + s.partner] = 1.0  # the partner's private row only
        b[O_LEADER + s.leader] = 1.0

    def update(self, s: Briscola5State, actor: int, action: int) -> None:
        if s.hand_no != self._hand_no or s.over:
            self.reset(s)  # a new hand was dealt, or the episode ended
            return
        b = self._mv
        if action < CALL:  # PLAY
            b[O_HAND + 40 * actor + action] = 0.0
            b[O_PLAYED_BY + N * action + actor] = 1.0
            b[O_PLAYED_IN + NUM_TRICKS * action + s.played_trick[action]] = 1.0
            if s.trick:
                b[O_TRICK + 40 * actor + action] = 1.0
            else:  # the trick is complete: clear the table, credit the winner (the new leader)
                w = s.leader
                self.buf[O_TRICK : O_TRICK + 40 * N] = 0.0
                self.buf[O_LEADER : O_LEADER + N] = 0.0
                b[O_LEADER + w] = 1.0
                b[O_POINTS + w] = s.points[w] / TOTAL_POINTS
                b[O_TRICKS + w] = s.tricks_won[w] / NUM_TRICKS
            if s.revealed and not b[O_REVEALED]:
                b[O_REVEALED] = 1.0
                b[O_PARTNER + s.partner] = 1.0
            return
        if action < PASS:  # CALL
            self._set_call(s)
        elif action == PASS:
            b[O_PASSED + actor] = 1.0
        elif action < FORFEIT:  # BID
            b[O_BIDS + 60 * actor + action - BID] = 1.0
            b[O_HIGH] = (s.high - 60) / 60
            self.buf[O_HIGH_BIDDER : O_HIGH_BIDDER + N] = 0.0
            b[O_HIGH_BIDDER + actor] = 1.0
        else:  # NO_FORFEIT (FORFEIT always ends the hand, handled by the reset above)
            b[O_DECLINED + actor] = 1.0
        if s.phase == CALL_CARD and not b[O_CONTRACT]:
            self._set_contract(s)
        self._set_phase(s.phase)


#: `decode(obs)["phase"]` for each phase of the engine (indexed by the phase int).
PHASE_KEYS = ("forfeit_check", "auction", "call", "trick_play", "over")

#: The fields of `decode(obs)` that hold card ids, and how (`envs.core.cards.with_codes`):
#: `played` is a list of `(trick, relative seat, card)`.
CARD_FIELDS = {"hand": CARDS, "called_card": CARD, "played": 2, "trick": CARDS}


def decode(obs: np.ndarray | dict[str, np.ndarray], codes: bool = False) -> dict[str, Any]:
    """Readable view of one observation (relative seats: 0 is the observer).

    Heuristic agents act from this view only, so they cannot see more than the vector holds.
    Cards are ids; with `codes=True` every card (the fields of `CARD_FIELDS`) is its code
    instead, e.g. `"JS"`, and everything else is the same.
    """
    if isinstance(obs, dict):
        obs = obs["observation"]
    f = LAYOUT.unpack(np.asarray(obs))
    # Whole-array NumPy calls and plain-int lists (this runs on every heuristic decision).
    played_by = f["played_by"] != 0
    cards = played_by.any(axis=1).nonzero()[0]
    played = sorted(
        zip(
            (f["played_in_trick"][cards] != 0).argmax(axis=1).tolist(),  # first trick index
            played_by[cards].argmax(axis=1).tolist(),  # first seat
            cards.tolist(),
            strict=True,
        )
    )
    bids = {r: [BID_MIN + j for j in js] for r, js in enumerate(row_hits(f["bids"]))}
    trick_cards = {r: cards[0] for r, cards in enumerate(row_hits(f["current_trick"])) if cards}
    high_bidder = first_hit(f["high_bidder"])
    caller = first_hit(f["caller"])
    leader = first_hit(f["trick_leader"])
    trick = [trick_cards[(leader + i) % N] for i in range(len(trick_cards))] if leader is not None else []
    phase = first_hit(f["phase"])
    out = {
        "hand": f["hand"].nonzero()[0].tolist(),
        "holds_called": bool(f["holds_called"][0]),
        "phase": PHASE_KEYS[phase if phase is not None else OVER],
        "dealer": first_hit(f["dealer"]),
        "forfeit_declined": f["forfeit_declined"].nonzero()[0].tolist(),
        "bids": bids,
        "passed": f["passed"].nonzero()[0].tolist(),
        "high_bid": int(round(f["high_bid"][0] * 60 + 60)) if high_bidder is not None else None,
        "high_bidder": high_bidder,
        "caller": caller,
        "contract": int(round(f["contract"][0] * 60 + 60)) if caller is not None else None,
        "called_card": first_hit(f["called_card"]),
        "trump": first_hit(f["trump"]),
        "played": played,  # (trick, relative seat, card), sorted
        "trick": trick,  # cards on the table in play order
        "trick_leader": leader,
        "points_taken": np.rint(f["points_taken"] * TOTAL_POINTS).astype(int).tolist(),
        "tricks_taken": np.rint(f["tricks_taken"] * NUM_TRICKS).astype(int).tolist(),
        "partner_revealed": bool(f["partner_revealed"][0]),
        "partner": first_hit(f["partner"]),
        "match_scores": f["match_scores"].tolist(),
        "hands_left": float(f["hands_left"][0]),
        "trick_no": len({t for t, _, _ in played}) - (1 if trick else 0),
    }
    return with_codes(out, DECK, CARD_FIELDS) if codes else out
