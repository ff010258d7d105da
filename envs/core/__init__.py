"""Game-agnostic pieces: decks and card codes, flags, trick helpers, layouts and the AEC base."""

from envs.core.cards import FRENCH, ITALIAN, Deck
from envs.core.errors import CardCodeError, ConfigError, DealError, IllegalActionError, MazzoError, UnknownFlagError

__all__ = [
    "Deck",
    "ITALIAN",
    "FRENCH",
    "MazzoError",
    "ConfigError",
    "UnknownFlagError",
    "DealError",
    "IllegalActionError",
    "CardCodeError",
]
