"""Pigugnìn: every worked example of the spec (§6), the scoring tables and the game-level rules.

Scoring examples 6.1-6.12 and game outcomes 6.16-6.26 run on the engine's pure functions;
the trick and mask examples 6.13-6.15 and the game examples run again through ``env()`` with
explicit deals and starting busche.
"""

from __future__ import annotations

import itertools

import numpy as np
import pytest

from envs import pigugnin_v0
from envs.pigugnin.game import (
    POINTS_TO_BUSCHE,
    PigugninGame,
    busche_for_points,
    game_outcome,
    no_trick_penalty,
    score_hand,
    tie_penalty,
)
from envs.pigugnin.observation import decode
from tests.envs.referee_pigugnin import BUSCHE_LIST, Referee, card, cards, hand_busche

# -- tables (§4.2) -----------------------------------------------------------------------------


def test_points_to_busche_table_matches_the_spec_list():
    assert list(POINTS_TO_BUSCHE) == BUSCHE_LIST
    # the seed's own anchor points
    for points, busche in [(11, 0), (12, 1), (15, 2), (18, 3), (21, 4), (24, 5), (25, 6), (26, 7), (27, 8), (35, 16)]:
        assert busche_for_points(points) == busche
    # threshold reading (D3): between anchors a score pays for the lower one
    assert [busche_for_points(p) for p in (13, 14, 16, 17, 19, 20, 22, 23)] == [1, 1, 2, 2, 3, 3, 4, 4]


def test_tie_and_no_trick_tables():
    assert [tie_penalty(k) for k in (2, 3, 4, 5)] == [1, 2, 3, 4]
    assert [no_trick_penalty(k) for k in (1, 2, 3, 4)] == [2, 3, 4, 5]


# -- hand scoring examples 6.1-6.12 ------------------------------------------------------------

POINT_EXAMPLES = [
    ("6.1", [14, 9, 7, 5], 1, [1, 1, 0, 0]),
    ("6.2", [12, 12, 6, 5], 3, [2, 2, 0, 1]),
    ("6.3", [10, 10, 8, 7], 2, [2, 2, 1, 0]),
    ("6.4", [24, 5, 3, 3], 0, [6, 0, 1, 1]),
    ("6.5", [27, 2, 2, 2, 2], 1, [8, 4, 3, 3, 3]),
    ("6.9", [7, 7, 7, 7, 7], 2, [5, 5, 6, 5, 5]),
    ("6.10", [35, 0, 0, 0], 0, [17, 2, 2, 2]),
    ("6.11", [11, 11, 11, 2], 3, [3, 3, 3, 1]),
    ("6.12", [13, 13, 5, 4], 2, [2, 2, 1, 0]),
]


@pytest.mark.parametrize("example,points,pig,expected", POINT_EXAMPLES, ids=[e[0] for e in POINT_EXAMPLES])
def test_hand_scoring_examples_with_tricks_for_everyone(example, points, pig, expected):
    assert sum(points) == 35
    tricks = [1] * len(points)
    assert score_hand(points, tricks, pig) == (expected, False)
    assert hand_busche(points, tricks, pig) == (expected, False)  # the referee agrees


TRICK_EXAMPLES = [
    # points are irrelevant when somebody took no trick ("nobody counts points")
    ("6.6", [3, 4, 3, 0], [20, 9, 6, 0], 1, [0, 1, 0, 2], False),
    ("6.7", [2, 3, 0, 3, 0], [9, 14, 0, 12, 0], 0, [1, 0, 3, 0, 3], False),
    ("6.8", [10, 0, 0, 0], [35, 0, 0, 0], 0, [1, 4, 4, 4], True),
]


@pytest.mark.parametrize(
    "example,tricks,points,pig,expected,cappotto", TRICK_EXAMPLES, ids=[e[0] for e in TRICK_EXAMPLES]
)
def test_no_trick_examples(example, tricks, points, pig, expected, cappotto):
    assert score_hand(points, tricks, pig) == (expected, cappotto)


