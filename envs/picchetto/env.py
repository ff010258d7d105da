"""
# Picchetto (Italian Piquet)

| Import             | `from envs import picchetto_v0`                 |
|--------------------|-------------------------------------------------|
| Actions            | Discrete(65), masked                            |
| Parallel API       | No                                              |
| Agents             | `agents = ['player_0', 'player_1']`             |
| Observation shape  | (442,)                                          |
| Rules              | `docs/rules/picchetto.md`                       |

Two players, 32-card French deck, 12 cards each and a talon of 5 + 3. The elder (non-dealer)
exchanges 1 to 5 cards from the first packet, the dealer then exchanges from what is left of
it and from the second packet. Bianco (no J/Q/K) scores 10. Three automatic declarations
follow: the point (suit value sum, answered "va bene" / "uguale" / "non basta"), sequences and
sets (trio / quattordici); then repique, 12 tricks without trumps (follow suit and beat the led
card when you can), pique, cards and capot. A game is won by passing 150 (the bella 220) and the
target is checked after every scoring event, so a game can end in the middle of a hand. The
match is partita, rivincita and, at one game each, the bella. The rule codes cited here and in
the code (P1..P18, the scoring events E1..E19, "spec 3.1") refer to `docs/rules/picchetto.md`.

```python
import numpy as np
from envs import picchetto_v0

env = picchetto_v0.env(episode="game", outcome_reward=100)
env.reset(seed=7)
for agent in env.agent_iter():
    obs, reward, termination, truncation, info = env.last()
    legal = np.flatnonzero(obs["action_mask"])  # the legal action ids
    env.step(None if termination or truncation else int(legal[0]))
print(info["result"]["games"][0]["winner"])  # the seat that won the game
```

## Flags

Every rule variant of the spec's appendix is a keyword of `env()`, with the spec's name and
default; `episode` and `outcome_reward` set the RL framing. An unknown flag or a value outside
the allowed set raises `ConfigError` naming the key and the allowed values.

{{flags_table}}

## Observation

`{"observation": float32[442], "action_mask": int8[65]}`, values in [0, 4]. Seat-relative:
relative seat 0 is the observer, 1 the opponent. It holds only what the seat may know (spec
5.1): its own hand, discards, drawn cards (and, with `allow_peek`, the talon cards it could
have drawn); the opponent's Bianco hand, the cards each player showed in the declarations, the
public announcements and answers, the count of cards each player exchanged, every card played,
the trick in progress, all scores. Index table of every slice
(`envs.picchetto.observation.LAYOUT`):

{{observation_table}}

`envs.picchetto.observation.decode(obs)` returns a readable dict with card ids (the same as
`view(game, state, seat)`), for heuristic agents; `decode(obs, codes=True)` shows card codes
instead.

## Actions

| ids    | meaning                                   | phase                                  |
|--------|-------------------------------------------|----------------------------------------|
| 0..31  | `PLAY(c)`: play card c                    | trick lead, trick follow               |
| 32..63 | `DISCARD(c)`, c = id - 32                 | elder exchange, dealer exchange        |
| 64     | `END_EXCHANGE`                            | elder exchange (after >= 1 discard), dealer exchange (after `dealer_min_exchange`) |

Card ids: `8 * suit + rank`, suits h d s c (Cuori, Quadri, Picche, Fiori), ranks
7 8 9 T J Q K A; codes such as `7h` (0), `Ah` (7), `Ts` (19), `Ac` (31). The elder's
exchange ends by itself at his 5th discard, the dealer's when he has discarded `8 - elder's
discards`; each then draws as many talon cards as he discarded, in talon order. Bianco, the
declarations, repique, trick resolution, cards/capot, the target check and the next deal are
automatic (engine states of the spec, run inside `step`). Only the seat to act has a non-zero
mask. An illegal or out-of-range id raises `IllegalActionError` naming the legal ids, and
leaves the state unchanged.

## Rewards

Dense and zero-sum. Whenever points are scored (Bianco, point, sequences, sets, repique, each
trick, pique, cards, capot) the scorer receives them and the opponent minus them, in the step
that caused them (points scored at the deal, an elder's Bianco, are paid with the first step
so that `last()` after `reset` shows 0). An episode's return is therefore the seat's score
difference, summed over the games of the episode. `outcome_reward` is added for winning, and
subtracted for losing, each game, in the step that ends it.

## Episodes and the result record

`episode="match"` (default): partita, rivincita and, at one game each, the bella;
`episode="game"`: one game; `episode="hand"`: one hand.

At the end every agent's `info["result"]` holds: `result_version` (version 2: unified keys
hand_no, game_no, tricks, busche_paid), `hands` (one record per hand: `game_no`, `hand_no`,
`dealer`, `elder`, the dealt `hands` and `talon` as card codes, so that its `dealer`, `hands`
and `talon` passed as reset options replay the deal, `bianco`, `exchanged` per seat, the three
`declarations` with the Italian answer, winner and points, `events` = every scoring event in
order as `(kind, seat, points)` with kind in bianco / point / sequence / sets / repique /
trick / pique / cards / capot (classic trick scoring: lead / trick / last_trick), `tricks`
(per seat), `hand_scores`, `completed` (played out) and `game_ended`), `games` (one record
per game: `game_no`, `target`, `start_scores`, `scores`, `winner`), `games_won`,
`match_winner` (None unless the match was decided), `scores` (the game scores at the end) and
`episode`. Game and hand numbers count from 1.

## Explicit deals

`reset(seed=None, options={"dealer": 0 or 1, "hands": [[12 codes or ids] for seat 0, [12] for
seat 1], "talon": [8 codes or ids, T[0..4] first packet, T[5..7] second], "scores": [game
score of seat 0, of seat 1], "games_won": [games won by seat 0, by seat 1]})`. Every key is
optional: without `hands` the cards are shuffled (around a given talon if there is one);
`hands` without `talon` puts the other 8 cards in the talon in random order; `scores`
(0..target, a game not yet won) starts the first game from those scores; `games_won` ([0, 0],
[1, 0], [0, 1] or [1, 1]) starts a later game of the match (the rivincita, or the bella to
`bella_target`). Later hands are shuffled from the seed. A malformed value raises `DealError`
naming the key and what is allowed, and the previous episode stays as it was; unknown keys are
ignored with a warning.

## Rule decisions

Decisions beyond the spec (gaps the spec leaves open; see `docs/rules/picchetto.md`, Appendix B):

* Point: the comparison is by value only, so equal values are "uguale" whatever the card
  counts (the spec's table). When two of one's own suits tie on value and on cards (P13 is
  silent on that), the first in the order h, d, s, c is the one announced and shown.
* Sequences and sets: when the elder holds none and the dealer holds one, the answer is "non
  basta" and the dealer scores; when neither holds one, the answer is "nessuno" and nobody
  scores. Public: the elder's announcement always; the dealer's holding only when he wins or
  ties (he shows it); the winner's scoring cards (both point suits on "uguale").
* `bianco_counts_for_repique` concerns the repique check only (as its name says); the pique
  check always uses the full hand score.
* `capot_replaces_cards=False`: the capot (40) and then the cards (10) are two events, the
  target being checked after each. `pique_counts_end_bonuses=True`: the pique check follows
  the cards/capot event(s).
* `trick_scoring="classic"`: the leader's +1 is an event of its own when he leads (target and
  pique checks follow it); the follower's +1 when he wins; the last trick's extra +1.
* `allow_peek=True`: after his exchange the elder sees the cards of the first packet he did
  not take; the dealer sees the cards he left (classic Piquet's right to look at them).
* The number of cards each player has exchanged is public and grows with each discard.
* `game_end_check="end_of_hand"`: equal totals over the target play another hand; with
  `episode="hand"` the episode still ends with the hand (the game then has no winner yet).
* In a match the next game starts at once after a game ends (game scores reset, the deal keeps
  alternating, P2); points scored at its deal are paid in the same step.
* `declarations_automatic=False` raises `ConfigError`: the spec specifies no manual mode.
* Scores in the observation are divided by the game's target and clipped at 4 (only reachable
  with very small custom targets).
* Randomness: the first dealer (when random) is drawn before the shuffle; later hands shuffle
  from the same generator.

## Version History

* v0 (Mazzo 0.1.0): the rules of `docs/rules/picchetto.md` with every variant of its appendix as a
  flag; 65 actions, observations of 442 floats, result records of `result_version` 2.
"""

