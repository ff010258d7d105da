"""Batched heuristics (`agents/batched/<game>.py`) choose the Python heuristic's action, row for row.

Method (differential). For every game of `CASES`:

* Observations: seeded playouts through the AEC `raw_env`, per flag variant of the case; in each
  episode every seat is either the Python heuristic or uniformly random (the share of heuristic
  seats varies by episode: 0, 1/2, all), and some episodes start from explicit deals that reach
  rare phases (the case's `deal`). Every observation of a seat to act is kept with its mask and
  with `agent.act(obs)` of the Python heuristic (the reference, also for the rows a random seat
  then played). The batched heuristic decides all rows in one call, then again with the rows
  shuffled and in small chunks; every action must be the reference action. The case's
  `coverage` counts what the rows reach (phases, positions in the trick, ...) and the test asserts
  a minimum of each, so that a port is never checked on easy rows only.
* Whole games: `num_games` games of the game's `vector_env`, each reset with an explicit deal, are
  played to their end with the batched heuristic (built as the trainer builds it,
  `make_opponent("heuristic", ...)`) at every seat; the same deals are played by five Python
  heuristics through the AEC env. The actions (seat and id, in order) and every seat's return
  must be identical. Later hands of a match are shuffled by the batched engine from its stream;
  the AEC engine is handed those shuffles by a test double of its generator (the method of
  `tests/envs/test_<game>_batched.py`).

To add a game: write its `deal`, `coverage` and `trajectories` (or reuse the generic ones) and a
`Case` row; the tests are parametrized over `CASES`.
"""

from __future__ import annotations

import importlib
import subprocess
import sys
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any

import numpy as np
import pytest

pytest.importorskip("numba")

from agents import make_agent  # noqa: E402
from agents.rows import batched_heuristic_class, make_opponent  # noqa: E402
from envs.registry import game_spec, make_raw_env  # noqa: E402
from tests.envs.common import first_fast


@dataclass(frozen=True)
class Case:
    game: str
    #: "module:Class" of the batched heuristic
    batched: str
    #: env flags of the observation playouts, and episodes played with each
    variants: tuple[dict, ...]
    episodes: int
    #: reset options for an episode (an explicit deal), or None for a seeded random deal
    deal: Callable[[np.random.Generator], dict | None]
    #: counts of what the rows cover: f(obs, mask, reference actions) -> {name: count}
    coverage: Callable[[np.ndarray, np.ndarray, np.ndarray], dict[str, int]]
    #: the least count of each coverage name (over all variants)
    minimum: dict[str, int]
    #: plays whole games both ways: f(case, flags, seed) -> number of decisions compared
    trajectories: Callable[..., int]
    #: flags of the whole-game comparison
    trajectory_flags: tuple[dict, ...]
    num_games: int = 48
    extra: dict[str, Any] = field(default_factory=dict)

    def batched_class(self) -> type:
        module, _, name = self.batched.partition(":")
        return getattr(importlib.import_module(module), name)


# -- shared harness --------------------------------------------------------------------------
def collect(case: Case, flags: dict, seed: int) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """Observation rows, mask rows and the Python heuristic's action on each, from seeded playouts."""
    env = make_raw_env(case.game, **flags)
    python = make_agent("heuristic", case.game, seed=seed)
    rnd = np.random.default_rng(seed)
    n = len(env.possible_agents)
    obs, masks, want = [], [], []
    for episode in range(case.episodes):
        share = (0.0, 0.5, 1.0)[episode % 3]
        heuristic_seat = {a: rnd.random() < share for a in env.possible_agents}
        env.reset(seed=seed * 10_000 + episode, options=case.deal(rnd))
        python.reset()
        for agent in env.agent_iter():
            o, _, term, trunc, _ = env.last()
            if term or trunc:
                env.step(None)
                continue
            a = int(python.act(o))
            obs.append(o["observation"].copy())
            masks.append(o["action_mask"].copy())
            want.append(a)
            if not heuristic_seat[agent]:
                legal = np.flatnonzero(o["action_mask"])
                a = int(legal[rnd.integers(legal.size)])
            env.step(a)
    assert n == len(env.possible_agents)
    return np.array(obs), np.array(masks), np.array(want, dtype=np.int64)


def _describe(case: Case, o: np.ndarray, m: np.ndarray) -> str:
    decode = importlib.import_module(f"envs.{case.game}.observation").decode
    return f"{decode(o, codes=True)}; legal {np.flatnonzero(m).tolist()}"


def _assert_same(case: Case, obs, masks, want, got, what: str) -> None:
    bad = np.flatnonzero(got != want)
    if bad.size:
        i = int(bad[0])
        pytest.fail(f"{case.game} ({what}): {bad.size} of {len(want)} rows differ; first, row {i}: batched "
                    f"{int(got[i])}, Python {int(want[i])}; view {_describe(case, obs[i], masks[i])}")


