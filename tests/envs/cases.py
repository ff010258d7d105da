"""The per-game cases of the contract tests (``test_contract.py``): ONE table, one row per game.

``test_contract.py`` is parametrized over ``envs.registry.GAMES``; everything a contract test
needs to know about one game lives in that game's ``GameCase`` below, so a registry change
touches this file only (``test_every_registry_game_has_a_case`` fails until the row exists).

A row holds:

* ``configs``: named flag sets. ``"defaults"`` is always first; every game has a
  ``"non-default"`` set that changes every flag it can, and may have more (Pigugnìn with 5
  players, hand episodes). The PettingZoo ``api_test``/``seed_test``, the determinism, the
  reset-stream and the no-leak tests run on every config.
* ``bad_flags``: ``(flags, text the ConfigError must contain)``.
* ``malformed_options``: ``(reset options, text the DealError must contain)``.
* ``illegal``: one scripted state with its exact "legal actions: ..." text (the generic test
  also tries every illegal id in many random states).
* ``hidden_variant(env, seat, history, rnd)``: the no-leak test's way to change what ``seat``
  cannot see: reset options for a twin episode whose deal differs only in cards ``seat`` has
  not seen, and the actions to replay in it (``None`` when no variant exists). ``history`` is
  the ``(actor, action)`` list that led from the deal to ``env``'s state.
  ``public(env)``: facts of the deal that the rules make public (a twin whose public facts
  came out differently is not a valid variant).
* ``plant_leak(env)``: patch one env so that its observation leaks a hidden fact; the
  contract test checks that the no-leak check then fails (so it can fail).
* ``choose``, ``no_leak_*`` and ``min_*``: how the no-leak test plays and how much it must check.
"""

from __future__ import annotations

import random
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

import numpy as np

from envs.briscola5.game import AUCTION, FORFEIT_CHECK, hand_points
from envs.briscola5.observation import LAYOUT as BRISCOLA5_LAYOUT
from envs.core.cards import FRENCH, iter_bits
from envs.picchetto.observation import LAYOUT as PICCHETTO_LAYOUT
from envs.pigugnin.observation import LAYOUTS as PIGUGNIN_LAYOUTS

__all__ = ["CASES", "GameCase", "Illegal"]


@dataclass(frozen=True)
class Illegal:
    """A scripted state for the illegal-action test: reset, play ``prefix``, then try bad ids."""

    flags: dict
    seed: int
    options: dict
    prefix: list[int]
    legal_text: str  # the start of the "legal actions: ..." list in the error message
    legal_action: int  # a legal action, stepped afterwards
    next_agent: str  # who acts after it


@dataclass(frozen=True)
class GameCase:
    game: str
    configs: dict[str, dict]
    api_cycles: int
    bad_flags: list[tuple[dict, str]]
    malformed_options: list[tuple[Any, str]]
    illegal: Illegal
    hidden_variant: Callable[[Any, int, list[tuple[int, int]], random.Random], tuple[dict, list[int]] | None]
    plant_leak: Callable[[Any], None]
    public: Callable[[Any], Any] = lambda env: None
    #: random play for the no-leak histories (defaults to uniform over the legal ids)
    choose: Callable[[random.Random, list[int], Any], int] = lambda rnd, legal, env: rnd.choice(legal)
    no_leak_episodes: int = 60
    no_leak_steps: int = 40  # histories are 1 .. no_leak_steps - 1 actions long, within hand 1
    min_variants: int = 100  # twin deals the no-leak test must replay (per config)
    min_checked: int = 1000  # comparisons of one seat's observation and mask it must make
    min_changed: int = 100  # twins in which another seat's own observation changed (the control)


def _patch_observe(env, leak: Callable[[Any, int, np.ndarray], None]) -> None:
    """Make ``env.observer.observe(seat)`` pass its result through ``leak(state, seat, obs)``."""
    inner = env.observer.observe

    def observe(seat: int) -> np.ndarray:
        obs = inner(seat)
        leak(env.state_, seat, obs)
        return obs

    env.observer.observe = observe


# -- Briscola in cinque ---------------------------------------------------------------------------

BRISCOLA5_NON_DEFAULT = dict(
    first_dealer=3,
    first_lead="caller",
    min_bid=65,
    min_raise=2,
    max_bid=110,
    all_pass_policy="force_dealer",
    void_hands_count=False,
    forfeit_enabled=False,
    bid_multiplier_on_loss=True,
    cappotto_definition="tricks",
    allow_call_own_card=False,
    num_hands=3,
)


