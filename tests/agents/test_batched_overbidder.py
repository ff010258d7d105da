"""Briscola's overbidding training opponent (``heuristic-overbid[:SHIFT]``, ``Briscola5BatchedOverbidder``).

It must be the heuristic everywhere but in the auction, bid higher than the heuristic there (so that its tables
reach the contracts PIMC reaches), be the heuristic exactly at ``shift=0``, and refuse what it cannot be.
"""

from __future__ import annotations

import numpy as np
import pytest

pytest.importorskip("numba")

from agents.rows import OPPONENT_SPECS, make_opponent  # noqa: E402
from envs.briscola5.game import AUCTION, BID_IDS  # noqa: E402
from envs.briscola5.observation import LAYOUT  # noqa: E402
from envs.core.errors import ConfigError  # noqa: E402
from envs.registry import make_vector_env  # noqa: E402

PHASE = LAYOUT.fields["phase"].obs_offset
PHASES = LAYOUT.fields["phase"].shape[0]


def table(player_spec: str, num_games: int = 2000, seed: int = 3):
    """Five copies of a player at every seat of ``num_games`` one-hand games; per game the contract and caller,
    and every decision's rows with the heuristic's move on them beside the player's."""
    players = [make_opponent(player_spec, "briscola5", {}, s) for s in range(5)]
    heuristic = make_opponent("heuristic", "briscola5", {}, 0)
    env = make_vector_env("briscola5", num_games, autoreset=False)
    env.reset(seed=seed)
    actions = np.zeros(num_games, dtype=np.int64)
    moves: list[tuple[np.ndarray, np.ndarray, np.ndarray]] = []  # (is auction, player's move, heuristic's move)
    while not env.finished.all():
        live = ~env.finished
        for s, player in enumerate(players):
            rows = np.flatnonzero(live & (env.current_player == s))
            if len(rows):
                obs, mask = env.obs[rows], env.mask[rows]
                actions[rows] = player.act(obs, mask)
                auction = np.argmax(obs[:, PHASE:PHASE + PHASES], axis=1) == AUCTION
                moves.append((auction, actions[rows].copy(), heuristic.act(obs, mask)))
        env.step(actions, active=live)
    auction, mine, theirs = (np.concatenate(parts) for parts in zip(*moves, strict=True))
    return env.state["contract"].copy(), env.state["caller"].copy(), auction, mine, theirs


def bid_value(action: np.ndarray) -> np.ndarray:
    """A bid's rank among the bids (-1: not a bid, i.e. a pass)."""
    value = np.full(action.shape, -1)
    for k, b in enumerate(BID_IDS):
        value[action == b] = k
    return value


def test_shift_zero_is_the_heuristic():
    _, _, _, mine, theirs = table("heuristic-overbid:0", num_games=300)
    assert mine.size > 300 * 40 and np.array_equal(mine, theirs)


def test_overbids_in_the_auction_only():
    contract, caller, auction, mine, theirs = table("heuristic-overbid")
    base_contract, base_caller, *_ = table("heuristic")
    # outside the auction every move is the heuristic's (the same rows, asked of both)
    assert np.array_equal(mine[~auction], theirs[~auction])
    # in the auction it never bids below the heuristic (nor passes where it bids), and bids above it often
    a, b = bid_value(mine[auction]), bid_value(theirs[auction])
    assert (a >= b).all() and (a > b).mean() > 0.2
    # so its tables reach PIMC's contracts (a mean of 99 at five PIMC players) where the heuristic's stop near 88
    called, base_called = caller >= 0, base_caller >= 0
    assert contract[called].mean() > base_contract[base_called].mean() + 7


def test_the_spec_is_listed_and_checked():
    assert "heuristic-overbid[:SHIFT]" in OPPONENT_SPECS
    assert make_opponent("heuristic-overbid:15", "briscola5", {}, 0).shift == 15
    assert make_opponent("heuristic-overbid", "briscola5", {}, 0).shift == 10
    for bad, says in (("heuristic-overbid:x", "SHIFT an int"), ("heuristic-overbid:-3", "SHIFT an int"),
                      ("heuristic-overbid:61", "0..60")):
        with pytest.raises(ConfigError, match=says):
            make_opponent(bad, "briscola5", {}, 0)
    for game in ("pigugnin", "picchetto"):
        with pytest.raises(ConfigError, match="no auction to overbid in; games with one: briscola5"):
            make_opponent("heuristic-overbid", game, {}, 0)
