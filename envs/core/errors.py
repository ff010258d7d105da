"""Exceptions raised by every Mazzo environment (importable from ``envs``: ``from envs import ConfigError``).

All of them derive from ``ValueError`` so callers that only know the standard library can
still catch them; each message names what was wrong and what is allowed.

| error | raised for |
|---|---|
| ``MazzoError`` | the base class of all of them |
| ``ConfigError`` | an unknown game, agent spec or flag value; a bad config (``agents.checkpoint.CheckpointError``, a checkpoint that is not one or does not fit, is a ``ConfigError`` too) |
| ``UnknownFlagError`` | a keyword that is not a flag of the game (also a ``TypeError``) |
| ``DealError`` | a malformed explicit deal in ``reset(options=...)`` |
| ``IllegalActionError`` | an action that is out of range or not legal now (the state is unchanged) |
| ``CardCodeError`` | a card code or id that names no card of the deck |
| ``ResetNeededError`` | ``step``/``last``/``observe`` with no episode in progress (also a ``RuntimeError``) |
| ``RecordError`` | a game record that is malformed or that the env does not reproduce (``envs.records``) |
"""


class MazzoError(ValueError):
    """Base class of every error raised for bad input to a Mazzo environment."""


class ConfigError(MazzoError):
    """An unknown variant flag, or a flag with a value outside its allowed set."""


class UnknownFlagError(ConfigError, TypeError):
    """A keyword that is not a flag of the game.

    Also a ``TypeError``, like any unexpected keyword argument in Python.
    """


class DealError(MazzoError):
    """A malformed explicit deal passed through ``reset(options=...)``."""


class IllegalActionError(MazzoError):
    """An action id that is out of range or not legal in the current state.

    The environment state is untouched when this is raised.
    """


class CardCodeError(MazzoError):
    """A card code or id that does not name a card of the deck."""


class ResetNeededError(MazzoError, RuntimeError):
    """A call that needs an episode in progress: ``step``, ``last`` or ``observe`` before the
    first ``reset()``, or ``step`` / ``last`` once the episode is over and every agent has been
    removed by its dead step. The message says which call and to call ``reset()``.

    Also a ``RuntimeError`` (a call in the wrong state, not a bad value); the wording follows
    PettingZoo's order-enforcing wrapper ("reset() needs to be called before step").
    """


class RecordError(MazzoError):
    """A record that is malformed, or that the env does not reproduce (the message says where)."""
