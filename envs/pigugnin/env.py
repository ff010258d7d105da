"""
# Pigugnìn (Busca Reggiana)

| Import             | `from envs import pigugnin_v0`                 |
|--------------------|------------------------------------------------|
| Actions            | Discrete(40), masked                           |
| Parallel API       | No                                             |
| Agents             | `agents = ['player_0', ..., 'player_{N-1}']`, N = 4 or 5 |
| Observation shape  | (546,) with 4 players, (672,) with 5           |
| Rules              | `docs/rules/pigugnin.md`                       |

An individual trick-avoidance game of Emilia, of the Traversone family, with a 40-card Italian
deck. Each player gets 10 cards (4 players) or 8 (5 players) and must follow the led suit; the
capture order is 3, 2, A, K, Horse, Jack, 7, 6, 5, 4, with no trumps, and the trick winner leads
the next trick. Players try to take at least one trick but as few card points as possible
(Ace 3, 2/3/figures 1, last trick 3: 35 per hand), and above all not to capture the Pigugnìn,
the Jack of Spade (`JS`, id 27). Penalties are *busche*: by the points table, a busca for the
top scorer when nobody reaches 12, extra busche for equal scores, a special rule when somebody
takes no trick, and one busca for the Pigugnìn taker in every hand, who also deals next. Busche
accumulate over the hands until two players have reached 10 (they lose) or one reaches 20 alone
(sole loser); the two non-losers with the fewest busche win, the others draw. A player who
takes every trick of a hand (cappotto) is the sole winner. The rule codes cited here and in
the code (§5.2 for a section, D1..D13 for a decision) refer to `docs/rules/pigugnin.md`.

```python
import numpy as np
from envs import pigugnin_v0

env = pigugnin_v0.env(num_players=4, outcome_reward={"win": 1, "draw": 0, "lose": -1})
env.reset(seed=7)
for agent in env.agent_iter():
    obs, reward, termination, truncation, info = env.last()
    legal = np.flatnonzero(obs["action_mask"])  # the legal action ids
    env.step(None if termination or truncation else int(legal[0]))
print(info["result"]["outcome"])  # e.g. ["win", "lose", "lose", "win"]
```

## Flags

Every rule variant of the spec's appendix is a keyword of `env()`, with the spec's name and
default; `episode` and `outcome_reward` set the RL framing. An unknown flag or a value outside
the allowed set raises `ConfigError` naming the key and the allowed values.

{{flags_table}}

## Observation

`{"observation": float32[42 + 126*N], "action_mask": int8[40]}`. Seat axes are relative:
relative seat `r` is absolute seat `(observer + r) % N`, so the observer is always row 0 and row
1 plays right after it. Only the observer's own hand is private; everything else is public
history (§5.4). Index table for N = 4 (with 5 players every seat axis has 5 rows, same order):

{{observation_table}}

Values are in [0, 1] except `busche` (the space's upper bound is
`(sole_loss_threshold - 1 + 17) / 10`). `envs.pigugnin.observation.decode(obs)` turns an
observation back into card ids and integers (relative seats), for heuristic agents;
`decode(obs, codes=True)` shows card codes instead.

## Actions

| ids | meaning | legal when |
|---|---|---|
| 0..39 | play the card with that id (`10*suit + rank`; suits C D S B, ranks A 2 3 4 5 6 7 J H K) | in the actor's hand and following the led suit if possible (§2.3) |

Only the seat to play has a non-zero mask. An illegal or out-of-range id raises
`IllegalActionError` naming the legal ids, and leaves the state unchanged.

## Rewards

When a hand ends, every agent receives minus the busche it paid in that hand (PettingZoo
accumulates them, so `last()` shows them at the agent's next turn or at the end). When the game
ends, every agent additionally receives `outcome_reward[result]` (default all 0, so the episode
return is minus the busche paid; e.g. `{"win": 1, "draw": 0, "lose": -1}` optimises the
result; an annulled game pays `outcome_reward.get("annulled", draw)`).

## Episodes and the result record

* `episode="game"` (default): a whole game; the next hand is dealt by the Pigugnìn taker.
* `episode="hand"`: one hand. The busche it starts from (0, or the `busche` option) do not
  change how the hand is played or scored; after the hand the end-of-game check (§5.2) is run
  on the new totals: if the game **would** have ended, the outcome is reported and
  `outcome_reward` paid, otherwise the outcome is `None` and no outcome reward is paid.
  Each reset starts a fresh hand (dealer from `first_dealer`/the option, not from the last
  episode's Pigugnìn taker).

At the end every agent's `info["result"]` holds: `result_version` (version 2: unified keys
hand_no, game_no, tricks, busche_paid), `hands` (one record per hand: `hand_no`, `dealer`,
`first_leader`, `deal` (card ids per seat), `trick_history` (`[leader, cards in play order,
winner]` per trick), `points`, `tricks` (per seat), `busche_paid` (per seat, this hand),
`busche_total`, `pig_taker`, `cappotto`, `cappotto_maker`), `busche` (final totals),
`game_over`, `outcome` (per seat `"win"`/`"draw"`/`"lose"`, or `"annulled"` for every seat;
`None` in a hand episode that would not end the game), `reason` (`"losers"`, `"sole_loser"`,
`"cappotto"`, `"annulled"`, `"all_draw"` or `None`), `annulled`, `winners`, `losers`,
`num_players`, `episode`.

## Explicit deals

`reset(seed=None, options={"dealer": int, "hands": [[card codes or ids] per seat],
"busche": [int per seat]})`, every key optional:

* `dealer`: the dealer of the first hand (otherwise `first_dealer`); the first trick is led
  by `(dealer + 1) % N`;
* `hands`: the first deal, exactly 40/N distinct cards per seat (later hands are shuffled);
* `busche`: the totals the game starts from, to study the end of a game: non-negative ints,
  and not already a finished game (at most one total >= `loss_threshold`, below
  `sole_loss_threshold`).

A malformed value raises `DealError` naming the problem and what is allowed, and the env keeps
its previous episode; unknown keys are ignored with a warning.

## Rule decisions

The spec's decisions D1-D13 are implemented as written (flags above). Points the spec leaves
open, decided here:

* `first_hand_leader="holder_7D"` applies to the first hand of every episode; the cards are
  dealt as usual from the chosen dealer (flag, option or random), then the recorded dealer
  becomes the seat before the 7D holder, who leads.
* `cappotto_others_outcome="standard"`: rule 3 decides the losers among the other players;
  rule 4 would only choose between "win" and "draw", and every "win" becomes "draw", so all
  the other non-losers draw. One other player at >= 10 but < 20 is not a loser (rule 3 needs
  a second one).
* `multi_loser_policy="top_two"`: the players at or above the second-highest total among
  those who reached the threshold lose; the other ones who reached it count as non-losers.
* Starting `busche` that already decide the game are rejected (the game would have ended).
* An annulled game (every total >= 10, or everybody drawing) pays `outcome_reward["annulled"]`
  when given, else the draw value (§5.3 treats DRAW and ANNULLED alike).
* Spec example 6.25 gives a hand delta `[2, 3, 1, 4]`; no 4-player hand can pay exactly that
  (checked over every point split and Pigugnìn taker), so it is tested on its totals, and
  through the env with a real hand from the same kind of start.
* The observation's per-hand fields show the hand in progress; in game episodes they restart
  at each deal.

## Version History

* v0 (Mazzo 0.1.0): the rules of `docs/rules/pigugnin.md` with every variant of its appendix as a
  flag; 4 or 5 players, 40 actions, observations of 546 floats (672 with 5 players), result
  records of `result_version` 2.
"""

