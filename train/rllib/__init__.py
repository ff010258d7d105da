"""The RLlib trainer: PPO or APPO with action masking on Ray RLlib (new API stack), on any Mazzo game, with the env
runners stepping the AEC env (``env_engine: aec``: multi-agent, every seat learns) or the batched engine
(``env_engine: batched``: one learner seat of ``num_envs_per_env_runner`` games per runner, opponents inside).

    python -m train --config configs/briscola5/rllib.yaml                      # `trainer: rllib`; a local Ray cluster
    python -m train --config configs/briscola5/rllib_batched.yaml               # the batched engine (beats the heuristic)
    python -m train --config configs/pigugnin/rllib.yaml --address auto         # join a running cluster
    python -m train --config configs/picchetto/rllib.yaml --address HEAD:6379 --num-env-runners 8
    python -m train.rllib --help                                                # every key, with its doc

Needs ``pip install -e ".[train,ray]"`` (this package's ``Args`` and ``check_args`` do not).

| module | what |
|---|---|
| ``args.py`` | ``Args`` (``train.args.BaseArgs`` plus RLlib's keys, RLlib's names) and ``check_args`` |
| ``algorithm.py`` | the ``PPOConfig``/``APPOConfig`` of either engine (env runners, connectors, a learner group), the cluster, the export of a module to a safe checkpoint, a ``metrics.csv`` row |
| ``env.py`` | ``env_engine: aec``: the game's AEC env as a turn-based ``MultiAgentEnv`` (each seat's rewards delivered with its next decision) |
| ``vector_env.py`` | ``env_engine: batched``: the env creator of the env runners (``VectorSingleSeatEnv``, through ``gym_env_vectorize_mode="vector_entry_point"``) and its flat ``[observation | mask]`` wrapper |
| ``env_runner.py`` | ``env_engine: batched``: ``BatchedEnvRunner``, RLlib's ``SingleAgentEnvRunner`` without the episode callbacks nobody listens to |
| ``connectors.py`` | ``env_engine: batched``: the env-to-module and module-to-env connectors that keep the vector env's batches whole |
| ``module.py`` | ``MaskedActorCriticModule``, a ``TorchRLModule`` whose actor is the safe checkpoint's MLP, illegal logits masked to ``-1e8`` (APPO's target actor too) |
| ``selfplay.py`` | ``policies: shared`` (one ``main`` policy at every seat) or ``per_seat``; the ``SnapshotPool`` callback freezes ``main`` every ``snapshot_every`` iterations and a share of episodes pits it against a snapshot; ``OpponentSync`` (batched) copies the learner into the env runners' ``self`` opponent |
| ``warm_start.py`` | the imitation warm start (``bc_*``) on the learner's module, with ``train/imitation.py`` |
| ``main.py`` | the run, top to bottom, over the shared pieces of ``train/`` |

Outputs, in ``runs/{game}__{exp_name}__{seed}__{time}/`` (as the other trainers): ``config.yaml``, ``metrics.csv``
(one row per training iteration: env steps, episodes, ``ep_return_mean``: the learners' mean return per seat in
game units, 0 in pure self-play of a zero-sum game; ``ep_return_vs_snapshots``; PPO's losses, entropy, KL,
explained variance, ``snapshots``, ``fps``), ``eval.csv``, ``best.mazzo.zip`` and ``last.mazzo.zip`` (safe
checkpoints of ``main``, or of ``seat_0`` with ``per_seat``), ``seat_<i>.mazzo.zip`` (``per_seat``: every
seat's), ``rllib_checkpoint/`` (``rllib_checkpoint: true``: RLlib's own, pickles, trusted input only),
``final_eval.json``, ``report.md``, ``learning_curve.png``.

Ray is shut down at the end (or on an error) when this trainer started it; a cluster it joined keeps running.
Runs are seeded (``seed``: RLlib's ``debugging(seed=...)``, the evaluation deals), but RLlib's sampling is
asynchronous across env runners, so two runs agree only approximately (the first iteration's numbers exactly).
"""

from train.rllib.args import Args, check_args, module_ids
from train.rllib.main import main

__all__ = ["Args", "check_args", "module_ids", "main"]
