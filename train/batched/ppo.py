"""PPO on the batched engines, the algorithm top to bottom: ``BatchedPPO.collect()`` a rollout, ``update()``.

Who plays (``SeatAssigner``, ``train/batched/rollout.py``): when a game starts, it is either a self-play game
(share ``all_seats_share``), where the current policy plays every seat and every decision of every seat is a
learner sample, or a game with the learner at one seat (``seat``: drawn at random, rotating per game, or fixed)
and an opponent at each other seat, drawn from ``opponents`` (and, with ``selfplay: true``, from frozen
snapshots of the learner, share ``snapshot_share``). Opponents act in batch through ``agents.rows``
(``act(obs_rows, mask_rows) -> actions``): masked random, the heuristics (their numba ports, or the Python
agents row by row with ``heuristic-python``) and actor networks (snapshots, checkpoints).

Credit assignment (``SeatRollout``): a seat's rewards arrive in ``rewards[:, seat]`` at whatever step they are
paid, usually while another seat acts (a trick or a hand ends on someone else's card); each is added to that
seat's latest decision in the game. Returns and GAE run along each (game, seat)'s own sequence of decisions: the
next state of a decision is the seat's next decision, and the last decision of an episode (``terminated |
truncated``; a truncation is treated as an end) has no next value. A decision whose next one has not happened by
the end of a rollout is not complete: it is carried into the next rollout (with the rewards it has so far) and
trained there, so every learner decision is trained exactly once, with all its rewards (its log-probability
stays that of the policy that chose it). GAE is truncated where a sample's successor is carried (bootstrapping
from the successor's value, as CleanRL does at a rollout's end). A reward paid to a seat before its first
decision of an episode (no choice of the seat led to it) is not credited.

The actor is the safe checkpoint's MLP with a linear action head, the critic a separate MLP
(``train/networks.py``). Illegal logits are set to ``-1e8`` (finite, so entropies stay free of NaN); actions
are sampled with a seeded generator, by Gumbel-max (``sampling: gumbel``, the default) or by inverse CDF
(``sampling: inverse_cdf``, 5x faster to draw; ``agents/sampling.py``). With ``stack_first_layers`` the first
layers of the actor and the critic run as one matrix product (``policy_and_value``). Both options change the
floating-point path, hence the run: the defaults keep the published runs reproducible.

A run may start from a checkpoint's actor (``init_from``) with a fresh critic; for its first ``critic_warmup``
learner steps the loss is the value loss alone, so the actor keeps the checkpoint's weights while the critic fits.

``timers`` accumulates wall seconds per part (``env``: engine steps, ``learner``: the networks in the rollout,
``opponents``: opponent decisions, of which there were ``opponent_decisions``, ``update``: GAE and the epochs;
``benchmarks/train_speed.py`` reads them). The training state for ``--resume`` is ``train/batched/state.py``'s.
"""

from __future__ import annotations

import collections
import time
from typing import Any

import numpy as np

from train.batched.learner import BatchedLearner
from train.networks import build_actor, build_critic, first_layers, inference_layers, policy_and_value, run_layers

__all__ = ["BatchedPPO"]


