"""
# Briscola in cinque (Briscola chiamata with a points auction)

| Import             | `from envs import briscola5_v0`                 |
|--------------------|-------------------------------------------------|
| Actions            | Discrete(143), masked                           |
| Parallel API       | No                                              |
| Agents             | `agents = ['player_0', ..., 'player_4']`        |
| Observation shape  | (1169,)                                         |
| Rules              | `docs/rules/briscola5.md`                       |

Five players, 40-card Italian deck, eight cards each. After an optional forfeit check (a hand
with 0 card points may void the deal), an auction on card points (61..120, a pass is final)
chooses the caller, who names any card (his own too: "chiamata in mano", a solo). Its suit is
trump and its holder is the secret partner, revealed when the card is played. Eight tricks of
classic Briscola follow (no duty to follow suit); the caller's team wins if it takes at least
the contract. Credits are zero-sum (doppia 71-80, tripla 81-120, cappotto doubles). The rule
codes cited here and in the code (B1..B13, "spec 4.2") refer to `docs/rules/briscola5.md`.

```python
import numpy as np
from envs import briscola5_v0

env = briscola5_v0.env(num_hands=1)
env.reset(seed=7)
for agent in env.agent_iter():
    obs, reward, termination, truncation, info = env.last()
    legal = np.flatnonzero(obs["action_mask"])  # the legal action ids
    env.step(None if termination or truncation else int(legal[0]))
print(info["result"]["totals"])  # the classifica: credits per seat, summing to zero
```

## Flags

Every rule variant of the spec's appendix is a keyword of `env()`, with the spec's name and
default. An unknown flag or a value outside the allowed set raises `ConfigError` naming the
key and the allowed values.

{{flags_table}}

## Observation

`{"observation": float32[1169], "action_mask": int8[143]}`, values in [-1, 1]. Seat-relative:
relative seat `r` is absolute seat `(observer + r) % 5`, so the observer is always row 0. It
holds only what the seat may know: its own hand, the public auction, contract, call, every card
played by seat and trick, the trick in progress, card points and tricks per seat, the partner
once revealed, the classifica; and, privately to the partner (or a solo caller), that it holds
the called card. Index table of every slice (`envs.briscola5.observation.LAYOUT`):

{{observation_table}}

`envs.briscola5.observation.decode(obs)` turns an observation back into card ids and integers
(relative seats), for heuristic agents; `decode(obs, codes=True)` shows card codes instead.

## Actions

| ids     | meaning                            | phase          |
|---------|------------------------------------|----------------|
| 0..39   | `PLAY(c)`: play card c             | trick play     |
| 40..79  | `CALL(c)`: call card c = id - 40   | call           |
| 80      | `PASS` (final)                     | auction        |
| 81..140 | `BID(v)`, v = 61 + (id - 81)       | auction        |
| 141     | `FORFEIT` (void the deal)          | forfeit check  |
| 142     | `NO_FORFEIT`                       | forfeit check  |

Card ids: `10 * suit + rank`, suits C D S B (Coppe, Denari, Spade, Bastoni), ranks
A 2 3 4 5 6 7 J H K; codes such as `AC` (0), `3D` (12), `KS` (29). Only the seat to act has
a non-zero mask. An illegal or out-of-range id raises `IllegalActionError` naming the legal
ids, and leaves the state unchanged.

## Rewards

When a hand ends every agent receives its credits for that hand (ints summing to zero), so an
episode's return is the seat's classifica. Void hands pay 0.

## Episodes and the result record

An episode is `num_hands` hands (default 1). At the end every agent's `info["result"]` holds
`result_version` (version 2: unified keys hand_no, game_no, tricks, busche_paid), `hands`
(one record per hand: `hand_no`, `dealer`, `void` (`"forfeit"`, `"all_pass"` or `None`),
`forfeited_by` (void hands), `caller`, `bid`, `called_card`, `trump`, `partner`, `solo`,
`caller_team_points`, `caller_team_won`, `cappotto`, `points` (card points per seat),
`credits`), `hands_played`, `totals` (the classifica) and `truncated`.

## Explicit deals

`reset(seed=None, options={"dealer": 0..4, "hands": [[8 codes or ids] x 5]})` plays exactly
that first deal (both keys optional; later hands of a match are shuffled from the seed). A
malformed value raises `DealError`, and the env keeps its previous episode; unknown keys are
ignored with a warning.

## Rule decisions

Decisions beyond the spec (see `docs/rules/briscola5.md`, Appendix B):

* `num_hands` defaults to 1: an episode is one hand, the usual RL setting (the spec's appendix
  agrees).
* With `void_hands_count=False` an episode is truncated after 100 consecutive void hands
  (spec section 5); the result then says `truncated: True`.
* `force_dealer` makes the dealer the caller at `min_bid` without asking him.
* The auction's upper limit is the appendix's `max_bid` flag (section 2.2 writes 120, the
  default).
* A seat asked in the forfeit check thereby shows that its hand has 0 card points: the
  spec's phase makes eligibility public, so the no-leak property holds for everything else
  (the no-leak test keeps each seat's 0-point status when it redistributes hidden cards).
* The first player of each hand is asked first in the forfeit check, then the others in
  playing order; one forfeit voids the hand at once.
* Randomness: the first dealer (when random) is drawn before the shuffle; later hands
  shuffle from the same generator.

## Version History

* v0 (Mazzo 0.1.0): the rules of `docs/rules/briscola5.md` with every variant of its appendix as a
  flag; 143 actions, observations of 1169 floats, result records of `result_version` 2.
"""

from __future__ import annotations

from typing import Any

from envs.briscola5.game import FLAGS, Briscola5Game
from envs.briscola5.observation import LAYOUT, Briscola5Observer
from envs.core.aec import CardGameEnv
from envs.core.docs import fill_tables, share_doc
from envs.core.flags import flags_table
from envs.core.wrappers import OrderEnforcingWrapper

__all__ = ["env", "raw_env"]
__doc__ = fill_tables(__doc__, flags_table=flags_table(FLAGS), observation_table=LAYOUT.table())


class raw_env(CardGameEnv):  # noqa: N801 (PettingZoo naming)
    """Briscola in cinque without wrappers (raises on illegal actions itself): `raw_env(render_mode=None, **flags)`."""

    metadata = {"render_modes": ["ansi", "human", "rgb_array"], "name": "briscola5_v0", "is_parallelizable": False, "render_fps": 2}
    game_class = Briscola5Game
    observer_class = Briscola5Observer


def env(render_mode: str | None = None, **flags: Any) -> OrderEnforcingWrapper:
    """Briscola in cinque: `raw_env(render_mode, **flags)` in PettingZoo's order-enforcing wrapper."""
    return OrderEnforcingWrapper(raw_env(render_mode=render_mode, **flags))


share_doc(__doc__, env, raw_env)
