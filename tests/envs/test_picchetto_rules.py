"""Every worked example of the Picchetto spec (section 6) as a test.

Declaration examples (6.1-6.6) run on the engine's ``declare`` and through the env with an
explicit deal (a one-card exchange each, so the hands after the exchange are the example's).
The play examples (6.7-6.13) run through the env with explicit deals, talon, scores and a
scripted play; Bianco (6.14) and the match flow (6.15) through the env as well.
"""

from __future__ import annotations

import numpy as np
import pytest

from envs import picchetto_v0
from envs.core.cards import FRENCH
from envs.core.errors import IllegalActionError
from envs.picchetto.game import ANSWERS, FACE_MASK, declare, follow_mask
from envs.picchetto.observation import decode
from tests.envs.referee_picchetto import card, cards, exchange_deal

M = FRENCH.mask


def c(text: str) -> int:
    return card(text)


class Run:
    """An env driven from an explicit deal; ``ret`` sums every step's rewards per seat."""

    def __init__(self, options: dict, actions: list[int] = (), **flags):
        self.env = picchetto_v0.env(**flags)
        self.env.reset(seed=0, options=options)
        self.ret = [0, 0]
        self.steps(actions)

    @property
    def state(self):
        return self.env.unwrapped.state_

    def steps(self, actions) -> None:
        for a in actions:
            self.env.step(a)
            for p in (0, 1):
                self.ret[p] += self.env.rewards[f"player_{p}"]

    def play(self, script: str) -> None:
        """``script``: tricks separated by commas, each "lead follow" in card codes."""
        for trick in script.split(","):
            lead, follow = trick.split()
            self.steps([c(lead), c(follow)])

    @property
    def events(self):
        return list(self.state.events)

    def over(self) -> bool:
        return all(self.env.terminations.values())


def declaration_totals(elder: str, dealer: str) -> tuple[list[int], dict]:
    r = declare(M(elder.split()), M(dealer.split()))
    totals = [0, 0]
    for d in r.values():
        if d["winner"] is not None:
            totals[d["winner"]] += d["points"]
    return totals, r


# -- 6.1-6.6: declarations ---------------------------------------------------------------------

DECLARATION_EXAMPLES = {
    # id: (elder, dealer, totals [E, D], answers (point, sequence, sets))
    "6.1": ("Ah Kh 9h 8h Qs 9s 7s Jd 9d 7d Tc 8c", "Ac Qc Jc 9c 7c Kd Qd 8d Ks Ts 8s 7h", [0, 5],
            ("non basta", "nessuno", "nessuno")),
    "6.2": ("Ah Kh 9h 8h Qs 9s 7s Jd Td 7d Tc 8c", "Ad Kd 9d 8d Ks Ts 8s Qc Jc 9c 7c 7h", [0, 0],
            ("uguale", "nessuno", "nessuno")),
    "6.3": ("Jh Th 9h 8h 7h As Ks Qs 9d 7d 8c 7c", "Ac Kc Qc Jc 9c Kh Qh Ad Kd Qd Js 8s", [18, 11],
            ("non basta", "va bene", "non basta")),
    "6.4": ("Kh Qh Jh 9s 8s 7s Ad Td 8d Ac Tc 8c", "Kc Qc Jc 9h 7h As Ts Kd Qd 9d 7d 9c", [0, 4],
            ("non basta", "uguale", "nessuno")),
    "6.5": ("Th Td Ts Tc Jh Jd Js 7h 8h 7d 8d 9d", "Ah Ad As Kh Kd Ks Qh Qd Qs 7s 8s 9s", [32, 6],
            ("non basta", "va bene", "va bene")),
    "6.6": ("Ah Kh Qh Jh Th 9h As Ad Ac 7s 8d 7c", "Ks Qs Js Ts 9s 8s Kd Kc Qd Qc Jd Jc", [36, 0],
            ("va bene", "va bene", "va bene")),
}


@pytest.mark.parametrize("name", sorted(DECLARATION_EXAMPLES))
def test_declaration_examples_engine(name):
    elder, dealer, totals, answers = DECLARATION_EXAMPLES[name]
    got, r = declaration_totals(elder, dealer)
    assert got == totals
    assert tuple(ANSWERS[r[k]["answer"]] for k in ("point", "sequence", "sets")) == answers


def test_declaration_details():
    # 6.1: E's point 38 with 4 cards, D's 47 with 5; D shows his clubs
    _, r = declaration_totals(*DECLARATION_EXAMPLES["6.1"][:2])
    assert r["point"]["best"] == [(38, 4), (47, 5)] and r["point"]["points"] == 5
    assert r["point"]["reveal"] == [0, M("Ac Qc Jc 9c 7c".split())]
    # 6.2: both suits are shown on "uguale"
    _, r = declaration_totals(*DECLARATION_EXAMPLES["6.2"][:2])
    assert r["point"]["reveal"] == [M("Ah Kh 9h 8h".split()), M("Ad Kd 9d 8d".split())]
    # 6.3: a quint to J beats a quart to A; the winner also scores his tierce (15 + 3)
    _, r = declaration_totals(*DECLARATION_EXAMPLES["6.3"][:2])
    assert r["sequence"]["best"] == [(5, 4), (4, 7)] and r["sequence"]["points"] == 18
    assert r["sequence"]["reveal"][0] == M("Jh Th 9h 8h 7h As Ks Qs".split())
    assert r["sets"]["points"] == 6 and r["sets"]["reveal"][1] == M("Qc Qh Qd Kc Kh Kd".split())
    # 6.4: equal tierces to the King cancel; E's second tierce does not count
    _, r = declaration_totals(*DECLARATION_EXAMPLES["6.4"][:2])
    assert r["sequence"]["winner"] is None and r["sequence"]["points"] == 0
    assert r["sequence"]["reveal"] == [0, 0]
    # 6.5: a quatorze of 10s beats trios of A, K, Q; E scores 14 + 3
    _, r = declaration_totals(*DECLARATION_EXAMPLES["6.5"][:2])
    assert r["sets"]["best"] == [(4, 3), (3, 7)] and r["sets"]["points"] == 17
    # 6.6: a sixieme to A beats a sixieme to K
    _, r = declaration_totals(*DECLARATION_EXAMPLES["6.6"][:2])
    assert r["sequence"]["best"] == [(6, 7), (6, 6)] and r["sequence"]["points"] == 16


