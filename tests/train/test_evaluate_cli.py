"""The evaluation command line under stress: Ctrl-C with worker processes, a bad --out, one deal; progress
when the output is not a terminal; missing optional dependencies."""

from __future__ import annotations

import importlib.util
import json
import multiprocessing
import os
import re
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
@pytest.mark.parametrize("pause", [0.0, 1.0], ids=["while-the-workers-start", "while-they-play"])
def test_ctrl_c_ends_the_workers_and_exits_130_without_output(tmp_path, pause):
    """Ctrl-C at once (the workers just forked, maybe before their initializer: it was lost then, and the
    evaluation ran on) or while they play."""
    out = tmp_path / "out"
    cmd = [sys.executable, "-m", "train.evaluate", "--game", "briscola5", "--players", "heuristic", "random", "random",
           "random", "random", "--deals", "100000", "--workers", "2", "--out", str(out), "--no-progress"]
    # its own process group, like a job in a terminal: Ctrl-C sends SIGINT to the whole group
    # and SIGINT at its default, as a shell gives a foreground job: a process that inherits SIGINT ignored (as
    # from a pytest-xdist worker) rightly keeps ignoring it, so Ctrl-C could not reach it
    proc = subprocess.Popen(cmd, cwd=ROOT, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True,
                            start_new_session=True, preexec_fn=lambda: signal.signal(signal.SIGINT, signal.SIG_DFL))
    try:
        workers: dict[int, int] = {}
        deadline = time.monotonic() + 120
        while len(workers) < 2:  # the evaluation has started once its two workers exist
            assert proc.poll() is None, proc.communicate()
            assert time.monotonic() < deadline, "the workers never started"
            time.sleep(0.2)
            workers = descendants(proc.pid)
        time.sleep(pause)
        os.killpg(proc.pid, signal.SIGINT)
        # a guard against a hang, not a timing (it ends in well under a second)
        stdout, stderr = proc.communicate(timeout=300)
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


@pytest.mark.skipif("fork" not in multiprocessing.get_all_start_methods(), reason="the recorded Ctrl-C is fork's")
def test_a_ctrl_c_while_the_pool_lives_is_held_until_the_caller_checks_it(monkeypatch):
    """The races the test above hits only sometimes, made certain. A Ctrl-C before the caller's block that ends
    the workers left them playing; one landing while the main thread held a future's lock (inside
    ``as_completed``) never gave the lock back, so the pool's manager thread, cancelling that future, waited for
    ever, and the interpreter at exit with it. Held, the Ctrl-C raises nothing there, only where it is checked."""
    monkeypatch.setattr(evaluate_mod, "_mp_context", lambda: multiprocessing.get_context("fork"))
    before = signal.signal(signal.SIGINT, signal.default_int_handler)  # as in a terminal, not a pytest-xdist worker
    try:
        pool, futures, ctrl_c = evaluate_mod._start_pool(2, None, [[0], [1], [2], [3]])
        manager = pool._executor_manager_thread
        try:
            signal.raise_signal(signal.SIGINT)  # no KeyboardInterrupt here, outside the caller's block
            with futures[-1]._condition:
                signal.raise_signal(signal.SIGINT)  # nor with a future's lock taken
            with pytest.raises(KeyboardInterrupt):
                next(evaluate_mod._finished_chunks(futures, ctrl_c))
        finally:
            evaluate_mod._stop_pool(pool)
        manager.join(timeout=60)
        assert not manager.is_alive(), "the pool's manager thread is stuck (the interpreter would wait for it at exit)"
        ctrl_c.release()  # raised once already: not again
        assert signal.getsignal(signal.SIGINT) is signal.default_int_handler
        with pytest.raises(KeyboardInterrupt):  # released: a Ctrl-C interrupts again
            signal.raise_signal(signal.SIGINT)
    finally:
        signal.signal(signal.SIGINT, before)


def test_a_ctrl_c_recorded_but_not_checked_is_raised_by_release(monkeypatch):
    monkeypatch.setattr(evaluate_mod, "_mp_context", lambda: multiprocessing.get_context("fork"))
    before = signal.signal(signal.SIGINT, signal.default_int_handler)
    try:
        pool, _futures, ctrl_c = evaluate_mod._start_pool(2, None, [[0], [1]])
        evaluate_mod._stop_pool(pool)
        signal.raise_signal(signal.SIGINT)
        with pytest.raises(KeyboardInterrupt):
            ctrl_c.release()
        assert signal.getsignal(signal.SIGINT) is signal.default_int_handler
    finally:
        signal.signal(signal.SIGINT, before)


