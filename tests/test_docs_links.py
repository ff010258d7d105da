"""What the README, the changelog and the documentation pages point to exists.

* Every relative link resolves to a file of the repository (a page, a source file, an image),
  and a ``#fragment`` on a Markdown page names one of its headings (GitHub's and MyST's slugs).
* Every command they print names what exists: the modules of ``python -m MODULE``, the files
  of ``benchmarks/``, ``configs/``, ``tests/``, ... , the ``make`` targets and the ``mazzo``
  subcommands.
* The README's figures (and the results index's) are on the pages they link to.
* Every registered game has its page, generated from its env docstring.

The pages are read as the site shows them (macros expanded, included files appended), by the
site's own generator (``docs/_ext/mazzo_docs.py``). The site's build (``tests/test_docs_build.py``) checks the
cross-references of the pages once more, as Sphinx resolves them.
"""

from __future__ import annotations

import functools
import importlib.util
import re
import sys
from pathlib import Path

import pytest

from envs.registry import GAMES

ROOT = Path(__file__).resolve().parents[1]
DOCS = ROOT / "docs"
sys.path.insert(0, str(DOCS / "_ext"))
import mazzo_docs  # noqa: E402 (the site's generator: pages as it renders them)
from mazzo_docs import doc_pages, page_parts, page_text  # noqa: E402

README = ROOT / "README.md"
CHANGELOG = ROOT / "CHANGELOG.md"
SOURCES = [README, CHANGELOG, *doc_pages()]
IDS = [p.relative_to(ROOT).as_posix() for p in SOURCES]

LINK = re.compile(r"!?\[(?:[^\]\[]|\[[^\]]*\])*\]\(([^)\s]+)(?:\s+\"[^\"]*\")?\)")
HEADING = re.compile(r"^#{1,6}\s+(.+?)\s*#*\s*$", re.M)
FENCED = re.compile(r"^(```|~~~).*?^\1\s*$", re.M | re.S)
MODULE = re.compile(r"python -m ([A-Za-z_][\w.]*)")
REPO_PATH = re.compile(r"(?<![\w/.<-])((?:benchmarks|configs|tests|agents|envs|train|play|notebooks|docs)/[\w./-]*\w\.(?:py|yaml|md|ipynb|png|zip))(?![\w<*])")
MAKE = re.compile(r"(?:^(?:[A-Z]+=\S+ )*|`)make ([a-z][\w-]*)", re.M)  # a command line or inline code, not prose
MAZZO = re.compile(r"(?:^|`)mazzo ([a-z]+)\b", re.M)
API_PAGE = re.compile(r"(?:^|/)api/generated/([\w.]+)\.md$")


def slug(heading: str) -> str:
    """The anchor of a heading: GitHub's rule, which MyST's heading anchors follow."""
    text = re.sub(r"`([^`]*)`", r"\1", heading)
    text = re.sub(r"\[([^\]]*)\]\([^)]*\)", r"\1", text).strip().lower()
    text = re.sub(r"[^\w\- ]", "", text)
    return text.replace(" ", "-")


def _anchors(path: Path) -> set[str]:
    text = FENCED.sub("", page_text(path))
    return {slug(h) for h in HEADING.findall(text)}


def _links(path: Path) -> list[tuple[Path, str]]:
    """(the file whose folder the link is relative to, the link) for each relative link of a page."""
    return [(file, t) for file, text in page_parts(path) for t in LINK.findall(FENCED.sub("", text))
            if not re.match(r"[a-z][a-z0-9+.-]*:", t)]


@pytest.mark.parametrize("path", SOURCES, ids=IDS)
def test_relative_links_resolve(path):
    packages = mazzo_docs.packages()
    broken = []
    for base, target in _links(path):
        file, _, fragment = target.partition("#")
        resolved = (base.parent / file).resolve() if file else base
        api = API_PAGE.search(resolved.as_posix())
        if api and resolved.is_relative_to(DOCS):  # written by the build, one page per package
            if api.group(1) not in packages:
                broken.append(f"{target} (no package {api.group(1)})")
            continue
        if not resolved.exists():
            broken.append(target)
        elif fragment and resolved.suffix == ".md" and fragment not in _anchors(resolved):
            broken.append(f"{target} (no heading with that anchor)")
    assert not broken, f"{path.relative_to(ROOT)}: broken links {broken}"


