"""Pigugnìn through the PettingZoo API: spaces, rewards and results, flags, explicit deals, rendering.

The checks every game shares (PettingZoo's api/seed tests, determinism, no leak, bad flags,
malformed deals, illegal actions) are in ``test_contract.py``, with this game's cases in
``cases.py``.
"""

from __future__ import annotations

import numpy as np
import pytest

from envs import pigugnin_v0
from envs.core.errors import IllegalActionError
from envs.pigugnin.game import PigugninGame
from envs.pigugnin.observation import decode
from tests.envs.cases import PIGUGNIN_NON_DEFAULT as NON_DEFAULT  # noqa: F401 (test_copy_pickle imports it)
from tests.envs.referee_pigugnin import JS, SEVEN_D, card, cards


def _run(env, seed=None, options=None, policy=None, rng=None):
    """Play an episode; returns (per-agent return, the final info result, number of steps)."""
    env.reset(seed=seed, options=options)
    rng = rng or np.random.default_rng(0)
    returns = dict.fromkeys(env.possible_agents, 0)
    result, steps = None, 0
    while env.agents:
        agent = env.agent_selection
        obs, reward, term, trunc, info = env.last()
        returns[agent] += reward
        if term or trunc:
            result = info["result"]
            env.step(None)
            continue
        legal = np.flatnonzero(obs["action_mask"])
        env.step(int(policy(legal) if policy else legal[int(rng.integers(len(legal)))]))
        steps += 1
    return returns, result, steps


# -- spaces, observation shape ----------------------------------------------------------------


@pytest.mark.parametrize("n,size", [(4, 546), (5, 672)])
def test_spaces(n, size):
    env = pigugnin_v0.env(num_players=n)
    env.reset(seed=0)
    assert env.possible_agents == [f"player_{i}" for i in range(n)]
    space = env.observation_space("player_0")
    assert space["observation"].shape == (size,) and space["action_mask"].shape == (40,)
    assert env.action_space("player_0").n == 40
    obs = env.observe("player_0")
    assert obs["observation"].dtype == np.float32 and obs["action_mask"].dtype == np.int8
    hand_size = 40 // n
    assert all(len(decode(env.observe(a))["hand"]) == hand_size for a in env.agents)
    assert decode(obs)["num_players"] == n


def test_masks_of_agents_not_to_act_are_zero():
    env = pigugnin_v0.env(num_players=5)
    env.reset(seed=1)
    for _ in range(7):
        for agent in env.agents:
            mask = env.observe(agent)["action_mask"]
            assert mask.any() == (agent == env.agent_selection)
        env.step(int(np.flatnonzero(env.observe(env.agent_selection)["action_mask"])[0]))


# -- rewards and the result record ------------------------------------------------------------


@pytest.mark.parametrize("n", [4, 5])
def test_returns_are_minus_busche_plus_outcome_reward(n):
    table = {"win": 3, "draw": 1, "lose": -2}
    for seed in range(8):
        returns, result, steps = _run(pigugnin_v0.env(num_players=n, outcome_reward=table), seed=seed)
        paid = [sum(h["busche_paid"][p] for h in result["hands"]) for p in range(n)]
        assert result["busche"] == paid  # started from 0
        extra = {**table, "annulled": table["draw"]}
        assert [returns[f"player_{p}"] for p in range(n)] == [
            extra[o] - paid[p] for p, o in enumerate(result["outcome"])
        ]
        assert steps == len(result["hands"]) * 40
        assert result["game_over"] and result["episode"] == "game"


def test_default_outcome_reward_is_zero_so_the_return_is_minus_the_busche():
    returns, result, _ = _run(pigugnin_v0.env(), seed=3)
    assert [returns[f"player_{p}"] for p in range(4)] == [-b for b in result["busche"]]


