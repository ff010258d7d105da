"""Where does Briscola's learned agent lose to the search? Its play by role, each role handed to PIMC in turn.

Alone among four PIMC players the shipped ``pretrained:briscola5`` loses about a quarter of a credit per hand.
This probe seats variants of it alone among PIMC players on the same duplicate deals, each variant with PIMC
(at its default budget) taking over the decisions of one role and the network keeping the rest:

| variant | PIMC decides | the network decides |
|---|---|---|
| ``agent`` | nothing | everything (``pretrained:briscola5``) |
| ``always_pass`` | nothing; the seat passes whenever it may, so it never calls | every card |
| ``pimc_auction`` | the forfeit check, the auction and the call | every card |
| ``pimc_caller`` | the caller's cards | the rest |
| ``pimc_partner`` | the cards of the partner (holding the called card, someone else called) | the rest |
| ``pimc_defender`` | the defenders' cards | the rest |

A variant that closes most of the gap locates it. Each row gives the margin per hand (95% interval over deals),
the same margin paired deal by deal with the ``agent`` row where both were measured in one run (each variant's
``eval.json`` goes to ``--runs``), and the roles as the evaluation counts them: caller rate, contracts made, and
how often the side won in the hands the seat was partner and defender; the field's row (the four PIMC players'
sums) is the reference. Roles are read from the seat's own observation (``envs.briscola5.observation.decode``),
so no variant sees more than the seat may. These are probes, not players: the hybrids are built here only.

    python benchmarks/briscola5_roles.py --deals 200 --seed 2 --workers 2
    python benchmarks/briscola5_roles.py --agent pretrained:briscola5_expert \
        --variants agent pimc_partner pimc_defender pimc_auction --deals 300 --seed 2 --workers 2 \
        --json benchmarks/briscola5_roles_expert.json --out benchmarks/briscola5_roles_expert.md \
        --runs runs/briscola5_roles_expert
    python benchmarks/briscola5_roles.py --report-only
"""

from __future__ import annotations

import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))
sys.path.insert(0, str(ROOT / "benchmarks"))

from learning import PIMC_PANEL, _pct, fmt  # noqa: E402
from role_probe import HybridProbe, probe_main, save_eval  # noqa: E402

from envs.briscola5.game import PASS  # noqa: E402

GAME = "briscola5"
BEFORE_TRICKS = "before_tricks"
ROLES = (BEFORE_TRICKS, "caller", "partner", "defender")  # what ``role`` returns
VARIANTS = {  # variant -> the roles PIMC takes over
    "agent": (),
    "always_pass": (),
    "pimc_auction": (BEFORE_TRICKS,),
    "pimc_caller": ("caller",),
    "pimc_partner": ("partner",),
    "pimc_defender": ("defender",),
}
FIGURES = ("caller_rate", "contract_made", "partner_won", "defender_won")


def role(observation: dict) -> str:
    """The seat's role at this decision, from its own observation: ``before_tricks`` (forfeit check, auction,
    call), else ``caller``, ``partner`` (holds the called card, someone else called) or ``defender``."""
    from envs.briscola5.observation import decode

    view = decode(observation)
    if view["phase"] != "trick_play":
        return BEFORE_TRICKS
    if view["caller"] == 0:
        return "caller"
    return "partner" if view["holds_called"] else "defender"


class RoleProbe(HybridProbe):
    """``agent`` (default ``pretrained:briscola5``), with PIMC deciding in the variant's roles (and passing whenever
    it may with ``always_pass``)."""

    def __init__(self, variant: str, agent: str | None = None):
        super().__init__(GAME, variant, role, VARIANTS[variant], agent)
        self.always_pass = variant == "always_pass"

    def act(self, observation: dict) -> int:
        if self.always_pass and observation["action_mask"][PASS]:
            return PASS
        return super().act(observation)


def measure(variant: str, deals: int, seed: int, runs: Path, agent: str | None = None) -> dict:
    """The variant alone among PIMC players: its margin per hand, its figures and the field's; its ``eval.json``
    (per deal) goes to ``runs/variant``."""
    from train.evaluation.core import evaluate

    res = evaluate(GAME, [RoleProbe(variant, agent)], field=PIMC_PANEL, num_deals=deals, seed=seed, workers=1)
    player, field = res.table[0], res.field_row
    return {"margin": res.margin["per_hand"], "n_deals": deals, "eval_json": save_eval(res, runs, variant, ROOT),
            "figures": {k: player["figures"][k] for k in FIGURES},
            "field_figures": {k: field["figures"][k] for k in FIGURES}}


def report(results: dict, out: Path) -> None:
    meta = results.get("meta")
    agent = (meta or {}).get("agent")
    lines = [f"# Briscola: where {f'`{agent}`' if agent else 'the learned agent'} loses to PIMC", ""]
    if meta:
        lines += [f"Each variant alone among four PIMC players on the same {meta['deals']} duplicate deals. Measured by "
                  f"`{meta['command']}` (commit {meta['commit']}, started {meta['when']}; {meta['machine']}; "
                  f"{meta['versions']}).", ""]
    lines += ["| variant | PIMC decides | margin per hand | paired with `agent` | caller | made | partner's side won "
              "| defenders won |", "|---|---|---|---|---|---|---|---|"]
    for variant, roles in VARIANTS.items():
        r = results.get("variants", {}).get(variant)
        if r is None:
            continue
        f, pair = r["figures"], r.get("paired_with_agent")
        lines.append(f"| `{variant}` | {', '.join(roles) or '-'} | {fmt(r['margin'])} | {fmt(pair) if pair else '-'} | "
                     f"{_pct(f['caller_rate'])} | {_pct(f['contract_made'])} | {_pct(f['partner_won'])} | "
                     f"{_pct(f['defender_won'])} |")
    first = next(iter(results.get("variants", {}).items()), None)
    if first is not None:
        name, f = first[0], first[1]["field_figures"]
        lines += ["", f"The PIMC players of the `{name}` row, for reference: caller in "
                  f"{_pct(f['caller_rate'])} of hands, {_pct(f['contract_made'])} of contracts made, partner's side "
                  f"won {_pct(f['partner_won'])}, defenders won {_pct(f['defender_won'])}."]
    out.write_text("\n".join(lines) + "\n")


def main(argv: list[str] | None = None) -> None:
    probe_main(list(sys.argv[1:] if argv is None else argv), "briscola5_roles.py", __doc__.split("\n")[0],
               list(VARIANTS), 200, measure, report, ROOT)


if __name__ == "__main__":
    main()
