"""Train a card-playing agent with PPO on the batched engines (``vector_env``): CleanRL style, one file.

    python -m train.ppo --config configs/briscola5/ppo_batched.yaml        # `engine: batched` dispatches here
    python -m train.ppo_batched --config configs/pigugnin/ppo_batched.yaml --seed 2 --total_timesteps 500000
    make train CONFIG=configs/picchetto/ppo_batched.yaml
    python -m train.ppo_batched --help                                     # every key, with its doc

The config file's keys are the fields of ``Args`` below (game flags under ``env:``; ``train/config.py``
reads them, any key can be overridden on the command line). ``num_envs`` games run in one batched
engine (``envs.<game>_v0.vector_env``); every engine step advances each game by one decision.

Who plays (``SeatAssigner``, in ``train/batched_rollout.py``): when a game starts, it is either a
self-play game (share ``all_seats_share``), where the current policy plays every seat and every
decision of every seat is a learner sample, or a game with the learner at one seat (``seat``: drawn
at random, rotating per game, or fixed) and an opponent at each other seat, drawn from ``opponents``
(and, with ``selfplay: true``, from frozen snapshots of the learner, share ``snapshot_share``).
Opponents act in batch through the ``OpponentPolicy`` interface of ``train/batched_opponents.py``
(``act(obs_rows, mask_rows) -> actions``): masked random, the heuristics (their numba ports,
``agents/batched/<game>.py``, or the Python agents row by row with ``heuristic-python``) and actor
networks (snapshots, checkpoints).

Credit assignment (``SeatRollout``, in ``train/batched_rollout.py``): a seat's rewards arrive in
``rewards[:, seat]`` at whatever step they are paid, usually while another seat acts (a trick or a
hand ends on someone else's card); each is added to that seat's latest decision in the game. Returns
and GAE run along each (game, seat)'s own sequence of decisions: the next state of a decision is the
seat's next decision, and the last decision of an episode (``terminated | truncated``; a truncation
is treated as an end) has no next value. A decision whose next one has not happened by the end of a
rollout is not complete: it is carried into the next rollout (with the rewards it has so far) and
trained there, so every learner decision is trained exactly once, with all its rewards (its
log-probability stays that of the policy that chose it). GAE is truncated where a sample's successor
is carried (bootstrapping from the successor's value, as CleanRL does at a rollout's end). A reward
paid to a seat before its first decision of an episode (no choice of the seat led to it) is not credited.

The actor is an MLP with a linear action head (``logits = action_net(policy_net(flatten(obs)))``, the
safe checkpoint's layout, ``agents/checkpoint.py``); the critic a separate MLP. Illegal logits are set
to ``-1e8`` (finite, so entropies stay free of NaN); actions are sampled with a seeded generator, by
Gumbel-max (``sampling: gumbel``, the default) or by inverse CDF (``sampling: inverse_cdf``, 5x faster to
draw). With ``stack_first_layers`` the first layers of the actor and the critic run as one matrix product
(``policy_and_value``): the same weights, one GEMM over the wide observation instead of two. Both options
change the floating-point path, hence the run: the defaults keep the published runs reproducible. Greedy evaluation plays the saved file through ``TrainedAgent`` (``make_agent("ppo:PATH")``).

Outputs, in ``runs/{game}__{exp_name}__{seed}__{unix time}/`` (those of ``train/ppo.py`` but its SB3 files):

| file | what |
|---|---|
| ``config.yaml`` | the resolved ``Args`` (rerun with ``--config`` on it) |
| ``tb/`` | TensorBoard scalars: ``rollout/ep_rew_mean``, ``rollout/ep_len_mean``, ``rollout/ep_rew_selfplay``, ``train/<metric>``, ``time/fps``, ``eval/vs_<opp>/mean`` and ``ci95`` |
| ``metrics.csv`` | one row per rollout: steps, episodes, mean training return (game units), losses, learner steps/s |
| ``eval.csv`` | one row per evaluation and opponent: mean, 95% CI, deals (``train.evaluate.head_to_head``) |
| ``best.mazzo.zip``, ``last.mazzo.zip`` | safe checkpoints to play (``make_agent("ppo:PATH", game)``) |
| ``last_state.zip`` | the training state of ``last.mazzo.zip``, for ``--resume`` (JSON and plain arrays; see below) |
| ``snapshots/`` | self-play snapshots, ``step_<n>.mazzo.zip`` |
| ``imitation.json`` | the warm start's figures, if any (``bc_episodes > 0``) |
| ``final_eval.json``, ``report.md``, ``learning_curve.png`` | as ``train/ppo.py`` writes them (``train/report.py``) |

``metrics.csv``'s ``ep_return_mean`` is the mean return of the learner's seat over its last 100
episodes against opponents (over self-play seats when every game is self-play, where a zero-sum game
averages 0); ``episodes`` counts finished games with a learner seat in them; ``fps`` is learner
decisions per second of the rollout and update of that row (the first one includes numba's compiling).

Reproducible: the same config and seed give the same numbers (metrics but wall times, eval.csv,
checkpoints), with the numerics pinned as ``train/ppo.py`` pins them (``PINNED_ENV``: threads, MKL's
and ATen's code paths) and the same ``torch_threads``.

Resuming (``--resume``):

    python -m train.ppo --config configs/briscola5/ppo_batched.yaml --resume runs/<run>/last.mazzo.zip --total_timesteps 6000000
    python -m train.ppo_batched --resume runs/<run>/last.mazzo.zip --total_timesteps 6000000   # config: the run's config.yaml

At every evaluation (every ``eval_every`` steps and at the end, always at a rollout boundary) the run
writes ``last_state.zip`` beside ``last.mazzo.zip``: a zip of ``state.json`` (format
``mazzo-batched-state/1``: the config, counters, the last 100 returns, Adam's hyperparameters, the
NumPy generators' states, the loop's best/next-evaluation bookkeeping, the snapshot pool's files) and
``arrays.npz`` (the actor's and critic's weights, Adam's moments and steps, the torch generators'
states, the engine's games with their random streams, the seat assignment, the decisions carried to
the next rollout, the episodes in progress). Loading reads JSON and ``np.load(allow_pickle=False)``:
nothing in the file can run code. A resume makes a new run folder beside the old one (which stays as
it was), copies ``metrics.csv`` and ``eval.csv`` up to the checkpoint's step, ``imitation.json``,
``best.mazzo.zip`` and the snapshot pool into it, skips the warm start, restores everything above and
goes on: a run stopped at a checkpoint and resumed gives the same metrics, evaluations and weights as
the same run never stopped (``tests/train/test_batched_resume.py``; with the same torch and pinned
numerics). ``total_timesteps`` may change (and ``eval_every``, ``final_deals``, ``reference_levels``,
``eval_workers``, ``progress``, ``runs_dir``, ``exp_name``); any other key that differs from the resumed
run's is refused with a ``ConfigError`` naming it (start a new run, e.g. against ``ppo:PATH``, for a new
setup). With ``anneal_lr`` a new ``total_timesteps`` changes the schedule from the checkpoint on.
A missing checkpoint, a checkpoint without ``last_state.zip`` beside it (``best.mazzo.zip``, a
snapshot, an SB3 run) and a damaged or foreign state file are clear errors. TensorBoard starts a new
``tb/`` in the new folder; ``metrics.csv``'s ``time`` and the report's wall time add up the segments.
"""

from __future__ import annotations

import collections
import json
import os
import random
import shutil
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

__all__ = ["Args", "check_args", "wants_batched", "opponent_specs", "build_actor", "build_critic", "BatchedPPO",
           "collect_demos", "pretrain", "main", "cli"]


