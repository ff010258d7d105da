"""Multi-agent PPO with action masking on Ray RLlib (new API stack), on any Mazzo game.

    python -m train.rllib --config configs/briscola5/rllib.yaml                    # a local Ray cluster
    python -m train.rllib --config configs/pigugnin/rllib.yaml --address auto       # join a running cluster
    python -m train.rllib --config configs/picchetto/rllib.yaml --address HEAD:6379 --num-env-runners 8
    python -m train.rllib --help                                                    # every key, with its doc

Needs ``pip install -e ".[train,ray]"``. The config file's keys are the fields of ``Args`` below (game
flags under ``env:``; ``train/config.py`` reads them, any key can be overridden on the command line,
``--num-env-runners`` and ``--num_env_runners`` alike).

| piece | what |
|---|---|
| algorithm | RLlib's ``PPO`` (``PPOConfig``), new API stack: env runners, connectors, a learner group |
| env | ``train/rllib_env.py``: the game's AEC env as a turn-based ``MultiAgentEnv`` (each seat's rewards delivered with its next decision) |
| module | ``train/rllib_module.py``: ``MaskedActorCriticModule``, a ``TorchRLModule`` whose actor is the safe checkpoint's MLP, illegal logits masked to ``-1e8`` |
| seats | ``train/rllib_selfplay.py``: ``policies: shared`` (one ``main`` policy at every seat, every seat learns) or ``per_seat`` (``seat_i`` for ``player_i``); with ``selfplay: true``, the ``SnapshotPool`` callback freezes ``main`` every ``snapshot_every`` iterations (``Algorithm.add_module``) and a share of episodes pits ``main`` against a snapshot |
| cluster | ``ray.init()`` starts a local one (``num_cpus``); ``--address auto`` or ``HOST:PORT`` joins a running one; ``--num-env-runners N`` |

Outputs, in ``runs/{game}__{exp_name}__{seed}__{unix time}/`` (as the other trainers):

| file | what |
|---|---|
| ``config.yaml`` | the resolved ``Args`` |
| ``metrics.csv`` | one row per training iteration: env steps, episodes, ``ep_return_mean`` (the learners' mean return per seat, game units: 0 in pure self-play of a zero-sum game; ``ep_return_vs_snapshots``: main's seat against snapshots), PPO's losses, entropy, KL, explained variance, ``snapshots`` (the pool's size) and ``fps`` (env steps per second of the whole iteration, sampling and learning; ``benchmarks/rllib_speed.py`` measures the sampling alone) |
| ``eval.csv`` | one row per evaluation and opponent (``train.evaluate.head_to_head`` through the AEC env) |
| ``best.mazzo.zip``, ``last.mazzo.zip`` | safe checkpoints of ``main`` (``policies: per_seat``: of ``seat_0``), exported from the module's weights: ``make_agent("ppo:PATH", game)`` plays them |
| ``seat_<i>.mazzo.zip`` | ``policies: per_seat``: every seat's policy |
| ``rllib_checkpoint/`` | RLlib's own checkpoint (``rllib_checkpoint: true``; pickles: for resuming in RLlib, trusted input only) |
| ``final_eval.json``, ``report.md``, ``learning_curve.png`` | the final evaluation of ``best.mazzo.zip`` against ``eval_opponents``, with the heuristic's and random player's levels (``train/report.py``) |

Ray is shut down at the end (or on an error) when this script started it; a cluster it joined keeps running.
Runs are seeded (``seed``: RLlib's ``debugging(seed=...)``, the evaluation deals), but RLlib's sampling is
asynchronous across env runners, so two runs agree only approximately.
"""

from __future__ import annotations

import functools
import json
import os
import sys
import time
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import numpy as np
import yaml

from envs.core.errors import ConfigError
from envs.registry import GAMES, game_spec
from train.config import parse_args, to_dict

__all__ = ["Args", "check_args", "build_config", "module_ids", "export_module", "main", "cli", "POLICY_MODES"]

POLICY_MODES = ("shared", "per_seat")


