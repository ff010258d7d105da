"""Picchetto players: legality, the heuristic's and the plain greedy player's rules on hand-built
positions, and (slow) the heuristic's strength against its 0.1 version and the plain player.

Every position is reached through the AEC env from an explicit deal (dealer, hands, talon) and
explicit actions, so the players see exactly the observation they get in play. With dealer 0,
seat 1 is the elder: he exchanges first (his discards, then he draws the talon's first cards)
and leads the first trick.
"""

from __future__ import annotations

import random

import numpy as np
import pytest

from agents import Agent, make_agent
from agents.picchetto_heuristic import DEALER_KEEP_THRESHOLD, ELDER_KEEP_THRESHOLD, PicchettoHeuristic, keep_values
from agents.plain.picchetto import GreedyAgent
from envs import picchetto_v0
from envs.core.cards import FRENCH
from envs.picchetto.game import DEALER_EXCHANGE, DISCARD, ELDER_EXCHANGE, END_EXCHANGE
from envs.picchetto.observation import decode
from tests.agents.common import play
from train.evaluate import head_to_head

C = FRENCH.parse


def cards(text: str) -> list[int]:
    return [C(c) for c in text.split()]


def position(hands: tuple[str, str], talon: str, moves: str, dealer: int = 0):
    """(env, observation of the seat to act) after `moves` ("d:7h" discard, "end", "p:Ah" play) from the deal."""
    env = picchetto_v0.env(episode="hand")
    env.reset(seed=0, options={"dealer": dealer, "hands": [cards(h) for h in hands], "talon": cards(talon)})
    for move in moves.split():
        kind, _, card = move.partition(":")
        env.step(END_EXCHANGE if kind == "end" else DISCARD + C(card) if kind == "d" else C(card))
    return env, env.last()[0]


def actions(obs) -> dict[str, int]:
    """The action of each player on `obs`; the numba port (when numba is there) must agree with the heuristic."""
    out = {"heuristic": PicchettoHeuristic("picchetto").act(obs), "v1": make_agent("heuristic-v1", "picchetto").act(obs),
           "greedy": GreedyAgent("picchetto").act(obs)}
    try:
        from agents.batched.picchetto import PicchettoBatchedHeuristic
    except ImportError:  # numba missing: the Python players only
        return out
    batched = PicchettoBatchedHeuristic("picchetto").act(obs["observation"][None], obs["action_mask"][None])
    assert int(batched[0]) == out["heuristic"]
    return out


def code(action: int) -> str:
    return FRENCH.code(action % 32) if action != END_EXCHANGE else "end"


# Deals. Elder (seat 1) exchange: discards 5, draws the talon's first 5; the dealer draws the last 3.
# LEAD_NO_MASTER: the elder's hand after the exchange is Kh Qh 9h Kd Jd 8d Qs Ts 8s Jc 9c 7c (no Ace, no master).
LEAD_NO_MASTER = (("Ah Ad As Ac Th Jh Td Qd Js Ks Qc Kc", "Kh Qh 9h Kd 8d Qs Ts 7h 8h 7d 9d 7s"), "Jd 8s Jc 9c 7c 9s Tc 8c",
                  "d:7h d:8h d:7d d:9d d:7s d:Ah d:Ad d:As")
# LEAD_MASTER: the elder discards As; his spades Ks Qs Js are then masters, next to Ah.
LEAD_MASTER = (("Kh 8d Td Jd Ad 8s 9s Ts Jc Qc Kc Ac", "Ah As Ks Qs Js 7s Kd Qd Jh Qh Th 9h"), "9d 7c 8c 9c Tc 7h 8h 7d",
               "d:As d:Jh d:Qh d:Th d:9h d:8s d:9s d:8d")
# LEAD_SHOWN: the elder's hand is again Kh Qh 9h Kd Jd 8d Qs Ts 8s Jc 9c 7c; the dealer wins the point with
# Ah Jh Th 8h 7h (and the sequences, the sets) and shows them; Ad is among his discards, unseen.
LEAD_SHOWN = (("Ah Jh Th 8h 7h Js Ks As Ac Ad Td Qd", "7d 9d 7s 9s 8c Kh Qh 9h Kd Jd 8d Qs"), "Jc 9c 7c 8s Ts Tc Qc Kc",
              "d:7d d:9d d:7s d:9s d:8c d:Ad d:Td d:Qd")
# VOID: the elder leads Td; the dealer has no diamond left (he discarded 7d 8d 9d) and must throw a card.
VOID = (("Ac 7s 8s Qs 7h 8h 9h Th Jh 7d 8d 9d", "Td Jd Qd Kd Ad 9s Ts Js Ks As 7c 8c"), "9c Tc Jc Qc Kc Qh Kh Ah",
        "d:7c d:8c d:9s d:Ts d:Js d:7d d:8d d:9d p:Td")