def _briscola5_variant(env, seat: int, history: list[tuple[int, int]], rnd: random.Random):
    """The other seats' unplayed cards shuffled among them (counts kept, played cards kept)."""
    s = env.state_
    n = 5
    unseen = [c for p in range(n) if p != seat for c in iter_bits(s.hands[p])]
    rnd.shuffle(unseen)
    hands = []
    for p in range(n):
        if p == seat:
            hands.append(list(iter_bits(s.dealt[p])))
            continue
        played = list(iter_bits(s.dealt[p] & ~s.hands[p]))
        hands.append(played + [unseen.pop() for _ in range(s.hands[p].bit_count())])
    return {"dealer": s.dealer, "hands": hands}, [a for _, a in history]


def _briscola5_public(env):
    # Who is asked to forfeit (a zero-point hand) is public when the check is on (spec 2.2).
    if not env.game.flags["forfeit_enabled"]:
        return None
    return tuple(hand_points(h) == 0 for h in env.state_.dealt)


def _briscola5_choose(rnd: random.Random, legal: list[int], env) -> int:
    """Pass or forfeit half the time, so short auctions, void hands and play phases all occur."""
    phase = env.state_.phase
    if phase == AUCTION and rnd.random() < 0.5:
        return 80
    if phase == FORFEIT_CHECK and rnd.random() < 0.5:
        return 141
    return rnd.choice(legal)


def _briscola5_leak(env) -> None:
    """The partner's seat shown from the call on, before the called card is played."""
    sl = BRISCOLA5_LAYOUT.obs_slice("partner")

    def leak(s, seat, obs):
        if s.called >= 0 and s.partner >= 0:
            obs[sl] = 0.0
            obs[sl.start + (s.partner - seat) % 5] = 1.0

    _patch_observe(env, leak)


_B_HANDS = [list(range(8 * i, 8 * i + 8)) for i in range(5)]
BRISCOLA5 = GameCase(
    game="briscola5",
    configs={"defaults": {}, "non-default": BRISCOLA5_NON_DEFAULT},
    api_cycles=200,
    bad_flags=[
        ({"num_hand": 2}, "unknown flag 'num_hand'"),
        ({"num_hands": 0}, "an int >= 1"),
        ({"first_lead": "left"}, "'right_of_dealer', 'caller'"),
        ({"min_bid": 60}, "61..120"),
        ({"forfeit_enabled": "yes"}, "True, False"),
        ({"min_bid": 90, "max_bid": 80}, "max_bid"),
        ({"first_dealer": 5}, "'random' or a seat 0..4"),
    ],
    malformed_options=[
        ({"dealer": 5}, "seat number 0..4"),
        ({"dealer": "0"}, "seat number 0..4"),
        ({"hands": [[0] * 8] * 4}, "list of 5 hands"),
        ({"hands": [list(range(8 * i, 8 * i + 7)) for i in range(5)]}, "exactly 8 cards"),
        ({"hands": [list(range(8))] * 5}, "given twice"),
        ({"hands": [["ZZ"] + list(range(1, 8))] + _B_HANDS[1:]}, "'ZZ'"),
        ({"hands": [[40] + list(range(1, 8))] + _B_HANDS[1:]}, "0..39"),
    ],
    illegal=Illegal(
        flags={"forfeit_enabled": False},
        seed=3,
        options={"dealer": 0},
        prefix=[],
        legal_text="legal actions: 80 (PASS), 81 (BID 61), 82 (BID 62)",
        legal_action=81,
        next_agent="player_2",
    ),
    hidden_variant=_briscola5_variant,
    public=_briscola5_public,
    choose=_briscola5_choose,
    plant_leak=_briscola5_leak,
    no_leak_episodes=200,
    no_leak_steps=45,
    min_variants=850,
    min_checked=20_000,
    min_changed=800,
)


# -- Pigugnìn -------------------------------------------------------------------------------------

PIGUGNIN_NON_DEFAULT = dict(
    first_dealer=2,
    first_hand_leader="holder_7D",
    pigugnin_first_trick_restriction=True,
    tie_penalty_scope="paying_scores_only",
    top_scorer_tie_policy="none_pay",
    cappotto_others_outcome="standard",
    multi_loser_policy="top_two",
    winner_boundary_tie="win",
    loss_threshold=6,
    sole_loss_threshold=9,
    outcome_reward={"win": 1, "draw": 0, "lose": -1},
)
SEVEN_D = 16


