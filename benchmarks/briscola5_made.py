"""The share of its contracts a Briscola bidder makes at a table of another player, its auctions screened.

    python benchmarks/briscola5_made.py --player sound:tau=0.5,model=pimc --field pimc --hands 10000 --seed 11

Against PIMC a careful bidder wins the auction in well under 1% of hands, so a duplicate evaluation
(``train.evaluate``) needs thousands of deals for a few dozen contracts. This benchmark plays only what decides the
share made: in each of ``--hands`` one-hand games (deal seeds drawn from ``--seed``; the ``--player`` in seat
``hand % 5``, the ``--field`` in the other four) the auction is played, and only a hand that the player wins is
played on (the player calling and playing its cards, the field the other four seats). No bid depends on how a hand
is played, so skipping the play of the others' contracts changes nothing but the random draws a search player would
have spent on it: the contracts are the player's contracts at that table, and the share made is the statistic of
``train.evaluate``'s ``contract_made`` (with players that draw nothing, the very same hands: tested), not the credits
margin (the hands the others win are not played).

Reported (JSON, and one Markdown line printed): the hands, the contracts won (the caller rate), their mean, the share
made with its 95% Wilson interval, and the caller's mean credits per contract. ``--workers`` processes share the
hands in blocks; the players are seeded per block, so the figures depend on ``--seed`` and ``--workers``.
"""

from __future__ import annotations

import argparse
import json
import sys
import time
from pathlib import Path

import numpy as np

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))
sys.path.insert(0, str(ROOT / "benchmarks"))

from blocks import block_ranges, block_seed, run_blocks  # noqa: E402
from learning import _meta  # noqa: E402

from envs.briscola5.game import AUCTION, FORFEIT_CHECK, NUM_PLAYERS  # noqa: E402
from train.evaluation.stats import wilson_ci  # noqa: E402

GAME = "briscola5"


def screened_block(player_spec: str, field: str, seed: int, deal_seeds: np.ndarray, block: range) -> list[list[float]]:
    """Rows ``[hand, contract, made, credits]`` of the hands of ``block`` whose auction the player won."""
    from agents.registry import make_agent
    from envs.registry import make_raw_env

    env = make_raw_env(GAME)
    player = make_agent(player_spec, GAME, seed=seed)
    others = [make_agent(field, GAME, seed=seed + 7919 * (s + 1)) for s in range(NUM_PLAYERS)]
    rows, started = [], time.time()
    for hand in block:
        for p in others + [player]:
            p.reset()
        env.reset(seed=int(deal_seeds[hand]))
        seat, credits = hand % NUM_PLAYERS, 0.0
        while not env.episode_over:
            if env.state_.phase not in (FORFEIT_CHECK, AUCTION) and env.state_.caller != seat:
                break  # another seat won the auction (or nobody bid): this hand tells nothing about the player's
            name = env.agent_selection
            acting = env.agent_name_mapping[name]
            env.step((player if acting == seat else others[acting]).act(env.observe(name)))
            credits += env.rewards[env.possible_agents[seat]]
        if env.state_.caller == seat and env.episode_over:
            rows.append([hand, int(env.state_.contract), float(credits > 0), credits])
        if (hand + 1 - block.start) % 500 == 0:
            print(f"{hand + 1 - block.start} of {len(block)} hands, {len(rows)} contracts, "
                  f"{time.time() - started:.0f} s", flush=True)
    return rows


def made_share(player_spec: str, field: str, hands: int, seed: int, workers: int) -> dict:
    """The benchmark's figures (module docstring)."""
    deal_seeds = np.random.SeedSequence(seed).generate_state(hands)
    parts = run_blocks(screened_block, [(player_spec, field, block_seed(seed, b), deal_seeds, block)
                                        for b, block in enumerate(block_ranges(hands, workers))])
    rows = np.asarray([r for p in parts for r in p], dtype=np.float64).reshape(-1, 4)
    result = {"hands": hands, "contracts": len(rows), "caller_rate": len(rows) / hands, "rows": rows.tolist()}
    if not len(rows):  # no contract: the shares are undefined
        return {**result, **dict.fromkeys(("mean_contract", "made", "made_low", "made_high", "credits_per_contract"))}
    made = wilson_ci(rows[:, 2].sum(), len(rows))
    return {**result, "mean_contract": float(rows[:, 1].mean()), "made": made.mean, "made_low": made.low,
            "made_high": made.high, "credits_per_contract": float(rows[:, 3].mean())}


def line(player: str, field: str, r: dict) -> str:
    """One Markdown table row of the result ``r``."""
    if not r["contracts"]:
        return f"| `{player}` | {field} | {r['hands']:,} | 0 | - | - | - |"
    return (f"| `{player}` | {field} | {r['hands']:,} | {r['contracts']} ({r['caller_rate']:.2%}) | "
            f"{r['mean_contract']:.1f} | {r['made']:.1%} [{r['made_low']:.1%}, {r['made_high']:.1%}] | "
            f"{r['credits_per_contract']:+.2f} |")


def main(argv: list[str] | None = None) -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--player", required=True, help="the bidder's agent spec (e.g. sound:tau=0.5)")
    parser.add_argument("--field", default="pimc", help="the agent spec of the four other seats")
    parser.add_argument("--hands", type=int, default=6000)
    parser.add_argument("--seed", type=int, default=0)
    parser.add_argument("--workers", type=int, default=1)
    parser.add_argument("--out", type=Path, default=None, help="a JSON file for the figures and the rows")
    args = parser.parse_args(argv)
    if args.hands < 1 or args.workers < 1:
        parser.error(f"--hands and --workers must be at least 1; got {args.hands}, {args.workers}")
    started = time.time()
    result = {**_meta(sys.argv[1:] if argv is None else argv, "briscola5_made.py"), "player": args.player,
              "field": args.field, "seed": args.seed, "workers": args.workers,
              **made_share(args.player, args.field, args.hands, args.seed, args.workers)}
    result["seconds"] = time.time() - started
    print("| player | field | hands | contracts (caller rate) | mean contract | made [95%] | credits per contract |")
    print("|---|---|---|---|---|---|---|")
    print(line(args.player, args.field, result))
    if args.out is not None:
        args.out.parent.mkdir(parents=True, exist_ok=True)
        args.out.write_text(json.dumps(result, indent=1) + "\n", encoding="utf-8")


if __name__ == "__main__":
    main()
