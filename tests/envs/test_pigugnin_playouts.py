"""Random playouts of Pigugnìn against the independent referee of ``referee_pigugnin``.

20,000+ complete hands per player count on the engine (whole games: every mask, turn, trick,
score, busche total, dealer and game outcome compared with the referee), a few hundred hands
through ``env()`` (observed masks, decoded observations and rewards), the incremental observer
against a full rebuild, and when the Pigugnìn's taker becomes public (the general no-leak
property is a contract test, ``test_contract.py``).
"""

from __future__ import annotations

import random
from collections import Counter

import numpy as np
import pytest

from envs import pigugnin_v0
from envs.pigugnin.game import PigugninGame
from envs.pigugnin.observation import LAYOUTS, PigugninObserver, decode
from tests.envs.referee_pigugnin import JS, Referee, game_result, hand_busche


def _flag_kwargs(game: PigugninGame) -> dict:
    f = game.flags
    return {
        "loss": f["loss_threshold"],
        "sole": f["sole_loss_threshold"],
        "multi": f["multi_loser_policy"],
        "boundary": f["winner_boundary_tie"],
        "cappotto_others": f["cappotto_others_outcome"],
    }


VARIANTS = [
    ({"num_players": 4}, 20_000),
    ({"num_players": 5}, 20_000),
    (
        {
            "num_players": 4,
            "pigugnin_first_trick_restriction": True,
            "tie_penalty_scope": "paying_scores_only",
            "top_scorer_tie_policy": "none_pay",
            "multi_loser_policy": "top_two",
            "cappotto_others_outcome": "standard",
        },
        2_000,
    ),
    (
        {
            "num_players": 5,
            "pigugnin_first_trick_restriction": True,
            "winner_boundary_tie": "win",
            "loss_threshold": 5,
            "sole_loss_threshold": 8,
            "first_hand_leader": "holder_7D",
        },
        2_000,
    ),
]


@pytest.mark.parametrize(
    "flags,min_hands",
    # the 20,000-hand runs are the slow tier; the smaller flag variants run in the fast one too
    [pytest.param(*v, marks=pytest.mark.slow) if v[1] >= 10_000 else v for v in VARIANTS],
    ids=[str(v[0]) for v in VARIANTS],
)
def test_random_games_match_the_referee(flags, min_hands):
    game = PigugninGame(**flags)
    n = game.num_players
    size = 40 // n
    rng = np.random.default_rng(2024 + n)
    rnd = random.Random(99 + n)
    f = game.flags
    outcome_kwargs = _flag_kwargs(game)
    hands_played = games = 0
    reasons: Counter = Counter()
    shapes: Counter = Counter()
    while hands_played < min_hands:
        state = game.new_state(rng, {})
        games += 1
        totals = [0] * n
        expected_dealer = None
        for hand_no in range(1, 200):
            deal = state.deal
            assert sorted(c for h in deal for c in h) == list(range(40))  # every card dealt once
            assert all(len(h) == size for h in deal)
            if expected_dealer is not None:
                assert state.dealer == expected_dealer  # the Pigugnìn taker deals
            leader = (state.dealer + 1) % n
            if hand_no == 1 and f["first_hand_leader"] == "holder_7D":
                leader = next(p for p in range(n) if 16 in deal[p])
            ref = Referee([set(h) for h in deal], leader, f)
            rewards = None
            while not ref.done:
                assert game.current_player(state) == ref.to_act
                legal = ref.legal()
                mask = game.legal_mask(state)
                assert mask == sum(1 << c for c in legal), (sorted(legal), mask)
                card = rnd.choice(sorted(legal))
                ref.step(card)
                rewards = game.apply(state, card)
                assert (rewards is not None) == ref.done
            hands_played += 1
            record = state.records[-1]
            assert sum(ref.points) == 35 and record["points"] == ref.points
            assert record["tricks"] == ref.tricks and record["pig_taker"] == ref.pig
            assert [w for _, _, w in record["trick_history"]] == [w for _, _, w in ref.log]
            assert sorted(c for _, cards, _ in record["trick_history"] for c in cards) == list(range(40))
            delta, cappotto = hand_busche(
                ref.points, ref.tricks, ref.pig, f["tie_penalty_scope"], f["top_scorer_tie_policy"]
            )
            assert record["busche_paid"] == delta == ref.scores() and record["cappotto"] == cappotto
            assert delta[ref.pig] >= 1  # the Pigugnìn busca in every hand
            totals = [t + d for t, d in zip(totals, delta, strict=True)]
            assert record["busche_total"] == totals
            maker = ref.tricks.index(size) if cappotto else None
            expected = game_result(totals, maker, **outcome_kwargs)
            table = game.outcome_reward
            if expected is None:
                assert not game.is_over(state)
                assert rewards == [-d for d in delta]
                expected_dealer = ref.pig
                continue
            assert game.is_over(state) and state.outcome == expected
            assert rewards == [table[o] - d for o, d in zip(expected, delta, strict=True)]
            reasons[state.reason] += 1
            shapes[(expected.count("win"), expected.count("draw"), expected.count("lose"))] += 1
            _check_outcome_shape(expected, totals, state.reason, f, n)
            break
        else:
            pytest.fail("a game did not end within 200 hands")
    assert hands_played >= min_hands and games > 100
    if flags == {"num_players": 4}:
        assert reasons["losers"] > 0.5 * games and reasons["sole_loser"] > 0
        assert shapes[(2, 0, 2)] > 0.5 * games
    if flags == {"num_players": 5}:
        assert shapes[(2, 1, 2)] > 0.3 * games


