"""Calls outside an episode: before the first ``reset()`` and after every agent has been removed.

``raw_env`` answers with ``ResetNeededError`` (a ``MazzoError`` and a ``RuntimeError``) whose
message names the call and says to call ``reset()``, in the words of PettingZoo's
order-enforcing wrapper. Through ``env()`` that wrapper's own checks come first and keep
PettingZoo's behaviour (an ``AssertionError`` saying to reset before, a warning for ``step``
after the end); what they let through gets the raw env's ``ResetNeededError``. Nothing is
corrupted: the env plays an episode normally after ``reset()``.
"""

from __future__ import annotations

import numpy as np
import pytest
from pettingzoo.utils.env_logger import EnvLogger

from envs import briscola5_v0, picchetto_v0, pigugnin_v0
from envs.core.errors import MazzoError, ResetNeededError

MODULES = [briscola5_v0, pigugnin_v0, picchetto_v0]
GAME_IDS = ["briscola5", "pigugnin", "picchetto"]
WRAPPERS = ["raw_env", "env"]
BEFORE = "reset\\(\\) needs to be called before {}; call reset\\(\\) first"
AFTER = "{} called after the episode is over \\(every agent was removed\\); call reset\\(\\) to start a new one"


def play_out(env, seed: int = 0) -> dict:
    """Random legal play to the end, dead steps included; the final observation of every agent."""
    env.reset(seed=seed)
    rng = np.random.default_rng(seed)
    for _agent in env.agent_iter():
        obs, _, term, trunc, _ = env.last()
        env.step(None if term or trunc else int(rng.choice(np.flatnonzero(obs["action_mask"]))))
    assert env.agents == []
    return {a: env.observe(a)["observation"].tobytes() for a in env.possible_agents}


def check_plays_normally(env, make) -> None:
    """After the refused calls the env plays an episode exactly like a fresh one."""
    assert play_out(env, seed=4) == play_out(make(), seed=4)


@pytest.mark.parametrize("wrapper", WRAPPERS)
@pytest.mark.parametrize("module", MODULES, ids=GAME_IDS)
def test_calls_before_reset_say_to_reset(module, wrapper):
    make = getattr(module, wrapper)
    env = make()
    name = env.unwrapped.metadata["name"]
    # (call, what PettingZoo's wrapper calls it, the refused call)
    calls = [
        ("step()", "step", lambda: env.step(0)),
        ("step()", "step", lambda: env.step(None)),
        ("last()", "observe", lambda: env.last()),
        ("last()", None, lambda: env.last(observe=False)),  # the wrapper lets this one through
        *[("observe()", "observe", lambda a=a: env.observe(a)) for a in env.possible_agents],
    ]
    if wrapper == "env":
        calls += [("render()", "render", lambda: env.render()), ("agent_iter()", "agent_iter", lambda: env.agent_iter())]
    for call, stock, fn in calls:
        if wrapper == "env" and stock is not None:
            with pytest.raises(AssertionError, match=f"^reset\\(\\) needs to be called before {stock}"):
                fn()
            continue
        with pytest.raises(ResetNeededError, match=f"^{name}: " + BEFORE.format(call[:-2] + "\\(\\)")) as err:
            fn()
        assert isinstance(err.value, MazzoError) and isinstance(err.value, RuntimeError)
    check_plays_normally(env, make)


@pytest.mark.parametrize("wrapper", WRAPPERS)
@pytest.mark.parametrize("module", MODULES, ids=GAME_IDS)
def test_calls_after_every_agent_left_say_the_episode_is_over(module, wrapper):
    make = getattr(module, wrapper)
    env = make()
    name = env.unwrapped.metadata["name"]
    final = play_out(env)
    for observe in (True, False):
        with pytest.raises(ResetNeededError, match=f"^{name}: " + AFTER.format("last\\(\\)")):
            env.last(observe=observe)
    if wrapper == "raw_env":
        for action in (None, 0):
            with pytest.raises(ResetNeededError, match=f"^{name}: " + AFTER.format("step\\(\\)")):
                env.step(action)
    else:  # PettingZoo's order-enforcing wrapper: a warning, and nothing happens
        EnvLogger.flush()
        env.step(0)
        assert any("step() called after all agents are terminated or truncated" in m for m in EnvLogger.mqueue)
    # the final observations are still there, unchanged by the refused calls
    assert {a: env.observe(a)["observation"].tobytes() for a in env.possible_agents} == final
    assert env.agents == [] and env.rewards == {} and env.infos == {}
    check_plays_normally(env, make)
