"""Picchetto through the PettingZoo API: spaces, the deal, flags, rewards and results, exchange
and follow legality, explicit deals, rendering and documentation.

The checks every game shares (PettingZoo's api/seed tests, determinism, no leak, bad flags,
malformed deals, illegal actions) are in ``test_contract.py``, with this game's cases in
``cases.py``.
"""

from __future__ import annotations

import random

import numpy as np
import pytest

from envs import picchetto_v0
from envs.core.cards import FRENCH, iter_bits
from envs.core.errors import ConfigError, DealError, IllegalActionError
from envs.core.flags import flags_table
from envs.picchetto import env as env_module
from envs.picchetto.game import FLAGS, TRICK_LEAD
from envs.picchetto.observation import LAYOUT, decode
from tests.envs.cases import PICCHETTO_GOOD_OPTIONS
from tests.envs.cases import PICCHETTO_NON_DEFAULT as NON_DEFAULT  # noqa: F401 (test_copy_pickle imports it)
from tests.envs.referee_picchetto import card, cards, exchange_deal


def test_spaces_and_agents():
    env = picchetto_v0.env()
    env.reset(seed=0)
    assert env.possible_agents == ["player_0", "player_1"]
    assert env.action_space("player_0").n == 65
    space = env.observation_space("player_0")
    assert space["observation"].shape == (LAYOUT.obs_size,) and space["action_mask"].shape == (65,)
    obs = env.observe(env.agent_selection)
    assert space.contains(obs)
    assert env.unwrapped.metadata["name"] == "picchetto_v0"


def test_deal_order_follows_p3():
    """Shuffled positions 0..23 go alternately to the elder and the dealer, 24..31 to the talon."""
    env = picchetto_v0.raw_env(first_dealer=1)
    env.reset(seed=4)
    s = env.state_
    perm = np.random.default_rng(4).permutation(32).tolist()
    assert s.dealt[0] == sum(1 << x for x in perm[0:24:2])  # the elder (seat 0)
    assert s.dealt[1] == sum(1 << x for x in perm[1:24:2])
    assert s.talon == perm[24:]


# -- every flag changes behaviour as the spec says -------------------------------------------------


def test_flag_first_dealer():
    dealers = set()
    env = picchetto_v0.raw_env()
    for seed in range(20):
        env.reset(seed=seed)
        dealers.add(env.state_.dealer)
        assert env.agent_selection == f"player_{1 - env.state_.dealer}"  # the elder acts first
    assert dealers == {0, 1}
    for d in (0, 1):
        env = picchetto_v0.raw_env(first_dealer=d)
        for seed in range(4):
            env.reset(seed=seed)
            assert env.state_.dealer == d
    env.reset(seed=0, options={"dealer": 0})  # the option overrides the flag
    assert env.state_.dealer == 0


def _to_tricks(env) -> None:
    """Elder and dealer each discard their lowest card and end the exchange."""
    for _ in range(2):
        legal = env.legal_actions()
        env.step(legal[0])
        env.step(64)


def test_flag_trick_scoring_classic_pays_the_lead():
    for scoring, lead_reward in (("seed", 0), ("classic", 1)):
        env = picchetto_v0.raw_env(trick_scoring=scoring, first_dealer=1)
        env.reset(seed=1)
        _to_tricks(env)
        s = env.state_
        before = len(s.events)
        env.step(env.legal_actions()[0])  # the elder leads
        assert s.events[before:before + 1] == ([("lead", 0, 1)] if lead_reward else [])
        assert env.rewards["player_0"] >= lead_reward and env.rewards["player_1"] == -env.rewards["player_0"]


def test_flag_dealer_min_exchange():
    for minimum in (1, 0):
        env = picchetto_v0.raw_env(dealer_min_exchange=minimum, first_dealer=1)
        env.reset(seed=2)
        env.step(env.legal_actions()[0])
        env.step(64)
        assert (64 in env.legal_actions()) == (minimum == 0)
        if minimum == 0:
            env.step(64)  # the dealer keeps his cards
            assert env.state_.ndisc[1] == 0 and env.state_.drawn[1] == 0 and env.state_.phase == TRICK_LEAD
            assert env.state_.leftover == sum(1 << x for x in env.state_.talon[1:])


