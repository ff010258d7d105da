"""The SB3 trainer: MaskablePPO (sb3-contrib) on one seat of a Mazzo game (``train.single_seat.SingleSeatEnv``).

    python -m train --config configs/briscola5/ppo.yaml                # `trainer: sb3` (the default) picks it
    python -m train --config configs/pigugnin/ppo.yaml --seed 2 --env.num_players 5
    python -m train --config configs/briscola5/ppo.yaml --resume runs/<run>/last.zip --total_timesteps 400000
    python -m train.sb3 --help                                         # every key, with its doc

| module | what |
|---|---|
| ``args.py`` | ``Args`` (``train.args.PPOArgs`` plus ``n_envs``, ``vec_env``, ``n_steps``, ``batch_size``) and ``check_args`` |
| ``main.py`` | the run, top to bottom: envs and model, warm start, ``model.learn``, the final evaluation and report |
| ``schedule.py`` | the callback between rollouts: ``metrics.csv``, evaluations, checkpoints, the resume state, snapshots |

The learner plays one seat of the game; the other seats are ``opponents`` (plus frozen snapshots of the learner
with ``selfplay: true``). Every ``eval_every`` steps the greedy policy is evaluated with duplicate deals against
each of ``eval_opponents``; the best one (against the first of them) and the last one are kept. With
``bc_episodes > 0`` the policy first imitates ``bc_teacher`` (``train/imitation.py``): the warm start that lets
Briscola's learner bid (``configs/briscola5/ppo_long.yaml``).

Outputs, in ``runs/{game}__{exp_name}__{seed}__{time}/``:

| file | what |
|---|---|
| ``config.yaml`` | the resolved ``Args`` (rerun with ``--config`` on it) |
| ``tb/`` | TensorBoard scalars (``rollout/*``, ``train/*``, ``eval/vs_<opp>/mean`` ...) |
| ``metrics.csv`` | one row per rollout: steps, episodes, mean episode return (game units), losses |
| ``eval.csv`` | one row per evaluation and opponent: mean, 95% CI, deals |
| ``best.mazzo.zip``, ``last.mazzo.zip`` | the policy to play: safe checkpoints (``make_agent("ppo:PATH")``; ``agents/checkpoint.py``) |
| ``best.zip``, ``last.zip`` | Stable-Baselines3 run files for ``--resume`` (pickles: trusted files only; ``last_state.pkl``: what an exact resume needs) |
| ``snapshots/`` | self-play snapshots (safe checkpoints, ``step_<n>.mazzo.zip``) |
| ``imitation.json`` | the warm start's figures (decisions imitated, accuracy), if any |
| ``final_eval.json`` | the final evaluation of ``best.mazzo.zip`` on fresh deals, with reference levels; wall time (``timing``) and ``numerics`` |
| ``report.md``, ``learning_curve.png`` | the run's report and its learning curve |

``total_timesteps`` is rounded up to whole rollouts (``n_steps * n_envs``, where PPO stops anyway); the rounded
figure is printed, recorded in ``config.yaml`` and reported. Resuming from ``runs/<run>/last.zip`` starts a new
run folder beside ``runs/<run>`` (which stays as it was) holding the curves so far; with ``last_state.pkl``
beside the checkpoint it gives the same result as an uninterrupted run of the same config. Both are unpickled
(Stable-Baselines3's format): resume only from files you trust, your own runs. Playing never loads them.

Reproducible: the same config gives the same bits (metrics, eval.csv, checkpoints, final table) on any x86-64 CPU
with AVX2, with the same versions (torch above all) and ``torch_threads`` (``train.runs.PINNED_ENV``).
"""

from train.sb3.args import Args, check_args
from train.sb3.main import main

__all__ = ["Args", "check_args", "main"]
