"""Mazzo environments: PettingZoo AEC envs for traditional Italian card games.

Public entry points (PettingZoo naming and versioning)::

    from envs import briscola5_v0, pigugnin_v0, picchetto_v0
    env = briscola5_v0.env()
    help(briscola5_v0.env)  # the env's documentation: flags, observation, actions, rewards

The errors every env raises, from this one place (all are ``ValueError``; ``envs.core.errors``
says what each one is for)::

    from envs import ConfigError, DealError, IllegalActionError, MazzoError, RecordError

Importing ``envs`` loads no game and needs neither torch nor numba; each ``<game>_v0`` module
is imported when first used (``envs.briscola5_v0``, ...; ``envs.registry`` lists the games).
"""

from envs.core.errors import (
    CardCodeError,
    ConfigError,
    DealError,
    IllegalActionError,
    MazzoError,
    RecordError,
    ResetNeededError,
    UnknownFlagError,
)

__all__ = [
    "MazzoError", "ConfigError", "UnknownFlagError", "DealError", "IllegalActionError", "CardCodeError",
    "ResetNeededError", "RecordError",
]
