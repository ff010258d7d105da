"""Mazzo checkpoints: the safe format that plays (``mazzo-policy/1``) and the SB3 run files that train.

Two kinds of file, told apart by their members and their JSON only (nothing is unpickled to tell):

| kind                | written by                                   | loaded by                           | from anyone? |
|---------------------|----------------------------------------------|-------------------------------------|--------------|
| safe checkpoint, ``*.mazzo.zip`` | every trainer (``best.mazzo.zip``, ``last.mazzo.zip``, self-play snapshots): ``train/sb3`` (``save_policy``), ``train/batched`` and ``train/rllib`` (``save_actor``: the same files from a plain torch actor), ``python -m agents.trained export`` | ``make_agent("ppo:PATH")``, ``TrainedAgent``, ``--players ppo:PATH`` | yes: JSON, and tensors read with ``torch.load(weights_only=True)`` |
| SB3 run file, ``*.zip`` | ``train/sb3`` (``best.zip``, ``last.zip``) | ``python -m train --resume``, ``export`` | no: its ``data`` member is a pickle, which can run code; trusted files only (your own runs) |

A safe checkpoint is a zip with exactly two members:

| member        | what                                                                                  |
|---------------|---------------------------------------------------------------------------------------|
| ``mazzo.json``| UTF-8 JSON, the keys below                                                            |
| ``policy.pt`` | the actor's weights, ``{name: float32 tensor}`` written by ``torch.save`` and read with ``torch.load(..., weights_only=True)`` (tensors and plain containers only: any other pickled object is refused) |

| key of ``mazzo.json`` | meaning                                                                   |
|-----------------------|---------------------------------------------------------------------------|
| ``format``            | ``"mazzo-policy/1"``; any other value is refused                          |
| ``game``, ``flags``   | the game and the game flags of training (e.g. ``{"num_players": 4}``)     |
| ``obs_shape``         | the observation vector's shape, e.g. ``[1169]``                           |
| ``num_actions``       | the size of the action space                                              |
| ``network``           | ``features``: ``"flatten"``; ``shared``: ``[]`` (no layer is shared by the actor and the critic: SB3 >= 1.8 builds separate ``pi`` and ``vf`` networks); ``pi``, ``vf``: hidden layer sizes; ``activation``: ``"Tanh"``, ``"ReLU"`` ... (after every hidden layer); ``share_features_extractor`` |
| ``num_timesteps``, ``run_name``, ``config`` | provenance: training steps, run, the resolved training config |
| ``versions``          | torch / stable-baselines3 / sb3-contrib that wrote it (informative)       |

The network is rebuilt from ``network`` alone, as SB3's ``MaskableActorCriticPolicy`` computes its
actor: ``logits = action_net(policy_net(flatten(obs)))`` with ``policy_net = [Linear(obs, pi[0]),
activation, Linear(pi[0], pi[1]), activation, ...]`` and ``action_net = Linear(pi[-1], num_actions)``;
``policy.pt`` must hold exactly ``policy_net.<i>.weight/bias`` and ``action_net.weight/bias`` of those
shapes. The value network is not kept: playing does not need it. Decisions are those of sb3-contrib's
``MaskableCategorical``, step for step: the logits are normalized (minus their logsumexp), illegal ones
become ``-1e8``, normalized again; the greedy action is the argmax of the softmax (the first on ties), a
sample is drawn from it.

An SB3 run file written by ``train/sb3`` also carries a ``mazzo.json`` (format ``"mazzo-ppo/1"``,
the same keys without ``network``) so that ``--resume`` checks the game before SB3 unpickles anything.
"""

from __future__ import annotations

import io
import json
import math
import os
import re
import zipfile
from pathlib import Path
from typing import Any

from envs.core.errors import ConfigError

__all__ = [
    "FORMAT", "RUN_FORMAT", "EXT", "META_NAME", "WEIGHTS_NAME", "CheckpointError", "UnsafeCheckpointError",
    "checkpoint_path", "read_metadata", "read_policy_metadata", "read_run_metadata", "load_actor",
    "masked_probs", "save_checkpoint", "save_policy", "export_checkpoint", "actor_from_sb3", "actor_network",
    "save_actor", "build_actor", "ACTIVATIONS", "HUGE_NEG",
]

