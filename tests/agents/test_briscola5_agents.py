"""Briscola in cinque players: protocol, legality, strength, and decode as the encoder's inverse."""

from __future__ import annotations

import random

import pytest

from agents import Agent, make_agent
from agents.briscola5_heuristic import BID_EV, EV_MIN, best_trump, hand_estimate, history
from agents.plain.briscola5 import GreedyAgent, strength
from envs import briscola5_v0
from envs.briscola5.game import BID, CALL, DECK, NUM_TRICKS, PASS, bid_value
from envs.briscola5.observation import decode
from envs.core.errors import ConfigError
from tests.agents.common import play
from train.evaluate import evaluate, head_to_head


@pytest.mark.parametrize("spec", ["random", "heuristic", "heuristic-v1", "plain", "greedy"])
def test_agents_satisfy_the_protocol_and_are_seeded(spec):
    agent = make_agent(spec, "briscola5", seed=3)
    assert isinstance(agent, Agent)
    env = briscola5_v0.env(forfeit_enabled=False)
    env.reset(seed=0)
    obs = env.last()[0]
    again = make_agent(spec, "briscola5", seed=3)
    assert [agent.act(obs) for _ in range(5)] == [again.act(obs) for _ in range(5)]


@pytest.mark.slow
def test_heuristic_never_plays_an_illegal_action_in_mixed_games():
    env = briscola5_v0.env()
    rnd = random.Random(0)
    for seed in range(800):
        lineup = {a: make_agent(rnd.choice(["heuristic", "heuristic", "plain", "random"]), "briscola5", seed=seed)
                  for a in env.possible_agents}
        play(env, lineup, seed)


def test_heuristic_beats_random_with_a_confidence_interval_above_zero():
    result = head_to_head("briscola5", "heuristic", "random", num_deals=120)  # duplicate deals
    assert result["low"] > 0.2, result


def test_unknown_agent_and_game_raise_before_play():
    with pytest.raises(ConfigError, match="unknown agent 'smart'; known agents: random, heuristic"):
        make_agent("smart", "briscola5")
    with pytest.raises(ConfigError, match="unknown game 'scopa'"):
        make_agent("random", "scopa")


def rel(seat: int, p: int) -> int:
    return (p - seat) % 5


def test_decode_inverts_the_encoder_on_random_states():
    env = briscola5_v0.raw_env(num_hands=2)
    rnd = random.Random(1)
    for seed in range(60):
        env.reset(seed=seed)
        while not env.episode_over:
            state = env.state_
            for seat in range(5):
                view = decode(env.observe(f"player_{seat}"))
                assert view["hand"] == [c for c in range(40) if state.hands[seat] >> c & 1]
                assert view["dealer"] == rel(seat, state.dealer)
                assert view["passed"] == sorted(rel(seat, p) for p in range(5) if state.passed >> p & 1)
                assert view["bids"] == {rel(seat, p): [v for q, v in state.bids if q == p and v] for p in range(5)}
                assert view["caller"] == (rel(seat, state.caller) if state.caller >= 0 else None)
                assert view["contract"] == (state.contract if state.caller >= 0 else None)
                assert view["called_card"] == (state.called if state.called >= 0 else None)
                assert view["holds_called"] == (state.called >= 0 and state.partner == seat)
                assert view["trick"] == state.trick
                assert view["points_taken"] == [state.points[(seat + r) % 5] for r in range(5)]
                assert view["tricks_taken"] == [state.tricks_won[(seat + r) % 5] for r in range(5)]
                assert view["played"] == sorted(
                    (state.played_trick[c], rel(seat, state.played_by[c]), c) for c in range(40) if state.played_by[c] >= 0
                )
                assert view["partner"] == (rel(seat, state.partner) if state.revealed else None)
                assert 0 <= view["trick_no"] <= NUM_TRICKS
            legal = env.legal_actions()
            env.step(legal[int(rnd.random() * len(legal))])



# -- hand-written positions --------------------------------------------------------------------
def bid(v: int) -> int:
    return BID + v - 61


def card(code: str) -> int:
    return DECK.parse(code)


def position(hands: list[str], dealer: int, moves: list[int | str], **flags):
    """The raw env after ``moves`` (action ids, or card codes for plays) from an explicit deal."""
    env = briscola5_v0.raw_env(forfeit_enabled=False, **flags)
    env.reset(seed=0, options={"dealer": dealer, "hands": [h.split() for h in hands]})
    for m in moves:
        env.step(card(m) if isinstance(m, str) else m)
    return env


