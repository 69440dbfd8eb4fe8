"""Reports: figures, docs whose numbers code writes, and stage timing.

* :mod:`rulelearn.report.plots` -- the figures of the demo, the reproduction and the rule frontier;
* :mod:`rulelearn.report.docblocks` -- marked values and blocks of docs, markdown tables, benchmark sections;
* :mod:`rulelearn.report.timing` -- wall and CPU time of named stages.
"""
