"""Evaluating a line-up: validate it (``prepare``), play its deals in one process or many
(``evaluate``), and the one-opponent form used by training (``head_to_head``).

The package docstring (``train/evaluation/__init__.py``) describes the arguments, duplicate deals
and the errors; ``train.evaluation.play`` the seeds and seatings.
"""

from __future__ import annotations

import copy
import math
import signal
import sys
import tempfile
import threading
from collections.abc import Callable
from concurrent.futures import FIRST_COMPLETED, ProcessPoolExecutor, wait
from multiprocessing import get_all_start_methods, get_context
from pathlib import Path
from typing import Any

import numpy as np

from agents.registry import parse_agent_spec
from envs.core.errors import ConfigError, MazzoError
from envs.registry import game_spec
from train.evaluation.deps import MissingDependencyError, hint, missing_module
from train.evaluation.play import SEATINGS, EvalJob, derive_seed, play_deal, run_chunk, seatings
from train.evaluation.progress import progress as _progress
from train.evaluation.result import EvalResult

__all__ = ["evaluate", "head_to_head", "prepare", "num_seats", "with_field", "check_out_dir", "check_games_file",
           "BACKENDS"]

#: where the deals are played: worker processes on this machine, or tasks on a Ray cluster
BACKENDS = ("local", "ray")


def _is_agent(obj: Any) -> bool:
    return all(callable(getattr(obj, m, None)) for m in ("act", "reset", "seed"))


def _check_int(name: str, value: Any, low: int) -> int:
    if isinstance(value, bool) or not isinstance(value, (int, np.integer)) or value < low:
        raise ConfigError(f"{name} must be an int >= {low}; got {value!r}")
    return int(value)


def _spec_name(player: Any) -> str:
    return player if isinstance(player, str) else str(getattr(player, "name", type(player).__name__))


def _build_agent(spec: str, game: str, flags: dict[str, Any]) -> Any:
    """The player of ``spec`` (``agents.registry``), its failures turned into errors that name the spec and
    the game."""
    try:
        parsed = parse_agent_spec(spec, game)
    except FileNotFoundError:
        raise ConfigError(f"agent {spec!r}: checkpoint {spec.partition(':')[2]!r} does not exist") from None
    try:
        return parsed.build(flags=flags)
    except MazzoError as e:
        raise (e if repr(spec) in str(e) else ConfigError(f"agent {spec!r}: {e}")) from e
    except ImportError as e:  # an optional dependency (torch, numba): name the extra that installs it
        error = MissingDependencyError if missing_module(e) else ConfigError
        raise error(f"agent {spec!r} is not available for game {game!r}: {e}{hint(e)}") from e
    except (OSError, ValueError, KeyError, RuntimeError) as e:
        raise ConfigError(f"agent {spec!r} cannot be loaded for game {game!r}: {e}") from e


def _probe(agent: Any, label: str, env: Any, game: str, seed: int) -> None:
    """One decision on a fresh deal: a checkpoint of the wrong shape fails here, not mid-run."""
    env.reset(seed=derive_seed(seed, 2))
    name = env.agent_selection
    obs = env.observe(name)
    try:
        agent.seed(0)
        agent.reset()
        action = agent.act(obs)
    except Exception as e:  # noqa: BLE001 (any failure means the agent does not fit)
        raise ConfigError(f"agent {label!r} does not fit game {game!r}: {type(e).__name__}: {e}") from e
    mask = obs["action_mask"]
    if isinstance(action, bool) or not isinstance(action, (int, np.integer)) or not 0 <= action < mask.size \
            or not mask[int(action)]:
        legal = np.flatnonzero(mask).tolist()
        raise ConfigError(f"agent {label!r} does not fit game {game!r}: it chose {action!r}, legal ids were {legal}")