@dataclass
class Args:
    exp_name: str = "ppo_batched"
    """experiment name: the second part of the run name {game}__{exp_name}__{seed}__{time}"""
    game: str = "briscola5"
    """the game: briscola5, pigugnin or picchetto"""
    env: dict = field(default_factory=dict)
    """game flags, the keywords of the game's env() and vector_env() (e.g. {num_players: 4, episode: hand})"""
    engine: str = "batched"
    """the trainer: 'batched' (this script; `python -m train.ppo` dispatches here when a config says so)"""
    seed: int = 1
    """seeds Python, NumPy, torch, the engine's deals, the seat draws and the opponents; evaluation deals derive from it"""
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
    reward_scale: float = 1.0
    """the learner's rewards are multiplied by this during training (reports use game units)"""
    selfplay: bool = False
    """add frozen snapshots of the learner to the opponents every snapshot_every steps"""
    snapshot_every: int = 200_000
    """learner steps between self-play snapshots"""
    snapshot_share: float = 0.5
    """share of opponent seats played by snapshots, once there are some"""
    max_snapshots: int = 5
    """snapshots kept in the pool (the newest replaces the oldest)"""

    learning_rate: float = 3.0e-4
    """Adam learning rate"""
    anneal_lr: bool = False
    """decay the learning rate linearly to 0 at total_timesteps"""
    n_epochs: int = 1
    """optimisation epochs per rollout"""
    minibatch_size: int = 512
    """samples per gradient step (the last minibatch of an epoch takes the remainder)"""
    gamma: float = 1.0
    """discount factor, per decision of the seat (card games are short and scored at the end)"""
    gae_lambda: float = 0.95
    """GAE lambda, along each seat's own decisions"""
    clip_range: float = 0.2
    """PPO clipping parameter"""
    norm_adv: bool = True
    """normalise advantages per minibatch"""
    ent_coef: float = 0.01
    """entropy bonus coefficient"""
    vf_coef: float = 0.5
    """value loss coefficient (the value loss is the mean squared error)"""
    max_grad_norm: float = 0.5
    """gradient clipping norm (actor and critic together)"""
    target_kl: float | None = None
    """stop a rollout's epochs early when the approximate KL exceeds this (null: never)"""
    net_arch: list = field(default_factory=lambda: [64, 64])
    """hidden layer sizes of the actor and of the critic (separate MLPs)"""
    activation: str = "Tanh"
    """activation after every hidden layer: Tanh, ReLU, LeakyReLU, ELU, GELU, SiLU, Sigmoid"""

    bc_episodes: int = 0
    """warm start: episodes on which bc_teacher plays every seat (on the batched engine), to imitate before PPO (0: no warm start)"""
    bc_teacher: str = "heuristic"
    """the opponent spec imitated by the warm start (heuristic: the numba port when there is one)"""
    bc_epochs: int = 5
    """passes over the warm start's decisions"""
    bc_lr: float = 1.0e-3
    """Adam learning rate of the warm start"""

    eval_every: int = 1_000_000
    """learner steps between evaluations (and last-checkpoint saves); 0 evaluates only at the start and the end"""
    eval_deals: int = 100
    """deals per periodic evaluation (each replayed with the learner at every seat)"""
    eval_opponents: list = field(default_factory=lambda: ["heuristic", "random"])
    """opponent specs of the evaluations; the first one picks the best checkpoint"""
    final_deals: int = 500
    """deals of the final evaluation of best.mazzo.zip (fresh deals, not those of the periodic evaluations)"""
    reference_levels: bool = True
    """also evaluate the heuristic and the random player in the learner's seat (the plot's reference lines)"""
    eval_workers: int = 1
    """worker processes of the reference evaluations"""

    resume: str | None = None
    """continue a batched run from its checkpoint: runs/<run>/last.mazzo.zip (the training state is read from last_state.zip beside it; JSON and arrays, never a pickle). A new run folder is made beside it"""
    runs_dir: str = "runs"
    """where run directories are created"""
    sampling: str = "gumbel"
    """how sampled actions are drawn: 'gumbel' (Gumbel-max) or 'inverse_cdf' (faster; another run for the same seed)"""
    stack_first_layers: bool = False
    """run the actor's and the critic's first layers as one matrix product (faster; other rounding, another run)"""
    torch_threads: int = 1
    """torch CPU threads (part of what a run's numbers depend on)"""
    progress: bool = True
    """print a progress line per rollout on a terminal"""


SEAT_MODES = ("random", "rotate")


def _read_engine(argv: list[str]) -> str | None:
    engine, config, resume = None, None, None
    for i, arg in enumerate(argv):
        key, eq, value = arg.partition("=")
        if key in ("--engine", "--config", "--resume"):
            value = value if eq else (argv[i + 1] if i + 1 < len(argv) else "")
            if key == "--engine":
                engine = value
            elif key == "--config":
                config = value
            else:
                resume = value
    if engine is None and config is None and resume:  # `--resume runs/<run>/last.mazzo.zip` alone
        try:
            resume_files(resume)
            return "batched"
        except (OSError, ConfigError):
            return None
    if engine is None and config:
        try:
            loaded = yaml.safe_load(Path(config).read_text())
        except (OSError, yaml.YAMLError):
            return None  # the caller's own parser reports it
        engine = loaded.get("engine") if isinstance(loaded, dict) else None
    return engine


def wants_batched(argv: list[str]) -> bool:
    """Whether a command line (``--config FILE`` with ``engine: batched``, or ``--engine batched``) asks for this trainer."""
    return _read_engine(argv) == "batched"


def check_args(args: Args) -> dict[str, Any]:
    """Validate everything before training; returns the checkpoint metadata of this setup."""
    from agents.checkpoint import ACTIVATIONS
    from agents.registry import make_agent
    from train.batched_opponents import make_opponent

    if args.engine != "batched":
        raise ConfigError(f"invalid value {args.engine!r} for 'engine'; allowed: 'batched' (train/ppo.py runs the "
                          "Stable-Baselines3 trainer for configs without it)")
    if args.sampling not in ("gumbel", "inverse_cdf"):
        raise ConfigError(f"invalid value {args.sampling!r} for 'sampling'; allowed: 'gumbel', 'inverse_cdf'")
    try:
        the_game = game_spec(args.game)
    except ConfigError:
        raise ConfigError(f"invalid value {args.game!r} for 'game'; allowed: {', '.join(GAMES)}") from None
    n = the_game.num_players(args.env)  # unknown or invalid flags raise ConfigError here (no env is built)
    for key in ("total_timesteps", "num_envs", "num_steps", "n_epochs", "minibatch_size", "eval_deals", "final_deals",
                "snapshot_every", "max_snapshots", "eval_workers", "torch_threads", "bc_epochs"):
        v = getattr(args, key)
        if isinstance(v, bool) or not isinstance(v, int) or v < 1:
            raise ConfigError(f"invalid value {v!r} for '{key}'; allowed: an int >= 1")
    for key in ("eval_every", "bc_episodes"):
        v = getattr(args, key)
        if isinstance(v, bool) or not isinstance(v, int) or v < 0:
            raise ConfigError(f"invalid value {v!r} for '{key}'; allowed: an int >= 0")
    ranges = (("gamma", "(0, 1]", lambda v: 0 < v <= 1), ("gae_lambda", "[0, 1]", lambda v: 0 <= v <= 1),
              ("all_seats_share", "[0, 1]", lambda v: 0 <= v <= 1), ("snapshot_share", "[0, 1]", lambda v: 0 <= v <= 1),
              ("clip_range", "(0, 10]", lambda v: 0 < v <= 10), ("learning_rate", "(0, 1]", lambda v: 0 < v <= 1),
              ("bc_lr", "(0, 1]", lambda v: 0 < v <= 1), ("ent_coef", "[0, 10]", lambda v: 0 <= v <= 10),
              ("vf_coef", "[0, 100]", lambda v: 0 <= v <= 100), ("max_grad_norm", "(0, 1e6]", lambda v: 0 < v <= 1e6),
              ("reward_scale", "(0, 1e6]", lambda v: 0 < v <= 1e6))
    for key, allowed, ok in ranges:
        if not ok(getattr(args, key)):
            raise ConfigError(f"invalid value {getattr(args, key)!r} for '{key}'; allowed: a number in {allowed}")
    if args.target_kl is not None and not args.target_kl > 0:
        raise ConfigError(f"invalid value {args.target_kl!r} for 'target_kl'; allowed: a number > 0 or null")
    if not (args.seat in SEAT_MODES or (isinstance(args.seat, int) and not isinstance(args.seat, bool)
                                        and 0 <= args.seat < n)):
        raise ConfigError(f"invalid value {args.seat!r} for 'seat'; allowed: 'random', 'rotate' or 0..{n - 1}")
    if not args.net_arch or not all(isinstance(h, int) and not isinstance(h, bool) and h > 0 for h in args.net_arch):
        raise ConfigError(f"invalid value {args.net_arch!r} for 'net_arch'; allowed: a non-empty list of ints > 0")
    if args.activation not in ACTIVATIONS:
        raise ConfigError(f"invalid value {args.activation!r} for 'activation'; allowed: {', '.join(ACTIVATIONS)}")
    if not args.eval_opponents:
        raise ConfigError("'eval_opponents' is empty; give at least one agent spec, e.g. [heuristic, random]")
    specs = opponent_specs(args.opponents)
    for spec in specs:
        make_opponent(spec, args.game, args.env, 0)  # ConfigError for an unknown spec or a bad checkpoint
    if args.bc_episodes:
        make_opponent(args.bc_teacher, args.game, args.env, 0)  # the teacher plays as an OpponentPolicy
    for spec in args.eval_opponents:
        try:
            make_agent(str(spec), args.game)
        except ImportError as e:
            raise ConfigError(f"agent {spec!r} is not available for {args.game}: {e}") from None
    return {"game": args.game, "flags": dict(args.env), "obs_shape": list(the_game.observation_shape(args.env)),
            "num_actions": the_game.num_actions}


