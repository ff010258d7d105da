"""The README's Python examples run as written (budgets shrunk), so the front page stays true."""

from __future__ import annotations

import re
from pathlib import Path

import pytest

README = Path(__file__).resolve().parents[1] / "README.md"
BLOCKS = re.findall(r"```python\n(.*?)```", README.read_text(encoding="utf-8"), re.S)


def test_the_readme_has_examples_and_no_excerpts():
    assert len(BLOCKS) >= 5
    # every block is a whole example a reader can paste: no "..." standing for missing code
    assert not [b for b in BLOCKS if any("..." in line.split("#")[0] for line in b.splitlines())]


def _run(index: int, tmp_path, monkeypatch) -> dict:
    code = re.sub(r"num_deals=\d+", "num_deals=2", BLOCKS[index])
    monkeypatch.chdir(tmp_path)
    namespace = {"__name__": "readme_example"}
    exec(compile(code, f"README example {index}", "exec"), namespace)
    return namespace


@pytest.mark.parametrize("index", range(len(BLOCKS)))
def test_readme_example_runs(index, tmp_path, monkeypatch):
    namespace = _run(index, tmp_path, monkeypatch)
    env = namespace.get("env")
    if env is not None and hasattr(env, "unwrapped") and hasattr(env.unwrapped, "state_"):
        assert env.unwrapped.state_ is not None, "an example that builds an env also resets it"


def test_the_explicit_deal_example_deals_the_given_hands(tmp_path, monkeypatch, capsys):
    index = next(i for i, b in enumerate(BLOCKS) if '"hands": [' in b and "briscola5" in b)
    _run(index, tmp_path, monkeypatch)
    assert capsys.readouterr().out.strip().splitlines()[-1] == "[0, 2, 4, 5, 6, 7, 8, 9]"  # AC 3C 5C .. KC


def test_the_first_example_plays_a_whole_hand_whose_credits_sum_to_zero(tmp_path, monkeypatch, capsys):
    namespace = _run(0, tmp_path, monkeypatch)
    totals = namespace["info"]["result"]["totals"]
    assert len(totals) == 5 and sum(totals) == 0
    assert namespace["env"].agents == []
