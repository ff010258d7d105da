"""The API reference builds from a docs-only install: every optional package a module imports at its top is
mocked (``autodoc_mock_imports`` in ``docs/conf.py``).

``make test`` builds the site in an environment that has every extra, where a missing mock cannot show; an
install with only the ``docs`` extra (``pip install -e '.[docs]'``) then fails with "failed to import". So this
test reads, with ``ast``, the module-level imports of ``envs``, ``agents``, ``train`` and ``play`` (autodoc runs
exactly those) and requires each one to be the standard library, a base dependency, Mazzo itself or mocked.
"""

from __future__ import annotations

import ast
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
PACKAGES = ("envs", "agents", "train", "play")
#: `dependencies` of pyproject.toml (by import name): a docs-only install has them
BASE = {"numpy", "gymnasium", "pettingzoo"}


def mocked() -> set[str]:
    tree = ast.parse((ROOT / "docs" / "conf.py").read_text(encoding="utf-8"))
    for node in tree.body:
        if isinstance(node, ast.Assign) and any(getattr(t, "id", "") == "autodoc_mock_imports" for t in node.targets):
            return set(ast.literal_eval(node.value))
    raise AssertionError("docs/conf.py sets no autodoc_mock_imports")


def top_level_imports(source: str) -> set[str]:
    """The top-level package of every import made when the module is imported (not those inside functions;
    ``if``/``try`` blocks at module level count, ``if TYPE_CHECKING:`` does not)."""
    out: set[str] = set()

    def visit(body: list[ast.stmt]) -> None:
        for node in body:
            if isinstance(node, ast.Import):
                out.update(a.name.split(".")[0] for a in node.names)
            elif isinstance(node, ast.ImportFrom) and node.module and not node.level:
                out.add(node.module.split(".")[0])
            elif isinstance(node, ast.If) and "TYPE_CHECKING" not in ast.unparse(node.test):
                visit(node.body)
                visit(node.orelse)
            elif isinstance(node, ast.Try):
                visit(node.body)

    visit(ast.parse(source).body)
    return out


def test_every_optional_import_of_the_packages_is_mocked():
    allowed = set(sys.stdlib_module_names) | BASE | set(PACKAGES) | {"__future__"}
    mocks = mocked()
    missing = {}
    for package in PACKAGES:
        for path in sorted((ROOT / package).rglob("*.py")):
            for name in top_level_imports(path.read_text(encoding="utf-8")) - allowed - mocks:
                missing.setdefault(name, path.relative_to(ROOT).as_posix())
    assert not missing, ("modules the API reference imports need packages a docs-only install lacks; add them to "
                         f"autodoc_mock_imports in docs/conf.py: {missing}")


def test_the_scan_sees_module_level_imports_only():
    source = ("import numpy as np\nfrom PIL import Image\ntry:\n    import numba\nexcept ImportError:\n    numba = None\n"
              "from typing import TYPE_CHECKING\nif TYPE_CHECKING:\n    import torch\n"
              "def f():\n    import ray\n")
    assert top_level_imports(source) == {"numpy", "PIL", "numba", "typing"}
