"""The contract between a rules engine and the shared AEC environment.

Each game implements ``CardGame`` (pure rules over a plain mutable state, no NumPy on the hot
path) and an ``Observer`` (the incremental observation encoder). ``CardGameEnv`` in
``envs.core.aec`` turns the pair into a PettingZoo AEC environment.

Engine calls, in the order the environment makes them:

| call                                 | returns                | notes                                                 |
|--------------------------------------|------------------------|-------------------------------------------------------|
| ``parse_options(options)``           | setup dict             | validates an explicit deal; raises ``DealError``       |
| ``new_state(rng, setup)``            | state                  | the only place cards are shuffled (later hands use the rng kept in the state) |
| ``initial_rewards(state)``           | ``None`` or list       | points scored before the first action (e.g. a Bianco)  |
| ``current_player(state)``            | seat                   | the seat to act (the engine decides: trick winners lead) |
| ``legal_mask(state)``                | int bitmask            | bit ``a`` set iff action ``a`` is legal                |
| ``apply(state, action)``             | ``None`` or list       | per-seat rewards when something was scored             |
| ``is_over(state)`` / ``is_truncated``| bool                   | episode end                                            |
| ``result(state)``                    | dict                   | the episode record placed in every agent's info (with ``"result_version": RESULT_VERSION``) |
| ``render(state, seat)``              | str                    | what ``seat`` may see                                  |
| ``hand_deal(state, hand_no)``        | dict                   | the deal of a hand, for records: ``{"dealer", "hands"}`` (+ ``"talon"``) |
| ``move_name(action)``                | str                    | the readable name in records: ``bid 75``, ``call 3D``, ``play JS``, ``pass`` |

Facts that code outside the game asks the engine (the search players, records, viewers), so
that it never asks which game it is playing; each has a default that fits a game of plain
trick play with every move public and every seat on its own:

| hook                                 | returns                | default / who overrides it                             |
|--------------------------------------|------------------------|--------------------------------------------------------|
| ``hidden_move_name(action)``         | ``None`` or str        | what the other seats see instead of the move (``None``: they see it). Picchetto: a discard is ``"discard"``, the card hidden |
| ``public_hand_result(result, seat)`` | dict                   | the part of a finished hand's record ``seat`` may know (default: all). Picchetto: a declaration the dealer did not have to show |
| ``in_trick_play(state)``             | bool                   | only tricks are left in this hand (default True). Briscola: after the auction and the call; Picchetto: after the exchanges |
| ``trick_play_rows(masks)``           | bool array             | the batched counterpart of ``in_trick_play``, read from legal masks (``(rows, num_actions)``): every legal move of the row plays a card. Every game numbers its card plays first (``PLAY(c)`` = ``c``, below the deck's size), so the default serves all three |
| ``same_side(state, seat, other)``    | bool                   | ``seat`` and ``other`` play for one side now (default: each seat alone). Briscola: the caller and the partner, against the defenders |
| ``search_candidates(state, legal)``  | list of ids            | the legal moves a search player considers (default: all). Briscola prunes its 61 bids and 40 calls |

Every state has ``hand_no``: the number of the hand in progress (1 for the first hand of the
episode; the last hand's once the episode is over). A record (``envs.records``) re-runs the
engine over an episode's actions, reads it after every step and asks ``hand_deal`` for each
hand that has started.
"""

from __future__ import annotations

import warnings
from collections.abc import Mapping
from typing import Any

import numpy as np

from envs.core.cards import Deck, iter_bits
from envs.core.errors import DealError
from envs.core.flags import Flag, resolve_flags
from envs.core.layout import ObsLayout

__all__ = ["CardGame", "Observer", "RESULT_VERSION", "check_options", "parse_seat", "parse_hands"]

#: ``info["result"]["result_version"]`` of every game. Version 2: the keys the three games share
#: have one name (``hand_no`` per hand, ``game_no`` per game, ``tricks`` per seat, ``busche_paid``).
RESULT_VERSION = 2


