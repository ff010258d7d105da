"""Briscola in cinque (Briscola chiamata with a points auction): PettingZoo AEC environment.

Five players. After an optional forfeit check (a hand with 0 card points may void the deal),
an auction on card points (61..120, a pass is final) chooses the caller, who names any card
(his own too: "chiamata in mano", a solo). Its suit is trump and its holder is the secret
partner, revealed when the card is played. Eight tricks of classic Briscola follow (no duty
to follow suit); the caller's team wins if it takes at least the contract. Credits are
zero-sum (doppia 71-80, tripla 81-120, cappotto doubles). Rules: ``docs/rules/briscola5.md``.

| Import             | ``from envs import briscola5_v0``        |
|--------------------|------------------------------------------|
| Agents             | ``player_0 .. player_4``                 |
| Action space       | ``Discrete(143)``                        |
| Observation        | ``{"observation": Box(-1, 1, (1169,), float32), "action_mask": Box(0, 1, (143,), int8)}`` |
| Episode            | ``num_hands`` hands (default 1)          |

Actions (one flat space; the mask is all zeros for an agent who is not to act):

| ids     | meaning                          | phase          |
|---------|----------------------------------|----------------|
| 0..39   | ``PLAY(c)``: play card c         | trick play     |
| 40..79  | ``CALL(c)``: call card c = id-40 | call           |
| 80      | ``PASS`` (final)                 | auction        |
| 81..140 | ``BID(v)``, v = 61 + (id - 81)   | auction        |
| 141     | ``FORFEIT`` (void the deal)      | forfeit check  |
| 142     | ``NO_FORFEIT``                   | forfeit check  |

Card ids: ``10 * suit + rank``, suits C D S B (Coppe, Denari, Spade, Bastoni), ranks
A 2 3 4 5 6 7 J H K; codes such as ``AC`` (0), ``3D`` (12), ``KS`` (29).

Observation: see ``envs.briscola5.observation`` for the index table of every slice. It is
seat-relative (relative seat 0 is the observer) and holds only what the seat may know: its
own hand, the public auction, contract, call, every card played by seat and trick, the trick
in progress, card points and tricks per seat, the partner once revealed, the classifica;
and, privately to the partner (or a solo caller), that it holds the called card.

Rewards: when a hand ends every agent receives its credits for that hand (ints summing to
zero), so an episode's return is the seat's classifica. Void hands pay 0.

Variant flags (keywords of ``env()``, with the spec's names and defaults):

| flag | default | allowed | meaning |
|---|---|---|---|
| `first_dealer` | `'random'` | 'random' or a seat 0..4 | dealer of hand 1 (B1) |
| `first_lead` | `'right_of_dealer'` | 'right_of_dealer', 'caller' | who leads trick 1 (B4) |
| `min_bid` | `61` | an int 61..120 | lowest bid (B6) |
| `min_raise` | `1` | an int 1..59 | smallest raise over the high bid (B6) |
| `max_bid` | `120` | an int 61..120, >= min_bid | highest bid |
| `all_pass_policy` | `'void'` | 'void', 'force_dealer' | when everyone passes (B7) |
| `void_hands_count` | `True` | True, False | void hands count toward num_hands (B7) |
| `forfeit_enabled` | `True` | True, False | a 0-point hand may void the deal (B5) |
| `bid_multiplier_on_loss` | `False` | True, False | doppia/tripla also on a lost contract (B9) |
| `cappotto_definition` | `'points'` | 'points', 'tricks' | cappotto = all 120 points or all 8 tricks (B10) |
| `allow_call_own_card` | `True` | True, False | the caller may call a card he holds (B13) |
| `num_hands` | `1` | an int >= 1 | hands per episode (match length, B11) |

Explicit deals: ``reset(seed=None, options={"dealer": 0..4, "hands": [[8 codes or ids] x 5]})``
plays exactly that first deal (both keys optional; later hands of a match are shuffled from
the seed). A malformed value raises ``DealError``; unknown keys are ignored with a warning.

End of episode: every agent's ``info["result"]`` holds ``hands`` (per hand: dealer, void
reason, caller, bid, called card, trump, partner, solo, caller-team points and win, cappotto,
credits), ``totals`` (the classifica) and ``truncated``.

Decisions beyond the spec (documented here, see ``docs/rules/briscola5.md``, Appendix B):

* ``num_hands`` defaults to 1 (the issue's RL setting; the spec's appendix agrees).
* With ``void_hands_count=False`` an episode is truncated after 100 consecutive void hands
  (spec section 5); the result then says ``truncated: True``.
* ``force_dealer`` makes the dealer the caller at ``min_bid`` without asking him.
* The auction's upper limit is the appendix's ``max_bid`` flag (section 2.2 writes 120, the
  default).
* A seat asked in the forfeit check thereby shows that its hand has 0 card points: the
  spec's phase makes eligibility public, so the no-leak property holds for everything else
  (the no-leak test keeps each seat's 0-point status when it redistributes hidden cards).
* The first player of each hand is asked first in the forfeit check, then the others in
  playing order; one forfeit voids the hand at once.
* Randomness: the first dealer (when random) is drawn before the shuffle; later hands
  shuffle from the same generator.

Version History:

* v0: initial release.
"""

from __future__ import annotations

from typing import Any

from envs.briscola5.game import Briscola5Game
from envs.briscola5.observation import Briscola5Observer
from envs.core.aec import CardGameEnv
from envs.core.wrappers import OrderEnforcingWrapper

__all__ = ["env", "raw_env"]


class raw_env(CardGameEnv):  # noqa: N801 (PettingZoo naming)
    """Briscola in cinque without wrappers (raises on illegal actions itself)."""

    metadata = {"render_modes": ["ansi", "human"], "name": "briscola5_v0", "is_parallelizable": False}
    game_class = Briscola5Game
    observer_class = Briscola5Observer


def env(**kwargs: Any) -> OrderEnforcingWrapper:
    """Briscola in cinque with the PettingZoo order-enforcing wrapper; ``kwargs`` are flags."""
    return OrderEnforcingWrapper(raw_env(**kwargs))
