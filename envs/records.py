"""Game records: one JSON format for every game (`mazzo-record/1`), replay, redaction, positions.

Every episode of every game is recorded by the env (`CardGameEnv`): `reset` keeps where the
episode started (the seed, the options, or the generator's state when no seed was given) and
each step appends its action id to a list, nothing more. At the end every agent's
`info["record"]` holds the record, built the first time it is read (`EpisodeInfo`) by re-running
the engine over those actions (`Episode.rerun`: the seat of each move, each hand's deal from the
engine's `hand_deal` hook, the rewards); `env.unwrapped.episode_record()` builds it at any time.

| key           | value                                                                          |
|---------------|--------------------------------------------------------------------------------|
| `format`      | `"mazzo-record/1"`                                                             |
| `game`        | registry name: `briscola5`, `pigugnin`, `picchetto`                            |
| `env`         | the env version, e.g. `briscola5_v0`                                           |
| `flags`       | every flag of the env (defaults filled in)                                     |
| `seed`        | the seed given to `reset` (None when the episode continued the generator)       |
| `rng`         | without a seed, the generator's state at `reset` (PCG64, big ints as hex strings) |
| `options`     | the `reset` options (explicit deal, starting busche or scores), or None        |
| `players`     | one `{"seat", "spec", "sha256"?, ...}` per seat when known (evaluation, play), else None |
| `seating`     | evaluation only: `{"deal", "seating", "entry_at", "deal_seed", "agent_seeds"}`  |
| `num_players` | seats                                                                          |
| `hands`       | one entry per hand, below                                                      |
| `over`, `truncated` | the episode has ended (a record can be taken mid-episode), was truncated  |
| `returns`     | per seat, the rewards received in the episode (so far)                         |
| `result`      | the env's `info["result"]` without its per-hand list (None until over)         |
| `redacted_for`, `views` | only in a redacted record (`redact`): the seat, and its view after each move |

Each entry of `hands`:

| key        | value                                                                             |
|------------|-----------------------------------------------------------------------------------|
| `hand_no`  | 1, 2, ... within the episode                                                      |
| `dealer`   | seat                                                                              |
| `deal`     | `{"hands": [[card codes] per seat]}` plus `"talon"` (Picchetto, in talon order)   |
| `moves`    | every action in order: `{"seat", "id", "name"}` with names such as `bid 75`, `call 3D`, `play JS`, `discard Qh`, `pass`, `forfeit`; an optional `"note"` (an agent's probabilities or value, `annotate`) |
| `rewards`  | per seat, the rewards paid in the steps of this hand                              |
| `result`   | the engine's record of the hand (`info["result"]["hands"][i]` without the deal), None while it is in progress |

Functions:

* `replay(record)` re-simulates the record through the env and checks every deal, actor,
  action, name, reward and result; the first mismatch raises `RecordError` naming the hand,
  the move and what differed. Returns the env at the end.
* `positions(record)` yields a `Position` after `reset` and after every move (the live env:
  copy it to keep it), checking as `replay` does.
* `redact(record, seat)` keeps what that seat may know: its own cards, the talon cards it
  drew or saw, every move but those the engine hides from it (`hidden_move_name`: the other
  seat's discards in Picchetto), public results (the engine's `public_hand_result`: in
  Picchetto a declaration the dealer did not have to show is removed), no seed or generator
  state (they would give the deal away), and the seat's `views` along the game.
* `views(record, seat=None)` is what a viewer shows at each position: `seat_view` frames of
  the seat (or of everything, `seat=None`, for a full record).
* `annotate(record, k, note)` attaches a note to move `k` (counted over the episode).

This module imports neither torch nor a web stack.
"""

from __future__ import annotations

import hashlib
import json
import os
import warnings
from collections.abc import Iterator, Mapping
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import numpy as np

from envs.core.errors import MazzoError, RecordError

__all__ = [
    "FORMAT", "RecordError", "Position", "Episode", "EpisodeInfo", "build_record", "replay", "positions", "redact", "views", "seat_view", "Tracker",
    "annotate", "set_players", "player_info", "public_move", "load_records", "dumps", "PUBLIC_OPTION_KEYS",
]

