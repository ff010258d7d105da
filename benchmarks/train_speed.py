"""Learner steps per second: the batched trainer's default configs against today's SB3 script.

    python benchmarks/train_speed.py                                  # every game, both trainers
    python benchmarks/train_speed.py --games briscola5 --rollouts 3 --sb3-steps 2048
    python benchmarks/train_speed.py --threads 2                      # torch threads (default 1, as the configs)
    python benchmarks/train_speed.py --no-sb3 --set 'net_arch=[64, 64]' --set n_epochs=1   # a config variant
    python benchmarks/train_speed.py --games briscola5 --default-only --rollouts 10   # the config as it is, and SB3's

For each game:

| row | what is timed |
|---|---|
| batched, ``config (<opponents>)`` | ``configs/<game>/ppo_batched.yaml`` as it is (its own opponents: ``heuristic-v1``, the frozen numba port of the 0.1 heuristic): the issue's "default batched config" |
| batched, ``<opponents>`` | ``train.batched.ppo.BatchedPPO`` built from ``configs/<game>/ppo_batched.yaml`` with ``opponents`` replaced (``random``; ``heuristic``: the numba port of ``agents/batched/<game>.py``; ``heuristic-python``: the Python heuristic called row by row) and everything else as the config says (its share of self-play games too, and ``--set`` overrides): ``--rollouts`` rollouts and updates after one warm-up (numba compiles, torch's first calls) |
| batched, self-play only | the same config with ``all_seats_share: 1`` (no opponent at all) |
| SB3, ``<opponents>`` | the SB3 trainer's model (``train/sb3``) on ``configs/<game>/ppo.yaml`` (MaskablePPO on ``SingleSeatEnv``, DummyVecEnv): ``model.learn(--sb3-steps)`` after one warm-up rollout; the default config row plays that config's own opponents (``heuristic-v1``, the Python 0.1 heuristic) |

A learner step is one decision of the learner that is trained on (SB3's ``num_timesteps``; the
batched trainer's ``global_step``). Rates are given per wall second and per CPU second of this process
(``time.process_time``): on a shared machine the CPU rate is the one that does not depend on the other
jobs. ``opponents`` is the share of the batched loop's wall time spent in opponent decisions, and
``opp. decisions/s`` their rate in that time: with the Python heuristics (``heuristic-python``) it is
the bottleneck, each row decoded and decided in Python; the numba ports make it negligible. The
ratio column divides the batched rate by the SB3 default config's (``configs/<game>/ppo.yaml``,
its own opponents), both per CPU second.

The output names the command, the machine, torch's threads and the load average before and after.
Nothing here is asserted: this is a measurement, not a test.
"""

from __future__ import annotations

import os

os.environ.update({"OMP_NUM_THREADS": "1", "MKL_NUM_THREADS": "1", "MKL_CBWR": "AVX2,STRICT",
                   "ATEN_CPU_CAPABILITY": "avx2"})  # train.runs.PINNED_ENV, before torch loads

import argparse  # noqa: E402
import platform  # noqa: E402
import shlex  # noqa: E402
import sys  # noqa: E402
import time  # noqa: E402
from pathlib import Path  # noqa: E402
from typing import Any  # noqa: E402

import numpy as np  # noqa: E402

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))
from envs.registry import GAMES as _SPECS  # noqa: E402

GAMES = tuple(_SPECS)


def _clock() -> tuple[float, float]:
    return time.perf_counter(), time.process_time()


def batched_rate(game: str, rollouts: int, **overrides: Any) -> dict[str, Any]:
    """Learner steps per second of ``BatchedPPO`` on the game's default batched config with ``overrides``."""
    from train.batched import Args, check_args
    from train.batched.ppo import BatchedPPO
    from train.config import load_config

    args = load_config(Args, ROOT / f"configs/{game}/ppo_batched.yaml", overrides)
    check_args(args)
    trainer = BatchedPPO(args, np.random.SeedSequence(args.seed).generate_state(6))
    trainer.collect()  # warm-up: numba compiles (or loads its cache), torch's first calls
    trainer.update()
    trainer.timers.clear()
    trainer.opponent_decisions = 0
    steps0 = trainer.global_step
    (w0, c0) = _clock()
    for _ in range(rollouts):
        trainer.collect()
        trainer.update()
    (w1, c1) = _clock()
    steps = trainer.global_step - steps0
    wall, cpu = w1 - w0, c1 - c0
    opp = trainer.timers["opponents"]
    return {"steps": steps, "per_wall": steps / wall, "per_cpu": steps / cpu, "opponent_share": opp / wall,
            "opponent_rate": trainer.opponent_decisions / opp if opp > 0 and trainer.opponent_decisions else None,
            "update_share": trainer.timers["update"] / wall}


