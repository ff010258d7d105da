"""``PIMCAgent``: Perfect Information Monte Carlo search (determinized playouts).

At every decision the player:

1. folds the observation into its information state (``envs/<game>/worlds.py``'s ``Tracker``;
   ``reset()`` starts a new episode);
2. samples ``worlds`` complete engine states consistent with everything the seat knows
   (``sample_worlds``);
3. values every candidate move (the engine's ``search_candidates``: every legal move; Briscola's auction
   and call are pruned) in every world by ``playouts`` playouts to the end of the hand in
   progress, all at once on the game's batched engine: one ``VectorEnv`` of worlds x moves x
   playouts games, each world loaded once (``VectorEnv.load``) and copied, the playout policy acting
   for every seat until each game's hand is over (Briscola and Pigugnìn at five players: the numba heuristic,
   ``agents/batched``; Picchetto and Pigugnìn at four: a shipped distilled network, greedy, batched). A move's value in
   a world is the seat's rewards summed over the playout (Briscola: the hand's credits; Pigugnìn: minus
   the busche paid, plus the outcome reward if the game ends; Picchetto: every point scored minus every
   point conceded, zero-sum); in Picchetto's trick play, once the seat holds ``endgame`` cards or fewer,
   every world is solved exactly instead;
4. averages over worlds and playouts and plays the best move (ties broken by its seeded generator).

| keyword | default | meaning |
|---|---|---|
| ``worlds`` | the game's ``GameSpec.search.pimc_worlds``: 32 (Briscola), 40 (Pigugnìn), 64 (Picchetto) | worlds sampled per decision |
| ``playouts`` | 1 | playouts per world and move (the heuristic and network playouts are deterministic: more only help ``playout="random"``) |
| ``playout`` | ``GameSpec.search.pimc_defaults(flags)``: ``"pretrained:picchetto_distilled"`` in Picchetto, ``"pretrained:pigugnin_distilled"`` in Pigugnìn at four players, else ``"heuristic"`` (``pimc-v1``: ``"pretrained:picchetto_v1"`` in Picchetto, else ``"heuristic"``) | the policy of every seat in the playouts: ``"heuristic"`` (numba heuristic), ``"random"``, or a trained agent, ``"pretrained:GAME"`` or ``"ppo:PATH"`` (its most probable legal move; needs torch, ``pip install 'mazzo[train]'``) |
| ``card_playout`` | None (``playout`` throughout) | a policy of the same kinds that plays the trick play of the playouts instead (the engine's ``trick_play_rows``), ``playout`` still playing the rest: ``pimc:card_playout=pretrained:briscola5`` lets the heuristic bid and call in Briscola's playouts and the network play the cards (a network that overbids is a poor model of the other seats' auction, ``docs/search-players.md``) |
| ``endgame`` | ``GameSpec.search.pimc_endgame``: 3 in Picchetto, else 0 (off) | in trick play, once the seat holds at most this many cards (0-12), every world is solved exactly instead of played out: alpha-beta over every continuation with every card of the world known (Briscola: caller and partner against the defenders; Picchetto: the two players; Pigugnìn: the seat against all the others, paranoid). Picchetto: its ``GameSpec.search.endgame_solver``, ``agents.search.picchetto_endgame`` (numba; 5-6 cards still take well under a millisecond per world); the other games in Python (``agents.search.common.solve``), where 2-3 cards is the practical range |
| ``infer`` | 0 (off) | only in a game with an opponent model (``GameSpec.search.opponent_model``: Picchetto's, ``agents.search.picchetto_discards``): its temperature, for the worlds once the opponent has exchanged: ``oversample`` x ``worlds`` worlds drawn, then ``worlds`` of them redrawn by the likelihood of the opponent's discards in each (``discard_likelihood``); 3.5 fits the pretrained agent's discards |
| ``oversample`` | 4 | with ``infer``: worlds drawn per world kept |
| ``seconds`` | None | a wall-clock budget instead: batches of ``worlds`` worlds until the time is spent (at least one); not reproducible |
| ``determinizer`` | None | an object with ``seat``, ``reset``, ``observe``, ``sample(n, rng)``; default ``SampledWorlds`` (the game's ``worlds.py``); ``PerfectInformation(env, agent)`` cheats (tests, upper bounds) |

Picchetto's defaults (chosen to beat the pretrained agent too). With heuristic playouts PIMC was level with
the pretrained agent (-0.04 points per hand [-3.88, +3.80], 60 duplicate deals), whatever its budget (384
worlds: +0.09 [-2.99, +3.17]), endgame depth (exact from 6 cards: +0.92 [-1.59, +3.42], 100 deals) or
opponent model (``infer=3.5``: +0.20 [-2.28, +2.68], 100 deals); what the playouts assume about the rest of
the hand was the limit. With the pretrained network playing the playouts, the search improves on that
policy and best-responds to it: +3.85 [+1.90, +5.79] over the same 100 deals (48 worlds). That network is
``pretrained:picchetto_v1`` (the first batched checkpoint; ``pretrained:picchetto`` is now the scaling study's
stronger one). With the stronger network in the playouts PIMC scored +1.63 [-0.67, +3.93] points per hand
against PIMC with ``_v1`` (100 duplicate deals, ``python -m train.evaluate --game picchetto --flag episode=hand
--players pimc:playout=pretrained:picchetto pimc-v1 --deals 100 --seed 0``): not shown stronger. The distilled
network (``pretrained:picchetto_distilled``) in the playouts scored +1.099 [+0.508, +1.691] (1,000 deals), and has
been the default since 2026-12-06; in Pigugnìn at four players ``pretrained:pigugnin_distilled``'s playouts
scored +0.183 [+0.097, +0.269] busche per hand over the heuristic's (200 deals), and are the default there,
though among three heuristics, which the heuristic's playouts model exactly, they do worse (-0.131 [-0.221, -0.041],
paired, 200 deals). At five
players and in Briscola no network made PIMC stronger (``docs/search-players.md``). ``pimc-v1``
(``PIMCv1Agent``) keeps the earlier defaults, the PIMC of every figure published before then.

The default budget stays under 100 ms of CPU per decision at the median on the project's 2-core machine.
Milliseconds per decision with a choice, median / p95, at a load average of 0.9 (wall = CPU;
``python benchmarks/search_speed.py --decisions 40 --players pimc ismcts``, before the network playouts of
2026-12-06): Briscola 24 / 46, Pigugnìn 11 / 23 (5 players 12 / 30). With the network playouts (``python
benchmarks/search_speed.py --games pigugnin pigugnin5 picchetto --players pimc pimc-v1 --decisions 60``, load 2.2):
Pigugnìn at four players 57 / 151 (``pimc-v1`` 7 / 16), Picchetto 34 / 66 (``pimc-v1`` 28 / 43; 64 worlds, exact
endgames from 3 cards). At a load average of 8 from other jobs the CPU time stays about the same and the wall time
is 3-5x. ``pimc:worlds=128`` searches four times as many worlds in Briscola (103 / 239 ms of CPU).
With the default (world-counted) budget the player is deterministic for a given seed. It needs numba
(``pip install 'mazzo[vector]'``), and in Picchetto and four-player Pigugnìn torch for the network playouts
(``mazzo[train]``; ``pimc:playout=heuristic`` without it).
"""

