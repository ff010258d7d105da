"""The RLlib trainer's ``Args`` (``train/args.py``'s ``BaseArgs`` plus RLlib's keys, under RLlib's names) and their
checks (no Ray needed).

| key | values | what |
|---|---|---|
| ``env_engine`` | ``aec`` (default), ``batched`` | what the env runners step: the AEC env as a turn-based ``MultiAgentEnv`` (every seat learns: ``policies``, the snapshot pool) or the batched engine's Gymnasium vector env (one learner seat, ``opponents`` at the others) |
| ``algo`` | ``ppo`` (default), ``appo`` | RLlib's PPO, or APPO (asynchronous sampling; ``env_engine: batched``) |
| ``bc_*`` | | the imitation warm start of ``train/imitation.py``, as the other trainers' |

(``engine: aec|batched`` beside ``trainer: rllib`` is read as ``env_engine``, ``train.config.canonical``; in a
config without a ``trainer`` key ``engine`` stays the older name of ``trainer``.)
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

from envs.core.errors import ConfigError
from envs.registry import game_spec
from train.args import BaseArgs, check_activation, check_agents, check_base, check_ints, check_ranges

__all__ = ["Args", "check_args", "module_ids", "POLICY_MODES", "ENGINES", "ALGOS", "MAIN", "SINGLE", "SELF"]

POLICY_MODES = ("shared", "per_seat")
ENGINES = ("aec", "batched")
ALGOS = ("ppo", "appo")
#: the module every seat plays with ``policies: shared`` (``train/rllib/selfplay.py``)
MAIN = "main"
#: the one module of ``env_engine: batched`` (RLlib's ``DEFAULT_MODULE_ID`` of a single-agent env runner)
SINGLE = "default_policy"
#: the opponent spec of the learner's frozen weights (``train.vector_opponents.SELF``)
SELF = "self"


@dataclass
class Args(BaseArgs):
    exp_name: str = "rllib"
    trainer: str = "rllib"
    total_timesteps: int = 500_000
    """env steps (decisions, one seat acts per step) to sample in total; training stops at the first iteration past it"""
    reward_scale: float = 1.0
    """rewards are multiplied by this for training (metrics and evaluations use game units)"""
    net_arch: list = field(default_factory=lambda: [64, 64])

    env_engine: str = "aec"
    """what the env runners step: 'aec' (RLlib's MultiAgentEnvRunner over the game's AEC env, one decision at a time; every seat learns) or 'batched' (RLlib's SingleAgentEnvRunner over the batched engine's Gymnasium vector env, train/vector_single_seat.py: the learner at one seat of num_envs_per_env_runner games per runner, opponents at the others)"""
    algo: str = "ppo"
    """RLlib's algorithm: 'ppo' or 'appo' (asynchronous PPO: the env runners keep sampling while the learner updates; env_engine batched only)"""
    opponents: str | list | dict = "self"
    """env_engine batched: batched specs (random, heuristic, heuristic-v1, ppo:PATH, pretrained:GAME) and 'self' (the learner's frozen weights, synced into every env runner every snapshot_every iterations); one spec, 'a,b', a list or {spec: weight}; each opponent seat draws one per episode"""
    seat: str | int = "random"
    """env_engine batched: the learner's seat, 'random' (drawn per game and episode) or a seat number"""
    policies: str = "shared"
    """'shared': one policy (main) at every seat, every seat's decisions train it; 'per_seat': a policy per seat (per role where the flags tie roles to seats)"""
    selfplay: bool = True
    """env_engine aec, policies shared: freeze main into a snapshot pool every snapshot_every iterations and play a share of the episodes against it; env_engine batched: sync the learner into the 'self' opponent every snapshot_every iterations (needs 'self' among the opponents)"""
    snapshot_every: int = 10
    """training iterations between snapshots (env_engine batched: between syncs of the 'self' opponent)"""
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
    """envs stepped together by each env runner (env_engine batched: the games of its vector env, e.g. 256)"""
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
    bc_episodes: int = 0
    """warm start: episodes on which bc_teacher plays every seat (on the batched engine), to imitate before RLlib trains (0: no warm start)"""
    bc_teacher: str = "heuristic"
    """the batched spec imitated by the warm start"""
    bc_epochs: int = 5
    """passes over the warm start's decisions"""
    bc_lr: float = 1.0e-3
    """Adam learning rate of the warm start"""
    torch_threads: int = 1
    """torch CPU threads of this process (the learner, and the env runner with num_env_runners: 0)"""
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
          ("vf_clip_param", "(0, 1e9]", lambda v: 0 < v <= 1e9), ("kl_coeff", "[0, 100]", lambda v: 0 <= v <= 100),
          ("bc_lr", "(0, 1]", lambda v: 0 < v <= 1))


