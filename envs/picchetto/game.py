"""Picchetto (Italian Piquet): the pure rules engine.

The rules are `docs/rules/picchetto.md`; the codes cited in this package (P1..P18 for the
flags and decisions, E1..E19 for the scoring events, "spec 3.1" for its sections) refer to
that file.

Plain mutable state with `__slots__`, card sets as int bitmasks, no NumPy on the hot path.
Only four states wait for an agent; every engine state of the spec (deal, Bianco, the three
declarations, repique, trick resolution, cards/capot, the target check, the next hand or
game) runs inside `apply` (and `new_state` for the first deal):

| `Phase` (int)         | actor  | legal action ids                                                     |
|-----------------------|--------|----------------------------------------------------------------------|
| `ELDER_EXCHANGE` 0    | elder  | 32+c for c in hand (while fewer than 5 discards); 64 after >= 1 discard |
| `DEALER_EXCHANGE` 1   | dealer | 32+c for c in hand (fewer than 8 - elder's discards); 64 after `dealer_min_exchange` |
| `TRICK_LEAD` 2        | leader | c for c in hand                                                      |
| `TRICK_FOLLOW` 3      | other  | c in hand per the follow rule (spec 3.1, `must_head_trick`)          |
| `OVER` 4              | -      | none                                                                 |

Scoring events happen in the spec's order E1..E19 through `_score`, which adds to the hand
and game scores, to the pending zero-sum rewards and to the hand's event log, and checks the
target right away (`game_end_check="immediate"`): a game can end in the middle of a hand.
"""

from __future__ import annotations

from collections.abc import Mapping
from enum import IntEnum
from typing import Any

import numpy as np

from envs.core.cards import FRENCH, iter_bits
from envs.core.errors import DealError
from envs.core.flags import Flag, int_range, real_number, seat_or_random
from envs.core.game import RESULT_VERSION, CardGame, check_options, parse_hands, parse_seat

DECK = FRENCH
NUM_PLAYERS = 2
HAND_SIZE = 12
TALON_SIZE = 8
FIRST_PACKET = 5
NUM_TRICKS = 12
NUM_ACTIONS = 65
PLAY, DISCARD, END_EXCHANGE = 0, 32, 64


class Phase(IntEnum):
    """The states in which an agent acts (plus `OVER`); engine states run inside `apply`."""

    ELDER_EXCHANGE = 0
    DEALER_EXCHANGE = 1
    TRICK_LEAD = 2
    TRICK_FOLLOW = 3
    OVER = 4


# Plain ints on the hot path (IntEnum comparisons and attribute access are slower); the state
# stores these ints.
ELDER_EXCHANGE, DEALER_EXCHANGE, TRICK_LEAD, TRICK_FOLLOW, OVER = (int(p) for p in Phase)
PHASE_NAMES = tuple(p.name for p in Phase)

# -- card tables (spec 1.1) ------------------------------------------------------------------
SUIT = DECK.suit_of
CODES = DECK.codes
RANK = DECK.rank_of
SUIT_MASK = DECK.suit_mask
DECL_VALUE = (7, 8, 9, 10, 10, 10, 10, 11)
RANK_NAMES = ("Sette", "Otto", "Nove", "Dieci", "Fante", "Donna", "Re", "Asso")
RANK_PLURAL = ("Sette", "Otto", "Nove", "Dieci", "Fanti", "Donne", "Re", "Assi")
#: J, Q, K of every suit ("figure"): a hand without any is Bianco.
FACE_MASK = sum(0b01110000 << (8 * s) for s in range(4))
#: `HIGHER[c]`: the cards of c's suit that outrank c (ids grow with rank inside a suit).
HIGHER = tuple(SUIT_MASK[c >> 3] & ~((2 << c) - 1) for c in range(32))
#: value sum of a suit by its 8-bit rank pattern (spec 4.2)
SUIT_VALUE = tuple(sum(DECL_VALUE[r] for r in range(8) if p >> r & 1) for p in range(256))

# -- scoring constants (spec 4.1) ------------------------------------------------------------
BIANCO = 10
SEQUENCE_POINTS = {3: 3, 4: 4, 5: 15, 6: 16, 7: 17, 8: 18}
SET_POINTS = {3: 3, 4: 14}
SET_MIN_RANK = 3  # sets count only 10, J, Q, K, A
CARDS = 10
CAPOT = 40
PIQUE = 30
REPIQUE = 60
PIQUE_THRESHOLD = 30

# Answers to a declaration (the dealer's reply to the elder's announcement).
VA_BENE, UGUALE, NON_BASTA, NESSUNO = 0, 1, 2, 3
ANSWERS = ("va bene", "uguale", "non basta", "nessuno")
DECLARATIONS = ("point", "sequence", "sets")


