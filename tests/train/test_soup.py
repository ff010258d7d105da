"""``python -m train.soup``: the weight average of checkpoints of one lineage, written as a safe checkpoint."""

from __future__ import annotations

import hashlib

import pytest
import torch

from agents.checkpoint import CheckpointError, load_actor, read_metadata, save_actor
from agents.registry import make_agent
from envs.registry import game_spec
from train.networks import build_actor
from train.soup import main, soup

GAME = "picchetto"


def _checkpoint(path, seed: int, hidden=(16, 8), **meta):
    """A small Picchetto actor with seeded random weights, saved with ``meta`` on top of the game's."""
    spec = game_spec(GAME)
    torch.manual_seed(seed)
    actor = build_actor(spec.observation_shape({})[0], spec.num_actions, list(hidden), "ReLU")
    base = {"game": GAME, "flags": {}, "obs_shape": list(spec.observation_shape({})), "num_actions": spec.num_actions}
    return save_actor(actor, path, {**base, **meta}, num_timesteps=1000 * seed)


def _sha(path) -> str:
    return hashlib.sha256(path.read_bytes()).hexdigest()


@pytest.fixture
def lineage(tmp_path):
    """A start and two fine-tunes of it (``init_from`` names the start's sha256), and a third from one of them."""
    start = _checkpoint(tmp_path / "start.mazzo.zip", 1)
    init = {"init_from": {"file": str(start), "sha256": _sha(start)}}
    a = _checkpoint(tmp_path / "a.mazzo.zip", 2, **init)
    b = _checkpoint(tmp_path / "b.mazzo.zip", 3, **init)
    c = _checkpoint(tmp_path / "c.mazzo.zip", 4, init_from={"file": str(a), "sha256": _sha(a)})
    return start, a, b, c


def test_the_soup_is_the_mean_of_the_weights_and_plays(lineage, tmp_path):
    _, a, b, _ = lineage
    out = soup([str(a), str(b)], tmp_path / "soup.mazzo.zip")
    mixed, _ = load_actor(out)
    (first, _), (second, _) = load_actor(a), load_actor(b)
    for name, tensor in mixed.state_dict().items():
        expected = (first.state_dict()[name] + second.state_dict()[name]) / 2
        assert torch.equal(tensor, expected), name
    meta = read_metadata(out)
    assert meta["algo"] == "soup" and meta["num_timesteps"] == 3000
    assert [i["sha256"] for i in meta["soup"]["inputs"]] == [_sha(a), _sha(b)]
    assert meta["init_from"]["sha256"] == read_metadata(a)["init_from"]["sha256"]  # their shared start
    agent = make_agent(f"ppo:{out}", GAME)
    assert agent.meta["soup"]["inputs"][1]["file"] == str(b)


def test_a_file_given_twice_counts_twice(lineage, tmp_path):
    _, a, b, _ = lineage
    out = soup([str(a), str(a), str(b)], tmp_path / "soup.mazzo.zip")
    mixed, _ = load_actor(out)
    (first, _), (second, _) = load_actor(a), load_actor(b)
    name = "action_net.weight"
    expected = (first.state_dict()[name] + first.state_dict()[name] + second.state_dict()[name]) / 3
    assert torch.equal(mixed.state_dict()[name], expected)


def test_a_fine_tune_and_its_start_are_one_lineage(lineage, tmp_path):
    start, a, b, c = lineage
    out = soup([str(c), str(a), str(b), str(start)], tmp_path / "soup.mazzo.zip")  # c from a; a and b from start
    assert "init_from" not in read_metadata(out)  # no single start to name: the inputs list their own
    with pytest.raises(CheckpointError, match="lineage"):  # without a, nothing links c to b
        soup([str(c), str(b)], tmp_path / "cousins.mazzo.zip")


def test_unrelated_networks_are_refused_and_nothing_is_written(lineage, tmp_path):
    _, a, _, _ = lineage
    stranger = _checkpoint(tmp_path / "stranger.mazzo.zip", 9)
    out = tmp_path / "soup.mazzo.zip"
    with pytest.raises(CheckpointError, match="not of .*lineage.*stranger.mazzo.zip"):
        soup([str(a), str(stranger)], out)
    assert not out.exists()


@pytest.mark.parametrize("other, match", [
    ({"hidden": (16, 4)}, "tensor|network"),
    ({"flags": {"variant": 1}}, "flags"),
])
def test_other_shapes_or_flags_are_refused(lineage, tmp_path, other, match):
    start, a, _, _ = lineage
    hidden = other.pop("hidden", (16, 8))
    odd = _checkpoint(tmp_path / "odd.mazzo.zip", 5, hidden=hidden, init_from=read_metadata(a)["init_from"], **other)
    with pytest.raises(CheckpointError, match=match):
        soup([str(a), str(odd)], tmp_path / "soup.mazzo.zip")


def test_the_command_line_says_what_is_wrong(lineage, tmp_path, capsys):
    _, a, b, _ = lineage
    assert main([str(a), "--out", str(tmp_path / "one.mazzo.zip")]) == 2
    assert "at least two checkpoints" in capsys.readouterr().err
    assert main([str(a), str(tmp_path / "missing.mazzo.zip"), "--out", str(tmp_path / "x.mazzo.zip")]) == 2
    assert "checkpoint not found" in capsys.readouterr().err
    assert main([str(a), str(b), "--out", str(tmp_path / "ok.mazzo.zip")]) == 0
    assert (tmp_path / "ok.mazzo.zip").exists()


def test_steps_of_one_run_are_one_lineage_and_a_namesake_from_elsewhere_is_not(tmp_path):
    """A run trained from scratch names no start: its steps are linked by its experiment name and seed. A run of
    the same name and seed that started from a file is another network."""
    run = {"config": {"exp_name": "study", "seed": 1}}
    early = _checkpoint(tmp_path / "early.mazzo.zip", 1, **run)
    late = _checkpoint(tmp_path / "late.mazzo.zip", 2, **run)
    soup([str(early), str(late)], tmp_path / "soup.mazzo.zip")
    elsewhere = _checkpoint(tmp_path / "elsewhere.mazzo.zip", 3, init_from={"sha256": "0" * 64}, **run)
    with pytest.raises(CheckpointError, match="lineage"):
        soup([str(early), str(elsewhere)], tmp_path / "other.mazzo.zip")
