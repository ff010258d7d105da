"""Evaluate any line-up of players on any Mazzo game with duplicate deals and 95% intervals.

| module        | job                                                                  |
|---------------|----------------------------------------------------------------------|
| ``core``      | ``prepare``, ``evaluate``, ``head_to_head``: validate and play a line-up (worker processes) |
| ``play``      | seeds, seatings, the episode loop and the worker job                 |
| (``envs/<game>/figures.py``) | per-game counters and figures (``GameSpec.figures_class()``) |
| ``result``    | ``EvalResult``: the table with 95% intervals, JSON/CSV/PNG           |
| ``stats``     | Student-t quantiles, mean, ratio and Wilson intervals                |
| ``rating``    | OpenSkill leaderboard from a round robin of agent specs              |
| ``text``      | the printed table: margin, player and field rows, figures, the legend of its marks |
| ``progress``  | progress on stderr: a bar on a terminal, a line every N deals otherwise |
| ``deps``      | the optional dependencies (matplotlib, openskill, torch, numba, ray) and the extra of each |
| ``cli``       | the command line (``python -m train.evaluate``)                      |

Library::

    from train.evaluate import evaluate, head_to_head
    res = evaluate("briscola5", ["heuristic", "random", "random", "random", "random"], num_deals=500)
    res = evaluate("briscola5", ["heuristic"], field="random", num_deals=500)   # the same line-up
    print(res); res.save("runs/eval/b5")                 # table; eval.json, eval.csv, eval.png
    res.margin["per_hand"]                               # the headline: its margin over the field, 95% interval
    head_to_head("picchetto", "heuristic", "random", num_deals=200)["mean"]

Command line (the same function)::

    python -m train.evaluate --game briscola5 --players heuristic random random random random \\
        --deals 500 --seed 0 --workers 2 --out runs/eval/b5 [--flag num_hands=2] [--plain] \\
        [--save-games runs/eval/b5/games.jsonl]                # one record per episode (envs.records)
    python -m train.evaluate --game briscola5 --players pimc --field heuristic --deals 100   # one against a field
    python -m train.evaluate --game pigugnin --flag num_players=5 --players pimc --field heuristic --deals 100
    python -m train.evaluate --game picchetto --rating heuristic random --deals 200   # leaderboard

| argument / keyword        | meaning                                                             |
|---------------------------|---------------------------------------------------------------------|
| ``game``                  | ``briscola5``, ``pigugnin``, ``picchetto``                          |
| ``players``               | one agent spec (``random``, ``heuristic``, ``ppo:PATH``, ``pretrained:GAME``) or Agent object per seat |
| ``field`` (--field)       | a spec (or Agent, copied) for every seat after ``players``: ``--players pimc --field heuristic`` is one player against a field; the table then opens with its margin over the field per hand (``result``'s docstring defines it) and sums the field into one row |
| ``num_deals`` (--deals)   | deals; each is the statistical unit of the intervals                |
| ``seed``                  | derives every deal and agent seed (``train.evaluation.play``)       |
| ``flags`` (--flag k=v)    | env flags, e.g. ``episode="hand"``; values parsed as Python literals, else YAML |
| ``duplicate`` (--plain)   | replay each deal once per seating (default) or play it once         |
| ``seating``               | ``rotate`` (n cyclic rotations, default) or ``permute`` (all n! seatings) |
| ``workers``               | processes; the result is identical for any number                   |
| ``progress``              | a tqdm bar on a terminal, else a line on stderr every tenth of the deals and at least every 10 s (``--no-progress``: none) |
| ``progress_every`` (--progress-every) | a progress line every N deals (also on a terminal)      |
| (--no-plot)               | no ``eval.png``: a run then needs no matplotlib                     |
| ``save_games`` (--save-games) | a ``.jsonl`` file: one ``mazzo-record/1`` record per episode, in deal and seating order, with the players at each seat and the seating |

Duplicate deals: on every deal each player sits once at every seat (``rotate``), so each
player gets every hand of the deal and luck of the cards cancels out across the line-up. In
Briscola in cinque the roles (caller, partner, defenders) follow from the auction on the
hands, so rotating through the seats is rotating through every role the deal allows; with
``permute`` every player also meets every arrangement of the others. Multi-hand episodes
(a Pigugnìn game, a Picchetto match) replay the same seed, so the first hand is identical
and later hands draw from the same stream but may differ as play diverges.

Bad input (unknown game, agent, flag or seating; a line-up of the wrong size; a checkpoint
that does not exist or does not fit the game; a missing optional dependency, with the extra that
installs it, ``deps``) raises ``ConfigError`` before any game is played. The table is printed and
the JSON and CSV saved before the chart is drawn: a chart that cannot be drawn is a note, not a lost run.
The command line also checks ``--out`` first (a file, or a folder that cannot be created or
written) and exits with status 2 and one ``error:`` line; Ctrl-C ends the worker processes at
once, leaves no output files and exits with status 130 (``interrupted``).
"""

from train.evaluation.core import (
    check_games_file,
    check_out_dir,
    evaluate,
    head_to_head,
    num_seats,
    prepare,
    with_field,
)
from train.evaluation.rating import Leaderboard, round_robin
from train.evaluation.result import EvalResult

__all__ = ["evaluate", "head_to_head", "prepare", "num_seats", "with_field", "check_out_dir", "check_games_file",
           "EvalResult", "Leaderboard", "round_robin"]
