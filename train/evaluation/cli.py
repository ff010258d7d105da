"""Evaluate any line-up of players on any Mazzo game with duplicate deals and 95% intervals.

The command line ``python -m train.evaluate`` (``train/evaluate.py`` calls ``main`` here; ``mazzo eval`` calls
it with ``prog="mazzo eval"``, the name its usage, errors and recorded command then give): one
line-up (``--players``, or one player and a field: ``--players pimc --field heuristic``) or an
OpenSkill round robin (``--rating``); see the package docstring.

Order of work: every input is checked first (the line-up, the flags, ``--out``, ``--save-games``
and the optional dependencies the run needs: matplotlib for the chart, openskill for ``--rating``,
torch for trained players, numba for the search players, each with its ``pip install`` line); then
the deals are played (progress on stderr; without matplotlib a ``note:`` line says first that no chart
will be drawn, once the arguments are found valid); then the table is printed and the JSON and CSV saved,
and only then the chart is drawn (a chart that fails is a note, the results stay).
"""

from __future__ import annotations

import argparse
import ast
import shlex
import sys
import time
import warnings
from functools import partial
from pathlib import Path
from typing import Any

from envs.core.errors import ConfigError, MazzoError
from envs.registry import GAMES
from train.evaluation.core import BACKENDS, check_games_file, check_out_dir, evaluate, with_field
from train.evaluation.deps import available, install_hint, require
from train.evaluation.play import SEATINGS
from train.evaluation.rating import round_robin
from train.evaluation.result import PlotWarning

__all__ = ["PROG", "parse_flag", "run", "main"]

#: the command's name when no other is given (``mazzo eval`` gives its own)
PROG = "python -m train.evaluate"


def parse_flag(text: str) -> tuple[str, Any]:
    """``key=value`` -> (key, value); the value is a Python literal, else YAML, else the string."""
    key, sep, raw = text.partition("=")
    key = key.strip()
    if not sep or not key:
        raise ConfigError(f"a flag must look like key=value; got {text!r}")
    try:
        return key, ast.literal_eval(raw)
    except (ValueError, SyntaxError):
        pass
    try:
        import yaml

        return key, yaml.safe_load(raw)
    except Exception:  # noqa: BLE001 (not YAML either: keep the text)
        return key, raw


def _parser(prog: str = PROG) -> argparse.ArgumentParser:
    p = argparse.ArgumentParser(prog=prog, description=__doc__.split("\n\n")[0],
                                formatter_class=argparse.RawDescriptionHelpFormatter)
    p.add_argument("--game", required=True, help=f"one of {', '.join(GAMES)}")
    who = p.add_mutually_exclusive_group(required=True)
    who.add_argument("--players", nargs="+", metavar="SPEC",
                     help="one agent spec per seat, or (with --field) the first seats only")
    who.add_argument("--rating", nargs="+", metavar="SPEC", help="OpenSkill round robin over these specs")
    p.add_argument("--field", default=None, metavar="SPEC",
                   help="fill every seat after --players with SPEC: --players pimc --field heuristic is one player "
                        "against a field, and the table's first row is its margin over the field")
    p.add_argument("--deals", type=int, default=200, help="number of deals (default 200)")
    p.add_argument("--seed", type=int, default=0)
    p.add_argument("--workers", type=int, default=1, help="worker processes (same result for any number)")
    p.add_argument("--backend", default="local", choices=BACKENDS,
                   help="where the deals are played: local worker processes, or tasks on a Ray cluster (same result)")
    p.add_argument("--address", default=None, metavar="auto|HOST:PORT",
                   help="with --backend ray: join this Ray cluster (default: start a local one with --workers CPUs)")
    p.add_argument("--flag", action="append", default=[], metavar="KEY=VALUE", help="env flag (repeatable)")
    p.add_argument("--plain", action="store_true", help="plain random deals (each deal played once)")
    p.add_argument("--seating", default="rotate", choices=SEATINGS)
    p.add_argument("--out", default=None, help="output directory (default runs/eval/GAME__SEED__TIME)")
    p.add_argument("--no-progress", action="store_true", help="no progress bar or lines")
    p.add_argument("--progress-every", type=int, default=None, metavar="N",
                   help="a progress line on stderr every N deals (default: a bar on a terminal, else a line every "
                        "tenth of the deals and at least every 10 s)")
    p.add_argument("--no-plot", action="store_true", help="no chart (eval.png): matplotlib is then not needed")
    p.add_argument("--save-games", default=None, metavar="FILE.jsonl",
                   help="write every episode's record (mazzo-record/1, one per line, with the seating)")
    return p


