"""Pigugnin players: the heuristic's and the plain ducking player's rules on hand-built positions,
legality over thousands of games, and strength on duplicate deals (slow)."""

from __future__ import annotations

import random

import numpy as np
import pytest

from agents import Agent, make_agent
from agents.pigugnin_heuristic import PigugninHeuristic
from agents.plain.pigugnin import DuckingAgent
from envs import pigugnin_v0
from envs.pigugnin.game import DECK
from tests.agents.common import play
from train.evaluation import evaluate
from train.evaluation.stats import mean_ci

C = DECK.parse
SUIT = DECK.suit_of


def position(cards: dict[int, list[str]], plays: list[str] = (), n: int = 4,
             void: dict[int, str] | None = None) -> tuple[dict, int]:
    """The observation of the seat to act after ``plays`` (card codes, in play order from seat 0, the
    first leader: the dealer is seat n - 1).

    ``cards[seat]``: cards that seat must hold; the rest of the deck goes to the seats in seat order,
    never a card of a suit in ``void[seat]`` (suit codes, e.g. ``"C"``).
    """
    size = 40 // n
    hands = {s: [C(c) for c in cards.get(s, [])] for s in range(n)}
    taken = {c for h in hands.values() for c in h}
    for card in range(40):
        if card in taken:
            continue
        seat = next(s for s in range(n) if len(hands[s]) < size
                    and DECK.code(card)[-1] not in (void or {}).get(s, ""))
        hands[seat].append(card)
    env = pigugnin_v0.raw_env(num_players=n, episode="hand")
    env.reset(seed=0, options={"dealer": n - 1, "hands": [hands[s] for s in range(n)]})
    for code in plays:
        env.step(C(code))
    name = env.agent_selection
    return env.observe(name), env.agent_name_mapping[name]


def setup(winner: int) -> tuple[dict[int, list[str]], list[str]]:
    """Seat 0 takes trick 1 (3C over 4C 5C 6C) and loses trick 2 (it leads 4D; ``winner`` takes it with KD
    over JD and HD). The cards each seat needs for it, and the eight plays."""
    others = [s for s in (1, 2, 3) if s != winner]
    diamonds = {others[0]: "JD", others[1]: "HD"}
    diamonds[winner] = "KD"
    cards = {0: ["3C", "4D"], 1: ["4C"], 2: ["5C"], 3: ["6C"]}
    for s, d in diamonds.items():
        cards[s].append(d)
    return cards, ["3C", "4C", "5C", "6C", "4D", diamonds[1], diamonds[2], diamonds[3]]


def heuristic_move(obs: dict) -> str:
    return DECK.code(PigugninHeuristic("pigugnin").act(obs))


def plain_move(obs: dict) -> str:
    return DECK.code(DuckingAgent("pigugnin").act(obs))


# -- the heuristic's rules ---------------------------------------------------------------------
def test_rule1_trickless_takes_the_trick_with_a_sure_winner():
    obs, seat = position({0: ["4C"], 1: ["5C", "KC", "3C", "4D", "5D", "6D", "7D", "4B", "5B", "6B"]}, ["4C"])
    assert seat == 1
    assert heuristic_move(obs) == "3C"  # the master: the trick it needs, while everyone follows suit
    assert plain_move(obs) == "5C"  # every card wins: the plain player plays its weakest


def test_rule1_trickless_without_a_sure_winner_tries_its_strongest():
    obs, _ = position({0: ["4C"], 1: ["5C", "KC", "4D", "5D", "6D", "7D", "4B", "5B", "6B", "7B"]}, ["4C"])
    assert heuristic_move(obs) == "KC"  # 3C, 2C, AC are out: no sure winner, the strongest may hold


def test_rule1_does_not_take_the_pigugnin():
    obs, _ = position({0: ["JS"], 1: ["KS", "4S", "4D", "5D", "6D", "7D", "4B", "5B", "6B", "7B"]}, ["JS"])
    assert heuristic_move(obs) == "4S"  # trickless, but not at the price of JS: it ducks


