"""Picchetto (Italian Piquet): PettingZoo AEC environment.

Two players, 32-card French deck, 12 cards each and a talon of 5 + 3. The elder (non-dealer)
exchanges 1 to 5 cards from the first packet, the dealer then exchanges from what is left of
it and from the second packet. Bianco (no J/Q/K) scores 10. Three automatic declarations
follow: the point (suit value sum, answered "va bene" / "uguale" / "non basta"), sequences and
sets (trio / quattordici); then repique, 12 tricks without trumps (follow suit and beat the led
card when you can), pique, cards and capot. A game is won by passing 150 (the bella 220) and the
target is checked after every scoring event, so a game can end in the middle of a hand. The
match is partita, rivincita and, at one game each, the bella. Rules: ``docs/rules/picchetto.md``.

| Import             | ``from envs import picchetto_v0``        |
|--------------------|------------------------------------------|
| Agents             | ``player_0``, ``player_1``               |
| Action space       | ``Discrete(65)``                         |
| Observation        | ``{"observation": Box(0, 4, (442,), float32), "action_mask": Box(0, 1, (65,), int8)}`` |
| Episode            | a match (default), a game or a hand (``episode``) |

Actions (one flat space; the mask is all zeros for an agent who is not to act):

| ids    | meaning                                   | phase                                  |
|--------|-------------------------------------------|----------------------------------------|
| 0..31  | ``PLAY(c)``: play card c                  | trick lead, trick follow               |
| 32..63 | ``DISCARD(c)``, c = id - 32               | elder exchange, dealer exchange        |
| 64     | ``END_EXCHANGE``                          | elder exchange (after >= 1 discard), dealer exchange (after ``dealer_min_exchange``) |

Card ids: ``8 * suit + rank``, suits h d s c (Cuori, Quadri, Picche, Fiori), ranks
7 8 9 T J Q K A; codes such as ``7h`` (0), ``Ah`` (7), ``Ts`` (19), ``Ac`` (31). The elder's
exchange ends by itself at his 5th discard, the dealer's when he has discarded ``8 - elder's
discards``; each then draws as many talon cards as he discarded, in talon order. Bianco, the
declarations, repique, trick resolution, cards/capot, the target check and the next deal are
automatic (engine states of the spec, run inside ``step``).

Observation: seat-relative (relative seat 0 is the observer), from ``envs.picchetto.observation``;
``decode(obs)`` there returns a readable dict (the same as ``view(game, state, seat)``).

| slice | field | shape | kind | meaning |
|---|---|---|---|---|
| 0:32 | `hand` | (32,) | private | own cards now (card id) |
| 32:64 | `discards` | (32,) | private | own discards this hand |
| 64:96 | `drawn` | (32,) | private | talon cards drawn this hand |
| 96:128 | `peeked` | (32,) | private | talon cards one could have drawn but did not (only with `allow_peek`) |
| 128:133 | `phase` | (5,) | public | one-hot: elder exchange, dealer exchange, trick lead, trick follow, over |
| 133:135 | `dealer` | (2,) | seat | one-hot dealer of this hand |
| 135:199 | `bianco_hand` | (2, 32) | seat | the 12 dealt cards of a seat that declared Bianco |
| 199:203 | `bonuses` | (2, 2) | seat | seat r declared Bianco (col 0), made repique (col 1) |
| 203:205 | `pique` | (2,) | seat | seat r made pique |
| 205:207 | `exchanged` | (2,) | seat | cards exchanged by seat r / 8 |
| 207:219 | `answers` | (3, 4) | public | declaration d (point, sequence, sets) answer one-hot: va bene, uguale, non basta, nessuno |
| 219:221 | `point_value` | (2,) | seat | publicly known point value of seat r / 80 (0: not known) |
| 221:225 | `sequence` | (2, 2) | seat | known best sequence of seat r: length / 8, (top rank + 1) / 8 |
| 225:229 | `sets` | (2, 2) | seat | known best set of seat r: size / 4, (rank + 1) / 8 |
| 229:235 | `decl_points` | (2, 3) | seat | points seat r won with the point, sequences, sets / 40 |
| 235:299 | `revealed` | (2, 32) | seat | cards seat r showed in the declarations |
| 299:363 | `played` | (2, 32) | seat | cards seat r has played this hand (the card on the table too) |
| 363:395 | `trick_card` | (32,) | public | one-hot card led in the trick in progress |
| 395:397 | `leader` | (2,) | seat | one-hot leader of the trick in progress (trick phases) |
| 397:398 | `trick_no` | (1,) | public | tricks completed this hand / 12 |
| 398:400 | `tricks_won` | (2,) | seat | tricks won by seat r this hand / 12 |
| 400:402 | `hand_score` | (2,) | seat | points of seat r this hand / target |
| 402:404 | `game_score` | (2,) | seat | game score of seat r / target |
| 404:406 | `games_won` | (2,) | seat | games of the match won by seat r / 2 |
| 406:409 | `game_number` | (3,) | public | one-hot partita, rivincita, bella |
| 409:410 | `target` | (1,) | public | target of this game / 220 |
| 410:442 | `leftover` | (32,) | public | undrawn talon cards (only with `reveal_leftover_talon`) |

Variant flags (keywords of ``env()``; the spec's appendix names and defaults, plus ``episode``
and ``outcome_reward``):

| flag | default | allowed | meaning |
|---|---|---|---|
| `first_dealer` | `'random'` | 'random', 0, 1 | dealer of the first hand of the match (P1) |
| `trick_scoring` | `'seed'` | 'seed', 'classic' | 'seed': 1 per trick won, 2 for the last; 'classic': 1 per lead, 1 per trick won against the lead, +1 for the last (P17) |
| `must_head_trick` | `True` | True, False | the follower must beat the led card when he can (P7) |
| `dealer_min_exchange` | `1` | 1, 0 | fewest cards the dealer must exchange (P5b) |
| `declarations_automatic` | `True` | True only (a manual declaration mode is not specified by the rules, DECISION P4) | declarations computed from the hands (P4) |
| `bianco_counts_for_repique` | `True` | True, False | Bianco points count for the repique's 30 and against the opponent's 0 (P14) |
| `pique_counts_end_bonuses` | `False` | True, False | cards/capot can complete a pique (P14) |
| `capot_replaces_cards` | `True` | True, False | capot (40) replaces the cards bonus (10) (P12) |
| `target_inclusive` | `False` | True, False | a game is won at >= target instead of > target (P15) |
| `game_target` | `150` | an int >= 1 | target of the partita and rivincita |
| `bella_target` | `220` | an int >= 1 | target of the bella (game 3) |
| `game_end_check` | `'immediate'` | 'immediate', 'end_of_hand' | check the target after every scoring event or only at the end of a hand (P16) |
| `match_format` | `'best_of_three'` | 'best_of_three', 'single_game' | partita, rivincita and bella, or a single game (P18) |
| `reveal_leftover_talon` | `False` | True, False | the undrawn talon cards are shown to both players (P6) |
| `allow_peek` | `False` | True, False | a player sees the talon cards he was entitled to but did not draw (P6) |
| `episode` | `'match'` | 'match', 'game', 'hand' | what one episode is: a match, a game or a hand |
| `outcome_reward` | `0` | a finite number (any Python or NumPy int or real, not a bool) | added for winning (subtracted for losing) each game |

Rewards: dense and zero-sum. Whenever points are scored (Bianco, point, sequences, sets,
repique, each trick, pique, cards, capot) the scorer receives them and the opponent minus them,
in the step that caused them (points scored at the deal, an elder's Bianco, are paid with the
first step so that ``last()`` after ``reset`` shows 0). An episode's return is therefore the
seat's score difference, summed over the games of the episode. ``outcome_reward`` is added
for winning, and subtracted for losing, each game, in the step that ends it.

Explicit deals: ``reset(seed=None, options={"dealer": 0 or 1, "hands": [[12 codes or ids] for
seat 0, [12] for seat 1], "talon": [8 codes or ids, T[0..4] first packet, T[5..7] second],
"scores": [game score of seat 0, of seat 1], "games_won": [games won by seat 0, by seat 1]})``.
Every key is optional: without ``hands`` the cards are shuffled (around a given talon if there
is one); ``hands`` without ``talon`` puts the other 8 cards in the talon in random order;
``scores`` (0..target, a game not yet won) starts the first game from those scores;
``games_won`` ([0, 0], [1, 0], [0, 1] or [1, 1]) starts a later game of the match (the
rivincita, or the bella to ``bella_target``). Later hands are shuffled from the seed. A malformed
value raises ``DealError`` naming the key and what is allowed, and the previous episode stays
as it was; unknown keys are ignored with a warning.

End of episode: every agent's ``info["result"]`` holds ``hands`` (per hand: game, dealer, elder,
the dealt ``hands`` and ``talon`` as card codes, so that its ``dealer``, ``hands`` and ``talon``
passed as reset options replay the deal, Bianco, ``exchanged`` per seat, the three declarations with the
Italian answer, winner and points, ``events`` = every scoring event in order as ``(kind, seat,
points)`` with kind in bianco / point / sequence / sets / repique / trick / pique / cards /
capot (classic trick scoring: lead / trick / last_trick), tricks won, hand scores, whether it was
played out and whether the game ended in it), ``games`` (target, start and final scores,
winner), ``games_won``, ``match_winner`` (None unless the match was decided), ``scores`` (the
game scores at the end) and ``episode``.

Rule decisions beyond the spec (gaps the spec leaves open):

* Point: the comparison is by value only, so equal values are "uguale" whatever the card
  counts (the spec's table). When two of one's own suits tie on value and on cards (P13 is
  silent on that), the first in the order h, d, s, c is the one announced and shown.
* Sequences and sets: when the elder holds none and the dealer holds one, the answer is "non
  basta" and the dealer scores; when neither holds one, the answer is "nessuno" and nobody
  scores. Public: the elder's announcement always; the dealer's holding only when he wins or
  ties (he shows it); the winner's scoring cards (both point suits on "uguale").
* ``bianco_counts_for_repique`` concerns the repique check only (as its name says); the pique
  check always uses the full hand score.
* ``capot_replaces_cards=False``: the capot (40) and then the cards (10) are two events, the
  target being checked after each. ``pique_counts_end_bonuses=True``: the pique check follows
  the cards/capot event(s).
* ``trick_scoring="classic"``: the leader's +1 is an event of its own when he leads (target and
  pique checks follow it); the follower's +1 when he wins; the last trick's extra +1.
* ``allow_peek=True``: after his exchange the elder sees the cards of the first packet he did
  not take; the dealer sees the cards he left (classic Piquet's right to look at them).
* The number of cards each player has exchanged is public and grows with each discard.
* ``game_end_check="end_of_hand"``: equal totals over the target play another hand; with
  ``episode="hand"`` the episode still ends with the hand (the game then has no winner yet).
* In a match the next game starts at once after a game ends (game scores reset, the deal keeps
  alternating, P2); points scored at its deal are paid in the same step.
* ``declarations_automatic=False`` raises ``ConfigError``: the spec specifies no manual mode.
* Scores in the observation are divided by the game's target and clipped at 4 (only reachable
  with very small custom targets).
* Randomness: the first dealer (when random) is drawn before the shuffle; later hands shuffle
  from the same generator.

Version History:

* v0: initial release.
"""

from __future__ import annotations

from typing import Any

from envs.core.aec import CardGameEnv
from envs.core.wrappers import OrderEnforcingWrapper
from envs.picchetto.game import PicchettoGame
from envs.picchetto.observation import PicchettoObserver

__all__ = ["env", "raw_env"]


class raw_env(CardGameEnv):  # noqa: N801 (PettingZoo naming)
    """Picchetto without wrappers (raises on illegal actions itself)."""

    metadata = {"render_modes": ["ansi", "human"], "name": "picchetto_v0", "is_parallelizable": False}
    game_class = PicchettoGame
    observer_class = PicchettoObserver


def env(**kwargs: Any) -> OrderEnforcingWrapper:
    """Picchetto with the PettingZoo order-enforcing wrapper; ``kwargs`` are flags."""
    return OrderEnforcingWrapper(raw_env(**kwargs))