def test_players_never_play_an_illegal_action():
    rnd = random.Random(0)
    for flags in ({}, {"must_head_trick": False, "dealer_min_exchange": 0, "trick_scoring": "classic"}):
        env = picchetto_v0.env(episode="game", **flags)
        for seed in range(30):  # whole games: about 300 hands per variant
            lineup = {a: make_agent(rnd.choice(["heuristic", "plain", "random"]), "picchetto", seed=seed)
                      for a in env.possible_agents}
            assert all(isinstance(agent, Agent) for agent in lineup.values())
            play(env, lineup, seed)


# -- the heuristic: exchange -------------------------------------------------------------------
def test_keep_values_favour_point_sequences_sets_and_guards():
    hand = cards("Ah Kh Qh Jh Th Ts Td 9s 7s 8d 7c 8c")
    values = keep_values(hand)
    assert all(isinstance(v, int) for v in values.values())
    # The quint and the trio of Tens are kept; the lone low cards go first.
    cheapest = sorted(hand, key=lambda c: (values[c], c))[:5]
    assert {FRENCH.code(c) for c in cheapest} == {"7c", "8c", "8d", "7s", "9s"}
    assert min(values[c] for c in cards("Ah Kh Qh Jh Th")) > max(values[c] for c in cheapest)
    # A guarded King is worth more than a lone one.
    assert keep_values(cards("Kd 7d 7c"))[C("Kd")] > keep_values(cards("Kd 7s 7c"))[C("Kd")]


def test_elder_uses_his_whole_exchange_and_keeps_what_scores():
    deal = ("7h 8h 9h Qs Js 9d 7d Qd Jd 9c Qc Jc", "Ah Kh Qh Jh Th Ts Td 9s 7s 8d 7c 8c")
    env, obs = position(deal, "As Ad Ac Ks Kd Kc Tc 8s", "")
    thrown = []
    while env.unwrapped.state_.phase == ELDER_EXCHANGE:
        a = actions(obs)["heuristic"]
        thrown.append(code(a))
        env.step(a)
        obs = env.last()[0]
    assert thrown == ["8d", "7c", "8c", "7s", "9s"]  # 5 discards (the exchange then ends by itself)


def test_a_hand_that_pays_as_it_is_ends_the_exchange_early():
    # Eight hearts (a huitième, the point) and four low cards: the four go, then every card is worth keeping.
    env, obs = position(("Ac Kc Qc Jc Tc As Ks Qs Js Ad Kd Qd", "7h 8h 9h Th Jh Qh Kh Ah 7s 8s 7d 8c"),
                        "9c 7c 9s Ts 9d Td Jd 8d", "")
    thrown = []
    while env.unwrapped.state_.phase == ELDER_EXCHANGE:
        a = actions(obs)["heuristic"]
        thrown.append(code(a))
        env.step(a)
        obs = env.last()[0]
    assert thrown == ["7d", "8c", "7s", "8s", "end"]
    assert min(keep_values(cards("7h 8h 9h Th Jh Qh Kh Ah")).values()) >= ELDER_KEEP_THRESHOLD


def test_dealer_takes_all_that_is_left_with_an_ordinary_hand():
    deal = ("7h 8h 9h Qs Js 9d 7d Qd Jd 9c Qc Jc", "Ah Kh Qh Jh Th Ts Td 9s 7s 8d 7c 8c")
    env, obs = position(deal, "As Ad Ac Ks Kd Kc Tc 8s", "d:7c d:8c d:8d d:7s d:9s")
    thrown = []
    while env.unwrapped.state_.phase == DEALER_EXCHANGE:
        a = actions(obs)["heuristic"]
        thrown.append(code(a))
        env.step(a)
        obs = env.last()[0]
    # 9c (a low card of a short suit) first; then 7h (its tierce 7-8-9 is worth less than the point suit, the
    # trios of Queens and Jacks); then 8h, no longer in a run. Three is all the talon has left.
    assert thrown == ["9c", "7h", "8h"]
    assert DEALER_KEEP_THRESHOLD < ELDER_KEEP_THRESHOLD


# -- the heuristic: play ---------------------------------------------------------------------
def test_lead_cashes_the_lowest_master_first():
    _, obs = position(*LEAD_MASTER)
    got = actions(obs)
    # As is among the own discards: Ks, Qs, Js are masters next to Ah; the lowest, Js, goes first.
    assert code(got["heuristic"]) == "Js"
    assert code(got["v1"]) == "Ah"  # the 0.1 rules did not count the own discards as seen: Ah was their only master
    assert code(got["greedy"]) == "Ah"  # the highest card