def decide(spec: str, env) -> int:
    return make_agent(spec, "briscola5", seed=0).act(env.observe(env.agent_selection))


#: A deal for the play positions (dealer 4: seat 0 bids and leads first). Seat 0 bids 61 and calls
#: the Ace of Denari, held by seat 1: trump Denari, caller 0, partner 1, defenders 2, 3, 4.
DEAL = ["3D KD HD JD 7D 2B 6C 7S", "AD 3C 4B 5C 6D 2C 4C 6S", "2S KB AC JC HC KC 5D 4D",
        "4S 5B 6B 7B JB HB 2D JS", "AS 3S 5S HS KS AB 3B 7C"]
CALLED_AD = [bid(61), PASS, PASS, PASS, PASS, CALL + card("AD")]


def test_hand_estimate_counts_trumps_and_their_honours():
    hand = [card(c) for c in "AD 3D KD HD 2C 4S 5B 6B".split()]
    assert hand_estimate(hand, 1) == 50 + 4 * 5 + 10 + 13 + 7 + 4
    assert hand_estimate(hand, 0) == 50 + 5  # the 2 of Coppe: a trump without honours
    assert best_trump(hand) == (1, 104)
    # the expected credits rise with the estimate and fall with the contract
    assert BID_EV[90][81 - 61] > BID_EV[80][81 - 61] > BID_EV[80][90 - 61]


@pytest.mark.parametrize(("hand", "dealer", "before", "want"), [
    ("AD 3D KD HD 2C 4S 5B 6B", 4, [], bid(81)),  # est 104: straight to the triple
    ("AD 7D 6D 5D 2C 4S 5B 6B", 4, [], bid(71)),  # est 80: the double pays most
    ("2C 4C 5D 6D 2S 4S 5B 6B", 4, [], PASS),  # est 60: no contract pays
    ("AD 7D 6D 5D 2C 4S 5B 6B", 3, [bid(75)], bid(81)),  # over 75, jump to the next multiplier step
    ("AD 7D 6D 5D 2C 4S 5B 6B", 3, [bid(84)], PASS),  # over 84 the hand no longer pays: stop
])
def test_heuristic_bids_on_hand_strength_and_stops(hand, dealer, before, want):
    rest = [c for c in DECK.codes if c not in hand.split()]
    hands = [hand] + [" ".join(rest[8 * i : 8 * i + 8]) for i in range(4)]
    env = position(hands, dealer, before)
    assert env.agent_selection == "player_0"
    assert decide("heuristic", env) == want
    if want != PASS:  # the chosen contract clears the margin
        _, est = best_trump([card(c) for c in hand.split()])
        assert BID_EV[est][bid_value(want) - 61] > EV_MIN


@pytest.mark.parametrize(("hand", "called"), [
    ("AD 3D KD HD 2C 4S 5B 6B", "JD"),  # the strongest Denari it lacks: the partner brings the Jack
    ("AD 3D 2D 4D 5D 6D 2C 4S", "2D"),  # six trumps with the Ace and the Three: call itself (solo)
])
def test_heuristic_calls_the_strongest_missing_trump_or_goes_solo(hand, called):
    rest = [c for c in DECK.codes if c not in hand.split()]
    hands = [hand] + [" ".join(rest[8 * i : 8 * i + 8]) for i in range(4)]
    env = position(hands, 4, [bid(61), PASS, PASS, PASS, PASS])
    assert decide("heuristic", env) == CALL + card(called)


def test_partner_loads_points_on_the_callers_trick_only_when_it_is_safe():
    # The partner (seat 1: AD 3C 4B 5C 6D 2C 4C 6S) plays second, three defenders after it.
    env = position(DEAL, 4, [*CALLED_AD, "3D"])  # only AD (its own) beats 3D: safe, load the Three of Coppe
    assert env.agent_selection == "player_1"
    assert decide("heuristic", env) == card("3C")
    env = position(DEAL, 4, [*CALLED_AD, "KD"])  # 3D is unseen and beats KD: throw the cheapest card
    assert decide("heuristic", env) == card("2C")


def test_defender_trumps_a_big_trick_and_keeps_its_trump_for_a_small_one():
    deal = DEAL[:3] + ["4S 5B 6B 7B JB HB 7C JS", "AS 3S 5S HS KS AB 3B 2D"]
    env = position(deal, 4, [*CALLED_AD, "6C", "3C", "2S", "7C"])  # 10 points on the table
    assert decide("heuristic", env) == card("2D")
    env = position(deal, 4, [*CALLED_AD, "6C", "5C", "2S", "7C"])  # no points: throw the cheapest
    assert decide("heuristic", env) == card("5S")


