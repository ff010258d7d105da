"""The evaluation command line under stress: Ctrl-C with worker processes, a bad --out, one deal."""

from __future__ import annotations

import os
import signal
import subprocess
import sys
import time
from pathlib import Path

import pytest

import train.evaluation.core as evaluate_mod
import train.evaluation.play as eval_play
from train.evaluate import main

ROOT = Path(__file__).resolve().parents[2]
LINUX_PROC = sys.platform.startswith("linux") and Path("/proc/self/stat").exists()


def _stat(pid: int) -> tuple[int, str, int] | None:
    """(parent pid, state, start time) of a process from /proc, None if it is gone."""
    try:
        text = Path(f"/proc/{pid}/stat").read_text()
    except (FileNotFoundError, ProcessLookupError, PermissionError):
        return None
    fields = text[text.rindex(")") + 2:].split()  # after "pid (comm) "
    return int(fields[1]), fields[0], int(fields[19])


def descendants(pid: int) -> dict[int, int]:
    """Every process below ``pid``: {pid: start time} (the start time tells a reused pid apart)."""
    parent_of = {}
    for entry in Path("/proc").iterdir():
        if entry.name.isdigit():
            st = _stat(int(entry.name))
            if st is not None:
                parent_of[int(entry.name)] = (st[0], st[2])
    found, frontier = {}, [pid]
    while frontier:
        parent = frontier.pop()
        for child, (ppid, start) in parent_of.items():
            if ppid == parent and child not in found:
                found[child] = start
                frontier.append(child)
    return found


def alive(pid: int, start: int) -> bool:
    st = _stat(pid)
    return st is not None and st[2] == start and st[1] != "Z"


@pytest.mark.skipif(not LINUX_PROC, reason="finds the worker processes through /proc")
def test_ctrl_c_ends_the_workers_and_exits_130_without_output(tmp_path):
    out = tmp_path / "out"
    cmd = [sys.executable, "-m", "train.evaluate", "--game", "briscola5", "--players", "heuristic", "random", "random",
           "random", "random", "--deals", "100000", "--workers", "2", "--out", str(out), "--no-progress"]
    # its own process group, like a job in a terminal: Ctrl-C sends SIGINT to the whole group
    proc = subprocess.Popen(cmd, cwd=ROOT, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True,
                            start_new_session=True)
    try:
        workers: dict[int, int] = {}
        deadline = time.monotonic() + 120
        while len(workers) < 2:  # the evaluation has started once its two workers exist
            assert proc.poll() is None, proc.communicate()
            assert time.monotonic() < deadline, "the workers never started"
            time.sleep(0.2)
            workers = descendants(proc.pid)
        time.sleep(1.0)  # let them play some deals
        os.killpg(proc.pid, signal.SIGINT)
        stdout, stderr = proc.communicate(timeout=60)  # generous: it used to take about two minutes
    finally:
        if proc.poll() is None:
            os.killpg(proc.pid, signal.SIGKILL)
            proc.communicate()
    assert proc.returncode == 130, stderr[-3000:]
    assert stderr.strip().splitlines() == ["interrupted"], stderr[-3000:]
    assert "Traceback" not in stderr and stdout == ""
    deadline = time.monotonic() + 30
    while any(alive(pid, start) for pid, start in workers.items()) and time.monotonic() < deadline:
        time.sleep(0.2)
    assert not [pid for pid, start in workers.items() if alive(pid, start)], "worker processes outlived the run"
    assert not out.exists() or not any(out.iterdir())


@pytest.fixture
def no_games(monkeypatch):
    def boom(*a, **k):
        raise AssertionError("a game was played")

    monkeypatch.setattr(evaluate_mod, "play_deal", boom)
    monkeypatch.setattr(evaluate_mod, "run_chunk", boom)
    monkeypatch.setattr(eval_play, "play_episode", boom)


def test_bad_out_fails_before_any_game_with_one_line(tmp_path, capsys, no_games):
    a_file = tmp_path / "taken.txt"
    a_file.write_text("not a folder")
    players = ["--game", "picchetto", "--players", "random", "random", "--deals", "3", "--no-progress"]
    cases = [(a_file, "is an existing file"), (a_file / "sub", "is a file, not a folder")]
    if LINUX_PROC:  # a folder no one can create, even root
        cases.append((Path("/proc/mazzo-no-such-dir/out"), "cannot be created"))
    for out, message in cases:
        assert main([*players, "--out", str(out)]) == 2
        err = capsys.readouterr().err
        assert err.startswith(f"error: --out {str(out)!r}") and message in err, err
        assert len(err.strip().splitlines()) == 1 and "Traceback" not in err
    assert a_file.read_text() == "not a folder"  # untouched


def test_good_out_is_probed_without_leaving_anything(tmp_path, capsys, no_games):
    """The check creates the folder to be sure it can, then removes it: a failed run leaves nothing."""
    out = tmp_path / "new" / "deeper"
    # a bad line-up fails after the --out check: nothing must be left behind by the check
    assert main(["--game", "briscola5", "--players", "random", "--out", str(out)]) == 2
    assert "has 5 seats" in capsys.readouterr().err
    assert not (tmp_path / "new").exists()
    evaluate_mod.check_out_dir(tmp_path)  # an existing writable folder passes and stays as it was
    assert list(tmp_path.iterdir()) == []
