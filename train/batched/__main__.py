"""``python -m train.batched --config FILE ...``: the batched trainer (``python -m train`` picks it by ``trainer``)."""

from train.batched.main import main
from train.dispatch import cli

cli(lambda: main(prog="python -m train.batched"))