# Rows of the TIE_PENALTY and NO_TRICK_PENALTY tables (spec 4.2) that no worked example reaches
# through the whole hand scoring: four players tied (only possible with 5 players: 35 is not a
# multiple of 4), and one, two, three and four players without a trick in both player counts.
RARE_HANDS = [
    # id, tricks, points, Pigugnin taker, busche, cappotto
    # 3 + 8 + 8 + 8 + 8: B(8) = 0; the four 8s are the top scorers (< 12, +1 each) and a tie of 4 (+3)
    ("tie of 4", [1, 2, 2, 2, 1], [3, 8, 8, 8, 8], 0, [1, 4, 4, 4, 4], False),
    ("no trick, 1 of 5", [2, 2, 2, 2, 0], [9, 9, 9, 8, 0], 3, [0, 0, 0, 1, 2], False),
    ("no trick, 2 of 4", [6, 4, 0, 0], [20, 15, 0, 0], 0, [1, 0, 3, 3], False),
    ("no trick, 3 of 5", [5, 3, 0, 0, 0], [20, 15, 0, 0, 0], 1, [0, 1, 4, 4, 4], False),
    ("no trick, 4 of 5 (cappotto)", [8, 0, 0, 0, 0], [35, 0, 0, 0, 0], 0, [1, 5, 5, 5, 5], True),
    ("no trick, 3 of 4 (cappotto)", [0, 0, 10, 0], [0, 0, 35, 0], 2, [4, 4, 1, 4], True),
]


@pytest.mark.parametrize("example,tricks,points,pig,expected,cappotto", RARE_HANDS, ids=[e[0] for e in RARE_HANDS])
def test_rare_rows_of_the_busche_tables(example, tricks, points, pig, expected, cappotto):
    assert sum(points) == 35 and sum(tricks) == 40 // len(points)
    assert score_hand(points, tricks, pig) == (expected, cappotto)
    assert hand_busche(points, tricks, pig) == (expected, cappotto)  # the referee agrees


def test_tie_of_four_and_five_player_pairs_under_the_scoring_flags():
    # none_pay: the shared top (four 8s) pays no top-scorer busca; the tie of 4 still pays 3 each
    assert score_hand([3, 8, 8, 8, 8], [1] * 5, 0, top_scorer_tie_policy="none_pay") == ([1, 3, 3, 3, 3], False)
    # paying_scores_only: a tie at 8 (< 12) pays nothing; the top-scorer busca still does
    assert score_hand([3, 8, 8, 8, 8], [1] * 5, 0, tie_penalty_scope="paying_scores_only") == ([1, 1, 1, 1, 1], False)
    # 5 players, a pair at a paying score (12: B = 1, tie +1) and a pair below it (3): only the first pays
    assert score_hand([12, 12, 5, 3, 3], [1] * 5, 2, tie_penalty_scope="paying_scores_only") == ([2, 2, 1, 0, 0], False)
    assert score_hand([12, 12, 5, 3, 3], [1] * 5, 2) == ([2, 2, 1, 1, 1], False)


def test_no_trick_rule_ignores_points_ties_and_top_scorer():
    # the same points without a trickless player would pay 3 (18 points) + ties
    assert score_hand([18, 7, 7, 3], [4, 3, 3, 0], 1) == ([0, 1, 0, 2], False)
    assert score_hand([18, 7, 7, 3], [4, 3, 2, 1], 1) == ([3, 2, 1, 0], False)


def test_several_tie_groups_each_pay():
    # §4.3 notes: 9, 9, 7, 5, 5 -> two pairs, each of the four pays 1 (+ top scorer, + JS)
    assert score_hand([9, 9, 7, 5, 5], [1] * 5, 2) == ([2, 2, 1, 1, 1], False)


def test_exhaustive_scoring_agrees_with_the_referee():
    """Every 4-player point split (and a 5-player sample) and every Pigugnìn taker."""
    for split in itertools.product(range(36), repeat=3):
        last = 35 - sum(split)
        if last < 0:
            continue
        points = [*split, last]
        for pig in range(4):
            assert score_hand(points, [1] * 4, pig) == hand_busche(points, [1] * 4, pig)
    rng = np.random.default_rng(3)
    for _ in range(3000):
        cuts = np.sort(rng.integers(0, 36, 4))
        points = np.diff(np.concatenate([[0], cuts, [35]])).tolist()
        tricks = rng.integers(0, 3, 5).tolist()
        if sum(tricks) == 0:
            continue
        pig = int(rng.choice([p for p in range(5) if tricks[p] > 0]))
        assert score_hand(points, tricks, pig) == hand_busche(points, tricks, pig)


# -- scoring flags -----------------------------------------------------------------------------


