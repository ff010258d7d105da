"""The `mazzo` command.

    mazzo play GAME [--seat N] [--opponents heuristic,pretrained:GAME,...] [--seed S] [--flag k=v] [--save FILE]
    mazzo replay FILE [--seat N] [--index K]     # step forward and back through a record (.json or .jsonl)
    mazzo serve [--port 8000] [--host 127.0.0.1] # the web page: play in the browser, open records
    mazzo eval ...                               # python -m train.evaluate ...
    mazzo train [CONFIG] [--KEY VALUE ...]       # python -m train --config CONFIG ... (the config's trainer)

Each command checks the optional packages it needs before doing anything (`NEEDS`) and, when one
is missing, prints one line naming the extra to install, e.g. `pip install 'mazzo[play]'`.

Exit codes: 0 done, 2 bad input or a missing extra (one `error:` line), 130 interrupted.
"""

from __future__ import annotations

import argparse
import sys
from collections.abc import Callable
from importlib.util import find_spec

from envs.core.errors import MazzoError
from envs.registry import GAMES

__all__ = ["main", "parse_flags", "NEEDS", "missing_extra"]

#: command -> (the extra that provides them, the modules it imports)
NEEDS: dict[str, tuple[str, tuple[str, ...]]] = {
    "play": ("play", ("rich",)),
    "replay": ("play", ("rich",)),
    "serve": ("play", ("starlette", "uvicorn")),
    "train": ("train", ("torch", "yaml")),
}


def missing_extra(command: str) -> str | None:
    """The one-line error for a command whose optional packages are not installed, else None."""
    extra, modules = NEEDS.get(command, ("", ()))
    missing = [m for m in modules if find_spec(m) is None]
    if not missing:
        return None
    return (f"mazzo {command} needs the '{extra}' extra (missing: {', '.join(missing)}): "
            f"pip install 'mazzo[{extra}]'")


def parse_flags(items: list[str]) -> dict:
    from train.evaluate import parse_flag  # the one parser of key=value flags (Python literal, else YAML)

    return dict(parse_flag(f) for f in items)


def _parser() -> argparse.ArgumentParser:
    p = argparse.ArgumentParser(prog="mazzo", description="Play, replay and evaluate Mazzo's card games.",
                                epilog="mazzo eval ... and mazzo train ... take the arguments of "
                                       "python -m train.evaluate and python -m train (mazzo train CONFIG "
                                       "is --config CONFIG)")
    sub = p.add_subparsers(dest="command", required=True)
    play = sub.add_parser("play", help="play a game in the terminal against agents")
    play.add_argument("game", choices=list(GAMES))
    play.add_argument("--seat", type=int, default=0, help="your seat (default 0)")
    play.add_argument("--opponents", default="heuristic",
                      help="one agent spec for every other seat, or one per seat, comma separated "
                           "(random, heuristic, pretrained, pretrained:GAME, ppo:PATH); default heuristic")
    play.add_argument("--seed", type=int, default=None, help="the deal's seed (default: random)")
    play.add_argument("--flag", action="append", default=[], metavar="KEY=VALUE", help="game flag (repeatable)")
    play.add_argument("--save", default=None, metavar="FILE", help="write the record (JSON) at the end")
    rep = sub.add_parser("replay", help="step forward and back through a record")
    rep.add_argument("file", help="a record: .json, or .jsonl (one record per line)")
    rep.add_argument("--seat", type=int, default=None, help="show only what this seat saw (default: everything)")
    rep.add_argument("--index", type=int, default=0, help="which record of a .jsonl file (default 0)")
    serve = sub.add_parser("serve", help="the web page: play in the browser and open records")
    serve.add_argument("--port", type=int, default=8000)
    serve.add_argument("--host", default="127.0.0.1")
    # forwarded before parsing (main), listed here so that `mazzo --help` shows them
    sub.add_parser("eval", help="evaluate players on duplicate deals (python -m train.evaluate; its --help)",
                   add_help=False)
    sub.add_parser("train", help="train an agent from a config: mazzo train CONFIG (python -m train; its --help)",
                   add_help=False)
    return p


def main(argv: list[str] | None = None, ask: Callable[[str], str] | None = None, console=None) -> int:
    argv = list(sys.argv[1:] if argv is None else argv)
    command = argv[0] if argv else None
    missing = missing_extra(command) if command in NEEDS else None
    if missing:  # before any work
        print(f"error: {missing}", file=sys.stderr)
        return 2
    if command in ("eval", "train"):
        return _forward(command, argv[1:])
    args = _parser().parse_args(argv)
    try:
        if args.command == "serve":
            return _serve(args.host, args.port)
        from rich.console import Console
        from rich.text import Text

        console = console or Console()
        ask = ask or (lambda prompt: console.input(Text(prompt)))  # plain text: "[y/N]" is not markup
        if args.command == "play":
            from play.session import Session
            from play.terminal import play_terminal

            session = Session(args.game, seat=args.seat, opponents=args.opponents, seed=args.seed,
                              flags=parse_flags(args.flag))
            play_terminal(session, console, ask, save=args.save)
            return 0
        from envs.records import RecordError, load_records
        from play.terminal import replay_terminal

        try:
            recs = load_records(args.file)
        except OSError as e:
            raise RecordError(f"cannot read {args.file}: {e.strerror or e}") from None
        if not 0 <= args.index < len(recs):
            raise RecordError(f"{args.file} holds {len(recs)} record(s); --index must be 0..{len(recs) - 1}")
        replay_terminal(recs[args.index], console, ask, seat=args.seat)
        return 0
    except MazzoError as e:
        print(f"error: {e}", file=sys.stderr)
        return 2
    except (KeyboardInterrupt, EOFError):
        print("interrupted", file=sys.stderr)
        return 130


def _forward(command: str, argv: list[str]) -> int:
    if command == "eval":
        from train.evaluate import main as evaluate_main

        return evaluate_main(argv, prog="mazzo eval")  # its usage and errors name the command typed
    from train.dispatch import main as train_main

    if argv and not argv[0].startswith("-"):  # mazzo train CONFIG ...: the config file first
        argv = ["--config", *argv]
    try:
        train_main(argv, prog="mazzo train")
    except (MazzoError, FileNotFoundError) as e:  # a bad config, a missing config or checkpoint
        print(f"error: {e}", file=sys.stderr)
        return 2
    return 0


def _serve(host: str, port: int) -> int:
    import uvicorn

    from play.web import create_app

    print(f"Mazzo: open http://{host}:{port}/ (Ctrl-C stops)")
    uvicorn.run(create_app(), host=host, port=port, log_level="warning")
    return 0


if __name__ == "__main__":
    sys.exit(main())
