"""Can a network learn the search's choices? PIMC's decisions distilled into a trained agent, and what it bought.

Issue 22 asks for a learned agent that beats PIMC without searching at play time. PPO against the heuristics
and itself did not get there (``benchmarks/finetune.md``), so this tries the other road: imitate the search.
PIMC (``--teacher``: ``pimc-v1`` by default) plays every seat of ``--hands`` deals through the AEC env; each decision with a choice
is kept with PIMC's value of every candidate move. The agent (``--start``: the shipped one by default) is then
trained on them and measured again:

| step | how |
|---|---|
| demonstrations | ``collect``: PIMC at every seat; per decision the observation, the mask, PIMC's move and its mean value of each candidate (``PIMCAgent.last_values``); kept in ``--runs`` and reused |
| PIMC's best set | the candidates within 1e-6 of PIMC's best value: ties are common (two cards that both lose the trick), and PIMC breaks them at random, so the target is the set, not PIMC's pick |
| agreement | on held-out deals (the last 10%): how often the agent's greedy move is in PIMC's best set (``no_regret``), and PIMC's own estimate of what the agent's move gives up (``regret``: PIMC's best value minus its value of the agent's move, per decision with a choice) |
| distil | into a copy of the start, or with ``--hidden`` a new network of that shape (``--activation``); ``--objective best``: maximise the agent's probability of PIMC's best set (``-log sum p(best)``); ``q``: maximise PIMC's value of the agent's move in expectation (``-sum p(a) A(a)``, ``A`` the value minus the candidates' mean, over ``--scale``). Both plus ``--beta`` x KL(start, new) on the same decisions, Adam at ``--lr`` for ``--epochs`` epochs |
| on-policy rounds | ``--behaviour start`` (DAgger): in each deal one seat (the deal's number mod the seats) is played by the start agent's greedy move, the others by PIMC; PIMC still values every decision, the learner's too, so the data cover the states the agent itself reaches. ``--with-demos FILE...`` adds earlier collections to the training decisions (the held-out deals stay this collection's last 10%) |
| roles | ``--roles ROLE...``: train on the decisions of these roles only (held-out agreement too), read from each decision's own observation by ``role(observation)`` of ``benchmarks/<game>_roles.py`` (Briscola: ``before_tricks``, ``caller``, ``partner``, ``defender``); for a game that has such a module. ``--anchor W``: the other roles' training decisions stay in, with only W x KL(start, new), so that the roles not taught keep the start's play (through the shared layers they drift otherwise); the entry's ``anchored`` says how often their greedy move is still the start's on held-out deals |
| anchor tables | ``--anchor-hands N`` (with ``--anchor``): the start agent also plays one seat of N deals among ``--anchor-field`` players (the heuristic by default), and its own decisions there (every role; the last 10% of the deals held out) join the anchored ones. PIMC's tables show only the roles the agent plays against PIMC (Briscola's agent calls in one hand in five there, in nine in ten against the heuristic), so the anchor also covers the tables it will meet elsewhere |
| teacher | ``--teacher SPEC``: the search that plays and labels, ``pimc-v1`` (PIMC at the defaults of the published rounds, ``learning.PIMC_PANEL``) by default; any PIMC spec, e.g. ``pimc:playout=pretrained:pigugnin_distilled`` (its playouts played by a network: one step of policy improvement over that network, as in expert iteration); the collection's file name carries it |
| belief head | ``--belief W``: a linear head on the network's last hidden layer learns, with weight W x binary cross-entropy, the decider's privileged vector (``envs/<game>/privileged.py``: the other seats' hands, and Picchetto's talon and discards), which every collection keeps per decision (``privileged``). Hidden cards shape the features the policy reads; the head is dropped on export, so the saved actor still reads only the observation. The entry's epochs give the head's held-out cross-entropy, that of the best constant guess (each entry's training mean) and, where the vector is the other hands alone, that of counting (each unseen card with each other seat in proportion to the cards it has left) |
| panels | the distilled agent alone among copies of its start (``--growth-deals`` batched duplicate deals) and alone among PIMC players (``--pimc-deals`` AEC deals, ``--seed 1``: the shipped agents' PIMC deals) |

    python benchmarks/distill_pimc.py --games picchetto --hands 3000
    python benchmarks/distill_pimc.py --report-only
"""

from __future__ import annotations

import argparse
import copy
import hashlib
import json
import sys
import time
import warnings
from pathlib import Path

import numpy as np

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT / "benchmarks"))

