"""Evaluate any line-up of players on any Mazzo game with duplicate deals and 95% intervals.

The command line ``python -m train.evaluate`` (``train/evaluate.py`` calls ``main`` here): one
line-up (``--players``) or an OpenSkill round robin (``--rating``); see the package docstring.
"""

from __future__ import annotations

import argparse
import ast
import shlex
import sys
import time
from pathlib import Path
from typing import Any

from envs.core.errors import ConfigError, MazzoError
from envs.registry import GAMES
from train.evaluation.core import BACKENDS, check_games_file, check_out_dir, evaluate
from train.evaluation.play import SEATINGS
from train.evaluation.rating import round_robin

__all__ = ["parse_flag", "run", "main"]

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


def _parser() -> argparse.ArgumentParser:
    p = argparse.ArgumentParser(prog="python -m train.evaluate", description=__doc__.split("\n\n")[0],
                                formatter_class=argparse.RawDescriptionHelpFormatter)
    p.add_argument("--game", required=True, help=f"one of {', '.join(GAMES)}")
    who = p.add_mutually_exclusive_group(required=True)
    who.add_argument("--players", nargs="+", metavar="SPEC", help="one agent spec per seat")
    who.add_argument("--rating", nargs="+", metavar="SPEC", help="OpenSkill round robin over these specs")
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
    p.add_argument("--no-progress", action="store_true")
    p.add_argument("--save-games", default=None, metavar="FILE.jsonl",
                   help="write every episode's record (mazzo-record/1, one per line, with the seating)")
    return p


def _save(result: Any, out: Path) -> dict[str, Path]:
    """``result.save(out)``; interrupted half way, it removes what it wrote (and ``out`` if it made it)."""
    made = not out.exists()
    before = set(out.iterdir()) if not made else set()
    try:
        return result.save(out)
    except BaseException:
        if out.is_dir():
            for f in set(out.iterdir()) - before:
                if f.is_file():
                    f.unlink()
            if made and not any(out.iterdir()):
                out.rmdir()
        raise


def run(argv: list[str], echo: bool = True) -> Any:
    """Do what the command line ``argv`` asks (evaluate or rate), save the outputs, return the result
    (an ``EvalResult`` or a ``Leaderboard``). Raises ``ConfigError`` on bad input."""
    args = _parser().parse_args(argv)
    command = "python -m train.evaluate " + shlex.join(argv)
    flags = dict(parse_flag(f) for f in args.flag)
    out = Path(args.out or f"runs/eval/{args.game}__{args.seed}__{time.strftime('%Y%m%d-%H%M%S')}")
    check_out_dir(out)  # a bad --out fails now, not after the whole evaluation
    if args.save_games is not None:
        if args.rating:
            raise ConfigError("--save-games works with --players (a line-up), not with --rating")
        check_games_file(Path(args.save_games))
    if args.address is not None and args.backend != "ray":
        raise ConfigError("--address joins a Ray cluster: add --backend ray")
    if args.rating and args.backend != "local":
        raise ConfigError("--backend ray works with --players (a line-up), not with --rating")
    if args.rating:
        result = round_robin(args.game, args.rating, num_deals=args.deals, seed=args.seed, flags=flags,
                             workers=args.workers, duplicate=not args.plain, progress=not args.no_progress,
                             command=command)
    else:
        result = evaluate(args.game, args.players, num_deals=args.deals, seed=args.seed, flags=flags,
                          duplicate=not args.plain, workers=args.workers, progress=not args.no_progress,
                          seating=args.seating, command=command, save_games=args.save_games,
                          backend=args.backend, address=args.address)
    paths = _save(result, out)
    if args.save_games is not None:
        paths = {**paths, "games": Path(args.save_games)}
    if echo:
        print(result)
        print("saved: " + ", ".join(str(p) for p in paths.values()))
    return result


def main(argv: list[str] | None = None) -> int:
    """The command line: 0 done, 2 bad input (one ``error:`` line), 130 interrupted (Ctrl-C)."""
    try:
        run(list(sys.argv[1:] if argv is None else argv))
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
