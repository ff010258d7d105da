"""The batched Pigugnìn engine (`pigugnin_v0.vector_env`) against the AEC env, step by step.

Method. 64 games of one `PigugninVectorEnv` are stepped together next to 64 `raw_env`s with
the same flags; before every step the actor, the observation bytes and the mask of every game
are compared (and one seat's privileged vector, `envs/pigugnin/privileged.py`, seats in turn),
after it the per-seat rewards and the termination/truncation flags (and at an episode's end the
outcome and reason against the AEC result). Actions are random legal cards.

Deals:

* Explicit deals: the batched env is reset with `options` (one dict per game: `dealer`,
  `hands`, `busche` in every combination, built here from a seeded generator; some are
  cappotto deals, the leader holding a whole suit's top cards, some give one seat JS as its only
  Spade, for D11). The AEC env gets the same deal
  as full options: the given ones, completed with the dealer and hands the batched engine loaded
  (they come from the AEC engine's own `new_state`, which the base calls). The `busche` are
  drawn near `loss_threshold` / `sole_loss_threshold`, so that most of these episodes end
  within a hand or two and every rule of the end-of-game check is reached.
* Stream deals (every later hand of a game episode, and every fresh episode dealt by the
  batched engine after one ends or at a reset without options): the AEC env's generator is
  replaced by `StreamRng`, a test double whose `integers`/`permutation` return what the
  batched engine drew (its `deal_dealer` and `order` state arrays), and which counts its calls.
  The AEC engine therefore deals exactly the same cards by its own rules (who receives
  `order[k]`, who deals next, when the dealer is drawn, the D1b move), and any difference in
  those rules shows up as a different observation.

Every flag value is played in at least 2,000 deals (hands) in `CONFIGS`; the whole file runs in
well under a minute once numba's cache is warm. `benchmarks/vector_pigugnin.py` runs the same
harness over 100,000+ deals.
"""

from __future__ import annotations

import subprocess
import sys

import numpy as np
import pytest

pytest.importorskip("numba")

from envs import pigugnin_v0  # noqa: E402
from envs.core.errors import ConfigError, DealError, IllegalActionError  # noqa: E402
from envs.pigugnin.batched import OUTCOMES, REASONS, PigugninVectorEnv  # noqa: E402
from envs.pigugnin.privileged import privileged as privileged_reference  # noqa: E402
from tests.envs.cases import PIGUGNIN_NON_DEFAULT
from tests.envs.common import assert_privileged_matches, first_fast

BATCH = 64
NON_DEFAULT = PIGUGNIN_NON_DEFAULT  # the contract tests' non-default flag set (tests/envs/cases.py)
#: every flag value in at least one config; each config is played for at least MIN_DEALS deals
CONFIGS = {
    "defaults": {},
    "5p": {"num_players": 5},
    "non-default": NON_DEFAULT,
    "5p-non-default": {**NON_DEFAULT, "num_players": 5, "first_dealer": 4},
    "hand": {"episode": "hand", "loss_threshold": 5, "sole_loss_threshold": 8,
             "outcome_reward": {"win": 2, "lose": -2, "annulled": -1}},
    "5p-hand": {"episode": "hand", "num_players": 5, "multi_loser_policy": "top_two",
                "cappotto_others_outcome": "standard", "outcome_reward": {"win": 1, "draw": 0.25, "lose": -1}},
    "mixed": {"first_hand_leader": "holder_7D", "cappotto_others_outcome": "standard",
              "multi_loser_policy": "top_two", "loss_threshold": 3, "sole_loss_threshold": 4,
              "outcome_reward": {"win": 0.7, "draw": 0.1, "lose": -1.3, "annulled": 0.3}},
}
MIN_DEALS = 2000


class StreamRng:
    """Stands in for the AEC state's generator: returns the batched engine's draws for game `i`."""

    def __init__(self, venv: PigugninVectorEnv, i: int):
        self.venv, self.i = venv, i
        self.bit_generator = np.random.PCG64(i)  # only its state is read (the AEC env's episode record)
        self.integers_calls = 0
        self.permutation_calls = 0

    def integers(self, n: int) -> int:
        assert n == self.venv.num_players
        self.integers_calls += 1
        return int(self.venv.state["deal_dealer"][self.i])

    def permutation(self, n: int) -> np.ndarray:
        assert n == 40
        self.permutation_calls += 1
        return self.venv.state["order"][self.i].astype(np.int64)


