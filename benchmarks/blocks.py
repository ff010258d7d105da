"""Hands shared among worker processes in blocks: the pattern of the benchmarks that play slow (search) players.

Each worker plays one contiguous block of the hands with its own players, seeded ``block_seed(seed, b)``; the deals
depend on the seed only, the players' draws on the seed and the number of workers.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from typing import Any


def block_ranges(hands: int, workers: int) -> list[range]:
    """``hands`` split into ``workers`` contiguous blocks of (nearly) equal size."""
    return [range(b * hands // workers, (b + 1) * hands // workers) for b in range(workers)]


def block_seed(seed: int, block: int) -> int:
    """The players' seed of block ``block`` (a prime stride keeps the blocks' seeds apart)."""
    return seed + 104729 * block


def run_blocks(fn: Callable[..., Any], blocks: Sequence[tuple]) -> list[Any]:
    """``fn(*args)`` for every ``args`` of ``blocks``: in this process for one block, else one spawned process each
    (spawn, not fork: numba and torch state is not inherited)."""
    if len(blocks) == 1:
        return [fn(*blocks[0])]
    import multiprocessing

    with multiprocessing.get_context("spawn").Pool(len(blocks)) as pool:
        return pool.starmap(fn, blocks)
