"""The batched Pigugnìn engine: differential check over many deals, and env-steps per second.

    python benchmarks/vector_pigugnin.py                      # 100,000+ deals checked, then speed
    python benchmarks/vector_pigugnin.py --deals 0            # speed only
    python benchmarks/vector_pigugnin.py --speed-steps 0      # differential check only

The differential part is the harness of `tests/envs/test_pigugnin_batched.py` (64 batched games
against 64 AEC envs, observation bytes, masks, rewards and ends compared at every step, deals
with options near the end of a game and stream deals), run over every config of that test
until `--deals` deals (hands) were compared in total.

The speed part steps `vector_env(B)` with random legal actions chosen by a small njit helper
(B = 1, 64, 1024, 4096) and `env()` (the PettingZoo loop: `last()`, a random legal action,
`step`) in the same process, for 4 and 5 players. One env-step is one card played in one game.
Start-up: two fresh processes share a new, empty numba cache directory: the first compiles
every kernel, the second loads them (`cache=True`). Rates are given per wall-clock second and
per CPU second (the machine is shared: the load average is printed).
"""

from __future__ import annotations

import argparse
import os
import platform
import random
import subprocess
import sys
import tempfile
import time
from pathlib import Path

import numba as nb
import numpy as np

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from envs.core.vector import rand_below  # noqa: E402


@nb.njit(cache=True)
def random_legal(mask: np.ndarray, state: np.ndarray, out: np.ndarray) -> None:
    """`out[i]`: a uniformly random legal action of game i (from a one-element xorshift state)."""
    for i in range(mask.shape[0]):
        row = mask[i]
        count = 0
        for a in range(row.shape[0]):
            count += row[a]
        r = rand_below(state, 0, count)
        for a in range(row.shape[0]):
            if row[a]:
                if r == 0:
                    out[i] = a
                    break
                r -= 1


def _rates(run, count: int, repeats: int = 3) -> tuple[float, float]:
    """(per wall-clock second, per CPU second) of `count` units done by `run()`, best of `repeats`."""
    wall = cpu = 0.0
    for _ in range(repeats):
        w, c = time.perf_counter(), time.process_time()
        run()
        w, c = time.perf_counter() - w, time.process_time() - c
        wall, cpu = max(wall, count / w), max(cpu, count / max(c, 1e-9))
    return wall, cpu


