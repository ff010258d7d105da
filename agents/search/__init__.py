"""Search players: determinized Perfect Information Monte Carlo (PIMC) and information-set MCTS."""
