"""The Python examples of the README and of the documentation pages run as written (budgets shrunk).

The pages are read as the site shows them: the blocks that the site generates from the code
(an env's docstring on its game page, a module's docstring) and the files a page includes
(``agents/pretrained/README.md``) are run too. See also ``tests/test_docs_links.py`` (links,
commands and figures) and ``tests/test_docs_build.py`` (the site builds with no warning).
"""

from __future__ import annotations

import re
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]
README = ROOT / "README.md"
DOCS = ROOT / "docs"
sys.path.insert(0, str(DOCS / "_ext"))
from mazzo_docs import doc_pages, page_text  # noqa: E402 (the site's generator: pages as it renders them)

PYTHON = re.compile(r"```python\n(.*?)```", re.S)


def _blocks() -> list[tuple[str, str]]:
    found = [(f"README.md[{i}]", b) for i, b in enumerate(PYTHON.findall(README.read_text(encoding="utf-8")))]
    for path in doc_pages():
        rel = path.relative_to(ROOT).as_posix()
        found += [(f"{rel}[{i}]", b) for i, b in enumerate(PYTHON.findall(page_text(path)))]
    return found


BLOCKS = _blocks()
README_BLOCKS = [b for name, b in BLOCKS if name.startswith("README.md[")]


def test_the_readme_has_its_example_and_the_pages_theirs():
    assert len(README_BLOCKS) >= 1  # the landing page: one example; the others live on the pages
    assert len(BLOCKS) >= 15
    # every block is a whole example a reader can paste: no "..." standing for missing code
    assert not [n for n, b in BLOCKS if any("..." in line.split("#")[0] for line in b.splitlines())]


def test_the_readme_example_shows_the_aec_loop_make_agent_and_vector_env():
    example = README_BLOCKS[0]
    assert "agent_iter()" in example and "make_agent(" in example and "vector_env(" in example
    assert len(example.splitlines()) <= 25


def _run(code: str, name: str, tmp_path, monkeypatch) -> dict:
    code = re.sub(r"num_deals=\d+", "num_deals=2", code)
    monkeypatch.chdir(tmp_path)
    namespace = {"__name__": "docs_example"}
    exec(compile(code, f"example {name}", "exec"), namespace)
    return namespace


@pytest.mark.parametrize("name, code", BLOCKS, ids=[name for name, _ in BLOCKS])
def test_example_runs(name, code, tmp_path, monkeypatch):
    namespace = _run(code, name, tmp_path, monkeypatch)
    env = namespace.get("env")
    if env is not None and hasattr(env, "unwrapped") and hasattr(env.unwrapped, "state_"):
        assert env.unwrapped.state_ is not None, "an example that builds an env also resets it"


def test_the_explicit_deal_example_deals_the_given_hands(tmp_path, monkeypatch, capsys):
    name, code = next((n, b) for n, b in BLOCKS if '"hands": [' in b and "briscola5" in b)
    _run(code, name, tmp_path, monkeypatch)
    assert capsys.readouterr().out.strip().splitlines()[-1] == "[0, 2, 4, 5, 6, 7, 8, 9]"  # AC 3C 5C .. KC


def test_the_readme_example_plays_a_whole_hand_whose_credits_sum_to_zero(tmp_path, monkeypatch):
    namespace = _run(README_BLOCKS[0], "README.md[0]", tmp_path, monkeypatch)
    totals = namespace["info"]["result"]["totals"]
    assert len(totals) == 5 and sum(totals) == 0
    assert namespace["env"].agents == []
    assert namespace["rewards"].shape == (1024, 5)  # and its batched engine stepped 1,024 games


def test_the_game_pages_run_their_env_docstring_examples():
    from envs.registry import GAMES

    for game in GAMES:
        assert any(n.startswith(f"docs/games/{game}.md[") for n, _ in BLOCKS), f"docs/games/{game}.md shows no example"