FORMAT = "mazzo-policy/1"
RUN_FORMAT = "mazzo-ppo/1"
EXT = ".mazzo.zip"
META_NAME = "mazzo.json"
WEIGHTS_NAME = "policy.pt"
MAX_META_BYTES = 1 << 20
MAX_WEIGHTS_BYTES = 512 << 20
#: activation name in ``network`` -> torch.nn class name; nothing else is ever looked up.
ACTIVATIONS = ("Tanh", "ReLU", "LeakyReLU", "ELU", "GELU", "SiLU", "Sigmoid")
HUGE_NEG = -1e8  # sb3-contrib's MaskableCategorical value for masked logits
_FIXED_TIME = (1980, 1, 1, 0, 0, 0)  # zip member dates: the same policy gives the same bytes


class CheckpointError(ConfigError):
    """A file that is not a Mazzo checkpoint, or a checkpoint that does not fit."""


class UnsafeCheckpointError(CheckpointError):
    """A file whose loading could run code (a pickle): refused, not opened."""


def checkpoint_path(path: str | os.PathLike) -> Path:
    """The file ``path`` names (``.mazzo.zip`` or ``.zip`` may be left out); FileNotFoundError if none."""
    p = Path(path)
    if not p.exists() and not p.name.endswith(".zip"):
        for ext in (EXT, ".zip"):
            if Path(str(p) + ext).exists():
                p = Path(str(p) + ext)
                break
    if not p.is_file():
        raise FileNotFoundError(f"checkpoint not found: {str(path)!r} (expected a {EXT} file written by a trainer "
                                "(python -m train) or by python -m agents.trained export)")
    return p


def _read_member(z: zipfile.ZipFile, name: str, limit: int, p: Path) -> bytes:
    info = z.getinfo(name)
    if info.file_size > limit:
        raise CheckpointError(f"{p}: member {name} is {info.file_size} bytes, more than the {limit} allowed")
    with z.open(info) as f:
        data = f.read(limit + 1)
    if len(data) > limit:
        raise CheckpointError(f"{p}: member {name} is larger than the {limit} bytes allowed")
    return data


def _safe_name(p: Path) -> Path:
    name = p.name[:-4] if p.name.endswith(".zip") else p.name
    return p.with_name((name if name.endswith(".mazzo") else name + ".mazzo") + ".zip")


def _sb3_refusal(p: Path, why: str) -> UnsafeCheckpointError:
    safe = _safe_name(p)
    hint = (f"its safe copy is beside it: {safe}" if safe.is_file() and safe != p else
            f"convert a file you trust with `python -m agents.trained export {p} {safe}`")
    return UnsafeCheckpointError(
        f"{p} is {why}, which can run code when loaded; Mazzo plays only safe checkpoints ({FORMAT}): {hint}"
    )


def _open_meta(path: str | os.PathLike) -> tuple[Path, dict[str, Any] | None, list[str]]:
    """Path, ``mazzo.json`` (None if absent) and member names, from the zip directory and the JSON only."""
    p = checkpoint_path(path)
    try:
        with zipfile.ZipFile(p) as z:
            names = z.namelist()
            raw = _read_member(z, META_NAME, MAX_META_BYTES, p) if META_NAME in names else None
    except zipfile.BadZipFile as e:
        raise CheckpointError(f"{p} is not a checkpoint .zip ({e})") from None
    if raw is None:
        return p, None, names
    try:
        meta = json.loads(raw.decode("utf-8"))
    except (UnicodeDecodeError, json.JSONDecodeError) as e:
        raise CheckpointError(f"{p}: {META_NAME} is not JSON ({e})") from None
    if not isinstance(meta, dict):
        raise CheckpointError(f"{p}: {META_NAME} must be a JSON object, got {type(meta).__name__}")
    return p, meta, names


def _no_meta(p: Path, names: list[str]) -> CheckpointError:
    """The error for a zip without ``mazzo.json``: says what it looks like, never opens a member."""
    if "data" in names or any(n.endswith(".pth") for n in names):
        return _sb3_refusal(p, "a Stable-Baselines3 file (a pickled 'data' member)")
    if any(n.endswith("data.pkl") for n in names):
        return _sb3_refusal(p, "a torch.save file (a pickle)")
    return CheckpointError(f"{p} is not a Mazzo checkpoint: it has no {META_NAME} (members: "
                           f"{', '.join(names[:5]) or 'none'})")


