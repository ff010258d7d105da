"""Who plays which seat in the RLlib trainer, and the pool of frozen snapshots (an RLlib callback).

| ``policies`` | modules | seat -> module |
|---|---|---|
| ``shared`` | ``main`` (+ frozen ``snap_<iteration>``) | every seat ``main`` (self-play), except in snapshot episodes |
| ``per_seat`` | ``seat_0 .. seat_{n-1}`` | ``player_i`` -> ``seat_i`` (one policy per role where the flags tie roles to seats, e.g. Picchetto with a fixed ``first_dealer`` and ``episode: hand``: dealer and elder) |

Snapshot episodes (``policies: shared`` with ``selfplay: true``): ``SnapshotPool``, an ``RLlibCallback``,
freezes a copy of ``main`` every ``snapshot_every`` training iterations with RLlib's own
``Algorithm.add_module`` (and ``remove_module`` for the oldest beyond ``max_snapshots``), passing the new
seat mapping to every env runner. Once the pool holds snapshots, a share ``snapshot_share`` of the
episodes puts ``main`` at one seat and one snapshot at every other seat; the rest stay pure self-play.
Only ``main`` is trained (``policies_to_train``). The draw depends only on the episode's id (CRC32 with
the run's seed), so every seat of an episode agrees on it whichever seat is mapped first.

``env_engine: batched`` (one learner seat, the opponents inside the vector env): ``OpponentSync``, an
``RLlibCallback``, copies the learner's actor (frozen: the ``actor.*`` tensors of its module state) into the
``self`` opponent of every env runner's vector env (``VectorSingleSeatEnv.set_opponent_weights``, through
``EnvRunnerGroup.foreach_env_runner``: the arrays travel with the call, so it works on any node of a cluster) when
the algorithm is built and every ``snapshot_every`` training iterations (``sync_opponents``; the trainer calls it
again after a warm start). The ``self`` opponent samples its policy, as the learner does. An env runner that RLlib
restarts gets the snapshot at the next sync (until then its ``self`` plays at random).

The ``SnapshotPool`` callback also logs, per episode, ``learner_return`` (mean return of the seats ``main`` played) and,
in snapshot episodes, ``learner_return_vs_snapshots`` (its single seat's return), each a mean over the
last 100 episodes in the iteration's ``env_runners`` results, in game units (``reward_scale`` undone).
"""

from __future__ import annotations

import zlib
from typing import Any

from ray.rllib.callbacks.callbacks import RLlibCallback

from train.rllib.args import MAIN, SINGLE

__all__ = ["MAIN", "SeatMapping", "SnapshotPool", "OpponentSync", "sync_opponents", "seat_module", "episode_returns"]


def seat_module(agent_id: str) -> str:
    """``player_3`` -> ``seat_3`` (``policies: per_seat``)."""
    return "seat_" + str(agent_id).rpartition("_")[2]


