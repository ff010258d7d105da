"""What every algorithm on the batched engine shares: the games, who sits where, the opponents, one engine step.

``BatchedLearner`` holds the engine (``num_envs`` games of ``args.game``), the ``SeatAssigner`` (per game and
episode: the learner or an opponent slot at each seat), the opponent slots (``opponents`` specs, then the
self-play snapshots), the per-episode bookkeeping (returns, decisions, the last 100 returns and lengths) and the
counters. An algorithm (``BatchedPPO``, ``BatchedDMC``) subclasses it, builds its networks and its rollout buffer
(``self.buf``: ``credit(rewards, ended)`` is called after every engine step) and writes its collect loop as:

    t0 = time.perf_counter()
    cur, owner, learner = self.turn()          # who acts in each game; the games where the learner does
    s, x, legal = self.record(learner, cur)    # new samples in self.buf, their observations and masks
    ... the learner's actions into self.actions[learner] ...
    self.advance(owner, learner, t0)           # the opponents act, the engine steps, rewards credited

| slot | who |
|---|---|
| 0 | the learner |
| ``1 .. len(specs)`` | the ``opponents`` specs (row players, ``agents.rows.make_opponent``) |
| then ``max_snapshots`` slots | frozen snapshots of the learner (``add_snapshot``), once added |
"""

from __future__ import annotations

import collections
import time
from pathlib import Path
from typing import Any

import numpy as np

from agents.rows import decide, opponent_specs
from envs.core.errors import ConfigError

__all__ = ["BatchedLearner"]


