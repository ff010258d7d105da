"""The arguments every trainer shares, and their checks: each trainer's ``Args`` extends ``BaseArgs``.

| class | fields | extended by |
|---|---|---|
| ``BaseArgs`` | the run (``exp_name``, ``game``, ``env``, ``trainer``, ``seed``, ``total_timesteps``, ``runs_dir``), the learning basics (``reward_scale``, ``learning_rate``, ``gamma``, ``gae_lambda``, ``net_arch``), self-play snapshots, the periodic and final evaluations | every trainer |
| ``PPOArgs`` | a learner against ``opponents`` at a ``seat``, PPO's coefficients under SB3's names, the imitation warm start (``bc_*``), ``resume``, ``torch_threads``, ``progress`` | ``train/sb3``, ``train/batched`` |

A trainer redeclares a field to give it its own default (and, where its meaning differs, its own docstring);
``train/config.py`` reads the docstring under each field for ``--help``. ``check_base`` and ``check_ppo``
validate what these classes declare and return what a checkpoint records of the setup (``meta``); a
trainer's ``check_args`` calls them and checks its own keys. Every error is a ``ConfigError`` naming the key
and what is allowed, raised before anything is built.
"""

from __future__ import annotations

import dataclasses
from collections.abc import Callable, Iterable
from dataclasses import dataclass, field
from typing import Any

from agents.checkpoint import ACTIVATIONS
from envs.core.errors import ConfigError
from envs.registry import GAMES, game_spec

__all__ = ["BaseArgs", "PPOArgs", "check_base", "check_ppo", "check_ints", "check_ranges", "check_agents",
           "check_activation", "default_of"]

Range = tuple[str, str, Callable[[float], bool]]


@dataclass
class BaseArgs:
    exp_name: str = "run"
    """experiment name: the second part of the run name {game}__{exp_name}__{seed}__{time}"""
    game: str = "briscola5"
    """the game: briscola5, pigugnin or picchetto"""
    env: dict = field(default_factory=dict)
    """game flags, the keywords of the game's env() (e.g. {num_players: 4, episode: hand})"""
    trainer: str = "sb3"
    """the trainer this config is for: sb3, batched or rllib (`python -m train` picks it; `engine` is an older name)"""
    seed: int = 1
    """seeds every source of randomness of the run (Python, NumPy, torch, the games' deals, the seat draws, the
    opponents; RLlib: its debugging seed); the evaluation deals derive from it"""
    total_timesteps: int = 200_000
    """decisions to train on in total (training stops at the first rollout boundary at or past it)"""
    reward_scale: float = 1.0
    """the learner's rewards are multiplied by this during training (reports use game units)"""
    learning_rate: float = 3.0e-4
    """Adam learning rate"""
    gamma: float = 1.0
    """discount factor, per decision of the seat (card games are short and scored at the end)"""
    gae_lambda: float = 0.95
    """GAE lambda"""
    net_arch: list = field(default_factory=lambda: [64, 64])
    """hidden layer sizes of the actor and of the critic (separate MLPs)"""

    selfplay: bool = False
    """add frozen snapshots of the learner to the opponents every snapshot_every steps"""
    snapshot_every: int = 50_000
    """learner steps between self-play snapshots"""
    snapshot_share: float = 0.5
    """share of opponent seats played by snapshots, once there are some"""
    max_snapshots: int = 5
    """snapshots kept in the pool (the newest replaces the oldest)"""

    eval_every: int = 50_000
    """steps between evaluations (and last-checkpoint saves); 0 evaluates only at the start and the end"""
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
    runs_dir: str = "runs"
    """where run directories are created"""


@dataclass
class PPOArgs(BaseArgs):
    opponents: str | list = "random"
    """training opponents: an agent spec, a comma-separated string or a list (random, heuristic, ppo:PATH, pretrained:GAME)"""
    seat: str | int = "random"
    """the learner's seat: 'random' (drawn every episode) or a fixed seat number"""
    n_epochs: int = 4
    """optimisation epochs per rollout"""
    clip_range: float = 0.2
    """PPO clipping parameter"""
    ent_coef: float = 0.01
    """entropy bonus coefficient"""
    vf_coef: float = 0.5
    """value loss coefficient"""
    max_grad_norm: float = 0.5
    """gradient clipping norm"""

    bc_episodes: int = 0
    """warm start: deals on which bc_teacher plays every seat, to imitate before PPO (0: no warm start)"""
    bc_teacher: str = "heuristic"
    """the agent spec imitated by the warm start"""
    bc_epochs: int = 5
    """passes over the warm start's decisions"""
    bc_lr: float = 1.0e-3
    """Adam learning rate of the warm start"""

    resume: str | None = None
    """the checkpoint of a run of this trainer to continue from (a new run folder is made beside it)"""
    torch_threads: int = 1
    """torch CPU threads (1: fair to other jobs, and the thread count is part of what a run's numbers depend on)"""
    progress: bool = True
    """show the training's progress on a terminal"""


