"""``TrainedAgent``: a MaskablePPO checkpoint playing through the agents' protocol.

A checkpoint is the ``.zip`` that Stable-Baselines3 writes, plus one extra member,
``mazzo.json``, written by ``save_checkpoint``:

| key            | meaning                                                     |
|----------------|-------------------------------------------------------------|
| ``format``     | ``"mazzo-ppo/1"``                                           |
| ``game``       | the game it was trained on (``"briscola5"`` ...)            |
| ``flags``      | the game flags of training (e.g. ``{"num_players": 5}``)    |
| ``obs_shape``  | the observation vector's shape, e.g. ``[1169]``             |
| ``num_actions``| the size of the action space                                |
| ``num_timesteps``, ``run_name``, ``config`` | where it came from             |

The agent checks the game and the observation shape before it plays (at construction when the
env's ``flags`` are given, otherwise on the first observation), so a Pigugnìn policy trained with
4 players refuses a 5-player table with a message saying so. It reads only its seat's observation
vector and mask; it picks the most probable legal action (``deterministic=True``, the default) or
samples from the masked policy with its own seeded generator.

``TrainedAgent.pretrained(game)`` loads ``agents/pretrained/<game>.zip`` (play-only checkpoints made with
``python -m agents.trained export runs/<run>/best.zip agents/pretrained/<game>.zip``:
no optimizer state; see ``agents/pretrained/README.md``).
"""

from __future__ import annotations

import json
import os
import zipfile
from pathlib import Path
from typing import Any

import numpy as np

from agents.base import BaseAgent, legal_actions
from envs.core.errors import ConfigError

__all__ = ["TrainedAgent", "save_checkpoint", "read_metadata", "slim_checkpoint", "PRETRAINED_DIR", "META_NAME"]

META_NAME = "mazzo.json"
FORMAT = "mazzo-ppo/1"
PRETRAINED_DIR = Path(__file__).resolve().parent / "pretrained"


def _zip_path(path: str | os.PathLike) -> Path:
    p = Path(path)
    if not p.exists() and p.suffix != ".zip" and p.with_suffix(".zip").exists():
        p = p.with_suffix(".zip")
    if not p.is_file():
        raise FileNotFoundError(f"checkpoint not found: {str(path)!r} (expected a .zip written by train/ppo.py)")
    return p


def read_metadata(path: str | os.PathLike) -> dict[str, Any]:
    """The ``mazzo.json`` of a checkpoint; raises a clear error for a missing or foreign file."""
    p = _zip_path(path)
    try:
        with zipfile.ZipFile(p) as z:
            if META_NAME not in z.namelist():
                raise ConfigError(f"{p} is not a Mazzo checkpoint: it has no {META_NAME} (save it with train/ppo.py)")
            meta = json.loads(z.read(META_NAME))
    except zipfile.BadZipFile as e:
        raise ConfigError(f"{p} is not a checkpoint .zip ({e})") from None
    if meta.get("format") != FORMAT:
        raise ConfigError(f"{p}: unknown checkpoint format {meta.get('format')!r}; expected {FORMAT!r}")
    return meta


def save_checkpoint(model: Any, path: str | os.PathLike, meta: dict[str, Any]) -> Path:
    """``model.save(path)`` plus the ``mazzo.json`` metadata member; returns the ``.zip`` path."""
    p = Path(path)
    if p.suffix != ".zip":
        p = p.with_suffix(".zip")
    p.parent.mkdir(parents=True, exist_ok=True)
    model.save(p)
    full = {"format": FORMAT, **meta, "num_timesteps": int(model.num_timesteps)}
    with zipfile.ZipFile(p, "a") as z:
        z.writestr(META_NAME, json.dumps(full, indent=1, sort_keys=True, default=str))
    return p


def slim_checkpoint(src: str | os.PathLike, dst: str | os.PathLike) -> Path:
    """A play-only copy of a checkpoint (no optimizer state): what ``agents/pretrained`` ships."""
    src, dst = _zip_path(src), Path(dst)
    read_metadata(src)
    dst.parent.mkdir(parents=True, exist_ok=True)
    keep = ("data", "policy.pth", META_NAME, "_stable_baselines3_version", "system_info.txt")
    tmp = dst.with_name(dst.name + ".tmp")  # src may be dst: write aside, then replace
    with zipfile.ZipFile(src) as zin, zipfile.ZipFile(tmp, "w", zipfile.ZIP_DEFLATED) as zout:
        for name in keep:
            if name in zin.namelist():
                zout.writestr(name, zin.read(name))
    os.replace(tmp, dst)
    return dst


def _obs_size(game: str, flags: dict[str, Any]) -> int:
    from envs.registry import make_raw_env

    raw = make_raw_env(game, **flags)
    return int(raw.observation_space(raw.possible_agents[0])["observation"].shape[0])


