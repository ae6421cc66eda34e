"""The retrieval queries of a claim, following the AraStance method.

A false claim gets five queries:

1. ``claim`` — the preprocessed claim;
2. ``claim_date`` — the claim, restricted to +/- N months (``search.date_window_months``,
   2 by default) around the claim's date;
3. ``entities_date`` — the claim's named entities prepended to it, with the date restriction;
4. ``vp_date`` — the claim cut after its first verb phrase, with the date restriction;
5. ``vp_entities_date`` — (4) with the named entities prepended.

A true claim gets two: ``claim`` and ``claim_date``. A claim without a date gets only its
undated queries (``claim``): a window cannot be placed, and an entity or verb-phrase query
without a window is left out rather than sent unrestricted, as the method defines them dated.

Rule for duplicates: when two kinds of one claim give the same text and window (no entity found,
so (3) equals (2); nothing cut, so (4) equals (2)), the query is kept once, under the first kind
in the order above, and ``also_kinds`` lists the kinds it stands for. A search is never paid
for twice.

``analyzer`` says what produced a query's text: ``stanza`` or ``rules`` when it is (or stands
for) a kind built from the claim analysis, ``none`` when it uses the claim text alone.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass, replace
from datetime import date, datetime
from typing import Any, Literal

from arastance.base.ids import stable_id
from arastance.config import Settings, load_settings
from arastance.logging import get_logger
from arastance.progress import track
from tasks.claim_analysis import ClaimAnalysis, analyze, analyze_many
from tasks.true_claims.window import window_bounds

log = get_logger(__name__)

QueryKind = Literal["claim", "claim_date", "entities_date", "vp_date", "vp_entities_date"]
Veracity = Literal["false", "true"]

FALSE_CLAIM_KINDS: tuple[QueryKind, ...] = ("claim", "claim_date", "entities_date", "vp_date", "vp_entities_date")
TRUE_CLAIM_KINDS: tuple[QueryKind, ...] = ("claim", "claim_date")
UNDATED_KINDS: frozenset[QueryKind] = frozenset({"claim"})
# Kinds whose text comes from the claim analysis (entities or the verb-phrase cut).
ANALYSED_KINDS: frozenset[QueryKind] = frozenset({"entities_date", "vp_date", "vp_entities_date"})


@dataclass(frozen=True)
class Query:
    """One search query of a claim, as stored in the ``queries`` table."""

    claim_id: str
    kind: QueryKind
    text: str
    window_start: date | None
    window_end: date | None
    analyzer: str
    also_kinds: tuple[QueryKind, ...] = ()
    inputs: str = ""  # query_inputs() of the claim it was built for: the set it belongs to

    @property
    def query_id(self) -> str:
        """``stable_id(claim_id, kind, text, window_start, window_end)``: the same query, the same id."""
        return stable_id(self.claim_id, self.kind, self.text, self.window_start, self.window_end)

    @property
    def dated(self) -> bool:
        return self.window_start is not None


@dataclass(frozen=True)
class QueryClaim:
    """What query building needs of a claim (a row of ``v_retrieval_claims``)."""

    claim_id: str
    text: str
    veracity: Veracity
    published_date: date | None

    @classmethod
    def from_row(cls, row: Mapping[str, Any]) -> "QueryClaim":
        """Validate a row (claim_id, text, veracity, published_date); errors name the claim and field."""
        claim_id = row.get("claim_id")
        if not claim_id:
            raise ValueError(f"claim row {dict(row)!r} has no claim_id")
        text = row.get("text")
        if not isinstance(text, str) or not text.strip():
            raise ValueError(f"claim {claim_id}: field 'text' is empty ({text!r})")
        veracity = row.get("veracity")
        if veracity not in ("false", "true"):
            raise ValueError(f"claim {claim_id}: field 'veracity' must be 'false' or 'true', not {veracity!r}")
        return cls(claim_id, text, veracity, _as_date(row.get("published_date"), claim_id))


def _as_date(value: object, claim_id: str) -> date | None:
    if value is None or value == "":
        return None
    if isinstance(value, datetime):
        return value.date()
    if isinstance(value, date):
        return value
    if isinstance(value, str):
        try:
            return date.fromisoformat(value[:10])
        except ValueError:
            pass
    raise ValueError(f"claim {claim_id}: field 'published_date' is not a date (YYYY-MM-DD): {value!r}")


def query_inputs(claim: QueryClaim | Mapping[str, Any], window_months: int) -> str:
    """Fingerprint of what a claim's queries are built from: its text (spacing aside), veracity,
    date and the date window's size (``search.date_window_months``; an undated claim has no window).

    Stored with the queries (``query_sets``): a claim whose fingerprint changed (a reviewer
    restated it, its date was corrected, the window setting changed) gets its queries built again.
    The analyzer and ``nlp.max_query_entities`` are left out on purpose: installing Stanza or
    changing a setting of the analysis does not make every claim's queries be searched again.
    """
    c = claim if isinstance(claim, QueryClaim) else QueryClaim.from_row(claim)
    months = window_months if c.published_date is not None else None
    return stable_id(_join(c.text), c.veracity, c.published_date, months)


def _analyzer(kind: QueryKind, analysis: ClaimAnalysis | None, current: str) -> str:
    """The analyzer behind a query once ``kind`` is one of the kinds it stands for."""
    return analysis.analyzer if kind in ANALYSED_KINDS and analysis is not None else current


def _join(*parts: str) -> str:
    return " ".join(" ".join(parts).split())


def build_queries(
    claim: QueryClaim | Mapping[str, Any],
    analysis: ClaimAnalysis | None = None,
    *,
    settings: Settings | None = None,
) -> list[Query]:
    """The queries of one claim (a :class:`QueryClaim` or a ``v_retrieval_claims`` row).

    A dated false claim is analysed with the configured analyzer unless its ``analysis`` (of
    the same text) is given. Window size and the number of entities prepended come from the
    settings (``search.date_window_months``, ``nlp.max_query_entities``).
    """
    s = settings or load_settings()
    c = claim if isinstance(claim, QueryClaim) else QueryClaim.from_row(claim)
    text = _join(c.text)
    kinds = FALSE_CLAIM_KINDS if c.veracity == "false" else TRUE_CLAIM_KINDS
    window: tuple[date | None, date | None] = (None, None)
    if c.published_date is None:
        kinds = tuple(k for k in kinds if k in UNDATED_KINDS)
    else:
        window = window_bounds(c.published_date, s.search.date_window_months)
    texts: dict[QueryKind, str] = {"claim": text, "claim_date": text}
    if any(k in ANALYSED_KINDS for k in kinds):
        if analysis is None:
            analysis = analyze(text, s.nlp)
        elif _join(analysis.text) != text:
            raise ValueError(f"claim {c.claim_id}: the analysis given is of another text ({analysis.text!r})")
        entities = " ".join(analysis.entity_texts(s.nlp.max_query_entities))
        texts["entities_date"] = _join(entities, text)
        texts["vp_date"] = _join(analysis.verb_phrase)
        texts["vp_entities_date"] = _join(entities, analysis.verb_phrase)

    inputs = query_inputs(c, s.search.date_window_months)
    queries: list[Query] = []
    by_key: dict[tuple[str, date | None], int] = {}
    for kind in kinds:
        start, end = window if kind != "claim" else (None, None)
        key = (texts[kind], start)
        if key in by_key:  # same text and window as an earlier kind: keep one, say what it stands for
            first = queries[by_key[key]]
            queries[by_key[key]] = replace(
                first, also_kinds=(*first.also_kinds, kind), analyzer=_analyzer(kind, analysis, first.analyzer)
            )
            continue
        analyzer = _analyzer(kind, analysis, "none")
        by_key[key] = len(queries)
        queries.append(Query(c.claim_id, kind, texts[kind], start, end, analyzer, inputs=inputs))
    return queries


def build_queries_for(
    claims: Sequence[QueryClaim | Mapping[str, Any]], settings: Settings | None = None, *, progress: bool = True
) -> list[Query]:
    """The queries of many claims; the dated false claims are analysed together (one Stanza batch)."""
    s = settings or load_settings()
    parsed = [c if isinstance(c, QueryClaim) else QueryClaim.from_row(c) for c in claims]
    to_analyse = [c for c in parsed if c.veracity == "false" and c.published_date is not None]
    analyses = analyze_many([c.text for c in to_analyse], s.nlp)
    by_claim = {c.claim_id: a for c, a in zip(to_analyse, analyses)}
    out: list[Query] = []
    for claim in track(parsed, "building queries", unit="claims", enabled=progress):
        out.extend(build_queries(claim, by_claim.get(claim.claim_id), settings=s))
    log.info(
        "built queries",
        extra={
            "claims": len(parsed),
            "analysed": len(to_analyse),
            "analyzer": analyses[0].analyzer if analyses else "none",
            "queries": len(out),
            "merged_kinds": sum(len(q.also_kinds) for q in out),
        },
    )
    return out
