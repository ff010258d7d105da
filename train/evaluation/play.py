"""Playing the deals of an evaluation: seeds, seatings, the episode loop and the worker job.

A *deal* is an env seed: ``env.reset(seed=deal_seed)`` gives the same cards and dealer every
time. In duplicate mode each deal is replayed once per *seating* (a map from seat to line-up
entry), so every player holds every seat's cards; in plain mode each deal is played once.

| mode                   | seatings of deal ``d``                                           |
|------------------------|------------------------------------------------------------------|
| duplicate, ``rotate``  | the ``n`` cyclic rotations: entry ``i`` sits at seat ``(i + r) % n`` |
| duplicate, ``permute`` | all ``n!`` assignments of entries to seats (``n <= 5``)          |
| plain                  | one: rotation (or permutation) number ``d mod`` their count       |

Seeds (all derived with ``numpy.random.SeedSequence``, so the streams are independent):

| randomness            | seed                                            |
|-----------------------|-------------------------------------------------|
| the deal              | ``derive_seed(seed, 0, d)``                     |
| the agent at a seat   | ``derive_seed(seed, 1, d, seating, seat)``      |

Every episode depends only on these, never on which process plays it or in what order;
per-deal counters are summed in a fixed order inside one process, so the totals are
bit-identical for any number of workers.
"""

from __future__ import annotations

import itertools
from dataclasses import dataclass, field
from typing import Any

import numpy as np

from agents.registry import parse_agent_spec
from envs.core.figures import GameScorer
from envs.registry import game_spec

__all__ = ["EvalJob", "derive_seed", "make_player", "seatings", "play_episode", "play_deal", "run_chunk"]

SEATINGS = ("rotate", "permute")


def derive_seed(*keys: int) -> int:
    """A 63-bit seed from a tuple of non-negative ints (order matters)."""
    return int(np.random.SeedSequence(list(keys)).generate_state(1, np.uint64)[0] >> np.uint64(1))


def seatings(n: int, kind: str = "rotate") -> list[tuple[int, ...]]:
    """Seatings as tuples ``entry_at_seat`` (``t[seat]`` = the line-up entry sitting there)."""
    if kind == "rotate":
        return [tuple((seat - r) % n for seat in range(n)) for r in range(n)]
    if kind == "permute":
        return list(itertools.permutations(range(n)))
    raise ValueError(f"unknown seatings {kind!r}; allowed: {', '.join(SEATINGS)}")


def play_episode(env: Any, agents: list[Any], deal_seed: int, agent_seeds: list[int],
                 scorer: GameScorer) -> list[list[float]]:
    """One episode on the raw env; ``agents[seat]`` acts for each seat. Per-seat counter rows."""
    for agent, s in zip(agents, agent_seeds, strict=True):
        agent.seed(s)
        agent.reset()
    env.reset(seed=deal_seed)
    names = env.possible_agents
    mapping = env.agent_name_mapping
    n = len(names)
    returns = [0.0] * n
    rows = [[0.0] * len(scorer.counters) for _ in range(n)]
    track = scorer.tracks_actions
    terminations, truncations = env.terminations, env.truncations
    while True:
        name = env.agent_selection
        if terminations[name] or truncations[name]:
            break
        seat = mapping[name]
        action = int(agents[seat].act(env.observe(name)))
        if track:
            scorer.on_action(rows[seat], action)
        env.step(action)
        rewards = env.rewards
        for i in range(n):
            returns[i] += rewards[names[i]]
        terminations, truncations = env.terminations, env.truncations
    scorer.episode(env.infos[names[0]]["result"], returns, rows)
    return rows


def make_player(spec: str, game: str, flags: dict[str, Any]) -> Any:
    """The player of ``spec`` (``agents.registry``); trained agents also get the env flags to check their input shape."""
    return parse_agent_spec(spec, game).build(flags=flags)


@dataclass
class EvalJob:
    """Everything a worker needs to play deals (picklable: specs, not agent objects)."""

    game: str
    players: list[Any]  # spec strings, or Agent objects (in-process only)
    flags: dict[str, Any] = field(default_factory=dict)
    seed: int = 0
    duplicate: bool = True
    seating: str = "rotate"
    records: bool = False  # keep every episode's record (``--save-games``)

    def build(self) -> tuple[Any, list[Any], GameScorer]:
        """The raw env, one agent per line-up entry, and the scorer (the game's figures)."""
        spec = game_spec(self.game)
        env = spec.raw_env(**self.flags)
        agents = [make_player(p, self.game, self.flags) if isinstance(p, str) else p for p in self.players]
        return env, agents, spec.figures_class()()


def play_deal(job: EvalJob, built: tuple[Any, list[Any], GameScorer], d: int,
              records: list[dict] | None = None) -> np.ndarray:
    """All episodes of deal ``d``; counters summed per line-up entry, shape (entries, counters).

    With a ``records`` list, each episode's record (``envs.records``) is appended to it with its
    ``players`` (the spec at each seat, its line-up entry, a checkpoint's sha256) and its
    ``seating`` (deal, seating number, entry at each seat, deal and agent seeds)."""
    env, agents, scorer = built
    n = len(agents)
    table = seatings(n, job.seating)
    which = range(len(table)) if job.duplicate else [d % len(table)]
    deal_seed = derive_seed(job.seed, 0, d)
    out = np.zeros((n, len(scorer.counters)), dtype=np.float64)
    for k in which:
        entry_at = table[k]
        seat_agents = [agents[entry_at[seat]] for seat in range(n)]
        seeds = [derive_seed(job.seed, 1, d, k, seat) for seat in range(n)]
        rows = play_episode(env, seat_agents, deal_seed, seeds, scorer)
        for seat in range(n):
            out[entry_at[seat]] += rows[seat]
        if records is not None:
            records.append(_with_seating(env, job, seat_agents, entry_at, d, k, deal_seed, seeds))
    return out


def _with_seating(env: Any, job: EvalJob, seat_agents: list[Any], entry_at: tuple[int, ...], d: int, k: int,
                  deal_seed: int, seeds: list[int]) -> dict:
    from envs.records import player_info, set_players

    record = env.infos[env.possible_agents[0]]["record"]
    labels = [p if isinstance(p, str) else str(getattr(p, "name", type(p).__name__)) for p in job.players]
    set_players(record, [{**player_info(labels[e], a), "entry": e} for e, a in zip(entry_at, seat_agents, strict=True)])
    record["seating"] = {"deal": d, "seating": k, "entry_at": list(entry_at), "deal_seed": deal_seed,
                         "agent_seeds": list(seeds)}
    return record


_CACHE: list[Any] = []  # [(job, built)] of the last job this process played


def run_chunk(job: EvalJob, deals: list[int]) -> tuple[list[int], np.ndarray, list[dict] | None]:
    """Worker entry point: play ``deals``; reuses the env and agents built for an equal job.
    Returns the deals, their counters and (``job.records``) their episodes' records in order."""
    if not _CACHE or _CACHE[0][0] != job:
        _CACHE[:] = [(job, job.build())]
    built = _CACHE[0][1]
    records = [] if job.records else None
    return deals, np.stack([play_deal(job, built, d, records) for d in deals]), records
