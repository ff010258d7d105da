"""Differential tests of the batched Picchetto engine (``vector_env``) against the AEC env.

Method. ``Differential`` steps ``N`` batched games and ``N`` AEC envs (``raw_env``, same flags)
side by side with the same random legal actions, and after the reset and every step compares,
per game: the seat to act, the observation bytes and the mask of that seat, the whole absolute
observer buffer (both seats' private rows included), one seat's privileged vector
(``envs/picchetto/privileged.py``, the two seats in turn), the step's per-seat rewards and the
termination / truncation flags.

Deals. Both sides draw the same cards without trusting the engine's description of them:

* the first hand of a random (stream) episode and every later hand come from the batched
  game's xorshift stream (``envs.core.vector.rand_below``); the AEC side deals them from
  ``StreamRng``, a small test double of the AEC state's ``np.random.Generator`` whose
  ``integers(n)`` and ``permutation(n)`` replay that stream (the same uniform draw, the same
  Fisher-Yates), started from ``seed_streams(seed, N)[i]`` and kept in step by the deals both
  sides make in the same order (a disagreement on when a deal happens shows as different cards);
* an explicit first deal (``reset(options=...)``: dealer / hands / talon / scores / games_won) is
  built on the AEC side as the base ``VectorEnv.reset`` builds it, by ``new_state`` with
  ``np.random.default_rng(stream state)``; the AEC state's generator is then replaced by the
  ``StreamRng`` of the same stream for the later hands;
* the batched engine re-deals an episode that ends at its very deal (it has no step); the AEC
  side then simply resets again on the same stream. An explicit deal that would end at its deal
  raises DealError (``test_deal_over_at_the_deal_raises``); the harness gives such a game a
  stream deal instead.

Counts: each flag variant of ``VARIANTS`` is run for 4 rounds of 64 games x 300 steps (2,500+
hands, 90+ explicit deals per variant, about 2 s of CPU each once compiled);
``benchmarks/vector_picchetto.py`` runs the same harness over 100,000 hands.

Explicit deals come from seeded ``random.Random`` generators: plain shuffles, Bianco hands
(one seat without J/Q/K), strong hands (a long suit, quatorzes) for repique/pique/capot, with
game scores near the target and games already won, so that targets, immediate and
end-of-hand checks, outcome rewards, the bella and the end of matches happen often.
"""

from __future__ import annotations

import random
import sys
from collections import Counter

import numpy as np
import pytest

from envs import picchetto_v0
from envs.core.errors import ConfigError, DealError, IllegalActionError
from envs.core.vector import seed_streams
from envs.picchetto import batched
from envs.picchetto.game import FACE_MASK, FLAGS
from envs.picchetto.privileged import privileged as privileged_reference
from tests.envs.cases import PICCHETTO_NON_DEFAULT
from tests.envs.common import assert_privileged_matches, first_fast

M64 = (1 << 64) - 1


class StreamRng:
    """The AEC state's generator, replaying a batched game's xorshift64* stream (``rand_below``)."""

    def __init__(self, state: int):
        self.x = int(state)

    def below(self, n: int) -> int:
        x = self.x
        x ^= x >> 12
        x ^= (x << 25) & M64
        x ^= x >> 27
        self.x = x
        return (((x * 0x2545F4914F6CDD1D) & M64) >> 33) % n

    def integers(self, n: int) -> int:
        return self.below(int(n))

    def permutation(self, n: int) -> np.ndarray:
        perm = list(range(n))
        for k in range(n - 1, 0, -1):
            j = self.below(k + 1)
            perm[k], perm[j] = perm[j], perm[k]
        return np.array(perm)


# -- explicit deals -----------------------------------------------------------------------------

NON_FACE = [c for c in range(32) if not FACE_MASK >> c & 1]


