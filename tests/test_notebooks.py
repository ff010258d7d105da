"""The notebooks run top to bottom (small budgets via environment variables) and define no logic."""

from __future__ import annotations

import ast
import os
import re
from pathlib import Path

import pytest

nbformat = pytest.importorskip("nbformat")
nbclient = pytest.importorskip("nbclient")

ROOT = Path(__file__).resolve().parents[1]
NOTEBOOKS = sorted((ROOT / "notebooks").glob("*.ipynb"))


def test_the_two_notebooks_exist():
    assert {p.name for p in NOTEBOOKS} >= {"quickstart.ipynb", "train_briscola5.ipynb"}


@pytest.mark.parametrize("path", NOTEBOOKS, ids=lambda p: p.name)
def test_notebook_defines_no_logic(path):
    nb = nbformat.read(path, as_version=4)
    for cell in nb.cells:
        if cell.cell_type == "code":
            tree = ast.parse(cell.source)
            defs = [n for n in ast.walk(tree) if isinstance(n, (ast.FunctionDef, ast.ClassDef, ast.Lambda))]
            assert not defs, f"{path.name} defines {[getattr(d, 'name', 'lambda') for d in defs]}: import it instead"


#: an absolute folder of the machine that ran a notebook (the stored outputs must not show one)
MACHINE_PATH = re.compile(r"(?<![\w.~])/(?:home|work|tmp|root|Users|var|private|opt|mnt|srv)/")


@pytest.mark.parametrize("path", NOTEBOOKS, ids=lambda p: p.name)
def test_stored_outputs_are_complete_and_name_no_machine_folder(path):
    """The docs site shows the stored outputs (MyST-NB, never executed there): every code cell ran, top to
    bottom in one kernel, and no output names a folder of the machine that ran it (run folders are relative)."""
    nb = nbformat.read(path, as_version=4)
    code = [c for c in nb.cells if c.cell_type == "code"]
    assert [c.execution_count for c in code] == list(range(1, len(code) + 1))
    for cell in code:
        for out in cell.outputs:
            texts = [out.get("text", "")] + [v for k, v in out.get("data", {}).items() if k.startswith("text/")]
            for text in texts:
                found = MACHINE_PATH.search(text) or (str(ROOT) in text and str(ROOT))
                assert not found, f"{path.name}: an output names a machine folder: ...{text[:200]!r}"


@pytest.mark.slow  # runs a kernel and a short training: the slow tier
@pytest.mark.parametrize("path", NOTEBOOKS, ids=lambda p: p.name)
def test_notebook_executes(path, tmp_path, monkeypatch):
    monkeypatch.setenv("MAZZO_NB_DEALS", "4")
    monkeypatch.setenv("MAZZO_NB_STEPS", "512")
    monkeypatch.setenv("MAZZO_RUNS_DIR", str(tmp_path / "runs"))
    monkeypatch.setenv("PYTHONPATH", os.pathsep.join(filter(None, [str(ROOT), os.environ.get("PYTHONPATH")])))
    monkeypatch.setenv("OMP_NUM_THREADS", "1")
    nb = nbformat.read(path, as_version=4)
    client = nbclient.NotebookClient(nb, timeout=600, kernel_name="python3",
                                     resources={"metadata": {"path": str(path.parent)}})
    client.execute()  # raises CellExecutionError with the failing cell's traceback
    outputs = [o for c in nb.cells if c.cell_type == "code" for o in c.get("outputs", [])]
    assert not [o for o in outputs if o.get("output_type") == "error"]
    if path.name == "train_briscola5.ipynb":
        (run,) = (tmp_path / "runs").iterdir()
        assert (run / "learning_curve.png").is_file() and (run / "report.md").is_file()
        assert any("image/png" in o.get("data", {}) for o in outputs)  # the curve is shown
