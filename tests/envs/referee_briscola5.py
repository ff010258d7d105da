"""An independent, deliberately plain re-statement of the Briscola in cinque spec.

Written from ``shared/rules/briscola5.md`` with sets and strings, sharing no code with the
engine, so random playouts can compare the engine's masks, turns, tricks and credits with
it. One hand only (the engine's match logic is tested separately).

The three ``referee_<game>`` modules use the same names for the same jobs: ``card`` /
``cards`` / ``code`` (card codes <-> ids), and a ``Referee`` of one hand with ``to_act``,
``legal()``, ``step(action)``, ``done`` and ``scores()`` (the hand's per-seat score:
here the credits).
"""

from __future__ import annotations

RANKS = "A234567JHK"
SUITS = "CDSB"
WEAKEST_TO_STRONGEST = "24567JHK3A"
CARD_POINTS = {"A": 11, "3": 10, "K": 4, "H": 3, "J": 2}


def code(card: int) -> str:
    return RANKS[card % 10] + SUITS[card // 10]


def card(text: str) -> int:
    """``"AC"`` -> 0 (rank letter, suit letter, spec section 1)."""
    return SUITS.index(text[1]) * 10 + RANKS.index(text[0])


def cards(text: str) -> list[int]:
    """``"AC 2C JS"`` -> card ids."""
    return [card(t) for t in text.split()]


def points(card: int) -> int:
    return CARD_POINTS.get(code(card)[0], 0)


def strength(card: int) -> int:
    return WEAKEST_TO_STRONGEST.index(code(card)[0])


class Referee:
    def __init__(self, hands: list[set[int]], dealer: int, flags: dict):
        self.hands = [set(h) for h in hands]
        self.dealer = dealer
        self.flags = flags
        self.first = (dealer + 1) % 5
        seats = [(self.first + i) % 5 for i in range(5)]
        self.forfeit_queue = (
            [p for p in seats if sum(points(c) for c in self.hands[p]) == 0] if flags["forfeit_enabled"] else []
        )
        self.phase = "forfeit" if self.forfeit_queue else "auction"
        self.to_act = self.forfeit_queue[0] if self.forfeit_queue else self.first
        self.passed: set[int] = set()
        self.high = None
        self.high_bidder = None
        self.caller = self.contract = self.called = self.trump = self.partner = None
        self.trick: list[tuple[int, int]] = []
        self.won_points = [0] * 5
        self.won_tricks = [0] * 5
        self.tricks_done = 0
        self.played: list[int] = []
        self.done = False
        self.void = None

    def legal(self) -> set[int]:
        if self.done:
            return set()
        if self.phase == "forfeit":
            return {141, 142}
        if self.phase == "auction":
            lo = self.flags["min_bid"] if self.high is None else self.high + self.flags["min_raise"]
            return {80} | {81 + v - 61 for v in range(lo, self.flags["max_bid"] + 1)}
        if self.phase == "call":
            own = self.hands[self.caller] if not self.flags["allow_call_own_card"] else set()
            return {40 + c for c in range(40) if c not in own}
        return set(self.hands[self.to_act])

    def step(self, action: int) -> list[int] | None:
        assert action in self.legal()
        seat = self.to_act
        if self.phase == "forfeit":
            if action == 141:
                self.done, self.void = True, "forfeit"
                return None
            self.forfeit_queue.pop(0)
            if self.forfeit_queue:
                self.to_act = self.forfeit_queue[0]
            else:
                self.phase, self.to_act = "auction", self.first
            return None
        if self.phase == "auction":
            if action == 80:
                self.passed.add(seat)
            else:
                self.high, self.high_bidder = 61 + action - 81, seat
            left = [p for p in range(5) if p not in self.passed]
            if not left:
                if self.flags["all_pass_policy"] == "void":
                    self.done, self.void = True, "all_pass"
                    return None
                self.caller, self.contract = self.dealer, self.flags["min_bid"]
                self.phase, self.to_act = "call", self.dealer
            elif len(left) == 1 and self.high is not None:
                self.caller, self.contract = left[0], self.high
                self.phase, self.to_act = "call", left[0]
            else:
                nxt = (seat + 1) % 5
                while nxt in self.passed:
                    nxt = (nxt + 1) % 5
                self.to_act = nxt
            return None
        if self.phase == "call":
            self.called = action - 40
            self.trump = self.called // 10
            self.partner = [p for p in range(5) if self.called in self.hands[p]][0]
            self.phase = "play"
            self.to_act = self.caller if self.flags["first_lead"] == "caller" else self.first
            return None
        self.hands[seat].remove(action)
        self.played.append(action)
        self.trick.append((seat, action))
        if len(self.trick) < 5:
            self.to_act = (seat + 1) % 5
            return None
        led = self.trick[0][1] // 10
        trumps = [(s, c) for s, c in self.trick if c // 10 == self.trump]
        pool = trumps or [(s, c) for s, c in self.trick if c // 10 == led]
        winner = max(pool, key=lambda sc: strength(sc[1]))[0]
        self.won_points[winner] += sum(points(c) for _, c in self.trick)
        self.won_tricks[winner] += 1
        self.trick = []
        self.tricks_done += 1
        self.to_act = winner
        if self.tricks_done < 8:
            return None
        self.done = True
        return self.scores()

    def scores(self) -> list[int]:
        """The credits of the hand (spec section 4.2), once it was played out."""
        team = {self.caller, self.partner}
        team_points = sum(self.won_points[p] for p in team)
        team_tricks = sum(self.won_tricks[p] for p in team)
        won = team_points >= self.contract
        if self.flags["cappotto_definition"] == "points":
            cap = team_points == 120 or team_points == 0
        else:
            cap = team_tricks == 8 or team_tricks == 0
        mult = 1
        if won or self.flags["bid_multiplier_on_loss"]:
            mult = 1 if self.contract <= 70 else (2 if self.contract <= 80 else 3)
        if cap:
            mult *= 2
        solo = len(team) == 1
        sign = 1 if won else -1
        out = []
        for p in range(5):
            if p == self.caller:
                out.append(sign * (4 if solo else 2) * mult)
            elif p == self.partner:
                out.append(sign * mult)
            else:
                out.append(-sign * mult)
        return out