from __future__ import annotations

from typing import Any

from envs.core.aec import CardGameEnv
from envs.core.docs import fill_tables, share_doc
from envs.core.flags import flags_table
from envs.core.wrappers import OrderEnforcingWrapper
from envs.pigugnin.game import FLAGS, PigugninGame
from envs.pigugnin.observation import LAYOUTS, PigugninObserver

__all__ = ["env", "raw_env"]
__doc__ = fill_tables(__doc__, flags_table=flags_table(FLAGS), observation_table=LAYOUTS[4].table())


class raw_env(CardGameEnv):  # noqa: N801 (PettingZoo naming)
    """Pigugnìn without wrappers (raises on illegal actions itself): `raw_env(render_mode=None, **flags)`."""

    metadata = {"render_modes": ["ansi", "human", "rgb_array"], "name": "pigugnin_v0", "is_parallelizable": False, "render_fps": 2}
    game_class = PigugninGame
    observer_class = PigugninObserver


def env(render_mode: str | None = None, **flags: Any) -> OrderEnforcingWrapper:
    """Pigugnìn: `raw_env(render_mode, **flags)` in PettingZoo's order-enforcing wrapper."""
    return OrderEnforcingWrapper(raw_env(render_mode=render_mode, **flags))


share_doc(__doc__, env, raw_env)