class CardGame:
    """Base class of the rules engines; subclasses set the class attributes and the methods."""

    name: str = "card_game"
    deck: Deck
    num_actions: int
    FLAGS: tuple[Flag, ...] = ()
    #: keys that ``reset(options=...)`` understands; any other key is ignored with a warning.
    OPTION_KEYS: tuple[str, ...] = ()

    def __init__(self, **flags: Any):
        self.flags = resolve_flags(self.FLAGS, flags, self.name)
        self.num_players = self._num_players()

    def _num_players(self) -> int:
        raise NotImplementedError

    # -- setup --------------------------------------------------------------------------
    def parse_options(self, options: Mapping[str, Any] | None) -> dict[str, Any]:
        raise NotImplementedError

    def new_state(self, rng: np.random.Generator, setup: dict[str, Any]) -> Any:
        raise NotImplementedError

    def initial_rewards(self, state: Any) -> list | None:
        return None

    # -- play ---------------------------------------------------------------------------
    def current_player(self, state: Any) -> int:
        raise NotImplementedError

    def legal_mask(self, state: Any) -> int:
        raise NotImplementedError

    def apply(self, state: Any, action: int) -> list | None:
        raise NotImplementedError

    def is_over(self, state: Any) -> bool:
        raise NotImplementedError

    def is_truncated(self, state: Any) -> bool:
        return False

    # -- reporting ----------------------------------------------------------------------
    def result(self, state: Any) -> dict[str, Any]:
        raise NotImplementedError

    def action_name(self, action: int) -> str:
        return str(action)

    def move_name(self, action: int) -> str:
        """The name of an action in records: ``action_name`` with the verb in lower case
        (``BID 75`` -> ``bid 75``, ``NO_FORFEIT`` -> ``no forfeit``); card codes keep their case."""
        verb, _, rest = self.action_name(action).partition(" ")
        verb = verb.lower().replace("_", " ")
        return f"{verb} {rest}" if rest else verb

    def hand_deal(self, state: Any, hand_no: int) -> dict[str, Any]:
        """The deal of hand ``hand_no``: ``{"dealer": seat, "hands": [cards per seat]}`` (and
        ``"talon"``, in talon order, where the game has one). The cards of a seat are a card-set
        bitmask or a list of card ids or codes (the records print them as sorted codes; no
        conversion happens on the env's hot path), and must not change afterwards. Engines
        answer at least for the hand in progress; records ask as soon as a hand has started."""
        raise NotImplementedError

    def render(self, state: Any, seat: int) -> str:
        raise NotImplementedError

    # -- facts for code outside the game (see the module docstring) --------------------------
    def hidden_move_name(self, action: int) -> str | None:
        """What the other seats learn of ``action``: ``None`` when they see which move it was,
        else the name they see instead (the id hidden too). Like ``move_name`` it does not
        depend on the flags. Records, viewers and the search players' information sets ask it."""
        return None

    def public_hand_result(self, result: dict[str, Any], seat: int) -> dict[str, Any]:
        """The part of a finished hand's record that ``seat`` may know. ``result`` is a plain-JSON
        copy of the hand's record (``info["result"]["hands"][i]`` without the deal, ``"dealer"``
        included), the hook's to change and return."""
        return result

    def in_trick_play(self, state: Any) -> bool:
        """Is the hand in its trick play, with no auction, call or exchange left?"""
        return True

    def trick_play_rows(self, masks: np.ndarray) -> np.ndarray:
        """Which rows of a batch of legal masks (``(rows, num_actions)``, the batched engine's ``mask``) are in
        trick play: every legal move is a card's play, an id below the deck's size (no bid, call, discard or
        forfeit is legal). It agrees with ``in_trick_play`` at every decision with a legal move (tested), and lets
        the playouts of a search hand the trick play and the rest of a hand to different policies."""
        return ~np.asarray(masks)[:, self.deck.size:].any(axis=1)

    def same_side(self, state: Any, seat: int, other: int) -> bool:
        """Do ``seat`` and ``other`` play for the same side in ``state`` (a team)? Each seat alone by default."""
        return seat == other

    def search_candidates(self, state: Any, legal: list[int]) -> list[int]:
        """The legal moves (sorted ids) a search player considers in ``state``: all of them by default;
        a game whose move lists are long prunes them here."""
        return legal

    def legal_actions(self, state: Any) -> list[int]:
        """Legal action ids as a sorted list (convenience; the env uses the bitmask)."""
        return list(iter_bits(self.legal_mask(state)))


