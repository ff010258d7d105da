"""Train Briscola's contract model (``agents/briscola5_bidding.py``) on forced contracts, and report its calibration.

    python benchmarks/briscola5_contracts.py                                  # the shipped model's command
    python benchmarks/briscola5_contracts.py --hands 40960 --out runs/contracts/small.mazzo.zip

Every hand of ``--hands`` one-hand games of the batched engine (chunks of ``--chunk``, seeds ``--seed``,
``--seed + 1``, ...) has its auction forced: one seat, drawn at random, bids a contract drawn uniformly from
``[--low, --high]`` at its first turn, and every other seat passes. The call, the forfeit check and all the play are
the ``--player``'s at every seat (a trained player, greedy). A sample is the caller's contract-model input at its
first auction turn (its hand, the dealer's seat relative to it, the contract) and whether the contract was made
(the caller's credits above 0). The first ``--held-out`` samples are held out; the rest train the network
(binary cross-entropy, Adam, ``--epochs`` passes in batches of 1,024, torch seeded with ``--seed``). The report
gives the held-out cross-entropy (and that of the best constant guess), the share made per contract decile, and
the calibration: per threshold, the share of held-out hands whose estimate reaches it and the share of those made.

The hands' made contracts are those of the ``--player`` at every seat: against a stronger defence (PIMC's) the same
hands make fewer, and the hands a seat wins an auction with are not drawn at random. Both make the estimates
optimistic at a real table; the evaluation of ``sound`` (docs/results/learning.md) measures the share made there.
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

from learning import _meta, shown  # noqa: E402

from agents.briscola5_bidding import CONTRACT_INPUTS, DEFAULT_MODEL, ROLE, contract_features  # noqa: E402
from agents.checkpoint import build_actor, save_actor  # noqa: E402
from agents.rows import decide, make_opponent  # noqa: E402
from envs.briscola5.game import AUCTION, BID, BID_MIN, NUM_PLAYERS, PASS  # noqa: E402
from envs.registry import make_vector_env  # noqa: E402

GAME = "briscola5"
THRESHOLDS = (0.3, 0.4, 0.5, 0.6, 0.7, 0.8, 0.9)


def forced_hands(player_spec: str, hands: int, seed: int, low: int, high: int) -> tuple[np.ndarray, np.ndarray]:
    """(contract-model inputs, made) of ``hands`` forced-contract hands (module docstring); hands that never reach
    a contract (a forfeit) are dropped."""
    rng = np.random.default_rng(seed)
    player = make_opponent(player_spec, GAME, {}, seed)
    env = make_vector_env(GAME, hands, autoreset=False)
    env.reset(seed=seed)
    caller = rng.integers(0, NUM_PLAYERS, hands)
    contract = rng.integers(low, high + 1, hands)
    inputs = np.zeros((hands, CONTRACT_INPUTS), dtype=np.float32)
    seen = np.zeros(hands, dtype=bool)
    totals = np.zeros((hands, NUM_PLAYERS))
    actions = np.zeros(hands, dtype=np.int64)
    while not env.finished.all():
        live = ~env.finished
        auction = live & (env.state["phase"] == AUCTION)
        rows = np.flatnonzero(auction)
        if rows.size:
            mine = env.current_player[rows] == caller[rows]
            actions[rows] = np.where(mine, BID + contract[rows] - BID_MIN, PASS)
            first = rows[mine & ~seen[rows]]
            inputs[first] = contract_features(env.obs[first], contract[first])
            seen[first] = True
        rows = np.flatnonzero(live & ~auction)
        if rows.size:
            actions[rows] = decide(player, env, rows)
        _, _, rewards, _, _, _ = env.step(actions, active=live)
        totals[live] += rewards[live]
    kept = env.state["caller"] == caller
    made = totals[np.arange(hands), caller] > 0
    return inputs[kept], made[kept]


def train(x: np.ndarray, y: np.ndarray, hidden: list[int], epochs: int, lr: float, seed: int) -> object:
    """The contract network fitted to (``x``, ``y``)."""
    import torch

    torch.manual_seed(seed)
    net = build_actor(CONTRACT_INPUTS, 1, hidden, "ReLU")
    opt = torch.optim.Adam(net.parameters(), lr=lr)
    loss_fn = torch.nn.BCEWithLogitsLoss()
    xt, yt = torch.from_numpy(x), torch.from_numpy(y.astype(np.float32))
    for _ in range(epochs):
        order = torch.randperm(len(xt))
        for i in range(0, len(xt), 1024):
            batch = order[i:i + 1024]
            loss = loss_fn(net(xt[batch])[:, 0], yt[batch])
            opt.zero_grad()
            loss.backward()
            opt.step()
    return net.requires_grad_(False)


def report(net: object, x: np.ndarray, y: np.ndarray) -> dict:
    """Held-out figures of ``net`` on (``x``, ``y``): cross-entropy, the constant's, made per decile, calibration."""
    import torch

    with torch.no_grad():
        logits = net(torch.from_numpy(x))[:, 0]
        bce = float(torch.nn.functional.binary_cross_entropy_with_logits(logits, torch.from_numpy(y.astype(np.float32))))
        p = torch.sigmoid(logits).numpy()
    base = float(y.mean())
    contract = np.rint(x[:, -1] * 60 + 60).astype(int)
    deciles = [{"contracts": f"{lo}-{lo + 9}", "hands": int(s.sum()), "made": float(y[s].mean())}
               for lo in range(61, 111, 10) if (s := (contract >= lo) & (contract <= lo + 9)).any()]
    calibration = [{"tau": t, "share": float((p >= t).mean()), "made": float(y[p >= t].mean()) if (p >= t).any() else None}
                   for t in THRESHOLDS]
    return {"held_out": int(len(y)), "bce": bce, "constant_bce": float(-(base * np.log(base) + (1 - base) * np.log(1 - base))),
            "made": base, "by_contract": deciles, "calibration": calibration}


