"""The batched trainer: PPO on the batched engines (``vector_env``), ``num_envs`` games stepped together.

    python -m train --config configs/briscola5/ppo_batched.yaml            # `trainer: batched` picks it
    python -m train.batched --config configs/pigugnin/ppo_batched.yaml --seed 2 --total_timesteps 500000
    python -m train --resume runs/<run>/last.mazzo.zip --total_timesteps 6000000   # config: the run's config.yaml
    python -m train.batched --help                                          # every key, with its doc

| module | what |
|---|---|
| ``args.py`` | ``Args`` (``train.args.PPOArgs`` plus the engine's and the rollout's keys) and ``check_args`` |
| ``ppo.py`` | ``BatchedPPO``, the algorithm: ``collect()`` (the learner's rows through the networks, the others through their opponents, rewards credited per seat), ``update()`` (GAE along each seat's decisions, clipped PPO) |
| ``rollout.py`` | ``SeatAssigner`` (who plays each seat of each game) and ``SeatRollout`` (per-seat credit, GAE, carried decisions) |
| ``state.py`` | the training state for ``--resume`` (``last_state.zip``: JSON and plain arrays, never a pickle) |
| ``main.py`` | the run, top to bottom, over the shared pieces of ``train/`` |

Outputs, in ``runs/{game}__{exp_name}__{seed}__{time}/``: ``config.yaml``, ``tb/`` (``rollout/ep_rew_mean``,
``rollout/ep_len_mean``, ``rollout/ep_rew_selfplay``, ``train/<metric>``, ``time/fps``, ``eval/vs_<opp>/mean``
and ``ci95``), ``metrics.csv`` (one row per rollout: steps, episodes, mean training return in game units,
losses, learner steps/s), ``eval.csv``, ``best.mazzo.zip`` and ``last.mazzo.zip`` (safe checkpoints),
``last_state.zip``, ``snapshots/``, ``imitation.json``, ``final_eval.json``, ``report.md``, ``learning_curve.png``.

``metrics.csv``'s ``ep_return_mean`` is the mean return of the learner's seat over its last 100 episodes against
opponents (over self-play seats when every game is self-play, where a zero-sum game averages 0); ``episodes``
counts finished games with a learner seat in them; ``fps`` is learner decisions per second of the rollout and
update of that row (the first one includes numba's compiling).

Reproducible: the same config and seed give the same numbers (metrics but wall times, eval.csv, checkpoints),
with the numerics pinned (``train.runs.PINNED_ENV``: threads, MKL's and ATen's code paths) and the same
``torch_threads``.

Resuming: a run stopped at a checkpoint and resumed gives the same metrics, evaluations and weights as the same
run never stopped (``tests/train/test_batched_resume.py``). A resume makes a new run folder beside the old one
(which stays as it was), with ``metrics.csv`` and ``eval.csv`` up to the checkpoint's step, ``imitation.json``,
``best.mazzo.zip`` and the snapshot pool; it skips the warm start. ``total_timesteps`` may change (and
``eval_every``, ``final_deals``, ``reference_levels``, ``eval_workers``, ``progress``, ``runs_dir``,
``exp_name``); any other key that differs from the resumed run's is refused with a ``ConfigError`` naming it.
With ``anneal_lr`` a new ``total_timesteps`` changes the schedule from the checkpoint on. A missing checkpoint,
a checkpoint without ``last_state.zip`` beside it (``best.mazzo.zip``, a snapshot, an SB3 run) and a damaged or
foreign state file are clear errors. ``metrics.csv``'s ``time`` and the report's wall time add up the segments.
"""

from train.batched.args import Args, check_args
from train.batched.main import main

__all__ = ["Args", "check_args", "main"]