@dataclass
class Args:
    exp_name: str = "rllib"
    """experiment name: the second part of the run name {game}__{exp_name}__{seed}__{time}"""
    game: str = "briscola5"
    """the game: briscola5, pigugnin or picchetto"""
    env: dict = field(default_factory=dict)
    """game flags, the keywords of the game's env() (e.g. {num_players: 4, episode: hand})"""
    seed: int = 1
    """seeds RLlib (debugging(seed=...): env runners, module weights) and derives the evaluation deals"""
    total_timesteps: int = 500_000
    """env steps (decisions, one seat acts per step) to sample in total; training stops at the first iteration past it"""

    policies: str = "shared"
    """'shared': one policy (main) at every seat, every seat's decisions train it; 'per_seat': a policy per seat (per role where the flags tie roles to seats)"""
    selfplay: bool = True
    """policies: shared only: freeze main into a snapshot pool every snapshot_every iterations and play a share of the episodes against it"""
    snapshot_every: int = 10
    """training iterations between snapshots"""
    snapshot_share: float = 0.5
    """share of episodes in which main holds one seat and one snapshot every other seat (once the pool has snapshots)"""
    max_snapshots: int = 5
    """snapshots kept in the pool (the oldest is removed)"""

    address: str | None = None
    """Ray cluster: null starts a local one (ray.init), 'auto' or 'HOST:PORT' joins a running one"""
    num_cpus: int | None = None
    """CPUs of a local cluster (null: all of this machine's); ignored when joining one"""
    num_env_runners: int = 1
    """Ray actors sampling episodes (each one CPU); 0 samples in the driver"""
    num_envs_per_env_runner: int = 1
    """envs stepped together by each env runner"""
    rollout_fragment_length: int | str = "auto"
    """env steps per sample request of an env runner ('auto': train_batch_size divided among them)"""
    sample_timeout_s: float = 600.0
    """seconds an iteration waits for the env runners' samples (RLlib's default 60 s returns empty iterations on a busy machine)"""

    train_batch_size: int = 4000
    """env steps per training iteration (PPO's train_batch_size_per_learner)"""
    minibatch_size: int = 512
    """samples per gradient step"""
    num_epochs: int = 1
    """passes over each training batch"""
    learning_rate: float = 3.0e-4
    """Adam learning rate"""
    gamma: float = 1.0
    """discount factor, per decision of a seat"""
    gae_lambda: float = 0.95
    """GAE lambda"""
    clip_param: float = 0.2
    """PPO clipping parameter"""
    entropy_coeff: float = 0.01
    """entropy bonus coefficient"""
    vf_loss_coeff: float = 0.5
    """value loss coefficient"""
    vf_clip_param: float = 1.0e6
    """clip of the value loss (RLlib's default 10 clips large game scores; here effectively off)"""
    grad_clip: float = 0.5
    """gradient clipping norm"""
    kl_coeff: float = 0.2
    """initial coefficient of PPO's adaptive KL penalty (RLlib's default); 0 turns the KL loss off"""
    reward_scale: float = 1.0
    """rewards are multiplied by this for training (metrics and evaluations use game units)"""
    net_arch: list = field(default_factory=lambda: [64, 64])
    """hidden layer sizes of the actor and of the critic (separate MLPs)"""
    activation: str = "Tanh"
    """activation after every hidden layer: Tanh, ReLU, LeakyReLU, ELU, GELU, SiLU, Sigmoid"""

    eval_every: int = 100_000
    """env steps between evaluations (and last-checkpoint exports); 0 evaluates only at the end"""
    eval_deals: int = 50
    """deals per periodic evaluation (each replayed with the learner at every seat)"""
    eval_opponents: list = field(default_factory=lambda: ["heuristic", "random"])
    """opponent specs of the evaluations; the first one picks the best checkpoint"""
    final_deals: int = 200
    """deals of the final evaluation of best.mazzo.zip (fresh deals)"""
    reference_levels: bool = True
    """also evaluate the heuristic and the random player in the learner's seat (the plot's reference lines)"""
    eval_workers: int = 1
    """worker processes of the reference evaluations"""
    rllib_checkpoint: bool = False
    """also save RLlib's own checkpoint (Algorithm.save_to_path) in rllib_checkpoint/ at the end"""
    runs_dir: str = "runs"
    """where run directories are created"""