@pytest.mark.parametrize("name", sorted(DECLARATION_EXAMPLES))
def test_declaration_examples_env(name):
    elder, dealer, totals, answers = DECLARATION_EXAMPLES[name]
    options, actions = exchange_deal(elder, dealer, dealer=1)
    run = Run(options, actions, episode="hand")
    s = run.state
    assert s.hands[0] == M(elder.split()) and s.hands[1] == M(dealer.split())
    expected = list(totals)
    if name == "6.6":  # E = 36, D = 0 after declarations -> repique, E 96 (spec 6.6)
        expected[0] += 60
        assert run.events[-1] == ("repique", 0, 60)
    assert s.hand_score == expected
    assert run.ret == [expected[0] - expected[1], expected[1] - expected[0]]
    # 6.5: no repique, because D is not at 0
    assert ("repique" in [k for k, _, _ in run.events]) == (name == "6.6")
    # the answers are public, in Italian, for both seats
    for seat in (0, 1):
        view = decode(run.env.observe(f"player_{seat}"))
        assert tuple(view["declarations"][k]["answer"] for k in ("point", "sequence", "sets")) == answers
    text = run.env.unwrapped.game.render(s, 0)
    for a in answers:
        if a != "nessuno":
            assert f'"{a}"' in text


# -- the scoring tables (spec 4.1) beyond the worked examples ---------------------------------------
# SEQUENCE_POINTS {3: 3, 4: 4, 5: 15, 6: 16, 7: 17, 8: 18}: 3, 4, 5 and 6 are in 6.3-6.6 and 6.11;
# a septieme (7) and a huitieme (8) are only here. SET_POINTS {3: 3, 4: 14}: trios and one
# quatorze are in 6.3/6.5/6.6; two quatorzes at once are only here.

RARE_DECLARATIONS = {
    # id: (elder, dealer, points of (point, sequences, sets), answers, best sequences, [E, D] totals)
    # E: a septieme to the K in hearts (point 64 in 7 cards); D: no run of 3, trios of Q and A.
    "septieme": ("7h 8h 9h Th Jh Qh Kh 7d 9d Js 7c 9c", "Ah 8d Td Qd Ad 7s 9s Qs As 8c Tc Qc",
                 (7, 17, 6), ("va bene", "va bene", "non basta"), [(7, 6), None], [24, 6]),
    # E: a huitieme, every heart (point 75 in 8 cards); D: no run and no set.
    "huitieme": ("7h 8h 9h Th Jh Qh Kh Ah 7d 9d 7c 9c", "8d Td Qd Ad 7s 9s Js Ks 8c Tc Qc Ac",
                 (8, 18, 0), ("va bene", "va bene", "nessuno"), [(8, 7), None], [26, 0]),
    # D: a septieme to the A in spades (point 68) beats E's quint to the A and scores his tierce to
    # the 9 as well (17 + 3); E's trio of J wins the sets (D has none).
    "dealer septieme": ("Td Jd Qd Kd Ad 7h 9h Jh 7c 9c Jc 7s", "8s 9s Ts Js Qs Ks As 7d 8d 9d Qh Kh",
                        (7, 20, 3), ("non basta", "non basta", "va bene"), [(5, 7), (7, 7)], [3, 27]),
    # E: quatorzes of K and of A (14 + 14) beat D's quatorze of 10s; point 30 (3 spades) to 29.
    "two quatorzes": ("Kh Kd Ks Kc Ah Ad As Ac 7h 8d 9s 7c", "Qh Qd Qs 8h Th 9d Td 8s Ts 8c Tc Jc",
                      (3, 0, 28), ("va bene", "nessuno", "va bene"), [None, None], [31, 0]),
}


@pytest.mark.parametrize("name", sorted(RARE_DECLARATIONS))
def test_rare_declarations_engine(name):
    elder, dealer, points, answers, sequences, totals = RARE_DECLARATIONS[name]
    got, r = declaration_totals(elder, dealer)
    assert tuple(r[k]["points"] for k in ("point", "sequence", "sets")) == points
    assert tuple(ANSWERS[r[k]["answer"]] for k in ("point", "sequence", "sets")) == answers
    assert r["sequence"]["best"] == sequences
    assert got == totals


@pytest.mark.parametrize("name", sorted(RARE_DECLARATIONS))
def test_rare_declarations_env(name):
    elder, dealer, points, answers, _, totals = RARE_DECLARATIONS[name]
    options, actions = exchange_deal(elder, dealer, dealer=1)
    run = Run(options, actions, episode="hand")
    winners = {"va bene": 0, "non basta": 1}
    expected = [(kind, winners[a], p) for kind, a, p in zip(("point", "sequence", "sets"), answers, points, strict=True)
                if a in winners]
    if name == "two quatorzes":  # 31 to 0 after the declarations: repique
        expected.append(("repique", 0, 60))
        totals = [91, 0]
    assert run.events == expected
    assert run.state.hand_score == totals
    assert run.ret == [totals[0] - totals[1], totals[1] - totals[0]]


