"""Sphinx extension of Mazzo's site: pages generated from the code, and Markdown docstrings.

Page macros. A page may hold these fenced blocks, which are replaced by Markdown generated from
the code before the page is parsed (Sphinx's ``source-read``), so a table is never kept twice:

| block | becomes |
|---|---|
| ```` ```{mazzo-env-doc} GAME ```` | the docstring of the game's env module (``envs/<game>/env.py``), its flag and observation tables filled from the code, with a link to the game's rules page |
| ```` ```{mazzo-layout} GAME key=value ... ```` | the observation index table for those flags (``GameSpec.layout``) |
| ```` ```{mazzo-games} ```` | one row per registered game (``envs.registry.GAMES``) |
| ```` ```{mazzo-docstring} MODULE ```` | that module's docstring (imported with the optional extras mocked, as autodoc does) |

A block the extension does not replace stays an unknown directive, which fails the build.

Docstrings. Mazzo's docstrings are Markdown (pipe tables, backticked code, lists), so autodoc's
docstring lines are wrapped in a ``mazzo-markdown`` directive that renders them with MyST.
Headings inside a docstring become bold lines there (a section cannot sit inside an object's
description); on the game pages the env docstrings keep their real headings.

The tests (``tests/test_readme.py``, ``tests/test_docs_*.py``) import this module to read the pages
as the site shows them (``page_text``): they run the Python blocks and check the links and
commands of the generated text too.
"""

from __future__ import annotations

import importlib
import inspect
import os
import re
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parents[2]

MACRO = re.compile(r"^```\{(mazzo-[a-z-]+)\}[ \t]*([^\n]*)\n```[ \t]*$", re.M)
RULES_CODE = re.compile(r"`docs/rules/(\w+)\.md`")
HEADING = re.compile(r"^(#{1,6})\s+(.*?)\s*#*\s*$")
FENCE = re.compile(r"^\s*(`{3,}|~{3,})")


# -- what the macros generate (plain functions: the tests call them too) -------------------------
def env_module(game: str):
    """The module that defines the game's AEC env (its docstring is the game's reference)."""
    from envs.registry import game_spec

    return inspect.getmodule(game_spec(game).public_module().raw_env)


def env_doc(game: str, page_dir: str = "games") -> str:
    """The env module's docstring as a page: a note under its title links the rules page."""
    module = env_module(game)
    doc = inspect.cleandoc(module.__doc__ or "")
    if not doc.startswith("# "):
        raise ValueError(f"{module.__name__}: the docstring must start with a '# Title' line")
    rules = f"{_up(page_dir)}rules/{game}.md"
    doc = RULES_CODE.sub(lambda m: f"[docs/rules/{m.group(1)}.md]({_up(page_dir)}rules/{m.group(1)}.md)", doc)
    source = module.__name__.replace(".", "/") + ".py"
    title, _, body = doc.partition("\n")
    note = (
        f"\n\n:::{{note}}\nThis page is the docstring of `{source}` (`help({module.__name__})` shows the "
        f"same text), with its flag table generated from the engine's `FLAGS` and its observation table "
        f"from the observation layout. The complete rules, every decision taken where the sources are "
        f"silent, and the worked examples are in [the rules of the game]({rules}).\n:::\n"
    )
    return title + note + body + "\n"


def layout_table(game: str, args: str = "") -> str:
    """The observation index table of ``game`` for the flags ``key=value ...`` (Python literals)."""
    import ast

    from envs.registry import game_spec

    flags: dict[str, Any] = {}
    for item in args.split():
        key, eq, value = item.partition("=")
        if not eq:
            raise ValueError(f"mazzo-layout {game}: expected key=value, got {item!r}")
        flags[key] = ast.literal_eval(value)
    return game_spec(game).layout(flags).table() + "\n"


def games_table(page_dir: str = "") -> str:
    """One row per registered game: its env, players, actions, observation size and pages."""
    from envs.registry import GAMES

    rows = ["| game | env | players | actions | observation | pages |", "|---|---|---|---|---|---|"]
    for name, spec in GAMES.items():
        title = inspect.cleandoc(env_module(name).__doc__ or "").partition("\n")[0].lstrip("# ")
        engine = spec.engine_class()
        counts = sorted({spec.num_players(f) for f in _player_variants(engine)})
        shapes = sorted({spec.observation_shape(f)[0] for f in _player_variants(engine)})
        rows.append(
            f"| {title} | `{spec.module.rsplit('.', 1)[-1]}` | {' or '.join(map(str, counts))} | "
            f"Discrete({spec.num_actions}) | {' or '.join(map(str, shapes))} floats | "
            f"[env]({page_dir}games/{name}.md), [rules]({page_dir}rules/{name}.md) |"
        )
    return "\n".join(rows) + "\n"


