"""Picchetto (Italian Piquet): PettingZoo AEC environment.

placeholder docstring, completed below
"""

from __future__ import annotations

from typing import Any

from envs.core.aec import CardGameEnv
from envs.core.wrappers import OrderEnforcingWrapper
from envs.picchetto.game import PicchettoGame
from envs.picchetto.observation import PicchettoObserver

__all__ = ["env", "raw_env"]


class raw_env(CardGameEnv):  # noqa: N801 (PettingZoo naming)
    """Picchetto without wrappers (raises on illegal actions itself)."""

    metadata = {"render_modes": ["ansi", "human"], "name": "picchetto_v0", "is_parallelizable": False}
    game_class = PicchettoGame
    observer_class = PicchettoObserver


def env(**kwargs: Any) -> OrderEnforcingWrapper:
    """Picchetto with the PettingZoo order-enforcing wrapper; ``kwargs`` are flags."""
    return OrderEnforcingWrapper(raw_env(**kwargs))
