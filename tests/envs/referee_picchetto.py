"""Test helpers for Picchetto: an independent referee of one hand, and explicit-deal builders.

``Referee`` is a deliberately plain re-statement of ``shared/rules/picchetto.md`` with sets,
lists and strings, sharing no code with the engine: random playouts compare the engine's
masks, per-step rewards, scoring events and revealed cards with it.

The three ``referee_<game>`` modules use the same names for the same jobs: ``card`` /
``cards`` / ``code`` (card codes <-> ids), and a ``Referee`` of one hand with ``to_act``,
``legal()``, ``step(action)``, ``done`` and ``scores()`` (the hand's per-seat score: here
the points each player scored in the hand).
"""

from __future__ import annotations

RANKS = "789TJQKA"
SUITS = "hdsc"
VALUE = {"7": 7, "8": 8, "9": 9, "T": 10, "J": 10, "Q": 10, "K": 10, "A": 11}
SEQ_POINTS = {3: 3, 4: 4, 5: 15, 6: 16, 7: 17, 8: 18}
ALL = set(range(32))


def code(card: int) -> str:
    return RANKS[card % 8] + SUITS[card // 8]


def card(text: str) -> int:
    return SUITS.index(text[1]) * 8 + RANKS.index(text[0])


def cards(text: str) -> list[int]:
    return [card(t) for t in text.split()]


def suit(c: int) -> str:
    return code(c)[1]


def rank(c: int) -> int:
    return RANKS.index(code(c)[0])


def is_face(c: int) -> bool:
    return code(c)[0] in "JQK"


# -- declarations, restated ---------------------------------------------------------------------


def ref_point(hand: set[int]) -> tuple[int, int, str]:
    """(value, number of cards, suit); ties on value: more cards; then the first suit in h d s c."""
    best = None
    for s in SUITS:
        cs = [c for c in hand if suit(c) == s]
        if cs:
            key = (sum(VALUE[code(c)[0]] for c in cs), len(cs))
            if best is None or key > best[:2]:
                best = (key[0], key[1], s)
    return best


def ref_sequences(hand: set[int]) -> list[tuple[int, int, set[int]]]:
    out = []
    for s in SUITS:
        ranks = sorted(rank(c) for c in hand if suit(c) == s)
        run: list[int] = []
        for r in ranks + [99]:
            if run and r == run[-1] + 1:
                run.append(r)
                continue
            if len(run) >= 3:
                out.append((len(run), run[-1], {SUITS.index(s) * 8 + x for x in run}))
            run = [r]
    return out


def ref_sets(hand: set[int]) -> list[tuple[int, int, set[int]]]:
    out = []
    for r in "TJQKA":
        cs = {c for c in hand if code(c)[0] == r}
        if len(cs) >= 3:
            out.append((len(cs), RANKS.index(r), cs))
    return out


class Referee:
    """One hand of Picchetto from the deal (seat-indexed hands, talon in order) to its end."""

    def __init__(self, hands, talon, dealer: int, scores, target: int, flags: dict):
        self.f = flags
        self.dealer, self.elder = dealer, 1 - dealer
        self.dealt = [set(h) for h in hands]
        self.hand = [set(h) for h in hands]
        self.talon = list(talon)
        self.disc: list[list[int]] = [[], []]
        self.drawn: list[list[int]] = [[], []]
        self.hs = [0, 0]
        self.gs = list(scores)
        self.target = target
        self.events: list[tuple[str, int, int]] = []
        self.winner = None  # the game winner, if the game ended
        self.done = False
        self.bonus_done = False  # pique or repique made
        self.bianco = [False, False]
        self.revealed: list[set[int]] = [set(), set()]
        self.phase = "elder_exchange"
        self.to_act = self.elder
        self.tricks = [0, 0]
        self.trick_no = 0
        self.led = None
        self.leader = self.elder
        if not any(is_face(c) for c in self.dealt[self.elder]):
            self.bianco[self.elder] = True
            self.award(self.elder, 10, "bianco")

    # -- scoring ------------------------------------------------------------------------
    def reached(self, score: int) -> bool:
        return score >= self.target if self.f["target_inclusive"] else score > self.target

    def award(self, seat: int, pts: int, kind: str) -> bool:
        self.events.append((kind, seat, pts))
        self.hs[seat] += pts
        self.gs[seat] += pts
        if self.f["game_end_check"] == "immediate" and self.reached(self.gs[seat]):
            self.winner = seat
            self.done = True
            self.phase = "over"
            return True
        return False

    def pique(self, seat: int) -> bool:
        if not self.bonus_done and self.hs[seat] >= 30 and self.hs[1 - seat] == 0:
            self.bonus_done = True
            return self.award(seat, 30, "pique")
        return False

    def scores(self) -> list[int]:
        """The points each seat scored in this hand (every event, Bianco to capot)."""
        return list(self.hs)

    # -- the mask -----------------------------------------------------------------------
    def legal(self) -> set[int]:
        if self.done:
            return set()
        p = self.to_act
        if self.phase in ("elder_exchange", "dealer_exchange"):
            need = 1 if self.phase == "elder_exchange" else self.f["dealer_min_exchange"]
            acts = {32 + c for c in self.hand[p]}
            if len(self.disc[p]) >= need:
                acts.add(64)
            return acts
        if self.phase == "lead":
            return set(self.hand[p])
        same = {c for c in self.hand[p] if suit(c) == suit(self.led)}
        if not same:
            return set(self.hand[p])
        higher = {c for c in same if rank(c) > rank(self.led)}
        if self.f["must_head_trick"] and higher:
            return higher
        return same

    # -- transitions --------------------------------------------------------------------
    def step(self, action: int) -> list[float]:
        """Apply an action; returns the zero-sum rewards it produced."""
        assert action in self.legal(), (action, sorted(self.legal()))
        before = len(self.events)
        had_winner = self.winner
        p = self.to_act
        if self.phase == "elder_exchange":
            if action == 64:
                self.end_elder()
            else:
                self.hand[p].remove(action - 32)
                self.disc[p].append(action - 32)
                if len(self.disc[p]) == 5:
                    self.end_elder()
        elif self.phase == "dealer_exchange":
            limit = 8 - len(self.disc[self.elder])
            if action == 64:
                self.end_dealer()
            else:
                self.hand[p].remove(action - 32)
                self.disc[p].append(action - 32)
                if len(self.disc[p]) == limit:
                    self.end_dealer()
        elif self.phase == "lead":
            self.hand[p].remove(action)
            self.led = action
            self.leader = p
            self.phase = "follow"
            self.to_act = 1 - p
            if self.f["trick_scoring"] == "classic" and not self.award(p, 1, "lead"):
                self.pique(p)
        else:
            self.follow(p, action)
        rewards = [0.0, 0.0]
        for _, seat, pts in self.events[before:]:
            rewards[seat] += pts
            rewards[1 - seat] -= pts
        if self.winner is not None and had_winner is None:
            o = self.f["outcome_reward"]
            rewards[self.winner] += o
            rewards[1 - self.winner] -= o
        return rewards

    def end_elder(self) -> None:
        e, d = self.elder, self.dealer
        n = len(self.disc[e])
        self.drawn[e] = self.talon[:n]
        self.hand[e] |= set(self.talon[:n])
        self.phase = "dealer_exchange"
        self.to_act = d
        if not any(is_face(c) for c in self.dealt[d]):
            self.bianco[d] = True
            self.award(d, 10, "bianco")

    def end_dealer(self) -> None:
        e, d = self.elder, self.dealer
        ne, nd = len(self.disc[e]), len(self.disc[d])
        self.drawn[d] = self.talon[ne : ne + nd]
        self.hand[d] |= set(self.talon[ne : ne + nd])
        self.leftover = set(self.talon[ne + nd :])
        self.phase = "lead"
        self.to_act = e
        self.declarations()

    def declarations(self) -> None:
        e, d = self.elder, self.dealer
        he, hd = self.hand[e], self.hand[d]
        # point: compare values only
        pe, pd = ref_point(he), ref_point(hd)
        if pe[0] == pd[0]:
            self.revealed[e] |= {c for c in he if suit(c) == pe[2]}
            self.revealed[d] |= {c for c in hd if suit(c) == pd[2]}
        else:
            w, pw, hw = (e, pe, he) if pe[0] > pd[0] else (d, pd, hd)
            self.revealed[w] |= {c for c in hw if suit(c) == pw[2]}
            if self.award(w, pw[1], "point"):
                return
        # sequences and sets: best (length/size, rank); the winner scores all of his
        for kind, finder in (("sequence", ref_sequences), ("sets", ref_sets)):
            se, sd = finder(he), finder(hd)
            be = max((x[:2] for x in se), default=None)
            bd = max((x[:2] for x in sd), default=None)
            if be is None and bd is None or be == bd:
                continue
            w, mine = (e, se) if bd is None or (be is not None and be > bd) else (d, sd)
            pts = 0
            for size, _, cs in mine:
                pts += SEQ_POINTS[size] if kind == "sequence" else (14 if size == 4 else 3)
                self.revealed[w] |= cs
            if self.award(w, pts, kind):
                return
        # repique
        hs = list(self.hs)
        if not self.f["bianco_counts_for_repique"]:
            hs = [hs[s] - (10 if self.bianco[s] else 0) for s in (0, 1)]
        for s in (e, d):
            if hs[s] >= 30 and hs[1 - s] == 0:
                self.bonus_done = True
                self.award(s, 60, "repique")
                return

    def follow(self, p: int, c: int) -> None:
        self.hand[p].remove(c)
        led, leader = self.led, self.leader
        win = p if suit(c) == suit(led) and rank(c) > rank(led) else leader
        self.tricks[win] += 1
        self.trick_no += 1
        last = self.trick_no == 12
        self.led = None
        self.phase = "lead"
        self.to_act = self.leader = win
        if self.f["trick_scoring"] == "seed":
            if self.award(win, 2 if last else 1, "trick") or self.pique(win):
                return
        else:
            if win == p and (self.award(p, 1, "trick") or self.pique(p)):
                return
            if last and (self.award(win, 1, "last_trick") or self.pique(win)):
                return
        if last:
            self.end_of_hand()

    def end_of_hand(self) -> None:
        for s in (0, 1):
            if self.tricks[s] == 12:
                if self.award(s, 40, "capot"):
                    return
                if not self.f["capot_replaces_cards"] and self.award(s, 10, "cards"):
                    return
            elif 2 * self.tricks[s] > 12:
                if self.award(s, 10, "cards"):
                    return
            else:
                continue
            if self.f["pique_counts_end_bonuses"] and self.pique(s):
                return
        self.done = True
        self.phase = "over"
        if self.f["game_end_check"] == "end_of_hand":
            over = [s for s in (0, 1) if self.reached(self.gs[s])]
            if len(over) == 1:
                self.winner = over[0]
            elif len(over) == 2 and self.gs[0] != self.gs[1]:
                self.winner = 0 if self.gs[0] > self.gs[1] else 1


# -- explicit deals -----------------------------------------------------------------------------


def exchange_deal(final_elder: str, final_dealer: str, dealer: int = 1, talon_rest: str | None = None):
    """A deal whose hands after a one-card exchange each are the given ones.

    Returns ``(options, actions)``: the reset options and the four exchange actions (each
    player discards a card outside his final hand and draws one of it). The junk cards are
    chosen so that no dealt hand is Bianco unless the final hand already is.
    """
    fe, fd = set(cards(final_elder)), set(cards(final_dealer))
    assert len(fe) == 12 and len(fd) == 12 and not fe & fd
    junk = sorted(ALL - fe - fd, key=lambda c: (not is_face(c), c))  # faces first
    # the elder swaps a non-face card of his final hand for a junk card
    e1 = next(c for c in sorted(fe) if not is_face(c)) if any(is_face(c) for c in fe) else sorted(fe)[0]
    d1 = next(c for c in sorted(fd) if not is_face(c)) if any(is_face(c) for c in fd) else sorted(fd)[0]
    j1, j2 = junk[0], junk[1]
    elder_dealt = (fe - {e1}) | {j1}
    dealer_dealt = (fd - {d1}) | {j2}
    talon = [e1, d1] + junk[2:]
    hands = [None, None]
    hands[1 - dealer] = sorted(elder_dealt)
    hands[dealer] = sorted(dealer_dealt)
    options = {"dealer": dealer, "hands": [[code(c) for c in h] for h in hands], "talon": [code(c) for c in talon]}
    actions = [32 + j1, 64, 32 + j2, 64]
    return options, actions
