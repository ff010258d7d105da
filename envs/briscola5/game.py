"""Briscola in cinque: the pure rules engine.

The rules are `docs/rules/briscola5.md`; the codes cited in this package (B1..B13 for the
flags and decisions, "spec 4.2" for its sections) refer to that file.

Plain mutable state with `__slots__`, card sets as int bitmasks, no NumPy on the hot path.
The phases with an actor are the `Phase` enum: `FORFEIT_CHECK -> AUCTION -> CALL_CARD ->
TRICK_PLAY`, and `OVER` at the end; void hands, scoring, dealer rotation and the match check
are automatic transitions inside `apply`.

| ids     | action                  | phase         |
|---------|-------------------------|---------------|
| 0..39   | `PLAY(c)`               | TRICK_PLAY    |
| 40..79  | `CALL(c)`, c = id - 40  | CALL_CARD     |
| 80      | `PASS`                  | AUCTION       |
| 81..140 | `BID(v)`, v = id - 20   | AUCTION       |
| 141     | `FORFEIT`               | FORFEIT_CHECK |
| 142     | `NO_FORFEIT`            | FORFEIT_CHECK |
"""

from __future__ import annotations

from collections.abc import Mapping
from enum import IntEnum
from typing import Any

import numpy as np

from envs.core.cards import ITALIAN, iter_bits
from envs.core.errors import ConfigError
from envs.core.flags import Flag, int_range, seat_or_random
from envs.core.game import RESULT_VERSION, CardGame, check_options, parse_hands, parse_seat
from envs.core.trick import card_strengths, trick_winner

NUM_PLAYERS = 5
HAND_SIZE = 8
NUM_TRICKS = 8
NUM_ACTIONS = 143

PLAY, CALL, PASS, BID, FORFEIT, NO_FORFEIT = 0, 40, 80, 81, 141, 142
BID_MIN, BID_MAX = 61, 120
#: The ids of `BID(v)` for v = BID_MIN..BID_MAX (81..140). The id of a bid does not depend
#: on the `min_bid`/`max_bid` flags: they only narrow which of these ids are legal.
BID_IDS = range(BID, BID + BID_MAX - BID_MIN + 1)


#: bid raises over the lowest legal bid that a search player considers (`search_candidates`)
BID_STEPS = (0, 2, 5, 10, 15, 20)
#: bids a search player considers whenever legal: where the stake doubles (71) and triples (81)
BID_LEVELS = (71, 81)


def bid_value(action: int) -> int:
    """The value `v` of the action id `BID(v)`."""
    return BID_MIN + action - BID


class Phase(IntEnum):
    """The states in which an agent acts (plus `OVER`); engine states run inside `apply`."""

    FORFEIT_CHECK = 0
    AUCTION = 1
    CALL_CARD = 2
    TRICK_PLAY = 3
    OVER = 4


# Plain ints on the hot path (IntEnum comparisons and attribute access are slower); the state
# stores these ints.
FORFEIT_CHECK, AUCTION, CALL_CARD, TRICK_PLAY, OVER = (int(p) for p in Phase)
PHASE_NAMES = tuple(p.name for p in Phase)

DECK = ITALIAN
RANK_STRENGTH = (9, 0, 8, 1, 2, 3, 4, 5, 6, 7)
RANK_POINTS = (11, 0, 10, 0, 0, 0, 0, 2, 3, 4)
STRENGTH = card_strengths(RANK_STRENGTH, 4)
POINTS = card_strengths(RANK_POINTS, 4)
SUIT = DECK.suit_of
TOTAL_POINTS = 120
#: Consecutive void hands after which an episode is truncated (only reachable when
#: `void_hands_count=False`; spec section 5).
MAX_CONSECUTIVE_VOID = 100

FLAGS = (
    Flag("first_dealer", "random", "dealer of hand 1 (B1)", check=seat_or_random(4),
         allowed_text="'random' or a seat 0..4"),
    Flag("first_lead", "right_of_dealer", "who leads trick 1 (B4)", allowed=("right_of_dealer", "caller")),
    Flag("min_bid", 61, "lowest bid (B6)", check=int_range(BID_MIN, BID_MAX), allowed_text="an int 61..120"),
    Flag("min_raise", 1, "smallest raise over the high bid (B6)", check=int_range(1, 59), allowed_text="an int 1..59"),
    Flag("max_bid", 120, "highest bid", check=int_range(BID_MIN, BID_MAX), allowed_text="an int 61..120, >= min_bid"),
    Flag("all_pass_policy", "void", "when everyone passes (B7)", allowed=("void", "force_dealer")),
    Flag("void_hands_count", True, "void hands count toward num_hands (B7)", allowed=(True, False)),
    Flag("forfeit_enabled", True, "a 0-point hand may void the deal (B5)", allowed=(True, False)),
    Flag("bid_multiplier_on_loss", False, "doppia/tripla also on a lost contract (B9)", allowed=(True, False)),
    Flag("cappotto_definition", "points", "cappotto = all 120 points or all 8 tricks (B10)",
         allowed=("points", "tricks")),
    Flag("allow_call_own_card", True, "the caller may call a card he holds (B13)", allowed=(True, False)),
    Flag("num_hands", 1, "hands per episode (match length, B11)", check=int_range(1), allowed_text="an int >= 1"),
)


