"""``python -m train.ppo --config FILE ...``: the older name of ``python -m train`` (README commands, notebooks and
tests use it); the config's ``trainer`` key picks the trainer (``train/dispatch.py``)."""

from __future__ import annotations

from pathlib import Path

from train.dispatch import cli
from train.dispatch import main as dispatch

__all__ = ["main"]


def main(argv: list[str] | None = None) -> Path:
    return dispatch(argv, prog="python -m train.ppo")


if __name__ == "__main__":
    cli(main)
