"""The plain players' numba ports (``agents/batched/<game>.py``) choose the Python plain player's action, row for row.

Method (differential), for every game (Pigugnìn with 4 and 5 players) and a few flag variants:

* AEC playouts: seeded episodes of the raw env in which every seat is either the Python plain player or
  uniformly random (the share of plain seats varies by episode: 0, 1/2, all), some from the explicit deals
  of ``test_batched_heuristics.py`` that reach rare positions. Every observation of a seat to act is kept with
  its mask and the Python player's action on it; the port decides all rows in one call, then shuffled, then
  in chunks of 7, and every action must be the Python player's. ``COVERAGE`` counts which of the player's
  rules the rows reach, with a minimum for each, so that a port is never checked on easy rows only.
* Whole games on the batched engine: ``make_opponent("plain", ...)`` (what the trainer and the probe use) plays
  every seat of a ``vector_env`` to the end of its episodes; at every step the Python player is asked on each
  row and must choose the same action.
"""

from __future__ import annotations

import numpy as np
import pytest

pytest.importorskip("numba")

from agents import make_agent  # noqa: E402
from agents.rows import AgentRows, batched_plain_class, make_opponent  # noqa: E402
from envs.core.errors import ConfigError  # noqa: E402
from envs.registry import GAMES, game_spec, make_raw_env  # noqa: E402
from tests.agents.test_batched_heuristics import briscola5_deal, picchetto_deal, pigugnin_deal  # noqa: E402


def briscola5_coverage(view: dict, legal: list[int], a: int) -> list[str]:
    from envs.briscola5.game import BID_IDS, CALL, FORFEIT, PASS

    if view["phase"] == "forfeit_check":  # only a 0-point hand is asked, and it forfeits
        return ["forfeit" if a == FORFEIT else "no forfeit"]
    if view["phase"] == "auction":
        return ["bid" if a in BID_IDS else ("pass, a bid legal" if set(legal) & set(BID_IDS) else "pass")]
    if a >= CALL and a < PASS:
        return ["call"]
    trick = view["trick"]
    return ["lead" if not trick else f"follow, {len(trick)} on the table", "play, not the first legal" if a != legal[0]
            else "play, the first legal"]


def picchetto_coverage(view: dict, legal: list[int], a: int) -> list[str]:
    from envs.picchetto.game import DISCARD, END_EXCHANGE, RANK, SUIT

    if legal[0] >= DISCARD:
        return ["end exchange" if a == END_EXCHANGE else "discard"]  # (the exchange ends by itself, in practice)
    led = view["trick_card"]
    if led is None:
        return ["lead", "lead, equal top ranks" if sum(RANK[c] == RANK[a] for c in legal) > 1 else "lead, one top"]
    wins = SUIT[a] == SUIT[led] and RANK[a] > RANK[led]
    return ["follow, wins" if wins else "follow, cannot win"]


def pigugnin_coverage(view: dict, legal: list[int], a: int) -> list[str]:
    from envs.pigugnin.game import DECK, PIGUGNIN, STRENGTH

    trick = [c for _, c in view["trick"]]
    if not trick:
        return ["lead"]
    if DECK.suit_of[legal[0]] != DECK.suit_of[trick[0]]:
        return ["void", *(["void, throws JS"] if a == PIGUGNIN else [])]
    best = max(STRENGTH[c] for c in trick if DECK.suit_of[c] == DECK.suit_of[trick[0]])
    if STRENGTH[a] < best:
        return ["ducks"]
    return ["must win, last" if len(trick) == view["num_players"] - 1 else "must win, not last"]


#: (game, flag variants, deal maker, coverage, the least count of each coverage name)
CASES = [
    pytest.param("briscola5", ({}, {"num_hands": 2, "min_bid": 70, "first_dealer": 3}), briscola5_deal,
                 briscola5_coverage, {"forfeit": 8, "bid": 25, "pass, a bid legal": 120, "pass": 30, "call": 20,
                                      "lead": 200, **{f"follow, {k} on the table": 200 for k in range(1, 5)},
                                      "play, not the first legal": 600}, id="briscola5"),
    pytest.param("picchetto", ({}, {"episode": "hand", "must_head_trick": False}), picchetto_deal,
                 picchetto_coverage, {"discard": 1500, "lead": 2000, "lead, equal top ranks": 600,
                                      "follow, wins": 600, "follow, cannot win": 1500}, id="picchetto"),
    *[pytest.param("pigugnin", ({"num_players": n}, {"num_players": n, "episode": "hand",
                                                       "pigugnin_first_trick_restriction": True}),
                   (lambda rnd, n=n: pigugnin_deal(rnd, n)), pigugnin_coverage,
                   {"lead": 700, "void": 1000, "void, throws JS": 50, "ducks": 1000, "must win, last": 100,
                    "must win, not last": 500}, id=f"pigugnin-{n}") for n in (4, 5)],
]