def test_flag_declarations_automatic_only_true():
    picchetto_v0.env(declarations_automatic=True)
    with pytest.raises(ConfigError, match="declarations_automatic.*not specified"):
        picchetto_v0.env(declarations_automatic=False)


def test_flags_game_and_bella_targets():
    env = picchetto_v0.raw_env(game_target=30, bella_target=45)
    env.reset(seed=0, options={"games_won": [1, 1]})
    assert env.state_.target == 45 and decode(env.observe("player_0"))["target"] == 45
    env.reset(seed=0)
    assert env.state_.target == 30
    rnd = random.Random(0)
    while not env.terminations["player_0"]:
        env.step(rnd.choice(env.legal_actions()))
    games = env.infos["player_0"]["result"]["games"]
    assert [g["target"] for g in games] == [30, 30, 45][: len(games)]
    for g in games:
        assert max(g["scores"]) > g["target"]


def test_flag_match_format_single_game():
    env = picchetto_v0.raw_env(match_format="single_game")
    env.reset(seed=3)
    rnd = random.Random(3)
    while not env.terminations["player_0"]:
        env.step(rnd.choice(env.legal_actions()))
    result = env.infos["player_0"]["result"]
    assert len(result["games"]) == 1 and result["match_winner"] == result["games"][0]["winner"]
    with pytest.raises(DealError, match="games_won"):
        env.reset(options={"games_won": [1, 0]})


@pytest.mark.parametrize("episode", ["hand", "game", "match"])
def test_flag_episode(episode):
    env = picchetto_v0.raw_env(episode=episode)
    rnd = random.Random(1)
    for seed in range(3):
        env.reset(seed=seed)
        while not env.terminations["player_0"]:
            env.step(rnd.choice(env.legal_actions()))
        result = env.infos["player_0"]["result"]
        if episode == "hand":
            assert len(result["hands"]) == 1
        elif episode == "game":
            assert len(result["games"]) == 1 and result["games"][0]["winner"] in (0, 1)
            assert len(result["hands"]) > 1
        else:
            assert result["match_winner"] in (0, 1) and len(result["games"]) in (2, 3)
        assert result["episode"] == episode


def test_flags_reveal_leftover_talon_and_allow_peek():
    for reveal, peek in ((False, False), (True, False), (False, True)):
        env = picchetto_v0.raw_env(reveal_leftover_talon=reveal, allow_peek=peek, first_dealer=1)
        env.reset(seed=5)
        s = env.state_
        talon = list(s.talon)
        env.step(32 + next(iter_bits(s.hands[0])))
        env.step(64)  # the elder took 1 of 5: he may peek at T[1..4]
        assert decode(env.observe("player_0"))["peeked"] == (sorted(talon[1:5]) if peek else [])
        env.step(32 + next(iter_bits(s.hands[1])))
        env.step(64)  # the dealer took T[1]: T[2..7] are left over
        for seat in (0, 1):
            view = decode(env.observe(f"player_{seat}"))
            assert view["leftover"] == (sorted(talon[2:]) if reveal else [])
        assert decode(env.observe("player_1"))["peeked"] == (sorted(talon[2:]) if peek else [])


def test_flag_outcome_reward_and_returns():
    """The episode return is the score difference (plus the outcome reward per game)."""
    for outcome in (0, 10):
        env = picchetto_v0.env(episode="game", outcome_reward=outcome)
        env.reset(seed=8)
        rng = np.random.default_rng(8)
        ret = {"player_0": 0.0, "player_1": 0.0}
        for agent in env.agent_iter():
            obs, reward, term, trunc, info = env.last()
            ret[agent] += reward
            env.step(None if term or trunc else int(rng.choice(np.flatnonzero(obs["action_mask"]))))
        g = info["result"]["games"][0]
        sign = 1 if g["winner"] == 0 else -1
        assert ret["player_0"] == g["scores"][0] - g["scores"][1] + sign * outcome
        assert ret["player_1"] == -ret["player_0"]