def prepare(game: str, players: list[Any], *, num_deals: int = 1, seed: int = 0, flags: dict[str, Any] | None = None,
            duplicate: bool = True, workers: int = 1, seating: str = "rotate") -> tuple[EvalJob, tuple]:
    """Validate everything and build the env and agents; raises ``ConfigError`` on bad input."""
    spec = game_spec(game)
    num_deals = _check_int("num_deals", num_deals, 1)
    seed = _check_int("seed", seed, 0)
    workers = _check_int("workers", workers, 1)
    if seating not in SEATINGS:
        raise ConfigError(f"unknown seating {seating!r}; allowed: {', '.join(SEATINGS)}")
    flags = dict(flags or {})
    if "render_mode" in flags:
        raise ConfigError("flag 'render_mode' is not an evaluation flag (evaluation never renders)")
    env = spec.raw_env(**flags)  # ConfigError names an unknown flag or a bad value
    n = len(env.possible_agents)
    if isinstance(players, (str, bytes)) or not isinstance(players, (list, tuple)):
        raise ConfigError(f"players must be a list with one agent spec per seat; got {players!r}")
    if len(players) != n:
        names = [_spec_name(p) for p in players]
        lone, rest = (names[0], names[-1] if len(names) > 1 else "SPEC") if names else ("SPEC", "SPEC")
        example = f"--players {lone} --field {rest}"
        raise ConfigError(f"{game} with flags {flags or '{}'} has {n} seats; got {len(players)} players: {names}. "
                          f"Give one agent spec per seat, or one player and a field that fills the other seats: "
                          f"{example} (evaluate(..., field=SPEC))")
    agents = []
    for p in players:
        if isinstance(p, str):
            agents.append(_build_agent(p, game, flags))
        elif _is_agent(p):
            if workers > 1:
                raise ConfigError(f"agent objects ({_spec_name(p)!r}) can only be evaluated with workers=1; "
                                  "pass spec strings to use worker processes")
            agents.append(p)
        else:
            raise ConfigError(f"a player must be an agent spec string or an Agent (act/reset/seed); got {p!r}")
    for agent, p in zip(agents, players, strict=True):
        _probe(agent, _spec_name(p), env, game, seed)
    job = EvalJob(game=game, players=list(players), flags=flags, seed=seed, duplicate=duplicate, seating=seating)
    return job, (env, agents, spec.figures_class()())


def _mp_context():
    """fork (fast, works from any script) unless torch is loaded: its threads make fork unsafe, so
    spawn then (spawn re-imports ``__main__``: a script needs ``if __name__ == "__main__":``)."""
    if "torch" not in sys.modules and "fork" in get_all_start_methods():
        return get_context("fork")
    return get_context("spawn")


def _chunks(num_deals: int, workers: int) -> list[list[int]]:
    """The deals cut into chunks for ``workers`` processes (the local pool and the Ray backend alike)."""
    size = max(1, min(64, math.ceil(num_deals / (workers * 8))))
    return [list(range(i, min(i + size, num_deals))) for i in range(0, num_deals, size)]


def _store(counts: np.ndarray | None, num_deals: int, deals: list[int], rows: np.ndarray, recs: list | None,
           records: dict[int, list] | None) -> np.ndarray:
    """A finished chunk's counters (and records) put in their deals' places."""
    if counts is None:
        counts = np.zeros((num_deals, *rows.shape[1:]))
    counts[deals] = rows
    if records is not None:
        per = len(recs) // len(deals)
        for i, d in enumerate(deals):
            records[d] = recs[i * per:(i + 1) * per]
    return counts


def _play_all(job: EvalJob, built: tuple, num_deals: int, workers: int, progress: bool,
              records: dict[int, list] | None = None, backend: str = "local",
              address: str | None = None, progress_every: int | None = None) -> np.ndarray:
    counts = None
    with _progress(num_deals, job.game, progress, progress_every) as bar:
        if backend == "ray":  # the same chunks as the local pool, one Ray task each (train/evaluation/ray_backend.py)
            from train.evaluation.ray_backend import play_chunks

            for deals, rows, recs in play_chunks(job, _chunks(num_deals, workers), workers=workers, address=address):
                counts = _store(counts, num_deals, deals, rows, recs, records)
                bar.update(len(deals))
            return counts
        if workers == 1 or num_deals == 1:
            for d in range(num_deals):
                row = play_deal(job, built, d, None if records is None else records.setdefault(d, []))
                if counts is None:
                    counts = np.zeros((num_deals, *row.shape))
                counts[d] = row
                bar.update(1)
            return counts
        workers = min(workers, num_deals)
        pool, futures, ctrl_c = _start_pool(workers, job, _chunks(num_deals, workers))
        try:
            try:
                for deals, rows, recs in _finished_chunks(futures, ctrl_c):
                    counts = _store(counts, num_deals, deals, rows, recs, records)
                    bar.update(len(deals))
            except BaseException:  # Ctrl-C or a failed chunk: end the workers now, not after their queue
                _stop_pool(pool)
                raise
            pool.shutdown(wait=True)
        finally:
            ctrl_c.release()
    return counts


