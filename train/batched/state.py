"""The batched trainer's training state for ``--resume``: what ``BatchedPPO``'s next rollouts depend on.

At every evaluation the run writes ``last_state.zip`` beside ``last.mazzo.zip`` (``train.resume.save_train_state``:
``state.json`` and ``arrays.npz``, format ``mazzo-batched-state/1``):

| part | in ``state.json`` | in ``arrays.npz`` |
|---|---|---|
| networks and Adam | the optimizer's param groups, its state's keys | ``<network>.*`` (``networks()``: PPO's ``actor``, ``critic``; DMC's ``actor``, the Q-network), ``optim.<param>.<key>`` |
| generators | NumPy's and Python's global ones | ``rng.sample`` (the learner's actions), ``rng.shuffle`` (minibatches), ``rng.torch``, ``rng.numpy`` |
| the engine | its state's array names | ``env.state.*``, ``env.buf``, ``env.obs``, ``env.mask``, ``env.current_player``, ``env.rng`` |
| the seats | the seat draws' generator, the snapshots so far, the league's draw weights | ``seats.owner``, ``seats.selfplay``, ``seats.rotation`` |
| the rollout | the decisions carried to the next rollout (``buffer_size``, ``buffer_blocks``) | ``buf.*`` (the buffer's ``ARRAYS``; DMC's successor links ``buf.nxt``), ``ep_ret``, ``ep_dec``, ``actions`` |
| the opponents | every opponent's NumPy generator | ``slot.<k>.gen`` (torch generators) |
| counters | steps, episodes, the last 100 returns and lengths | |

plus, from the run loop (``train/batched/main.py``): the config, the run name, the evaluations' and the
snapshot schedule's bookkeeping and the snapshot pool's files. Loading reads JSON and ``np.load(allow_pickle=
False)``: nothing in the file can run code. A missing or misshapen part raises ``CheckpointError``.
"""

from __future__ import annotations

import dataclasses
import json
import random
from collections.abc import Callable
from pathlib import Path
from typing import Any

import numpy as np

from agents.checkpoint import CheckpointError, read_metadata
from envs.core.errors import ConfigError
from train.batched.rollout import EpisodeRollout
from train.config import canonical, to_dict
from train.resume import read_train_state

__all__ = ["STATE_FORMAT", "STATE_NAME", "RESUME_FREE", "get_state", "load_state", "resume_files", "check_resume"]

STATE_FORMAT = "mazzo-batched-state/1"
#: written beside last.mazzo.zip at every evaluation (and at the end)
STATE_NAME = "last_state.zip"
#: Args a resume may change: they do not change what is trained (everything else must be as in the run resumed)
RESUME_FREE = ("total_timesteps", "eval_every", "final_deals", "reference_levels", "eval_workers", "progress",
               "runs_dir", "exp_name", "resume")
ENV_ARRAYS = ("buf", "obs", "mask", "current_player", "rng")
SEAT_ARRAYS = ("owner", "selfplay", "rotation")

Take = Callable[..., np.ndarray]


def get_state(t: Any) -> tuple[dict[str, Any], dict[str, np.ndarray]]:
    """Everything the next rollouts of ``t`` (a ``BatchedPPO``) depend on, at a rollout boundary, as JSON and
    arrays (copies): see the module table."""
    arrays: dict[str, np.ndarray] = {}
    state: dict[str, Any] = {
        "global_step": t.global_step, "episodes": t.episodes, "opponent_decisions": t.opponent_decisions,
        "returns_vs": list(t.returns_vs), "returns_sp": list(t.returns_sp), "lengths": list(t.lengths),
        "optimizer": _save_networks(t, arrays), **_save_generators(t, arrays), **_save_engine(t, arrays),
        "opponents": _save_opponents(t, arrays)}
    return state, arrays


def _save_networks(t: Any, arrays: dict[str, np.ndarray]) -> dict[str, Any]:
    for prefix, net in t.networks().items():
        for name, tensor in net.state_dict().items():
            arrays[f"{prefix}.{name}"] = tensor.detach().numpy().copy()
    opt = t.optimizer.state_dict()
    keys = {}
    for pid, st in opt["state"].items():
        keys[str(pid)] = sorted(st)
        for k, v in st.items():
            arrays[f"optim.{pid}.{k}"] = v.detach().numpy().copy()
    return {"param_groups": opt["param_groups"], "state_keys": keys}


def _save_generators(t: Any, arrays: dict[str, np.ndarray]) -> dict[str, Any]:
    import torch

    arrays["rng.sample"] = t.sample_gen.get_state().numpy().copy()
    arrays["rng.shuffle"] = t.shuffle_gen.get_state().numpy().copy()
    arrays["rng.torch"] = torch.get_rng_state().numpy().copy()
    np_state = np.random.get_state()
    arrays["rng.numpy"] = np.asarray(np_state[1]).copy()
    py = random.getstate()
    return {"numpy_rng": [np_state[0], int(np_state[2]), int(np_state[3]), float(np_state[4])],
            "python_rng": [py[0], list(py[1]), py[2]]}


