"""The paper's open questions as experiments: cross-dataset transfer and class imbalance.

Each experiment trains and scores several models with the ordinary model classes and returns an
:class:`~tasks.stance.experiments.results.ExperimentResult` (cells of a table), which the flows
store in the warehouse, render as Markdown and plot.
"""