def _runs(pattern: int) -> tuple[tuple[int, int, int], ...]:
    """Maximal runs of >= 3 consecutive ranks in an 8-bit pattern: (length, top rank, bits)."""
    out, r = [], 0
    while r < 8:
        if pattern >> r & 1:
            start = r
            while r < 8 and pattern >> r & 1:
                r += 1
            if r - start >= 3:
                out.append((r - start, r - 1, ((1 << (r - start)) - 1) << start))
        else:
            r += 1
    return tuple(out)


RUNS = tuple(_runs(p) for p in range(256))


# -- declarations: pure functions of the hands (spec 4.2-4.4) -------------------------------


def point_of(hand: int) -> tuple[int, int, int]:
    """`(value, cards, suit)` of a hand's point: the largest suit value sum; ties on value go to
    the suit with more cards (P13), then to the lowest suit index (h, d, s, c)."""
    best = (-1, 0, -1)
    for s in range(4):
        pattern = (hand >> (8 * s)) & 0xFF
        if pattern:
            key = (SUIT_VALUE[pattern], pattern.bit_count(), s)
            if key[:2] > best[:2]:
                best = key
    return best


def sequences_of(hand: int) -> list[tuple[int, int, int]]:
    """Every maximal run of >= 3 cards of one suit: `(length, top rank, card mask)`, best first."""
    out = []
    for s in range(4):
        for length, top, bits in RUNS[(hand >> (8 * s)) & 0xFF]:
            out.append((length, top, bits << (8 * s)))
    out.sort(key=lambda t: (t[0], t[1]), reverse=True)
    return out


def sets_of(hand: int) -> list[tuple[int, int, int]]:
    """Every trio / quatorze of 10, J, Q, K, A: `(size, rank, card mask)`, best first."""
    out = []
    for r in range(7, SET_MIN_RANK - 1, -1):
        mask = hand & (0x01010101 << r)
        n = mask.bit_count()
        if n >= 3:
            out.append((n, r, mask))
    out.sort(key=lambda t: (t[0], t[1]), reverse=True)
    return out


def _compare(elder: tuple | None, dealer: tuple | None) -> int:
    """The dealer's answer to the elder's announcement (None: no such holding)."""
    if elder is None and dealer is None:
        return NESSUNO
    if dealer is None or (elder is not None and elder > dealer):
        return VA_BENE
    if elder is None or dealer > elder:
        return NON_BASTA
    return UGUALE


def declare(elder_hand: int, dealer_hand: int) -> dict[str, dict[str, Any]]:
    """The three automatic declarations for the hands after the exchange.

    Each entry has `best` (per role, elder first: the announced holding or None), `answer`
    (an index into `ANSWERS`), `winner` (0 elder, 1 dealer, None), `points` (scored by
    the winner) and `reveal` (per role, the card mask made public).
    """
    hands = (elder_hand, dealer_hand)
    out: dict[str, dict[str, Any]] = {}
    # E3: point, compared by value only ("uguale" on equal values).
    points = [point_of(h) for h in hands]
    answer = _compare(points[0][0], points[1][0])
    reveal = [0, 0]
    winner, pts = None, 0
    if answer == UGUALE:
        reveal = [hands[i] & SUIT_MASK[points[i][2]] for i in (0, 1)]
    else:
        winner = 0 if answer == VA_BENE else 1
        pts = points[winner][1]
        reveal[winner] = hands[winner] & SUIT_MASK[points[winner][2]]
    out["point"] = {"best": [p[:2] for p in points], "answer": answer, "winner": winner, "points": pts,
                    "reveal": reveal}
    # E4 sequences and E5 sets: the winner scores (and shows) all his holdings of the kind.
    for name, finder, table in (("sequence", sequences_of, SEQUENCE_POINTS), ("sets", sets_of, SET_POINTS)):
        held = [finder(h) for h in hands]
        best = [h[0][:2] if h else None for h in held]
        answer = _compare(best[0], best[1])
        reveal = [0, 0]
        winner, pts = None, 0
        if answer in (VA_BENE, NON_BASTA):
            winner = 0 if answer == VA_BENE else 1
            for size, _, mask in held[winner]:
                pts += table[size]
                reveal[winner] |= mask
        out[name] = {"best": best, "answer": answer, "winner": winner, "points": pts, "reveal": reveal}
    return out


def follow_mask(hand: int, led: int, must_head: bool = True) -> int:
    """Cards the follower may play to `led` (spec 3.1)."""
    same = hand & SUIT_MASK[led >> 3]
    if not same:
        return hand
    if must_head:
        higher = same & HIGHER[led]
        if higher:
            return higher
    return same