def default_of(cls: type, name: str) -> Any:
    """The default of field ``name`` of the dataclass ``cls``."""
    (f,) = (f for f in dataclasses.fields(cls) if f.name == name)
    return f.default if f.default is not dataclasses.MISSING else f.default_factory()  # type: ignore[misc]


def check_ints(args: Any, keys: Iterable[str], low: int) -> None:
    """Each of ``keys`` an int (not a bool) >= ``low``."""
    for key in keys:
        v = getattr(args, key)
        if isinstance(v, bool) or not isinstance(v, int) or v < low:
            raise ConfigError(f"invalid value {v!r} for '{key}'; allowed: an int >= {low}")


def check_ranges(args: Any, ranges: Iterable[Range]) -> None:
    """``(key, allowed, ok)``: ``ok(value)`` must hold, else the error says ``allowed``."""
    for key, allowed, ok in ranges:
        if not ok(getattr(args, key)):
            raise ConfigError(f"invalid value {getattr(args, key)!r} for '{key}'; allowed: a number in {allowed}")


def check_agents(specs: Iterable[Any], game: str) -> None:
    """Every spec builds a player of ``game`` (``agents.registry.make_agent``: unknown specs raise ``ConfigError``)."""
    from agents.registry import make_agent

    for spec in specs:
        try:
            make_agent(str(spec).strip(), game)
        except ImportError as e:
            raise ConfigError(f"agent {spec!r} is not available for {game}: {e}") from None


def _unit(low_open: bool) -> Callable[[float], bool]:
    return (lambda v: 0 < v <= 1) if low_open else (lambda v: 0 <= v <= 1)


BASE_RANGES: tuple[Range, ...] = (
    ("gamma", "(0, 1]", _unit(True)), ("gae_lambda", "[0, 1]", _unit(False)),
    ("snapshot_share", "[0, 1]", _unit(False)), ("learning_rate", "(0, 1]", _unit(True)),
    ("reward_scale", "(0, 1e6]", lambda v: 0 < v <= 1e6))
PPO_RANGES: tuple[Range, ...] = (
    ("clip_range", "(0, 10]", lambda v: 0 < v <= 10), ("bc_lr", "(0, 1]", _unit(True)),
    ("ent_coef", "[0, 10]", lambda v: 0 <= v <= 10), ("vf_coef", "[0, 100]", lambda v: 0 <= v <= 100),
    ("max_grad_norm", "(0, 1e6]", lambda v: 0 < v <= 1e6))


def check_base(args: BaseArgs) -> tuple[Any, int, dict[str, Any]]:
    """The checks of ``BaseArgs``; returns the game's spec, its number of players and the checkpoint metadata."""
    own = default_of(type(args), "trainer")
    if args.trainer != own:
        raise ConfigError(f"invalid value {args.trainer!r} for 'trainer': these are the Args of the {own!r} trainer "
                          "(python -m train --config FILE runs the trainer a config names)")
    try:
        spec = game_spec(args.game)
    except ConfigError:
        raise ConfigError(f"invalid value {args.game!r} for 'game'; allowed: {', '.join(GAMES)}") from None
    n = spec.num_players(args.env)  # unknown or invalid flags raise ConfigError here (no env is built)
    check_ints(args, ("total_timesteps", "snapshot_every", "max_snapshots", "eval_deals", "final_deals",
                      "eval_workers"), 1)
    check_ints(args, ("eval_every",), 0)
    check_ranges(args, BASE_RANGES)
    if not isinstance(args.net_arch, list) or not args.net_arch or not all(
            isinstance(h, int) and not isinstance(h, bool) and h > 0 for h in args.net_arch):
        raise ConfigError(f"invalid value {args.net_arch!r} for 'net_arch'; allowed: a non-empty list of ints > 0")
    if not args.eval_opponents:
        raise ConfigError("'eval_opponents' is empty; give at least one agent spec, e.g. [heuristic, random]")
    meta = {"game": args.game, "flags": dict(args.env), "obs_shape": list(spec.observation_shape(args.env)),
            "num_actions": int(spec.num_actions)}
    return spec, n, meta


def check_ppo(args: PPOArgs, seats: tuple[str, ...] = ("random",)) -> tuple[Any, int, dict[str, Any]]:
    """``check_base`` plus the checks of ``PPOArgs`` (``seats``: the seat modes besides a seat number)."""
    spec, n, meta = check_base(args)
    check_ints(args, ("n_epochs", "torch_threads", "bc_epochs"), 1)
    check_ints(args, ("bc_episodes",), 0)
    check_ranges(args, PPO_RANGES)
    if not (args.seat in seats or (isinstance(args.seat, int) and not isinstance(args.seat, bool)
                                   and 0 <= args.seat < n)):
        modes = ", ".join(repr(s) for s in seats)
        raise ConfigError(f"invalid value {args.seat!r} for 'seat'; allowed: {modes} or 0..{n - 1}")
    return spec, n, meta


def check_activation(activation: str) -> None:
    if activation not in ACTIVATIONS:
        raise ConfigError(f"invalid value {activation!r} for 'activation'; allowed: {', '.join(ACTIVATIONS)}")
