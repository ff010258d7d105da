"""What a record viewer shows at each position of a record (`mazzo replay`, the web page's viewer).

One frame per position (after the deal, then after every move): `envs.records.seat_view` of the
seat (or of everything, `seat=None`, for a full record), and:

| key          | value                                                                               |
|--------------|-------------------------------------------------------------------------------------|
| `board`      | the game's public scoreboard and status lines (`envs.<game>.summary.board`), None when unknown (a redacted record made without it) |
| `trick_done` | the trick the move completed: `{"trick", "plays": [[seat, code]], "winner"}`, else None |
| `ended`      | the summary lines (`hand_lines`) of the hands that ended with the move              |
| `summary`    | at the last position of a finished record: the game's `{"lines", "rows"}`, else None |

A full record is replayed through the env (every position's board is computed); a redacted
record holds its seat's frames (`views`), with their boards when `Session.record(redacted=True)`
made it.
"""

from __future__ import annotations

from itertools import chain
from typing import Any

from envs import records
from envs.registry import game_spec
from play.moves import Tricks
from play.session import record_summary

__all__ = ["frames"]


def frames(record: dict[str, Any], seat: int | None = None) -> list[dict[str, Any]]:
    """The frames of ``record`` as ``seat`` saw it (module table); `RecordError` for a bad record or seat."""
    if not isinstance(record, dict) or record.get("redacted_for") is not None:
        out = [dict(f, board=f.get("board")) for f in records.views(record, seat)]  # checks the record
        summary = game_spec(record["game"]).summary_module()
    else:
        walk = records.positions(record)
        first = next(walk)  # checks the record and starts the replay
        n = record["num_players"]
        if seat is not None and (isinstance(seat, bool) or not isinstance(seat, int) or not 0 <= seat < n):
            raise records.RecordError(f"record: seat must be 0..{n - 1} or None; got {seat!r}")
        summary = game_spec(record["game"]).summary_module()
        out = [dict(records.seat_view(pos.env, seat, pos.tracker), board=summary.board(pos.env.game, pos.env.state_, seat))
               for pos in chain([first], walk)]  # the env is live: each frame is taken at its position
    for f in out:
        f.update(trick_done=None, ended=[], summary=None)
    tricks = Tricks(record["num_players"], summary.trick_winner)
    k = 0
    for hand in record["hands"]:
        plays: list[list[Any]] = []
        for move in hand["moves"]:
            k += 1
            tag = tricks.add(dict(move, hand_no=hand["hand_no"]))
            if tag["trick"] is not None:
                plays.append([move["seat"], move["name"][5:]])
            if tag["won_by"] is not None and k < len(out):
                out[k]["trick_done"] = {"trick": tag["trick"], "plays": plays[-record["num_players"]:],
                                        "winner": tag["won_by"]}
        if hand.get("result") is not None and k < len(out):
            out[k]["ended"].extend(summary.hand_lines(hand["result"]))
    out[-1]["summary"] = record_summary(record)
    return out