class _Shuffles:
    """Stands in for an AEC state's generator: `permutation` returns the batched engine's shuffles, in order."""

    def __init__(self, perms: list[np.ndarray]):
        self.perms = list(perms)
        self.calls = 0

    def permutation(self, n):
        assert self.calls < len(self.perms), "the AEC engine shuffled more hands than the batched one"
        perm = self.perms[self.calls]
        assert n == perm.size
        self.calls += 1
        return perm.astype(np.int64)

    def integers(self, *args, **kwargs):
        raise AssertionError("the AEC engine drew a random number other than a shuffle mid-episode")


def play_aec(case: Case, flags: dict, options: dict, perms: list[np.ndarray], seed: int):
    """One episode of the AEC env from `options`, Python heuristics at every seat: ([(seat, action)], returns)."""
    env = make_raw_env(case.game, **flags)
    env.reset(seed=seed, options=options)
    shuffles = _Shuffles(perms)
    env.state_.rng = shuffles
    seats = {a: i for i, a in enumerate(env.possible_agents)}
    players = {a: make_agent("heuristic", case.game, seed=seed + i) for i, a in enumerate(env.possible_agents)}
    returns = np.zeros(len(seats))
    moves = []
    for agent in env.agent_iter():
        o, reward, term, trunc, _ = env.last()
        returns[seats[agent]] += reward
        if term or trunc:
            env.step(None)
            continue
        a = int(players[agent].act(o))
        moves.append((seats[agent], a))
        env.step(a)
    assert shuffles.calls == len(perms), "the AEC engine shuffled fewer hands than the batched one"
    return moves, returns


def play_batched(case: Case, flags: dict, options: list[dict], seed: int, perm_key: str):
    """Each game of a vector_env from its explicit deal to its end, the trainer's batched heuristic at every seat.

    Returns per game: [(seat, action)], the returns of the seats, and the shuffles (`state[perm_key]`) of
    the hands dealt after the first.
    """
    b = len(options)
    venv = game_spec(case.game).vector_env(b, **flags)
    opponent = make_opponent("heuristic", case.game, flags, seed)
    assert isinstance(opponent, case.batched_class()), type(opponent)
    obs, mask = venv.reset(seed=seed, options=options)
    moves: list[list[tuple[int, int]]] = [[] for _ in range(b)]
    perms: list[list[np.ndarray]] = [[] for _ in range(b)]
    returns = np.zeros((b, venv.num_players))
    done = np.zeros(b, dtype=bool)
    while not done.all():
        actions = opponent.act(obs, mask)
        hand_before = venv.state["hand_no"].copy()
        for i in np.flatnonzero(~done):
            moves[i].append((int(venv.current_player[i]), int(actions[i])))
        obs, mask, rewards, term, trunc, _ = venv.step(actions)
        returns[~done] += rewards[~done]
        for i in np.flatnonzero(~done):
            if term[i] or trunc[i]:
                done[i] = True
            elif venv.state["hand_no"][i] != hand_before[i]:
                perms[i].append(venv.state[perm_key][i].copy())
    return moves, returns, perms


def generic_trajectories(case: Case, flags: dict, seed: int) -> int:
    rnd = np.random.default_rng(seed)
    options = []
    while len(options) < case.num_games:
        opt = case.deal(rnd)
        if opt is not None:
            options.append(opt)
    moves, returns, perms = play_batched(case, flags, options, seed, case.extra["perm_key"])
    compared = 0
    for i, opt in enumerate(options):
        aec_moves, aec_returns = play_aec(case, flags, opt, perms[i], seed)
        if moves[i] != aec_moves:
            j = next(j for j in range(len(aec_moves) + 1) if moves[i][j : j + 1] != aec_moves[j : j + 1])
            pytest.fail(f"{case.game} {flags} game {i}: the trajectories part at move {j}: batched "
                        f"{moves[i][j : j + 1]}, Python {aec_moves[j : j + 1]} (seat, action)")
        np.testing.assert_array_equal(returns[i], aec_returns, err_msg=f"{case.game} {flags} game {i}: returns")
        compared += len(aec_moves)
    return compared


