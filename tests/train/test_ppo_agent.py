"""TrainedAgent: safe checkpoints (format, metadata checks, export), playing as the SB3 policy plays."""

from __future__ import annotations

import hashlib
import io
import json
import subprocess
import sys
import zipfile
from pathlib import Path

import numpy as np
import pytest

torch = pytest.importorskip("torch")
from sb3_contrib import MaskablePPO  # noqa: E402

from agents import make_agent  # noqa: E402
from agents.checkpoint import FORMAT, RUN_FORMAT, CheckpointError, UnsafeCheckpointError  # noqa: E402
from agents.trained import (  # noqa: E402
    PRETRAINED_DIR,
    TrainedAgent,
    export_checkpoint,
    read_metadata,
    read_run_metadata,
    save_checkpoint,
    save_policy,
)
from agents.trained import main as trained_cli  # noqa: E402
from envs.core.errors import ConfigError  # noqa: E402
from envs.registry import make_raw_env  # noqa: E402
from train.evaluate import head_to_head  # noqa: E402
from train.imitation import collect, pretrain  # noqa: E402
from train.single_seat import SingleSeatEnv  # noqa: E402

ROOT = Path(__file__).resolve().parents[2]
GAMES = {"briscola5": {}, "pigugnin4": {"num_players": 4, "episode": "hand"}, "picchetto": {"episode": "hand"}}


def game_of(key):
    return "pigugnin" if key == "pigugnin4" else key


def make_model(game, flags, net_arch=(16,), bc=True, **policy_kwargs):
    """A small MaskablePPO; with ``bc`` a few imitation steps of the heuristic give it a peaked policy."""
    env = SingleSeatEnv(game, flags=flags)
    model = MaskablePPO("MlpPolicy", env, n_steps=64, batch_size=64, seed=0, device="cpu",
                        policy_kwargs={"net_arch": list(net_arch), **policy_kwargs})
    if bc:
        pretrain(model.policy, collect(game, "heuristic", flags, episodes=2, seed=0), epochs=3, lr=3e-3, seed=0)
    meta = {"game": game, "flags": flags, "obs_shape": list(env.observation_space.shape),
            "num_actions": int(env.action_space.n), "run_name": "test", "config": {"seed": 0}}
    return model, meta


@pytest.fixture(scope="module")
def ckpts(tmp_path_factory):
    """Per game: the safe checkpoint, the live model, and the SB3 run file saved as the SB3 trainer (train/sb3) does."""
    d = tmp_path_factory.mktemp("ckpt")
    out = {}
    for key, flags in GAMES.items():
        model, meta = make_model(game_of(key), flags)
        out[key] = (save_policy(model, d / f"{key}.mazzo.zip", meta), model, save_checkpoint(model, d / key, meta))
    return out


def observations(game, flags, n, seed=0):
    """``n`` real observations of every seat, from deals played by the heuristic and the random player."""
    env = make_raw_env(game, **flags)
    players = [make_agent("heuristic", game, seed=1), make_agent("random", game, seed=2)]
    out, deal = [], 0
    while len(out) < n:
        env.reset(seed=seed + deal)
        deal += 1
        while not env.episode_over and len(out) < n:
            obs = env.observe(env.agent_selection)
            out.append(obs)
            env.step(players[len(out) % 2].act(obs))
    return out