def _ignore_sigint() -> None:
    """Worker initializer: Ctrl-C reaches the whole process group; only the parent handles it."""
    signal.signal(signal.SIGINT, signal.SIG_IGN)


class _HeldCtrlC:
    """Ctrl-C held back while a local worker pool lives, raised as KeyboardInterrupt only where ``check`` is called.

    Raised wherever the main thread happens to be, a KeyboardInterrupt can land inside ``concurrent.futures``
    while it holds a future's lock (``as_completed`` and ``wait`` take every future's lock in turn; interrupted
    there, the lock is never given back). The pool's manager thread, which cancels the queued futures on
    shutdown, then waits for that lock for ever, and so does the interpreter, which joins that thread at exit:
    a Ctrl-C that printed ``interrupted`` and never ended.

    So SIGINT is only recorded while the pool lives. While its workers start it must also not kill a child
    before the child's initializer ignores SIGINT: under fork a child inherits the harmless recording handler;
    under spawn SIGINT is ignored in that window (a spawned child starts with the disposition, and Python
    installs its KeyboardInterrupt handler only over the default one), so a Ctrl-C there is lost, and recorded
    from ``started`` on. A process that inherited SIGINT ignored (nohup-like jobs), or a pool started off the
    main thread (no signal handlers there), is left as it is: nothing is recorded."""

    def __init__(self, start_method: str) -> None:
        self._pressed = False
        self._on = (threading.current_thread() is threading.main_thread()
                    and signal.getsignal(signal.SIGINT) != signal.SIG_IGN)
        self._previous = None
        if self._on:
            self._previous = signal.signal(signal.SIGINT, self._record if start_method == "fork" else signal.SIG_IGN)

    def _record(self, signum: int, frame: Any) -> None:
        self._pressed = True

    def started(self) -> None:
        """The workers exist: from now on a Ctrl-C is recorded under spawn too."""
        if self._on:
            signal.signal(signal.SIGINT, self._record)

    def check(self) -> None:
        """KeyboardInterrupt if a Ctrl-C was recorded (once per recording)."""
        if self._pressed:
            self._pressed = False
            raise KeyboardInterrupt

    def release(self) -> None:
        """The previous SIGINT handler back; KeyboardInterrupt for a Ctrl-C recorded and not raised yet."""
        if self._on:
            signal.signal(signal.SIGINT, self._previous)
            self._on = False
        self.check()


def _start_pool(workers: int, job: EvalJob, chunks: list[list[int]]) -> tuple[ProcessPoolExecutor, list, _HeldCtrlC]:
    """A process pool playing ``chunks``; its workers ignore SIGINT, so a Ctrl-C (sent to the whole
    process group) stops only the parent, which then ends them (``_stop_pool``).

    Ctrl-C is held (``_HeldCtrlC``) from before the workers start: the caller checks it while it waits for
    results, inside the block that stops the pool on KeyboardInterrupt, and releases it once the pool is
    shut down. If the pool cannot start, it is stopped here and the hold released."""
    context = _mp_context()
    ctrl_c = _HeldCtrlC(context.get_start_method())
    pool = None
    try:
        pool = ProcessPoolExecutor(max_workers=workers, mp_context=context, initializer=_ignore_sigint)
        futures = [pool.submit(run_chunk, job, chunk) for chunk in chunks]
    except BaseException:
        if pool is not None:  # no caller will stop it: its workers may already be running
            _stop_pool(pool)
        ctrl_c.release()
        raise
    ctrl_c.started()
    return pool, futures, ctrl_c


def _finished_chunks(futures: list, ctrl_c: _HeldCtrlC, poll: float = 0.2):
    """Each chunk's result as it finishes; a held Ctrl-C is raised between waits (at most ``poll`` s late)."""
    pending = set(futures)
    while pending:
        done, pending = wait(pending, timeout=poll, return_when=FIRST_COMPLETED)
        ctrl_c.check()
        for fut in done:
            yield fut.result()