from blocks import block_ranges, block_seed, run_blocks  # noqa: E402
from learning import (  # noqa: E402
    GAMES,
    PIMC_PANEL,
    _meta,
    aec_panel,
    batched_panel,
    flags_of,
    fmt,
    saver,
    shipped,
    shown,
    study_args,
)

from agents.checkpoint import ACTIVATIONS  # noqa: E402

OBJECTIVES = ("best", "q")
TIE = 1e-6  # values within this of PIMC's best are PIMC's best set


def collect(game: str, flags: dict, hands: int, seed: int, out: Path, workers: int = 1,
            behaviour: str | None = None, teacher: str = PIMC_PANEL) -> dict[str, np.ndarray]:
    """PIMC at every seat of ``hands`` deals; every decision with a choice, with PIMC's candidate values (NaN for a
    move PIMC did not consider). Saved to ``out`` (reused if there). ``workers`` processes each play a block of the
    deals, with players seeded by ``seed`` and the block (so the data depend on ``workers``). ``behaviour`` (an
    agent spec) plays one seat per deal instead of PIMC, which still values its decisions (the module docstring's
    on-policy rounds). ``teacher``: the PIMC spec that plays the other seats, whose values are the labels."""
    if out.is_file():
        return load_demos(out)
    deal_seeds = np.random.SeedSequence(seed).generate_state(hands)
    parts = run_blocks(collect_block, [(game, flags, block_seed(seed, b), deal_seeds, block, behaviour, teacher)
                                       for b, block in enumerate(block_ranges(hands, workers))])
    data = {k: np.concatenate([p[k] for p in parts]) for k in parts[0]}
    out.parent.mkdir(parents=True, exist_ok=True)
    np.savez_compressed(out, **data)
    return data


def load_demos(path: Path) -> dict[str, np.ndarray]:
    """A collection saved by ``collect``; one from before the on-policy rounds gets ``by_learner`` all False (PIMC
    at every seat)."""
    with np.load(path) as z:
        data = dict(z)
    data.setdefault("by_learner", np.zeros(len(data["hand"]), bool))
    return data


def collect_block(game: str, flags: dict, player_seed: int, deal_seeds: np.ndarray, block: range,
                  behaviour: str | None = None, teacher: str = PIMC_PANEL) -> dict:
    """``collect``'s deals ``block``: PIMC players seeded by ``player_seed`` (and the seat) at every seat, and the
    ``behaviour`` agent, if any, moving for seat ``hand % seats``."""
    from agents.registry import make_agent
    from envs.registry import make_raw_env

    env = make_raw_env(game, **flags)
    privileged_vector = privileged_of(game)
    players = [make_agent(teacher, game, seed=player_seed + 7919 * s, flags=flags)
               for s in range(len(env.possible_agents))]
    learner = make_agent(behaviour, game, flags=flags) if behaviour else None
    num_actions = env.action_space(env.possible_agents[0]).n
    obs, masks, values, hand_of, by_learner, privileged = [], [], [], [], [], []
    started = time.time()
    for hand in block:
        for p in players + ([learner] if learner is not None else []):
            p.reset()
        env.reset(seed=int(deal_seeds[hand]))
        learner_seat = hand % len(players) if learner is not None else -1
        while not env.episode_over:
            name = env.agent_selection
            o = env.observe(name)
            seat = env.agent_name_mapping[name]
            player = players[seat]
            move = player.act(o)  # at the learner's seat too: PIMC's values are the labels, and it keeps track
            if seat == learner_seat:
                move = learner.act(o)
            if o["action_mask"].sum() > 1:
                v = np.full(num_actions, np.nan, np.float32)
                v[player.last_candidates] = player.last_values
                obs.append(o["observation"])
                masks.append(o["action_mask"].astype(bool))
                values.append(v)
                hand_of.append(hand)
                by_learner.append(seat == learner_seat)
                privileged.append(privileged_vector(env.game, env.state_, seat))
            env.step(move)
        if (hand + 1 - block.start) % 500 == 0:
            print(f"{game}: {hand + 1 - block.start} hands of {len(block)}, {len(obs)} decisions, "
                  f"{time.time() - started:.0f} s", flush=True)
    return {"obs": np.asarray(obs, np.float32), "mask": np.asarray(masks), "values": np.asarray(values),
            "hand": np.asarray(hand_of), "by_learner": np.asarray(by_learner, bool),
            "privileged": np.asarray(privileged, np.float32)}


def privileged_of(game: str):
    """``privileged(game, state, seat)`` of ``envs/<game>/privileged.py``: what a seat cannot see (training only)."""
    import importlib

    return importlib.import_module(f"envs.{game}.privileged").privileged


