"""Decisions per second of the batched heuristics (`agents/batched/<game>.py`) next to the Python heuristics.

    python benchmarks/batched_heuristics.py                    # every game with a port, 1,024 rows per call
    python benchmarks/batched_heuristics.py --rows 1 64 1024 4096 --repeat 7

Rows: what the batched trainer hands an opponent. A `vector_env(--pool-games)` is played by the
batched heuristic at every seat for `--pool-steps` steps, and `--pool-rows` observation and mask rows
of the seats to act are kept, evenly from every step (all phases: Briscola's forfeit check, auction, call and
tricks; Picchetto's two exchanges, tricks and the next hand's exchanges from step 31 or so: 27% exchange rows);
each timed call gets `rows` rows drawn at random from the pool (so phases and positions are mixed,
as in a running trainer whose games are out of step). The same seed gives the same rows. A game is
benchmarked once per flag set of its `GameSpec.variants` (Pigugnìn: 4 and 5 players, whose rows differ).

Timed, on the same rows:

* batched: `act(obs, mask)` of the port (one numba call per batch of rows);
* Python: the Python heuristic's `act({"observation": row, "action_mask": mask_row})` once per row,
  which is what the trainer's fallback `AgentRows` does without a port.

Each figure is the best and the median of `--repeat` passes over `--batches` batches, by wall
clock and by this process's CPU time (`time.process_time`; the machine is shared, the load
average is printed before and after). Before timing, the batched actions are checked equal to the
Python ones on every timed row. The first call's time (numba compilation, or loading its cache)
is printed apart.
"""

from __future__ import annotations

import argparse
import os
import platform
import shlex
import statistics
import sys
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

import numpy as np  # noqa: E402

from agents import make_agent  # noqa: E402
from agents.rows import batched_heuristic_class  # noqa: E402
from envs.registry import GAMES, game_spec  # noqa: E402


def machine() -> str:
    model = platform.processor() or platform.machine()
    try:
        with open("/proc/cpuinfo") as fh:
            model = next((line.split(":", 1)[1].strip() for line in fh if line.startswith("model name")), model)
    except OSError:
        pass
    usable = len(os.sched_getaffinity(0)) if hasattr(os, "sched_getaffinity") else os.cpu_count()
    return f"nproc {usable}, {model}; {platform.python_implementation()} {platform.python_version()}, numpy {np.__version__}"


def load() -> str:
    try:
        return "load average " + ", ".join(f"{x:.2f}" for x in os.getloadavg()) + " (1, 5, 15 min)"
    except OSError:
        return "load average unavailable"