FORMAT = "mazzo-record/1"
#: keys of an engine's hand record that repeat the deal (kept once, in the hand's `deal`)
DEAL_KEYS = ("deal", "hands", "talon")
#: reset options a redacted record keeps (the others give cards away)
PUBLIC_OPTION_KEYS = ("dealer", "busche", "scores", "games_won")
#: decode fields of the talon cards a seat saw as talon cards (drawn, peeked at, shown as leftover)
TALON_FIELDS = ("drawn", "peeked", "leftover")


# -- building (called by the env) -------------------------------------------------------------


def _numpy_default(obj: Any) -> Any:
    if isinstance(obj, np.ndarray):
        return obj.tolist()
    if isinstance(obj, np.generic):
        return obj.item()
    raise TypeError(f"{type(obj).__name__} is not JSON serializable")


def plain(obj: Any) -> Any:
    """A JSON-ready deep copy (one C-speed JSON round trip): tuples as lists, NumPy values as Python ones."""
    return json.loads(json.dumps(obj, default=_numpy_default))


def _rng_json(state: Mapping[str, Any]) -> dict[str, Any]:
    inner = state["state"]
    return {
        "bit_generator": state["bit_generator"],
        "state": hex(inner["state"]),
        "inc": hex(inner["inc"]),
        "has_uint32": int(state["has_uint32"]),
        "uinteger": int(state["uinteger"]),
    }


def _rng_from_json(data: Mapping[str, Any]) -> np.random.Generator:
    if data.get("bit_generator") != "PCG64":
        raise RecordError(f"record: unknown bit generator {data.get('bit_generator')!r}; allowed: 'PCG64'")
    try:
        bg = np.random.PCG64()
        bg.state = {
            "bit_generator": "PCG64",
            "state": {"state": int(data["state"], 16), "inc": int(data["inc"], 16)},
            "has_uint32": int(data["has_uint32"]),
            "uinteger": int(data["uinteger"]),
        }
    except (KeyError, TypeError, ValueError) as e:
        raise RecordError(f"record: malformed 'rng' {data!r}: {e}") from None
    return np.random.Generator(bg)


_NAMES: dict[type, tuple[str, ...]] = {}


def move_names(game: Any) -> tuple[str, ...]:
    """`game.move_name(a)` for every action id (action names do not depend on the flags)."""
    names = _NAMES.get(type(game))
    if names is None:
        names = _NAMES[type(game)] = tuple(game.move_name(a) for a in range(game.num_actions))
    return names


def game_name(env: Any) -> str:
    return env.game.name.rsplit("_v", 1)[0]


def _as_json(value: Any) -> Any:
    """Engine records hold JSON values except lists of tuples (Picchetto's events): those become lists."""
    if type(value) is list and value and type(value[0]) is tuple:
        return [list(v) for v in value]
    return value


def _hand_result(rec: Mapping[str, Any] | None) -> dict[str, Any] | None:
    """The engine's hand record without the deal (a shallow copy: the episode's records are not
    changed once a hand is over, so no deep copy is made on the env's hot path)."""
    if rec is None:
        return None
    return {k: _as_json(v) for k, v in rec.items() if k not in DEAL_KEYS}


