"""The README's Python examples run as written (budgets shrunk), so the front page stays true."""

from __future__ import annotations

import re
from pathlib import Path

import pytest

README = Path(__file__).resolve().parents[1] / "README.md"
BLOCKS = re.findall(r"```python\n(.*?)```", README.read_text(encoding="utf-8"), re.S)


def test_the_readme_has_examples():
    assert len(BLOCKS) >= 5


@pytest.mark.parametrize("index", range(len(BLOCKS)))
def test_readme_example_runs(index, tmp_path, monkeypatch):
    code = BLOCKS[index]
    if any("..." in line.split("#")[0] for line in code.splitlines()):
        pytest.skip("an excerpt, not a whole example")
    code = re.sub(r"num_deals=\d+", "num_deals=2", code)
    monkeypatch.chdir(tmp_path)
    exec(compile(code, f"README example {index}", "exec"), {"__name__": "readme_example"})
