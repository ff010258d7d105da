"""pyproject.toml lists its packages explicitly (ARCHITECTURE.md): every package folder must be listed, or a
non-editable install (``pip install .``, a wheel) silently leaves it out and its imports fail."""

from __future__ import annotations

from pathlib import Path

import pytest

tomllib = pytest.importorskip("tomllib")  # Python 3.11+ (the project supports 3.10, where this check is skipped)
ROOT = Path(__file__).resolve().parents[1]
TOP = ("envs", "agents", "train", "play")


def test_every_package_folder_is_listed_in_pyproject():
    listed = set(tomllib.loads((ROOT / "pyproject.toml").read_text())["tool"]["setuptools"]["packages"])
    on_disk = {str(p.parent.relative_to(ROOT)).replace("/", ".") for top in TOP for p in (ROOT / top).rglob("__init__.py")}
    assert on_disk - listed == set(), f"package folders missing from pyproject's packages: {sorted(on_disk - listed)}"
    assert listed - on_disk == set(), f"pyproject lists packages that do not exist: {sorted(listed - on_disk)}"