class SeatMapping:
    """The agent -> module mapping (picklable: it travels to every env runner)."""

    def __init__(self, policies: str, num_players: int, snapshots: tuple[str, ...] = (), share: float = 0.0,
                 salt: int = 0):
        self.policies, self.num_players = policies, int(num_players)
        self.snapshots, self.share, self.salt = tuple(snapshots), float(share), int(salt)

    def draw(self, episode_id: str) -> tuple[int, str] | None:
        """``(learner seat, snapshot)`` for a snapshot episode, None for a self-play one."""
        if not self.snapshots or self.share <= 0:
            return None
        h = zlib.crc32(f"{self.salt}:{episode_id}".encode())
        if (h % 10_000) >= self.share * 10_000:
            return None
        h2 = zlib.crc32(f"{self.salt}:{episode_id}:who".encode())
        return h2 % self.num_players, self.snapshots[(h2 // self.num_players) % len(self.snapshots)]

    def __call__(self, agent_id: Any, episode: Any = None, **kwargs: Any) -> str:
        if self.policies == "per_seat":
            return seat_module(agent_id)
        drawn = self.draw(str(getattr(episode, "id_", "")))
        if drawn is None:
            return MAIN
        seat = int(str(agent_id).rpartition("_")[2])
        return MAIN if seat == drawn[0] else drawn[1]


def episode_returns(episode: Any, prev_chunks: list[Any] | None) -> dict[str, float]:
    """Each agent's return over the whole episode (its earlier chunks included)."""
    out: dict[str, float] = {}
    for chunk in [*(prev_chunks or []), episode]:
        for aid, sa in chunk.agent_episodes.items():
            out[aid] = out.get(aid, 0.0) + float(sa.get_return())
    return out


class SnapshotPool(RLlibCallback):
    """Freezes ``main`` into the opponent pool every ``snapshot_every`` iterations (module docstring)."""

    def __init__(self, policies: str = "shared", num_players: int = 2, selfplay: bool = False,
                 snapshot_every: int = 10, max_snapshots: int = 5, share: float = 0.5, salt: int = 0,
                 reward_scale: float = 1.0):
        super().__init__()
        self.unscale = 1.0 / float(reward_scale)
        self.policies, self.num_players, self.selfplay = policies, num_players, selfplay
        self.snapshot_every, self.max_snapshots, self.share, self.salt = snapshot_every, max_snapshots, share, salt
        self.pool: list[str] = []

    def mapping(self) -> SeatMapping:
        return SeatMapping(self.policies, self.num_players, tuple(self.pool), self.share, self.salt)

    def on_episode_end(self, *, episode: Any, prev_episode_chunks: Any = None, metrics_logger: Any = None,
                       **kwargs: Any) -> None:
        if metrics_logger is None:
            return
        returns = episode_returns(episode, prev_episode_chunks)
        mine = [r * self.unscale for aid, r in returns.items() if episode.module_for(aid) in (MAIN, seat_module(aid))]
        if mine:
            metrics_logger.log_value("learner_return", sum(mine) / len(mine), reduce="mean", window=100)
        if len(mine) == 1 and len(returns) > 1 and self.policies == "shared":
            metrics_logger.log_value("learner_return_vs_snapshots", mine[0], reduce="mean", window=100)

    def on_train_result(self, *, algorithm: Any, result: dict, **kwargs: Any) -> None:
        result["snapshots"] = len(self.pool)
        if not (self.selfplay and self.policies == "shared") or algorithm.iteration % self.snapshot_every:
            return
        from ray.rllib.core.rl_module.rl_module import RLModuleSpec

        new_id = f"snap_{algorithm.iteration}"
        main = algorithm.get_module(MAIN)
        state = algorithm.learner_group.get_weights(module_ids=[MAIN])[MAIN]
        self.pool.append(new_id)
        spec = RLModuleSpec.from_module(main)
        spec.inference_only = False  # the env runners' copy of main is inference-only; the learner's is whole
        algorithm.add_module(module_id=new_id, module_spec=spec,
                             new_agent_to_module_mapping_fn=self.mapping(), new_should_module_be_updated=[MAIN])
        algorithm.set_state({"learner_group": {"learner": {"rl_module": {new_id: state}}}})
        algorithm.env_runner_group.sync_weights(from_worker_or_learner_group=algorithm.learner_group,
                                                policies=[new_id], inference_only=True)
        while len(self.pool) > self.max_snapshots:
            old = self.pool.pop(0)
            algorithm.remove_module(module_id=old, new_agent_to_module_mapping_fn=self.mapping(),
                                    new_should_module_be_updated=[MAIN])
        result["snapshots"] = len(self.pool)


def _set_opponent(env_runner: Any, weights: dict[str, Any], activation: str) -> bool:
    """On an env runner: give its vector env's ``self`` opponent ``weights``; False if it holds no env."""
    env = getattr(env_runner, "env", None)
    if env is None:
        return False
    env.unwrapped.set_opponent_weights(weights, activation=activation)
    return True


def sync_opponents(algorithm: Any, activation: str, module_id: str = SINGLE) -> int:
    """The learner's actor (its ``actor.*`` tensors as NumPy arrays, the checkpoint actor's names) into the ``self``
    opponent of every env runner (the local one too, when it holds an env); returns how many got it."""
    import functools

    state = algorithm.learner_group.get_weights(module_ids=[module_id])[module_id]
    weights = {k[len("actor."):]: v for k, v in state.items() if k.startswith("actor.")}
    done = algorithm.env_runner_group.foreach_env_runner(
        functools.partial(_set_opponent, weights=weights, activation=activation), local_env_runner=True)
    return sum(bool(d) for d in done)


class OpponentSync(RLlibCallback):
    """``env_engine: batched``: the learner into the env runners' ``self`` opponent at the start and every
    ``every`` iterations (module docstring); ``result["snapshots"]`` counts the syncs."""

    def __init__(self, every: int = 10, activation: str = "Tanh", enabled: bool = True):
        super().__init__()
        self.every, self.activation, self.enabled = int(every), activation, enabled
        self.syncs = 0

    def sync(self, algorithm: Any) -> None:
        if self.enabled and sync_opponents(algorithm, self.activation):
            self.syncs += 1

    def on_algorithm_init(self, *, algorithm: Any, **kwargs: Any) -> None:
        self.sync(algorithm)

    def on_train_result(self, *, algorithm: Any, result: dict, **kwargs: Any) -> None:
        if algorithm.iteration % self.every == 0:
            self.sync(algorithm)
        result["snapshots"] = self.syncs
