"""Deep Monte-Carlo on the batched engines (``algo: dmc``), the algorithm top to bottom: ``collect()``, ``update()``.

DouZero's recipe for card games (Zha et al., 2021), with one output per action since our action spaces are
small (143 ids at most): a Q-network ``Q(observation) -> one value per action`` regressed on Monte-Carlo returns.

1. **Collect.** Every learner decision (every seat of the self-play games, the learner's seat against
   opponents, as ``BatchedPPO``'s; ``BatchedLearner`` plays the games) is epsilon-greedy on the masked Q-values:
   with probability ``epsilon`` a uniformly random legal action, else the legal argmax.
2. **Returns.** A decision's target is what its seat received from it to the end of the episode (``gamma`` per
   later decision of the seat; 1 by default): the Monte-Carlo return, known when the episode ends
   (``EpisodeRollout``: the decisions of episodes still open are carried to the next rollout whole).
3. **Update.** ``n_epochs`` passes of minibatch Adam on the mean squared error between ``Q(obs)[action]`` and the
   return, gradients clipped to ``max_grad_norm``.

The Q-network has the safe checkpoint's actor layout (``agents.checkpoint.build_actor``: an MLP and a linear head
to one output per action), so the exported ``*.mazzo.zip`` plays greedily on Q through ``make_agent("net:PATH")``
(alias ``ppo:PATH``) like any trained network; its outputs are values in game units times ``reward_scale``, not
logits. Its snapshots in the self-play pool play greedily too. There is no critic: what the observation hides
never reaches the Q-network (it would reach the exported player).

Random draws: ``seeds[0]`` (a torch generator) the exploration, ``seeds[1]`` the minibatch order.
"""

from __future__ import annotations

import collections
import time
from typing import Any

import numpy as np

from train.batched.learner import BatchedLearner
from train.networks import build_q, inference_layers, run_layers

__all__ = ["BatchedDMC"]


class BatchedDMC(BatchedLearner):
    """Deep Monte-Carlo: ``collect()`` epsilon-greedy decisions and their Monte-Carlo returns, ``update()`` Q."""

    greedy_snapshots = True

    def __init__(self, args: Any, seeds: np.ndarray):
        import torch

        from train.batched.rollout import EpisodeRollout

        self.sample_gen = torch.Generator().manual_seed(int(seeds[0]))  # exploration
        self.shuffle_gen = torch.Generator().manual_seed(int(seeds[1]))  # minibatch order
        super().__init__(args, seeds)
        n, B, A, size = self.env.num_players, self.env.num_envs, self.env.num_actions, self.env.obs_size
        self.actor = build_q(size, A, list(args.net_arch), args.activation)  # exported: the greedy player
        self.critic = None
        self.params = list(self.actor.parameters())
        self.optimizer = torch.optim.Adam(self.params, lr=args.learning_rate, eps=1e-5, fused=True)
        self.buf = EpisodeRollout(B, n, size, A, args.num_steps)

    def networks(self) -> dict[str, Any]:
        return {"actor": self.actor}

    def collect(self) -> int:
        """``num_steps`` engine steps, the learner's decisions epsilon-greedy on Q. Returns how many it made."""
        import torch

        from agents.checkpoint import HUGE_NEG

        args, buf, clock = self.args, self.buf, time.perf_counter
        before = self.global_step
        with torch.inference_mode():
            layers = inference_layers(self.actor)
            for _ in range(args.num_steps):
                t0 = clock()
                cur, owner, learner = self.turn()
                if len(learner):
                    s, x, legal = self.record(learner, cur)
                    q = run_layers(layers, x) if layers else self.actor(x)
                    a = self.epsilon_greedy(q.masked_fill_(~legal, HUGE_NEG), legal)
                    buf.act[s] = a.numpy()
                    self.actions[learner] = buf.act[s]
                self.advance(owner, learner, t0)
        return self.global_step - before

    def epsilon_greedy(self, q: Any, legal: Any) -> Any:
        """Per row: with probability ``epsilon`` a uniformly random legal action, else the argmax of the masked ``q``.
        Both draws are taken for every row (the generator advances the same whatever is chosen)."""
        import torch

        k = q.shape[0]
        explore = torch.rand(k, generator=self.sample_gen) < self.args.epsilon
        noise = torch.rand(legal.shape, generator=self.sample_gen).add_(1.0).mul_(legal)  # legal entries in [1, 2)
        return torch.where(explore, noise.argmax(1), q.argmax(1))

    def update(self) -> dict[str, float]:
        """Minibatch regression of ``Q(obs)[action]`` on the Monte-Carlo returns of the decisions whose episode
        has ended; the open episodes' decisions are carried. Returns the metrics (``value_loss``, ``samples`` ...)."""
        import torch

        t0 = time.perf_counter()
        args, buf = self.args, self.buf
        if args.anneal_lr:
            self.optimizer.param_groups[0]["lr"] = args.learning_rate * max(1 - self.global_step / args.total_timesteps, 0)
        complete, ret = buf.returns(args.gamma)
        idx = torch.from_numpy(np.flatnonzero(complete))
        obs_t, act_t, ret_t = torch.from_numpy(buf.obs), torch.from_numpy(buf.act), torch.from_numpy(ret)
        rows = torch.index_select
        sums: dict[str, float] = collections.defaultdict(float)
        batches = 0
        for _ in range(args.n_epochs):
            for mb in idx[torch.randperm(len(idx), generator=self.shuffle_gen)].split(args.minibatch_size):
                q = self.actor(rows(obs_t, 0, mb)).gather(1, rows(act_t, 0, mb)[:, None])[:, 0]
                loss = ((q - rows(ret_t, 0, mb)) ** 2).mean()
                self.optimizer.zero_grad()
                loss.backward()
                torch.nn.utils.clip_grad_norm_(self.params, args.max_grad_norm)
                self.optimizer.step()
                sums["value_loss"] += loss.item()
                sums["q_mean"] += q.detach().mean().item()
                batches += 1
        metrics = {k: v / max(batches, 1) for k, v in sums.items()}
        metrics["loss"] = metrics.get("value_loss", float("nan"))
        var = float(np.var(ret[complete])) if complete.any() else 0.0
        metrics["explained_variance"] = (1.0 - metrics["value_loss"] / var) if var > 0 and batches else float("nan")
        metrics["samples"] = int(len(idx))
        buf.carry()
        self.timers["update"] += time.perf_counter() - t0
        return metrics
