"""The RLlib trainer's warm start: imitate ``bc_teacher`` before RLlib trains (``bc_episodes > 0``), with the shared
imitation code of ``train/imitation.py`` (the batched trainer's ``bc_*`` keys, the same steps).

| step | what |
|---|---|
| ``collect_batched`` | ``bc_teacher`` plays every seat of ``bc_episodes`` games on the batched engine; every decision is kept with the seat's return (times ``reward_scale``) |
| ``pretrain_actor_critic`` | the learner's module (``LearnerGroup.foreach_learner``: the module RLlib trains, in place): its actor to the teacher's actions (masked cross-entropy), its critic to the returns |
| sync | APPO's target actor to the new actor; the env runners' modules (``EnvRunnerGroup.sync_weights``); the ``self`` opponents (``sync_opponents``, ``env_engine: batched`` with ``selfplay``) |
| ``record`` | ``imitation.json`` in the run folder, one printed line |

The imitation's observations are the game's seat-relative vectors, the same for both engines, so the module's actor
and critic take them as they are. Seeded from the run's ``seed`` as the batched trainer seeds its warm start.
"""

from __future__ import annotations

import time
from pathlib import Path
from typing import Any

import numpy as np

from train.rllib.args import Args, module_ids

__all__ = ["warm_start", "bc_seed"]


def bc_seed(seed: int) -> int:
    """The warm start's seed (the batched trainer's derivation: the 6th word of the run's seed sequence)."""
    return int(np.random.SeedSequence(seed).generate_state(6)[5]) % 2**31


def _pretrain(learner: Any, module_id: str, demos: Any, args: Args, seed: int) -> dict[str, float]:
    """On the (local) learner: fit its module's actor and critic to the demonstrations."""
    from train.imitation import pretrain_actor_critic

    module = learner.module[module_id]
    stats = pretrain_actor_critic(module.actor, module.critic, demos, epochs=args.bc_epochs, lr=args.bc_lr, seed=seed)
    if hasattr(module, "_old_actor"):  # APPO's target network starts from the imitated actor too
        module._old_actor.load_state_dict(module.actor.state_dict())
    return stats


def warm_start(args: Args, algo: Any, run_dir: Path) -> dict[str, Any]:
    """Imitate ``bc_teacher`` (module docstring); returns ``imitation.json``'s content."""
    from train.imitation import collect_batched, record

    t0 = time.time()
    seed = bc_seed(args.seed)
    mid = module_ids(args)[0]
    demos = collect_batched(args.game, args.bc_teacher, args.env, args.bc_episodes, seed=seed,
                            reward_scale=args.reward_scale, gamma=args.gamma)
    (call,) = algo.learner_group.foreach_learner(lambda learner: _pretrain(learner, mid, demos, args, seed))
    stats = call.get()  # (raises the learner's error, if any)
    algo.env_runner_group.sync_weights(from_worker_or_learner_group=algo.learner_group, inference_only=True)
    if args.env_engine == "batched" and args.selfplay:
        from train.rllib.selfplay import sync_opponents

        sync_opponents(algo, args.activation, mid)
    return record(run_dir, args.bc_teacher, args.bc_episodes, t0, stats)
