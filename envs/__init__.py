"""Mazzo environments: PettingZoo AEC envs for traditional Italian card games.

Public entry points (PettingZoo naming and versioning)::

    from envs import briscola5_v0, pigugnin_v0, picchetto_v0
    env = briscola5_v0.env()
"""