# a worker ended while it writes a result bigger than the pipe leaves half a message: the pool's manager thread
# then waited for the rest forever, and the interpreter (it joins that thread at exit) with it
_STOP_WHILE_A_WORKER_WRITES = """
import os
import sys
from concurrent.futures import ProcessPoolExecutor, as_completed
from multiprocessing import get_context
from train.evaluation.core import _stop_pool

def big_result(i):
    return b"x" * 2_000_000  # about 30 pipes' worth: a worker is nearly always writing

for _ in range(3):
    pool = ProcessPoolExecutor(2, mp_context=get_context("fork"))
    futures = [pool.submit(big_result, i) for i in range(500)]
    manager = pool._executor_manager_thread
    for n, fut in enumerate(as_completed(futures)):
        if n == 5:
            break
    _stop_pool(pool)
    manager.join(timeout=30)
    if manager.is_alive():  # os._exit: a normal exit would join the thread, and hang
        print("the pool's manager thread still waits for a result", file=sys.stderr, flush=True)
        os._exit(1)
print("stopped")
"""


@pytest.mark.skipif("fork" not in multiprocessing.get_all_start_methods(), reason="the script forks its workers")
def test_stopping_the_pool_while_a_worker_writes_a_result_ends_the_pool():
    """What made Ctrl-C while the workers play hang now and then (a chunk's result is about 50 kB)."""
    # the timeout is a guard against the hang, not a timing: the script ends in about a second
    proc = subprocess.run([sys.executable, "-c", _STOP_WHILE_A_WORKER_WRITES], cwd=ROOT, capture_output=True,
                          text=True, timeout=300)
    assert proc.returncode == 0 and proc.stdout.strip() == "stopped", proc.stderr[-3000:]


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


# -- progress when the output is not a terminal ------------------------------------------------------

PROGRESS = re.compile(r"^(\w+): (\d+)/(\d+) deals \((\d+)%\), [\d.]+ s")


def _progress_counts(lines: list[str]) -> list[int]:
    return [int(m.group(2)) for m in map(PROGRESS.match, lines) if m]


@pytest.mark.parametrize("every", [None, 2])
def test_piped_output_shows_progress_lines_before_the_table(tmp_path, every):
    """stdout and stderr are pipes (not a terminal): a line every ``every`` deals (default a tenth of
    them), all before the table; counts of lines, never times."""
    deals = 6 if every else 20
    cmd = [sys.executable, "-m", "train.evaluate", "--game", "picchetto", "--flag", "episode=hand",
           "--players", "heuristic", "--field", "random", "--deals", str(deals), "--no-plot",
           "--out", str(tmp_path / "out"), *(["--progress-every", str(every)] if every else [])]
    proc = subprocess.run(cmd, cwd=ROOT, stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True, timeout=300)
    assert proc.returncode == 0, proc.stdout[-3000:]
    lines = proc.stdout.splitlines()
    table = lines.index(next(x for x in lines if x.startswith(f"picchetto: {deals} deals, duplicate")))
    counts = _progress_counts(lines)
    step = every or deals // 10
    assert set(range(step, deals + 1, step)) <= set(counts), lines  # a line every `step` deals ...
    assert counts == sorted(counts) and counts[-1] == deals  # ... (and maybe one more from the 10 s timer)
    assert max(i for i, x in enumerate(lines) if PROGRESS.match(x)) < table  # all of them before the table


def test_progress_lines_are_written_while_the_deals_are_played(monkeypatch, capsys):
    """In process, stderr not a terminal: when deal ``d`` starts, ``d // every`` lines are already out."""
    seen = []
    real = evaluate_mod.play_deal

    def spy(job, built, d, records=None):
        seen.append((d, len(_progress_counts(capsys.readouterr().err.splitlines()))))
        return real(job, built, d, records)

    monkeypatch.setattr(evaluate_mod, "play_deal", spy)
    monkeypatch.setattr(sys.stderr, "isatty", lambda: False, raising=False)
    evaluate_mod.evaluate("picchetto", ["heuristic"], field="random", num_deals=7, flags={"episode": "hand"},
                          progress=True, progress_every=3)
    total = 0
    for d, new in seen:  # the lines read between two deals
        total += new
        assert total == d // 3, seen
    assert _progress_counts(capsys.readouterr().err.splitlines()) == [7]  # the last line: all done


