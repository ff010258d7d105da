"""Plain baseline players: ducking (Pigugnin) and greedy (Briscola in cinque, Picchetto)."""
