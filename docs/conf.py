"""Sphinx configuration of Mazzo's documentation site (`make docs`; see docs/about.md).

The site is built from the repository as it is: the game pages from the envs' docstrings
(docs/_ext/mazzo_docs.py), the API reference from every module's docstring (autodoc, with the
docstrings read as MyST Markdown), the notebooks as stored (never executed here: the test suite
runs them), and the rule documents, benchmark tables and changelog included from their files.
Nothing is fetched from the network.
"""

from __future__ import annotations

import sys
from pathlib import Path

DOCS = Path(__file__).resolve().parent
ROOT = DOCS.parent
sys.path.insert(0, str(ROOT))  # the worktree's modules, not an installed copy
sys.path.insert(0, str(DOCS / "_ext"))

project = "Mazzo"
author = "the Mazzo developers"
copyright = "the Mazzo developers, MIT License"  # noqa: A001 (Sphinx's name)

extensions = [
    "myst_nb",  # MyST Markdown pages and the notebooks (it loads myst_parser itself)
    "sphinx.ext.autodoc",
    "sphinx.ext.napoleon",
    "mazzo_docs",  # generated game and API pages, Markdown docstrings, the page macros
]

source_suffix = {".rst": "restructuredtext", ".md": "myst-nb", ".ipynb": "myst-nb"}
root_doc = "index"
exclude_patterns = ["_build", "**/.ipynb_checkpoints", "Thumbs.db", ".DS_Store"]
templates_path = ["_templates"]

# -- MyST and the notebooks --------------------------------------------------------------------
myst_enable_extensions = ["colon_fence", "deflist", "fieldlist"]
myst_heading_anchors = 3  # [text](page.md#a-heading) links resolve, and are checked
nb_execution_mode = "off"  # the notebooks are shown with their stored outputs
nb_merge_streams = True

# -- API reference ------------------------------------------------------------------------------
# docs/api/generated/<package>.md, one page per package, is written on every build from the folders
# on disk (mazzo_docs.packages), so a module renamed or removed cannot leave a stale page behind.
# every object once, in the module that defines it (not again where a facade's __all__ re-exports it)
autodoc_default_options = {"members": True, "show-inheritance": True, "ignore-module-all": True}
autodoc_member_order = "bysource"
autodoc_typehints = "signature"
# The optional extras are mocked, so the reference builds from a docs-only install and says the
# same whatever else is installed. (envs/ never needs any of them.)
autodoc_mock_imports = [
    "torch", "numba", "ray", "stable_baselines3", "sb3_contrib", "tensorboard", "starlette", "uvicorn",
    "rich", "matplotlib", "openskill", "tqdm", "yaml", "httpx", "playwright", "PIL",
]
napoleon_google_docstring = True
napoleon_numpy_docstring = False  # Markdown tables and rules must not be read as NumPy sections

# -- HTML ---------------------------------------------------------------------------------------
html_theme = "furo"
html_title = "Mazzo"
html_static_path = ["_static"]
html_show_sourcelink = False
html_theme_options = {"navigation_with_keys": True}