def test_the_safe_format_members_and_metadata(ckpts):
    path, model, run = ckpts["pigugnin4"]
    assert path.name == "pigugnin4.mazzo.zip"
    with zipfile.ZipFile(path) as z:
        assert sorted(z.namelist()) == ["mazzo.json", "policy.pt"]
        raw = json.loads(z.read("mazzo.json"))
    meta = read_metadata(path)
    assert meta == raw and meta["format"] == FORMAT == "mazzo-policy/1"
    assert meta["game"] == "pigugnin" and meta["obs_shape"] == [546] and meta["num_actions"] == 40
    assert meta["flags"] == {"num_players": 4, "episode": "hand"}
    assert meta["network"] == {"features": "flatten", "shared": [], "pi": [16], "vf": [16], "activation": "Tanh",
                               "share_features_extractor": True}
    assert meta["num_timesteps"] == 0 and meta["run_name"] == "test" and meta["config"] == {"seed": 0}
    # the weights are the actor's only (no value network, no optimizer): a small file
    with zipfile.ZipFile(path) as z:
        tensors = torch.load(io.BytesIO(z.read("policy.pt")), weights_only=True)
    assert sorted(tensors) == ["action_net.bias", "action_net.weight", "policy_net.0.bias", "policy_net.0.weight"]
    assert tensors["policy_net.0.weight"].shape == (16, 546) and tensors["action_net.weight"].shape == (40, 16)
    assert torch.equal(tensors["action_net.weight"], model.policy.action_net.weight)
    # the SB3 run file beside it: mazzo.json with the run format, and SB3 itself still loads it
    assert read_run_metadata(run)["format"] == RUN_FORMAT and read_metadata(run)["game"] == "pigugnin"
    assert MaskablePPO.load(run, device="cpu").num_timesteps == 0


def test_the_same_policy_writes_the_same_bytes(ckpts, tmp_path):
    path, model, _ = ckpts["picchetto"]
    again = save_policy(model, tmp_path / "again.mazzo.zip", read_metadata(path))
    assert again.read_bytes() == path.read_bytes()


@pytest.mark.parametrize("key", list(GAMES))
def test_decisions_and_probabilities_equal_the_sb3_policy(ckpts, key):
    path, model, _ = ckpts[key]
    meta = read_metadata(path)
    agent = make_agent(f"ppo:{path}", meta["game"])
    obs_list = observations(meta["game"], meta["flags"], 200)
    assert len({int(np.flatnonzero(o["action_mask"]).size) for o in obs_list}) > 1  # varied decisions
    agree_with_first_legal = 0
    for obs in obs_list:
        mask = obs["action_mask"].astype(bool)
        expected, _ = model.predict(obs["observation"], action_masks=mask, deterministic=True)
        a = agent.act(obs)
        assert a == int(expected) and mask[a]
        with torch.no_grad():
            x, _ = model.policy.obs_to_tensor(obs["observation"])
            dist = model.policy.get_distribution(x, action_masks=mask.reshape(1, -1))
        assert np.array_equal(agent.probs(obs), dist.distribution.probs[0].numpy())
        agree_with_first_legal += a == int(np.flatnonzero(mask)[0])
    assert agree_with_first_legal < len(obs_list)  # the comparison can fail: it is no trivial policy


def test_sampling_is_seeded_legal_and_follows_the_policy(ckpts):
    path, _, _ = ckpts["briscola5"]
    obs = next(o for o in observations("briscola5", {}, 60) if np.flatnonzero(o["action_mask"]).size >= 3)
    picks = []
    for _ in range(2):
        agent = TrainedAgent(path, "briscola5", seed=3, deterministic=False)
        picks.append([agent.act(obs) for _ in range(4000)])
    assert picks[0] == picks[1]
    assert all(obs["action_mask"][a] for a in picks[0])
    freq = np.bincount(picks[0], minlength=obs["action_mask"].size) / len(picks[0])
    assert np.abs(freq - agent.probs(obs)).max() < 0.03


def test_wrong_game_or_shape_fails_clearly(ckpts):
    path, _, _ = ckpts["pigugnin4"]
    with pytest.raises(ConfigError, match="was trained on 'pigugnin'; it cannot play 'briscola5'"):
        TrainedAgent(path, "briscola5")
    with pytest.raises(ConfigError, match=r"expects observations of shape \(546,\).*this env gives \(672,\)"):
        make_agent(f"ppo:{path}", "pigugnin", flags={"num_players": 5})
    # without flags, the first observation of the wrong shape is refused with the same message
    agent = make_agent(f"ppo:{path}", "pigugnin")
    env5 = make_raw_env("pigugnin", num_players=5)
    env5.reset(seed=0)
    with pytest.raises(ConfigError, match=r"shape \(546,\).*\(672,\)"):
        agent.act(env5.observe(env5.agent_selection))
    # the evaluation tool refuses it before playing
    with pytest.raises(ConfigError, match="672"):
        head_to_head("pigugnin", f"ppo:{path}", "random", num_deals=1, flags={"num_players": 5})


