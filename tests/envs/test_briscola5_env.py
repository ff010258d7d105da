"""Briscola in cinque through the PettingZoo API: flags, explicit deals, rendering, results.

The checks every game shares (PettingZoo's api/seed tests, determinism, no leak, bad flags,
malformed deals, illegal actions) are in ``test_contract.py``, with this game's cases in
``cases.py``.
"""

from __future__ import annotations

import numpy as np
import pytest

from envs import briscola5_v0
from envs.core.errors import IllegalActionError
from tests.envs.cases import BRISCOLA5_NON_DEFAULT as NON_DEFAULT  # noqa: F401 (test_copy_pickle imports it)


def test_random_first_dealer_covers_every_seat():
    env = briscola5_v0.raw_env()
    dealers = set()
    for seed in range(60):
        env.reset(seed=seed)
        dealers.add(env.state_.dealer)
    assert dealers == set(range(5))


# -- every flag changes behaviour as the spec says -----------------------------------------------


def _start(dealer=0, **flags):
    env = briscola5_v0.raw_env(**flags)
    env.reset(seed=0, options={"dealer": dealer})
    return env


def test_flag_first_dealer_fixes_the_dealer():
    env = briscola5_v0.raw_env(first_dealer=3)
    for seed in range(5):
        env.reset(seed=seed)
        assert env.state_.dealer == 3


def test_flag_first_lead_caller():
    for flags, leader in (({}, 1), ({"first_lead": "caller"}, 3)):
        env = _start(forfeit_enabled=False, **flags)
        for action in (80, 80, 81, 80, 80):  # seat 3 bids 61
            env.step(action)
        env.step(40 + 5)
        assert env.agent_selection == f"player_{leader}"


def test_flags_min_bid_max_bid_min_raise_shape_the_auction():
    env = _start(forfeit_enabled=False, min_bid=70, max_bid=100, min_raise=5)
    assert env.legal_actions() == [80] + [81 + v - 61 for v in range(70, 101)]
    env.step(81 + 72 - 61)
    assert env.legal_actions() == [80] + [81 + v - 61 for v in range(77, 101)]


def test_flag_all_pass_force_dealer():
    env = _start(forfeit_enabled=False, all_pass_policy="force_dealer")
    for _ in range(5):
        env.step(80)
    assert (env.state_.caller, env.state_.contract, env.agent_selection) == (0, 61, "player_0")
    assert env.legal_actions() == list(range(40, 80))


def test_flag_void_hands_count_false_truncates_after_100_void_hands():
    env = briscola5_v0.env(void_hands_count=False, forfeit_enabled=False, num_hands=2)
    env.reset(seed=0)
    steps = 0
    for _agent in env.agent_iter():
        _, _, term, trunc, info = env.last()
        if term or trunc:
            assert trunc and not term and info["result"]["truncated"] is True
            env.step(None)
            continue
        env.step(80)
        steps += 1
    assert steps == 500  # 100 all-pass hands of five passes each


def test_flag_void_hands_count_true_counts_void_hands():
    env = _start(forfeit_enabled=False, num_hands=2)
    for _ in range(10):
        env.step(80)
    assert env.episode_over and env.state_.hands_played == 2


def test_flag_forfeit_enabled_false_skips_the_check():
    zero = [1, 3, 14, 15, 26, 21, 33, 35]  # 2C 4C 5D 6D 7S 2S 4B 6B
    rest = [c for c in range(40) if c not in zero]
    hands = [rest[0:8], rest[8:16], zero, rest[16:24], rest[24:32]]
    for enabled, first in ((True, "player_2"), (False, "player_1")):
        env = briscola5_v0.raw_env(forfeit_enabled=enabled)
        env.reset(seed=0, options={"dealer": 0, "hands": hands})
        assert env.agent_selection == first


def test_flag_allow_call_own_card_false_masks_own_cards():
    env = _start(forfeit_enabled=False, allow_call_own_card=False)
    for action in (81, 80, 80, 80, 80):
        env.step(action)
    own = env.state_.hands[1]
    assert env.legal_actions() == [40 + c for c in range(40) if not own >> c & 1]


def _play_cappotto_without_every_trick(cappotto_definition: str) -> list[int]:
    """Seat 0 calls 2C (seat 1) at 75; the team takes all 120 points but seat 2 wins the
    zero-point last trick with 5S, so it is a cappotto by points and not by tricks."""
    hands = [
        ["AC", "3C", "KC", "HC", "JC", "7C", "6C", "4S"],
        ["5C", "2C", "AD", "3D", "KD", "HD", "JD", "4D"],
        ["AS", "3S", "JS", "HS", "KS", "5S", "2S", "6S"],
        ["AB", "3B", "JB", "HB", "KB", "2B", "4B", "4C"],
        ["6B", "7B", "5B", "2D", "5D", "6D", "7D", "7S"],
    ]
    env = briscola5_v0.raw_env(forfeit_enabled=False, cappotto_definition=cappotto_definition)
    env.reset(seed=0, options={"dealer": 4, "hands": hands})
    for action in (81 + 75 - 61, 80, 80, 80, 80, 40 + 1):  # bid 75, passes, call 2C
        env.step(action)
    points = {"A": 11, "3": 10, "K": 4, "H": 3, "J": 2}
    from envs.core.cards import ITALIAN

    def keep_for_last(seat, card):
        return (seat == 0 and card == ITALIAN.parse("4S")) or (seat == 1 and card == ITALIAN.parse("4D")) or (
            seat == 2 and card == ITALIAN.parse("5S")
        )

    while not env.episode_over:
        seat = env.state_.to_act
        legal = env.legal_actions()
        # Seat 0 plays its trumps high to low; everyone dumps points (and trumps) early.
        env.step(
            max(
                legal,
                key=lambda c: (
                    not keep_for_last(seat, c),
                    c // 10 == 0 if seat == 0 else points.get(ITALIAN.codes[c][0], 0),
                    c // 10 == 0,
                    -c,
                ),
            )
        )
    record = env.infos["player_0"]["result"]["hands"][0]
    assert record["caller_team_points"] == 120 and record["points"][2] == 0
    return record["credits"]


