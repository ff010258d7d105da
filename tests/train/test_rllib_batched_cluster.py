"""The RLlib trainer on the batched engine (``env_engine: batched``) on a real local Ray cluster: short PPO and APPO
runs from the command line (train, sync the learner into the remote env runner's ``self`` opponent, export, evaluate
the export, shut down), the sync reaching a remote env runner, and no Ray process left behind.

The /proc check and the command runner are the fixtures of ``tests/train/conftest.py`` (shared with
test_rllib_cluster.py, in the same xdist group). Marked slow: ``make test`` runs them, ``make test-fast`` does not.
"""

from __future__ import annotations

import json
from pathlib import Path

import numpy as np
import pytest

pytest.importorskip("ray.rllib")
pytest.importorskip("numba")

from agents.registry import make_agent  # noqa: E402

pytestmark = [
    pytest.mark.slow,
    pytest.mark.xdist_group("ray-cluster"),
    pytest.mark.skipif(not Path("/proc/self/stat").exists(), reason="reads /proc"),
]

ROOT = Path(__file__).resolve().parents[2]
SMOKE = "configs/briscola5/rllib_batched_smoke.yaml"


def _rows(path: Path) -> list[dict[str, str]]:
    lines = path.read_text().splitlines()
    header = lines[0].split(",")
    return [dict(zip(header, line.split(","), strict=True)) for line in lines[1:]]


@pytest.mark.parametrize(("algo", "more"), [pytest.param("ppo", ["--bc_episodes", "200", "--bc_epochs", "2"], id="ppo"),
                                            pytest.param("appo", [], id="appo")])
def test_short_run_trains_syncs_exports_and_leaves_no_ray_process(tmp_path, algo, more, no_ray_left, run_python):
    """A few thousand learner steps of Briscola with one remote env runner of 64 games (PPO after a short warm start
    by imitation of the heuristic): the metrics grow, the callback syncs the learner into the runner's 'self'
    opponent after every iteration, the export plays through make_agent (and was evaluated through the AEC env),
    and Ray is gone afterwards (the fixture)."""
    proc = run_python(["-m", "train", "--config", SMOKE, "--algo", algo, "--runs_dir", str(tmp_path), *more])
    assert proc.returncode == 0, proc.stdout[-3000:] + proc.stderr[-3000:]
    assert "RLModuleConfig" not in proc.stderr
    (run,) = tmp_path.iterdir()
    for name in ("config.yaml", "metrics.csv", "eval.csv", "best.mazzo.zip", "last.mazzo.zip", "final_eval.json",
                 "report.md", "learning_curve.png"):
        assert (run / name).is_file(), name
    rows = _rows(run / "metrics.csv")
    assert int(rows[-1]["step"]) >= 3000 and int(rows[-1]["episodes"]) > 100
    assert [int(r["snapshots"]) for r in rows] == [i + 2 for i in range(len(rows))]  # at the start, then each one
    losses = [float(r["loss"]) for r in rows if r["loss"]]  # APPO: an iteration may end before its first update
    assert losses and np.isfinite(losses).all()
    final = json.loads((run / "final_eval.json").read_text())
    assert final["trainer"]["algo"] == algo and final["trainer"]["env_engine"] == "batched"
    assert final["rows"][0]["opponent"] == "heuristic" and final["rows"][0]["n_deals"] == 4
    agent = make_agent(f"ppo:{run / 'best.mazzo.zip'}", "briscola5")
    assert agent.meta["run_name"] == run.name and agent.meta["network"]["pi"] == [16]
    if more:  # the warm start imitated the heuristic on the learner's module before PPO
        imitation = json.loads((run / "imitation.json").read_text())
        assert imitation["teacher"] == "heuristic" and imitation["samples"] > 5000 and imitation["accuracy"] > 0.3
        assert "warm start" in (run / "report.md").read_text()


def test_sync_reaches_the_remote_env_runners_opponent(no_ray_left):
    """On a remote env runner (its own process): after a sync its 'self' opponent holds the learner's actor, and a
    change of the learner's weights reaches it only with the next sync (its greedy actions change with it)."""
    import ray

    from train.config import load_config
    from train.rllib import Args, check_args
    from train.rllib.algorithm import build_config
    from train.rllib.args import SINGLE
    from train.rllib.selfplay import sync_opponents
    from train.rllib.vector_env import make_vector_env

    args = load_config(Args, ROOT / SMOKE, {"snapshot_every": 1000})
    check_args(args)
    ray.init(num_cpus=2, include_dashboard=False, logging_level="warning")
    algo = build_config(args).build_algo()
    try:
        probe = make_vector_env({"game": "briscola5", "num_envs": 64, "opponents": "heuristic"})
        obs, _ = probe.reset(seed=2)
        x, mask = obs[:, : probe.obs_size], obs[:, probe.obs_size:]

        def runner_greedy(er, x=x, mask=mask):
            from agents.rows import ActorRows

            return ActorRows(er.env.unwrapped.opponent_player("self").actor, name="p", greedy=True).act(x, mask)

        def learner_greedy():
            state = algo.learner_group.get_weights(module_ids=[SINGLE])[SINGLE]
            from train.rllib.module import actor_from_state

            actor = actor_from_state(state, [16], "Tanh", probe.obs_size, 143)
            from agents.rows import ActorRows

            return ActorRows(actor, name="l", greedy=True).act(x, mask)

        (at_start,) = algo.env_runner_group.foreach_env_runner(runner_greedy, local_env_runner=False)
        np.testing.assert_array_equal(at_start, learner_greedy())  # the sync of on_algorithm_init
        state = algo.learner_group.get_weights(module_ids=[SINGLE])[SINGLE]
        state["actor.action_net.bias"] = np.arange(143, dtype=np.float32) * 10  # the highest legal id
        algo.learner_group.set_weights({SINGLE: state})
        (unsynced,) = algo.env_runner_group.foreach_env_runner(runner_greedy, local_env_runner=False)
        np.testing.assert_array_equal(unsynced, at_start)
        assert sync_opponents(algo, "Tanh") >= 1
        (synced,) = algo.env_runner_group.foreach_env_runner(runner_greedy, local_env_runner=False)
        highest = mask.shape[1] - 1 - np.argmax(mask[:, ::-1], axis=1)
        np.testing.assert_array_equal(synced, highest)
        assert (synced != at_start).sum() >= 32
    finally:
        algo.stop()
        ray.shutdown()
