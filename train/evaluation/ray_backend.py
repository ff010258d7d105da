"""Playing an evaluation's deals on a Ray cluster (``--backend ray [--address ...]``; needs ``pip install -e ".[ray]"``).

The deals are cut into the very chunks the local worker processes get (``core._chunks``), and each chunk
is one Ray task playing it exactly as a local worker does (``play.play_deal``: every episode depends only
on the job's seed, the deal number and the seating, never on where or in what order it is played), so
the per-deal counters, the table and the saved games are identical to those of ``--workers N`` for the
same seed, whatever the cluster.

| where                          | how                                                                   |
|--------------------------------|-----------------------------------------------------------------------|
| ``address=None``, Ray not running | a local cluster is started with ``workers`` CPUs (``ray.init``) and shut down at the end |
| ``address="auto"`` or ``"HOST:PORT"`` | joins a running cluster (``ray start --head --port=6379`` on the head node, ``ray start --address=HEAD:6379`` on the others) and disconnects at the end; Ray's token authentication (on by default) needs ``RAY_AUTH_MODE=token`` and the head's token (``ray get-auth-token``) on every node and client |
| Ray already initialised in this process | its cluster is used and left running (the RLlib trainer's final evaluation) |

Checkpoints travel with the job: the bytes of every ``ppo:PATH`` file are put in Ray's object store
once and each worker plays its own copy (written to a temporary folder, keyed by its sha256), so a
cluster node needs no shared file system, only the same Mazzo install. The players' labels in the
results and in saved records stay the specs given on the command line.
"""

from __future__ import annotations

import dataclasses
import hashlib
import os
import tempfile
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import numpy as np

from envs.core.errors import ConfigError

__all__ = ["play_chunks", "ray_available", "checkpoint_files", "AUTH_HINT"]

AUTH_HINT = ("; a cluster with token authentication (Ray's default) also needs RAY_AUTH_MODE=token here and the "
             "head's token (`ray get-auth-token` on the head) in ~/.ray/auth_token or RAY_AUTH_TOKEN")
_LOCAL: dict[str, Any] = {}  # worker side: sha256 -> local checkpoint path, and the last built job


def ray_available() -> bool:
    try:
        import ray  # noqa: F401
    except ImportError:
        return False
    return True


def checkpoint_files(players: list[Any]) -> dict[str, tuple[str, bytes]]:
    """``{spec: (file name, bytes)}`` for every ``ppo:PATH`` spec of the line-up (read on the driver)."""
    from agents.checkpoint import checkpoint_path

    files: dict[str, tuple[str, bytes]] = {}
    for p in players:
        if isinstance(p, str) and p.partition(":")[0] == "ppo":
            path = checkpoint_path(p.partition(":")[2])
            files[p] = (path.name, path.read_bytes())
    return files


def _localize(job: Any, files: dict[str, tuple[str, bytes]]) -> Any:
    """The job with each ``ppo:PATH`` spec pointing at this worker's copy of the file."""
    if not files:
        return job
    players = []
    for p in job.players:
        if p in files:
            name, data = files[p]
            digest = hashlib.sha256(data).hexdigest()
            if digest not in _LOCAL:
                folder = Path(tempfile.mkdtemp(prefix="mazzo-eval-"))
                (folder / name).write_bytes(data)
                _LOCAL[digest] = str(folder / name)
            p = "ppo:" + _LOCAL[digest]
        players.append(p)
    return dataclasses.replace(job, players=players)


def _run_chunk(job: Any, deals: list[int], files: dict[str, tuple[str, bytes]]) -> tuple[list[int], np.ndarray, Any]:
    """The Ray task: ``play.run_chunk`` with the worker's checkpoint copies; labels stay the job's specs."""
    from train.evaluation.play import play_deal

    key = ("built", job)
    if _LOCAL.get("job") != key:
        _LOCAL["job"], _LOCAL["built"] = key, _localize(job, files).build()
    records = [] if job.records else None
    return deals, np.stack([play_deal(job, _LOCAL["built"], d, records) for d in deals]), records


def play_chunks(job: Any, chunks: list[list[int]], *, workers: int, address: str | None) -> Iterator[tuple]:
    """Yield ``(deals, rows, records)`` per chunk as the cluster finishes them (any order).

    Starts or joins Ray as the module docstring says; on any exit (done, an error, Ctrl-C) the chunks
    still queued are cancelled and a cluster this call started is shut down."""
    try:
        import ray
    except ImportError:
        raise ConfigError('--backend ray needs Ray: pip install -e ".[ray]"') from None
    if any(not isinstance(p, str) for p in job.players):
        raise ConfigError("the ray backend plays agent spec strings, not agent objects (they are built on the "
                          "cluster's workers)")
    files = checkpoint_files(job.players)
    started = not ray.is_initialized()
    if started:
        os.environ.setdefault("RAY_USAGE_STATS_ENABLED", "0")  # no usage report to Ray's servers (set it to opt in)
        kwargs: dict[str, Any] = {"include_dashboard": False, "log_to_driver": False, "logging_level": "warning"}
        if address is None:
            kwargs["num_cpus"] = workers
        try:
            ray.init(address=address, **kwargs)
        except ConnectionError as e:
            raise ConfigError(f"--address {address!r}: no Ray cluster there ({e})" + AUTH_HINT) from None
    elif address is not None:
        raise ConfigError(f"Ray is already initialised in this process; --address {address!r} cannot be joined too")
    pending: list[Any] = []
    try:
        task = ray.remote(num_cpus=1)(_run_chunk)
        files_ref = ray.put(files)
        pending = [task.remote(job, chunk, files_ref) for chunk in chunks]
        while pending:
            ready, pending = ray.wait(pending, num_returns=1)
            yield ray.get(ready[0])
    finally:
        for ref in pending:
            try:
                ray.cancel(ref, force=True)
            except Exception:  # noqa: BLE001, S110 (already finished or gone)
                pass
        if started:
            ray.shutdown()