def test_flag_top_scorer_tie_policy_none_pay():
    # 6.3 with none_pay: the shared top (10, 10) pays no top-scorer busca; the tie still pays
    assert score_hand([10, 10, 8, 7], [1] * 4, 2, top_scorer_tie_policy="none_pay") == ([1, 1, 1, 0], False)
    # an unshared top still pays under none_pay
    assert score_hand([11, 10, 8, 6], [1] * 4, 2, top_scorer_tie_policy="none_pay") == ([1, 0, 1, 0], False)


def test_flag_tie_penalty_scope_paying_scores_only():
    # 6.4: the tie at 3 is below 12, so nobody pays it
    assert score_hand([24, 5, 3, 3], [1] * 4, 0, tie_penalty_scope="paying_scores_only") == ([6, 0, 0, 0], False)
    # 6.2: the tie at 12 still pays
    assert score_hand([12, 12, 6, 5], [1] * 4, 3, tie_penalty_scope="paying_scores_only") == ([2, 2, 0, 1], False)


# -- game outcomes 6.16-6.26 -------------------------------------------------------------------

L, W, D, A = "lose", "win", "draw", "annulled"
OUTCOME_EXAMPLES = [
    ("6.16", [10, 10, 3, 5], -1, [L, L, W, W]),
    ("6.17", [11, 6, 4, 9], -1, None),
    ("6.18", [11, 6, 4, 10], -1, [L, W, W, L]),
    ("6.19", [20, 5, 6, 7], -1, [L, W, W, D]),
    ("6.20", [12, 10, 3, 5, 7], -1, [L, L, W, W, D]),
    ("6.21", [10, 11, 3, 4, 4], -1, [L, L, W, D, D]),
    ("6.22", [10, 11, 4, 4, 4], -1, [L, L, D, D, D]),
    ("6.23", [12, 10, 3, 3, 7], -1, [L, L, W, W, D]),
    ("6.24", [10, 10, 10, 5], -1, [L, L, L, W]),
    ("6.25", [11, 12, 10, 12], -1, [A, A, A, A]),
    ("6.26", [8, 7, 13, 9], 2, [L, L, W, L]),
]


@pytest.mark.parametrize("example,totals,maker,expected", OUTCOME_EXAMPLES, ids=[e[0] for e in OUTCOME_EXAMPLES])
def test_game_outcome_examples(example, totals, maker, expected):
    outcome, reason = game_outcome(totals, maker)
    assert outcome == expected
    assert (reason is None) == (expected is None)


def test_6_25_before_and_delta_add_up_to_the_annulled_totals():
    before, delta = [9, 9, 9, 8], [2, 3, 1, 4]
    totals = [b + d for b, d in zip(before, delta, strict=True)]
    assert totals == [11, 12, 10, 12]
    assert game_outcome(totals) == ([A] * 4, "annulled")


def test_6_25_delta_cannot_come_from_one_hand():
    """Spec note: no 4-player hand pays exactly [2, 3, 1, 4]; the env test uses a real hand."""
    for split in itertools.product(range(36), repeat=3):
        last = 35 - sum(split)
        if last >= 0:
            for pig in range(4):
                assert score_hand([*split, last], [1] * 4, pig)[0] != [2, 3, 1, 4]


def test_game_outcome_reasons():
    assert game_outcome([10, 10, 3, 5])[1] == "losers"
    assert game_outcome([20, 5, 6, 7])[1] == "sole_loser"
    assert game_outcome([19, 5, 6, 7]) == (None, None)  # one at 19: goes on
    assert game_outcome([8, 7, 13, 9], 2)[1] == "cappotto"
    assert game_outcome([11, 12, 10, 12])[1] == "annulled"


def test_flag_multi_loser_policy_top_two():
    assert game_outcome([12, 11, 10, 5])[0] == [L, L, L, W]
    assert game_outcome([12, 11, 10, 5], multi_loser_policy="top_two")[0] == [L, L, W, W]
    # ties at the boundary all lose
    assert game_outcome([12, 11, 11, 5], multi_loser_policy="top_two")[0] == [L, L, L, W]
    # 5 players: the one who reached 10 but escapes the top two ranks with the others
    assert game_outcome([13, 12, 10, 2, 3], multi_loser_policy="top_two")[0] == [L, L, D, W, W]