def test_defender_reads_the_partner_from_the_play_and_loads_a_co_defender():
    # trick 1: seat 1 loads the Three of Coppe on the caller's King of trumps: the likely partner.
    # trick 2: seat 2 beats the caller and wins; seat 4 plays last. Seat 2 is then a co-defender.
    env = position(DEAL, 4, [*CALLED_AD, "KD", "3C", "2S", "4S", "5S", "2B", "2C", "KB", "5B"])
    assert env.agent_selection == "player_4"
    assert decide("heuristic", env) == card("AS")  # the heuristic loads its Ace on seat 2's trick
    assert decide("heuristic-v1", env) == card("3B")  # the 0.1 heuristic, blind to it, takes the trick


def test_history_rebuilds_the_tricks_in_play_order():
    for flags in ({}, {"first_lead": "caller"}):
        env = briscola5_v0.raw_env(forfeit_enabled=False, **flags)
        rnd = random.Random(2)
        checked = 0
        for seed in range(30):
            env.reset(seed=seed)
            true: list[tuple[int, list[int]]] = []
            while not env.episode_over:
                s, seat = env.state_, env.agent_name_mapping[env.agent_selection]
                view = decode(env.observe(env.agent_selection))
                legal = env.legal_actions()
                a = 81 if view["phase"] == "auction" and 81 in legal else legal[int(rnd.random() * len(legal))]
                if view["phase"] == "trick_play":
                    got = history(view)
                    want = [((lead - seat) % 5, cards) for lead, cards in true]
                    # under first_lead="caller" the first leader is ambiguous when both chains meet
                    if not flags or got == want:
                        assert got == want
                        checked += 1
                    if len(s.trick) == 4:
                        true.append((s.leader, [*s.trick, a]))
                env.step(a)
        assert checked > 200


# -- the plain greedy player -------------------------------------------------------------------
def test_plain_bids_points_plus_five_per_card_of_its_longest_suit():
    hand = "AD 3D KD HD 2C 4S 5B 6B"
    assert strength([card(c) for c in hand.split()]) == 28 + 5 * 4  # 48: bids up to 61 + 2
    rest = [c for c in DECK.codes if c not in hand.split()]
    hands = [hand] + [" ".join(rest[8 * i : 8 * i + 8]) for i in range(4)]
    assert decide("plain", position(hands, 4, [])) == bid(61)
    assert decide("plain", position(hands, 3, [bid(62)])) == bid(63)
    assert decide("plain", position(hands, 3, [bid(63)])) == PASS
    assert decide("plain", position(hands, 4, [bid(61), PASS, PASS, PASS, PASS])) == CALL + card("JD")


def test_plain_takes_tricks_with_points_with_its_cheapest_winner_and_throws_otherwise():
    # seat 1 (AD 3C 4B 5C 6D 2C 4C 6S) after the caller's KD: 4 points on the table; only AD wins
    env = position(DEAL, 4, [*CALLED_AD, "KD"])
    assert decide("plain", env) == card("AD")  # greedy: it even overtakes its own caller
    # seat 4 (AS 3S 5S HS KS AB 3B 7C) after 2B 2C KB 5B: 4 points; 3B is the cheapest winner
    env = position(DEAL, 4, [*CALLED_AD, "KD", "3C", "2S", "4S", "5S", "2B", "2C", "KB", "5B"])
    assert decide("plain", env) == card("3B")
    # seat 2 (2S KB AC JC HC KC 5D 4D) after 6C and 5C: no points: the cheapest card, not the winner
    env = position(DEAL, 4, [*CALLED_AD, "6C", "5C"])
    assert decide("plain", env) == card("2S")
    assert isinstance(make_agent("greedy", "briscola5"), GreedyAgent)


# -- strength ------------------------------------------------------------------------------------
@pytest.mark.slow
@pytest.mark.parametrize("old", ["heuristic-v1", "plain"])
def test_heuristic_beats_the_old_heuristic_and_the_plain_player_on_duplicate_deals(old):
    """One new heuristic against four old players, and one old player against four new ones."""
    one_new = evaluate("briscola5", ["heuristic"] + [old] * 4, num_deals=100, seed=11)
    assert one_new.table[0]["reward_per_hand"]["low"] > 0, one_new
    one_old = evaluate("briscola5", [old] + ["heuristic"] * 4, num_deals=150, seed=12)
    assert one_old.table[0]["reward_per_hand"]["high"] < 0, one_old