FLAGS = (
    Flag("first_dealer", "random", "dealer of the first hand of the match (P1)", check=seat_or_random(1),
         allowed_text="'random', 0, 1"),
    Flag("trick_scoring", "seed", "'seed': 1 per trick won, 2 for the last; 'classic': 1 per lead, 1 per "
         "trick won against the lead, +1 for the last (P17)", allowed=("seed", "classic")),
    Flag("must_head_trick", True, "the follower must beat the led card when he can (P7)", allowed=(True, False)),
    Flag("dealer_min_exchange", 1, "fewest cards the dealer must exchange (P5b)", allowed=(1, 0)),
    Flag("declarations_automatic", True, "declarations computed from the hands (P4)",
         check=lambda v: v is True,
         allowed_text="True only (a manual declaration mode is not specified by the rules, DECISION P4)"),
    Flag("bianco_counts_for_repique", True, "Bianco points count for the repique's 30 and against the "
         "opponent's 0 (P14)", allowed=(True, False)),
    Flag("pique_counts_end_bonuses", False, "cards/capot can complete a pique (P14)", allowed=(True, False)),
    Flag("capot_replaces_cards", True, "capot (40) replaces the cards bonus (10) (P12)", allowed=(True, False)),
    Flag("target_inclusive", False, "a game is won at >= target instead of > target (P15)", allowed=(True, False)),
    Flag("game_target", 150, "target of the partita and rivincita", check=int_range(1), allowed_text="an int >= 1"),
    Flag("bella_target", 220, "target of the bella (game 3)", check=int_range(1), allowed_text="an int >= 1"),
    Flag("game_end_check", "immediate", "check the target after every scoring event or only at the end of "
         "a hand (P16)", allowed=("immediate", "end_of_hand")),
    Flag("match_format", "best_of_three", "partita, rivincita and bella, or a single game (P18)",
         allowed=("best_of_three", "single_game")),
    Flag("reveal_leftover_talon", False, "the undrawn talon cards are shown to both players (P6)",
         allowed=(True, False)),
    Flag("allow_peek", False, "a player sees the talon cards he was entitled to but did not draw (P6)",
         allowed=(True, False)),
    Flag("episode", "match", "what one episode is: a match, a game or a hand", allowed=("match", "game", "hand")),
    Flag("outcome_reward", 0, "added for winning (subtracted for losing) each game", check=real_number(),
         allowed_text="a finite number (any Python or NumPy int or real, not a bool)"),
)


class PicchettoState:
    """Everything about one episode; card sets are bitmasks, per-seat lists are indexed by seat."""

    __slots__ = (
        "rng", "phase", "to_act", "dealer", "elder", "hand_no", "epoch", "over",
        # match and game
        "game_no", "target", "games_won", "game_score", "match_winner", "game_records",
        # the hand
        "hands", "dealt", "talon", "discards", "ndisc", "drawn", "peeked", "leftover", "bianco",
        "decl", "answers", "pub_point", "pub_seq", "pub_set", "decl_points", "revealed",
        "hand_score", "pique_resolved", "pique_by", "repique_by",
        "leader", "led", "trick_no", "tricks_won", "played",
        "events", "hand_records", "hand_open", "rew",
    )

    def copy(self) -> PicchettoState:
        """An independent copy (the generator is shared: copies are for analysis, not replays)."""
        other = PicchettoState.__new__(PicchettoState)
        for name in PicchettoState.__slots__:
            value = getattr(self, name)
            setattr(other, name, value.copy() if isinstance(value, (list, dict)) else value)
        other.decl_points = [list(p) for p in self.decl_points]  # nested: _declare writes into the rows
        other.game_records = [dict(r) for r in self.game_records]
        other.hand_records = [dict(r) for r in self.hand_records]
        if self.hand_open and self.hand_records:
            other.hand_records[-1]["events"] = other.events
        return other


