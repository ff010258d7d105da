"""What the role probes share (``benchmarks/<game>_roles.py``): a learned agent with PIMC taking over some of its
decisions, and the command line that measures each variant of it against PIMC.

A probe's variants differ in which roles PIMC takes: ``HybridProbe(game, name, role, pimc_roles)`` plays
``pretrained:GAME`` and hands PIMC (``pimc-v1``, the PIMC of the published probes: ``learning.PIMC_PANEL``) every
decision whose ``role(observation)`` is in ``pimc_roles``, reading only the seat's own observation. PIMC sees every
observation, so its tracker of the hand stays whole. These are probes, not players: the hybrids are built in the
benchmarks only.
"""

from __future__ import annotations

import argparse
from collections.abc import Callable, Iterable
from concurrent.futures import ProcessPoolExecutor
from multiprocessing import get_context
from pathlib import Path
from typing import Any

from learning import PIMC_PANEL  # the probes' scripts put benchmarks/ on sys.path before importing this module


class HybridProbe:
    """``pretrained:GAME``, with PIMC deciding wherever ``role(observation)`` is one of ``pimc_roles`` (none: no PIMC
    player is built)."""

    def __init__(self, game: str, name: str, role: Callable[[dict], str], pimc_roles: Iterable[str]):
        from agents import make_agent

        self.name = name
        self.role = role
        self.pimc_roles = frozenset(pimc_roles)
        self.net = make_agent(f"pretrained:{game}", game, seed=0)
        self.pimc = make_agent(PIMC_PANEL, game, seed=0) if self.pimc_roles else None

    def act(self, observation: dict) -> int:
        if self.pimc is None:
            return self.net.act(observation)
        if self.role(observation) in self.pimc_roles:
            return self.pimc.act(observation)
        self.pimc.determinizer.observe(observation)
        return self.net.act(observation)

    def reset(self) -> None:
        self.net.reset()
        if self.pimc is not None:
            self.pimc.reset()

    def seed(self, seed: int | None) -> None:
        self.net.seed(seed)
        if self.pimc is not None:
            self.pimc.seed(seed)


def probe_arguments(description: str, variants: list[str], name: str, root: Path, deals: int) -> argparse.ArgumentParser:
    """The probes' common options: ``--variants``, ``--deals``, ``--seed``, ``--workers``, ``--json``, ``--out``,
    ``--report-only`` (the results as ``benchmarks/NAME.json`` and ``.md``)."""
    p = argparse.ArgumentParser(description=description)
    p.add_argument("--variants", nargs="+", choices=variants, default=variants)
    p.add_argument("--deals", type=int, default=deals)
    p.add_argument("--seed", type=int, default=2)
    p.add_argument("--workers", type=int, default=1, help="variants measured at once (one process each)")
    p.add_argument("--json", type=Path, default=root / "benchmarks" / f"{name}.json")
    p.add_argument("--out", type=Path, default=root / "benchmarks" / f"{name}.md")
    p.add_argument("--report-only", action="store_true")
    return p


def measure_variants(measure: Callable[..., dict], variants: list[str], workers: int, *args: Any) -> dict:
    """``measure(variant, *args)`` for every variant, ``workers`` at a time (one process each)."""
    with ProcessPoolExecutor(workers, mp_context=get_context("spawn")) as pool:
        futures = {v: pool.submit(measure, v, *args) for v in variants}
        return {v: f.result() for v, f in futures.items()}
