"""Reads of the rows of given keys with the keys as a constant ``IN`` list of placeholders.

A constant ``IN (?, ?, …)`` list is pushed into the table's scan (an index lookup on a keyed
column), so DuckDB reads only those rows' columns; a joined or unnested list parameter makes it
read every row's, which for the articles' long texts is all the stored text. The keys go in chunks
of :data:`KEYS_PER_QUERY`: beyond DuckDB's ``index_scan_max_count`` (2048) keys it scans the
whole table instead of the index.
"""

from __future__ import annotations

from collections.abc import Iterable
from typing import Any

from warehouse.connection import Warehouse

#: Keys a query asks for at most: below DuckDB's ``index_scan_max_count`` (2048).
KEYS_PER_QUERY = 1000
#: Where a statement's ``IN`` list goes: ``WHERE article_id IN ({keys})``.
KEYS_SLOT = "{keys}"


def rows_by_keys(wh: Warehouse, sql: str, keys: Iterable[str]) -> list[dict[str, Any]]:
    """The rows ``sql`` gives for ``keys``, read :data:`KEYS_PER_QUERY` keys at a time, each chunk's
    keys one placeholder each in the ``{keys}`` slot of ``sql``.

    Each key is asked for once, in sorted order (a repeated key would only lengthen the list); the
    rows come chunk by chunk, within a chunk in the order ``sql`` gives them, so a caller keys them by
    column. No keys, no query.
    """
    if KEYS_SLOT not in sql:
        raise ValueError(f"the statement has no {KEYS_SLOT} slot for its IN list of keys: {sql.strip()!r}")
    unique = sorted(set(keys))
    rows: list[dict[str, Any]] = []
    for start in range(0, len(unique), KEYS_PER_QUERY):
        chunk = unique[start:start + KEYS_PER_QUERY]
        rows += wh.query(sql.replace(KEYS_SLOT, ", ".join("?" * len(chunk))), chunk)
    return rows
