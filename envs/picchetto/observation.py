"""Picchetto: the observation encoder, its inverse `decode` and the structured `view`.

Seat-relative: relative seat 0 is the observer, relative seat 1 the opponent. Shape `(OBS_SIZE,)`,
float32, values in `[0, OBS_HIGH]` (scores are divided by the current game's target and may
pass 1; they are clipped at `OBS_HIGH` = 4, which only very small custom targets can reach).
Only what the seat may know is encoded (spec 5.1): its own hand, discards, drawn cards (and,
with `allow_peek`, the talon cards it could have drawn); the opponent's Bianco hand, the
cards each player showed in the declarations, the public announcements and answers, the count
of cards each player exchanged, every card played, the trick in progress, all scores.

{{observation_table}}

The table is `LAYOUT.table()`. `decode(obs)` turns one observation back into the readable
dict that `view(game, state, seat)` builds from the state; heuristic agents use that dict.
Cards are ids; `decode(obs, codes=True)` gives the same dict with card codes such as `"Ts"`
for people.
"""

from __future__ import annotations

from typing import Any

import numpy as np

from envs.core.cards import CARD, CARDS, SEAT_CARDS, iter_bits, with_codes
from envs.core.docs import fill_tables
from envs.core.game import Observer
from envs.core.layout import ObsLayout, first_hit, row_hits
from envs.picchetto.game import (
    ANSWERS,
    DECK,
    DECLARATIONS,
    NUM_TRICKS,
    OVER,
    PHASE_NAMES,
    TRICK_FOLLOW,
    TRICK_LEAD,
    PicchettoGame,
    PicchettoState,
)

OBS_HIGH = 4.0
TARGET_SCALE = 220.0
POINT_SCALE = 80.0
DECL_SCALE = 40.0
EXCHANGE_SCALE = 8.0

LAYOUT = ObsLayout(2)
LAYOUT.private("hand", (32,), "own cards now (card id)")
LAYOUT.private("discards", (32,), "own discards this hand")
LAYOUT.private("drawn", (32,), "talon cards drawn this hand")
LAYOUT.private("peeked", (32,), "talon cards one could have drawn but did not (only with `allow_peek`)")
LAYOUT.public("phase", (5,), "one-hot: elder exchange, dealer exchange, trick lead, trick follow, over")
LAYOUT.seat("dealer", (2,), "one-hot dealer of this hand")
LAYOUT.seat("bianco_hand", (2, 32), "the 12 dealt cards of a seat that declared Bianco")
LAYOUT.seat("bonuses", (2, 2), "seat r declared Bianco (col 0), made repique (col 1)")
LAYOUT.seat("pique", (2,), "seat r made pique")
LAYOUT.seat("exchanged", (2,), "cards exchanged by seat r / 8")
LAYOUT.public("answers", (3, 4), "declaration d (point, sequence, sets) answer one-hot: va bene, uguale, "
              "non basta, nessuno")
LAYOUT.seat("point_value", (2,), "publicly known point value of seat r / 80 (0: not known)")
LAYOUT.seat("sequence", (2, 2), "known best sequence of seat r: length / 8, (top rank + 1) / 8")
LAYOUT.seat("sets", (2, 2), "known best set of seat r: size / 4, (rank + 1) / 8")
LAYOUT.seat("decl_points", (2, 3), "points seat r won with the point, sequences, sets / 40")
LAYOUT.seat("revealed", (2, 32), "cards seat r showed in the declarations")
LAYOUT.seat("played", (2, 32), "cards seat r has played this hand (the card on the table too)")
LAYOUT.public("trick_card", (32,), "one-hot card led in the trick in progress")
LAYOUT.seat("leader", (2,), "one-hot leader of the trick in progress (trick phases)")
LAYOUT.public("trick_no", (1,), "tricks completed this hand / 12")
LAYOUT.seat("tricks_won", (2,), "tricks won by seat r this hand / 12")
LAYOUT.seat("hand_score", (2,), "points of seat r this hand / target")
LAYOUT.seat("game_score", (2,), "game score of seat r / target")
LAYOUT.seat("games_won", (2,), "games of the match won by seat r / 2")
LAYOUT.public("game_number", (3,), "one-hot partita, rivincita, bella")
LAYOUT.public("target", (1,), "target of this game / 220")
LAYOUT.public("leftover", (32,), "undrawn talon cards (only with `reveal_leftover_talon`)")
LAYOUT.build()