def read_metadata(path: str | os.PathLike) -> dict[str, Any]:
    """The ``mazzo.json`` of a safe checkpoint or of an SB3 run file of ``train/sb3``: JSON only."""
    p, meta, names = _open_meta(path)
    if meta is None:
        raise _no_meta(p, names)
    if meta.get("format") not in (FORMAT, RUN_FORMAT):
        raise CheckpointError(f"{p}: unknown checkpoint format {meta.get('format')!r}; expected {FORMAT!r}")
    return meta


def read_run_metadata(path: str | os.PathLike) -> dict[str, Any]:
    """The ``mazzo.json`` of an SB3 run file (what ``--resume`` takes); refuses a play-only checkpoint."""
    p, meta, _ = _open_meta(path)
    if meta is None:
        raise CheckpointError(f"{p} is not a run file of the SB3 trainer: it has no {META_NAME} "
                              "(--resume takes runs/<run>/last.zip)")
    if meta.get("format") == FORMAT:
        raise CheckpointError(
            f"{p} is a play-only checkpoint ({FORMAT}: the actor's weights, no value network or optimizer state); "
            "resume from the run's Stable-Baselines3 file, runs/<run>/last.zip"
        )
    if meta.get("format") != RUN_FORMAT:
        raise CheckpointError(f"{p}: unknown checkpoint format {meta.get('format')!r}; expected {RUN_FORMAT!r}")
    return meta


def _int_list(value: Any) -> bool:
    return isinstance(value, list) and all(isinstance(v, int) and not isinstance(v, bool) and v > 0 for v in value)


def _check_policy_meta(p: Path, meta: dict[str, Any] | None, names: list[str]) -> dict[str, Any]:
    def bad(key: str, allowed: str) -> CheckpointError:
        value = net.get(key.split(".")[1]) if key.startswith("network.") else meta.get(key)
        return CheckpointError(f"{p}: invalid {key} {value!r} in {META_NAME}; allowed: {allowed}")

    if meta is None:
        raise _no_meta(p, names)
    if meta.get("format") == RUN_FORMAT or "data" in names:
        raise _sb3_refusal(p, "a Stable-Baselines3 run file (a pickled 'data' member)")
    if meta.get("format") != FORMAT:
        raise CheckpointError(f"{p}: unknown checkpoint format {meta.get('format')!r}; expected {FORMAT!r}")
    if sorted(names) != sorted((META_NAME, WEIGHTS_NAME)):
        raise CheckpointError(f"{p}: a {FORMAT} checkpoint holds exactly {META_NAME} and {WEIGHTS_NAME}; "
                              f"this one holds {', '.join(names)}")
    net = meta.get("network") if isinstance(meta.get("network"), dict) else {}
    if not isinstance(meta.get("game"), str):
        raise bad("game", "a game name")
    if not isinstance(meta.get("flags", {}), dict):
        raise bad("flags", "a JSON object")
    if not (_int_list(meta.get("obs_shape")) and len(meta["obs_shape"]) == 1):
        raise bad("obs_shape", "[size], one positive int")
    if not _int_list([meta.get("num_actions")]):
        raise bad("num_actions", "a positive int")
    if not isinstance(meta.get("network"), dict):
        raise bad("network", "an object with features, shared, pi, activation")
    if net.get("features") != "flatten":
        raise bad("network.features", "'flatten'")
    if net.get("shared", []) != []:
        raise bad("network.shared", "[] (separate actor and critic networks)")
    if not (isinstance(net.get("pi"), list) and (net["pi"] == [] or _int_list(net["pi"]))):
        raise bad("network.pi", "a list of positive ints")
    if net.get("activation") not in ACTIVATIONS:
        raise bad("network.activation", ", ".join(ACTIVATIONS))
    return meta


def read_policy_metadata(path: str | os.PathLike) -> tuple[Path, dict[str, Any]]:
    """Path and checked ``mazzo.json`` of a safe checkpoint; refuses anything else without unpickling."""
    p, meta, names = _open_meta(path)
    return p, _check_policy_meta(p, meta, names)


