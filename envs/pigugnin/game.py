"""Pigugnìn (Busca Reggiana): the pure rules engine.

The rules are `docs/rules/pigugnin.md`; the codes cited in this package (§5.2 for its
sections, D1..D13 for its decisions) refer to that file. The engine is a set of methods over a
plain `__slots__` state of ints, int bitmasks and small lists; it never calls agents and draws
randomness only from the `np.random.Generator` kept in the state.

Phases (§2.2) are the `Phase` enum. Only `TRICK_PLAY` has an actor; `HAND_SETUP`,
`HAND_SCORING` and `GAME_CHECK` are engine transitions run inside `apply` when the last card
of a hand is played, so between calls the state is either in `TRICK_PLAY` or in `GAME_OVER`.

Pure scoring helpers, usable without a state (the worked examples 6.1-6.12 and 6.16-6.26 test
them directly): `busche_for_points`, `score_hand` and `game_outcome`.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from enum import IntEnum
from typing import Any

import numpy as np

from envs.core.cards import ITALIAN, iter_bits
from envs.core.errors import ConfigError, DealError
from envs.core.flags import Flag, int_range, real_number, seat_or_random
from envs.core.game import RESULT_VERSION, CardGame, check_options, parse_hands, parse_seat
from envs.core.trick import card_strengths, trick_winner

__all__ = [
    "Phase",
    "PHASE_NAMES",
    "GAME_START",
    "HAND_SETUP",
    "TRICK_PLAY",
    "HAND_SCORING",
    "GAME_CHECK",
    "GAME_OVER",
    "PigugninGame",
    "PigugninState",
    "FLAGS",
    "PIGUGNIN",
    "RANK_STRENGTH",
    "RANK_POINTS",
    "STRENGTH",
    "POINTS",
    "LAST_TRICK_BONUS",
    "POINTS_TO_BUSCHE",
    "busche_for_points",
    "tie_penalty",
    "no_trick_penalty",
    "score_hand",
    "game_outcome",
    "WIN",
    "DRAW",
    "LOSE",
    "ANNULLED",
]

DECK = ITALIAN
PIGUGNIN = 27  # the Jack of Spade, code JS (§1.1)
SEVEN_OF_DENARI = 16  # 7D, for first_hand_leader="holder_7D"
#: capture strength per rank index (A 2 3 4 5 6 7 J H K), 9 = strongest (§1.1)
RANK_STRENGTH = (7, 8, 9, 0, 1, 2, 3, 4, 5, 6)
#: card points per rank index (§4.1)
RANK_POINTS = (3, 1, 1, 0, 0, 0, 0, 1, 1, 1)
#: the same two tables per card id
STRENGTH = card_strengths(RANK_STRENGTH, DECK.num_suits)
POINTS = card_strengths(RANK_POINTS, DECK.num_suits)
LAST_TRICK_BONUS = 3
HAND_TOTAL = 35

_SUIT = DECK.suit_of
_SUIT_MASK = DECK.suit_mask
_PIG_BIT = 1 << PIGUGNIN
_SPADE = _SUIT[PIGUGNIN]


def busche_for_points(points: int) -> int:
    """POINTS_TO_BUSCHE (§4.2, threshold reading D3): 0-11 -> 0, 12-14 -> 1, ..., p >= 24 -> p - 19."""
    if points < 12:
        return 0
    if points <= 23:
        return 1 + (points - 12) // 3
    return points - 19


#: the table for p = 0..35 (§4.2)
POINTS_TO_BUSCHE = tuple(busche_for_points(p) for p in range(HAND_TOTAL + 1))


def tie_penalty(k: int) -> int:
    """TIE_PENALTY: each of `k` players on the same hand points pays `k - 1` (§4.2)."""
    return k - 1 if k >= 2 else 0


def no_trick_penalty(k: int) -> int:
    """NO_TRICK_PENALTY: each of `k` trickless players pays `k + 1` (§4.2)."""
    return k + 1 if k >= 1 else 0


class Phase(IntEnum):
    """The states of §2.2 (only `TRICK_PLAY` has an actor)."""

    GAME_START = 0
    HAND_SETUP = 1
    TRICK_PLAY = 2
    HAND_SCORING = 3
    GAME_CHECK = 4
    GAME_OVER = 5


# Plain ints on the hot path (IntEnum comparisons are several times slower); the state
# stores these ints.
GAME_START, HAND_SETUP, TRICK_PLAY, HAND_SCORING, GAME_CHECK, GAME_OVER = (int(p) for p in Phase)
PHASE_NAMES = tuple(p.name for p in Phase)

WIN, DRAW, LOSE, ANNULLED = "win", "draw", "lose", "annulled"
_OUTCOME_KEYS = (WIN, DRAW, LOSE, ANNULLED)


def score_hand(
    points: Sequence[int],
    tricks_won: Sequence[int],
    pig_taker: int,
    tie_penalty_scope: str = "any_score",
    top_scorer_tie_policy: str = "all_pay",
) -> tuple[list[int], bool]:
    """Busche paid by each seat for one hand, and whether it was a cappotto (§4.3).

    `points` include the last-trick bonus; `pig_taker` is the seat that captured JS.
    """
    n = len(points)
    delta = [0] * n
    trickless = [s for s in range(n) if tricks_won[s] == 0]
    if trickless:
        # "Nobody counts points": only the trickless players pay, plus the Pigugnìn busca.
        pay = no_trick_penalty(len(trickless))
        for s in trickless:
            delta[s] += pay
        delta[pig_taker] += 1
        return delta, len(trickless) == n - 1
    for s in range(n):
        delta[s] += busche_for_points(points[s])
    top = max(points)
    if top < 12:
        tied_top = [s for s in range(n) if points[s] == top]
        if len(tied_top) == 1 or top_scorer_tie_policy == "all_pay":
            for s in tied_top:
                delta[s] += 1
    groups: dict[int, list[int]] = {}
    for s in range(n):
        groups.setdefault(points[s], []).append(s)
    for value, group in groups.items():
        if len(group) >= 2 and (tie_penalty_scope == "any_score" or value >= 12):
            extra = tie_penalty(len(group))
            for s in group:
                delta[s] += extra
    delta[pig_taker] += 1
    return delta, False


def _losers(totals: Sequence[int], seats: Sequence[int], loss: int, sole: int, multi: str) -> list[int] | None:
    """Rule 3 of §5.2 over `seats`: the losing seats, or None when rule 3 decides nothing."""
    reached = [s for s in seats if totals[s] >= loss]
    if len(reached) >= 2:
        if multi == "top_two" and len(reached) > 2:
            second = sorted((totals[s] for s in reached), reverse=True)[1]
            return [s for s in reached if totals[s] >= second]  # ties at the boundary all lose
        return reached
    if len(reached) == 1 and totals[reached[0]] >= sole:
        return reached
    return None


def _rank_non_losers(totals: Sequence[int], seats: Sequence[int], boundary: str) -> dict[int, str]:
    """Rule 4 of §5.2: the two non-losers with the fewest busche win, the rest draw (D9 on ties)."""
    if len(seats) <= 2:
        return dict.fromkeys(seats, WIN)
    v2 = sorted(totals[s] for s in seats)[1]
    at_most_v2 = sum(1 for s in seats if totals[s] <= v2)
    out = {}
    for s in seats:
        t = totals[s]
        if t < v2 or (t == v2 and (at_most_v2 <= 2 or boundary == "win")):
            out[s] = WIN
        else:
            out[s] = DRAW
    return out


def game_outcome(
    totals: Sequence[int],
    cappotto_maker: int = -1,
    *,
    loss_threshold: int = 10,
    sole_loss_threshold: int = 20,
    multi_loser_policy: str = "all_reached",
    winner_boundary_tie: str = "draw",
    cappotto_others_outcome: str = "lose",
) -> tuple[list[str] | None, str | None]:
    """The end-of-game check of §5.2 after a hand: `(outcome per seat, reason)` or `(None, None)`.

    `totals` are the busche totals after the hand; `cappotto_maker` is the seat that took
    every trick of that hand (-1 if none). Reasons: `"cappotto"`, `"annulled"`,
    `"losers"` (two or more reached `loss_threshold`), `"sole_loser"` (one reached
    `sole_loss_threshold`), `"all_draw"` (rule 5; reported as annulled).
    """
    n = len(totals)
    if cappotto_maker >= 0:
        outcome = [LOSE] * n
        outcome[cappotto_maker] = WIN
        if cappotto_others_outcome == "standard":
            others = [s for s in range(n) if s != cappotto_maker]
            losers = _losers(totals, others, loss_threshold, sole_loss_threshold, multi_loser_policy) or []
            for s in others:
                # Rules 3-5 among the others, with every "win" among them turned into "draw".
                outcome[s] = LOSE if s in losers else DRAW
        return outcome, "cappotto"
    if all(t >= loss_threshold for t in totals):
        return [ANNULLED] * n, "annulled"
    losers = _losers(totals, range(n), loss_threshold, sole_loss_threshold, multi_loser_policy)
    if losers is None:
        return None, None
    reason = "losers" if len(losers) >= 2 else "sole_loser"
    rest = [s for s in range(n) if s not in losers]
    ranked = _rank_non_losers(totals, rest, winner_boundary_tie)
    outcome = [LOSE if s in losers else ranked[s] for s in range(n)]
    if all(o == DRAW for o in outcome):
        return [ANNULLED] * n, "all_draw"
    return outcome, reason


# -- flags (Appendix A of the spec, plus the env-level keywords of the issue) ----------------


class _OutcomeReward:
    """Predicate of `outcome_reward`: a dict from outcome names to finite numbers (stored as Python numbers)."""

    _number = real_number()

    def coerce(self, value: Any) -> Any:
        if isinstance(value, Mapping):
            return {k: self._number.coerce(v) for k, v in value.items()}
        return value

    def __call__(self, value: Any) -> bool:
        return (
            isinstance(value, Mapping)
            and all(k in _OUTCOME_KEYS for k in value)
            and all(self._number(v) for v in value.values())
        )


FLAGS: tuple[Flag, ...] = (
    Flag("num_players", 4, "number of players: 10 cards each with 4, 8 with 5 (§1.2)", allowed=(4, 5)),
    Flag(
        "first_dealer",
        "random",
        "dealer of hand 1: uniform from the env RNG, or a fixed seat (D1)",
        check=seat_or_random(4),
        allowed_text="'random' or a seat number 0..num_players-1",
    ),
    Flag(
        "first_hand_leader",
        "right_of_dealer",
        "who leads the first trick of hand 1: the dealer's right, or the holder of 7D (D1b)",
        allowed=("right_of_dealer", "holder_7D"),
    ),
    Flag(
        "pigugnin_first_trick_restriction",
        False,
        "JS may not be played to the first trick of a hand unless Spade was led and it is the only Spade (D11)",
        allowed=(False, True),
    ),
    Flag(
        "tie_penalty_scope",
        "any_score",
        "tie penalty for equal hand points at any score, or only for scores >= 12 (D5)",
        allowed=("any_score", "paying_scores_only"),
    ),
    Flag(
        "top_scorer_tie_policy",
        "all_pay",
        "when nobody reaches 12 and the top score is shared: all tied top scorers pay 1, or none (D4)",
        allowed=("all_pay", "none_pay"),
    ),
    Flag(
        "cappotto_others_outcome",
        "lose",
        "after a cappotto the others all lose, or are ranked by the usual rules with wins turned into draws (D6)",
        allowed=("lose", "standard"),
    ),
    Flag(
        "multi_loser_policy",
        "all_reached",
        "when 3+ players have reached loss_threshold: all of them lose, or only the two highest totals (D8)",
        allowed=("all_reached", "top_two"),
    ),
    Flag(
        "winner_boundary_tie",
        "draw",
        "non-losers tied for the second winner slot draw, or all win (D9)",
        allowed=("draw", "win"),
    ),
    Flag(
        "loss_threshold",
        10,
        "busche total at which a player has lost (once a second player reaches it) (§5.1)",
        check=int_range(1),
        allowed_text="an int >= 1",
    ),
    Flag(
        "sole_loss_threshold",
        20,
        "busche total at which a player loses alone (§5.1); must be >= loss_threshold",
        check=int_range(1),
        allowed_text="an int >= 1 (and >= loss_threshold)",
    ),
    Flag(
        "episode",
        "game",
        "an episode is a whole game (busche accumulate until it ends) or one hand",
        allowed=("game", "hand"),
    ),
    Flag(
        "outcome_reward",
        {"win": 0, "draw": 0, "lose": 0},
        "reward added to each agent when the game ends, by its result; keys win, draw, lose "
        "(missing ones count 0) and optional annulled (default: the draw value)",
        check=_OutcomeReward(),
        allowed_text="a dict with keys from 'win', 'draw', 'lose', 'annulled' and finite int/float values",
    ),
)


class PigugninState:
    """The whole mutable state of a game (all plain Python values)."""

    __slots__ = (
        "rng",
        "phase",
        "hand_no",
        "dealer",
        "leader",
        "to_act",
        "hands",
        "trick",
        "tricks_done",
        "tricks_won",
        "points",
        "captured",
        "played",
        "pig_taker",
        "busche",
        "deal",
        "trick_log",
        "records",
        "outcome",
        "reason",
    )

    def __init__(self) -> None:
        self.rng: np.random.Generator | None = None
        self.phase = GAME_START
        self.hand_no = 0
        self.dealer = 0
        self.leader = 0  # the seat that led (or is to lead) the trick in progress
        self.to_act = 0
        self.hands: list[int] = []  # card-set bitmask per seat
        self.trick: list[int] = []  # cards of the trick in progress, in play order from `leader`
        self.tricks_done = 0
        self.tricks_won: list[int] = []
        self.points: list[int] = []  # card points captured this hand (+3 last trick at the end)
        self.captured: list[int] = []  # card-set bitmask per seat, this hand
        self.played: list[int] = []  # cards each seat has played this hand
        self.pig_taker = -1
        self.busche: list[int] = []
        self.deal: list[list[int]] = []  # the hands as dealt, for the hand record
        self.trick_log: list[tuple[int, tuple[int, ...], int]] = []  # (leader, cards, winner) per trick
        self.records: list[dict[str, Any]] = []  # one per finished hand
        self.outcome: list[str] | None = None
        self.reason: str | None = None

    def copy(self) -> PigugninState:
        """An independent copy (the generator is shared: copies are for analysis, not replays).

        Every list is copied; their items are ints and tuples, or the hands as dealt (``deal``) and
        the finished hands' records (``records``), which the engine never changes once written."""
        other = PigugninState.__new__(PigugninState)
        for name in PigugninState.__slots__:
            value = getattr(self, name)
            setattr(other, name, value.copy() if isinstance(value, (list, dict)) else value)
        return other