def check_args(args: Args) -> dict[str, Any]:
    """Validate everything before Ray starts; returns the checkpoint metadata of this setup."""
    from agents.checkpoint import ACTIVATIONS
    from agents.registry import make_agent

    try:
        the_game = game_spec(args.game)
    except ConfigError:
        raise ConfigError(f"invalid value {args.game!r} for 'game'; allowed: {', '.join(GAMES)}") from None
    the_game.num_players(args.env)  # unknown or invalid flags raise ConfigError here
    ints = {"total_timesteps": 1, "snapshot_every": 1, "max_snapshots": 1, "num_env_runners": 0,
            "num_envs_per_env_runner": 1, "train_batch_size": 1, "minibatch_size": 1, "num_epochs": 1,
            "eval_every": 0, "eval_deals": 1, "final_deals": 1, "eval_workers": 1}
    for key, low in ints.items():
        v = getattr(args, key)
        if isinstance(v, bool) or not isinstance(v, int) or v < low:
            raise ConfigError(f"invalid value {v!r} for '{key}'; allowed: an int >= {low}")
    if args.num_cpus is not None and (isinstance(args.num_cpus, bool) or args.num_cpus < 1):
        raise ConfigError(f"invalid value {args.num_cpus!r} for 'num_cpus'; allowed: an int >= 1 or null")
    r = args.rollout_fragment_length
    if not (r == "auto" or (isinstance(r, int) and not isinstance(r, bool) and r >= 1)):
        raise ConfigError(f"invalid value {r!r} for 'rollout_fragment_length'; allowed: 'auto' or an int >= 1")
    ranges = (("gamma", "(0, 1]", lambda v: 0 < v <= 1), ("gae_lambda", "[0, 1]", lambda v: 0 <= v <= 1),
              ("snapshot_share", "[0, 1]", lambda v: 0 <= v <= 1), ("clip_param", "(0, 10]", lambda v: 0 < v <= 10),
              ("learning_rate", "(0, 1]", lambda v: 0 < v <= 1), ("entropy_coeff", "[0, 10]", lambda v: 0 <= v <= 10),
              ("vf_loss_coeff", "[0, 100]", lambda v: 0 <= v <= 100), ("grad_clip", "(0, 1e6]", lambda v: 0 < v <= 1e6),
              ("sample_timeout_s", "(0, 1e6]", lambda v: 0 < v <= 1e6),
              ("vf_clip_param", "(0, 1e9]", lambda v: 0 < v <= 1e9), ("kl_coeff", "[0, 100]", lambda v: 0 <= v <= 100),
              ("reward_scale", "(0, 1e6]", lambda v: 0 < v <= 1e6))
    for key, allowed, ok in ranges:
        if not ok(getattr(args, key)):
            raise ConfigError(f"invalid value {getattr(args, key)!r} for '{key}'; allowed: a number in {allowed}")
    if args.policies not in POLICY_MODES:
        raise ConfigError(f"invalid value {args.policies!r} for 'policies'; allowed: {', '.join(POLICY_MODES)}")
    if args.policies == "per_seat" and args.selfplay:
        raise ConfigError("'selfplay' (the snapshot pool) needs policies: shared; set selfplay: false for per_seat")
    if not args.net_arch or not all(isinstance(h, int) and not isinstance(h, bool) and h > 0 for h in args.net_arch):
        raise ConfigError(f"invalid value {args.net_arch!r} for 'net_arch'; allowed: a non-empty list of ints > 0")
    if args.activation not in ACTIVATIONS:
        raise ConfigError(f"invalid value {args.activation!r} for 'activation'; allowed: {', '.join(ACTIVATIONS)}")
    if not args.eval_opponents:
        raise ConfigError("'eval_opponents' is empty; give at least one agent spec, e.g. [heuristic, random]")
    for spec in args.eval_opponents:
        try:
            make_agent(str(spec), args.game)
        except ImportError as e:
            raise ConfigError(f"agent {spec!r} is not available for {args.game}: {e}") from None
    if args.address is not None and not isinstance(args.address, str):
        raise ConfigError(f"invalid value {args.address!r} for 'address'; allowed: null, 'auto' or 'HOST:PORT'")
    return {"game": args.game, "flags": dict(args.env), "obs_shape": list(the_game.observation_shape(args.env)),
            "num_actions": the_game.num_actions}


