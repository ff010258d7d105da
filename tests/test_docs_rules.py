"""The rule documents in ``docs/rules/`` stay in step with the code.

For every registered game, ``docs/rules/<game>.md`` exists and its flag table (the one table
headed ``| flag | default | allowed | meaning |``) lists exactly the flags that
``envs/<game>/game.py`` declares in ``FLAGS``, each with its default (as ``repr``, in
backticks) and, for flags with a finite set of values, every allowed value. Each document
states its env's ``Discrete(n)`` action space and observation size; the index links every
game, and every relative link in the documents points to an existing file.
"""

from __future__ import annotations

import importlib
import re
from pathlib import Path

import pytest

from envs.registry import GAMES, make_raw_env

ROOT = Path(__file__).resolve().parent.parent
DOCS = ROOT / "docs" / "rules"
FLAG_HEADER = "| flag | default | allowed | meaning |"


def _flags(game: str):
    return importlib.import_module(f"envs.{game}.game").FLAGS


def _doc(game: str) -> str:
    path = DOCS / f"{game}.md"
    assert path.is_file(), f"missing rule document {path.relative_to(ROOT)}"
    return path.read_text(encoding="utf-8")


def _cells(line: str) -> list[str]:
    return [cell.strip() for cell in line.strip().strip("|").split("|")]


def _flag_rows(text: str) -> dict[str, list[str]]:
    """Rows of the document's flag table, by flag name (the backticked first cell)."""
    lines = text.splitlines()
    starts = [i for i, line in enumerate(lines) if line.strip() == FLAG_HEADER]
    assert len(starts) == 1, f"expected exactly one flag table headed {FLAG_HEADER!r}, found {len(starts)}"
    rows: dict[str, list[str]] = {}
    for line in lines[starts[0] + 2 :]:
        if not line.startswith("|"):
            break
        cells = _cells(line)
        name = cells[0]
        assert re.fullmatch(r"`\w+`", name), f"flag table row without a `flag` name: {line!r}"
        assert name[1:-1] not in rows, f"flag {name} listed twice"
        rows[name[1:-1]] = cells
    return rows


@pytest.mark.parametrize("game", list(GAMES))
def test_flag_table_matches_the_code(game):
    rows = _flag_rows(_doc(game))
    declared = [f.name for f in _flags(game)]
    assert sorted(rows) == sorted(declared), (
        f"docs/rules/{game}.md flag table: missing {sorted(set(declared) - set(rows))}, "
        f"not in the code {sorted(set(rows) - set(declared))}"
    )
    for flag in _flags(game):
        cells = rows[flag.name]
        assert len(cells) == 4, f"{flag.name}: expected 4 cells, got {cells}"
        assert cells[1] == f"`{flag.default!r}`", (
            f"docs/rules/{game}.md: flag {flag.name} shows default {cells[1]}, the code has `{flag.default!r}`"
        )
        assert flag.doc and cells[3], f"{flag.name}: empty meaning"
        for value in flag.allowed or ():
            assert repr(value) in cells[2], f"docs/rules/{game}.md: flag {flag.name} does not list {value!r}"


def test_index_links_every_game():
    index = (DOCS / "README.md").read_text(encoding="utf-8")
    for game in GAMES:
        assert f"]({game}.md)" in index, f"docs/rules/README.md does not link {game}.md"


@pytest.mark.parametrize("name", sorted(p.name for p in DOCS.glob("*.md")))
def test_relative_links_resolve(name):
    path = DOCS / name
    for target in re.findall(r"\]\(([^)\s]+)\)", path.read_text(encoding="utf-8")):
        if re.match(r"[a-z]+:", target) or target.startswith("#"):
            continue
        file = (path.parent / target.split("#")[0]).resolve()
        assert file.exists(), f"docs/rules/{name}: broken link {target}"


@pytest.mark.parametrize("game", list(GAMES))
def test_action_space_and_observation_size_are_stated(game):
    text = _doc(game)
    env = make_raw_env(game)
    agent = env.possible_agents[0]
    assert f"Discrete({env.action_space(agent).n})" in text
    assert str(env.observation_space(agent)["observation"].shape[0]) in text
