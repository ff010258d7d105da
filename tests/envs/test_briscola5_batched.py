"""The batched Briscola engine (`briscola5_v0.vector_env`) plays the AEC env's game, byte for byte.

Method (differential, step by step). `Differential` holds one `Briscola5VectorEnv` of B
games and B AEC `raw_env`s, one per game, and steps them with the same actions:

* First deals: the batched engine deals (from its seeded streams, or from explicit
  `reset(options=[...])`: deals with 0-point hands for the forfeit check, and deals copied from
  seeded AEC envs' states), then each AEC env is reset with that very deal, read from the batched
  state (`options={"dealer": dealer[i], "hands": dealt[i]}`).
* Later hands of a match are shuffled by the batched engine from its own stream; the AEC state's
  generator is replaced by `_DealDouble`, whose `permutation(40)` returns the shuffle the
  batched engine drew for that hand (`state["perm"][i]`, read after the batched step and before
  the AEC step), so both sides deal the same cards. The double counts its calls: the AEC engine
  must shuffle exactly when the batched one started a new hand within the episode.
* After every step, for every game: the actor, the observation (bytes), the mask, the per-step
  rewards of the five seats, terminated/truncated, the WHOLE absolute observer buffer (every
  seat's private rows too) and one seat's privileged vector (`envs/briscola5/privileged.py`, seats
  in turn) must be identical; every few steps `observe(seat)` is compared for
  all five seats. When an episode ends the batched game is re-dealt at once: the AEC env is reset
  with the new deal and the next comparison is the new episode's first observation.
* Actions: uniform over the legal ids, except that in the auction each game passes with its own
  probability (0, 0.5, 0.9 or 1), so that all-pass auctions (void hands, `force_dealer`) and long
  runs of void hands (the truncation after 100 of them) happen; the forfeit check is a coin flip.

Deals and events are counted (`Differential.stats`) and the tests assert minimum counts of
each: deals per flag variant (at least 2,000 in every variant of `VARIANTS`), forfeits, all-pass
voids, forced dealers, solos, cappotti, multi-hand matches, truncations.
`benchmarks/vector_briscola5.py` runs the same harness over 100,000+ deals.
"""

from __future__ import annotations

import importlib
import sys

import numpy as np
import pytest

pytest.importorskip("numba")

from envs import briscola5_v0  # noqa: E402
from envs.briscola5.batched import Briscola5VectorEnv  # noqa: E402
from envs.briscola5.game import FORFEIT, NO_FORFEIT, NUM_ACTIONS, PASS, POINTS  # noqa: E402
from envs.briscola5.observation import LAYOUT  # noqa: E402
from envs.briscola5.privileged import privileged as privileged_reference  # noqa: E402
from envs.core.errors import ConfigError, DealError, IllegalActionError  # noqa: E402
from tests.envs.common import assert_privileged_matches, first_fast

N = 5
ZERO_POINT_CARDS = [c for c in range(40) if POINTS[c] == 0]  # 2, 4, 5, 6, 7 of every suit


class _DealDouble:
    """Stands in for an AEC state's generator: its shuffles are the batched engine's draws."""

    def __init__(self, perm_row: np.ndarray):
        self.row = perm_row  # a view of the batched state["perm"][i], read at call time
        self.calls = 0

    def permutation(self, n):
        assert n == 40
        self.calls += 1
        return self.row.astype(np.int64)

    def integers(self, *args, **kwargs):
        raise AssertionError("the AEC engine drew a random number other than a shuffle mid-episode")


def _fields_differing(a: np.ndarray, b: np.ndarray, absolute: bool) -> list[str]:
    """Names of the layout fields where two buffers (or observations) differ."""
    bad = np.flatnonzero(a.view(np.uint32) != b.view(np.uint32))
    out = []
    for f in LAYOUT.fields.values():
        start = f.abs_offset if absolute else f.obs_offset
        size = f.size * (N if absolute and f.kind == "private" else 1)
        if ((bad >= start) & (bad < start + size)).any():
            out.append(f.name)
    return out