def deal_options(rnd: random.Random, flags: dict, kind: str) -> dict:
    """Reset options of one explicit deal of ``kind``, often near the end of a game or match."""
    single = flags.get("match_format") == "single_game"
    opts: dict = {"dealer": rnd.randrange(2)}
    if kind == "bianco":  # one seat dealt no J/Q/K
        seat = rnd.randrange(2)
        mine = rnd.sample(NON_FACE, 12)
        rest = [c for c in range(32) if c not in mine]
        rnd.shuffle(rest)
        hands = [None, None]
        hands[seat], hands[1 - seat] = mine, rest[:12]
        opts["hands"], opts["talon"] = hands, rest[12:]
    elif kind == "strong":  # a long suit (sequences, point, repique/pique, capot) or many sets
        deck = list(range(32))
        if rnd.random() < 0.5:
            suit = rnd.randrange(4)
            strong = list(range(8 * suit, 8 * suit + 8))[8 - rnd.randint(6, 8):]
        else:
            ranks = rnd.sample(range(3, 8), 3)
            strong = [8 * s + r for r in ranks for s in range(4)]
        rest = [c for c in deck if c not in strong]
        rnd.shuffle(rest)
        mine = strong + rest[: 12 - len(strong)]
        rest = rest[12 - len(strong):]
        seat = rnd.randrange(2)
        hands = [None, None]
        hands[seat], hands[1 - seat] = mine, rest[:12]
        opts["hands"], opts["talon"] = hands, rest[12:]
    elif kind == "shuffled":  # explicit hands and talon of a plain shuffle (codes, not ids)
        deck = list(range(32))
        rnd.shuffle(deck)
        codes = [batched._g.CODES[c] for c in deck]
        opts["hands"], opts["talon"] = [codes[:12], codes[12:24]], codes[24:]
    elif kind == "talon":  # a given talon, hands shuffled around it
        opts["talon"] = rnd.sample(range(32), 8)
    if not single and rnd.random() < 0.6:
        opts["games_won"] = [rnd.randrange(2), rnd.randrange(2)]
    if rnd.random() < 0.8:
        game_no = sum(opts.get("games_won", (0, 0)))
        target = flags.get("bella_target", 220) if game_no == 2 else flags.get("game_target", 150)
        top = target - 1 if flags.get("target_inclusive", False) else target
        opts["scores"] = [max(0, top - rnd.randrange(25)), max(0, top - rnd.randrange(40))]
    if rnd.random() < 0.3:
        del opts["dealer"]
    return opts


# -- the differential harness -------------------------------------------------------------------


