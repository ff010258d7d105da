"""The wrapper chain that ``env()`` applies.

PettingZoo's classic envs wrap ``raw_env`` in ``TerminateIllegalWrapper``,
``AssertOutOfBoundsWrapper`` and ``OrderEnforcingWrapper``. In Mazzo the raw env already
raises a clear ``IllegalActionError`` for out-of-range and illegal ids (and keeps its
state), which supersedes the first two. What remains is order enforcement, whose stock
implementation forwards every attribute through ``__getattr__``; on a 20-microsecond step
that alone costs a third of the budget. ``OrderEnforcingWrapper`` below is the stock class
with the hot attributes forwarded directly: same checks, same errors, same iterator.

Calls outside an episode: PettingZoo's checks come first and keep their behaviour (before the
first ``reset()``, ``step``, ``observe``, ``last()``, ``render`` and ``agent_iter`` raise its
``AssertionError("reset() needs to be called before ...")`` and attributes such as
``agent_selection`` its ``AttributeError``; ``step`` once every agent has been removed warns and
changes nothing). What they let through reaches the raw env, which raises Mazzo's
``ResetNeededError``: ``last()`` once every agent has been removed, and ``last(observe=False)``
before reset.
"""

from __future__ import annotations

from typing import Any

from pettingzoo.utils.wrappers import OrderEnforcingWrapper as _StockOrderEnforcing

__all__ = ["OrderEnforcingWrapper"]


def _forward(name: str) -> property:
    def get(self: OrderEnforcingWrapper) -> Any:
        if not self._has_reset:
            raise AttributeError(f"{name} cannot be accessed before reset")
        return getattr(self.env, name)

    return property(get)


class OrderEnforcingWrapper(_StockOrderEnforcing):
    """PettingZoo's ``OrderEnforcingWrapper`` with direct forwarding on the hot path."""

    agent_selection = _forward("agent_selection")
    agents = _forward("agents")
    rewards = _forward("rewards")
    terminations = _forward("terminations")
    truncations = _forward("truncations")
    infos = _forward("infos")
    num_agents = _forward("num_agents")

    @property
    def _cumulative_rewards(self) -> dict:
        return self.env._cumulative_rewards

    @property
    def possible_agents(self) -> list:
        return self.env.possible_agents

    def step(self, action: Any) -> None:
        if self._has_reset and self.env.agents:
            self._has_updated = True
            self.env.step(action)
        else:
            super().step(action)  # PettingZoo: raises before reset; warns and does nothing after the end

    def last(self, observe: bool = True) -> tuple:
        if observe and not self._has_reset:
            super().observe(None)  # raises PettingZoo's "observe before reset" error
        return self.env.last(observe)