def _pigugnin_variant(env, seat: int, history: list[tuple[int, int]], rnd: random.Random):
    """Re-deal the other seats' unplayed cards among them, keeping counts and revealed voids.

    With ``first_hand_leader="holder_7D"`` the 7D's holder led the hand, so it stays put.
    """
    s = env.state_
    n = env.game.num_players
    voids: list[set[int]] = [set() for _ in range(n)]
    tricks = [(lead, cards) for lead, cards, _ in s.trick_log] + ([(s.leader, s.trick)] if s.trick else [])
    for lead, cards in tricks:
        for i, c in enumerate(cards):
            if c // 10 != cards[0] // 10:
                voids[(lead + i) % n].add(cards[0] // 10)
    fixed = {SEVEN_D} if env.game.flags["first_hand_leader"] == "holder_7D" else set()
    others = [p for p in range(n) if p != seat]
    pool = [c for p in others for c in iter_bits(s.hands[p]) if c not in fixed]
    for _ in range(200):
        rnd.shuffle(pool)
        hands: list[list[int] | None] = [None] * n
        k = 0
        for p in others:
            kept = [c for c in iter_bits(s.hands[p]) if c in fixed]
            count = s.hands[p].bit_count() - len(kept)
            mine = pool[k : k + count]
            k += count
            if any(c // 10 in voids[p] for c in mine):
                break
            hands[p] = list(iter_bits(s.played[p])) + kept + mine
        else:
            hands[seat] = list(s.deal[seat])
            return {"dealer": s.dealer, "hands": hands}, [a for _, a in history]
    return None


def _pigugnin_leak(env) -> None:
    """``pig_taker`` shows who holds the Pigugnìn (JS) before anybody captured it."""
    n = env.game.num_players
    sl = PIGUGNIN_LAYOUTS[n].obs_slice("pig_taker")

    def leak(s, seat, obs):
        holder = next((p for p in range(n) if s.hands[p] >> 27 & 1), None)
        if s.pig_taker < 0 and holder is not None:
            obs[sl.start + (holder - seat) % n] = 1.0

    _patch_observe(env, leak)


_FULL = [[f"{r}{s}" for r in "A234567JHK"] for s in "CDSB"]
PIGUGNIN = GameCase(
    game="pigugnin",
    configs={
        "defaults": {},
        "non-default": PIGUGNIN_NON_DEFAULT,
        "5p": {"num_players": 5},
        "5p-non-default": {**PIGUGNIN_NON_DEFAULT, "num_players": 5, "first_dealer": 4},
        "hand": {"episode": "hand"},
        "5p-hand": {"episode": "hand", "num_players": 5, "outcome_reward": {"win": 2, "lose": -2, "annulled": -1}},
    },
    api_cycles=300,
    bad_flags=[
        ({"num_players": 3}, "'num_players'; allowed: 4, 5"),
        ({"num_players": 6}, "'num_players'; allowed: 4, 5"),
        ({"num_players": "4"}, "'num_players'; allowed: 4, 5"),
        ({"colour": "red"}, "unknown flag 'colour'"),
        ({"first_dealer": 4}, "seat number 0..3"),
        ({"first_dealer": "left"}, "'first_dealer'"),
        ({"first_hand_leader": "holder_7d"}, "'holder_7D'"),
        ({"pigugnin_first_trick_restriction": 1}, "False, True"),
        ({"tie_penalty_scope": "never"}, "'any_score', 'paying_scores_only'"),
        ({"top_scorer_tie_policy": "some"}, "'all_pay', 'none_pay'"),
        ({"cappotto_others_outcome": "win"}, "'lose', 'standard'"),
        ({"multi_loser_policy": "all"}, "'all_reached', 'top_two'"),
        ({"winner_boundary_tie": "lose"}, "'draw', 'win'"),
        ({"loss_threshold": 0}, "int >= 1"),
        ({"loss_threshold": 12, "sole_loss_threshold": 11}, ">= loss_threshold (12)"),
        ({"episode": "match"}, "'game', 'hand'"),
        ({"outcome_reward": {"win": 1, "loss": -1}}, "'win', 'draw', 'lose', 'annulled'"),
        ({"outcome_reward": {"win": "1"}}, "finite int/float"),
        ({"outcome_reward": {"win": float("nan")}}, "finite int/float"),
        ({"outcome_reward": {"win": True}}, "finite int/float"),
        ({"outcome_reward": [1, 0, -1]}, "'outcome_reward'"),
    ],
    malformed_options=[
        ({"dealer": 4}, "'dealer' must be a seat number 0..3"),
        ({"dealer": "1"}, "'dealer' must be a seat number 0..3"),
        ({"dealer": True}, "'dealer' must be a seat number 0..3"),
        ({"hands": _FULL[:3]}, "list of 4 hands"),
        ({"hands": [_FULL[0][:9], _FULL[1], _FULL[2], _FULL[3]]}, "seat 0 must hold exactly 10 cards"),
        ({"hands": [_FULL[0], _FULL[1], _FULL[2], _FULL[3][:-1] + ["AC"]]}, "AC given twice"),
        ({"hands": [_FULL[0], _FULL[1], _FULL[2], _FULL[3][:-1] + ["XX"]]}, "seat 3"),
        ({"hands": [_FULL[0], _FULL[1], _FULL[2], _FULL[3][:-1] + [40]]}, "seat 3"),
        ({"hands": "AC 2C"}, "list of 4 hands"),
        ({"busche": [1, 2, 3]}, "list of 4 busche totals"),
        ({"busche": [1, 2, 3, -1]}, "seat 3: expected an int >= 0"),
        ({"busche": [1, 2, 3, "4"]}, "seat 3: expected an int >= 0"),
        ({"busche": [1, 2, 3, 4.0]}, "seat 3: expected an int >= 0"),
        ({"busche": [1, True, 3, 4]}, "seat 1: expected an int >= 0"),
        ({"busche": [10, 10, 0, 0]}, "would already have ended the game"),
        ({"busche": [20, 0, 0, 0]}, "would already have ended the game"),
        ({"busche": 5}, "list of 4 busche totals"),
    ],
    illegal=Illegal(
        flags={},
        seed=2,
        options={"dealer": 3, "hands": _FULL},  # seat 0 holds every Coppe and leads; seat 1 every Denari
        prefix=[0],  # AC
        legal_text="legal actions: 10 (AD), 11 (2D)",
        legal_action=10,
        next_agent="player_2",
    ),
    hidden_variant=_pigugnin_variant,
    plant_leak=_pigugnin_leak,
    no_leak_episodes=70,
    no_leak_steps=40,
    min_variants=250,
    min_checked=4000,
    min_changed=200,
)


# -- Picchetto ------------------------------------------------------------------------------------

PICCHETTO_NON_DEFAULT = dict(
    first_dealer=1,
    trick_scoring="classic",
    must_head_trick=False,
    dealer_min_exchange=0,
    bianco_counts_for_repique=False,
    pique_counts_end_bonuses=True,
    capot_replaces_cards=False,
    target_inclusive=True,
    game_target=60,
    bella_target=80,
    game_end_check="end_of_hand",
    reveal_leftover_talon=True,
    allow_peek=True,
    outcome_reward=5.0,
)  # match_format and episode keep their defaults (a best-of-three match), which the targets shorten


def _picchetto_hidden(env, seat: int) -> list[int]:
    """Cards whose place ``seat`` cannot know: the opponent's unseen cards and the undrawn talon."""
    s = env.state_
    opp = 1 - seat
    if s.phase == 0:
        undrawn = s.talon
    elif s.phase == 1:
        undrawn = s.talon[s.ndisc[s.elder] :]
    else:
        undrawn = s.talon[s.ndisc[0] + s.ndisc[1] :]
    hidden = s.hands[opp] | s.discards[opp] | sum(1 << x for x in undrawn)
    hidden &= ~(s.revealed[opp] | s.played[0] | s.played[1] | s.peeked[seat])
    if s.bianco[opp]:
        hidden &= ~s.dealt[opp]
    if env.game.flags["reveal_leftover_talon"]:
        hidden &= ~s.leftover
    return list(iter_bits(hidden))


def _picchetto_variant(env, seat: int, history: list[tuple[int, int]], rnd: random.Random):
    """Permute some of the cards ``seat`` cannot see (the opponent's hand and discards, the
    undrawn talon) in the deal, and rename the opponent's discards in the history to match."""
    s = env.state_
    hidden = _picchetto_hidden(env, seat)
    if len(hidden) < 2:
        return None
    moved = rnd.sample(hidden, 2) if rnd.random() < 0.6 else hidden
    image = moved[:]
    while image == moved:
        rnd.shuffle(image)
    perm = dict(zip(moved, image, strict=True))
    hands = [[perm.get(c, c) for c in iter_bits(h)] for h in s.dealt]
    talon = [perm.get(c, c) for c in s.talon]
    # The opponent's discards are renamed; every other action is one the seat saw (or its own).
    replay = [32 + perm.get(a - 32, a - 32) if 32 <= a < 64 and who != seat else a for who, a in history]
    return {"dealer": s.dealer, "hands": hands, "talon": talon}, replay


def _picchetto_public(env):
    """The Bianco of each seat and the outcome of the declarations are public (spec 4, 5.1)."""
    s = env.state_
    return (tuple(s.bianco), tuple(s.answers), tuple(s.pub_point), repr(s.pub_seq), repr(s.pub_set),
            tuple(s.revealed), tuple(s.hand_score), s.repique_by)


def _picchetto_leak(env) -> None:
    """``leftover`` shows the undrawn talon cards at any time, whatever the flags say."""
    sl = PICCHETTO_LAYOUT.obs_slice("leftover")

    def leak(s, seat, obs):
        used = 0 if s.phase == 0 else (s.ndisc[s.elder] if s.phase == 1 else s.ndisc[0] + s.ndisc[1])
        for c in s.talon[used:]:
            obs[sl.start + c] = 1.0

    _patch_observe(env, leak)


_DECK = [FRENCH.codes[x] for x in range(32)]
PICCHETTO_GOOD_OPTIONS = {"dealer": 1, "hands": [_DECK[:12], _DECK[12:24]], "talon": _DECK[24:], "scores": [10, 20]}
PICCHETTO = GameCase(
    game="picchetto",
    configs={
        "defaults": {},
        "non-default": PICCHETTO_NON_DEFAULT,
        "hand": dict(episode="hand", first_dealer=0, match_format="single_game"),
    },
    api_cycles=300,
    bad_flags=[
        ({"no_such_flag": 1}, "unknown flag 'no_such_flag'; known flags: first_dealer"),
        ({"first_dealer": 2}, "allowed: 'random', 0, 1"),
        ({"trick_scoring": "french"}, "'seed', 'classic'"),
        ({"must_head_trick": 1}, "True, False"),
        ({"dealer_min_exchange": 2}, "'dealer_min_exchange'; allowed: 1, 0"),
        ({"game_target": 0}, "int >= 1"),
        ({"bella_target": 2.5}, "flag 'bella_target'; allowed: an int >= 1"),
        ({"game_end_check": "never"}, "'immediate', 'end_of_hand'"),
        ({"match_format": "best_of_five"}, "'best_of_three', 'single_game'"),
        ({"episode": "trick"}, "'match', 'game', 'hand'"),
        ({"outcome_reward": float("nan")}, "finite"),
        ({"outcome_reward": "1"}, "'outcome_reward'"),
    ],
    malformed_options=[
        (PICCHETTO_GOOD_OPTIONS | change, text)
        for change, text in [
            ({"dealer": 2}, "'dealer' must be a seat number 0..1"),
            ({"dealer": "0"}, "'dealer' must be a seat number 0..1"),
            ({"hands": [["7h"] * 12, []]}, "7h given twice"),
            ({"hands": "7h 8h"}, "'hands' must be a list of 2 hands"),
            ({"hands": [list(range(11)), list(range(12, 24))]}, "seat 0 must hold exactly 12 cards"),
            ({"hands": [list(range(12)), list(range(11, 23))]}, "given twice"),
            ({"hands": [list(range(12)), list(range(12, 23)) + ["Zz"]]}, "'Zz' is not a card code"),
            ({"hands": [list(range(12)), list(range(12, 23)) + [24]]}, "given twice"),  # 24 is in the talon
            ({"talon": list(range(24, 31))}, "exactly 8"),
            ({"talon": list(range(24, 31)) + [24]}, "twice"),
            ({"talon": "Th Jh"}, "talon"),
            ({"talon": list(range(24, 31)) + [99]}, "not a card"),
            ({"scores": [151, 0]}, "0..150"),
            ({"scores": [-1, 0]}, "0..150"),
            ({"scores": [1]}, "scores"),
            ({"scores": [True, 0]}, "scores"),
            ({"scores": "10 20"}, "scores"),
            ({"games_won": [2, 0]}, "games_won"),
            ({"games_won": [1]}, "games_won"),
        ]
    ],
    illegal=Illegal(
        flags={},
        seed=0,
        options=PICCHETTO_GOOD_OPTIONS,  # seat 0 (the elder) holds 7h..Ad (ids 0..11)
        prefix=[],
        legal_text="legal actions: 32 (DISCARD 7h), 33 (DISCARD 8h)",
        legal_action=32,
        next_agent="player_0",  # the elder goes on discarding
    ),
    hidden_variant=_picchetto_variant,
    public=_picchetto_public,
    plant_leak=_picchetto_leak,
    no_leak_episodes=150,
    no_leak_steps=30,
    min_variants=150,
    min_checked=2500,
    min_changed=100,
)


#: one row per game of ``envs.registry.GAMES``
CASES: dict[str, GameCase] = {case.game: case for case in (BRISCOLA5, PIGUGNIN, PICCHETTO)}