class PigugninGame(CardGame):
    """Rules engine of Pigugnìn (40 action ids = card ids)."""

    name = "pigugnin_v0"
    deck = DECK
    num_actions = 40
    FLAGS = FLAGS
    OPTION_KEYS = ("dealer", "hands", "busche")

    def __init__(self, **flags: Any):
        super().__init__(**flags)
        f = self.flags
        n = self.num_players
        if f["first_dealer"] != "random" and f["first_dealer"] >= n:
            raise ConfigError(
                f"{self.name}: invalid value {f['first_dealer']!r} for flag 'first_dealer'; "
                f"allowed: 'random' or a seat number 0..{n - 1}"
            )
        if f["sole_loss_threshold"] < f["loss_threshold"]:
            raise ConfigError(
                f"{self.name}: invalid value {f['sole_loss_threshold']!r} for flag 'sole_loss_threshold'; "
                f"allowed: an int >= loss_threshold ({f['loss_threshold']})"
            )
        reward = dict(f["outcome_reward"])
        self.outcome_reward = {
            WIN: reward.get(WIN, 0),
            DRAW: reward.get(DRAW, 0),
            LOSE: reward.get(LOSE, 0),
            ANNULLED: reward.get(ANNULLED, reward.get(DRAW, 0)),
        }
        self.flags["outcome_reward"] = reward  # a private copy: the Flag default is shared
        self.hand_size = 40 // n
        self._restrict = f["pigugnin_first_trick_restriction"]
        self._hand_episode = f["episode"] == "hand"
        self._outcome_kwargs = {
            "loss_threshold": f["loss_threshold"],
            "sole_loss_threshold": f["sole_loss_threshold"],
            "multi_loser_policy": f["multi_loser_policy"],
            "winner_boundary_tie": f["winner_boundary_tie"],
            "cappotto_others_outcome": f["cappotto_others_outcome"],
        }

    def _num_players(self) -> int:
        return self.flags["num_players"]

    # -- setup --------------------------------------------------------------------------
    def parse_options(self, options: Mapping[str, Any] | None) -> dict[str, Any]:
        """Validate `reset` options: `dealer` (seat), `hands` (one list per seat), `busche`."""
        opts = check_options(options, self.OPTION_KEYS, self.name)
        n = self.num_players
        setup: dict[str, Any] = {}
        if "dealer" in opts:
            setup["dealer"] = parse_seat(opts["dealer"], n, "dealer", self.name)
        if "hands" in opts:
            hands = parse_hands(self.deck, opts["hands"], [self.hand_size] * n, self.name)
            setup["hands"] = hands
        if "busche" in opts:
            setup["busche"] = self._parse_busche(opts["busche"])
        return setup

    def _parse_busche(self, value: Any) -> list[int]:
        n = self.num_players
        if isinstance(value, (str, bytes)) or not hasattr(value, "__len__") or len(value) != n:
            raise DealError(
                f"{self.name}: option 'busche' must be a list of {n} busche totals (one per seat); got {value!r}"
            )
        totals = []
        for seat, v in enumerate(value):
            if isinstance(v, bool) or not isinstance(v, (int, np.integer)) or v < 0:
                raise DealError(f"{self.name}: option 'busche', seat {seat}: expected an int >= 0; got {v!r}")
            totals.append(int(v))
        outcome, reason = game_outcome(totals, **self._outcome_kwargs)
        if outcome is not None:
            loss, sole = self.flags["loss_threshold"], self.flags["sole_loss_threshold"]
            raise DealError(
                f"{self.name}: option 'busche' {totals} would already have ended the game ({reason}); allowed: "
                f"at most one total >= loss_threshold ({loss}), and that one below sole_loss_threshold ({sole})"
            )
        return totals

    def new_state(self, rng: np.random.Generator, setup: dict[str, Any]) -> PigugninState:
        n = self.num_players
        s = PigugninState()
        s.rng = rng
        s.busche = list(setup.get("busche", [0] * n))
        dealer = setup.get("dealer")
        if dealer is None:
            first = self.flags["first_dealer"]
            dealer = int(rng.integers(n)) if first == "random" else first
        self._new_hand(s, dealer, setup.get("hands"))
        if self.flags["first_hand_leader"] == "holder_7D":
            holder = next(p for p in range(n) if s.hands[p] >> SEVEN_OF_DENARI & 1)
            s.dealer = (holder - 1) % n
            s.leader = s.to_act = holder
        return s

    def _new_hand(self, s: PigugninState, dealer: int, hands: list[list[int]] | None) -> None:
        """HAND_SETUP (§2.2): deal one card at a time from the dealer's right (D2)."""
        n = self.num_players
        if hands is None:
            order = s.rng.permutation(40).tolist()
            hands = [order[(p - dealer - 1) % n :: n] for p in range(n)]
        s.phase = TRICK_PLAY
        s.hand_no += 1
        s.dealer = dealer
        s.leader = s.to_act = (dealer + 1) % n
        s.deal = [list(h) for h in hands]
        masks = []
        for h in hands:
            m = 0
            for c in h:
                m |= 1 << c
            masks.append(m)
        s.hands = masks
        s.trick = []
        s.tricks_done = 0
        s.tricks_won = [0] * n
        s.points = [0] * n
        s.captured = [0] * n
        s.played = [0] * n
        s.pig_taker = -1
        s.trick_log = []

    # -- play ---------------------------------------------------------------------------
    def current_player(self, s: PigugninState) -> int:
        return s.to_act if s.phase == TRICK_PLAY else -1

    def legal_mask(self, s: PigugninState) -> int:
        """§2.3: follow the led suit when possible, otherwise any card (plus D11 when enabled)."""
        if s.phase != TRICK_PLAY:
            return 0
        hand = s.hands[s.to_act]
        if s.trick:
            mask = hand & _SUIT_MASK[_SUIT[s.trick[0]]] or hand
        else:
            mask = hand
        if self._restrict and s.tricks_done == 0 and mask & _PIG_BIT:
            led_spade = bool(s.trick) and _SUIT[s.trick[0]] == _SPADE
            only_spade = hand & _SUIT_MASK[_SPADE] == _PIG_BIT
            if not (led_spade and only_spade):
                mask = mask & ~_PIG_BIT or mask  # lifted if JS was the only legal card
        return mask

    def apply(self, s: PigugninState, card: int) -> list | None:
        """Play `card` (assumed legal: the env checks the mask). Returns rewards at a hand's end."""
        seat = s.to_act
        bit = 1 << card
        s.hands[seat] ^= bit
        s.played[seat] |= bit
        trick = s.trick
        trick.append(card)
        n = self.num_players
        if len(trick) < n:
            s.to_act = seat + 1 if seat + 1 < n else 0
            return None
        # Resolve the trick (§3): the strongest card of the led suit wins, no trumps.
        winner = (s.leader + trick_winner(trick, _SUIT, STRENGTH)) % n
        taken = 0
        pts = 0
        for c in trick:
            taken |= 1 << c
            pts += POINTS[c]
        s.captured[winner] |= taken
        s.tricks_won[winner] += 1
        s.points[winner] += pts
        if taken & _PIG_BIT:
            s.pig_taker = winner
        s.trick_log.append((s.leader, tuple(trick), winner))
        s.trick = []
        s.tricks_done += 1
        s.leader = s.to_act = winner
        if s.tricks_done < self.hand_size:
            return None
        s.points[winner] += LAST_TRICK_BONUS
        return self._end_hand(s)

    def _end_hand(self, s: PigugninState) -> list:
        """HAND_SCORING and GAME_CHECK (§4.3, §5.2); deals the next hand if the game goes on."""
        n = self.num_players
        f = self.flags
        s.phase = HAND_SCORING
        delta, cappotto = score_hand(
            s.points, s.tricks_won, s.pig_taker, f["tie_penalty_scope"], f["top_scorer_tie_policy"]
        )
        busche = s.busche
        for p in range(n):
            busche[p] += delta[p]
        maker = s.tricks_won.index(self.hand_size) if cappotto else -1
        s.records.append(
            {
                "hand_no": s.hand_no,
                "dealer": s.dealer,
                "first_leader": s.trick_log[0][0],
                "deal": s.deal,
                "trick_history": [[lead, list(cards), win] for lead, cards, win in s.trick_log],
                "points": list(s.points),
                "tricks": list(s.tricks_won),
                "busche_paid": delta,
                "busche_total": list(busche),
                "pig_taker": s.pig_taker,
                "cappotto": cappotto,
                "cappotto_maker": maker if cappotto else None,
            }
        )
        s.phase = GAME_CHECK
        outcome, reason = game_outcome(busche, maker, **self._outcome_kwargs)
        rewards = [-d for d in delta]
        if outcome is not None:
            s.outcome, s.reason = outcome, reason
            table = self.outcome_reward
            rewards = [r + table[o] for r, o in zip(rewards, outcome, strict=True)]
            s.phase = GAME_OVER
        elif self._hand_episode:
            s.phase = GAME_OVER
        else:
            s.phase = HAND_SETUP
            self._new_hand(s, s.pig_taker, None)  # the Pigugnìn taker deals next (§1.3)
        return rewards

    def is_over(self, s: PigugninState) -> bool:
        return s.phase == GAME_OVER

    # -- reporting ----------------------------------------------------------------------
    def result(self, s: PigugninState) -> dict[str, Any]:
        """The episode record placed in every agent's info at the end (see env.py)."""
        outcome = s.outcome
        return {
            "result_version": RESULT_VERSION,
            "num_players": self.num_players,
            "episode": self.flags["episode"],
            "hands": s.records,
            "busche": list(s.busche),
            "game_over": outcome is not None,
            "outcome": list(outcome) if outcome is not None else None,
            "reason": s.reason,
            "annulled": outcome is not None and outcome[0] == ANNULLED,
            "winners": [p for p in range(self.num_players) if outcome and outcome[p] == WIN],
            "losers": [p for p in range(self.num_players) if outcome and outcome[p] == LOSE],
        }

    def action_name(self, action: int) -> str:
        return DECK.codes[action]

    def move_name(self, action: int) -> str:
        return f"play {DECK.codes[action]}"

    def hand_deal(self, s: PigugninState, hand_no: int) -> dict[str, Any]:
        """The deal of the hand in progress (records ask when a hand starts)."""
        if hand_no != s.hand_no:
            raise ValueError(f"{self.name}: only the deal of the hand in progress ({s.hand_no}) is known; asked {hand_no}")
        return {"dealer": s.dealer, "hands": s.deal}  # card ids per seat (a new list each hand)

    def render(self, s: PigugninState, seat: int) -> str:
        n = self.num_players
        codes = DECK.codes
        lines = [f"Pigugnin, {n} players, hand {s.hand_no}, dealer player_{s.dealer}"]
        if s.phase == GAME_OVER:
            if s.outcome is None:
                lines.append("hand over (episode='hand'): the game would go on")
            else:
                lines.append(
                    f"game over ({s.reason}): " + ", ".join(f"player_{p} {o}" for p, o in enumerate(s.outcome))
                )
        else:
            lines.append(f"trick {s.tricks_done + 1}/{self.hand_size}, player_{s.to_act} to play")
        lines.append("seat      busche  tricks  points  played")
        for p in range(n):
            tag = "*" if p == s.pig_taker else " "
            lines.append(
                f"player_{p}{tag} {s.busche[p]:6d}  {s.tricks_won[p]:6d}  {s.points[p]:6d}  "
                f"{DECK.format_mask(s.played[p])}"
            )
        if s.trick:
            shown = [f"player_{(s.leader + i) % n}:{codes[c]}" for i, c in enumerate(s.trick)]
            lines.append("trick: " + " ".join(shown))
        elif s.trick_log and s.phase == TRICK_PLAY:
            lead, cards, win = s.trick_log[-1]
            shown = [f"player_{(lead + i) % n}:{codes[c]}" for i, c in enumerate(cards)]
            lines.append("last trick: " + " ".join(shown) + f" -> player_{win}")
        lines.append(f"player_{seat} hand: {DECK.format_mask(s.hands[seat])}")
        if s.pig_taker >= 0:
            lines.append("(* took the Pigugnin JS this hand)")
        return "\n".join(lines)


def hand_cards(mask: int) -> list[int]:
    """Card ids of a card-set bitmask, ascending (convenience for tests and agents)."""
    return list(iter_bits(mask))
