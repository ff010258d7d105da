"""The env runner of the batched engine (``env_engine: batched``): RLlib's ``SingleAgentEnvRunner`` without the
episode callbacks that nobody listens to, and nothing else changed.

RLlib's runner treats the vector env as ``num_envs`` separate envs, so its per-game bookkeeping (episodes,
unbatching, callbacks) costs about four times what the batched engine itself takes per learner step
(``benchmarks/rllib_speed.py --profile``). One part of it does no work in Mazzo's runs:

| what | RLlib | here |
|---|---|---|
| episode callbacks (``on_episode_created/start/step/end``) | a ``make_callback`` per game and step: a kwargs dict, the lookups, a call to a method that does nothing | skipped when no callback object overrides that event and no callback function is set for it (checked once per event); any that does is called as before |

They took 9% of the runner's CPU time under the profiler; without them Briscola's runner samples about 3% more
learner steps per CPU second (alternating runs of ``benchmarks/rllib_speed.py``, 262k steps a round, 22.8k against
22.1k). The rest of RLlib's per-game bookkeeping (episode objects, ``unbatch``) is its ``_sample`` loop itself, left
as it is. The samples, metrics and episodes are RLlib's own, unchanged (``tests/train/test_rllib_batched.py``
compares the two runners on the same seed).
"""

from __future__ import annotations

from ray.rllib.callbacks.callbacks import RLlibCallback
from ray.rllib.env.single_agent_env_runner import SingleAgentEnvRunner

__all__ = ["BatchedEnvRunner"]


class BatchedEnvRunner(SingleAgentEnvRunner):
    """``SingleAgentEnvRunner`` that calls only the episode callbacks that listen."""

    def _listens(self, which: str) -> bool:
        """Does any callback object override ``which``, or any callback function handle it?"""
        listening = self.__dict__.setdefault("_listening", {})  # also before __init__ ends (the first reset)
        if which not in listening:
            base = getattr(RLlibCallback, which)
            overridden = any(getattr(type(obj), which, base) is not base for obj in self._callbacks)
            listening[which] = overridden or bool(getattr(self.config, f"callbacks_{which}", None))
        return listening[which]

    def _make_on_episode_callback(self, which: str, idx: int, episodes: list) -> None:
        if self._listens(which):
            super()._make_on_episode_callback(which, idx, episodes)