def module_doc(name: str, mock_imports: tuple[str, ...] = ()) -> str:
    """The docstring of module ``name``, imported with ``mock_imports`` mocked (as autodoc imports it).

    Only the Sphinx process mocks: a mocked import would leave a module bound to mock objects in
    ``sys.modules``, so the tests call this without mocks (their environment has every extra).
    """
    if mock_imports:
        from sphinx.ext.autodoc.mock import mock

        with mock(list(mock_imports)):
            module = importlib.import_module(name)
    else:
        module = importlib.import_module(name)
    return inspect.cleandoc(module.__doc__ or "") + "\n"


def _player_variants(engine: type) -> list[dict[str, Any]]:
    """The flag sets that change the number of players (a `num_players` flag's allowed values)."""
    flag = next((f for f in engine.FLAGS if f.name == "num_players"), None)
    return [{"num_players": n} for n in flag.allowed] if flag is not None and flag.allowed else [{}]


def _up(page_dir: str) -> str:
    return "../" * len([p for p in page_dir.split("/") if p])


def expand(text: str, page_dir: str, mock_imports: tuple[str, ...] = ()) -> str:
    """``text`` with every macro block replaced by what it generates (``page_dir``: the page's folder
    under docs/, for relative links)."""

    def replace(match: re.Match) -> str:
        name, args = match.group(1), match.group(2).split(None, 1)
        game, rest = (args[0], args[1] if len(args) > 1 else "") if args else ("", "")
        if name == "mazzo-env-doc":
            return env_doc(game, page_dir)
        if name == "mazzo-layout":
            return layout_table(game, rest)
        if name == "mazzo-games":
            return games_table(_up(page_dir))
        if name == "mazzo-docstring":
            return module_doc(game, mock_imports)
        return match.group(0)  # unknown: left for the build to refuse

    return MACRO.sub(replace, text)


# -- the pages as the site shows them (for the tests) -------------------------------------------
DOCS = ROOT / "docs"
INCLUDE = re.compile(r"^```\{include\}\s+(\S+)", re.M)
#: docs/ folders that are not pages written by hand (build output, generated API pages, the notebooks)
NOT_PAGES = ("_build", "api/generated", "notebooks", "jupyter_execute")


def doc_pages() -> list[Path]:
    """The Markdown pages of the site, as files in docs/ (not the build output or generated pages)."""
    pages = []
    for path in sorted(DOCS.rglob("*.md")):
        rel = path.relative_to(DOCS).as_posix()
        if not any(rel == d or rel.startswith(d + "/") for d in NOT_PAGES):
            pages.append(path)
    return pages


def page_parts(path: Path) -> list[tuple[Path, str]]:
    """A file's text as the site parses it, as (file, text) pairs: the file itself, a page's macros
    expanded (without mocks: see ``module_doc``), then each file it includes (whose relative links
    are relative to that file)."""
    text = path.read_text(encoding="utf-8")
    if path.is_relative_to(DOCS):
        text = expand(text, path.parent.relative_to(DOCS).as_posix().strip("."))
    parts = [(path, text)]
    for target in INCLUDE.findall(text):
        included = (path.parent / target).resolve()
        parts.append((included, included.read_text(encoding="utf-8")))
    return parts


def page_text(path: Path) -> str:
    """All of ``page_parts(path)`` as one text."""
    return "\n".join(text for _, text in page_parts(path))


# -- the API reference: one page per package, every module of it documented by autodoc --------
API_PACKAGES = ("envs", "agents", "train", "play")
API_DIR = Path("api") / "generated"


def packages(root: Path = ROOT, top: tuple[str, ...] = API_PACKAGES) -> dict[str, list[str]]:
    """Each package (a folder with ``__init__.py`` under one that has one) -> its modules, sorted.

    Found on disk, not by importing, so a new module or package gets its place in the reference
    without an edit, and one that is removed leaves nothing behind.
    """
    found: dict[str, list[str]] = {}
    for name in top:
        for init in sorted((root / name).rglob("__init__.py")):
            rel = init.parent.relative_to(root)
            if all((root / Path(*rel.parts[: i + 1]) / "__init__.py").is_file() for i in range(len(rel.parts))):
                modules = sorted(p.stem for p in init.parent.glob("*.py") if p.stem not in ("__init__", "__main__"))
                found[".".join(rel.parts)] = modules
    return found


