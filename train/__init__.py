"""Training and evaluation for Mazzo: one folder per trainer over shared pieces (importing this package never
imports torch). ``python -m train --config FILE`` runs the trainer the config's ``trainer`` key names.

| module | job |
|---|---|
| ``train.dispatch``, ``train.registry`` | ``python -m train``: the trainer a config names (``TRAINERS``: one line per trainer) |
| ``train.sb3`` | Stable-Baselines3 MaskablePPO on one seat of the AEC env (``trainer: sb3``, the default) |
| ``train.batched`` | PPO on the batched numba engines, every seat's decisions (``trainer: batched``) |
| ``train.rllib`` | multi-agent PPO on Ray RLlib (``trainer: rllib``) |
| ``train.args`` | ``BaseArgs`` (every trainer's keys) and ``PPOArgs`` (SB3's and the batched trainer's), their checks |
| ``train.config`` | YAML configs and command-line overrides of an ``Args`` dataclass, ``--help`` |
| ``train.runs`` | the run folder, ``config.yaml``, CSV rows, pinned numerics, seeding, the end of a run |
| ``train.learner_eval`` | the periodic evaluations (``eval.csv``, the best checkpoint) and the final one, with reference levels |
| ``train.resume`` | a resumed run's folder and curves, the safe training state file |
| ``train.imitation`` | the warm start: a teacher's decisions (AEC env or batched engine), fitted before PPO |
| ``train.networks`` | the actor (``agents.checkpoint.build_actor``, initialised) and critic, fast forward paths |
| ``train.report`` | a run's report.md, learning curve and results table |
| ``train.single_seat`` | one seat of a game as a Gymnasium env (``mazzo/Briscola5-v0`` ...) |
| ``train.vector_single_seat`` | the same as a Gymnasium vector env on the batched engine (``gymnasium.make_vec(id, num_envs, vectorization_mode="vector_entry_point")``) |
| ``train.evaluate``, ``train.evaluation`` | duplicate-deal evaluation of any line-up (CLI and library), ratings |
| ``train.ppo``, ``train.ppo_batched`` | older names: ``python -m train.ppo`` is ``python -m train``, ``train.ppo_batched`` is ``train.batched`` |

Importing the package registers the single-seat envs with Gymnasium:
``import train; gymnasium.make("mazzo/Briscola5-v0", opponents="heuristic")``.
"""

from train.single_seat import register_envs as _register_envs

_register_envs()
