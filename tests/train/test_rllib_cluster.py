"""On a real local Ray cluster: the smoke training (train, export, evaluate the export, shut down), the
``--backend ray`` evaluation giving the local workers' results, and no Ray process left behind by any of it.

The check that no Ray process is left (``no_ray_left``, ``ray_procs``) is in ``tests/train/conftest.py``, shared
with ``test_rllib_batched_cluster.py``. Marked slow (Ray takes tens of seconds to start here): ``make test`` runs
them, ``make test-fast`` does not.
"""

from __future__ import annotations

import json
from pathlib import Path

import numpy as np
import pytest

pytest.importorskip("ray.rllib")

from agents.registry import make_agent  # noqa: E402
from envs.core.errors import ConfigError  # noqa: E402
from train.evaluate import evaluate  # noqa: E402

# The tests of the group run one at a time (tests/conftest.py holds the group's lock around each): the
# leftover-process check must not see another test's cluster.
pytestmark = [
    pytest.mark.slow,
    pytest.mark.xdist_group("ray-cluster"),
    pytest.mark.skipif(not Path("/proc/self/stat").exists(), reason="reads /proc"),
]

ROOT = Path(__file__).resolve().parents[2]
def test_smoke_training_exports_a_checkpoint_the_cli_evaluates_on_ray_and_leaves_no_ray_process(tmp_path, no_ray_left,
                                                                                                  ray_procs, run_python):
    """The smoke config trains on a local 2-CPU cluster with one env runner, takes snapshots, exports
    best/last.mazzo.zip, evaluates the export; then the CLI evaluates it again with --backend ray and with
    local workers (the same numbers), and every Ray process is gone."""
    proc = run_python(["-m", "train.rllib", "--config", "configs/picchetto/rllib_smoke.yaml", "--runs_dir", str(tmp_path)])
    assert proc.returncode == 0, proc.stdout[-3000:] + proc.stderr[-3000:]
    (run,) = tmp_path.iterdir()
    assert run.name.startswith("picchetto__rllib_smoke__1__")
    for name in ("config.yaml", "metrics.csv", "eval.csv", "best.mazzo.zip", "last.mazzo.zip", "final_eval.json",
                 "report.md", "learning_curve.png"):
        assert (run / name).is_file(), name
    rows = (run / "metrics.csv").read_text().splitlines()
    header = rows[0].split(",")
    last = dict(zip(header, rows[-1].split(","), strict=True))
    assert int(last["step"]) >= 400 and int(last["episodes"]) > 0
    assert int(last["snapshots"]) >= 1  # the SnapshotPool callback ran and froze main into the pool
    final = json.loads((run / "final_eval.json").read_text())
    assert final["rows"][0]["opponent"] == "heuristic" and final["rows"][0]["n_deals"] == 4
    agent = make_agent(f"ppo:{run / 'best.mazzo.zip'}", "picchetto")  # the ordinary safe loader
    assert agent.meta["format"] == "mazzo-policy/1" and agent.meta["run_name"] == run.name

    before = ray_procs.snapshot()
    outs = {}
    for backend in ("ray", "local"):
        out = tmp_path / f"eval_{backend}"
        proc = run_python(["-m", "train.evaluate", "--game", "picchetto", "--flag", "episode=hand", "--players",
                     f"ppo:{run / 'best.mazzo.zip'}", "heuristic", "--deals", "6", "--seed", "4", "--workers", "2",
                     "--backend", backend, "--out", str(out), "--no-progress"])
        assert proc.returncode == 0, proc.stdout[-3000:] + proc.stderr[-3000:]
        outs[backend] = json.loads((out / "eval.json").read_text())
    ray_procs.assert_gone(before)
    assert "--backend ray" in outs["ray"]["config"].pop("command")
    assert "--backend local" in outs["local"]["config"].pop("command")
    assert outs["ray"] == outs["local"]  # the table, the figures and every deal's mean, exactly
    assert len(outs["ray"]["per_deal_reward_per_episode"][f"ppo:{run / 'best.mazzo.zip'}"]) == 6


def test_ray_backend_gives_the_local_workers_results_deal_for_deal(tmp_path, no_ray_left):
    """Same seed: the same per-deal counters, table and saved games as local workers, for a line-up with a
    checkpoint (shipped to the workers), a heuristic and random players (seeded per seat)."""
    ckpt = ROOT / "agents" / "pretrained" / "pigugnin.mazzo.zip"
    players = [f"ppo:{ckpt}", "heuristic", "random", "random"]
    kw = dict(num_deals=5, seed=11, flags={"num_players": 4, "episode": "hand"}, workers=2)
    local = evaluate("pigugnin", players, save_games=tmp_path / "local.jsonl", **kw)
    remote = evaluate("pigugnin", players, save_games=tmp_path / "ray.jsonl", backend="ray", **kw)
    np.testing.assert_array_equal(remote.deal_counts, local.deal_counts)
    assert remote.table == local.table
    assert (tmp_path / "ray.jsonl").read_text() == (tmp_path / "local.jsonl").read_text()
    import ray

    assert not ray.is_initialized()  # the evaluation shut down the cluster it started


def test_backend_errors_name_the_problem(tmp_path):
    from train.evaluation.cli import main

    with pytest.raises(ConfigError, match="backend"):
        evaluate("picchetto", ["heuristic", "random"], num_deals=1, backend="spark")
    with pytest.raises(ConfigError, match="--backend ray"):
        evaluate("picchetto", ["heuristic", "random"], num_deals=1, address="auto")
    assert main(["--game", "picchetto", "--players", "heuristic", "random", "--address", "auto",
                 "--out", str(tmp_path / "x")]) == 2
    assert main(["--game", "picchetto", "--rating", "heuristic", "random", "--backend", "ray",
                 "--out", str(tmp_path / "y")]) == 2
