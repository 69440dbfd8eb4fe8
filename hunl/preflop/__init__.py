"""Heads-up preflop push/fold (work in progress)."""
