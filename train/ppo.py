"""Train a card-playing agent with MaskablePPO (sb3-contrib) on one seat of a Mazzo game.

    python -m train.ppo --config configs/briscola5/ppo.yaml                 # what `make train` runs
    python -m train.ppo --config configs/pigugnin/ppo.yaml --seed 2 --env.num_players 5
    python -m train.ppo --config configs/briscola5/ppo.yaml --resume runs/<run>/last.zip --total_timesteps 400000
    python -m train.ppo --help                                              # every key, with its doc

A config with ``engine: batched`` is trained by ``train/ppo_batched.py`` instead (PPO on the batched engines).

The config file's keys are the fields of ``Args`` below (game flags under ``env:``); any key can
be overridden on the command line (``train/config.py``). The learner plays one seat of the game
through ``train.single_seat.SingleSeatEnv``; the other seats are ``opponents`` (plus frozen
snapshots of the learner with ``selfplay: true``). Every ``eval_every`` steps the greedy policy
is evaluated with the evaluation tool's duplicate deals (``train.evaluate.head_to_head``) against
each of ``eval_opponents``; the best one (against the first of them) and the last one are kept.
With ``bc_episodes > 0`` the policy first imitates ``bc_teacher`` (``train/imitation.py``): the warm
start that lets Briscola's learner bid (``configs/briscola5/ppo_long.yaml``).

Outputs, in ``runs/{game}__{exp_name}__{seed}__{unix time}/``:

| file                 | what                                                                    |
|----------------------|-------------------------------------------------------------------------|
| ``config.yaml``      | the resolved ``Args`` (rerun with ``--config`` on it)                   |
| ``tb/``              | TensorBoard scalars (``rollout/*``, ``train/*``, ``eval/vs_<opp>/mean`` ...) |
| ``metrics.csv``      | one row per rollout: steps, episodes, mean episode return (game units), losses |
| ``eval.csv``         | one row per evaluation and opponent: mean, 95% CI, deals                |
| ``best.mazzo.zip``, ``last.mazzo.zip`` | the policy to play: safe checkpoints (``make_agent("ppo:PATH")``, ``--players ppo:PATH``; ``agents/checkpoint.py``) |
| ``best.zip``, ``last.zip`` | Stable-Baselines3 run files for ``--resume`` (pickles: trusted files only; ``last_state.pkl``: what an exact resume needs) |
| ``snapshots/``       | self-play snapshots (safe checkpoints, ``step_<n>.mazzo.zip``)          |
| ``imitation.json``   | the warm start's figures (decisions imitated, accuracy), if any         |
| ``final_eval.json``  | the final evaluation of ``best.mazzo.zip`` on fresh deals, with reference levels; wall time (``timing``) and ``numerics`` |
| ``report.md``, ``learning_curve.png`` | the run's report and its learning curve              |

``total_timesteps`` is rounded up to whole rollouts (``n_steps * n_envs``, where PPO stops anyway);
the rounded figure is printed, recorded in ``config.yaml`` and reported.

Resuming from ``runs/<run>/last.zip`` starts a new run folder beside ``runs/<run>`` (which stays as it
was) holding the curves so far; with ``last_state.pkl`` beside the checkpoint it gives the same result
as an uninterrupted run of the same config. Wall time (``time`` in ``metrics.csv``) is cumulative over
the segments; the report gives the total and the resumed segment's own.

Reproducible: the same config gives the same bits (metrics, eval.csv, checkpoints, final table) on
any x86-64 CPU with AVX2, with the same versions (torch above all) and ``torch_threads``; see
``PINNED_ENV`` for what the command line pins (threads, MKL's and ATen's code paths).
Both are unpickled (Stable-Baselines3's format): resume only from files you trust, your own runs.
Playing never loads them: agents load the safe ``*.mazzo.zip`` checkpoints.
"""

from __future__ import annotations

import csv
import json
import os
import pickle
import random
import sys
import time
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import numpy as np
import yaml

from agents.registry import make_agent
from envs.core.errors import ConfigError
from envs.registry import GAMES, game_spec
from train.config import parse_args, to_dict
from train.runs import (
    EVAL_SEED,
    FINAL_SEED,
    METRIC_KEYS,
    PINNED_ENV,
    append_csv,
    carry_history,
    head_to_head_row,
    new_run_dir,
    numerics,
    pin_numerics,
)