def pool(game: str, heuristic, games: int, steps: int, size: int, seed: int,
         flags: dict | None = None) -> tuple[np.ndarray, np.ndarray]:
    """`size` observation and mask rows of seats to act, drawn evenly from `steps` steps of `games` vector_env games."""
    venv = game_spec(game).vector_env(games, **(flags or {}))
    rnd = np.random.default_rng(seed)
    per_step = min(games, -(-size // steps))
    obs, mask = venv.reset(seed=seed)
    obs_rows, mask_rows = [], []
    for step in range(steps):
        if step:
            obs, mask, *_ = venv.step(heuristic.act(obs, mask))
        keep = rnd.choice(games, size=per_step, replace=False)
        obs_rows.append(obs[keep])
        mask_rows.append(mask[keep])
    return np.concatenate(obs_rows)[:size], np.concatenate(mask_rows)[:size]


def timed(fn, batches: list, repeat: int) -> tuple[list[float], list[float]]:
    """Decisions per wall-clock second and per CPU second of each pass over `batches`."""
    rows = sum(len(b[0]) for b in batches)
    wall, cpu = [], []
    for _ in range(repeat):
        start, start_cpu = time.perf_counter(), time.process_time()
        for obs, mask in batches:
            fn(obs, mask)
        wall.append(rows / (time.perf_counter() - start))
        cpu.append(rows / max(time.process_time() - start_cpu, 1e-9))
    return wall, cpu


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--games", nargs="*", default=None, help="games (default: every game with a batched port)")
    parser.add_argument("--rows", type=int, nargs="*", default=[1024], help="rows per call of the batched heuristic")
    parser.add_argument("--batches", type=int, default=8, help="batches per timed pass")
    parser.add_argument("--repeat", type=int, default=5, help="timed passes")
    parser.add_argument("--python-rows", type=int, default=2048, help="rows per timed pass of the Python heuristic")
    parser.add_argument("--pool-games", type=int, default=1024)
    parser.add_argument("--pool-steps", type=int, default=60)
    parser.add_argument("--pool-rows", type=int, default=16384, help="rows kept from the pool games (evenly over the steps)")
    parser.add_argument("--seed", type=int, default=0)
    args = parser.parse_args()
    games = args.games if args.games is not None else [g for g in GAMES if batched_heuristic_class(g) is not None]

    print(f"command: `python {' '.join(shlex.quote(a) for a in sys.argv)}`")
    print(f"machine: {machine()}")
    print(f"before: {load()}")
    print()
    table = ["| game | player | rows per call | decisions/s (best) | decisions/s (median) | decisions per CPU-s (best) "
             "| µs per decision (CPU, best) | vs Python (CPU) |", "|---|---|---:|---:|---:|---:|---:|---:|"]
    notes = []
    for game, label, flags in [(g, *v) for g in games for v in game_spec(g).benchmark_variants().items()]:
        cls = batched_heuristic_class(game)
        if cls is None:
            raise SystemExit(f"{game}: no batched heuristic (GameSpec.batched_heuristic)")
        batched = cls(game, seed=args.seed, flags=flags)
        start = time.perf_counter()
        obs, mask = pool(game, batched, 1, 1, 1, args.seed, flags)
        batched.act(obs, mask)
        notes.append(f"{label}: first call (numba compile or cache load, and a vector_env) {time.perf_counter() - start:.2f} s")
        obs, mask = pool(game, batched, args.pool_games, args.pool_steps, args.pool_rows, args.seed, flags)
        rnd = np.random.default_rng(args.seed)
        python = make_agent("heuristic", game, seed=args.seed)

        def python_act(o, m, act=python.act):
            return [act({"observation": row, "action_mask": mrow}) for row, mrow in zip(o, m, strict=True)]

        pick = rnd.choice(len(obs), size=args.python_rows, replace=False)
        py_batch = [(obs[pick], mask[pick])]
        want = np.array(python_act(*py_batch[0]), dtype=np.int64)
        if not np.array_equal(batched.act(*py_batch[0]), want):
            raise SystemExit(f"{label}: the batched heuristic differs from the Python one on the benchmark rows")
        py_wall, py_cpu = timed(python_act, py_batch, max(1, args.repeat // 2))
        rows_line = [(f"Python `{type(python).__name__}.act` per row", 1, py_wall, py_cpu)]
        for k in args.rows:
            batches = [(obs[idx], mask[idx]) for idx in (rnd.choice(len(obs), size=k, replace=False)
                                                         for _ in range(args.batches))]
            wall, cpu = timed(batched.act, batches, args.repeat)
            rows_line.append((f"batched `{cls.__name__}.act`", k, wall, cpu))
        for name, k, wall, cpu in rows_line:
            table.append(f"| {label} | {name} | {k:,} | {max(wall):,.0f} | {statistics.median(wall):,.0f} | "
                         f"{max(cpu):,.0f} | {1e6 / max(cpu):,.2f} | {max(cpu) / max(py_cpu):,.0f}x |")
        notes.append(f"{label}: pool of {len(obs):,} rows from {args.pool_games:,} games x {args.pool_steps} steps; "
                     f"batched == Python on {len(want):,} of them")
    print("\n".join(table))
    print()
    for note in notes:
        print(note)
    print(f"after: {load()}")


if __name__ == "__main__":
    main()
