"""The demo layer: the offline world wired into the production pipeline.

Everything that stands in for the outside world when the demo runs lives here, not in the
production packages: the demo flow (:mod:`snapshots.demo.flow`), the stages only the demo has
(:mod:`snapshots.demo.stages`: the local index built from the world's news articles, the
simulated annotation campaign) and the simulated annotators themselves
(:mod:`snapshots.demo.annotators`, :mod:`snapshots.demo.campaign`). It may import every
production layer; no production layer imports it (tests/test_import_layers.py checks both).
The world is switched on by :func:`snapshots.offline.offline_world`, the one override that the
command line's ``--offline`` options and the tests use too.
"""
