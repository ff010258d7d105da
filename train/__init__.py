"""Training, evaluation and tournaments for Mazzo (importing this package never imports torch).

| module              | job                                                            |
|---------------------|----------------------------------------------------------------|
| ``train.evaluate``  | duplicate-deal evaluation of any line-up (CLI and library): the public entry of ``train.evaluation`` |
| ``train.evaluation``| its code: ``core``, ``play``, ``figures``, ``result``, ``stats``, ``rating`` (OpenSkill), ``cli`` |
| ``train.single_seat``| one seat of a game as a Gymnasium env (``mazzo/Briscola5-v0`` ...) |
| ``train.ppo``       | MaskablePPO training script (``python -m train.ppo --config ...``) |
| ``train.imitation`` | warm start by imitating a teacher before PPO                   |
| ``train.report``    | a run's report.md, learning curve and results table            |

Importing the package registers the single-seat envs with Gymnasium:
``import train; gymnasium.make("mazzo/Briscola5-v0", opponents="heuristic")``.
"""

from train.single_seat import register_envs as _register_envs

_register_envs()