class TrainedAgent(BaseAgent):
    """Plays a MaskablePPO checkpoint (see the module docstring).

    | argument        | meaning                                                           |
    |-----------------|-------------------------------------------------------------------|
    | ``path``        | the checkpoint ``.zip`` (``.zip`` may be left out)                |
    | ``game``        | the game it is asked to play; must be the one it was trained on   |
    | ``seed``        | seeds the sampling generator (only used when not deterministic)   |
    | ``flags``       | the env's flags, to check the observation shape before any game   |
    | ``deterministic``| argmax of the masked policy (default) or a sample                |
    """

    name = "ppo"
    _cache: dict[tuple[str, float], tuple[Any, dict]] = {}

    def __init__(
        self,
        path: str | os.PathLike,
        game: str,
        seed: int | None = None,
        flags: dict[str, Any] | None = None,
        deterministic: bool = True,
        **_: Any,
    ):
        super().__init__(game, seed=seed)
        p = _zip_path(path)
        self.path = str(p)
        self.meta = read_metadata(p)
        if self.meta.get("game") != game:
            raise ConfigError(
                f"checkpoint {p} was trained on {self.meta.get('game')!r}; it cannot play {game!r} "
                f"(train one with: python -m train.ppo --config configs/{game}/ppo.yaml)"
            )
        self.obs_shape = tuple(self.meta["obs_shape"])
        if flags is not None:
            size = _obs_size(game, dict(flags))
            if (size,) != self.obs_shape:
                raise ConfigError(self._shape_message((size,), flags))
        self.deterministic = bool(deterministic)
        self.policy = self._load_policy(p)
        self.name = f"ppo:{p.name}"

    @classmethod
    def pretrained(cls, name: str, game: str | None = None, seed: int | None = None, **kwargs: Any) -> TrainedAgent:
        """The checkpoint shipped as ``agents/pretrained/<name>.zip`` (``game`` defaults to ``name``)."""
        path = PRETRAINED_DIR / f"{name}.zip"
        if not path.is_file():
            have = sorted(q.stem for q in PRETRAINED_DIR.glob("*.zip"))
            raise FileNotFoundError(
                f"no pretrained checkpoint {name!r} in {PRETRAINED_DIR}; available: {', '.join(have) or 'none'}"
            )
        agent = cls(path, game=game or name, seed=seed, **kwargs)
        agent.name = f"pretrained:{name}"
        return agent

    @classmethod
    def from_model(cls, model: Any, game: str, meta: dict[str, Any], deterministic: bool = True) -> TrainedAgent:
        """Wrap a live model's policy (shares its weights): periodic evaluation during training."""
        agent = cls.__new__(cls)
        BaseAgent.__init__(agent, game, seed=0)
        agent.path, agent.meta = "<live model>", {"format": FORMAT, **meta}
        agent.obs_shape = tuple(meta["obs_shape"])
        agent.deterministic = deterministic
        agent.policy = model.policy
        agent.name = "ppo"
        return agent

    def _shape_message(self, shape: tuple, flags: Any) -> str:
        return (
            f"checkpoint {self.path} expects observations of shape {self.obs_shape} ({self.meta.get('game')} with "
            f"flags {self.meta.get('flags') or {}}), but this env gives {shape}"
            + (f" (flags {dict(flags)})" if flags else "")
            + "; use a checkpoint trained with the same flags (e.g. the same num_players)"
        )

    @classmethod
    def _load_policy(cls, p: Path) -> Any:
        key = (str(p), p.stat().st_mtime)
        if key not in cls._cache:
            from stable_baselines3.common.save_util import load_from_zip_file

            data, params, _ = load_from_zip_file(p, device="cpu", print_system_info=False)
            if not data or "policy" not in params:
                raise ConfigError(f"{p} holds no policy weights (is it a checkpoint written by train/ppo.py?)")
            policy = data["policy_class"](
                data["observation_space"], data["action_space"], lambda _: 0.0, **data.get("policy_kwargs", {})
            )
            policy.load_state_dict(params["policy"])
            policy.set_training_mode(False)
            cls._cache[key] = (policy, data)
        return cls._cache[key][0]

    def logits(self, observation: dict[str, np.ndarray]) -> np.ndarray:
        """The policy's action logits (before masking) for one observation."""
        import torch

        obs = observation["observation"]
        if obs.shape != self.obs_shape:
            raise ConfigError(self._shape_message(obs.shape, None))
        policy = self.policy
        with torch.no_grad():
            x = torch.as_tensor(obs, dtype=torch.float32).reshape(1, -1)
            latent = policy.mlp_extractor.forward_actor(policy.pi_features_extractor(x))
            return policy.action_net(latent)[0].numpy().astype(np.float64)

    def act(self, observation: dict[str, np.ndarray]) -> int:
        legal = legal_actions(observation)
        logits = self.logits(observation)[legal]
        if self.deterministic:
            return int(legal[int(np.argmax(logits))])
        p = np.exp(logits - logits.max())
        return int(legal[self.rng.choice(legal.size, p=p / p.sum())])

    def __repr__(self) -> str:
        return f"TrainedAgent({self.path!r}, game={self.game!r})"


if __name__ == "__main__":
    import sys

    if len(sys.argv) != 4 or sys.argv[1] != "export":
        raise SystemExit("usage: python -m agents.trained export runs/<run>/best.zip agents/pretrained/<game>.zip")
    out = slim_checkpoint(sys.argv[2], sys.argv[3])
    print(f"{out}: {out.stat().st_size / 1e6:.2f} MB, {read_metadata(out)['game']}")
