"""Pigugnìn observation encoding: layout, incremental `Observer` and a readable `decode`.

Every seat axis is relative: relative seat `r` is absolute seat `(observer + r) % N`, so
the observer is always relative seat 0 and relative seat 1 plays right after it. The shape is
fixed per `num_players`: 546 floats with 4 players, 672 with 5 (`42 + 126 * N`). All
values are in `[0, 1]` except `busche` (totals / 10, which can exceed 1).

Index table for N = 4 (for N = 5 every seat axis has 5 rows; the order of the fields is the same):

{{observation_table}}

In `episode="game"` the per-hand fields restart when the next hand is dealt; the final
observation of an episode shows the last hand complete (points with the last-trick bonus)
and the busche totals after it. `decode(obs)` turns one observation back into a readable
dict with card ids (relative seats); `decode(obs, codes=True)` gives the same dict with card
codes such as `"JS"` for people.
"""

from __future__ import annotations

from typing import Any

import numpy as np

from envs.core.cards import CARDS, SEAT_CARDS, iter_bits, with_codes
from envs.core.docs import fill_tables
from envs.core.game import Observer
from envs.core.layout import ObsLayout, first_hit, row_hits
from envs.pigugnin.game import DECK, HAND_TOTAL, PIGUGNIN, PigugninGame, PigugninState

__all__ = ["make_layout", "LAYOUTS", "PigugninObserver", "decode", "CARD_FIELDS", "BUSCHE_SCALE", "MAX_HAND_BUSCHE"]

BUSCHE_SCALE = 10.0
#: the most busche one seat can pay in one hand: 35 points -> 16, +1 for the Pigugnìn
MAX_HAND_BUSCHE = 17


def make_layout(n: int) -> ObsLayout:
    lay = ObsLayout(n)
    lay.private("hand", (40,), "1 for each card id in the observer's own hand")
    lay.seat("played", (n, 40), "cards each relative seat has played this hand (tricks in progress included)")
    lay.seat("trick", (n, 40), "the trick in progress: the card each relative seat has put in it")
    lay.seat("trick_leader", (n,), "one-hot: who led (or is to lead) the trick in progress")
    lay.seat("captured", (n, 40), "cards in each relative seat's captured pile this hand")
    lay.seat("tricks_won", (n,), "tricks taken this hand / cards per hand (10 or 8)")
    lay.seat("points", (n,), "card points taken this hand / 35 (last-trick bonus added when the hand ends)")
    lay.seat("pig_taker", (n,), "one-hot: who captured the Pigugnìn (JS) this hand; zeros until then")
    lay.seat("busche", (n,), "busche totals of the game / 10")
    lay.seat("dealer", (n,), "one-hot: the dealer of this hand")
    lay.public("num_players", (2,), "one-hot: [4 players, 5 players]")
    return lay.build()


LAYOUTS = {4: make_layout(4), 5: make_layout(5)}
_BY_SIZE = {lay.obs_size: lay for lay in LAYOUTS.values()}
__doc__ = fill_tables(__doc__, observation_table=LAYOUTS[4].table())

# Flat absolute offsets, resolved once. They depend on the player count (a private field has a
# row per seat), so each is a dict by player count; the observer binds those of its own.
O_HAND, O_PLAYED, O_TRICK, O_LEADER, O_CAPTURED, O_TRICKS, O_POINTS, O_PIG, O_BUSCHE, O_DEALER, O_NUM_PLAYERS = (
    {n: lay.abs_offset(f) for n, lay in LAYOUTS.items()}
    for f in ("hand", "played", "trick", "trick_leader", "captured", "tricks_won", "points", "pig_taker", "busche",
              "dealer", "num_players")
)


