"""Game definitions and exact solvers: the ten-card no-limit bet game, Kuhn and Leduc poker."""