class BatchedPPO(BatchedLearner):
    """PPO on the batched engine: ``collect()`` a rollout, then ``update()`` (the games, seats and opponents are
    ``BatchedLearner``'s). Seeds come from ``seeds`` (six ints of ``np.random.SeedSequence(args.seed)``: ``[0]`` the
    learner's actions, ``[1]`` the minibatch order; see the module docstring)."""

    def __init__(self, args: Any, seeds: np.ndarray):
        import torch

        from train.batched.rollout import SeatRollout

        self.sample_gen = torch.Generator().manual_seed(int(seeds[0]))  # the learner's actions
        self.shuffle_gen = torch.Generator().manual_seed(int(seeds[1]))  # minibatch order
        super().__init__(args, seeds)
        n, B, A, size = self.env.num_players, self.env.num_envs, self.env.num_actions, self.env.obs_size
        # critic: oracle reads the observation and the privileged vector (every hidden card), the actor never does
        self.oracle = getattr(args, "critic", "observation") == "oracle"
        self.priv_size = self.env.privileged_size if self.oracle else 0
        self.priv_all = np.zeros((B, self.priv_size), dtype=np.float32)
        self.actor = build_actor(size, A, list(args.net_arch), args.activation)
        if getattr(args, "init_from", None):  # a fine-tune: the checkpoint's actor, a fresh critic
            from train.batched.args import check_init_from

            self.actor.load_state_dict(check_init_from(args).actor.state_dict())
        self.critic = build_critic(size + self.priv_size, list(args.net_arch), args.activation)
        self.params = [*self.actor.parameters(), *self.critic.parameters()]
        self.optimizer = torch.optim.Adam(self.params, lr=args.learning_rate, eps=1e-5, fused=True)
        self.buf = SeatRollout(B, n, size, A, args.num_steps, priv_size=self.priv_size)

    def networks(self) -> dict[str, Any]:
        return {"actor": self.actor, "critic": self.critic}

    def critic_input(self, x: Any, priv: Any) -> Any:
        """The critic's input: the observation, and with the oracle critic the privileged vector after it."""
        import torch

        return torch.cat((x, priv), 1) if self.oracle else x

    def collect(self) -> int:
        """``num_steps`` engine steps: the learner's rows through the networks, the others through their
        opponents; rewards credited per seat. Returns the learner decisions collected."""
        import torch

        from agents.checkpoint import HUGE_NEG
        from agents.sampling import SAMPLERS, gumbel_max_legal

        args, env, buf, clock = self.args, self.env, self.buf, time.perf_counter
        before = self.global_step
        with torch.inference_mode():
            # the weights do not change during a rollout
            stacked = first_layers(self.actor, self.critic) if args.stack_first_layers else None
            fast = None if stacked else (inference_layers(self.actor), inference_layers(self.critic))
            fast = fast if fast and None not in fast else None
            for _ in range(args.num_steps):
                t0 = clock()
                cur, owner, learner = self.turn()
                if len(learner):
                    s, x, legal = self.record(learner, cur)
                    if self.oracle:
                        env.privileged(cur, out=self.priv_all)
                        np.take(self.priv_all, learner, axis=0, out=buf.priv[s])
                    xc = self.critic_input(x, torch.from_numpy(buf.priv[s]))
                    if fast:  # the modules' ops without their call overhead: the same numbers
                        logits, value = run_layers(fast[0], x), run_layers(fast[1], xc)[:, 0]
                    else:
                        logits, value = policy_and_value(self.actor, self.critic, x, stacked)
                    logits.masked_fill_(~legal, HUGE_NEG)
                    if args.sampling == "gumbel":  # gumbel_max's actions, drawn on the legal logits only
                        a = gumbel_max_legal(logits, legal, self.sample_gen)
                    else:
                        a = SAMPLERS[args.sampling](logits, self.sample_gen)
                    buf.act[s] = a.numpy()
                    buf.logp[s] = torch.log_softmax(logits, -1).gather(1, a[:, None])[:, 0].numpy()
                    buf.val[s] = value.numpy()
                    self.actions[learner] = buf.act[s]
                self.advance(owner, learner, t0)
        return self.global_step - before

    def update(self) -> dict[str, float]:
        """GAE along each seat's decisions, then ``n_epochs`` of clipped PPO over the complete samples;
        the incomplete ones are carried to the next rollout. Returns the metrics (``METRIC_KEYS`` and
        ``samples``)."""
        import torch

        from agents.checkpoint import HUGE_NEG

        t0 = time.perf_counter()
        args, buf = self.args, self.buf
        if args.anneal_lr:
            self.optimizer.param_groups[0]["lr"] = args.learning_rate * max(1 - self.global_step / args.total_timesteps, 0)
        # critic_warmup: the loss is the critic's alone, so the actor gets no gradient (and Adam leaves it be)
        actor_learns = self.global_step > getattr(args, "critic_warmup", 0)
        comp, adv, ret = buf.advantages(args.gamma, args.gae_lambda)
        idx = torch.from_numpy(np.flatnonzero(comp))
        obs_t, mask_t, priv_t = torch.from_numpy(buf.obs), torch.from_numpy(buf.mask), torch.from_numpy(buf.priv)
        act_t, logp_t = torch.from_numpy(buf.act), torch.from_numpy(buf.logp)
        adv_t, ret_t = torch.from_numpy(adv), torch.from_numpy(ret)
        rows = torch.index_select  # the same rows as obs_t[mb], 2.5x faster than advanced indexing
        sums: dict[str, float] = collections.defaultdict(float)
        batches = 0
        for _ in range(args.n_epochs):
            approx_kl = 0.0
            for mb in idx[torch.randperm(len(idx), generator=self.shuffle_gen)].split(args.minibatch_size):
                x = rows(obs_t, 0, mb)
                if self.oracle:
                    logits, value = self.actor(x), self.critic(self.critic_input(x, rows(priv_t, 0, mb)))[:, 0]
                else:
                    stacked = first_layers(self.actor, self.critic) if args.stack_first_layers else None
                    logits, value = policy_and_value(self.actor, self.critic, x, stacked)
                logits = logits.masked_fill(~rows(mask_t, 0, mb), HUGE_NEG)
                logp_all = torch.log_softmax(logits, -1)
                newlogp = logp_all.gather(1, rows(act_t, 0, mb)[:, None])[:, 0]
                # masked: probability 0 times a finite log, no NaN; softmax, not exp(logp): exp's underflow
                # path on -1e8 is 50x slower
                entropy = -(torch.softmax(logits, -1) * logp_all).sum(-1).mean()
                logratio = newlogp - rows(logp_t, 0, mb)
                # not exp(): MKL's vector exp picks its code by CPU model (another run on another CPU); expm1 is ATen's
                ratio = torch.expm1(logratio) + 1
                mb_adv = rows(adv_t, 0, mb)
                if args.norm_adv and len(mb) > 1:
                    mb_adv = (mb_adv - mb_adv.mean()) / (mb_adv.std() + 1e-8)
                pg_loss = torch.max(-mb_adv * ratio, -mb_adv * ratio.clamp(1 - args.clip_range, 1 + args.clip_range)).mean()
                value_loss = ((value - rows(ret_t, 0, mb)) ** 2).mean()
                loss = (pg_loss - args.ent_coef * entropy + args.vf_coef * value_loss if actor_learns
                        else args.vf_coef * value_loss)
                self.optimizer.zero_grad()
                loss.backward()
                torch.nn.utils.clip_grad_norm_(self.params, args.max_grad_norm)
                self.optimizer.step()
                with torch.no_grad():
                    approx_kl = ((ratio - 1) - logratio).mean().item()
                    sums["clip_fraction"] += ((ratio - 1).abs() > args.clip_range).float().mean().item()
                sums["loss"] += loss.item()
                sums["policy_gradient_loss"] += pg_loss.item()
                sums["value_loss"] += value_loss.item()
                sums["entropy_loss"] += -entropy.item()
                sums["approx_kl"] += approx_kl
                batches += 1
            if args.target_kl is not None and approx_kl > args.target_kl:
                break
        metrics = {k: v / max(batches, 1) for k, v in sums.items()}
        var = float(np.var(ret[comp])) if comp.any() else 0.0
        values = buf.val[: buf.size][comp]
        metrics["explained_variance"] = 1.0 - float(np.var(ret[comp] - values)) / var if var > 0 else float("nan")
        metrics["samples"] = int(len(idx))
        buf.carry()
        self.timers["update"] += time.perf_counter() - t0
        return metrics
