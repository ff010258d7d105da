"""Warm start by imitation: fit a policy to a teacher's decisions before PPO (every trainer with ``bc_episodes``).

Bidding games have a deep exploration trap: a fresh policy that bids and calls at random loses
heavily as the caller, learns to pass every hand within a few thousand steps, and then never
again sees what a good contract is worth (Briscola in cinque's learner ends up a perpetual
defender). Imitating a teacher first (behaviour cloning) starts PPO from a policy that already
bids, calls and plays sensibly, and from a value function that already knows what hands are worth.

| step                     | what                                                                 |
|--------------------------|----------------------------------------------------------------------|
| ``collect(...)``         | the teacher plays every seat of ``episodes`` seeded deals through the AEC env; every decision is kept: the seat's observation, mask, action, and the seat's return from that decision to the episode's end |
| ``collect_batched(...)`` | the same ``Demonstrations`` from ``num_envs`` games of the batched engine, the teacher acting on rows (``agents.rows.make_opponent``: the numba heuristic when there is one) |
| ``fit(...)``             | minibatch Adam on masked cross-entropy (policy) + MSE to the returns (value), on any ``forward(x) -> (logits, values)`` |
| ``pretrain(policy, ...)`` | ``fit`` on an SB3 ``MaskableActorCriticPolicy`` (``train/sb3``) |
| ``pretrain_actor_critic(actor, critic, ...)`` | ``fit`` on the plain actor and critic (``train/batched``) |
| ``record(...)``          | the warm start's figures in ``imitation.json`` (the report quotes them), one printed line |

Any agent spec can teach through ``collect``, the search players too (``bc_teacher: pimc`` or
``pimc:worlds=64``: slower, some tens of ms per decision at every seat); ``collect_batched`` takes the
specs of ``make_opponent``. A resumed run keeps its weights (no warm start). Deterministic given the seed.
"""

from __future__ import annotations

import json
import time
from collections.abc import Callable, Iterator
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import numpy as np

from agents.registry import make_agent
from envs.registry import make_raw_env

__all__ = ["Demonstrations", "returns_to_go", "collect", "collect_batched", "fit", "pretrain", "pretrain_actor_critic", "record"]


@dataclass
class Demonstrations:
    """Decisions of a teacher: ``obs[i]`` with legal ``masks[i]`` led to ``actions[i]``, taken at seat
    ``seats[i]`` in episode ``episodes[i]``; ``returns[i]`` is what that seat received from that decision to the
    episode's end (times the reward scale; ``gamma`` per later decision of the seat), the target the trainers'
    critics learn (``returns_to_go``): points a seat banked before the decision (Picchetto's declarations and
    tricks) are not part of it."""

    obs: np.ndarray
    masks: np.ndarray
    actions: np.ndarray
    returns: np.ndarray
    seats: np.ndarray
    episodes: np.ndarray
    privileged: np.ndarray | None = None
    """what the deciding seat could not see (``VectorEnv.privileged``), for an oracle critic; None if not collected"""


def returns_to_go(episodes: np.ndarray, seats: np.ndarray, banked: np.ndarray, totals: np.ndarray,
                  gamma: float = 1.0) -> np.ndarray:
    """Per decision (in the order played), what its seat receives from it to the episode's end: ``banked[i]``
    is what the seat had received before decision ``i``, ``totals[i]`` its return over the episode. The
    rewards between a seat's decision and its next one are that decision's; ``gamma`` discounts per later
    decision of the same seat (as ``train.batched.rollout``'s credit assignment)."""
    out = np.zeros(len(seats), dtype=np.float64)
    following: dict[tuple[int, int], tuple[float, float]] = {}  # (episode, seat) -> (banked, return) of the next decision
    for i in range(len(seats) - 1, -1, -1):
        key = (int(episodes[i]), int(seats[i]))
        nxt_banked, nxt_return = following.get(key, (float(totals[i]), 0.0))
        out[i] = (nxt_banked - banked[i]) + gamma * nxt_return
        following[key] = (float(banked[i]), out[i])
    return out


