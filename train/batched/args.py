"""The batched trainer's ``Args`` (``train/args.py``'s ``PPOArgs`` plus the engine's and the rollout's keys) and
their checks."""

from __future__ import annotations

import hashlib
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from agents.rows import make_opponent, opponent_specs
from envs.core.errors import ConfigError
from train.args import PPOArgs, check_activation, check_agents, check_ints, check_ppo, check_ranges
from train.runs import NUMERICS

__all__ = ["Args", "check_args", "check_numerics", "check_init_from", "SEAT_MODES", "SAMPLING"]

SEAT_MODES = ("random", "rotate")
SAMPLING = ("gumbel", "inverse_cdf")
ALGOS = ("ppo", "dmc")
CRITICS = ("observation", "oracle")
OPPONENT_SAMPLING = ("uniform", "pfsp")
OPPONENT_DRAWS = ("seat", "table")


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
    algo: str = "ppo"
    """the algorithm: 'ppo' (train/batched/ppo.py) or 'dmc' (Deep Monte-Carlo, train/batched/dmc.py: a Q-network on Monte-Carlo returns, epsilon-greedy)"""
    critic: str = "observation"
    """PPO's critic: 'observation' (reads what the learner's seat sees) or 'oracle' (also every hidden card: the engine's privileged vector; training only, checkpoints keep the actor alone)"""
    epsilon: float = 0.01
    """dmc: the share of exploratory decisions (a uniformly random legal action)"""
    opponent_sampling: str = "uniform"
    """how opponent seats draw from the pool: 'uniform' (the opponents specs uniformly, snapshots with snapshot_share) or 'pfsp' (a league: prioritized fictitious self-play over the anchors and snapshots, train/batched/league.py)"""
    pfsp_power: float = 2.0
    """pfsp: a member's draw weight is (1 - p) ** pfsp_power + pfsp_floor, p the newest snapshot's win rate against it"""
    pfsp_floor: float = 0.05
    """pfsp: the weight every member in the pool keeps"""
    league_games: int = 512
    """pfsp: batched games per match of the payoff matrix (each pair of members, both ways, when a snapshot joins)"""
    checkpoint_at: list = field(default_factory=list)
    """learner steps at which to keep a checkpoint, checkpoints/step_<N>.mazzo.zip (the first rollout boundary at or past each)"""

    all_seats_share: float = 0.0
    """share of games in which the current policy plays every seat (self-play: every decision is a learner sample)"""
    seat: str | int = "random"
    """the learner's seat in the other games: 'random' (drawn per game), 'rotate' (next seat each game) or a seat number"""
    opponents: str | list = "random"
    """opponents at the other seats: a spec, a comma-separated string or a list (random, heuristic, heuristic-python, heuristic-v1, heuristic-overbid[:SHIFT] and heuristic-seer[:SHIFT] in Briscola, plain, ppo:PATH, pretrained:GAME; agents.rows), drawn uniformly per seat and game (per game with opponent_draw: table)"""
    opponent_draw: str = "seat"
    """'seat': each opponent seat draws its own opponent; 'table': one draw per game, the same opponent at every opponent seat of it (the learner meets each field unmixed, e.g. all seers or all heuristics)"""
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

    init_from: str | None = None
    """start the actor from a safe checkpoint instead of a fresh network (a fine-tune, or a run continued in a new setup): 'ppo:PATH', 'pretrained:GAME' or a path; its game, flags, net_arch and activation must be this run's. The critic, the optimizer and the counters start afresh (see critic_warmup)"""
    critic_warmup: int = 0
    """learner steps at the start of the run in which only the critic learns (the actor stays as it is): a fresh critic of an init_from actor fits its values before the policy follows its advantages"""

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
    check_numerics(args)
    if args.sampling not in SAMPLING:
        raise ConfigError(f"invalid value {args.sampling!r} for 'sampling'; allowed: 'gumbel', 'inverse_cdf'")
    _, _, meta = check_ppo(args, seats=SEAT_MODES)
    check_ints(args, ("num_envs", "num_steps", "minibatch_size"), 1)
    check_ranges(args, (("all_seats_share", "[0, 1]", lambda v: 0 <= v <= 1),))
    if args.target_kl is not None and not args.target_kl > 0:
        raise ConfigError(f"invalid value {args.target_kl!r} for 'target_kl'; allowed: a number > 0 or null")
    check_activation(args.activation)
    _check_algorithm(args)
    for spec in opponent_specs(args.opponents):
        make_opponent(spec, args.game, args.env, 0)  # ConfigError for an unknown spec or a bad checkpoint
    if args.bc_episodes:
        make_opponent(args.bc_teacher, args.game, args.env, 0)  # the teacher plays as an OpponentPolicy
    check_agents(args.eval_opponents, args.game)
    if args.init_from is not None:  # recorded: a spec like pretrained:GAME names whatever file is shipped today
        start = check_init_from(args)
        meta["init_from"] = {"spec": args.init_from, "file": start.path,
                             "sha256": hashlib.sha256(Path(start.path).read_bytes()).hexdigest()}
    return meta