def _check_outcome_shape(outcome, totals, reason, f, n):
    """The counts the spec promises (§5.2) under the default boundary/cappotto policies."""
    wins, draws, losses = outcome.count("win"), outcome.count("draw"), outcome.count("lose")
    if reason == "cappotto":
        assert wins == 1
        return
    if outcome[0] == "annulled":
        assert len(set(outcome)) == 1
        return
    loss = f["loss_threshold"]
    if reason == "losers":
        assert losses >= 2 and all(totals[p] >= loss for p in range(n) if outcome[p] == "lose")
    else:
        assert reason == "sole_loser" and losses == 1 and max(totals) >= f["sole_loss_threshold"]
    if f["winner_boundary_tie"] == "draw":
        assert 1 <= wins <= 2 or (wins == 0 and draws > 0)
    assert wins + draws + losses == n
    winners = [totals[p] for p in range(n) if outcome[p] == "win"]
    others = [totals[p] for p in range(n) if outcome[p] == "draw"]
    assert not others or not winners or max(winners) <= min(others)  # winners have the fewest busche


# -- through env(): masks, decoded observations, rewards ---------------------------------------


@pytest.mark.parametrize("n", [4, 5])
def test_env_playouts_observations_masks_and_rewards(n):
    env = pigugnin_v0.env(num_players=n, episode="hand")
    rnd = random.Random(n)
    hands = 0
    for episode in range(150):
        env.reset(seed=episode)
        state = env.unwrapped.state_
        ref = Referee([set(h) for h in state.deal], (state.dealer + 1) % n)
        returns = dict.fromkeys(env.possible_agents, 0)
        while env.agents:
            agent = env.agent_selection
            obs, reward, term, trunc, info = env.last()
            returns[agent] += reward
            if term or trunc:
                env.step(None)
                continue
            seat = int(agent.split("_")[1])
            assert seat == ref.to_act
            legal = ref.legal()
            assert np.flatnonzero(obs["action_mask"]).tolist() == sorted(legal)
            view = decode(obs)
            assert view["hand"] == sorted(ref.hands[seat])
            assert view["legal"] == sorted(legal)
            rel = [(seat + r) % n for r in range(n)]
            assert view["tricks_won"] == [ref.tricks[p] for p in rel]
            assert view["points"] == [ref.points[p] for p in rel]
            assert [c for _, c in view["trick"]] == ref.trick
            assert view["trick_leader"] == (ref.leader - seat) % n
            assert view["pig_taker"] == (None if ref.pig < 0 else (ref.pig - seat) % n)
            action = rnd.choice(sorted(legal))
            env.step(action)
            ref.step(action)
        hands += 1
        delta = ref.scores()
        assert [returns[f"player_{p}"] for p in range(n)] == [-d for d in delta]
    assert hands == 150