class BatchedLearner:
    """The engine, the seats, the opponents and the episode bookkeeping of a batched run (module docstring).
    ``seeds``: six ints of ``np.random.SeedSequence(args.seed)`` (``[2]`` the seat draws, ``[3]`` the deals,
    ``[4]`` the opponents; ``[0]``, ``[1]``, ``[5]`` are the algorithm's)."""

    def __init__(self, args: Any, seeds: np.ndarray):
        from agents.rows import make_opponent
        from envs.registry import make_vector_env
        from train.batched.rollout import SeatAssigner

        self.args = args
        self.opponent_seed = int(seeds[4])
        self.env = make_vector_env(args.game, args.num_envs, **args.env)
        self.env.copy_outputs = False  # the engine's own buffers: read before the next step
        self.env.reset(seed=int(seeds[3]))
        n, B = self.env.num_players, self.env.num_envs
        self.specs = opponent_specs(args.opponents)
        self.slots: list[Any] = [None] + [make_opponent(s, args.game, args.env, self.opponent_seed + 7919 * k)
                                          for k, s in enumerate(self.specs)] + [None] * args.max_snapshots
        self.seats = SeatAssigner(B, n, len(self.specs), args.max_snapshots, args.all_seats_share, args.seat,
                                  args.snapshot_share, np.random.default_rng(int(seeds[2])),
                                  per_table=args.opponent_draw == "table")
        self.everyone = args.all_seats_share == 1.0
        self.games = np.arange(B)
        self.actions = np.zeros(B, dtype=np.int64)
        self.ep_ret = np.zeros((B, n), dtype=np.float64)
        self.ep_dec = np.zeros((B, n), dtype=np.int64)
        self.returns_vs: collections.deque = collections.deque(maxlen=100)  # learner seats against opponents
        self.returns_sp: collections.deque = collections.deque(maxlen=100)  # seats of self-play games
        self.lengths: collections.deque = collections.deque(maxlen=100)
        self.global_step = self.episodes = 0
        self.timers: collections.defaultdict = collections.defaultdict(float)
        self.opponent_decisions = 0
        self.snapshot_files: dict[int, tuple[int, Path]] = {}  # slot -> (step, file) of the self-play pool
        self.buf: Any = None  # the algorithm's rollout buffer

    def networks(self) -> dict[str, Any]:
        """The modules the training state saves, by name (``actor``: the exported network)."""
        raise NotImplementedError

    def add_snapshot(self, path: Path, step: int, slot: int | None = None) -> int:
        """Put the safe checkpoint ``path`` (a frozen learner) in the self-play pool; returns its slot. It samples
        its policy (``greedy_snapshots``: it plays greedily). ``slot``: put it back where it was (a resume)."""
        from agents.checkpoint import load_actor
        from agents.rows import ActorRows

        frozen, _ = load_actor(path)
        if slot is None:
            slot = self.seats.add_snapshot()
        elif not 1 + len(self.specs) <= slot < len(self.slots):
            raise ConfigError(f"snapshot slot {slot} out of range for this config")
        self.slots[slot] = ActorRows(frozen, name=f"snapshot:{step}", greedy=self.greedy_snapshots,
                                     sampling=getattr(self.args, "sampling", "gumbel"),
                                     seed=self.opponent_seed + 104729 * slot + step)
        self.snapshot_files[slot] = (step, Path(path))
        return slot

    #: snapshots sample the learner's policy (PPO); a Q-learner's snapshots play greedily on Q
    greedy_snapshots = False

    def turn(self) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
        """``(cur, owner, learner)``: the seat to act in each game, its owner slot, the games where it is the learner."""
        cur = self.env.current_player.copy()
        owner = self.seats.owner[self.games, cur]
        learner = self.games if self.everyone else np.flatnonzero(owner == 0)
        if len(learner):
            self.ep_dec[learner, cur[learner]] += 1
            self.global_step += len(learner)
        return cur, owner, learner

    def record(self, learner: np.ndarray, cur: np.ndarray) -> tuple[slice, Any, Any]:
        """New samples in ``self.buf`` for the learner's decisions now: their observations and masks copied in;
        returns the samples' slice and the two as tensors (views of the buffer)."""
        import torch

        env, buf = self.env, self.buf
        s = buf.add(learner, cur[learner])
        np.take(env.obs, learner, axis=0, out=buf.obs[s])
        np.not_equal(np.take(env.mask, learner, axis=0), 0, out=buf.mask[s])
        return s, torch.from_numpy(buf.obs[s]), torch.from_numpy(buf.mask[s])

    def advance(self, owner: np.ndarray, learner: np.ndarray, t0: float) -> None:
        """The opponents act in the games where the learner does not, the engine steps every game with
        ``self.actions``, each seat's rewards go to ``self.buf.credit``, finished episodes are booked.
        ``t0``: when the learner's part of this step began (the timers)."""
        args, env, timers, clock = self.args, self.env, self.timers, time.perf_counter
        t1 = clock()
        if len(learner) < len(self.games):
            others = np.flatnonzero(owner != 0)
            self.opponent_decisions += len(others)
            who = owner[others]
            for slot in np.unique(who):
                rows = others[who == slot]
                self.actions[rows] = decide(self.slots[slot], env, rows)
        t2 = clock()
        _, _, rewards, terminated, truncated, _ = env.step(self.actions)
        t3 = clock()
        ended = terminated | truncated
        self.buf.credit(rewards * args.reward_scale if args.reward_scale != 1.0 else rewards, ended)
        self.ep_ret += rewards
        if ended.any():
            self._episodes_end(np.flatnonzero(ended))
        timers["learner"] += t1 - t0
        timers["opponents"] += t2 - t1
        timers["env"] += t3 - t2
        timers["bookkeeping"] += clock() - t3

    def _episodes_end(self, done_games: np.ndarray) -> None:
        seats = self.seats
        for i in done_games:
            played = (seats.owner[i] == 0) & (self.ep_dec[i] > 0)  # learner seats that made a decision
            if played.any():
                self.episodes += 1
                (self.returns_sp if seats.selfplay[i] else self.returns_vs).extend(self.ep_ret[i, played].tolist())
                self.lengths.extend(self.ep_dec[i, played].tolist())
        self.ep_ret[done_games] = 0.0
        self.ep_dec[done_games] = 0
        seats.draw(done_games)

    def greedy_probe(self, rows: int = 8) -> tuple[Any, Any]:
        """Observations of the engine now (``rows`` games) and the exported network's outputs on them."""
        import torch

        x = torch.from_numpy(self.env.obs[:rows].copy())
        with torch.no_grad():
            return x, self.actor(x)
