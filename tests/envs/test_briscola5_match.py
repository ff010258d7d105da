"""Briscola in cinque match rules (spec section 5): when an episode of all-pass redeals is cut."""

from __future__ import annotations

import pytest

from envs import briscola5_v0
from envs.briscola5.game import MAX_CONSECUTIVE_VOID, PASS


def _everyone_passes(num_hands: int, void_hands_count: bool):
    env = briscola5_v0.env(num_hands=num_hands, void_hands_count=void_hands_count, forfeit_enabled=False)
    env.reset(seed=0)
    steps = 0
    while not (any(env.terminations.values()) or any(env.truncations.values())):
        env.step(PASS)
        steps += 1
    return env, steps // 5


@pytest.mark.parametrize("void_hands_count", [True, False])
def test_void_hands_truncate_only_when_they_do_not_count(void_hands_count):
    num_hands = MAX_CONSECUTIVE_VOID + 20
    env, hands = _everyone_passes(num_hands, void_hands_count)
    if void_hands_count:
        # every void hand counts toward num_hands: the match simply ends, untruncated
        assert hands == num_hands and all(env.terminations.values()) and not any(env.truncations.values())
    else:
        assert hands == MAX_CONSECUTIVE_VOID and all(env.truncations.values()) and not any(env.terminations.values())