@dataclass
class Args:
    exp_name: str = "ppo"
    """experiment name: the second part of the run name {game}__{exp_name}__{seed}__{time}"""
    game: str = "briscola5"
    """the game: briscola5, pigugnin or picchetto"""
    env: dict = field(default_factory=dict)
    """game flags, the keywords of the game's env() (e.g. {num_players: 5, episode: hand})"""
    seed: int = 1
    """seeds Python, NumPy, torch and every environment; evaluation deals derive from it"""
    total_timesteps: int = 200_000
    """learner decisions to train for in total (a resumed run counts the steps already done)"""
    n_envs: int = 4
    """parallel environments"""
    vec_env: str = "dummy"
    """'dummy' (all envs in this process) or 'subproc' (one process per env)"""
    opponents: str | list = "random"
    """training opponents: an agent spec, a comma-separated string or a list (random, heuristic, ppo:PATH, pretrained:GAME)"""
    seat: str | int = "random"
    """the learner's seat: 'random' (drawn every episode) or a fixed seat number"""
    reward_scale: float = 1.0
    """the learner's rewards are multiplied by this during training (reports use game units)"""

    learning_rate: float = 3.0e-4
    """Adam learning rate"""
    n_steps: int = 256
    """steps per environment per rollout"""
    batch_size: int = 256
    """minibatch size"""
    n_epochs: int = 4
    """optimisation epochs per rollout"""
    gamma: float = 1.0
    """discount factor (card games are short and scored at the end)"""
    gae_lambda: float = 0.95
    """GAE lambda"""
    clip_range: float = 0.2
    """PPO clipping parameter"""
    ent_coef: float = 0.01
    """entropy bonus coefficient"""
    vf_coef: float = 0.5
    """value loss coefficient"""
    max_grad_norm: float = 0.5
    """gradient clipping norm"""
    net_arch: list = field(default_factory=lambda: [256, 256])
    """hidden layer sizes of the policy and of the value network (separate networks)"""

    bc_episodes: int = 0
    """warm start: deals on which bc_teacher plays every seat, to imitate before PPO (0: no warm start)"""
    bc_teacher: str = "heuristic"
    """the agent spec imitated by the warm start"""
    bc_epochs: int = 5
    """passes over the warm start's decisions"""
    bc_lr: float = 1.0e-3
    """Adam learning rate of the warm start"""

    selfplay: bool = False
    """add frozen snapshots of the learner to the opponent pool every snapshot_every steps"""
    snapshot_every: int = 50_000
    """steps between self-play snapshots"""
    snapshot_share: float = 0.5
    """share of opponent seats played by snapshots, once there are some"""
    max_snapshots: int = 5
    """snapshots kept in the pool (the oldest leaves)"""

    eval_every: int = 50_000
    """steps between evaluations (and last-checkpoint saves); 0 evaluates only at the start and the end"""
    eval_deals: int = 100
    """deals per periodic evaluation (each replayed with the learner at every seat)"""
    eval_opponents: list = field(default_factory=lambda: ["heuristic", "random"])
    """opponent specs of the evaluations; the first one picks the best checkpoint"""
    final_deals: int = 500
    """deals of the final evaluation of best.zip (fresh deals, not those of the periodic evaluations)"""
    reference_levels: bool = True
    """also evaluate the heuristic and the random player in the learner's seat (the plot's reference lines)"""
    eval_workers: int = 1
    """worker processes of the final and reference evaluations"""

    resume: str | None = None
    """SB3 run file to continue training from (runs/<run>/last.zip); it is unpickled: trusted files only (your own runs)"""
    runs_dir: str = "runs"
    """where run directories are created"""
    torch_threads: int = 1
    """torch CPU threads (1: fair to other jobs, and the thread count is part of what a run's numbers depend on)"""
    progress: bool = True
    """show a progress bar"""


