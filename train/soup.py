"""Weight averaging ("model soup"): one actor whose weights are the mean of checkpoints that share a start.

    python -m train.soup --out soup.mazzo.zip runs/A/last.mazzo.zip runs/B/last.mazzo.zip [...]

Fine-tunes of one network (the checkpoints of one run, or runs started from the same file with ``init_from``)
stay close enough in weight space that their mean is a network that plays, often better than each of them:
averaging cancels part of the noise that the last PPO updates leave in each. Networks that were trained from
different random starts do not average into anything useful, so the inputs must be of one lineage (see
``check_compatible``); mixed games, flags or network shapes are refused. A file may be given twice to weight it
twice.

| step | what |
|---|---|
| ``check_compatible(paths, metas, shas)`` | the same game, flags, observation, action count and network; one lineage: linked by a shared ``init_from`` sha256, one run (experiment name, seed and start), or one started from another |
| ``average(paths)`` | the mean of the actors' tensors: float32, summed in the order given, then divided (the same inputs in the same order give the same bytes) |
| ``soup(paths, out)`` | writes the safe checkpoint; its ``soup`` entry lists every input: file, sha256, run, learner steps |

The result is an ordinary safe checkpoint (``agents/checkpoint.py``): ``ppo:PATH`` plays it, and it keeps no
critic. ``num_timesteps`` is the largest input's; the inputs' own recipes stay in their files.
"""

from __future__ import annotations

import argparse
import sys
from pathlib import Path
from typing import Any

from agents.checkpoint import CheckpointError, checkpoint_path, load_actor, save_actor
from envs.records import file_sha256

__all__ = ["check_compatible", "average", "soup", "main"]

_SAME = ("game", "flags", "obs_shape", "num_actions")
_NETWORK = ("pi", "activation", "features")


def _start(meta: dict[str, Any]) -> str | None:
    """What a checkpoint was fine-tuned from: the sha256 its trainer recorded (``init_from``), if any."""
    init = meta.get("init_from") or {}
    return init.get("sha256") if isinstance(init, dict) else None


def _run_root(meta: dict[str, Any]) -> str | None:
    """The run a checkpoint belongs to; a resumed run keeps its experiment name and seed, so those stand for it."""
    config = meta.get("config") or {}
    if not config.get("exp_name"):
        return None
    return f"{meta.get('game')}/{config.get('exp_name')}/{config.get('seed')}"


def _related(a: dict[str, Any], b: dict[str, Any]) -> bool:
    """Two inputs (``start``, ``run``, ``sha256``) of one lineage: one file, one start, one run, or one started
    from the other."""
    if a["sha256"] == b["sha256"] or a["start"] == b["sha256"] or b["start"] == a["sha256"]:
        return True
    # a shared start; with none recorded, one run from scratch (its seed fixes the first weights) and its resumes
    return a["start"] == b["start"] and (a["start"] is not None or (a["run"] is not None and a["run"] == b["run"]))


def check_compatible(paths: list[str], metas: list[dict[str, Any]], shas: list[str]) -> None:
    """Raise ``CheckpointError`` unless every checkpoint has the first one's game, flags, shapes and network,
    and all are of one lineage: linked by a shared ``init_from`` sha256, one run (its resumes too), or one having started
    from another (its ``init_from`` sha256 is the other's)."""
    if len(paths) < 2:
        raise CheckpointError(f"a soup needs at least two checkpoints, got {len(paths)}")
    first = metas[0]
    for path, meta in zip(paths[1:], metas[1:], strict=True):
        for key in _SAME:
            if meta.get(key) != first.get(key):
                raise CheckpointError(f"{path}: {key} {meta.get(key)!r} differs from {paths[0]}'s {first.get(key)!r}; "
                                      "only checkpoints of one game, flags and network can be averaged")
        for key in _NETWORK:
            if meta["network"].get(key) != first["network"].get(key):
                raise CheckpointError(f"{path}: network {key} {meta['network'].get(key)!r} differs from "
                                      f"{paths[0]}'s {first['network'].get(key)!r}")
    nodes = [{"start": _start(m), "run": _run_root(m), "sha256": sha} for m, sha in zip(metas, shas, strict=True)]
    linked, frontier = {0}, [0]
    while frontier:  # the inputs reachable from the first one
        i = frontier.pop()
        for j in range(len(nodes)):
            if j not in linked and _related(nodes[i], nodes[j]):
                linked.add(j)
                frontier.append(j)
    if len(linked) < len(nodes):
        apart = ", ".join(f"{paths[j]} (init_from {str(nodes[j]['start'])[:12]}, run {nodes[j]['run']})"
                          for j in range(len(nodes)) if j not in linked)
        raise CheckpointError(f"not of {paths[0]}'s lineage, so their mean is not a trained network: {apart}; every "
                              "input must share an init_from sha256 or a run with another, or have started from another")


def average(paths: list[str]) -> tuple[Any, list[dict[str, Any]], list[str]]:
    """The actor whose every tensor is the mean of the checkpoints' tensors, their metadata and sha256s."""
    loaded = [load_actor(p) for p in paths]
    metas = [meta for _, meta in loaded]
    shas = [file_sha256(checkpoint_path(p)) for p in paths]
    check_compatible(paths, metas, shas)
    states = [actor.state_dict() for actor, _ in loaded]
    mean = {name: sum(s[name] for s in states) / len(states) for name in states[0]}
    actor = loaded[0][0]  # the first input's network, its tensors replaced by the means
    actor.load_state_dict(mean, strict=True, assign=True)
    return actor, metas, shas


def soup(paths: list[str], out: str | Path) -> Path:
    """Write the weight average of ``paths`` to ``out`` (a safe checkpoint) and return its path."""
    actor, metas, shas = average(paths)
    first = metas[0]
    inputs = [{"file": str(p), "sha256": sha, "run_name": m.get("run_name"), "num_timesteps": m.get("num_timesteps")}
              for p, m, sha in zip(paths, metas, shas, strict=True)]
    meta = {"game": first["game"], "flags": first["flags"], "algo": "soup",
            "run_name": f"soup of {len(paths)} checkpoints", "soup": {"inputs": inputs, "weights": "equal"}}
    if _start(first) is not None and len({_start(m) for m in metas}) == 1:
        meta["init_from"] = first["init_from"]
    steps = [m.get("num_timesteps") for m in metas if m.get("num_timesteps") is not None]
    return save_actor(actor, out, meta, vf=first["network"].get("vf"), num_timesteps=max(steps) if steps else None)


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="python -m train.soup", description=__doc__.split("\n\n")[0])
    parser.add_argument("checkpoints", nargs="+", help="safe checkpoints (*.mazzo.zip) of one start; repeat one to weight it")
    parser.add_argument("--out", required=True, help="the checkpoint to write")
    args = parser.parse_args(argv)
    try:
        path = soup(args.checkpoints, args.out)
    except (CheckpointError, FileNotFoundError) as e:
        print(f"error: {e}", file=sys.stderr)
        return 2
    print(f"wrote {path}: the mean of {len(args.checkpoints)} checkpoints")
    return 0


if __name__ == "__main__":
    sys.exit(main())
