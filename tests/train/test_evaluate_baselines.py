"""``benchmarks/baselines.py``: the report it writes, and that its commands reproduce its numbers."""

from __future__ import annotations

import importlib.util
import re
import shlex
from pathlib import Path

import pytest

from train.evaluate import run

ROOT = Path(__file__).resolve().parents[2]
HEURISTICS = all(importlib.util.find_spec(f"agents.{g}_heuristic") for g in ("briscola5", "pigugnin", "picchetto"))


def _load():
    spec = importlib.util.spec_from_file_location("baselines", ROOT / "benchmarks" / "baselines.py")
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


@pytest.mark.slow
@pytest.mark.skipif(not HEURISTICS, reason="a heuristic agent is missing")
def test_baselines_report_and_its_commands_agree(tmp_path):
    out = tmp_path / "baselines.md"
    baselines = _load()
    assert baselines.main(["--scale", "0.02", "--workers", "1", "--out", str(out), "--runs", str(tmp_path / "runs")]) == 0
    text = out.read_text()
    for game in ("briscola5", "pigugnin", "picchetto"):
        assert re.search(rf"^\| {game} \| defaults \| heuristic \+ \d x random \|", text, re.M)
        assert f"python -m train.evaluate --game {game} --players heuristic" in text
    assert "Not measured yet" not in text
    # the first duplicate command of the report reproduces the first number of the headline table
    command = next(line for line in text.splitlines() if line.startswith("python -m train.evaluate --game briscola5"))
    argv = shlex.split(command)[3:]
    argv[argv.index("--out") + 1] = str(tmp_path / "again")
    res = run(argv, echo=False)
    mean = res.table[0]["reward_per_episode"]["mean"]
    row = next(line for line in text.splitlines() if line.startswith("| briscola5 |"))
    assert f"{mean:+.3f} [" in row