def check_args(args: Args) -> dict[str, Any]:
    """Validate everything before training; returns the checkpoint metadata of this setup."""
    try:
        spec = game_spec(args.game)
    except ConfigError:
        raise ConfigError(f"invalid value {args.game!r} for 'game'; allowed: {', '.join(GAMES)}") from None
    num_players = spec.num_players(args.env)  # unknown or invalid flags raise ConfigError here (no env is built)
    positive = ("total_timesteps", "n_envs", "n_steps", "batch_size", "n_epochs", "eval_deals", "final_deals",
                "snapshot_every", "max_snapshots", "eval_workers", "torch_threads", "bc_epochs")
    for key in positive:
        if getattr(args, key) < 1:
            raise ConfigError(f"invalid value {getattr(args, key)!r} for '{key}'; allowed: an int >= 1")
    for key, allowed, ok in (("gamma", "(0, 1]", lambda v: 0 < v <= 1), ("gae_lambda", "[0, 1]", lambda v: 0 <= v <= 1),
                             ("snapshot_share", "[0, 1]", lambda v: 0 <= v <= 1),
                             ("clip_range", "(0, 10]", lambda v: 0 < v <= 10),
                             ("learning_rate", "(0, 1]", lambda v: 0 < v <= 1), ("bc_lr", "(0, 1]", lambda v: 0 < v <= 1)):
        if not ok(getattr(args, key)):
            raise ConfigError(f"invalid value {getattr(args, key)!r} for '{key}'; allowed: a number in {allowed}")
    for key in ("eval_every", "bc_episodes"):
        if getattr(args, key) < 0:
            raise ConfigError(f"invalid value {getattr(args, key)!r} for '{key}'; allowed: an int >= 0")
    if args.vec_env not in ("dummy", "subproc"):
        raise ConfigError(f"invalid value {args.vec_env!r} for 'vec_env'; allowed: 'dummy', 'subproc'")
    if not args.net_arch or not all(isinstance(n, int) and n > 0 for n in args.net_arch):
        raise ConfigError(f"invalid value {args.net_arch!r} for 'net_arch'; allowed: a list of ints > 0")
    if not args.eval_opponents:
        raise ConfigError("'eval_opponents' is empty; give at least one agent spec, e.g. [heuristic, random]")
    opponents = args.opponents.split(",") if isinstance(args.opponents, str) else list(args.opponents)
    for agent in [*opponents, *args.eval_opponents, *([args.bc_teacher] if args.bc_episodes else [])]:
        try:
            make_agent(str(agent).strip(), args.game)  # agents.registry.parse_agent_spec, then the player is built
        except ImportError as e:
            raise ConfigError(f"agent {agent!r} is not available for {args.game}: {e}") from None
    meta = {
        "game": args.game,
        "flags": dict(args.env),
        "obs_shape": list(spec.observation_shape(args.env)),
        "num_actions": int(spec.num_actions),
    }
    if args.seat != "random" and not (isinstance(args.seat, int) and 0 <= args.seat < num_players):
        raise ConfigError(f"invalid value {args.seat!r} for 'seat'; allowed: 'random' or 0..{num_players - 1}")
    if args.resume is not None:
        from agents.trained import read_run_metadata

        old = read_run_metadata(args.resume)  # JSON only; missing file / not an SB3 run file: clear error
        for key in ("game", "obs_shape", "num_actions"):
            if old.get(key) != meta[key]:
                raise ConfigError(
                    f"cannot resume from {args.resume}: it was trained with {key}={old.get(key)!r}, "
                    f"this config has {key}={meta[key]!r}"
                )
    return meta


def make_env_fn(args: Args, snapshots: list[str]):
    """A picklable factory of one training env (Monitor-free: VecMonitor counts episodes)."""

    def thunk():
        from train.single_seat import SingleSeatEnv

        env = SingleSeatEnv(args.game, opponents=args.opponents, seat=args.seat, flags=args.env,
                            reward_scale=args.reward_scale, snapshot_share=args.snapshot_share,
                            max_snapshots=args.max_snapshots)
        for spec in snapshots:
            env.add_opponent(spec)
        return env

    return thunk