class PigugninObserver(Observer):
    """Keeps the absolute buffer in step with the engine state, a few writes per card."""

    def __init__(self, game: PigugninGame):
        n = game.num_players
        self.layout = LAYOUTS[n]
        super().__init__(game)
        self.n = n
        self.hand_size = game.hand_size
        self.obs_high = max(1.0, (game.flags["sole_loss_threshold"] - 1 + MAX_HAND_BUSCHE) / BUSCHE_SCALE)
        # The offsets of this player count, as plain ints (hot path).
        self._o_hand, self._o_played, self._o_trick, self._o_leader, self._o_captured = (
            O_HAND[n], O_PLAYED[n], O_TRICK[n], O_LEADER[n], O_CAPTURED[n])
        self._o_tricks, self._o_points, self._o_pig = O_TRICKS[n], O_POINTS[n], O_PIG[n]
        self._hand_no = -1

    # The layout is a module constant (`LAYOUTS[n]`): copies share it and pickles name it by `n`.
    def __getstate__(self) -> dict[str, Any]:
        state = super().__getstate__()
        del state["layout"]
        return state

    def __setstate__(self, state: dict[str, Any]) -> None:
        super().__setstate__(state)
        self.layout = LAYOUTS[self.n]

    def reset(self, s: PigugninState) -> None:
        n = self.n
        buf = self.buf
        buf.fill(0.0)
        b = self._mv
        for p in range(n):
            for base, cards in (
                (O_HAND[n] + 40 * p, s.hands[p]), (O_PLAYED[n] + 40 * p, s.played[p]),
                (O_CAPTURED[n] + 40 * p, s.captured[p]),
            ):
                for c in iter_bits(cards):
                    b[base + c] = 1.0
        for i, c in enumerate(s.trick):
            b[O_TRICK[n] + 40 * ((s.leader + i) % n) + c] = 1.0
        b[O_LEADER[n] + s.leader] = 1.0
        for off, values, scale in (
            (O_TRICKS[n], s.tricks_won, self.hand_size), (O_POINTS[n], s.points, HAND_TOTAL),
            (O_BUSCHE[n], s.busche, BUSCHE_SCALE),
        ):
            buf[off : off + n] = np.asarray(values, dtype=np.float32) / scale
        if s.pig_taker >= 0:
            b[O_PIG[n] + s.pig_taker] = 1.0
        b[O_DEALER[n] + s.dealer] = 1.0
        b[O_NUM_PLAYERS[n] + n - 4] = 1.0
        self._hand_no = s.hand_no

    def update(self, s: PigugninState, actor: int, action: int) -> None:
        trick = s.trick
        if s.hand_no != self._hand_no or not trick and s.tricks_done == self.hand_size:
            # A hand ended (and maybe the next was dealt): rebuild, once per hand.
            self.reset(s)
            return
        b = self._mv
        row = actor * 40 + action
        b[self._o_hand + row] = 0.0
        b[self._o_played + row] = 1.0
        if trick:
            b[self._o_trick + row] = 1.0
            return
        # The trick just closed: clear it, fill the winner's pile and counters, move the leader.
        lead, cards, winner = s.trick_log[-1]
        self.buf[self._o_trick : self._o_trick + 40 * self.n] = 0.0
        base = self._o_captured + winner * 40
        for c in cards:
            b[base + c] = 1.0
        b[self._o_tricks + winner] = s.tricks_won[winner] / self.hand_size
        b[self._o_points + winner] = s.points[winner] / HAND_TOTAL
        if s.pig_taker == winner and PIGUGNIN in cards:
            b[self._o_pig + winner] = 1.0
        if lead != winner:
            b[self._o_leader + lead] = 0.0
            b[self._o_leader + winner] = 1.0


#: The fields of `decode(obs)` that hold card ids, and how (`envs.core.cards.with_codes`):
#: `trick` is a list of `(relative seat, card)`; `legal` (with a mask) are card ids too.
CARD_FIELDS = {"hand": CARDS, "played": SEAT_CARDS, "trick": 1, "captured": SEAT_CARDS, "legal": CARDS}


def decode(obs: Any, codes: bool = False) -> dict[str, Any]:
    """A readable view of one observation (seats relative: 0 = the observer).

    Accepts the observation vector or the `{"observation", "action_mask"}` dict. Returns
    `hand` (card ids), `played` / `captured` (card ids per relative seat), `trick`
    (`[(relative seat, card id)]` in play order), `trick_leader`, `tricks_won`,
    `points`, `pig_taker` (relative seat or None), `busche`, `dealer` and
    `num_players`; plus `legal` (card ids) when a mask is given. With `codes=True` every
    card (the fields of `CARD_FIELDS`) is its code instead, e.g. `"JS"`, and everything else
    is the same.
    """
    mask = None
    if isinstance(obs, dict):
        mask = obs.get("action_mask")
        obs = obs["observation"]
    obs = np.asarray(obs)
    lay = _BY_SIZE.get(obs.shape[0]) if obs.ndim == 1 else None
    if lay is None:
        sizes = ", ".join(f"({size},) for {lay.num_players} players" for size, lay in _BY_SIZE.items())
        raise ValueError(f"pigugnin.decode: expected an observation of shape {sizes}; got {obs.shape}")
    n = lay.num_players
    hand_size = 40 // n
    f = lay.unpack(obs)
    trick_leader = first_hit(f["trick_leader"])
    trick = []
    if trick_leader is not None:
        on_table = row_hits(f["trick"])
        for i in range(n):
            r = (trick_leader + i) % n
            if on_table[r]:
                trick.append((r, on_table[r][0]))
    out = {
        "num_players": n,
        "hand": f["hand"].nonzero()[0].tolist(),
        "played": row_hits(f["played"]),
        "trick": trick,
        "trick_leader": trick_leader,
        "captured": row_hits(f["captured"]),
        "tricks_won": [round(x * hand_size) for x in f["tricks_won"].tolist()],
        "points": [round(x * HAND_TOTAL) for x in f["points"].tolist()],
        "pig_taker": first_hit(f["pig_taker"]),
        "busche": [round(x * BUSCHE_SCALE) for x in f["busche"].tolist()],
        "dealer": first_hit(f["dealer"]),
    }
    if mask is not None:
        out["legal"] = np.flatnonzero(mask).tolist()
    return with_codes(out, DECK, CARD_FIELDS) if codes else out
