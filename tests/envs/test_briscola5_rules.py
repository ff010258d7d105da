"""Every worked example of shared/rules/briscola5.md section 6, as a test.

Scoring examples (6.1-6.13) run against the engine's credit function and, for one of them,
through a whole hand in the env; trick, auction, call and forfeit examples (6.14-6.21) run
through the env with explicit deals.
"""

from __future__ import annotations

import numpy as np
import pytest

from envs import briscola5_v0
from envs.briscola5.game import hand_credits
from envs.briscola5.observation import decode
from envs.core.cards import ITALIAN

C = ITALIAN.parse
PASS = 80


def bid(v: int) -> int:
    return 81 + v - 61


def call(code: str) -> int:
    return 40 + C(code)


def fill_hands(fixed: dict[int, list[str]]) -> list[list[int]]:
    """Five 8-card hands: each seat gets its fixed cards, then the unused cards in id order."""
    used = {C(c) for cards in fixed.values() for c in cards}
    rest = [c for c in range(40) if c not in used]
    hands = []
    for seat in range(5):
        hand = [C(c) for c in fixed.get(seat, [])]
        while len(hand) < 8:
            hand.append(rest.pop(0))
        hands.append(hand)
    return hands


def make_env(fixed: dict[int, list[str]], dealer: int, **flags):
    env = briscola5_v0.env(**flags)
    env.reset(seed=0, options={"dealer": dealer, "hands": fill_hands(fixed)})
    return env


def run(env, script: list[tuple[int, int]]) -> None:
    """Step a list of (seat, action), checking that it is that seat's turn each time."""
    for seat, action in script:
        assert env.agent_selection == f"player_{seat}", (seat, action, env.agent_selection)
        env.step(action)


def legal_ids(env) -> set[int]:
    return set(np.flatnonzero(env.observe(env.agent_selection)["action_mask"]).tolist())


# -- 6.1 - 6.13: credits ---------------------------------------------------------------------

SCORING = [
    # id, bid, team points, solo, expected credits (caller 0, partner 1 unless solo)
    ("6.1", 75, 120, False, [8, 4, -4, -4, -4]),
    ("6.2", 61, 70, False, [2, 1, -1, -1, -1]),
    ("6.3", 61, 55, False, [-2, -1, 1, 1, 1]),
    ("6.4", 85, 90, False, [6, 3, -3, -3, -3]),
    ("6.5", 85, 80, False, [-2, -1, 1, 1, 1]),
    ("6.6", 80, 80, False, [4, 2, -2, -2, -2]),
    ("6.7", 81, 81, False, [6, 3, -3, -3, -3]),
    ("6.8", 70, 0, False, [-4, -2, 2, 2, 2]),
    ("6.9", 120, 120, False, [12, 6, -6, -6, -6]),
    ("6.10", 71, 80, True, [8, -2, -2, -2, -2]),
    ("6.11", 61, 40, True, [-4, 1, 1, 1, 1]),
    ("6.12", 95, 120, True, [24, -6, -6, -6, -6]),
    ("6.13", 61, 0, True, [-8, 2, 2, 2, 2]),
]


@pytest.mark.parametrize("example,bid_value,team_points,solo,expected", SCORING, ids=[row[0] for row in SCORING])
def test_credit_table(example, bid_value, team_points, solo, expected):
    partner = 0 if solo else 1
    cappotto = team_points in (0, 120)
    credits = hand_credits(0, partner, bid_value, team_points, cappotto)
    assert credits == expected
    assert sum(credits) == 0


