"""Warm start by imitation: fit a MaskablePPO policy to a teacher's decisions before PPO.

Bidding games have a deep exploration trap: a fresh policy that bids and calls at random loses
heavily as the caller, learns to pass every hand within a few thousand steps, and then never
again sees what a good contract is worth (Briscola in cinque's learner ends up a perpetual
defender). Imitating a teacher first (behaviour cloning) starts PPO from a policy that already
bids, calls and plays sensibly, and from a value function that already knows what hands are worth.

| step                     | what                                                                 |
|--------------------------|----------------------------------------------------------------------|
| ``collect(...)``         | the teacher plays every seat of ``episodes`` seeded deals; every decision is kept: the seat's observation, mask, action, and the seat's return of that episode |
| ``pretrain(...)``        | minibatch Adam on masked cross-entropy (policy head) + MSE to the returns (value head) |

Any agent spec can teach, the search players too (``bc_teacher: pimc`` or ``pimc:worlds=64``: slower, some
tens of ms per decision at every seat). Used by ``train/ppo.py`` when ``bc_episodes > 0`` (a fresh run only: a
resumed run keeps its weights). Deterministic given the seed.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

import numpy as np

from agents.registry import make_agent
from envs.registry import make_raw_env

__all__ = ["Demonstrations", "collect", "pretrain"]


@dataclass
class Demonstrations:
    """Decisions of a teacher: ``obs[i]`` with legal ``masks[i]`` led to ``actions[i]``, taken at seat
    ``seats[i]`` in episode ``episodes[i]``; ``returns[i]`` is what that seat got over the episode
    (times the reward scale)."""

    obs: np.ndarray
    masks: np.ndarray
    actions: np.ndarray
    returns: np.ndarray
    seats: np.ndarray
    episodes: np.ndarray


def collect(game: str, teacher: str, flags: dict[str, Any], episodes: int, seed: int,
            reward_scale: float = 1.0) -> Demonstrations:
    """Play ``episodes`` deals with ``teacher`` at every seat and keep every decision."""
    env = make_raw_env(game, **flags)
    n = len(env.possible_agents)
    # the flags reach the players that build an engine or check a shape (search players, checkpoints)
    agents = [make_agent(teacher, game, seed=seed + 7919 * s, flags=flags) for s in range(n)]
    obs, masks, actions, returns, all_seats, eps = [], [], [], [], [], []
    ss = np.random.SeedSequence(seed)
    for ep, ep_seed in enumerate(ss.generate_state(episodes)):
        for a in agents:
            a.reset()
        env.reset(seed=int(ep_seed))
        seats, total = [], [0.0] * n
        while not env.episode_over:
            name = env.agent_selection
            seat = env.agent_name_mapping[name]
            o = env.observe(name)
            act = agents[seat].act(o)
            obs.append(o["observation"])
            masks.append(o["action_mask"].astype(bool))
            actions.append(act)
            seats.append(seat)
            env.step(act)
            for s, agent in enumerate(env.possible_agents):
                total[s] += env.rewards[agent]
        returns.extend(total[s] * reward_scale for s in seats)
        all_seats.extend(seats)
        eps.extend([ep] * len(seats))
    return Demonstrations(np.asarray(obs, dtype=np.float32), np.asarray(masks), np.asarray(actions, dtype=np.int64),
                          np.asarray(returns, dtype=np.float32), np.asarray(all_seats), np.asarray(eps))


def pretrain(policy: Any, demos: Demonstrations, *, epochs: int, batch_size: int = 512, lr: float = 1e-3,
             seed: int = 0) -> dict[str, float]:
    """Fit the policy head to the teacher's actions and the value head to the returns.

    Returns the final epoch's ``accuracy`` (argmax of the masked policy = teacher's action),
    ``policy_loss`` (cross-entropy) and ``value_loss`` (MSE).
    """
    import torch

    rng = np.random.default_rng(seed)
    opt = torch.optim.Adam(policy.parameters(), lr=lr)
    obs_t = torch.as_tensor(demos.obs)
    mask_t = torch.as_tensor(demos.masks)
    act_t = torch.as_tensor(demos.actions)
    ret_t = torch.as_tensor(demos.returns)
    n = len(demos.actions)
    policy.set_training_mode(True)
    stats: dict[str, float] = {}
    for _ in range(epochs):
        order = torch.as_tensor(rng.permutation(n))
        hits = ploss = vloss = 0.0
        for start in range(0, n, batch_size):
            idx = order[start:start + batch_size]
            features = policy.extract_features(obs_t[idx])
            if policy.share_features_extractor:
                latent_pi, latent_vf = policy.mlp_extractor(features)
            else:
                latent_pi = policy.mlp_extractor.forward_actor(features[0])
                latent_vf = policy.mlp_extractor.forward_critic(features[1])
            logits = policy.action_net(latent_pi).masked_fill(~mask_t[idx], -1e8)
            values = policy.value_net(latent_vf).squeeze(-1)
            lp = torch.nn.functional.cross_entropy(logits, act_t[idx])
            lv = torch.nn.functional.mse_loss(values, ret_t[idx])
            opt.zero_grad()
            (lp + 0.5 * lv).backward()
            torch.nn.utils.clip_grad_norm_(policy.parameters(), 1.0)
            opt.step()
            k = len(idx)
            hits += float((logits.argmax(-1) == act_t[idx]).sum())
            ploss += lp.item() * k
            vloss += lv.item() * k
        stats = {"accuracy": hits / n, "policy_loss": ploss / n, "value_loss": vloss / n, "samples": n}
    policy.set_training_mode(False)
    return stats
