"""The public entry of evaluation: ``from train.evaluate import evaluate, head_to_head`` and
``python -m train.evaluate ...`` (the code lives in ``train/evaluation/``; its package docstring
has the arguments, duplicate deals and the errors)."""

from __future__ import annotations

import sys

from train.evaluation.cli import main, parse_flag, run
from train.evaluation.core import (
    check_games_file,
    check_out_dir,
    evaluate,
    head_to_head,
    num_seats,
    prepare,
    with_field,
)
from train.evaluation.result import EvalResult

__all__ = ["evaluate", "head_to_head", "prepare", "parse_flag", "num_seats", "with_field", "check_out_dir",
           "check_games_file", "run", "main", "EvalResult"]

if __name__ == "__main__":
    sys.exit(main())