# -- 6.7-6.10: play --------------------------------------------------------------------------------

E67 = "Ah Kh Qh Jh Th 9h As Ks 7d 8d 7c 8c"
D67 = "8h 7h 7s 8s Js Ad Kd Jd 9d Ac Kc 9c"
PLAY67 = "Ah 7h, Kh 8h, Qh Kd, Jh Jd, Th 9c, 9h Js, As 7s, Ks 8s, 7d 9d, Ad 8d, Ac 7c, Kc 8c"


def test_6_7_pique_during_play():
    options, actions = exchange_deal(E67, D67, dealer=1)
    run = Run(options, actions, episode="hand")
    assert run.state.hand_score == [22, 0]  # point 6 + sixieme 16; no repique (22 < 30)
    assert "repique" not in [k for k, _, _ in run.events]
    run.play(PLAY67)
    assert run.over()
    events = run.events
    # after trick 8 E = 30 while D = 0 -> pique: E 60
    i = events.index(("pique", 0, 30))
    assert [k for k, _, _ in events[:i]].count("trick") == 8
    assert events[i + 1 :] == [("trick", 1, 1), ("trick", 1, 1), ("trick", 1, 1), ("trick", 1, 2), ("cards", 0, 10)]
    assert run.state.hand_score == [70, 5]
    assert run.ret == [65, -65]
    result = run.env.infos["player_0"]["result"]
    assert result["hands"][0]["hand_scores"] == [70, 5]
    assert result["hands"][0]["tricks"] == [8, 4]


def test_6_7_trick_points_that_win_the_game_prevent_the_pique():
    # 121 + 22 = 143; trick 7 -> 150 (not yet won), trick 8 -> 151: game over, no pique paid
    options, actions = exchange_deal(E67, D67, dealer=1)
    run = Run(options | {"scores": [121, 0]}, actions, episode="game")
    run.play(", ".join(PLAY67.split(", ")[:8]))
    assert run.over()
    assert run.events[-1] == ("trick", 0, 1) and "pique" not in [k for k, _, _ in run.events]
    result = run.env.infos["player_0"]["result"]
    assert result["games"][0]["winner"] == 0 and result["games"][0]["scores"] == [151, 0]
    assert result["hands"][0]["completed"] is False and result["hands"][0]["game_ended"] is True
    # from 119 the trick points reach 149 and the pique then wins the game
    run = Run(options | {"scores": [119, 0]}, actions, episode="game")
    run.play(", ".join(PLAY67.split(", ")[:8]))
    assert run.over() and run.events[-1] == ("pique", 0, 30)
    assert run.env.infos["player_1"]["result"]["games"][0]["scores"] == [179, 0]


E62, D62 = DECLARATION_EXAMPLES["6.2"][:2]
# found by a search over legal plays (must-head rule) for the trick split of each example
PLAY68 = "8h 7h, 9h 8d, Kh 9d, Ah Kd, 7d Ad, 8s 9s, Td Ks, 8c 9c, Jc Tc, 7c Jd, Qc 7s, Ts Qs"
PLAY69 = "8h 7h, 9h 8d, Kh 9d, Ah Kd, 7d Ad, 8s 9s, 7s Ks, Jc 8c, Qc Tc, 7c Td, 9c Jd, Ts Qs"


@pytest.mark.parametrize("script,tricks,scores", [(PLAY68, [7, 5], [18, 5]), (PLAY69, [6, 6], [7, 6])])
def test_6_8_and_6_9_trick_and_card_points(script, tricks, scores):
    options, actions = exchange_deal(E62, D62, dealer=1)
    run = Run(options, actions, episode="hand")
    assert run.state.hand_score == [0, 0]  # declarations 0-0
    run.play(script)
    assert run.over()
    s = run.state
    assert s.tricks_won == tricks and s.hand_score == scores
    assert [e for e in run.events if e[0] == "trick"][-1] == ("trick", 0, 2)  # E took the last trick
    assert ("cards", 0, 10) in run.events if tricks[0] > 6 else all(k != "cards" for k, _, _ in run.events)


E610 = "Qh Kh Td Jd Kd Ad Qs As Jc Qc Kc Ac"  # every card beats whatever D holds in the suit
D610 = "Th Jh 7d 9d 7s 8s 9s Js 7c 8c 9c Tc"
E610V = "7h 8h 9h Th Jh Qh Kh Ah 9d Jd 9s As"  # declarations 0-0 ("uguale" twice), capot possible
D610V = "7d 8d 7s 8s 7c 8c 9c Tc Jc Qc Kc Ac"


def play_capot(run: Run) -> None:
    """E leads his cards in id order; D follows with his first legal card."""
    env = run.env
    while not run.over():
        mask = env.observe(env.agent_selection)["action_mask"]
        run.steps([int(np.flatnonzero(mask)[0])])


def test_6_10_capot_with_pique():
    options, actions = exchange_deal(E610, D610, dealer=1)
    run = Run(options, actions, episode="hand")
    assert run.state.hand_score == [17, 0]
    play_capot(run)
    ev = run.events
    assert run.state.tricks_won == [12, 0]
    assert ev[-3:] == [("trick", 0, 2), ("pique", 0, 30), ("capot", 0, 40)]  # 28 + 2 = 30 -> pique
    assert run.state.hand_score == [100, 0]