# Rows of the credit tables (spec 4.2) that no worked example reaches: the top of the single range
# (70), the first double without a solo (71), losses at the edges of each range, and every range
# with bid_multiplier_on_loss (a loss at 61..70 still costs the base, 71..80 doubles, 81..120
# triples, times the defenders' cappotto).
RARE_CREDITS = [
    # id, bid, caller-team points, solo, bid_multiplier_on_loss, credits (caller 0, partner 1)
    ("70 won: single", 70, 70, False, False, [2, 1, -1, -1, -1]),
    ("70 lost by a point", 70, 69, False, False, [-2, -1, 1, 1, 1]),
    ("71 won: double", 71, 71, False, False, [4, 2, -2, -2, -2]),
    ("80 lost by a point", 80, 79, False, False, [-2, -1, 1, 1, 1]),
    ("100 solo won: triple", 100, 110, True, False, [12, -3, -3, -3, -3]),
    ("120 lost", 120, 119, False, False, [-2, -1, 1, 1, 1]),
    ("61 lost, on loss", 61, 60, False, True, [-2, -1, 1, 1, 1]),
    ("70 lost, on loss", 70, 50, False, True, [-2, -1, 1, 1, 1]),
    ("71 lost, on loss", 71, 60, False, True, [-4, -2, 2, 2, 2]),
    ("80 lost, on loss", 80, 79, False, True, [-4, -2, 2, 2, 2]),
    ("81 lost, on loss", 81, 80, False, True, [-6, -3, 3, 3, 3]),
    ("120 lost, on loss", 120, 119, False, True, [-6, -3, 3, 3, 3]),
    ("75 lost to a cappotto, on loss", 75, 0, False, True, [-8, -4, 4, 4, 4]),
    ("95 solo lost to a cappotto, on loss", 95, 0, True, True, [-24, 6, 6, 6, 6]),
    ("71 solo lost, on loss", 71, 70, True, True, [-8, 2, 2, 2, 2]),
    ("85 won, on loss: no change", 85, 90, False, True, [6, 3, -3, -3, -3]),
]


@pytest.mark.parametrize("example,bid_value,team_points,solo,on_loss,expected", RARE_CREDITS,
                         ids=[row[0] for row in RARE_CREDITS])
def test_rare_rows_of_the_credit_tables(example, bid_value, team_points, solo, on_loss, expected):
    cappotto = team_points in (0, 120)
    credits = hand_credits(0, 0 if solo else 1, bid_value, team_points, cappotto, bid_multiplier_on_loss=on_loss)
    assert credits == expected and sum(credits) == 0


def test_6_5_lost_triple_with_bid_multiplier_on_loss():
    assert hand_credits(0, 1, 85, 80, False, bid_multiplier_on_loss=True) == [-6, -3, 3, 3, 3]


def test_credits_follow_the_caller_seat():
    # The same 6.2 result with the caller at seat 3 and the partner at seat 0.
    assert hand_credits(3, 0, 61, 70, False) == [1, -1, -1, 2, -1]