OBS_SIZE = LAYOUT.obs_size
__doc__ = fill_tables(__doc__, observation_table=LAYOUT.table())

# Flat absolute offsets, resolved once (private fields: + 32 * seat; seat fields: + size_per_seat * seat).
O_HAND, O_DISCARDS, O_DRAWN, O_PEEKED = (LAYOUT.abs_offset(f) for f in ("hand", "discards", "drawn", "peeked"))
O_PHASE, O_DEALER, O_BIANCO_HAND, O_BONUSES, O_PIQUE = (
    LAYOUT.abs_offset(f) for f in ("phase", "dealer", "bianco_hand", "bonuses", "pique"))
O_EXCHANGED, O_ANSWERS, O_POINT, O_SEQ, O_SETS = (
    LAYOUT.abs_offset(f) for f in ("exchanged", "answers", "point_value", "sequence", "sets"))
O_DECL_POINTS, O_REVEALED, O_PLAYED, O_TRICK, O_LEADER = (
    LAYOUT.abs_offset(f) for f in ("decl_points", "revealed", "played", "trick_card", "leader"))
O_TRICK_NO, O_TRICKS, O_HAND_SCORE, O_GAME_SCORE, O_GAMES_WON = (
    LAYOUT.abs_offset(f) for f in ("trick_no", "tricks_won", "hand_score", "game_score", "games_won"))
O_GAME_NO, O_TARGET, O_LEFTOVER = (LAYOUT.abs_offset(f) for f in ("game_number", "target", "leftover"))


