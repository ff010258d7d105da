"""The trainers' networks: the actor (``agents.checkpoint.build_actor``, the safe checkpoint's layout, initialised
for training), a separate MLP critic, and the fast forward paths of the batched trainer's rollouts.

| function | what |
|---|---|
| ``build_actor(obs_size, num_actions, hidden, activation)`` | ``logits = action_net(policy_net(flatten(obs)))``, orthogonal init (gain sqrt 2, the head 0.01: a near-uniform start, as CleanRL and SB3) |
| ``build_critic(obs_size, hidden, activation)`` | ``value = head(body(obs))[:, 0]``, orthogonal init (the head gain 1); the oracle critic's ``obs_size`` includes the privileged vector |
| ``build_q(obs_size, num_actions, hidden, activation)`` | Deep Monte-Carlo's Q-network: the actor's layout (one value per action, so the safe checkpoint plays it greedily), the actor's init |
| ``first_layers``, ``policy_and_value`` | the actor's and the critic's first layers as one matrix product (``stack_first_layers``) |
| ``inference_layers``, ``run_layers`` | a network as ``[(weight, bias, activation_)]``: the same ops without the modules' call overhead |

Used by the batched trainer (``train/batched``) and the RLlib module (``train/rllib/module.py``); the SB3
trainer's networks are SB3's own policy (its actor has the same layout: ``agents.checkpoint.actor_from_sb3``).
torch is imported inside the functions.
"""

from __future__ import annotations

from typing import Any

from agents.checkpoint import build_actor as actor_layout

__all__ = ["build_actor", "build_critic", "build_q", "first_layers", "policy_and_value", "inference_layers", "run_layers"]


def _mlp(sizes: list[int], activation: str) -> Any:
    from torch import nn

    layers: list[Any] = []
    for a, b in zip(sizes[:-1], sizes[1:], strict=True):
        layers += [nn.Linear(a, b), getattr(nn, activation)()]
    return nn.Sequential(*layers)


def _init(layer: Any, gain: float) -> None:
    from torch import nn

    nn.init.orthogonal_(layer.weight, gain)
    nn.init.zeros_(layer.bias)


def build_actor(obs_size: int, num_actions: int, hidden: list[int], activation: str = "Tanh") -> Any:
    """The safe checkpoint's actor (``agents.checkpoint.build_actor``), initialised for training."""
    from torch import nn

    actor = actor_layout(obs_size, num_actions, list(hidden), activation)
    for m in actor.policy_net:
        if isinstance(m, nn.Linear):
            _init(m, 2**0.5)
    _init(actor.action_net, 0.01)  # near-uniform start (CleanRL, SB3)
    return actor


def build_critic(obs_size: int, hidden: list[int], activation: str = "Tanh") -> Any:
    """A separate MLP to one value."""
    from torch import nn

    body = _mlp([obs_size, *hidden], activation)
    for m in body:
        if isinstance(m, nn.Linear):
            _init(m, 2**0.5)
    head = nn.Linear(hidden[-1] if hidden else obs_size, 1)
    _init(head, 1.0)
    return nn.Sequential(body, head)


def build_q(obs_size: int, num_actions: int, hidden: list[int], activation: str = "Tanh") -> Any:
    """A Q-network with one output per action, in the actor's layout (``build_actor``: its near-zero head makes
    every Q-value start near 0)."""
    return build_actor(obs_size, num_actions, hidden, activation)


def first_layers(actor: Any, critic: Any) -> tuple[Any, Any, int] | None:
    """The actor's and the critic's first linear layers stacked (weight, bias, actor width), or None
    for networks without a hidden layer. Call it under autograd in an update (gradients flow to both)."""
    import torch
    from torch import nn

    a, c = actor.policy_net[0], critic[0][0] if len(critic[0]) else None
    if not isinstance(a, nn.Linear) or not isinstance(c, nn.Linear):
        return None
    return torch.cat((a.weight, c.weight)), torch.cat((a.bias, c.bias)), a.out_features


def policy_and_value(actor: Any, critic: Any, x: Any, stacked: tuple[Any, Any, int] | None) -> tuple[Any, Any]:
    """``(actor(x), critic(x)[:, 0])``, with the two first layers as one product when ``stacked`` is given
    (``first_layers``): the observation is wide (1,169 floats in Briscola), so that layer is most of the cost."""
    import torch.nn.functional as F

    if stacked is None:
        return actor(x), critic(x)[:, 0]
    weight, bias, width = stacked
    h_actor, h_critic = F.linear(x, weight, bias).split((width, weight.shape[0] - width), 1)
    body, head = critic
    return actor.action_net(actor.policy_net[1:](h_actor)), head(body[1:](h_critic))[:, 0]


def inference_layers(net: Any) -> list[tuple[Any, Any, Any]] | None:
    """``net`` (the actor or the critic) as ``[(weight, bias, activation_)]``: the same ops as calling the module,
    without its per-call Python overhead, for the rollout's forward passes (``run_layers``). The activation is
    an in-place op (same values) or None; None for a network this does not know (then call the module)."""
    import torch
    from torch import nn

    inplace = {nn.Tanh: torch.tanh_, nn.ReLU: torch.relu_, nn.Sigmoid: torch.sigmoid_}
    mods = [m for m in net.modules() if not isinstance(m, (nn.Sequential, nn.Flatten))]
    layers: list[tuple[Any, Any, Any]] = []
    for m in mods:
        if isinstance(m, nn.Linear):
            layers.append((m.weight, m.bias, None))
        elif type(m) in inplace and layers and layers[-1][2] is None:
            layers[-1] = (layers[-1][0], layers[-1][1], inplace[type(m)])
        else:
            return None
    return layers


def run_layers(layers: list[tuple[Any, Any, Any]], x: Any) -> Any:
    import torch.nn.functional as F

    for weight, bias, act in layers:
        x = F.linear(x, weight, bias)
        if act is not None:
            act(x)
    return x