def _stop_pool(pool: ProcessPoolExecutor) -> None:
    """Cancel what is queued and end the worker processes at once (a running chunk is abandoned).

    A worker ended while it writes a result (a chunk's result is about 50 kB, near a pipe's 64 kB) leaves
    half a message in the result pipe; the pool's manager thread then waits for the rest forever, and so
    does the interpreter, which joins that thread at exit (a Ctrl-C that never ended the command). Once
    the workers are dead the parent holds the pipe's only write end: closing it turns that wait into an
    end of file, which the manager handles as a broken pool and ends. The attributes read here are
    CPython's private ones (checked on 3.11); where one is missing the workers are still ended."""
    procs = list((getattr(pool, "_processes", None) or {}).values())
    manager = getattr(pool, "_executor_manager_thread", None)
    result_writer = getattr(getattr(pool, "_result_queue", None), "_writer", None)
    pool.shutdown(wait=False, cancel_futures=True)
    for proc in procs:
        if proc.is_alive():
            proc.terminate()
    for proc in procs:
        proc.join(timeout=10)
        if proc.is_alive():
            proc.kill()
            proc.join(timeout=10)
    if result_writer is not None and not any(proc.is_alive() for proc in procs):
        result_writer.close()
    if manager is not None:
        manager.join(timeout=10)


def with_field(game: str, players: Any, field: Any, flags: dict[str, Any] | None = None) -> list[Any]:
    """The line-up ``players`` followed by ``field`` in every other seat (``players`` unchanged when ``field``
    is None). ``players``: one spec or Agent, or a list of 1 to n - 1 of them; an Agent object as the field
    is copied for each extra seat."""
    if field is None:
        return players
    given = [players] if isinstance(players, str) or _is_agent(players) else list(players)
    n = num_seats(game, flags)
    if not 1 <= len(given) < n:
        raise ConfigError(f"a field fills the seats left by the players: {game} with flags {dict(flags or {})} has "
                          f"{n} seats, so give 1 to {n - 1} players before the field; got {len(given)}: "
                          f"{[_spec_name(p) for p in given]}")
    if isinstance(field, str):
        return given + [field] * (n - len(given))
    return given + [field] + [copy.deepcopy(field) for _ in range(n - len(given) - 1)]


def evaluate(game: str, players: list[Any], *, num_deals: int, seed: int = 0, flags: dict[str, Any] | None = None,
             duplicate: bool = True, workers: int = 1, progress: bool = False, seating: str = "rotate",
             command: str | None = None, save_games: str | Path | None = None, backend: str = "local",
             address: str | None = None, field: Any = None, progress_every: int | None = None,
             on_start: Callable[[], Any] | None = None) -> EvalResult:
    """Play ``num_deals`` deals with the line-up ``players`` and return the statistics (see module doc).

    ``field``: a spec (or Agent) for every seat after ``players`` (``evaluate(game, ["pimc"], field="heuristic")``:
    one player against a field; the table's first row is then its margin over the field).
    ``backend="ray"`` plays the same chunks of deals as Ray tasks (``address``: a cluster to join, see
    ``train/evaluation/ray_backend.py``); the result is identical to the local workers'.
    ``progress``: a bar on a terminal, else a line every ``progress_every`` deals (``train.evaluation.progress``).
    ``on_start``: called once every input is checked, before the first deal (the command line's notes)."""
    players = with_field(game, players, field, flags)
    if backend not in BACKENDS:
        raise ConfigError(f"unknown backend {backend!r}; allowed: {', '.join(BACKENDS)}")
    if address is not None and backend != "ray":
        raise ConfigError("address (--address) joins a Ray cluster: it needs backend 'ray' (--backend ray)")
    if save_games is not None:
        check_games_file(Path(save_games))
    job, built = prepare(game, players, num_deals=num_deals, seed=seed, flags=flags, duplicate=duplicate,
                         workers=workers if backend == "local" else 1, seating=seating)
    if backend == "ray" and not all(isinstance(p, str) for p in players):
        raise ConfigError("backend 'ray' plays agent spec strings, not agent objects (they are built on the workers)")
    scorer = built[2]
    records: dict[int, list] | None = None
    if save_games is not None:
        job.records, records = True, {}
    if on_start is not None:
        on_start()
    counts = _play_all(job, built, num_deals, workers, progress, records, backend, address, progress_every)
    if records is not None:
        _write_games(Path(save_games), [r for d in range(num_deals) for r in records[d]])
    n = len(players)
    return EvalResult(game=game, specs=[_spec_name(p) for p in players], flags=job.flags, seed=job.seed,
                      num_deals=num_deals, duplicate=duplicate, seating=seating,
                      seatings_per_deal=len(seatings(n, seating)) if duplicate else 1,
                      counters=scorer.counters, figures=scorer.FIGURES, deal_counts=counts, command=command,
                      proportions=scorer.PROPORTIONS)