class PicchettoObserver(Observer):
    """Keeps the absolute buffer in step with the engine state.

    Discards, card plays and the end of an exchange (the draw, the dealer's Bianco, the
    declarations) are incremental; a new hand, a new game and the end of the episode bump the
    state's `epoch` and trigger a full rebuild.
    """

    layout = LAYOUT
    obs_low = 0.0
    obs_high = OBS_HIGH

    def __init__(self, game: PicchettoGame):
        super().__init__(game)
        self._epoch = -1
        self._scale = 1.0
        self._phase = 0
        self._led = -1
        self._nev = 0

    def reset(self, s: PicchettoState) -> None:
        """Full rebuild from the state."""
        self.buf.fill(0.0)
        b = self._mv
        self._epoch = s.epoch
        self._scale = 1.0 / s.target
        self._phase = s.phase
        self._led = s.led
        b[O_PHASE + s.phase] = 1.0
        for p in (0, 1):
            for off, mask in (
                (O_HAND, s.hands[p]), (O_DISCARDS, s.discards[p]), (O_DRAWN, s.drawn[p]), (O_PEEKED, s.peeked[p]),
                (O_PLAYED, s.played[p]),
            ):
                base = off + 32 * p
                for c in iter_bits(mask):
                    b[base + c] = 1.0
            b[O_EXCHANGED + p] = s.ndisc[p] / EXCHANGE_SCALE
            b[O_TRICKS + p] = s.tricks_won[p] / NUM_TRICKS
            b[O_GAMES_WON + p] = s.games_won[p] / 2
            if s.pique_by == p:
                b[O_PIQUE + p] = 1.0
            if s.bianco[p]:
                self._bianco(s, p)
        if s.decl is not None:
            self._declarations(s)
        self._scores(s)
        b[O_DEALER + s.dealer] = 1.0
        if s.led >= 0:
            b[O_TRICK + s.led] = 1.0
        if s.phase == TRICK_LEAD or s.phase == TRICK_FOLLOW:
            b[O_LEADER + s.leader] = 1.0
        b[O_TRICK_NO] = s.trick_no / NUM_TRICKS
        b[O_GAME_NO + min(s.game_no, 2)] = 1.0
        b[O_TARGET] = min(s.target / TARGET_SCALE, OBS_HIGH)
        if self.game.flags["reveal_leftover_talon"]:
            for c in iter_bits(s.leftover):
                b[O_LEFTOVER + c] = 1.0

    def _scores(self, s: PicchettoState) -> None:
        b, scale = self._mv, self._scale
        self._nev = len(s.events)
        hs, gs = s.hand_score, s.game_score
        b[O_HAND_SCORE] = min(hs[0] * scale, OBS_HIGH)
        b[O_HAND_SCORE + 1] = min(hs[1] * scale, OBS_HIGH)
        b[O_GAME_SCORE] = min(gs[0] * scale, OBS_HIGH)
        b[O_GAME_SCORE + 1] = min(gs[1] * scale, OBS_HIGH)

    def _bianco(self, s: PicchettoState, p: int) -> None:
        b = self._mv
        b[O_BONUSES + 2 * p] = 1.0
        for c in iter_bits(s.dealt[p]):
            b[O_BIANCO_HAND + 32 * p + c] = 1.0

    def _declarations(self, s: PicchettoState) -> None:
        """The public outcome of the three declarations and of the repique check."""
        b = self._mv
        for i in range(3):
            if s.answers[i] >= 0:
                b[O_ANSWERS + 4 * i + s.answers[i]] = 1.0
        for p in (0, 1):
            for c in iter_bits(s.revealed[p]):
                b[O_REVEALED + 32 * p + c] = 1.0
            b[O_POINT + p] = s.pub_point[p] / POINT_SCALE
            seq, sets = s.pub_seq[p], s.pub_set[p]
            if seq is not None:
                b[O_SEQ + 2 * p] = seq[0] / 8
                b[O_SEQ + 2 * p + 1] = (seq[1] + 1) / 8
            if sets is not None:
                b[O_SETS + 2 * p] = sets[0] / 4
                b[O_SETS + 2 * p + 1] = (sets[1] + 1) / 8
            dp = s.decl_points[p]
            for i in range(3):
                b[O_DECL_POINTS + 3 * p + i] = dp[i] / DECL_SCALE
            if s.repique_by == p:
                b[O_BONUSES + 2 * p + 1] = 1.0

    def _exchange_done(self, s: PicchettoState, seat: int) -> None:
        """`seat` ended his exchange: his draw, then the dealer's Bianco or the declarations."""
        b = self._mv
        for c in iter_bits(s.drawn[seat]):
            b[O_HAND + 32 * seat + c] = 1.0
            b[O_DRAWN + 32 * seat + c] = 1.0
        for c in iter_bits(s.peeked[seat]):
            b[O_PEEKED + 32 * seat + c] = 1.0
        if seat == s.elder:
            if s.bianco[s.dealer]:
                self._bianco(s, s.dealer)
        else:
            self._declarations(s)
            b[O_LEADER + s.leader] = 1.0
            if self.game.flags["reveal_leftover_talon"]:
                for c in iter_bits(s.leftover):
                    b[O_LEFTOVER + c] = 1.0
        self._scores(s)

    def update(self, s: PicchettoState, actor: int, action: int) -> None:
        if s.epoch != self._epoch:  # a new hand or game, or the end of the episode
            self.reset(s)
            return
        b = self._mv
        phase = s.phase
        if action >= 32:  # exchange
            if action < 64:
                c = action - 32
                b[O_HAND + 32 * actor + c] = 0.0
                b[O_DISCARDS + 32 * actor + c] = 1.0
                b[O_EXCHANGED + actor] = s.ndisc[actor] / EXCHANGE_SCALE
            if phase != self._phase:
                b[O_PHASE + self._phase] = 0.0
                b[O_PHASE + phase] = 1.0
                self._phase = phase
                self._exchange_done(s, actor)
            return
        b[O_HAND + 32 * actor + action] = 0.0
        b[O_PLAYED + 32 * actor + action] = 1.0
        if phase == TRICK_FOLLOW:  # a lead
            b[O_TRICK + action] = 1.0
            self._led = action
        else:  # a follow: the trick is complete
            b[O_TRICK + self._led] = 0.0
            self._led = -1
            w = s.leader
            b[O_LEADER + 1 - w] = 0.0
            b[O_LEADER + w] = 1.0
            b[O_TRICKS + w] = s.tricks_won[w] / NUM_TRICKS
            b[O_TRICK_NO] = s.trick_no / NUM_TRICKS
        b[O_PHASE + self._phase] = 0.0
        b[O_PHASE + phase] = 1.0
        self._phase = phase
        if len(s.events) != self._nev:  # something was scored
            self._scores(s)
            if s.pique_by >= 0:
                b[O_PIQUE + s.pique_by] = 1.0


