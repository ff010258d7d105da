"""The batched Picchetto engine: speed next to ``env()``, compile time, and a long differential run.

    python benchmarks/vector_picchetto.py                   # everything (several minutes)
    python benchmarks/vector_picchetto.py --deals 0         # speed and compile time only
    python benchmarks/vector_picchetto.py --speed-seconds 0 --deals 100000   # differential only

Speed: env-steps/s of uniformly random legal play (one env-step = one decision in one game),
actions drawn by a small njit helper (``batched.random_legal_actions``) from the returned mask;
``vector_env`` with ``copy_outputs=False`` (the engine's own output buffers, as a batched trainer
uses them) and with the default copies, next to ``env()`` (the PettingZoo wrapper chain:
``last()``, a random legal action, ``step``) in the same run. Compile time: a fresh process with
an empty numba cache, then a second process on that cache.

Differential: ``tests/envs/test_picchetto_batched.Differential`` (64 batched games against 64 AEC
envs, every step compared: actor, observation bytes, whole observer buffer, mask, rewards, ends)
over the flag variants of the test module until ``--deals`` hands have been compared.

Figures vary with the machine's load (printed with the table): report the command with them.
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
from collections import Counter
from pathlib import Path

import numpy as np

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

from envs import picchetto_v0  # noqa: E402
from envs.core.vector import seed_streams  # noqa: E402
from envs.picchetto import batched  # noqa: E402

_COMPILE_PROBE = """
import time
t = time.perf_counter()
import numpy as np
from envs import picchetto_v0
from envs.picchetto import batched
from envs.core.vector import seed_streams
v = picchetto_v0.vector_env(4)
v.reset(seed=0)
rng = seed_streams(0, 4)
for _ in range(50):
    v.step(batched.random_legal_actions(v.mask, rng, np.empty(4, dtype=np.int64)))