def zero_point_deal(rnd: np.random.Generator, seats: list[int], dealer: int | None = None) -> dict:
    """Reset options dealing 0-point hands to `seats` (at most two), the rest at random."""
    zero = list(rnd.permutation(ZERO_POINT_CARDS))
    hands: list[list[int]] = [[] for _ in range(N)]
    for s in seats:
        hands[s], zero = [int(c) for c in zero[:8]], zero[8:]
    taken = {c for h in hands for c in h}
    rest = [int(c) for c in rnd.permutation([c for c in range(40) if c not in taken])]
    for s in range(N):
        while len(hands[s]) < 8:
            hands[s].append(rest.pop())
    opts: dict = {"hands": hands}
    if dealer is not None:
        opts["dealer"] = dealer
    return opts


def aec_deal_options(seed: int, **flags) -> dict:
    """The first deal of a seeded AEC env, as reset options (card codes)."""
    env = briscola5_v0.raw_env(**flags)
    env.reset(seed=seed)
    s = env.state_
    deck = env.game.deck
    return {"dealer": s.dealer, "hands": [deck.format_mask(h).split() for h in s.dealt]}


class Differential:
    """B batched games stepped side by side with B AEC envs; every step is compared."""

    def __init__(self, num_envs: int, flags: dict, seed: int = 0, pass_probs=(0.0, 0.5, 0.9), observe_every: int = 5):
        self.flags = dict(flags)
        self.v = briscola5_v0.vector_env(num_envs, **flags)
        self.B = num_envs
        self.aecs = [briscola5_v0.raw_env(**flags) for _ in range(num_envs)]
        self.doubles: list[_DealDouble | None] = [None] * num_envs
        self.rnd = np.random.default_rng(seed)
        self.pass_p = np.array([pass_probs[i % len(pass_probs)] for i in range(num_envs)])
        self.observe_every = observe_every
        self.steps = 0
        self.stats = dict.fromkeys(
            ("deals", "episodes", "steps", "explicit", "forfeit", "all_pass", "force_dealer", "played", "solo",
             "cappotto", "multi_hand", "terminated", "truncated", "no_forfeit"), 0
        )

    # -- deals ------------------------------------------------------------------------------
    def _sync_aec(self, i: int) -> None:
        """Reset AEC env `i` with the batched game's current (first) deal."""
        st = self.v.state
        assert st["hand_no"][i] == 1
        hands = [[c for c in range(40) if int(st["dealt"][i, p]) >> c & 1] for p in range(N)]
        aec = self.aecs[i]
        aec.reset(options={"dealer": int(st["dealer"][i]), "hands": hands})
        self.doubles[i] = _DealDouble(st["perm"][i])
        aec.state_.rng = self.doubles[i]
        self.stats["deals"] += 1
        self.stats["episodes"] += 1

    def reset(self, seed: int | None, options: list | None = None) -> None:
        obs, mask = self.v.reset(seed=seed, options=options)
        for i in range(self.B):
            if options is not None and options[i] is not None:
                self.stats["explicit"] += 1
                given = options[i]
                st = self.v.state
                if "dealer" in given:
                    assert st["dealer"][i] == given["dealer"]
                if "hands" in given:
                    deck = self.aecs[i].game.deck
                    assert [int(h) for h in st["dealt"][i]] == [deck.mask(h) for h in given["hands"]]
            self._sync_aec(i)
        self._compare(obs, mask, None, None, None)

    # -- play -------------------------------------------------------------------------------
    def choose(self, mask: np.ndarray) -> np.ndarray:
        noise = self.rnd.random(mask.shape)
        acts = np.argmax(np.where(mask == 1, noise, -1.0), axis=1)
        auction = mask[:, PASS] == 1
        acts[auction & (self.rnd.random(self.B) < self.pass_p)] = PASS
        return acts.astype(np.int64)

    def step(self, actions: np.ndarray | None = None) -> None:
        v = self.v
        if actions is None:
            actions = self.choose(v.mask)
        hand_before = v.state["hand_no"].copy()
        obs, mask, rewards, term, trunc, _ = v.step(actions)
        self.steps += 1
        st = v.state
        for i in range(self.B):
            aec, a = self.aecs[i], int(actions[i])
            calls = self.doubles[i].calls
            if a == FORFEIT:
                self.stats["forfeit"] += 1
            elif a == NO_FORFEIT:
                self.stats["no_forfeit"] += 1
            aec.step(a)
            self.stats["steps"] += 1
            done = bool(term[i] or trunc[i])
            # The AEC engine shuffled exactly when the batched one dealt a new hand of this episode.
            new_hand = not done and st["hand_no"][i] != hand_before[i]
            assert self.doubles[i].calls == calls + int(new_hand), (i, self.steps)
            self.stats["deals"] += int(new_hand)
            if a == PASS and st["phase"][i] == 2 and st["passed"][i] == 31:
                self.stats["force_dealer"] += 1
            got = np.array([aec.rewards[p] for p in aec.possible_agents], dtype=np.float32)
            assert (got == rewards[i]).all(), (i, self.steps, got, rewards[i])
            assert bool(term[i]) == any(aec.terminations.values()), (i, self.steps)
            assert bool(trunc[i]) == any(aec.truncations.values()), (i, self.steps)
            if done:
                result = aec.infos["player_0"]["result"]
                assert result["truncated"] == bool(trunc[i])
                assert [float(x) for x in result["totals"]] == [float(x) for x in self._returns[i] + rewards[i]]
                self._count(result, bool(trunc[i]))
                self._sync_aec(i)
        self._compare(obs, mask, rewards, term, trunc)

    def _count(self, result: dict, truncated: bool) -> None:
        s = self.stats
        s["truncated" if truncated else "terminated"] += 1
        s["multi_hand"] += len(result["hands"]) > 1
        for h in result["hands"]:
            if h["void"] == "all_pass":
                s["all_pass"] += 1
            elif h["void"] is None:
                s["played"] += 1
                s["solo"] += bool(h["solo"])
                s["cappotto"] += bool(h["cappotto"])

    def _compare(self, obs, mask, rewards, term, trunc) -> None:
        v = self.v
        if rewards is None:
            self._returns = np.zeros((self.B, N), dtype=np.float64)
        else:
            self._returns += rewards
            done = term | trunc
            self._returns[done] = 0.0
        for i, aec in enumerate(self.aecs):
            seat = int(v.current_player[i])
            assert aec.agent_selection == f"player_{seat}", (i, self.steps, aec.agent_selection, seat)
            want = aec.observe(aec.agent_selection)
            if not np.array_equal(want["observation"].view(np.uint32), obs[i].view(np.uint32)):
                raise AssertionError(f"game {i} step {self.steps}: observation differs in "
                                     f"{_fields_differing(want['observation'], obs[i], False)}")
            assert np.array_equal(want["action_mask"], mask[i]), (i, self.steps)
            if not np.array_equal(aec.observer.buf.view(np.uint32), v.buf[i].view(np.uint32)):
                raise AssertionError(f"game {i} step {self.steps}: buffer differs in "
                                     f"{_fields_differing(aec.observer.buf, v.buf[i], True)}")
        # the privileged vectors (issue 22) of a seat per game, every seat in turn
        assert_privileged_matches(v, self.aecs, privileged_reference, (v.current_player + 1 + self.steps) % N)
        if self.observe_every and self.steps % self.observe_every == 0:
            for seat in range(N):
                got = v.observe(seat)
                for i, aec in enumerate(self.aecs):
                    want = aec.observe(f"player_{seat}")["observation"]
                    assert np.array_equal(want.view(np.uint32), got[i].view(np.uint32)), (i, seat, self.steps)

    def run(self, steps: int) -> None:
        for _ in range(steps):
            self.step()