def rewrite(src, dst, meta_update=None, extra=None, drop=()):
    """A copy of a checkpoint with its metadata changed, members added or dropped."""
    with zipfile.ZipFile(src) as zin, zipfile.ZipFile(dst, "w") as zout:
        for name in zin.namelist():
            if name in drop:
                continue
            data = zin.read(name)
            if name == "mazzo.json" and meta_update is not None:
                data = json.dumps({**json.loads(data), **meta_update})
            zout.writestr(name, data)
        for name, data in (extra or {}).items():
            zout.writestr(name, data)
    return dst


def test_missing_foreign_or_malformed_files_fail_clearly(tmp_path, ckpts):
    with pytest.raises(FileNotFoundError, match="checkpoint not found: '.*nothing.mazzo.zip'"):
        TrainedAgent(tmp_path / "nothing.mazzo.zip", "briscola5")
    with pytest.raises(FileNotFoundError, match="checkpoint not found: '.*nothing.zip'"):
        make_agent(f"ppo:{tmp_path / 'nothing.zip'}", "briscola5")
    foreign = tmp_path / "foreign.zip"
    with zipfile.ZipFile(foreign, "w") as z:
        z.writestr("notes.txt", "hello")
    with pytest.raises(CheckpointError, match="not a Mazzo checkpoint: it has no mazzo.json"):
        TrainedAgent(foreign, "briscola5")
    (tmp_path / "junk.zip").write_text("not a zip")
    with pytest.raises(CheckpointError, match="not a checkpoint .zip"):
        TrainedAgent(tmp_path / "junk.zip", "briscola5")
    path, _, _ = ckpts["briscola5"]
    cases = [
        ({"format": "other/9"}, None, (), "unknown checkpoint format 'other/9'; expected 'mazzo-policy/1'"),
        ({"format": "mazzo-policy/2"}, None, (), "unknown checkpoint format 'mazzo-policy/2'"),
        ({"network": {"features": "flatten", "shared": [], "pi": [16], "activation": "Softmax2d"}}, None, (),
         "invalid network.activation 'Softmax2d'"),
        ({"network": {"features": "cnn", "pi": [16], "activation": "Tanh"}}, None, (), "invalid network.features"),
        ({"network": {"features": "flatten", "shared": [64], "pi": [16], "activation": "Tanh"}}, None, (),
         "invalid network.shared"),
        ({"obs_shape": [1169, 2]}, None, (), "invalid obs_shape"),
        ({"num_actions": "many"}, None, (), "invalid num_actions"),
        (None, {"notes.txt": "hi"}, (), "holds exactly mazzo.json and policy.pt"),
        (None, None, ("policy.pt",), "holds exactly mazzo.json and policy.pt"),
        # weights that do not fit the network of the metadata
        ({"network": {"features": "flatten", "shared": [], "pi": [32], "activation": "Tanh"}}, None, (),
         r"tensor policy_net.0.weight of policy.pt should be float32 of shape \(32, 1169\)"),
        ({"network": {"features": "flatten", "shared": [], "pi": [16, 16], "activation": "Tanh"}}, None, (),
         "does not hold the tensors of the network"),
    ]
    for i, (update, extra, drop, message) in enumerate(cases):
        odd = rewrite(path, tmp_path / f"odd{i}.mazzo.zip", update, extra, drop)
        with pytest.raises(CheckpointError, match=message):
            TrainedAgent(odd, "briscola5")
    bad_json = rewrite(path, tmp_path / "badjson.mazzo.zip", drop=("mazzo.json",), extra={"mazzo.json": "{oops"})
    with pytest.raises(CheckpointError, match="mazzo.json is not JSON"):
        TrainedAgent(bad_json, "briscola5")
    with pytest.raises(FileNotFoundError, match="no pretrained checkpoint 'scopa'.*available: briscola5, briscola5_expert, briscola5_hardened, briscola5_v1, "
                                                "picchetto, picchetto_distilled, picchetto_expert, picchetto_v1, pigugnin, pigugnin_5p, pigugnin_distilled, pigugnin_distilled_5p, "
                                                "pigugnin_expert, "
                                                "pigugnin_v1, pigugnin_v1_5p"):
        make_agent("pretrained:scopa", "briscola5")