@pytest.mark.parametrize(
    "flags,score,tail",
    [
        ({}, 53, [("capot", 0, 40)]),
        ({"pique_counts_end_bonuses": True}, 83, [("capot", 0, 40), ("pique", 0, 30)]),
        ({"capot_replaces_cards": False}, 63, [("capot", 0, 40), ("cards", 0, 10)]),
    ],
)
def test_6_10_capot_variant(flags, score, tail):
    options, actions = exchange_deal(E610V, D610V, dealer=1)
    run = Run(options, actions, episode="hand", **flags)
    assert run.state.hand_score == [0, 0]
    assert [run.state.answers[i] for i in (0, 1, 2)] == [1, 1, 3]  # uguale, uguale, nessuno
    play_capot(run)
    assert run.events[-len(tail):] == tail
    assert run.state.hand_score == [score, 0]


# -- 6.11: immediate game end ---------------------------------------------------------------------

E611 = "Jh Qh 8d 7s 9s Ts Qs 9c Jc Qc Kc Ac"  # point 5 cards, a single quart, a single trio
D611 = "7h 9h Th Kh Ah 7d Jd Qd Kd 8s As 8c"


def test_6_11_immediate_game_end():
    options, actions = exchange_deal(E611, D611, dealer=1)
    run = Run(options | {"scores": [140, 0]}, actions, episode="game")
    assert run.over()
    assert run.events == [("point", 0, 5), ("sequence", 0, 4), ("sets", 0, 3)]
    result = run.env.infos["player_0"]["result"]
    assert result["games"][0]["scores"] == [152, 0] and result["games"][0]["winner"] == 0
    assert run.state.tricks_won == [0, 0]  # no tricks are played


def test_6_11_game_continues_into_the_next_game_in_a_match():
    options, actions = exchange_deal(E611, D611, dealer=1)
    run = Run(options | {"scores": [140, 0]}, actions)  # episode="match"
    assert not run.over()
    s = run.state
    assert s.game_no == 1 and s.game_score == [0, 0] and s.games_won == [1, 0]
    assert s.dealer == 0 and s.hand_no == 2  # the deal alternates across games (P2)
    view = decode(run.env.observe("player_0"))
    assert view["game_number"] == 2 and view["games_won"] == [1, 0] and view["target"] == 150


def test_6_11_exactly_150_has_not_won():
    options, actions = exchange_deal(E611, D611, dealer=1)
    run = Run(options | {"scores": [138, 0]}, actions, episode="game")
    assert not run.over() and run.state.game_score == [150, 0]
    assert run.env.agent_selection == "player_0"  # E leads trick 1
    run = Run(options | {"scores": [138, 0]}, actions, episode="game", target_inclusive=True)
    assert run.over() and run.env.infos["player_0"]["result"]["games"][0]["scores"] == [150, 0]


def test_6_11_end_of_hand_check_plays_the_hand_out():
    options, actions = exchange_deal(E611, D611, dealer=1)
    run = Run(options | {"scores": [140, 0]}, actions, episode="game", game_end_check="end_of_hand")
    assert not run.over() and run.state.game_score == [152, 0]
    play_capot(run)  # any legal play
    assert run.state.trick_no == 12
    assert run.env.infos["player_0"]["result"]["games"][0]["winner"] == 0


# -- 6.12: exchange mechanics -------------------------------------------------------------------------


def exchange_run(**flags) -> Run:
    deck = list(range(32))
    hands = [deck[0:24:2], deck[1:24:2]]  # seat 0 elder (dealer 1)
    talon = deck[24:]
    return Run({"dealer": 1, "hands": hands, "talon": talon}, **flags)


def test_6_12_exchange_draws_from_the_talon_in_order():
    run = exchange_run(episode="hand")
    env = run.env
    s = run.state
    mask = env.observe("player_0")["action_mask"]
    assert mask[64] == 0  # END_EXCHANGE illegal before the first discard
    assert set(np.flatnonzero(mask)) == {32 + x for x in range(0, 24, 2)}
    with pytest.raises(IllegalActionError, match="END_EXCHANGE"):
        env.step(64)
    talon = s.talon
    run.steps([32 + 0, 32 + 2])
    assert env.observe("player_0")["action_mask"][64] == 1
    run.steps([32 + 4, 64])  # E discards 3 and draws T[0..2]
    assert s.drawn[0] == sum(1 << x for x in talon[:3])
    assert env.agent_selection == "player_1"
    mask = env.observe("player_1")["action_mask"]
    assert mask[64] == 0 and set(np.flatnonzero(mask)) == {32 + x for x in range(1, 24, 2)}
    run.steps([32 + 1, 32 + 3, 64])  # D discards 2 and draws T[3], T[4]
    assert s.drawn[1] == sum(1 << x for x in talon[3:5])
    assert s.leftover == sum(1 << x for x in talon[5:])  # set aside unseen
    assert s.hands[0].bit_count() == 12 and s.hands[1].bit_count() == 12
    for seat in (0, 1):
        view = decode(env.observe(f"player_{seat}"))
        assert view["exchanged"] == ([3, 2] if seat == 0 else [2, 3])
        assert view["leftover"] == []
        assert not set(view["hand"]) & set(talon[5:])
    assert decode(env.observe("player_0"))["drawn"] == sorted(talon[:3])


def test_6_12_elder_takes_five_then_dealer_only_the_second_packet():
    run = exchange_run(episode="hand")
    s = run.state
    talon = list(s.talon)
    run.steps([32 + x for x in (0, 2, 4, 6, 8)])  # the fifth discard ends the exchange by itself
    assert run.env.agent_selection == "player_1" and s.drawn[0] == sum(1 << x for x in talon[:5])
    run.steps([32 + 1, 32 + 3])
    assert run.env.agent_selection == "player_1"
    run.steps([32 + 5])  # the third (= 8 - 5) discard ends the dealer's exchange
    assert run.env.agent_selection == "player_0" and s.phase == 2
    assert s.drawn[1] == sum(1 << x for x in talon[5:]) and s.leftover == 0


