"""The extras table of docs/getting-started.md is pyproject.toml's (issue 20: "make the extras table true").

Every extra of ``[project.optional-dependencies]`` has a row and every row is an extra; a row's "what it adds"
names each package the extra lists (the ``dev`` row names the extras it includes and leaves the test tools to
"..."); the "(none)" row names the base ``dependencies``.
"""

from __future__ import annotations

import re
from pathlib import Path

import pytest

tomllib = pytest.importorskip("tomllib")  # Python >= 3.11

ROOT = Path(__file__).resolve().parents[1]
PAGE = ROOT / "docs" / "getting-started.md"


def _name(requirement: str) -> str:
    """``stable-baselines3>=2.3,<3`` -> ``stable-baselines3``; ``ray[rllib]==2.60.0`` -> ``ray``."""
    return re.split(r"[\[<>=!~ ;]", requirement, maxsplit=1)[0].lower()


def extras_table(text: str) -> dict[str, str]:
    """``{extra: "what it adds" cell}``; the base install's row is keyed ``""``."""
    rows = {}
    section = text.split("| extra | what it adds | for |", 1)[1].split("\n\n", 1)[0]
    for line in section.splitlines()[2:]:
        cells = [c.strip() for c in line.strip().strip("|").split("|")]
        if len(cells) < 3:
            continue
        key = "" if cells[0].startswith("(none)") else cells[0].strip("`")
        rows[key] = cells[1]
    return rows


def _mentions(cell: str, package: str) -> bool:
    words = re.sub(r"[`\[\]()]", " ", cell.lower()).replace(",", " ")
    return package in words.split() or package.replace("-", "") in words.replace("-", "").split()


def test_every_extra_has_a_row_and_every_row_is_an_extra():
    project = tomllib.loads((ROOT / "pyproject.toml").read_text(encoding="utf-8"))["project"]
    rows = extras_table(PAGE.read_text(encoding="utf-8"))
    assert set(rows) == {""} | set(project["optional-dependencies"])


def test_each_row_names_what_its_extra_installs():
    project = tomllib.loads((ROOT / "pyproject.toml").read_text(encoding="utf-8"))["project"]
    rows = extras_table(PAGE.read_text(encoding="utf-8"))
    wrong = []
    for package in map(_name, project["dependencies"]):
        if not _mentions(rows[""], package):
            wrong.append(f"(none): {package}")
    for extra, requirements in project["optional-dependencies"].items():
        for requirement in requirements:
            included = re.fullmatch(r"mazzo\[(\w+)\]", requirement)
            if included:
                if f"`{included.group(1)}`" not in rows[extra]:
                    wrong.append(f"{extra}: the {included.group(1)} extra")
            elif extra != "dev" and not _mentions(rows[extra], _name(requirement)):
                wrong.append(f"{extra}: {_name(requirement)}")
    assert not wrong, f"docs/getting-started.md's extras table misses: {wrong}"


def test_the_check_reads_a_row_and_its_packages():
    rows = extras_table("| extra | what it adds | for |\n|---|---|---|\n| (none) `pip install -e .` | numpy | x |\n"
                        "| `train` | `vector`, torch, Stable-Baselines3, PyYAML | y |\n\nafter")
    assert rows == {"": "numpy", "train": "`vector`, torch, Stable-Baselines3, PyYAML"}
    assert _mentions(rows["train"], "stable-baselines3") and _mentions(rows["train"], "pyyaml")
    assert not _mentions(rows["train"], "tensorboard")
