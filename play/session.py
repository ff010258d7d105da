"""A table where one person plays one seat against agents: shared by the terminal and the web page.

The session holds the env (the person never sees it) and the bots; `view()` is what the
person's seat may know: `envs.records.seat_view` of that seat (its own cards, the counts of the
others', the trick in progress, the engine's rendering for the seat, the rewards so far), its
legal actions with their names, and the moves made since its last action (another seat's
discards hidden). Nothing in a view comes from another seat's cards.

    s = Session("briscola5", seat=0, opponents=["heuristic"], seed=7)
    s.view()["legal"]          # [{"id": 80, "name": "pass"}, {"id": 81, "name": "bid 61"}, ...]
    s.act(80)                  # the person's action; the bots answer until it is the person's turn again
    s.record()                 # the full record (mazzo-record/1); s.record(redacted=True) for the seat
"""

from __future__ import annotations

import secrets
from collections.abc import Sequence
from typing import Any

import numpy as np

from envs import records
from envs.core.errors import ConfigError, IllegalActionError
from envs.registry import game_spec

__all__ = ["Session", "parse_opponents", "result_rows", "OPPONENT_KINDS"]

#: what a person can choose to play against (``pretrained:GAME`` needs the ``train`` extra: torch)
OPPONENT_KINDS = ("heuristic", "random", "pretrained")


def parse_opponents(opponents: str | Sequence[str] | None, game: str, num_players: int) -> list[str]:
    """One agent spec per other seat: one spec for all, or exactly ``num_players - 1``.

    ``"pretrained"`` alone means the game's own pretrained agent (``pretrained:GAME``)."""
    if opponents is None:
        specs = ["heuristic"]
    elif isinstance(opponents, str):
        specs = [s.strip() for s in opponents.split(",") if s.strip()]
    else:
        specs = [str(s).strip() for s in opponents]
    specs = [f"pretrained:{game}" if s == "pretrained" else s for s in specs]
    if len(specs) == 1:
        specs = specs * (num_players - 1)
    if len(specs) != num_players - 1:
        raise ConfigError(f"{game} has {num_players} seats: give one opponent for all or {num_players - 1} "
                          f"(comma separated); got {len(specs)}: {', '.join(specs) or 'none'}")
    return specs


def _make_bot(spec: str, game: str, flags: dict[str, Any], seed: int) -> Any:
    from agents.registry import parse_agent_spec

    try:
        return parse_agent_spec(spec, game).build(seed=seed, flags=dict(flags))  # flags reach trained agents only
    except ConfigError:
        raise
    except ImportError as e:
        raise ConfigError(f"opponent {spec!r} needs the 'train' extra (torch): {e}") from None
    except (OSError, ValueError, KeyError, RuntimeError) as e:
        raise ConfigError(f"opponent {spec!r} cannot play {game!r}: {e}") from None


def result_rows(game: str, result: dict[str, Any], returns: list[float]) -> list[dict[str, Any]]:
    """The end-of-episode table, one row per seat: the return and the game's own figures."""
    rows = []
    for p, ret in enumerate(returns):
        row: dict[str, Any] = {"seat": p, "return": ret}
        if game == "briscola5":
            row["classifica"] = result["totals"][p]
        elif game == "pigugnin":
            row["busche"] = result["busche"][p]
            row["outcome"] = result["outcome"][p] if result.get("outcome") else "-"
        elif game == "picchetto":
            row["game score"] = result["scores"][p]
            row["games won"] = result["games_won"][p]
            row["match"] = "won" if result.get("match_winner") == p else ("lost" if result.get("match_winner") is not None else "-")
        rows.append(row)
    return rows


