"""The SB3 trainer (train/sb3/, through `python -m train.ppo`) end to end with tiny budgets: every game, resume, self-play, vector envs, bad input."""

from __future__ import annotations

import csv
import json
import pickle
import subprocess
import sys
from pathlib import Path

import pytest

torch = pytest.importorskip("torch")
from stable_baselines3.common.save_util import load_from_zip_file  # noqa: E402

from agents import make_agent  # noqa: E402
from agents.trained import TrainedAgent, read_metadata  # noqa: E402
from envs.core.errors import ConfigError  # noqa: E402
from train.config import load_config, parse_args  # noqa: E402
from train.evaluate import head_to_head  # noqa: E402
from train.ppo import main  # noqa: E402
from train.sb3 import Args  # noqa: E402
from train.single_seat import SingleSeatEnv  # noqa: E402

ROOT = Path(__file__).resolve().parents[2]
GAMES = ("briscola5", "pigugnin", "picchetto")
TINY = ["--total_timesteps", "256", "--n_envs", "2", "--n_steps", "64", "--batch_size", "64", "--n_epochs", "1",
        "--eval_every", "128", "--eval_deals", "2", "--final_deals", "2", "--net_arch", "[16]", "--progress", "false"]
# Even smaller, in-process, for the exactness checks.
FAST = [*TINY, "--reference_levels", "false", "--eval_opponents", "[random]"]


def rows(path: Path) -> list[dict[str, str]]:
    with path.open() as f:
        return list(csv.DictReader(f))


def run_cli(*args: str, cwd: Path = ROOT) -> subprocess.CompletedProcess:
    return subprocess.run([sys.executable, "-m", "train.ppo", *args], cwd=cwd, capture_output=True, text=True,
                          timeout=600, env={"PATH": "/usr/bin:/bin", "OMP_NUM_THREADS": "1", "PYTHONPATH": str(ROOT)})


def policy_params(path: Path) -> dict:
    return load_from_zip_file(path, device="cpu")[1]["policy"]


def same_params(a: Path, b: Path) -> bool:
    pa, pb = policy_params(a), policy_params(b)
    return pa.keys() == pb.keys() and all(torch.equal(pa[k], pb[k]) for k in pa)


@pytest.mark.slow  # a training run: the slow tier
@pytest.mark.parametrize("game", GAMES)
def test_smoke_run_of_each_committed_config(game, tmp_path):
    out = run_cli("--config", f"configs/{game}/ppo.yaml", *TINY, "--runs_dir", str(tmp_path))
    assert out.returncode == 0, out.stderr[-3000:]
    (run,) = tmp_path.iterdir()
    assert run.name.startswith(f"{game}__ppo__1__")
    for name in ("config.yaml", "best.zip", "last.zip", "best.mazzo.zip", "last.mazzo.zip", "last_state.pkl",
                 "metrics.csv", "eval.csv",
                 "final_eval.json", "report.md", "learning_curve.png"):
        assert (run / name).is_file(), name
    assert any((run / "tb").iterdir())  # TensorBoard events
    evals = rows(run / "eval.csv")
    assert [(r["step"], r["opponent"]) for r in evals] == [
        (s, o) for s in ("0", "128", "256") for o in ("heuristic-v1", "random")]
    assert [r["step"] for r in rows(run / "metrics.csv")] == ["128", "256"]
    report = (run / "report.md").read_text()
    assert "## Final evaluation of best.mazzo.zip" in report and "| heuristic-v1 |" in report and "| random |" in report
    assert "heuristic in its seat" in report and "learning_curve.png" in report
    assert (run / "learning_curve.png").read_bytes()[:8] == b"\x89PNG\r\n\x1a\n"
    meta = read_metadata(run / "best.mazzo.zip")
    assert meta["game"] == game and meta["run_name"] == run.name and meta["config"]["game"] == game
    assert meta["format"] == "mazzo-policy/1" and read_metadata(run / "best.zip")["format"] == "mazzo-ppo/1"
    # the result plays as a player, in the evaluation tool and in an opponent pool (the safe checkpoints)
    agent = make_agent(f"ppo:{run / 'best.mazzo.zip'}", game, flags=meta["flags"])
    assert isinstance(agent, TrainedAgent)
    r = head_to_head(game, f"ppo:{run / 'best.mazzo.zip'}", "random", num_deals=2, flags=meta["flags"])
    assert r["n_deals"] == 2
    env = SingleSeatEnv(game, opponents=f"ppo:{run / 'last.mazzo.zip'}", flags=meta["flags"])
    env.reset(seed=0)
    assert all(isinstance(a, TrainedAgent) for a in env.seated.values())
    if game == "picchetto":  # resume the run from its last checkpoint, as a user would
        before = {p.name: p.read_bytes() for p in run.iterdir() if p.is_file()}
        out = run_cli("--config", f"configs/{game}/ppo.yaml", *TINY, "--total_timesteps", "384",
                      "--resume", str(run / "last.zip"))
        assert out.returncode == 0, out.stderr[-3000:]
        (resumed,) = set(tmp_path.iterdir()) - {run}  # its own run folder, beside the one it continues
        assert {p.name: p.read_bytes() for p in run.iterdir() if p.is_file()} == before  # left untouched
        assert [r["step"] for r in rows(resumed / "metrics.csv")] == ["128", "256", "384"]
        assert [r["step"] for r in rows(resumed / "eval.csv")][-2:] == ["384", "384"]
        assert read_metadata(resumed / "last.zip")["num_timesteps"] == 384
        assert f"resumed from `{run / 'last.zip'}`" in (resumed / "report.md").read_text()


