"""Heads-up no-limit hold'em endgames (planned: DCFR endgame solver, interpretable features, per-street trees)."""