def whole_rollouts(total: int, done: int, rollout: int) -> int:
    """``total`` rounded up so that the steps still to do are whole rollouts (``n_steps * n_envs``):
    PPO only stops between rollouts, so that is what a run does anyway; the run records and reports it."""
    todo = max(total - done, 0)
    rounded = done + -(-todo // rollout) * rollout
    if rounded != total:
        print(f"total_timesteps: {total} rounded up to {rounded} ({done} done + whole rollouts of "
              f"n_steps * n_envs = {rollout} steps)", flush=True)
    return rounded


#: Args that define the training envs: a resume restores the envs' saved state only if none changed.
ENV_KEYS = ("game", "env", "opponents", "seat", "reward_scale", "n_envs", "snapshot_share", "max_snapshots")


def main(argv: list[str] | None = None) -> Path:
    """One run, top to bottom: check the config, set up, warm start, learn, evaluate, report."""
    argv = sys.argv[1:] if argv is None else argv
    from train.ppo_batched import wants_batched  # `engine: batched` in the config: train/ppo_batched.py trains

    if wants_batched(argv):
        from train.ppo_batched import main as batched_main

        return batched_main(argv, prog="python -m train.ppo")
    args = parse_args(Args, argv, prog="python -m train.ppo")
    preloaded = "torch" in sys.modules  # then the pins below may come too late (a notebook, a test)
    pin_numerics()  # before torch loads (checking a network-backed teacher, e.g. PIMC's playouts, loads it)
    meta = check_args(args)

    run_dir, resume_state = setup_run_dir(args)
    meta = {**meta, "run_name": run_dir.name, "config": to_dict(args)}
    platform_info = seed_everything(args, preloaded)
    model, vec = build_model(args, run_dir, resume_state)
    if args.bc_episodes and not args.resume:
        warm_start(args, model, run_dir)
    timing = learn(args, model, vec, run_dir, meta, resume_state)
    final = final_evaluation(args, run_dir)
    return write_final(args, run_dir, {**final, "timing": timing, "numerics": platform_info}, argv)


def setup_run_dir(args: Args) -> tuple[Path, dict[str, Any] | None]:
    """The run directory (always a new one; a resumed run starts its own, beside the run it continues) with
    its ``config.yaml``, and the saved training state to restore (None: none, or the envs changed)."""
    from agents.trained import read_metadata

    resume_state: dict[str, Any] | None = None
    done = int(read_metadata(args.resume).get("num_timesteps", 0)) if args.resume else 0
    args.total_timesteps = whole_rollouts(args.total_timesteps, done, args.n_steps * args.n_envs)
    if args.resume and (Path(args.resume).parent / "config.yaml").exists():
        origin = Path(args.resume).resolve().parent  # left as it is (its report.md, curves, checkpoints)
        run_dir = new_run_dir(origin.parent, args)
        state_file = Path(args.resume).with_name(Path(args.resume).stem + "_state.pkl")
        old = read_metadata(args.resume).get("config", {})
        same_envs = all(old.get(k) == getattr(args, k) for k in ENV_KEYS)
        if state_file.exists() and same_envs:
            resume_state = pickle.loads(state_file.read_bytes())
        elif state_file.exists():  # e.g. a curriculum: new flags or opponents, so fresh (seeded) envs
            print(f"resume: {', '.join(k for k in ENV_KEYS if old.get(k) != getattr(args, k))} changed; "
                  "the environments start afresh (the result is not that of an uninterrupted run)", flush=True)
        carry_history(origin, run_dir, done, exact=resume_state is not None)
    else:
        run_dir = new_run_dir(Path(args.runs_dir), args)
    (run_dir / "config.yaml").write_text(yaml.safe_dump(to_dict(args), sort_keys=False))
    return run_dir, resume_state


def seed_everything(args: Args, preloaded: bool) -> dict[str, Any]:
    """The only place global generators are seeded; returns the run's numerics (``numerics``, ``pinned``)."""
    import torch

    random.seed(args.seed)
    np.random.seed(args.seed)
    torch.manual_seed(args.seed)
    torch.set_num_threads(args.torch_threads)
    torch.use_deterministic_algorithms(True, warn_only=True)  # free on CPU: warns if an op has no such mode
    platform_info = {**numerics(torch), "pinned": not preloaded and all(os.environ.get(k) == v for k, v in
                                                                        PINNED_ENV.items())}
    if not platform_info["pinned"]:
        print(f"note: numerics not pinned (torch loaded before train.ppo, or {', '.join(PINNED_ENV)} set otherwise): "
              "this run reproduces on this machine, not necessarily bit for bit on another CPU", flush=True)
    return platform_info


def build_model(args: Args, run_dir: Path, resume_state: dict[str, Any] | None) -> tuple[Any, Any]:
    """The training envs (a ``VecMonitor``) and the MaskablePPO model: new, or loaded for ``--resume``
    (with the envs, monitor and generators restored when ``resume_state`` is given)."""
    import torch
    from sb3_contrib import MaskablePPO
    from stable_baselines3.common.logger import configure
    from stable_baselines3.common.vec_env import DummyVecEnv, SubprocVecEnv, VecMonitor

    snapshots = resume_state["snapshots"] if resume_state else []
    fns = [make_env_fn(args, snapshots) for _ in range(args.n_envs)]
    vec = VecMonitor(SubprocVecEnv(fns) if args.vec_env == "subproc" else DummyVecEnv(fns))
    if args.resume:
        model = MaskablePPO.load(args.resume, env=vec, device="cpu", force_reset=resume_state is None)
        if resume_state is None:
            vec.seed(args.seed + model.num_timesteps)  # no saved env state: fresh deals, still seeded
        else:
            for i, s in enumerate(resume_state["envs"]):
                vec.env_method("set_state", s, indices=[i])
            for key, value in resume_state["monitor"].items():  # episodes in progress keep their counts
                setattr(vec, key, value)
            random.setstate(resume_state["rng"]["python"])
            np.random.set_state(resume_state["rng"]["numpy"])
            torch.set_rng_state(resume_state["rng"]["torch"])
    else:
        model = MaskablePPO(
            "MlpPolicy", vec, learning_rate=args.learning_rate, n_steps=args.n_steps, batch_size=args.batch_size,
            n_epochs=args.n_epochs, gamma=args.gamma, gae_lambda=args.gae_lambda, clip_range=args.clip_range,
            ent_coef=args.ent_coef, vf_coef=args.vf_coef, max_grad_norm=args.max_grad_norm,
            policy_kwargs={"net_arch": list(args.net_arch)}, seed=args.seed, device="cpu", verbose=0,
        )
    model.set_logger(configure(str(run_dir / "tb"), ["tensorboard"]))
    return model, vec


def warm_start(args: Args, model: Any, run_dir: Path) -> None:
    """Imitate ``bc_teacher`` before PPO (``train/imitation.py``); its figures go to ``imitation.json``."""
    from train.imitation import collect, pretrain

    t0 = time.time()
    demos = collect(args.game, args.bc_teacher, args.env, args.bc_episodes, seed=args.seed,
                    reward_scale=args.reward_scale)
    stats = pretrain(model.policy, demos, epochs=args.bc_epochs, lr=args.bc_lr, seed=args.seed)
    stats = {"teacher": args.bc_teacher, "episodes": args.bc_episodes, "seconds": round(time.time() - t0, 1),
             **stats}
    (run_dir / "imitation.json").write_text(json.dumps(stats, indent=1))
    print(f"warm start: imitated {args.bc_teacher} on {stats['samples']} decisions, "
          f"accuracy {stats['accuracy']:.3f}", flush=True)


def evaluate_policy(model: Any, args: Args, run_dir: Path, meta: dict[str, Any], step: int) -> list[dict]:
    """The periodic evaluation of the live policy against each of ``eval_opponents`` (eval.csv, TensorBoard)."""
    from agents.trained import TrainedAgent

    agent = TrainedAgent.from_model(model, args.game, meta)
    rows = []
    for opp in args.eval_opponents:
        row = head_to_head_row(args.game, agent, opp, args.eval_deals, EVAL_SEED + args.seed, args.env, 1)
        rows.append({"step": step, **row})
        append_csv(run_dir / "eval.csv", rows[-1])
        tag = opp.replace(":", "_").replace("/", "_")
        model.logger.record(f"eval/vs_{tag}/mean", row["mean"])
        model.logger.record(f"eval/vs_{tag}/ci95", row["ci95"])
    return rows


class Schedule:
    """Logs metrics.csv, evaluates, saves best/last and self-play snapshots between rollouts.

    The Stable-Baselines3 callback is this class with ``BaseCallback`` mixed in (``make_schedule``): this
    module does not import SB3, so that torch loads only after ``pin_numerics``. ``s`` is the state a
    resume restores (``last_state.pkl``)."""

    def __init__(self, args: Args, run_dir: Path, meta: dict[str, Any], vec: Any, state: dict[str, Any] | None):
        super().__init__()  # BaseCallback
        self.args, self.run_dir, self.meta, self.vec = args, run_dir, meta, vec
        self.s = state or {"next_eval": 0, "next_snapshot": args.snapshot_every, "best": None,
                           "episodes": 0, "started": time.time(), "snapshots": []}

    def _on_step(self) -> bool:
        self.s["episodes"] += int(np.sum(self.locals["dones"]))
        return True

    def _on_rollout_start(self) -> None:
        from agents.trained import save_policy

        step = self.model.num_timesteps
        if step > self.s.get("logged", 0):
            self.log_metrics(step)
        if step >= self.s["next_eval"]:
            self.evaluate(step)
        if self.args.selfplay and step >= self.s["next_snapshot"]:
            path = self.run_dir / "snapshots" / f"step_{step}.mazzo.zip"
            save_policy(self.model, path, self.meta)  # play-only, safe to load
            self.training_env.env_method("add_opponent", f"ppo:{path}")
            self.s["snapshots"].append(f"ppo:{path}")
            self.s["next_snapshot"] = step + self.args.snapshot_every

    def log_metrics(self, step: int) -> None:
        self.s["logged"] = step
        eps = list(self.model.ep_info_buffer)
        values = self.model.logger.name_to_value
        append_csv(self.run_dir / "metrics.csv", {
            "step": step, "episodes": self.s["episodes"],
            "ep_return_mean": np.mean([e["r"] for e in eps]) / self.args.reward_scale if eps else "",
            "ep_len_mean": np.mean([e["l"] for e in eps]) if eps else "",
            "time": round(time.time() - self.s["started"], 2),
            **{k: values.get(f"train/{k}", "") for k in METRIC_KEYS},
        })

    def evaluate(self, step: int) -> None:
        from agents.trained import save_checkpoint, save_policy

        rows = evaluate_policy(self.model, self.args, self.run_dir, self.meta, step)
        if self.s["best"] is None or rows[0]["mean"] > self.s["best"]:
            self.s["best"] = rows[0]["mean"]
            save_checkpoint(self.model, self.run_dir / "best.zip", self.meta)  # SB3 run file (trusted, --resume)
            save_policy(self.model, self.run_dir / "best.mazzo.zip", self.meta)  # safe checkpoint to play
        if self.args.eval_every:
            self.s["next_eval"] = step + self.args.eval_every
        else:
            self.s["next_eval"] = float("inf")
        self.save_last()

    def save_last(self) -> None:
        import torch

        from agents.trained import save_checkpoint, save_policy

        self.s["elapsed"] = time.time() - self.s["started"]
        save_checkpoint(self.model, self.run_dir / "last.zip", self.meta)
        save_policy(self.model, self.run_dir / "last.mazzo.zip", self.meta)
        state = {
            "envs": self.training_env.env_method("get_state"),
            "rng": {"python": random.getstate(), "numpy": np.random.get_state(), "torch": torch.get_rng_state()},
            "callback": self.s, "snapshots": self.s["snapshots"],
            "monitor": {k: getattr(self.vec, k) for k in ("episode_returns", "episode_lengths", "episode_count")},
        }
        (self.run_dir / "last_state.pkl").write_bytes(pickle.dumps(state))


def make_schedule(args: Args, run_dir: Path, meta: dict[str, Any], vec: Any,
                  state: dict[str, Any] | None) -> Schedule:
    """``Schedule`` as a Stable-Baselines3 callback."""
    from stable_baselines3.common.callbacks import BaseCallback

    return type("Schedule", (Schedule, BaseCallback), {})(args, run_dir, meta, vec, state)


def learn(args: Args, model: Any, vec: Any, run_dir: Path, meta: dict[str, Any],
          resume_state: dict[str, Any] | None) -> dict[str, Any]:
    """PPO up to ``total_timesteps`` with the schedule's evaluations and checkpoints, then the end of the
    curve; closes the envs and returns the wall time (``timing``)."""
    schedule = make_schedule(args, run_dir, meta, vec, resume_state["callback"] if resume_state else None)
    # wall time: "time" in metrics.csv is cumulative over the segments of a resumed run (training and the
    # periodic evaluations, not the final one); this segment's own time is reported beside it
    segment = {"number": schedule.s.get("segment", 0) + 1, "from_step": model.num_timesteps, "started": time.time()}
    schedule.s["segment"] = segment["number"]
    schedule.s["started"] = time.time() - schedule.s.get("elapsed", 0.0)
    remaining = args.total_timesteps - model.num_timesteps
    print(f"run {run_dir.name}: training {args.game} for {max(remaining, 0)} steps "
          f"({model.num_timesteps} done) against {args.opponents}", flush=True)
    if remaining > 0:
        model.learn(remaining, callback=schedule, reset_num_timesteps=not args.resume, progress_bar=args.progress)
    else:
        schedule.init_callback(model)
    step = model.num_timesteps
    if step > schedule.s.get("logged", 0):
        schedule.log_metrics(step)
    if not (run_dir / "eval.csv").exists() or step > max(r["step"] for r in read_eval(run_dir)):
        schedule.evaluate(step)  # the end of the curve (and best.zip if it is the best)
    else:
        schedule.save_last()
    vec.close()
    return {"wall_time": round(schedule.s["elapsed"], 1), "segment_time": round(time.time() - segment["started"], 1),
            "segments": segment["number"], "from_step": segment["from_step"], "to_step": step,
            "resumed_from": str(Path(args.resume).resolve()) if args.resume else None}


def final_evaluation(args: Args, run_dir: Path) -> dict[str, Any]:
    """``best.mazzo.zip`` against each of ``eval_opponents`` on fresh deals, with the reference levels."""
    from agents.trained import TrainedAgent, export_checkpoint

    if not (run_dir / "best.mazzo.zip").exists():  # a run resumed from before safe checkpoints: its own best.zip
        export_checkpoint(run_dir / "best.zip", run_dir / "best.mazzo.zip")
    best = TrainedAgent(run_dir / "best.mazzo.zip", args.game, flags=args.env)
    final = {"checkpoint": str(run_dir / "best.mazzo.zip"), "best_step": best.meta["num_timesteps"], "rows": []}
    for opp in args.eval_opponents:
        row = head_to_head_row(args.game, best, opp, args.final_deals, FINAL_SEED + args.seed, args.env, 1)
        if args.reference_levels:
            for ref in ("heuristic", "random"):
                r = head_to_head_row(args.game, ref, opp, args.final_deals, FINAL_SEED + args.seed, args.env,
                                     args.eval_workers)
                row[f"{ref}_mean"], row[f"{ref}_low"], row[f"{ref}_high"] = r["mean"], r["low"], r["high"]
        final["rows"].append(row)
    return final


def write_final(args: Args, run_dir: Path, final: dict[str, Any], argv: list[str]) -> Path:
    """``final_eval.json`` and the report (printed); returns the run directory."""
    from train.report import write_report

    (run_dir / "final_eval.json").write_text(json.dumps(final, indent=1))
    command = "python -m train.ppo " + " ".join(argv)
    report = write_report(run_dir, to_dict(args), final, command=command)
    print(report.read_text(), flush=True)
    print(f"run directory: {run_dir}", flush=True)
    return run_dir


def read_eval(run_dir: Path) -> list[dict[str, Any]]:
    """The rows of a run's eval.csv, numbers parsed."""
    with (run_dir / "eval.csv").open() as f:
        return [{k: (v if k == "opponent" else float(v) if v not in ("", "None") else None) for k, v in r.items()}
                for r in csv.DictReader(f)]


def cli() -> None:
    """Entry point: clear one-line errors for bad configs and missing checkpoints."""
    try:
        main()
    except (ConfigError, FileNotFoundError) as e:
        print(f"error: {e}", file=sys.stderr)
        raise SystemExit(2) from None


if __name__ == "__main__":
    pin_numerics()
    cli()