def _expected_shapes(meta: dict[str, Any]) -> dict[str, tuple[int, ...]]:
    shapes, last = {}, math.prod(meta["obs_shape"])
    for i, h in enumerate(meta["network"]["pi"]):
        shapes[f"policy_net.{2 * i}.weight"], shapes[f"policy_net.{2 * i}.bias"] = (h, last), (h,)
        last = h
    shapes["action_net.weight"], shapes["action_net.bias"] = (meta["num_actions"], last), (meta["num_actions"],)
    return shapes


def build_actor(obs_size: int, num_actions: int, hidden: list[int], activation: str = "Tanh",
                device: str | None = None) -> Any:
    """The actor of this format, the one network definition of Mazzo's policies (the trainers build theirs with
    it, ``load_actor`` rebuilds it): ``nn.Sequential(features=Flatten, policy_net=[Linear, activation] * len(hidden),
    action_net=Linear)``, torch's default initialisation (the trainers then set their own)."""
    from collections import OrderedDict

    from torch import nn

    if activation not in ACTIVATIONS:
        raise CheckpointError(f"unknown activation {activation!r}; allowed: {', '.join(ACTIVATIONS)}")
    act = getattr(nn, activation)  # a name of ACTIVATIONS: nothing else is ever looked up
    layers, last = [], obs_size
    for h in hidden:
        layers += [nn.Linear(last, h, device=device), act()]
        last = h
    return nn.Sequential(OrderedDict(features=nn.Flatten(), policy_net=nn.Sequential(*layers),
                                     action_net=nn.Linear(last, num_actions, device=device)))


def load_actor(path: str | os.PathLike, meta: dict[str, Any] | None = None) -> tuple[Any, dict[str, Any]]:
    """The actor network of a safe checkpoint and its metadata.

    Reads ``mazzo.json`` and ``policy.pt`` with zipfile and ``torch.load(weights_only=True)``: nothing in the
    file is executed. A file of another kind, an unknown format, or weights that do not fit the metadata's
    network raise ``CheckpointError`` saying why.
    """
    import torch

    if meta is None:
        p, meta = read_policy_metadata(path)
    else:
        p = checkpoint_path(path)
    with zipfile.ZipFile(p) as z:
        raw = _read_member(z, WEIGHTS_NAME, MAX_WEIGHTS_BYTES, p)
    try:
        state = torch.load(io.BytesIO(raw), map_location="cpu", weights_only=True)
    except Exception as e:  # noqa: BLE001 (weights_only refusals are UnpicklingError, RuntimeError, ...)
        raise UnsafeCheckpointError(
            f"{p}: {WEIGHTS_NAME} was refused by torch.load(weights_only=True), which loads tensors only "
            f"({_torch_reason(e)}); nothing in it was run"
        ) from None
    expected = _expected_shapes(meta)
    if not isinstance(state, dict) or set(state) != set(expected):
        got = sorted(state) if isinstance(state, dict) else type(state).__name__
        raise CheckpointError(f"{p}: {WEIGHTS_NAME} does not hold the tensors of the network in {META_NAME} "
                              f"(expected {sorted(expected)}, got {got})")
    for name, shape in expected.items():
        t = state[name]
        if not isinstance(t, torch.Tensor) or t.dtype != torch.float32 or tuple(t.shape) != shape:
            got = (tuple(t.shape), str(t.dtype)) if isinstance(t, torch.Tensor) else type(t).__name__
            raise CheckpointError(f"{p}: tensor {name} of {WEIGHTS_NAME} should be float32 of shape {shape}, got {got}")
    net = meta["network"]
    actor = build_actor(math.prod(meta["obs_shape"]), meta["num_actions"], net["pi"], net["activation"],
                        device="meta")  # no memory, no random init: the loaded tensors are assigned
    actor.load_state_dict(state, strict=True, assign=True)
    actor.requires_grad_(False)
    return actor, meta


def _torch_reason(e: Exception) -> str:
    """The gist of torch's refusal (its message also suggests loading the file unsafely: not repeated)."""
    text = re.sub(r"\x1b\[[0-9;]*m", "", str(e))
    found = re.search(r"WeightsUnpickler error:\s*(.+?)(?:\.\s|\n|$)", text, re.S)
    lines = [line.strip() for line in text.splitlines() if line.strip()]
    return found.group(1).strip() if found else (lines[0] if lines else type(e).__name__)