# -- Briscola in cinque ------------------------------------------------------------------------
def briscola5_deal(rnd: np.random.Generator) -> dict | None:
    """A seeded random deal (None) half the time, else a deal of a rare kind.

    * 0-point hands (one or two seats), for the forfeit check;
    * a strong hand: 6 to 8 cards of one suit with its Ace and Three (the solo call), at a random seat;
    * any hand dealt from a given shuffle, with a given dealer.
    """
    from envs.briscola5.game import DECK, POINTS, SUIT

    kind = rnd.integers(4)
    if kind == 0:
        return None
    dealer = int(rnd.integers(5))
    hands: list[list[int]] = [[] for _ in range(5)]
    if kind == 1:
        zero = [int(c) for c in rnd.permutation([c for c in range(40) if POINTS[c] == 0])]
        for s in rnd.choice(5, size=int(rnd.integers(1, 3)), replace=False):
            hands[s], zero = zero[:8], zero[8:]
    elif kind == 2:
        suit, seat = int(rnd.integers(4)), int(rnd.integers(5))
        ace, three = DECK.card(suit, DECK.rank_codes.index("A")), DECK.card(suit, DECK.rank_codes.index("3"))
        others = [int(c) for c in rnd.permutation([c for c in range(40) if SUIT[c] == suit and c not in (ace, three)])]
        hands[seat] = [ace, three] + others[: int(rnd.integers(4, 7))]
    taken = {c for h in hands for c in h}
    rest = [int(c) for c in rnd.permutation([c for c in range(40) if c not in taken])]
    for s in range(5):
        while len(hands[s]) < 8:
            hands[s].append(rest.pop())
    return {"dealer": dealer, "hands": hands}