def opponent_specs(opponents: Any) -> list[str]:
    """``opponents`` (a spec, ``"a,b"`` or a list) as a non-empty list of spec strings."""
    items = opponents.split(",") if isinstance(opponents, str) else opponents
    specs = [s.strip() for s in items if isinstance(s, str) and s.strip()] if isinstance(items, list) else []
    if not specs or (isinstance(items, list) and len(specs) != len(items)):
        raise ConfigError(f"invalid value {opponents!r} for 'opponents'; allowed: an agent spec, a comma-separated "
                          "string or a list of specs (random, heuristic, heuristic-python, ppo:PATH, pretrained:GAME)")
    return specs


# -- networks ------------------------------------------------------------------------------------------------


def _mlp(sizes: list[int], activation: str) -> Any:
    from torch import nn

    layers: list[Any] = []
    for a, b in zip(sizes[:-1], sizes[1:], strict=True):
        layers += [nn.Linear(a, b), getattr(nn, activation)()]
    return nn.Sequential(*layers)


def _init(layer: Any, gain: float) -> None:
    from torch import nn

    nn.init.orthogonal_(layer.weight, gain)
    nn.init.zeros_(layer.bias)


def build_actor(obs_size: int, num_actions: int, hidden: list[int], activation: str = "Tanh") -> Any:
    """``nn.Sequential(features=Flatten, policy_net=MLP, action_net=Linear)``: the safe checkpoint's actor."""
    from collections import OrderedDict

    from torch import nn

    policy_net = _mlp([obs_size, *hidden], activation)
    action_net = nn.Linear(hidden[-1] if hidden else obs_size, num_actions)
    for m in policy_net:
        if isinstance(m, nn.Linear):
            _init(m, 2**0.5)
    _init(action_net, 0.01)  # near-uniform start (CleanRL, SB3)
    return nn.Sequential(OrderedDict(features=nn.Flatten(), policy_net=policy_net, action_net=action_net))


def build_critic(obs_size: int, hidden: list[int], activation: str = "Tanh") -> Any:
    """A separate MLP to one value."""
    from torch import nn

    body = _mlp([obs_size, *hidden], activation)
    for m in body:
        if isinstance(m, nn.Linear):
            _init(m, 2**0.5)
    head = nn.Linear(hidden[-1] if hidden else obs_size, 1)
    _init(head, 1.0)
    return nn.Sequential(body, head)


def first_layers(actor: Any, critic: Any) -> tuple[Any, Any, int] | None:
    """The actor's and the critic's first linear layers stacked (weight, bias, actor width), or None
    for networks without a hidden layer. Call it under autograd in an update (gradients flow to both)."""
    import torch
    from torch import nn

    a, c = actor.policy_net[0], critic[0][0] if len(critic[0]) else None
    if not isinstance(a, nn.Linear) or not isinstance(c, nn.Linear):
        return None
    return torch.cat((a.weight, c.weight)), torch.cat((a.bias, c.bias)), a.out_features


def policy_and_value(actor: Any, critic: Any, x: Any, stacked: tuple[Any, Any, int] | None) -> tuple[Any, Any]:
    """``(actor(x), critic(x)[:, 0])``, with the two first layers as one product when ``stacked`` is given
    (``first_layers``): the observation is wide (1,169 floats in Briscola), so that layer is most of the cost."""
    import torch.nn.functional as F

    if stacked is None:
        return actor(x), critic(x)[:, 0]
    weight, bias, width = stacked
    h_actor, h_critic = F.linear(x, weight, bias).split((width, weight.shape[0] - width), 1)
    body, head = critic
    return actor.action_net(actor.policy_net[1:](h_actor)), head(body[1:](h_critic))[:, 0]


def inference_layers(net: Any) -> list[tuple[Any, Any, Any]] | None:
    """``net`` (the actor or the critic) as ``[(weight, bias, activation_)]``: the same ops as calling the module,
    without its per-call Python overhead, for the rollout's forward passes (``run_layers``). The activation is
    an in-place op (same values) or None; None for a network this does not know (then call the module)."""
    import torch
    from torch import nn

    inplace = {nn.Tanh: torch.tanh_, nn.ReLU: torch.relu_, nn.Sigmoid: torch.sigmoid_}
    mods = [m for m in net.modules() if not isinstance(m, (nn.Sequential, nn.Flatten))]
    layers: list[tuple[Any, Any, Any]] = []
    for m in mods:
        if isinstance(m, nn.Linear):
            layers.append((m.weight, m.bias, None))
        elif type(m) in inplace and layers and layers[-1][2] is None:
            layers[-1] = (layers[-1][0], layers[-1][1], inplace[type(m)])
        else:
            return None
    return layers


def run_layers(layers: list[tuple[Any, Any, Any]], x: Any) -> Any:
    import torch.nn.functional as F

    for weight, bias, act in layers:
        x = F.linear(x, weight, bias)
        if act is not None:
            act(x)
    return x


# -- the trainer -----------------------------------------------------------------------------------------------