def test_flag_winner_boundary_tie_win():
    assert game_outcome([10, 11, 3, 4, 4], winner_boundary_tie="win")[0] == [L, L, W, W, W]
    assert game_outcome([10, 11, 4, 4, 4], winner_boundary_tie="win")[0] == [L, L, W, W, W]


def test_flag_cappotto_others_outcome_standard():
    # 6.26 under "standard": nobody else reached 10 twice or 20, so the others draw
    assert game_outcome([8, 7, 13, 9], 2, cappotto_others_outcome="standard")[0] == [D, D, W, D]
    # two others at >= 10 lose, the rest draw (a "win" among the others becomes "draw")
    assert game_outcome([13, 12, 3, 7], 2, cappotto_others_outcome="standard")[0] == [L, L, W, D]
    # one other at >= 20 is a sole loser
    assert game_outcome([21, 2, 3, 7], 2, cappotto_others_outcome="standard")[0] == [L, D, W, D]


def test_flags_loss_thresholds():
    assert game_outcome([5, 5, 1, 0], loss_threshold=5)[0] == [L, L, W, W]
    assert game_outcome([12, 1, 2, 0], sole_loss_threshold=12)[0] == [L, W, D, W]
    assert game_outcome([12, 1, 1, 0], sole_loss_threshold=12)[0] == [L, D, D, W]  # tie at the 2nd slot
    assert game_outcome([12, 1, 2, 0])[0] is None


# -- tricks and masks 6.13-6.15 through env() --------------------------------------------------


def _deal(*hands: str) -> list[list[str]]:
    return [h.split() for h in hands]


def _play(env, *codes: str) -> None:
    for code in codes:
        env.step(card(code))


def test_6_13_void_player_discards_and_the_3_wins():
    env = pigugnin_v0.env()
    env.reset(
        seed=0,
        options={
            "dealer": 0,
            "hands": _deal(
                "AD 2D 3D 4D 5D 6D 7D JD HD KD",
                "5C AS 2S 3S 4S 5S 6S 7S JS HS",
                "KC AC 2C 4C KS AB 2B 3B 4B 5B",
                "3C 6C 7C JC HC 6B 7B JB HB KB",
            ),
        },
    )
    assert env.agent_selection == "player_1"  # the dealer's right leads
    _play(env, "5C", "KC", "3C")
    assert env.agent_selection == "player_0"
    assert np.flatnonzero(env.observe("player_0")["action_mask"]).tolist() == list(range(10, 20))  # void: any card
    _play(env, "AD")
    assert env.agent_selection == "player_3"  # the winner leads next
    view = decode(env.observe("player_0"))
    assert view["points"] == [0, 0, 0, 5]  # 1 + 1 + 3
    assert view["tricks_won"] == [0, 0, 0, 1]
    assert view["captured"][3] == sorted(cards("5C KC 3C AD"))
    assert view["trick"] == [] and view["trick_leader"] == 3
    assert decode(env.observe("player_3"))["points"] == [5, 0, 0, 0]  # seat-relative


def test_6_14_must_follow_suit_mask():
    hands = ["AD 3D 4D 5D 6D 7D JD HD KD 3C", "4C AC 5C 6C JC HC KC AB 3B 4B", "2C 7C AS JS 2D 2S 3S 4S 5S 6S",
             "KS HS 7S 2B 5B 6B 7B JB HB KB"]  # fmt: skip
    env = pigugnin_v0.env()
    env.reset(seed=0, options={"dealer": 0, "hands": _deal(*hands)})
    _play(env, "4C")
    assert np.flatnonzero(env.observe("player_2")["action_mask"]).tolist() == [1, 6]
    # a Denari lead to a player_2 void in Denari: every card of its hand is legal
    hands[2] = "2C 7C AS JS 2S 3S 4S 5S 6S KS"
    hands[3] = "2D HS 7S 2B 5B 6B 7B JB HB KB"
    hands[1] = "4D AC 5C 6C JC HC KC AB 3B 4B"
    hands[0] = "AD 3D 4C 5D 6D 7D JD HD KD 3C"
    env.reset(seed=0, options={"dealer": 0, "hands": _deal(*hands)})
    _play(env, "4D")
    legal = np.flatnonzero(env.observe("player_2")["action_mask"]).tolist()
    assert legal == sorted(cards(hands[2])) and {1, 6, 20, 27} <= set(legal)


