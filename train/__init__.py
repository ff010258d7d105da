"""Training, evaluation and tournaments for Mazzo (importing this package never imports torch).

| module              | job                                                            |
|---------------------|----------------------------------------------------------------|
| ``train.evaluate``  | duplicate-deal evaluation of any line-up (CLI and library)     |
| ``train.rating``    | OpenSkill leaderboard from a round robin of agent specs        |
| ``train.stats``     | Student-t quantiles and 95% confidence intervals over deals     |
"""
