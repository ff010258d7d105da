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

from agents.briscola5_bidding import (  # noqa: E402
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
                   screen: Path | None, min_estimate: float) -> tuple[np.ndarray, np.ndarray]:
    """Like ``forced_hands``, on the AEC env: the ``player_spec`` calls and plays the caller's cards, ``defence``
    (a search player, such as ``pimc``) plays the other four seats. With ``screen`` (a contract model), a hand whose
    estimate there is below ``min_estimate`` is dropped before its play (the bidder never bids it). ``workers``
    processes each play a block of the hands; the deals, callers and contracts depend on ``seed`` only."""
    rng = np.random.default_rng(seed)
    deal_seeds = np.random.SeedSequence(seed).generate_state(hands)
    callers, contracts = rng.integers(0, NUM_PLAYERS, hands), rng.integers(low, high + 1, hands)
    blocks = [(player_spec, defence, seed + 104729 * b, deal_seeds, callers, contracts,
               range(b * hands // workers, (b + 1) * hands // workers), screen, min_estimate) for b in range(workers)]
    if workers == 1:
        parts = [defended_block(*blocks[0])]
    else:
        import multiprocessing

        with multiprocessing.get_context("spawn").Pool(workers) as pool:
            parts = pool.starmap(defended_block, blocks)
    return np.concatenate([p[0] for p in parts]), np.concatenate([p[1] for p in parts])


def defended_block(player_spec: str, defence: str, player_seed: int, deal_seeds: np.ndarray, callers: np.ndarray,
                   contracts: np.ndarray, block: range, screen: Path | None, min_estimate: float
                   ) -> tuple[np.ndarray, np.ndarray]:
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
        caller, contract, x, credits = int(callers[hand]), int(contracts[hand]), None, 0.0
        while not env.episode_over:
            name = env.agent_selection
            seat, o = env.agent_name_mapping[name], env.observe(name)
            if env.state_.phase == AUCTION:  # forced: the caller bids the contract, every other seat passes
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
            credits += env.rewards[env.possible_agents[caller]]
        if env.episode_over and env.state_.caller == caller:
            inputs.append(x[0])
            made.append(credits > 0)
        if (hand + 1 - block.start) % 200 == 0:
            print(f"{hand + 1 - block.start} of {len(block)} hands, {len(made)} played, {time.time() - started:.0f} s",
                  flush=True)
    return np.asarray(inputs, np.float32).reshape(-1, CONTRACT_INPUTS), np.asarray(made, bool)


def train(x: np.ndarray, y: np.ndarray, hidden: list[int], epochs: int, lr: float, seed: int,
          start: Path | None = None) -> object:
    """The contract network fitted to (``x``, ``y``); with ``start`` (a contract model), only that model's output
    layer is fitted, its hidden layers kept (a recalibration on few hands)."""
    import torch

    torch.manual_seed(seed)
    if start is None:
        net = build_actor(CONTRACT_INPUTS, 1, hidden, "ReLU")
        params = net.parameters()
    else:
        net = load_contract_model(start)[0].requires_grad_(True)
        params = net.action_net.parameters()
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
                              args.start, args.min_estimate)
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
    parser.add_argument("--samples", type=Path, default=None,
                        help="an .npz of the played hands: written after the play, reused (not replayed) if it exists")
    parser.add_argument("--out", type=Path, default=DEFAULT_MODEL)
    parser.add_argument("--report", type=Path, default=ROOT / "benchmarks" / "briscola5_contracts.md")
    args = parser.parse_args(argv)
    if not BID_MIN <= args.low <= args.high:
        parser.error(f"--low and --high must satisfy {BID_MIN} <= low <= high; got {args.low}, {args.high}")
    if args.min_estimate > 0 and (args.defence is None or args.start is None):
        parser.error("--min-estimate screens hands by the --start model before a --defence plays them: give both")
    x, y, seconds = played_hands(args)
    if len(y) <= args.held_out:
        parser.error(f"--held-out {args.held_out} leaves nothing to train on ({len(y)} hands)")
    net = train(x[args.held_out:], y[args.held_out:], args.hidden, args.epochs, args.lr, args.seed, args.start)
    meta = _meta(sys.argv[1:] if argv is None else argv, "briscola5_contracts.py")
    result = {**meta, "command": meta["command"].strip(), "samples": int(len(y)), "seconds": seconds,
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