class Observer:
    """Incremental observation encoder over an ``ObsLayout``.

    ``reset`` rebuilds the absolute buffer from the state (used at reset and whenever a new
    hand starts); ``update`` applies the change made by one action. ``observe`` is a single
    gather. Tests check that ``update`` always agrees with a full ``reset``.

    The one style of the three games: each observation module resolves the flat absolute
    offset of every field once (``O_HAND = LAYOUT.abs_offset("hand")``), and the observer
    writes single values through ``self._mv[O_HAND + 40 * seat + card] = 1.0`` and clears
    ranges through ``self.buf[a:b] = 0.0``. ``_mv`` is a memoryview of ``buf``: a scalar
    write through it costs about half a NumPy item write, and it stores the same float32.
    No NumPy view of the buffer is kept (a view would go on pointing into the original's
    buffer after ``copy.deepcopy`` or pickling); ``_mv`` is rebuilt by ``__setstate__``.
    """

    layout: ObsLayout
    obs_low: float = 0.0
    obs_high: float = 1.0

    def __init__(self, game: CardGame):
        self.game = game
        self.buf = self.layout.new_buffer()
        self._mv = memoryview(self.buf)

    # A copy or an unpickled observer gets a memoryview of its own buffer (memoryviews cannot
    # be pickled, and a copied one would still point into the original's buffer).
    def __getstate__(self) -> dict[str, Any]:
        state = self.__dict__.copy()
        del state["_mv"]
        return state

    def __setstate__(self, state: dict[str, Any]) -> None:
        self.__dict__.update(state)
        self._mv = memoryview(self.buf)

    def reset(self, state: Any) -> None:
        raise NotImplementedError

    def update(self, state: Any, actor: int, action: int) -> None:
        # Correct by construction; games override with a cheaper incremental version.
        self.reset(state)

    def observe(self, seat: int) -> np.ndarray:
        return self.buf[self.layout.gather[seat]]


# -- explicit-deal helpers shared by the games ----------------------------------------------


def check_options(options: Mapping[str, Any] | None, known: tuple[str, ...], game: str) -> dict[str, Any]:
    """The options a game understands; unknown keys are ignored with a warning."""
    if options is None:
        return {}
    if not isinstance(options, Mapping):
        raise DealError(f"{game}: options must be a dict with keys from {', '.join(known)}; got {options!r}")
    unknown = [k for k in options if k not in known]
    if unknown:
        warnings.warn(
            f"{game}: ignoring unknown reset option(s) {', '.join(map(repr, unknown))}; known: {', '.join(known)}",
            stacklevel=3,
        )
    return {k: options[k] for k in known if k in options and options[k] is not None}


def parse_seat(value: Any, num_players: int, key: str, game: str) -> int:
    if isinstance(value, bool) or not isinstance(value, (int, np.integer)) or not 0 <= int(value) < num_players:
        raise DealError(f"{game}: option '{key}' must be a seat number 0..{num_players - 1}; got {value!r}")
    return int(value)


def parse_hands(
    deck: Deck, hands: Any, counts: list[int], game: str, taken: int = 0, key: str = "hands"
) -> list[list[int]]:
    """Validate explicit hands: one list per seat with ``counts[seat]`` distinct cards.

    ``taken`` is a card set already used elsewhere (e.g. a given talon); overlap raises.
    """
    if isinstance(hands, (str, bytes)) or not hasattr(hands, "__len__") or len(hands) != len(counts):
        raise DealError(f"{game}: option '{key}' must be a list of {len(counts)} hands (one per seat); got {hands!r}")
    seen: dict[int, str] = {c: "another option" for c in range(deck.size) if taken >> c & 1}
    parsed = []
    for seat, (hand, count) in enumerate(zip(hands, counts, strict=False)):
        try:
            cards = deck.parse_many(hand)
        except ValueError as err:
            raise DealError(f"{game}: option '{key}', seat {seat}: {err}") from None
        if len(cards) != count:
            raise DealError(f"{game}: option '{key}', seat {seat} must hold exactly {count} cards; got {len(cards)}")
        for c in cards:
            if c in seen:
                raise DealError(f"{game}: option '{key}': card {deck.codes[c]} given twice (seat {seat} and {seen[c]})")
            seen[c] = f"seat {seat}"
        parsed.append(cards)
    return parsed
