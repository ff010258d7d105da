"""The imitation warm start: demonstrations are the teacher's own decisions, fitting them works."""

from __future__ import annotations

import json

import numpy as np
import pytest

torch = pytest.importorskip("torch")
from sb3_contrib import MaskablePPO  # noqa: E402

from agents import make_agent  # noqa: E402
from train.imitation import collect, pretrain  # noqa: E402
from train.ppo import main  # noqa: E402
from train.single_seat import SingleSeatEnv  # noqa: E402


@pytest.mark.parametrize(("game", "flags"), [("briscola5", {}), ("pigugnin", {"num_players": 5, "episode": "hand"}),
                                             ("picchetto", {"episode": "hand"})])
def test_demonstrations_are_the_teachers_decisions(game, flags):
    demos = collect(game, "heuristic", flags, episodes=6, seed=3, reward_scale=0.5)
    n = len(demos.actions)
    assert demos.obs.shape[0] == demos.masks.shape[0] == demos.returns.shape[0] == n > 0
    assert demos.masks[np.arange(n), demos.actions].all()  # every recorded action was legal
    teacher = make_agent("heuristic", game, seed=0)
    again = [teacher.act({"observation": o, "action_mask": m.astype(np.int8)})
             for o, m in zip(demos.obs, demos.masks, strict=True)]
    assert np.mean(np.array(again) == demos.actions) > 0.95  # the heuristic's choices (it may randomise ties)
    same = collect(game, "heuristic", flags, episodes=6, seed=3, reward_scale=0.5)
    assert np.array_equal(same.actions, demos.actions) and np.array_equal(same.returns, demos.returns)
    # returns run from each decision to the episode's end; Briscola and Pigugnin pay only when the hand ends, so
    # there they are the seat's return of the episode (zero-sum in Briscola; minus the busche paid in Pigugnin)
    for ep in np.unique(demos.episodes):
        per_seat: dict[int, list[float]] = {}
        for seat, r in zip(demos.seats[demos.episodes == ep], demos.returns[demos.episodes == ep], strict=True):
            per_seat.setdefault(int(seat), []).append(float(r))
        if game == "picchetto":  # points banked during the hand (declarations, tricks) leave the later targets
            assert any(len(set(rs)) > 1 for rs in per_seat.values())
            continue
        assert all(len(set(rs)) == 1 for rs in per_seat.values())
        if game == "briscola5":
            assert sum(rs[0] for rs in per_seat.values()) == pytest.approx(0.0)
        else:
            assert all(rs[0] <= 0 for rs in per_seat.values())


def test_pretraining_fits_the_teacher():
    demos = collect("picchetto", "heuristic", {"episode": "hand"}, episodes=60, seed=1)
    model = MaskablePPO("MlpPolicy", SingleSeatEnv("picchetto", episode="hand"), policy_kwargs={"net_arch": [64]},
                        seed=0, device="cpu")
    before = pretrain(model.policy, demos, epochs=1, lr=1e-9, seed=0)["accuracy"]
    after = pretrain(model.policy, demos, epochs=15, lr=3e-3, seed=0)
    assert after["accuracy"] > max(0.6, before + 0.3)
    assert after["samples"] == len(demos.actions)


def test_ppo_with_a_warm_start(tmp_path):
    run = main(["--game", "briscola5", "--total_timesteps", "128", "--n_envs", "2", "--n_steps", "64",
                "--batch_size", "64", "--n_epochs", "1", "--eval_every", "0", "--eval_deals", "2", "--final_deals", "2",
                "--net_arch", "[16]", "--progress", "false", "--reference_levels", "false",
                "--eval_opponents", "[random]", "--bc_episodes", "5", "--bc_epochs", "2", "--runs_dir", str(tmp_path)])
    stats = json.loads((run / "imitation.json").read_text())
    assert stats["teacher"] == "heuristic" and stats["episodes"] == 5 and stats["samples"] > 100
    assert "warm start: imitated `heuristic`" in (run / "report.md").read_text()