def test_6_1_cappotto_through_a_whole_hand():
    """6.1 end to end: seat 0 holds eight trumps (Coppe) and wins every trick for 120 points."""
    fixed = {0: ["AC", "3C", "KC", "HC", "JC", "7C", "6C", "5C"], 1: ["4C", "2C", "AD", "3D", "KD", "HD", "JD", "2D"]}
    env = make_env(fixed, dealer=4, forfeit_enabled=False)
    run(env, [(0, bid(75)), (1, PASS), (2, PASS), (3, PASS), (4, PASS), (0, call("2C"))])
    raw = env.unwrapped
    while not any(env.terminations.values()):
        legal = raw.legal_actions()
        seat = raw.agent_name_mapping[env.agent_selection]
        env.step(max(legal, key=lambda c: (c // 10 == 0, "24567JHK3A".index(ITALIAN.codes[c][0]))) if seat == 0 else legal[0])
    result = env.infos["player_0"]["result"]
    record = result["hands"][0]
    assert (record["caller"], record["partner"], record["solo"], record["bid"]) == (0, 1, False, 75)
    assert record["caller_team_points"] == 120 and record["cappotto"] is True
    assert record["credits"] == [8, 4, -4, -4, -4] == result["totals"]
    assert {a: env._cumulative_rewards[a] for a in env.agents} == {f"player_{i}": c for i, c in enumerate([8, 4, -4, -4, -4])}


# -- 6.14 - 6.16: tricks (trump = Denari) ------------------------------------------------------


def _trick_env(trick_cards: list[str]):
    """Dealer 4, so seat 0 bids first and leads; seat 0 wins the auction and calls AD."""
    fixed = {seat: [card] for seat, card in enumerate(trick_cards)}
    holder = next((s for s, c in fixed.items() if "AD" in c), None)
    if holder is None:
        fixed[1] = fixed[1] + ["AD"]
    env = make_env(fixed, dealer=4, forfeit_enabled=False)
    run(env, [(0, bid(61)), (1, PASS), (2, PASS), (3, PASS), (4, PASS), (0, call("AD"))])
    assert env.unwrapped.state_.trump == 1  # Denari
    return env


def test_6_14_highest_trump_wins():
    env = _trick_env(["7C", "AC", "2D", "KD", "AS"])
    run(env, [(s, C(c)) for s, c in enumerate(["7C", "AC", "2D", "KD", "AS"])])
    assert env.agent_selection == "player_3"  # KD wins and leads next
    assert env.unwrapped.state_.points == [0, 0, 0, 26, 0]
    assert decode(env.observe("player_0"))["points_taken"] == [0, 0, 0, 26, 0]
    assert decode(env.observe("player_3"))["points_taken"] == [26, 0, 0, 0, 0]  # seat-relative


def test_6_15_highest_of_led_suit_wins_without_trumps():
    env = _trick_env(["4B", "3B", "KB", "AC", "7B"])
    run(env, [(s, C(c)) for s, c in enumerate(["4B", "3B", "KB", "AC", "7B"])])
    assert env.agent_selection == "player_1"
    assert env.unwrapped.state_.points == [0, 25, 0, 0, 0]


def test_6_16_lowest_trump_beats_the_led_ace():
    env = _trick_env(["AC", "2D", "4S", "5S", "6S"])
    run(env, [(s, C(c)) for s, c in enumerate(["AC", "2D", "4S", "5S", "6S"])])
    assert env.agent_selection == "player_1"
    assert env.unwrapped.state_.points == [0, 11, 0, 0, 0]


def test_any_card_may_be_played_no_duty_to_follow():
    env = _trick_env(["AC", "2D", "4S", "5S", "6S"])
    env.step(C("AC"))
    hand = env.unwrapped.state_.hands[1]
    assert legal_ids(env) == {c for c in range(40) if hand >> c & 1}


# -- 6.17 - 6.19: auction (dealer 0: order 1, 2, 3, 4, 0, 1, ...) -------------------------------


def test_6_17_auction_last_one_left_is_caller():
    env = make_env({}, dealer=0, forfeit_enabled=False)
    run(env, [(1, bid(61)), (2, bid(70)), (3, PASS), (4, bid(72)), (0, PASS), (1, bid(75)), (2, PASS), (4, PASS)])
    state = env.unwrapped.state_
    assert (state.caller, state.contract) == (1, 75)
    assert env.agent_selection == "player_1"
    assert legal_ids(env) == set(range(40, 80))
    view = decode(env.observe("player_1"))
    assert view["phase"] == "call" and view["caller"] == 0 and view["contract"] == 75
    assert view["bids"][0] == [61, 75] and view["bids"][1] == [70] and view["bids"][3] == [72]


def test_6_18_fifth_player_may_still_bid_after_four_passes():
    env = make_env({}, dealer=0, forfeit_enabled=False)
    run(env, [(1, PASS), (2, PASS), (3, PASS), (4, PASS)])
    assert env.agent_selection == "player_0"
    assert legal_ids(env) == {PASS} | {bid(v) for v in range(61, 121)}
    env.step(bid(61))
    state = env.unwrapped.state_
    assert (state.caller, state.contract) == (0, 61)


def test_6_18_all_pass_voids_the_hand_and_the_deal_passes():
    env = make_env({}, dealer=0, forfeit_enabled=False, num_hands=2)
    run(env, [(1, PASS), (2, PASS), (3, PASS), (4, PASS), (0, PASS)])
    state = env.unwrapped.state_
    assert state.hand_no == 2 and state.dealer == 1
    assert env.rewards == dict.fromkeys(env.agents, 0)
    assert state.records[0]["void"] == "all_pass" and state.records[0]["credits"] == [0] * 5
    assert env.agent_selection == "player_2"  # the first player of the new hand


def test_6_18_all_pass_ends_a_one_hand_episode_with_no_credits():
    env = make_env({}, dealer=0, forfeit_enabled=False)
    run(env, [(1, PASS), (2, PASS), (3, PASS), (4, PASS), (0, PASS)])
    assert all(env.terminations.values())
    result = env.infos["player_3"]["result"]
    assert result["totals"] == [0] * 5 and result["hands"][0]["void"] == "all_pass"


def test_6_19_mask_after_two_bids():
    env = make_env({}, dealer=0, forfeit_enabled=False)
    run(env, [(1, bid(61)), (2, bid(100))])
    assert env.agent_selection == "player_3"
    assert legal_ids(env) == {80} | set(range(121, 141))


def test_after_a_bid_of_120_only_pass_is_legal():
    env = make_env({}, dealer=0, forfeit_enabled=False)
    run(env, [(1, bid(120))])
    assert legal_ids(env) == {PASS}


def test_masks_of_players_not_to_act_are_zero():
    env = make_env({}, dealer=0, forfeit_enabled=False)
    for agent in env.agents:
        if agent != env.agent_selection:
            assert not env.observe(agent)["action_mask"].any()


# -- 6.20: the call ----------------------------------------------------------------------------


def _called_env(holder_of_ad: int):
    env = make_env({holder_of_ad: ["AD"]}, dealer=0, forfeit_enabled=False)
    run(env, [(1, bid(61)), (2, PASS), (3, PASS), (4, PASS), (0, PASS), (1, call("AD"))])
    assert call("AD") == 50
    return env


def test_6_20_call_names_the_partner_and_trump():
    env = _called_env(3)
    state = env.unwrapped.state_
    assert (state.partner, state.trump, state.partner == state.caller) == (3, 1, False)
    holds = {a: decode(env.observe(a))["holds_called"] for a in env.agents}
    assert holds == {"player_0": False, "player_1": False, "player_2": False, "player_3": True, "player_4": False}
    assert all(decode(env.observe(a))["trump"] == 1 for a in env.agents)
    assert all(decode(env.observe(a))["partner"] is None for a in env.agents)  # still secret


def test_6_20_calling_own_card_is_a_solo():
    env = _called_env(1)
    state = env.unwrapped.state_
    assert state.partner == state.caller == 1
    assert decode(env.observe("player_1"))["holds_called"] is True
    assert "solo" in env.unwrapped.game.render(state, 1)


def test_partner_is_revealed_when_the_called_card_is_played():
    env = _called_env(3)
    # Dealer 0: seat 1 leads. Play seat 1..2 cards, then seat 3 plays AD.
    raw = env.unwrapped
    env.step(raw.legal_actions()[0])
    env.step(raw.legal_actions()[0])
    env.step(C("AD"))
    for agent in env.agents:
        view = decode(env.observe(agent))
        assert view["partner_revealed"] is True
        assert view["partner"] == (3 - int(agent[-1])) % 5


# -- 6.21: forfeit -----------------------------------------------------------------------------


def test_6_21_zero_point_hand_may_forfeit():
    zero = ["2C", "4C", "5D", "6D", "7S", "2S", "4B", "6B"]
    env = make_env({2: zero, 0: ["AC"], 1: ["AD"], 3: ["AS"], 4: ["AB"]}, dealer=0)
    assert env.agent_selection == "player_2"
    assert legal_ids(env) == {141, 142}
    env.step(141)
    assert all(env.terminations.values())
    record = env.infos["player_0"]["result"]["hands"][0]
    assert record["void"] == "forfeit" and record["forfeited_by"] == 2 and record["credits"] == [0] * 5


def test_6_21_declining_moves_on_to_the_auction():
    zero = ["2C", "4C", "5D", "6D", "7S", "2S", "4B", "6B"]
    env = make_env({2: zero, 0: ["AC"], 1: ["AD"], 3: ["AS"], 4: ["AB"]}, dealer=0)
    env.step(142)
    assert env.agent_selection == "player_1"
    assert PASS in legal_ids(env)
    assert decode(env.observe("player_4"))["forfeit_declined"] == [3]  # seat 2 is 3 seats after seat 4


def test_6_21_a_single_jack_cannot_forfeit():
    jack = ["JC", "4C", "5D", "6D", "7S", "2S", "4B", "6B"]
    env = make_env({2: jack, 0: ["AC"], 1: ["AD"], 3: ["AS"], 4: ["AB"]}, dealer=0)
    assert env.agent_selection == "player_1"  # no forfeit check: straight to the auction
    assert 141 not in legal_ids(env)


# -- the observation, field by field, on a scripted deal (values computed by hand) -------------------

# The documented layout (observation.py's index table), written out again: (field, shape).
OBS_FIELDS = [
    ("hand", (40,)), ("holds_called", (1,)), ("phase", (4,)), ("dealer", (5,)), ("forfeit_declined", (5,)),
    ("bids", (5, 60)), ("passed", (5,)), ("high_bid", (1,)), ("high_bidder", (5,)), ("caller", (5,)),
    ("contract", (1,)), ("called_card", (40,)), ("trump", (4,)), ("played_by", (40, 5)),
    ("played_in_trick", (40, 8)), ("current_trick", (5, 40)), ("trick_leader", (5,)), ("points_taken", (5,)),
    ("tricks_taken", (5,)), ("partner_revealed", (1,)), ("partner", (5,)), ("match_scores", (5,)),
    ("hands_left", (1,)), ("reserved", (6,)),
]
PHASES = ("forfeit_check", "auction", "call", "trick_play")


def encode_by_hand(view: dict, num_hands: int) -> np.ndarray:
    """The observation the index table documents for a decoded ``view`` (seats relative)."""
    f = {name: np.zeros(shape, dtype=np.float32) for name, shape in OBS_FIELDS}
    f["hand"][view["hand"]] = 1
    f["holds_called"][0] = view["holds_called"]
    if view["phase"] != "over":
        f["phase"][PHASES.index(view["phase"])] = 1
    f["dealer"][view["dealer"]] = 1
    f["forfeit_declined"][view["forfeit_declined"]] = 1
    for r, values in view["bids"].items():
        for v in values:
            f["bids"][r, v - 61] = 1  # "seat r bid 61+j"
    f["passed"][view["passed"]] = 1
    if view["high_bid"] is not None:
        f["high_bid"][0] = (view["high_bid"] - 60) / 60  # "(highest bid - 60) / 60"
        f["high_bidder"][view["high_bidder"]] = 1
    if view["caller"] is not None:
        f["caller"][view["caller"]] = 1
        f["contract"][0] = (view["contract"] - 60) / 60
    if view["called_card"] is not None:
        f["called_card"][view["called_card"]] = 1
        f["trump"][view["trump"]] = 1
    for trick, r, c in view["played"]:
        f["played_by"][c, r] = 1
        f["played_in_trick"][c, trick] = 1
    if view["trick_leader"] is not None:
        f["trick_leader"][view["trick_leader"]] = 1
        for i, c in enumerate(view["trick"]):
            f["current_trick"][(view["trick_leader"] + i) % 5, c] = 1
    f["points_taken"][:] = np.array(view["points_taken"]) / 120
    f["tricks_taken"][:] = np.array(view["tricks_taken"]) / 8
    f["partner_revealed"][0] = view["partner_revealed"]
    if view["partner"] is not None:
        f["partner"][view["partner"]] = 1
    f["match_scores"][:] = np.array(view["credits"]) / (24 * num_hands)  # "classifica / (24 * num_hands)"
    f["hands_left"][0] = view["hands_left_count"] / num_hands
    return np.concatenate([f[name].ravel() for name, _ in OBS_FIELDS])


def check_observation(obs: np.ndarray, expected: dict, num_hands: int) -> None:
    """``obs`` is exactly the documented encoding of ``expected`` and ``decode`` gives it back."""
    assert obs.shape == (1169,) and obs.dtype == np.float32
    want = encode_by_hand(expected, num_hands)
    for name, shape in OBS_FIELDS:  # field by field, for a readable failure
        start = sum(int(np.prod(s)) for n, s in OBS_FIELDS[: [n for n, _ in OBS_FIELDS].index(name)])
        size = int(np.prod(shape))
        np.testing.assert_allclose(obs[start : start + size], want[start : start + size], rtol=0, atol=1e-7, err_msg=name)
    view = decode(obs)
    decoded = {k: v for k, v in expected.items() if k not in ("credits", "hands_left_count")}
    decoded["match_scores"] = pytest.approx([c / (24 * num_hands) for c in expected["credits"]], abs=1e-7)
    decoded["hands_left"] = pytest.approx(expected["hands_left_count"] / num_hands, abs=1e-7)
    assert view == decoded


# Dealer 0. Seat 2's hand has no card points, so it is asked to forfeit first; seat 3 holds
# the Denari but 5D 6D, seat 1 the Coppe but 2C 4C, seat 4 the Spade but 2S 7S, seat 0 the rest.
DECODE_HANDS = [
    "AB 2B 3B 5B 7B JB HB KB",
    "AC 3C KC HC JC 7C 6C 5C",
    "2C 4C 5D 6D 7S 2S 4B 6B",
    "AD 2D 3D 4D 7D JD HD KD",
    "AS 3S KS HS JS 6S 5S 4S",
]
DECODE_SCRIPT = [
    (2, 142),  # seat 2 does not forfeit
    (1, bid(61)), (2, bid(70)), (3, PASS), (4, bid(75)), (0, PASS), (1, bid(80)), (2, PASS), (4, PASS),
    (1, call("AD")),  # seat 1 is the caller at 80; trump Denari, partner seat 3
    (1, C("AC")), (2, C("2C")), (3, C("2D")), (4, C("4S")), (0, C("2B")),  # 2D trumps: seat 3 takes 11
    (3, C("AD")), (4, C("AS")),  # the called card is played: the partner is public
]


def test_observation_and_decode_of_every_field_mid_hand():
    env = briscola5_v0.env(num_hands=3)
    env.reset(seed=0, options={"dealer": 0, "hands": [h.split() for h in DECODE_HANDS]})
    run(env, DECODE_SCRIPT)
    assert env.agent_selection == "player_0"
    # Seat 4 (a defender) sees absolute seat a as relative seat (a - 4) % 5: 4->0, 0->1, 1->2, 2->3, 3->4.
    defender = {
        "hand": sorted(C(c) for c in "3S 5S 6S JS HS KS".split()),
        "holds_called": False,
        "phase": "trick_play",
        "dealer": 1,
        "forfeit_declined": [3],
        "bids": {0: [75], 1: [], 2: [61, 80], 3: [70], 4: []},
        "passed": [0, 1, 3, 4],
        "high_bid": 80,
        "high_bidder": 2,
        "caller": 2,
        "contract": 80,
        "called_card": C("AD"),
        "trump": 1,
        "played": sorted([(0, 2, C("AC")), (0, 3, C("2C")), (0, 4, C("2D")), (0, 0, C("4S")), (0, 1, C("2B")),
                          (1, 4, C("AD")), (1, 0, C("AS"))]),
        "trick": [C("AD"), C("AS")],
        "trick_leader": 4,
        "points_taken": [0, 0, 0, 0, 11],
        "tricks_taken": [0, 0, 0, 0, 1],
        "partner_revealed": True,
        "partner": 4,
        "credits": [0, 0, 0, 0, 0],
        "hands_left_count": 2,  # hands still to play after this one
        "trick_no": 1,
    }
    check_observation(env.observe("player_4")["observation"], defender, num_hands=3)
    # Seat 3 (the partner): 3->0, 4->1, 0->2, 1->3, 2->4.
    partner = defender | {
        "hand": sorted(C(c) for c in "3D 4D 7D JD HD KD".split()),
        "holds_called": True,
        "dealer": 2,
        "forfeit_declined": [4],
        "bids": {0: [], 1: [75], 2: [], 3: [61, 80], 4: [70]},
        "passed": [0, 1, 2, 4],
        "high_bidder": 3,
        "caller": 3,
        "played": sorted([(0, 3, C("AC")), (0, 4, C("2C")), (0, 0, C("2D")), (0, 1, C("4S")), (0, 2, C("2B")),
                          (1, 0, C("AD")), (1, 1, C("AS"))]),
        "trick_leader": 0,
        "points_taken": [11, 0, 0, 0, 0],
        "tricks_taken": [1, 0, 0, 0, 0],
        "partner": 0,
    }
    check_observation(env.observe("player_3")["observation"], partner, num_hands=3)


def test_observation_and_decode_before_the_first_bid_and_in_the_next_hand():
    """The start of a match (nothing bid yet) and the start of hand 2 (classifica, hands left)."""
    fixed = {0: ["AC", "3C", "KC", "HC", "JC", "7C", "6C", "5C"], 1: ["4C", "2C", "AD", "3D", "KD", "HD", "JD", "2D"]}
    env = make_env(fixed, dealer=4, forfeit_enabled=False, num_hands=3)
    hands = fill_hands(fixed)
    start = {
        "hand": sorted(hands[2]), "holds_called": False, "phase": "auction", "dealer": 2, "forfeit_declined": [],
        "bids": {r: [] for r in range(5)}, "passed": [], "high_bid": None, "high_bidder": None, "caller": None,
        "contract": None, "called_card": None, "trump": None, "played": [], "trick": [], "trick_leader": None,
        "points_taken": [0] * 5, "tricks_taken": [0] * 5, "partner_revealed": False, "partner": None,
        "credits": [0] * 5, "hands_left_count": 2, "trick_no": 0,
    }
    check_observation(env.observe("player_2")["observation"], start, num_hands=3)
    # 6.1 played out: seat 0 calls 2C (seat 1) at 75 and takes all 120 points: [8, 4, -4, -4, -4]
    run(env, [(0, bid(75)), (1, PASS), (2, PASS), (3, PASS), (4, PASS), (0, call("2C"))])
    raw = env.unwrapped
    while raw.state_.hand_no == 1:
        legal = raw.legal_actions()
        seat = raw.agent_name_mapping[env.agent_selection]
        env.step(max(legal, key=lambda c: (c // 10 == 0, "24567JHK3A".index(ITALIAN.codes[c][0]))) if seat == 0 else legal[0])
    assert raw.state_.records[0]["credits"] == [8, 4, -4, -4, -4]
    next_hand = start | {
        "hand": sorted(c for c in range(40) if raw.state_.hands[2] >> c & 1),  # a fresh random deal
        "dealer": 3,  # dealer 0 (4 + 1) seen from seat 2
        "credits": [-4, -4, -4, 8, 4],  # seats 2, 3, 4, 0, 1
        "hands_left_count": 1,
    }
    check_observation(env.observe("player_2")["observation"], next_hand, num_hands=3)
