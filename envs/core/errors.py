"""Exceptions raised by every Mazzo environment.

All of them derive from ``ValueError`` so callers that only know the standard library can
still catch them; each message names what was wrong and what is allowed.
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
