"""`vector_env(..., threads=k)`: the kernels run over k chunks of games at once and nothing changes.

Every game only touches its own rows, so a run with threads is the serial run, step for step: the
same observations, masks, rewards and episode ends from the same seed.
"""

from __future__ import annotations

import numpy as np
import pytest

pytest.importorskip("numba")

from envs.core.errors import ConfigError  # noqa: E402
from envs.registry import make_vector_env  # noqa: E402

CASES = [("briscola5", {}), ("pigugnin", {}), ("pigugnin", {"num_players": 5}), ("picchetto", {})]


@pytest.mark.parametrize(("game", "flags"), CASES)
def test_threads_give_the_serial_trajectory(game, flags):
    serial, split, uneven = (make_vector_env(game, 101, threads=t, **flags) for t in (1, 2, 3))
    assert (serial.threads, split.threads, uneven.threads) == (1, 2, 3)
    outs = [v.reset(seed=11) for v in (serial, split, uneven)]
    rng = np.random.default_rng(3)
    ended = 0
    for _ in range(1500):
        mask = outs[0][1]
        actions = (rng.random(mask.shape) * mask).argmax(1)  # a random legal action per game
        results = [v.step(actions) for v in (serial, split, uneven)]
        for other in results[1:]:
            for a, b in zip(results[0][:5], other[:5], strict=True):
                np.testing.assert_array_equal(a, b)
        ended += int(results[0][3].sum())
        outs = [(r[0], r[1]) for r in results]
    assert ended > 0  # auto-resets happened inside the chunks too


def test_threads_must_be_a_positive_int():
    for bad in (0, -1, 1.5, True, "2"):
        with pytest.raises(ConfigError, match="threads must be an int >= 1"):
            make_vector_env("pigugnin", 4, threads=bad)


def test_more_threads_than_games_is_capped():
    assert make_vector_env("picchetto", 2, threads=8).threads == 2