def vector_speed(num_envs: int, steps: int, num_players: int, copy_outputs: bool) -> tuple[float, float]:
    """env-steps/s (wall, CPU) of `vector_env(num_envs)` over about `steps` env-steps."""
    from envs import pigugnin_v0

    venv = pigugnin_v0.vector_env(num_envs, num_players=num_players, threads=THREADS)
    venv.copy_outputs = copy_outputs
    venv.reset(seed=0)
    state = np.array([0x9E3779B97F4A7C15], dtype=np.uint64)
    actions = np.zeros(num_envs, dtype=np.int64)
    calls = max(1, steps // num_envs)

    def run() -> None:
        mask = venv.mask
        for _ in range(calls):
            random_legal(mask, state, actions)
            mask = venv.step(actions)[1]

    return _rates(run, calls * num_envs)


def aec_speed(steps: int, num_players: int) -> tuple[float, float]:
    """agent-steps/s (wall, CPU) of `env()` with random legal actions (the loop of benchmarks/env_speed.py)."""
    from envs import pigugnin_v0

    env = pigugnin_v0.env(num_players=num_players)
    rnd = random.Random(0)
    env.reset(seed=0)
    done = [0]

    def run() -> None:
        done[0] = 0
        while done[0] < steps:
            env.reset()
            for _agent in env.agent_iter():
                obs, _, term, trunc, _ = env.last()
                if term or trunc:
                    env.step(None)
                    continue
                legal = np.flatnonzero(obs["action_mask"])
                env.step(int(legal[int(rnd.random() * legal.size)]))
                done[0] += 1

    wall, cpu = _rates(run, steps, repeats=1)
    return wall * done[0] / steps, cpu * done[0] / steps


_START_UP = """
import time
wall, cpu = time.perf_counter(), time.process_time()
import numpy as np
from envs import pigugnin_v0
for n in (4, 5):
    venv = pigugnin_v0.vector_env(2, num_players=n)
    venv.reset(seed=0)
    venv.step(np.argmax(venv.mask, axis=1))
print(time.perf_counter() - wall, time.process_time() - cpu)
"""


def _start_up(cache_dir: str) -> tuple[float, float]:
    """(wall, CPU) seconds of a fresh process's import and first steps, with numba's cache in `cache_dir`."""
    env = {**os.environ, "NUMBA_CACHE_DIR": cache_dir}
    root = str(Path(__file__).resolve().parents[1])
    out = subprocess.run([sys.executable, "-c", _START_UP], env=env, cwd=root, capture_output=True, text=True,
                         check=True)
    wall, cpu = map(float, out.stdout.split())
    return wall, cpu


def breakdown(num_envs: int, num_players: int, calls: int) -> list[str]:
    """CPU ns per env-step of each part of a step at `num_envs` games."""
    from envs import pigugnin_v0
    from envs.core.vector import gather_seats

    venv = pigugnin_v0.vector_env(num_envs, num_players=num_players)
    venv.reset(seed=0)
    state = np.array([12345], dtype=np.uint64)
    actions = np.zeros(num_envs, dtype=np.int64)

    def per_step(fn) -> float:
        best = float("inf")
        for _ in range(3):
            c = time.process_time()
            for _ in range(calls):
                fn()
            best = min(best, (time.process_time() - c) / (calls * num_envs) * 1e9)
        return best

    pick = per_step(lambda: random_legal(venv.mask, state, actions))
    kernel = per_step(lambda: (random_legal(venv.mask, state, actions), venv._step(actions))) - pick
    gather = per_step(lambda: gather_seats(venv.buf, venv.current_player, venv.obs, *venv.gather_tables))
    whole = per_step(lambda: (random_legal(venv.mask, state, actions), venv.step(actions))) - pick
    venv.copy_outputs = False
    bare = per_step(lambda: (random_legal(venv.mask, state, actions), venv.step(actions))) - pick
    return [
        f"| {num_players} | {num_envs} | {pick:.0f} | {kernel:.0f} | {gather:.0f} | {bare:.0f} | {whole:.0f} "
        f"| {gather / bare:.0%} |"
    ]


def differential(total_deals: int) -> list[str]:
    from tests.envs.test_pigugnin_batched import CONFIGS, run_config

    rows = ["| config | deals | episodes | env-steps compared | reasons seen | seconds |", "|---|---|---|---|---|---|"]
    print("\n".join(rows), flush=True)
    per = -(-total_deals // len(CONFIGS))
    done = 0
    for k, (name, flags) in enumerate(CONFIGS.items()):
        start = time.perf_counter()
        h = run_config(flags, per, seed=1000 + k)
        done += h.deals
        reasons = ", ".join(f"{r}: {c}" for r, c in sorted(h.reasons.items(), key=lambda kv: str(kv[0])))
        rows.append(f"| {name} | {h.deals:,} | {h.episodes:,} | {h.steps:,} | {reasons} | {time.perf_counter() - start:.0f} |")
        print(rows[-1], flush=True)
    rows.append(f"| **total** | **{done:,}** | | | | |")
    print(rows[-1])
    return rows


#: `vector_env(..., threads=)` of the speed rows (`--threads`)
THREADS = 1


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--deals", type=int, default=100_000, help="deals compared with the AEC env (0: skip)")
    parser.add_argument("--speed-steps", type=int, default=2_000_000, help="env-steps per batched measurement (0: skip)")
    parser.add_argument("--aec-steps", type=int, default=100_000, help="agent-steps of the env() measurement")
    parser.add_argument("--threads", type=int, default=1, help="cores the batched kernels run on (vector_env threads=)")
    args = parser.parse_args()
    global THREADS
    THREADS = args.threads
    print(f"command: `python {' '.join(sys.argv)}`")
    print(f"machine: {platform.processor() or platform.machine()}, {os.cpu_count()} cores, Python "
          f"{platform.python_version()}, numpy {np.__version__}, numba {nb.__version__}")
    print(f"load at start (1, 5, 15 min): {' '.join(f'{x:.2f}' for x in os.getloadavg())}\n")

    print("## Start-up: numba compile, then numba's cache\n")
    print("| process | import + first reset/step (4 and 5 players), wall | CPU |")
    print("|---|---|---|")
    with tempfile.TemporaryDirectory() as cache:
        for label in ("first (empty cache: compiles)", "second (cache=True: loads)"):
            wall, cpu = _start_up(cache)
            print(f"| {label} | {wall:.2f} s | {cpu:.2f} s |", flush=True)
    print()
    from envs import pigugnin_v0

    for n in (4, 5):  # this process: load (or build) the cache at the usual place
        pigugnin_v0.vector_env(2, num_players=n).reset(seed=0)

    if args.deals:
        print(f"## Differential check, {args.deals:,}+ deals\n")
        differential(args.deals)
        print()
    if args.speed_steps:
        cols = [(b, True) for b in (1, 64, 1024, 4096)] + [(1024, False), (4096, False)]
        head = " | ".join(f"B={b}" + ("" if copy else " (copy_outputs=False)") for b, copy in cols)
        tables = {"wall-clock": [], "CPU time": []}
        for n in (4, 5):
            aec = aec_speed(args.aec_steps, n)
            speeds = [vector_speed(b, args.speed_steps if b > 1 else args.speed_steps // 20, n, copy) for b, copy in cols]
            for k, name in enumerate(tables):
                best = max(s[k] for s in speeds[2:])
                tables[name].append(f"| {n} | {aec[k]:,.0f} | " + " | ".join(f"{s[k]:,.0f}" for s in speeds)
                                    + f" | {speeds[2][k] / aec[k]:.0f}x / {best / aec[k]:.0f}x |")
            print(f"measured {n} players", flush=True)
        print("\n## Where a step's time goes (CPU ns per env-step)\n")
        print("| players | B | choose actions (njit helper) | `_step` (the kernels) | observation gather (base) "
              "| `step()`, copy_outputs=False | `step()` | gather / `step()` without copies |")
        print("|---|---|---|---|---|---|---|---|")
        for n in (4, 5):
            for b in (64, 1024):
                print("\n".join(breakdown(b, n, max(20, 200_000 // b))), flush=True)
        for name, rows in tables.items():
            print(f"\n## env-steps per {name} second (random legal actions)\n")
            print(f"| players | env() | {head} | B=1024 / env(), best / env() |")
            print("|---|---|" + "---|" * len(cols) + "---|")
            print("\n".join(rows))
    print(f"\nload at end (1, 5, 15 min): {' '.join(f'{x:.2f}' for x in os.getloadavg())}")


if __name__ == "__main__":
    main()