class Differential:
    """``num`` batched games and ``num`` AEC envs of the same flags, compared after every step."""

    def __init__(self, num: int, flags: dict):
        self.flags = flags
        self.num = num
        self.venv = picchetto_v0.vector_env(num, **flags)
        self.aecs = [picchetto_v0.raw_env(**flags) for _ in range(num)]
        self.steps = 0
        self.hands = 0
        self.episodes = 0
        self.explicit = 0
        self._hand_no = [0] * num
        self._act_rng = np.zeros(num, dtype=np.uint64)
        self.seen: Counter = Counter()

    # AEC side of the batched reset
    def reset(self, seed: int, options: list | None = None) -> None:
        streams = seed_streams(seed, self.num)
        if options is not None:  # an explicit deal over at the deal raises (test_deal_over_at_the_deal_raises)
            game = self.aecs[0].game
            options = [None if o is not None and game.new_state(
                np.random.default_rng(int(streams[i])), game.parse_options(o)).over else o
                for i, o in enumerate(options)]
        opts = options or [None] * self.num
        self.venv.reset(seed=seed, options=options)
        self._act_rng = seed_streams(seed + 10**6, self.num)
        for i, aec in enumerate(self.aecs):
            if opts[i] is None:
                aec._rng = StreamRng(streams[i])
                self._reset_stream(i)
            else:
                aec._rng = np.random.default_rng(int(streams[i]))
                aec.reset(options=opts[i])
                assert not aec.state_.over
                aec._rng = aec.state_.rng = StreamRng(streams[i])
                self.explicit += 1
            self._new_episode(i)
        self.check(first=True)

    def _reset_stream(self, i: int) -> None:
        aec = self.aecs[i]
        aec.reset()
        while aec.state_.over:  # an episode over at its deal: the batched engine deals again
            self.seen["over at the deal"] += 1
            aec.reset()

    def _tally(self, i: int) -> None:
        """What the finished episode of game ``i`` exercised (scoring events, game and match ends)."""
        s = self.aecs[i].state_
        for rec in s.hand_records:
            for kind, _, _ in rec["events"]:
                self.seen[kind] += 1
            self.seen["game ended in a hand"] += rec["game_ended"]
        self.seen["game won"] += sum(g["winner"] is not None for g in s.game_records)
        self.seen["bella played"] += s.game_no == 2
        self.seen["match won"] += s.match_winner is not None

    def _new_episode(self, i: int) -> None:
        self.episodes += 1
        self._hand_no[i] = self.aecs[i].state_.hand_no
        self.hands += self._hand_no[i]

    def check(self, first: bool = False, other_seat: bool = False) -> None:
        v = self.venv
        obs = np.empty_like(v.obs)
        masks = np.empty_like(v.mask)
        for i, aec in enumerate(self.aecs):
            agent = aec.agent_selection
            assert v.current_player[i] == aec._actor, (i, self.steps)
            o = aec.observe(agent)
            obs[i] = o["observation"]
            masks[i] = o["action_mask"]
            if not np.array_equal(v.buf[i], aec.observer.buf):
                bad = np.flatnonzero(v.buf[i] != aec.observer.buf)
                raise AssertionError(f"game {i} step {self.steps}: buffer differs at {bad[:10]}: "
                                     f"{v.buf[i][bad[:10]]} vs {aec.observer.buf[bad[:10]]}")
        assert v.obs.tobytes() == obs.tobytes()
        assert np.array_equal(v.mask, masks)
        assert_privileged_matches(v, self.aecs, privileged_reference, (v.current_player + self.steps) % 2)
        if other_seat:
            seats = 1 - v.current_player
            got = v.observe(seats)
            for i, aec in enumerate(self.aecs):
                assert got[i].tobytes() == aec.observe(f"player_{seats[i]}")["observation"].tobytes()

    def step(self) -> None:
        v = self.venv
        actions = batched.random_legal_actions(v.mask, self._act_rng, np.empty(self.num, dtype=np.int64))
        _, _, rewards, terminated, truncated, _ = v.step(actions)
        self.steps += 1
        for i, aec in enumerate(self.aecs):
            aec.step(int(actions[i]))
            r = np.array([aec.rewards["player_0"], aec.rewards["player_1"]], dtype=np.float32)
            assert np.array_equal(rewards[i], r), (i, self.steps, rewards[i], r)
            done = aec.terminations["player_0"]
            assert bool(terminated[i]) == done and not truncated[i], (i, self.steps)
            assert aec.terminations["player_1"] == done and not aec.truncations["player_0"]
            if done:
                self._tally(i)
                self._reset_stream(i)
                self._new_episode(i)
            elif aec.state_.hand_no != self._hand_no[i]:
                self.hands += aec.state_.hand_no - self._hand_no[i]
                self._hand_no[i] = aec.state_.hand_no
        self.check(other_seat=self.steps % 7 == 0)

    def run(self, steps: int) -> None:
        for _ in range(steps):
            self.step()


def explicit_options(rnd: random.Random, flags: dict, num: int, share: float = 1.0) -> list:
    """One deal per game (None for a stream deal), skipping deals over at the deal."""
    game = picchetto_v0.raw_env(**flags).game
    out = []
    for _ in range(num):
        if rnd.random() >= share:
            out.append(None)
            continue
        while True:  # (Differential.reset also drops a deal over at the deal with the real generator)
            kind = rnd.choice(["bianco", "strong", "shuffled", "talon", "scores"])
            opts = deal_options(rnd, flags, kind)
            if not game.new_state(np.random.default_rng(0), game.parse_options(opts)).over:
                break
        out.append(opts)
    return out


VARIANTS = {
    "defaults": {},
    "non-default": PICCHETTO_NON_DEFAULT,
    "hand": dict(episode="hand", first_dealer=0, match_format="single_game"),
    "game": dict(episode="game", target_inclusive=True, game_target=40, bella_target=55, outcome_reward=1.5,
                 bianco_counts_for_repique=False, dealer_min_exchange=0, must_head_trick=False),
    "small-targets": dict(game_target=9, bella_target=12, outcome_reward=0.25, first_dealer=1,
                          reveal_leftover_talon=True),
    "end-of-hand": dict(game_end_check="end_of_hand", trick_scoring="classic", capot_replaces_cards=False,
                        pique_counts_end_bonuses=True, game_target=70, bella_target=90, allow_peek=True,
                        match_format="single_game"),
    "hand-end-of-hand": dict(episode="hand", game_end_check="end_of_hand", game_target=30, bella_target=40,
                             target_inclusive=True, trick_scoring="classic", outcome_reward=0.1),
}