def hand_points(mask: int) -> int:
    return sum(POINTS[c] for c in iter_bits(mask))


def bid_multiplier(bid: int) -> int:
    """1 for 61-70, 2 ("doppia") for 71-80, 3 ("tripla") for 81-120."""
    return 1 if bid <= 70 else 2 if bid <= 80 else 3


def hand_credits(
    caller: int, partner: int, bid: int, team_points: int, cappotto: bool, bid_multiplier_on_loss: bool = False
) -> list[int]:
    """Credits of the five seats for a finished hand (spec 4.2). `partner == caller` is a solo."""
    solo = partner == caller
    win = team_points >= bid
    m = (bid_multiplier(bid) if (win or bid_multiplier_on_loss) else 1) * (2 if cappotto else 1)
    sign = 1 if win else -1
    credits = [-sign * m] * NUM_PLAYERS
    credits[caller] = sign * (4 if solo else 2) * m
    if not solo:
        credits[partner] = sign * m
    return credits


class Briscola5State:
    """Everything about one episode; `hands` and sets are bitmasks, seats are ints."""

    __slots__ = (
        "rng", "phase", "dealer", "hand_no", "hands_played", "consecutive_void", "over", "truncated",
        "hands", "dealt", "to_act", "forfeit_queue", "forfeit_declined",
        "bids", "high", "high_bidder", "passed",
        "caller", "contract", "called", "trump", "partner", "revealed",
        "leader", "trick", "trick_no", "played_by", "played_trick", "points", "tricks_won",
        "scores", "records",
    )

    def copy(self) -> Briscola5State:
        """An independent copy (the generator is shared: copies are for analysis, not replays)."""
        other = Briscola5State.__new__(Briscola5State)
        for name in Briscola5State.__slots__:
            value = getattr(self, name)
            setattr(other, name, value.copy() if isinstance(value, (list, dict)) else value)
        other.records = [dict(r) for r in self.records]
        return other


