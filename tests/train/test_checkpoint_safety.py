"""Loading a checkpoint to play executes nothing from the file: crafted pickles are refused, not run.

Every crafted file carries a pickle whose loading creates a marker file. Each test first shows that the
payload does run when unpickled the unsafe way (so the test can fail), then that Mazzo's loaders
(``make_agent("ppo:...")``, ``TrainedAgent``, opponent pools, ``python -m train.evaluate``) refuse the file,
say why, and leave no marker.
"""

from __future__ import annotations

import base64
import contextlib
import io
import json
import os
import pickle
import subprocess
import sys
import zipfile
from pathlib import Path

import pytest

torch = pytest.importorskip("torch")

from agents import make_agent  # noqa: E402
from agents.checkpoint import CheckpointError, UnsafeCheckpointError  # noqa: E402
from agents.trained import PRETRAINED_DIR, TrainedAgent, read_metadata  # noqa: E402
from envs.core.errors import ConfigError  # noqa: E402
from train.single_seat import SingleSeatEnv  # noqa: E402

ROOT = Path(__file__).resolve().parents[2]


class Payload:
    """Unpickling this calls ``open(marker, "w")``: the file appears if the pickle is ever run."""

    def __init__(self, marker: Path):
        self.marker = str(marker)

    def __reduce__(self):
        return (open, (self.marker, "w"))


def evil_pickle(marker: Path) -> bytes:
    return pickle.dumps(Payload(marker), protocol=2)  # torch's protocol: refused for its global, not its opcodes


def evil_torch_file(marker: Path) -> bytes:
    """A torch.save file (a zip holding data.pkl) whose pickle runs the payload on a full torch.load."""
    buf = io.BytesIO()
    torch.save({"policy_net.0.weight": torch.zeros(2, 2), "x": Payload(marker)}, buf)
    return buf.getvalue()


def sb3_style_zip(path: Path, marker: Path, meta: dict | None = None) -> Path:
    """What a malicious 'MaskablePPO file' looks like: SB3's JSON ``data`` with a serialized class, a pickled
    ``policy.pth`` (and optionally a ``mazzo.json`` that looks right)."""
    data = {"policy_class": {":type:": "<class 'abc.ABCMeta'>",
                             ":serialized:": base64.b64encode(evil_pickle(marker)).decode()}}
    with zipfile.ZipFile(path, "w") as z:
        z.writestr("data", json.dumps(data))
        z.writestr("policy.pth", evil_pickle(marker))
        z.writestr("_stable_baselines3_version", "2.9.2")
        if meta is not None:
            z.writestr("mazzo.json", json.dumps(meta))
    return path


def safe_zip(path: Path, weights: bytes, meta: dict | None = None, extra: dict | None = None) -> Path:
    """A zip laid out like a safe checkpoint, with the pretrained Pigugnìn metadata and the given weights."""
    meta = meta or read_metadata(PRETRAINED_DIR / "pigugnin.mazzo.zip")
    with zipfile.ZipFile(path, "w") as z:
        z.writestr("mazzo.json", json.dumps(meta))
        z.writestr("policy.pt", weights)
        for name, data in (extra or {}).items():
            z.writestr(name, data)
    return path


def loaders(path: Path):
    """Every way a player is built from a file."""
    return [
        lambda: make_agent(f"ppo:{path}", "pigugnin"),
        lambda: make_agent(f"ppo:{path}", "pigugnin", flags={"num_players": 4, "episode": "hand"}),
        lambda: TrainedAgent(path, "pigugnin"),
        lambda: SingleSeatEnv("pigugnin", opponents=f"ppo:{path}", flags={"num_players": 4, "episode": "hand"}),
    ]


def refused(path: Path, marker: Path, error: type, message: str) -> None:
    for load in loaders(path):
        with pytest.raises(error, match=message):
            load()
        assert not marker.exists(), "loading the checkpoint ran its pickle"


def test_the_payload_runs_when_unpickled(tmp_path):
    marker = tmp_path / "pwned"
    pickle.loads(evil_pickle(marker))
    assert marker.exists()  # so a missing marker below means the pickle was not run


def test_an_sb3_style_zip_is_refused_unopened(tmp_path):
    from stable_baselines3.common.save_util import json_to_data

    marker = tmp_path / "pwned"
    evil = sb3_style_zip(tmp_path / "model.zip", marker)
    refused(evil, marker, UnsafeCheckpointError,
            r"model.zip is a Stable-Baselines3 file .*which can run code when loaded; Mazzo plays only safe "
            r"checkpoints \(mazzo-policy/1\): convert a file you trust with `python -m agents.trained export")
    # SB3's loader reads the same 'data' member with json_to_data, which runs the payload
    with zipfile.ZipFile(evil) as z:
        json_to_data(z.read("data").decode())
    assert marker.exists()


