"""``ISMCTSAgent``: single-observer information-set Monte Carlo tree search (Cowling, Powley and Whitehouse 2012).

One tree per decision, whose nodes are the searching seat's information sets: a node is reached by
the sequence of moves the seat can see (its own moves and every public move), whatever the hidden
cards, so every sampled world descends the same tree. Each iteration:

1. takes a determinization (a world sampled from the seat's information state, ``envs/<game>/worlds.py``;
   ``worlds`` of them are drawn per decision and used in turn) and clones it;
2. descends from the root on the Python engine: among the candidate moves legal *in this world*
   (the engine's ``search_candidates``: Briscola's auction and call pruned), an untried one is
   expanded (at a new node the playout policy's own move, then the others in an order drawn by the seeded
   generator: with few iterations the first child of every node is the move the playouts assume), else the child with the best UCB score
   ``mean_j + c * range * sqrt(ln(avail_j) / n_j)`` for the seat to move ``j``'s own reward, where
   ``avail_j`` counts the iterations in which that move was available (the availability counts of
   SO-ISMCTS), ``range`` is the spread of payoffs seen so far and ``c`` = ``exploration``;
   a move the searching seat cannot see (the engine's ``hidden_move_name``: Picchetto's opponent discards)
   ends the descent;
3. plays out from the new node to the end of the hand in progress with the numba heuristic at every
   seat (``agents.search.common.Playouts``; ``batch`` leaves are played out together on one batched
   engine, their visits counted at selection as a virtual loss so that the batch spreads);
4. backs up the payoff: each seat's rewards summed from the decision to the end of the hand (the
   searching seat's own payoff decides at the root; every node ranks by its mover's payoff, max-n).

It plays the root move with the most visits (ties: the higher mean, then the seeded generator).

| keyword | default | meaning |
|---|---|---|
| ``iterations`` | the game's ``GameSpec.search.ismcts_iterations``: 128 (Briscola), 160 (Pigugnìn), 192 (Picchetto) | iterations per decision |
| ``worlds`` | ``min(iterations, 64)`` | worlds sampled per decision (iteration ``i`` uses world ``i mod worlds``) |
| ``batch`` | 32 | leaves played out together |
| ``exploration`` | 0.25 | the UCB constant ``c`` (payoffs scaled by their spread; lower than the textbook 0.7 for the small default budget) |
| ``playout`` | ``"heuristic"`` | or ``"random"`` |
| ``seconds`` | None | a wall-clock budget instead of ``iterations`` (whole batches until the time is spent; not reproducible) |
| ``determinizer`` | None | as ``PIMCAgent``'s |

The default budget stays under 100 ms per decision on the project's 2-core machine. Milliseconds per
decision with a choice, median / p95, at a load average of 0.9 (wall = CPU;
``python benchmarks/search_speed.py --decisions 40 --players pimc ismcts``): Briscola 34 / 52, Pigugnìn 35 / 40
(5 players 36 / 43), Picchetto 34 / 50. The player is deterministic for a given seed. It needs numba.
"""

from __future__ import annotations

import math
import time
from collections.abc import Mapping
from typing import Any

import numpy as np

from agents.base import BaseAgent
from agents.search.common import Playouts, SampledWorlds, clone, engine, require_numba, resolve_flags
from agents.search.pimc import _positive_int
from envs.core.errors import ConfigError
from envs.registry import game_spec

__all__ = ["ISMCTSAgent"]


class _Node:
    """An information set of the searching seat; the statistics are of the move that leads here."""

    __slots__ = ("children", "visits", "avail", "reward")

    def __init__(self, num_players: int):
        self.children: dict[int, _Node] = {}
        self.visits = 0
        self.avail = 1
        self.reward = [0.0] * num_players