def test_an_sb3_run_file_is_refused_with_the_way_out(ckpts, tmp_path):
    safe, _, fixture_run = ckpts["picchetto"]
    run = tmp_path / "picchetto.zip"
    run.write_bytes(fixture_run.read_bytes())
    # the SB3 trainer's run file with its safe copy beside it: the error names the copy
    beside = tmp_path / "picchetto.mazzo.zip"
    beside.write_bytes(safe.read_bytes())
    with pytest.raises(UnsafeCheckpointError, match=r"is a Stable-Baselines3 run file .*can run code when loaded; "
                                                    r"Mazzo plays only safe checkpoints \(mazzo-policy/1\): its safe "
                                                    r"copy is beside it: .*picchetto.mazzo.zip"):
        make_agent(f"ppo:{run}", "picchetto")
    beside.unlink()
    with pytest.raises(UnsafeCheckpointError, match=r"convert a file you trust with `python -m agents.trained "
                                                    r"export .*picchetto.zip .*picchetto.mazzo.zip`"):
        TrainedAgent(run, "picchetto")
    # and resuming refuses a play-only checkpoint, pointing to the run file
    with pytest.raises(CheckpointError, match="play-only checkpoint .*runs/<run>/last.zip"):
        read_run_metadata(safe)


def test_export_converts_a_trusted_run_file(ckpts, tmp_path, capsys):
    safe, model, run = ckpts["briscola5"]
    trained_cli(["export", str(run), str(tmp_path / "b5.mazzo.zip")])
    assert "b5.mazzo.zip" in capsys.readouterr().out
    assert (tmp_path / "b5.mazzo.zip").read_bytes() == safe.read_bytes()  # the very file the SB3 trainer writes
    # a plain SB3 file (no mazzo.json) needs the game; its shape is checked against the game's
    plain = tmp_path / "plain.zip"
    model.save(plain)
    with pytest.raises(CheckpointError, match=r"has no mazzo.json .*give the game"):
        export_checkpoint(plain, tmp_path / "plain.mazzo.zip")
    with pytest.raises(SystemExit, match="error: .*give the game"):
        trained_cli(["export", str(plain), str(tmp_path / "plain.mazzo.zip")])
    out = export_checkpoint(plain, tmp_path / "plain.mazzo.zip", game="briscola5")
    agent = TrainedAgent(out, "briscola5", flags={})
    obs = observations("briscola5", {}, 30)
    assert [agent.act(o) for o in obs] == [TrainedAgent(safe, "briscola5").act(o) for o in obs]
    # a safe checkpoint is checked and copied
    assert export_checkpoint(safe, tmp_path / "copy.mazzo.zip").read_bytes() == safe.read_bytes()


def test_policies_the_format_cannot_rebuild_are_refused(tmp_path):
    model, meta = make_model("picchetto", {"episode": "hand"}, net_arch=(), bc=False)
    assert read_metadata(save_policy(model, tmp_path / "linear.mazzo.zip", meta))["network"]["pi"] == []
    model, meta = make_model("picchetto", {"episode": "hand"}, net_arch=(8, 4), bc=False, activation_fn=torch.nn.ReLU)
    path = save_policy(model, tmp_path / "relu.mazzo.zip", meta)
    assert read_metadata(path)["network"]["activation"] == "ReLU"
    obs = observations("picchetto", {"episode": "hand"}, 20)
    agent = TrainedAgent(path, "picchetto")
    for o in obs:
        expected, _ = model.predict(o["observation"], action_masks=o["action_mask"].astype(bool), deterministic=True)
        assert agent.act(o) == int(expected)
    model, meta = make_model("picchetto", {"episode": "hand"}, bc=False, activation_fn=torch.nn.Hardswish)
    with pytest.raises(CheckpointError, match="cannot be saved as mazzo-policy/1"):
        save_policy(model, tmp_path / "hs.mazzo.zip", meta)
    assert not (tmp_path / "hs.mazzo.zip").exists()