def test_6_14_exact_four_card_hand_on_the_engine():
    game = PigugninGame()
    state = game.new_state(np.random.default_rng(0), {"dealer": 3})
    hand = 0
    for c in cards("2C 7C AS JS"):
        hand |= 1 << c
    state.to_act, state.leader = 1, 0
    state.hands[1] = hand
    state.trick = [card("4C")]
    assert game.legal_actions(state) == [1, 6]
    state.trick = [card("4D")]
    assert game.legal_actions(state) == [1, 6, 20, 27]


def test_6_15_highest_of_the_led_suit_wins():
    env = pigugnin_v0.env()
    env.reset(
        seed=0,
        options={
            "dealer": 0,
            "hands": _deal(
                "2B AD 2D 3D 4D 5D 6D 7D JD HD",
                "4B AS 2S 3S 4S 5S 6S 7S JS HS",
                "7B KD KS AC 2C 3C 4C 5C 6C 7C",
                "AB JC HC KC 3B 5B 6B JB HB KB",
            ),
        },
    )
    _play(env, "4B", "7B", "AB", "2B")
    view = decode(env.observe("player_0"))
    assert view["tricks_won"] == [1, 0, 0, 0] and view["points"] == [4, 0, 0, 0]
    assert env.agent_selection == "player_0"


def test_last_trick_bonus_goes_to_the_winner_of_the_last_trick():
    env = pigugnin_v0.env(episode="hand")
    env.reset(seed=3, options={"dealer": 2})
    while env.agents:
        obs, _, term, trunc, info = env.last()
        if term or trunc:
            record = info["result"]["hands"][0]
            break
        env.step(int(np.flatnonzero(obs["action_mask"])[-1]))
    last_winner = record["trick_history"][-1][2]
    card_pts = [0] * 4
    for _, trick, winner in record["trick_history"]:
        card_pts[winner] += sum([3, 1, 1, 0, 0, 0, 0, 1, 1, 1][c % 10] for c in trick)
    card_pts[last_winner] += 3
    assert record["points"] == card_pts and sum(card_pts) == 35


# -- game examples through env() with explicit deals and busche --------------------------------

# A 4-player deal where "every seat plays its lowest legal card id", dealer 3, gives points
# [18, 5, 5, 7], tricks [6, 1, 1, 2], JS -> 3, busche [3, 1, 1, 1] (18 -> 3; tie at 5 -> +1 each;
# Pigugnìn +1). Found by a search offline; the referee re-checks it below.
HAND4 = _deal(
    "AC 2C 5C 2D 4D 6D 7D HD AS 3S",
    "JC HC KC KD 7S JS HS KS AB 7B",
    "3C 7C AD 4S 5S 2B 3B 4B 5B 6B",
    "4C 6C 3D 5D JD 2S 6S JB HB KB",
)
DELTA4 = [3, 1, 1, 1]
# A 5-player deal (dealer 0, same policy): seat 0 takes no trick and pays 2, JS -> seat 1.
HAND5 = _deal(
    "4C 2D AS JS HS 3B 7B KB",
    "6C 7C JC 3D KD KS JB HB",
    "AC 2C KC AD JD 3S 6S 4B",
    "3C HC 6D HD 4S 7S 5B 6B",
    "5C 4D 5D 7D 2S 5S AB 2B",
)
DELTA5 = [2, 1, 0, 0, 0]


def _lowest_policy_hand(hands, dealer, busche, **flags):
    """Play one hand with the lowest legal id through env(); returns (result, rewards, env)."""
    n = len(hands)
    env = pigugnin_v0.env(num_players=n, **flags)
    env.reset(seed=11, options={"dealer": dealer, "hands": hands, "busche": busche})
    returns = dict.fromkeys(env.possible_agents, 0)
    first_hand = None
    while env.agents:
        agent = env.agent_selection
        obs, reward, term, trunc, info = env.last()
        returns[agent] += reward
        if term or trunc:
            env.step(None)
            first_hand = first_hand or info["result"]
            continue
        if env.unwrapped.state_.hand_no > 1:
            for other in env.possible_agents:
                if other != agent:
                    returns[other] += env.unwrapped._cumulative_rewards[other]
            return None, returns, env
        env.step(int(np.flatnonzero(obs["action_mask"])[0]))
    return first_hand, returns, env


