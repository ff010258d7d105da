"""The batched engines' block-copy observation gather equals the plain index gather.

`gather_tables` turns each seat's index array into block copies plus single values; a wrong
offset, a dropped run or an off-by-one at a run's end would show here on random buffers (every
value distinct, so any misplaced value is caught), for every game, seat and run threshold.
"""

from __future__ import annotations

import numpy as np
import pytest

pytest.importorskip("numba")

from envs import briscola5_v0, picchetto_v0, pigugnin_v0  # noqa: E402
from envs.core.vector import gather_obs, gather_seats, gather_tables  # noqa: E402

ENGINES = {
    "briscola5": lambda n: briscola5_v0.vector_env(n),
    "pigugnin4": lambda n: pigugnin_v0.vector_env(n),
    "pigugnin5": lambda n: pigugnin_v0.vector_env(n, num_players=5),
    "picchetto": lambda n: picchetto_v0.vector_env(n),
}


@pytest.mark.parametrize("name", sorted(ENGINES))
@pytest.mark.parametrize("min_run", [1, 2, 8, 64, 10_000])
def test_block_gather_equals_index_gather(name, min_run):
    vec = ENGINES[name](12)
    players = vec.num_players
    rng = np.random.default_rng(7)
    buf = rng.permutation(vec.buf.size).reshape(vec.buf.shape).astype(np.float32)
    seats = np.arange(12, dtype=np.int64) % players
    expected = np.full(vec.obs.shape, -1.0, dtype=np.float32)
    got = np.full(vec.obs.shape, -1.0, dtype=np.float32)
    gather_obs(buf, vec.gather, seats, expected)
    gather_seats(buf, seats, got, *gather_tables(vec.gather, min_run))
    np.testing.assert_array_equal(got, expected)
    # every observation value came from the buffer (none left at the fill value)
    assert (got >= 0).all()


@pytest.mark.parametrize("name", sorted(ENGINES))
def test_tables_cover_each_observation_exactly_once(name):
    vec = ENGINES[name](1)
    runs, nruns, dst, src, nidx = vec.gather_tables
    for seat in range(vec.num_players):
        covered = np.zeros(vec.obs_size, dtype=np.int64)
        for d, _s, length in runs[seat, : nruns[seat]]:
            covered[d : d + length] += 1
        covered[dst[seat, : nidx[seat]]] += 1
        assert (covered == 1).all(), f"seat {seat}: some observation values are written {set(covered)} times"


def test_observe_and_step_use_the_same_view():
    """`observe(current_player)` (base gather) equals `obs` after a step (Briscola gathers inside its kernel)."""
    vec = briscola5_v0.vector_env(32)
    vec.reset(seed=3)
    rng = np.random.default_rng(3)
    for _ in range(60):
        acts = np.array([rng.choice(np.flatnonzero(m)) for m in vec.mask], dtype=np.int64)
        obs, *_ = vec.step(acts)
        np.testing.assert_array_equal(obs, vec.observe(vec.current_player))