def _save_engine(t: Any, arrays: dict[str, np.ndarray]) -> dict[str, Any]:
    """The engine's games, the seats and the rollout's carried decisions."""
    env, seats, buf = t.env, t.seats, t.buf
    for name, arr in env.state.items():
        arrays[f"env.state.{name}"] = arr.copy()
    for name in ENV_ARRAYS:
        arrays[f"env.{name}"] = getattr(env, name).copy()
    for name in SEAT_ARRAYS:
        arrays[f"seats.{name}"] = getattr(seats, name).copy()
    c = buf.size
    if not isinstance(buf, EpisodeRollout) and buf.blocks not in ([], [(0, c)]):
        raise RuntimeError("the training state is taken at a rollout boundary (after update())")
    for name in _buffer_arrays(buf):
        arrays[f"buf.{name}"] = getattr(buf, name)[:c].copy()
    arrays["buf.last"] = buf.last.copy()
    arrays["ep_ret"], arrays["ep_dec"], arrays["actions"] = t.ep_ret.copy(), t.ep_dec.copy(), t.actions.copy()
    return {"seats": {"rng": seats.rng.bit_generator.state, "num_snapshots": seats.num_snapshots,
                      "weights": None if seats.weights is None else seats.weights.tolist()},
            "buffer_size": c, "buffer_blocks": buf.blocks, "env_state_names": sorted(env.state)}


def _buffer_arrays(buf: Any) -> tuple[str, ...]:
    """The rollout buffer's per-sample arrays in the state: its ``ARRAYS`` (an empty privileged block left out),
    and the successor links of an ``EpisodeRollout`` (whose carried episodes are whole chains)."""
    names = tuple(a for a in buf.ARRAYS if not (a == "priv" and buf.priv.shape[1] == 0))
    return names + ("nxt",) if isinstance(buf, EpisodeRollout) else names


def _save_opponents(t: Any, arrays: dict[str, np.ndarray]) -> dict[str, Any]:
    opponents: dict[str, Any] = {}
    for k, opp in enumerate(t.slots):
        gen = getattr(opp, "gen", None)
        if gen is not None:
            arrays[f"slot.{k}.gen"] = gen.get_state().numpy().copy()
        rng = _numpy_rng(opp)
        if rng is not None:
            opponents[str(k)] = rng.bit_generator.state
    return opponents


def _numpy_rng(opponent: Any) -> np.random.Generator | None:
    """The NumPy generator an opponent draws from (``MaskedRandom``; a Python agent in ``AgentRows``), if any."""
    for obj in (opponent, getattr(opponent, "agent", None)):
        rng = getattr(obj, "rng", None)
        if isinstance(rng, np.random.Generator):
            return rng
    return None


def load_state(t: Any, state: dict[str, Any], arrays: dict[str, np.ndarray], where: str = "the training state") -> None:
    """Restore ``get_state()``'s copy into ``t``, built from the same config (snapshots excepted: ``add_snapshot``
    them first). A missing or misshapen part raises ``CheckpointError``."""

    def take(name: str, like: np.ndarray | None = None) -> np.ndarray:
        if name not in arrays:
            raise CheckpointError(f"{where}: array {name!r} is missing")
        a = np.array(arrays[name])  # a writable copy
        if like is not None and (a.shape != like.shape or a.dtype != like.dtype):
            raise CheckpointError(f"{where}: array {name!r} is {a.dtype}{list(a.shape)}, this config needs "
                                  f"{like.dtype}{list(like.shape)} (another config or engine version?)")
        return a

    try:
        _load_networks(t, state["optimizer"], take)
        _load_generators(t, state, take)
        _load_engine(t, state, take, where)
        _load_opponents(t, state["opponents"], take)
        t.global_step, t.episodes = int(state["global_step"]), int(state["episodes"])
        t.opponent_decisions = int(state["opponent_decisions"])
        for dq, key in ((t.returns_vs, "returns_vs"), (t.returns_sp, "returns_sp"), (t.lengths, "lengths")):
            dq.clear()
            dq.extend(state[key])
    except CheckpointError:
        raise
    except (KeyError, TypeError, ValueError, RuntimeError, IndexError) as e:
        raise CheckpointError(f"{where} is damaged or from another config: {type(e).__name__}: {e}") from None


def _load_networks(t: Any, opt: dict[str, Any], take: Take) -> None:
    import torch

    for prefix, net in t.networks().items():
        net.load_state_dict({name: torch.from_numpy(take(f"{prefix}.{name}", tensor.numpy()))
                             for name, tensor in net.state_dict().items()})
    groups = [{**g, "betas": tuple(g["betas"])} if "betas" in g else g for g in opt["param_groups"]]
    t.optimizer.load_state_dict({
        "state": {int(pid): {k: torch.from_numpy(take(f"optim.{pid}.{k}")) for k in keys}
                  for pid, keys in opt["state_keys"].items()},
        "param_groups": groups})


