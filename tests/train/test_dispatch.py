"""`python -m train`: the trainer a config names runs it; every registered trainer has the same three names; a run
folder is named {game}__{exp}__{seed}__{YYYYmmdd-HHMMSS} and prints its config once."""

from __future__ import annotations

import re
from pathlib import Path

import pytest
import yaml

from envs.core.errors import ConfigError
from train.args import BaseArgs, default_of
from train.config import load_config
from train.dispatch import trainer_of
from train.registry import DEFAULT, TRAINERS, trainer_module

ROOT = Path(__file__).resolve().parents[2]


def _config(tmp_path: Path, name: str, **keys) -> str:
    path = tmp_path / name
    path.write_text(yaml.safe_dump(keys))
    return str(path)


@pytest.mark.parametrize("name", sorted(TRAINERS))
def test_every_trainer_has_args_checks_and_main(name):
    trainer = trainer_module(name)
    assert issubclass(trainer.Args, BaseArgs) and default_of(trainer.Args, "trainer") == name
    assert callable(trainer.check_args) and callable(trainer.main)
    assert trainer.check_args(trainer.Args())["game"] == "briscola5"  # the defaults are a valid config


def test_the_trainer_comes_from_the_command_line_the_config_the_resumed_run_or_the_default(tmp_path):
    batched = _config(tmp_path, "b.yaml", game="picchetto", trainer="batched")
    old = _config(tmp_path, "old.yaml", game="picchetto", engine="batched")  # the key's older name
    plain = _config(tmp_path, "p.yaml", game="picchetto")
    assert trainer_of(["--config", batched]) == "batched" and trainer_of(["--config", old]) == "batched"
    assert trainer_of(["--config", plain]) == DEFAULT == "sb3"
    assert trainer_of(["--config", batched, "--trainer", "rllib"]) == "rllib"  # the command line wins
    run = tmp_path / "runs" / "picchetto__x__1__20260101-000000"
    run.mkdir(parents=True)
    (run / "config.yaml").write_text("trainer: batched\n")
    assert trainer_of(["--resume", str(run / "last.mazzo.zip")]) == "batched"
    assert trainer_of(["--resume", str(run)]) == "batched"
    assert trainer_of(["--config", plain, "--resume", str(run / "last.mazzo.zip")]) == "batched"  # config silent
    sb3_run = tmp_path / "runs" / "picchetto__y__1__20260101-000000"
    sb3_run.mkdir()
    (sb3_run / "config.yaml").write_text("game: picchetto\n")  # before the key: the default
    assert trainer_of(["--resume", str(sb3_run / "last.zip")]) == "sb3"
    assert trainer_of(["--config", batched, "--resume", str(sb3_run / "last.zip")]) == "batched"  # the config first
    with pytest.raises(ConfigError, match="invalid value 'jax' for 'trainer'; allowed: sb3, batched, rllib"):
        trainer_of(["--config", _config(tmp_path, "j.yaml", trainer="jax")])


def test_a_trainer_refuses_another_trainers_config_by_name(tmp_path):
    from train.sb3 import Args

    with pytest.raises(ConfigError, match="invalid value 'batched' for 'trainer': these are the Args of the 'sb3'"):
        load_config(Args, ROOT / "configs/picchetto/ppo_batched.yaml")
    assert load_config(Args, _config(tmp_path, "e.yaml", engine="sb3")).trainer == "sb3"


def test_a_run_prints_its_config_once_and_names_its_folder_by_local_time(tmp_path, capsys, monkeypatch):
    pytest.importorskip("torch")
    from train.dispatch import main

    monkeypatch.chdir(ROOT)
    run = main(["--config", "configs/picchetto/ppo.yaml", "--total_timesteps", "64", "--n_envs", "1", "--n_steps",
                "64", "--batch_size", "64", "--n_epochs", "1", "--eval_every", "0", "--eval_deals", "1",
                "--final_deals", "1", "--net_arch", "[8]", "--reference_levels", "false", "--eval_opponents",
                "[random]", "--progress", "false", "--runs_dir", str(tmp_path)])
    out = capsys.readouterr().out
    assert re.fullmatch(r"picchetto__ppo__1__\d{8}-\d{6}", run.name)
    assert out.count("exp_name: ppo") == 1 and out.count("eval_opponents:") == 1  # printed once, at the start
    assert out.index("exp_name: ppo") < out.index("# Training report")
    assert "## Config" in (run / "report.md").read_text() and "## Config" not in out  # the report file keeps it
    assert "python -m train --config configs/picchetto/ppo.yaml" in (run / "report.md").read_text()


def test_engine_beside_trainer_rllib_is_what_its_env_runners_step(tmp_path):
    """Issue 23 names RLlib's batched engine `engine: batched`: beside `trainer: rllib` the key is `env_engine`;
    alone it stays the older name of `trainer`; beside another trainer it may only repeat it."""
    from train.rllib.args import Args, check_args

    keys = yaml.safe_load((ROOT / "configs/briscola5/rllib_batched.yaml").read_text())
    assert keys.pop("env_engine") == "batched"
    path = _config(tmp_path, "r.yaml", **keys, engine="batched")
    assert trainer_of(["--config", path]) == "rllib"
    args = load_config(Args, path)
    assert args.env_engine == "batched" and args.trainer == "rllib" and check_args(args)["game"] == "briscola5"
    aec = ROOT / "configs/briscola5/rllib.yaml"
    assert trainer_of(["--config", str(aec), "--engine", "batched"]) == "rllib"  # the command line, the same
    assert load_config(Args, aec, {"engine": "batched"}).env_engine == "batched"
    assert load_config(Args, aec).env_engine == "aec"
    with pytest.raises(ConfigError, match="'engine: aec' and 'env_engine: batched' disagree"):
        load_config(Args, _config(tmp_path, "x.yaml", trainer="rllib", engine="aec", env_engine="batched"))
    with pytest.raises(ConfigError, match="'engine: batched' and 'trainer: sb3' disagree"):
        load_config(Args, _config(tmp_path, "y.yaml", trainer="sb3", engine="batched"))


def test_env_on_the_command_line_replaces_the_files_flags_and_env_dot_flag_goes_on_top(tmp_path):
    """``--env {...}`` overrides the config file's ``env`` as any key does (it was silently dropped), and
    ``--env.FLAG VALUE`` sets one flag on top of whichever mapping holds."""
    from train.batched.args import Args
    from train.config import parse_args

    path = _config(tmp_path, "b.yaml", game="briscola5", trainer="batched", env={"min_bid": 65})
    assert parse_args(Args, ["--config", path]).env == {"min_bid": 65}
    assert parse_args(Args, ["--config", path, "--env", "{bid_multiplier_on_loss: true}"]).env == {
        "bid_multiplier_on_loss": True}
    assert parse_args(Args, ["--config", path, "--env.bid_multiplier_on_loss", "true"]).env == {
        "min_bid": 65, "bid_multiplier_on_loss": True}
    both = parse_args(Args, ["--config", path, "--env", "{num_hands: 5}", "--env.min_bid", "70"])
    assert both.env == {"num_hands": 5, "min_bid": 70}