class Episode:
    """What the env's recorder holds about one episode: where it started and every action id
    (the objects are never changed once the episode is over: `reset` makes new ones)."""

    __slots__ = ("game", "state", "num_players", "start", "moves")

    def __init__(self, game: Any, state: Any, num_players: int, start: tuple, moves: list[int]):
        self.game = game
        self.state = state  #: the env's state now (the end, once the episode is over)
        self.num_players = num_players
        self.start = start  #: (seed, options, generator state or None) at reset
        self.moves = moves  #: every applied action id

    @classmethod
    def of(cls, env: Any) -> Episode:
        return cls(env.game, env.state_, len(env.possible_agents), env._rec_start, env._rec_moves)

    def rerun(self) -> tuple[list[int], list[tuple[int, dict, int]], list[tuple[int, list]]]:
        """Re-run the engine over the actions from the same start: the seat of every move, each
        hand's `(hand_no, deal, moves before it)` and every payment `(moves applied, rewards)`
        (points scored at the deal at 0). Raises `RecordError` if the start cannot be re-created
        or the re-run does not end where the env is."""
        seed, options, rng_state = self.start
        if rng_state is not None:
            rng = _rng_from_json(_rng_json(rng_state))
        elif seed is not None:
            rng = np.random.default_rng(seed)
        else:
            raise RecordError("this episode cannot be recorded: its generator was not a NumPy Generator")
        game = type(self.game)(**self.game.flags)
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")  # unknown option keys were reported at reset
            state = game.new_state(rng, game.parse_options(options))
        hands: list[tuple[int, dict, int]] = []
        seen = 0
        seats: list[int] = []
        paid: list[tuple[int, list]] = []
        pending = game.initial_rewards(state)
        if pending is not None:
            paid.append((0, pending))
        apply, current = game.apply, game.current_player
        for k, action in enumerate(self.moves):
            if state.hand_no != seen:
                hands.extend((h, game.hand_deal(state, h), k) for h in range(seen + 1, state.hand_no + 1))
                seen = state.hand_no
            seats.append(current(state))
            rewards = apply(state, action)
            if rewards is not None:
                paid.append((k + 1, rewards))
        if state.hand_no != seen:
            hands.extend((h, game.hand_deal(state, h), len(self.moves)) for h in range(seen + 1, state.hand_no + 1))
        if state.hand_no != self.state.hand_no or game.is_over(state) != self.game.is_over(self.state):
            raise RecordError("the engine re-run over the recorded actions did not end where the env is")
        return seats, hands, paid


def _card_codes(deck: Any, cards: Any) -> list[str]:
    """Sorted card codes of a card-set bitmask, or of a list of card ids or codes."""
    if isinstance(cards, int):
        return [deck.codes[c] for c in range(deck.size) if cards >> c & 1]
    ids = sorted(deck.parse(c) for c in cards)
    return [deck.codes[c] for c in ids]


def build_record(env: Any, result: dict | None = None) -> dict[str, Any]:
    """The record of the env's episode so far (see the module table); `result` if already computed."""
    return _build(Episode.of(env), result)


def _build(ep: Episode, result: dict | None) -> dict[str, Any]:
    game, state, n = ep.game, ep.state, ep.num_players
    over = bool(game.is_over(state))
    if result is None:
        result = game.result(state)
    seed, options, rng = ep.start
    seats, marks, paid = ep.rerun()
    moves = ep.moves
    names = move_names(game)
    by_no = {r.get("hand_no"): r for r in result.get("hands", [])}
    firsts = [m[2] for m in marks]
    bounds = [*firsts, len(moves)]
    hands = []
    for i, (hand_no, deal, first) in enumerate(marks):
        done = over or i + 1 < len(marks)
        entry_deal = {"hands": [_card_codes(game.deck, h) for h in deal["hands"]]}
        if "talon" in deal:
            entry_deal["talon"] = [c if isinstance(c, str) else game.deck.codes[c] for c in deal["talon"]]
        hands.append({
            "hand_no": hand_no,
            "dealer": int(deal["dealer"]),
            "deal": entry_deal,
            "moves": [{"seat": seats[k], "id": moves[k], "name": names[moves[k]]} for k in range(first, bounds[i + 1])],
            "rewards": [0] * n,
            "result": _hand_result(by_no.get(hand_no)) if done else None,
        })
    # Rewards paid after k moves belong to the hand that holds move k - 1 (those scored at the
    # deal, k = 0, to the first hand); the payments come in order, so one pass places them.
    i, last = 0, len(hands) - 1
    row = hands[0]["rewards"] if hands else [0] * n
    for k, rewards in paid:
        while i < last and firsts[i + 1] <= k - 1:
            i += 1
            row = hands[i]["rewards"]
        for p in range(n):
            row[p] += rewards[p]
    returns = [sum(h["rewards"][p] for h in hands) for p in range(n)]
    # What the caller gave (options, a NumPy seed) is copied to plain JSON values; the flags are
    # plain already (validated), the engine's records are JSON but for lists of tuples.
    return {
        "format": FORMAT,
        "game": game.name.rsplit("_v", 1)[0],
        "env": game.name,
        "flags": dict(game.flags),
        "seed": seed if seed is None or type(seed) is int else plain(seed),
        "rng": None if rng is None else _rng_json(rng),
        "options": plain(dict(options)) if isinstance(options, Mapping) else None,
        "players": None,
        "num_players": n,
        "hands": hands,
        "over": over,
        "truncated": bool(over and game.is_truncated(state)),
        "returns": returns,
        "result": {k: _as_json(v) for k, v in result.items() if k != "hands"} if over else None,
    }


