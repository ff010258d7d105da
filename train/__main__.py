"""``python -m train --config FILE``: the trainer the config's ``trainer`` key names (``train/dispatch.py``)."""

from train.dispatch import cli

cli()
