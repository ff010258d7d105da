"""The bookkeeping of the batched trainer (``train/batched/ppo.py``): who sits where, and per-seat credit.

| class | what |
|---|---|
| ``SeatAssigner`` | per game and episode, who plays each seat: the learner (0) or an opponent slot (``k >= 1``) |
| ``SeatRollout`` | the learner's decisions of a rollout; each seat's rewards credited to its latest decision; GAE along each (game, seat)'s own decisions; incomplete decisions carried to the next rollout |
| ``EpisodeRollout`` | the same decisions and credit, for Monte-Carlo returns: a decision is complete when its episode has ended; the episodes still open are carried whole |

All are plain NumPy, deterministic, and tested on scripted sequences (``tests/train/test_ppo_batched.py``,
``tests/train/test_batched_algorithms.py``).
"""

from __future__ import annotations

import numpy as np

__all__ = ["SeatAssigner", "SeatRollout", "EpisodeRollout"]


# -- who sits where ------------------------------------------------------------------------------------------


class SeatAssigner:
    """``owner[i, s]``: who plays seat ``s`` of game ``i`` this episode (0: the learner, ``k >= 1``: opponent slot ``k``).

    Slots ``1..len(base)`` are the ``opponents`` specs; the ``max_snapshots`` slots after them hold
    self-play snapshots once added (a new snapshot replaces the oldest). Every draw consumes the same
    random numbers whatever the outcome, so the draws depend only on the seed and the game ends.

    ``weights`` (None by default): a league's draw probabilities over the slots ``1..num_base + max_snapshots``
    (``train/batched/league.py`` sets them, prioritized fictitious self-play); each opponent seat then draws
    its slot from them, and ``snapshot_share`` is not used.

    ``per_table`` (False by default): one draw per game, every opponent seat of it the slot of its first seat's draw
    (``opponent_draw: table``): the learner meets each opponent field unmixed. The same random numbers are consumed.
    """

    def __init__(self, num_envs: int, num_players: int, num_base: int, max_snapshots: int, all_seats_share: float,
                 seat: str | int, snapshot_share: float, rng: np.random.Generator, per_table: bool = False):
        self.n, self.num_base, self.max_snapshots, self.per_table = num_players, num_base, max_snapshots, per_table
        self.all_seats_share, self.seat, self.snapshot_share, self.rng = all_seats_share, seat, snapshot_share, rng
        self.num_snapshots = 0
        self.weights: np.ndarray | None = None
        self.owner = np.zeros((num_envs, num_players), dtype=np.int64)
        self.selfplay = np.zeros(num_envs, dtype=np.bool_)
        self.rotation = np.arange(num_envs, dtype=np.int64) % num_players - 1  # 'rotate': the first game sits at i % n
        self.draw(np.arange(num_envs))

    def add_snapshot(self) -> int:
        """The slot the next snapshot goes to (the oldest one's once the pool is full)."""
        slot = 1 + self.num_base + self.num_snapshots % self.max_snapshots
        self.num_snapshots += 1
        return slot

    def draw(self, games: np.ndarray) -> None:
        k, n, rng = len(games), self.n, self.rng
        if k == 0:
            return
        selfplay = rng.random(k) < self.all_seats_share
        seat_draw = rng.integers(n, size=k)
        if self.weights is not None:
            cdf = np.cumsum(self.weights / self.weights.sum())
            last = np.flatnonzero(self.weights)[-1]  # the cdf may end an ulp below 1: never past the last member
            owner = 1 + np.minimum(np.searchsorted(cdf, rng.random((k, n)), side="right"), last)
        else:
            base = 1 + rng.integers(self.num_base, size=(k, n))
            snap_use = rng.random((k, n)) < self.snapshot_share
            snap = 1 + self.num_base + rng.integers(max(min(self.num_snapshots, self.max_snapshots), 1), size=(k, n))
            owner = np.where(snap_use & (self.num_snapshots > 0), snap, base)
        if self.per_table:
            owner = np.repeat(owner[:, :1], n, axis=1)
        if self.seat == "random":
            seats = seat_draw
        elif self.seat == "rotate":
            self.rotation[games] = (self.rotation[games] + 1) % n
            seats = self.rotation[games]
        else:
            seats = np.full(k, int(self.seat), dtype=np.int64)
        owner[np.arange(k), seats] = 0
        owner[selfplay] = 0
        self.owner[games] = owner
        self.selfplay[games] = selfplay


