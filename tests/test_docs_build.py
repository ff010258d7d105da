"""The documentation site builds from the repository with no warning (`make docs`, warnings as errors).

The build is what `make docs` runs (`sphinx-build -W --keep-going -b html docs ...`), into a
temporary folder: a broken cross-reference, a page missing from the toctree, a module that fails
to import for the API reference or a macro the extension does not know fails it. The built pages
are then checked for what they are generated from: every game's flags and observation fields,
every package's reference page. A second, tiny site with a broken link checks that the build
does fail on one.
"""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

import pytest

from envs.registry import GAMES, game_spec

ROOT = Path(__file__).resolve().parents[1]
DOCS = ROOT / "docs"
pytest.importorskip("sphinx", reason="the docs extra (pip install -e '.[docs]') builds the site")
pytest.importorskip("myst_nb")
pytest.importorskip("furo")

# A whole Sphinx build (about half a CPU minute), once per run: the workers share it (`site`); the group's lock
# (tests/conftest.py) keeps two builds from writing the API pages into docs/api/generated at once.
pytestmark = [pytest.mark.slow, pytest.mark.xdist_group("docs-build")]


def _build(source: Path, out: Path) -> subprocess.CompletedProcess:
    env = dict(os.environ, PYTHONHASHSEED="0")
    return subprocess.run(
        [sys.executable, "-m", "sphinx", "-W", "--keep-going", "-q", "-b", "html", "-d", str(out / "doctrees"),
         str(source), str(out / "html")],
        cwd=ROOT, env=env, capture_output=True, text=True, timeout=900,
    )


def _site_folder(tmp_path_factory) -> Path:
    """Where this run's site is built: under pytest-xdist, one folder that both workers share (their base
    folders are siblings in this run's own temporary folder), so the second worker reuses the first one's
    build; a plain run builds into its own folder."""
    if os.environ.get("PYTEST_XDIST_WORKER"):
        return tmp_path_factory.getbasetemp().parent / "docs-site"
    return tmp_path_factory.mktemp("site")


@pytest.fixture(scope="session")
def site(tmp_path_factory) -> Path:
    # The group's lock is held through this setup, so a worker that finds no finished build builds it alone.
    out = _site_folder(tmp_path_factory)
    finished = out / "built-cleanly"
    if not finished.exists():
        done = _build(DOCS, out)
        assert done.returncode == 0, f"the site does not build cleanly:\n{done.stdout}\n{done.stderr}"
        assert "WARNING" not in done.stderr and "ERROR" not in done.stderr, done.stderr
        finished.touch()
    return out / "html"


def test_the_site_builds_with_no_warning(site):
    for page in ("index", "getting-started", "vector", "agents", "search-players", "evaluation", "training", "ray",
                 "play", "records", "results/speed", "results/strength", "results/baselines", "architecture",
                 "adding-a-game", "api/index", "changelog", "about", "rules/README", "notebooks/quickstart"):
        assert (site / f"{page}.html").is_file(), f"no {page}.html"


@pytest.mark.parametrize("game", list(GAMES))
def test_each_game_page_shows_its_flags_and_observation_fields(site, game):
    html = (site / "games" / f"{game}.html").read_text(encoding="utf-8")
    engine = game_spec(game).engine_class()
    missing = [f.name for f in engine.FLAGS if f"<code class=\"docutils literal notranslate\"><span class=\"pre\">{f.name}</span></code>" not in html]
    assert not missing, f"games/{game}.html does not show the flags {missing}"
    fields = list(game_spec(game).layout().fields)
    assert fields and all(f"<span class=\"pre\">{f}</span>" in html for f in fields)
    assert f'href="../rules/{game}.html"' in html


def test_every_package_has_its_reference_page(site):
    sys.path.insert(0, str(DOCS / "_ext"))
    import mazzo_docs

    for package, modules in mazzo_docs.packages().items():
        html = (site / "api" / "generated" / f"{package}.html").read_text(encoding="utf-8")
        for module in modules:
            assert f'id="module-{package}.{module}"' in html, f"api/generated/{package}.html lacks {package}.{module}"


def test_the_notebooks_are_shown_with_their_stored_outputs(site):
    html = (site / "notebooks" / "train_briscola5.html").read_text(encoding="utf-8")
    assert "<img" in html  # the learning curve the notebook stored (the build runs no kernel)


def test_a_broken_link_fails_the_build(tmp_path):
    source = tmp_path / "src"
    source.mkdir()
    (source / "conf.py").write_text(
        f"__file__ = {str(DOCS / 'conf.py')!r}  # the site's configuration, as if it were here\n"
        f"exec(compile(open(__file__).read(), __file__, 'exec'))\n"
        "html_static_path = []\n", encoding="utf-8")
    (source / "index.md").write_text("# Index\n\nSee [a missing page](missing.md).\n", encoding="utf-8")
    done = _build(source, tmp_path / "out")
    assert done.returncode != 0 and "missing.md" in done.stderr, done.stderr