def collect(game: str, teacher: str, flags: dict[str, Any], episodes: int, seed: int,
            reward_scale: float = 1.0, gamma: float = 1.0) -> Demonstrations:
    """Play ``episodes`` deals with ``teacher`` at every seat and keep every decision."""
    env = make_raw_env(game, **flags)
    n = len(env.possible_agents)
    # the flags reach the players that build an engine or check a shape (search players, checkpoints)
    agents = [make_agent(teacher, game, seed=seed + 7919 * s, flags=flags) for s in range(n)]
    obs, masks, actions, banked, totals, all_seats, eps = [], [], [], [], [], [], []
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
            banked.append(total[seat])
            env.step(act)
            for s, agent in enumerate(env.possible_agents):
                total[s] += env.rewards[agent]
        totals.extend(total[s] for s in seats)
        all_seats.extend(seats)
        eps.extend([ep] * len(seats))
    ret = returns_to_go(np.asarray(eps), np.asarray(all_seats), np.asarray(banked), np.asarray(totals), gamma)
    return Demonstrations(np.asarray(obs, dtype=np.float32), np.asarray(masks), np.asarray(actions, dtype=np.int64),
                          (ret * reward_scale).astype(np.float32), np.asarray(all_seats), np.asarray(eps))


def collect_batched(game: str, teacher: str, flags: dict[str, Any], episodes: int, seed: int,
                    reward_scale: float = 1.0, num_envs: int = 256, privileged: bool = False,
                    gamma: float = 1.0) -> Demonstrations:
    """``collect``'s data from the batched engine: ``teacher`` (an opponent spec) at every seat of ``episodes`` games.

    Game ``i`` records its episodes ``i, i + num_envs, ...`` below ``episodes``, so exactly ``episodes``
    episodes are kept; the same seed gives the same data. ``privileged``: also keep each decision's privileged
    vector (for an oracle critic)."""
    from agents.rows import make_opponent
    from envs.registry import make_vector_env

    num_envs = max(1, min(num_envs, episodes))
    env = make_vector_env(game, num_envs, **flags)
    env.copy_outputs = False
    env.reset(seed=seed)
    player = make_opponent(teacher, game, flags, seed)
    episode = np.arange(num_envs)  # global episode number of the episode each game is playing
    ep_ret = np.zeros((num_envs, env.num_players))
    parts: list[tuple[np.ndarray, ...]] = []
    priv: list[np.ndarray] = []
    returns: dict[int, np.ndarray] = {}
    while (episode < episodes).any():
        cur = env.current_player.copy()
        rows = np.flatnonzero(episode < episodes)
        act = player.act(env.obs, env.mask)
        parts.append((env.obs[rows].copy(), env.mask[rows] != 0, act[rows], cur[rows], episode[rows],
                      ep_ret[rows, cur[rows]].copy()))
        if privileged:
            priv.append(env.privileged(cur)[rows])
        _, _, rewards, terminated, truncated, _ = env.step(act)
        ep_ret += rewards
        for i in np.flatnonzero(terminated | truncated):
            returns[int(episode[i])] = ep_ret[i].copy()
            episode[i] += num_envs
            ep_ret[i] = 0.0
    obs, masks, actions, seats, eps, banked = (np.concatenate(x) for x in zip(*parts, strict=True))
    order = np.lexsort((np.arange(len(eps)), eps))  # each episode's decisions together, in the order played
    totals = np.array([returns[e][s] for e, s in zip(eps.tolist(), seats.tolist(), strict=True)])
    ret = np.empty(len(eps))
    ret[order] = returns_to_go(eps[order], seats[order], banked[order], totals[order], gamma)
    ret *= reward_scale
    return Demonstrations(obs, masks, actions.astype(np.int64), ret.astype(np.float32), seats, eps,
                          np.concatenate(priv) if privileged else None)


