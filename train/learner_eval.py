"""The evaluations every trainer runs: periodic ones of the learner's saved policy, and the final one of the best.

| piece | what |
|---|---|
| ``head_to_head_row`` | one evaluation through the evaluation tool (``train.evaluate.head_to_head``): the candidate at every seat in turn, the opponent elsewhere, on duplicate deals |
| ``PeriodicEvaluation`` | when an evaluation is due, ``eval.csv``, the scalars to TensorBoard, the best so far (against the first of ``eval_opponents``) |
| ``final_evaluation`` | ``best.mazzo.zip`` against each of ``eval_opponents`` on fresh deals, with the heuristic's and the random player's levels in the same seat (``reference_levels``) |

Deal seeds: ``EVAL_SEED + seed`` for every periodic evaluation (the same deals each time, so the curve compares
like with like), ``FINAL_SEED + seed`` for the final one (deals never seen by the periodic ones). What plays is
a ``TrainedAgent``: the saved safe checkpoint (batched, RLlib), or SB3's live policy (the checkpoint's very actor).
"""

from __future__ import annotations

import time
from collections.abc import Callable
from pathlib import Path
from typing import Any

from train.runs import append_csv

__all__ = ["EVAL_SEED", "FINAL_SEED", "head_to_head_row", "PeriodicEvaluation", "final_evaluation"]

EVAL_SEED, FINAL_SEED = 1_000_003, 2_000_003  # offsets: periodic and final deals never coincide
#: the keys of ``PeriodicEvaluation.state`` (what a resumed run restores)
STATE_KEYS = ("best", "best_step", "last_eval", "next_eval", "eval_time")


def head_to_head_row(game: str, candidate: Any, opponent: str, deals: int, seed: int, flags: dict, workers: int) -> dict:
    """One evaluation through the evaluation tool: the candidate at every seat in turn, ``opponent`` elsewhere."""
    from train.evaluate import head_to_head

    r = head_to_head(game, candidate, opponent, num_deals=deals, seed=seed, flags=flags, workers=workers)
    return {"opponent": opponent, **{k: r[k] for k in ("mean", "low", "high", "ci95", "n_deals")},
            "mean_per_hand": r.get("mean_per_hand")}


class PeriodicEvaluation:
    """The periodic evaluations of a run (``args``: ``eval_every``, ``eval_deals``, ``eval_opponents``, ``game``,
    ``env``, ``seed``); ``state`` is the dict that holds ``STATE_KEYS``, updated in place (a resumed run passes the
    saved one; keys it lacks start afresh).

    The first evaluation is at step 0, and with ``eval_every: 0`` the start and the end are evaluated (``at_start:
    False``: only the end). ``due(step, end)`` says whether to evaluate now: at ``next_eval``, and at the end of training
    unless the last evaluation was at that step. ``__call__(step, player)`` plays a saved checkpoint (a path) or
    a live ``TrainedAgent``,
    appends the rows to ``eval.csv``, logs ``eval/vs_<opponent>/mean`` and ``ci95`` through ``log(tag, value)``,
    prints one line, and returns whether this is the best so far (the caller then saves ``best.mazzo.zip``)."""

    def __init__(self, args: Any, run_dir: Path, state: dict[str, Any] | None = None, at_start: bool = True,
                 log: Callable[[str, float], None] | None = None):
        self.args, self.run_dir, self.log = args, run_dir, log
        self.state: dict[str, Any] = state if state is not None else {}  # updated in place: the caller saves it
        first = 0 if args.eval_every or at_start else float("inf")
        for key, value in (("best", None), ("best_step", None), ("last_eval", None), ("next_eval", first),
                           ("eval_time", 0.0)):
            self.state.setdefault(key, value)

    def resume(self) -> None:
        """The next evaluation: ``eval_every`` after the last one (a resume may change ``eval_every``)."""
        last = self.state["last_eval"]
        self.state["next_eval"] = last + self.args.eval_every if self.args.eval_every else float("inf")

    def due(self, step: int, end: bool = False) -> bool:
        return step >= self.state["next_eval"] or (end and self.state["last_eval"] != step)

    def __call__(self, step: int, player: Path | Any) -> bool:
        from agents.trained import TrainedAgent

        args, s, t0 = self.args, self.state, time.time()
        agent = TrainedAgent(player, args.game, flags=args.env) if isinstance(player, Path) else player
        rows = []
        for opp in args.eval_opponents:
            row = {"step": step, **head_to_head_row(args.game, agent, opp, args.eval_deals, EVAL_SEED + args.seed,
                                                    args.env, 1)}
            rows.append(row)
            append_csv(self.run_dir / "eval.csv", row)
            tag = opp.replace(":", "_").replace("/", "_")
            for key in ("mean", "ci95"):
                if self.log is not None and row[key] is not None:
                    self.log(f"eval/vs_{tag}/{key}", row[key])
        best = s["best"] is None or rows[0]["mean"] > s["best"]
        if best:
            s["best"], s["best_step"] = rows[0]["mean"], step
        s["last_eval"] = step
        s["next_eval"] = step + args.eval_every if args.eval_every else float("inf")
        s["eval_time"] += time.time() - t0
        print(f"step {step}: " + ", ".join(f"vs {r['opponent']} {r['mean']:+.3f}" for r in rows), flush=True)
        return best


def final_evaluation(args: Any, run_dir: Path) -> dict[str, Any]:
    """``best.mazzo.zip`` against each of ``eval_opponents`` on fresh deals, with the reference levels:
    ``{"checkpoint", "best_step", "rows": [head_to_head_row + heuristic_/random_ mean, low, high]}``."""
    from agents.trained import TrainedAgent

    best = TrainedAgent(run_dir / "best.mazzo.zip", args.game, flags=args.env)
    final: dict[str, Any] = {"checkpoint": str(run_dir / "best.mazzo.zip"), "best_step": best.meta["num_timesteps"],
                             "rows": []}
    for opp in args.eval_opponents:
        row = head_to_head_row(args.game, best, opp, args.final_deals, FINAL_SEED + args.seed, args.env, 1)
        if args.reference_levels:
            for ref in ("heuristic", "random"):
                r = head_to_head_row(args.game, ref, opp, args.final_deals, FINAL_SEED + args.seed, args.env,
                                     args.eval_workers)
                row[f"{ref}_mean"], row[f"{ref}_low"], row[f"{ref}_high"] = r["mean"], r["low"], r["high"]
        final["rows"].append(row)
    return final