def _hands_of(venv, i: int) -> list[list[int]]:
    """The hands as dealt in game i (read at the start of a hand), from `order`."""
    n = venv.num_players
    d = int(venv.state["deal_dealer"][i])
    order = venv.state["order"][i].tolist()
    return [order[(p - d - 1) % n :: n] for p in range(n)]


def _random_busche(rnd: np.random.Generator, game) -> list[int]:
    """Totals near the end of a game (never an already finished one)."""
    n = game.num_players
    loss, sole = game.flags["loss_threshold"], game.flags["sole_loss_threshold"]
    kind = rnd.integers(4)
    if kind == 0:  # everybody one short: annulled games, several losers at once
        totals = [loss - 1] * n
    elif kind == 3:  # one seat near the sole-loss threshold, the others anywhere below the loss one
        totals = [int(rnd.integers(0, loss)) for _ in range(n)]
        totals[int(rnd.integers(n))] = int(rnd.integers(max(loss, sole - 3), sole)) if sole > loss else loss - 1
    else:
        totals = [int(rnd.integers(max(0, loss - 4), loss)) for _ in range(n)]
        if kind == 2:  # one seat already past the loss threshold: one more loser ends the game
            totals[int(rnd.integers(n))] = int(rnd.integers(loss, sole)) if sole > loss else loss - 1
    game.parse_options({"busche": totals})  # never a finished game
    return totals


def _cappotto_deal(rnd: np.random.Generator, game) -> dict:
    """A deal where the first leader holds the top cards of one suit: he takes every trick."""
    n, size = game.num_players, game.hand_size
    suit = 1 if game.flags["first_hand_leader"] == "holder_7D" else int(rnd.integers(4))
    strongest = [2, 1, 0, 9, 8, 7, 6, 5, 4, 3]  # ranks 3 2 A K H J 7 6 5 4
    top = [10 * suit + r for r in strongest[:size]]
    rest = [c for c in range(40) if c not in top]
    rnd.shuffle(rest)
    leader = int(rnd.integers(n))
    hands, k = [], 0
    for p in range(n):
        if p == leader:
            hands.append(top)
        else:
            hands.append(rest[k : k + size])
            k += size
    return {"dealer": (leader - 1) % n, "hands": hands}


def _lone_pigugnin_deal(rnd: np.random.Generator, game) -> dict:
    """A deal where one seat holds JS as its only Spade and otherwise one other suit (D11's cases:
    a first trick led in a suit it lacks, or in Spade, or in its own suit)."""
    n, size = game.num_players, game.hand_size
    suit = int(rnd.choice([0, 1, 3]))
    own = [27, *rnd.choice(np.arange(10 * suit, 10 * suit + 10), size - 1, replace=False).tolist()]
    rest = [c for c in range(40) if c not in own]
    rnd.shuffle(rest)
    holder = int(rnd.integers(n))
    hands, k = [], 0
    for p in range(n):
        if p == holder:
            hands.append(own)
        else:
            hands.append(rest[k : k + size])
            k += size
    return {"dealer": int(rnd.integers(n)), "hands": hands}


def _random_options(rnd: np.random.Generator, game) -> dict | None:
    """One game's reset options: None (a stream deal) or a combination of dealer, hands, busche."""
    kind = int(rnd.integers(9))
    if kind == 0:
        return None
    opts: dict = {}
    if kind == 1:
        opts.update(_cappotto_deal(rnd, game))
    elif kind == 8:
        opts.update(_lone_pigugnin_deal(rnd, game))
    else:
        if kind in (2, 3, 4):
            opts["dealer"] = int(rnd.integers(game.num_players))
        if kind in (3, 4, 5):
            order = rnd.permutation(40).tolist()
            n = game.num_players
            opts["hands"] = [[f"{'A234567JHK'[c % 10]}{'CDSB'[c // 10]}" for c in order[p::n]] for p in range(n)]
    if kind != 4 and rnd.integers(5) > 0:
        opts["busche"] = _random_busche(rnd, game)
    return opts


