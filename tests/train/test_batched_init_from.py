"""Starting a batched run from a checkpoint's actor (``init_from``) and training the critic alone first
(``critic_warmup``): the actor starts as the checkpoint's and stays so through the warm-up, then learns; bad
combinations are refused before anything runs; a run saved before these keys existed still resumes."""

from __future__ import annotations

from pathlib import Path

import pytest

torch = pytest.importorskip("torch")
pytest.importorskip("numba")

from agents.checkpoint import load_actor  # noqa: E402
from envs.core.errors import ConfigError  # noqa: E402
from train.batched import main  # noqa: E402
from train.batched.args import Args, check_args  # noqa: E402
from train.batched.state import STATE_FORMAT, STATE_NAME, check_resume  # noqa: E402
from train.config import parse_args  # noqa: E402
from train.resume import read_train_state, resume_argv, save_train_state  # noqa: E402

ROOT = Path(__file__).resolve().parents[2]
BASE = ["--config", "configs/picchetto/ppo_batched.yaml", "--num_envs", "16", "--num_steps", "32",
        "--minibatch_size", "128", "--net_arch", "[16]", "--eval_deals", "2", "--final_deals", "2",
        "--eval_opponents", "[random]", "--reference_levels", "false", "--progress", "false",
        "--opponents", "[random]", "--eval_every", "100000"]


@pytest.fixture(autouse=True)
def _root(monkeypatch):
    monkeypatch.chdir(ROOT)


@pytest.fixture(scope="module")
def first_run(tmp_path_factory) -> Path:
    """A short run whose actor the others start from."""
    return main([*BASE, "--total_timesteps", "1000", "--runs_dir", str(tmp_path_factory.mktemp("first"))])


def _actor(path: Path) -> dict:
    return load_actor(path)[0].state_dict()


def _same(a: dict, b: dict) -> bool:
    return all(torch.equal(a[k], b[k]) for k in a)


def test_the_actor_starts_as_the_checkpoint_and_stays_so_through_the_critic_warmup(first_run, tmp_path):
    start = first_run / "last.mazzo.zip"
    frozen = main([*BASE, "--total_timesteps", "1500", "--init_from", f"ppo:{start}", "--critic_warmup", "100000",
                   "--runs_dir", str(tmp_path / "frozen")])
    assert _same(_actor(frozen / "last.mazzo.zip"), _actor(start))
    state, arrays = read_train_state(frozen / STATE_NAME, STATE_FORMAT)
    fresh = main([*BASE, "--total_timesteps", "1500", "--runs_dir", str(tmp_path / "fresh")])
    _, fresh_arrays = read_train_state(fresh / STATE_NAME, STATE_FORMAT)
    # the critic learned (it is not the fresh run's either: the rollouts were the checkpoint's actor's)
    assert state["trainer"]["global_step"] >= 1500
    assert not torch.equal(torch.from_numpy(arrays["critic.0.0.weight"]),
                           torch.from_numpy(fresh_arrays["critic.0.0.weight"]))
    # then the actor learns: a bare path works as ppo:PATH
    moving = main([*BASE, "--total_timesteps", "1500", "--init_from", str(start), "--critic_warmup", "500",
                   "--runs_dir", str(tmp_path / "moving")])
    assert not _same(_actor(moving / "last.mazzo.zip"), _actor(start))


def test_a_run_started_from_a_checkpoint_is_seeded(first_run, tmp_path):
    argv = [*BASE, "--total_timesteps", "1200", "--init_from", f"ppo:{first_run / 'last.mazzo.zip'}"]
    a = main([*argv, "--runs_dir", str(tmp_path / "a")])
    b = main([*argv, "--runs_dir", str(tmp_path / "b")])
    assert _same(_actor(a / "last.mazzo.zip"), _actor(b / "last.mazzo.zip"))


