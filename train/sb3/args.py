"""The SB3 trainer's ``Args`` (``train/args.py``'s ``PPOArgs`` plus the vector env's and SB3's rollout keys) and
their checks."""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

from agents.rows import opponent_specs
from envs.core.errors import ConfigError
from train.args import PPOArgs, check_agents, check_ints, check_ppo

__all__ = ["Args", "check_args", "ENV_KEYS"]

#: Args that define the training envs: a resume restores the envs' saved state only if none changed.
ENV_KEYS = ("game", "env", "opponents", "seat", "reward_scale", "n_envs", "snapshot_share", "max_snapshots")


@dataclass
class Args(PPOArgs):
    exp_name: str = "ppo"
    trainer: str = "sb3"
    total_timesteps: int = 200_000
    """learner decisions to train for in total (a resumed run counts the steps already done); rounded up to whole rollouts"""
    net_arch: list = field(default_factory=lambda: [256, 256])
    """hidden layer sizes of the policy and of the value network (separate networks)"""
    n_envs: int = 4
    """parallel environments"""
    vec_env: str = "dummy"
    """'dummy' (all envs in this process) or 'subproc' (one process per env)"""
    n_steps: int = 256
    """steps per environment per rollout"""
    batch_size: int = 256
    """minibatch size"""
    resume: str | None = None
    """SB3 run file to continue training from (runs/<run>/last.zip); it is unpickled: trusted files only (your own runs)"""
    progress: bool = True
    """show a progress bar"""


def check_args(args: Args) -> dict[str, Any]:
    """Validate everything before training; returns the checkpoint metadata of this setup."""
    _, _, meta = check_ppo(args)
    check_ints(args, ("n_envs", "n_steps", "batch_size"), 1)
    if args.vec_env not in ("dummy", "subproc"):
        raise ConfigError(f"invalid value {args.vec_env!r} for 'vec_env'; allowed: 'dummy', 'subproc'")
    check_agents([*opponent_specs(args.opponents), *args.eval_opponents,
                  *([args.bc_teacher] if args.bc_episodes else [])], args.game)
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
