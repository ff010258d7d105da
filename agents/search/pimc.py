"""``PIMCAgent``: Perfect Information Monte Carlo search (determinized playouts).

At every decision the player:

1. folds the observation into its information state (``envs/<game>/worlds.py``'s ``Tracker``;
   ``reset()`` starts a new episode);
2. samples ``worlds`` complete engine states consistent with everything the seat knows
   (``sample_worlds``);
3. values every candidate move (every legal move; Briscola's auction and call are pruned, see
   ``agents.search.common``) in every world by ``playouts`` playouts to the end of the hand in
   progress, all at once on the game's batched engine: one ``VectorEnv`` of worlds x moves x
   playouts games, each world loaded once (``VectorEnv.load``) and copied, the numba heuristic
   (``agents/batched``) or uniformly random moves acting for every seat until each game's hand is
   over. A move's value in a world is the seat's rewards summed over the playout (Briscola: the
   hand's credits; Pigugnìn: minus the busche paid, plus the outcome reward if the game ends;
   Picchetto: every point scored minus every point conceded, zero-sum);
4. averages over worlds and playouts and plays the best move (ties broken by its seeded generator).

| keyword | default | meaning |
|---|---|---|
| ``worlds`` | per game: 32 (Briscola), 40 (Pigugnìn), 96 (Picchetto) | worlds sampled per decision |
| ``playouts`` | 1 | playouts per world and move (the heuristic playout is deterministic: more only help ``playout="random"``) |
| ``playout`` | ``"heuristic"`` | ``"heuristic"`` (numba heuristic at every seat) or ``"random"`` |
| ``endgame`` | 3 in Picchetto, else 0 (off) | in trick play, once the seat holds at most this many cards (1-4), every world is solved exactly instead of played out: alpha-beta over every continuation with every card of the world known (Briscola: caller and partner against the defenders; Picchetto: the two players; Pigugnìn: the seat against all the others, paranoid). Exact but slow in Python: 2-3 cards is the practical range |
| ``seconds`` | None | a wall-clock budget instead: batches of ``worlds`` worlds until the time is spent (at least one); not reproducible |
| ``determinizer`` | None | an object with ``seat``, ``reset``, ``observe``, ``sample(n, rng)``; default ``SampledWorlds`` (the game's ``worlds.py``); ``PerfectInformation(env, agent)`` cheats (tests, upper bounds) |

The default budget stays under 100 ms per decision on the project's 2-core machine. Milliseconds per
decision with a choice, median / p95, at a load average of 0.9 (wall = CPU;
``python benchmarks/search_speed.py --decisions 40 --players pimc ismcts``): Briscola 24 / 46, Pigugnìn 11 / 23
(5 players 12 / 30), Picchetto (96 worlds, exact endgames) 29 / 86. At a load average of 8 from other jobs
the CPU time stays about the same and the wall time is 3-5x. ``pimc:worlds=128`` searches four times as many
worlds in Briscola (103 / 239 ms of CPU).
With the default (world-counted) budget the player is deterministic for a given seed. It needs numba
(``pip install 'mazzo[vector]'``).
"""

from __future__ import annotations

import time
from collections.abc import Mapping
from typing import Any

import numpy as np

from agents.base import BaseAgent
from agents.search.common import (
    Playouts,
    SampledWorlds,
    candidates,
    clone,
    engine,
    in_trick_play,
    require_numba,
    resolve_flags,
    solve,
)
from envs.core.errors import ConfigError

__all__ = ["PIMCAgent", "DEFAULT_WORLDS", "DEFAULT_ENDGAME"]

#: worlds per decision of the default budget, per game (each under 100 ms per decision, see the docstring)
DEFAULT_WORLDS = {"briscola5": 32, "pigugnin": 40, "picchetto": 96}
#: the default ``endgame`` per game: Picchetto's 2-player endgames are cheap to solve exactly
DEFAULT_ENDGAME = {"briscola5": 0, "pigugnin": 0, "picchetto": 3}


def _positive_int(name: str, value: Any) -> int:
    if isinstance(value, bool) or not isinstance(value, (int, np.integer)) or value < 1:
        raise ConfigError(f"invalid value {value!r} for '{name}'; allowed: an int >= 1")
    return int(value)