class BatchedPPO:
    """The engine, the seats, the opponents, the networks and PPO: ``collect()`` a rollout, then ``update()``.

    ``timers`` accumulates wall seconds per part (``env``: engine steps, ``learner``: the networks in the
    rollout, ``opponents``: opponent decisions, of which there were ``opponent_decisions``, ``update``:
    GAE and the epochs; ``benchmarks/train_speed.py`` reads them). Seeds come from ``seeds`` (six ints, ``np.random.SeedSequence(args.seed)``).
    """

    def __init__(self, args: Args, seeds: np.ndarray):
        import torch

        from envs.registry import make_vector_env
        from train.batched_opponents import make_opponent
        from train.batched_rollout import SeatAssigner, SeatRollout

        self.args = args
        self.sample_gen = torch.Generator().manual_seed(int(seeds[0]))  # the learner's actions
        self.shuffle_gen = torch.Generator().manual_seed(int(seeds[1]))  # minibatch order
        self.opponent_seed = int(seeds[4])
        self.env = make_vector_env(args.game, args.num_envs, **args.env)
        self.env.copy_outputs = False  # the engine's own buffers: read before the next step
        self.env.reset(seed=int(seeds[3]))
        n, B, A, size = self.env.num_players, self.env.num_envs, self.env.num_actions, self.env.obs_size
        self.specs = opponent_specs(args.opponents)
        # slot 0: the learner; 1..len(specs): the opponents; then max_snapshots slots for self-play snapshots
        self.slots: list[Any] = [None] + [make_opponent(s, args.game, args.env, self.opponent_seed + 7919 * k)
                                          for k, s in enumerate(self.specs)] + [None] * args.max_snapshots
        self.seats = SeatAssigner(B, n, len(self.specs), args.max_snapshots, args.all_seats_share, args.seat,
                                  args.snapshot_share, np.random.default_rng(int(seeds[2])))
        self.actor = build_actor(size, A, list(args.net_arch), args.activation)
        self.critic = build_critic(size, list(args.net_arch), args.activation)
        self.params = [*self.actor.parameters(), *self.critic.parameters()]
        self.optimizer = torch.optim.Adam(self.params, lr=args.learning_rate, eps=1e-5, fused=True)
        self.buf = SeatRollout(B, n, size, A, args.num_steps)
        self.games = np.arange(B)
        self.actions = np.zeros(B, dtype=np.int64)
        self.ep_ret = np.zeros((B, n), dtype=np.float64)
        self.ep_dec = np.zeros((B, n), dtype=np.int64)
        self.returns_vs: collections.deque = collections.deque(maxlen=100)  # learner seats against opponents
        self.returns_sp: collections.deque = collections.deque(maxlen=100)  # seats of self-play games
        self.lengths: collections.deque = collections.deque(maxlen=100)
        self.global_step = self.episodes = 0
        self.timers: collections.defaultdict = collections.defaultdict(float)
        self.opponent_decisions = 0
        self.snapshot_files: dict[int, tuple[int, Path]] = {}  # slot -> (step, file) of the self-play pool

    def add_snapshot(self, path: Path, step: int, slot: int | None = None) -> None:
        """Put the safe checkpoint ``path`` (a frozen learner) in the self-play pool; it samples its policy.
        ``slot``: put it back where it was (a resume restores the pool's count and generators after)."""
        from agents.checkpoint import load_actor
        from train.batched_opponents import ActorRows

        frozen, _ = load_actor(path)
        if slot is None:
            slot = self.seats.add_snapshot()
        elif not 1 + len(self.specs) <= slot < len(self.slots):
            raise ConfigError(f"snapshot slot {slot} out of range for this config")
        self.slots[slot] = ActorRows(frozen, name=f"snapshot:{step}", greedy=False, sampling=self.args.sampling,
                                     seed=self.opponent_seed + 104729 * slot + step)
        self.snapshot_files[slot] = (step, Path(path))

    def collect(self) -> int:
        """``num_steps`` engine steps: the learner's rows through the networks, the others through their
        opponents; rewards credited per seat. Returns the learner decisions collected."""
        import torch

        from agents.checkpoint import HUGE_NEG
        from train.batched_opponents import SAMPLERS, gumbel_max_legal

        args, env, buf, seats, timers = self.args, self.env, self.buf, self.seats, self.timers
        games, actions, clock = self.games, self.actions, time.perf_counter
        everyone = args.all_seats_share == 1.0
        before = self.global_step
        with torch.inference_mode():
            # the weights do not change during a rollout
            stacked = first_layers(self.actor, self.critic) if args.stack_first_layers else None
            fast = None if stacked else (inference_layers(self.actor), inference_layers(self.critic))
            fast = fast if fast and None not in fast else None
            for _ in range(args.num_steps):
                t0 = clock()
                cur = env.current_player.copy()
                owner = seats.owner[games, cur]
                learner = games if everyone else np.flatnonzero(owner == 0)
                if len(learner):
                    s = buf.add(learner, cur[learner])
                    np.take(env.obs, learner, axis=0, out=buf.obs[s])
                    np.not_equal(np.take(env.mask, learner, axis=0), 0, out=buf.mask[s])
                    x, legal = torch.from_numpy(buf.obs[s]), torch.from_numpy(buf.mask[s])
                    if fast:  # the modules' ops without their call overhead: the same numbers
                        logits, value = run_layers(fast[0], x), run_layers(fast[1], x)[:, 0]
                    else:
                        logits, value = policy_and_value(self.actor, self.critic, x, stacked)
                    logits.masked_fill_(~legal, HUGE_NEG)
                    if args.sampling == "gumbel":  # gumbel_max's actions, drawn on the legal logits only
                        a = gumbel_max_legal(logits, legal, self.sample_gen)
                    else:
                        a = SAMPLERS[args.sampling](logits, self.sample_gen)
                    buf.act[s] = a.numpy()
                    buf.logp[s] = torch.log_softmax(logits, -1).gather(1, a[:, None])[:, 0].numpy()
                    buf.val[s] = value.numpy()
                    actions[learner] = buf.act[s]
                    self.ep_dec[learner, cur[learner]] += 1
                    self.global_step += len(learner)
                t1 = clock()
                if len(learner) < len(games):
                    others = np.flatnonzero(owner != 0)
                    self.opponent_decisions += len(others)
                    who = owner[others]
                    for slot in np.unique(who):
                        rows = others[who == slot]
                        actions[rows] = self.slots[slot].act(env.obs[rows], env.mask[rows])
                t2 = clock()
                _, _, rewards, terminated, truncated, _ = env.step(actions)
                t3 = clock()
                ended = terminated | truncated
                buf.credit(rewards * args.reward_scale if args.reward_scale != 1.0 else rewards, ended)
                self.ep_ret += rewards
                if ended.any():
                    self._episodes_end(np.flatnonzero(ended))
                timers["learner"] += t1 - t0
                timers["opponents"] += t2 - t1
                timers["env"] += t3 - t2
                timers["bookkeeping"] += clock() - t3
        return self.global_step - before

    def _episodes_end(self, done_games: np.ndarray) -> None:
        seats = self.seats
        for i in done_games:
            played = (seats.owner[i] == 0) & (self.ep_dec[i] > 0)  # learner seats that made a decision
            if played.any():
                self.episodes += 1
                (self.returns_sp if seats.selfplay[i] else self.returns_vs).extend(self.ep_ret[i, played].tolist())
                self.lengths.extend(self.ep_dec[i, played].tolist())
        self.ep_ret[done_games] = 0.0
        self.ep_dec[done_games] = 0
        seats.draw(done_games)

    def update(self) -> dict[str, float]:
        """GAE along each seat's decisions, then ``n_epochs`` of clipped PPO over the complete samples;
        the incomplete ones are carried to the next rollout. Returns the metrics (``METRIC_KEYS`` and
        ``samples``)."""
        import torch

        from agents.checkpoint import HUGE_NEG

        t0 = time.perf_counter()
        args, buf = self.args, self.buf
        if args.anneal_lr:
            self.optimizer.param_groups[0]["lr"] = args.learning_rate * max(1 - self.global_step / args.total_timesteps, 0)
        comp, adv, ret = buf.advantages(args.gamma, args.gae_lambda)
        idx = torch.from_numpy(np.flatnonzero(comp))
        obs_t, mask_t = torch.from_numpy(buf.obs), torch.from_numpy(buf.mask)
        act_t, logp_t = torch.from_numpy(buf.act), torch.from_numpy(buf.logp)
        adv_t, ret_t = torch.from_numpy(adv), torch.from_numpy(ret)
        rows = torch.index_select  # the same rows as obs_t[mb], 2.5x faster than advanced indexing
        sums: dict[str, float] = collections.defaultdict(float)
        batches = 0
        for _ in range(args.n_epochs):
            approx_kl = 0.0
            for mb in idx[torch.randperm(len(idx), generator=self.shuffle_gen)].split(args.minibatch_size):
                x = rows(obs_t, 0, mb)
                stacked = first_layers(self.actor, self.critic) if args.stack_first_layers else None
                logits, value = policy_and_value(self.actor, self.critic, x, stacked)
                logits = logits.masked_fill(~rows(mask_t, 0, mb), HUGE_NEG)
                logp_all = torch.log_softmax(logits, -1)
                newlogp = logp_all.gather(1, rows(act_t, 0, mb)[:, None])[:, 0]
                # masked: probability 0 times a finite log, no NaN; softmax, not exp(logp): exp's underflow
                # path on -1e8 is 50x slower
                entropy = -(torch.softmax(logits, -1) * logp_all).sum(-1).mean()
                logratio = newlogp - rows(logp_t, 0, mb)
                ratio = logratio.exp()
                mb_adv = rows(adv_t, 0, mb)
                if args.norm_adv and len(mb) > 1:
                    mb_adv = (mb_adv - mb_adv.mean()) / (mb_adv.std() + 1e-8)
                pg_loss = torch.max(-mb_adv * ratio, -mb_adv * ratio.clamp(1 - args.clip_range, 1 + args.clip_range)).mean()
                value_loss = ((value - rows(ret_t, 0, mb)) ** 2).mean()
                loss = pg_loss - args.ent_coef * entropy + args.vf_coef * value_loss
                self.optimizer.zero_grad()
                loss.backward()
                torch.nn.utils.clip_grad_norm_(self.params, args.max_grad_norm)
                self.optimizer.step()
                with torch.no_grad():
                    approx_kl = ((ratio - 1) - logratio).mean().item()
                    sums["clip_fraction"] += ((ratio - 1).abs() > args.clip_range).float().mean().item()
                sums["loss"] += loss.item()
                sums["policy_gradient_loss"] += pg_loss.item()
                sums["value_loss"] += value_loss.item()
                sums["entropy_loss"] += -entropy.item()
                sums["approx_kl"] += approx_kl
                batches += 1
            if args.target_kl is not None and approx_kl > args.target_kl:
                break
        metrics = {k: v / max(batches, 1) for k, v in sums.items()}
        var = float(np.var(ret[comp])) if comp.any() else 0.0
        values = buf.val[: buf.size][comp]
        metrics["explained_variance"] = 1.0 - float(np.var(ret[comp] - values)) / var if var > 0 else float("nan")
        metrics["samples"] = int(len(idx))
        buf.carry()
        self.timers["update"] += time.perf_counter() - t0
        return metrics

    # -- the training state, for --resume (``save_train_state`` / ``read_train_state``) ----------------------

    def get_state(self) -> tuple[dict[str, Any], dict[str, np.ndarray]]:
        """Everything the next rollouts depend on, at a rollout boundary, as JSON and arrays (copies).

        The networks, Adam's moments and steps, the generators (the learner's sampling, the minibatch
        order, the seat draws, every opponent's, torch's, NumPy's and Python's global ones), the engine's
        games with their random streams, the seats, the carried decisions and the episode counters."""
        import torch

        arrays: dict[str, np.ndarray] = {}
        for prefix, net in (("actor", self.actor), ("critic", self.critic)):
            for name, t in net.state_dict().items():
                arrays[f"{prefix}.{name}"] = t.detach().numpy().copy()
        opt = self.optimizer.state_dict()
        opt_keys = {}
        for pid, st in opt["state"].items():
            opt_keys[str(pid)] = sorted(st)
            for k, v in st.items():
                arrays[f"optim.{pid}.{k}"] = v.detach().numpy().copy()
        arrays["rng.sample"] = self.sample_gen.get_state().numpy().copy()
        arrays["rng.shuffle"] = self.shuffle_gen.get_state().numpy().copy()
        arrays["rng.torch"] = torch.get_rng_state().numpy().copy()
        np_state = np.random.get_state()
        arrays["rng.numpy"] = np.asarray(np_state[1]).copy()
        env = self.env
        for name, arr in env.state.items():
            arrays[f"env.state.{name}"] = arr.copy()
        for name in ("buf", "obs", "mask", "current_player", "rng"):
            arrays[f"env.{name}"] = getattr(env, name).copy()
        seats = self.seats
        for name in ("owner", "selfplay", "rotation"):
            arrays[f"seats.{name}"] = getattr(seats, name).copy()
        buf, c = self.buf, self.buf.size
        if buf.blocks not in ([], [(0, c)]):
            raise RuntimeError("the training state is taken at a rollout boundary (after update())")
        for name in ("obs", "mask", "act", "logp", "val", "rew"):
            arrays[f"buf.{name}"] = getattr(buf, name)[:c].copy()
        arrays["buf.last"] = buf.last.copy()
        arrays["ep_ret"], arrays["ep_dec"], arrays["actions"] = self.ep_ret.copy(), self.ep_dec.copy(), self.actions.copy()
        opponents: dict[str, Any] = {}
        for k, opp in enumerate(self.slots):
            gen = getattr(opp, "gen", None)
            if gen is not None:
                arrays[f"slot.{k}.gen"] = gen.get_state().numpy().copy()
            rng = _numpy_rng(opp)
            if rng is not None:
                opponents[str(k)] = rng.bit_generator.state
        state = {
            "global_step": self.global_step, "episodes": self.episodes, "opponent_decisions": self.opponent_decisions,
            "returns_vs": list(self.returns_vs), "returns_sp": list(self.returns_sp), "lengths": list(self.lengths),
            "optimizer": {"param_groups": opt["param_groups"], "state_keys": opt_keys},
            "numpy_rng": [np_state[0], int(np_state[2]), int(np_state[3]), float(np_state[4])],
            "python_rng": [random.getstate()[0], list(random.getstate()[1]), random.getstate()[2]],
            "seats": {"rng": seats.rng.bit_generator.state, "num_snapshots": seats.num_snapshots},
            "buffer_size": c, "opponents": opponents, "env_state_names": sorted(env.state),
        }
        return state, arrays

    def load_state(self, state: dict[str, Any], arrays: dict[str, np.ndarray], where: str = "the training state") -> None:
        """Restore ``get_state()``'s copy into this trainer, built from the same config (snapshots excepted:
        ``add_snapshot`` them first). A missing or misshapen part raises ``CheckpointError``."""
        import torch

        from agents.checkpoint import CheckpointError

        def take(name: str, like: np.ndarray | None = None) -> np.ndarray:
            if name not in arrays:
                raise CheckpointError(f"{where}: array {name!r} is missing")
            a = np.array(arrays[name])  # a writable copy
            if like is not None and (a.shape != like.shape or a.dtype != like.dtype):
                raise CheckpointError(f"{where}: array {name!r} is {a.dtype}{list(a.shape)}, this config needs "
                                      f"{like.dtype}{list(like.shape)} (another config or engine version?)")
            return a

        try:
            for prefix, net in (("actor", self.actor), ("critic", self.critic)):
                net.load_state_dict({name: torch.from_numpy(take(f"{prefix}.{name}", t.numpy()))
                                     for name, t in net.state_dict().items()})
            opt = state["optimizer"]
            groups = [{**g, "betas": tuple(g["betas"])} if "betas" in g else g for g in opt["param_groups"]]
            self.optimizer.load_state_dict({
                "state": {int(pid): {k: torch.from_numpy(take(f"optim.{pid}.{k}")) for k in keys}
                          for pid, keys in opt["state_keys"].items()},
                "param_groups": groups})
            self.sample_gen.set_state(torch.from_numpy(take("rng.sample")))
            self.shuffle_gen.set_state(torch.from_numpy(take("rng.shuffle")))
            torch.set_rng_state(torch.from_numpy(take("rng.torch")))
            name, pos, has_gauss, cached = state["numpy_rng"]
            np.random.set_state((name, take("rng.numpy"), pos, has_gauss, cached))
            version, internal, gauss = state["python_rng"]
            random.setstate((version, tuple(internal), gauss))
            env = self.env
            if state["env_state_names"] != sorted(env.state):
                raise CheckpointError(f"{where}: the engine's state arrays are {state['env_state_names']}, this "
                                      f"engine has {sorted(env.state)}")
            for name, arr in env.state.items():
                arr[...] = take(f"env.state.{name}", arr)
            for name in ("buf", "obs", "mask", "current_player", "rng"):
                getattr(env, name)[...] = take(f"env.{name}", getattr(env, name))
            env.rewards[:] = 0.0
            env.terminated[:] = False
            env.truncated[:] = False
            seats = self.seats
            for name in ("owner", "selfplay", "rotation"):
                getattr(seats, name)[...] = take(f"seats.{name}", getattr(seats, name))
            seats.rng.bit_generator.state = state["seats"]["rng"]
            seats.num_snapshots = int(state["seats"]["num_snapshots"])
            buf, c = self.buf, int(state["buffer_size"])
            if not 0 <= c <= len(buf.rew):
                raise CheckpointError(f"{where}: {c} carried decisions do not fit this config's rollout buffer")
            for name in ("obs", "mask", "act", "logp", "val", "rew"):
                getattr(buf, name)[:c] = take(f"buf.{name}", getattr(buf, name)[:c])
            buf.nxt[:c] = -1
            buf.done[:c] = False
            buf.last[...] = take("buf.last", buf.last)
            buf.size = c
            buf.blocks = [(0, c)] if c else []
            self.ep_ret[...] = take("ep_ret", self.ep_ret)
            self.ep_dec[...] = take("ep_dec", self.ep_dec)
            self.actions[...] = take("actions", self.actions)
            for k, opp in enumerate(self.slots):
                gen = getattr(opp, "gen", None)
                if gen is not None:
                    gen.set_state(torch.from_numpy(take(f"slot.{k}.gen")))
                rng = _numpy_rng(opp)
                if rng is not None:
                    rng.bit_generator.state = state["opponents"][str(k)]
            self.global_step, self.episodes = int(state["global_step"]), int(state["episodes"])
            self.opponent_decisions = int(state["opponent_decisions"])
            for dq, key in ((self.returns_vs, "returns_vs"), (self.returns_sp, "returns_sp"), (self.lengths, "lengths")):
                dq.clear()
                dq.extend(state[key])
        except CheckpointError:
            raise
        except (KeyError, TypeError, ValueError, RuntimeError, IndexError) as e:
            raise CheckpointError(f"{where} is damaged or from another config: {type(e).__name__}: {e}") from None

    def greedy_probe(self, rows: int = 8) -> tuple[Any, Any]:
        """Observations of the engine now (``rows`` games) and the actor's logits on them."""
        import torch

        x = torch.from_numpy(self.env.obs[:rows].copy())
        with torch.no_grad():
            return x, self.actor(x)


