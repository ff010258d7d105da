"""Heuristics that decide for many games at once (numba ports of ``agents/<game>_heuristic.py``).

Each ``agents/batched/<game>.py`` takes a float32 matrix of observations (one row per game, the
seat to act's AEC observation vector) and the int8 matrix of their masks, and returns one int64
action per row, the very action the Python heuristic's ``act`` chooses on that observation. It
reads only the rows, as the Python heuristic reads only ``decode(obs)``. The class is named like
the Python heuristic and built as ``Class(game, seed=seed, flags=flags)``: the batched trainer's
``OpponentPolicy`` (``agents/rows.py``) picks it up by that name.

| game | module | class |
|---|---|---|
| ``briscola5`` | ``agents.batched.briscola5`` | ``Briscola5BatchedHeuristic`` (alias ``Briscola5Heuristic``) |
| ``picchetto`` | ``agents.batched.picchetto`` | ``PicchettoBatchedHeuristic`` (alias ``PicchettoHeuristic``) |
| ``pigugnin`` | ``agents.batched.pigugnin`` | ``PigugninBatchedHeuristic`` (alias ``PigugninHeuristic``; 4 and 5 players) |

These modules import numba, so nothing imports this package implicitly: ``import agents`` works
without numba, and a port is imported only by the code that uses it.
``tests/agents/test_batched_heuristics.py`` checks every port against its Python heuristic.
"""