def module_ids(args: Args) -> list[str]:
    """The trained modules: ``["main"]`` or ``["seat_0", ..., "seat_{n-1}"]``."""
    from train.rllib_selfplay import MAIN

    if args.policies == "shared":
        return [MAIN]
    return [f"seat_{i}" for i in range(game_spec(args.game).num_players(args.env))]


def build_config(args: Args) -> Any:
    """The ``PPOConfig`` of a run (new API stack); Ray must be initialised before ``build_algo()``."""
    from ray.rllib.algorithms.ppo import PPOConfig
    from ray.rllib.core.rl_module.multi_rl_module import MultiRLModuleSpec
    from ray.rllib.core.rl_module.rl_module import RLModuleSpec

    from train.rllib_env import register
    from train.rllib_module import MaskedActorCriticModule
    from train.rllib_selfplay import SeatMapping, SnapshotPool

    n = game_spec(args.game).num_players(args.env)
    ids = module_ids(args)
    model_config = {"net_arch": list(args.net_arch), "activation": args.activation}
    specs = {mid: RLModuleSpec(module_class=MaskedActorCriticModule, model_config=model_config) for mid in ids}
    pool = dict(policies=args.policies, num_players=n, selfplay=args.selfplay, snapshot_every=args.snapshot_every,
                max_snapshots=args.max_snapshots, share=args.snapshot_share, salt=args.seed,
                reward_scale=args.reward_scale)
    return (
        PPOConfig()
        .framework("torch")
        .environment(register(), env_config={"game": args.game, "flags": dict(args.env),
                                             "reward_scale": args.reward_scale},
                     disable_env_checking=True)  # the checker steps random, illegal actions
        .env_runners(num_env_runners=args.num_env_runners, num_envs_per_env_runner=args.num_envs_per_env_runner,
                     rollout_fragment_length=args.rollout_fragment_length, sample_timeout_s=args.sample_timeout_s)
        .learners(num_learners=0)
        .training(train_batch_size_per_learner=args.train_batch_size, minibatch_size=args.minibatch_size,
                  num_epochs=args.num_epochs, lr=args.learning_rate, gamma=args.gamma, lambda_=args.gae_lambda,
                  clip_param=args.clip_param, entropy_coeff=args.entropy_coeff, vf_loss_coeff=args.vf_loss_coeff,
                  vf_clip_param=args.vf_clip_param, grad_clip=args.grad_clip, use_kl_loss=args.kl_coeff > 0,
                  kl_coeff=args.kl_coeff)
        .multi_agent(policies=set(ids), policy_mapping_fn=SeatMapping(args.policies, n, salt=args.seed),
                     policies_to_train=list(ids))
        .rl_module(rl_module_spec=MultiRLModuleSpec(rl_module_specs=specs))
        .callbacks(functools.partial(SnapshotPool, **pool))
        .debugging(seed=args.seed, log_level="WARN")
    )


def export_module(algo: Any, module_id: str, path: Path, meta: dict[str, Any], args: Args, step: int) -> Path:
    """The learner's current weights of ``module_id`` as a safe checkpoint (``train.rllib_module.export_policy``)."""
    from train.rllib_module import export_policy

    state = algo.learner_group.get_weights(module_ids=[module_id])[module_id]
    return export_policy(state, path, meta, net_arch=list(args.net_arch), activation=args.activation,
                         num_timesteps=step)


def _get(d: Any, *keys: str) -> Any:
    for k in keys:
        if not isinstance(d, dict) or k not in d:
            return None
        d = d[k]
    return d


def _num(x: Any) -> Any:
    try:
        x = float(x)
    except (TypeError, ValueError):
        return ""
    return "" if not np.isfinite(x) else x