def test_progress_timer_writes_a_line_while_no_deal_ends():
    """The line every 10 s: with the interval at 0, a line comes from the timer alone (no update)."""
    import io

    from train.evaluation.progress import LineProgress

    out = io.StringIO()
    with LineProgress(3, "briscola5", every=100, interval=0.0, stream=out):
        deadline = time.monotonic() + 60
        while not out.getvalue() and time.monotonic() < deadline:
            time.sleep(0.05)
    assert out.getvalue().startswith("briscola5: 0/3 deals (0%)"), out.getvalue()


def test_a_terminal_keeps_the_live_bar(monkeypatch):
    import importlib.util

    from train.evaluation import progress as progress_mod

    monkeypatch.setattr(sys.stderr, "isatty", lambda: True, raising=False)
    if importlib.util.find_spec("tqdm") is not None:
        bar = progress_mod.progress(5, "briscola5", True)
        assert type(bar).__module__.startswith("tqdm")
        bar.close()
    monkeypatch.setitem(sys.modules, "tqdm", None)  # tqdm missing: lines even on a terminal
    assert isinstance(progress_mod.progress(5, "briscola5", True), progress_mod.LineProgress)
    assert isinstance(progress_mod.progress(5, "briscola5", False), progress_mod.NoProgress)


# -- missing optional dependencies ----------------------------------------------------------------

BLOCK = """
import sys
blocked = set(sys.argv[1].split(","))

class Block:  # this module is not installed (as after a plain `pip install mazzo`)
    def find_spec(self, name, path=None, target=None):
        if name.partition(".")[0] in blocked:
            raise ModuleNotFoundError(f"No module named {name!r}", name=name)
        return None

sys.meta_path.insert(0, Block())
from train.evaluate import main
sys.exit(main(sys.argv[2:]))
"""


def _without(modules: str, *argv: str) -> subprocess.CompletedProcess:
    return subprocess.run([sys.executable, "-c", BLOCK, modules, *argv], cwd=ROOT, capture_output=True, text=True,
                          timeout=300)


def _played_nothing(proc: subprocess.CompletedProcess, out: Path) -> None:
    assert proc.returncode == 2, proc.stderr[-3000:]
    assert len(proc.stderr.strip().splitlines()) == 1 and proc.stderr.startswith("error: "), proc.stderr
    assert not _progress_counts(proc.stderr.splitlines()) and proc.stdout == ""  # --progress-every 1: no deal
    assert not out.exists()


@pytest.mark.parametrize(("modules", "players", "needs"), [
    ("torch", ["--players", "pretrained:picchetto", "random"], "No module named 'torch' (needs torch: "
                                                               "pip install 'mazzo[train]')"),
    ("numba", ["--players", "pimc", "random"], "need numba: pip install 'mazzo[vector]'"),
    ("openskill", ["--rating", "random", "heuristic"], "--rating (OpenSkill ratings) needs openskill, which is not "
                                                       "installed: pip install 'mazzo[train]'"),
])
def test_a_missing_dependency_fails_before_any_deal_with_its_extra(tmp_path, modules, players, needs):
    out = tmp_path / "out"
    players = players or ["--players", "heuristic", "random"]
    proc = _without(modules, "--game", "picchetto", "--flag", "episode=hand", *players, "--deals", "3",
                    "--progress-every", "1", "--out", str(out), "--no-plot")
    _played_nothing(proc, out)
    assert needs in proc.stderr, proc.stderr


def test_a_base_install_evaluates_and_saves_without_any_extra(tmp_path):
    """Without every optional module, --no-plot: the table, the JSON and the CSV (the issue: `mazzo eval`
    played every deal and then lost them to a missing matplotlib)."""
    out = tmp_path / "out"
    proc = _without("matplotlib,openskill,torch,numba,tqdm,yaml,ray,rich,stable_baselines3,sb3_contrib",
                    "--game", "briscola5", "--players", "heuristic", "--field", "random", "--deals", "2",
                    "--out", str(out), "--no-plot")
    assert proc.returncode == 0, proc.stderr[-3000:]
    assert "heuristic - field *" in proc.stdout and f"saved: {out / 'eval.json'}, {out / 'eval.csv'}" in proc.stdout
    assert sorted(p.name for p in out.iterdir()) == ["eval.csv", "eval.json"]
    assert json.loads((out / "eval.json").read_text())["margin"]["per_hand"]["mean"] is not None