def mixed_options(rnd: np.random.Generator, num_envs: int, flags: dict, round_no: int) -> list:
    """Reset options for one round: 0-point deals, deals of seeded AEC envs, and random deals."""
    out: list = []
    for i in range(num_envs):
        kind = (i + round_no) % 4
        if kind == 0:
            seats = [int(s) for s in rnd.choice(N, size=1 + (i % 3 == 0), replace=False)]
            out.append(zero_point_deal(rnd, seats, dealer=int(rnd.integers(N)) if i % 2 else None))
        elif kind == 1:
            out.append(aec_deal_options(1000 * round_no + i, **flags))
        else:
            out.append(None)
    return out


#: Flag variants of the differential test: flags, pass probabilities of the games, deals at least,
#: steps per round (a round: a reset with mixed options, then that many steps of every game).
VARIANTS = {
    "defaults": ({}, (0.0, 0.5, 0.9), 2000, 120),
    "non-default": (
        {"first_dealer": 3, "first_lead": "caller", "min_bid": 70, "min_raise": 3, "max_bid": 110,
         "all_pass_policy": "force_dealer", "void_hands_count": False, "bid_multiplier_on_loss": True,
         "cappotto_definition": "tricks", "allow_call_own_card": False, "num_hands": 3},
        (0.0, 0.6, 0.95), 2000, 400,
    ),
    "match": (
        {"num_hands": 5, "first_dealer": 0, "min_raise": 10, "bid_multiplier_on_loss": True},
        (0.0, 0.5, 0.9), 2000, 400,
    ),
    "voids-do-not-count": (
        {"num_hands": 2, "void_hands_count": False, "max_bid": 61, "forfeit_enabled": False},
        (0.5, 0.9, 0.97), 2000, 300,
    ),
}