# -- 6.13: must-head mask -------------------------------------------------------------------------------


def test_6_13_follow_mask_engine():
    led = c("Th")
    assert led == 3
    assert follow_mask(M(["9h", "Qh", "As"]), led) == 1 << c("Qh") == 1 << 5
    assert follow_mask(M(["9h", "8h", "As"]), led) == M(["9h", "8h"])
    assert follow_mask(M(["9s", "8d", "As"]), led) == M(["9s", "8d", "As"])
    assert follow_mask(M(["9h", "Qh", "As"]), led, must_head=False) == M(["9h", "Qh"])


@pytest.mark.parametrize(
    "dealer_hearts,flags,legal",
    [
        ("9h Qh", {}, ["Qh"]),
        ("9h 8h", {}, ["9h", "8h"]),
        ("", {}, None),  # no heart: all his cards
        ("9h Qh", {"must_head_trick": False}, ["9h", "Qh"]),
    ],
)
def test_6_13_follow_mask_env(dealer_hearts, flags, legal):
    others = "As Ks Qs Js Ad Kd Qd Jd Ac Kc Qc Jc".split()
    dealer = dealer_hearts.split() + others[: 12 - len(dealer_hearts.split())]
    rest = [FRENCH.codes[x] for x in range(32) if FRENCH.codes[x] not in dealer]
    elder = ["Th"] + [x for x in rest if x != "Th"][:11]
    options, actions = exchange_deal(" ".join(elder), " ".join(dealer), dealer=1)
    run = Run(options, actions, episode="hand", **flags)
    run.steps([c("Th")])
    mask = run.env.observe("player_1")["action_mask"]
    got = sorted(FRENCH.codes[x] for x in np.flatnonzero(mask))
    want = sorted(legal) if legal is not None else sorted(FRENCH.codes[x] for x in FRENCH.parse_many(dealer))
    assert got == want


# -- 6.14: Bianco ----------------------------------------------------------------------------------------

BIANCO = "Ah Th 9h 8h As Ts 9s 7s Ad 8d Ac 7c"


def test_6_14_elder_bianco():
    rest = [x for x in range(32) if x not in cards(BIANCO)]
    options = {"dealer": 1, "hands": [BIANCO.split(), rest[:12]], "talon": rest[12:]}
    run = Run(options, episode="hand")
    env = run.env
    s = run.state
    assert s.hand_score == [10, 0] and run.events == [("bianco", 0, 10)]
    # api: last() after reset shows 0; the +10 is paid with the first step
    assert env.rewards == {"player_0": 0, "player_1": 0}
    view = decode(env.observe("player_1"))  # the dealer sees the Bianco hand at once
    assert view["bianco"] == [False, True] and view["bianco_hand"][1] == sorted(cards(BIANCO))
    assert s.dealt[1] & FACE_MASK != 0  # the dealer cannot also be Bianco
    run.steps([32 + c("7c")])
    assert run.ret == [10, -10]
    run.steps([64])
    assert run.events == [("bianco", 0, 10)]


def test_dealer_bianco_is_scored_after_the_elders_exchange():
    rest = [x for x in range(32) if x not in cards(BIANCO)]
    options = {"dealer": 1, "hands": [rest[:12], BIANCO.split()], "talon": rest[12:]}
    run = Run(options, episode="hand")
    assert run.events == [] and decode(run.env.observe("player_0"))["bianco"] == [False, False]
    run.steps([32 + rest[0], 64])
    assert run.events == [("bianco", 1, 10)] and run.ret == [-10, 10]
    view = decode(run.env.observe("player_0"))
    assert view["bianco"] == [False, True] and view["bianco_hand"][1] == sorted(cards(BIANCO))


def test_bianco_ends_the_game_at_the_deal():
    rest = [x for x in range(32) if x not in cards(BIANCO)]
    options = {"dealer": 1, "hands": [BIANCO.split(), rest[:12]], "talon": rest[12:], "scores": [145, 0]}
    for episode in ("hand", "game"):
        env = picchetto_v0.env(episode=episode, outcome_reward=5)
        env.reset(options=options)
        assert all(env.terminations.values())
        result = env.infos["player_0"]["result"]
        assert result["games"][0] == {"game_no": 1, "target": 150, "start_scores": [145, 0], "scores": [155, 0],
                                      "winner": 0}
        returns = {}
        for agent in env.agent_iter():  # every agent gets its dead step, which pays the Bianco
            obs, reward, term, trunc, info = env.last()
            assert term
            returns[agent] = returns.get(agent, 0) + reward
            env.step(None)
        assert env.agents == []
        # the episode return is the score difference: the Bianco's 10 and the game's outcome_reward
        assert returns == {"player_0": 15, "player_1": -15}
    # in a match the next game starts at once, and the Bianco and the win are paid with the first step
    run = Run(options, outcome_reward=5)
    assert run.state.game_no == 1 and not run.over()
    run.steps([run.env.unwrapped.legal_actions()[0]])  # a discard: scores nothing itself
    assert run.ret == [15, -15]


def test_dealer_bianco_ends_the_game_after_the_elders_exchange():
    rest = [x for x in range(32) if x not in cards(BIANCO)]
    options = {"dealer": 1, "hands": [rest[:12], BIANCO.split()], "talon": rest[12:], "scores": [0, 145]}
    run = Run(options, [32 + rest[0], 64], episode="game")
    assert run.over() and run.ret == [-10, 10]
    assert run.env.infos["player_1"]["result"]["games"][0]["winner"] == 1


# -- repique and Bianco (P14) -----------------------------------------------------------------------------