def _share(value: float | None) -> str:
    return "-" if value is None else f"{value:.1%}"


def markdown(result: dict) -> str:
    r = result["report"]
    lines = [f"Contract model: `{result['command']}` ({result['when']}; {result['machine']}; {result['versions']}; "
             f"commit {result['commit']}).", "",
             f"{result['samples']:,} forced hands ({result['seconds']:.0f} s to play), {r['held_out']:,} held out: "
             f"cross-entropy {r['bce']:.4f} (a constant guess: {r['constant_bce']:.4f}); {r['made']:.1%} made.", "",
             "| contracts | held-out hands | made |", "|---|---|---|"]
    lines += [f"| {d['contracts']} | {d['hands']:,} | {d['made']:.1%} |" for d in r["by_contract"]]
    lines += ["", "| tau | hands whose estimate reaches it | of those, made |", "|---|---|---|"]
    lines += [f"| {c['tau']} | {c['share']:.1%} | {_share(c['made'])} |" for c in r["calibration"]]
    return "\n".join(lines) + "\n"


def main(argv: list[str] | None = None) -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--player", default="pretrained:briscola5_expert", help="the player of the call and the play")
    parser.add_argument("--hands", type=int, default=409_600)
    parser.add_argument("--chunk", type=int, default=8192, help="hands per batched run")
    parser.add_argument("--low", type=int, default=61)
    parser.add_argument("--high", type=int, default=110)
    parser.add_argument("--held-out", type=int, default=20_000)
    parser.add_argument("--hidden", type=int, nargs="+", default=[256, 256])
    parser.add_argument("--epochs", type=int, default=8)
    parser.add_argument("--lr", type=float, default=1e-3)
    parser.add_argument("--seed", type=int, default=1000)
    parser.add_argument("--out", type=Path, default=DEFAULT_MODEL)
    parser.add_argument("--report", type=Path, default=ROOT / "benchmarks" / "briscola5_contracts.md")
    args = parser.parse_args(argv)
    if not BID_MIN <= args.low <= args.high:
        parser.error(f"--low and --high must satisfy {BID_MIN} <= low <= high; got {args.low}, {args.high}")
    start = time.time()
    parts = [forced_hands(args.player, min(args.chunk, args.hands - k), args.seed + i, args.low, args.high)
             for i, k in enumerate(range(0, args.hands, args.chunk))]
    x, y = np.concatenate([p[0] for p in parts]), np.concatenate([p[1] for p in parts])
    seconds = time.time() - start
    if len(y) <= args.held_out:
        parser.error(f"--held-out {args.held_out} leaves nothing to train on ({len(y)} hands)")
    net = train(x[args.held_out:], y[args.held_out:], args.hidden, args.epochs, args.lr, args.seed)
    meta = _meta(sys.argv[1:] if argv is None else argv, "briscola5_contracts.py")
    result = {**meta, "command": meta["command"].strip(), "samples": int(len(y)), "seconds": seconds,
              "report": report(net, x[:args.held_out], y[:args.held_out])}
    args.out.parent.mkdir(parents=True, exist_ok=True)
    config = {k: (shown(v.resolve()) if isinstance(v, Path) else v) for k, v in vars(args).items()}
    save_actor(net, args.out, {"game": GAME, "role": ROLE, "run_name": "briscola5_contracts", "config": config,
                               "provenance": {k: result[k] for k in ("command", "commit", "when", "machine", "versions")},
                               "report": result["report"]})
    text = markdown(result)
    args.report.write_text(text, encoding="utf-8")
    args.report.with_suffix(".json").write_text(json.dumps(result, indent=1) + "\n", encoding="utf-8")
    print(text + f"saved: {shown(args.out.resolve())}, {shown(args.report.resolve())}")


if __name__ == "__main__":
    main()