def test_fixture_hands_score_as_stated_by_the_referee():
    for hands, dealer, delta in [(HAND4, 3, DELTA4), (HAND5, 0, DELTA5)]:
        n = len(hands)
        ref = Referee([set(cards(" ".join(h))) for h in hands], (dealer + 1) % n)
        while not ref.done:
            ref.step(min(ref.legal()))
        assert hand_busche(ref.points, ref.tricks, ref.pig)[0] == ref.scores() == delta


GAME_EXAMPLES_4 = [
    ("6.16", [10, 10, 3, 5], [L, L, W, W], "losers"),
    ("6.18", [11, 6, 4, 10], [L, W, W, L], "losers"),
    ("6.19", [20, 5, 6, 7], [L, W, W, D], "sole_loser"),
    ("6.24", [10, 10, 10, 5], [L, L, L, W], "losers"),
    ("6.25", [12, 10, 10, 10], [A, A, A, A], "annulled"),
]
GAME_EXAMPLES_5 = [
    ("6.20", [12, 10, 3, 5, 7], [L, L, W, W, D]),
    ("6.21", [10, 11, 3, 4, 4], [L, L, W, D, D]),
    ("6.22", [10, 11, 4, 4, 4], [L, L, D, D, D]),
    ("6.23", [12, 10, 3, 3, 7], [L, L, W, W, D]),
]


@pytest.mark.parametrize("example,after,expected,reason", GAME_EXAMPLES_4, ids=[e[0] for e in GAME_EXAMPLES_4])
def test_game_examples_through_the_env_4_players(example, after, expected, reason):
    before = [a - d for a, d in zip(after, DELTA4, strict=True)]
    result, returns, _ = _lowest_policy_hand(HAND4, 3, before, outcome_reward={"win": 10, "draw": 5, "lose": -10})
    assert result["hands"][0]["busche_paid"] == DELTA4
    assert result["busche"] == after
    assert result["outcome"] == expected and result["reason"] == reason and result["game_over"]
    assert result["annulled"] == (expected[0] == A)
    value = {"win": 10, "draw": 5, "lose": -10, "annulled": 5}
    assert [returns[f"player_{p}"] for p in range(4)] == [value[o] - d for o, d in zip(expected, DELTA4, strict=True)]


@pytest.mark.parametrize("example,after,expected", GAME_EXAMPLES_5, ids=[e[0] for e in GAME_EXAMPLES_5])
def test_game_examples_through_the_env_5_players(example, after, expected):
    before = [a - d for a, d in zip(after, DELTA5, strict=True)]
    result, _, _ = _lowest_policy_hand(HAND5, 0, before)
    assert result["hands"][0]["busche_paid"] == DELTA5
    assert result["hands"][0]["tricks"][0] == 0  # the no-trick rule at work
    assert result["busche"] == after and result["outcome"] == expected


def test_6_17_game_goes_on_and_the_pigugnin_taker_deals():
    after = [11, 6, 4, 9]
    before = [a - d for a, d in zip(after, DELTA4, strict=True)]
    result, returns, env = _lowest_policy_hand(HAND4, 3, before)
    assert result is None  # the game continued into hand 2
    state = env.unwrapped.state_
    assert state.hand_no == 2 and state.busche == after
    assert state.dealer == 3  # JS was taken by seat 3
    assert env.agent_selection == "player_0"  # the new dealer's right leads
    assert decode(env.observe("player_0"))["busche"] == after
    assert decode(env.observe("player_1"))["dealer"] == 2  # relative to player_1
    assert [returns[f"player_{p}"] for p in range(4)] == [-d for d in DELTA4]


def test_6_25_annulled_through_the_env_from_the_spec_start():
    """Spec start [9, 9, 9, 8]; its delta [2, 3, 1, 4] is not a possible hand, a real one is used."""
    result, _, _ = _lowest_policy_hand(HAND4, 3, [9, 9, 9, 8])
    assert result["busche"] == [12, 10, 10, 9]  # not everyone reached 10: 3 losers, 1 winner
    assert result["outcome"] == [L, L, L, W]
    result, _, _ = _lowest_policy_hand(HAND4, 3, [9, 9, 9, 9])
    assert result["busche"] == [12, 10, 10, 10] and result["outcome"] == [A] * 4