def sb3_rate(game: str, steps: int, opponents: str | None = None) -> dict[str, Any]:
    """Learner steps per second of the SB3 trainer's model on ``configs/<game>/ppo.yaml`` (its opponents unless given)."""
    from sb3_contrib import MaskablePPO
    from stable_baselines3.common.vec_env import DummyVecEnv, VecMonitor

    from train.config import load_config
    from train.sb3 import Args
    from train.sb3.main import make_env_fn

    args = load_config(Args, ROOT / f"configs/{game}/ppo.yaml", {"opponents": opponents} if opponents else {})
    vec = VecMonitor(DummyVecEnv([make_env_fn(args, []) for _ in range(args.n_envs)]))
    vec.seed(args.seed)
    model = MaskablePPO("MlpPolicy", vec, learning_rate=args.learning_rate, n_steps=args.n_steps,
                        batch_size=args.batch_size, n_epochs=args.n_epochs, gamma=args.gamma,
                        gae_lambda=args.gae_lambda, clip_range=args.clip_range, ent_coef=args.ent_coef,
                        vf_coef=args.vf_coef, max_grad_norm=args.max_grad_norm,
                        policy_kwargs={"net_arch": list(args.net_arch)}, seed=args.seed, device="cpu", verbose=0)
    rollout = args.n_steps * args.n_envs
    model.learn(rollout)  # warm-up: one rollout and update
    before = model.num_timesteps
    (w0, c0) = _clock()
    model.learn(max(steps, rollout), reset_num_timesteps=False)
    (w1, c1) = _clock()
    done = model.num_timesteps - before
    vec.close()
    return {"steps": done, "per_wall": done / (w1 - w0), "per_cpu": done / (c1 - c0), "opponent_share": None,
            "opponent_rate": None, "update_share": None}


def _fmt(x: float | None, spec: str = ",.0f") -> str:
    return "" if x is None else format(x, spec)


def main(argv: list[str] | None = None) -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--games", nargs="*", default=list(GAMES), choices=GAMES)
    parser.add_argument("--rollouts", type=int, default=3, help="timed rollouts of the batched trainer")
    parser.add_argument("--sb3-steps", type=int, default=4096, help="timed learner steps of the SB3 script")
    parser.add_argument("--threads", type=int, default=1, help="torch threads")
    parser.add_argument("--no-sb3", action="store_true", help="skip the SB3 rows")
    parser.add_argument("--default-only", action="store_true",
                        help="only the batched config as it is and the SB3 default config (no opponent variants)")
    parser.add_argument("--set", action="append", default=[], metavar="KEY=VALUE",
                        help="override a key of the batched configs (YAML value), e.g. --set 'net_arch=[64, 64]'")
    args = parser.parse_args(argv)
    import yaml

    overrides = {k: yaml.safe_load(v) for k, _, v in (item.partition("=") for item in args.set)}

    import torch

    from train.batched import Args as BatchedArgs
    from train.config import load_config
    from train.sb3 import Args as SB3Args

    torch.set_num_threads(args.threads)
    cpu = next((line.split(":", 1)[1].strip() for line in Path("/proc/cpuinfo").read_text().splitlines()
                if line.startswith("model name")), platform.processor()) if Path("/proc/cpuinfo").exists() else ""
    load_before = os.getloadavg()
    started = time.time()
    rows = []
    for game in args.games:
        sb3 = None if args.no_sb3 else sb3_rate(game, args.sb3_steps)
        own = load_config(BatchedArgs, ROOT / f"configs/{game}/ppo_batched.yaml", overrides).opponents
        sb3_own = str(load_config(SB3Args, ROOT / f"configs/{game}/ppo.yaml").opponents)  # heuristic-v1 today
        measured = [("batched", f"config ({own})", batched_rate(game, args.rollouts, **overrides))]
        if sb3 is not None and args.default_only:
            measured.append(("SB3 (default config)", sb3_own, sb3))
        if args.default_only:
            for trainer, opp, r in measured:
                ratio = r["per_cpu"] / sb3["per_cpu"] if sb3 else None
                rows.append((game, trainer, opp, r, ratio))
            continue
        measured += [
            ("batched", "random", batched_rate(game, args.rollouts, opponents="random", **overrides)),
            ("batched", "heuristic", batched_rate(game, args.rollouts, opponents="heuristic", **overrides)),
            ("batched", "heuristic-python", batched_rate(game, args.rollouts, opponents="heuristic-python",
                                                         **overrides)),
            ("batched", "self-play only", batched_rate(game, args.rollouts, **{**overrides, "all_seats_share": 1.0})),
        ]
        if sb3 is not None:
            measured += [("SB3 (default config)", sb3_own, sb3),
                         ("SB3", "random", sb3_rate(game, args.sb3_steps, opponents="random"))]
        for trainer, opp, r in measured:
            ratio = r["per_cpu"] / sb3["per_cpu"] if sb3 else None
            rows.append((game, trainer, opp, r, ratio))
            print(f"{game:10s} {trainer:22s} {opp:15s} {r['per_wall']:10,.0f}/s wall {r['per_cpu']:10,.0f}/s CPU",
                  file=sys.stderr, flush=True)
    load_after = os.getloadavg()
    print(f"command: `python {shlex.join(['benchmarks/train_speed.py', *(sys.argv[1:] if argv is None else argv)])}`")
    print(f"machine: {os.cpu_count()} cores, {cpu}; torch {torch.__version__}, {args.threads} thread(s); "
          f"load average before {load_before[0]:.1f} {load_before[1]:.1f} {load_before[2]:.1f}, "
          f"after {load_after[0]:.1f} {load_after[1]:.1f} {load_after[2]:.1f}; {time.time() - started:.0f} s\n")
    print("| game | trainer | opponents | learner steps timed | steps/s (wall) | steps/s (CPU) | opponents' share "
          "of wall time | opp. decisions/s | update's share | x SB3 default (CPU) |")
    print("|---|---|---|---|---|---|---|---|---|---|")
    for game, trainer, opp, r, ratio in rows:
        print(f"| {game} | {trainer} | {opp} | {r['steps']:,} | {_fmt(r['per_wall'])} | {_fmt(r['per_cpu'])} | "
              f"{_fmt(r['opponent_share'], '.0%')} | {_fmt(r['opponent_rate'])} | {_fmt(r['update_share'], '.0%')} | "
              f"{_fmt(ratio, '.1f')} |")


if __name__ == "__main__":
    main()
