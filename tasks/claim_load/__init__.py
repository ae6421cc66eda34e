"""Loading crawl runs into the warehouse, one concern a module.

:mod:`~tasks.claim_load.staged` reads and validates a staging run against the staging contract,
:mod:`~tasks.claim_load.rows` turns its records into warehouse rows, :mod:`~tasks.claim_load.clusters`
recomputes the duplicate clusters, :mod:`~tasks.claim_load.load` runs the one load transaction,
and :mod:`~tasks.claim_load.overrides` records a reviewer's statement of a claim.
"""