def test_match_return_is_the_sum_of_score_differences():
    env = picchetto_v0.env()
    env.reset(seed=21)
    rng = np.random.default_rng(21)
    ret = {"player_0": 0.0, "player_1": 0.0}
    for agent in env.agent_iter():
        obs, reward, term, trunc, info = env.last()
        ret[agent] += reward
        env.step(None if term or trunc else int(rng.choice(np.flatnonzero(obs["action_mask"]))))
    games = info["result"]["games"]
    assert ret["player_0"] == sum(g["scores"][0] - g["scores"][1] for g in games)


def test_result_records_events_and_exchanges():
    env = picchetto_v0.raw_env(episode="game")
    env.reset(seed=6)
    rnd = random.Random(6)
    while not env.terminations["player_0"]:
        env.step(rnd.choice(env.legal_actions()))
    result = env.infos["player_1"]["result"]
    assert result == env.infos["player_0"]["result"]
    total = [0, 0]
    for h in result["hands"]:
        assert len(h["exchanged"]) == 2 and 1 <= h["exchanged"][h["elder"]] <= 5
        for kind, seat, pts in h["events"]:
            assert kind in ("bianco", "point", "sequence", "sets", "repique", "trick", "pique", "cards", "capot")
            total[seat] += pts
        assert set(h["declarations"]) == {"point", "sequence", "sets"}
        assert h["declarations"]["point"]["answer"] in ("va bene", "uguale", "non basta")
    assert total == result["games"][0]["scores"]
    assert result["hands"][-1]["game_ended"] and not any(h["game_ended"] for h in result["hands"][:-1])


def test_a_recorded_hand_replays_from_its_record():
    env = picchetto_v0.raw_env(episode="hand")
    env.reset(seed=13)
    rnd = random.Random(13)
    actions = []
    while not env.terminations["player_0"]:
        actions.append(rnd.choice(env.legal_actions()))
        env.step(actions[-1])
    rec = env.infos["player_0"]["result"]["hands"][0]
    replay = picchetto_v0.raw_env(episode="hand")
    replay.reset(options={k: rec[k] for k in ("dealer", "hands", "talon")})
    for a in actions:
        replay.step(a)
    assert replay.infos["player_0"]["result"]["hands"][0] == rec


# -- illegal exchanges and follows, explicit deals (the generic cases: test_contract.py) ----------------


def _snapshot(env) -> tuple:
    s = env.state_
    return (
        [(name, repr(getattr(s, name))) for name in type(s).__slots__ if name != "rng"],
        env.observe("player_0")["observation"].tobytes(),
        env.observe("player_1")["observation"].tobytes(),
        env.agent_selection,
    )


def test_exchange_actions_out_of_turn_or_past_the_limits_are_illegal():
    env = picchetto_v0.raw_env(first_dealer=1)
    env.reset(seed=0)
    s = env.state_
    elder_card = next(iter_bits(s.hands[0]))
    dealer_card = next(iter_bits(s.hands[1]))
    before = _snapshot(env)
    bad = [
        (64, "END_EXCHANGE"),  # ending the exchange before discarding one card
        (32 + dealer_card, f"DISCARD {FRENCH.codes[dealer_card]}"),  # a card the elder does not hold
        (elder_card, f"PLAY {FRENCH.codes[elder_card]}"),  # a play during the exchange
    ]  # out-of-range and malformed ids: test_contract.py
    for action, message in bad:
        with pytest.raises(IllegalActionError, match=message) as err:
            env.step(action)
        assert "legal actions" in str(err.value)
        assert _snapshot(env) == before
    # five discards end the exchange: a sixth discard is not possible (the dealer acts)
    for c in list(iter_bits(s.hands[0]))[:5]:
        env.step(32 + c)
    assert env.agent_selection == "player_1"
    before = _snapshot(env)
    c = next(iter_bits(s.hands[0]))
    with pytest.raises(IllegalActionError, match=rf"action {32 + c} \(DISCARD {FRENCH.codes[c]}\) is not legal now for player_1"):
        env.step(32 + c)
    assert _snapshot(env) == before
    # the dealer may exchange at most 8 - 5 = 3 cards: the third discard ends his exchange
    for c in list(iter_bits(s.hands[1]))[:3]:
        env.step(32 + c)
    assert env.agent_selection == "player_0" and s.phase == TRICK_LEAD
    env.step(env.legal_actions()[0])  # and the env goes on