def test_from_model_plays_the_live_policy(ckpts):
    _, model, _ = ckpts["picchetto"]
    meta = read_metadata(ckpts["picchetto"][0])
    agent = TrainedAgent.from_model(model, "picchetto", meta)
    for o in observations("picchetto", {"episode": "hand"}, 30):
        expected, _ = model.predict(o["observation"], action_masks=o["action_mask"].astype(bool), deterministic=True)
        assert agent.act(o) == int(expected)


def test_trained_agent_as_an_opponent_in_the_pool(ckpts):
    path, _, _ = ckpts["briscola5"]
    env = SingleSeatEnv("briscola5", opponents=f"ppo:{path}")
    env.reset(seed=0)
    assert all(isinstance(a, TrainedAgent) for a in env.seated.values())
    done = False
    while not done:
        *_, term, trunc, _ = env.step(int(np.flatnonzero(env.action_masks())[0]))
        done = term or trunc


@pytest.mark.parametrize("name", ["briscola5", "pigugnin", "picchetto", "briscola5_v1", "pigugnin_v1", "picchetto_v1"])
def test_pretrained_checkpoints_load_by_name(name):
    """The current checkpoints and the ones they replaced (``_v1``: the published strength tables' players)."""
    game = name.removesuffix("_v1")
    path = PRETRAINED_DIR / f"{name}.mazzo.zip"
    if not path.exists():
        pytest.fail(f"agents/pretrained/{name}.mazzo.zip is missing")
    assert not (PRETRAINED_DIR / f"{game}.zip").exists()  # the old SB3 files are gone
    agent = make_agent(f"pretrained:{name}", game)
    meta = agent.meta
    assert meta["game"] == game and meta["format"] == FORMAT and agent.name == f"pretrained:{name}"
    assert path.stat().st_size < 2_000_000
    r = head_to_head(game, f"pretrained:{name}", "random", num_deals=3, flags=meta["flags"])
    assert r["n_deals"] == 3


@pytest.mark.parametrize("name, players, provenance, made_from", [
    # PIMC distilled into 3 x 512, then PPO: benchmarks/finetune_wide.md's stage 2
    ("pigugnin_distilled", 4, ("init_from", "spec"), "finetune_wide"),
    # five players: PIMC distilled into 3 x 512, one on-policy round (benchmarks/distill_pimc.md), 9M PPO steps
    # (benchmarks/finetune_wide5.md), then 4M against its exploiter (benchmarks/finetune_hardened5.md) from the
    # file that had shipped under this name: its sha256
    ("pigugnin_distilled_5p", 5, ("init_from", "sha256"), "7dd677c44185749bf3593af4cc38ba43b4db14af0394d8194ef6cf86aa05c270"),
    # expert iteration from pigugnin_distilled: PIMC with its playouts was the teacher (benchmarks/distill_pimc.md)
    ("pigugnin_expert", 4, ("distilled", "teacher"), "pimc:playout=pretrained:pigugnin_distilled"),
])
def test_the_wide_pigugnin_checkpoints_play_only_their_player_count(name, players, provenance, made_from):
    """The 3 x 512 Pigugnìn checkpoints: each file is for one player count and refuses the other with the reason
    instead of playing a network trained for it. ``pretrained:pigugnin_distilled`` at five players is its
    ``_5p`` file; ``pigugnin_expert`` has none, so it refuses five players."""
    path = PRETRAINED_DIR / f"{name}.mazzo.zip"
    if not path.exists():
        pytest.fail(f"agents/pretrained/{name}.mazzo.zip is missing")
    flags = {"num_players": players, "episode": "hand"}
    agent = make_agent(f"pretrained:{name.removesuffix('_5p')}", "pigugnin", flags=flags)
    assert Path(agent.path).name == path.name
    assert agent.meta["network"]["pi"] == [512, 512, 512] and agent.meta["network"]["activation"] == "ReLU"
    assert agent.meta["flags"] == flags and path.stat().st_size < 4_000_000
    section, key = provenance
    assert made_from in agent.meta[section][key]
    r = head_to_head("pigugnin", f"pretrained:{name}", "random", num_deals=3, flags=flags)
    assert r["n_deals"] == 3
    with pytest.raises(ConfigError, match="same num_players"):  # the file itself, at the other player count
        make_agent(f"ppo:{path}", "pigugnin", flags={"num_players": 9 - players})
    if name == "pigugnin_expert":  # and by name: no five-player file to fall back on
        with pytest.raises(ConfigError, match="same num_players"):
            make_agent(f"pretrained:{name}", "pigugnin", flags={"num_players": 5})