class EpisodeInfo(dict):
    """An agent's `info` at the end of an episode: `{"result": ..., "record": ...}`.

    The record is built the first time it is read, by any path (`info["record"]`, `get`, `in`,
    iteration, `keys`/`items`/`values`, `len`, `==`, `dict(info)`, `json.dumps`, copies,
    pickling), so loops that never read it (training) do not pay for building it. The agents of
    an episode share one info (and so one record). Everything else is a plain dict."""

    __slots__ = ("_build",)

    @classmethod
    def for_agents(cls, agents: list[str], result: dict, ep: Episode) -> dict[str, EpisodeInfo]:
        def build() -> dict:
            return _build(ep, result)

        # One info shared by the agents (as the result is): creating a dict subclass costs more
        # than a dict, and the env makes one per episode.
        info = cls(result=result)
        info._build = build
        return dict.fromkeys(agents, info)

    def _full(self) -> EpisodeInfo:
        if self._build is not None:
            dict.__setitem__(self, "record", self._build())
            self._build = None
        return self

    def __missing__(self, key: Any) -> Any:
        if key == "record" and self._build is not None:
            return dict.__getitem__(self._full(), key)
        raise KeyError(key)

    def get(self, key: Any, default: Any = None) -> Any:
        return dict.get(self._full() if key == "record" else self, key, default)

    def __contains__(self, key: Any) -> bool:
        return key == "record" and self._build is not None or dict.__contains__(self, key)

    def __iter__(self):
        return dict.__iter__(self._full())

    def __len__(self) -> int:
        return dict.__len__(self._full())

    def keys(self):
        return dict.keys(self._full())

    def values(self):
        return dict.values(self._full())

    def items(self):
        return dict.items(self._full())

    def __eq__(self, other: Any) -> bool:
        return dict.__eq__(self._full(), other)

    def __ne__(self, other: Any) -> bool:
        return dict.__ne__(self._full(), other)

    __hash__ = None  # type: ignore[assignment]

    def __repr__(self) -> str:
        return dict.__repr__(self._full())

    def copy(self) -> dict:
        return dict(self._full())

    def __copy__(self) -> dict:
        return dict(self._full())

    def __deepcopy__(self, memo: dict) -> dict:
        import copy

        return copy.deepcopy(dict(self._full()), memo)

    def __reduce__(self) -> tuple:
        return (dict, (dict(self._full()),))

    for _name in ("pop", "popitem", "setdefault", "update", "__setitem__", "__delitem__", "clear", "__ior__", "__or__"):

        def _method(self, *args, _name=_name, **kwargs):  # noqa: ANN001
            return getattr(dict, _name)(self._full(), *args, **kwargs)

        locals()[_name] = _method
    del _name, _method


# -- players and notes -----------------------------------------------------------------------------

_SHA: dict[tuple[str, int, int], str] = {}


def file_sha256(path: str | os.PathLike) -> str:
    p = Path(path)
    st = p.stat()
    key = (str(p.resolve()), st.st_mtime_ns, st.st_size)
    if key not in _SHA:
        h = hashlib.sha256()
        with open(p, "rb") as f:
            for block in iter(lambda: f.read(1 << 20), b""):
                h.update(block)
        _SHA[key] = h.hexdigest()
    return _SHA[key]


def player_info(spec: str, agent: Any = None) -> dict[str, Any]:
    """`{"spec": spec}` plus the `sha256` of the agent's checkpoint file when it has one (`agent.path`)."""
    info: dict[str, Any] = {"spec": str(spec)}
    path = getattr(agent, "path", None)
    if isinstance(path, (str, os.PathLike)) and Path(path).is_file():
        info["sha256"] = file_sha256(path)
    return info


def set_players(record: dict[str, Any], players: list[dict[str, Any] | str]) -> dict[str, Any]:
    """Fill in `players` (one spec string or `player_info` dict per seat); returns the record."""
    if len(players) != record["num_players"]:
        raise RecordError(f"record: {record['num_players']} seats but {len(players)} players given")
    record["players"] = [
        {"seat": seat, **({"spec": p} if isinstance(p, str) else dict(p))} for seat, p in enumerate(players)
    ]
    return record


