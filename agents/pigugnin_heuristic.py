"""A club-player heuristic for Pigugnìn (Busca Reggiana), acting from the decoded observation.

It reads ``envs.pigugnin.observation.decode(obs)`` only: its hand, the cards played by every
seat, the trick in progress and the tricks taken per seat. The aim of the game is to take at
least one trick but as few card points as possible, and never the Jack of Spade (``JS``, the
Pigugnìn). What the scoring rules (§4.3) make of it: a player without a trick pays 2 busche (3
each if two are trickless; with 5 players, 8 tricks for 5 players, that is the largest cost of
all), and nobody counts points in a hand with a trickless player; with every player on a trick,
points pay only from 12 up, so a trick costs little until a pile grows; ``JS`` is 1 busca in
every hand.

It counts the cards: ``unseen`` is every card neither in its hand nor played. A card is a
*master* when no unseen card of its suit outranks it (it wins any trick it leads or follows in),
and ``above(c)`` / ``below(c)`` count the unseen cards of c's suit that outrank it / that it
outranks.

| # | situation | play |
|---|-----------|------|
| 1 | still trickless, can win the trick following suit, ``JS`` not on the table | win it: the cheapest sure winner (last to play every winner is sure; else a master), by fewest points then strongest; with no sure winner, the strongest card that wins for now (an Ace last) |
| 2 | leading the first trick (the only trickless lead) with a master (not ``JS``) | the cheapest master: the one trick it needs, taken while everyone still follows suit |
| 3 | leading | an *exit*: the card least likely to win. Never a master if it has another card; never ``JS``; not a Spade while it holds ``JS`` (its guards); the fewest unseen cards below it; a Spade when ``JS`` is out (its holder is squeezed, we stay under); the most unseen cards above it; the highest of equal cards (the lowest stays an exit for later) |
| 4 | void in the led suit, still trickless | ``JS``, else a card that is not a master (the masters can still take the trick it needs): with 4 players the one with the most points, then the strongest; with 5 players the weakest (it keeps every card that may win) |
| 5 | void in the led suit, with a trick | throw the most dangerous card: ``JS``, then the card with the fewest unseen cards above it (masters first; a Spade above ``JS`` counts one more while ``JS`` is out), then points (Aces), then strength |
| 6 | following suit, a card loses to the best on the table | duck: ``JS`` if it ducks, else the highest card that still loses (sheds a high card, keeps the low ones as exits); with 5 players while trickless, the lowest one instead (keeps the cards that can still take the trick it needs) |
| 7 | following suit, every card wins, last to play | the strongest card (the trick is ours anyway; ``JS`` only if it is the only card) |
| 8 | following suit, every card wins, others still to play | the weakest card (``JS`` last), hoping someone overtakes |

Capture order: 3 > 2 > A > K > H > J > 7 > 6 > 5 > 4; points: A 3, 2/3/J/H/K 1. Ties between
equal keys go to the lowest card id. No randomness: the same observation gives the same card.
The numba port ``agents/batched/pigugnin.py`` takes exactly the same decisions.

Strength (one-hand episodes, 2,000 duplicate deals, seed 1; busche per hand, the first player of
the line-up minus the mean of the others, 95% interval): one heuristic among heuristic-v1
players pays 0.336 [0.304, 0.367] fewer with 4 players and 0.277 [0.258, 0.296] fewer with 5;
among plain ducking players, 0.449 [0.417, 0.482] and 0.678 [0.656, 0.701] fewer.
"""

from __future__ import annotations

import numpy as np

from agents.base import BaseAgent, legal_actions
from envs.pigugnin.game import DECK, PIGUGNIN, POINTS, RANK_POINTS, STRENGTH
from envs.pigugnin.observation import decode

__all__ = ["PigugninHeuristic", "STRONGER", "WEAKER", "TOP_POINTS", "SUIT", "SPADE"]

SUIT = DECK.suit_of
SPADE = SUIT[PIGUGNIN]
PIG_BIT = 1 << PIGUGNIN
#: the most card points a single card is worth (the Aces)
TOP_POINTS = max(RANK_POINTS)
#: `STRONGER[c]` / `WEAKER[c]`: bitmask of the cards of c's suit that capture c / that c captures
STRONGER = tuple(
    sum(1 << u for u in range(DECK.size) if SUIT[u] == SUIT[c] and STRENGTH[u] > STRENGTH[c])
    for c in range(DECK.size)
)
WEAKER = tuple(
    sum(1 << u for u in range(DECK.size) if SUIT[u] == SUIT[c] and STRENGTH[u] < STRENGTH[c])
    for c in range(DECK.size)
)
#: with this many players (or more), a trickless player keeps its strong cards (rules 4 and 6)
KEEP_WINNERS_PLAYERS = 5