@pytest.mark.slow  # a training run: the slow tier
def test_resume_gives_the_same_result_as_an_uninterrupted_run(tmp_path):
    args = ["--game", "briscola5", *FAST]
    straight = main([*args, "--runs_dir", str(tmp_path / "a")])
    first = main([*args, "--total_timesteps", "128", "--runs_dir", str(tmp_path / "b")])
    report = (first / "report.md").read_text()
    resumed = main([*args, "--resume", str(first / "last.zip")])
    assert resumed != first and resumed.parent == first.parent  # a new run folder beside the first one
    assert (first / "report.md").read_text() == report and read_metadata(first / "last.zip")["num_timesteps"] == 128
    assert same_params(straight / "last.zip", resumed / "last.zip")
    assert rows(straight / "eval.csv") == rows(resumed / "eval.csv")
    strip = [{k: v for k, v in r.items() if k != "time"} for r in rows(straight / "metrics.csv")]
    assert strip == [{k: v for k, v in r.items() if k != "time"} for r in rows(resumed / "metrics.csv")]
    # wall time: cumulative over the two segments, and the resumed segment's own
    timing = json.loads((resumed / "final_eval.json").read_text())["timing"]
    assert (timing["segments"], timing["from_step"], timing["to_step"]) == (2, 128, 256)
    assert timing["resumed_from"] == str((first / "last.zip").resolve())
    first_time = float(rows(first / "metrics.csv")[-1]["time"])
    assert timing["wall_time"] >= first_time + timing["segment_time"] - 1.0  # includes the first segment
    assert float(rows(resumed / "metrics.csv")[-1]["time"]) >= first_time
    text = (resumed / "report.md").read_text()
    assert "in total over 2 segments, of which this resumed segment (steps 128 to 256)" in text
    assert "last segment" not in text and "resumed" not in (straight / "report.md").read_text()
    # a different seed trains a different policy (the comparison above can fail)
    other = main([*args, "--seed", "2", "--runs_dir", str(tmp_path / "c")])
    assert not same_params(straight / "last.zip", other / "last.zip")


@pytest.mark.slow  # a training run: the slow tier
def test_subproc_vec_env_trains_the_same_policy(tmp_path):
    args = ["--game", "pigugnin", "--env.episode", "hand", *FAST, "--total_timesteps", "128"]
    dummy = main([*args, "--runs_dir", str(tmp_path / "d")])
    subproc = main([*args, "--vec_env", "subproc", "--runs_dir", str(tmp_path / "s")])
    assert same_params(dummy / "last.zip", subproc / "last.zip")


@pytest.mark.slow
def test_selfplay_adds_frozen_snapshots_to_the_pool(tmp_path):
    run = main(["--game", "picchetto", "--env.episode", "hand", *FAST, "--total_timesteps", "512",
                "--selfplay", "true", "--snapshot_every", "64",
                "--max_snapshots", "2", "--snapshot_share", "1.0", "--runs_dir", str(tmp_path)])
    snaps = sorted((run / "snapshots").glob("*.zip"))
    # snapshots are taken between rollouts (every 128 steps here) once snapshot_every steps have passed
    assert [p.name for p in snaps] == ["step_128.mazzo.zip", "step_256.mazzo.zip", "step_384.mazzo.zip"]
    state = pickle.loads((run / "last_state.pkl").read_bytes())
    env = SingleSeatEnv("picchetto", flags={"episode": "hand"})
    env.set_state(state["envs"][0])
    assert env.pool.snapshots == [f"ppo:{run / 'snapshots' / n}" for n in ("step_256.mazzo.zip", "step_384.mazzo.zip")]
    env.reset()
    assert all(isinstance(a, TrainedAgent) for a in env.seated.values())  # snapshot_share 1: snapshots only
    assert TrainedAgent(snaps[0], "picchetto").meta["num_timesteps"] == 128


def write(tmp_path: Path, text: str) -> str:
    p = tmp_path / "cfg.yaml"
    p.write_text(text)
    return str(p)