# -- per-seat credit assignment and GAE ----------------------------------------------------------------------


class SeatRollout:
    """The learner's decisions of a rollout, with per-seat credit assignment (see the module docstring).

    Use: ``add(games, seats)`` before the engine step that plays them (returns the slice of the new
    samples, whose ``obs``, ``mask``, ``act``, ``logp``, ``val`` the caller fills), ``credit(rewards,
    ended)`` after it; at the rollout's end ``advantages(gamma, lam)`` gives the complete samples with
    their advantages and returns, and ``carry()`` keeps the incomplete ones for the next rollout.

    Per sample: ``rew`` (the seat's rewards credited to it so far), ``nxt`` (the index of the same
    seat's next decision in the same episode, -1 if none yet), ``done`` (the episode ended after it).
    ``last[i, s]``: the latest sample of seat ``s`` in game ``i`` (-1 at an episode's start).
    """

    #: the per-sample arrays a carry keeps and the training state saves
    ARRAYS = ("obs", "mask", "act", "logp", "val", "rew", "priv")

    def __init__(self, num_envs: int, num_players: int, obs_size: int, num_actions: int, num_steps: int,
                 priv_size: int = 0):
        cap = num_envs * (num_steps + num_players)  # worst case: one learner row per game and step, plus the carried
        self.obs = np.empty((cap, obs_size), dtype=np.float32)
        self.priv = np.zeros((cap, priv_size), dtype=np.float32)  # the oracle critic's privileged vectors
        self.mask = np.empty((cap, num_actions), dtype=np.bool_)
        self.act = np.zeros(cap, dtype=np.int64)
        self.logp = np.zeros(cap, dtype=np.float32)
        self.val = np.zeros(cap, dtype=np.float32)
        self.rew = np.zeros(cap, dtype=np.float32)
        self.nxt = np.full(cap, -1, dtype=np.int64)
        self.done = np.zeros(cap, dtype=np.bool_)
        self.last = np.full((num_envs, num_players), -1, dtype=np.int64)
        self.size = 0
        self.blocks: list[tuple[int, int]] = []

    def add(self, games: np.ndarray, seats: np.ndarray) -> slice:
        """New samples: seat ``seats[j]`` of game ``games[j]`` decides now (at most one per game)."""
        k0, k1 = self.size, self.size + len(games)
        if k1 > len(self.rew):
            raise RuntimeError("SeatRollout is full: more than num_steps engine steps in a rollout")
        k = np.arange(k0, k1)
        prev = self.last[games, seats]
        has = prev >= 0
        self.nxt[prev[has]] = k[has]
        self.last[games, seats] = k
        self.rew[k0:k1] = 0.0
        self.nxt[k0:k1] = -1
        self.done[k0:k1] = False
        self.size = k1
        self.blocks.append((k0, k1))
        return slice(k0, k1)

    def credit(self, rewards: np.ndarray, ended: np.ndarray) -> None:
        """``rewards[i, s]`` of an engine step go to seat ``s``'s latest decision in game ``i``; ``ended`` games close."""
        last = self.last
        hit = (last >= 0) & (rewards != 0)
        if hit.any():
            self.rew[last[hit]] += rewards[hit]  # distinct samples: one per (game, seat)
        if ended.any():
            closing = last[ended]
            self.done[closing[closing >= 0]] = True
            last[ended] = -1

    def complete(self) -> np.ndarray:
        n = self.size
        return self.done[:n] | (self.nxt[:n] >= 0)

    def advantages(self, gamma: float, lam: float) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
        """``(complete, adv, ret)`` over the samples ``0..size-1``; ``adv``, ``ret`` are 0 where not complete."""
        n = self.size
        comp = self.complete()
        adv = np.zeros(n, dtype=np.float32)
        for a, b in reversed(self.blocks):  # a successor is always in a later block: reverse block order suffices
            j = self.nxt[a:b]
            has = j >= 0
            jj = np.where(has, j, 0)
            next_val = np.where(has, self.val[jj], 0.0)
            next_adv = np.where(has, adv[jj], 0.0)  # 0 for a carried successor: GAE truncated there
            delta = self.rew[a:b] + gamma * next_val - self.val[a:b]
            adv[a:b] = np.where(comp[a:b], delta + gamma * lam * next_adv, 0.0)
        ret = np.where(comp, adv + self.val[:n], 0.0).astype(np.float32)
        return comp, adv, ret

    def carry(self) -> int:
        """Keep only the incomplete samples (each seat's pending decision), renumbered from 0; returns how many."""
        pending = self.last >= 0
        keep = self.last[pending]  # row-major (game, seat) order: deterministic
        c = len(keep)
        for name in self.ARRAYS:
            arr = getattr(self, name)
            arr[:c] = arr[keep]
        self.nxt[:c] = -1
        self.done[:c] = False
        self.last[pending] = np.arange(c)
        self.size = c
        self.blocks = [(0, c)] if c else []
        return c


