"""The date window enforced on what is kept, not only asked of the search engine.

Engines ignore or loosen date filters (Google's ``cdr`` range is a hint, SearXNG has only
``day``/``week``/``month``/``year`` counted from today), so once a claim's kept articles are
fetched each one's publication date is checked against the window of the queries that found it:

- ``outside``: dropped, with reason ``outside_date_window`` and the date and window stored;
- ``undated``: neither the article nor any engine gave a date; kept and flagged;
- ``inside``: kept; ``unrestricted``: no window applies (see the scope below).

The date is the fetched article's extracted one; the engine's shown date stands in only when the
article has none (``date_source`` says which). The scope (``search.date_window_scope``):
``dated_queries`` (default) checks a document that a date-restricted query returned against that
query's window (the hull of them when several did), and leaves alone one that only query (i), the
bare claim, returned: that query deliberately has no window; ``all`` checks every kept document
against the claim's window; ``off`` checks nothing.
"""

from __future__ import annotations

from collections import defaultdict
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import asdict, dataclass
from datetime import date
from typing import Any, Literal

from arastance.logging import get_logger
from tasks.search.base import DateWindow
from warehouse import Warehouse
from warehouse.date_window import kept_documents_with_dates, query_windows, store_date_checks

log = get_logger(__name__)

Scope = Literal["dated_queries", "all", "off"]
DateCheck = Literal["inside", "outside", "undated", "unrestricted"]


@dataclass(frozen=True, slots=True)
class DateVerdict:
    claim_id: str
    canonical_url: str
    date_check: DateCheck
    published_date: date | None
    date_source: str | None
    window_start: date | None
    window_end: date | None


def hull(windows: Iterable[DateWindow]) -> DateWindow | None:
    """The smallest window containing all of ``windows`` (None for none)."""
    windows = list(windows)
    if not windows:
        return None
    return DateWindow(min(w.start for w in windows), max(w.end for w in windows))


def document_window(query_kinds: Sequence[str], windows_by_kind: Mapping[str, DateWindow | None],
                    scope: Scope) -> DateWindow | None:
    """The window a document found by ``query_kinds`` must fall in (None: not checked)."""
    if scope == "off":
        return None
    if scope == "all":
        return hull(w for w in windows_by_kind.values() if w)
    return hull(w for w in (windows_by_kind.get(kind) for kind in query_kinds) if w)


def verdict(claim_id: str, canonical_url: str, window: DateWindow | None, article_date: date | None,
            engine_date: date | None) -> DateVerdict:
    """Where one document's date falls relative to its window."""
    day, source = (article_date, "article") if article_date else (engine_date, "search_engine" if engine_date else None)
    if window is None:
        check: DateCheck = "unrestricted"
    elif day is None:
        check = "undated"
    else:
        check = "inside" if window.contains(day) else "outside"
    return DateVerdict(claim_id, canonical_url, check, day, source, window and window.start, window and window.end)


def date_verdicts(kept: Iterable[Mapping[str, Any]], queries: Iterable[Mapping[str, Any]],
                  scope: Scope) -> list[DateVerdict]:
    """A verdict for each kept document (``kept``: claim_id, canonical_url, query_kinds as stored,
    article_date, engine_date; ``queries``: claim_id, kinds, window_start, window_end)."""
    windows: dict[str, dict[str, DateWindow | None]] = defaultdict(dict)
    for q in queries:
        window = DateWindow.of(q["window_start"], q["window_end"])
        for kind in q["kinds"]:
            windows[q["claim_id"]][kind] = window
    out = []
    for doc in kept:
        kinds = [k for k in str(doc["query_kinds"] or "").split(",") if k]
        window = document_window(kinds, windows.get(doc["claim_id"], {}), scope)
        out.append(verdict(doc["claim_id"], doc["canonical_url"], window, doc.get("article_date"),
                           doc.get("engine_date")))
    return out


def enforce_date_window(wh: Warehouse, claim_ids: Sequence[str], scope: Scope) -> list[DateVerdict]:
    """Check the claims' kept documents and store the verdicts (outside ones become dropped)."""
    verdicts = date_verdicts(kept_documents_with_dates(wh, claim_ids), query_windows(wh, claim_ids), scope)
    store_date_checks(wh, [asdict(v) for v in verdicts])
    outside = sum(v.date_check == "outside" for v in verdicts)
    if outside:
        log.info("documents outside their date window dropped",
                 extra={"claims": len(claim_ids), "dropped": outside,
                        "undated": sum(v.date_check == "undated" for v in verdicts)})
    return verdicts
