"""Players for Mazzo games: the protocol, random, per-game heuristics and trained policies.

``make_agent(spec, game, seed=None)`` builds one from a spec string:

| spec                     | player                                               |
|--------------------------|------------------------------------------------------|
| ``random``               | uniformly random legal actions                       |
| ``heuristic``            | the game's rule-based heuristic (``agents/<game>_heuristic.py``) |
| ``ppo:PATH``             | a safe MaskablePPO checkpoint (``*.mazzo.zip``, ``agents/checkpoint.py``) |
| ``pretrained:GAME``      | the small checkpoint shipped in ``agents/pretrained/`` |
"""

from agents.base import Agent, BaseAgent, legal_actions
from agents.registry import AGENT_KINDS, make_agent

__all__ = ["Agent", "BaseAgent", "legal_actions", "make_agent", "AGENT_KINDS"]