def test_the_link_check_sees_a_broken_link_and_a_broken_anchor(tmp_path):
    page = DOCS / "getting-started.md"
    anchors = _anchors(page)
    assert "explicit-deals" in anchors and "install" in anchors
    assert slug("`make train`: batched PPO on Briscola") == "make-train-batched-ppo-on-briscola"
    assert "missing.md" in LINK.findall("see [x](missing.md) and ![y](a.png)") and "a.png" in LINK.findall("![y](a.png)")


@pytest.mark.parametrize("path", SOURCES, ids=IDS)
def test_the_commands_name_what_exists(path):
    text = page_text(path)
    missing = [f"python -m {m}" for m in sorted(set(MODULE.findall(text))) if importlib.util.find_spec(m) is None]
    missing += [p for p in sorted(set(REPO_PATH.findall(text))) if not (ROOT / p).exists()]
    targets = set(re.findall(r"^([a-z][\w-]*):", (ROOT / "Makefile").read_text(encoding="utf-8"), re.M))
    missing += [f"make {t}" for t in sorted(set(MAKE.findall(text))) if t not in targets]
    missing += [f"mazzo {c}" for c in sorted(set(MAZZO.findall(text)) - {"record"}) if not _mazzo_command(c)]
    assert not missing, f"{path.relative_to(ROOT)} names what does not exist: {missing}"


@functools.cache
def _mazzo_command(name: str) -> bool:
    """``mazzo NAME --help`` exits 0: the command has that subcommand."""
    from play.cli import main

    try:
        main([name, "--help"])
    except SystemExit as stop:
        return stop.code == 0
    return False


FIGURE = re.compile(r"(?<![\w.])[+-]\d+\.\d+|\b\d+m\d\d\b|\b\d{1,3}(?:,\d{3})+\b")


@pytest.mark.parametrize("page", [README, DOCS / "results" / "index.md"], ids=["README.md", "docs/results/index.md"])
def test_the_headline_figures_are_on_the_pages_they_link_to(page):
    text = page.read_text(encoding="utf-8")
    rows = [line for line in text.splitlines() if line.startswith("|") and "](" in line.split("|")[-2]]
    assert len(rows) >= 6, f"{page.name}: no headline table"
    for row in rows:
        cells = [c.strip() for c in row.strip("|").split("|")]
        figures, links = FIGURE.findall(cells[1]), LINK.findall(cells[-1])
        targets = [(page.parent / t.partition("#")[0]).resolve() for t in links]
        pages = "\n".join(page_text(t) for t in targets)
        missing = [f for f in figures if f not in pages]
        assert not missing, f"{page.name}: {cells[0]}: {missing} are not on {[t.name for t in targets]}"


@pytest.mark.parametrize("game", list(GAMES))
def test_every_game_has_its_generated_page(game):
    page = DOCS / "games" / f"{game}.md"
    assert page.is_file(), f"missing docs/games/{game}.md"
    assert f"```{{mazzo-env-doc}} {game}\n```" in page.read_text(encoding="utf-8")
    assert f"<{game}>" in (DOCS / "games" / "index.md").read_text(encoding="utf-8"), "not in the games toctree"
    shown = page_text(page)
    assert "| flag | default | allowed | meaning |" in shown and "| slice | field |" in shown  # the generated tables
    assert f"../rules/{game}.md" in shown


def test_the_api_pages_are_replaced_in_place_and_stale_ones_removed(tmp_path):
    """A build writes docs/api/generated without ever leaving it empty (another build may be reading it): pages that
    did not change are not rewritten, a package that is gone loses its page."""
    from types import SimpleNamespace

    (tmp_path / "api").mkdir()
    (tmp_path / "api" / "index.md").write_text("# API\n")
    out = tmp_path / mazzo_docs.API_DIR
    out.mkdir()
    (out / "gone.md").write_text("# a package removed since\n")
    app = SimpleNamespace(srcdir=str(tmp_path))
    mazzo_docs._write_api_pages(app)
    pages = {p.stem for p in out.iterdir()}
    assert pages == set(mazzo_docs.packages()) and "envs" in pages
    before = {p.name: p.stat().st_mtime_ns for p in out.iterdir()}
    (out / "agents.md").write_text("# edited by hand\n")
    mazzo_docs._write_api_pages(app)
    after = {p.name: p.stat().st_mtime_ns for p in out.iterdir()}
    assert "# edited by hand" not in (out / "agents.md").read_text()
    assert {k: v for k, v in after.items() if k != "agents.md"} == {k: v for k, v in before.items() if k != "agents.md"}