def run_variant(flags: dict, pass_probs, min_deals: int, steps_per_round: int, num_envs: int = 64,
                seed: int = 0, observe_every: int = 10) -> dict:
    """Differential rounds (a reset with mixed options, then `steps_per_round` steps) until `min_deals`."""
    diff = Differential(num_envs, flags, seed=seed, pass_probs=pass_probs, observe_every=observe_every)
    rnd = np.random.default_rng(seed + 1)
    round_no = 0
    while diff.stats["deals"] < min_deals:
        options = mixed_options(rnd, num_envs, flags, round_no) if round_no % 3 else None
        diff.reset(seed=seed * 7919 + round_no, options=options)
        diff.run(steps_per_round)
        round_no += 1
    return diff.stats


@pytest.mark.parametrize("variant", first_fast(VARIANTS))
def test_differential_against_the_aec_env(variant):
    flags, pass_probs, min_deals, steps_per_round = VARIANTS[variant]
    stats = run_variant(flags, pass_probs, min_deals, steps_per_round)
    assert stats["deals"] >= min_deals
    assert stats["explicit"] > 0 and stats["played"] > 0 and stats["terminated"] > 0
    if flags.get("forfeit_enabled", True):
        assert stats["forfeit"] > 0 and stats["no_forfeit"] > 0
    else:
        assert stats["forfeit"] == 0 and stats["no_forfeit"] == 0  # 0-point deals given, no check asked
    if flags.get("all_pass_policy") == "force_dealer":
        assert stats["force_dealer"] > 0 and stats["all_pass"] == 0
    else:
        assert stats["all_pass"] > 0 and stats["force_dealer"] == 0
    if flags.get("num_hands", 1) > 1:
        assert stats["multi_hand"] > 0
    assert stats["cappotto"] > 0
    assert (stats["solo"] > 0) == flags.get("allow_call_own_card", True)


@pytest.mark.parametrize("void_hands_count", [False, True])
def test_differential_runs_of_void_hands(void_hands_count):
    """Games that always pass: 100 void hands truncate only when void hands do not count."""
    flags = {"num_hands": 2 if not void_hands_count else 104, "void_hands_count": void_hands_count}
    diff = Differential(8, flags, seed=3, pass_probs=(1.0,), observe_every=50)
    diff.reset(seed=3, options=[zero_point_deal(diff.rnd, [1]) if i == 0 else None for i in range(8)])
    forfeits = 0
    for _ in range(540):
        acts = diff.choose(diff.v.mask)
        acts[acts == FORFEIT] = NO_FORFEIT  # the forfeit check declines: these runs are all-pass voids
        forfeits += int((diff.v.mask[:, FORFEIT] == 1).sum())
        diff.step(acts)
    if void_hands_count:
        assert diff.stats["truncated"] == 0 and diff.stats["terminated"] >= 8
    else:
        assert diff.stats["truncated"] >= 8 and diff.stats["terminated"] == 0
    assert forfeits >= 1