def test_lead_without_a_master_gives_up_the_least():
    _, obs = position(*LEAD_NO_MASTER)
    got = actions(obs)
    # Kh, Qh (only Ah above) and Kd (only Ad above) have the fewest unseen cards above; Qh is the lowest.
    assert code(got["heuristic"]) == "Qh"
    assert code(got["v1"]) == "7c"  # the lowest card of a longest suit
    assert code(got["greedy"]) in ("Kh", "Kd")


def test_lead_without_a_master_counts_the_opponents_shown_cards_twice():
    _, obs = position(*LEAD_SHOWN)
    assert C("Ah") in decode(obs)["revealed"][1] and C("Ad") not in decode(obs)["revealed"][1]
    got = actions(obs)
    # Kh and Qh have only Ah above, but the opponent showed it: it is surely in his hand. Kd (only Ad above,
    # perhaps among his discards) is the better chance.
    assert code(got["heuristic"]) == "Kd"
    _, obs = position(*LEAD_NO_MASTER)  # the same hand with nothing shown: Qh, as above
    assert code(actions(obs)["heuristic"]) == "Qh"


def test_void_follower_keeps_the_cards_that_can_still_win():
    _, obs = position(*VOID)
    got = actions(obs)
    # The lowest rank; of the two Sevens, 7h leads eight hearts (every one a master) and 7s has five unseen
    # spades above it and two own: 7s goes. Ac, a master, stays.
    assert code(got["heuristic"]) == "7s"
    assert code(got["v1"]) == "Ac"  # the 0.1 rule threw the shortest suit first
    assert code(got["greedy"]) == "7h"  # the lowest card


def test_follower_wins_with_the_cheapest_winner_else_plays_the_lowest():
    # The dealer holds Th Jh (hearts) and Td Qd (diamonds) when the elder leads.
    deal, talon, moves = LEAD_NO_MASTER
    _, obs = position(deal, talon, moves + " p:9h")
    assert {code(a) for a in actions(obs).values()} == {"Th"}  # the cheapest card that wins
    _, obs = position(deal, talon, moves + " p:Kd")
    assert {code(a) for a in actions(obs).values()} == {"Td"}  # cannot win: the lowest card of the suit


# -- the plain greedy player ----------------------------------------------------------------
def test_greedy_exchanges_the_lowest_cards_it_may():
    deal = ("7h 8h 9h Qs Js 9d 7d Qd Jd 9c Qc Jc", "Ah Kh Qh Jh Th Ts Td 9s 7s 8d 7c 8c")
    env, obs = position(deal, "As Ad Ac Ks Kd Kc Tc 8s", "")
    greedy, thrown = GreedyAgent("picchetto"), []
    while env.unwrapped.state_.phase in (ELDER_EXCHANGE, DEALER_EXCHANGE):
        a = greedy.act(obs)
        thrown.append(code(a))
        env.step(a)
        obs = env.last()[0]
    # elder: the 5 lowest (rank, then card id); dealer: all 3 the talon has left
    assert thrown == ["7s", "7c", "8d", "8c", "9s", "7h", "7d", "8h"]


def test_greedy_is_deterministic_and_takes_the_trick_cheaply():
    deal = ("7h 8h 9h Qs Js 9d 7d Qd Jd 9c Qc Jc", "Ah Kh Qh Jh Th Ts Td 9s 7s 8d 7c 8c")
    _, obs = position(deal, "As Ad Ac Ks Kd Kc Tc 8s", "d:7c d:8c d:8d d:7s d:9s d:7h d:7d d:8h p:Th")
    # The dealer's hearts are 9h only: it cannot win; its lowest legal card is 9h (the only heart).
    assert code(GreedyAgent("picchetto", seed=1).act(obs)) == code(GreedyAgent("picchetto", seed=2).act(obs)) == "9h"
    _, obs = position(deal, "As Ad Ac Ks Kd Kc Tc 8s", "d:7c d:8c d:8d d:7s d:9s d:7h d:7d d:8h p:Td")
    assert code(GreedyAgent("picchetto").act(obs)) == "Jd"  # Jd and Qd win: the cheaper one


# -- strength (slow) -----------------------------------------------------------------------
@pytest.mark.slow
@pytest.mark.parametrize("opponent", ["heuristic-v1", "plain"])
def test_heuristic_beats_its_previous_version_and_the_plain_player(opponent):
    """Duplicate deals (each deal played from both seats), one hand per episode; 95% interval above 0."""
    result = head_to_head("picchetto", "heuristic", opponent, num_deals=300, seed=3, flags={"episode": "hand"})
    assert result["low_per_hand"] > 0, result
    assert np.isfinite(result["mean_per_hand"])