# A cappotto deal: seat 2 holds every 3, every 2 and two Aces, leads (dealer 1) and plays its
# strongest card each trick, so it wins all ten tricks (and JS with them).
CAPPOTTO = _deal(
    "4C 5C 6C 4D 5D 6D 4S 5S 4B 5B",
    "7C JC 7D JD 6S 7S JS 6B 7B JB",
    "3C 2C AC 3D 2D AD 3S 2S 3B 2B",
    "HC KC HD KD AS HS KS AB HB KB",
)


def _play_cappotto(busche, **flags):
    env = pigugnin_v0.env(**flags)
    env.reset(seed=5, options={"dealer": 1, "hands": CAPPOTTO, "busche": busche})
    strength = {r: i for i, r in enumerate("4567JHKA23")}
    while env.agents:
        obs, _, term, trunc, info = env.last()
        if term or trunc:
            env.step(None)
            result = info["result"]
            continue
        legal = np.flatnonzero(obs["action_mask"]).tolist()
        if env.agent_selection == "player_2":
            env.step(max(legal, key=lambda c: strength["A234567JHK"[c % 10]]))
        else:
            env.step(legal[0])
    return result


def test_6_26_cappotto_makes_the_sole_winner_whatever_its_busche():
    result = _play_cappotto([4, 3, 12, 5])
    hand = result["hands"][-1]
    assert hand["tricks"] == [0, 0, 10, 0] and hand["pig_taker"] == 2
    assert hand["cappotto"] and hand["cappotto_maker"] == 2
    assert hand["busche_paid"] == [4, 4, 1, 4]
    assert result["busche"] == [8, 7, 13, 9]
    assert result["outcome"] == [L, L, W, L] and result["reason"] == "cappotto"
    assert result["winners"] == [2] and result["losers"] == [0, 1, 3]


def test_6_26_cappotto_with_standard_others_through_the_env():
    result = _play_cappotto([9, 8, 2, 3], cappotto_others_outcome="standard")
    assert result["busche"] == [13, 12, 3, 7]
    assert result["outcome"] == [L, L, W, D]


# -- the observation, field by field, on a scripted deal (values computed by hand) -------------------


def obs_fields(n: int) -> list[tuple[str, tuple[int, ...]]]:
    """The documented layout (observation.py's index table), written out again."""
    return [
        ("hand", (40,)), ("played", (n, 40)), ("trick", (n, 40)), ("trick_leader", (n,)), ("captured", (n, 40)),
        ("tricks_won", (n,)), ("points", (n,)), ("pig_taker", (n,)), ("busche", (n,)), ("dealer", (n,)),
        ("num_players", (2,)),
    ]


