"""Claims' canonical URLs and the spellings they were stored under before (``claim_former_urls``).

Canonicalisation moved on after claims were stored (a site's ``http://`` and ``http://www.``
spellings now key its ``https`` address, an archive capture its original URL): re-keying gives such
a claim the current ``canonical_url`` and keeps its ``claim_id``, which every other table names.
The loader names a claim ``stable_id(source_id, canonical_url)``, so a re-keyed claim is found
through ``key_id``, the id a load of its new spelling computes (:func:`stored_ids`).
"""

from __future__ import annotations

from collections.abc import Iterator, Sequence
from dataclasses import dataclass
from datetime import datetime
from typing import Any

import duckdb
import pyarrow as pa

from warehouse.connection import Warehouse, WarehouseError

_CLAIM_URLS = "SELECT claim_id, source_id, url, canonical_url FROM claims ORDER BY source_id, claim_id"

# Forms a claim holds or was given: a second claim re-keyed to one of them would be a duplicate.
_HELD_FORMS = """
SELECT source_id, canonical_url, claim_id FROM claims
UNION SELECT source_id, canonical_url, claim_id FROM claim_former_urls
"""

_STORED_IDS = "SELECT key_id, claim_id FROM claim_former_urls WHERE key_id IN (SELECT claim_id FROM __ids)"

_REKEY = """
UPDATE claims SET canonical_url = m.canonical_url FROM __moves m
WHERE claims.claim_id = m.claim_id AND claims.canonical_url = m.former_url
"""

# A claim moved back to a form it held before (its site's canonical_base changed and changed back):
# the row that keyed that form, or that left the same former spelling, gives way to the new one.
# The plan gives a form only to the claim that held it, so no other claim's row is ever removed.
_SUPERSEDED = """
DELETE FROM claim_former_urls WHERE EXISTS (
    SELECT 1 FROM __moves m WHERE m.claim_id = claim_former_urls.claim_id
      AND (m.former_url = claim_former_urls.former_url OR m.key_id = claim_former_urls.key_id))
"""

_MOVES_SCHEMA = pa.schema([
    ("claim_id", pa.string()), ("source_id", pa.string()), ("former_url", pa.string()),
    ("canonical_url", pa.string()), ("key_id", pa.string()), ("rekeyed_at", pa.timestamp("us")),
])


@dataclass(frozen=True)
class Move:
    """One claim given its current canonical URL; ``key_id`` is the id a load of it computes."""

    claim_id: str
    source_id: str
    former_url: str
    canonical_url: str
    key_id: str


def claim_urls(wh: Warehouse) -> Iterator[dict[str, Any]]:
    """``claim_id, source_id, url, canonical_url`` of every stored claim, fetched in batches."""
    return wh.iter_rows(_CLAIM_URLS, batch_size=5000)


def held_forms(wh: Warehouse) -> dict[tuple[str, str], set[str]]:
    """``(source_id, canonical_url)`` -> the claims that hold it now or were re-keyed to it."""
    held: dict[tuple[str, str], set[str]] = {}
    for source_id, url, claim_id in wh.con.execute(_HELD_FORMS).fetchall():
        held.setdefault((source_id, url), set()).add(claim_id)
    return held


def rekey(wh: Warehouse, moves: Sequence[Move], at: datetime) -> None:
    """Give each claim of ``moves`` its new canonical URL and record the former one, all in one
    transaction: a form another claim took meanwhile (a constraint) changes nothing. A claim's own
    older record of the same former spelling or the same new form is replaced."""
    if not moves:
        return
    batch = pa.Table.from_pylist([{**vars(m), "rekeyed_at": at} for m in moves], schema=_MOVES_SCHEMA)
    with wh.transaction() as con, wh.registered(__moves=batch):
        try:
            con.execute(_REKEY)
            con.execute(_SUPERSEDED)
        except duckdb.Error as exc:
            raise WarehouseError(f"cannot re-key {len(moves)} claim(s) on {wh.location}: {exc}; "
                                 "nothing was changed") from exc
        wh.insert_rows("claim_former_urls", batch.to_pylist(), on_conflict="error")


def stored_ids(wh: Warehouse, claim_ids: Sequence[str]) -> dict[str, str]:
    """Of ``claim_ids`` (as a load computes them), those that name a re-keyed claim -> its kept id."""
    if not claim_ids:
        return {}
    with wh.registered(__ids=pa.table({"claim_id": pa.array(list(claim_ids), pa.string())})):
        return dict(wh.con.execute(_STORED_IDS).fetchall())