def _numpy_rng(opponent: Any) -> np.random.Generator | None:
    """The NumPy generator an opponent draws from (``MaskedRandom``; a Python agent in ``AgentRows``), if any."""
    for obj in (opponent, getattr(opponent, "agent", None)):
        rng = getattr(obj, "rng", None)
        if isinstance(rng, np.random.Generator):
            return rng
    return None


# -- the training state file (--resume) ------------------------------------------------------------------------

STATE_FORMAT = "mazzo-batched-state/1"
#: written beside last.mazzo.zip at every evaluation (and at the end)
STATE_NAME = "last_state.zip"
STATE_JSON, STATE_ARRAYS = "state.json", "arrays.npz"
MAX_STATE_JSON = 64 << 20
MAX_STATE_ARRAYS = 4 << 30
#: Args a resume may change: they do not change what is trained (everything else must be as in the run resumed)
RESUME_FREE = ("total_timesteps", "eval_every", "final_deals", "reference_levels", "eval_workers", "progress",
               "runs_dir", "exp_name", "resume")


def save_train_state(path: Path, state: dict[str, Any], arrays: dict[str, np.ndarray]) -> Path:
    """A zip of exactly ``state.json`` (UTF-8 JSON, ``format``: ``STATE_FORMAT``) and ``arrays.npz`` (NumPy's
    format, read back with ``allow_pickle=False``): nothing in it can run code when it is loaded."""
    import io
    import zipfile

    data = io.BytesIO()
    np.savez(data, **arrays)
    text = json.dumps({"format": STATE_FORMAT, **state}, allow_nan=True)
    path.parent.mkdir(parents=True, exist_ok=True)
    tmp = path.with_name(path.name + ".tmp")
    with zipfile.ZipFile(tmp, "w", zipfile.ZIP_STORED) as z:
        z.writestr(STATE_JSON, text.encode("utf-8"))
        z.writestr(STATE_ARRAYS, data.getvalue())
    os.replace(tmp, path)  # never a half-written state under the real name
    return path