def _moves_that_differ(game: str, agent, other, deals: int, **flags) -> int:
    """Hands of ``game`` (seeds 0..deals-1) played by ``agent`` at every seat: how many of its moves ``other``
    would have played differently."""
    env = make_raw_env(game, **flags)
    differ = 0
    for deal in range(deals):
        env.reset(seed=deal)
        for _seat in env.agent_iter():
            obs, _, done, trunc, _ = env.last()
            if done or trunc:
                env.step(None)
                continue
            move = agent.act(obs)
            differ += move != other.act(obs)
            env.step(move)
    return differ


def test_the_hardened_briscola_checkpoint_records_its_recipe_and_its_start():
    """``pretrained:briscola5_hardened``: ``pretrained:briscola5`` fine-tuned 36M steps against whole tables of the
    heuristic or of the cheating ``heuristic-seer:10`` (``configs/briscola5/learning_finetune_seer_tables.yaml``
    and two resumes). The file names that recipe and the sha256 of the file it started from, keeps the shipped
    network's shape, and plays differently from it, or it would be the same player under a new name."""
    path = PRETRAINED_DIR / "briscola5_hardened.mazzo.zip"
    if not path.exists():
        pytest.fail("agents/pretrained/briscola5_hardened.mazzo.zip is missing")
    agent = make_agent("pretrained:briscola5_hardened", "briscola5")
    config = agent.meta["config"]
    assert config["opponents"] == ["heuristic", "heuristic-seer:10"] and config["opponent_draw"] == "table"
    assert config["critic"] == "oracle" and agent.meta["num_timesteps"] >= 36_000_000
    start = PRETRAINED_DIR / "briscola5.mazzo.zip"
    assert agent.meta["init_from"]["sha256"] == hashlib.sha256(start.read_bytes()).hexdigest()
    assert agent.meta["network"]["pi"] == [128, 128] and path.stat().st_size < 1_000_000
    assert _moves_that_differ("briscola5", agent, make_agent("pretrained:briscola5", "briscola5"), deals=3) > 0
    r = head_to_head("briscola5", "pretrained:briscola5_hardened", "random", num_deals=3)
    assert r["n_deals"] == 3


def test_the_briscola_expert_checkpoint_names_its_teacher_and_departs_from_the_hardened_file():
    """``pretrained:briscola5_expert``: ``pretrained:briscola5_hardened`` after three rounds of expert iteration
    (``benchmarks/distill_pimc.md``, expert_hardened1 to expert_hardened3): PIMC playing out with the hardened file
    labelled the rounds' own hands with its values. The file names that teacher and the objective, keeps the 2 x 128
    network, and plays differently from the hardened file, or it would be the same player under a new name."""
    path = PRETRAINED_DIR / "briscola5_expert.mazzo.zip"
    if not path.exists():
        pytest.fail("agents/pretrained/briscola5_expert.mazzo.zip is missing")
    agent = make_agent("pretrained:briscola5_expert", "briscola5")
    assert Path(agent.path).name == path.name and path.stat().st_size < 1_000_000
    assert agent.meta["network"]["pi"] == [128, 128] and agent.meta["flags"] == {}
    distilled = agent.meta["distilled"]
    assert distilled["teacher"] == "pimc:playout=pretrained:briscola5_hardened" and distilled["objective"] == "q"
    hardened = make_agent("pretrained:briscola5_hardened", "briscola5")
    assert _moves_that_differ("briscola5", agent, hardened, deals=3) > 0
    r = head_to_head("briscola5", "pretrained:briscola5_expert", "random", num_deals=3)
    assert r["n_deals"] == 3