def collect(game: str, flags: dict, deal, seed: int, episodes: int = 24):
    """Rows (observation, mask) of AEC playouts and the Python plain player's action on each."""
    env = make_raw_env(game, **flags)
    plain = make_agent("plain", game, seed=seed)
    rnd = np.random.default_rng(seed)
    obs, masks, want = [], [], []
    for episode in range(episodes):
        share = (0.0, 0.5, 1.0)[episode % 3]
        plain_seat = {a: rnd.random() < share for a in env.possible_agents}
        env.reset(seed=seed * 10_000 + episode, options=deal(rnd))
        for agent in env.agent_iter():
            o, _, term, trunc, _ = env.last()
            if term or trunc:
                env.step(None)
                continue
            a = int(plain.act(o))
            obs.append(o["observation"].copy())
            masks.append(o["action_mask"].copy())
            want.append(a)
            if not plain_seat[agent]:
                legal = np.flatnonzero(o["action_mask"])
                a = int(legal[rnd.integers(legal.size)])
            env.step(a)
    return np.array(obs), np.array(masks), np.array(want, dtype=np.int64)


def _assert_same(game: str, obs, masks, want, got, what: str) -> None:
    bad = np.flatnonzero(got != want)
    if bad.size:
        from importlib import import_module

        decode = import_module(f"envs.{game}.observation").decode
        i = int(bad[0])
        pytest.fail(f"{game} ({what}): {bad.size} of {len(want)} rows differ; first, row {i}: batched {int(got[i])}, "
                    f"Python {int(want[i])}; view {decode(obs[i], codes=True)}; legal {np.flatnonzero(masks[i]).tolist()}")


@pytest.mark.parametrize(("game", "variants", "deal", "coverage", "minimum"), CASES)
def test_the_plain_port_chooses_the_python_players_action_on_every_observation(game, variants, deal, coverage,
                                                                               minimum):
    from importlib import import_module

    decode = import_module(f"envs.{game}.observation").decode
    port = batched_plain_class(game)(game, seed=0, flags={})
    covered: dict[str, int] = {}
    for v, flags in enumerate(variants):
        obs, masks, want = collect(game, flags, deal, seed=v)
        before = obs.copy(), masks.copy()
        got = port.act(obs, masks)
        assert got.dtype == np.int64 and got.shape == want.shape
        _assert_same(game, obs, masks, want, got, f"flags {flags}")
        np.testing.assert_array_equal(obs, before[0])  # the caller's arrays are left alone
        np.testing.assert_array_equal(masks, before[1])
        order = np.random.default_rng(v).permutation(len(want))
        _assert_same(game, obs[order], masks[order], want[order], port.act(obs[order], masks[order]),
                     f"flags {flags}, rows shuffled")
        chunks = np.concatenate([port.act(obs[i : i + 7], masks[i : i + 7]) for i in range(0, 301, 7)])
        _assert_same(game, obs, masks, want[: chunks.size], chunks, f"flags {flags}, chunks of 7 rows")
        for o, m, a in zip(obs, masks, want.tolist(), strict=True):
            for name in coverage(decode({"observation": o, "action_mask": m}), np.flatnonzero(m).tolist(), a):
                covered[name] = covered.get(name, 0) + 1
    short = {name: (covered.get(name, 0), least) for name, least in minimum.items() if covered.get(name, 0) < least}
    assert not short, f"{game}: the rows reach too few of (count, least): {short}"


@pytest.mark.parametrize(("game", "variants", "deal", "coverage", "minimum"), CASES)
def test_the_plain_port_plays_whole_games_as_the_python_player(game, variants, deal, coverage, minimum):
    for v, flags in enumerate(variants):
        venv = game_spec(game).vector_env(32, **flags)
        port = make_opponent("plain", game, flags, seed=v)
        python = AgentRows(make_agent("plain", game, seed=v))
        obs, mask = venv.reset(seed=100 + v)
        episodes = rows = 0
        while episodes < 64:
            actions = port.act(obs, mask)
            np.testing.assert_array_equal(actions, python.act(obs, mask), err_msg=f"{game} {flags}")
            rows += len(actions)
            obs, mask, _, term, trunc, _ = venv.step(actions)
            episodes += int((term | trunc).sum())
        assert rows > 1000, rows


@pytest.mark.parametrize("game", ["briscola5", "picchetto", "pigugnin"])
def test_make_opponent_plays_plain_with_the_port(game):
    cls = batched_plain_class(game)
    assert cls is not None and cls.__module__ == game_spec(game).batched_heuristic.partition(":")[0]
    for spec in ("plain", game_spec(game).plain_alias):
        opponent = make_opponent(spec, game, {}, seed=1)
        assert isinstance(opponent, cls) and opponent.name == "plain"
    other = next(s.plain_alias for s in GAMES.values() if s.plain_alias and s.plain_alias != game_spec(game).plain_alias)
    with pytest.raises(ConfigError, match="is not a"):
        make_opponent(other, game, {}, seed=1)


@pytest.mark.parametrize("game", ["briscola5", "picchetto", "pigugnin"])
def test_the_plain_port_rejects_rows_it_cannot_decide(game):
    port = batched_plain_class(game)(game, seed=0, flags={})
    env = make_raw_env(game)
    env.reset(seed=0)
    o = env.last()[0]
    obs, mask = o["observation"][None], o["action_mask"][None]
    assert port.act(obs[:0], mask[:0]).shape == (0,)
    with pytest.raises(ValueError, match="row 1: the action mask is all zeros"):
        port.act(np.repeat(obs, 2, axis=0), np.stack([mask[0], np.zeros_like(mask[0])]))
    with pytest.raises(ValueError, match="expected observations"):
        port.act(obs[:, :-1], mask)
