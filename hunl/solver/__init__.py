"""Solving HUNL endgames: betting trees, the endgame as a game of the solver core, DCFR, spots and outputs.

* :mod:`hunl.solver.tree` -- betting trees for turn and river endgames (pot-fraction bets and raises, all-in,
  caps);
* :mod:`hunl.solver.game` -- :class:`~hunl.solver.game.HoldemEndgame`, the endgame as a :class:`games.core.Game`
  with the O(n) sorted showdown and float32 storage;
* :mod:`hunl.solver.settings` -- :class:`~hunl.solver.settings.SolverSettings`, the one set of solver settings
  of spots, the ``hunl_river`` family and :func:`~hunl.solver.solve.solve_endgame`;
* :mod:`hunl.solver.solve` -- :func:`~hunl.solver.solve.solve_endgame` (DCFR or CFR+) with exploitability in
  chips, % of pot and mbb/g;
* :mod:`hunl.solver.report` -- per-hand strategy, EV of each action, EV and equity at a decision node
  (:meth:`~hunl.solver.solve.EndgameSolution.node_report`);
* :mod:`hunl.solver.libratus` -- the four Libratus endgames (Brown & Sandholm 2019);
* :mod:`hunl.solver.spot`, :mod:`hunl.solver.spot_files`, :mod:`hunl.solver.output` -- spots, spot files (TOML,
  JSON, Libratus) and the strategy tables and heatmap of ``scripts/solve_spot.py``.
"""