def test_rule2_first_lead_is_the_cheapest_master():
    obs, seat = position({0: ["3D", "4C", "5C", "6C", "4B", "5B", "6B", "7B", "JB", "HB"]})
    assert seat == 0
    assert heuristic_move(obs) == "3D"
    assert plain_move(obs) == "4C"


def test_rule3_lead_holding_the_pigugnin_keeps_its_spades():
    cards, plays = setup(1)
    cards[0] = ["3C", "4S", "JS", "6D", "7D", "KB", "HB", "JB", "7B", "6B"]
    obs, seat = position(cards, plays[:4])
    assert seat == 0 and PigugninHeuristic.name == "heuristic"
    # every non-Spade has 2 unseen cards below it; Denari has the most unseen cards above (6):
    # the higher of 6D and 7D, which are equal exits
    assert heuristic_move(obs) == "7D"
    assert plain_move(obs) == "4S"


def test_rule3_lead_a_spade_while_the_pigugnin_is_out():
    cards, plays = setup(1)
    cards[0] = ["3C", "4S", "4D", "5B", "6B", "7B", "JB", "HB", "KB", "7D"]
    obs, _ = position(cards, plays[:4])
    assert heuristic_move(obs) == "4S"  # 4S and 4D are both below every unseen card; the JS holder is squeezed
    assert plain_move(obs) == "4D"


def test_rule3_lead_the_higher_of_equal_exits():
    cards, plays = setup(1)
    cards[0] = ["3C", "4D", "5D", "6D", "KB", "HB", "JB", "7B", "6B", "5B"]
    obs, _ = position(cards, plays[:4])
    assert heuristic_move(obs) == "6D"  # 4D stays as an exit for later
    assert plain_move(obs) == "4D"


def test_rule3_never_leads_a_master_while_it_has_another_card():
    cards, plays = setup(1)
    cards[0] = ["3C", "2C", "AC", "KC", "HC", "3D", "7D", "3B", "2B", "3S"]
    obs, _ = position(cards, plays[:4])
    assert heuristic_move(obs) == "7D"  # three unseen Denari below it, but every other card wins for sure


@pytest.mark.parametrize(("n", "hand", "want"), [
    (4, ["3D", "KB", "5B", "4D", "5D", "6D", "7D", "JD", "HD", "KD"], "KD"),
    (5, ["3D", "KB", "5B", "4D", "5D", "6D", "7D", "KD"], "4D"),
])
def test_rule4_trickless_and_void_keeps_its_masters(n, hand, want):
    obs, seat = position({0: ["4C"], 1: hand}, ["4C"], n=n, void={1: "C"})
    assert seat == 1
    # 4 players: the non-master with the most points, the strongest first (KD before KB: lower id);
    # 5 players: the weakest non-master
    assert heuristic_move(obs) == want
    assert plain_move(obs) == "3D"  # the plain player throws its strongest point card, the master


def test_rule5_with_a_trick_and_void_throws_the_master_first():
    cards, plays = setup(1)
    cards[0] = ["3C", "4D", "2C", "AD", "7D", "5D", "4S", "5S", "6S", "7S"]
    cards[1] += ["4B"]
    cards[2] += ["5B"]
    cards[3] += ["6B"]
    obs, seat = position(cards, [*plays, "4B", "5B", "6B"], void={0: "B"})
    assert seat == 0
    assert heuristic_move(obs) == "2C"  # no unseen Coppe above it: it would win a trick later
    assert plain_move(obs) == "AD"  # the plain player throws the most points; 2D and 3D still cover AD


def test_rule5_void_throws_the_pigugnin_first():
    cards, plays = setup(1)
    cards[0] = ["3C", "4D", "2C", "AD", "JS", "5D", "4S", "5S", "6S", "7S"]
    cards[1] += ["4B"]
    cards[2] += ["5B"]
    cards[3] += ["6B"]
    obs, _ = position(cards, [*plays, "4B", "5B", "6B"], void={0: "B"})
    assert heuristic_move(obs) == plain_move(obs) == "JS"