def annotate(record: dict[str, Any], k: int, note: Mapping[str, Any]) -> dict[str, Any]:
    """Attach `note` (e.g. `{"probs": {"bid 75": 0.4, ...}, "value": 0.3}`) to move `k` of the episode."""
    j = k
    for hand in record["hands"]:
        if j < len(hand["moves"]):
            hand["moves"][j]["note"] = plain(dict(note))
            return record
        j -= len(hand["moves"])
    raise RecordError(f"record: no move {k}; the record has {k - j} moves")


def dumps(record: Mapping[str, Any]) -> str:
    """One line of JSON (the `.jsonl` form: one record per line)."""
    return json.dumps(record, separators=(",", ":"), ensure_ascii=False)


def load_records(path: str | os.PathLike) -> list[dict[str, Any]]:
    """The records of a `.json` file (one record) or a `.jsonl` file (one per line)."""
    text = Path(path).read_text(encoding="utf-8")
    try:
        data = json.loads(text)
        return data if isinstance(data, list) else [data]
    except json.JSONDecodeError:
        pass
    out = []
    for i, line in enumerate(text.splitlines(), 1):
        if line.strip():
            try:
                out.append(json.loads(line))
            except json.JSONDecodeError as e:
                raise RecordError(f"{path}, line {i}: not JSON ({e})") from None
    return out


# -- checking and walking --------------------------------------------------------------------------


def _check(record: Any, full: bool = True) -> dict[str, Any]:
    if not isinstance(record, Mapping):
        raise RecordError(f"a record must be a JSON object; got {type(record).__name__}")
    if record.get("format") != FORMAT:
        raise RecordError(f"record: 'format' must be {FORMAT!r}; got {record.get('format')!r}")
    for key in ("game", "flags", "hands", "num_players"):
        if key not in record:
            raise RecordError(f"record: missing key {key!r}")
    if not isinstance(record["hands"], list) or not all(isinstance(h, Mapping) for h in record["hands"]):
        raise RecordError("record: 'hands' must be a list of hand objects")
    if full and record.get("redacted_for") is not None:
        raise RecordError(
            f"record: redacted for player_{record['redacted_for']}: the other seats' cards are not in it, so it "
            "cannot be replayed (its 'views' hold what that seat saw)"
        )
    return dict(record)


def _start(record: Mapping[str, Any]) -> Any:
    from envs.registry import game_spec

    try:
        env = game_spec(record["game"]).raw_env(**dict(record["flags"]))
    except MazzoError as e:
        raise RecordError(f"record: {e}") from None
    if env.game.name != record.get("env", env.game.name):
        raise RecordError(f"record: made with {record['env']!r}; this is {env.game.name!r}")
    if record.get("rng") is not None:
        env._rng = _rng_from_json(record["rng"])
        seed = None
    else:
        seed = record.get("seed")
    try:
        env.reset(seed=seed, options=record.get("options"))
    except MazzoError as e:
        raise RecordError(f"record: reset: {e}") from None
    return env


def _differs(what: str, recorded: Any, replayed: Any) -> str:
    if isinstance(recorded, Mapping) and isinstance(replayed, Mapping):
        keys = [k for k in sorted(set(recorded) | set(replayed), key=str) if recorded.get(k) != replayed.get(k)]
        parts = [f"{k}: {recorded.get(k)!r} in the record, {replayed.get(k)!r} replayed" for k in keys[:4]]
        return f"{what} differs ({'; '.join(parts)})"
    return f"{what} differs: {recorded!r} in the record, {replayed!r} replayed"