def briscola5_coverage(obs: np.ndarray, masks: np.ndarray, want: np.ndarray) -> dict[str, int]:
    from agents.briscola5_heuristic import CHEAP
    from envs.briscola5.game import BID, CALL, FORFEIT, PASS
    from envs.briscola5.observation import LAYOUT

    def field(name: str) -> np.ndarray:
        f = LAYOUT.fields[name]
        return obs[:, f.obs_offset : f.obs_offset + f.size].reshape(len(obs), *f.shape)

    phase = field("phase").argmax(axis=1)
    hand = field("hand") != 0
    play = phase == 3
    on_table = (field("current_trick") != 0).any(axis=2).sum(axis=1)
    call_rows = np.flatnonzero(want // 40 == 1)
    trump = field("trump").argmax(axis=1)
    # trick play rows where the heuristic does not throw its cheapest card (it loads or takes the trick)
    not_cheapest = sum(
        int(CHEAP[trump[i]][want[i]] != min(CHEAP[trump[i]][c] for c in np.flatnonzero(masks[i])))
        for i in np.flatnonzero(play)
    )
    out = {
        "forfeit check": int((phase == 0).sum()),
        "forfeit check after a decline": int(((phase == 0) & (field("forfeit_declined") != 0).any(axis=1)).sum()),
        "forfeit": int((want == FORFEIT).sum()),
        "bid": int(((want >= BID) & (want < FORFEIT)).sum()),
        "pass with a bid legal": int(((want == PASS) & masks[:, BID:FORFEIT].any(axis=1)).sum()),
        "call (solo: own card)": int(hand[call_rows, want[call_rows] - CALL].sum()),
        "call (a card not held)": int((~hand[call_rows, want[call_rows] - CALL]).sum()),
        "play, partner revealed": int((play & (field("partner_revealed")[:, 0] != 0)).sum()),
        "play, holds the called card": int((play & (field("holds_called")[:, 0] != 0)).sum()),
        "play, later hand of a match": int((play & (field("match_scores") != 0).any(axis=1)).sum()),
        "play, last 3 tricks": int((play & (np.rint(field("tricks_taken") * 8).sum(axis=1) >= 5)).sum()),
        "play, not the cheapest card": not_cheapest,
    }
    for k in range(5):
        out[f"play, {k} cards on the table"] = int((play & (on_table == k)).sum())
    return out


BRISCOLA5 = Case(
    game="briscola5",
    batched="agents.batched.briscola5:Briscola5BatchedHeuristic",
    variants=(
        {},
        {"num_hands": 3, "min_bid": 70, "forfeit_enabled": False},
        {"num_hands": 2, "min_raise": 5, "max_bid": 100, "all_pass_policy": "force_dealer", "first_lead": "caller",
         "allow_call_own_card": False, "first_dealer": 3},
    ),
    episodes=36,
    deal=briscola5_deal,
    coverage=briscola5_coverage,
    minimum={"forfeit check": 10, "forfeit check after a decline": 1, "forfeit": 10, "bid": 100,
             "pass with a bid legal": 300, "call (solo: own card)": 3, "call (a card not held)": 60,
             "play, partner revealed": 1000, "play, holds the called card": 300, "play, later hand of a match": 1000,
             "play, last 3 tricks": 1000, "play, not the cheapest card": 500,
             **{f"play, {k} cards on the table": 500 for k in range(5)}},
    trajectories=generic_trajectories,
    trajectory_flags=(
        {},
        {"num_hands": 3, "min_bid": 70, "forfeit_enabled": False},
        {"num_hands": 3, "all_pass_policy": "force_dealer", "first_lead": "caller", "allow_call_own_card": False,
         "min_raise": 3},
    ),
    extra={"perm_key": "perm"},
)


# -- Picchetto ---------------------------------------------------------------------------------
from tests.envs.cases import PICCHETTO_NON_DEFAULT  # noqa: E402


def picchetto_deal(rnd: np.random.Generator) -> dict | None:
    """A seeded random deal (None) a third of the time, else an explicit deal (dealer, hands, talon), often of a rare kind.

    * a Bianco hand (no J, Q, K) at a random seat: the dealer's Bianco comes after the elder's exchange;
    * a strong hand: 6 to 8 cards of one suit (runs of five or more, a point, pique / capot) or three
      quatorzes of 10, J, Q, K or A (sets), at a random seat;
    * a plain shuffle;

    and often game scores of up to 59 (near the target of the short games of `PICCHETTO_NON_DEFAULT`) and
    games already won (later games of a match, the bella, games ending mid-hand).
    """
    from envs.picchetto.game import FACE_MASK

    kind = int(rnd.integers(6))
    if kind < 2:
        return None
    seat = int(rnd.integers(2))
    hands: list[list[int]] = [[], []]
    if kind == 2:
        hands[seat] = [int(c) for c in rnd.choice([c for c in range(32) if not FACE_MASK >> c & 1], 12, replace=False)]
    elif kind == 3:
        suit, n = int(rnd.integers(4)), int(rnd.integers(6, 9))
        hands[seat] = list(range(8 * suit + 8 - n, 8 * suit + 8))
        if rnd.random() < 0.5:  # the rest Tens to Aces (sets too): every card near the heuristic's keep threshold
            high = [c for c in range(32) if c // 8 != suit and c % 8 >= 3]
            hands[seat] += [int(c) for c in rnd.choice(high, 12 - n, replace=False)]
    elif kind == 4:
        hands[seat] = [8 * s + int(r) for r in rnd.choice(range(3, 8), 3, replace=False) for s in range(4)]
    taken = {c for h in hands for c in h}
    rest = [int(c) for c in rnd.permutation([c for c in range(32) if c not in taken])]
    for s in range(2):
        while len(hands[s]) < 12:
            hands[s].append(rest.pop())
    opts: dict = {"dealer": int(rnd.integers(2)), "hands": hands, "talon": rest}
    if rnd.random() < 0.5:
        opts["games_won"] = [int(rnd.integers(2)), int(rnd.integers(2))]
    if rnd.random() < 0.6:
        opts["scores"] = [int(x) for x in rnd.integers(0, 60, size=2)]
    return opts


def picchetto_coverage(obs: np.ndarray, masks: np.ndarray, want: np.ndarray) -> dict[str, int]:
    from agents.picchetto_heuristic import DEALER_KEEP_THRESHOLD, ELDER_KEEP_THRESHOLD, keep_values
    from envs.picchetto.game import DISCARD, END_EXCHANGE, HIGHER, RANK, SUIT, SUIT_VALUE, sequences_of
    from envs.picchetto.observation import decode

    out: dict[str, int] = {}

    def add(name: str, hit: bool = True) -> None:
        out[name] = out.get(name, 0) + int(hit)

    for o, m, a in zip(obs, masks, want, strict=True):
        v = decode(o)
        legal = np.flatnonzero(m).tolist()
        hand = v["hand"]
        mask = sum(1 << c for c in hand)
        lengths = [sum(SUIT[c] == s for c in hand) for s in range(4)]
        if legal[0] >= DISCARD:
            elder = v["phase"] == "elder_exchange"
            add("elder exchange" if elder else "dealer exchange")
            discards = [x - DISCARD for x in legal if x < END_EXCHANGE]
            if not discards:  # never in practice: the exchange ends by itself at the last discard allowed
                continue
            values = keep_values(hand)
            low = min(values[c] for c in discards)
            add("exchange: discard, END_EXCHANGE legal", a != END_EXCHANGE and m[END_EXCHANGE] != 0)
            add("exchange: discard, END_EXCHANGE not legal", a != END_EXCHANGE and m[END_EXCHANGE] == 0)
            add("exchange: END_EXCHANGE with discards legal", a == END_EXCHANGE)
            add("exchange: cheapest value at the threshold",
                low == (ELDER_KEEP_THRESHOLD if elder else DEALER_KEEP_THRESHOLD))
            add("exchange: equal cheapest values", sum(values[c] == low for c in discards) >= 2)
            add("exchange: a run of five or more", any(length >= 5 for length, _, _ in sequences_of(mask)))
            add("exchange: a trio or quatorze", any(sum(RANK[c] == r for c in hand) >= 3 for r in range(3, 8)))
            keys = sorted(((SUIT_VALUE[(mask >> 8 * s) & 0xFF], lengths[s]) for s in range(4) if lengths[s]),
                          reverse=True)
            add("exchange: equal best point suits", len(keys) >= 2 and keys[0] == keys[1])
            continue
        add("play, later hand or game", any(v["game_score"]) or any(v["games_won"]))
        known = mask
        for cards in (*v["played"], v["discards"]):
            known |= sum(1 << c for c in cards)
        led = v["trick_card"]
        if led is None:
            masters = [c for c in legal if not HIGHER[c] & ~known]
            if masters:
                add("lead: a master card")
                best = min((RANK[c], -lengths[SUIT[c]]) for c in masters)
                add("lead: masters of equal keys", sum((RANK[c], -lengths[SUIT[c]]) == best for c in masters) >= 2)
            else:
                add("lead: no master card")
                shown = sum(1 << c for c in v["revealed"][1]) & ~known
                keys = [((HIGHER[c] & ~known).bit_count() + (HIGHER[c] & shown).bit_count(), RANK[c]) for c in legal]
                add("lead: no master, equal keys", keys.count(min(keys)) >= 2)
            continue
        following = [c for c in legal if SUIT[c] == SUIT[led]]
        if following:
            winners = [c for c in following if RANK[c] > RANK[led]]
            add("follow: the cheapest winner" if winners else "follow: cannot win")
            add("follow: lower cards legal too", bool(winners) and len(winners) < len(following))
        else:
            add("follow: void")
            keys = [(RANK[c], (HIGHER[c] & mask).bit_count() - (HIGHER[c] & ~known).bit_count()) for c in legal]
            add("follow: void, equal ranks", sum(k[0] == min(keys)[0] for k in keys) >= 2)
            add("follow: void, equal keys", keys.count(min(keys)) >= 2)
    return out


def picchetto_trajectories(case: Case, flags: dict, seed: int) -> int:
    """`num_games` explicit deals played to the episode's end by vector_env (batched heuristic at both seats)
    and by the AEC env (Python heuristics); later hands: the AEC state's generator replays the batched
    game's stream (`StreamRng` of `tests/envs/test_picchetto_batched.py`), so both deal the same shuffles."""
    from envs.core.vector import seed_streams
    from tests.envs.test_picchetto_batched import StreamRng

    rnd = np.random.default_rng(seed)
    game = make_raw_env(case.game, **flags).game
    options = []
    while len(options) < case.num_games:  # explicit deals only (no draw before the stream), none over at the deal
        opt = case.deal(rnd)
        if opt is not None and not game.new_state(np.random.default_rng(0), game.parse_options(opt)).over:
            options.append(opt)
    b = len(options)
    venv = game_spec(case.game).vector_env(b, **flags)
    opponent = make_opponent("heuristic", case.game, flags, seed)
    assert isinstance(opponent, case.batched_class()), type(opponent)
    obs, mask = venv.reset(seed=seed, options=options)
    moves: list[list[tuple[int, int]]] = [[] for _ in range(b)]
    returns = np.zeros((b, venv.num_players))
    done = np.zeros(b, dtype=bool)
    while not done.all():
        actions = opponent.act(obs, mask)
        for i in np.flatnonzero(~done):
            moves[i].append((int(venv.current_player[i]), int(actions[i])))
        obs, mask, rewards, term, trunc, _ = venv.step(actions)
        returns[~done] += rewards[~done]
        done |= term | trunc
    compared, hands = 0, 0
    streams = seed_streams(seed, b)
    for i, opt in enumerate(options):
        env = make_raw_env(case.game, **flags)
        env.reset(seed=seed, options=opt)
        env.state_.rng = StreamRng(streams[i])
        seats = {a: k for k, a in enumerate(env.possible_agents)}
        players = {a: make_agent("heuristic", case.game, seed=seed + k) for a, k in seats.items()}
        aec_moves, aec_returns = [], np.zeros(len(seats))
        for agent in env.agent_iter():
            o, reward, term, trunc, _ = env.last()
            aec_returns[seats[agent]] += reward
            if term or trunc:
                env.step(None)
                continue
            a = int(players[agent].act(o))
            aec_moves.append((seats[agent], a))
            env.step(a)
        if moves[i] != aec_moves:
            j = next(j for j in range(len(aec_moves) + 1) if moves[i][j : j + 1] != aec_moves[j : j + 1])
            pytest.fail(f"{case.game} {flags} game {i}: the trajectories part at move {j}: batched "
                        f"{moves[i][j : j + 1]}, Python {aec_moves[j : j + 1]} (seat, action)")
        np.testing.assert_array_equal(returns[i], aec_returns, err_msg=f"{case.game} {flags} game {i}: returns")
        compared += len(aec_moves)
        hands += env.state_.hand_no
    assert hands >= 2 * b, (flags, hands)  # later hands (the stream's shuffles) are compared too
    return compared

PICCHETTO_VARIANT = {"episode": "game", "must_head_trick": False, "dealer_min_exchange": 0, "allow_peek": True,
                     "trick_scoring": "classic", "first_dealer": 0}

PICCHETTO = Case(
    game="picchetto",
    batched="agents.batched.picchetto:PicchettoBatchedHeuristic",
    variants=({}, PICCHETTO_NON_DEFAULT, PICCHETTO_VARIANT),
    episodes=22,
    deal=picchetto_deal,
    coverage=picchetto_coverage,
    minimum={"elder exchange": 500, "dealer exchange": 400, "exchange: discard, END_EXCHANGE legal": 600,
             "exchange: discard, END_EXCHANGE not legal": 150, "exchange: END_EXCHANGE with discards legal": 30,
             "exchange: cheapest value at the threshold": 10, "exchange: equal cheapest values": 200,
             "exchange: a run of five or more": 40, "exchange: a trio or quatorze": 300,
             "exchange: equal best point suits": 40, "play, later hand or game": 2000, "lead: a master card": 800,
             "lead: masters of equal keys": 50, "lead: no master card": 300, "lead: no master, equal keys": 25,
             "follow: the cheapest winner": 300, "follow: cannot win": 300, "follow: lower cards legal too": 40,
             "follow: void": 400, "follow: void, equal ranks": 100,
             "follow: void, equal keys": 15},
    trajectories=picchetto_trajectories,
    trajectory_flags=({}, PICCHETTO_NON_DEFAULT, PICCHETTO_VARIANT),
)

CASES = [pytest.param(BRISCOLA5, id="briscola5"), pytest.param(PICCHETTO, id="picchetto")]


# -- Pigugnìn ----------------------------------------------------------------------------------
def pigugnin_deal(rnd: np.random.Generator, n: int) -> dict | None:
    """A seeded random deal (None) half the time, else an explicit deal (dealer, hands, some with busche).

    * a seat holds the strongest cards of one suit (masters to lead; the others stay trickless late);
    * a seat holds JS as its only Spade (JS thrown when void, D11's first trick);
    * any hands dealt from a given shuffle.

    A third of the explicit deals start late in a game (busche totals 0..4, valid for every variant).
    """
    from envs.pigugnin.game import PIGUGNIN, STRENGTH

    kind = int(rnd.integers(6))
    if kind < 3:
        return None
    size = 40 // n
    seat = int(rnd.integers(n))
    if kind == 3:
        suit = int(rnd.integers(4))
        own = sorted(range(10 * suit, 10 * suit + 10), key=lambda c: -STRENGTH[c])[:size]
    elif kind == 4:
        suit = int(rnd.choice([0, 1, 3]))
        own = [PIGUGNIN, *rnd.choice(np.arange(10 * suit, 10 * suit + 10), size - 1, replace=False).tolist()]
    else:
        own = []
    rest = [int(c) for c in rnd.permutation([c for c in range(40) if c not in own])]
    hands = [own if p == seat and own else [rest.pop() for _ in range(size)] for p in range(n)]
    options = {"dealer": int(rnd.integers(n)), "hands": hands}
    if rnd.integers(3) == 0:
        options["busche"] = [int(b) for b in rnd.integers(0, 5, size=n)]
    return options


def pigugnin_coverage(obs: np.ndarray, masks: np.ndarray, want: np.ndarray) -> dict[str, int]:
    """Which rule of the Python heuristic each row reaches, read back from the view and the action taken."""
    from agents.pigugnin_heuristic import KEEP_WINNERS_PLAYERS, SPADE, STRONGER, SUIT, TOP_POINTS, WEAKER
    from envs.pigugnin.game import PIGUGNIN, POINTS, STRENGTH
    from envs.pigugnin.observation import decode

    out: dict[str, int] = {}

    def hit(name: str, yes: bool = True) -> None:
        out[name] = out.get(name, 0) + int(yes)

    for o, m, a in zip(obs, masks, want.tolist(), strict=True):
        view = decode({"observation": o, "action_mask": m})
        n, hand, legal = view["num_players"], view["hand"], view["legal"]
        trick = [c for _, c in view["trick"]]
        trickless = view["tricks_won"][0] == 0
        unseen = ((1 << 40) - 1) ^ sum(1 << c for c in set(hand).union(*view["played"]))
        pig_out = bool(unseen >> PIGUGNIN & 1)
        hit(f"{n} players")
        hit(f"{len(trick)} cards on the table")
        hit("later hand of a game", any(view["busche"]))
        hit("D11: JS held, not playable", PIGUGNIN in hand and PIGUGNIN not in legal
            and (not trick or SUIT[trick[0]] == SUIT[PIGUGNIN] or SUIT[legal[0]] != SUIT[trick[0]]))
        master = a != PIGUGNIN and not unseen & STRONGER[a]
        if not trick:
            if trickless:
                hit("lead, trickless, a master", master)
                hit("lead, trickless, no master", not master)
            else:
                hit("lead, holding JS", PIGUGNIN in hand)
                hit("lead, not holding JS", PIGUGNIN not in hand)
                hit("lead, a Spade while JS is out", pig_out and SUIT[a] == SPADE)
                hit("lead, an exit with unseen cards below it", bool(unseen & WEAKER[a]))
                hit("lead, the higher of equal exits", any(SUIT[c] == SUIT[a] and STRENGTH[c] < STRENGTH[a]
                                                           for c in legal) and not unseen & WEAKER[a])
                hit("lead, a master (nothing else)", master)
            continue
        led = SUIT[trick[0]]
        best = max(STRENGTH[c] for c in trick if SUIT[c] == led)
        following = SUIT[legal[0]] == led
        last = len(trick) == n - 1
        winners = [c for c in legal if following and STRENGTH[c] > best]
        duckers = [c for c in legal if following and STRENGTH[c] < best]
        sure = [c for c in winners if last or not unseen & STRONGER[c]]
        hit("JS on the table", PIGUGNIN in trick)
        hit("last trick", len(hand) == 1)
        if trickless and winners:
            hit("trickless, a winner but JS on the table", PIGUGNIN in trick)
            hit("last trick, trickless with a winner", len(hand) == 1)
        if trickless and winners and PIGUGNIN not in trick:
            hit("trickless, takes a sure trick", a in sure)
            hit("trickless, tries its strongest", not sure and a in winners)
            hit("trickless, tries an Ace", not sure and a in winners and POINTS[a] == TOP_POINTS)
            continue
        if not following:
            hit("void", True)
            hit("void, throws JS", a == PIGUGNIN)
            hit("void, throws an Ace", POINTS[a] == TOP_POINTS)
            hit("void, throws a master", master)
            hit("void, throws a Spade above JS while JS is out", pig_out and SUIT[a] == SPADE
                and STRENGTH[a] > STRENGTH[PIGUGNIN])
            hit("void, throws a card that is not a master", a != PIGUGNIN and not master)
            hit("void, trickless", trickless)
            hit("void, trickless, keeps a master", trickless and not master
                and any(c != PIGUGNIN and not unseen & STRONGER[c] for c in legal))
        elif duckers:
            hit("ducks, trickless" if trickless else "ducks")
            hit("ducks with JS", a == PIGUGNIN)
            hit("ducks low: 5 players, trickless", trickless and n >= KEEP_WINNERS_PLAYERS
                and a != max(duckers, key=STRENGTH.__getitem__))
        else:
            hit("must win, last to play" if last else "must win, not last")
    return out


def _pigugnin_case(n: int) -> Case:
    late_game = {"loss_threshold": 6, "sole_loss_threshold": 9}
    least = {"lead, trickless, a master": 70, "lead, trickless, no master": 40, "lead, holding JS": 70,
             "lead, not holding JS": 800, "lead, a Spade while JS is out": 80, "lead, a master (nothing else)": 150,
             "lead, an exit with unseen cards below it": 300, "lead, the higher of equal exits": 100,
             "JS on the table": 150, "last trick": 300, "trickless, takes a sure trick": 300,
             "trickless, tries its strongest": 250, "trickless, tries an Ace": 25,
             "trickless, a winner but JS on the table": 30, "last trick, trickless with a winner": 3, "void": 1000,
             "void, throws JS": 100, "void, throws an Ace": 200, "void, throws a master": 800,
             "void, throws a Spade above JS while JS is out": 25, "void, throws a card that is not a master": 250,
             "void, trickless": 100, "void, trickless, keeps a master": 40,
             "ducks, trickless": 600, "ducks": 400, "ducks with JS": 50, "must win, last to play": 50,
             "must win, not last": 200, "D11: JS held, not playable": 20, "later hand of a game": 4000,
             **({"ducks low: 5 players, trickless": 400} if n == 5 else {})}
    return Case(
        game="pigugnin",
        batched="agents.batched.pigugnin:PigugninBatchedHeuristic",
        variants=(
            {"num_players": n},
            {"num_players": n, "pigugnin_first_trick_restriction": True, "first_hand_leader": "holder_7D", **late_game},
            {"num_players": n, "episode": "hand", "first_dealer": n - 1, "pigugnin_first_trick_restriction": True},
        ),
        episodes=20,
        deal=lambda rnd: pigugnin_deal(rnd, n),
        coverage=pigugnin_coverage,
        minimum={f"{n} players": 9000, **{f"{k} cards on the table": 1500 for k in range(n)}, **least},
        trajectories=generic_trajectories,
        trajectory_flags=(
            {"num_players": n},
            {"num_players": n, "pigugnin_first_trick_restriction": True, "first_hand_leader": "holder_7D",
             "outcome_reward": {"win": 1, "draw": 0, "lose": -1}, "multi_loser_policy": "top_two", **late_game},
            {"num_players": n, "episode": "hand", "tie_penalty_scope": "paying_scores_only"},
        ),
        extra={"perm_key": "order"},
    )


PIGUGNIN4, PIGUGNIN5 = _pigugnin_case(4), _pigugnin_case(5)
CASES += [pytest.param(PIGUGNIN4, id="pigugnin-4"), pytest.param(PIGUGNIN5, id="pigugnin-5")]


# -- the tests ---------------------------------------------------------------------------------
@pytest.mark.parametrize("case", first_fast(CASES))
def test_batched_heuristic_chooses_the_python_heuristic_action_on_every_observation(case: Case):
    heuristic = case.batched_class()(case.game, seed=0, flags={})
    covered: dict[str, int] = {}
    rows = 0
    for v, flags in enumerate(case.variants):
        obs, masks, want = collect(case, flags, seed=v)
        obs_before, masks_before = obs.copy(), masks.copy()
        got = heuristic.act(obs, masks)
        assert got.dtype == np.int64 and got.shape == want.shape
        _assert_same(case, obs, masks, want, got, f"flags {flags}")
        np.testing.assert_array_equal(obs, obs_before)  # the caller's arrays are left alone
        np.testing.assert_array_equal(masks, masks_before)
        # Rows are independent: any order, any chunking gives the same actions.
        order = np.random.default_rng(v).permutation(len(want))
        _assert_same(case, obs[order], masks[order], want[order], heuristic.act(obs[order], masks[order]),
                     f"flags {flags}, rows shuffled")
        chunks = np.concatenate([heuristic.act(obs[i : i + 7], masks[i : i + 7]) for i in range(0, 301, 7)])
        _assert_same(case, obs, masks, want[: chunks.size], chunks, f"flags {flags}, chunks of 7 rows")
        rows += len(want)
        for name, count in case.coverage(obs, masks, want).items():
            covered[name] = covered.get(name, 0) + count
    short = {name: (covered.get(name, 0), least) for name, least in case.minimum.items() if covered.get(name, 0) < least}
    assert not short, f"{case.game}: {rows} rows reach too few of (count, least): {short}"
    assert rows >= 3000, rows


@pytest.mark.parametrize("case", first_fast(CASES))
def test_batched_heuristics_play_the_same_games_as_python_heuristics(case: Case):
    for k, flags in enumerate(case.trajectory_flags):
        compared = case.trajectories(case, flags, seed=100 + k)
        assert compared >= 20 * case.num_games, (flags, compared)


@pytest.mark.parametrize("case", CASES)
def test_the_trainer_picks_up_the_batched_heuristic(case: Case):
    cls = case.batched_class()
    assert batched_heuristic_class(case.game) is cls
    python_name = game_spec(case.game).heuristic.partition(":")[2]
    assert getattr(importlib.import_module(cls.__module__), python_name) is cls
    opponent = make_opponent("heuristic", case.game, {}, seed=1)
    assert isinstance(opponent, cls) and opponent.name == "heuristic"
    assert make_opponent("heuristic-python", case.game, {}, seed=1).name == "heuristic-python"


@pytest.mark.parametrize("case", CASES)
def test_batched_heuristic_rejects_rows_it_cannot_decide(case: Case):
    heuristic = case.batched_class()(case.game, seed=0, flags={})
    env = make_raw_env(case.game)
    env.reset(seed=0)
    o = env.last()[0]
    obs, mask = o["observation"][None], o["action_mask"][None]
    assert heuristic.act(obs[:0], mask[:0]).shape == (0,)
    with pytest.raises(ValueError, match="row 1: the action mask is all zeros"):
        heuristic.act(np.repeat(obs, 2, axis=0), np.stack([mask[0], np.zeros_like(mask[0])]))
    with pytest.raises(ValueError, match="expected observations"):
        heuristic.act(obs[:, :-1], mask)
    with pytest.raises(ValueError, match="expected observations"):
        heuristic.act(obs, np.repeat(mask, 2, axis=0))


def test_import_agents_needs_no_numba():
    """`import agents` and the Python heuristics work without numba; agents.batched is imported only when used."""
    games = sorted({case.values[0].game for case in CASES})
    code = (
        "import sys\n"
        "sys.modules['numba'] = None  # any import of numba now fails\n"
        "import agents\n"
        "from agents import make_agent\n"
        "from envs.registry import make_raw_env\n"
        f"for game in {games!r}:\n"
        "    env = make_raw_env(game)\n"
        "    env.reset(seed=0)\n"
        "    make_agent('heuristic', game).act(env.last()[0])\n"
        "assert not any(m.startswith('agents.batched') for m in sys.modules), sorted(sys.modules)\n"
    )
    subprocess.run([sys.executable, "-c", code], check=True, cwd=str(__import__("pathlib").Path(__file__).parents[2]))