def read_train_state(path: Path) -> tuple[dict[str, Any], dict[str, np.ndarray]]:
    """``save_train_state``'s JSON and arrays; ``CheckpointError`` for anything else (never unpickles)."""
    import io
    import zipfile

    from agents.checkpoint import CheckpointError

    try:
        with zipfile.ZipFile(path) as z:
            names = sorted(z.namelist())
            if names != sorted((STATE_JSON, STATE_ARRAYS)):
                raise CheckpointError(f"{path}: a training state holds exactly {STATE_JSON} and {STATE_ARRAYS}; "
                                      f"this file holds {', '.join(names) or 'nothing'}")
            sizes = {i.filename: i.file_size for i in z.infolist()}
            if sizes[STATE_JSON] > MAX_STATE_JSON or sizes[STATE_ARRAYS] > MAX_STATE_ARRAYS:
                raise CheckpointError(f"{path}: a member is larger than allowed")
            raw_json, raw_arrays = z.read(STATE_JSON), z.read(STATE_ARRAYS)
    except (zipfile.BadZipFile, OSError, EOFError) as e:
        raise CheckpointError(f"{path} is not a readable training state ({type(e).__name__}: {e})") from None
    try:
        state = json.loads(raw_json.decode("utf-8"))
    except (UnicodeDecodeError, json.JSONDecodeError) as e:
        raise CheckpointError(f"{path}: {STATE_JSON} is not JSON ({e})") from None
    if not isinstance(state, dict) or state.get("format") != STATE_FORMAT:
        got = state.get("format") if isinstance(state, dict) else type(state).__name__
        raise CheckpointError(f"{path}: unknown training state format {got!r}; expected {STATE_FORMAT!r}")
    try:
        with np.load(io.BytesIO(raw_arrays), allow_pickle=False) as npz:
            arrays = {k: npz[k] for k in npz.files}
    except (ValueError, OSError, EOFError, zipfile.BadZipFile) as e:  # an object array (a pickle) is a ValueError
        raise CheckpointError(f"{path}: {STATE_ARRAYS} is not a plain array archive ({e})") from None
    return state, arrays


def resume_files(resume: str) -> tuple[Path, Path]:
    """``(last.mazzo.zip, last_state.zip)`` of ``--resume`` (that checkpoint, its run folder or the state file)."""
    from agents.checkpoint import CheckpointError

    p = Path(resume)
    if p.is_dir():
        p = p / "last.mazzo.zip"
    elif p.name == STATE_NAME:
        p = p.with_name("last.mazzo.zip")
    if not p.is_file():
        raise FileNotFoundError(f"checkpoint not found: {resume!r} (--resume takes runs/<run>/last.mazzo.zip of a "
                                "batched run)")
    if not p.name.endswith(".mazzo.zip"):
        raise CheckpointError(f"{p} is not a batched run's checkpoint: --resume takes runs/<run>/last.mazzo.zip "
                              "(an SB3 run's last.zip resumes with a config without `engine: batched`)")
    state = p.with_name(p.name[: -len(".mazzo.zip")] + "_state.zip")
    if not state.is_file():
        raise CheckpointError(f"{p} has no {state.name} beside it, so its training state is unknown: --resume takes "
                              f"the {STATE_NAME.replace('_state', '.mazzo')} of a run of train/ppo_batched.py "
                              "(best.mazzo.zip and snapshots keep only the actor's weights)")
    return p, state


def _resume_argv(argv: list[str]) -> list[str]:
    """``--resume X`` without ``--config``: the resumed run's ``config.yaml`` is the config."""
    keys = [a.partition("=")[0] for a in argv]
    if "--resume" not in keys or "--config" in keys:
        return argv
    i = keys.index("--resume")
    value = argv[i].partition("=")[2] if "=" in argv[i] else (argv[i + 1] if i + 1 < len(argv) else "")
    try:
        checkpoint, _ = resume_files(value)
    except (OSError, ConfigError):
        return argv  # main reports it
    config = checkpoint.parent / "config.yaml"
    return ["--config", str(config), *argv] if config.is_file() else argv


def check_resume(args: Args) -> tuple[Path, dict[str, Any], dict[str, np.ndarray]]:
    """Read ``--resume``'s training state and check that this command continues the same training."""
    from agents.checkpoint import CheckpointError, read_metadata

    checkpoint, state_file = resume_files(str(args.resume))
    state, arrays = read_train_state(state_file)
    step = read_metadata(checkpoint).get("num_timesteps")
    if step != state.get("trainer", {}).get("global_step"):
        raise CheckpointError(f"{checkpoint} (step {step}) and {state_file} (step "
                              f"{state.get('trainer', {}).get('global_step')}) are not of the same moment of the run")
    old = state.get("config")
    if not isinstance(old, dict):
        raise CheckpointError(f"{state_file}: no config in it")
    new = json.loads(json.dumps(to_dict(args)))
    changed = [k for k in new if k not in RESUME_FREE and old.get(k) != new[k]]
    if changed:
        what = "; ".join(f"{k}: {old.get(k)!r} in that run, {new[k]!r} here" for k in changed)
        raise ConfigError(f"cannot resume from {checkpoint}: a resume continues the same training, and this command "
                          f"changes {what}. Only {', '.join(k for k in RESUME_FREE if k != 'resume')} may change "
                          "(start a new run, e.g. with opponents: ppo:PATH, for another setup)")
    return checkpoint, state, arrays


# -- the run ---------------------------------------------------------------------------------------------------


