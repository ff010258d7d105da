"""An independent Pigugnìn referee written from ``shared/rules/pigugnin.md``, for the tests.

Nothing here imports the engine: card identities, the capture order, the mask, the trick
winner, the hand scoring and the end-of-game check are re-derived from the spec's text and
tables, with plain sets and strings, so that a bug in the engine cannot hide behind the same
bug in the checker.

The three ``referee_<game>`` modules use the same names for the same jobs: ``card`` /
``cards`` / ``code`` (card codes <-> ids), and a ``Referee`` of one hand with ``to_act``,
``legal()``, ``step(action)``, ``done`` and ``scores()`` (the hand's per-seat score: here
the busche paid). ``hand_busche`` and ``game_result`` restate the scoring and the game end.
"""

from __future__ import annotations

RANKS = "A234567JHK"  # §1.1 canonical rank order
SUITS = "CDSB"
CAPTURE_ORDER = ["3", "2", "A", "K", "H", "J", "7", "6", "5", "4"]  # strongest first (§1.1)
POINTS_BY_RANK = {"A": 3, "2": 1, "3": 1, "J": 1, "H": 1, "K": 1, "4": 0, "5": 0, "6": 0, "7": 0}
JS = SUITS.index("S") * 10 + RANKS.index("J")
SEVEN_D = SUITS.index("D") * 10 + RANKS.index("7")
# The spec's full list for p = 0..35 (§4.2), copied, not computed.
BUSCHE_LIST = [0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 1, 1, 1, 2, 2, 2, 3, 3, 3, 4, 4, 4, 5, 6, 7, 8, 9, 10, 11, 12,
               13, 14, 15, 16]  # fmt: skip
TIE_TABLE = {2: 1, 3: 2, 4: 3, 5: 4}
NO_TRICK_TABLE = {1: 2, 2: 3, 3: 4, 4: 5}


def card(text: str) -> int:
    """``"AC"`` -> 0 (rank letter, suit letter, spec section 1.1)."""
    return SUITS.index(text[1]) * 10 + RANKS.index(text[0])