def masked_probs(logits: Any, mask: Any) -> Any:
    """Action probabilities as sb3-contrib's ``MaskableCategorical`` computes them (torch, batched)."""
    import torch

    logits = logits - logits.logsumexp(-1, keepdim=True)  # Categorical(logits=...) normalizes, then masking
    masked = torch.where(mask, logits, torch.tensor(HUGE_NEG, dtype=logits.dtype))  # re-creates it: again
    return torch.softmax(masked - masked.logsumexp(-1, keepdim=True), dim=-1)


# -- writing (training side: these take live SB3 objects or trusted files) --------------------------------

def actor_from_sb3(policy: Any) -> tuple[Any, dict[str, Any]]:
    """The actor of an SB3 ``MaskableActorCriticPolicy`` (sharing its weights) and its ``network`` metadata.

    Refuses a policy this format cannot rebuild (another features extractor, extractor or layer type).
    """
    from collections import OrderedDict

    from gymnasium import spaces
    from sb3_contrib.common.maskable.policies import MaskableActorCriticPolicy
    from stable_baselines3.common.torch_layers import FlattenExtractor, MlpExtractor
    from torch import nn

    def refuse(why: str) -> CheckpointError:
        return CheckpointError(f"this policy cannot be saved as {FORMAT}: {why}")

    if not isinstance(policy, MaskableActorCriticPolicy):
        raise refuse(f"it is a {type(policy).__name__}, not a MaskableActorCriticPolicy")
    if not (isinstance(policy.observation_space, spaces.Box) and len(policy.observation_space.shape) == 1):
        raise refuse(f"observation space {policy.observation_space} is not a flat Box")
    if not isinstance(policy.action_space, spaces.Discrete):
        raise refuse(f"action space {policy.action_space} is not Discrete")
    if type(policy.pi_features_extractor) is not FlattenExtractor or type(policy.mlp_extractor) is not MlpExtractor:
        raise refuse("only FlattenExtractor features and SB3's MlpExtractor are supported")
    layers = list(policy.mlp_extractor.policy_net)
    pi, acts = [], set()
    for i in range(0, len(layers), 2):
        lin, act = layers[i], layers[i + 1] if i + 1 < len(layers) else None
        if type(lin) is not nn.Linear or act is None or type(act).__name__ not in ACTIVATIONS:
            raise refuse(f"policy_net is not Linear/activation pairs: {policy.mlp_extractor.policy_net}")
        pi.append(lin.out_features)
        acts.add(type(act).__name__)
    vf = [m.out_features for m in policy.mlp_extractor.value_net if type(m) is nn.Linear]
    activation = policy.activation_fn.__name__ if not acts else acts.pop()
    if acts or activation not in ACTIVATIONS or type(policy.action_net) is not nn.Linear:
        raise refuse("mixed or unknown activations, or an action_net that is not Linear")
    actor = nn.Sequential(OrderedDict(features=nn.Flatten(), policy_net=policy.mlp_extractor.policy_net,
                                      action_net=policy.action_net))
    network = {"features": "flatten", "shared": [], "pi": pi, "vf": vf, "activation": activation,
               "share_features_extractor": bool(policy.share_features_extractor)}
    return actor, network


def _versions() -> dict[str, str]:
    from importlib.metadata import PackageNotFoundError, version

    out = {}
    for name in ("torch", "stable-baselines3", "sb3-contrib"):
        try:
            out[name] = version(name)
        except PackageNotFoundError:
            pass
    return out


def _write_zip(p: Path, members: dict[str, bytes]) -> None:
    p.parent.mkdir(parents=True, exist_ok=True)
    tmp = p.with_name(p.name + ".tmp")  # readers (opponent pools) never see a half-written file
    with zipfile.ZipFile(tmp, "w", zipfile.ZIP_DEFLATED) as z:
        for name, data in members.items():
            z.writestr(zipfile.ZipInfo(name, _FIXED_TIME), data, compress_type=zipfile.ZIP_DEFLATED)
    os.replace(tmp, p)


