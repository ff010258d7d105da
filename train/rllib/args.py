"""The RLlib trainer's ``Args`` (``train/args.py``'s ``BaseArgs`` plus RLlib's keys, under RLlib's names) and their
checks (no Ray needed)."""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

from envs.core.errors import ConfigError
from envs.registry import game_spec
from train.args import BaseArgs, check_activation, check_agents, check_base, check_ints, check_ranges

__all__ = ["Args", "check_args", "module_ids", "POLICY_MODES", "MAIN"]

POLICY_MODES = ("shared", "per_seat")
#: the module every seat plays with ``policies: shared`` (``train/rllib/selfplay.py``)
MAIN = "main"


@dataclass
class Args(BaseArgs):
    exp_name: str = "rllib"
    trainer: str = "rllib"
    total_timesteps: int = 500_000
    """env steps (decisions, one seat acts per step) to sample in total; training stops at the first iteration past it"""
    reward_scale: float = 1.0
    """rewards are multiplied by this for training (metrics and evaluations use game units)"""
    net_arch: list = field(default_factory=lambda: [64, 64])

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
    activation: str = "Tanh"
    """activation after every hidden layer: Tanh, ReLU, LeakyReLU, ELU, GELU, SiLU, Sigmoid"""

    eval_every: int = 100_000
    """env steps between evaluations (and last-checkpoint exports); 0 evaluates only at the end"""
    eval_deals: int = 50
    final_deals: int = 200
    rllib_checkpoint: bool = False
    """also save RLlib's own checkpoint (Algorithm.save_to_path) in rllib_checkpoint/ at the end"""


RANGES = (("clip_param", "(0, 10]", lambda v: 0 < v <= 10), ("entropy_coeff", "[0, 10]", lambda v: 0 <= v <= 10),
          ("vf_loss_coeff", "[0, 100]", lambda v: 0 <= v <= 100), ("grad_clip", "(0, 1e6]", lambda v: 0 < v <= 1e6),
          ("sample_timeout_s", "(0, 1e6]", lambda v: 0 < v <= 1e6),
          ("vf_clip_param", "(0, 1e9]", lambda v: 0 < v <= 1e9), ("kl_coeff", "[0, 100]", lambda v: 0 <= v <= 100))


def check_args(args: Args) -> dict[str, Any]:
    """Validate everything before Ray starts; returns the checkpoint metadata of this setup."""
    _, _, meta = check_base(args)
    check_ints(args, ("num_envs_per_env_runner", "train_batch_size", "minibatch_size", "num_epochs"), 1)
    check_ints(args, ("num_env_runners",), 0)
    if args.num_cpus is not None and (isinstance(args.num_cpus, bool) or args.num_cpus < 1):
        raise ConfigError(f"invalid value {args.num_cpus!r} for 'num_cpus'; allowed: an int >= 1 or null")
    r = args.rollout_fragment_length
    if not (r == "auto" or (isinstance(r, int) and not isinstance(r, bool) and r >= 1)):
        raise ConfigError(f"invalid value {r!r} for 'rollout_fragment_length'; allowed: 'auto' or an int >= 1")
    check_ranges(args, RANGES)
    if args.policies not in POLICY_MODES:
        raise ConfigError(f"invalid value {args.policies!r} for 'policies'; allowed: {', '.join(POLICY_MODES)}")
    if args.policies == "per_seat" and args.selfplay:
        raise ConfigError("'selfplay' (the snapshot pool) needs policies: shared; set selfplay: false for per_seat")
    check_activation(args.activation)
    check_agents(args.eval_opponents, args.game)
    if args.address is not None and not isinstance(args.address, str):
        raise ConfigError(f"invalid value {args.address!r} for 'address'; allowed: null, 'auto' or 'HOST:PORT'")
    return meta


def module_ids(args: Args) -> list[str]:
    """The trained modules: ``["main"]`` or ``["seat_0", ..., "seat_{n-1}"]``."""
    if args.policies == "shared":
        return [MAIN]
    return [f"seat_{i}" for i in range(game_spec(args.game).num_players(args.env))]