def test_result_records_every_hand_and_the_dealer_chain():
    _, result, _ = _run(pigugnin_v0.env(), seed=21)
    hands = result["hands"]
    assert len(hands) >= 2
    totals = [0] * 4
    for i, hand in enumerate(hands):
        assert hand["hand_no"] == i + 1
        assert sum(hand["points"]) == 35 and sum(hand["tricks"]) == 10
        assert "tricks_won" not in hand and "busche_delta" not in hand  # result_version 2: one name each
        assert sorted(c for h in hand["deal"] for c in h) == list(range(40))
        assert hand["first_leader"] == (hand["dealer"] + 1) % 4
        assert hand["trick_history"][0][0] == hand["first_leader"] and len(hand["trick_history"]) == 10
        assert JS in next(cards for _, cards, w in hand["trick_history"] if w == hand["pig_taker"] and JS in cards)
        totals = [t + d for t, d in zip(totals, hand["busche_paid"], strict=True)]
        assert hand["busche_total"] == totals
        if i:
            assert hand["dealer"] == hands[i - 1]["pig_taker"]  # the Pigugnìn taker deals next
    assert result["busche"] == totals
    assert sorted(result["winners"] + result["losers"]) == sorted(
        p for p, o in enumerate(result["outcome"]) if o in ("win", "lose")
    )


# -- hand episodes ----------------------------------------------------------------------------


def test_hand_episode_is_one_hand_and_reports_no_outcome_when_the_game_would_go_on():
    env = pigugnin_v0.env(episode="hand", outcome_reward={"win": 5, "draw": 5, "lose": 5})
    returns, result, steps = _run(env, seed=4)
    assert steps == 40 and len(result["hands"]) == 1
    assert result["outcome"] is None and not result["game_over"] and result["reason"] is None
    assert [returns[f"player_{p}"] for p in range(4)] == [-d for d in result["hands"][0]["busche_paid"]]


def test_hand_episode_reports_the_outcome_and_pays_it_when_the_game_would_end():
    env = pigugnin_v0.env(episode="hand", outcome_reward={"win": 1, "lose": -1})
    ended = 0
    for seed in range(30):
        returns, result, _ = _run(env, seed=seed, options={"busche": [9, 9, 0, 0]})
        delta = result["hands"][0]["busche_paid"]
        if result["game_over"]:
            ended += 1
            value = {"win": 1, "draw": 0, "lose": -1, "annulled": 0}
            assert [returns[f"player_{p}"] for p in range(4)] == [
                value[o] - d for o, d in zip(result["outcome"], delta, strict=True)
            ]
            assert result["busche"][0] >= 10 or result["busche"][1] >= 10
        else:
            assert [returns[f"player_{p}"] for p in range(4)] == [-d for d in delta]
    assert 0 < ended < 30


# -- every flag changes behaviour as the spec says --------------------------------------------


def test_flag_num_players_5_deals_8_cards():
    env = pigugnin_v0.raw_env(num_players=5)
    env.reset(seed=0)
    assert [h.bit_count() for h in env.state_.hands] == [8] * 5


def test_random_first_dealer_covers_every_seat_and_the_flag_fixes_it():
    env = pigugnin_v0.raw_env()
    assert {env.reset(seed=s) or env.state_.dealer for s in range(40)} == {0, 1, 2, 3}
    env = pigugnin_v0.raw_env(first_dealer=2)
    for s in range(5):
        env.reset(seed=s)
        assert env.state_.dealer == 2 and env.agent_selection == "player_3"
    env.reset(seed=0, options={"dealer": 0})  # the option overrides the flag
    assert env.agent_selection == "player_1"


def test_flag_first_hand_leader_holder_7d():
    env = pigugnin_v0.raw_env(first_hand_leader="holder_7D")
    for seed in range(10):
        env.reset(seed=seed)
        state = env.state_
        holder = next(p for p in range(4) if state.hands[p] >> SEVEN_D & 1)
        assert env.agent_selection == f"player_{holder}"
        assert state.dealer == (holder - 1) % 4
    # only hand 1: later hands are led by the right of the Pigugnìn taker
    _, result, _ = _run(pigugnin_v0.env(first_hand_leader="holder_7D"), seed=2)
    for i, hand in enumerate(result["hands"]):
        holder = next(p for p in range(4) if SEVEN_D in hand["deal"][p])
        assert (hand["first_leader"] == holder) if i == 0 else hand["first_leader"] == (hand["dealer"] + 1) % 4