def check_out_dir(out: Path) -> None:
    """Raise ``ConfigError`` unless ``out`` is, or can be made, a writable folder; leaves nothing behind.

    The folder is probed for real (created, then removed again; a test file written in an existing
    one), so a path under a file, on a read-only file system or without permission fails here."""
    what = f"--out {str(out)!r}"
    if out.exists() and not out.is_dir():
        raise ConfigError(f"{what} is an existing file; give a folder (existing or to be created)")
    missing = []
    p = out.absolute()
    while not p.exists():
        missing.append(p)
        if p.parent == p:
            break
        p = p.parent
    if p.exists() and not p.is_dir():
        raise ConfigError(f"{what} cannot be created: {str(p)!r} is a file, not a folder")
    try:
        for q in reversed(missing):
            try:
                q.mkdir()
            except OSError as e:
                raise ConfigError(f"{what} cannot be created: {e.strerror or e} ({str(q)!r})") from None
        try:
            with tempfile.TemporaryFile(dir=out):
                pass
        except OSError as e:
            raise ConfigError(f"{what} is not writable: {e.strerror or e}") from None
    finally:
        for q in missing:  # deepest first: leave the file system as it was
            if q.is_dir():
                try:
                    q.rmdir()
                except OSError:
                    pass


def check_games_file(path: Path) -> None:
    """Raise ``ConfigError`` unless ``path`` names a file that can be written (its folder may be made)."""
    if path.is_dir():
        raise ConfigError(f"--save-games {str(path)!r} is a folder; give a file name such as games.jsonl")
    check_out_dir(path.parent)


def _write_games(path: Path, records: list[dict]) -> None:
    """One record per line (``.jsonl``), written to a temporary file and then renamed into place."""
    from envs.records import dumps

    path.parent.mkdir(parents=True, exist_ok=True)
    tmp = path.with_name(path.name + ".part")
    with open(tmp, "w", encoding="utf-8") as f:
        for record in records:
            f.write(dumps(record) + "\n")
    tmp.replace(path)


def num_seats(game: str, flags: dict[str, Any] | None = None) -> int:
    """Number of seats of a game with these flags (Pigugnìn: ``num_players``); no env is built."""
    return game_spec(game).num_players(flags)


def head_to_head(game: str, candidate: Any, opponent: Any, *, num_deals: int, seed: int = 0,
                 flags: dict[str, Any] | None = None, duplicate: bool = True, workers: int = 1,
                 progress: bool = False) -> dict[str, Any]:
    """The candidate at one seat, the opponent at every other, rotated through every seat.

    Returns the candidate's figures as plain numbers: ``mean``, ``low``, ``high``, ``ci95``
    (reward per episode), ``mean_per_hand``, ``low_per_hand``, ``high_per_hand``,
    ``ci95_per_hand``, ``win``, ``draw``, ``lose`` (None where undefined) with their Wilson
    intervals ``win_low``, ``win_high``, ``draw_low`` ... (None where undefined or one deal), ``n_deals``,
    ``episodes``, ``hands``. An opponent Agent object is copied for each extra seat.
    """
    res = evaluate(game, [candidate], field=opponent, num_deals=num_deals, seed=seed, flags=flags,
                   duplicate=duplicate, workers=workers, progress=progress)
    row = res.table[0]
    ep, hand = row["reward_per_episode"], row["reward_per_hand"]
    return {
        "mean": ep["mean"], "low": ep["low"], "high": ep["high"], "ci95": ep["ci95"], "n_deals": num_deals,
        "mean_per_hand": hand["mean"], "low_per_hand": hand["low"], "high_per_hand": hand["high"],
        "ci95_per_hand": hand["ci95"], "win": row["win"], "draw": row["draw"], "lose": row["lose"],
        **{f"{k}_{end}": (row["rate_intervals"][k] or {}).get(end) for k in ("win", "draw", "lose")
           for end in ("low", "high")},
        "episodes": row["episodes"], "hands": row["hands"],
    }