def save_policy(model_or_policy: Any, path: str | os.PathLike, meta: dict[str, Any]) -> Path:
    """Write the safe checkpoint of a live MaskablePPO model (or its policy) to ``path``; returns it.

    ``meta`` gives ``game``, ``flags``, ``obs_shape``, ``num_actions`` and the provenance (``run_name``,
    ``config``; ``num_timesteps`` is the model's). The written file is read back and checked to give the
    very logits of the live policy (without touching the global random generators).
    """

    policy = getattr(model_or_policy, "policy", model_or_policy)
    actor, network = actor_from_sb3(policy)
    obs_shape = [int(math.prod(policy.observation_space.shape))]
    num_actions = int(policy.action_space.n)
    steps = getattr(model_or_policy, "num_timesteps", meta.get("num_timesteps"))
    return _write_actor(path, actor, network, obs_shape, num_actions, meta, steps, "policy")


def actor_network(actor: Any) -> dict[str, Any]:
    """The ``network`` metadata of a plain torch actor laid out as this format rebuilds it.

    ``actor`` is an ``nn.Sequential`` with the children ``features`` (``nn.Flatten``), ``policy_net``
    (``Linear``/activation pairs) and ``action_net`` (``Linear``), the module ``load_actor`` returns
    (``build_actor`` builds it so, for every trainer). Anything else raises ``CheckpointError``.
    """
    from torch import nn

    def refuse(why: str) -> CheckpointError:
        return CheckpointError(f"this actor cannot be saved as {FORMAT}: {why}")

    if not isinstance(actor, nn.Sequential) or [n for n, _ in actor.named_children()] != ["features", "policy_net",
                                                                                          "action_net"]:
        raise refuse("expected nn.Sequential(features=Flatten, policy_net=Sequential(...), action_net=Linear)")
    if type(actor.features) is not nn.Flatten or type(actor.action_net) is not nn.Linear:
        raise refuse("features must be nn.Flatten and action_net an nn.Linear")
    layers = list(actor.policy_net)
    pi, acts = [], set()
    for i in range(0, len(layers), 2):
        lin, act = layers[i], layers[i + 1] if i + 1 < len(layers) else None
        if type(lin) is not nn.Linear or act is None or type(act).__name__ not in ACTIVATIONS:
            raise refuse(f"policy_net is not Linear/activation pairs: {actor.policy_net}")
        pi.append(lin.out_features)
        acts.add(type(act).__name__)
    if len(acts) > 1:
        raise refuse(f"mixed activations {sorted(acts)}")
    return {"features": "flatten", "shared": [], "pi": pi, "activation": acts.pop() if acts else "Tanh",
            "share_features_extractor": False}


def save_actor(actor: Any, path: str | os.PathLike, meta: dict[str, Any], *, vf: list[int] | None = None,
               num_timesteps: int | None = None) -> Path:
    """Write the safe checkpoint of a plain torch actor (see ``actor_network``) to ``path``; returns it.

    ``meta`` as for ``save_policy``; ``vf`` (the critic's hidden sizes) is recorded in ``network`` for
    information. The written file is read back and checked to give the very logits of ``actor``.
    """

    network = {**actor_network(actor), "vf": list(vf or [])}
    first = actor.policy_net[0] if network["pi"] else actor.action_net
    obs_shape, num_actions = [int(first.in_features)], int(actor.action_net.out_features)
    steps = meta.get("num_timesteps") if num_timesteps is None else num_timesteps
    return _write_actor(path, actor, network, obs_shape, num_actions, meta, steps, "actor")


