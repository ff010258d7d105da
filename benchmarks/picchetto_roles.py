"""Where does Picchetto's learned agent lose to the search? Its play by phase, each phase handed to PIMC in turn.

Alone against PIMC the shipped ``pretrained:picchetto`` loses about 1.5 points per hand (``docs/results/learning.md``,
point 5). This probe seats variants of it against PIMC on the same duplicate deals, each variant with PIMC (at its
default budget) taking over the decisions of one phase and the network keeping the rest:

| variant | PIMC decides | the network decides |
|---|---|---|
| ``agent`` | nothing | everything (``pretrained:picchetto``) |
| ``pimc_exchange`` | the exchange (which cards to discard, when to stop) | the trick play |
| ``pimc_early_tricks`` | the trick play while the seat holds more than ``ENDGAME_CARDS`` cards | the exchange, the last tricks |
| ``pimc_last_tricks`` | the trick play once the seat holds ``ENDGAME_CARDS`` cards or fewer | the rest |

Each row gives the margin per hand (95% interval over deals) and the same margin paired deal by deal with the
``agent`` row (``benchmarks/paired_margin.py``'s interval): what handing that phase to the search is worth. A
variant that closes most of the gap locates it. Phases are read from the seat's own observation
(``envs.picchetto.observation.decode``), so no variant sees more than the seat may; the PIMC player sees every
observation, so its tracker of the hand stays whole. These are probes, not players: the hybrids are built here only.

The phases are also this game's roles for ``benchmarks/distill_pimc.py --roles`` (``ROLES``, ``role``), as
``benchmarks/briscola5_roles.py``'s are Briscola's: ``--roles early_tricks last_tricks`` teaches the trick play only.

    python benchmarks/picchetto_roles.py --deals 600 --seed 2 --workers 2
    python benchmarks/picchetto_roles.py --report-only
"""

from __future__ import annotations

import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))
sys.path.insert(0, str(ROOT / "benchmarks"))

from learning import PIMC_PANEL, fmt  # noqa: E402
from role_probe import HybridProbe, probe_main, save_eval  # noqa: E402

GAME = "picchetto"
FLAGS = {"episode": "hand"}
ENDGAME_CARDS = 4  # PIMC solves the last 3 tricks exactly (its ``endgame`` default); one more trick of lookahead
EXCHANGE, EARLY_TRICKS, LAST_TRICKS = "exchange", "early_tricks", "last_tricks"
ROLES = (EXCHANGE, EARLY_TRICKS, LAST_TRICKS)  # what ``role`` returns
VARIANTS = {  # variant -> the phases PIMC takes over
    "agent": (),
    "pimc_exchange": (EXCHANGE,),
    "pimc_early_tricks": (EARLY_TRICKS,),
    "pimc_last_tricks": (LAST_TRICKS,),
}


def role(observation: dict) -> str:
    """The seat's phase at this decision, from its own observation (``exchange``, ``early_tricks``,
    ``last_tricks``)."""
    from envs.picchetto.observation import decode

    view = decode(observation)
    if view["phase"] not in ("trick_lead", "trick_follow"):
        return EXCHANGE
    return LAST_TRICKS if len(view["hand"]) <= ENDGAME_CARDS else EARLY_TRICKS


def player(variant: str, agent: str | None = None) -> HybridProbe:
    """``agent`` (default ``pretrained:picchetto``), with PIMC deciding in the variant's phases."""
    return HybridProbe(GAME, variant, role, VARIANTS[variant], agent)


def measure(variant: str, deals: int, seed: int, runs: Path, agent: str | None = None) -> dict:
    """The variant alone against PIMC: its margin per hand; its ``eval.json`` (per deal) goes to ``runs/variant``."""
    from train.evaluation.core import evaluate

    res = evaluate(GAME, [player(variant, agent)], field=PIMC_PANEL, num_deals=deals, seed=seed, flags=FLAGS,
                   workers=1)
    return {"margin": res.margin["per_hand"], "n_deals": deals, "eval_json": save_eval(res, runs, variant, ROOT)}


def report(results: dict, out: Path) -> None:
    meta = results.get("meta")
    agent = (meta or {}).get("agent")
    lines = [f"# Picchetto: where {f'`{agent}`' if agent else 'the learned agent'} loses to PIMC", ""]
    if meta:
        lines += [f"Each variant alone against PIMC (`{PIMC_PANEL}`, PIMC at the defaults it had before learned networks "
                  f"played its playouts) on the same {meta['deals']} duplicate deals (one hand each). "
                  f"Measured by `{meta['command']}` (commit {meta['commit']}, started {meta['when']}; "
                  f"{meta['machine']}; {meta['versions']}).", ""]
    lines += ["| variant | PIMC decides | margin per hand | paired with `agent` |", "|---|---|---|---|"]
    for variant, phases in VARIANTS.items():
        r = results.get("variants", {}).get(variant)
        if r is None:
            continue
        pair = r.get("paired_with_agent")
        lines.append(f"| `{variant}` | {', '.join(phases).replace('_', ' ') or '-'} | {fmt(r['margin'])} | "
                     f"{fmt(pair) if pair else '-'} |")
    lines += ["", f"Last tricks: the seat holds {ENDGAME_CARDS} cards or fewer (PIMC solves its last 3 tricks exactly)."]
    out.write_text("\n".join(lines) + "\n")


def main(argv: list[str] | None = None) -> None:
    probe_main(list(sys.argv[1:] if argv is None else argv), "picchetto_roles.py", __doc__.split("\n")[0],
               list(VARIANTS), 600, measure, report, ROOT)


if __name__ == "__main__":
    main()