v.reset(seed=1, options=[{"dealer": 0}, None, None, None])
print(time.perf_counter() - t)
"""


def compile_times() -> tuple[float, float]:
    """Seconds to import, build, reset and step in a fresh process: empty numba cache, then warm."""
    with tempfile.TemporaryDirectory() as cache:
        env = dict(os.environ, NUMBA_CACHE_DIR=cache, PYTHONPATH=str(ROOT))
        out = []
        for _ in range(2):
            res = subprocess.run([sys.executable, "-c", _COMPILE_PROBE], env=env, cwd=ROOT, check=True,
                                 capture_output=True, text=True)
            out.append(float(res.stdout.strip().splitlines()[-1]))
    return out[0], out[1]


def aec_speed(seconds: float) -> tuple[float, float]:
    """env-steps per second of wall time and per CPU second of this process."""
    env = picchetto_v0.env()
    env.reset(seed=0)
    rnd = random.Random(0)
    steps = 0
    start, cpu = time.perf_counter(), time.process_time()
    while time.perf_counter() - start < seconds:
        for _ in range(1000):
            obs, _, term, trunc, _ = env.last()
            if term or trunc:
                env.reset()
                continue
            legal = obs["action_mask"].nonzero()[0]
            env.step(int(legal[rnd.randrange(len(legal))]))
            steps += 1
    return steps / (time.perf_counter() - start), steps / (time.process_time() - cpu)


def vector_speed(num_envs: int, seconds: float, copy_outputs: bool) -> tuple[float, float]:
    v = picchetto_v0.vector_env(num_envs, threads=THREADS)
    v.copy_outputs = copy_outputs
    v.reset(seed=0)
    rng = seed_streams(1, num_envs)
    acts = np.empty(num_envs, dtype=np.int64)
    for _ in range(10):
        v.step(batched.random_legal_actions(v.mask, rng, acts))
    block = max(1, 20_000 // num_envs)
    steps = 0
    start, cpu = time.perf_counter(), time.process_time()
    while time.perf_counter() - start < seconds:
        for _ in range(block):
            v.step(batched.random_legal_actions(v.mask, rng, acts))
        steps += block * num_envs
    return steps / (time.perf_counter() - start), steps / (time.process_time() - cpu)


def differential(deals: int, seed: int) -> None:
    from tests.envs.test_picchetto_batched import VARIANTS, Differential, explicit_options

    per_variant = -(-deals // len(VARIANTS))
    total = Counter()
    start = time.perf_counter()
    print(f"\n## Differential run: {deals} hands over {len(VARIANTS)} flag variants (64 games a batch)\n")
    print("| variant | hands | episodes | explicit deals | steps | seconds |")
    print("|---|---|---|---|---|---|")
    for v_index, (name, flags) in enumerate(VARIANTS.items()):
        diff = Differential(64, flags)
        rnd = random.Random(seed + v_index)
        t = time.perf_counter()
        k = 0
        while diff.hands < per_variant:
            options = None if k % 2 == 0 else explicit_options(rnd, flags, 64, share=0.8)
            diff.reset(seed + 1000 * v_index + k, options)
            diff.run(300)
            k += 1
        total.update(diff.seen)
        print(f"| {name} | {diff.hands} | {diff.episodes} | {diff.explicit} | {diff.steps * 64} | "
              f"{time.perf_counter() - t:.0f} |", flush=True)
    print(f"\nAll identical ({time.perf_counter() - start:.0f} s). Events seen in finished episodes: "
          + ", ".join(f"{k} {v}" for k, v in sorted(total.items())))


#: `vector_env(..., threads=)` of the speed rows (`--threads`)
THREADS = 1


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--speed-seconds", type=float, default=3.0, help="seconds per speed measurement (0: skip)")
    ap.add_argument("--sizes", type=int, nargs="+", default=[1, 64, 1024, 4096])
    ap.add_argument("--deals", type=int, default=100_000, help="hands to compare differentially (0: skip)")
    ap.add_argument("--seed", type=int, default=20_000)
    ap.add_argument("--threads", type=int, default=1, help="cores the batched kernels run on (vector_env threads=)")
    args = ap.parse_args()
    global THREADS
    THREADS = args.threads
    import numba

    print(f"command: `python benchmarks/{Path(__file__).name} {' '.join(sys.argv[1:])}`".replace(" `", "`"))
    cpu = platform.processor() or platform.machine()
    try:
        cpu = next(line.split(":", 1)[1].strip() for line in open("/proc/cpuinfo") if line.startswith("model name"))
    except (OSError, StopIteration):
        pass
    print(f"machine: {cpu}, {os.cpu_count()} cores, Python {platform.python_version()}, numpy {np.__version__}, "
          f"numba {numba.__version__}")
    if args.speed_seconds > 0:
        load0 = os.getloadavg()
        first, cached = compile_times()
        base = aec_speed(args.speed_seconds)
        rows = []
        for n in args.sizes:
            rows.append((n, vector_speed(n, args.speed_seconds, False), vector_speed(n, args.speed_seconds, True)))
        load1 = os.getloadavg()
        print(f"load (1, 5, 15 min) before: {load0[0]:.2f} {load0[1]:.2f} {load0[2]:.2f}; "
              f"after: {load1[0]:.2f} {load1[1]:.2f} {load1[2]:.2f}\n")
        print(f"compile: first process (empty numba cache) {first:.1f} s; second process (cache=True) {cached:.1f} s\n")
        print("Wall: env-steps per second; CPU: per CPU second of this process (less sensitive to the load).\n")
        print("| engine | num_envs | wall, copy_outputs=False | x env() | CPU, copy_outputs=False | x env() "
              "| wall, copies | CPU, copies |")
        print("|---|---|---|---|---|---|---|---|")
        print(f"| env() | 1 | {base[0]:,.0f} | 1.0 | {base[1]:,.0f} | 1.0 | | |")
        for n, fast, copied in rows:
            print(f"| vector_env | {n} | {fast[0]:,.0f} | {fast[0] / base[0]:.1f} | {fast[1]:,.0f} | "
                  f"{fast[1] / base[1]:.1f} | {copied[0]:,.0f} | {copied[1]:,.0f} |")
    if args.deals > 0:
        differential(args.deals, args.seed)


if __name__ == "__main__":
    main()
