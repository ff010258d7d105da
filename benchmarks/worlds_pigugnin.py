"""Pigugnìn determinization speed: tracker updates, sampled worlds, clone_state.

    python benchmarks/worlds_pigugnin.py                  # 4 and 5 players, 20 episodes each
    python benchmarks/worlds_pigugnin.py --episodes 5 --worlds 64

Views come from random-play episodes (`first_hand_leader="holder_7D"` and D11 on, so the 7D pin
and the D11 void occur): every decision of every seat in the first hand of each episode, fed to
that seat's tracker. For each view the script times, in microseconds:

* `observe`: one `tracker.observe(obs)` (decoding the observation, rebuilding the closed trick);
* `first world`: `sample_worlds(view, 1, rng)` on a fresh view (it builds the view's counting table);
* `per world`: `sample_worlds(view, W, rng)` / W on the same view afterwards (the table is cached);
* `clone_state` of a world, and `copy.deepcopy` of it for comparison.

It also prints what naive rejection sampling (deal the unseen cards at random, reject deals that
break a void or the 7D pin) would accept: `count_worlds(view)` over the number of deals with the
right hand sizes, exactly, per view (the constructive sampler never rejects).

Figures are means over all decisions, split by trick (early / middle / late in the hand: the
voids and the table's size change along the hand), with the worst first-world time. CPU time
(`time.process_time`) is printed beside wall time: the machine is shared (the load average is
printed).
"""

from __future__ import annotations

import argparse
import copy
import os
import sys
import time
from math import comb
from pathlib import Path

import numpy as np

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from envs import pigugnin_v0  # noqa: E402
from envs.pigugnin.worlds import PigugninTracker, clone_state, count_worlds, sample_worlds  # noqa: E402


def _timed(fn, repeats: int = 1) -> tuple[float, float]:
    """(wall, cpu) microseconds per call of `fn()`, over `repeats` calls."""
    w0, c0 = time.perf_counter(), time.process_time()
    for _ in range(repeats):
        fn()
    return (time.perf_counter() - w0) / repeats * 1e6, (time.process_time() - c0) / repeats * 1e6


def _unconstrained(view) -> int:
    """Deals of the unseen cards to the other seats with the right hand sizes, ignoring voids and pins."""
    left = view.unknown.bit_count()
    ways = 1
    for p in range(view.num_players):
        if p != view.seat:
            k = view.hand_size - view.played[p].bit_count()
            ways *= comb(left, k)
            left -= k
    return ways


def run(num_players: int, episodes: int, worlds: int) -> dict:
    flags = {"num_players": num_players, "first_hand_leader": "holder_7D", "pigugnin_first_trick_restriction": True}
    size = 40 // num_players
    rows: dict[str, list] = {
        k: [] for k in ("observe", "first", "per_world", "clone", "deepcopy", "trick", "count", "accept")
    }
    rng = np.random.default_rng(0)
    for ep in range(episodes):
        env = pigugnin_v0.raw_env(**flags)
        env.reset(seed=ep)
        trackers = [PigugninTracker(env.game.flags, p) for p in range(num_players)]
        rnd = np.random.default_rng(ep)
        while not env.episode_over and env.state_.hand_no == 1:
            agent = env.agent_selection
            seat = env.agent_name_mapping[agent]
            obs = env.observe(agent)
            t = trackers[seat]
            rows["observe"].append(_timed(lambda t=t, obs=obs: t.observe(obs)))
            rows["trick"].append(env.state_.tricks_done)
            fresh = t.view()
            rows["first"].append(_timed(lambda v=fresh: sample_worlds(v, 1, rng)))
            count = count_worlds(fresh)
            rows["count"].append(count)
            rows["accept"].append(count / _unconstrained(fresh))
            wall, cpu = _timed(lambda v=fresh: sample_worlds(v, worlds, rng))
            rows["per_world"].append((wall / worlds, cpu / worlds))
            world = sample_worlds(fresh, 1, rng)[0]
            rows["clone"].append(_timed(lambda w=world: clone_state(w), repeats=20))
            rows["deepcopy"].append(_timed(lambda w=world: copy.deepcopy(w), repeats=3))
            env.step(int(rnd.choice(np.flatnonzero(obs["action_mask"]))))
    tricks = np.array(rows["trick"])
    out = {"decisions": len(tricks)}
    thirds = {"early": tricks < size // 3, "middle": (tricks >= size // 3) & (tricks < 2 * size // 3),
              "late": tricks >= 2 * size // 3, "all": np.ones_like(tricks, dtype=bool)}
    for name, sel in thirds.items():
        out[name] = {k: np.asarray(rows[k])[sel].mean(axis=0) for k in ("observe", "first", "per_world", "clone", "deepcopy")}
    accept = np.asarray(rows["accept"])
    out["accept"] = {name: (accept[sel].mean(), accept[sel].min()) for name, sel in thirds.items()}
    out["worst_first"] = np.asarray(rows["first"]).max(axis=0)
    out["max_count"] = max(rows["count"])
    return out


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--episodes", type=int, default=20, help="random episodes per player count (first hand of each)")
    ap.add_argument("--worlds", type=int, default=32, help="worlds sampled per view for the per-world figure")
    args = ap.parse_args()
    print(f"load average {os.getloadavg()}; {args.episodes} episodes per player count, {args.worlds} worlds per view")
    print("microseconds, wall / cpu (means over decisions)")
    header = f"{'players':>7} {'part':>6} {'observe':>13} {'first world':>15} {'per world':>13} {'clone_state':>13} {'deepcopy':>13}"
    print(header)
    for n in (4, 5):
        res = run(n, args.episodes, args.worlds)
        for part in ("early", "middle", "late", "all"):
            r = res[part]
            cells = " ".join(f"{r[k][0]:6.0f} /{r[k][1]:5.0f}" for k in ("observe", "first", "per_world", "clone", "deepcopy"))
            print(f"{n:>7} {part:>6} {cells}")
        acc = ", ".join(f"{part} {m:.1%} (worst {lo:.2%})" for part, (m, lo) in res["accept"].items())
        print(f"{n:>7} naive rejection would accept: {acc}")
        w = res["worst_first"]
        print(f"{n:>7} {res['decisions']} decisions; worst first world {w[0]:.0f} us wall / {w[1]:.0f} cpu; "
              f"most consistent deals of a view {res['max_count']:.3g}")


if __name__ == "__main__":
    main()
