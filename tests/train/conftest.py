"""Fixtures of the tests that start Ray (``test_rllib_cluster.py``, ``test_rllib_batched_cluster.py``): after each of
them, no Ray process it started may be left on the machine.

Ray's processes (gcs_server, raylet, the ``ray::`` workers and actors, the dashboard agents, the log monitor) are
found by name in /proc; those that existed before a test (another user's cluster) are left out, so each test checks
only what it started. The tests using them share the xdist group ``ray-cluster``, whose lock (``tests/conftest.py``)
runs them one at a time, so the check never sees another test's cluster.
"""

from __future__ import annotations

import os
import subprocess
import sys
import time
from pathlib import Path
from types import SimpleNamespace

import pytest

ROOT = Path(__file__).resolve().parents[2]
RAY_MARKERS = ("raylet", "gcs_server", "ray::", "ray/dashboard", "dashboard_agent", "log_monitor",
               "ray/_private/workers", "default_worker.py", "runtime_env/agent", "ray/autoscaler", "monitor.py")


def ray_processes() -> dict[int, str]:
    """{pid: "start time command line"} of every live Ray process on this machine (from /proc)."""
    out = {}
    for entry in Path("/proc").iterdir():
        if not entry.name.isdigit():
            continue
        try:
            stat = (entry / "stat").read_text()
            cmd = (entry / "cmdline").read_bytes().replace(b"\0", b" ").decode(errors="replace").strip()
            comm = (entry / "comm").read_text().strip()
        except OSError:
            continue
        fields = stat[stat.rindex(")") + 2:].split()
        if fields[0] == "Z":  # a zombie has ended; only its exit status is left
            continue
        text = f"{comm} {cmd}"
        if any(m in text for m in RAY_MARKERS):
            out[int(entry.name)] = f"{fields[19]} {text[:200]}"
    return out


def assert_no_new_ray_processes(before: dict[int, str], grace: float = 30.0) -> None:
    """No Ray process that was not there ``before`` is alive (they get ``grace`` seconds to finish exiting)."""
    deadline = time.monotonic() + grace
    while True:
        left = {pid: what for pid, what in ray_processes().items() if before.get(pid) != what}
        if not left or time.monotonic() > deadline:
            break
        time.sleep(0.5)
    assert not left, f"Ray processes left behind: {left}"


@pytest.fixture
def no_ray_left():
    """Yields; then makes sure Ray is shut down in this process and that no Ray process it started is alive."""
    import ray

    before = ray_processes()
    try:
        yield
    finally:
        if ray.is_initialized():
            ray.shutdown()
    assert_no_new_ray_processes(before)


@pytest.fixture
def ray_procs() -> SimpleNamespace:
    """``snapshot()`` (the live Ray processes) and ``assert_gone(before)`` (none started since ``before`` is left), for
    a test that checks a step of its own (a command it ran) besides the whole test (``no_ray_left``)."""
    return SimpleNamespace(snapshot=ray_processes, assert_gone=assert_no_new_ray_processes)


@pytest.fixture
def run_python():
    """``run_python(args, timeout=900)``: ``python ARGS`` in the repository (this checkout first on the path, no usage
    report to Ray), its output captured."""

    def run(args: list[str], timeout: int = 900) -> subprocess.CompletedProcess:
        env = {**os.environ, "PYTHONPATH": str(ROOT), "RAY_USAGE_STATS_ENABLED": "0"}
        return subprocess.run([sys.executable, *args], cwd=ROOT, env=env, capture_output=True, text=True,
                              timeout=timeout)

    return run
