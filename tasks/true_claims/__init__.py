"""True-claim selection: Reuters headlines within a window of each false-claim seed.

:mod:`~tasks.true_claims.window` computes the ±months windows, :mod:`~tasks.true_claims.rank`
ranks headlines by TF-IDF similarity inside them, :mod:`~tasks.true_claims.select` chooses at
most ``k`` per seed, and :mod:`~tasks.true_claims.rows` turns a selection into warehouse rows.
"""
