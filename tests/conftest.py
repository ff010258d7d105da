"""Tests that must not run at the same time as each other, whatever pytest-xdist does.

A test marked ``xdist_group(NAME)`` shares a resource with the other tests of that group: the Ray tests start a
local cluster and then check that none of its processes is left on the machine, so two clusters at once would see
each other's processes; the docs build writes the API pages into ``docs/api/generated``. ``make test`` runs
``--dist loadgroup``, which should send a group to one worker, but pytest-xdist 3.8 under pytest 9.2 does not
(it renames the item's ``_nodeid``, which pytest 9.2 no longer reads for the node id), and the groups' tests ran
on both workers at once. So each test of a group runs holding an exclusive lock on the group's file in the
temporary folder, from its setup to its teardown: the group's tests run one at a time on this machine, in one
session or in several.
"""

from __future__ import annotations

import tempfile
from contextlib import ExitStack, contextmanager
from pathlib import Path

import pytest

try:
    import fcntl
except ImportError:  # not POSIX: no lock (the Ray tests read /proc and skip there anyway)
    fcntl = None


def group_names(item: pytest.Item) -> list[str]:
    """The ``xdist_group`` names of a test, as pytest-xdist reads them."""
    return sorted({str(m.args[0] if m.args else m.kwargs.get("name", "default"))
                   for m in item.iter_markers("xdist_group")})


def lock_path(group: str) -> Path:
    return Path(tempfile.gettempdir()) / f"mazzo-tests-{group}.lock"


@contextmanager
def group_lock(group: str):
    """Holds the group's exclusive lock (waits for another process that holds it)."""
    if fcntl is None:
        yield
        return
    with open(lock_path(group), "a") as handle:
        fcntl.flock(handle, fcntl.LOCK_EX)
        try:
            yield
        finally:
            fcntl.flock(handle, fcntl.LOCK_UN)


@pytest.hookimpl(wrapper=True)
def pytest_runtest_protocol(item: pytest.Item, nextitem: pytest.Item | None):
    with ExitStack() as held:
        for group in group_names(item):
            held.enter_context(group_lock(group))
        return (yield)