class PicchettoGame(CardGame):
    """Rules of Picchetto bound to one set of variant flags."""

    name = "picchetto_v0"
    deck = DECK
    num_actions = NUM_ACTIONS
    FLAGS = FLAGS
    OPTION_KEYS = ("dealer", "hands", "talon", "scores", "games_won")

    def __init__(self, **flags: Any):
        super().__init__(**flags)
        f = self.flags
        self._classic = f["trick_scoring"] == "classic"
        self._must_head = f["must_head_trick"]
        self._dealer_min = f["dealer_min_exchange"]
        self._inclusive = f["target_inclusive"]
        self._immediate = f["game_end_check"] == "immediate"
        self._single = f["match_format"] == "single_game"
        self._episode = f["episode"]
        self._outcome = f["outcome_reward"]

    def _num_players(self) -> int:
        return NUM_PLAYERS

    def target_of(self, game_no: int) -> int:
        """Target of game `game_no` (0-based): the bella (game 3) is played to `bella_target`."""
        return self.flags["bella_target"] if game_no == 2 else self.flags["game_target"]

    def reached(self, score: int, target: int) -> bool:
        """Has `score` won a game played to `target` ("supera": strictly above by default)?"""
        return score >= target if self._inclusive else score > target

    # -- setup --------------------------------------------------------------------------
    def parse_options(self, options: Mapping[str, Any] | None) -> dict[str, Any]:
        opts = check_options(options, self.OPTION_KEYS, self.name)
        setup: dict[str, Any] = {}
        if "dealer" in opts:
            setup["dealer"] = parse_seat(opts["dealer"], NUM_PLAYERS, "dealer", self.name)
        talon_mask = 0
        if "talon" in opts:
            talon = opts["talon"]
            if isinstance(talon, (str, bytes)) or not hasattr(talon, "__len__"):
                raise DealError(f"{self.name}: option 'talon' must be a list of {TALON_SIZE} card codes or ids "
                                f"(first packet T[0..4] then second packet T[5..7]); got {talon!r}")
            try:
                cards = DECK.parse_many(talon)
            except ValueError as err:
                raise DealError(f"{self.name}: option 'talon': {err}") from None
            if len(cards) != TALON_SIZE:
                raise DealError(f"{self.name}: option 'talon' must hold exactly {TALON_SIZE} cards (5 + 3); "
                                f"got {len(cards)}")
            for c in cards:
                if talon_mask >> c & 1:
                    raise DealError(f"{self.name}: option 'talon': card {DECK.codes[c]} given twice")
                talon_mask |= 1 << c
            setup["talon"] = cards
        if "hands" in opts:
            hands = parse_hands(DECK, opts["hands"], [HAND_SIZE] * NUM_PLAYERS, self.name, taken=talon_mask)
            setup["hands"] = [DECK.mask(h) for h in hands]
        games_won = [0, 0]
        if "games_won" in opts:
            gw = opts["games_won"]
            allowed = "[0, 0]" if self._single else "[0, 0], [1, 0], [0, 1] or [1, 1]"
            if (
                isinstance(gw, (str, bytes)) or not hasattr(gw, "__len__") or len(gw) != 2
                or not all(isinstance(x, (int, np.integer)) and not isinstance(x, bool) for x in gw)
                or not all(0 <= int(x) <= (0 if self._single else 1) for x in gw)
            ):
                raise DealError(f"{self.name}: option 'games_won' (games already won by seat 0 and seat 1, "
                                f"match_format={self.flags['match_format']!r}) must be one of {allowed}; got {gw!r}")
            games_won = [int(x) for x in gw]
            setup["games_won"] = games_won
        if "scores" in opts:
            sc = opts["scores"]
            target = self.target_of(sum(games_won))
            top = target - 1 if self._inclusive else target
            if (
                isinstance(sc, (str, bytes)) or not hasattr(sc, "__len__") or len(sc) != 2
                or not all(isinstance(x, (int, np.integer)) and not isinstance(x, bool) for x in sc)
                or not all(0 <= int(x) <= top for x in sc)
            ):
                raise DealError(f"{self.name}: option 'scores' must be the game scores of seat 0 and seat 1, "
                                f"two ints in 0..{top} (a game played to {target} is not yet won); got {sc!r}")
            setup["scores"] = [int(x) for x in sc]
        return setup

    def new_state(self, rng: np.random.Generator, setup: dict[str, Any]) -> PicchettoState:
        s = PicchettoState()
        s.rng = rng
        s.hand_no = 0
        s.epoch = 0
        s.over = False
        s.rew = None
        s.match_winner = None
        s.games_won = list(setup.get("games_won", (0, 0)))
        s.game_no = sum(s.games_won)
        s.target = self.target_of(s.game_no)
        s.game_score = list(setup.get("scores", (0, 0)))
        s.game_records = [{"game_no": s.game_no + 1, "target": s.target, "start_scores": list(s.game_score),
                           "scores": None, "winner": None}]
        s.hand_records = []
        s.hand_open = False
        s.events = []
        # Randomness order: the first dealer, then the shuffle (each only when not given).
        if "dealer" in setup:
            dealer = setup["dealer"]
        elif self.flags["first_dealer"] == "random":
            dealer = int(rng.integers(NUM_PLAYERS))
        else:
            dealer = self.flags["first_dealer"]
        self._new_hand(s, dealer, setup.get("hands"), setup.get("talon"))
        return s

    def initial_rewards(self, s: PicchettoState) -> list | None:
        r, s.rew = s.rew, None
        return r

    def _new_hand(self, s: PicchettoState, dealer: int, hands: list[int] | None = None, talon: list[int] | None = None) -> None:
        """HAND_SETUP and ELDER_BIANCO (spec 2.2); deal order P3."""
        elder = 1 - dealer
        if hands is None:
            if talon is None:
                perm = s.rng.permutation(32).tolist()
                talon = perm[24:]
            else:
                taken = sum(1 << c for c in talon)
                rest = [c for c in range(32) if not taken >> c & 1]
                perm = [rest[i] for i in s.rng.permutation(24).tolist()]
            dealt = [0, 0]
            for k in range(24):
                dealt[elder if k % 2 == 0 else dealer] |= 1 << perm[k]
        else:
            dealt = list(hands)
            if talon is None:  # the remaining 8 cards, in random talon order
                taken = dealt[0] | dealt[1]
                rest = [c for c in range(32) if not taken >> c & 1]
                talon = [rest[i] for i in s.rng.permutation(8).tolist()]
        s.dealer, s.elder = dealer, elder
        s.hand_no += 1
        s.epoch += 1
        s.dealt = dealt
        s.hands = list(dealt)
        s.talon = list(talon)
        s.discards = [0, 0]
        s.ndisc = [0, 0]
        s.drawn = [0, 0]
        s.peeked = [0, 0]
        s.leftover = 0
        s.bianco = [False, False]
        s.decl = None
        s.answers = [-1, -1, -1]
        s.pub_point = [0, 0]
        s.pub_seq = [None, None]
        s.pub_set = [None, None]
        s.decl_points = [[0, 0, 0], [0, 0, 0]]
        s.revealed = [0, 0]
        s.hand_score = [0, 0]
        s.pique_resolved = False
        s.pique_by = -1
        s.repique_by = -1
        s.leader = elder
        s.led = -1
        s.trick_no = 0
        s.tricks_won = [0, 0]
        s.played = [0, 0]
        s.events = []
        s.hand_records.append({
            "game_no": s.game_no + 1, "hand_no": s.hand_no, "dealer": dealer, "elder": elder,
            # card codes, so that {"dealer", "hands", "talon"} of a record replay the deal via reset options
            "hands": [[CODES[c] for c in iter_bits(h)] for h in dealt], "talon": [CODES[c] for c in talon],
            "bianco": None, "exchanged": None, "declarations": None, "events": s.events,
            "tricks": None, "hand_scores": None, "completed": False, "game_ended": False,
        })
        s.hand_open = True
        s.phase = ELDER_EXCHANGE
        s.to_act = elder
        if not dealt[elder] & FACE_MASK:  # E1: elder Bianco, his dealt hand becomes public
            s.bianco[elder] = True
            self._score(s, elder, BIANCO, "bianco")

    # -- queries ------------------------------------------------------------------------
    def current_player(self, s: PicchettoState) -> int:
        return s.to_act

    def legal_mask(self, s: PicchettoState) -> int:
        phase = s.phase
        if phase == TRICK_FOLLOW:
            hand = s.hands[s.to_act]
            led = s.led
            same = hand & SUIT_MASK[led >> 3]
            if not same:
                return hand
            if self._must_head:
                higher = same & HIGHER[led]
                if higher:
                    return higher
            return same
        if phase == TRICK_LEAD:
            return s.hands[s.to_act]
        if phase == ELDER_EXCHANGE:
            # the exchange ends by itself at the 5th discard, so a DISCARD is always legal here
            return s.hands[s.elder] << DISCARD | ((1 << END_EXCHANGE) if s.ndisc[s.elder] else 0)
        if phase == DEALER_EXCHANGE:
            return s.hands[s.dealer] << DISCARD | ((1 << END_EXCHANGE) if s.ndisc[s.dealer] >= self._dealer_min else 0)
        return 0

    def is_over(self, s: PicchettoState) -> bool:
        return s.over

    # -- transitions --------------------------------------------------------------------
    def apply(self, s: PicchettoState, action: int) -> list | None:
        """Apply a legal action (the env checks legality); returns the zero-sum rewards scored."""
        phase = s.phase
        seat = s.to_act
        if phase == TRICK_FOLLOW:
            self._follow(s, seat, action)
        elif phase == TRICK_LEAD:
            self._lead(s, seat, action)
        elif action == END_EXCHANGE:
            self._end_exchange(s, seat)
        else:
            bit = 1 << (action - DISCARD)
            s.hands[seat] ^= bit
            s.discards[seat] |= bit
            s.ndisc[seat] += 1
            limit = FIRST_PACKET if seat == s.elder else TALON_SIZE - s.ndisc[s.elder]
            if s.ndisc[seat] == limit:
                self._end_exchange(s, seat)
        r, s.rew = s.rew, None
        return r

    def _score(self, s: PicchettoState, seat: int, points: int, kind: str) -> bool:
        """One scoring event; returns True when it ended the game (the hand is then abandoned)."""
        s.hand_score[seat] += points
        s.game_score[seat] += points
        s.events.append((kind, seat, points))
        r = s.rew
        if r is None:
            r = s.rew = [0, 0]
        r[seat] += points
        r[1 - seat] -= points
        if self._immediate and self.reached(s.game_score[seat], s.target):
            self._game_over(s, seat)
            return True
        return False

    def _pique(self, s: PicchettoState, seat: int) -> bool:
        """Pique check after a trick-point award to `seat` (call only while not resolved)."""
        hs = s.hand_score
        if hs[seat] >= PIQUE_THRESHOLD and hs[1 - seat] == 0:
            s.pique_resolved = True
            s.pique_by = seat
            return self._score(s, seat, PIQUE, "pique")
        return False

    def _end_exchange(self, s: PicchettoState, seat: int) -> None:
        elder, dealer = s.elder, s.dealer
        talon = s.talon
        if seat == elder:
            d = s.ndisc[elder]
            drawn = 0
            for c in talon[:d]:
                drawn |= 1 << c
            s.drawn[elder] = drawn
            s.hands[elder] |= drawn
            if self.flags["allow_peek"]:
                s.peeked[elder] = sum(1 << c for c in talon[d:FIRST_PACKET])
            s.phase = DEALER_EXCHANGE
            s.to_act = dealer
            if not s.dealt[dealer] & FACE_MASK:  # E2: dealer Bianco (after the elder's exchange)
                s.bianco[dealer] = True
                self._score(s, dealer, BIANCO, "bianco")
            return
        de, dd = s.ndisc[elder], s.ndisc[dealer]
        drawn = 0
        for c in talon[de : de + dd]:
            drawn |= 1 << c
        s.drawn[dealer] = drawn
        s.hands[dealer] |= drawn
        s.leftover = sum(1 << c for c in talon[de + dd :])
        if self.flags["allow_peek"]:
            s.peeked[dealer] = s.leftover
        s.phase = TRICK_LEAD
        s.to_act = s.leader = elder
        self._declare(s)

    def _declare(self, s: PicchettoState) -> None:
        """E3 point, E4 sequences, E5 sets, E6 repique (spec 4.2-4.5)."""
        elder, dealer = s.elder, s.dealer
        s.decl = decl = declare(s.hands[elder], s.hands[dealer])
        roles = (elder, dealer)
        for i, name in enumerate(DECLARATIONS):
            d = decl[name]
            answer = d["answer"]
            s.answers[i] = answer
            best = d["best"]
            # public announcements: the elder's always; the dealer's when he wins or ties
            pub = [best[0], best[1] if answer in (UGUALE, NON_BASTA) else None]
            if i == 0:
                s.pub_point[elder] = pub[0][0]
                s.pub_point[dealer] = pub[1][0] if pub[1] is not None else 0
            elif i == 1:
                s.pub_seq[elder], s.pub_seq[dealer] = pub
            else:
                s.pub_set[elder], s.pub_set[dealer] = pub
            for role in (0, 1):
                s.revealed[roles[role]] |= d["reveal"][role]
            if d["winner"] is not None and d["points"]:
                w = roles[d["winner"]]
                s.decl_points[w][i] = d["points"]
                if self._score(s, w, d["points"], name):
                    return
        # E6 repique
        hs = list(s.hand_score)
        if not self.flags["bianco_counts_for_repique"]:
            for p in (0, 1):
                if s.bianco[p]:
                    hs[p] -= BIANCO
        for p in (elder, dealer):
            if hs[p] >= PIQUE_THRESHOLD and hs[1 - p] == 0:
                s.pique_resolved = True
                s.repique_by = p
                self._score(s, p, REPIQUE, "repique")
                return

    def _lead(self, s: PicchettoState, seat: int, card: int) -> None:
        bit = 1 << card
        s.hands[seat] ^= bit
        s.played[seat] |= bit
        s.led = card
        s.phase = TRICK_FOLLOW
        s.to_act = 1 - seat
        if self._classic:  # classic Piquet: +1 for leading
            if self._score(s, seat, 1, "lead"):
                return
            if not s.pique_resolved:
                self._pique(s, seat)

    def _follow(self, s: PicchettoState, seat: int, card: int) -> None:
        bit = 1 << card
        s.hands[seat] ^= bit
        s.played[seat] |= bit
        led = s.led
        s.led = -1
        # ids grow with rank inside a suit: same suit and a larger id heads the trick
        win = seat if (card >> 3) == (led >> 3) and card > led else 1 - seat
        s.tricks_won[win] += 1
        s.trick_no += 1
        last = s.trick_no == NUM_TRICKS
        s.leader = s.to_act = win
        s.phase = TRICK_LEAD
        if self._classic:
            if win == seat:
                if self._score(s, win, 1, "trick"):
                    return
                if not s.pique_resolved and self._pique(s, win):
                    return
            if last:
                if self._score(s, win, 1, "last_trick"):
                    return
                if not s.pique_resolved and self._pique(s, win):
                    return
        else:
            if self._score(s, win, 2 if last else 1, "trick"):
                return
            if not s.pique_resolved and self._pique(s, win):
                return
        if last:
            self._end_hand(s)

    def _end_hand(self, s: PicchettoState) -> None:
        """E19 cards / capot, then the end-of-hand target check and the next hand."""
        tw = s.tricks_won
        w = 0 if tw[0] > 6 else 1 if tw[1] > 6 else -1
        if w >= 0:
            if tw[w] == NUM_TRICKS:
                if self._score(s, w, CAPOT, "capot"):
                    return
                if not self.flags["capot_replaces_cards"] and self._score(s, w, CARDS, "cards"):
                    return
            elif self._score(s, w, CARDS, "cards"):
                return
            if self.flags["pique_counts_end_bonuses"] and not s.pique_resolved and self._pique(s, w):
                return
        self._close_hand(s, completed=True)
        if not self._immediate:
            gs, t = s.game_score, s.target
            over = [self.reached(gs[0], t), self.reached(gs[1], t)]
            if over[0] or over[1]:
                if over[0] and over[1]:
                    winner = 0 if gs[0] > gs[1] else 1 if gs[1] > gs[0] else -1
                else:
                    winner = 0 if over[0] else 1
                if winner >= 0:
                    self._game_over(s, winner)
                    return
        if self._episode == "hand":
            self._end_episode(s)
        else:
            self._new_hand(s, 1 - s.dealer)

    def _close_hand(self, s: PicchettoState, completed: bool) -> None:
        if not s.hand_open:
            return
        s.hand_open = False
        rec = s.hand_records[-1]
        rec["bianco"] = list(s.bianco)
        rec["exchanged"] = list(s.ndisc)
        if s.decl is not None:
            roles = (s.elder, s.dealer)
            rec["declarations"] = {
                name: {
                    "elder": _best_text(name, d["best"][0]),
                    "dealer": _best_text(name, d["best"][1]),
                    "answer": ANSWERS[d["answer"]],
                    "winner": roles[d["winner"]] if d["winner"] is not None else None,
                    "points": d["points"],
                }
                for name, d in s.decl.items()
            }
        rec["events"] = list(s.events)
        rec["tricks"] = list(s.tricks_won)
        rec["hand_scores"] = list(s.hand_score)
        rec["completed"] = completed

    def _game_over(self, s: PicchettoState, winner: int) -> None:
        """GAME_OVER: record the game, pay the outcome reward, then the next game or the end."""
        self._close_hand(s, completed=False)  # no-op when the hand was played out (end_of_hand check)
        s.hand_records[-1]["game_ended"] = True
        rec = s.game_records[-1]
        rec["scores"] = list(s.game_score)
        rec["winner"] = winner
        if self._outcome:
            r = s.rew
            if r is None:
                r = s.rew = [0, 0]
            r[winner] += self._outcome
            r[1 - winner] -= self._outcome
        s.games_won[winner] += 1
        if self._single or s.games_won[winner] >= 2:
            s.match_winner = winner
            self._end_episode(s)
            return
        if self._episode != "match":
            self._end_episode(s)
            return
        s.game_no += 1
        s.target = self.target_of(s.game_no)
        s.game_score = [0, 0]
        s.game_records.append({"game_no": s.game_no + 1, "target": s.target, "start_scores": [0, 0],
                               "scores": None, "winner": None})
        self._new_hand(s, 1 - s.dealer)

    def _end_episode(self, s: PicchettoState) -> None:
        s.over = True
        s.phase = OVER
        s.to_act = -1
        s.led = -1
        s.epoch += 1

    # -- reporting ----------------------------------------------------------------------
    def result(self, s: PicchettoState) -> dict[str, Any]:
        """The episode record: per hand (events in order, exchanges, declarations), per game, match."""
        hands = []
        for r in s.hand_records:
            r = dict(r)
            r["events"] = [tuple(e) for e in r["events"]]
            hands.append(r)
        return {
            "result_version": RESULT_VERSION,
            "hands": hands,
            "games": [dict(g) for g in s.game_records],
            "games_won": list(s.games_won),
            "match_winner": s.match_winner,
            "scores": list(s.game_score),
            "episode": self._episode,
        }

    def action_name(self, action: int) -> str:
        if action < DISCARD:
            return f"PLAY {DECK.codes[action]}"
        if action < END_EXCHANGE:
            return f"DISCARD {DECK.codes[action - DISCARD]}"
        return "END_EXCHANGE"

    # -- facts for code outside the game (``envs.core.game``) ----------------------------------
    def hidden_move_name(self, action: int) -> str | None:
        """A discard is face down: the other seat sees that a card was discarded, not which."""
        return "discard" if DISCARD <= action < END_EXCHANGE else None

    def public_hand_result(self, result: dict[str, Any], seat: int) -> dict[str, Any]:
        """The dealer's holding in a declaration is shown only when it wins or ties: answered "va bene"
        (the elder's is better) only the elder's is revealed, so every seat but the dealer loses it."""
        if seat != result.get("dealer"):
            for d in (result.get("declarations") or {}).values():
                if d.get("answer") == "va bene":
                    d["dealer"] = None
        return result

    def in_trick_play(self, s: PicchettoState) -> bool:
        return s.phase == TRICK_LEAD or s.phase == TRICK_FOLLOW

    def hand_deal(self, s: PicchettoState, hand_no: int) -> dict[str, Any]:
        """The deal of any hand of the episode (a Bianco that wins a game at the deal can start
        and end a hand inside one step, so a record may ask for an earlier one)."""
        r = s.hand_records[hand_no - 1]
        return {"dealer": r["dealer"], "hands": r["hands"], "talon": r["talon"]}  # card codes

    def render(self, s: PicchettoState, seat: int) -> str:
        return render_text(self, s, seat)


