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

**Against another defence** (``--defence SPEC``, e.g. ``pimc``): the hands are played on the AEC env, the
``--player`` calling and playing the caller's cards and ``SPEC`` the other four seats (a search player is slow:
``--workers`` processes share the hands). ``--start MODEL`` then fits only that model's output layer on the new
hands (a recalibration that keeps what the 400,000 hands taught), ``--min-estimate P`` drops before their play the
hands that model rates below ``P`` (hands the bidder would never bid), and the report adds the start model's
calibration on the same held-out hands. ``--samples FILE.npz`` keeps the played hands (reused, not replayed, when
the file exists)::

    python benchmarks/briscola5_contracts.py --defence pimc --workers 2 --hands 16000 --seed 2000 \
        --start agents/pretrained/contracts/briscola5.mazzo.zip --min-estimate 0.25 --held-out 2000 --epochs 30 \
        --samples runs/contracts/briscola5_pimc_hands.npz --out agents/pretrained/contracts/briscola5_pimc.mazzo.zip \
        --report benchmarks/briscola5_contracts_pimc.md

**At the table's auction** (``--auction``, with ``--defence SPEC``): nothing is forced. ``SPEC`` bids at all five
seats, the auction's winner then passes to the ``--player`` for the call and the play (``SPEC`` keeps the other four
seats), and each sample is an auction-aware input (``agents/briscola5_bidding.py``: the winner's hand, the dealer,
the contract, the rivals' highest bid and the share of rivals who bid). Those are the hands a seat wins against
``SPEC``'s bidding, with what the rivals' bids said about their cards. ``--start`` then widens the start model's
first layer with zero weights for the two new inputs, and ``--fit all`` fits every layer; ``--mix FILE.npz`` adds
hand-only ``--samples`` (their rivals' columns 0, as when nobody else bids) to the training hands, so that the
model still knows the uncontested auction::

    python benchmarks/briscola5_contracts.py --defence pimc --auction --workers 2 --hands 12000 --seed 3000 \
        --held-out 2000 --epochs 10 --lr 1e-4 --start agents/pretrained/contracts/briscola5_pimc.mazzo.zip --fit all \
        --mix runs/contracts/briscola5_pimc_hands.npz --samples runs/contracts/briscola5_auction_hands.npz \
        --out runs/contracts/briscola5_auction.mazzo.zip --report benchmarks/briscola5_contracts_auction.md

(at PIMC's table that model was no better than its start, and is not shipped: docs/results/learning.md, point 6).
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
from learning import _meta, shown  # noqa: E402

from agents.briscola5_bidding import (  # noqa: E402
    AUCTION_INPUTS,
    CONTRACT_INPUTS,
    DEFAULT_MODEL,
    ROLE,
    contract_features,
    load_contract_model,
)
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


def defended_hands(player_spec: str, defence: str, hands: int, seed: int, low: int, high: int, workers: int,
                   screen: Path | None, min_estimate: float, auction: bool = False) -> tuple[np.ndarray, np.ndarray]:
    """Like ``forced_hands``, on the AEC env: the ``player_spec`` calls and plays the caller's cards, ``defence``
    (a search player, such as ``pimc``) plays the other four seats. With ``screen`` (a contract model), a hand whose
    estimate there is below ``min_estimate`` is dropped before its play (the bidder never bids it). With
    ``auction``, nothing is forced: ``defence`` plays the whole auction at all five seats, the winner's seat passes to
    ``player_spec`` for the call and the play, and the samples are auction-aware inputs (hands nobody bid are
    dropped). ``workers`` processes each play a block of the hands; the deals, callers and contracts depend on
    ``seed`` only."""
    rng = np.random.default_rng(seed)
    deal_seeds = np.random.SeedSequence(seed).generate_state(hands)
    callers, contracts = rng.integers(0, NUM_PLAYERS, hands), rng.integers(low, high + 1, hands)
    parts = run_blocks(defended_block, [(player_spec, defence, block_seed(seed, b), deal_seeds, callers, contracts,
                                         block, screen, min_estimate, auction)
                                        for b, block in enumerate(block_ranges(hands, workers))])
    return np.concatenate([p[0] for p in parts]), np.concatenate([p[1] for p in parts])


def defended_block(player_spec: str, defence: str, player_seed: int, deal_seeds: np.ndarray, callers: np.ndarray,
                   contracts: np.ndarray, block: range, screen: Path | None, min_estimate: float,
                   auction: bool = False) -> tuple[np.ndarray, np.ndarray]:
    """``defended_hands``' hands ``block``."""
    import torch

    from agents.registry import make_agent
    from envs.registry import make_raw_env

    env = make_raw_env(GAME)
    player = make_agent(player_spec, GAME, seed=player_seed)
    defenders = [make_agent(defence, GAME, seed=player_seed + 7919 * s) for s in range(NUM_PLAYERS)]
    screen_net = load_contract_model(screen)[0] if screen is not None else None
    inputs, made, started = [], [], time.time()
    for hand in block:
        for p in defenders + [player]:
            p.reset()
        env.reset(seed=int(deal_seeds[hand]))
        caller, contract = (-1, 0) if auction else (int(callers[hand]), int(contracts[hand]))
        x, credits = None, 0.0
        while not env.episode_over:
            name = env.agent_selection
            seat, o = env.agent_name_mapping[name], env.observe(name)
            if auction and caller < 0 <= env.state_.caller:  # the auction is over: its winner's first turn (the call)
                caller, contract = int(env.state_.caller), int(env.state_.contract)
                x = contract_features(o["observation"], [contract], auction=True)
            if env.state_.phase == AUCTION and not auction:  # forced: the caller bids the contract, the others pass
                if seat == caller:
                    x = contract_features(o["observation"], [contract])
                    if screen_net is not None:
                        with torch.inference_mode():
                            if torch.sigmoid(screen_net(torch.from_numpy(x))[0, 0]) < min_estimate:
                                break
                elif hasattr(defenders[seat], "determinizer"):
                    defenders[seat].determinizer.observe(o)  # a search player tracks what it saw
                env.step(BID + contract - BID_MIN if seat == caller else PASS)
                continue
            env.step((player if seat == caller else defenders[seat]).act(o))
            if caller >= 0:
                credits += env.rewards[env.possible_agents[caller]]
        if env.episode_over and caller >= 0 and env.state_.caller == caller:
            inputs.append(x[0])
            made.append(credits > 0)
        if (hand + 1 - block.start) % 200 == 0:
            print(f"{hand + 1 - block.start} of {len(block)} hands, {len(made)} played, {time.time() - started:.0f} s",
                  flush=True)
    return np.asarray(inputs, np.float32).reshape(-1, AUCTION_INPUTS if auction else CONTRACT_INPUTS), np.asarray(made, bool)


def widened(net: object, inputs: int) -> object:
    """``net`` taking ``inputs`` inputs: its first layer gains zero weights for the new ones (the same outputs
    while they are 0), so that a hand-only model starts an auction-aware one."""
    import torch

    first = net.policy_net[0]
    extra = inputs - first.in_features
    if extra > 0:
        wide = torch.nn.Linear(inputs, first.out_features)
        with torch.no_grad():
            wide.weight.zero_()
            wide.weight[:, :first.in_features] = first.weight
            wide.bias.copy_(first.bias)
        net.policy_net[0] = wide
    return net


def train(x: np.ndarray, y: np.ndarray, hidden: list[int], epochs: int, lr: float, seed: int,
          start: Path | None = None, fit: str = "output") -> object:
    """The contract network fitted to (``x``, ``y``); with ``start`` (a contract model, widened to ``x``'s inputs),
    only that model's output layer is fitted (``fit="output"``: a recalibration on few hands, its hidden layers
    kept), or all of it (``fit="all"``)."""
    import torch

    torch.manual_seed(seed)
    if start is None:
        net = build_actor(x.shape[1], 1, hidden, "ReLU")
        params = net.parameters()
    else:
        net = widened(load_contract_model(start)[0], x.shape[1]).requires_grad_(True)
        params = net.action_net.parameters() if fit == "output" else net.parameters()
    opt = torch.optim.Adam(params, lr=lr)
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
    """Held-out figures of ``net`` on (``x``, ``y``): cross-entropy, the constant's, made per decile, calibration
    (a hand-only ``net`` reads only the hand-only columns of auction-aware ``x``)."""
    import torch

    x = x[:, :net.policy_net[0].in_features]
    with torch.no_grad():
        logits = net(torch.from_numpy(x))[:, 0]
        bce = float(torch.nn.functional.binary_cross_entropy_with_logits(logits, torch.from_numpy(y.astype(np.float32))))
        p = torch.sigmoid(logits).numpy()
    base = float(y.mean())
    contract = np.rint(x[:, CONTRACT_INPUTS - 1] * 60 + 60).astype(int)
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
             f"{result['samples']:,} {'hands won at auction' if result.get('auction') else 'forced hands'} "
             f"({result['seconds']:.0f} s to play), {r['held_out']:,} held out: "
             f"cross-entropy {r['bce']:.4f} (a constant guess: {r['constant_bce']:.4f}); {r['made']:.1%} made."
             + (f" The training hands include {result['mixed']:,} hand-only ones (`--mix`)." if result.get("mixed") else ""),
             "",
             "| contracts | held-out hands | made |", "|---|---|---|"]
    lines += [f"| {d['contracts']} | {d['hands']:,} | {d['made']:.1%} |" for d in r["by_contract"]]
    lines += ["", "| tau | hands whose estimate reaches it | of those, made |", "|---|---|---|"]
    lines += [f"| {c['tau']} | {c['share']:.1%} | {_share(c['made'])} |" for c in r["calibration"]]
    if "start_report" in result:  # the same held-out hands under the model the fit started from
        lines += ["", f"The start model on the same held-out hands: cross-entropy {result['start_report']['bce']:.4f}.",
                  "", "| tau | hands whose start estimate reaches it | of those, made |", "|---|---|---|"]
        lines += [f"| {c['tau']} | {c['share']:.1%} | {_share(c['made'])} |"
                  for c in result["start_report"]["calibration"]]
    return "\n".join(lines) + "\n"


def played_hands(args: argparse.Namespace) -> tuple[np.ndarray, np.ndarray, float]:
    """The hands ``main``'s arguments ask for, and the seconds their play took: read from ``--samples`` when that
    file exists (plain arrays: ``np.load`` refuses pickled objects), else played (and written there if asked)."""
    if args.samples is not None and args.samples.is_file():
        with np.load(args.samples) as z:
            return z["x"], z["y"], float(z["seconds"])
    start = time.time()
    if args.defence is not None:
        x, y = defended_hands(args.player, args.defence, args.hands, args.seed, args.low, args.high, args.workers,
                              args.start, args.min_estimate, args.auction)
    else:
        parts = [forced_hands(args.player, min(args.chunk, args.hands - k), args.seed + i, args.low, args.high)
                 for i, k in enumerate(range(0, args.hands, args.chunk))]
        x, y = np.concatenate([p[0] for p in parts]), np.concatenate([p[1] for p in parts])
    seconds = time.time() - start
    if args.samples is not None:
        args.samples.parent.mkdir(parents=True, exist_ok=True)
        np.savez_compressed(args.samples, x=x, y=y, seconds=seconds)
    return x, y, seconds


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
    parser.add_argument("--defence", default=None,
                        help="a player of the other four seats (e.g. pimc), on the AEC env; default: --player everywhere")
    parser.add_argument("--workers", type=int, default=1, help="processes playing --defence hands")
    parser.add_argument("--start", type=Path, default=None,
                        help="a contract model: fit only its output layer (a recalibration), and screen the hands")
    parser.add_argument("--min-estimate", type=float, default=0.0,
                        help="with --defence and --start: drop hands the start model gives less than this")
    parser.add_argument("--auction", action="store_true",
                        help="with --defence: no forced auction; --defence bids at all five seats, the winner's seat "
                             "passes to --player, and the model is auction-aware (48 inputs)")
    parser.add_argument("--fit", choices=("output", "all"), default="output",
                        help="with --start: fit its output layer only, or all its layers (needed with --auction)")
    parser.add_argument("--mix", type=Path, default=None,
                        help="an .npz of --samples from hand-only play, added to the training hands (its rivals' "
                             "bid columns 0: nobody else bid)")
    parser.add_argument("--samples", type=Path, default=None,
                        help="an .npz of the played hands: written after the play, reused (not replayed) if it exists")
    parser.add_argument("--out", type=Path, default=DEFAULT_MODEL)
    parser.add_argument("--report", type=Path, default=ROOT / "benchmarks" / "briscola5_contracts.md")
    args = parser.parse_args(argv)
    if not BID_MIN <= args.low <= args.high:
        parser.error(f"--low and --high must satisfy {BID_MIN} <= low <= high; got {args.low}, {args.high}")
    if args.min_estimate > 0 and (args.defence is None or args.start is None):
        parser.error("--min-estimate screens hands by the --start model before a --defence plays them: give both")
    if args.auction and (args.defence is None or args.min_estimate > 0):
        parser.error("--auction needs --defence (the bidders of the five seats) and takes no --min-estimate")
    if args.auction and args.start is not None and args.fit == "output":
        parser.error("--auction with --start needs --fit all: the start model's new inputs are learnt in its first layer")
    x, y, seconds = played_hands(args)
    if len(y) <= args.held_out:
        parser.error(f"--held-out {args.held_out} leaves nothing to train on ({len(y)} hands)")
    train_x, train_y = x[args.held_out:], y[args.held_out:]
    if args.mix is not None:
        with np.load(args.mix) as z:
            if z["x"].shape[1] > x.shape[1]:
                parser.error(f"--mix {args.mix} has {z['x'].shape[1]} inputs per hand, more than the model's {x.shape[1]}")
            mix_x = np.zeros((len(z["y"]), x.shape[1]), np.float32)
            mix_x[:, :z["x"].shape[1]] = z["x"]
            train_x, train_y = np.concatenate([train_x, mix_x]), np.concatenate([train_y, z["y"]])
    net = train(train_x, train_y, args.hidden, args.epochs, args.lr, args.seed, args.start, args.fit)
    meta = _meta(sys.argv[1:] if argv is None else argv, "briscola5_contracts.py")
    result = {**meta, "command": meta["command"].strip(), "samples": int(len(y)), "seconds": seconds, "auction": args.auction,
              "mixed": len(train_y) - (len(y) - args.held_out),
              "report": report(net, x[:args.held_out], y[:args.held_out])}
    if args.start is not None:
        result["start_report"] = report(load_contract_model(args.start)[0], x[:args.held_out], y[:args.held_out])
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