def _save(result: Any, out: Path, plot: bool) -> dict[str, Path]:
    """``result.save(out)``: JSON and CSV, then the chart (a chart that cannot be drawn is a ``note:`` line on
    stderr, the results stay); interrupted half way, it removes what it wrote (and ``out`` if it made it)."""
    made = not out.exists()
    before = set(out.iterdir()) if not made else set()
    try:
        with warnings.catch_warnings(record=True) as caught:
            warnings.simplefilter("always", PlotWarning)
            paths = result.save(out, plot=plot)
        for w in caught:
            if issubclass(w.category, PlotWarning):
                print(f"note: {w.message}", file=sys.stderr)
            else:
                warnings.warn_explicit(w.message, w.category, w.filename, w.lineno)
        return paths
    except BaseException:
        if out.is_dir():
            for f in set(out.iterdir()) - before:
                if f.is_file():
                    f.unlink()
            if made and not any(out.iterdir()):
                out.rmdir()
        raise


def run(argv: list[str], echo: bool = True, prog: str = PROG) -> Any:
    """Do what the command line ``argv`` asks (evaluate or rate), save the outputs, return the result
    (an ``EvalResult`` or a ``Leaderboard``). Raises ``ConfigError`` on bad input; ``prog``: the command's name
    (usage, errors, the command recorded in the results)."""
    args = _parser(prog).parse_args(argv)
    command = f"{prog} " + shlex.join(argv)
    flags = dict(parse_flag(f) for f in args.flag)
    out = Path(args.out or f"runs/eval/{args.game}__{args.seed}__{time.strftime('%Y%m%d-%H%M%S')}")
    _check(args, out)
    # the results need nothing more than the base install: without matplotlib, a note once all is checked
    plot = not args.no_plot and available("matplotlib")
    note = None if plot or args.no_plot else _no_chart_note("rating" if args.rating else "eval")
    start = None if note is None else partial(print, note, file=sys.stderr, flush=True)
    if args.rating:
        result = round_robin(args.game, args.rating, num_deals=args.deals, seed=args.seed, flags=flags,
                             workers=args.workers, duplicate=not args.plain, progress=not args.no_progress,
                             command=command, progress_every=args.progress_every, on_start=start)
    else:
        players = with_field(args.game, args.players, args.field, flags)
        result = evaluate(args.game, players, num_deals=args.deals, seed=args.seed, flags=flags,
                          duplicate=not args.plain, workers=args.workers, progress=not args.no_progress,
                          seating=args.seating, command=command, save_games=args.save_games,
                          backend=args.backend, address=args.address, progress_every=args.progress_every,
                          on_start=start)
    if echo:  # the table first: whatever happens while saving, it has been seen
        print(result, flush=True)
    paths = _save(result, out, plot=plot)
    if args.save_games is not None:
        paths = {**paths, "games": Path(args.save_games)}
    if echo:
        print("saved: " + ", ".join(str(p) for p in paths.values()))
    return result


def _check(args: argparse.Namespace, out: Path) -> None:
    """The checks of the arguments themselves and of the optional modules the run needs (the line-up's
    players and flags are checked by ``evaluate`` / ``round_robin``, still before any deal)."""
    check_out_dir(out)  # a bad --out fails now, not after the whole evaluation
    if args.field is not None and args.rating:
        raise ConfigError("--field fills a line-up (--players), not a round robin (--rating)")
    if args.progress_every is not None and args.progress_every < 1:
        raise ConfigError(f"--progress-every must be a number of deals >= 1; got {args.progress_every}")
    if args.rating:
        require("openskill", "--rating (OpenSkill ratings)")
    if args.save_games is not None:
        if args.rating:
            raise ConfigError("--save-games works with --players (a line-up), not with --rating")
        check_games_file(Path(args.save_games))
    if args.address is not None and args.backend != "ray":
        raise ConfigError("--address joins a Ray cluster: add --backend ray")
    if args.rating and args.backend != "local":
        raise ConfigError("--backend ray works with --players (a line-up), not with --rating")


def _no_chart_note(kind: str) -> str:
    return (f"note: no chart ({kind}.png): matplotlib is not installed ({install_hint('matplotlib')}); the table, "
            "JSON and CSV are saved as usual (--no-plot: no chart, no note)")


def main(argv: list[str] | None = None, prog: str = PROG) -> int:
    """The command line: 0 done, 2 bad input (one ``error:`` line), 130 interrupted (Ctrl-C)."""
    try:
        run(list(sys.argv[1:] if argv is None else argv), prog=prog)
    except MazzoError as e:
        print(f"error: {e}", file=sys.stderr)
        return 2
    except KeyboardInterrupt:
        # the workers are already ended and nothing was saved (or what was is removed again)
        print("interrupted", file=sys.stderr)
        return 130
    return 0


if __name__ == "__main__":
    sys.exit(main())
