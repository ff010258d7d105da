"""Briscola in cinque's batched engine: speed next to env(), compile time, and a long differential run.

    python benchmarks/vector_briscola5.py                      # everything (the differential run takes minutes)
    python benchmarks/vector_briscola5.py --deals 0            # speed and compile time only
    python benchmarks/vector_briscola5.py --deals 100000 --seconds 0

Speed: uniformly random legal actions, chosen by a small njit helper (not in Python), stepped
through `vector_env(num_envs).step` with `copy_outputs = False` (the batched trainer's way)
and with the default copies; next to it, the kernel alone (`_step`: rules, observer buffer,
mask and, fused into the same loop, the acting seat's 1,169-float observation) and the
observation gather alone (`gather_seats`, as if run again over every game), and
`briscola5_v0.env()` stepped the PettingZoo way (`last()`, a random legal action, `step`),
all in the same process. One env-step = one action of one game. Figures are medians of
`--repeats` runs, by wall clock and by this process's CPU time (the machine is shared: the
load is printed).

Compile time: a fresh process with an empty numba cache directory, then a second process with
the same directory (`cache=True`).

Differential: the harness of `tests/envs/test_briscola5_batched.py` (every step's actor,
observation bytes, whole observer buffer, mask, rewards and episode ends against the AEC env),
over `--deals` deals spread across its flag variants.
"""

from __future__ import annotations

import argparse
import os
import platform
import shlex
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

import numba as nb  # noqa: E402
import numpy as np  # noqa: E402

from envs import briscola5_v0  # noqa: E402
from envs.core.vector import gather_seats  # noqa: E402


@nb.njit(cache=True)
def random_legal(mask: np.ndarray, out: np.ndarray) -> None:
    """`out[i]`: a uniformly random legal action of game `i` (numba's own generator)."""
    for i in range(mask.shape[0]):
        n = 0
        for a in range(mask.shape[1]):
            n += mask[i, a]
        r = np.random.randint(0, n)
        for a in range(mask.shape[1]):
            if mask[i, a]:
                if r == 0:
                    out[i] = a
                    break
                r -= 1


@nb.njit(cache=True)
def _seed(seed: int) -> None:
    np.random.seed(seed)


def _timed(fn, calls: int) -> tuple[float, float]:
    """(wall seconds, CPU seconds) of `calls` calls of fn."""
    w, c = time.perf_counter(), time.process_time()
    for _ in range(calls):
        fn()
    return time.perf_counter() - w, time.process_time() - c


def vector_speed(num_envs: int, seconds: float, repeats: int) -> dict[str, tuple[float, float]]:
    """env-steps/s (wall, CPU) of step() with and without copies, the kernel alone and the gather alone."""
    v = briscola5_v0.vector_env(num_envs, threads=THREADS)
    v.reset(seed=0)
    _seed(0)
    acts = np.zeros(num_envs, dtype=np.int64)

    def full():
        random_legal(v.mask, acts)
        v.step(acts)

    def kernel():
        random_legal(v.mask, acts)
        v._step(acts)

    def gather():
        gather_seats(v.buf, v.current_player, v.obs, *v.gather_tables)

    out = {}
    for name, fn, copy in (("step", full, False), ("step+copy", full, True), ("kernel", kernel, False),
                           ("gather", gather, False)):
        v.copy_outputs = copy
        fn()
        w, _ = _timed(fn, 5)
        calls = max(5, int(seconds / repeats / max(w / 5, 1e-7)))
        runs = [_timed(fn, calls) for _ in range(repeats)]
        steps = calls * num_envs
        out[name] = (steps / statistics.median(r[0] for r in runs), steps / statistics.median(r[1] for r in runs))
    return out


def aec_speed(steps: int, repeats: int) -> tuple[float, float]:
    """env-steps/s (wall, CPU) of env() with random legal actions, the PettingZoo way."""
    rnd = np.random.default_rng(0)

    def run():
        env = briscola5_v0.env()
        env.reset(seed=0)
        done = 0
        while done < steps:
            env.reset()
            for _agent in env.agent_iter():
                obs, _, term, trunc, _ = env.last()
                if term or trunc:
                    env.step(None)
                    continue
                legal = np.flatnonzero(obs["action_mask"])
                env.step(int(legal[int(rnd.random() * legal.size)]))
                done += 1
        return done

    runs = []
    for _ in range(repeats):
        w, c = time.perf_counter(), time.process_time()
        n = run()
        runs.append((n / (time.perf_counter() - w), n / (time.process_time() - c)))
    return statistics.median(r[0] for r in runs), statistics.median(r[1] for r in runs)


_FIRST_CALL = (
    "import time; t = time.perf_counter(); c = time.process_time(); import numpy as np; "
    "from envs import briscola5_v0; v = briscola5_v0.vector_env(8); v.reset(seed=0); "
    "v.step(np.array([np.flatnonzero(m)[0] for m in v.mask])); "
    "print(time.perf_counter() - t, time.process_time() - c)"
)