def test_flag_pigugnin_first_trick_restriction():
    deal = [
        "JS 2S AD 3D 4D 5D 6D 7D JD HD",  # seat 0 leads (dealer 3)
        "AS 3S 4S 5S 6S 7S HS KS KD 2D",
        "AC 2C 3C 4C 5C 6C 7C JC HC KC",
        "AB 2B 3B 4B 5B 6B 7B JB HB KB",
    ]
    hands = [h.split() for h in deal]
    plain = pigugnin_v0.env()
    plain.reset(seed=0, options={"dealer": 3, "hands": hands})
    assert JS in np.flatnonzero(plain.observe("player_0")["action_mask"])
    env = pigugnin_v0.env(pigugnin_first_trick_restriction=True)
    env.reset(seed=0, options={"dealer": 3, "hands": hands})
    legal = np.flatnonzero(env.observe("player_0")["action_mask"]).tolist()
    assert JS not in legal and legal == sorted(set(cards(deal[0])) - {JS})
    # a follower holding JS and other Spades may not play JS to a Spade lead
    hands2 = [h.split() for h in ["AS 2S AD 3D 4D 5D 6D 7D JD HD", "JS 3S 4S 5S 6S 7S HS KS KD 2D", deal[2], deal[3]]]
    env.reset(seed=0, options={"dealer": 3, "hands": hands2})
    env.step(card("2S"))
    legal = np.flatnonzero(env.observe("player_1")["action_mask"]).tolist()
    assert JS not in legal and set(legal) == set(cards("3S 4S 5S 6S 7S HS KS"))
    # Spade led and JS is the follower's only Spade: allowed (and forced)
    hands3 = [h.split() for h in ["AS 2S 3S 4S 5S 6S 7S HS KS 2D", "JS AD 3D 4D 5D 6D 7D JD HD KD", deal[2], deal[3]]]
    env.reset(seed=0, options={"dealer": 3, "hands": hands3})
    env.step(card("2S"))
    assert np.flatnonzero(env.observe("player_1")["action_mask"]).tolist() == [JS]
    # void in the led suit: any card but JS
    env.reset(seed=0, options={"dealer": 1, "hands": hands3})
    env.step(card("AC"))
    env.step(card("AB"))
    env.step(card("2D"))
    legal = np.flatnonzero(env.observe("player_1")["action_mask"]).tolist()
    assert legal == sorted(cards("AD 3D 4D 5D 6D 7D JD HD KD"))
    # from the second trick on JS is free again
    env.reset(seed=0, options={"dealer": 3, "hands": hands3})
    for code in ("2D", "3D", "AC", "AB"):  # 3D beats 2D: seat 1 leads trick 2
        env.step(card(code))
    assert env.agent_selection == "player_1"
    assert JS in np.flatnonzero(env.observe("player_1")["action_mask"])


def test_flags_reach_hand_scoring_through_the_env():
    """tie_penalty_scope and top_scorer_tie_policy change the busche of the same hand."""
    found = 0
    for seed in range(200):
        busche = {}
        for flags in ({}, {"tie_penalty_scope": "paying_scores_only"}, {"top_scorer_tie_policy": "none_pay"}):
            _, result, _ = _run(pigugnin_v0.env(episode="hand", **flags), seed=seed, rng=np.random.default_rng(seed))
            busche[str(flags)] = result["hands"][0]
        base = busche["{}"]
        pts, tricks = base["points"], base["tricks"]
        if min(tricks) == 0:
            continue
        low_tie = any(pts.count(v) >= 2 for v in pts if v < 12)
        shared_top = max(pts) < 12 and pts.count(max(pts)) >= 2
        scope = busche["{'tie_penalty_scope': 'paying_scores_only'}"]["busche_paid"]
        top = busche["{'top_scorer_tie_policy': 'none_pay'}"]["busche_paid"]
        assert (scope != base["busche_paid"]) == low_tie
        assert (top != base["busche_paid"]) == shared_top
        found += low_tie
    assert found > 10


def test_flags_thresholds_and_policies_reach_the_game_end():
    # loss_threshold=1: the game ends as soon as two players have paid anything
    _, result, _ = _run(pigugnin_v0.env(loss_threshold=1, sole_loss_threshold=1), seed=0)
    assert len(result["hands"]) == 1
    # a 5-player game with low thresholds and top_two: never more than two losers (unless tied)
    for seed in range(10):
        _, result, _ = _run(pigugnin_v0.env(num_players=5, loss_threshold=3, multi_loser_policy="top_two"), seed=seed)
        if result["reason"] == "losers":
            totals = result["busche"]
            second = sorted(totals, reverse=True)[1]
            assert sorted(result["losers"]) == sorted(p for p in range(5) if totals[p] >= max(3, second))