def encode_by_hand(view: dict) -> np.ndarray:
    n = view["num_players"]
    f = {name: np.zeros(shape, dtype=np.float32) for name, shape in obs_fields(n)}
    f["hand"][view["hand"]] = 1
    for r in range(n):
        f["played"][r, view["played"][r]] = 1
        f["captured"][r, view["captured"][r]] = 1
    for r, c in view["trick"]:
        f["trick"][r, c] = 1
    f["trick_leader"][view["trick_leader"]] = 1
    f["tricks_won"][:] = np.array(view["tricks_won"]) / (40 // n)  # "tricks taken / cards per hand (10 or 8)"
    f["points"][:] = np.array(view["points"]) / 35
    if view["pig_taker"] is not None:
        f["pig_taker"][view["pig_taker"]] = 1
    f["busche"][:] = np.array(view["busche"]) / 10
    f["dealer"][view["dealer"]] = 1
    f["num_players"][n - 4] = 1
    return np.concatenate([f[name].ravel() for name, _ in obs_fields(n)])


def check_observation(obs: dict, expected: dict) -> None:
    vector = obs["observation"]
    assert vector.dtype == np.float32 and vector.shape == (42 + 126 * expected["num_players"],)
    want = encode_by_hand(expected)
    start = 0
    for name, shape in obs_fields(expected["num_players"]):
        size = int(np.prod(shape))
        np.testing.assert_allclose(vector[start : start + size], want[start : start + size], rtol=0, atol=1e-7, err_msg=name)
        start += size
    assert decode(obs) == expected


# 5 players, dealer 2: seat 3 leads. Trick 1 is all Spade: 3S takes JS, 5S, AS, KS (1+1+0+3+1 = 6
# points and the Pigugnìn) for seat 3, who leads AC to trick 2; seat 4 follows with 4C.
DECODE_HANDS5 = _deal(
    "5S 6S 7S HS 3C AD 2D 3D",
    "AS 2S JD HD KD AB 2B 3B",
    "KS 4B 5B 6B 7B JB HB KB",
    "3S AC 2C KC 4D 5D 6D 7D",
    "JS 4S 4C 5C 6C 7C JC HC",
)
DECODE_BUSCHE5 = [3, 0, 7, 1, 2]


@pytest.mark.parametrize("episode", ["game", "hand"])
def test_observation_and_decode_of_every_field_with_five_players(episode):
    env = pigugnin_v0.env(num_players=5, episode=episode)
    env.reset(seed=0, options={"dealer": 2, "hands": DECODE_HANDS5, "busche": DECODE_BUSCHE5})
    assert env.agent_selection == "player_3"
    _play(env, "3S", "JS", "5S", "AS", "KS", "AC", "4C")
    assert env.agent_selection == "player_0"
    # Seat 1 sees absolute seat a as relative (a - 1) % 5: 1->0, 2->1, 3->2, 4->3, 0->4.
    check_observation(env.observe("player_1"), {
        "num_players": 5,
        "hand": sorted(cards("2S JD HD KD AB 2B 3B")),
        "played": [cards("AS"), cards("KS"), sorted(cards("3S AC")), sorted(cards("JS 4C")), cards("5S")],
        "trick": [(2, card("AC")), (3, card("4C"))],
        "trick_leader": 2,
        "captured": [[], [], sorted(cards("3S JS 5S AS KS")), [], []],
        "tricks_won": [0, 0, 1, 0, 0],
        "points": [0, 0, 6, 0, 0],
        "pig_taker": 2,
        "busche": [0, 7, 1, 2, 3],
        "dealer": 1,
        "legal": [],  # not its turn
    })
    # Seat 0 is to act and must follow Coppe with its only one, 3C.
    check_observation(env.observe("player_0"), {
        "num_players": 5,
        "hand": sorted(cards("6S 7S HS 3C AD 2D 3D")),
        "played": [cards("5S"), cards("AS"), cards("KS"), sorted(cards("3S AC")), sorted(cards("JS 4C"))],
        "trick": [(3, card("AC")), (4, card("4C"))],
        "trick_leader": 3,
        "captured": [[], [], [], sorted(cards("3S JS 5S AS KS")), []],
        "tricks_won": [0, 0, 0, 1, 0],
        "points": [0, 0, 0, 6, 0],
        "pig_taker": 3,
        "busche": DECODE_BUSCHE5,
        "dealer": 2,
        "legal": cards("3C"),
    })


def test_observation_and_decode_of_every_field_at_the_end_of_a_four_player_hand():
    """The final observation of a hand episode: last-trick bonus in the points, busche paid."""
    env = pigugnin_v0.env(episode="hand")
    env.reset(seed=11, options={"dealer": 3, "hands": HAND4, "busche": [2, 0, 5, 9]})
    while not any(env.terminations.values()):
        env.step(int(np.flatnonzero(env.observe(env.agent_selection)["action_mask"])[0]))
    record = env.infos["player_0"]["result"]["hands"][0]
    # HAND4 under "lowest legal id" (see above): points [18, 5, 5, 7], tricks [6, 1, 1, 2], JS -> 3,
    # busche [3, 1, 1, 1]; the totals after it are [5, 1, 6, 10].
    assert record["points"] == [18, 5, 5, 7] and record["tricks"] == [6, 1, 1, 2]
    captured = [sorted(c for _, trick, w in record["trick_history"] if w == p for c in trick) for p in range(4)]
    winner_of_last = record["trick_history"][-1][2]
    check_observation(env.observe("player_2"), {
        "num_players": 4,
        "hand": [],
        "played": [sorted(cards(" ".join(HAND4[p]))) for p in (2, 3, 0, 1)],
        "trick": [],
        "trick_leader": (winner_of_last - 2) % 4,
        "captured": [captured[p] for p in (2, 3, 0, 1)],
        "tricks_won": [1, 2, 6, 1],
        "points": [5, 7, 18, 5],
        "pig_taker": 1,  # seat 3 took JS
        "busche": [6, 10, 5, 1],
        "dealer": 1,  # dealer 3 seen from seat 2
        "legal": [],
    })