class Tracker:
    """Steps an env and follows what a viewer needs that the state does not say in the same way
    for every game: the moves of the hand in progress, the last move, the returns so far."""

    def __init__(self, env: Any):
        self.env = env
        self.returns = [0] * len(env.possible_agents)
        if env.game.is_over(env.state_):  # ended at the deal: those points are the episode's
            self.returns = [env.rewards[a] for a in env.possible_agents]
        self.hand_no = env.state_.hand_no
        self.hand_moves: list[dict[str, Any]] = []  # {"seat", "id", "name"} of the hand in progress
        self.last: dict[str, Any] | None = None

    def step(self, action: int) -> dict[str, Any]:
        env = self.env
        seat = env.agent_name_mapping[env.agent_selection]
        env.step(action)
        move = {"seat": seat, "id": action, "name": env.game.move_name(action)}
        for p, a in enumerate(env.possible_agents):
            self.returns[p] += env.rewards[a]  # this step's rewards (those of the deal with the first)
        if env.state_.hand_no != self.hand_no:
            self.hand_no, self.hand_moves = env.state_.hand_no, []
        else:
            self.hand_moves.append(move)
        self.last = move
        return move


@dataclass
class Position:
    """A position of a record: after `reset` (`index` 0, `move` None) or after move `index`."""

    index: int  #: moves applied so far in the episode
    hand: int  #: index into `record["hands"]` of the move just applied (0 at the start)
    move: dict[str, Any] | None  #: the move just applied
    env: Any  #: the live raw env (copy it to keep this position)
    tracker: Tracker  #: the moves of the hand in progress and the returns so far

    @property
    def state(self) -> Any:
        return self.env.state_


def _walk(record: dict[str, Any]) -> Iterator[Position]:
    env = _start(record)
    game = env.game
    n = len(env.possible_agents)
    if record["num_players"] != n:
        raise RecordError(f"record: {record['num_players']} players, but the env with these flags has {n}")
    tracker = Tracker(env)
    yield Position(0, 0, None, env, tracker)
    hands = record["hands"]
    k = 0
    for i, hand in enumerate(hands):
        hand_no = hand.get("hand_no", i + 1)
        where = f"hand {hand_no}"
        state = env.state_
        if state.hand_no < hand_no:
            raise RecordError(f"{where}: the replayed episode is still in hand {state.hand_no}")
        try:
            deal = game.hand_deal(state, hand_no)
        except (ValueError, IndexError):
            raise RecordError(f"{where}: the replayed episode is in hand {state.hand_no}") from None
        if hand.get("dealer") != deal["dealer"]:
            raise RecordError(_differs(f"{where}: the dealer", hand.get("dealer"), deal["dealer"]))
        got = hand.get("deal")
        if not isinstance(got, Mapping) or not isinstance(got.get("hands"), list) or len(got["hands"]) != n:
            raise RecordError(f"{where}: 'deal' must be an object with 'hands', one list of card codes per seat ({n})")
        for p in range(n):
            dealt = _card_codes(game.deck, deal["hands"][p])
            if got["hands"][p] != dealt:
                raise RecordError(_differs(f"{where}: the deal of player_{p}", got["hands"][p], dealt))
        if "talon" in deal:
            talon = [c if isinstance(c, str) else game.deck.codes[c] for c in deal["talon"]]
            if got.get("talon") != talon:
                raise RecordError(_differs(f"{where}: the talon", got.get("talon"), talon))
        moves = hand.get("moves")
        if not isinstance(moves, list):
            raise RecordError(f"{where}: 'moves' must be a list")
        for j, move in enumerate(moves):
            at = f"{where}, move {j + 1}"
            if not isinstance(move, Mapping):
                raise RecordError(f"{at}: a move must be an object with seat, id and name; got {move!r}")
            seat, a, name = move.get("seat"), move.get("id"), move.get("name")
            if env.state_.hand_no != hand_no or game.is_over(env.state_):
                raise RecordError(f"{at}: the hand is already over after {j} moves in the replay "
                                  f"(the record has {len(moves)})")
            actor = env.agent_name_mapping[env.agent_selection]
            if seat != actor:
                raise RecordError(f"{at}: the record has player {seat!r} act; in the replay player_{actor} is to act")
            legal = env.legal_actions()
            if isinstance(a, bool) or not isinstance(a, int) or a not in legal:
                names = ", ".join(f"{b} ({game.move_name(b)})" for b in legal)
                what = f"{a} ({game.move_name(a)})" if isinstance(a, int) and 0 <= a < game.num_actions else repr(a)
                raise RecordError(f"{at}: player_{seat}'s action {what} is not legal in the replay; legal: {names}")
            if name != game.move_name(a):
                raise RecordError(f"{at}: action {a} is named {name!r} in the record; it is {game.move_name(a)!r}")
            tracker.step(a)
            k += 1
            yield Position(k, i, dict(move), env, tracker)
        state = env.state_
        last = i + 1 == len(hands)
        if not last and state.hand_no < hands[i + 1].get("hand_no", i + 2) and not game.is_over(state):
            raise RecordError(f"{where}: the record has {len(moves)} moves, but after them the hand goes on in the replay")