def _run_variant(flags: dict, seed: int, rounds: int, steps: int, num: int = 64) -> Differential:
    diff = Differential(num, flags)
    rnd = random.Random(seed)
    for k in range(rounds):
        # alternate: all stream deals, then mostly explicit deals (the rest stream deals)
        options = None if k % 2 == 0 else explicit_options(rnd, flags, num, share=0.8)
        diff.reset(seed + k, options)
        diff.run(steps)
    return diff


@pytest.mark.parametrize("name", first_fast(VARIANTS))
def test_differential(name):
    flags = VARIANTS[name]
    # rounds x steps sized for >= 2000 hands per variant (a hand is 20..36 steps)
    diff = _run_variant(flags, seed=1000 + list(VARIANTS).index(name), rounds=4, steps=300)
    assert diff.hands >= 2000, diff.hands
    assert diff.explicit >= 90


# -- the rest of the contract ---------------------------------------------------------------------


def _trajectory(venv, seed, steps):
    obs, mask = venv.reset(seed=seed)
    rng = seed_streams(7, venv.num_envs)
    out = [obs.copy()]
    for _ in range(steps):
        acts = batched.random_legal_actions(venv.mask, rng, np.empty(venv.num_envs, dtype=np.int64))
        obs, mask, rew, term, trunc, _ = venv.step(acts)
        out.append(obs.copy())
        out.append(rew.copy())
    return out


def test_same_seed_same_deals():
    v = picchetto_v0.vector_env(8)
    a, b = _trajectory(v, 5, 200), _trajectory(v, 5, 200)
    assert all(np.array_equal(x, y) for x, y in zip(a, b, strict=True))
    c = _trajectory(v, 6, 1)
    assert not np.array_equal(a[0], c[0])
    # different games of one batch get different deals
    assert len({a[0][i].tobytes() for i in range(8)}) == 8


def test_illegal_actions_raise_and_change_nothing():
    v = picchetto_v0.vector_env(4)
    v.reset(seed=3)
    before = [v.get_state(i) for i in range(4)]
    obs = v.obs.copy()
    bad = np.flatnonzero(v.mask[1] == 0)[0]
    good = np.array([np.flatnonzero(v.mask[i])[0] for i in range(4)])
    for acts, text in [
        (np.where(np.arange(4) == 1, bad, good), "game 1: action"),
        (np.array([65, 0, 0, 0]), "game 0: action 65"),
        (np.array([-1, 0, 0, 0]), "game 0: action -1"),
        (np.zeros(3, dtype=np.int64), "shape"),
        (np.zeros(4, dtype=np.float64), "int array"),
    ]:
        with pytest.raises(IllegalActionError, match=text):
            v.step(acts)
    for i in range(4):
        after = v.get_state(i)
        assert all(np.array_equal(before[i][k], after[k]) for k in after)
    assert np.array_equal(obs, v.obs)
    v.step(good)  # still playable


def test_bad_options_raise_deal_error_and_change_nothing():
    v = picchetto_v0.vector_env(2)
    v.reset(seed=4)
    state = v.get_state(0)
    good = {"dealer": 1, "scores": [10, 20]}
    for options, text in [
        ({"dealer": 1}, "one per game"),
        ([good], "list of 2"),
        ([good, {"dealer": 2}], "game 1: .*'dealer' must be a seat"),
        ([{"scores": [151, 0]}, None], "game 0: .*0..150"),
        ([None, {"games_won": [2, 0]}], "game 1: .*games_won"),
        ([None, {"hands": [["7h"] * 12, []]}], "game 1: .*given twice"),
    ]:
        with pytest.raises(DealError, match=text):
            v.reset(seed=5, options=options)
    after = v.get_state(0)
    assert all(np.array_equal(state[k], after[k]) for k in after)