from __future__ import annotations

import importlib
import time
from collections.abc import Mapping
from typing import Any

import numpy as np

from agents.base import BaseAgent
from agents.search.common import Playouts, SampledWorlds, clone, engine, require_numba, resolve_flags, solve
from envs.core.errors import ConfigError
from envs.registry import GAMES, game_spec

__all__ = ["PIMCAgent", "PIMCv1Agent"]


def _positive_int(name: str, value: Any) -> int:
    if isinstance(value, bool) or not isinstance(value, (int, np.integer)) or value < 1:
        raise ConfigError(f"invalid value {value!r} for '{name}'; allowed: an int >= 1")
    return int(value)


class PIMCAgent(BaseAgent):
    """Perfect Information Monte Carlo (see the module docstring)."""

    name = "pimc"
    #: start from ``pimc-v1``'s defaults (``GameSpec.search.pimc_v1``) instead of today's
    v1 = False

    def __init__(self, game: str, seed: int | None = None, flags: Mapping[str, Any] | None = None, *,
                 worlds: int | None = None, playouts: int = 1, playout: str | None = None,
                 card_playout: str | None = None, seconds: float | None = None, endgame: int | None = None, infer: float = 0.0,
                 oversample: int = 4, determinizer: Any = None):
        require_numba("PIMCAgent")
        super().__init__(game, seed=seed)
        self.flags = resolve_flags(game, flags)
        defaults = game_spec(game).search
        start = defaults.pimc_defaults(self.flags, v1=self.v1)
        self.worlds = _positive_int("worlds", start["worlds"] if worlds is None else worlds)
        self.playouts = _positive_int("playouts", playouts)
        if seconds is not None and (isinstance(seconds, bool) or not isinstance(seconds, (int, float))
                                    or not seconds > 0):
            raise ConfigError(f"invalid value {seconds!r} for 'seconds'; allowed: a number > 0 (or None)")
        self.seconds = None if seconds is None else float(seconds)
        playout = start["playout"] if playout is None else playout
        self.engine = Playouts(game, self.flags, playout, card_playout)
        self.playout = playout
        self.card_playout = card_playout
        endgame = start["endgame"] if endgame is None else endgame
        if isinstance(endgame, bool) or not isinstance(endgame, (int, np.integer)) or not 0 <= endgame <= 12:
            raise ConfigError(f"invalid value {endgame!r} for 'endgame'; allowed: an int 0..12 (0: off)")
        self.endgame = int(endgame)
        #: the game's fast exact endgame solver (``GameSpec.search.endgame_solver``), if any
        self.endgame_solver = None
        if self.endgame and defaults.endgame_solver:
            self.endgame_solver = importlib.import_module(defaults.endgame_solver)
            self.endgame_solver.warm_up()
        with_model = [name for name, spec in GAMES.items() if spec.search.opponent_model]
        if isinstance(infer, bool) or not isinstance(infer, (int, float, np.integer, np.floating)) or infer < 0 \
                or (infer and not defaults.opponent_model):
            raise ConfigError(f"invalid value {infer!r} for 'infer'; allowed: a number >= 0 (0: off), "
                              f"and only in a game with an opponent model ({', '.join(with_model)})")
        self.infer = float(infer)
        self.oversample = _positive_int("oversample", oversample)
        #: the opponent model of ``infer`` (``GameSpec.search.opponent_model``), None when off
        self.model = None
        if self.infer:
            module, _, name = defaults.opponent_model.partition(":")
            self.model = getattr(importlib.import_module(module), name)(self.infer)
        self.rules = engine(game, self.flags)
        self.solved = 0
        self.determinizer = determinizer if determinizer is not None else SampledWorlds(game, self.flags)
        #: the last decision's candidates and their mean values (for analysis and tests)
        self.last_candidates: list[int] = []
        self.last_values: np.ndarray = np.zeros(0)
        self.decisions = 0

    def reset(self) -> None:
        self.determinizer.reset()
        if self.model is not None:
            self.model.reset()

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
            worlds, weights = self.sample()
            if sums is None:
                cands = self.rules.search_candidates(worlds[0], legal.tolist())
                sums = np.zeros(len(cands))
            values = self.evaluate(worlds, cands)  # (worlds, candidates)
            sums += weights @ values
            count += weights.sum()
            if self.seconds is None or time.perf_counter() - start >= self.seconds:
                break
        mean = sums / count
        self.last_candidates, self.last_values = cands, mean
        best = np.flatnonzero(mean >= mean.max() - 1e-9)
        return int(cands[int(best[0]) if best.size == 1 else int(self.rng.choice(best))])

    def sample(self) -> tuple[list, np.ndarray]:
        """This decision's worlds and how many times each counts (``worlds`` draws in all).

        With ``infer``, once the opponent model has evidence (Picchetto: the opponent has exchanged):
        ``oversample`` x ``worlds`` worlds are sampled (uniform over those consistent with the seat's
        information), weighted by the model (Picchetto: how likely the opponent was to discard its discards of
        that world from its dealt hand of that world, ``agents.search.picchetto_discards``), and ``worlds`` of
        them drawn by weight; each distinct world is searched once and counted as often as it was drawn (the
        playouts and endgames are deterministic)."""
        n = self.worlds
        worlds = self.determinizer.sample(n, self.rng)
        seat = self.determinizer.seat
        model = self.model
        if model is None or not isinstance(self.determinizer, SampledWorlds) or not model.informed(worlds[0], seat):
            return worlds, np.ones(len(worlds))
        if self.oversample > 1:
            worlds = worlds + self.determinizer.sample(n * (self.oversample - 1), self.rng)
        logw = np.empty(len(worlds))
        for i, w in enumerate(worlds):
            logw[i] = model.log_weight(w, seat)
        p = np.exp(logw - logw.max())
        draws = self.rng.choice(len(worlds), size=n, p=p / p.sum())
        index, counts = np.unique(draws, return_counts=True)
        return [worlds[i] for i in index], counts.astype(np.float64)

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
        return self.rules.in_trick_play(state) and bin(state.hands[seat]).count("1") <= self.endgame

    def _solve(self, worlds: list, cands: list[int], seat: int) -> np.ndarray:
        """Exact values of each candidate in each world (the game's ``endgame_solver`` when it covers the state,
        else ``agents.search.common.solve``)."""
        self.solved += 1
        fast = self.endgame_solver
        if fast is not None and fast.supported(self.rules, worlds[0]):
            return fast.candidate_values(self.rules, worlds, seat, cands)
        out = np.zeros((len(worlds), len(cands)))
        for i, world in enumerate(worlds):
            for j, a in enumerate(cands):
                child = clone(world, self.rng)
                r = self.rules.apply(child, a)
                got = 0.0 if r is None else float(r[seat])
                out[i, j] = got + solve(self.rules, child, seat, world.hand_no, rng=self.rng)
        return out

    def __repr__(self) -> str:
        return (f"PIMCAgent(game={self.game!r}, worlds={self.worlds}, playouts={self.playouts}, "
                f"playout={self.playout!r}, card_playout={self.card_playout!r}, seconds={self.seconds})")


class PIMCv1Agent(PIMCAgent):
    """``pimc-v1``: PIMC at the defaults it had before the learned networks played its playouts (issue 22):
    ``pretrained:picchetto_v1``'s playouts in Picchetto, the heuristic's in Pigugnìn at four players too. The
    keywords are PIMC's; only the defaults differ (``GameSpec.search.pimc_v1``). Every figure published against
    PIMC before then is a figure against this player."""

    name = "pimc-v1"
    v1 = True