@pytest.mark.parametrize(
    ("argv", "error", "message"),
    [
        (["--lerning_rate", "0.1"], ConfigError, "command line: unknown config key 'lerning_rate'; did you mean "
                                                 "'learning_rate'?"),
        (["--n_envs", "two"], ConfigError, "invalid value 'two' for 'n_envs': expected int"),
        (["--n_envs", "0"], ConfigError, "invalid value 0 for 'n_envs'; allowed: an int >= 1"),
        (["--gamma", "1.5"], ConfigError, "invalid value 1.5 for 'gamma'"),
        (["--vec_env", "gpu"], ConfigError, "invalid value 'gpu' for 'vec_env'; allowed: 'dummy', 'subproc'"),
        (["--game", "scopa"], ConfigError, "invalid value 'scopa' for 'game'; allowed: briscola5, pigugnin, picchetto"),
        (["--game", "pigugnin", "--env.num_players", "6"], ConfigError, "num_players"),
        (["--env.bogus", "1"], ConfigError, "bogus"),
        (["--eval_opponents", "[strong]"], ConfigError, "unknown agent 'strong'"),
        (["--opponents", "random,champion"], ConfigError, "unknown agent 'champion'"),
        (["--seat", "7"], ConfigError, "invalid value 7 for 'seat'"),
        (["--resume", "/nonexistent/last.zip"], FileNotFoundError, "checkpoint not found"),
        (["--config", "/nonexistent.yaml"], ConfigError, "config file not found"),
        (["--total_timesteps"], ConfigError, "--total_timesteps needs a value"),
        (["oops"], ConfigError, "expected --KEY VALUE"),
    ],
)
def test_bad_input_fails_before_training(tmp_path, argv, error, message):
    with pytest.raises(error, match=message.replace("(", r"\(").replace("?", r"\?").replace("[", r"\[")):
        main(["--runs_dir", str(tmp_path / "runs"), *argv])
    assert not (tmp_path / "runs").exists()  # nothing was started


def test_bad_config_files(tmp_path):
    with pytest.raises(ConfigError, match=r"cfg.yaml: unknown config key 'totl_timesteps'; did you mean "
                                          r"'total_timesteps'\?"):
        load_config(Args, write(tmp_path, "totl_timesteps: 5\n"))
    with pytest.raises(ConfigError, match="cfg.yaml: invalid value 'fast' for 'learning_rate': expected float"):
        load_config(Args, write(tmp_path, "learning_rate: fast\n"))
    with pytest.raises(ConfigError, match="a config file must be a mapping"):
        load_config(Args, write(tmp_path, "- 1\n- 2\n"))
    args = parse_args(Args, ["--config", write(tmp_path, "seed: 4\nenv: {num_hands: 2}\n"), "--env.min_bid", "70",
                             "--exp_name", "123", "--learning_rate=1e-3"])
    assert (args.seed, args.env, args.exp_name, args.learning_rate) == (4, {"num_hands": 2, "min_bid": 70}, "123", 1e-3)


def test_resume_from_another_game_is_refused(tmp_path):
    run = main(["--game", "picchetto", "--env.episode", "hand", *FAST, "--total_timesteps", "128",
                "--runs_dir", str(tmp_path)])
    with pytest.raises(ConfigError, match="cannot resume from .*game='picchetto', this config has game='briscola5'"):
        main(["--game", "briscola5", *FAST, "--resume", str(run / "last.zip")])
    with pytest.raises(ConfigError, match="cannot resume from .*obs_shape=\\[546\\].*obs_shape=\\[672\\]"):
        pig = main(["--game", "pigugnin", "--env.episode", "hand", *FAST, "--total_timesteps", "128",
                    "--runs_dir", str(tmp_path / "p")])
        main(["--game", "pigugnin", "--env.num_players", "5", *FAST, "--resume", str(pig / "last.zip")])


def test_cli_errors_and_help():
    out = run_cli("--config", "configs/briscola5/ppo.yaml", "--lerning_rate", "1")
    assert out.returncode == 2
    assert out.stderr.startswith("error: command line: unknown config key 'lerning_rate'")
    assert "Traceback" not in out.stderr
    out = run_cli("--help")
    assert out.returncode == 0
    assert "--total_timesteps (default: 200000)" in out.stdout and "learner decisions to train for" in out.stdout


TRAINER_CONFIGS = sorted(str(p.relative_to(ROOT)) for p in (ROOT / "configs").glob("*/*.yaml") if p.stem != "exploit")


@pytest.mark.parametrize("game", sorted(p.parent.name for p in (ROOT / "configs").glob("*/exploit.yaml")))
def test_committed_probe_configs_are_valid(game):
    """configs/<game>/exploit.yaml are the exploitability probe's (train/exploit/config.py), not a trainer's."""
    from train.exploit.config import learner_args, load_probe_config

    cfg = load_probe_config(game)
    args, _ = learner_args(cfg, "heuristic")
    assert cfg.game == game and args.game == game