def check_args(args: Args) -> dict[str, Any]:
    """Validate everything before Ray starts; returns the checkpoint metadata of this setup."""
    _, n, meta = check_base(args)
    check_ints(args, ("num_envs_per_env_runner", "train_batch_size", "minibatch_size", "num_epochs", "bc_epochs",
                      "torch_threads"), 1)
    check_ints(args, ("num_env_runners", "bc_episodes"), 0)
    if args.num_cpus is not None and (isinstance(args.num_cpus, bool) or args.num_cpus < 1):
        raise ConfigError(f"invalid value {args.num_cpus!r} for 'num_cpus'; allowed: an int >= 1 or null")
    r = args.rollout_fragment_length
    if not (r == "auto" or (isinstance(r, int) and not isinstance(r, bool) and r >= 1)):
        raise ConfigError(f"invalid value {r!r} for 'rollout_fragment_length'; allowed: 'auto' or an int >= 1")
    check_ranges(args, RANGES)
    if args.policies not in POLICY_MODES:
        raise ConfigError(f"invalid value {args.policies!r} for 'policies'; allowed: {', '.join(POLICY_MODES)}")
    _check_choice(args, "env_engine", ENGINES)
    _check_choice(args, "algo", ALGOS)
    if args.env_engine == "batched":
        _check_batched(args, n)
    else:
        if args.algo != "ppo":
            raise ConfigError(f"algo {args.algo!r} needs env_engine: batched (env_engine 'aec' runs ppo)")
        if args.policies == "per_seat" and args.selfplay:
            raise ConfigError("'selfplay' (the snapshot pool) needs policies: shared; set selfplay: false for per_seat")
    if args.bc_episodes:
        from agents.rows import make_opponent

        make_opponent(args.bc_teacher, args.game, args.env, 0)  # the teacher plays on the batched engine
    check_activation(args.activation)
    check_agents(args.eval_opponents, args.game)
    if args.address is not None and not isinstance(args.address, str):
        raise ConfigError(f"invalid value {args.address!r} for 'address'; allowed: null, 'auto' or 'HOST:PORT'")
    return meta


def _check_choice(args: Args, key: str, allowed: tuple[str, ...]) -> None:
    if getattr(args, key) not in allowed:
        raise ConfigError(f"invalid value {getattr(args, key)!r} for '{key}'; allowed: {', '.join(allowed)}")


def _check_batched(args: Args, n: int) -> None:
    """The keys of ``env_engine: batched``: one learner (``policies: shared``), its seat, the opponents (their specs
    built once, so that a bad one fails now) and ``self`` exactly when ``selfplay`` syncs it."""
    from agents.rows import make_opponent, parse_opponents

    if args.policies != "shared":
        raise ConfigError(f"policies {args.policies!r} needs env_engine: aec (env_engine batched trains one policy, "
                          f"the learner's seat)")
    if not (args.seat == "random" or (isinstance(args.seat, int) and not isinstance(args.seat, bool)
                                      and 0 <= args.seat < n)):
        raise ConfigError(f"invalid value {args.seat!r} for 'seat'; allowed: 'random' or 0..{n - 1}")
    keys = list(parse_opponents(args.opponents))
    for key in keys:
        if key != SELF:
            make_opponent(key, args.game, args.env, 0)
    if args.selfplay and SELF not in keys:
        raise ConfigError(f"selfplay with env_engine batched syncs the learner into the {SELF!r} opponent; list it "
                          f"among the opponents (e.g. opponents: [heuristic, {SELF}]) or set selfplay: false")
    if not args.selfplay and SELF in keys:
        raise ConfigError(f"the {SELF!r} opponent gets the learner's weights only with selfplay: true (it would "
                          f"play at random)")


def module_ids(args: Args) -> list[str]:
    """The trained modules: ``["main"]`` or ``["seat_0", ..., "seat_{n-1}"]`` (``env_engine: batched``:
    ``["default_policy"]``, RLlib's single-agent module)."""
    if args.env_engine == "batched":
        return [SINGLE]
    if args.policies == "shared":
        return [MAIN]
    return [f"seat_{i}" for i in range(game_spec(args.game).num_players(args.env))]
