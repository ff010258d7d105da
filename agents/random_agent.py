"""The uniformly random legal player: the floor every other agent must beat."""

from __future__ import annotations

import numpy as np

from agents.base import BaseAgent, legal_actions


class RandomAgent(BaseAgent):
    """Picks uniformly among the legal actions of the mask."""

    name = "random"

    def act(self, observation: dict[str, np.ndarray]) -> int:
        legal = legal_actions(observation)
        return int(legal[self.rng.integers(legal.size)])