class PIMCAgent(BaseAgent):
    """Perfect Information Monte Carlo (see the module docstring)."""

    name = "pimc"

    def __init__(self, game: str, seed: int | None = None, flags: Mapping[str, Any] | None = None, *,
                 worlds: int | None = None, playouts: int = 1, playout: str = "heuristic",
                 seconds: float | None = None, endgame: int | None = None, determinizer: Any = None):
        require_numba("PIMCAgent")
        super().__init__(game, seed=seed)
        self.flags = resolve_flags(game, flags)
        self.worlds = _positive_int("worlds", DEFAULT_WORLDS[game] if worlds is None else worlds)
        self.playouts = _positive_int("playouts", playouts)
        if seconds is not None and (isinstance(seconds, bool) or not isinstance(seconds, (int, float))
                                    or not seconds > 0):
            raise ConfigError(f"invalid value {seconds!r} for 'seconds'; allowed: a number > 0 (or None)")
        self.seconds = None if seconds is None else float(seconds)
        self.engine = Playouts(game, self.flags, playout)
        self.playout = playout
        endgame = DEFAULT_ENDGAME[game] if endgame is None else endgame
        if isinstance(endgame, bool) or not isinstance(endgame, (int, np.integer)) or not 0 <= endgame <= 4:
            raise ConfigError(f"invalid value {endgame!r} for 'endgame'; allowed: an int 0..4 (0: off)")
        self.endgame = int(endgame)
        self.rules = engine(game, self.flags)
        self.solved = 0
        self.determinizer = determinizer if determinizer is not None else SampledWorlds(game, self.flags)
        #: the last decision's candidates and their mean values (for analysis and tests)
        self.last_candidates: list[int] = []
        self.last_values: np.ndarray = np.zeros(0)
        self.decisions = 0

    def reset(self) -> None:
        self.determinizer.reset()

    def act(self, observation: dict[str, np.ndarray]) -> int:
        self.determinizer.observe(observation)
        legal = np.flatnonzero(observation["action_mask"])
        if legal.size == 0:
            raise ValueError("the action mask is all zeros: this seat is not to act (or the episode is over)")
        self.decisions += 1
        if legal.size == 1:
            self.last_candidates, self.last_values = [int(legal[0])], np.zeros(1)
            return int(legal[0])
        start = time.perf_counter()
        sums: np.ndarray | None = None
        count = 0
        cands: list[int] = []
        while True:
            worlds = self.determinizer.sample(self.worlds, self.rng)
            if sums is None:
                cands = candidates(self.game, worlds[0], legal.tolist())
                sums = np.zeros(len(cands))
            values = self.evaluate(worlds, cands)  # (worlds, candidates)
            sums += values.sum(axis=0)
            count += len(worlds)
            if self.seconds is None or time.perf_counter() - start >= self.seconds:
                break
        mean = sums / count
        self.last_candidates, self.last_values = cands, mean
        best = np.flatnonzero(mean >= mean.max() - 1e-9)
        return int(cands[int(best[0]) if best.size == 1 else int(self.rng.choice(best))])

    def evaluate(self, worlds: list, cands: list[int]) -> np.ndarray:
        """Mean playout value of each candidate in each world for the searching seat: ``(worlds, candidates)``."""
        seat = self.determinizer.seat
        w, a, p = len(worlds), len(cands), self.playouts
        src = np.repeat(np.arange(w), a * p)
        first = np.tile(np.repeat(np.asarray(cands, dtype=np.int64), p), w)
        if self.endgame and self._small(worlds[0], seat):
            return self._solve(worlds, cands, seat)
        totals = self.engine.run(worlds, src, first, self.rng, seat=seat)
        return totals[:, seat].reshape(w, a, p).mean(axis=2)

    def _small(self, state: Any, seat: int) -> bool:
        return in_trick_play(self.game, state) and bin(state.hands[seat]).count("1") <= self.endgame

    def _solve(self, worlds: list, cands: list[int], seat: int) -> np.ndarray:
        """Exact values of each candidate in each world (``agents.search.common.solve``)."""
        out = np.zeros((len(worlds), len(cands)))
        for i, world in enumerate(worlds):
            for j, a in enumerate(cands):
                child = clone(self.game, world, self.rng)
                r = self.rules.apply(child, a)
                got = 0.0 if r is None else float(r[seat])
                out[i, j] = got + solve(self.game, self.rules, child, seat, world.hand_no, rng=self.rng)
        self.solved += 1
        return out

    def __repr__(self) -> str:
        return (f"PIMCAgent(game={self.game!r}, worlds={self.worlds}, playouts={self.playouts}, "
                f"playout={self.playout!r}, seconds={self.seconds})")