def test_an_sb3_style_zip_with_mazzo_metadata_is_refused(tmp_path):
    marker = tmp_path / "pwned"
    meta = read_metadata(PRETRAINED_DIR / "pigugnin.mazzo.zip")
    for i, claimed in enumerate([{**meta, "format": "mazzo-ppo/1"}, meta]):  # a run file's, and a safe one's
        evil = sb3_style_zip(tmp_path / f"run{i}.zip", marker, claimed)
        refused(evil, marker, UnsafeCheckpointError, "Stable-Baselines3 run file .*can run code when loaded")


@pytest.mark.parametrize("kind", ["raw pickle", "torch.save pickle"])
def test_a_tampered_policy_pt_is_refused_by_weights_only(tmp_path, kind):
    marker = tmp_path / "pwned"
    weights = evil_pickle(marker) if kind == "raw pickle" else evil_torch_file(marker)
    evil = safe_zip(tmp_path / "tampered.mazzo.zip", weights)
    refused(evil, marker, UnsafeCheckpointError,
            r"policy.pt was refused by torch.load\(weights_only=True\), which loads tensors only")
    # a full (unsafe) torch.load of the same member runs the payload (then may fail on what it got)
    with zipfile.ZipFile(evil) as z, contextlib.suppress(RuntimeError):
        torch.load(io.BytesIO(z.read("policy.pt")), weights_only=False)
    assert marker.exists()


def test_pickles_under_other_names_are_refused(tmp_path):
    marker = tmp_path / "pwned"
    # a pickle posing as mazzo.json: it is read as JSON, which fails
    as_json = tmp_path / "json.mazzo.zip"
    with zipfile.ZipFile(as_json, "w") as z:
        z.writestr("mazzo.json", evil_pickle(marker))
        z.writestr("policy.pt", evil_pickle(marker))
    refused(as_json, marker, CheckpointError, "mazzo.json is not JSON")
    # an extra member next to a valid-looking checkpoint (the loader reads only its two members)
    pretrained = PRETRAINED_DIR / "pigugnin.mazzo.zip"
    with zipfile.ZipFile(pretrained) as z:
        weights = z.read("policy.pt")
    extra = safe_zip(tmp_path / "extra.mazzo.zip", weights, extra={"data": evil_pickle(marker)})
    refused(extra, marker, UnsafeCheckpointError, "can run code when loaded")
    extra = safe_zip(tmp_path / "extra2.mazzo.zip", weights, extra={"hook.pkl": evil_pickle(marker)})
    refused(extra, marker, CheckpointError, "holds exactly mazzo.json and policy.pt")
    # a whole torch.save file passed as a checkpoint, and a bare pickle file
    torch_file = tmp_path / "model.pt"
    torch_file.write_bytes(evil_torch_file(marker))
    refused(torch_file, marker, UnsafeCheckpointError, "is a torch.save file .*can run code when loaded")
    bare = tmp_path / "model.pkl"
    bare.write_bytes(evil_pickle(marker))
    refused(bare, marker, CheckpointError, "is not a checkpoint .zip")
    assert not marker.exists()


def test_the_evaluation_command_refuses_a_crafted_file(tmp_path):
    marker = tmp_path / "pwned"
    evil = sb3_style_zip(tmp_path / "model.zip", marker)
    out = subprocess.run(
        [sys.executable, "-m", "train.evaluate", "--game", "picchetto", "--players", f"ppo:{evil}", "random",
         "--deals", "1", "--out", str(tmp_path / "eval")],
        cwd=ROOT, capture_output=True, text=True, timeout=300,
        env={**os.environ, "OMP_NUM_THREADS": "1", "PYTHONPATH": str(ROOT)},
    )
    assert out.returncode != 0
    assert "can run code when loaded" in out.stderr and "Traceback" not in out.stderr
    assert not marker.exists()


def test_a_metadata_mismatch_is_refused_before_the_weights_are_read(tmp_path):
    marker = tmp_path / "pwned"
    # a tampered policy.pt behind metadata of another game or shape: the metadata check comes first
    evil = safe_zip(tmp_path / "pig.mazzo.zip", evil_pickle(marker))
    with pytest.raises(ConfigError, match="was trained on 'pigugnin'; it cannot play 'picchetto'"):
        TrainedAgent(evil, "picchetto")
    with pytest.raises(ConfigError, match=r"expects observations of shape \(546,\).*gives \(672,\)"):
        make_agent(f"ppo:{evil}", "pigugnin", flags={"num_players": 5})
    assert not marker.exists()