def compile_times() -> list[tuple[float, float]]:
    """(wall, CPU) seconds of import + vector_env + reset + step: fresh cache, then cached."""
    out = []
    with tempfile.TemporaryDirectory() as cache:
        env = dict(os.environ, NUMBA_CACHE_DIR=cache)
        for _ in range(2):
            res = subprocess.run([sys.executable, "-c", _FIRST_CALL], cwd=ROOT, env=env, capture_output=True,
                                 text=True, check=True)
            wall, cpu = (float(x) for x in res.stdout.split())
            out.append((wall, cpu))
    return out


def differential(deals: int) -> None:
    from tests.envs.test_briscola5_batched import VARIANTS, run_variant

    print(f"\n### Differential run against the AEC env ({deals:,} deals at least, 64 games per batch)\n")
    print("| variant | deals | steps | forfeits | all-pass voids | forced dealers | played | solos | cappotti "
          "| episodes ended (term/trunc) | explicit deals | seconds |")
    print("|---|---|---|---|---|---|---|---|---|---|---|---|")
    variants = dict(VARIANTS)
    # Everyone always passes: runs of 100 void hands, each episode truncated (5 steps a deal).
    variants["always-pass"] = ({"num_hands": 2, "void_hands_count": False}, (1.0,), 0, 520)
    total = 0
    for i, (name, (flags, pass_probs, _, steps_per_round)) in enumerate(variants.items()):
        want = -(-deals // len(variants))
        start = time.perf_counter()
        s = run_variant(flags, pass_probs, want, steps_per_round, seed=100 + i)
        total += s["deals"]
        print(f"| {name} | {s['deals']:,} | {s['steps']:,} | {s['forfeit']:,} | {s['all_pass']:,} | "
              f"{s['force_dealer']:,} | {s['played']:,} | {s['solo']:,} | {s['cappotto']:,} | "
              f"{s['terminated']:,}/{s['truncated']:,} | {s['explicit']:,} | {time.perf_counter() - start:,.0f} |",
              flush=True)
    print(f"\nAll {total:,} deals identical, step by step.")


def _cpu_model() -> str:
    try:
        for line in Path("/proc/cpuinfo").read_text().splitlines():
            if line.startswith("model name"):
                return line.split(":", 1)[1].strip()
    except OSError:
        pass
    return platform.processor() or platform.machine()


#: `vector_env(..., threads=)` of the speed rows (`--threads`)
THREADS = 1


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--sizes", type=int, nargs="*", default=[1, 64, 1024, 4096], help="num_envs to measure")
    parser.add_argument("--seconds", type=float, default=3.0, help="time per speed measurement (0: skip speed)")
    parser.add_argument("--repeats", type=int, default=3, help="runs per measurement (median)")
    parser.add_argument("--aec-steps", type=int, default=20_000, help="env() steps per run")
    parser.add_argument("--deals", type=int, default=100_000, help="deals of the differential run (0: skip)")
    parser.add_argument("--no-compile", action="store_true", help="skip the compile-time measurement")
    parser.add_argument("--threads", type=int, default=1, help="cores the batched kernels run on (vector_env threads=)")
    args = parser.parse_args()
    global THREADS
    THREADS = args.threads

    print("## Briscola in cinque: vector_env\n")
    print(f"Command: `python {shlex.join(['benchmarks/vector_briscola5.py', *sys.argv[1:]])}`  ")
    print(f"Machine: {_cpu_model()}, {os.cpu_count()} cores, {platform.system()} {platform.release()}; "
          f"Python {platform.python_version()}, numpy {np.__version__}, numba {nb.__version__}  ")
    print("Load before (1, 5, 15 min): {:.2f} {:.2f} {:.2f}".format(*os.getloadavg()))

    if not args.no_compile:
        (cw, cc), (hw, hc) = compile_times()
        print("\n### Start-up (import, vector_env(8), reset, one step) in a new process\n")
        print("| numba cache | wall s | CPU s |\n|---|---|---|")
        print(f"| empty (compiles every kernel) | {cw:.2f} | {cc:.2f} |")
        print(f"| filled by the first process (`cache=True`) | {hw:.2f} | {hc:.2f} |")

    if args.seconds > 0:
        aw, ac = aec_speed(args.aec_steps, args.repeats)
        print("\n### env-steps/s, random legal actions (wall clock; CPU time of this process in brackets)\n")
        print("| through | num_envs | step() | step() with copies | kernel alone | gather alone | step() / env() |")
        print("|---|---|---|---|---|---|---|")
        print(f"| `env()` (PettingZoo AEC) | 1 | {aw:,.0f} ({ac:,.0f}) | | | | 1.0x |")
        for b in args.sizes:
            r = vector_speed(b, args.seconds, args.repeats)
            cells = " | ".join(f"{r[k][0]:,.0f} ({r[k][1]:,.0f})" for k in ("step", "step+copy", "kernel", "gather"))
            print(f"| `vector_env` | {b:,} | {cells} | {r['step'][0] / aw:,.0f}x ({r['step'][1] / ac:,.0f}x) |",
                  flush=True)
        print("\nstep() = the base's action check + the kernel (rules, observer buffer, mask, and the gather of "
              "the acting seat's 1,169-float observation in the same loop); `copy_outputs = False` unless "
              "'with copies'.")

    if args.deals > 0:
        differential(args.deals)
    print("\nLoad after (1, 5, 15 min): {:.2f} {:.2f} {:.2f}".format(*os.getloadavg()))


if __name__ == "__main__":
    main()
