"""Reports: figures, docs whose numbers code writes, stage timing and help text.

* :mod:`rulelearn.report.plots` -- the figures of the demo, the reproduction and the rule frontier;
* :mod:`rulelearn.report.docblocks` -- marked values and blocks of docs, markdown tables, benchmark sections;
* :mod:`rulelearn.report.timing` -- wall and CPU time of named stages;
* :mod:`rulelearn.report.helptext` -- a docstring as a command's plain ``--help`` text.
"""