@pytest.mark.parametrize("all_pass_policy", ["void", "force_dealer"])
def test_differential_scripted_forfeits_and_all_pass_auctions(all_pass_policy):
    """Scripted: 0-point hands asked in playing order, forfeits, declines, all-pass auctions."""
    rnd = np.random.default_rng(8)
    flags = {"num_hands": 2, "all_pass_policy": all_pass_policy}
    diff = Differential(4, flags, seed=8, pass_probs=(0.0,), observe_every=1)
    options = [
        zero_point_deal(rnd, [1, 3], dealer=0),  # seat 1 declines, seat 3 forfeits: void hand
        zero_point_deal(rnd, [4, 2], dealer=0),  # asked 2 then 4 (playing order from seat 1); both decline
        zero_point_deal(rnd, [0], dealer=4),  # seat 0 (the first player) forfeits at once
        {"dealer": 2},  # a random deal with dealer 2: everyone passes
    ]
    diff.reset(seed=8, options=options)
    v, st = diff.v, diff.v.state
    assert v.current_player.tolist()[:3] == [1, 2, 0]
    assert st["forfeit_pending"].tolist()[:3] == [0b01010, 0b10100, 0b00001]
    scripts = [[NO_FORFEIT, FORFEIT], [NO_FORFEIT, NO_FORFEIT] + [PASS] * 5, [FORFEIT], []]
    passes = 0
    for t in range(7):
        acts = diff.choose(v.mask)
        for i, script in enumerate(scripts):
            if t < len(script):
                acts[i] = script[t]
        if passes < 5:  # game 3: declines any forfeit check, then five passes
            acts[3] = PASS if v.mask[3, PASS] else NO_FORFEIT
            passes += int(acts[3] == PASS)
        diff.step(acts)
        if t == 0:  # seat 0's forfeit voided game 2's first hand; the deal moved on
            assert (st["hand_no"][2], st["dealer"][2], st["hands_played"][2]) == (2, 0, 1)
        if t == 1:  # seat 3 forfeited game 0's first hand after seat 1 declined
            assert (st["hand_no"][0], st["dealer"][0], st["hands_played"][0]) == (2, 1, 1)
        if t == 6:  # all five passed in game 1
            if all_pass_policy == "void":
                assert (st["hand_no"][1], st["dealer"][1]) == (2, 1)
            else:  # the dealer calls at min_bid without being asked
                assert (st["caller"][1], st["contract"][1], st["phase"][1], v.current_player[1]) == (0, 61, 2, 0)
    assert passes == 5
    assert diff.stats["forfeit"] == 2 and diff.stats["no_forfeit"] >= 3


def test_vector_env_of_one_game():
    diff = Differential(1, {"num_hands": 2}, seed=5, pass_probs=(0.3,), observe_every=3)
    for round_no in range(3):
        diff.reset(seed=round_no, options=[zero_point_deal(diff.rnd, [2])] if round_no == 1 else None)
        diff.run(150)
    assert diff.stats["deals"] >= 6


# -- API ---------------------------------------------------------------------------------------


def _snapshot(v) -> dict:
    out = {k: a.copy() for k, a in v.state.items()}
    for k in ("buf", "mask", "rng", "current_player", "obs", "rewards", "terminated", "truncated"):
        out["_" + k] = getattr(v, k).copy()
    return out


def _same(a: dict, b: dict) -> bool:
    return a.keys() == b.keys() and all(np.array_equal(a[k], b[k]) for k in a)


def test_same_seed_same_deals_other_seed_other_deals():
    a, b, c = (briscola5_v0.vector_env(16) for _ in range(3))
    a.reset(seed=11)
    b.reset(seed=11)
    c.reset(seed=12)
    assert np.array_equal(a.state["dealt"], b.state["dealt"]) and np.array_equal(a.state["dealer"], b.state["dealer"])
    assert not np.array_equal(a.state["dealt"], c.state["dealt"])
    rnd = np.random.default_rng(0)
    for _ in range(300):  # several episodes: re-deals come from the same streams too
        acts = np.array([rnd.choice(np.flatnonzero(m)) for m in a.mask])
        ra = a.step(acts)
        rb = b.step(acts)
        for x, y in zip(ra[:5], rb[:5], strict=True):
            assert np.array_equal(x, y)
    # the first dealer is random and every seat deals first sometimes
    a.reset(seed=1)
    assert set(a.state["dealer"].tolist()) == set(range(5))


