"""What the role probes share (``benchmarks/<game>_roles.py``): a learned agent with PIMC taking over some of its
decisions, and the command line that measures each variant of it against PIMC.

A probe's variants differ in which roles PIMC takes: ``HybridProbe(game, name, role, pimc_roles, agent)`` plays
``agent`` (``pretrained:GAME`` unless ``--agent`` names another player) and hands PIMC (``pimc-v1``, the PIMC of
the published probes: ``learning.PIMC_PANEL``) every decision whose ``role(observation)`` is in ``pimc_roles``,
reading only the seat's own observation. PIMC sees every observation, so its tracker of the hand stays whole.
These are probes, not players: the hybrids are built in the benchmarks only.
"""

from __future__ import annotations

import argparse
import json
from collections.abc import Callable, Iterable
from concurrent.futures import ProcessPoolExecutor
from multiprocessing import get_context
from pathlib import Path
from typing import Any

from learning import PIMC_PANEL, _meta  # the probes' scripts put benchmarks/ on sys.path before importing this module


class HybridProbe:
    """``agent`` (default ``pretrained:GAME``), with PIMC deciding wherever ``role(observation)`` is one of
    ``pimc_roles`` (none: no PIMC player is built)."""

    def __init__(self, game: str, name: str, role: Callable[[dict], str], pimc_roles: Iterable[str],
                 agent: str | None = None):
        from agents import make_agent

        self.name = name
        self.role = role
        self.pimc_roles = frozenset(pimc_roles)
        self.net = make_agent(agent or f"pretrained:{game}", game, seed=0)
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
    """The probes' common options: ``--agent``, ``--variants``, ``--deals``, ``--seed``, ``--workers``, ``--json``,
    ``--out``, ``--report-only`` (the results as ``benchmarks/NAME.json`` and ``.md``), ``--runs`` (each variant's
    ``eval.json``, for the pairing of ``with_pairs``)."""
    p = argparse.ArgumentParser(description=description)
    p.add_argument("--agent", default=None, help="the learned player probed (default: pretrained:GAME)")
    p.add_argument("--variants", nargs="+", choices=variants, default=variants)
    p.add_argument("--deals", type=int, default=deals)
    p.add_argument("--seed", type=int, default=2)
    p.add_argument("--workers", type=int, default=1, help="variants measured at once (one process each)")
    p.add_argument("--json", type=Path, default=root / "benchmarks" / f"{name}.json")
    p.add_argument("--out", type=Path, default=root / "benchmarks" / f"{name}.md")
    p.add_argument("--report-only", action="store_true")
    p.add_argument("--runs", type=Path, default=root / "runs" / name, help="each variant's eval.json")
    return p


def save_eval(res, runs: Path, variant: str, root: Path) -> str:
    """Writes the variant's ``eval.json`` (per deal) to ``runs/variant`` and returns its path as the results file
    names it: relative to ``root`` where it lies inside it, so the file names no local prefix."""
    path = res.to_json(runs / variant / "eval.json").resolve()
    return str(path.relative_to(root) if path.is_relative_to(root) else path)


def with_pairs(results: dict, root: Path) -> dict:
    """Adds each variant's margin paired with the ``agent`` row's, deal by deal (``benchmarks/paired_margin.py``'s
    interval), where both ``eval.json`` files exist."""
    from paired_margin import paired

    variants = results.get("variants", {})
    base = variants.get("agent")
    if base is None or "eval_json" not in base or not (root / base["eval_json"]).is_file():
        return results
    a = json.loads((root / base["eval_json"]).read_text())
    for name, r in variants.items():
        if name != "agent" and "eval_json" in r and (root / r["eval_json"]).is_file():
            iv = paired(json.loads((root / r["eval_json"]).read_text()), a)
            r["paired_with_agent"] = {"mean": iv.mean, "low": iv.low, "high": iv.high, "n": iv.n}
    return results


def measure_variants(measure: Callable[..., dict], variants: list[str], workers: int, *args: Any) -> dict:
    """``measure(variant, *args)`` for every variant, ``workers`` at a time (one process each)."""
    with ProcessPoolExecutor(workers, mp_context=get_context("spawn")) as pool:
        futures = {v: pool.submit(measure, v, *args) for v in variants}
        return {v: f.result() for v, f in futures.items()}


def probe_main(argv: list[str], script: str, description: str, variants: list[str], deals: int,
               measure: Callable[..., dict], report: Callable[[dict, Path], None], root: Path) -> None:
    """A probe's command line (``probe_arguments``): measures the variants (``measure_variants``), writes the
    results with their pairing (``with_pairs``) as JSON and the ``report`` as Markdown, and prints the report;
    ``--report-only`` rewrites the report from the JSON. ``script`` is the probe's file name, as in
    ``benchmarks/<script>``."""
    name = script.removesuffix(".py")
    args = probe_arguments(description, variants, name, root, deals).parse_args(argv)
    if args.report_only:
        report(json.loads(args.json.read_text()), args.out)
        return
    meta = {**_meta(argv, script), "deals": args.deals, "agent": args.agent}
    results = {"meta": meta, "variants": measure_variants(measure, args.variants, args.workers, args.deals, args.seed,
                                                          args.runs, args.agent)}
    args.json.write_text(json.dumps(with_pairs(results, root), indent=1) + "\n")
    report(results, args.out)
    print(args.out.read_text())