# -- text ---------------------------------------------------------------------------------------

_NUMBERS = {3: "tre", 4: "quattro", 5: "cinque", 6: "sei", 7: "sette", 8: "otto"}
_TO_RANK = ("al Sette", "all'Otto", "al Nove", "al Dieci", "al Fante", "alla Donna", "al Re", "all'Asso")


def _best_text(name: str, best: tuple | None) -> str | None:
    """An announcement in Italian: "38", "quattro al Re", "quattordici di Assi", "tris di Re"."""
    if best is None:
        return None
    if name == "point":
        return f"{best[0]} ({best[1]} carte)"
    if name == "sequence":
        return f"{_NUMBERS[best[0]]} {_TO_RANK[best[1]]}"
    return f"{'quattordici' if best[0] == 4 else 'tris'} di {RANK_PLURAL[best[1]]}"


def render_text(game: PicchettoGame, s: PicchettoState, seat: int) -> str:
    """What `seat` may see, as text; declarations with the dealer's Italian answers."""
    codes = DECK.format_mask
    opp = 1 - seat
    names = ("partita", "rivincita", "bella")
    lines = [
        f"Picchetto: game {s.game_no + 1} ({names[min(s.game_no, 2)]}) to {s.target}, hand {s.hand_no}, "
        f"dealer player_{s.dealer}, elder player_{s.elder}; games won {s.games_won[0]}-{s.games_won[1]}",
        f"game score: player_0 {s.game_score[0]}, player_1 {s.game_score[1]}; "
        f"this hand: player_0 {s.hand_score[0]}, player_1 {s.hand_score[1]}",
    ]
    for p in (s.elder, s.dealer):
        if s.bianco[p]:
            lines.append(f"player_{p}: \"Bianco\" +{BIANCO}, shows {codes(s.dealt[p])}")
    if s.ndisc[0] or s.ndisc[1] or s.phase >= TRICK_LEAD:
        lines.append(f"exchanged: player_{s.elder} (elder) {s.ndisc[s.elder]}, "
                     f"player_{s.dealer} (dealer) {s.ndisc[s.dealer]}")
    if s.decl is not None:
        e, d = s.elder, s.dealer
        titles = ("Punto", "Scala", "Tris/Quattordici")
        for i, name in enumerate(DECLARATIONS):
            answer = s.answers[i]
            if name == "point":
                said, theirs = str(s.pub_point[e]), (str(s.pub_point[d]) if s.pub_point[d] else None)
            else:
                pub = s.pub_seq if name == "sequence" else s.pub_set
                said, theirs = _best_text(name, pub[e]) or "niente", _best_text(name, pub[d])
            if answer == NESSUNO:
                line = f"  {titles[i]}: nessuno dei due"
            else:
                line = f"  {titles[i]}: player_{e} dichiara {said}; player_{d}: \"{ANSWERS[answer]}\""
                if answer != VA_BENE and theirs is not None:
                    line += f" ({theirs})"
            for p in (0, 1):
                if s.decl_points[p][i]:
                    line += f" -> player_{p} +{s.decl_points[p][i]}"
            lines.append(line)
        shown = [codes(s.revealed[p]) for p in (0, 1)]
        lines.append(f"  shown: player_0 [{shown[0]}], player_1 [{shown[1]}]")
    if s.repique_by >= 0:
        lines.append(f"player_{s.repique_by}: \"ripicca\" +{REPIQUE}")
    if s.pique_by >= 0:
        lines.append(f"player_{s.pique_by}: \"picca\" +{PIQUE}")
    if s.phase in (TRICK_LEAD, TRICK_FOLLOW):
        table = f"player_{s.leader} led {DECK.codes[s.led]}" if s.led >= 0 else f"player_{s.leader} to lead"
        lines.append(f"trick {s.trick_no + 1}/12: {table}; tricks won {s.tricks_won[0]}-{s.tricks_won[1]}")
    if s.played[0] | s.played[1]:
        lines.append(f"played: player_0 [{codes(s.played[0])}], player_1 [{codes(s.played[1])}]")
    if game.flags["reveal_leftover_talon"] and s.leftover:
        lines.append(f"talon set aside: {codes(s.leftover)}")
    if s.over:
        mw = f", match won by player_{s.match_winner}" if s.match_winner is not None else ""
        lines.append(f"episode over{mw}")
        return "\n".join(lines)
    lines.append(f"player_{seat} hand: {codes(s.hands[seat])}")
    if s.discards[seat]:
        lines.append(f"player_{seat} discarded: {codes(s.discards[seat])}; drew: {codes(s.drawn[seat]) or '-'}")
    if s.peeked[seat]:
        lines.append(f"player_{seat} peeked at: {codes(s.peeked[seat])}")
    lines.append(f"to act: player_{s.to_act} ({PHASE_NAMES[s.phase]}); opponent is player_{opp}")
    return "\n".join(lines)
