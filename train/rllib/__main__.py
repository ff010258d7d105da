"""``python -m train.rllib --config FILE ...``: the RLlib trainer (``python -m train`` picks it by ``trainer``)."""

from train.dispatch import cli
from train.rllib.main import main

cli(lambda: main(prog="python -m train.rllib"))