def _metrics_row(result: dict[str, Any], mid: str, started: float, fps: float) -> dict[str, Any]:
    learner = _get(result, "learners", mid) or {}
    runners = result.get("env_runners") or {}
    return {
        "step": int(result.get("num_env_steps_sampled_lifetime") or _get(result, "env_runners",
                                                                         "num_env_steps_sampled_lifetime") or 0),
        "episodes": int(runners.get("num_episodes_lifetime") or 0),
        "ep_return_mean": _num(runners.get("learner_return")),
        "ep_len_mean": _num(runners.get("episode_len_mean")),
        "time": round(time.time() - started, 2),
        "loss": _num(learner.get("total_loss")),
        "policy_gradient_loss": _num(learner.get("policy_loss")),
        "value_loss": _num(learner.get("vf_loss")),
        "entropy_loss": _num(-float(learner["entropy"]) if "entropy" in learner else None),
        "approx_kl": _num(learner.get("mean_kl_loss")),
        "clip_fraction": "",
        "explained_variance": _num(learner.get("vf_explained_var")),
        "ep_return_vs_snapshots": _num(runners.get("learner_return_vs_snapshots")),
        "snapshots": int(result.get("snapshots") or 0),
        "iteration": int(result.get("training_iteration") or 0),
        "fps": round(fps, 1),
    }


def _start_ray(args: Args) -> bool:
    """Start (``address: null``) or join Ray; True when this process started it (and must shut it down)."""
    import ray

    if ray.is_initialized():
        return False
    os.environ.setdefault("RAY_USAGE_STATS_ENABLED", "0")  # no usage report to Ray's servers (set it to opt in)
    kwargs: dict[str, Any] = {"include_dashboard": False, "logging_level": "warning"}
    if args.address is None and args.num_cpus is not None:
        kwargs["num_cpus"] = args.num_cpus
    try:
        ray.init(address=args.address, **kwargs)
    except ConnectionError as e:
        from train.evaluation.ray_backend import AUTH_HINT

        raise ConfigError(f"address {args.address!r}: no Ray cluster there ({e})" + AUTH_HINT) from None
    return True