@pytest.mark.parametrize("path", TRAINER_CONFIGS)
def test_committed_configs_are_valid(path):
    """Each config names its trainer and is valid for it (the checks of every trainer need neither torch nor Ray)."""
    from train.dispatch import trainer_of
    from train.registry import trainer_module

    name = trainer_of(["--config", str(ROOT / path)])
    stem = Path(path).stem
    batched = "batched" in stem or "pretrained" in stem or stem.startswith("learning")  # learning*: the scaling study's recipes
    assert name == ("rllib" if stem.startswith("rllib") else "batched" if batched else "sb3")
    trainer = trainer_module(name)
    args = load_config(trainer.Args, ROOT / path)
    meta = trainer.check_args(args)
    assert args.game == Path(path).parent.name == meta["game"] and args.trainer == name


@pytest.mark.slow  # a training run: the slow tier
def test_two_runs_of_the_same_config_give_identical_numbers(tmp_path):
    """What `make train` promises: the same config and seed, run twice (fresh processes), the same numbers."""
    argv = ["--config", "configs/briscola5/ppo.yaml", "--total_timesteps", "1024", "--n_envs", "2", "--n_steps",
            "128", "--batch_size", "64", "--n_epochs", "2", "--net_arch", "[32, 32]", "--eval_every", "512",
            "--eval_deals", "3", "--final_deals", "3", "--progress", "false"]
    runs = []
    for name in ("a", "b"):
        out = run_cli(*argv, "--runs_dir", str(tmp_path / name))
        assert out.returncode == 0, out.stderr[-3000:]
        (run,) = (tmp_path / name).iterdir()
        runs.append(run)
    a, b = runs
    assert (a / "eval.csv").read_bytes() == (b / "eval.csv").read_bytes()
    assert len(rows(a / "eval.csv")) == 3 * 2  # steps 0, 512, 1024 x heuristic, random
    strip = [{k: v for k, v in r.items() if k != "time"} for r in rows(a / "metrics.csv")]
    assert strip == [{k: v for k, v in r.items() if k != "time"} for r in rows(b / "metrics.csv")]
    assert all(r["loss"] not in ("", None) for r in strip[1:])  # the losses themselves are compared
    fa, fb = (json.loads((r / "final_eval.json").read_text()) for r in runs)
    assert fa["rows"] == fb["rows"] and fa["best_step"] == fb["best_step"]
    assert same_params(a / "last.zip", b / "last.zip")
    # what the numbers depend on is pinned by the command line and recorded
    assert read_metadata(a / "last.zip")["config"]["torch_threads"] == 1
    n = fa["numerics"]
    assert n["pinned"] is True and n["threads"] == 1 and n["mkl_cbwr"] == "AVX2,STRICT" and n["torch"] == torch.__version__
    cpuinfo = Path("/proc/cpuinfo")
    if cpuinfo.exists() and " avx2" in cpuinfo.read_text():  # an x86-64 CPU with AVX2: ATen's AVX2 kernels
        assert n["cpu_capability"] == "AVX2"
    assert "* numerics: torch" in (a / "report.md").read_text()


def test_total_timesteps_is_rounded_up_to_whole_rollouts(tmp_path, capsys):
    run = main(["--game", "briscola5", *FAST, "--total_timesteps", "200", "--eval_every", "0",
                "--runs_dir", str(tmp_path)])
    assert "total_timesteps: 200 rounded up to 256" in capsys.readouterr().out
    assert read_metadata(run / "last.zip")["num_timesteps"] == 256  # two rollouts of 2 envs x 64 steps
    assert load_config(Args, run / "config.yaml").total_timesteps == 256  # recorded as run
    assert [r["step"] for r in rows(run / "metrics.csv")] == ["128", "256"]
    assert "* steps: 256," in (run / "report.md").read_text()
    # already whole rollouts: unchanged and nothing printed about it
    same = main(["--game", "briscola5", *FAST, "--total_timesteps", "128", "--runs_dir", str(tmp_path / "b")])
    assert "rounded" not in capsys.readouterr().out
    assert load_config(Args, same / "config.yaml").total_timesteps == 128


def test_one_deal_evaluations_run_and_report_n_a(tmp_path):
    run = main(["--game", "picchetto", "--env.episode", "hand", *TINY, "--total_timesteps", "128",
                "--eval_deals", "1", "--final_deals", "1", "--runs_dir", str(tmp_path)])
    report = (run / "report.md").read_text()
    assert "[n/a]" in report and "| 1 |" in report
    assert rows(run / "eval.csv")[0]["low"] == ""  # no interval on one deal
