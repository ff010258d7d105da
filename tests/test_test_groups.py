"""The tests of one ``xdist_group`` never run at the same time (``tests/conftest.py``), even on two xdist workers."""

from __future__ import annotations

import shutil
import subprocess
import sys
from pathlib import Path

import pytest

pytest.importorskip("xdist")
pytest.importorskip("fcntl")

HERE = Path(__file__).resolve().parent

GROUPED = '''
import time
from pathlib import Path

import pytest

pytestmark = pytest.mark.xdist_group("{group}")


@pytest.mark.parametrize("n", range(4))
def test_holds_the_group(n):
    start = time.monotonic()
    time.sleep(0.3)
    Path(f"span_{{n}}.txt").write_text(f"{{start}} {{time.monotonic()}}")
'''


def test_a_groups_tests_run_one_at_a_time_on_two_workers(tmp_path):
    shutil.copy(HERE / "conftest.py", tmp_path / "conftest.py")
    (tmp_path / "test_grouped.py").write_text(GROUPED.format(group=f"mazzo-selftest-{tmp_path.name}"))
    done = subprocess.run([sys.executable, "-m", "pytest", "-q", "-n", "2", "--dist", "loadgroup", "-p",
                           "no:cacheprovider", "--rootdir", str(tmp_path), "-o", "addopts=", str(tmp_path)],
                          cwd=tmp_path, capture_output=True, text=True, timeout=300)
    assert done.returncode == 0, done.stdout + done.stderr
    spans = sorted(tuple(map(float, (tmp_path / f"span_{n}.txt").read_text().split())) for n in range(4))
    for (_, end), (start, _) in zip(spans[:-1], spans[1:], strict=True):
        assert start >= end, f"two tests of the group ran at once: {spans}"