def test_rule6_ducks_with_the_highest_loser():
    cards, plays = setup(1)
    cards[0] = ["3C", "4D", "4S", "7S", "KS", "2S", "5D", "6B", "7B", "JB"]
    cards[1] += ["HS"]
    cards[2] += ["5S"]
    cards[3] += ["6S"]
    obs, _ = position(cards, [*plays, "HS", "5S", "6S"])
    assert heuristic_move(obs) == "7S"  # below HS; 4S stays as an exit (KS and 2S would win)


@pytest.mark.parametrize(("n", "want"), [(4, "JC"), (5, "4C")])
def test_rule6_trickless_with_five_players_ducks_low(n, want):
    rest = ["4D", "5D", "6D", "7D", "4B", "5B", "6B"][: 40 // n - 3]
    obs, _ = position({0: ["KC"], 1: ["4C", "7C", "JC", *rest]}, ["KC"], n=n)
    assert heuristic_move(obs) == want  # 5 players: keep the stronger cards for the trick it needs


def test_rule7_last_to_play_and_forced_to_win_plays_its_strongest():
    cards, plays = setup(1)
    cards[0] = ["3C", "4D", "JS", "3S", "7S", "5D", "6B", "7B", "JB", "HB"]
    cards[1] += ["4S"]
    cards[2] += ["5S"]
    cards[3] += ["6S"]
    obs, seat = position(cards, [*plays, "4S", "5S", "6S"])
    assert seat == 0
    assert heuristic_move(obs) == "3S"  # never JS into its own trick


def test_rule8_forced_to_win_with_others_to_play_plays_its_weakest():
    cards, plays = setup(3)
    cards[0] = ["3C", "4D", "JS", "3S", "7S", "5D", "6B", "7B", "JB", "HB"]
    cards[3] += ["4S"]
    obs, seat = position(cards, [*plays, "4S"])
    assert seat == 0
    assert heuristic_move(obs) == "7S"  # someone may still overtake; JS last


# -- the plain ducking player --------------------------------------------------------------------
def test_plain_leads_its_weakest_card():
    obs, _ = position({0: ["3D", "4C", "5C", "6C", "4B", "5B", "6B", "7B", "JB", "HB"]})
    assert plain_move(obs) == "4C"  # 4C and 4B are equal: the lowest id


def test_plain_ducks_with_the_highest_card_that_still_loses():
    obs, _ = position({0: ["KC"], 1: ["4C", "7C", "JC", "3C", "5D", "6D", "7D", "4B", "5B", "6B"]}, ["KC"])
    assert plain_move(obs) == "JC"


def test_plain_forced_to_win_and_last_throws_its_most_dangerous_card_but_not_the_pigugnin():
    cards = {0: ["4S"], 1: ["5S"], 2: ["6S"], 3: ["AS", "3S", "JS", "4D", "5D", "6D", "7D", "4B", "5B", "6B"]}
    obs, seat = position(cards, ["4S", "5S", "6S"])
    assert seat == 3
    assert plain_move(obs) == "AS"  # the most points; JS would be taken for sure


def test_plain_forced_to_win_with_others_to_play_plays_its_weakest():
    cards = {0: ["4S"], 1: ["AS", "3S", "JS", "4D", "5D", "6D", "7D", "4B", "5B", "6B"]}
    obs, _ = position(cards, ["4S"])
    assert plain_move(obs) == "JS"  # the weakest Spade that wins: the plain player does not count


def test_plain_void_throws_the_pigugnin_then_points_then_strength():
    hand = ["JS", "AD", "3D", "KB", "4D", "5D", "6D", "7D", "5B", "6B"]
    obs, _ = position({0: ["4C"], 1: hand}, ["4C"], void={1: "C"})
    assert plain_move(obs) == "JS"
    hand[0] = "4S"
    obs, _ = position({0: ["4C"], 1: hand}, ["4C"], void={1: "C"})
    assert plain_move(obs) == "AD"


def test_plain_and_heuristic_are_registered_and_deterministic():
    obs, _ = position({0: ["4C"], 1: ["5C", "KC", "3C", "4D", "5D", "6D", "7D", "4B", "5B", "6B"]}, ["4C"])
    for spec, cls in (("plain", DuckingAgent), ("ducking", DuckingAgent), ("heuristic", PigugninHeuristic)):
        agents = [make_agent(spec, "pigugnin", seed=s) for s in range(3)]
        assert all(type(a) is cls for a in agents)
        assert len({a.act(obs) for a in agents}) == 1


# -- legality and strength -------------------------------------------------------------------------
@pytest.mark.parametrize("num_players", [4, 5])
def test_heuristic_and_plain_never_play_an_illegal_card(num_players):
    env = pigugnin_v0.env(num_players=num_players, pigugnin_first_trick_restriction=num_players == 5)
    rnd = random.Random(num_players)
    for seed in range(60):  # whole games: about 600 hands per player count
        specs = ["heuristic", "plain", "random"]
        lineup = {a: make_agent(rnd.choice(specs), "pigugnin", seed=seed) for a in env.possible_agents}
        assert all(isinstance(agent, Agent) for agent in lineup.values())
        play(env, lineup, seed)


@pytest.mark.slow
@pytest.mark.parametrize("num_players", [4, 5])
def test_heuristic_pays_fewer_busche_than_random(num_players):
    """Duplicate hands: the heuristic sits at every seat of each deal; random at every seat too."""
    env = pigugnin_v0.raw_env(num_players=num_players, episode="hand")
    diffs = []
    for deal in range(300):
        heuristic, baseline = [], []
        for seat in range(num_players):
            lineup = {a: make_agent("random", "pigugnin", seed=deal * 10 + i) for i, a in enumerate(env.possible_agents)}
            baseline.append(play(env, lineup, deal)[f"player_{seat}"])
            lineup[f"player_{seat}"] = make_agent("heuristic", "pigugnin", seed=deal)
            heuristic.append(play(env, lineup, deal)[f"player_{seat}"])
        diffs.append(np.mean(heuristic) - np.mean(baseline))
    mean, half = np.mean(diffs), 1.96 * np.std(diffs, ddof=1) / np.sqrt(len(diffs))
    assert mean - half > 0, (mean, half)  # reward is minus the busche: higher is better


def margin(players: list[str], num_players: int, deals: int, seed: int):
    """Duplicate deals of one hand each: the first entry's reward (minus its busche) minus the mean of the
    others', per deal, with its 95% interval (``train.evaluation``'s own functions)."""
    res = evaluate("pigugnin", players, num_deals=deals, seed=seed,
                   flags={"num_players": num_players, "episode": "hand"})
    first = res.per_deal_means(0)
    others = np.mean([res.per_deal_means(i) for i in range(1, num_players)], axis=0)
    return mean_ci(first - others)


@pytest.mark.slow
@pytest.mark.parametrize("num_players", [4, 5])
@pytest.mark.parametrize("old", ["heuristic-v1", "plain"])
def test_heuristic_beats_heuristic_v1_and_plain_on_duplicate_deals(num_players, old):
    """One new heuristic among old players pays fewer busche than they do, and one old player among new
    heuristics pays more than they do; both 95% intervals exclude 0."""
    new_among_old = margin(["heuristic", *[old] * (num_players - 1)], num_players, 300, seed=13)
    assert new_among_old.low > 0, new_among_old
    old_among_new = margin([old, *["heuristic"] * (num_players - 1)], num_players, 300, seed=13)
    assert old_among_new.high < 0, old_among_new
