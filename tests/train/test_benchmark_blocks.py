"""``benchmarks/blocks.py``: hands shared among worker processes in blocks."""

from __future__ import annotations

import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
sys.path.insert(0, str(ROOT / "benchmarks"))

from blocks import block_ranges, block_seed, run_blocks  # noqa: E402


def test_the_blocks_cover_every_hand_once_in_order():
    for hands, workers in [(10, 1), (10, 3), (7, 2), (2, 2)]:
        blocks = block_ranges(hands, workers)
        assert len(blocks) == workers and [h for b in blocks for h in b] == list(range(hands))
        assert max(map(len, blocks)) - min(map(len, blocks)) <= 1


def test_each_block_has_its_own_seed():
    assert len({block_seed(7, b) for b in range(8)}) == 8 and block_seed(7, 0) == 7


def test_blocks_run_in_processes_return_in_block_order():
    args = [(10, 3), (7, 2)]
    assert run_blocks(block_ranges, args) == [block_ranges(10, 3), block_ranges(7, 2)]  # two spawned processes
    assert run_blocks(block_ranges, args[:1]) == [block_ranges(10, 3)]  # one: in this process
