"""ObsLayout: the precomputed slices agree with the field table, and the decode helpers."""

from __future__ import annotations

import numpy as np
import pytest

from envs.core.layout import ObsLayout, first_hit, row_hits


def small_layout() -> ObsLayout:
    lay = ObsLayout(3)
    lay.private("hand", (4,), "own cards")
    lay.public("phase", (2,), "one-hot phase")
    lay.seat("played", (3, 4), "cards played by seat r")
    lay.seat("by_card", (4, 3), "card c played by seat r", seat_axis=1)
    lay.public("grid", (2, 3, 2), "a 3-D public field")
    return lay.build()


def test_sizes_slices_and_unpack_follow_the_declarations():
    lay = small_layout()
    assert [f.size for f in lay.fields.values()] == [4, 2, 12, 12, 12]
    assert lay.obs_size == 42 and lay.abs_size == 4 * 3 + 2 + 12 + 12 + 12
    obs = np.arange(lay.obs_size, dtype=np.float32)
    fields = lay.unpack(obs)
    start = 0
    for name, f in lay.fields.items():
        assert lay.obs_slice(name) == slice(start, start + f.size)
        assert fields[name].shape == f.shape
        assert np.array_equal(fields[name].ravel(), obs[start : start + f.size])
        assert np.shares_memory(fields[name], obs)  # views, no copies
        start += f.size
    with pytest.raises(ValueError, match=r"expected an observation of shape \(42,\)"):
        lay.unpack(np.zeros(41, dtype=np.float32))


def test_observe_then_unpack_rotates_seats_and_keeps_only_the_own_row():
    lay = small_layout()
    buf = lay.new_buffer()
    lay.abs_view(buf, "hand")[:] = [[1, 0, 0, 0], [0, 1, 0, 0], [0, 0, 1, 0]]
    lay.abs_view(buf, "played")[2, 3] = 1.0  # absolute seat 2 played card 3
    for observer in range(3):
        f = lay.unpack(lay.observe(buf, observer))
        assert first_hit(f["hand"]) == observer
        assert row_hits(f["played"])[(2 - observer) % 3] == [3]


def test_first_hit_and_row_hits():
    assert first_hit(np.array([0, 0, 1, 1], dtype=np.float32)) == 2
    assert first_hit(np.array([0.0, -0.5, 0.0])) == 1  # any nonzero value counts
    assert first_hit(np.zeros(5, dtype=np.float32)) is None
    a = np.zeros((3, 5), dtype=np.float32)
    a[0, 4] = a[0, 1] = a[2, 0] = 1.0
    assert row_hits(a) == [[1, 4], [], [0]]
    assert all(type(c) is int for c in row_hits(a)[0] + [first_hit(a[2])])
