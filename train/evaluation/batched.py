"""Duplicate deals on the batched engine, for players that act on rows (``agents.rows``): thousands of deals a minute.

``batched_margin(game, flags, candidate, field, num_deals, seed)`` plays every deal ``n + 1`` times on the batched
engine (one episode per game, ``autoreset=False``, the same engine seed, so game ``i`` deals the same cards
each time): once with the candidate at seat ``s`` and the field at every other seat, for each seat ``s``, and
once with the field at every seat. Per deal, averaged over the candidate's seats, with the deal as the
statistical unit (Student-t 95% intervals):

| figure | per deal |
|---|---|
| ``margin`` (mean, low, high) | the evaluation tool's "player minus field" (``train.evaluation.result``): the candidate's return in a zero-sum game; else its return minus the mean return of the field seats beside it |
| ``in_seat`` | the candidate's return minus what the field scores in the same seat in the field-only replay (the same as ``margin`` in a zero-sum game, where the field-only replay sums to 0) |

With a deterministic field (the heuristics' numba ports, which take the Python heuristics' very
actions) this is the AEC tool's duplicate evaluation, on other deals of the same distribution, at engine
speed; the search players are not row players and go through ``train.evaluate``.

Players are row players (``act(obs, mask) -> actions``) or ``make_opponent`` specs. From a spec, every seat of
every replay gets its own fresh player, seeded by its seat (the same seeds in every replay); a player object is
used as it is. Only a deterministic field (the heuristics) replays exactly: a random field draws per call, and
which rows a call holds depends on the line-up, so its moves differ between replays (the margin stays unbiased,
with less variance reduction). Multi-hand
episodes diverge after their first hand as play differs (as in the AEC tool); a margin per episode is then
not per hand: use one-hand episodes (``episode: hand``) for per-hand figures.
"""

from __future__ import annotations

from typing import Any

import numpy as np

from envs.core.errors import ConfigError
from train.evaluation.stats import mean_ci

__all__ = ["play_seated", "play_table", "batched_margin"]


def play_seated(game: str, flags: dict[str, Any], seats: list[Any], num_games: int, seed: int) -> np.ndarray:
    """One episode in each of ``num_games`` games, ``seats[s]`` (a row player) at seat ``s``; returns the
    returns, float64 ``(num_games, n)``. The same ``seed`` deals the same cards to game ``i``."""
    return play_table(game, flags, seats, num_games, seed)[0]


def play_table(game: str, flags: dict[str, Any], seats: list[Any], num_games: int, seed: int) -> tuple[np.ndarray, Any]:
    """``play_seated``, and the finished vector env (its ``state`` arrays hold how each game ended)."""
    from agents.rows import decide
    from envs.registry import make_vector_env

    env = make_vector_env(game, num_games, autoreset=False, **flags)
    env.reset(seed=seed)
    totals = np.zeros((num_games, env.num_players))
    actions = np.zeros(num_games, dtype=np.int64)
    while not env.finished.all():
        live = ~env.finished
        cur = env.current_player
        for s, player in enumerate(seats):
            rows = np.flatnonzero(live & (cur == s))
            if len(rows):
                actions[rows] = decide(player, env, rows)
        _, _, rewards, _, _, _ = env.step(actions, active=live)
        totals[live] += rewards[live]
    return totals, env


def _player(p: Any, game: str, flags: dict[str, Any], seed: int, seat: int) -> Any:
    from agents.rows import make_opponent

    return make_opponent(p, game, flags, seed + 7919 * seat) if isinstance(p, str) else p


def batched_margin(game: str, flags: dict[str, Any], candidate: Any, field: Any, num_deals: int, seed: int,
                   chunk: int = 2048) -> dict[str, Any]:
    """The candidate's margin over the field per episode on ``num_deals`` duplicate deals (module docstring):
    ``{"mean", "low", "high", "in_seat", "candidate", "field_alone", "n_deals"}`` (``in_seat``, ``candidate``,
    ``field_alone``: interval dicts; the last two are mean returns over the seats)."""
    from envs.registry import game_spec

    if num_deals < 1:
        raise ConfigError(f"num_deals: a margin needs at least 1 deal; got {num_deals}")
    spec = game_spec(game)
    n = spec.num_players(flags)
    cand_rows, field_rows, beside_rows = [], [], []
    for start in range(0, num_deals, chunk):
        k = min(chunk, num_deals - start)
        deal_seed = int(np.random.SeedSequence([seed, start]).generate_state(1)[0])
        alone = play_seated(game, flags, [_player(field, game, flags, seed, t) for t in range(n)], k, deal_seed)
        mine, beside = np.zeros(k), np.zeros(k)
        for s in range(n):
            lineup = [_player(field, game, flags, seed, t) for t in range(n)]
            lineup[s] = _player(candidate, game, flags, seed + 1, s)
            returns = play_seated(game, flags, lineup, k, deal_seed)
            mine += returns[:, s]
            beside += (returns.sum(1) - returns[:, s]) / (n - 1)
        cand_rows.append(mine / n)
        beside_rows.append(beside / n)
        field_rows.append(alone.mean(1))
    cand, base, others = (np.concatenate(x) for x in (cand_rows, field_rows, beside_rows))
    margin = mean_ci(cand if spec.zero_sum else cand - others)
    return {"mean": margin.mean, "low": margin.low, "high": margin.high, "n_deals": num_deals,
            "in_seat": mean_ci(cand - base).to_dict(), "candidate": mean_ci(cand).to_dict(),
            "field_alone": mean_ci(base).to_dict()}