# -- explicit deals and illegal plays (malformed ones: test_contract.py) ---------------------------


def test_outcome_reward_is_copied():
    table = {"win": 1, "lose": -1}
    env = pigugnin_v0.raw_env(outcome_reward=table)
    table["win"] = 100
    assert env.game.outcome_reward == {"win": 1, "draw": 0, "lose": -1, "annulled": 0}
    assert PigugninGame().flags["outcome_reward"] == {"win": 0, "draw": 0, "lose": 0}
    # NumPy numbers are accepted and stored as plain Python numbers
    env = pigugnin_v0.raw_env(outcome_reward={"win": np.int64(2), "lose": np.float32(-1.5), "annulled": 0.5})
    assert env.game.outcome_reward == {"win": 2, "draw": 0, "lose": -1.5, "annulled": 0.5}
    assert type(env.game.outcome_reward["win"]) is int and type(env.game.outcome_reward["lose"]) is float


FULL = [[f"{r}{s}" for r in "A234567JHK"] for s in "CDSB"]


def _run_on(env):
    while env.agents:
        obs, _, term, trunc, _ = env.last()
        env.step(None if term or trunc else int(np.flatnonzero(obs["action_mask"])[0]))


def test_valid_explicit_options_with_codes_ids_and_busche():
    hands = [FULL[0], [10 + r for r in range(10)], [c.lower() for c in FULL[2]], FULL[3]]
    env = pigugnin_v0.env(num_players=4)
    env.reset(seed=1, options={"dealer": 1, "hands": hands, "busche": np.array([3, 12, 0, 9])})
    assert env.agent_selection == "player_2"
    view = decode(env.observe("player_1"))
    assert view["hand"] == list(range(10, 20))
    assert view["busche"] == [12, 0, 9, 3] and view["dealer"] == 0


def test_playing_a_card_not_held_or_not_following_suit_is_illegal():
    env = pigugnin_v0.env()
    hands = [
        "AC 2C 3C 4C 5C 6C 7C JC HC AD",
        "KC 2D 3D 4D 5D 6D 7D JD HD KD",
        "AS 2S 3S 4S 5S 6S 7S JS HS KS",
        "AB 2B 3B 4B 5B 6B 7B JB HB KB",
    ]
    env.reset(seed=0, options={"dealer": 3, "hands": [h.split() for h in hands]})
    env.step(card("AC"))
    for bad in ("2C", "2D"):  # not held; held but not following Coppe
        with pytest.raises(IllegalActionError, match=f"action {card(bad)} \\({bad}\\) is not legal now") as err:
            env.step(card(bad))
        assert "legal actions: 9 (KC)" in str(err.value)
    env.step(card("KC"))
    assert env.agent_selection == "player_2"


def test_step_after_the_end_and_before_reset():
    env = pigugnin_v0.env(episode="hand")
    with pytest.raises(AssertionError, match=r"^reset\(\) needs to be called before step\.$"):
        env.step(0)  # PettingZoo's OrderEnforcingWrapper
    _run(env, seed=0)
    assert env.agents == []
    env.reset(seed=1)  # a finished env starts again
    assert len(env.agents) == 4


# -- rendering ----------------------------------------------------------------------------------


def test_render_ansi_shows_totals_trick_and_only_the_viewers_hand():
    env = pigugnin_v0.env(render_mode="ansi")
    env.reset(seed=0, options={"dealer": 3, "hands": FULL, "busche": [1, 2, 3, 4]})
    env.step(card("5C"))
    text = env.render()
    assert "hand 1, dealer player_3" in text and "player_1 to play" in text
    assert "trick: player_0:5C" in text
    assert "player_1 hand: AD 2D 3D 4D 5D 6D 7D JD HD KD" in text
    assert "AC" not in text  # player_0's hand is not shown to player_1
    quiet = pigugnin_v0.env()
    quiet.reset(seed=0)
    assert quiet.render() is None
    _run_on(env)
    assert "game over" in env.render() or "hand over" in env.render()