# E is dealt Bianco; E's declarations give 23 and D's 0 -> 33 >= 30: repique unless Bianco does not count
REPIQUE_A = {"dealer": 1, "talon": "Th Tc Kd Jc Ah 8s Qh Jh".split(),
             "hands": ["Td Ac Ts 8d 7h 9d 8c 9c 7s 7d Ad 7c".split(), "Kc Ks Qs As Qd Js Kh Qc 9h 8h Jd 9s".split()]}
ACTIONS_A = [32 + c("7d"), 32 + c("8d"), 32 + c("9d"), 64, 32 + c("Js"), 32 + c("Qc"), 64]
# E is dealt Bianco (10); D's declarations give 32 and E's 0: E is not at 0, so no repique by default
REPIQUE_B = {"dealer": 1, "talon": "Kd Js 7c Jc Ks Qh Qs Ad".split(),
             "hands": ["9c 9s As Td 8c 9d Th 7h Ts 8s 7s Ah".split(), "Kh Qd 8h Kc Tc 7d Qc Jd 8d 9h Jh Ac".split()]}
ACTIONS_B = [32 + c("Td"), 32 + c("Ah"), 32 + c("9s"), 64, 32 + c("9h"), 32 + c("Qd"), 32 + c("8h"), 32 + c("8d"), 64]


@pytest.mark.parametrize("counts", [True, False])
def test_bianco_counts_for_repique(counts):
    run = Run(REPIQUE_A, ACTIONS_A, episode="hand", bianco_counts_for_repique=counts)
    assert run.events[0] == ("bianco", 0, 10)
    assert sum(p for k, s, p in run.events if k in ("point", "sequence", "sets") and s == 0) == 23
    assert (run.events[-1] == ("repique", 0, 60)) == counts
    assert run.state.hand_score == ([93, 0] if counts else [33, 0])
    run = Run(REPIQUE_B, ACTIONS_B, episode="hand", bianco_counts_for_repique=counts)
    assert run.events[0] == ("bianco", 0, 10)
    assert run.state.hand_score == ([10, 32] if counts else [10, 92])


# -- 6.15: match flow -----------------------------------------------------------------------------------


def finish_game(run: Run, rng: np.random.Generator) -> None:
    """Random legal play until the game number changes or the episode ends."""
    game_no = run.state.game_no
    while not run.over() and run.state.game_no == game_no:
        legal = run.env.unwrapped.legal_actions()
        run.steps([int(rng.choice(legal))])


def test_6_15_bella_after_one_game_each():
    # A (seat 0) won the partita; B is at 150 in the rivincita and wins it with his next point
    rng = np.random.default_rng(0)
    run = Run({"games_won": [1, 0], "scores": [0, 150]})
    assert run.state.target == 150 and run.state.game_no == 1
    finish_game(run, rng)
    assert run.state.game_records[0]["game_no"] == 2 and run.state.game_records[0]["winner"] == 1
    assert run.state.target == 220 and run.state.game_no == 2 and not run.over()  # the bella, to 220
    view = decode(run.env.observe("player_0"))
    assert view["game_number"] == 3 and view["target"] == 220 and view["games_won"] == [1, 1]
    finish_game(run, rng)
    assert run.over()
    result = run.env.infos["player_0"]["result"]
    # this episode started at the rivincita
    assert [(g["game_no"], g["target"]) for g in result["games"]] == [(2, 150), (3, 220)]
    assert result["match_winner"] == result["games"][-1]["winner"]
    assert any(x > 220 for x in result["games"][-1]["scores"])


def test_6_15_two_nil_has_no_bella():
    run = Run({"games_won": [1, 0], "scores": [150, 0]})
    finish_game(run, np.random.default_rng(1))
    assert run.over() and run.state.match_winner == 0 and run.state.games_won == [2, 0]
    assert len(run.env.infos["player_0"]["result"]["games"]) == 1


@pytest.mark.parametrize("seed", range(6))
def test_6_15_natural_matches(seed):
    env = picchetto_v0.env()
    env.reset(seed=seed)
    rng = np.random.default_rng(seed)
    for _agent in env.agent_iter():
        obs, reward, term, trunc, info = env.last()
        if term or trunc:
            env.step(None)
            continue
        env.step(int(rng.choice(np.flatnonzero(obs["action_mask"]))))
    result = info["result"]
    winners = [g["winner"] for g in result["games"]]
    if winners[0] == winners[1]:
        assert len(winners) == 2 and result["match_winner"] == winners[0]
    else:
        assert len(winners) == 3 and result["games"][2]["target"] == 220
        assert result["match_winner"] == winners[2]
    assert sorted(result["games_won"]) == sorted([winners.count(0), winners.count(1)])


# -- the observation, field by field, on scripted deals (values computed by hand) --------------------

# The documented layout (observation.py's index table), written out again: (field, shape).
OBS_FIELDS = [
    ("hand", (32,)), ("discards", (32,)), ("drawn", (32,)), ("peeked", (32,)), ("phase", (5,)), ("dealer", (2,)),
    ("bianco_hand", (2, 32)), ("bonuses", (2, 2)), ("pique", (2,)), ("exchanged", (2,)), ("answers", (3, 4)),
    ("point_value", (2,)), ("sequence", (2, 2)), ("sets", (2, 2)), ("decl_points", (2, 3)), ("revealed", (2, 32)),
    ("played", (2, 32)), ("trick_card", (32,)), ("leader", (2,)), ("trick_no", (1,)), ("tricks_won", (2,)),
    ("hand_score", (2,)), ("game_score", (2,)), ("games_won", (2,)), ("game_number", (3,)), ("target", (1,)),
    ("leftover", (32,)),
]
PHASE_KEYS = ("elder_exchange", "dealer_exchange", "trick_lead", "trick_follow", "over")
ANSWER_KEYS = ("va bene", "uguale", "non basta", "nessuno")


