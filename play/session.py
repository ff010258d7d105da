"""A table where one person plays one seat against agents: shared by the terminal and the web page.

The session holds the env (the person never sees it) and the bots; `view()` is what the
person's seat may know. Nothing in a view comes from another seat's cards, and nothing in it
depends on which game is played: the game's facts come from its summary module
(`GameSpec.summary_module()`, `envs.<game>.summary`).

| view key      | value                                                                          |
|---------------|--------------------------------------------------------------------------------|
| `seat`, `hand_no`, `to_act`, `over`, `hands`, `counts`, `trick`, `last`, `returns`, `text` | `envs.records.seat_view` of the seat |
| `game`, `title`, `num_players`, `players` | registry name, the game's title, seats, one spec per seat (`"human"`) |
| `legal`       | the seat's legal actions `[{"id", "name"}]` (empty when it is not to act)      |
| `board`       | the game's public scoreboard: `{"columns": [[name, [value per seat]]], "lines": [status]}`, told to the person ("you are the partner") |
| `moves`       | the moves since the last view (`{"seat", "id", "name", "hand_no", "trick", "won_by"}`) |
| `recent`      | the same grouped by trick, with winners and hand ends (`play.moves.recent`)    |
| `summary`     | at the end: the game's `{"lines": [headline], "rows": [per seat]}`, else None  |
| `result`      | at the end: `summary["rows"]` (the board's columns, the hand's figures, `return`) |

    s = Session("briscola5", seat=0, opponents=["heuristic"], seed=7)
    s.view()["legal"]          # [{"id": 80, "name": "pass"}, {"id": 81, "name": "bid 61"}, ...]
    s.caution(140)             # 'bid 120 is 59 over the lowest bid now (61): ...' (ask before acting)
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
from play.moves import Tricks, recent

__all__ = ["Session", "parse_opponents", "result_rows", "summary_of", "record_summary", "OPPONENT_KINDS"]

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


def summary_of(game: str, result: dict[str, Any], returns: list[float],
               hands: list[dict[str, Any]] | None = None) -> dict[str, Any]:
    """The game's public end-of-episode summary: ``{"lines": [headline, ...], "rows": [per seat]}``
    (``envs.<game>.summary``); ``hands``: the hand results when ``result`` has none (a record's)."""
    finished = [h for h in (result.get("hands") if hands is None else hands) or () if h]
    return game_spec(game).summary_module().summary(result, returns, finished)


def result_rows(game: str, result: dict[str, Any], returns: list[float],
                hands: list[dict[str, Any]] | None = None) -> list[dict[str, Any]]:
    """The end-of-episode table, one row per seat: the game's own figures, then the return."""
    return summary_of(game, result, returns, hands)["rows"]


def record_summary(record: dict[str, Any]) -> dict[str, Any] | None:
    """The summary of a finished record (full or redacted), None while it is in progress."""
    if not record.get("over") or record.get("result") is None:
        return None
    hands = [h.get("result") for h in record["hands"]]
    return summary_of(record["game"], record["result"], record["returns"], hands)


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
        self.summary = spec.summary_module()  # the game's public scoreboard, trick winners, results
        self.tracker = records.Tracker(self.env)  # steps the env: the hand's moves, the returns
        self.tricks = Tricks(n, self.summary.trick_winner)
        self.log: list[dict[str, Any]] = []  # every move: {"seat", "id", "name", "hand_no", "trick", "won_by"}
        self.public: list[dict[str, Any]] = []  # the same as the seat sees them (others' discards hidden)
        self.hand_ends: dict[int, list[dict[str, Any]]] = {}  # move index -> {"hand_no", "lines"} of hands it ended
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
        env = self.env
        hand_no = env.state_.hand_no
        move = dict(self.tracker.step(int(action)), hand_no=hand_no)
        move.update(self.tricks.add(move))
        self.log.append(move)
        tags = {k: move[k] for k in ("hand_no", "trick", "won_by")}
        self.public.append({**records.public_move(move, self.seat, self.env.game), **tags})
        ended = list(range(hand_no, env.state_.hand_no))  # a new deal ends the hands before it
        if self.over and env.state_.hand_no not in ended:
            ended.append(env.state_.hand_no)
        if ended:
            by_no = {h.get("hand_no"): h for h in env.game.result(env.state_)["hands"]}
            self.hand_ends[len(self.log) - 1] = [{"hand_no": h, "lines": self.summary.hand_lines(by_no[h])}
                                                 for h in ended if h in by_no]

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

    def caution(self, action: int) -> str | None:
        """Why the person should confirm ``action`` (a jump bid, a solo call...), or None."""
        if action not in {a["id"] for a in self.legal()}:
            return None
        return self.summary.caution(self.env.game, self.env.state_, int(action))

    # -- what the person sees -------------------------------------------------------------
    def new_moves(self) -> tuple[list[dict[str, Any]], list[dict[str, Any]]]:
        """The moves since the last view (the person's own, then the bots'), as the seat sees
        them, and the same grouped by trick (`play.moves.recent`); marks them as shown."""
        start, self._shown = self._shown, len(self.log)
        return self.public[start:], recent(self.public, start, self.hand_ends)

    def summary_now(self) -> dict[str, Any] | None:
        """The game's summary of the finished episode (`summary_of`), None while it goes on."""
        if not self.over:
            return None
        info = self.env.infos[self.names[0]]
        return summary_of(self.game, info["result"], self.tracker.returns)

    def result(self) -> list[dict[str, Any]] | None:
        summary = self.summary_now()
        return None if summary is None else summary["rows"]

    def view(self) -> dict[str, Any]:
        """The seat's view now (see the module docstring); marks the new moves as shown."""
        out = records.seat_view(self.env, self.seat, self.tracker)
        moves, groups = self.new_moves()
        summary = self.summary_now()
        out.update({
            "game": self.game,
            "title": self.summary.TITLE,
            "num_players": len(self.names),
            "players": list(self.players),
            "legal": self.legal(),
            "board": self.summary.board(self.env.game, self.env.state_, self.seat, viewer=self.seat),
            "moves": moves,
            "recent": groups,
            "summary": summary,
            "result": None if summary is None else summary["rows"],
        })
        return out

    def record(self, redacted: bool = False) -> dict[str, Any]:
        """The episode so far (complete once over) with the players; ``redacted``: as the seat may
        know it, each of its views with the game's board (scoreboard and status lines) then, as a record viewer
        tells it (seats by name: "player_2 is the partner")."""
        rec = self.env.episode_record()
        players = []
        for p, spec in enumerate(self.players):
            players.append(records.player_info(spec, self.bots.get(p)))
        records.set_players(rec, players)
        for k, note in self.notes.items():
            records.annotate(rec, k, note)
        if not redacted:
            return rec
        mine = records.redact(rec, self.seat)
        boards = [self.summary.board(pos.env.game, pos.env.state_, self.seat) for pos in records.positions(rec)]
        for view, board in zip(mine["views"], boards, strict=True):
            view["board"] = board
        return mine
