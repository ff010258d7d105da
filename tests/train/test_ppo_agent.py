"""TrainedAgent: loading checkpoints, the metadata checks, playing through the agents' protocol."""

from __future__ import annotations

import json
import zipfile

import numpy as np
import pytest

torch = pytest.importorskip("torch")
from sb3_contrib import MaskablePPO  # noqa: E402

from agents import make_agent  # noqa: E402
from agents.trained import PRETRAINED_DIR, TrainedAgent, read_metadata, save_checkpoint, slim_checkpoint  # noqa: E402
from envs.core.errors import ConfigError  # noqa: E402
from envs.registry import make_raw_env  # noqa: E402
from train.evaluate import head_to_head  # noqa: E402
from train.single_seat import SingleSeatEnv  # noqa: E402


def make_checkpoint(path, game, flags=None):
    """An untrained MaskablePPO saved like train/ppo.py does (no training: fast)."""
    flags = flags or {}
    env = SingleSeatEnv(game, flags=flags)
    model = MaskablePPO("MlpPolicy", env, n_steps=64, batch_size=64, policy_kwargs={"net_arch": [16]}, seed=0,
                        device="cpu")
    meta = {"game": game, "flags": flags, "obs_shape": list(env.observation_space.shape),
            "num_actions": int(env.action_space.n), "run_name": "test"}
    return save_checkpoint(model, path, meta), model


@pytest.fixture(scope="module")
def ckpts(tmp_path_factory):
    d = tmp_path_factory.mktemp("ckpt")
    return {
        "briscola5": make_checkpoint(d / "b5.zip", "briscola5"),
        "pigugnin4": make_checkpoint(d / "pig4", "pigugnin", {"num_players": 4, "episode": "hand"}),
        "picchetto": make_checkpoint(d / "pic.zip", "picchetto", {"episode": "hand"}),
    }


def test_metadata_is_written_and_read(ckpts):
    path, model = ckpts["pigugnin4"]
    assert path.suffix == ".zip"
    meta = read_metadata(path)
    assert meta["game"] == "pigugnin" and meta["obs_shape"] == [546] and meta["num_actions"] == 40
    assert meta["flags"] == {"num_players": 4, "episode": "hand"} and meta["format"] == "mazzo-ppo/1"
    # SB3 itself still loads the file with the extra member in it
    assert MaskablePPO.load(path, device="cpu").num_timesteps == 0


@pytest.mark.parametrize("key", ["briscola5", "pigugnin4", "picchetto"])
def test_plays_the_argmax_of_the_masked_policy(ckpts, key):
    path, model = ckpts[key]
    meta = read_metadata(path)
    agent = make_agent(f"ppo:{path}", meta["game"])
    env = make_raw_env(meta["game"], **meta["flags"])
    env.reset(seed=0)
    for _ in range(30):
        if env._over:
            break
        obs = env.observe(env.agent_selection)
        a = agent.act(obs)
        assert obs["action_mask"][a] == 1
        # the same choice as SB3's own deterministic predict with the mask
        expected, _ = model.predict(obs["observation"], action_masks=obs["action_mask"].astype(bool),
                                    deterministic=True)
        assert a == int(expected)
        env.step(a)


def test_sampling_is_seeded_and_legal(ckpts):
    path, _ = ckpts["briscola5"]
    env = make_raw_env("briscola5")
    env.reset(seed=1)
    obs = env.observe(env.agent_selection)
    picks = []
    for _ in range(2):
        agent = TrainedAgent(path, "briscola5", seed=3, deterministic=False)
        picks.append([agent.act(obs) for _ in range(50)])
    assert picks[0] == picks[1]
    assert len(set(picks[0])) > 1 and all(obs["action_mask"][a] for a in picks[0])


def test_wrong_game_or_shape_fails_clearly(ckpts):
    path, _ = ckpts["pigugnin4"]
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


def test_missing_or_foreign_files_fail_clearly(tmp_path, ckpts):
    with pytest.raises(FileNotFoundError, match="checkpoint not found: '.*nothing.zip'"):
        TrainedAgent(tmp_path / "nothing.zip", "briscola5")
    foreign = tmp_path / "foreign.zip"
    with zipfile.ZipFile(foreign, "w") as z:
        z.writestr("data", "{}")
    with pytest.raises(ConfigError, match="not a Mazzo checkpoint"):
        TrainedAgent(foreign, "briscola5")
    (tmp_path / "junk.zip").write_text("not a zip")
    with pytest.raises(ConfigError, match="not a checkpoint .zip"):
        TrainedAgent(tmp_path / "junk.zip", "briscola5")
    path, _ = ckpts["briscola5"]
    odd = tmp_path / "odd.zip"
    with zipfile.ZipFile(path) as zin, zipfile.ZipFile(odd, "w") as zout:
        for name in zin.namelist():
            data = zin.read(name)
            if name == "mazzo.json":
                data = json.dumps({**json.loads(data), "format": "other/9"})
            zout.writestr(name, data)
    with pytest.raises(ConfigError, match="unknown checkpoint format 'other/9'"):
        TrainedAgent(odd, "briscola5")
    with pytest.raises(FileNotFoundError, match="no pretrained checkpoint 'scopa'.*available"):
        make_agent("pretrained:scopa", "briscola5")


def test_slim_checkpoint_plays_the_same(tmp_path, ckpts):
    path, _ = ckpts["picchetto"]
    slim = slim_checkpoint(path, tmp_path / "slim.zip")
    assert slim.stat().st_size < path.stat().st_size
    a, b = TrainedAgent(path, "picchetto"), TrainedAgent(slim, "picchetto")
    env = make_raw_env("picchetto", episode="hand")
    env.reset(seed=4)
    while not env._over:
        obs = env.observe(env.agent_selection)
        assert a.act(obs) == b.act(obs)
        env.step(a.act(obs))


def test_trained_agent_as_an_opponent_in_the_pool(ckpts):
    path, _ = ckpts["briscola5"]
    env = SingleSeatEnv("briscola5", opponents=f"ppo:{path}")
    env.reset(seed=0)
    assert all(isinstance(a, TrainedAgent) for a in env.seated.values())
    done = False
    while not done:
        *_, term, trunc, _ = env.step(int(np.flatnonzero(env.action_masks())[0]))
        done = term or trunc


@pytest.mark.parametrize("game", ["briscola5", "pigugnin", "picchetto"])
def test_pretrained_checkpoints_load_by_name(game):
    if not (PRETRAINED_DIR / f"{game}.zip").exists():
        pytest.fail(f"agents/pretrained/{game}.zip is missing")
    agent = make_agent(f"pretrained:{game}", game)
    meta = agent.meta
    assert meta["game"] == game and agent.name == f"pretrained:{game}"
    assert (PRETRAINED_DIR / f"{game}.zip").stat().st_size < 5_000_000
    r = head_to_head(game, f"pretrained:{game}", "random", num_deals=3, flags=meta["flags"])
    assert r["n_deals"] == 3