def positions(record: Mapping[str, Any]) -> Iterator[Position]:
    """The positions of a full record: after `reset`, then after every move (see `Position`).

    The env is live and changes as the iteration goes on. A record the env does not reproduce
    raises `RecordError` at the first mismatch."""
    return _walk(_check(record))


def replay(record: Mapping[str, Any]) -> Any:
    """Re-simulate `record` through the env, checking every deal, actor, action and name, and then
    every hand's rewards and result and the episode's returns and result. Returns the raw env at
    the end; raises `RecordError` naming the hand, the move and what differed."""
    rec = _check(record)
    env = None
    for pos in _walk(rec):
        env = pos.env
    again = env.episode_record()
    hands = rec["hands"]
    if len(again["hands"]) != len(hands):
        raise RecordError(_differs("the number of hands", len(hands), len(again["hands"])))
    for hand, ours in zip(hands, again["hands"], strict=True):
        where = f"hand {ours['hand_no']}"
        if hand.get("rewards") != ours["rewards"]:
            raise RecordError(_differs(f"{where}: the rewards", hand.get("rewards"), ours["rewards"]))
        if hand.get("result") != ours["result"]:
            raise RecordError(_differs(f"{where}: the result", hand.get("result"), ours["result"]))
    for key in ("over", "truncated", "returns", "result"):
        if rec.get(key) != again[key]:
            raise RecordError(_differs(f"the episode's {key!r}", rec.get(key), again[key]))
    return env


# -- what a seat may see -----------------------------------------------------------------------------


def public_move(move: Mapping[str, Any], seat: int | None, game: Any) -> dict[str, Any]:
    """A move as `seat` sees it: a move the engine `game` hides (`hidden_move_name`: another seat's
    discard in Picchetto) shows only its public name, with no id."""
    if seat is None or move["seat"] == seat or (hidden := _hidden_name(move, game)) is None:
        out = {k: move[k] for k in ("seat", "id", "name") if k in move}
        if "note" in move and (seat is None or move["seat"] == seat):
            out["note"] = move["note"]
        return out
    return {"seat": move["seat"], "id": None, "name": hidden}


def _hidden_name(move: Mapping[str, Any], game: Any) -> str | None:
    """What the other seats see of `move` (None: the move itself)."""
    action = move.get("id")
    if not isinstance(action, int) or isinstance(action, bool):
        return None
    return game.hidden_move_name(action) if 0 <= action < game.num_actions else None


def _codes(game: Any, mask: int) -> list[str]:
    codes = game.deck.codes
    return [codes[c] for c in range(game.deck.size) if mask >> c & 1]


def seat_view(env: Any, seat: int | None = None, tracker: Tracker | None = None) -> dict[str, Any]:
    """What a viewer shows of the env now, as `seat` sees it (`None`: everything, for analysis).

    `hands` holds the seat's own cards (every seat's with `None`), `counts` the number of
    cards each seat holds, `trick` the cards played to the trick in progress (`{"seat",
    "card"}`), `last` the move just made (another seat's discard hidden), `returns` the rewards
    so far, `text` the engine's rendering for the seat (`render(state, seat)`). The `tracker`
    that stepped the env gives the moves (without one: no trick, no last move, returns 0)."""
    game, state = env.game, env.state_
    n = len(env.possible_agents)
    over = bool(game.is_over(state))
    actor = None if over else env.agent_name_mapping[env.agent_selection]
    plays = [(m["seat"], m["name"][5:]) for m in (tracker.hand_moves if tracker else ()) if m["name"].startswith("play ")]
    trick = plays[len(plays) - len(plays) % n:] if plays else []
    last = tracker.last if tracker else None
    return {
        "seat": seat,
        "hand_no": state.hand_no,
        "to_act": actor,
        "over": over,
        "hands": [_codes(game, state.hands[p]) if seat is None or p == seat else None for p in range(n)],
        "counts": [int(state.hands[p]).bit_count() for p in range(n)],
        "trick": [{"seat": p, "card": c} for p, c in trick],
        "last": None if last is None else public_move(last, seat, game),
        "returns": plain(tracker.returns if tracker else [0] * n),
        "text": game.render(state, seat if seat is not None else (actor if actor is not None else 0)),
    }