def collect_demos(game: str, teacher: str, flags: dict[str, Any], episodes: int, seed: int,
                  reward_scale: float = 1.0, num_envs: int = 256) -> Any:
    """The warm start's data: ``teacher`` at every seat of ``episodes`` games on the batched engine.

    The same ``train.imitation.Demonstrations`` as ``train.imitation.collect`` (every decision: the
    seat's observation, mask and action, and that seat's return of the episode times ``reward_scale``),
    but played by ``num_envs`` batched games with the teacher as an ``OpponentPolicy`` (the numba
    heuristic when there is one). Game ``i`` records its episodes ``i, i + num_envs, ...`` below
    ``episodes``, so exactly ``episodes`` episodes are kept; the same seed gives the same data.
    """
    from envs.registry import make_vector_env
    from train.batched_opponents import make_opponent
    from train.imitation import Demonstrations

    num_envs = max(1, min(num_envs, episodes))
    env = make_vector_env(game, num_envs, **flags)
    env.copy_outputs = False
    env.reset(seed=seed)
    player = make_opponent(teacher, game, flags, seed)
    episode = np.arange(num_envs)  # global episode number of the episode each game is playing
    ep_ret = np.zeros((num_envs, env.num_players))
    parts: list[tuple[np.ndarray, ...]] = []
    returns: dict[int, np.ndarray] = {}
    while (episode < episodes).any():
        cur = env.current_player.copy()
        rows = np.flatnonzero(episode < episodes)
        act = player.act(env.obs, env.mask)
        parts.append((env.obs[rows].copy(), env.mask[rows] != 0, act[rows], cur[rows], episode[rows]))
        _, _, rewards, terminated, truncated, _ = env.step(act)
        ep_ret += rewards
        for i in np.flatnonzero(terminated | truncated):
            returns[int(episode[i])] = ep_ret[i].copy()
            episode[i] += num_envs
            ep_ret[i] = 0.0
    obs, masks, actions, seats, eps = (np.concatenate(x) for x in zip(*parts, strict=True))
    ret = np.array([returns[e][s] for e, s in zip(eps.tolist(), seats.tolist(), strict=True)]) * reward_scale
    return Demonstrations(obs, masks, actions.astype(np.int64), ret.astype(np.float32), seats, eps)


def pretrain(actor: Any, critic: Any, demos: Any, *, epochs: int, lr: float, seed: int,
             batch_size: int = 512) -> dict[str, float]:
    """Warm start: masked cross-entropy to the teacher's actions (actor), MSE to the returns (critic)."""
    import torch

    from agents.checkpoint import HUGE_NEG

    gen = torch.Generator().manual_seed(seed)
    params = [*actor.parameters(), *critic.parameters()]
    opt = torch.optim.Adam(params, lr=lr)
    obs, mask = torch.as_tensor(demos.obs), torch.as_tensor(demos.masks)
    act, ret = torch.as_tensor(demos.actions), torch.as_tensor(demos.returns)
    n = len(act)
    stats: dict[str, float] = {}
    for _ in range(epochs):
        hits = ploss = vloss = 0.0
        for idx in torch.randperm(n, generator=gen).split(batch_size):
            x = torch.index_select(obs, 0, idx)  # once for both networks (2.5x faster than obs[idx])
            logits = actor(x).masked_fill(~torch.index_select(mask, 0, idx), HUGE_NEG)
            values = critic(x)[:, 0]
            target = act[idx]
            lp = torch.nn.functional.cross_entropy(logits, target)
            lv = torch.nn.functional.mse_loss(values, ret[idx])
            opt.zero_grad()
            (lp + 0.5 * lv).backward()
            torch.nn.utils.clip_grad_norm_(params, 1.0)
            opt.step()
            hits += float((logits.argmax(-1) == target).sum())
            ploss += lp.item() * len(idx)
            vloss += lv.item() * len(idx)
        stats = {"accuracy": hits / n, "policy_loss": ploss / n, "value_loss": vloss / n, "samples": n}
    return stats