def encode_by_hand(view: dict) -> np.ndarray:
    f = {name: np.zeros(shape, dtype=np.float32) for name, shape in OBS_FIELDS}
    for name in ("hand", "discards", "drawn", "peeked", "leftover"):
        f[name][view[name]] = 1
    f["phase"][PHASE_KEYS.index(view["phase"])] = 1
    f["dealer"][view["dealer"]] = 1
    for r in (0, 1):
        f["bianco_hand"][r, view["bianco_hand"][r]] = 1
        f["bonuses"][r] = [view["bianco"][r], view["repique"][r]]
        f["pique"][r] = view["pique"][r]
        f["exchanged"][r] = view["exchanged"][r] / 8
        f["revealed"][r, view["revealed"][r]] = 1
        f["played"][r, view["played"][r]] = 1
    for i, name in enumerate(("point", "sequence", "sets")):
        d = view["declarations"][name]
        if d["answer"] is not None:
            f["answers"][i, ANSWER_KEYS.index(d["answer"])] = 1
        for r in (0, 1):
            f["decl_points"][r, i] = d["points"][r] / 40
            best = d["best"][r]
            if best is None:
                continue
            if name == "point":
                f["point_value"][r] = best / 80  # "point value / 80"
            elif name == "sequence":
                f["sequence"][r] = [best[0] / 8, (best[1] + 1) / 8]  # "length / 8, (top rank + 1) / 8"
            else:
                f["sets"][r] = [best[0] / 4, (best[1] + 1) / 8]  # "size / 4, (rank + 1) / 8"
    if view["trick_card"] is not None:
        f["trick_card"][view["trick_card"]] = 1
    if view["leader"] is not None:
        f["leader"][view["leader"]] = 1
    f["trick_no"][0] = view["trick_no"] / 12
    f["tricks_won"][:] = np.array(view["tricks_won"]) / 12
    f["hand_score"][:] = np.array(view["hand_score"]) / view["target"]
    f["game_score"][:] = np.array(view["game_score"]) / view["target"]
    f["games_won"][:] = np.array(view["games_won"]) / 2
    f["game_number"][view["game_number"] - 1] = 1
    f["target"][0] = view["target"] / 220
    return np.concatenate([f[name].ravel() for name, _ in OBS_FIELDS])


def check_observation(obs: np.ndarray, expected: dict) -> None:
    """``obs`` is exactly the documented encoding of ``expected`` and ``decode`` gives it back."""
    assert obs.shape == (442,) and obs.dtype == np.float32
    want = encode_by_hand(expected)
    start = 0
    for name, shape in OBS_FIELDS:  # field by field, for a readable failure
        size = int(np.prod(shape))
        np.testing.assert_allclose(obs[start : start + size], want[start : start + size], rtol=0, atol=1e-7, err_msg=name)
        start += size
    assert decode(obs) == expected


def ids(text: str) -> list[int]:
    return sorted(cards(text))


def swap_seats(view: dict, **own) -> dict:
    """The same public facts seen from the other seat (relative seats swapped), with its own rows."""
    out = dict(view)
    for key in ("bianco", "bianco_hand", "repique", "pique", "exchanged", "revealed", "played", "tricks_won",
                "hand_score", "game_score", "games_won"):
        out[key] = view[key][::-1]
    out["declarations"] = {
        name: {"answer": d["answer"], "best": d["best"][::-1], "points": d["points"][::-1]}
        for name, d in view["declarations"].items()
    }
    out["dealer"] = 1 - view["dealer"]
    out["leader"] = None if view["leader"] is None else 1 - view["leader"]
    return out | own


def test_observation_and_decode_of_every_field_after_the_declarations_of_6_3():
    # Spec 6.3 after a one-card exchange each (exchange_deal): E (seat 0) discards Jd and draws 7h,
    # D (seat 1) discards Ah and draws Ad; T[2..7] = 8d Td 7s 9s Ts Tc are set aside unseen.
    elder, dealer = DECLARATION_EXAMPLES["6.3"][:2]
    options, actions = exchange_deal(elder, dealer, dealer=1)
    assert options["talon"] == "7h Ad 8d Td 7s 9s Ts Tc".split() and actions == [32 + c("Jd"), 64, 32 + c("Ah"), 64]
    run = Run(options, actions, episode="game")
    run.play("7c 9c")  # D must head the 7c: 9c, and D (+1) leads the next trick
    run.steps([c("8s")])
    elder_view = {
        "phase": "trick_follow",
        "dealer": 1,
        "hand": ids("7h 8h 9h Th Jh 7d 9d Qs Ks As 8c"),
        "discards": ids("Jd"),
        "drawn": ids("7h"),
        "peeked": [],
        "bianco": [False, False],
        "bianco_hand": [[], []],
        "repique": [False, False],
        "pique": [False, False],
        "exchanged": [1, 1],
        "declarations": {
            # E announces 44, D answers "non basta" with 50 and scores 5 (5 clubs)
            "point": {"answer": "non basta", "best": [44, 50], "points": [0, 5]},
            # E's quint to the J (rank 4) beats D's quart, whose value stays unknown: 15 + 3
            "sequence": {"answer": "va bene", "best": [(5, 4), None], "points": [18, 0]},
            # E has no set; D's best is a trio of K (rank 6): two trios, 3 + 3
            "sets": {"answer": "non basta", "best": [None, (3, 6)], "points": [0, 6]},
        },
        "revealed": [ids("7h 8h 9h Th Jh Qs Ks As"), ids("9c Jc Qc Kc Ac Qh Kh Qd Kd")],
        "played": [ids("7c"), ids("9c 8s")],
        "trick_card": c("8s"),
        "leader": 1,
        "trick_no": 1,
        "tricks_won": [0, 1],
        "hand_score": [18, 12],
        "game_score": [18, 12],
        "games_won": [0, 0],
        "game_number": 1,
        "target": 150,
        "leftover": [],
    }
    check_observation(run.env.observe("player_0")["observation"], elder_view)
    dealer_view = swap_seats(elder_view, hand=ids("Ac Kc Qc Jc Kh Qh Ad Kd Qd Js"), discards=ids("Ah"),
                             drawn=ids("Ad"))
    check_observation(run.env.observe("player_1")["observation"], dealer_view)