def views(record: Mapping[str, Any], seat: int | None = None) -> list[dict[str, Any]]:
    """One `seat_view` frame per position (after `reset`, then after every move).

    A full record is replayed; a redacted record holds its seat's frames (`views`)."""
    if not isinstance(record, Mapping):
        raise RecordError(f"a record must be a JSON object; got {type(record).__name__}")
    owner = record.get("redacted_for")
    if owner is not None:
        _check(record, full=False)
        if seat is not None and seat != owner:
            raise RecordError(f"record: redacted for player_{owner}; only that seat's view is in it (asked player_{seat})")
        frames = record.get("views")
        if not isinstance(frames, list):
            raise RecordError("record: a redacted record needs its 'views'")
        return frames
    rec = _check(record)
    if seat is not None and (isinstance(seat, bool) or not isinstance(seat, int) or not 0 <= seat < rec["num_players"]):
        raise RecordError(f"record: seat must be 0..{rec['num_players'] - 1} or None; got {seat!r}")
    return [seat_view(pos.env, seat, pos.tracker) for pos in _walk(rec)]


def _seen_talon(env: Any, seat: int, seen: set[str]) -> None:
    from envs.registry import observation_module

    view = observation_module(game_name(env)).decode(env.observe(env.possible_agents[seat])["observation"], codes=True)
    for key in TALON_FIELDS:
        for c in view.get(key) or ():
            seen.add(c)


def _scrub_result(game: Any, result: dict[str, Any] | None, seat: int) -> dict[str, Any] | None:
    """The public part of an engine hand record for `seat` (the engine's `public_hand_result`)."""
    if result is None:
        return None
    return game.public_hand_result(json.loads(json.dumps(result)), seat)


def redact(record: Mapping[str, Any], seat: int) -> dict[str, Any]:
    """The record as `seat` may know it (see the module docstring); it keeps the seat's `views`."""
    rec = _check(record)
    n = rec["num_players"]
    if isinstance(seat, bool) or not isinstance(seat, int) or not 0 <= seat < n:
        raise RecordError(f"record: seat must be 0..{n - 1}; got {seat!r}")
    frames: list[dict[str, Any]] = []
    talon_seen: dict[int, set[str]] = {}
    has_talon = any("talon" in (h.get("deal") or {}) for h in rec["hands"])
    index_of = {h.get("hand_no"): i for i, h in enumerate(rec["hands"])}
    game = None
    for pos in _walk(rec):
        game = pos.env.game
        frames.append(seat_view(pos.env, seat, pos.tracker))
        i = index_of.get(pos.env.state_.hand_no)
        if has_talon and i is not None:
            # the talon cards the seat has seen as talon cards in the hand now in progress
            _seen_talon(pos.env, seat, talon_seen.setdefault(i, set()))
    hands = []
    for i, hand in enumerate(rec["hands"]):
        deal = {"hands": [list(h) if p == seat else None for p, h in enumerate(hand["deal"]["hands"])]}
        if "talon" in hand["deal"]:
            seen = talon_seen.get(i, set())
            deal["talon"] = [c if c in seen else None for c in hand["deal"]["talon"]]
        hands.append({
            "hand_no": hand["hand_no"],
            "dealer": hand["dealer"],
            "deal": deal,
            "moves": [public_move(m, seat, game) for m in hand["moves"]],
            "rewards": list(hand["rewards"]),
            "result": _scrub_result(game, hand.get("result"), seat),
        })
    options = rec.get("options")
    out = {k: v for k, v in rec.items() if k not in ("seed", "rng", "options", "hands")}
    out.update({
        "seed": None,
        "rng": None,
        "options": {k: v for k, v in options.items() if k in PUBLIC_OPTION_KEYS} if options else None,
        "hands": hands,
        "redacted_for": seat,
        "views": frames,
    })
    return json.loads(json.dumps(out))