def test_without_matplotlib_the_run_notes_it_and_saves_everything_but_the_chart(tmp_path):
    """A base install without --no-plot: a note before the first deal names the extra; the table, JSON and CSV
    are saved, no chart is drawn, and the exit status is 0 (nothing the results need is missing)."""
    out = tmp_path / "out"
    proc = _without("matplotlib", "--game", "picchetto", "--flag", "episode=hand", "--players", "heuristic",
                    "--field", "random", "--deals", "2", "--out", str(out), "--progress-every", "1")
    assert proc.returncode == 0, proc.stderr[-3000:]
    lines = proc.stderr.splitlines()
    assert lines[0].startswith("note: no chart (eval.png): matplotlib is not installed (pip install 'mazzo[plot]')")
    assert _progress_counts(lines[1:]), "the note comes before the first deal"
    assert sorted(p.name for p in out.iterdir()) == ["eval.csv", "eval.json"]


@pytest.mark.parametrize(("argv", "error"), [
    (["--game", "briscola5", "--players", "heuristic", "random"], "has 5 seats; got 2 players"),
    (["--game", "picchetto", "--players", "heuristic", "random", "--flag", "nope=1"], "nope"),
    (["--game", "picchetto", "--players", "heuristik", "random"], "heuristik"),
    (["--game", "picchetto", "--players", "heuristic", "--field", "random", "--rating", "random"], "not allowed with"),
    pytest.param(["--game", "picchetto", "--rating", "random", "heuristik"], "heuristik",
                 marks=pytest.mark.skipif(importlib.util.find_spec("openskill") is None, reason="needs openskill")),
])
def test_without_matplotlib_a_bad_argument_is_one_error_line_and_no_note(tmp_path, argv, error):
    """The note about the chart comes once the arguments are found valid: a bad line-up, flag or spec (checked by
    the evaluation itself) or an argparse error is the only line on stderr."""
    out = tmp_path / "out"
    proc = _without("matplotlib", *argv, "--deals", "2", "--out", str(out), "--progress-every", "1")
    assert "note:" not in proc.stderr and error in proc.stderr, proc.stderr
    if proc.stderr.startswith("usage:"):  # argparse: usage, then "PROG: error: ..."
        assert proc.returncode == 2 and "python -m train.evaluate: error:" in proc.stderr and not out.exists()
    else:
        _played_nothing(proc, out)


def test_the_command_name_is_the_one_typed(tmp_path, capsys):
    """`mazzo eval` is `python -m train.evaluate` under its own name: in the usage, argparse's errors and the
    command the results record."""
    from play.cli import main as mazzo

    with pytest.raises(SystemExit) as done:
        mazzo(["eval", "--game", "picchetto"])
    err = capsys.readouterr().err
    assert done.value.code == 2 and err.startswith("usage: mazzo eval ")
    assert "mazzo eval: error: one of the arguments --players --rating is required" in err
    with pytest.raises(SystemExit):
        main(["--game", "picchetto"])
    assert "python -m train.evaluate: error: one of the arguments" in capsys.readouterr().err
    out = tmp_path / "out"
    argv = ["--game", "picchetto", "--flag", "episode=hand", "--players", "heuristic", "random", "--deals", "1",
            "--out", str(out), "--no-progress", "--no-plot"]
    assert mazzo(["eval", *argv]) == 0
    assert json.loads((out / "eval.json").read_text())["config"]["command"].startswith("mazzo eval --game picchetto ")


def test_a_chart_that_fails_loses_no_results(tmp_path, capsys, monkeypatch):
    """matplotlib there but the chart fails while drawing: the table, JSON and CSV stay, a note says so."""
    from train.evaluation.rating import Leaderboard
    from train.evaluation.result import EvalResult

    def broken(self, path):
        raise RuntimeError("no display backend")

    monkeypatch.setattr(EvalResult, "plot", broken)
    out = tmp_path / "out"
    assert main(["--game", "picchetto", "--flag", "episode=hand", "--players", "heuristic", "--field", "random",
                 "--deals", "2", "--out", str(out), "--no-progress"]) == 0
    captured = capsys.readouterr()
    assert "heuristic - random *" in captured.out
    assert captured.err.startswith("note: eval.png was not drawn (no display backend); the results are saved in")
    assert sorted(p.name for p in out.iterdir()) == ["eval.csv", "eval.json"]
    if importlib.util.find_spec("openskill") is not None:  # the leaderboard too
        monkeypatch.setattr(Leaderboard, "plot", broken)
        assert main(["--game", "picchetto", "--flag", "episode=hand", "--rating", "random", "heuristic",
                     "--deals", "1", "--out", str(tmp_path / "r"), "--no-progress"]) == 0
        assert "note: rating.png was not drawn" in capsys.readouterr().err
        assert sorted(p.name for p in (tmp_path / "r").iterdir()) == ["rating.csv", "rating.json"]
