"""The batched Briscola config that trains against the current heuristic is valid and is what it says it is."""

from __future__ import annotations

from pathlib import Path

import pytest

pytest.importorskip("torch")
pytest.importorskip("numba")

from train.batched import Args, check_args  # noqa: E402
from train.config import parse_args  # noqa: E402
from train.dispatch import trainer_of  # noqa: E402

ROOT = Path(__file__).resolve().parents[2]


def test_the_vs_heuristic_config_trains_against_and_imitates_the_current_heuristic():
    path = str(ROOT / "configs/briscola5/ppo_batched_vs_heuristic.yaml")
    assert trainer_of(["--config", path]) == "batched"
    args = parse_args(Args, ["--config", path])
    meta = check_args(args)
    assert meta["game"] == "briscola5" and args.bc_teacher == "heuristic" and args.bc_episodes > 0
    assert "heuristic" in args.opponents and args.eval_opponents[0] == "heuristic"  # the best checkpoint: vs heuristic
    default = parse_args(Args, ["--config", str(ROOT / "configs/briscola5/ppo_batched.yaml")])
    assert default.opponents == "heuristic-v1" and default.bc_teacher == "heuristic-v1"  # the published run's, unchanged
