"""``python -m train.sb3 --config FILE ...``: the SB3 trainer (``python -m train`` picks it by ``trainer``)."""

from train.dispatch import cli
from train.sb3.main import main

cli(lambda: main(prog="python -m train.sb3"))
