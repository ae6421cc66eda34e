"""Shared builders for the true-claim selection tests: records and warehouse claim rows."""

from __future__ import annotations

from datetime import date
from typing import Any

from tasks.true_claims.select import ClaimRecord

SEEN = "2018-01-01 00:00:00"

# Topic vocabularies (Arabic, written for these tests); texts of one topic share most words.
FLOOD = "سيول جارفة تغمر شوارع مدينة جدة وتعطل حركة المرور"
FUEL = "الحكومة ترفع أسعار البنزين والسولار اعتبارا من الشهر المقبل"
CHOLERA = "وزارة الصحة تعلن ظهور إصابات بالكوليرا في محافظة أسيوط"


def rec(claim_id: str, text: str | None, day: date | None, multimedia: bool = False) -> ClaimRecord:
    return ClaimRecord(claim_id, text, day, multimedia)


def claim_row(
    claim_id: str,
    veracity: str,
    text: str | None,
    day: date | None,
    *,
    source_id: str | None = None,
    status: str = "active",
    is_multimedia: bool = False,
) -> dict[str, Any]:
    """A full ``claims`` row as the loaders write it (Reuters for true claims by default)."""
    source = source_id or ("reuters" if veracity == "true" else "dabegad")
    return {
        "claim_id": claim_id, "source_id": source, "url": f"https://{source}.example/{claim_id}",
        "canonical_url": f"https://{source}.example/{claim_id}", "title": text, "raw_text": text,
        "cleaned_text": text, "veracity": veracity, "published_date": day, "is_multimedia": is_multimedia,
        "first_seen": SEEN, "last_seen": SEEN, "status": status,
    }
