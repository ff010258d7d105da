"""``TrainedAgent``: a trained policy playing through the agents' protocol, from a safe checkpoint.

It plays only safe checkpoints (``mazzo-policy/1``, ``*.mazzo.zip``: JSON metadata and the actor's
weights read with ``torch.load(weights_only=True)``; ``agents/checkpoint.py`` describes the format).
Loading one executes nothing from the file. A Stable-Baselines3 ``.zip`` (the run files that
SB3 trainer, ``train/sb3``, keeps for ``--resume``) is refused without being unpickled, with the way to convert
a file you trust.

The agent checks the game and the observation shape before it plays (at construction when the
env's ``flags`` are given, otherwise on the first observation), so a Pigugnìn policy trained with
4 players refuses a 5-player table with a message saying so. It reads only its seat's observation
vector and mask and decides as sb3-contrib's masked policy does: the most probable legal action
(``deterministic=True``, the default) or a sample of the masked policy drawn with its own seeded
generator.

``TrainedAgent.pretrained(game)`` loads ``agents/pretrained/<game>.mazzo.zip`` (see
``agents/pretrained/README.md``).

Command line (trusted input: loading an SB3 file unpickles it, so convert only files you trust,
such as your own runs)::

    python -m agents.trained export runs/<run>/best.zip runs/<run>/best.mazzo.zip
    python -m agents.trained export model.zip model.mazzo.zip --game pigugnin --flags '{"num_players": 4}'
"""

from __future__ import annotations

import os
from pathlib import Path
from typing import Any

import numpy as np

from agents.base import BaseAgent, legal_actions
from agents.checkpoint import (
    EXT,
    FORMAT,
    META_NAME,
    CheckpointError,
    UnsafeCheckpointError,
    export_checkpoint,
    load_actor,
    masked_probs,
    read_metadata,
    read_policy_metadata,
    read_run_metadata,
    save_checkpoint,
    save_policy,
)
from envs.core.errors import ConfigError
from envs.registry import game_spec

__all__ = ["TrainedAgent", "save_checkpoint", "save_policy", "export_checkpoint", "read_metadata",
           "read_run_metadata", "CheckpointError", "UnsafeCheckpointError", "PRETRAINED_DIR", "META_NAME", "FORMAT",
           "EXT"]

PRETRAINED_DIR = Path(__file__).resolve().parent / "pretrained"