@pytest.mark.parametrize(("override", "message"), [
    (["--init_from", "pretrained:picchetto"], r"\[128, 128\] Tanh network; this run's net_arch is \[16\]"),
    (["--init_from", "pretrained:briscola5"], "briscola5"),
    (["--init_from", "pretrained:picchetto", "--net_arch", "[128, 128]", "--bc_episodes", "10"], "bc_episodes: 0"),
    (["--init_from", "pretrained:picchetto", "--net_arch", "[128, 128]", "--algo", "dmc"], "algo: ppo"),
    (["--critic_warmup", "1000", "--algo", "dmc"], "'critic_warmup' is PPO's"),
    (["--critic_warmup", "-1"], "'critic_warmup'; allowed: an int >= 0"),
])
def test_bad_starts_raise_clear_errors(override, message):
    with pytest.raises(ConfigError, match=message):
        check_args(parse_args(Args, [*BASE, *override]))


def test_a_missing_checkpoint_is_named():
    with pytest.raises(FileNotFoundError, match="checkpoint not found: '/nonexistent/run/last.mazzo.zip'"):
        check_args(parse_args(Args, [*BASE, "--init_from", "ppo:/nonexistent/run/last.mazzo.zip"]))


def test_a_matching_pretrained_actor_is_accepted():
    args = parse_args(Args, [*BASE, "--init_from", "pretrained:picchetto", "--net_arch", "[128, 128]"])
    check_args(args)


def test_a_run_saved_before_the_new_keys_still_resumes(first_run, tmp_path):
    """Its config has no init_from or critic_warmup: they were their defaults then."""
    state, arrays = read_train_state(first_run / STATE_NAME, STATE_FORMAT)
    for key in ("init_from", "critic_warmup"):
        del state["config"][key]
    save_train_state(first_run / STATE_NAME, STATE_FORMAT, state, arrays)
    resume = ["--resume", str(first_run / "last.mazzo.zip")]
    check_resume(parse_args(Args, resume_argv([*resume, "--total_timesteps", "2000"])))
    with pytest.raises(ConfigError, match="critic_warmup: 0 in that run, 5 here"):
        check_resume(parse_args(Args, resume_argv([*resume, "--critic_warmup", "5"])))


@pytest.mark.slow  # a short run in a fresh process
def test_a_run_that_reads_a_checkpoint_before_training_still_pins_its_numerics(tmp_path):
    """init_from (and a ppo: opponent) load torch while the config is checked: the pins must come before that."""
    import json
    import os
    import subprocess
    import sys

    env = {"PATH": os.environ.get("PATH", "/usr/bin:/bin"), "HOME": str(tmp_path), "PYTHONPATH": str(ROOT)}
    argv = [*BASE, "--net_arch", "[128, 128]", "--init_from", "pretrained:picchetto", "--total_timesteps", "300",
            "--opponents", "[pretrained:picchetto]", "--runs_dir", str(tmp_path / "runs")]
    out = subprocess.run([sys.executable, "-m", "train.batched", *argv], cwd=ROOT, capture_output=True, text=True,
                         timeout=600, env=env)
    assert out.returncode == 0, out.stderr[-3000:]
    assert "numerics not pinned" not in out.stdout + out.stderr
    (folder,) = (tmp_path / "runs").iterdir()
    numerics = json.loads((folder / "final_eval.json").read_text())["numerics"]
    assert numerics["pinned"] and numerics["mkl_cbwr"] == "COMPATIBLE"


def test_the_checkpoints_name_the_file_the_run_started_from(first_run, tmp_path):
    import hashlib

    from agents.checkpoint import read_metadata

    start = first_run / "last.mazzo.zip"
    run = main([*BASE, "--total_timesteps", "600", "--init_from", str(start), "--runs_dir", str(tmp_path)])
    record = read_metadata(run / "last.mazzo.zip")["init_from"]
    assert record == {"spec": str(start), "file": str(start), "sha256": hashlib.sha256(start.read_bytes()).hexdigest()}
    assert "init_from" not in read_metadata(start)