# -- the observer ------------------------------------------------------------------------------


@pytest.mark.parametrize("flags", [{"num_players": 4}, {"num_players": 5, "first_hand_leader": "holder_7D"}])
def test_incremental_observer_equals_full_rebuild_and_decode_inverts_it(flags):
    env = pigugnin_v0.raw_env(**flags)
    n = env.game.num_players
    rnd = random.Random(7)
    fresh = PigugninObserver(env.game)
    checked = 0
    for episode in range(25):  # whole games: several hands each, so new deals are covered
        env.reset(seed=episode)
        while not env.episode_over:
            state = env.state_
            fresh.reset(state)
            assert np.array_equal(env.observer.buf, fresh.buf)
            seat = rnd.randrange(n)
            _assert_decode_matches_state(decode(env.observe(f"player_{seat}")), state, seat, n)
            env.step(rnd.choice(env.legal_actions()))
            checked += 1
        fresh.reset(env.state_)
        assert np.array_equal(env.observer.buf, fresh.buf)  # the final observation too
    assert checked > 25 * 40


def _assert_decode_matches_state(view, state, seat, n):
    rel = [(seat + r) % n for r in range(n)]
    bits = lambda m: [c for c in range(40) if m >> c & 1]  # noqa: E731
    assert view["num_players"] == n
    assert view["hand"] == bits(state.hands[seat])
    assert view["played"] == [bits(state.played[p]) for p in rel]
    assert view["captured"] == [bits(state.captured[p]) for p in rel]
    assert view["trick"] == [((state.leader + i - seat) % n, c) for i, c in enumerate(state.trick)]
    assert view["trick_leader"] == (state.leader - seat) % n
    assert view["tricks_won"] == [state.tricks_won[p] for p in rel]
    assert view["points"] == [state.points[p] for p in rel]
    assert view["pig_taker"] == (None if state.pig_taker < 0 else (state.pig_taker - seat) % n)
    assert view["busche"] == [state.busche[p] for p in rel]
    assert view["dealer"] == (state.dealer - seat) % n


def test_decode_rejects_a_wrong_shape_and_the_layouts_differ_by_player_count():
    assert LAYOUTS[4].obs_size == 546 and LAYOUTS[5].obs_size == 672
    with pytest.raises(ValueError, match=r"^pigugnin\.decode: expected an observation of shape \(546,\) for 4 players, "
                       r"\(672,\) for 5 players; got \(100,\)$"):
        decode(np.zeros(100, dtype=np.float32))


def test_observation_bounds_hold_at_extreme_busche():
    env = pigugnin_v0.env(episode="hand")
    space = env.observation_space("player_0")["observation"]
    for seed in range(30):
        env.reset(seed=seed, options={"busche": [19, 9, 9, 9]})
        while env.agents:
            obs, _, term, trunc, _ = env.last()
            assert space.contains(obs["observation"])
            env.step(None if term or trunc else int(np.flatnonzero(obs["action_mask"])[-1]))


# -- the Pigugnìn's taker (the no-leak property in general: test_contract.py) -----------------------


def test_pigugnin_holder_is_public_only_once_captured():
    env = pigugnin_v0.raw_env()
    env.reset(seed=3)
    while JS not in [c for _, cards, _ in env.state_.trick_log for c in cards]:
        for agent in env.agents:
            assert decode(env.observe(agent))["pig_taker"] is None
        env.step(random.Random(0).choice(env.legal_actions()))
    taker = env.state_.pig_taker
    for p in range(4):
        assert decode(env.observe(f"player_{p}"))["pig_taker"] == (taker - p) % 4