# -- readable views ---------------------------------------------------------------------------

#: `view(...)["phase"]` and `decode(obs)["phase"]` for each phase (indexed by the phase int).
PHASE_KEYS = tuple(name.lower() for name in PHASE_NAMES)

#: The fields of `decode(obs)` (and of `view`) that hold card ids, and how
#: (`envs.core.cards.with_codes`).
CARD_FIELDS = {
    "hand": CARDS, "discards": CARDS, "drawn": CARDS, "peeked": CARDS, "bianco_hand": SEAT_CARDS,
    "revealed": SEAT_CARDS, "played": SEAT_CARDS, "trick_card": CARD, "leftover": CARDS,
}


def _cards(mask: int) -> list[int]:
    return list(iter_bits(mask))


def view(game: PicchettoGame, s: PicchettoState, seat: int) -> dict[str, Any]:
    """What `seat` may know, as a readable dict (relative seats: index 0 is `seat`).

    Built from the state independently of the encoder; `decode(observe(seat))` returns the
    same dict. Card ids are the canonical indices (`envs.core.cards.FRENCH`).
    """
    order = (seat, 1 - seat)
    over = s.over
    trick_phase = s.phase in (TRICK_LEAD, TRICK_FOLLOW)

    def clip(score: int) -> int:
        # scores beyond OBS_HIGH * target are clipped in the vector
        return min(score, int(np.floor(OBS_HIGH * s.target)))

    declarations = {}
    pubs = (s.pub_point, s.pub_seq, s.pub_set)
    for i, name in enumerate(DECLARATIONS):
        if name == "point":
            known = [s.pub_point[p] or None for p in order]
        else:
            known = [tuple(pubs[i][p]) if pubs[i][p] is not None else None for p in order]
        declarations[name] = {
            "answer": ANSWERS[s.answers[i]] if s.answers[i] >= 0 else None,
            "best": known,
            "points": [s.decl_points[p][i] for p in order],
        }
    return {
        "phase": PHASE_KEYS[s.phase],
        "dealer": 0 if s.dealer == seat else 1,
        "hand": _cards(s.hands[seat]),
        "discards": _cards(s.discards[seat]),
        "drawn": _cards(s.drawn[seat]),
        "peeked": _cards(s.peeked[seat]),
        "bianco": [s.bianco[p] for p in order],
        "bianco_hand": [_cards(s.dealt[p]) if s.bianco[p] else [] for p in order],
        "repique": [s.repique_by == p for p in order],
        "pique": [s.pique_by == p for p in order],
        "exchanged": [s.ndisc[p] for p in order],
        "declarations": declarations,
        "revealed": [_cards(s.revealed[p]) for p in order],
        "played": [_cards(s.played[p]) for p in order],
        "trick_card": s.led if s.led >= 0 else None,
        "leader": (0 if s.leader == seat else 1) if trick_phase and not over else None,
        "trick_no": s.trick_no,
        "tricks_won": [s.tricks_won[p] for p in order],
        "hand_score": [clip(s.hand_score[p]) for p in order],
        "game_score": [clip(s.game_score[p]) for p in order],
        "games_won": [s.games_won[p] for p in order],
        "game_number": min(s.game_no, 2) + 1,
        "target": s.target,
        "leftover": _cards(s.leftover) if game.flags["reveal_leftover_talon"] else [],
    }


