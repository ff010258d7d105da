"""The batched trainer's ``Args`` (``train/args.py``'s ``PPOArgs`` plus the engine's and the rollout's keys) and
their checks."""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

from agents.rows import make_opponent, opponent_specs
from envs.core.errors import ConfigError
from train.args import PPOArgs, check_activation, check_agents, check_ints, check_ppo, check_ranges
from train.runs import NUMERICS

__all__ = ["Args", "check_args", "SEAT_MODES", "SAMPLING"]

SEAT_MODES = ("random", "rotate")
SAMPLING = ("gumbel", "inverse_cdf")


@dataclass
class Args(PPOArgs):
    exp_name: str = "ppo_batched"
    env: dict = field(default_factory=dict)
    """game flags, the keywords of the game's env() and vector_env() (e.g. {num_players: 4, episode: hand})"""
    trainer: str = "batched"
    total_timesteps: int = 3_000_000
    """learner decisions to collect in total (training stops at the first rollout boundary at or past it)"""
    num_envs: int = 256
    """games stepped together by the batched engine"""
    num_steps: int = 64
    """engine steps per rollout (each advances every game by one decision, the learner's or an opponent's)"""

    all_seats_share: float = 0.0
    """share of games in which the current policy plays every seat (self-play: every decision is a learner sample)"""
    seat: str | int = "random"
    """the learner's seat in the other games: 'random' (drawn per game), 'rotate' (next seat each game) or a seat number"""
    opponents: str | list = "random"
    """opponents at the other seats: a spec, a comma-separated string or a list (random, heuristic, heuristic-python, ppo:PATH, pretrained:GAME), drawn uniformly per seat and game"""
    snapshot_every: int = 200_000

    anneal_lr: bool = False
    """decay the learning rate linearly to 0 at total_timesteps"""
    n_epochs: int = 1
    minibatch_size: int = 512
    """samples per gradient step (the last minibatch of an epoch takes the remainder)"""
    norm_adv: bool = True
    """normalise advantages per minibatch"""
    vf_coef: float = 0.5
    """value loss coefficient (the value loss is the mean squared error)"""
    max_grad_norm: float = 0.5
    """gradient clipping norm (actor and critic together)"""
    target_kl: float | None = None
    """stop a rollout's epochs early when the approximate KL exceeds this (null: never)"""
    activation: str = "Tanh"
    """activation after every hidden layer: Tanh, ReLU, LeakyReLU, ELU, GELU, SiLU, Sigmoid"""

    bc_episodes: int = 0
    """warm start: episodes on which bc_teacher plays every seat (on the batched engine), to imitate before PPO (0: no warm start)"""
    bc_teacher: str = "heuristic"
    """the opponent spec imitated by the warm start (heuristic: the numba port when there is one)"""

    eval_every: int = 1_000_000

    resume: str | None = None
    """continue a batched run from its checkpoint: runs/<run>/last.mazzo.zip (the training state is read from last_state.zip beside it; JSON and arrays, never a pickle). A new run folder is made beside it"""
    sampling: str = "gumbel"
    """how sampled actions are drawn: 'gumbel' (Gumbel-max) or 'inverse_cdf' (faster; another run for the same seed)"""
    numerics: str = "portable"
    """'portable': MKL's compatible kernels, the same run on any x86-64 CPU (~1.5x the CPU time); 'fast': MKL's AVX2 kernels, the same run on the same CPU model only (train/runs.py NUMERICS)"""
    stack_first_layers: bool = False
    """run the actor's and the critic's first layers as one matrix product (faster; other rounding, another run)"""
    progress: bool = True
    """print a progress line per rollout on a terminal"""


def check_args(args: Args) -> dict[str, Any]:
    """Validate everything before training; returns the checkpoint metadata of this setup."""
    if args.numerics not in NUMERICS:
        raise ConfigError(f"invalid value {args.numerics!r} for 'numerics'; allowed: {', '.join(map(repr, NUMERICS))}")
    if args.sampling not in SAMPLING:
        raise ConfigError(f"invalid value {args.sampling!r} for 'sampling'; allowed: 'gumbel', 'inverse_cdf'")
    _, _, meta = check_ppo(args, seats=SEAT_MODES)
    check_ints(args, ("num_envs", "num_steps", "minibatch_size"), 1)
    check_ranges(args, (("all_seats_share", "[0, 1]", lambda v: 0 <= v <= 1),))
    if args.target_kl is not None and not args.target_kl > 0:
        raise ConfigError(f"invalid value {args.target_kl!r} for 'target_kl'; allowed: a number > 0 or null")
    check_activation(args.activation)
    for spec in opponent_specs(args.opponents):
        make_opponent(spec, args.game, args.env, 0)  # ConfigError for an unknown spec or a bad checkpoint
    if args.bc_episodes:
        make_opponent(args.bc_teacher, args.game, args.env, 0)  # the teacher plays as an OpponentPolicy
    check_agents(args.eval_opponents, args.game)
    return meta
