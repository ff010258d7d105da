"""Pigugnìn observation encoding: layout, incremental ``Observer`` and a readable ``decode``.

Every seat axis is relative: relative seat ``r`` is absolute seat ``(observer + r) % N``, so
the observer is always relative seat 0 and relative seat 1 plays right after it. The shape is
fixed per ``num_players``: 546 floats with 4 players, 672 with 5 (``42 + 126 * N``). All
values are in ``[0, 1]`` except ``busche`` (totals / 10, which can exceed 1).

Index table for N = 4 (for N = 5 every seat axis has 5 rows; the order of the fields is the same):

| slice | field | shape | kind | meaning |
|---|---|---|---|---|
| 0:40 | `hand` | (40,) | private | 1 for each card id in the observer's own hand |
| 40:200 | `played` | (4, 40) | seat | cards each relative seat has played this hand (tricks in progress included) |
| 200:360 | `trick` | (4, 40) | seat | the trick in progress: the card each relative seat has put in it |
| 360:364 | `trick_leader` | (4,) | seat | one-hot: who led (or is to lead) the trick in progress |
| 364:524 | `captured` | (4, 40) | seat | cards in each relative seat's captured pile this hand |
| 524:528 | `tricks_won` | (4,) | seat | tricks taken this hand / cards per hand (10 or 8) |
| 528:532 | `points` | (4,) | seat | card points taken this hand / 35 (last-trick bonus added when the hand ends) |
| 532:536 | `pig_holder` | (4,) | seat | one-hot: who captured the Pigugnìn (JS) this hand; zeros until then |
| 536:540 | `busche` | (4,) | seat | busche totals of the game / 10 |
| 540:544 | `dealer` | (4,) | seat | one-hot: the dealer of this hand |
| 544:546 | `num_players` | (2,) | public | one-hot: [4 players, 5 players] |

In ``episode="game"`` the per-hand fields restart when the next hand is dealt; the final
observation of an episode shows the last hand complete (points with the last-trick bonus)
and the busche totals after it.
"""

from __future__ import annotations

from typing import Any

import numpy as np

from envs.core.game import Observer
from envs.core.layout import ObsLayout, first_hit, row_hits
from envs.pigugnin.game import HAND_TOTAL, PigugninGame, PigugninState

__all__ = ["make_layout", "LAYOUTS", "PigugninObserver", "decode", "BUSCHE_SCALE", "MAX_HAND_BUSCHE"]

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
    lay.seat("pig_holder", (n,), "one-hot: who captured the Pigugnìn (JS) this hand; zeros until then")
    lay.seat("busche", (n,), "busche totals of the game / 10")
    lay.seat("dealer", (n,), "one-hot: the dealer of this hand")
    lay.public("num_players", (2,), "one-hot: [4 players, 5 players]")
    return lay.build()


LAYOUTS = {4: make_layout(4), 5: make_layout(5)}
_BY_SIZE = {lay.obs_size: lay for lay in LAYOUTS.values()}


class PigugninObserver(Observer):
    """Keeps the absolute buffer in step with the engine state, a few writes per card."""

    def __init__(self, game: PigugninGame):
        n = game.num_players
        self.layout = LAYOUTS[n]
        super().__init__(game)
        self.n = n
        self.hand_size = game.hand_size
        lay = self.layout
        self.obs_high = max(1.0, (game.flags["sole_loss_threshold"] - 1 + MAX_HAND_BUSCHE) / BUSCHE_SCALE)
        self._off = {name: f.abs_offset for name, f in lay.fields.items()}
        # The three per-card fields written on every step, as plain ints (hot path).
        self._o_hand, self._o_played, self._o_trick = self._off["hand"], self._off["played"], self._off["trick"]
        self._hand_no = -1
        # Only the buffer and plain ints are kept, never a view of the buffer: a view would go
        # on pointing into the original's buffer after ``copy.deepcopy`` or pickling.

    # The layout is a module constant (``LAYOUTS[n]``): copies share it and pickles name it by ``n``.
    def __getstate__(self) -> dict[str, Any]:
        state = self.__dict__.copy()
        del state["layout"]
        return state

    def __setstate__(self, state: dict[str, Any]) -> None:
        self.__dict__.update(state)
        self.layout = LAYOUTS[self.n]

    def reset(self, s: PigugninState) -> None:
        n = self.n
        buf = self.buf
        buf[:] = 0.0
        off = self._off
        for p in range(n):
            for name, cards in (("hand", s.hands[p]), ("played", s.played[p]), ("captured", s.captured[p])):
                base = off[name] + 40 * p
                for c in _bits(cards):
                    buf[base + c] = 1.0
        for i, c in enumerate(s.trick):
            buf[off["trick"] + 40 * ((s.leader + i) % n) + c] = 1.0
        buf[off["trick_leader"] + s.leader] = 1.0
        for name, values, scale in (
            ("tricks_won", s.tricks_won, self.hand_size), ("points", s.points, HAND_TOTAL), ("busche", s.busche, BUSCHE_SCALE)
        ):
            buf[off[name] : off[name] + n] = np.asarray(values, dtype=np.float32) / scale
        if s.pig_taker >= 0:
            buf[off["pig_holder"] + s.pig_taker] = 1.0
        buf[off["dealer"] + s.dealer] = 1.0
        buf[off["num_players"] + n - 4] = 1.0
        self._hand_no = s.hand_no

    def update(self, s: PigugninState, actor: int, action: int) -> None:
        trick = s.trick
        if s.hand_no != self._hand_no or not trick and s.tricks_done == self.hand_size:
            # A hand ended (and maybe the next was dealt): rebuild, once per hand.
            self.reset(s)
            return
        buf = self.buf
        row = actor * 40 + action
        buf[self._o_hand + row] = 0.0
        buf[self._o_played + row] = 1.0
        if trick:
            buf[self._o_trick + row] = 1.0
            return
        off = self._off
        # The trick just closed: clear it, fill the winner's pile and counters, move the leader.
        lead, cards, winner = s.trick_log[-1]
        buf[self._o_trick : self._o_trick + 40 * self.n] = 0.0
        base = off["captured"] + winner * 40
        for c in cards:
            buf[base + c] = 1.0
        buf[off["tricks_won"] + winner] = s.tricks_won[winner] / self.hand_size
        buf[off["points"] + winner] = s.points[winner] / HAND_TOTAL
        if s.pig_taker == winner and 27 in cards:
            buf[off["pig_holder"] + winner] = 1.0
        if lead != winner:
            buf[off["trick_leader"] + lead] = 0.0
            buf[off["trick_leader"] + winner] = 1.0


def _bits(mask: int):
    while mask:
        low = mask & -mask
        yield low.bit_length() - 1
        mask ^= low


def decode(obs: Any) -> dict[str, Any]:
    """A readable view of one observation (seats relative: 0 = the observer).

    Accepts the observation vector or the ``{"observation", "action_mask"}`` dict. Returns
    ``hand`` (card ids), ``played`` / ``captured`` (card ids per relative seat), ``trick``
    (``[(relative seat, card id)]`` in play order), ``trick_leader``, ``tricks_won``,
    ``points``, ``pig_holder`` (relative seat or None), ``busche``, ``dealer`` and
    ``num_players``; plus ``legal`` (card ids) when a mask is given.
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
        "pig_holder": first_hit(f["pig_holder"]),
        "busche": [round(x * BUSCHE_SCALE) for x in f["busche"].tolist()],
        "dealer": first_hit(f["dealer"]),
    }
    if mask is not None:
        out["legal"] = np.flatnonzero(mask).tolist()
    return out