def _write_actor(path: str | os.PathLike, actor: Any, network: dict[str, Any], obs_shape: list[int], num_actions: int,
                 meta: dict[str, Any], steps: int | None, what: str) -> Path:
    """``save_policy`` and ``save_actor``: check ``meta`` against the network, write the zip, and read it
    back through the safe loader: the file must give the live ``what``'s logits, bit for bit."""
    import torch

    if list(meta.get("obs_shape", obs_shape)) != obs_shape or int(meta.get("num_actions", num_actions)) != num_actions:
        raise CheckpointError(f"metadata obs_shape={meta.get('obs_shape')} num_actions={meta.get('num_actions')} "
                              f"do not fit the {what} ({obs_shape}, {num_actions})")
    full = {k: v for k, v in meta.items() if k not in ("format", "network", "versions")}
    full.update({"format": FORMAT, "obs_shape": obs_shape, "num_actions": num_actions, "network": network,
                 "num_timesteps": None if steps is None else int(steps), "versions": _versions()})
    full.setdefault("flags", {})
    state = {k: v.detach().to("cpu", torch.float32).clone().contiguous() for k, v in actor.state_dict().items()}
    buf = io.BytesIO()
    torch.save(state, buf)
    p = Path(path)
    _write_zip(p, {META_NAME: json.dumps(full, indent=1, sort_keys=True, default=str).encode("utf-8"),
                   WEIGHTS_NAME: buf.getvalue()})
    loaded, _ = load_actor(p)
    x = torch.rand((16, obs_shape[0]), generator=torch.Generator().manual_seed(0)) * 2 - 1
    with torch.no_grad():
        if not torch.equal(loaded(x), actor(x)):
            raise CheckpointError(f"{p}: the written checkpoint does not reproduce the {what}'s logits")
    return p


def save_checkpoint(model: Any, path: str | os.PathLike, meta: dict[str, Any]) -> Path:
    """An SB3 run file (for ``--resume``; trusted files only): ``model.save`` plus ``mazzo.json``."""
    p = Path(path)
    if p.suffix != ".zip":
        p = p.with_suffix(".zip")
    p.parent.mkdir(parents=True, exist_ok=True)
    model.save(p)
    full = {**{k: v for k, v in meta.items() if k != "network"}, "format": RUN_FORMAT,
            "num_timesteps": int(model.num_timesteps)}
    with zipfile.ZipFile(p, "a") as z:
        z.writestr(META_NAME, json.dumps(full, indent=1, sort_keys=True, default=str))
    return p


def export_checkpoint(src: str | os.PathLike, dst: str | os.PathLike, game: str | None = None,
                      flags: dict[str, Any] | None = None) -> Path:
    """Convert a TRUSTED Stable-Baselines3 MaskablePPO file into a safe checkpoint at ``dst``.

    Loading ``src`` unpickles it (SB3's format), which can run code: only convert files you trust, such
    as your own runs. ``src`` written by ``train/sb3`` carries its game and flags; a plain SB3 file
    needs ``game`` (and ``flags`` if not the defaults). A safe checkpoint as ``src`` is checked and copied.
    """
    p, meta, names = _open_meta(src)
    src, meta = p, meta or {}
    if meta.get("format") == FORMAT:
        load_actor(src, _check_policy_meta(p, meta, names))  # the whole check, weights included
        return _copy_safe(src, Path(dst))
    if meta and meta.get("format") != RUN_FORMAT:
        raise CheckpointError(f"{src}: unknown checkpoint format {meta.get('format')!r}; expected {RUN_FORMAT!r}")
    if not meta:
        if game is None:
            raise CheckpointError(f"{src} has no {META_NAME} (not written by the SB3 trainer): give the game it was "
                                  "trained on (--game GAME, and --flags JSON if not the defaults)")
        meta = {"game": game, "flags": dict(flags or {})}
    from stable_baselines3.common.save_util import load_from_zip_file

    data, params, _ = load_from_zip_file(src, device="cpu", print_system_info=False)  # unpickles: trusted input
    if not data or "policy" not in params:
        raise CheckpointError(f"{src} holds no policy weights (is it a MaskablePPO file?)")
    policy = data["policy_class"](data["observation_space"], data["action_space"], lambda _: 0.0,
                                  **data.get("policy_kwargs", {}))
    policy.load_state_dict(params["policy"])
    policy.set_training_mode(False)
    meta = {**meta, "num_timesteps": data.get("num_timesteps", meta.get("num_timesteps"))}
    if "obs_shape" in meta and list(meta["obs_shape"]) != list(policy.observation_space.shape):
        raise CheckpointError(f"{src}: {META_NAME} says obs_shape {meta['obs_shape']}, the policy has "
                              f"{list(policy.observation_space.shape)}")
    return save_policy(policy, dst, meta)


def _copy_safe(src: Path, dst: Path) -> Path:
    with zipfile.ZipFile(src) as z:
        members = {n: _read_member(z, n, MAX_WEIGHTS_BYTES, src) for n in (META_NAME, WEIGHTS_NAME)}
    _write_zip(dst, members)
    return dst