def check_numerics(args: Args) -> None:
    """``numerics`` one of ``NUMERICS`` (checked first: the run pins it before anything loads torch)."""
    if args.numerics not in NUMERICS:
        raise ConfigError(f"invalid value {args.numerics!r} for 'numerics'; allowed: {', '.join(map(repr, NUMERICS))}")


def _check_algorithm(args: Args) -> None:
    """The keys of the algorithm, the critic and the league."""
    for key, allowed in (("algo", ALGOS), ("critic", CRITICS), ("opponent_sampling", OPPONENT_SAMPLING),
                         ("opponent_draw", OPPONENT_DRAWS)):
        if getattr(args, key) not in allowed:
            raise ConfigError(f"invalid value {getattr(args, key)!r} for '{key}'; allowed: "
                              f"{', '.join(map(repr, allowed))}")
    check_ranges(args, (("epsilon", "[0, 1]", lambda v: 0 <= v <= 1), ("pfsp_power", "[0, 100]", lambda v: 0 <= v <= 100),
                        ("pfsp_floor", "(0, 1e6]", lambda v: 0 < v <= 1e6)))
    check_ints(args, ("league_games",), 1)
    check_ints(args, ("critic_warmup",), 0)
    if args.critic == "oracle" and args.algo != "ppo":
        raise ConfigError(f"'critic: oracle' is PPO's (algo: ppo); algo {args.algo!r} has no critic")
    if args.critic == "oracle" and args.stack_first_layers:
        raise ConfigError("'stack_first_layers: true' needs the actor and the critic to read the same input; "
                          "the oracle critic also reads the privileged vector (set one of them off)")
    if args.algo == "dmc" and args.bc_episodes:
        raise ConfigError("'bc_episodes' (the warm start by imitation) fits a policy's logits, and algo 'dmc' "
                          "trains Q-values: set bc_episodes: 0, or use algo: ppo")
    if args.opponent_sampling == "pfsp" and not args.selfplay:
        raise ConfigError("'opponent_sampling: pfsp' draws from a pool of snapshots: it needs 'selfplay: true'")
    if args.critic_warmup and args.algo != "ppo":
        raise ConfigError(f"'critic_warmup' is PPO's (algo: ppo); algo {args.algo!r} has no critic")
    if not isinstance(args.checkpoint_at, list) or not all(
            isinstance(v, int) and not isinstance(v, bool) and v > 0 for v in args.checkpoint_at):
        raise ConfigError(f"invalid value {args.checkpoint_at!r} for 'checkpoint_at'; allowed: a list of ints > 0")


def init_spec(init_from: str) -> str:
    """The agent spec of ``init_from`` (a bare path is ``ppo:PATH``)."""
    return init_from if init_from.startswith(("ppo:", "pretrained:")) else f"ppo:{init_from}"


def check_init_from(args: Args) -> Any:
    """The player ``init_from`` names (a ``TrainedAgent``: ``.actor``, ``.path``), loaded by the safe loader (which
    refuses another game, other flags or another observation shape), checked against this run's network and
    algorithm; ``ConfigError`` saying what differs."""
    from agents import make_agent

    if not isinstance(args.init_from, str) or not args.init_from:
        raise ConfigError(f"invalid value {args.init_from!r} for 'init_from'; allowed: 'ppo:PATH', "
                          "'pretrained:GAME', a checkpoint path or null")
    if args.algo != "ppo":
        raise ConfigError(f"'init_from' starts PPO's actor (algo: ppo); algo {args.algo!r} trains Q-values")
    if args.bc_episodes:
        raise ConfigError("'init_from' and 'bc_episodes' both set the actor's first weights: set bc_episodes: 0 "
                          "to start from the checkpoint, or init_from: null to imitate bc_teacher")
    agent = make_agent(init_spec(args.init_from), args.game, flags=dict(args.env))
    net = agent.meta["network"]
    if list(net["pi"]) != list(args.net_arch) or net["activation"] != args.activation:
        raise ConfigError(f"init_from {args.init_from!r} is a {net['pi']} {net['activation']} network; this run's "
                          f"net_arch is {list(args.net_arch)} with activation {args.activation!r}: set them to the "
                          "checkpoint's")
    if agent.meta.get("outputs") == "q_values":
        raise ConfigError(f"init_from {args.init_from!r} is a Q-network (algo: dmc); PPO's actor starts from logits")
    return agent