def main(argv: list[str] | None = None, prog: str = "python -m train.rllib") -> Path:
    argv = list(sys.argv[1:] if argv is None else argv)
    args = parse_args(Args, argv, prog=prog)
    meta = check_args(args)
    try:
        import ray  # noqa: F401
    except ImportError:
        raise ConfigError('train.rllib needs Ray RLlib: pip install -e ".[train,ray]"') from None
    from train.runs import EVAL_SEED, FINAL_SEED, append_csv, head_to_head_row, new_run_dir, pin_numerics

    pin_numerics()
    import torch

    from agents.trained import TrainedAgent
    from train.report import write_report

    run_dir = new_run_dir(Path(args.runs_dir), args)
    run_name = run_dir.name
    (run_dir / "config.yaml").write_text(yaml.safe_dump(to_dict(args), sort_keys=False))
    meta = {**meta, "run_name": run_name, "config": to_dict(args)}
    ids = module_ids(args)
    mid = ids[0]
    torch.manual_seed(args.seed)

    started_ray = _start_ray(args)
    algo = None
    try:
        import ray

        algo = build_config(args).build_algo()
        resources = {k: v for k, v in ray.cluster_resources().items() if k in ("CPU", "GPU", "memory")}
        print(f"run {run_name}: RLlib PPO on {args.game} ({args.policies} policies {ids}, "
              f"{args.num_env_runners} env runner(s), cluster {resources}), {args.total_timesteps} env steps",
              flush=True)
        state: dict[str, Any] = {"best": None, "best_step": None, "last_eval": None, "eval_time": 0.0,
                                 "next_eval": args.eval_every if args.eval_every else float("inf")}

        def evaluate_now(step: int) -> None:
            t0 = time.time()
            last = export_module(algo, mid, run_dir / "last.mazzo.zip", meta, args, step)
            agent = TrainedAgent(last, args.game, flags=args.env)  # the exported file plays
            rows = []
            for opp in args.eval_opponents:
                row = {"step": step, **head_to_head_row(args.game, agent, opp, args.eval_deals,
                                                        EVAL_SEED + args.seed, args.env, 1)}
                rows.append(row)
                append_csv(run_dir / "eval.csv", row)
            if state["best"] is None or rows[0]["mean"] > state["best"]:
                state["best"], state["best_step"] = rows[0]["mean"], step
                export_module(algo, mid, run_dir / "best.mazzo.zip", meta, args, step)
            state["last_eval"] = step
            state["next_eval"] = step + args.eval_every if args.eval_every else float("inf")
            state["eval_time"] += time.time() - t0
            print(f"step {step}: " + ", ".join(f"vs {r['opponent']} {r['mean']:+.3f}" for r in rows), flush=True)

        started, train_time, step = time.time(), 0.0, 0
        if args.eval_every:
            evaluate_now(0)
        while step < args.total_timesteps:
            t0 = time.time()
            result = algo.train()
            elapsed = time.time() - t0
            train_time += elapsed
            before, row = step, _metrics_row(result, mid, started, 0.0)
            step = row["step"]
            row["fps"] = round((step - before) / elapsed, 1) if elapsed > 0 else 0.0
            append_csv(run_dir / "metrics.csv", row)
            print(f"iteration {row['iteration']}: step {step}, return {row['ep_return_mean']}, "
                  f"{row['fps']} steps/s, snapshots {row['snapshots']}", flush=True)
            if step >= state["next_eval"]:
                evaluate_now(step)
        if state["last_eval"] != step:
            evaluate_now(step)
        for i, m in enumerate(ids if args.policies == "per_seat" else []):
            export_module(algo, m, run_dir / f"seat_{i}.mazzo.zip", meta, args, step)
        if args.rllib_checkpoint:
            algo.save_to_path(str((run_dir / "rllib_checkpoint").resolve()))
        wall = round(time.time() - started, 1)
    finally:
        if algo is not None:
            algo.stop()
        if started_ray:
            import ray

            ray.shutdown()
    timing = {"wall_time": wall, "segment_time": wall, "segments": 1, "from_step": 0, "to_step": step,
              "resumed_from": None, "train_time": round(train_time, 1), "eval_time": round(state["eval_time"], 1),
              "learner_steps_per_s": round(step / train_time, 1) if train_time else None}

    # -- final evaluation of best.mazzo.zip on fresh deals, through the AEC env --------------------------------
    best = TrainedAgent(run_dir / "best.mazzo.zip", args.game, flags=args.env)
    final: dict[str, Any] = {"checkpoint": str(run_dir / "best.mazzo.zip"), "best_step": state["best_step"],
                             "rows": []}
    for opp in args.eval_opponents:
        row = head_to_head_row(args.game, best, opp, args.final_deals, FINAL_SEED + args.seed, args.env, 1)
        if args.reference_levels:
            for ref in ("heuristic", "random"):
                r = head_to_head_row(args.game, ref, opp, args.final_deals, FINAL_SEED + args.seed, args.env,
                                     args.eval_workers)
                row[f"{ref}_mean"], row[f"{ref}_low"], row[f"{ref}_high"] = r["mean"], r["low"], r["high"]
        final["rows"].append(row)
    final["timing"] = timing
    final["trainer"] = {"rllib": _version("ray"), "gymnasium": _version("gymnasium"), "module": mid,
                        "policies": args.policies, "num_env_runners": args.num_env_runners, "address": args.address}
    (run_dir / "final_eval.json").write_text(json.dumps(final, indent=1))
    shown = {**to_dict(args), "opponents": "self-play" + (" and frozen snapshots" if args.selfplay else "")
             + f" ({args.policies} policies, RLlib)"}
    report = write_report(run_dir, shown, final, command=f"{prog} " + " ".join(argv))
    text = report.read_text().replace("`best.zip`, `last.zip`: Stable-Baselines3 run files for `--resume`)",
                                      "exported from RLlib's module by train/rllib.py)")
    report.write_text(text)
    print(text, flush=True)
    print(f"run directory: {run_dir}", flush=True)
    return run_dir


def _version(name: str) -> str | None:
    from importlib.metadata import PackageNotFoundError, version

    try:
        return version(name)
    except PackageNotFoundError:
        return None


def cli() -> None:
    """Entry point: clear one-line errors for bad configs."""
    try:
        main()
    except (ConfigError, FileNotFoundError) as e:
        print(f"error: {e}", file=sys.stderr)
        raise SystemExit(2) from None


if __name__ == "__main__":
    cli()