class TrainedAgent(BaseAgent):
    """Plays a safe checkpoint (see the module docstring).

    | argument        | meaning                                                           |
    |-----------------|-------------------------------------------------------------------|
    | ``path``        | the checkpoint, ``*.mazzo.zip`` (the extension may be left out)   |
    | ``game``        | the game it is asked to play; must be the one it was trained on   |
    | ``seed``        | seeds the sampling generator (only used when not deterministic)   |
    | ``flags``       | the env's flags, to check the observation shape before any game   |
    | ``deterministic``| argmax of the masked policy (default) or a sample                |
    """

    name = "ppo"
    #: (path, mtime, size) -> (actor, meta): opponent pools build many agents from one file.
    _cache: dict[tuple[str, int, int], tuple[Any, dict]] = {}

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
        p, meta = read_policy_metadata(path)  # JSON only: anything but a safe checkpoint is refused here
        self.path, self.meta = str(p), meta
        if meta["game"] != game:
            raise ConfigError(
                f"checkpoint {p} was trained on {meta['game']!r}; it cannot play {game!r} "
                f"(train one with: python -m train --config configs/{game}/ppo.yaml)"
            )
        self.obs_shape = tuple(meta["obs_shape"])
        if flags is not None:
            shape = game_spec(game).observation_shape(flags)  # no env is built; bad flags raise ConfigError
            if shape != self.obs_shape:
                raise ConfigError(self._shape_message(shape, flags))
        self.deterministic = bool(deterministic)
        self.actor = self._load_actor(p, meta)
        self.name = f"ppo:{p.name}"

    @classmethod
    def pretrained(cls, name: str, game: str | None = None, seed: int | None = None, **kwargs: Any) -> TrainedAgent:
        """The checkpoint shipped as ``agents/pretrained/<name>.mazzo.zip`` (``game`` defaults to ``name``).

        A game with a player-count flag may ship one checkpoint per count: with ``flags`` asking for
        ``num_players=N``, ``<name>_<N>p.mazzo.zip`` is played when it exists (``pretrained:pigugnin``
        at five players is ``pigugnin_5p.mazzo.zip``), otherwise ``<name>.mazzo.zip``, whose shape
        check then says what it was trained for.
        """
        path = PRETRAINED_DIR / f"{name}{EXT}"
        players = (kwargs.get("flags") or {}).get("num_players")
        if players is not None and (PRETRAINED_DIR / f"{name}_{players}p{EXT}").is_file():
            path = PRETRAINED_DIR / f"{name}_{players}p{EXT}"
        if not path.is_file():
            have = sorted(q.name[: -len(EXT)] for q in PRETRAINED_DIR.glob(f"*{EXT}"))
            raise FileNotFoundError(
                f"no pretrained checkpoint {name!r} in {PRETRAINED_DIR}; available: {', '.join(have) or 'none'}"
            )
        agent = cls(path, game=game or name, seed=seed, **kwargs)
        agent.name = f"pretrained:{name}"
        return agent

    @classmethod
    def from_model(cls, model: Any, game: str, meta: dict[str, Any], deterministic: bool = True) -> TrainedAgent:
        """Wrap a live MaskablePPO model's actor (shares its weights): periodic evaluation during training."""
        from agents.checkpoint import actor_from_sb3

        agent = cls.__new__(cls)
        BaseAgent.__init__(agent, game, seed=0)
        agent.actor, network = actor_from_sb3(model.policy)
        agent.path, agent.meta = "<live model>", {"format": FORMAT, **meta, "network": network}
        agent.obs_shape = tuple(meta["obs_shape"])
        agent.deterministic = deterministic
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
    def _load_actor(cls, p: Path, meta: dict[str, Any]) -> Any:
        st = p.stat()
        key = (str(p.resolve()), st.st_mtime_ns, st.st_size)
        if key not in cls._cache:
            cls._cache[key] = load_actor(p, meta)
        return cls._cache[key][0]

    def _torch_obs(self, observation: dict[str, np.ndarray]) -> Any:
        import torch

        obs = observation["observation"]
        if obs.shape != self.obs_shape:
            raise ConfigError(self._shape_message(obs.shape, None))
        return torch.as_tensor(obs, dtype=torch.float32).reshape(1, -1)

    def logits(self, observation: dict[str, np.ndarray]) -> np.ndarray:
        """The policy's action logits (before masking) for one observation."""
        import torch

        with torch.no_grad():
            return self.actor(self._torch_obs(observation))[0].numpy().astype(np.float64)

    def probs(self, observation: dict[str, np.ndarray]) -> np.ndarray:
        """The masked policy's action probabilities (zero on illegal actions), as sb3-contrib computes them."""
        import torch

        x = self._torch_obs(observation)
        mask = torch.as_tensor(np.asarray(observation["action_mask"]) != 0).reshape(1, -1)
        with torch.no_grad():
            return masked_probs(self.actor(x), mask)[0].numpy()

    def act(self, observation: dict[str, np.ndarray]) -> int:
        legal = legal_actions(observation)
        probs = self.probs(observation)
        if self.deterministic:
            return int(np.argmax(probs))  # the first of equal maxima, as torch.argmax in SB3's predict
        p = probs[legal].astype(np.float64)
        return int(legal[self.rng.choice(legal.size, p=p / p.sum())])

    def __repr__(self) -> str:
        return f"TrainedAgent({self.path!r}, game={self.game!r})"


def main(argv: list[str] | None = None) -> None:
    """``python -m agents.trained export SRC DST [--game GAME] [--flags JSON]`` (trusted SRC only)."""
    import argparse
    import json
    import sys

    parser = argparse.ArgumentParser(
        prog="python -m agents.trained",
        description="Convert a TRUSTED Stable-Baselines3 MaskablePPO .zip into a safe Mazzo checkpoint "
                    f"({FORMAT}, {EXT}). Reading SRC unpickles it, which can run code: convert only files you "
                    "trust, such as your own runs.")
    sub = parser.add_subparsers(dest="command", required=True)
    exp = sub.add_parser("export", help="SB3 run file (trusted) -> safe checkpoint")
    exp.add_argument("src", help="the SB3 .zip, e.g. runs/<run>/best.zip (trusted input)")
    exp.add_argument("dst", help=f"the safe checkpoint to write, e.g. runs/<run>/best{EXT}")
    exp.add_argument("--game", help="the game, for an SB3 file without mazzo.json (not written by the SB3 trainer)")
    exp.add_argument("--flags", default="{}", help="its game flags as JSON (with --game), e.g. '{\"num_players\": 4}'")
    args = parser.parse_args(sys.argv[1:] if argv is None else argv)
    try:
        out = export_checkpoint(args.src, args.dst, game=args.game, flags=json.loads(args.flags))
    except (ConfigError, FileNotFoundError, json.JSONDecodeError) as e:
        raise SystemExit(f"error: {e}") from None
    meta = read_metadata(out)
    print(f"{out}: {out.stat().st_size / 1e6:.2f} MB, {meta['game']} {meta.get('flags') or ''}, "
          f"{meta.get('num_timesteps')} steps")


if __name__ == "__main__":
    main()
