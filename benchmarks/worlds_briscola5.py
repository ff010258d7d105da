"""Speed of Briscola in cinque determinization (`envs/briscola5/worlds.py`): microseconds per sampled
world, per `clone_state`, and per tracker update.

Views are taken at every decision of every seat along random playouts (default flags; about half
of the first deals give one seat a 0-point hand, so that forfeit-check views occur). For each view
the script times `sample_worlds(view, n)` on a fresh view (the first call pays the per-view work:
the weights of the point-card splits and one engine replay of the public history) and then again
on the same view (cached), and reports per phase (CPU time of this process, `time.process_time`,
which the other load of a shared machine disturbs less than wall time). `clone_state` is timed on
the states of the same playouts against `state.copy()` and `copy.deepcopy`; `Tracker.observe` on
the observations.

    python benchmarks/worlds_briscola5.py [--episodes 20] [--n 32] [--seed 0]
"""

from __future__ import annotations

import argparse
import copy
import sys
import time
from pathlib import Path

import numpy as np

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from envs.briscola5 import worlds as W  # noqa: E402
from envs.briscola5.env import raw_env  # noqa: E402
from envs.briscola5.game import PHASE_NAMES, POINTS, TRICK_PLAY  # noqa: E402

ZERO = [c for c in range(40) if POINTS[c] == 0]


def _deal(rnd: np.random.Generator) -> dict:
    zero = [int(c) for c in rnd.permutation(ZERO)[:8]]
    rest = [int(c) for c in rnd.permutation([c for c in range(40) if c not in zero])]
    seat = int(rnd.integers(5))
    return {"dealer": int(rnd.integers(5)), "hands": [zero if p == seat else [rest.pop() for _ in range(8)] for p in range(5)]}


def collect(episodes: int, seed: int):
    """(view, state, observation) at every decision of every seat of `episodes` random games."""
    out = []
    rnd = np.random.default_rng(seed)
    for ep in range(episodes):
        env = raw_env()
        env.reset(seed=seed + ep, options=_deal(rnd) if ep % 2 == 0 else None)
        trackers = [W.Tracker({}, p) for p in range(5)]
        while not env.episode_over:
            seat = env.agent_name_mapping[env.agent_selection]
            obs = env.observe(env.agent_selection)
            trackers[seat].observe(obs)
            out.append((trackers[seat].view(), env.state_.copy(), obs, seat))
            env.step(int(rnd.choice(np.flatnonzero(obs["action_mask"]))))
    return out


def fresh(view: W.Briscola5View) -> W.Briscola5View:
    """The same view without its cache."""
    return W.Briscola5View(**{k: getattr(view, k) for k in view.__dataclass_fields__ if k != "_cache"})


def per_call(fn, items, repeat: int = 1) -> float:
    t0 = time.process_time()
    for _ in range(repeat):
        for x in items:
            fn(x)
    return (time.process_time() - t0) / (repeat * len(items))


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--episodes", type=int, default=20, help="random games to take views from")
    ap.add_argument("--n", type=int, default=32, help="worlds per sample_worlds call")
    ap.add_argument("--seed", type=int, default=0)
    args = ap.parse_args()
    points = collect(args.episodes, args.seed)
    rng = np.random.default_rng(args.seed)
    rows: dict[str, list] = {}
    for view, _, _, _ in points:
        v = fresh(view)
        t0 = time.process_time()
        W.sample_worlds(v, args.n, rng)
        t1 = time.process_time()
        W.sample_worlds(v, args.n, rng)
        t2 = time.process_time()
        name = PHASE_NAMES[view.phase].lower()
        if view.phase == TRICK_PLAY:
            name += " (tricks 1-4)" if len(view.plays) < 20 else " (tricks 5-8)"
        rows.setdefault(name, []).append((t1 - t0, t2 - t1))
    print(f"{len(points)} views from {args.episodes} random games (default flags), n = {args.n} worlds per call")
    print("| phase | views | first call per view (ms, mean / max) | per world, first call (us) | per world, cached (us) |")
    print("|---|---|---|---|---|")
    allf, allc = [], []
    for name, vals in rows.items():
        first = np.array([a for a, _ in vals])
        cached = np.array([b for _, b in vals])
        allf += list(first)
        allc += list(cached)
        print(f"| {name} | {len(vals)} | {first.mean() * 1e3:.2f} / {first.max() * 1e3:.2f} | "
              f"{first.mean() / args.n * 1e6:.0f} | {cached.mean() / args.n * 1e6:.0f} |")
    print(f"| all | {len(allf)} | {np.mean(allf) * 1e3:.2f} / {np.max(allf) * 1e3:.2f} | "
          f"{np.mean(allf) / args.n * 1e6:.0f} | {np.mean(allc) / args.n * 1e6:.0f} |")
    states = [s for _, s, _, _ in points]
    print()
    print(f"clone_state: {per_call(W.clone_state, states, 5) * 1e6:.1f} us; state.copy(): "
          f"{per_call(lambda s: s.copy(), states, 5) * 1e6:.1f} us; copy.deepcopy: "
          f"{per_call(copy.deepcopy, states[:300]) * 1e6:.1f} us (per state, {len(states)} states)")

    def observe(point):
        _, _, obs, seat = point
        t = W.Tracker({}, seat)
        t.observe(obs)
        t.view()

    print(f"Tracker.observe + view (a fresh tracker, one observation): {per_call(observe, points) * 1e6:.0f} us")


if __name__ == "__main__":
    main()
