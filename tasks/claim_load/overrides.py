"""A reviewer's statement of a claim, which wins over the cleaning rules, reloads included."""

from __future__ import annotations

from datetime import datetime, timezone

from arastance.base.arabic import normalize
from arastance.base.ids import content_hash
from tasks.claim_load.rows import utc_naive
from warehouse import Warehouse
from warehouse import claims as claims_db


def set_claim_override(
    wh: Warehouse, claim_id: str, text: str, *, reviewer: str, note: str | None = None, now: datetime | None = None
) -> None:
    """Record a reviewer's statement for a claim; it wins over the rules from now on, reloads included."""
    statement = " ".join(text.split())
    normalized = normalize(statement)
    if not normalized:  # blanks or only invisible marks (U+200F ...): a claim with no text, hashed as ""
        raise ValueError(f"override text for claim {claim_id!r} is empty (nothing but blanks or invisible marks: "
                         f"{text!r})")
    if not reviewer.strip():
        raise ValueError(f"override for claim {claim_id!r} needs a reviewer name")
    claims_db.set_override(
        wh, claim_id, statement, normalized_text=normalized, content_hash=content_hash(normalized),
        reviewer=reviewer.strip(), reviewed_at=utc_naive(now or datetime.now(timezone.utc)), note=note,
    )
