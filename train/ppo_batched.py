"""``python -m train.ppo_batched --config FILE ...``: the older name of ``python -m train.batched``."""

from train.dispatch import cli

if __name__ == "__main__":
    from train.batched.main import main

    cli(lambda: main(prog="python -m train.ppo_batched"))
