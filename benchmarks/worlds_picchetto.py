"""Speed of Picchetto determinization (`envs/picchetto/worlds.py`): microseconds per sampled world
and per `clone_state`.

Views are taken at every decision of both seats along random playouts (default flags, one game
per episode). For each view the script times `sample_worlds(view, n)` on a fresh view (the first
call pays the per-view enumeration of the opponent's hands after the declarations) and then
again on the same view (cached), and reports per phase (CPU time of this process,
`time.process_time`, which the other load of a shared machine disturbs less than wall time): the first call's time per view, and the
time per world of the first call and of the cached calls. `clone_state` is timed on the states
of the same playouts against `copy.deepcopy`.

    python benchmarks/worlds_picchetto.py [--episodes 20] [--n 32] [--seed 0]
"""

from __future__ import annotations

import argparse
import copy
import gc
import random
import time

import numpy as np

from envs import picchetto_v0
from envs.picchetto import worlds as W
from envs.picchetto.game import PHASE_NAMES, TRICK_FOLLOW, TRICK_LEAD


def collect(episodes: int, seed: int, flags: dict):
    """(view factory, state) at every decision of both seats of `episodes` random games."""
    out = []
    rnd = random.Random(seed)
    for ep in range(episodes):
        env = picchetto_v0.env(**flags)
        env.reset(seed=seed + ep)
        trackers = [W.Tracker(flags, p) for p in (0, 1)]
        for agent in env.agent_iter():
            obs, _, term, trunc, _ = env.last()
            if term or trunc:
                env.step(None)
                continue
            seat = env.unwrapped.agent_name_mapping[agent]
            trackers[seat].observe(obs)
            out.append((trackers[seat].view(), env.unwrapped.state_.copy()))
            env.step(int(rnd.choice(np.flatnonzero(obs["action_mask"]).tolist())))
    return out


def fresh(view: W.PicchettoView) -> W.PicchettoView:
    """The same view without its cache."""
    return W.PicchettoView(**{k: getattr(view, k) for k in view.__dataclass_fields__ if k != "_cache"})


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--episodes", type=int, default=20, help="random games to take views from")
    ap.add_argument("--n", type=int, default=32, help="worlds per sample_worlds call")
    ap.add_argument("--seed", type=int, default=0)
    args = ap.parse_args()
    flags = dict(episode="game")
    points = collect(args.episodes, args.seed, flags)
    rng = np.random.default_rng(args.seed)
    rows: dict[str, list] = {}
    gc.collect()
    gc.disable()  # as timeit does: a collection of the many kept views would land on one call
    worst = (0.0, None)
    for view, _ in points:
        v = fresh(view)
        t0 = time.process_time()
        W.sample_worlds(v, args.n, rng)
        t1 = time.process_time()
        W.sample_worlds(v, args.n, rng)
        t2 = time.process_time()
        name = "trick (1st trick)" if view.phase in (TRICK_LEAD, TRICK_FOLLOW) and view.trick_no == 0 else (
            "trick (later)" if view.phase in (TRICK_LEAD, TRICK_FOLLOW) else PHASE_NAMES[view.phase].lower())
        rows.setdefault(name, []).append((t1 - t0, t2 - t1))
        if t1 - t0 > worst[0]:
            worst = (t1 - t0, name)
    print(f"{len(points)} views from {args.episodes} random games (default flags), n = {args.n} worlds per call")
    print("| phase | views | first call on a view, whole call (ms, mean / 99th pct / max) | per world, first call (us) | per world, cached (us) |")
    print("|---|---|---|---|---|")
    for name in ("elder_exchange", "dealer_exchange", "trick (1st trick)", "trick (later)"):
        r = np.array(rows.get(name, [(0.0, 0.0)]))
        print(f"| {name} | {len(rows.get(name, []))} | {1e3 * r[:, 0].mean():.2f} / {1e3 * np.percentile(r[:, 0], 99):.2f} / "
              f"{1e3 * r[:, 0].max():.2f} | "
              f"{1e6 * r[:, 0].mean() / args.n:.1f} | {1e6 * r[:, 1].mean() / args.n:.1f} |")
    allr = np.array([x for r in rows.values() for x in r])
    print(f"| all | {len(allr)} | {1e3 * allr[:, 0].mean():.2f} / "
          f"{1e3 * np.percentile(allr[:, 0], 99):.2f} / {1e3 * allr[:, 0].max():.2f} | "
          f"{1e6 * allr[:, 0].mean() / args.n:.1f} | {1e6 * allr[:, 1].mean() / args.n:.1f} |")
    worlds = [w for view, _ in points[:: max(1, len(points) // 500)] for w in W.sample_worlds(view, 4, rng)]
    t0 = time.process_time()
    for w in worlds:
        W.clone_state(w)
    t1 = time.process_time()
    for w in worlds[:300]:
        copy.deepcopy(w)
    t2 = time.process_time()
    states = [s for _, s in points]
    t3 = time.process_time()
    for s in states:
        W.clone_state(s)
    t4 = time.process_time()
    gc.enable()
    print(f"clone_state of a sampled world: {1e6 * (t1 - t0) / len(worlds):.1f} us; copy.deepcopy: "
          f"{1e6 * (t2 - t1) / min(300, len(worlds)):.1f} us; clone_state of an env's state (its Generator "
          f"copied): {1e6 * (t4 - t3) / len(states):.1f} us")


if __name__ == "__main__":
    main()
