"""Helpers shared by the agent tests of every game."""

from __future__ import annotations


def play(env, lineup, seed) -> dict:
    """Play one episode with ``lineup`` (agent name -> player); returns each agent's return.

    Asserts on every step that the chosen action is legal in the observed mask.
    """
    env.reset(seed=seed)
    for player in lineup.values():
        player.reset()
    returns = dict.fromkeys(env.possible_agents, 0)
    for name in env.agent_iter():
        obs, reward, term, trunc, _ = env.last()
        returns[name] += reward
        if term or trunc:
            env.step(None)
            continue
        action = lineup[name].act(obs)
        assert obs["action_mask"][action] == 1, (name, action)
        env.step(action)
    return returns