class Briscola5Game(CardGame):
    """Rules of Briscola in cinque bound to one set of variant flags."""

    name = "briscola5_v0"
    deck = DECK
    num_actions = NUM_ACTIONS
    FLAGS = FLAGS
    OPTION_KEYS = ("dealer", "hands")

    def __init__(self, **flags: Any):
        super().__init__(**flags)
        f = self.flags
        if f["max_bid"] < f["min_bid"]:
            raise ConfigError(f"{self.name}: max_bid={f['max_bid']} must be >= min_bid={f['min_bid']} (allowed: 61..120)")
        self._min_bid, self._max_bid, self._min_raise = f["min_bid"], f["max_bid"], f["min_raise"]
        self._num_hands = f["num_hands"]

    def _num_players(self) -> int:
        return NUM_PLAYERS

    # -- setup --------------------------------------------------------------------------
    def parse_options(self, options: Mapping[str, Any] | None) -> dict[str, Any]:
        opts = check_options(options, self.OPTION_KEYS, self.name)
        setup: dict[str, Any] = {}
        if "dealer" in opts:
            setup["dealer"] = parse_seat(opts["dealer"], NUM_PLAYERS, "dealer", self.name)
        if "hands" in opts:
            hands = parse_hands(DECK, opts["hands"], [HAND_SIZE] * NUM_PLAYERS, self.name)
            setup["hands"] = [DECK.mask(h) for h in hands]
        return setup

    def new_state(self, rng: np.random.Generator, setup: dict[str, Any]) -> Briscola5State:
        s = Briscola5State()
        s.rng = rng
        s.hand_no = 0
        s.hands_played = 0
        s.consecutive_void = 0
        s.over = False
        s.truncated = False
        s.scores = [0] * NUM_PLAYERS
        s.records = []
        # Randomness order: the first dealer, then the shuffle (each only when not given).
        if "dealer" in setup:
            dealer = setup["dealer"]
        elif self.flags["first_dealer"] == "random":
            dealer = int(rng.integers(NUM_PLAYERS))
        else:
            dealer = self.flags["first_dealer"]
        self._new_hand(s, dealer, setup.get("hands"))
        return s

    def _deal(self, rng: np.random.Generator, dealer: int) -> list[int]:
        hands = [0] * NUM_PLAYERS
        for k, card in enumerate(rng.permutation(DECK.size).tolist()):
            hands[(dealer + 1 + k) % NUM_PLAYERS] |= 1 << card
        return hands

    def _new_hand(self, s: Briscola5State, dealer: int, hands: list[int] | None) -> None:
        s.dealer = dealer
        s.hands = list(hands) if hands is not None else self._deal(s.rng, dealer)
        s.dealt = list(s.hands)
        s.hand_no += 1
        s.forfeit_declined = 0
        s.bids = []
        s.high = 0
        s.high_bidder = -1
        s.passed = 0
        s.caller = s.contract = s.called = s.trump = s.partner = -1
        s.revealed = False
        s.leader = -1
        s.trick = []
        s.trick_no = 0
        s.played_by = [-1] * DECK.size
        s.played_trick = [-1] * DECK.size
        s.points = [0] * NUM_PLAYERS
        s.tricks_won = [0] * NUM_PLAYERS
        first = (dealer + 1) % NUM_PLAYERS
        order = [(first + i) % NUM_PLAYERS for i in range(NUM_PLAYERS)]
        s.forfeit_queue = [p for p in order if hand_points(s.hands[p]) == 0] if self.flags["forfeit_enabled"] else []
        if s.forfeit_queue:
            s.phase = FORFEIT_CHECK
            s.to_act = s.forfeit_queue[0]
        else:
            s.phase = AUCTION
            s.to_act = first

    # -- queries ------------------------------------------------------------------------
    def current_player(self, s: Briscola5State) -> int:
        return s.to_act

    def legal_mask(self, s: Briscola5State) -> int:
        phase = s.phase
        if phase == TRICK_PLAY:
            return s.hands[s.to_act]
        if phase == AUCTION:
            lo = self._min_bid if s.high_bidder < 0 else s.high + self._min_raise
            mask = 1 << PASS
            if lo <= self._max_bid:
                mask |= ((1 << (self._max_bid - lo + 1)) - 1) << (BID + lo - BID_MIN)
            return mask
        if phase == CALL_CARD:
            mask = DECK.full_mask
            if not self.flags["allow_call_own_card"]:
                mask &= ~s.hands[s.caller]
            return mask << CALL
        if phase == FORFEIT_CHECK:
            return (1 << FORFEIT) | (1 << NO_FORFEIT)
        return 0

    def is_over(self, s: Briscola5State) -> bool:
        return s.over

    def is_truncated(self, s: Briscola5State) -> bool:
        return s.truncated

    # -- transitions --------------------------------------------------------------------
    def apply(self, s: Briscola5State, action: int) -> list[int] | None:
        """Apply a legal action (the env checks legality); returns credits when a hand ends."""
        seat = s.to_act
        if action < CALL:
            return self._play(s, seat, action)
        if action < PASS:
            self._call(s, action - CALL)
            return None
        if action < FORFEIT:
            self._auction(s, seat, action)
            return None
        if action == FORFEIT:
            s.records.append(self._void_record(s, "forfeit", seat))
            return self._end_hand(s, None)
        # NO_FORFEIT
        s.forfeit_declined |= 1 << seat
        s.forfeit_queue.pop(0)
        if s.forfeit_queue:
            s.to_act = s.forfeit_queue[0]
        else:
            s.phase = AUCTION
            s.to_act = (s.dealer + 1) % NUM_PLAYERS
        return None

    def _auction(self, s: Briscola5State, seat: int, action: int) -> None:
        if action == PASS:
            s.passed |= 1 << seat
            s.bids.append((seat, 0))
        else:
            s.high = BID_MIN + action - BID
            s.high_bidder = seat
            s.bids.append((seat, s.high))
        active = ~s.passed & 0b11111
        if not active:  # everyone passed without a bid
            if self.flags["all_pass_policy"] == "force_dealer":
                self._start_call(s, s.dealer, self._min_bid)
            else:
                s.records.append(self._void_record(s, "all_pass", -1))
                self._end_hand(s, None)
            return
        if s.high_bidder >= 0 and active & (active - 1) == 0:  # one seat left and a bid exists
            self._start_call(s, s.high_bidder, s.high)
            return
        nxt = (seat + 1) % NUM_PLAYERS
        while s.passed >> nxt & 1:
            nxt = (nxt + 1) % NUM_PLAYERS
        s.to_act = nxt

    def _start_call(self, s: Briscola5State, caller: int, contract: int) -> None:
        s.caller = caller
        s.contract = contract
        s.phase = CALL_CARD
        s.to_act = caller

    def _call(self, s: Briscola5State, card: int) -> None:
        s.called = card
        s.trump = SUIT[card]
        bit = 1 << card
        s.partner = next(p for p in range(NUM_PLAYERS) if s.hands[p] & bit)
        s.phase = TRICK_PLAY
        s.leader = s.caller if self.flags["first_lead"] == "caller" else (s.dealer + 1) % NUM_PLAYERS
        s.to_act = s.leader

    def _play(self, s: Briscola5State, seat: int, card: int) -> list[int] | None:
        s.hands[seat] ^= 1 << card
        s.trick.append(card)
        s.played_by[card] = seat
        s.played_trick[card] = s.trick_no
        if card == s.called:
            s.revealed = True
        if len(s.trick) < NUM_PLAYERS:
            s.to_act = (seat + 1) % NUM_PLAYERS
            return None
        trick = s.trick
        winner = (s.leader + trick_winner(trick, SUIT, STRENGTH, s.trump)) % NUM_PLAYERS
        s.points[winner] += POINTS[trick[0]] + POINTS[trick[1]] + POINTS[trick[2]] + POINTS[trick[3]] + POINTS[trick[4]]
        s.tricks_won[winner] += 1
        s.trick = []
        s.trick_no += 1
        s.leader = s.to_act = winner
        if s.trick_no < NUM_TRICKS:
            return None
        return self._score_hand(s)

    def _score_hand(self, s: Briscola5State) -> list[int]:
        solo = s.partner == s.caller
        team_points = s.points[s.caller] + (0 if solo else s.points[s.partner])
        team_tricks = s.tricks_won[s.caller] + (0 if solo else s.tricks_won[s.partner])
        if self.flags["cappotto_definition"] == "points":
            cappotto = team_points in (0, TOTAL_POINTS)
        else:
            cappotto = team_tricks in (0, NUM_TRICKS)
        credits = hand_credits(
            s.caller, s.partner, s.contract, team_points, cappotto, self.flags["bid_multiplier_on_loss"]
        )
        s.records.append(
            {
                "hand_no": s.hand_no,
                "dealer": s.dealer,
                "void": None,
                "caller": s.caller,
                "bid": s.contract,
                "called_card": DECK.codes[s.called],
                "trump": DECK.suit_codes[s.trump],
                "partner": s.partner,
                "solo": solo,
                "caller_team_points": team_points,
                "caller_team_won": team_points >= s.contract,
                "cappotto": cappotto,
                "points": list(s.points),
                "credits": credits,
            }
        )
        return self._end_hand(s, credits)

    def _void_record(self, s: Briscola5State, reason: str, seat: int) -> dict[str, Any]:
        return {
            "hand_no": s.hand_no,
            "dealer": s.dealer,
            "void": reason,
            "forfeited_by": seat if reason == "forfeit" else None,
            "caller": None,
            "bid": None,
            "called_card": None,
            "trump": None,
            "partner": None,
            "solo": None,
            "caller_team_points": None,
            "caller_team_won": None,
            "cappotto": None,
            "points": None,
            "credits": [0] * NUM_PLAYERS,
        }

    def _end_hand(self, s: Briscola5State, credits: list[int] | None) -> list[int] | None:
        """Classifica, match check, and the next deal (dealer passes to the right, B2)."""
        if credits is None:
            s.consecutive_void += 1
            if self.flags["void_hands_count"]:
                s.hands_played += 1
        else:
            s.consecutive_void = 0
            s.hands_played += 1
            for p in range(NUM_PLAYERS):
                s.scores[p] += credits[p]
        # Only when void hands do not count can all-pass redeals go on forever (spec section 5).
        endless = not self.flags["void_hands_count"] and s.consecutive_void >= MAX_CONSECUTIVE_VOID
        if s.hands_played >= self._num_hands or endless:
            s.truncated = s.hands_played < self._num_hands
            s.over = True
            s.phase = OVER
            s.to_act = -1
        else:
            self._new_hand(s, (s.dealer + 1) % NUM_PLAYERS, None)
        return credits

    # -- reporting ----------------------------------------------------------------------
    def result(self, s: Briscola5State) -> dict[str, Any]:
        return {
            "result_version": RESULT_VERSION,
            "hands": [dict(r) for r in s.records],
            "hands_played": s.hands_played,
            "totals": list(s.scores),
            "truncated": s.truncated,
        }

    def action_name(self, action: int) -> str:
        if action < CALL:
            return f"PLAY {DECK.codes[action]}"
        if action < PASS:
            return f"CALL {DECK.codes[action - CALL]}"
        if action == PASS:
            return "PASS"
        if action < FORFEIT:
            return f"BID {BID_MIN + action - BID}"
        return "FORFEIT" if action == FORFEIT else "NO_FORFEIT"

    def hand_deal(self, s: Briscola5State, hand_no: int) -> dict[str, Any]:
        """The deal of the hand in progress (records ask when a hand starts)."""
        if hand_no != s.hand_no:
            raise ValueError(f"{self.name}: only the deal of the hand in progress ({s.hand_no}) is known; asked {hand_no}")
        return {"dealer": s.dealer, "hands": list(s.dealt)}  # card sets; the records print them as codes

    # -- facts for the search players (``envs.core.game``) -------------------------------------
    def in_trick_play(self, s: Briscola5State) -> bool:
        return s.phase == TRICK_PLAY

    def same_side(self, s: Briscola5State, seat: int, other: int) -> bool:
        """The caller and the partner (the same seat in a solo) against the defenders, once the call is made."""
        if seat == other:
            return True
        if s.caller < 0:
            return False
        team = (s.caller, s.partner)
        return (seat in team) == (other in team)

    def search_candidates(self, s: Briscola5State, legal: list[int]) -> list[int]:
        """The auction's and the call's moves a search player considers (every move of the other phases):

        | phase | candidates |
        |---|---|
        | auction (up to 61 legal ids) | `PASS`, the bids `lo + d` for `d` in `BID_STEPS` = 0, 2, 5, 10, 15, 20 (`lo` = the lowest legal bid) and the bids `BID_LEVELS` = 71 and 81 (where the stake doubles and triples), those that are legal |
        | call (40 legal ids) | per suit, the strongest card the caller does not hold (a partner call) and the strongest it holds (a solo, when calling one's own card is allowed) |
        """
        if len(legal) <= 10:
            return legal
        if legal[-1] < PASS and legal[0] >= CALL:  # the call
            hand = s.hands[s.caller]
            keep = set()
            for suit in range(4):
                cards = range(10 * suit, 10 * suit + 10)
                out = [c for c in cards if not hand >> c & 1 and (CALL + c) in legal]
                own = [c for c in cards if hand >> c & 1 and (CALL + c) in legal]
                if out:
                    keep.add(CALL + max(out, key=lambda c: STRENGTH[c]))
                if own:
                    keep.add(CALL + max(own, key=lambda c: STRENGTH[c]))
            return sorted(keep)
        if PASS in legal:  # the auction
            bids = [a for a in legal if a >= BID]
            keep = {PASS}
            if bids:
                lo = bids[0]
                keep.update(lo + d for d in BID_STEPS if lo + d in bids)
                keep.update(BID + v - BID_MIN for v in BID_LEVELS if BID + v - BID_MIN in bids)
            return sorted(keep)
        return legal

    def render(self, s: Briscola5State, seat: int) -> str:
        lines = [f"Briscola in cinque: hand {s.hand_no} of {self._num_hands}, dealer player_{s.dealer}, phase "
                 f"{PHASE_NAMES[s.phase]}, classifica {s.scores}"]
        if s.bids:
            lines.append("auction: " + ", ".join(f"player_{p}:{'pass' if v == 0 else v}" for p, v in s.bids))
        if s.caller >= 0:
            contract = f"contract: player_{s.caller} bids {s.contract}"
            if s.called >= 0:
                contract += f", calls {DECK.codes[s.called]} (trump {DECK.suit_names[s.trump]})"
                if s.revealed:
                    contract += ", solo" if s.partner == s.caller else f", partner player_{s.partner}"
                elif seat == s.partner:
                    contract += ", you hold the called card" + (" (solo)" if seat == s.caller else "")
            lines.append(contract)
        if s.phase == TRICK_PLAY:
            table = " ".join(f"player_{(s.leader + i) % NUM_PLAYERS}:{DECK.codes[c]}" for i, c in enumerate(s.trick))
            lines.append(f"trick {s.trick_no + 1}/8 led by player_{s.leader}: {table or '-'}")
            lines.append(f"card points taken: {s.points}")
        if not s.over:
            lines.append(f"player_{seat} hand: {DECK.format_mask(s.hands[seat])}")
            lines.append(f"to act: player_{s.to_act}")
        else:
            lines.append("match over")
        return "\n".join(lines)