def test_illegal_follow_raises():
    env = picchetto_v0.raw_env(first_dealer=1)
    env.reset(seed=3)
    _to_tricks(env)
    env.step(env.legal_actions()[0])
    legal = set(env.legal_actions())
    illegal = [c for c in iter_bits(env.state_.hands[1]) if c not in legal]
    assert illegal  # the follower must follow suit (and head the trick): some of his cards are not legal
    with pytest.raises(IllegalActionError, match=rf"action {illegal[0]} \(PLAY {FRENCH.codes[illegal[0]]}\) is not legal now "
                       r"for player_1; legal actions: "):
        env.step(illegal[0])
    env.step(min(legal))


def test_options_accept_codes_ids_and_partial_keys():
    env = picchetto_v0.raw_env()
    env.reset(seed=0, options=PICCHETTO_GOOD_OPTIONS)
    s = env.state_
    assert s.dealer == 1 and s.dealt == [(1 << 12) - 1, ((1 << 24) - 1) ^ ((1 << 12) - 1)]
    assert s.talon == list(range(24, 32)) and s.game_score == [10, 20]
    # hands without a talon: the other 8 cards, in random order
    env.reset(seed=0, options={"hands": PICCHETTO_GOOD_OPTIONS["hands"]})
    assert sorted(env.state_.talon) == list(range(24, 32))
    # a talon without hands: the other 24 cards are dealt
    env.reset(seed=0, options={"talon": list(range(8))})
    assert env.state_.talon == list(range(8)) and env.state_.dealt[0] | env.state_.dealt[1] == (1 << 32) - 256
    # the inclusive target lowers the highest allowed start score
    env = picchetto_v0.raw_env(target_inclusive=True)
    with pytest.raises(DealError, match="0..149"):
        env.reset(options={"scores": [150, 0]})
    # unknown keys and options that are not a dict: test_contract.py


# -- rendering and documentation ---------------------------------------------------------------------------


def test_render_ansi_shows_declarations_in_italian_and_hides_the_opponent():
    elder = "Jh Th 9h 8h 7h As Ks Qs 9d 7d 8c 7c"  # spec 6.3
    dealer = "Ac Kc Qc Jc 9c Kh Qh Ad Kd Qd Js 8s"
    options, actions = exchange_deal(elder, dealer, dealer=1)
    env = picchetto_v0.env(render_mode="ansi")
    env.reset(seed=0, options=options)
    for a in actions:
        env.step(a)
    text = env.render()
    assert 'Punto: player_0 dichiara 44; player_1: "non basta" (50) -> player_1 +5' in text
    assert 'Scala: player_0 dichiara cinque al Fante; player_1: "va bene" -> player_0 +18' in text
    assert 'Tris/Quattordici: player_0 dichiara niente; player_1: "non basta" (tris di Re) -> player_1 +6' in text
    assert "player_0 hand: " + FRENCH.format_mask(FRENCH.mask(elder.split())) in text
    # the dealer's unrevealed cards are not shown to the elder
    hidden = set(cards(dealer)) - set(iter_bits(env.unwrapped.state_.revealed[1]))
    assert hidden and not any(f" {FRENCH.codes[x]}" in text.split("player_0 hand:")[1] for x in hidden)
    assert card("8s") in hidden and "8s" not in text
    env.unwrapped.render_seat = 1
    assert "player_1 hand: " + FRENCH.format_mask(FRENCH.mask(dealer.split())) in env.render()
    human = picchetto_v0.env(render_mode="human")
    human.reset(seed=0)
    assert human.render() is None
    quiet = picchetto_v0.env()
    quiet.reset(seed=0)
    assert quiet.render() is None


def test_docstrings_hold_the_current_tables():
    doc = env_module.__doc__
    assert flags_table(FLAGS) in doc
    assert LAYOUT.table() in doc
    from envs.picchetto import observation

    assert LAYOUT.table() in observation.__doc__
    for name in ("Version History", "Rewards", "Explicit deals"):
        assert name in doc