# -- Monte-Carlo returns (Deep Monte-Carlo) ------------------------------------------------------------------------


class EpisodeRollout(SeatRollout):
    """``SeatRollout``'s decisions and per-seat credit, with Monte-Carlo returns instead of GAE.

    A decision's return is the sum of its seat's rewards from it to the end of the episode (discounted by
    ``gamma`` per later decision of the seat). It is known only once the episode has ended, so ``carry()``
    keeps every decision of an episode still open (not only the latest one per seat), and the buffer grows
    when a long episode needs it. Successors always sit at higher indices, and in a later block (one decision
    per game per engine step; a carry keeps the order and the blocks)."""

    ARRAYS = ("obs", "mask", "act", "rew")

    def __init__(self, num_envs: int, num_players: int, obs_size: int, num_actions: int, num_steps: int):
        super().__init__(num_envs, num_players, obs_size, num_actions, num_steps)
        self.step_cap = num_envs  # at most one new decision per game and engine step

    def add(self, games: np.ndarray, seats: np.ndarray) -> slice:
        if self.size + len(games) > len(self.rew):
            self._grow(self.size + max(len(games), self.step_cap) * 16)
        return super().add(games, seats)

    def _grow(self, cap: int) -> None:
        for name in (*self.ARRAYS, "nxt", "done", "logp", "val", "priv"):
            old = getattr(self, name)
            new = np.zeros((cap, *old.shape[1:]), dtype=old.dtype)
            new[: self.size] = old[: self.size]
            setattr(self, name, new)
        self.nxt[self.size:] = -1

    def returns(self, gamma: float) -> tuple[np.ndarray, np.ndarray]:
        """``(complete, ret)`` over the samples ``0..size-1``: complete where the episode has ended; ``ret`` is
        the Monte-Carlo return there, 0 elsewhere."""
        n = self.size
        closed = np.zeros(n, dtype=np.bool_)
        ret = np.zeros(n, dtype=np.float32)
        for a, b in reversed(self.blocks):  # a successor is always in a later block
            j = self.nxt[a:b]
            has = j >= 0
            jj = np.where(has, j, 0)
            closed[a:b] = self.done[a:b] | (has & closed[jj])
            ret[a:b] = self.rew[a:b] + gamma * np.where(has, ret[jj], 0.0)
        return closed, np.where(closed, ret, 0.0).astype(np.float32)

    def carry(self) -> int:
        """Keep the decisions of every episode still open (renumbered from 0, order and blocks kept)."""
        closed, _ = self.returns(1.0)
        keep = np.flatnonzero(~closed)
        c = len(keep)
        new_index = np.full(self.size + 1, -1, dtype=np.int64)  # index -1 (no successor) maps to -1
        new_index[keep] = np.arange(c)
        for name in (*self.ARRAYS, "nxt", "done"):
            arr = getattr(self, name)
            arr[:c] = arr[keep]
        self.nxt[:c] = new_index[self.nxt[:c]]
        self.done[:c] = False
        pending = self.last >= 0
        self.last[pending] = new_index[self.last[pending]]
        bounds = np.searchsorted(keep, [a for a, _ in self.blocks] + [self.size])
        self.blocks = [(int(x), int(y)) for x, y in zip(bounds[:-1], bounds[1:], strict=True) if y > x]
        self.size = c
        return c