def test_flag_cappotto_definition_points_vs_tricks():
    assert _play_cappotto_without_every_trick("points") == [8, 4, -4, -4, -4]
    assert _play_cappotto_without_every_trick("tricks") == [4, 2, -2, -2, -2]


def test_flag_bid_multiplier_on_loss_multiplies_lost_doubles_and_triples():
    import random

    from envs.briscola5.game import Briscola5Game

    plain, harsh = Briscola5Game(), Briscola5Game(bid_multiplier_on_loss=True)
    seen = set()
    for seed in range(600):
        credits = []
        for game in (plain, harsh):
            state, rnd = game.new_state(np.random.default_rng(seed), {}), random.Random(seed)
            while not game.is_over(state):
                legal = game.legal_actions(state)
                if 80 in legal:  # auction: raise by up to 12 or pass, so contracts spread over 61..100
                    raise_by = min(int(rnd.random() * 12), len(legal) - 2)
                    action = legal[1 + raise_by] if len(legal) > 1 and rnd.random() < 0.45 else 80
                else:
                    action = legal[int(rnd.random() * len(legal))]
                out = game.apply(state, action)
            credits.append((state.records[-1], out))
        (record, base), (_, harsh_credits) = credits
        if record["void"] or record["caller_team_won"] or record["bid"] <= 70:
            assert base == harsh_credits
            continue
        mult = 2 if record["bid"] <= 80 else 3
        assert harsh_credits == [mult * c for c in base]
        seen.add(mult)
    assert seen == {2, 3}


# -- explicit deals and illegal plays (malformed ones: test_contract.py) ---------------------------


def test_card_codes_and_ids_both_work_in_deals():
    codes = [[f"{r}{s}" for r in "A234567J"] for s in "CDSB"] + [[f"{r}{s}" for s in "CDSB" for r in "HK"]]
    env = briscola5_v0.raw_env()
    env.reset(seed=0, options={"dealer": 2, "hands": codes})
    assert env.state_.dealer == 2 and env.state_.dealt[4] == sum(1 << c for c in (8, 9, 18, 19, 28, 29, 38, 39))


def test_playing_a_card_not_held_is_illegal():
    env = briscola5_v0.env(forfeit_enabled=False)
    env.reset(seed=3, options={"dealer": 0})
    for action in (81, 80, 80, 80, 80, 45):
        env.step(action)
    seat = env.unwrapped.agent_name_mapping[env.agent_selection]
    not_held = next(c for c in range(40) if not env.unwrapped.state_.hands[seat] >> c & 1)
    with pytest.raises(IllegalActionError, match=f"action {not_held} \\(PLAY"):
        env.step(not_held)
    with pytest.raises(IllegalActionError, match="BID"):
        env.step(90)  # an auction action in the play phase


def test_step_before_reset_and_after_the_end():
    env = briscola5_v0.env()
    with pytest.raises(AssertionError, match=r"^reset\(\) needs to be called before step\.$"):
        env.step(0)  # PettingZoo's OrderEnforcingWrapper
    env.reset(seed=0, options={"dealer": 0})
    env.unwrapped  # noqa: B018
    for _agent in env.agent_iter():
        _, _, term, trunc, _ = env.last()
        if term or trunc:
            with pytest.raises(ValueError, match="when an agent is dead, the only valid action is None"):
                env.step(0)  # a dead agent's only valid action is None
            env.step(None)
        else:
            env.step(80 if 80 in env.unwrapped.legal_actions() else env.unwrapped.legal_actions()[0])
    assert env.agents == []


def test_render_ansi_shows_contract_trick_and_only_the_viewers_hand():
    env = briscola5_v0.env(render_mode="ansi", forfeit_enabled=False)
    env.reset(seed=0, options={"dealer": 0})
    for action in (81, 80, 80, 80, 80, 40):
        env.step(action)
    env.step(env.unwrapped.legal_actions()[0])
    text = env.render()
    state = env.unwrapped.state_
    assert "contract: player_1 bids 61, calls AC (trump Coppe)" in text
    assert "trick 1/8 led by player_1" in text
    seat = state.to_act
    from envs.core.cards import ITALIAN

    assert f"player_{seat} hand: {ITALIAN.format_mask(state.hands[seat])}" in text
    other = (seat + 1) % 5
    assert ITALIAN.format_mask(state.hands[other]) not in text


def test_result_info_has_a_record_per_hand_and_totals():
    env = briscola5_v0.env(num_hands=5)
    env.reset(seed=4)
    rng = np.random.default_rng(0)
    for _agent in env.agent_iter():
        obs, _, term, trunc, info = env.last()
        if term or trunc:
            result = info["result"]
            env.step(None)
            continue
        env.step(int(rng.choice(np.flatnonzero(obs["action_mask"]))))
    assert len(result["hands"]) == 5 and result["hands_played"] == 5
    assert [r["dealer"] for r in result["hands"]] == [(result["hands"][0]["dealer"] + i) % 5 for i in range(5)]
    assert result["totals"] == [sum(r["credits"][p] for r in result["hands"]) for p in range(5)]
    keys = {"dealer", "caller", "bid", "called_card", "partner", "solo", "caller_team_points", "credits"}
    assert all(keys <= set(r) for r in result["hands"])