class Session:
    """One person at ``seat`` of ``game``; the other seats are played by ``opponents``."""

    def __init__(self, game: str, seat: int = 0, opponents: str | Sequence[str] | None = None,
                 seed: int | None = None, flags: dict[str, Any] | None = None):
        spec = game_spec(game)  # ConfigError for an unknown game
        self.game = game
        self.flags = dict(flags or {})
        if "render_mode" in self.flags:
            raise ConfigError("'render_mode' is not a game flag")
        self.env = spec.raw_env(**self.flags)  # ConfigError names a bad flag
        self.names = self.env.possible_agents
        n = len(self.names)
        if isinstance(seat, bool) or not isinstance(seat, (int, np.integer)) or not 0 <= seat < n:
            raise ConfigError(f"seat must be 0..{n - 1} for {game}; got {seat!r}")
        self.seat = int(seat)
        if seed is None:
            seed = secrets.randbits(32)
        if isinstance(seed, bool) or not isinstance(seed, (int, np.integer)) or seed < 0:
            raise ConfigError(f"seed must be an int >= 0; got {seed!r}")
        self.seed = int(seed)
        specs = parse_opponents(opponents, game, n)
        self.players: list[str] = []
        self.bots: dict[int, Any] = {}
        others = iter(specs)
        seeds = np.random.SeedSequence([self.seed, 1]).generate_state(n)
        for p in range(n):
            if p == self.seat:
                self.players.append("human")
            else:
                s = next(others)
                self.players.append(s)
                self.bots[p] = _make_bot(s, game, self.flags, int(seeds[p]))
        for bot in self.bots.values():
            bot.reset()
        self.env.reset(seed=self.seed)
        self.tracker = records.Tracker(self.env)  # steps the env: the hand's moves, the returns
        self.log: list[dict[str, Any]] = []  # every move: {"seat", "id", "name"}
        self.notes: dict[int, dict[str, Any]] = {}  # move number -> a trained bot's probabilities
        self._shown = 0  # moves already in a view
        self._play_bots()

    # -- state --------------------------------------------------------------------------
    @property
    def over(self) -> bool:
        agent = self.env.agent_selection
        return bool(self.env.terminations[agent] or self.env.truncations[agent])

    @property
    def to_act(self) -> int | None:
        return None if self.over else self.env.agent_name_mapping[self.env.agent_selection]

    def legal(self) -> list[dict[str, Any]]:
        if self.to_act != self.seat:
            return []
        game = self.env.game
        return [{"id": a, "name": game.move_name(a)} for a in self.env.legal_actions()]

    # -- play ---------------------------------------------------------------------------
    def _step(self, action: int) -> None:
        self.log.append(self.tracker.step(int(action)))

    def _play_bots(self) -> None:
        while not self.over and self.to_act != self.seat:
            p = self.to_act
            bot, obs = self.bots[p], self.env.observe(self.names[p])
            action = bot.act(obs)
            probs = getattr(bot, "probs", None)  # a trained policy: keep its view of the move in the record
            if callable(probs):
                dist = np.asarray(probs(obs), dtype=np.float64)
                top = [int(a) for a in np.argsort(-dist, kind="stable")[:5] if dist[a] > 0]
                self.notes[len(self.log)] = {"probs": {self.env.game.move_name(a): round(float(dist[a]), 4) for a in top}}
            self._step(action)

    def act(self, action: Any) -> None:
        """The person's action (an id); the bots then play until the person's turn or the end.

        Anything but a legal id raises ``IllegalActionError`` listing the legal actions, and
        changes nothing."""
        legal = self.legal()
        ids = [a["id"] for a in legal]
        if isinstance(action, bool) or not isinstance(action, (int, np.integer)) or int(action) not in ids:
            listed = ", ".join(f"{a['id']} ({a['name']})" for a in legal)
            if self.over:
                raise IllegalActionError(f"the episode is over; no action is legal (got {action!r})")
            if not ids:
                raise IllegalActionError(f"it is not player_{self.seat}'s turn (got {action!r})")
            raise IllegalActionError(f"action {action!r} is not legal now for player_{self.seat}; legal actions: {listed}")
        self._step(int(action))
        self._play_bots()

    # -- what the person sees -------------------------------------------------------------
    def new_moves(self) -> list[dict[str, Any]]:
        """The moves since the last view (the person's own, then the bots'), as the seat sees them."""
        moves = [records.public_move(m, self.seat) for m in self.log[self._shown:]]
        self._shown = len(self.log)
        return moves

    def result(self) -> list[dict[str, Any]] | None:
        if not self.over:
            return None
        info = self.env.infos[self.names[0]]
        return result_rows(self.game, info["result"], self.tracker.returns)

    def view(self) -> dict[str, Any]:
        """The seat's view now (see the module docstring); marks the new moves as shown."""
        out = records.seat_view(self.env, self.seat, self.tracker)
        out.update({
            "game": self.game,
            "num_players": len(self.names),
            "players": list(self.players),
            "legal": self.legal(),
            "moves": self.new_moves(),
            "result": self.result(),
        })
        return out

    def record(self, redacted: bool = False) -> dict[str, Any]:
        """The episode so far (complete once over) with the players; ``redacted``: as the seat may know it."""
        rec = self.env.episode_record()
        players = []
        for p, spec in enumerate(self.players):
            players.append(records.player_info(spec, self.bots.get(p)))
        records.set_players(rec, players)
        for k, note in self.notes.items():
            records.annotate(rec, k, note)
        return records.redact(rec, self.seat) if redacted else rec
