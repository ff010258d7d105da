"""docs/architecture.md's tree is the repository's: every path it names exists, and every package is in it.

The tree is the code block under "## The tree". A line that starts in column 0 names a top-level path;
an indented one (two spaces) a path inside the last top-level folder. `<game>` stands for each
registered game. The `name.py` names in the description of an indented folder (`sb3/ ... args.py main.py`,
`core/ cards.py (decks) ...`) must be files of that folder.
"""

from __future__ import annotations

import re
from pathlib import Path

from envs.registry import GAMES

ROOT = Path(__file__).resolve().parents[1]
PAGE = ROOT / "docs" / "architecture.md"
PACKAGES = ("envs", "agents", "train", "play")


def tree_lines(text: str) -> list[str]:
    block = text.split("## The tree", 1)[1].split("```", 2)[1]
    return [line for line in block.splitlines()[1:] if line.strip()]


def named_paths(lines: list[str]) -> list[tuple[str, list[str]]]:
    """``[(path, [file names listed in its description]), ...]`` with the parents joined in."""
    out: list[tuple[str, list[str]]] = []
    parent, lists_files = "", False
    for line in lines:
        if line.startswith("   "):  # a continued description
            if out and lists_files:
                out[-1][1].extend(re.findall(r"\b(\w+\.py)\b", line))
            continue
        name, _, rest = line.strip().partition(" ")
        if not line.startswith(" "):
            parent = name if name.endswith("/") else ""
            path = name
        else:
            path = parent + name
        lists_files = name.endswith("/") and line.startswith(" ")  # an indented folder: its files
        out.append((path, re.findall(r"\b(\w+\.py)\b", rest) if lists_files else []))
    return out


def _expand(path: str) -> list[str]:
    return [path.replace("<game>", g) for g in GAMES] if "<game>" in path else [path]


def test_every_path_of_the_tree_exists():
    missing = []
    for path, files in named_paths(tree_lines(PAGE.read_text(encoding="utf-8"))):
        for one in _expand(path):
            hits = list(ROOT.glob(one.rstrip("/"))) if "*" in one else [ROOT / one]
            if not hits or not all(h.exists() for h in hits):
                missing.append(one)
                continue
            missing += [f"{one}{f}" for f in files if not (ROOT / one / f).is_file()]
    assert not missing, f"docs/architecture.md's tree names paths that do not exist: {missing}"


def test_every_package_folder_is_in_the_tree():
    named = {p for path, _ in named_paths(tree_lines(PAGE.read_text(encoding="utf-8"))) for p in _expand(path)}
    folders = [f"{d.relative_to(ROOT).as_posix()}/" for top in PACKAGES for d in sorted((ROOT / top).iterdir())
               if d.is_dir() and (d / "__init__.py").is_file()]
    absent = [f for f in [f"{top}/" for top in PACKAGES] + folders if f not in named]
    assert not absent, f"packages missing from docs/architecture.md's tree: {absent}"


def test_the_check_reads_nesting_and_listed_files():
    lines = tree_lines("## The tree\n\n```\nenvs/   the games\n  core/   cards.py (decks)\n"
                       "                 and flags.py\n  <game>_v0.py  entry\nMakefile  make\n```\n")
    assert named_paths(lines) == [("envs/", []), ("envs/core/", ["cards.py", "flags.py"]),
                                  ("envs/<game>_v0.py", []), ("Makefile", [])]