def test_illegal_actions_raise_and_change_nothing():
    v = briscola5_v0.vector_env(6)
    v.reset(seed=4)
    rnd = np.random.default_rng(1)
    for step in range(80):
        legal = np.array([rnd.choice(np.flatnonzero(m)) for m in v.mask])
        if step % 9 == 0:
            before = _snapshot(v)
            k = step % 6
            for bad in (int(np.flatnonzero(v.mask[k] == 0)[0]), NUM_ACTIONS, -1):
                acts = legal.copy()
                acts[k] = bad
                with pytest.raises(IllegalActionError, match=f"game {k}: action {bad} is not legal"):
                    v.step(acts)
                assert _same(before, _snapshot(v))
            with pytest.raises(IllegalActionError, match="actions must be an int array"):
                v.step(legal.astype(np.float64))
            with pytest.raises(IllegalActionError, match="actions must be an int array"):
                v.step(legal[:3])
            assert _same(before, _snapshot(v))
        v.step(legal)


@pytest.mark.parametrize(
    ("options", "match"),
    [
        ({"dealer": 1}, "must be None or a list of 3 dicts"),
        ([None, None], "must be None or a list of 3 dicts"),
        ([None, {"dealer": 7}, None], "game 1: .*'dealer' must be a seat number 0..4"),
        ([None, None, {"hands": [["AC"] * 8] * 5}], "game 2: .*given twice"),
        ([{"hands": [[0, 1, 2]] * 5}, None, None], "game 0: .*exactly 8 cards"),
    ],
)
def test_bad_options_raise_deal_error_and_keep_the_games(options, match):
    v = briscola5_v0.vector_env(3)
    v.reset(seed=2)
    v.step(np.array([np.flatnonzero(m)[0] for m in v.mask]))
    before = _snapshot(v)
    with pytest.raises(DealError, match=match):
        v.reset(seed=9, options=options)
    assert _same(before, _snapshot(v))


def test_get_state_set_state_clone_a_game():
    flags = {"num_hands": 3}
    v, w = briscola5_v0.vector_env(8, **flags), briscola5_v0.vector_env(4, **flags)
    v.reset(seed=6)
    w.reset(seed=60)
    rnd = np.random.default_rng(2)
    for _ in range(37):
        v.step(np.array([rnd.choice(np.flatnonzero(m)) for m in v.mask]))
    v.set_state(5, v.get_state(2))  # clone within one env and into another env
    w.set_state(1, v.get_state(2))
    assert v.current_player[5] == v.current_player[2] and np.array_equal(v.mask[5], v.mask[2])
    assert np.array_equal(v.observe(3)[5], v.observe(3)[2]) and np.array_equal(w.observe(3)[1], v.observe(3)[2])
    ended = 0
    for _ in range(400):  # across hand and episode ends: the random stream is cloned too
        acts = np.array([rnd.choice(np.flatnonzero(m)) for m in v.mask])
        acts[5] = acts[2]
        wa = np.array([rnd.choice(np.flatnonzero(m)) for m in w.mask])
        wa[1] = acts[2]
        vo = v.step(acts)
        wo = w.step(wa)
        for x, y in zip(vo[:5], wo[:5], strict=True):
            assert np.array_equal(x[2], x[5]) and np.array_equal(x[2], y[1])
        ended += bool(vo[3][2] or vo[4][2])
    assert ended >= 2
    with pytest.raises(ConfigError, match="set_state needs a get_state"):
        v.set_state(0, {"phase": v.state["phase"][0]})


def test_every_flag_is_supported():
    assert Briscola5VectorEnv.unsupported == {}
    v = briscola5_v0.vector_env(2, **VARIANTS["non-default"][0], forfeit_enabled=False)
    v.reset(seed=0)
    with pytest.raises(ConfigError, match="min_raise"):
        briscola5_v0.vector_env(2, min_raise=0)
    with pytest.raises(ConfigError, match="num_envs must be an int >= 1"):
        briscola5_v0.vector_env(0)


def test_import_without_numba(monkeypatch):
    """`import envs.briscola5_v0` works without numba; `vector_env` then says how to get it."""
    import envs

    monkeypatch.setitem(sys.modules, "numba", None)
    for name in ("envs.briscola5_v0", "envs.briscola5.batched", "envs.core.vector"):
        monkeypatch.delitem(sys.modules, name, raising=False)
    monkeypatch.setattr(envs, "briscola5_v0", briscola5_v0)  # restored afterwards
    module = importlib.import_module("envs.briscola5_v0")
    assert module.env is not None
    with pytest.raises(ImportError, match=r"vector_env needs numba: pip install 'mazzo\[vector\]'"):
        module.vector_env(1)