def collect_own(game: str, flags: dict, hands: int, seed: int, out: Path, behaviour: str, field: str
                ) -> dict[str, np.ndarray]:
    """The ``behaviour`` agent at one seat of ``hands`` deals (the deal's number mod the seats) and ``field`` at the
    others: the agent's own decisions with a choice, unlabelled (``values`` all NaN), for ``--anchor-field``. Saved
    to ``out`` (reused if there)."""
    if out.is_file():
        return load_demos(out)
    from agents.registry import make_agent
    from envs.registry import make_raw_env

    env = make_raw_env(game, **flags)
    privileged_vector = privileged_of(game)
    seats = len(env.possible_agents)
    players = [make_agent(field, game, seed=seed + 7919 * s, flags=flags) for s in range(seats)]
    learner = make_agent(behaviour, game, flags=flags)
    deal_seeds = np.random.SeedSequence(seed).generate_state(hands)
    obs, masks, hand_of, privileged = [], [], [], []
    for hand in range(hands):
        for p in players + [learner]:
            p.reset()
        env.reset(seed=int(deal_seeds[hand]))
        while not env.episode_over:
            o = env.observe(env.agent_selection)
            seat = env.agent_name_mapping[env.agent_selection]
            if seat != hand % seats:
                env.step(players[seat].act(o))
                continue
            if o["action_mask"].sum() > 1:
                obs.append(o["observation"])
                masks.append(o["action_mask"].astype(bool))
                hand_of.append(hand)
                privileged.append(privileged_vector(env.game, env.state_, seat))
            env.step(learner.act(o))
    num_actions = env.action_space(env.possible_agents[0]).n
    data = {"obs": np.asarray(obs, np.float32), "mask": np.asarray(masks),
            "values": np.full((len(obs), num_actions), np.nan, np.float32), "hand": np.asarray(hand_of),
            "by_learner": np.ones(len(obs), bool), "privileged": np.asarray(privileged, np.float32)}
    out.parent.mkdir(parents=True, exist_ok=True)
    np.savez_compressed(out, **data)
    return data