def code(card_id: int) -> str:
    return RANKS[card_id % 10] + SUITS[card_id // 10]


def cards(text: str) -> list[int]:
    """``"AC 2C JS"`` -> card ids."""
    return [card(t) for t in text.split()]


def suit(card: int) -> int:
    return card // 10


def strength(card: int) -> int:
    """Higher is stronger, from the capture order written out in the spec."""
    return len(CAPTURE_ORDER) - CAPTURE_ORDER.index(RANKS[card % 10])


def card_points(card: int) -> int:
    return POINTS_BY_RANK[RANKS[card % 10]]


def legal_cards(hand: set[int], trick: list[int], first_trick: bool = False, restriction: bool = False) -> set[int]:
    """§2.3: the leader plays anything; followers must follow the led suit if they can.

    With the D11 restriction, JS cannot go to the first trick unless Spade was led and JS is
    the only Spade in the hand (lifted when nothing else would be legal).
    """
    if not trick:
        legal = set(hand)
    else:
        led = suit(trick[0])
        same = {c for c in hand if suit(c) == led}
        legal = same if same else set(hand)
    if restriction and first_trick and JS in legal:
        spades = {c for c in hand if suit(c) == suit(JS)}
        allowed = bool(trick) and suit(trick[0]) == suit(JS) and spades == {JS}
        if not allowed and len(legal) > 1:
            legal = legal - {JS}
    return legal


def trick_winner_offset(trick: list[int]) -> int:
    """Position in play order of the winning card: the strongest card of the led suit (§3)."""
    led = suit(trick[0])
    candidates = [i for i, c in enumerate(trick) if suit(c) == led]
    return max(candidates, key=lambda i: strength(trick[i]))


def hand_busche(
    points: list[int],
    tricks: list[int],
    pig: int,
    tie_scope: str = "any_score",
    top_policy: str = "all_pay",
) -> tuple[list[int], bool]:
    """§4.3 written out again: the busche each seat pays, and whether it was a cappotto."""
    n = len(points)
    out = [0] * n
    no_trick = [p for p in range(n) if tricks[p] == 0]
    if no_trick:
        for p in no_trick:
            out[p] += NO_TRICK_TABLE[len(no_trick)]
        out[pig] += 1
        return out, len(no_trick) == n - 1
    for p in range(n):
        out[p] += BUSCHE_LIST[points[p]]
    best = max(points)
    if best < 12:
        tops = [p for p in range(n) if points[p] == best]
        if top_policy == "all_pay" or len(tops) == 1:
            for p in tops:
                out[p] += 1
    for p in range(n):
        same = sum(1 for q in range(n) if points[q] == points[p])
        if same >= 2 and (tie_scope == "any_score" or points[p] >= 12):
            out[p] += TIE_TABLE[same]
    out[pig] += 1
    return out, False


def game_result(
    totals: list[int],
    cappotto_seat: int | None = None,
    *,
    loss: int = 10,
    sole: int = 20,
    multi: str = "all_reached",
    boundary: str = "draw",
    cappotto_others: str = "lose",
) -> list[str] | None:
    """§5.2 written out again: per seat 'win'/'draw'/'lose', all 'annulled', or None (continue)."""
    n = len(totals)

    def losers_of(seats: list[int]) -> list[int] | None:
        over = [p for p in seats if totals[p] >= loss]
        if len(over) >= 2:
            if multi == "top_two" and len(over) > 2:
                cut = sorted((totals[p] for p in over), reverse=True)[1]
                return [p for p in over if totals[p] >= cut]
            return over
        if len(over) == 1 and totals[over[0]] >= sole:
            return over
        return None

    if cappotto_seat is not None:
        res = ["lose"] * n
        res[cappotto_seat] = "win"
        if cappotto_others == "standard":
            others = [p for p in range(n) if p != cappotto_seat]
            lost = losers_of(others) or []
            for p in others:
                res[p] = "lose" if p in lost else "draw"
        return res
    if min(totals) >= loss:
        return ["annulled"] * n
    lost = losers_of(list(range(n)))
    if lost is None:
        return None
    rest = [p for p in range(n) if p not in lost]
    res = ["lose" if p in lost else "?" for p in range(n)]
    if len(rest) <= 2:
        for p in rest:
            res[p] = "win"
    else:
        ordered = sorted(totals[p] for p in rest)
        second = ordered[1]
        crowd = sum(1 for p in rest if totals[p] <= second)
        for p in rest:
            if totals[p] < second:
                res[p] = "win"
            elif totals[p] == second:
                res[p] = "win" if crowd <= 2 or boundary == "win" else "draw"
            else:
                res[p] = "draw"
    if all(r == "draw" for r in res):
        return ["annulled"] * n
    return res


class Referee:
    """Follows one hand card by card from the dealt hands; raises AssertionError on misuse.

    ``flags`` are the game's flags (only the first-trick restriction and the two scoring
    policies matter for one hand); missing keys take the spec's defaults.
    """

    def __init__(self, hands: list[set[int]], leader: int, flags: dict | None = None):
        flags = flags or {}
        self.n = len(hands)
        self.hands = [set(h) for h in hands]
        self.size = len(hands[0])
        self.to_act = leader
        self.leader = leader
        self.trick: list[int] = []
        self.tricks = [0] * self.n
        self.points = [0] * self.n
        self.pig = -1
        self.done_tricks = 0
        self.seen: list[int] = []
        self.restriction = flags.get("pigugnin_first_trick_restriction", False)
        self.tie_scope = flags.get("tie_penalty_scope", "any_score")
        self.top_policy = flags.get("top_scorer_tie_policy", "all_pay")
        self.log: list[tuple[int, list[int], int]] = []

    def legal(self) -> set[int]:
        return legal_cards(self.hands[self.to_act], self.trick, self.done_tricks == 0, self.restriction)

    def step(self, card_id: int) -> None:
        assert card_id in self.legal(), (code(card_id), sorted(self.legal()))
        self.hands[self.to_act].remove(card_id)
        self.trick.append(card_id)
        self.seen.append(card_id)
        if len(self.trick) < self.n:
            self.to_act = (self.to_act + 1) % self.n
            return
        winner = (self.leader + trick_winner_offset(self.trick)) % self.n
        self.tricks[winner] += 1
        self.points[winner] += sum(card_points(c) for c in self.trick)
        if JS in self.trick:
            self.pig = winner
        self.log.append((self.leader, list(self.trick), winner))
        self.trick = []
        self.done_tricks += 1
        self.leader = self.to_act = winner
        if self.done_tricks == self.size:
            self.points[winner] += 3  # last trick

    @property
    def done(self) -> bool:
        return self.done_tricks == self.size

    def scores(self) -> list[int]:
        """The busche each seat pays for the hand (spec section 4.3), once it was played out."""
        assert self.done
        return hand_busche(self.points, self.tricks, self.pig, self.tie_scope, self.top_policy)[0]