def cheap_sure(c: int) -> tuple[int, int]:
    """Rules 1 and 2 (min): the fewest points, then the strongest."""
    return (POINTS[c], -STRENGTH[c])


def strong_winner(c: int) -> tuple[bool, int]:
    """Rule 1 without a sure winner (max): not an Ace, then the strongest."""
    return (POINTS[c] < TOP_POINTS, STRENGTH[c])


class PigugninHeuristic(BaseAgent):
    """Rule-based Pigugnìn player (see the module docstring)."""

    name = "heuristic"

    def act(self, observation: dict[str, np.ndarray]) -> int:
        legal = legal_actions(observation).tolist()
        view = decode(observation)
        n = view["num_players"]
        hand = view["hand"]
        seen = 0
        for c in hand:
            seen |= 1 << c
        in_hand = seen
        for cards in view["played"]:
            for c in cards:
                seen |= 1 << c
        unseen = DECK.full_mask ^ seen
        trickless = view["tricks_won"][0] == 0
        trick = view["trick"]
        if not trick:
            return self._lead(legal, trickless, unseen, in_hand)
        led = SUIT[trick[0][1]]
        best = max(STRENGTH[c] for _, c in trick if SUIT[c] == led)
        if SUIT[legal[0]] != led:  # rules 4 and 5: void (the mask holds the whole hand)
            if trickless:  # keep the masters: they can still take the trick we need
                if n >= KEEP_WINNERS_PLAYERS:
                    return max(legal, key=lambda c: (c == PIGUGNIN, bool(unseen & STRONGER[c]), -STRENGTH[c]))
                return max(legal, key=lambda c: (c == PIGUGNIN, bool(unseen & STRONGER[c]), POINTS[c], STRENGTH[c]))
            pig_out = bool(unseen & PIG_BIT)

            def danger(c: int) -> tuple:
                above = (unseen & STRONGER[c]).bit_count()
                spade_risk = pig_out and SUIT[c] == SPADE and STRENGTH[c] > STRENGTH[PIGUGNIN]
                return (c == PIGUGNIN, spade_risk - above, POINTS[c], STRENGTH[c])

            return max(legal, key=danger)
        last = len(trick) == n - 1
        winners = [c for c in legal if STRENGTH[c] > best]
        if trickless and winners and all(c != PIGUGNIN for _, c in trick):  # rule 1
            sure = [c for c in winners if last or not unseen & STRONGER[c]]
            if sure:
                return min(sure, key=cheap_sure)
            return max(winners, key=strong_winner)
        duckers = [c for c in legal if STRENGTH[c] < best]
        if duckers:  # rule 6
            if trickless and n >= KEEP_WINNERS_PLAYERS:
                return max(duckers, key=lambda c: (c == PIGUGNIN, -STRENGTH[c]))
            return max(duckers, key=lambda c: (c == PIGUGNIN, STRENGTH[c]))
        if last:  # rule 7
            return max(legal, key=lambda c: (c != PIGUGNIN, STRENGTH[c]))
        return min(legal, key=lambda c: (c == PIGUGNIN, STRENGTH[c]))  # rule 8

    def _lead(self, legal: list[int], trickless: bool, unseen: int, in_hand: int) -> int:
        """Rules 2 and 3. ``unseen``: the cards neither in our hand nor played; ``in_hand``: ours."""
        if trickless:
            masters = [c for c in legal if c != PIGUGNIN and not unseen & STRONGER[c]]
            if masters:
                return min(masters, key=cheap_sure)
        hold_pig = bool(in_hand & PIG_BIT)
        pig_out = bool(unseen & PIG_BIT)

        def exit_key(c: int) -> tuple:
            above = (unseen & STRONGER[c]).bit_count()
            spade = SUIT[c] == SPADE
            return (above == 0, c == PIGUGNIN, hold_pig and spade, (unseen & WEAKER[c]).bit_count(),
                    not (pig_out and spade), -above, -STRENGTH[c])

        return min(legal, key=exit_key)