class ISMCTSAgent(BaseAgent):
    """Single-observer IS-MCTS (see the module docstring)."""

    name = "ismcts"

    def __init__(self, game: str, seed: int | None = None, flags: Mapping[str, Any] | None = None, *,
                 iterations: int | None = None, worlds: int | None = None, batch: int = 32,
                 exploration: float = 0.25, playout: str = "heuristic", seconds: float | None = None,
                 determinizer: Any = None):
        require_numba("ISMCTSAgent")
        super().__init__(game, seed=seed)
        self.flags = resolve_flags(game, flags)
        default = game_spec(game).search.ismcts_iterations
        self.iterations = _positive_int("iterations", default if iterations is None else iterations)
        self.worlds = _positive_int("worlds", min(self.iterations, 64) if worlds is None else worlds)
        self.batch = _positive_int("batch", batch)
        if isinstance(exploration, bool) or not isinstance(exploration, (int, float)) or not exploration >= 0:
            raise ConfigError(f"invalid value {exploration!r} for 'exploration'; allowed: a number >= 0")
        self.exploration = float(exploration)
        if seconds is not None and (isinstance(seconds, bool) or not isinstance(seconds, (int, float))
                                    or not seconds > 0):
            raise ConfigError(f"invalid value {seconds!r} for 'seconds'; allowed: a number > 0 (or None)")
        self.seconds = None if seconds is None else float(seconds)
        self.playout = playout
        self.engine = Playouts(game, self.flags, playout)
        self.rules = engine(game, self.flags)
        self.num_players = self.rules.num_players
        self.determinizer = determinizer if determinizer is not None else SampledWorlds(game, self.flags)
        self.last_root: _Node | None = None
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
            return int(legal[0])
        start = time.perf_counter()
        worlds = self.determinizer.sample(self.worlds, self.rng)
        root = _Node(self.num_players)
        self._lo, self._hi = math.inf, -math.inf
        done = 0
        while True:
            size = self.batch if self.seconds is not None else min(self.batch, self.iterations - done)
            self._iterate(root, [worlds[(done + k) % len(worlds)] for k in range(size)])
            done += size
            if self.seconds is not None:
                if time.perf_counter() - start >= self.seconds:
                    break
            elif done >= self.iterations:
                break
        self.last_root = root
        seat = self.determinizer.seat
        moves = sorted(root.children)
        visits = np.array([root.children[a].visits for a in moves], dtype=np.float64)
        means = np.array([root.children[a].reward[seat] / max(root.children[a].visits, 1) for a in moves])
        key = visits * 1e6 + means  # most visits, then the higher mean
        best = np.flatnonzero(key >= key.max() - 1e-9)
        return int(moves[int(best[0]) if best.size == 1 else int(self.rng.choice(best))])

    # -- one batch of iterations ---------------------------------------------------------------
    def _iterate(self, root: _Node, worlds: list) -> None:
        rules, rng = self.rules, self.rng
        hidden, search_candidates = rules.hidden_move_name, rules.search_candidates
        observer = self.determinizer.seat
        n = self.num_players
        leaves = []  # (state or None, rewards so far, path)
        for world in worlds:
            state = clone(world, rng)  # a new deal in the descent never draws from the real game's generator
            start = state.hand_no
            acc = [0.0] * n
            node = root
            path = []
            while True:
                if rules.is_over(state) or state.hand_no != start:
                    state = None
                    break
                actor = rules.current_player(state)
                legal = rules.legal_actions(state)
                if actor != observer and hidden(legal[0]) is not None:  # the seat cannot see this move
                    break
                cands = search_candidates(state, legal)
                children = node.children
                untried = []
                for a in cands:
                    child = children.get(a)
                    if child is None:
                        untried.append(a)
                    else:
                        child.avail += 1
                if untried:
                    a = untried[0]
                    if len(untried) > 1:  # the playout policy's move first, then the others at random
                        a = self.engine.choose(rules, state, rng) if len(untried) == len(cands) else -1
                        if a not in untried:
                            a = untried[int(rng.integers(len(untried)))]
                    child = children[a] = _Node(n)
                else:
                    a = self._select(children, cands, actor)
                    child = children[a]
                child.visits += 1  # counted now: a virtual loss until the playout's payoff arrives
                path.append(child)
                rewards = rules.apply(state, a)
                if rewards is not None:
                    for s in range(n):
                        acc[s] += rewards[s]
                node = child
                if untried:
                    if rules.is_over(state) or state.hand_no != start:
                        state = None
                    break
            leaves.append((state, acc, path))
        pending = [k for k, leaf in enumerate(leaves) if leaf[0] is not None]
        payoffs = [list(acc) for _, acc, _ in leaves]
        if pending:
            states = [leaves[k][0] for k in pending]
            src = np.arange(self.batch) % len(states)  # one engine size: the spare games copy the first leaves
            totals = self.engine.run(states, src, np.full(self.batch, -1, dtype=np.int64), rng)
            for j, k in enumerate(pending):
                for s in range(n):
                    payoffs[k][s] += float(totals[j, s])
        for (_, _, path), pay in zip(leaves, payoffs, strict=True):
            self._lo = min(self._lo, min(pay))
            self._hi = max(self._hi, max(pay))
            for node in path:
                r = node.reward
                for s in range(n):
                    r[s] += pay[s]

    def _select(self, children: dict[int, _Node], cands: list[int], actor: int) -> int:
        spread = self._hi - self._lo if self._hi > self._lo else 1.0
        c = self.exploration * spread
        best, best_score = cands[0], -math.inf
        for a in cands:
            child = children[a]
            v = child.visits
            score = child.reward[actor] / v + c * math.sqrt(math.log(child.avail) / v)
            if score > best_score:
                best, best_score = a, score
        return best

    def __repr__(self) -> str:
        return (f"ISMCTSAgent(game={self.game!r}, iterations={self.iterations}, worlds={self.worlds}, "
                f"batch={self.batch}, playout={self.playout!r}, seconds={self.seconds})")
