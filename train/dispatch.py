"""``python -m train --config FILE [--KEY VALUE ...]``: the trainer the config names runs it.

The trainer is, in this order: ``--trainer NAME`` on the command line, the config file's ``trainer`` key (``engine``
is its older name), the ``trainer`` of the run a ``--resume`` path belongs to (its ``config.yaml``), else ``sb3``
(``train.registry.DEFAULT``). Everything else on the command line goes to that trainer unchanged, and no trainer
hands a run to another. ``--help`` with a config shows that trainer's keys; without one, the default trainer's.
"""

from __future__ import annotations

import sys
from collections.abc import Callable
from pathlib import Path
from typing import Any

from envs.core.errors import ConfigError
from train.config import canonical, read_yaml, split_argv
from train.registry import DEFAULT, TRAINERS, trainer_module
from train.resume import run_config_of

__all__ = ["trainer_of", "main", "cli"]


def trainer_of(argv: list[str]) -> str:
    """The name of the trainer a command line asks for (see the module docstring); ``ConfigError`` for a bad one."""
    config, texts, _ = split_argv(argv)
    in_file = read_yaml(config).get("trainer") if config is not None else None
    texts = canonical(texts, beside=in_file)  # --engine: the older --trainer, or beside rllib its env_engine
    name = texts.get("trainer") or in_file
    if name is None and texts.get("resume") and (beside := run_config_of(texts["resume"])) is not None:
        name = read_yaml(beside).get("trainer")
    name = DEFAULT if name is None else name
    if name not in TRAINERS:
        raise ConfigError(f"invalid value {name!r} for 'trainer'; allowed: {', '.join(TRAINERS)}")
    return name


def main(argv: list[str] | None = None, prog: str = "python -m train") -> Path:
    """Run the trainer ``argv`` asks for; returns its run folder."""
    argv = list(sys.argv[1:] if argv is None else argv)
    name = trainer_of(argv)
    config, _, wants_help = split_argv(argv)
    if wants_help and config is None:
        print(f"{prog}: the config's `trainer` key picks the trainer ({', '.join(TRAINERS)}; default {DEFAULT}); "
              f"the keys of the {DEFAULT} trainer:\n")
    return trainer_module(name).main(argv, prog=prog)


def cli(run: Callable[[], Any] = main) -> None:
    """Entry point: clear one-line errors for bad configs and missing checkpoints (exit code 2)."""
    try:
        run()
    except (ConfigError, FileNotFoundError) as e:
        print(f"error: {e}", file=sys.stderr)
        raise SystemExit(2) from None
