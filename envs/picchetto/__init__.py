"""Picchetto (Italian Piquet): rules engine (game.py), observation encoder (observation.py), AEC env (env.py)."""