def main(argv: list[str] | None = None, prog: str = "python -m train.ppo_batched") -> Path:
    argv = list(sys.argv[1:] if argv is None else argv)
    args = parse_args(Args, _resume_argv(argv), prog=prog)
    resumed = check_resume(args) if args.resume else None  # before anything is built: clear errors first
    meta = check_args(args)
    from train.runs import (
        EVAL_SEED,
        FINAL_SEED,
        METRIC_KEYS,
        PINNED_ENV,
        append_csv,
        head_to_head_row,
        new_run_dir,
        pin_numerics,
    )
    from train.runs import numerics as numerics_of

    preloaded = "torch" in sys.modules  # then the pins below may come too late (a notebook, a test)
    pin_numerics()

    # Heavy imports only after the config is known to be good.
    import torch
    from torch.utils.tensorboard import SummaryWriter

    from agents.checkpoint import save_actor
    from agents.trained import TrainedAgent
    from train.report import write_report

    if resumed:  # a new folder beside the run it continues (which stays as it was), with its curves so far
        from train.runs import carry_history

        origin = resumed[0].resolve().parent
        run_dir = new_run_dir(origin.parent, args)
        carry_history(origin, run_dir, int(resumed[1]["trainer"]["global_step"]), exact=True)
    else:
        run_dir = new_run_dir(Path(args.runs_dir), args)
    run_name = run_dir.name
    (run_dir / "config.yaml").write_text(yaml.safe_dump(to_dict(args), sort_keys=False))
    meta = {**meta, "run_name": run_name, "config": to_dict(args)}

    # -- seeding: the only place generators are seeded (the trainer derives its own from `seeds`) -------------
    seeds = np.random.SeedSequence(args.seed).generate_state(6)
    random.seed(args.seed)
    np.random.seed(args.seed)
    torch.manual_seed(args.seed)  # the networks' initial weights
    torch.set_num_threads(args.torch_threads)
    torch.use_deterministic_algorithms(True, warn_only=True)
    platform_info = {**numerics_of(torch), "pinned": not preloaded and all(os.environ.get(k) == v
                                                                           for k, v in PINNED_ENV.items())}
    if not platform_info["pinned"]:
        print(f"note: numerics not pinned (torch loaded before train.ppo_batched, or {', '.join(PINNED_ENV)} set "
              "otherwise): this run reproduces on this machine, not necessarily bit for bit on another CPU", flush=True)

    trainer = BatchedPPO(args, seeds)
    writer = SummaryWriter(str(run_dir / "tb"))
    if resumed:  # the snapshots into their slots, then everything else as it was at the checkpoint
        checkpoint, saved, arrays = resumed
        for snap in saved["snapshots"]:
            src, dst = origin / snap["file"], run_dir / snap["file"]
            if not src.is_file():
                from agents.checkpoint import CheckpointError

                raise CheckpointError(f"the self-play snapshot {src} of the resumed run's pool is missing")
            dst.parent.mkdir(parents=True, exist_ok=True)
            shutil.copy2(src, dst)
            trainer.add_snapshot(dst, int(snap["step"]), slot=int(snap["slot"]))
        done = int(saved["trainer"]["global_step"])
        for src in sorted((origin / "snapshots").glob("step_*.mazzo.zip")):  # those that left the pool, too
            step_of = src.name[len("step_"): -len(".mazzo.zip")]
            dst = run_dir / "snapshots" / src.name
            if step_of.isdigit() and int(step_of) <= done and not dst.exists():
                dst.parent.mkdir(parents=True, exist_ok=True)
                shutil.copy2(src, dst)
        trainer.load_state(saved["trainer"], arrays, where=str(checkpoint.with_name(STATE_NAME)))
        print(f"resumed {origin.name} at step {trainer.global_step}", flush=True)
    elif args.bc_episodes:  # warm start by imitation: the teacher's decisions on the batched engine
        t0 = time.time()
        bc_seed = int(seeds[5]) % 2**31
        demos = collect_demos(args.game, args.bc_teacher, args.env, args.bc_episodes, seed=bc_seed,
                              reward_scale=args.reward_scale)
        stats = pretrain(trainer.actor, trainer.critic, demos, epochs=args.bc_epochs, lr=args.bc_lr, seed=bc_seed)
        stats = {"teacher": args.bc_teacher, "episodes": args.bc_episodes, "seconds": round(time.time() - t0, 1),
                 **stats}
        (run_dir / "imitation.json").write_text(json.dumps(stats, indent=1))
        print(f"warm start: imitated {args.bc_teacher} on {stats['samples']} decisions, "
              f"accuracy {stats['accuracy']:.3f}", flush=True)

    # -- evaluation, checkpoints and self-play snapshots, at rollout boundaries ---------------------------------
    state: dict[str, Any] = {"best": None, "best_step": None, "next_eval": 0, "last_eval": None,
                             "next_snapshot": args.snapshot_every, "eval_time": 0.0, "train_time": 0.0,
                             "elapsed": 0.0, "segments": 1}
    if resumed:
        loop = resumed[1]["loop"]
        state.update({k: loop[k] for k in ("best", "best_step", "last_eval", "next_snapshot", "eval_time", "train_time",
                                           "elapsed")})
        state["segments"] = int(loop["segments"]) + 1
        state["next_eval"] = state["last_eval"] + args.eval_every if args.eval_every else float("inf")
    from_step = trainer.global_step

    def save(path: Path) -> Path:
        return save_actor(trainer.actor, path, meta, vf=list(args.net_arch), num_timesteps=trainer.global_step)

    def evaluate_now(step: int) -> None:
        t0 = time.time()
        agent = TrainedAgent(save(run_dir / "last.mazzo.zip"), args.game, flags=args.env)  # the saved file plays
        x, live = trainer.greedy_probe()
        with torch.no_grad():
            if not torch.equal(agent.actor(x), live):
                raise RuntimeError("the loaded last.mazzo.zip does not give the live actor's logits")
        rows = []
        for opp in args.eval_opponents:
            row = {"step": step, **head_to_head_row(args.game, agent, opp, args.eval_deals, EVAL_SEED + args.seed,
                                                    args.env, 1)}
            rows.append(row)
            append_csv(run_dir / "eval.csv", row)
            tag = opp.replace(":", "_").replace("/", "_")
            writer.add_scalar(f"eval/vs_{tag}/mean", row["mean"], step)
            if row["ci95"] is not None:
                writer.add_scalar(f"eval/vs_{tag}/ci95", row["ci95"], step)
        if state["best"] is None or rows[0]["mean"] > state["best"]:
            state["best"], state["best_step"] = rows[0]["mean"], step
            save(run_dir / "best.mazzo.zip")
        state["last_eval"] = step
        state["next_eval"] = step + args.eval_every if args.eval_every else float("inf")
        state["eval_time"] += time.time() - t0
        state["elapsed"] = time.time() - started
        save_state()
        print(f"step {step}: " + ", ".join(f"vs {r['opponent']} {r['mean']:+.3f}" for r in rows), flush=True)

    def save_state() -> None:
        """last_state.zip, beside last.mazzo.zip: what --resume needs to go on as if never stopped."""
        trainer_state, arrays = trainer.get_state()
        loop = {k: state[k] for k in ("best", "best_step", "last_eval", "next_snapshot", "eval_time", "train_time",
                                      "elapsed", "segments")}
        snaps = [{"slot": slot, "step": st, "file": str(path.relative_to(run_dir))}
                 for slot, (st, path) in sorted(trainer.snapshot_files.items())]
        save_train_state(run_dir / STATE_NAME, {"config": to_dict(args), "run_name": run_name, "trainer": trainer_state,
                                                "loop": loop, "snapshots": snaps}, arrays)

    # -- training loop ------------------------------------------------------------------------------------------
    started = time.time() - state["elapsed"]  # metrics.csv's time is cumulative over a resumed run's segments
    segment_started = time.time()
    interactive = args.progress and sys.stderr.isatty()
    print(f"run {run_name}: training {args.game} for {args.total_timesteps} learner steps in {args.num_envs} games, "
          f"every seat the learner's in {args.all_seats_share:.0%} of them, opponents {trainer.specs}", flush=True)
    while True:
        step = trainer.global_step
        if step >= state["next_eval"] or (step >= args.total_timesteps and state["last_eval"] != step):
            evaluate_now(step)  # at 0, every eval_every steps, and at the end
        if step >= args.total_timesteps:
            break
        if args.selfplay and step >= state["next_snapshot"]:
            trainer.add_snapshot(save(run_dir / "snapshots" / f"step_{step}.mazzo.zip"), step)
            state["next_snapshot"] = step + args.snapshot_every
        t0 = time.time()
        collected = trainer.collect()
        metrics = trainer.update()
        elapsed = time.time() - t0
        state["train_time"] += elapsed

        # log: metrics.csv (the report's columns first) and TensorBoard
        t = trainer
        shown = t.returns_vs if t.returns_vs or not t.returns_sp else t.returns_sp
        fps = collected / elapsed if elapsed > 0 else 0.0  # this rollout and update (the first one compiles)
        row = {"step": t.global_step, "episodes": t.episodes,
               "ep_return_mean": float(np.mean(shown)) if shown else "",  # game units (returns are unscaled)
               "ep_len_mean": float(np.mean(t.lengths)) if t.lengths else "",
               "time": round(time.time() - started, 2), **{k: metrics.get(k, float("nan")) for k in METRIC_KEYS},
               "ep_return_selfplay": float(np.mean(t.returns_sp)) if t.returns_sp else "",
               "samples": metrics["samples"], "fps": round(fps, 1)}
        append_csv(run_dir / "metrics.csv", row)
        if shown:
            writer.add_scalar("rollout/ep_rew_mean", row["ep_return_mean"], t.global_step)
            writer.add_scalar("rollout/ep_len_mean", row["ep_len_mean"], t.global_step)
        if t.returns_sp:
            writer.add_scalar("rollout/ep_rew_selfplay", row["ep_return_selfplay"], t.global_step)
        for k in METRIC_KEYS:
            writer.add_scalar(f"train/{k}", row[k], t.global_step)
        writer.add_scalar("train/learning_rate", t.optimizer.param_groups[0]["lr"], t.global_step)
        writer.add_scalar("time/fps", fps, t.global_step)
        if interactive:
            print(f"\rstep {t.global_step}/{args.total_timesteps}  {fps:,.0f} steps/s  return "
                  f"{row['ep_return_mean'] if shown else float('nan'):+.3f}  ", end="", file=sys.stderr, flush=True)
    if interactive:
        print(file=sys.stderr)
    writer.close()
    wall = round(time.time() - started, 1)
    train_time = state["train_time"]
    timing = {"wall_time": wall, "segment_time": round(time.time() - segment_started, 1),
              "segments": state["segments"], "from_step": from_step, "to_step": trainer.global_step,
              "resumed_from": str(resumed[0].resolve()) if resumed else None, "train_time": round(train_time, 1),
              "eval_time": round(state["eval_time"], 1),
              "learner_steps_per_s": round(trainer.global_step / train_time, 1) if train_time else None}

    # -- final evaluation of best.mazzo.zip on fresh deals, with the reference levels ---------------------------
    best = TrainedAgent(run_dir / "best.mazzo.zip", args.game, flags=args.env)
    final = {"checkpoint": str(run_dir / "best.mazzo.zip"), "best_step": state["best_step"], "rows": []}
    for opp in args.eval_opponents:
        row = head_to_head_row(args.game, best, opp, args.final_deals, FINAL_SEED + args.seed, args.env, 1)
        if args.reference_levels:
            for ref in ("heuristic", "random"):
                r = head_to_head_row(args.game, ref, opp, args.final_deals, FINAL_SEED + args.seed, args.env,
                                     args.eval_workers)
                row[f"{ref}_mean"], row[f"{ref}_low"], row[f"{ref}_high"] = r["mean"], r["low"], r["high"]
        final["rows"].append(row)
    final["timing"] = timing
    final["numerics"] = platform_info
    (run_dir / "final_eval.json").write_text(json.dumps(final, indent=1))
    report = write_report(run_dir, to_dict(args), final, command=f"{prog} " + " ".join(argv))
    print(report.read_text(), flush=True)
    print(f"run directory: {run_dir}", flush=True)
    return run_dir


def cli() -> None:
    """Entry point: clear one-line errors for bad configs."""
    try:
        main()
    except (ConfigError, FileNotFoundError) as e:
        print(f"error: {e}", file=sys.stderr)
        raise SystemExit(2) from None


if __name__ == "__main__":
    from train.runs import pin_numerics

    pin_numerics()
    cli()
