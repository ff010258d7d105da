"""A league for the batched trainer (``opponent_sampling: pfsp``): prioritized fictitious self-play over a pool.

The pool is the fixed anchors (the ``opponents`` specs, e.g. ``[heuristic, heuristic-v1]``) and the learner's
frozen snapshots (``selfplay: true``, one every ``snapshot_every`` steps, the latest ``max_snapshots`` kept).
When a snapshot joins, it plays a match against every member of the pool in both roles (``league_games``
batched games each: the hero at one seat, rotating, the other member at every other seat), filling the
payoff matrix. The newest snapshot stands for the learner: each member's draw weight is ``(1 - p) **
pfsp_power``, ``p`` the newest snapshot's win rate against it (AlphaStar's "hard" PFSP weighting: the
members the learner does not beat yet are drawn most), plus ``pfsp_floor`` so that no member is forgotten.
Before the first snapshot the anchors are drawn uniformly. The win rates are measured against a field made of one
member; in training each opponent seat draws its member on its own, so a learner's table mixes them.

A hero's **win** in a game: its return is above the mean of the other seats' returns (a tie counts half); in
the zero-sum games that is a positive return. The payoff is the hero's mean return per game, in game units.

``league.json`` in the run folder holds every member that ever joined (``name``, ``slot``, ``step``, whether it
is still in the pool), the payoff and win-rate matrices (row: the hero, column: the field; ``null`` where the
two never met) and the current draw weights; it is rewritten at each snapshot. Matches are played by fresh
players built for them (seeded from the run's seed and the member names), so they do not disturb the
training's random streams.
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import numpy as np

__all__ = ["League", "match"]


def match(game: str, flags: dict[str, Any], hero: Any, field: Any, num_games: int, seed: int) -> tuple[float, float]:
    """``hero`` (a row player) at seat ``i % n`` of game ``i``, ``field`` at every other seat, one episode per game
    on the batched engine; returns the hero's ``(mean return, win rate)`` (module docstring)."""
    from agents.rows import decide
    from envs.registry import make_vector_env

    env = make_vector_env(game, num_games, autoreset=False, **flags)
    env.reset(seed=seed)
    n = env.num_players
    hero_seat = np.arange(num_games) % n
    totals = np.zeros((num_games, n))
    while not env.finished.all():
        live = ~env.finished
        cur = env.current_player
        actions = np.zeros(num_games, dtype=np.int64)
        for player, rows in ((hero, np.flatnonzero(live & (cur == hero_seat))),
                             (field, np.flatnonzero(live & (cur != hero_seat)))):
            if len(rows):
                actions[rows] = decide(player, env, rows)
        _, _, rewards, _, _, _ = env.step(actions, active=live)
        totals[live] += rewards[live]
    own = totals[np.arange(num_games), hero_seat]
    others = (totals.sum(1) - own) / (n - 1)
    wins = (own > others) + 0.5 * (own == others)
    return float(own.mean()), float(wins.mean())


class League:
    """The pool's members, their payoff matrix and the PFSP draw weights of a run (module docstring).

    ``members``: dicts ``{"name", "slot", "step", "in_pool"}`` in the order they joined (anchors first, slot
    ``1..len(specs)``); ``payoff[i][j]``, ``win[i][j]``: member ``i`` as the hero against member ``j``."""

    def __init__(self, args: Any, trainer: Any, run_dir: Path, state: dict[str, Any] | None = None):
        self.args, self.trainer, self.path = args, trainer, run_dir / "league.json"
        if state:
            self.members, self.payoff, self.win = state["members"], state["payoff"], state["win"]
        else:
            self.members = [{"name": spec, "slot": k + 1, "step": None, "in_pool": True}
                            for k, spec in enumerate(trainer.specs)]
            self.payoff = [[None] * len(self.members) for _ in self.members]
            self.win = [[None] * len(self.members) for _ in self.members]
            for i in range(len(self.members)):  # the anchors against each other, once
                for j in range(len(self.members)):
                    if i != j:
                        self._play(i, j)
        self.set_weights()
        self.write()

    @property
    def state(self) -> dict[str, Any]:
        return {"members": self.members, "payoff": self.payoff, "win": self.win}

    def _player(self, member: dict[str, Any], seed: int) -> Any:
        from agents.checkpoint import load_actor
        from agents.rows import ActorRows, make_opponent

        if member["step"] is None:
            return make_opponent(member["name"], self.args.game, self.args.env, seed)
        actor, _ = load_actor(self.trainer.snapshot_files[member["slot"]][1])
        return ActorRows(actor, name=member["name"], greedy=self.trainer.greedy_snapshots,
                         sampling=self.args.sampling, seed=seed)

    def add(self, slot: int, step: int) -> None:
        """The snapshot just put in ``slot`` joins: matches against every member in the pool, new weights."""
        for m in self.members:
            if m["slot"] == slot and m["in_pool"]:
                m["in_pool"] = False  # the oldest snapshot it replaced
        self.members.append({"name": f"snapshot:{step}", "slot": slot, "step": step, "in_pool": True})
        for row in (*self.payoff, *self.win):
            row.append(None)
        self.payoff.append([None] * len(self.members))
        self.win.append([None] * len(self.members))
        new = len(self.members) - 1
        for j, m in enumerate(self.members[:-1]):
            if m["in_pool"]:
                for hero, field in ((new, j), (j, new)):
                    self._play(hero, field)
        self.set_weights()
        self.write()

    def _play(self, hero: int, field: int) -> None:
        a, b = self.members[hero], self.members[field]
        seed = int(np.random.SeedSequence([self.args.seed, hero, field]).generate_state(1)[0])
        mean, win = match(self.args.game, self.args.env, self._player(a, seed), self._player(b, seed + 1),
                          self.args.league_games, seed)
        self.payoff[hero][field], self.win[hero][field] = round(mean, 6), round(win, 6)

    def set_weights(self) -> None:
        """The seats' draw weights over the opponent slots: PFSP on the newest snapshot's win rates."""
        seats, args = self.trainer.seats, self.args
        weights = np.zeros(len(self.trainer.slots) - 1)
        newest = max((i for i, m in enumerate(self.members) if m["step"] is not None), default=None)
        for j, m in enumerate(self.members):
            if not m["in_pool"]:
                continue
            p = 0.5 if newest is None or j == newest else self.win[newest][j]
            weights[m["slot"] - 1] = (1.0 - p) ** args.pfsp_power + args.pfsp_floor
        seats.weights = weights

    def write(self) -> None:
        out = {"members": self.members, "payoff": self.payoff, "win_rate": self.win,
               "weights": self.trainer.seats.weights.tolist(), "games_per_match": self.args.league_games}
        self.path.write_text(json.dumps(out, indent=1))