def last_tenth(hand: np.ndarray) -> np.ndarray:
    """Per decision: is its deal among the last 10% of the deals (at least one)? Those are held out."""
    deals = np.unique(hand)
    return np.isin(hand, deals[-max(1, len(deals) // 10):])


def slug(spec: str) -> str:
    """An agent spec as part of a file name."""
    return "".join(c if c.isalnum() else "-" for c in spec)


def digest(path: Path) -> str:
    """A collection's name for the agent that played in it: the start of its checkpoint's SHA-256."""
    return hashlib.sha256(path.read_bytes()).hexdigest()[:8]


def other_flags(game: str, flags: dict) -> dict:
    """The game flags in which ``flags`` differ from the shipped agent's (five players in Pigugnìn): a collection's
    file name and an entry's heading carry them, so no other table's decisions are ever reused or read as these."""
    shipped_flags = flags_of(game, shipped(game))
    return {k: v for k, v in flags.items() if shipped_flags.get(k) != v}


def best_set(values: np.ndarray) -> np.ndarray:
    v = np.nan_to_num(values, nan=-np.inf)
    return v >= v.max(1, keepdims=True) - TIE


def greedy(actor, data: dict[str, np.ndarray], rows: np.ndarray) -> np.ndarray:
    """The actor's most likely legal move on each of ``rows``."""
    import torch

    from agents.checkpoint import HUGE_NEG

    with torch.no_grad():
        logits = actor(torch.as_tensor(data["obs"][rows])).masked_fill(~torch.as_tensor(data["mask"][rows]), HUGE_NEG)
    return logits.argmax(-1).numpy()


def agreement(actor, data: dict[str, np.ndarray], rows: np.ndarray) -> dict[str, float]:
    """How the actor's greedy moves compare with PIMC's on ``rows`` (see the module docstring)."""
    move = greedy(actor, data, rows)
    v = data["values"][rows]
    mine = v[np.arange(len(rows)), move]
    regret = np.nanmax(v, 1) - mine
    return {"decisions": int(len(rows)), "no_regret": float(best_set(v)[np.arange(len(rows)), move].mean()),
            "regret": float(np.nanmean(regret)), "unvalued": int(np.isnan(mine).sum()),
            "pimc_ties": float((best_set(v).sum(1) > 1).mean())}


def distill(start, data: dict[str, np.ndarray], rows: np.ndarray, args: argparse.Namespace, held: np.ndarray,
            log: list, taught: np.ndarray | None = None, hand_planes: int | None = None) -> object:
    """A copy of ``start`` trained on ``rows`` (see the module docstring); ``log`` gets the held-out agreement per
    epoch. ``taught`` (per decision of ``data``): the rows the teacher's objective applies to; the others among
    ``rows`` only hold the network to the start, with weight ``args.anchor`` (``--anchor``). ``hand_planes``: with
    ``--belief``, the number of other seats' hands when the privileged vector is those hands alone (for
    ``belief_loss``'s counting guess)."""
    import torch

    from agents.checkpoint import HUGE_NEG, build_actor

    torch.manual_seed(args.seed)
    if args.hidden:  # a new, wider network: the KL term then also teaches it the start's play
        actor = build_actor(data["obs"].shape[1], data["mask"].shape[1], args.hidden, args.activation)
    else:
        actor = copy.deepcopy(start).requires_grad_(True)  # its own tensors: the start stays as loaded
    params = list(actor.parameters())
    belief = args.belief
    if belief:  # the belief head: trained beside the actor, never saved with it
        head = torch.nn.Linear(actor.action_net.in_features, data["privileged"].shape[1])
        params += list(head.parameters())
        target = torch.as_tensor(data["privileged"])
        constant = target[torch.as_tensor(rows)].mean(0).clamp(1e-6, 1 - 1e-6)  # the best guess without the obs
    obs, mask = torch.as_tensor(data["obs"]), torch.as_tensor(data["mask"])
    best = torch.as_tensor(best_set(data["values"]))
    v = data["values"]
    with warnings.catch_warnings():  # unlabelled rows (--anchor-field) are all NaN: advantage 0, never taught
        warnings.simplefilter("ignore", RuntimeWarning)
        adv = torch.as_tensor(np.nan_to_num((v - np.nanmean(v, 1, keepdims=True)) / args.scale), dtype=torch.float32)
    opt = torch.optim.Adam(params, lr=args.lr)
    gen = torch.Generator().manual_seed(args.seed)
    taught = np.ones(len(v), bool) if taught is None else taught
    teach, order = torch.as_tensor(taught), torch.as_tensor(rows)
    own_rows = rows[taught[rows]]  # the taught ones, for the training agreement
    for epoch in range(args.epochs):
        for b in order[torch.randperm(len(order), generator=gen)].split(256):
            m = mask[b]
            if belief:
                features = actor.policy_net(actor.features(obs[b]))
                logits = actor.action_net(features)
            else:
                logits = actor(obs[b])
            logp = torch.log_softmax(logits.masked_fill(~m, HUGE_NEG), -1)
            with torch.no_grad():
                logp0 = torch.log_softmax(start(obs[b]).masked_fill(~m, HUGE_NEG), -1)
            if args.objective == "best":
                loss = -torch.logsumexp(logp.masked_fill(~best[b], HUGE_NEG), -1)
            else:
                loss = -(logp.exp() * adv[b]).sum(-1)
            kl = (logp0.exp() * (logp0 - logp)).masked_fill(~m, 0.0).sum(-1)
            t = teach[b]
            if t.all():  # the loss as before --anchor, so that earlier entries reproduce bit for bit
                total = loss.mean() + args.beta * kl.mean()
            else:  # anchored rows: only the pull back to the start
                w = t.float()
                total = (w * (loss + args.beta * kl)).mean() + args.anchor * ((1 - w) * kl).mean()
            if belief:  # every trained decision, taught or anchored: the hidden cards are known in all
                total = total + belief * torch.nn.functional.binary_cross_entropy_with_logits(
                    head(features), target[b])
            opt.zero_grad()
            total.backward()
            torch.nn.utils.clip_grad_norm_(params, 1.0)
            opt.step()
        log.append({"epoch": epoch + 1, "held_out": agreement(actor, data, held),
                    "train": agreement(actor, data, own_rows[:len(held)])})
        if belief:
            log[-1]["belief"] = belief_loss(actor, head, data, held, constant, hand_planes)
        print(f"epoch {epoch + 1}: held-out no-regret {log[-1]['held_out']['no_regret']:.3f}, regret "
              f"{log[-1]['held_out']['regret']:.3f}; train no-regret {log[-1]['train']['no_regret']:.3f}", flush=True)
    return actor.requires_grad_(False)


def hand_planes(game: str, flags: dict, data: dict[str, np.ndarray]) -> int | None:
    """How many other seats' hands the collection's privileged vectors hold, when they hold nothing else (Briscola and
    Pigugnìn hide only hands; Picchetto's talon and discards follow its opponent's hand): every game's vector starts
    with those planes, one deck each (``envs/core/vector.py``). None otherwise, or without privileged vectors."""
    from envs.registry import make_raw_env

    if "privileged" not in data:
        return None
    env = make_raw_env(game, **flags)
    others = len(env.possible_agents) - 1
    return others if data["privileged"].shape[1] == others * env.game.deck.size else None


def belief_loss(actor, head, data: dict[str, np.ndarray], rows: np.ndarray, constant,
                hand_planes: int | None = None) -> dict[str, float]:
    """The belief head's binary cross-entropy on ``rows`` per entry of the privileged vector, and that of
    ``constant`` (the training mean of each entry: what a guess without the observation can do). When the vector is
    ``hand_planes`` other hands alone (Briscola, Pigugnìn), also that of counting (``counting_bce``): each card not
    seen yet (in none of the decider's hand and the cards played) lies with each other seat in proportion to the
    cards that seat has left, both public facts, here read off the vector itself."""
    import torch
    from torch.nn.functional import binary_cross_entropy, binary_cross_entropy_with_logits

    x, target = torch.as_tensor(data["obs"][rows]), torch.as_tensor(data["privileged"][rows])
    with torch.no_grad():
        mine = binary_cross_entropy_with_logits(head(actor.policy_net(actor.features(x))), target)
        base = binary_cross_entropy(constant.expand_as(target), target)
    out = {"bce": float(mine), "constant_bce": float(base)}
    if hand_planes:
        hands = target.reshape(len(rows), hand_planes, -1)
        unseen, left = hands.sum(1, keepdim=True), hands.sum(2, keepdim=True)
        guess = (unseen * left / left.sum(1, keepdim=True).clamp(min=1)).clamp(1e-6, 1 - 1e-6)
        out["counting_bce"] = float(binary_cross_entropy(guess.reshape_as(target), target))
    return out


def same_moves(a, b, data: dict[str, np.ndarray], rows: np.ndarray) -> float | None:
    """The share of ``rows`` where actors ``a`` and ``b`` make the same greedy move (None for no rows)."""
    return float((greedy(a, data, rows) == greedy(b, data, rows)).mean()) if len(rows) else None


def with_earlier(data: dict[str, np.ndarray], is_held: np.ndarray, files: list[Path]
                 ) -> tuple[dict[str, np.ndarray], np.ndarray]:
    """``data`` and the decisions of earlier collections ``files`` (all for training; their hands renumbered after
    ``data``'s), and the held-out flags extended to match."""
    parts, held = [data], [is_held]
    for f in files:
        part = load_demos(f)
        part["hand"] = part["hand"] + max(int(p["hand"].max()) for p in parts) + 1
        parts.append(part)
        held.append(np.zeros(len(part["hand"]), bool))
    return joined(parts), np.concatenate(held)


def joined(parts: list[dict[str, np.ndarray]]) -> dict[str, np.ndarray]:
    """The decisions of collections ``parts`` in one, with the arrays all of them have (a collection from before
    the privileged vectors were kept has none: then the whole has none)."""
    keys = [k for k in parts[0] if all(k in p for p in parts)]
    return {k: np.concatenate([p[k] for p in parts]) for k in keys}


def role_module(game: str):
    """``benchmarks/<game>_roles.py`` (its ``ROLES`` and ``role(observation)``), or None for a game without one."""
    import importlib

    try:
        return importlib.import_module(f"{game}_roles")
    except ModuleNotFoundError as e:
        if e.name != f"{game}_roles":  # the module is there, something it imports is not
            raise
        return None


def in_roles(game: str, roles: list[str], data: dict[str, np.ndarray]) -> np.ndarray:
    """Per decision: is its role (read from its own observation) one of ``roles``?"""
    role = role_module(game).role
    return np.array([role(o) in roles for o in data["obs"]], bool)


def measure(args: argparse.Namespace, game: str, entry: dict, save) -> None:
    from agents.checkpoint import load_actor, read_metadata, save_actor
    from agents.registry import make_agent

    start_path = Path(args.start) if args.start else shipped(game)
    flags = flags_of(game, start_path)
    folder = args.runs / game
    name = f"demos_{args.hands}_{args.demo_seed}" + (f"_w{args.demo_workers}" if args.demo_workers > 1 else "")
    other = other_flags(game, flags)
    if other:  # another table (five players): its own collection, never the shipped flags' file
        name += "_f-" + "-".join(f"{k}{v}" for k, v in sorted(other.items()))
    if args.teacher != PIMC_PANEL:  # another search labels: a collection of its own
        name += "_t-" + slug(args.teacher)
    behaviour = None
    if args.behaviour == "start":  # the file names the agent that played: a digest of its checkpoint
        behaviour = f"ppo:{start_path}"
        name += "_by-" + digest(start_path)
    make_agent(args.teacher, game, flags=flags)  # a bad keyword fails here, not in the collection's workers
    data = collect(game, flags, args.hands, args.demo_seed, folder / f"{name}.npz", args.demo_workers, behaviour,
                   args.teacher)
    data, is_held = with_earlier(data, last_tenth(data["hand"]), args.with_demos)
    keep = in_roles(game, args.roles, data) if args.roles else np.ones(len(is_held), bool)
    at_field = np.zeros(len(is_held), bool)  # the start's own decisions at the --anchor-field tables
    if args.anchor_hands:
        own = collect_own(game, flags, args.anchor_hands, args.demo_seed, folder / (
            f"own_{args.anchor_hands}_{args.demo_seed}_{slug(args.anchor_field)}_by-{digest(start_path)}.npz"),
            f"ppo:{start_path}", args.anchor_field)
        data = joined([data, own])
        is_held = np.concatenate([is_held, last_tenth(own["hand"])])
        at_field = np.concatenate([at_field, np.ones(len(own["hand"]), bool)])
        keep = np.concatenate([keep, np.zeros(len(own["hand"]), bool)])  # never taught: they carry no labels
    if args.belief and "privileged" not in data:
        raise SystemExit("--belief: a collection used here has no privileged vectors (collected before they were "
                         "kept); collect it again (delete its demos_*.npz or own_*.npz) or leave --belief out")
    rows, held = np.flatnonzero(~is_held & keep), np.flatnonzero(is_held & keep)
    trained = np.flatnonzero(~is_held) if args.anchor else rows  # with --anchor, the other roles' decisions too
    start, _ = load_actor(start_path)
    entry.update(start=shown(start_path), flags=flags, teacher=args.teacher, behaviour=args.behaviour,
                 with_demos=[shown(f) for f in args.with_demos],
                 hands=args.hands, train_decisions=int(len(rows)), held_out_decisions=int(len(held)),
                 setup={k: getattr(args, k) for k in ("objective", "epochs", "lr", "beta", "scale", "seed")
                        + (("hidden", "activation") if args.hidden else ()) + (("roles",) if args.roles else ())
                        + (("anchor",) if args.anchor else ()) + (("belief",) if args.belief else ())
                        + (("anchor_field", "anchor_hands") if args.anchor_hands else ())},
                 start_agreement=agreement(start, data, held), epochs=[])
    print(f"{game}: the start's held-out no-regret {entry['start_agreement']['no_regret']:.3f}", flush=True)
    actor = distill(start, data, trained, args, held, entry["epochs"], keep, hand_planes(game, flags, data))
    if args.anchor:  # how far the roles not taught moved: their held-out greedy moves, the start's or not
        entry["anchored"] = {"train_decisions": int(len(trained) - len(rows)),
                             "same_as_start": same_moves(start, actor, data, np.flatnonzero(is_held & ~keep & ~at_field))}
        if args.anchor_hands:  # and at the field's tables, where the start plays every role
            entry["anchored"].update(at_field=int((~is_held & at_field).sum()), same_as_start_at_field=same_moves(
                start, actor, data, np.flatnonzero(is_held & at_field)))
    own = held[data["by_learner"][held]]  # held-out decisions the start agent made itself (on-policy rounds)
    if own.size:
        entry["own_decisions"] = {"start": agreement(start, data, own), "distilled": agreement(actor, data, own)}
    out = folder / f"distilled_{args.label or args.objective}.mazzo.zip"
    save_actor(actor, out, {**read_metadata(start_path), "distilled": {"teacher": args.teacher, **entry["setup"]}})
    if args.growth_deals:
        entry["growth"] = batched_panel(game, flags, out, f"ppo:{start_path}", args.growth_deals, args.seed)
        print(f"{game}: distilled vs its start {entry['growth']['mean']:+.3f}", flush=True)
    save()
    if args.pimc_deals:
        entry["pimc"] = aec_panel(game, flags, out, PIMC_PANEL, args.pimc_deals, 1, args.workers)
        print(f"{game}: distilled vs PIMC {entry['pimc']['margin']['mean']:+.3f}", flush=True)
    save()


def report(results: dict, out: Path) -> None:
    lines = ["# Distilling PIMC into the trained agents", "",
             "Definitions: `benchmarks/distill_pimc.py`'s docstring; the analysis: `docs/results/learning.md`. "
             "Agreement on held-out deals' decisions with a choice: no-regret = the agent's move is in PIMC's best "
             "set; regret = PIMC's estimate of what the agent's move gives up, per decision. PIMC, unless a teacher is "
             f"named, is `{PIMC_PANEL}`: PIMC at the defaults it had before learned networks played its playouts.", ""]
    for game, label, e in ((g, k, v) for g in GAMES for k, v in results.get(g, {}).items()):
        m, pimc = e["meta"], e.get("pimc", {})
        # "pimc" in an entry older than pimc-v1 was PIMC at the defaults pimc-v1 keeps
        teacher = f"`{PIMC_PANEL}`" if e.get("teacher", "pimc") in ("pimc", PIMC_PANEL) else f"`{e['teacher']}`"
        played = (f"the start agent at one seat, {teacher} at the others" if e.get("behaviour") == "start"
                  else f"{teacher} at every seat")
        earlier = f" and earlier collections {', '.join(e['with_demos'])}" if e.get("with_demos") else ""
        other = other_flags(game, e.get("flags", {}))
        table = f" with flags {other}" if other else ""
        lines += [f"## {game}, `{label}`", "", f"Start `{e['start']}`; {e['hands']} hands{table} of {played}{earlier}: "
                  f"{e['train_decisions']:,} decisions to train on, {e['held_out_decisions']:,} held out. Setup "
                  f"{e['setup']}. Measured by `{m['command']}` (commit {m['commit']}, started {m['when']}; "
                  f"{m['machine']}; {m['versions']}).", "",
                  "| agent | held-out no-regret | held-out regret | train no-regret |", "|---|---|---|---|",
                  f"| start | {e['start_agreement']['no_regret']:.3f} | {e['start_agreement']['regret']:.3f} | - |"]
        lines += [f"| epoch {p['epoch']} | {p['held_out']['no_regret']:.3f} | {p['held_out']['regret']:.3f} | "
                  f"{p['train']['no_regret']:.3f} |" for p in e["epochs"]]
        if any("belief" in p for p in e["epochs"]):
            lines += ["", "The belief head's held-out cross-entropy per entry of the privileged vector (the best constant "
                      "guess's in brackets): " + ", ".join(f"epoch {p['epoch']} {p['belief']['bce']:.4f} "
                                                           f"({p['belief']['constant_bce']:.4f})" for p in e["epochs"]) + "."]
            counting = e["epochs"][-1]["belief"].get("counting_bce")
            if counting is not None:
                lines[-1] += (f" Counting alone (each unseen card with each other seat in proportion to the cards it has "
                              f"left) scores {counting:.4f}.")
        lines += ["", f"PIMC's best set has more than one move in {e['start_agreement']['pimc_ties']:.0%} of the "
                  "held-out decisions.", ""]
        if "own_decisions" in e:
            own = e["own_decisions"]
            lines += [f"On the {own['start']['decisions']:,} held-out decisions the start agent made itself: "
                      f"no-regret {own['start']['no_regret']:.3f} (start), {own['distilled']['no_regret']:.3f} "
                      f"(distilled); regret {own['start']['regret']:.3f}, {own['distilled']['regret']:.3f}.", ""]
        if "anchored" in e:
            a = e["anchored"]
            same = "-" if a["same_as_start"] is None else f"{a['same_as_start']:.1%}"
            if "at_field" in a:  # --anchor-hands: two kinds of anchored decisions
                lines += [f"{a['train_decisions']:,} training decisions held it to the start (`--anchor`): "
                          f"{a['train_decisions'] - a['at_field']:,} of the other roles at PIMC's tables, whose held-out "
                          f"greedy move is still the start's in {same} of them, and {a['at_field']:,} of the start's "
                          f"own, every role, at tables of `{e['setup']['anchor_field']}` (`--anchor-hands`), "
                          f"{a['same_as_start_at_field']:.1%} there.", ""]
            else:
                lines += [f"The other roles' {a['train_decisions']:,} training decisions held it to the start "
                          f"(`--anchor`): on held-out deals their greedy move is the start's in {same} of them.", ""]
        lines += ["| distilled agent | margin per hand | deals |", "|---|---|---|",
                  f"| alone among its start | {fmt(e.get('growth'))} | {e.get('growth', {}).get('n_deals', '-')} |",
                  f"| alone among PIMC | {fmt(pimc.get('margin'))} | {pimc.get('n_deals', '-')} |", ""]
    out.write_text("\n".join(lines))


def main(argv: list[str] | None = None) -> None:
    argv = list(sys.argv[1:] if argv is None else argv)
    p = argparse.ArgumentParser(description=__doc__.split("\n\n")[0], formatter_class=argparse.RawDescriptionHelpFormatter)
    p.add_argument("--games", nargs="+", default=["picchetto"], choices=GAMES)
    p.add_argument("--start", default=None, help="the agent to distil into (default: the shipped pretrained:GAME)")
    p.add_argument("--hands", type=int, default=3000)
    p.add_argument("--demo-seed", type=int, default=777, help="PIMC's deals (not the evaluation's)")
    p.add_argument("--demo-workers", type=int, default=1, help="processes collecting PIMC's decisions")
    p.add_argument("--teacher", default=PIMC_PANEL,
                   help=f"the PIMC spec that plays and labels (default: {PIMC_PANEL}, the published rounds' PIMC)")
    p.add_argument("--behaviour", choices=("pimc", "start"), default="pimc",
                   help="who moves for one seat per deal while PIMC labels (start: an on-policy round, DAgger)")
    p.add_argument("--with-demos", nargs="*", type=Path, default=[], help="earlier collections to train on too")
    p.add_argument("--objective", choices=OBJECTIVES, default="best")
    p.add_argument("--roles", nargs="*", default=[],
                   help="train on these roles' decisions only (games with benchmarks/<game>_roles.py)")
    p.add_argument("--anchor", type=float, default=0.0,
                   help="with --roles: keep the other roles' decisions, holding them to the start by this x KL")
    p.add_argument("--anchor-field", default="heuristic",
                   help="with --anchor-hands: the players at the other seats of the start's anchor tables")
    p.add_argument("--anchor-hands", type=int, default=0,
                   help="with --anchor: also hold the start's own decisions in this many hands among --anchor-field")
    p.add_argument("--belief", type=float, default=0.0,
                   help="train a belief head on the hidden cards beside the actor, with this weight (dropped on export)")
    p.add_argument("--label", default=None, help="the entry's name in the results (default: the objective)")
    p.add_argument("--epochs", type=int, default=6)
    p.add_argument("--hidden", type=int, nargs="*", default=[],
                   help="distil into a new network with these hidden layers (default: a copy of the start)")
    p.add_argument("--activation", default="ReLU", choices=ACTIVATIONS, help="the new network's activation (with --hidden)")
    p.add_argument("--lr", type=float, default=3e-4)
    p.add_argument("--beta", type=float, default=0.5)
    p.add_argument("--scale", type=float, default=5.0, help="objective q: value units per unit of advantage")
    p.add_argument("--growth-deals", type=int, default=2000, help="the panel among copies of the start (0: none)")
    p.add_argument("--pimc-deals", type=int, default=200, help="the panel among PIMC players (0: none)")
    study_args(p, "distill_pimc")
    p.add_argument("--report-only", action="store_true")
    args = p.parse_args(argv)
    missing = [str(f) for f in args.with_demos if not f.is_file()]
    if missing:  # before the collection, which can take an hour
        raise SystemExit(f"--with-demos: no file {', '.join(missing)} (an earlier collection of this script, "
                         "demos_*.npz)")
    if args.teacher.split(":", 1)[0] not in ("pimc", "pimc-v1"):  # the labels are PIMC's candidate values
        raise SystemExit(f"--teacher: {args.teacher!r} is not a PIMC spec; expected pimc, pimc-v1 or "
                         "pimc[-v1]:KEY=VALUE,...")
    if args.anchor and not args.roles:
        raise SystemExit("--anchor holds the roles not taught to the start: it needs --roles ROLE...")
    if args.anchor_hands < 0:
        raise SystemExit(f"--anchor-hands: {args.anchor_hands} is negative; expected a number of hands >= 0")
    if args.anchor_hands and not args.anchor:
        raise SystemExit("--anchor-hands adds decisions held to the start only: it needs --anchor W")
    if args.belief < 0:
        raise SystemExit(f"--belief: {args.belief} is negative; expected a weight >= 0 (0: no belief head)")
    if args.anchor < 0:
        raise SystemExit(f"--anchor: {args.anchor} is negative; expected a weight >= 0 (0: the other roles left out)")
    for game in args.games if args.roles else ():
        known = getattr(role_module(game), "ROLES", ())
        if not known:
            raise SystemExit(f"--roles: {game} has no benchmarks/{game}_roles.py to read roles with")
        if not set(args.roles) <= set(known):
            raise SystemExit(f"--roles: unknown role(s) {sorted(set(args.roles) - set(known))}; {game} has {list(known)}")
    results = json.loads(args.json.read_text()) if args.json.is_file() else {}
    save = saver(args.json, args.games, results)
    if not args.report_only:
        for game in args.games:
            entry = results.setdefault(game, {})[args.label or args.objective] = {
                "meta": _meta(argv, "distill_pimc.py")}
            measure(args, game, entry, save)
    report(results, args.out)
    print(f"wrote {args.out}")


if __name__ == "__main__":
    main()