from __future__ import annotations

from typing import Any

from envs.core.aec import CardGameEnv
from envs.core.docs import fill_tables, share_doc
from envs.core.flags import flags_table
from envs.core.wrappers import OrderEnforcingWrapper
from envs.picchetto.game import FLAGS, PicchettoGame
from envs.picchetto.observation import LAYOUT, PicchettoObserver

__all__ = ["env", "raw_env"]
__doc__ = fill_tables(__doc__, flags_table=flags_table(FLAGS), observation_table=LAYOUT.table())


class raw_env(CardGameEnv):  # noqa: N801 (PettingZoo naming)
    """Picchetto without wrappers (raises on illegal actions itself): `raw_env(render_mode=None, **flags)`."""

    metadata = {"render_modes": ["ansi", "human", "rgb_array"], "name": "picchetto_v0", "is_parallelizable": False, "render_fps": 2}
    game_class = PicchettoGame
    observer_class = PicchettoObserver


def env(render_mode: str | None = None, **flags: Any) -> OrderEnforcingWrapper:
    """Picchetto: `raw_env(render_mode, **flags)` in PettingZoo's order-enforcing wrapper."""
    return OrderEnforcingWrapper(raw_env(render_mode=render_mode, **flags))


share_doc(__doc__, env, raw_env)