@pytest.mark.parametrize("name, teacher, start", [
    # on-policy rounds of default PIMC's values, on the trick play, then on every phase (benchmarks/distill_pimc.md,
    # dagger_tricks to dagger_tricks7, then dagger_all8 and dagger_fresh9 to dagger_fresh12); "pimc" then had the
    # defaults that pimc-v1 keeps
    ("picchetto_distilled", "pimc", "picchetto"),
    # expert iteration from it (expert1 to expert3): the teacher is PIMC playing out with picchetto_distilled, which
    # therefore keeps its name and file
    ("picchetto_expert", "pimc:playout=pretrained:picchetto_distilled", "picchetto_distilled"),
])
def test_the_picchetto_checkpoints_taught_by_a_search(name, teacher, start):
    """``pretrained:picchetto_distilled`` and ``pretrained:picchetto_expert``: the 2 x 128 network after rounds of a
    search's values on every phase, the teacher named in the file; each plays a hand and departs from the network it
    started from somewhere in a few deals, or it would be the same player under a new name."""
    path = PRETRAINED_DIR / f"{name}.mazzo.zip"
    if not path.exists():
        pytest.fail(f"agents/pretrained/{name}.mazzo.zip is missing")
    agent = make_agent(f"pretrained:{name}", "picchetto", flags={"episode": "hand"})
    assert Path(agent.path).name == path.name and path.stat().st_size < 1_000_000
    assert agent.meta["network"]["pi"] == [128, 128] and agent.meta["flags"] == {"episode": "hand"}
    distilled = agent.meta["distilled"]
    assert distilled["teacher"] == teacher and distilled["roles"] == ["exchange", "early_tricks", "last_tricks"]
    before = make_agent(f"pretrained:{start}", "picchetto", flags={"episode": "hand"})
    assert _moves_that_differ("picchetto", agent, before, deals=4, episode="hand") > 0
    r = head_to_head("picchetto", f"pretrained:{name}", "random", num_deals=3, flags={"episode": "hand"})
    assert r["n_deals"] == 3


def test_pretrained_picks_the_checkpoint_trained_for_the_player_count():
    four = make_agent("pretrained:pigugnin", "pigugnin", flags={"num_players": 4})
    five = make_agent("pretrained:pigugnin", "pigugnin", flags={"num_players": 5})
    assert Path(four.path).name == "pigugnin.mazzo.zip" and four.meta["flags"]["num_players"] == 4
    assert Path(five.path).name == "pigugnin_5p.mazzo.zip" and five.meta["flags"]["num_players"] == 5
    assert five.name == "pretrained:pigugnin"
    flags = {"num_players": 5, "episode": "hand"}
    r = head_to_head("pigugnin", "pretrained:pigugnin", "random", num_deals=2, flags=flags)
    assert r["n_deals"] == 2
    # the five-player checkpoint, asked for by its file name for four players, refuses with the reason
    with pytest.raises(ConfigError, match="same num_players"):
        make_agent("pretrained:pigugnin_5p", "pigugnin", flags={"num_players": 4})
    old_five = make_agent("pretrained:pigugnin_v1", "pigugnin", flags={"num_players": 5})
    assert Path(old_five.path).name == "pigugnin_v1_5p.mazzo.zip" and old_five.meta["flags"]["num_players"] == 5


def test_agents_import_and_read_metadata_without_torch():
    code = (
        "import sys\n"
        "class Block:\n"
        "    def find_spec(self, name, path=None, target=None):\n"
        "        if name.split('.')[0] in ('torch', 'stable_baselines3', 'sb3_contrib'):\n"
        "            raise ImportError('blocked ' + name)\n"
        "sys.meta_path.insert(0, Block())\n"
        "import agents, agents.trained, agents.checkpoint\n"
        "from agents import make_agent\n"
        "from agents.trained import PRETRAINED_DIR, read_metadata\n"
        "make_agent('random', 'briscola5')\n"
        "print(read_metadata(PRETRAINED_DIR / 'pigugnin.mazzo.zip')['game'])\n"
        "try:\n"
        "    make_agent('pretrained:pigugnin', 'pigugnin')\n"
        "except ImportError as e:\n"
        "    print('needs', e)\n"
    )
    out = subprocess.run([sys.executable, "-c", code], cwd=ROOT, capture_output=True, text=True, timeout=120)
    assert out.returncode == 0, out.stderr
    assert out.stdout.splitlines() == ["pigugnin", "needs blocked torch"]
