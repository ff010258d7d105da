"""One rule for numbers in flags (issue 9, point 4).

Wherever a number is allowed, any Python or NumPy integer or real is accepted and stored as a
plain Python number; bools, arrays and values no finite float can hold raise ``ConfigError``
naming the key and what is allowed.
"""

from __future__ import annotations

import numpy as np
import pytest

from envs import briscola5_v0, picchetto_v0, pigugnin_v0
from envs.core.errors import ConfigError

MODULES = {"briscola5": briscola5_v0, "pigugnin": pigugnin_v0, "picchetto": picchetto_v0}

# (game, flag, given value, the Python value it must be stored as)
ACCEPTED = [
    ("briscola5", "first_dealer", np.int64(1), 1),
    ("briscola5", "min_bid", np.int32(70), 70),
    ("briscola5", "min_bid", 70.0, 70),
    ("briscola5", "num_hands", np.float64(3.0), 3),
    ("briscola5", "forfeit_enabled", np.bool_(False), False),
    ("pigugnin", "num_players", np.int64(5), 5),
    ("pigugnin", "first_dealer", np.uint8(3), 3),
    ("pigugnin", "loss_threshold", np.int16(8), 8),
    ("pigugnin", "outcome_reward", {"win": np.int64(2), "lose": np.float32(-1.5)}, {"win": 2, "lose": -1.5}),
    ("picchetto", "first_dealer", np.int64(1), 1),
    ("picchetto", "dealer_min_exchange", np.int8(0), 0),
    ("picchetto", "game_target", np.uint16(100), 100),
    ("picchetto", "outcome_reward", np.float32(1.5), 1.5),
    ("picchetto", "outcome_reward", np.int64(3), 3),
]


@pytest.mark.parametrize(("game", "flag", "value", "stored"), ACCEPTED)
def test_numpy_and_python_numbers_are_accepted_and_stored_plain(game, flag, value, stored):
    env = MODULES[game].raw_env(**{flag: value})
    got = env.game.flags[flag]
    assert got == stored
    assert type(got) is type(stored)
    if isinstance(stored, dict):
        assert all(type(got[k]) is type(v) for k, v in stored.items())


REFUSED = [
    ("pigugnin", "outcome_reward", {"win": 10**400}),
    ("picchetto", "outcome_reward", 10**400),
    ("picchetto", "outcome_reward", float("inf")),
    ("picchetto", "outcome_reward", np.float64("nan")),
    ("picchetto", "outcome_reward", True),
    ("picchetto", "outcome_reward", "1"),
    ("briscola5", "first_dealer", np.array([1, 2])),
    ("pigugnin", "first_dealer", np.array([1, 2])),
    ("picchetto", "first_dealer", np.array([1, 2])),
    ("picchetto", "first_dealer", np.array(1)),
    ("pigugnin", "num_players", np.array([4])),
    ("briscola5", "min_bid", True),
    ("briscola5", "min_bid", 70.5),
    ("briscola5", "min_bid", np.float64("nan")),
    ("briscola5", "num_hands", 10**400),
    ("picchetto", "dealer_min_exchange", True),
    ("briscola5", "forfeit_enabled", 1),
]


@pytest.mark.parametrize(("game", "flag", "value"), REFUSED)
def test_non_numbers_raise_config_error_naming_the_key(game, flag, value):
    with pytest.raises(ConfigError) as err:
        MODULES[game].raw_env(**{flag: value})
    message = str(err.value)
    assert f"'{flag}'" in message and "allowed" in message
    assert len(message) < 400  # a huge value is shown cut, not printed whole