def api_page(package: str, modules: list[str], subpackages: list[str]) -> str:
    """The Markdown of one package's reference page."""
    lines = [f"# `{package}`", "", "```{eval-rst}", f".. automodule:: {package}", "```", ""]
    if subpackages:
        lines += ["Subpackages:", "", "```{toctree}", ":maxdepth: 1", "", *subpackages, "```", ""]
    for module in modules:
        lines += [f"## `{package}.{module}`", "", "```{eval-rst}", f".. automodule:: {package}.{module}", "```", ""]
    return "\n".join(lines)


def _write_api_pages(app) -> None:
    if not (Path(app.srcdir) / "api" / "index.md").is_file():
        return  # a site without an API reference (the tests' tiny sites)
    out = Path(app.srcdir) / API_DIR
    out.mkdir(parents=True, exist_ok=True)
    found = packages()
    # Pages are replaced in place and only stale ones removed: a page is never missing, even to another build
    # reading the same folder at the same moment (removing the folder first let such a build find none).
    for stale in set(out.glob("*.md")) - {out / f"{package}.md" for package in found}:
        stale.unlink(missing_ok=True)
    for package, modules in found.items():
        subs = [p for p in found if p.rpartition(".")[0] == package]
        page, text = out / f"{package}.md", api_page(package, modules, subs)
        if not page.is_file() or page.read_text(encoding="utf-8") != text:
            tmp = page.with_suffix(f".{os.getpid()}.part")
            tmp.write_text(text, encoding="utf-8")
            tmp.replace(page)


# -- Sphinx hooks ---------------------------------------------------------------------------
def _source_read(app, docname: str, source: list[str]) -> None:
    if "```{mazzo-" in source[0]:
        source[0] = expand(source[0], str(Path(docname).parent).strip("."), tuple(app.config.autodoc_mock_imports))


def markdown_to_bold_headings(text: str) -> str:
    """Headings outside code fences become bold lines (for Markdown nested in an object description)."""
    out, fence = [], None
    for line in text.splitlines():
        m = FENCE.match(line)
        if m:
            mark = m.group(1)
            if fence is None:
                fence = mark
            elif mark.startswith(fence[0]) and len(mark) >= len(fence):
                fence = None
        elif fence is None:
            h = HEADING.match(line)
            if h:
                line = f"**{h.group(2)}**"
        out.append(line)
    return "\n".join(out)


def _process_docstring(app, what, name, obj, options, lines: list[str]) -> None:
    if not any(line.strip() for line in lines):
        return
    body = markdown_to_bold_headings("\n".join(lines)).splitlines()
    lines[:] = [WRAPPER, ""] + [f"   {line}" if line else "" for line in body] + [""]


WRAPPER = ".. mazzo-markdown::"


def _markdown_directive():
    from docutils import nodes
    from docutils.utils import new_document
    from myst_parser.mdit_to_docutils.sphinx_ import SphinxRenderer
    from myst_parser.parsers.mdit import create_md_parser
    from sphinx.util.docutils import SphinxDirective

    class MarkdownDirective(SphinxDirective):
        """Its content, rendered as MyST Markdown (autodoc wraps every docstring in it)."""

        has_content = True

        def run(self) -> list[nodes.Node]:
            # a scratch document with the page's settings (and so Sphinx's env): MyST's per-document
            # bookkeeping (word count, slugs) stays out of the page, the nodes move into it
            scratch = new_document(self.get_source_info()[0], self.state.document.settings)
            parser = create_md_parser(self.env.myst_config, SphinxRenderer)
            parser.options["document"] = scratch
            parser.render("\n".join(self.content))
            return list(scratch.children)

    return MarkdownDirective


def setup(app) -> dict[str, Any]:
    app.connect("source-read", _source_read)
    # after napoleon (priority 500), which turns Google-style sections into field lists first
    app.connect("autodoc-process-docstring", _process_docstring, priority=900)
    app.add_directive("mazzo-markdown", _markdown_directive())
    app.connect("builder-inited", _write_api_pages)
    return {"version": "1", "parallel_read_safe": True, "parallel_write_safe": True}


__all__ = ["api_page", "doc_pages", "env_doc", "env_module", "expand", "games_table", "layout_table",
           "markdown_to_bold_headings", "module_doc", "packages", "page_parts", "page_text", "setup"]