def test_deal_over_at_the_deal_raises():
    """A Bianco at the deal past the target that ends the episode has no step: DealError."""
    flags = dict(episode="game")
    v = picchetto_v0.vector_env(2, **flags)
    v.reset(seed=1)
    state = v.get_state(1)
    bianco = NON_FACE[:12]
    rest = [c for c in range(32) if c not in bianco]
    opts = {"dealer": 1, "hands": [bianco, rest[:12]], "talon": rest[12:], "scores": [145, 0]}
    with pytest.raises(DealError, match="game 1: .*ends the episode before any action"):
        v.reset(seed=2, options=[None, opts])
    assert all(np.array_equal(state[k], v.get_state(1)[k]) for k in state)
    # the same deal in a match goes on with the rivincita: the Bianco is paid with the first step
    m = Differential(2, {})
    m.reset(3, [None, opts])
    assert m.aecs[1].state_.game_no == 1 and m.venv.state["st"][1, batched.GAME_NO] == 1
    m.run(5)
    # a stream deal that is over at once is dealt again: find a seed whose first deal gives the
    # elder (seat 1, first_dealer=0) a Bianco, which a target of 1 makes the end of the game
    seed = next(k for k in range(100_000) if not sum(
        1 << c for c in StreamRng(seed_streams(k, 1)[0]).permutation(32)[0:24:2]) & FACE_MASK)
    tiny = Differential(1, dict(game_target=1, episode="game", first_dealer=0, outcome_reward=2))
    tiny.reset(seed)
    assert tiny.seen["over at the deal"] == 1
    assert tiny.venv.state["st"][0, batched.DEALS] == 2 and not tiny.venv.state["pend"].any()
    tiny.run(30)


def test_get_state_set_state_round_trip():
    v = picchetto_v0.vector_env(3, trick_scoring="classic")
    v.reset(seed=8)
    rng = seed_streams(1, 3)
    for _ in range(57):
        v.step(batched.random_legal_actions(v.mask, rng, np.empty(3, dtype=np.int64)))
    v.set_state(2, v.get_state(0))
    assert np.array_equal(v.obs[0], v.obs[2]) and np.array_equal(v.mask[0], v.mask[2])
    for _ in range(300):
        acts = batched.random_legal_actions(v.mask, rng, np.empty(3, dtype=np.int64))
        acts[2] = acts[0]
        _, _, rew, term, _, _ = v.step(acts)
        assert np.array_equal(v.obs[0], v.obs[2]) and np.array_equal(rew[0], rew[2]) and term[0] == term[2]
    # into another env of the same flags
    w = picchetto_v0.vector_env(1, trick_scoring="classic")
    w.reset(seed=0)
    w.set_state(0, v.get_state(1))
    assert np.array_equal(w.obs[0], v.obs[1])
    with pytest.raises(ConfigError, match="missing"):
        w.set_state(0, {"st": v.get_state(1)["st"]})


def test_vector_env_one():
    diff = Differential(1, {})
    diff.reset(11)
    diff.run(400)
    assert diff.episodes >= 1 and diff.hands >= 5


def test_every_flag_supported():
    assert batched.PicchettoVectorEnv.unsupported == {}
    for flag in FLAGS:
        if flag.name == "declarations_automatic":
            continue
        value = {"first_dealer": 0, "game_target": 60, "bella_target": 70, "outcome_reward": 1}.get(flag.name)
        if value is None:
            value = next(a for a in flag.allowed if a != flag.default)
        picchetto_v0.vector_env(1, **{flag.name: value}).reset(seed=0)
    with pytest.raises(ConfigError, match="declarations_automatic"):
        picchetto_v0.vector_env(1, declarations_automatic=False)
    with pytest.raises(ConfigError, match="num_envs"):
        picchetto_v0.vector_env(0)


def test_vector_env_without_numba(monkeypatch):
    monkeypatch.setitem(sys.modules, "numba", None)
    monkeypatch.delitem(sys.modules, "envs.picchetto.batched")
    monkeypatch.delitem(sys.modules, "envs.core.vector")
    with pytest.raises(ImportError, match=r"pip install 'mazzo\[vector\]'"):
        picchetto_v0.vector_env(2)
    assert picchetto_v0.env() is not None