class Harness:
    """One batched env and one AEC env per game, compared step by step."""

    def __init__(self, flags: dict, num_envs: int = BATCH, seed: int = 0):
        self.flags = flags
        self.venv = pigugnin_v0.vector_env(num_envs, **flags)
        self.aecs = [pigugnin_v0.raw_env(**flags) for _ in range(num_envs)]
        self.doubles = [StreamRng(self.venv, i) for i in range(num_envs)]
        for env, double in zip(self.aecs, self.doubles, strict=True):
            env._rng = double  # reset() without a seed keeps drawing from it
        self.rnd = np.random.default_rng(seed)
        self.seed = seed
        self.deals = 0
        self.episodes = 0
        self.steps = 0
        self.reasons: dict = {}
        self.outcomes: dict = {}
        self.returns = np.zeros((num_envs, self.venv.num_players))
        self.aec_returns = np.zeros((num_envs, self.venv.num_players))

    # -- episodes -----------------------------------------------------------------------
    def reset(self, with_options: bool = True) -> None:
        venv, game = self.venv, self.venv.game
        b = venv.num_envs
        options = [_random_options(self.rnd, game) for _ in range(b)] if with_options else None
        self.seed += 1
        venv.reset(seed=self.seed, options=options)
        for i, env in enumerate(self.aecs):
            opts = None if options is None else options[i]
            if opts is None:
                self._stream_reset(i)
            else:
                full = {**opts, "dealer": int(venv.state["deal_dealer"][i]), "hands": _hands_of(venv, i)}
                if "dealer" in opts and "hands" in opts:
                    full = opts  # the very options the batched env got
                env.reset(options=full)
                self.deals += 1
        self.returns[:] = 0
        self.aec_returns[:] = 0
        self.first_done = np.zeros(b, dtype=bool)

    def _stream_reset(self, i: int) -> None:
        double = self.doubles[i]
        ints, perms = double.integers_calls, double.permutation_calls
        self.aecs[i].reset()
        random_dealer = self.venv.game.flags["first_dealer"] == "random"
        assert double.integers_calls - ints == int(random_dealer)
        assert double.permutation_calls - perms == 1
        self.deals += 1

    # -- steps --------------------------------------------------------------------------
    def check_views(self, every_seat: bool = False) -> None:
        venv, aecs = self.venv, self.aecs
        actors = np.array([env.agent_name_mapping[env.agent_selection] for env in aecs])
        np.testing.assert_array_equal(venv.current_player, actors)
        views = [env.observe(env.agent_selection) for env in aecs]
        obs = np.stack([v["observation"] for v in views])
        mask = np.stack([v["action_mask"] for v in views])
        assert obs.tobytes() == venv.obs.tobytes(), self._where(obs, venv.obs)
        np.testing.assert_array_equal(venv.mask, mask)
        n = venv.num_players
        assert_privileged_matches(venv, aecs, privileged_reference, (actors + 1 + self.steps // venv.num_envs) % n)
        if every_seat:
            for seat in range(venv.num_players):
                want = np.stack([env.observe(env.possible_agents[seat])["observation"] for env in aecs])
                assert want.tobytes() == venv.observe(seat).tobytes(), self._where(want, venv.observe(seat))
            seats = self.rnd.integers(venv.num_players, size=venv.num_envs)
            want = np.stack([env.observe(env.possible_agents[s])["observation"] for env, s in zip(aecs, seats, strict=True)])
            assert want.tobytes() == venv.observe(seats).tobytes()

    def _where(self, want: np.ndarray, got: np.ndarray) -> str:
        rows, cols = np.nonzero(want != got)
        return f"first differences (game, index, aec, batched): {[(r, c, want[r, c], got[r, c]) for r, c in zip(rows[:5], cols[:5], strict=False)]}"

    def step(self, actions: np.ndarray | None = None) -> None:
        venv, aecs = self.venv, self.aecs
        if actions is None:  # random legal cards
            actions = np.argmax(np.where(venv.mask == 1, self.rnd.random(venv.mask.shape), -1.0), axis=1)
        hand_no = venv.state["hand_no"].copy()
        _, _, rewards, terminated, truncated, _ = venv.step(actions)
        assert not truncated.any()
        self.steps += venv.num_envs
        self.returns += rewards
        for i, env in enumerate(aecs):
            double = self.doubles[i]
            perms = double.permutation_calls
            env.step(int(actions[i]))
            want = np.array([env.rewards[a] for a in env.possible_agents], dtype=np.float32)
            assert want.tobytes() == rewards[i].tobytes(), (i, want, rewards[i])
            self.aec_returns[i] += [env.rewards[a] for a in env.possible_agents]
            over = all(env.terminations.values())
            assert bool(terminated[i]) == over, (i, terminated[i], env.terminations)
            assert not any(env.truncations.values())
            if over:
                result = env.infos[env.agents[0]]["result"]
                got = venv.state["outcome"][i]
                outcome = None if got[0] < 0 else [OUTCOMES[o] for o in got]
                assert outcome == result["outcome"], (i, outcome, result)
                assert REASONS[venv.state["reason"][i]] == result["reason"]
                self.reasons[result["reason"]] = self.reasons.get(result["reason"], 0) + 1
                for o in result["outcome"] or ():
                    self.outcomes[o] = self.outcomes.get(o, 0) + 1
                np.testing.assert_allclose(self.returns[i], self.aec_returns[i], rtol=1e-5, atol=1e-4)
                self.returns[i] = 0
                self.aec_returns[i] = 0
                self.episodes += 1
                self.first_done[i] = True
                self._stream_reset(i)
            elif venv.state["hand_no"][i] != hand_no[i]:  # the next hand was dealt from the stream
                assert double.permutation_calls == perms + 1
                self.deals += 1
            else:
                assert double.permutation_calls == perms


def run_config(flags: dict, min_deals: int, seed: int = 0, num_envs: int = BATCH, check_every: int = 7) -> Harness:
    """Rounds of resets (mostly with options) and steps until `min_deals` deals were compared."""
    h = Harness(flags, num_envs=num_envs, seed=seed)
    hand_steps = 40
    rounds = 0
    while h.deals < min_deals:
        h.reset(with_options=rounds % 4 != 3)
        h.check_views(every_seat=True)
        k = 0
        # Play until every game's first episode has ended (plus what was re-dealt meanwhile), at most 12 hands.
        while not h.first_done.all() and k < 12 * hand_steps:
            h.step()
            h.check_views(every_seat=k % check_every == 0)
            k += 1
        rounds += 1
    return h


@pytest.mark.parametrize("name", first_fast(CONFIGS))
def test_differential(name):
    h = run_config(CONFIGS[name], MIN_DEALS, seed=sum(map(ord, name)))
    assert h.deals >= MIN_DEALS
    # the end-of-game logic was reached, in every kind
    assert h.episodes >= 250, h.episodes
    assert {"cappotto", "losers", "sole_loser"} <= set(h.reasons), h.reasons
    assert {"win", "lose", "draw"} <= set(h.outcomes), h.outcomes
    if CONFIGS[name].get("episode") == "hand":
        assert None in h.reasons  # hands after which the game would go on


@pytest.mark.parametrize("name", ["defaults", "hand", "mixed"])
def test_annulled_game_of_the_spec_example(name):
    """Example 6.25b: from [9, 9, 9, 9] the scripted hand gives [12, 10, 10, 10], annulled (loss 10)."""
    flags = {**CONFIGS[name], "loss_threshold": 10, "sole_loss_threshold": 20, "first_hand_leader": "right_of_dealer"}
    hands = ["AC 2C 5C 2D 4D 6D 7D HD AS 3S", "JC HC KC KD 7S JS HS KS AB 7B",
             "3C 7C AD 4S 5S 2B 3B 4B 5B 6B", "4C 6C 3D 5D JD 2S 6S JB HB KB"]
    options = {"dealer": 3, "hands": [h.split() for h in hands], "busche": [9, 9, 9, 9]}
    h = Harness(flags, num_envs=2, seed=1)
    h.venv.reset(options=[options, {**options, "busche": [9, 9, 9, 8]}])
    h.first_done = np.zeros(2, dtype=bool)
    for i, env in enumerate(h.aecs):
        env.reset(options={**options, "busche": [[9, 9, 9, 9], [9, 9, 9, 8]][i]})
        h.deals += 1
    while not h.first_done.all():
        h.check_views(every_seat=True)
        h.step(np.argmax(h.venv.mask, axis=1))  # the lowest legal card id
    assert h.reasons == {"annulled": 1, "losers": 1}
    assert [OUTCOMES[o] for o in h.venv.state["outcome"][0]] == ["annulled"] * 4


def test_vector_env_of_one_game():
    for flags in ({}, {"num_players": 5, "episode": "hand"}):
        h = run_config(flags, 60, num_envs=1, check_every=1)
        assert h.deals >= 60


# -- seeds, errors, copies --------------------------------------------------------------------


def _play(venv, steps: int, seed: int = 0) -> list[bytes]:
    rnd = np.random.default_rng(seed)
    out = [venv.obs.tobytes()]
    for _ in range(steps):
        actions = np.argmax(np.where(venv.mask == 1, rnd.random(venv.mask.shape), -1.0), axis=1)
        obs, mask, rewards, term, trunc, _ = venv.step(actions)
        out.append(obs.tobytes() + mask.tobytes() + rewards.tobytes() + term.tobytes())
    return out


@pytest.mark.parametrize("n", [4, 5])
def test_same_seed_same_deals(n):
    a = pigugnin_v0.vector_env(8, num_players=n)
    b = pigugnin_v0.vector_env(8, num_players=n)
    a.reset(seed=3)
    pigugnin_v0.vector_env(5, num_players=n).reset(seed=4)  # other streams in the process change nothing
    b.reset(seed=3)
    assert _play(a, 300) == _play(b, 300)  # across hands and re-dealt episodes
    c = pigugnin_v0.vector_env(8, num_players=n)
    c.reset(seed=5)
    assert c.state["order"].tobytes() != a.state["order"].tobytes()
    a.reset(seed=3)
    first = a.state["order"].copy()
    a.reset(seed=6)
    assert (a.state["order"] != first).any(axis=1).all()  # every game's deal differs
    # within one reset the games differ from each other
    assert len({row.tobytes() for row in a.state["order"]}) == 8


def _snapshot(venv) -> list[bytes]:
    return [a.tobytes() for a in (*venv.state.values(), venv.buf, venv.rng, venv.mask, venv.current_player)]


def test_illegal_actions_raise_and_change_nothing():
    venv = pigugnin_v0.vector_env(6, num_players=5)
    venv.reset(seed=1)
    _play(venv, 13)
    before = _snapshot(venv)
    legal = np.argmax(venv.mask, axis=1)
    for bad in (
        np.where(np.arange(6) == 2, np.argmin(venv.mask[2]), legal),  # a card not legal in game 2
        np.where(np.arange(6) == 0, 40, legal),
        np.where(np.arange(6) == 5, -1, legal),
        legal[:5],
        legal.astype(np.float64),
    ):
        with pytest.raises(IllegalActionError, match="action|actions must be"):
            venv.step(bad)
        assert _snapshot(venv) == before
    venv.step(legal)


def test_bad_options_raise_deal_error_and_keep_the_games():
    venv = pigugnin_v0.vector_env(3)
    venv.reset(seed=2)
    _play(venv, 5)
    before = _snapshot(venv)
    full = [[f"{r}{s}" for r in "A234567JHK"] for s in "CDSB"]
    for options, text in (
        ([None, {"dealer": 4}, None], "game 1: .*'dealer' must be a seat number 0..3"),
        ([{"hands": full[:3]}, None, None], "list of 4 hands"),
        ([None, None, {"hands": [full[0], full[0], full[2], full[3]]}], "given twice"),
        ([None, None, {"busche": [10, 10, 0, 0]}], "would already have ended the game"),
        ([None, None, {"busche": [-1, 0, 0, 0]}], "expected an int >= 0"),
        ([None, None, {"busche": [0, 0, 0]}], "list of 4 busche"),
        ([None, None], "list of 3 dicts"),
        ({"dealer": 1}, "list of 3 dicts"),
    ):
        with pytest.raises(DealError, match=text):
            venv.reset(seed=9, options=options)
        assert _snapshot(venv) == before
    big = pigugnin_v0.vector_env(1, loss_threshold=2**70, sole_loss_threshold=2**70)
    with pytest.raises(DealError, match="below 2\\*\\*62"):
        big.reset(options=[{"busche": [2**63, 0, 0, 0]}])


def test_get_state_set_state_round_trip():
    flags = {"num_players": 5, "first_hand_leader": "holder_7D", "loss_threshold": 4, "sole_loss_threshold": 6}
    venv = pigugnin_v0.vector_env(4, **flags)
    venv.reset(seed=7)
    _play(venv, 23)
    saved = venv.get_state(1)
    venv.set_state(3, saved)  # game 3 is now a clone of game 1
    other = pigugnin_v0.vector_env(4, **flags)
    other.reset(seed=8)
    other.set_state(0, saved)  # and game 0 of another env
    assert venv.obs[3].tobytes() == venv.obs[1].tobytes() == other.obs[0].tobytes()
    ended = 0
    for _ in range(400):  # several hands and episodes
        actions = np.argmax(venv.mask, axis=1)
        actions[3] = actions[1]
        obs, mask, rew, term, _, _ = venv.step(actions)
        o2, m2, r2, t2, _, _ = other.step(np.where(np.arange(4) == 0, actions[1], np.argmax(other.mask, axis=1)))
        assert obs[1].tobytes() == obs[3].tobytes() == o2[0].tobytes()
        assert mask[1].tobytes() == mask[3].tobytes() == m2[0].tobytes()
        assert rew[1].tobytes() == rew[3].tobytes() == r2[0].tobytes()
        assert term[1] == term[3] == t2[0]
        ended += int(term[1])
    assert ended >= 2
    later = venv.get_state(1)
    assert all(np.array_equal(later[k], venv.get_state(3)[k]) for k in later)
    with pytest.raises(ConfigError, match="missing"):
        venv.set_state(0, {"hands": later["hands"]})


def test_observe_any_seat_matches_the_aec_env():
    h = Harness(CONFIGS["5p-non-default"], num_envs=8, seed=5)
    h.reset()
    for _ in range(120):
        h.check_views(every_seat=True)
        h.step()
    with pytest.raises(ConfigError, match="seats must be 0..4"):
        h.venv.observe(5)


def test_every_flag_value_is_supported():
    assert PigugninVectorEnv.unsupported == {}
    for name, flags in CONFIGS.items():
        venv = pigugnin_v0.vector_env(2, **flags)
        venv.reset(seed=0)
        assert venv.flags == pigugnin_v0.raw_env(**flags).game.flags, name


def test_config_errors():
    with pytest.raises(ConfigError, match="'num_players'; allowed: 4, 5"):
        pigugnin_v0.vector_env(2, num_players=3)
    with pytest.raises(ConfigError, match="num_envs must be an int >= 1"):
        pigugnin_v0.vector_env(0)
    with pytest.raises(ConfigError, match="outcome_reward\\['win'\\]"):
        pigugnin_v0.vector_env(2, outcome_reward={"win": 2**60})
    pigugnin_v0.vector_env(2, outcome_reward={"win": 2**53, "lose": 1e300})  # exact in float64: fine


def test_step_before_reset():
    with pytest.raises(RuntimeError, match="before reset"):
        pigugnin_v0.vector_env(2).step(np.zeros(2, dtype=np.int64))


def test_the_v0_module_imports_without_numba():
    code = (
        "import sys; sys.modules['numba'] = None\n"
        "from envs import pigugnin_v0\n"
        "pigugnin_v0.env().reset(seed=0)\n"
        "try:\n"
        "    pigugnin_v0.vector_env(2)\n"
        "except ImportError as err:\n"
        "    print(err)\n"
    )
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True)
    assert "vector_env needs numba: pip install 'mazzo[vector]'" in out.stdout