def _load_generators(t: Any, state: dict[str, Any], take: Take) -> None:
    import torch

    t.sample_gen.set_state(torch.from_numpy(take("rng.sample")))
    t.shuffle_gen.set_state(torch.from_numpy(take("rng.shuffle")))
    torch.set_rng_state(torch.from_numpy(take("rng.torch")))
    name, pos, has_gauss, cached = state["numpy_rng"]
    np.random.set_state((name, take("rng.numpy"), pos, has_gauss, cached))
    version, internal, gauss = state["python_rng"]
    random.setstate((version, tuple(internal), gauss))


def _load_engine(t: Any, state: dict[str, Any], take: Take, where: str) -> None:
    env, seats, buf = t.env, t.seats, t.buf
    if state["env_state_names"] != sorted(env.state):
        raise CheckpointError(f"{where}: the engine's state arrays are {state['env_state_names']}, this "
                              f"engine has {sorted(env.state)}")
    for name, arr in env.state.items():
        arr[...] = take(f"env.state.{name}", arr)
    for name in ENV_ARRAYS:
        getattr(env, name)[...] = take(f"env.{name}", getattr(env, name))
    env.rewards[:] = 0.0
    env.terminated[:] = False
    env.truncated[:] = False
    for name in SEAT_ARRAYS:
        getattr(seats, name)[...] = take(f"seats.{name}", getattr(seats, name))
    seats.rng.bit_generator.state = state["seats"]["rng"]
    seats.num_snapshots = int(state["seats"]["num_snapshots"])
    weights = state["seats"].get("weights")
    seats.weights = None if weights is None else np.asarray(weights, dtype=np.float64)
    c = int(state["buffer_size"])
    if isinstance(buf, EpisodeRollout) and c > len(buf.rew):
        buf._grow(c)
    if not 0 <= c <= len(buf.rew):
        raise CheckpointError(f"{where}: {c} carried decisions do not fit this config's rollout buffer")
    buf.nxt[:c] = -1
    for name in _buffer_arrays(buf):
        getattr(buf, name)[:c] = take(f"buf.{name}", getattr(buf, name)[:c])
    buf.done[:c] = False
    buf.last[...] = take("buf.last", buf.last)
    buf.size = c
    buf.blocks = [tuple(b) for b in state.get("buffer_blocks", [(0, c)] if c else [])]
    for name in ("ep_ret", "ep_dec", "actions"):
        getattr(t, name)[...] = take(name, getattr(t, name))


def _load_opponents(t: Any, opponents: dict[str, Any], take: Take) -> None:
    import torch

    for k, opp in enumerate(t.slots):
        gen = getattr(opp, "gen", None)
        if gen is not None:
            gen.set_state(torch.from_numpy(take(f"slot.{k}.gen")))
        rng = _numpy_rng(opp)
        if rng is not None:
            rng.bit_generator.state = opponents[str(k)]


# -- --resume: which files, and is it the same training ---------------------------------------------------------


def resume_files(resume: str) -> tuple[Path, Path]:
    """``(last.mazzo.zip, last_state.zip)`` of ``--resume`` (that checkpoint, its run folder or the state file)."""
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
                              "(an SB3 run's last.zip resumes with its own config, trainer: sb3)")
    state = p.with_name(p.name[: -len(".mazzo.zip")] + "_state.zip")
    if not state.is_file():
        raise CheckpointError(f"{p} has no {state.name} beside it, so its training state is unknown: --resume takes "
                              f"the {STATE_NAME.replace('_state', '.mazzo')} of a run of the batched trainer "
                              "(best.mazzo.zip and snapshots keep only the actor's weights)")
    return p, state


def check_resume(args: Any) -> tuple[Path, dict[str, Any], dict[str, np.ndarray]]:
    """Read ``--resume``'s training state and check that this command continues the same training."""
    checkpoint, state_file = resume_files(str(args.resume))
    state, arrays = read_train_state(state_file, STATE_FORMAT)
    step = read_metadata(checkpoint).get("num_timesteps")
    if step != state.get("trainer", {}).get("global_step"):
        raise CheckpointError(f"{checkpoint} (step {step}) and {state_file} (step "
                              f"{state.get('trainer', {}).get('global_step')}) are not of the same moment of the run")
    old = state.get("config")
    if not isinstance(old, dict):
        raise CheckpointError(f"{state_file}: no config in it")
    # a key newer than the run resumed had its default there
    defaults = {f.name: f.default for f in dataclasses.fields(args) if f.default is not dataclasses.MISSING}
    old, new = {**defaults, **canonical(old)}, json.loads(json.dumps(to_dict(args)))
    changed = [k for k in new if k not in RESUME_FREE and old.get(k) != new[k]]
    if changed:
        what = "; ".join(f"{k}: {old.get(k)!r} in that run, {new[k]!r} here" for k in changed)
        raise ConfigError(f"cannot resume from {checkpoint}: a resume continues the same training, and this command "
                          f"changes {what}. Only {', '.join(k for k in RESUME_FREE if k != 'resume')} may change "
                          "(start a new run, e.g. with opponents: ppo:PATH, for another setup)")
    return checkpoint, state, arrays