def test_observation_and_decode_of_bianco_repique_peek_and_the_leftover_talon():
    # REPIQUE_A (above): E (seat 0) is dealt Bianco, discards 7d 8d 9d and draws Th Tc Kd; D
    # discards Js Qc and draws Jc Ah; T[5..7] = 8s Qh Jh are left over. E: point 45 in clubs
    # (5 cards, "va bene"), a quart to the 10 in clubs (4), a quatorze of 10s (14): 23 + Bianco 10
    # = 33 with D at 0 -> repique, E 93. Rivincita (games won 0-1), game scores from 20 and 30.
    options = REPIQUE_A | {"scores": [20, 30], "games_won": [0, 1]}
    run = Run(options, ACTIONS_A, episode="hand", allow_peek=True, reveal_leftover_talon=True)
    assert run.events[-1] == ("repique", 0, 60)
    elder_view = {
        "phase": "trick_lead",
        "dealer": 1,
        "hand": ids("Td Th Ts Tc Ac Ad 7h 8c 9c 7c 7s Kd"),
        "discards": ids("7d 8d 9d"),
        "drawn": ids("Th Tc Kd"),
        "peeked": ids("Jc Ah"),  # T[3], T[4]: E took 3 of the 5 he could
        "bianco": [True, False],
        "bianco_hand": [ids("Td Ac Ts 8d 7h 9d 8c 9c 7s 7d Ad 7c"), []],
        "repique": [True, False],
        "pique": [False, False],
        "exchanged": [3, 2],
        "declarations": {
            "point": {"answer": "va bene", "best": [45, None], "points": [5, 0]},
            "sequence": {"answer": "va bene", "best": [(4, 3), None], "points": [4, 0]},
            "sets": {"answer": "va bene", "best": [(4, 3), None], "points": [14, 0]},
        },
        "revealed": [ids("7c 8c 9c Tc Ac Td Th Ts"), []],
        "played": [[], []],
        "trick_card": None,
        "leader": 0,
        "trick_no": 0,
        "tricks_won": [0, 0],
        "hand_score": [93, 0],
        "game_score": [113, 30],
        "games_won": [0, 1],
        "game_number": 2,
        "target": 150,
        "leftover": ids("8s Qh Jh"),
    }
    check_observation(run.env.observe("player_0")["observation"], elder_view)
    dealer_view = swap_seats(elder_view, hand=ids("Kc Ks Qs As Qd Kh 9h 8h Jd 9s Jc Ah"), discards=ids("Js Qc"),
                             drawn=ids("Jc Ah"), peeked=ids("8s Qh Jh"))
    check_observation(run.env.observe("player_1")["observation"], dealer_view)


def test_observation_and_decode_of_a_pique_in_the_bella():
    # Spec 6.7 in a bella (games won 1-1, target 220): exchange_deal makes E (seat 0) discard Qd and
    # draw 9h, and D discard Qs and draw 7h. E: point 60 (6 hearts), a sixieme to A (rank 7),
    # no sets on either side: 6 + 16 = 22. E takes tricks 1-8: 30 with D at 0 -> pique, 60.
    options, actions = exchange_deal(E67, D67, dealer=1)
    run = Run(options | {"games_won": [1, 1]}, actions)
    run.play(", ".join(PLAY67.split(", ")[:8]))
    assert run.events[-1] == ("pique", 0, 30)
    elder_view = {
        "phase": "trick_lead",
        "dealer": 1,
        "hand": ids("7d 8d 7c 8c"),
        "discards": ids("Qd"),
        "drawn": ids("9h"),
        "peeked": [],
        "bianco": [False, False],
        "bianco_hand": [[], []],
        "repique": [False, False],
        "pique": [True, False],
        "exchanged": [1, 1],
        "declarations": {
            "point": {"answer": "va bene", "best": [60, None], "points": [6, 0]},
            "sequence": {"answer": "va bene", "best": [(6, 7), None], "points": [16, 0]},
            "sets": {"answer": "nessuno", "best": [None, None], "points": [0, 0]},
        },
        "revealed": [ids("9h Th Jh Qh Kh Ah"), []],
        "played": [ids("Ah Kh Qh Jh Th 9h As Ks"), ids("7h 8h Kd Jd 9c Js 7s 8s")],
        "trick_card": None,
        "leader": 0,
        "trick_no": 8,
        "tricks_won": [8, 0],
        "hand_score": [60, 0],
        "game_score": [60, 0],
        "games_won": [1, 1],
        "game_number": 3,
        "target": 220,
        "leftover": [],
    }
    check_observation(run.env.observe("player_0")["observation"], elder_view)
    dealer_view = swap_seats(elder_view, hand=ids("Ad 9d Ac Kc"), discards=ids("Qs"), drawn=ids("7h"))
    check_observation(run.env.observe("player_1")["observation"], dealer_view)
