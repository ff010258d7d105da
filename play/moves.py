"""An episode's moves as a person reads them: grouped by trick, each trick with its winner.

A trick is one card from each seat (the moves named ``play <card>``), counted within its hand;
who wins it is the game's own `trick_winner` (``envs.<game>.summary``), so nothing here knows
a game's rules. Moves that are not plays (bids, calls, discards, passes) form groups of their
own, and the end of a hand is a group holding the game's summary lines of that hand.

| group key  | value                                                                     |
|------------|---------------------------------------------------------------------------|
| `kind`     | `"trick"`, `"moves"` (not plays) or `"hand end"`                          |
| `hand_no`  | the hand                                                                  |
| `trick`    | the trick's number in its hand (1, 2, ...), None for the other kinds      |
| `moves`    | the moves (`{"seat", "id", "name", "new"}`), a trick's earlier plays too  |
| `winner`   | the seat that won the trick, None while it is in progress                 |
| `lines`    | a hand end's summary lines (else empty)                                   |
"""

from __future__ import annotations

from collections.abc import Callable, Mapping, Sequence
from typing import Any

__all__ = ["Tricks", "recent"]


class Tricks:
    """Follows the tricks of an episode move by move: `add(move)` gives the move's trick
    number in its hand (None for a move that is not a play) and the winner when the move
    completes the trick."""

    def __init__(self, num_players: int, trick_winner: Callable[[list, list], int]):
        self.num_players = num_players
        self.trick_winner = trick_winner
        self.hand_no: Any = None
        self.hand_moves: list[Mapping[str, Any]] = []
        self.plays: list[tuple[int, str]] = []

    def add(self, move: Mapping[str, Any]) -> dict[str, Any]:
        if move.get("hand_no") != self.hand_no:
            self.hand_no, self.hand_moves, self.plays = move.get("hand_no"), [], []
        self.hand_moves.append(move)
        name = str(move.get("name", ""))
        if not name.startswith("play "):
            return {"trick": None, "won_by": None}
        self.plays.append((move["seat"], name[5:]))
        n = self.num_players
        trick = (len(self.plays) - 1) // n + 1
        done = len(self.plays) % n == 0
        return {"trick": trick, "won_by": self.trick_winner(self.plays[-n:], self.hand_moves) if done else None}


def recent(moves: Sequence[Mapping[str, Any]], start: int, hand_ends: Mapping[int, list[dict]] | None = None) -> list[dict]:
    """The groups (module table) of ``moves[start:]``; each move has ``hand_no``, ``trick`` and
    ``won_by`` (`Tricks.add`). A trick that began before ``start`` shows its earlier plays too
    (``new`` False). ``hand_ends``: move index -> the ``{"hand_no", "lines"}`` of the hands that
    ended with that move."""
    hand_ends = hand_ends or {}
    groups: list[dict[str, Any]] = []
    for k in range(start, len(moves)):
        m = moves[k]
        key = (m.get("hand_no"), m.get("trick"))
        last = groups[-1] if groups else None
        if last is None or last["kind"] == "hand end" or (last["hand_no"], last["trick"]) != key:
            last = {"kind": "moves" if m.get("trick") is None else "trick", "hand_no": key[0], "trick": key[1],
                    "moves": [], "winner": None, "lines": []}
            if last["kind"] == "trick":  # the trick's plays before `start`
                j = k
                while j > 0 and (moves[j - 1].get("hand_no"), moves[j - 1].get("trick")) == key:
                    j -= 1
                last["moves"] = [_shown(x, False) for x in moves[j:k]]
            groups.append(last)
        last["moves"].append(_shown(m, True))
        if m.get("won_by") is not None:
            last["winner"] = m["won_by"]
        for end in hand_ends.get(k, ()):
            groups.append({"kind": "hand end", "hand_no": end["hand_no"], "trick": None, "moves": [],
                           "winner": None, "lines": list(end["lines"])})
    return groups


def _shown(move: Mapping[str, Any], new: bool) -> dict[str, Any]:
    return {"seat": move["seat"], "id": move.get("id"), "name": move["name"], "new": new}
