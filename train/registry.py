"""The trainers: a config's ``trainer`` key names one, ``python -m train`` runs it (``train/dispatch.py``).

Adding a trainer is a folder ``train/<name>/`` whose package exposes ``Args`` (a ``train.args.BaseArgs`` with
``trainer: str = "<name>"``), ``check_args(args) -> meta`` and ``main(argv, prog) -> run folder``, and one line
below (docs/architecture.md, "Add a trainer").
"""

from __future__ import annotations

import importlib
from types import ModuleType

from envs.core.errors import ConfigError

__all__ = ["TRAINERS", "DEFAULT", "trainer_module"]

TRAINERS = {
    "sb3": "train.sb3",  # Stable-Baselines3 MaskablePPO on one seat of the AEC env
    "batched": "train.batched",  # PPO on the batched numba engines, every seat's decisions
    "rllib": "train.rllib",  # multi-agent PPO on Ray RLlib (needs the `ray` extra)
}
#: the trainer of a config without a ``trainer`` key (the configs written before the key existed)
DEFAULT = "sb3"


def trainer_module(name: str) -> ModuleType:
    """The package of trainer ``name`` (imported now: it imports neither torch nor Ray)."""
    if name not in TRAINERS:
        raise ConfigError(f"invalid value {name!r} for 'trainer'; allowed: {', '.join(TRAINERS)}")
    return importlib.import_module(TRAINERS[name])