def decode(obs: np.ndarray | dict[str, np.ndarray], codes: bool = False) -> dict[str, Any]:
    """Readable view of one observation (relative seats: index 0 is the observer).

    Returns the same dict as `view`: phase, dealer, own hand / discards / drawn / peeked,
    the Bianco hands, bonuses, exchange counts, the declarations (answer in Italian, the known
    best holding of each seat, points won), revealed and played cards, the trick in progress,
    tricks won, hand and game scores, games won, game number and target, the leftover talon.
    With `codes=True` every card (the fields of `CARD_FIELDS`) is its code instead, e.g.
    `"Ts"`, and everything else is the same.
    """
    if isinstance(obs, dict):
        obs = obs["observation"]
    f = LAYOUT.unpack(np.asarray(obs))
    # Whole-array NumPy calls and plain-float lists (this runs on every heuristic decision).

    def cards(row: np.ndarray) -> list[int]:
        return row.nonzero()[0].tolist()

    target = round(f["target"].item() * TARGET_SCALE)
    phase = first_hit(f["phase"])
    answers = f["answers"].tolist()
    decl_points = f["decl_points"].T.tolist()
    declarations = {}
    for i, name in enumerate(DECLARATIONS):
        answer = next((j for j, v in enumerate(answers[i]) if v), None)
        if name == "point":
            best = [round(v * POINT_SCALE) or None for v in f["point_value"].tolist()]
        else:
            held = f["sequence"] if name == "sequence" else f["sets"]
            scale = 8 if name == "sequence" else 4
            best = [(round(r[0] * scale), round(r[1] * 8) - 1) if r[0] > 0 else None for r in held.tolist()]
        declarations[name] = {
            "answer": ANSWERS[answer] if answer is not None else None,
            "best": best,
            "points": [round(v * DECL_SCALE) for v in decl_points[i]],
        }
    bonuses = f["bonuses"].tolist()
    out = {
        "phase": PHASE_KEYS[phase if phase is not None else OVER],
        "dealer": first_hit(f["dealer"]),
        "hand": cards(f["hand"]),
        "discards": cards(f["discards"]),
        "drawn": cards(f["drawn"]),
        "peeked": cards(f["peeked"]),
        "bianco": [bool(b[0]) for b in bonuses],
        "bianco_hand": row_hits(f["bianco_hand"]),
        "repique": [bool(b[1]) for b in bonuses],
        "pique": [bool(x) for x in f["pique"].tolist()],
        "exchanged": [round(x * EXCHANGE_SCALE) for x in f["exchanged"].tolist()],
        "declarations": declarations,
        "revealed": row_hits(f["revealed"]),
        "played": row_hits(f["played"]),
        "trick_card": first_hit(f["trick_card"]),
        "leader": first_hit(f["leader"]),
        "trick_no": round(f["trick_no"].item() * NUM_TRICKS),
        "tricks_won": [round(x * NUM_TRICKS) for x in f["tricks_won"].tolist()],
        "hand_score": [round(x * target) for x in f["hand_score"].tolist()],
        "game_score": [round(x * target) for x in f["game_score"].tolist()],
        "games_won": [round(x * 2) for x in f["games_won"].tolist()],
        "game_number": (first_hit(f["game_number"]) or 0) + 1,
        "target": target,
        "leftover": cards(f["leftover"]),
    }
    return with_codes(out, DECK, CARD_FIELDS) if codes else out