def fit(forward: Callable[[Any], tuple[Any, Any]], params: list[Any], demos: Demonstrations, *, epochs: int,
        lr: float, batches: Callable[[int], Iterator[Any]], fused: bool = False) -> dict[str, float]:
    """Minibatch Adam on ``cross_entropy(masked logits, action) + 0.5 * mse(value, return)``, gradients clipped to
    norm 1. ``forward(x) -> (logits, values)``; ``batches(n)``: one epoch's minibatches of indices into the
    ``n`` decisions. Returns the last epoch's ``accuracy`` (the argmax of the masked logits is the teacher's
    action), ``policy_loss``, ``value_loss`` and ``samples``. ``fused``: torch's fused Adam kernel, whose square
    root is the CPU's own (the default path takes it from MKL's vector math, which differs by CPU model)."""
    import torch

    from agents.checkpoint import HUGE_NEG

    opt = torch.optim.Adam(params, lr=lr, fused=fused)
    obs, mask = torch.as_tensor(demos.obs), torch.as_tensor(demos.masks)
    act, ret = torch.as_tensor(demos.actions), torch.as_tensor(demos.returns)
    n = len(act)
    stats: dict[str, float] = {}
    for _ in range(epochs):
        hits = ploss = vloss = 0.0
        for idx in batches(n):
            logits, values = forward(torch.index_select(obs, 0, idx))  # the same rows as obs[idx], faster
            logits = logits.masked_fill(~torch.index_select(mask, 0, idx), HUGE_NEG)
            target = act[idx]
            lp = torch.nn.functional.cross_entropy(logits, target)
            lv = torch.nn.functional.mse_loss(values, ret[idx])
            opt.zero_grad()
            (lp + 0.5 * lv).backward()
            torch.nn.utils.clip_grad_norm_(params, 1.0)
            opt.step()
            hits += float((logits.argmax(-1) == target).sum())
            ploss += lp.item() * len(idx)
            vloss += lv.item() * len(idx)
        stats = {"accuracy": hits / n, "policy_loss": ploss / n, "value_loss": vloss / n, "samples": n}
    return stats


def pretrain(policy: Any, demos: Demonstrations, *, epochs: int, batch_size: int = 512, lr: float = 1e-3,
             seed: int = 0) -> dict[str, float]:
    """``fit`` an SB3 ``MaskableActorCriticPolicy``: its action head to the teacher's actions, its value head to the
    returns (minibatches in a NumPy permutation seeded by ``seed``)."""
    import torch

    rng = np.random.default_rng(seed)

    def forward(x: Any) -> tuple[Any, Any]:
        features = policy.extract_features(x)
        if policy.share_features_extractor:
            latent_pi, latent_vf = policy.mlp_extractor(features)
        else:
            latent_pi = policy.mlp_extractor.forward_actor(features[0])
            latent_vf = policy.mlp_extractor.forward_critic(features[1])
        return policy.action_net(latent_pi), policy.value_net(latent_vf).squeeze(-1)

    policy.set_training_mode(True)
    stats = fit(forward, list(policy.parameters()), demos, epochs=epochs, lr=lr,
                batches=lambda n: torch.as_tensor(rng.permutation(n)).split(batch_size))
    policy.set_training_mode(False)
    return stats


def pretrain_actor_critic(actor: Any, critic: Any, demos: Demonstrations, *, epochs: int, lr: float, seed: int,
                          batch_size: int = 512) -> dict[str, float]:
    """``fit`` the plain actor (``logits = actor(x)``) and critic (``critic(x)[:, 0]``) together (minibatches in a
    torch permutation seeded by ``seed``), with the fused Adam of the batched trainer (the same on every x86 CPU).
    With ``demos.privileged`` (an oracle critic) the critic reads the observation and the privileged vector, the
    actor the observation alone."""
    import dataclasses

    import torch

    gen = torch.Generator().manual_seed(seed)
    forward = lambda x: (actor(x), critic(x)[:, 0])  # noqa: E731
    if demos.privileged is not None:
        size = demos.obs.shape[1]
        demos = dataclasses.replace(demos, obs=np.concatenate((demos.obs, demos.privileged), 1), privileged=None)
        forward = lambda x: (actor(x[:, :size]), critic(x)[:, 0])  # noqa: E731
    return fit(forward, [*actor.parameters(), *critic.parameters()], demos,
               epochs=epochs, lr=lr, batches=lambda n: torch.randperm(n, generator=gen).split(batch_size), fused=True)


def record(run_dir: Path, teacher: str, episodes: int, started: float, stats: dict[str, float]) -> dict[str, Any]:
    """``imitation.json`` (teacher, episodes, seconds and ``fit``'s figures) and one printed line; returns it."""
    out = {"teacher": teacher, "episodes": episodes, "seconds": round(time.time() - started, 1), **stats}
    (run_dir / "imitation.json").write_text(json.dumps(out, indent=1))
    print(f"warm start: imitated {teacher} on {out['samples']} decisions, accuracy {out['accuracy']:.3f}", flush=True)
    return out
