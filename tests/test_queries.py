"""Query building (the method's five + two queries, date windows, duplicates) and storing them."""

from __future__ import annotations

from datetime import date, datetime
from pathlib import Path

import pytest

from arastance.config import Settings, load_settings
from tasks.claim_analysis import ClaimAnalysis, Entity
from tasks.claim_analysis.stanza_doc import analysis_from_document
from tasks.queries import FALSE_CLAIM_KINDS, Query, QueryClaim, build_queries, build_queries_for, query_inputs
from tasks.retrieval import plan_retrieval
from warehouse import Warehouse
from arastance.base.ids import stable_id
from warehouse.claims import set_override
from warehouse.retrieval_queries import claims_with_current_queries, queries_of_claim, store_queries

from helpers_claim_analysis import conllu_doc
from helpers_search import false_claim_row
CLAIM = "أعلنت وزارة الصحة إغلاق المدارس في دبي، وقررت تأجيل الامتحانات"
PLAIN = "ارتفاع أسعار النفط"  # no entity, no clause to cut


@pytest.fixture
def rules_settings(tmp_path: Path) -> Settings:
    return load_settings(nlp={"analyzer": "rules", "stanza_dir": str(tmp_path / "no-models")})


def claim(text: str = CLAIM, veracity: str = "false", day: date | None = date(2020, 3, 15), claim_id: str = "c1") -> QueryClaim:
    return QueryClaim(claim_id, text, veracity, day)  # type: ignore[arg-type]


@pytest.mark.parametrize(
    ("day", "months", "start", "end"),
    [
        (date(2017, 12, 31), 2, date(2017, 10, 31), date(2018, 2, 28)),  # year end, clamped to February
        (date(2019, 12, 31), 2, date(2019, 10, 31), date(2020, 2, 29)),  # ... of a leap year
        (date(2016, 2, 29), 2, date(2015, 12, 29), date(2016, 4, 29)),  # from a leap day, across a year start
        (date(2020, 1, 15), 2, date(2019, 11, 15), date(2020, 3, 15)),
        (date(2018, 8, 31), 2, date(2018, 6, 30), date(2018, 10, 31)),  # 30-day month before
        (date(2020, 4, 30), 2, date(2020, 2, 29), date(2020, 6, 30)),
        (date(2024, 2, 29), 12, date(2023, 2, 28), date(2025, 2, 28)),  # leap day, a year each way
    ],
)
def test_date_window_clamps_to_month_end(day: date, months: int, start: date, end: date) -> None:
    settings = load_settings(search={"date_window_months": months})
    queries = build_queries(claim(PLAIN, "true", day), settings=settings)
    dated = [q for q in queries if q.dated]
    assert [(q.window_start, q.window_end) for q in dated] == [(start, end)]


def test_false_claim_gets_the_five_queries(rules_settings: Settings) -> None:
    queries = build_queries(claim(), settings=rules_settings)
    window = (date(2020, 1, 15), date(2020, 5, 15))
    vp = "أعلنت وزارة الصحة إغلاق المدارس في دبي"
    assert [(q.kind, q.text, (q.window_start, q.window_end), q.analyzer) for q in queries] == [
        ("claim", CLAIM, (None, None), "none"),
        ("claim_date", CLAIM, window, "none"),
        ("entities_date", "وزارة الصحة دبي " + CLAIM, window, "rules"),
        ("vp_date", vp, window, "rules"),
        ("vp_entities_date", "وزارة الصحة دبي " + vp, window, "rules"),
    ]
    assert all(q.also_kinds == () for q in queries)
    assert queries[1].query_id == stable_id("c1", "claim_date", CLAIM, window[0], window[1])
    assert len({q.query_id for q in queries}) == 5


def test_true_claim_gets_two_queries_and_no_analysis(tmp_path: Path) -> None:
    # Stanza is required but absent: a true claim's queries do not need it.
    settings = load_settings(nlp={"analyzer": "stanza", "stanza_dir": str(tmp_path / "none")})
    queries = build_queries(claim(veracity="true"), settings=settings)
    assert [(q.kind, q.text, q.dated, q.analyzer) for q in queries] == [
        ("claim", CLAIM, False, "none"),
        ("claim_date", CLAIM, True, "none"),
    ]


@pytest.mark.parametrize("veracity", ["false", "true"])
def test_undated_claims_get_only_the_undated_query(rules_settings: Settings, veracity: str) -> None:
    queries = build_queries(claim(veracity=veracity, day=None), settings=rules_settings)
    assert [(q.kind, q.window_start, q.window_end) for q in queries] == [("claim", None, None)]


def test_duplicate_texts_are_kept_once_under_the_first_kind(rules_settings: Settings) -> None:
    queries = build_queries(claim(PLAIN), settings=rules_settings)
    assert [(q.kind, q.text, q.also_kinds, q.analyzer) for q in queries] == [
        ("claim", PLAIN, (), "none"),
        ("claim_date", PLAIN, ("entities_date", "vp_date", "vp_entities_date"), "rules"),
    ]


def test_entities_without_a_cut_merge_the_verb_phrase_kinds(rules_settings: Settings) -> None:
    text = "إغلاق الحدود بين مصر وليبيا"
    queries = build_queries(claim(text), settings=rules_settings)
    assert [(q.kind, q.text, q.also_kinds) for q in queries] == [
        ("claim", text, ()),
        ("claim_date", text, ("vp_date",)),
        ("entities_date", "مصر ليبيا " + text, ("vp_entities_date",)),
    ]


def test_entities_are_distinct_and_limited(rules_settings: Settings) -> None:
    analysis = ClaimAnalysis(
        text=PLAIN,
        entities=(Entity("الأردن", "LOC"), Entity("الاردن", "LOC"), Entity("مصر", "LOC"), Entity("قطر", "LOC")),
        verb_phrase=PLAIN,
        cut_reason="none",
        analyzer="rules",
    )
    settings = rules_settings.model_copy(update={"nlp": rules_settings.nlp.model_copy(update={"max_query_entities": 2})})
    queries = build_queries(claim(PLAIN), analysis, settings=settings)
    assert queries[2].kind == "entities_date"
    assert queries[2].text == "الأردن مصر " + PLAIN


def test_a_stanza_analysis_is_recorded_on_its_queries(rules_settings: Settings) -> None:
    text = "أعلنت وزارة الصحة إغلاق المدارس في دبي وقررت تأجيل الامتحانات"
    analysis = analysis_from_document(text, conllu_doc("cut_at_conj.conllu"))
    queries = build_queries(claim(text), analysis, settings=rules_settings)
    assert [q.analyzer for q in queries] == ["none", "none", "stanza", "stanza", "stanza"]
    assert queries[3].text == "أعلنت وزارة الصحة إغلاق المدارس في دبي"


def test_an_analysis_of_another_text_is_refused(rules_settings: Settings) -> None:
    other = ClaimAnalysis("نص آخر", (), "نص آخر", "none", "rules")
    with pytest.raises(ValueError, match="claim c1: the analysis given is of another text"):
        build_queries(claim(), other, settings=rules_settings)


@pytest.mark.parametrize(
    ("row", "message"),
    [
        ({"claim_id": "c9", "text": "  ", "veracity": "false", "published_date": None}, "claim c9: field 'text'"),
        ({"claim_id": "c9", "text": "نص", "veracity": "rumour", "published_date": None}, "claim c9: field 'veracity'"),
        ({"claim_id": "c9", "text": "نص", "veracity": "true", "published_date": "15/03/2020"}, "claim c9: field 'published_date'"),
        ({"text": "نص", "veracity": "true", "published_date": None}, "has no claim_id"),
    ],
)
def test_bad_claim_rows_name_the_claim_and_field(row: dict, message: str) -> None:
    with pytest.raises(ValueError, match=message):
        QueryClaim.from_row(row)


def test_rows_accept_dates_datetimes_and_iso_strings() -> None:
    base = {"claim_id": "c1", "text": "نص", "veracity": "true"}
    for value in (date(2020, 3, 15), datetime(2020, 3, 15, 10, 30), "2020-03-15"):
        assert QueryClaim.from_row({**base, "published_date": value}).published_date == date(2020, 3, 15)


def test_build_queries_for_many_claims(rules_settings: Settings) -> None:
    rows = [
        {"claim_id": "f1", "text": CLAIM, "veracity": "false", "published_date": date(2020, 3, 15)},
        {"claim_id": "f2", "text": PLAIN, "veracity": "false", "published_date": None},
        {"claim_id": "t1", "text": PLAIN, "veracity": "true", "published_date": date(2016, 2, 29)},
    ]
    queries = build_queries_for(rows, rules_settings, progress=False)
    assert [(q.claim_id, q.kind) for q in queries] == [
        *(("f1", k) for k in FALSE_CLAIM_KINDS), ("f2", "claim"), ("t1", "claim"), ("t1", "claim_date"),
    ]


def test_storing_twice_adds_nothing_and_reads_back(warehouse: Warehouse, rules_settings: Settings) -> None:
    first = build_queries(claim(), settings=rules_settings) + build_queries(claim(PLAIN, claim_id="c2"), settings=rules_settings)
    assert store_queries(warehouse, first, created_at=datetime(2026, 1, 1)) == 7
    assert store_queries(warehouse, first) == 0
    inputs = {c: query_inputs(claim(text, claim_id=c), 2) for c, text in (("c1", CLAIM), ("c2", PLAIN))}
    stored = queries_of_claim(warehouse, "c2", inputs["c2"])
    assert [(s.kind, s.text, s.window_start, s.also_kinds, s.analyzer) for s in stored] == [
        ("claim", PLAIN, None, (), "none"),
        ("claim_date", PLAIN, date(2020, 1, 15), ("entities_date", "vp_date", "vp_entities_date"), "rules"),
    ]
    assert all(s.created_at == datetime(2026, 1, 1) for s in stored)
    assert [s.query_id for s in queries_of_claim(warehouse, "c1", inputs["c1"])] == [q.query_id for q in first[:5]]
    assert claims_with_current_queries(warehouse, inputs) == {"c1", "c2"}
    # a corrected claim text gives new queries, the claim's current ones; the old ones stay stored
    corrected_claim = claim(PLAIN + " عالميا", claim_id="c2")
    assert claims_with_current_queries(warehouse, {"c2": query_inputs(corrected_claim, 2)}) == set()
    corrected = build_queries(corrected_claim, settings=rules_settings)
    assert store_queries(warehouse, corrected) == 2
    assert queries_of_claim(warehouse, "c2", query_inputs(corrected_claim, 2)) == queries_of_claim(
        warehouse, "c2", corrected[0].inputs)
    assert [s.text for s in queries_of_claim(warehouse, "c2", corrected[0].inputs)] == [PLAIN + " عالميا"] * 2
    assert warehouse.scalar("SELECT count(*) FROM queries WHERE claim_id = 'c2'") == 4
    assert queries_of_claim(warehouse, "unknown", inputs["c1"]) == []


def test_a_query_without_its_inputs_is_refused(warehouse: Warehouse) -> None:
    with pytest.raises(ValueError, match="no inputs fingerprint"):
        store_queries(warehouse, [Query("c1", "claim", "نص", None, None, "none")])


def test_what_queries_are_built_from_changes_their_fingerprint() -> None:
    base = query_inputs(claim(), 2)
    assert query_inputs(claim(CLAIM.replace(" ", "  ")), 2) == base  # spacing aside
    assert len({base, query_inputs(claim(PLAIN), 2), query_inputs(claim(day=date(2020, 3, 16)), 2),
                query_inputs(claim(), 3), query_inputs(claim(veracity="true"), 2)}) == 5
    assert query_inputs(claim(day=None), 2) == query_inputs(claim(day=None), 3)  # no window to size


def test_a_restated_redated_or_rewindowed_claim_is_searched_with_new_queries(
        warehouse: Warehouse, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("ARASTANCE_SEARCH__BACKEND", "searxng")
    monkeypatch.setenv("ARASTANCE_SEARCH__SEARXNG_URL", "http://127.0.0.1:9/search")
    monkeypatch.setenv("ARASTANCE_NLP__ANALYZER", "rules")
    old, new = "السعودية تمنع دخول الحجاج القطريين", "قطر تمنع مواطنيها من أداء الحج"
    warehouse.insert_rows("claims", [false_claim_row("c1", old, date(2017, 7, 10))])

    every: set[str] = set()  # the query ids of every plan

    def sent(redo: bool = False) -> set[tuple[str, date | None, date | None]]:
        plan = plan_retrieval(warehouse, load_settings(), None, None, redo)
        every.update(q.query_id for q in plan.queries["c1"])
        return {(q.text, q.window_start, q.window_end) for q in plan.queries["c1"]}

    first = sent()
    assert {t for t, _, _ in first} >= {old} and {w for _, w, _ in first} == {None, date(2017, 5, 10)}
    set_override(warehouse, "c1", new, normalized_text=new, content_hash="h", reviewer="r", reviewed_at=datetime(2017, 8, 1))
    restated = sent(redo=True)  # it was: the old text, for ever
    assert all(new in t for t, _, _ in restated) and {w for _, w, _ in restated} == {None, date(2017, 5, 10)}
    monkeypatch.setenv("ARASTANCE_SEARCH__DATE_WINDOW_MONTHS", "3")
    assert {(s, e) for _, s, e in sent()} == {(None, None), (date(2017, 4, 10), date(2017, 10, 10))}
    warehouse.con.execute("UPDATE claims SET published_date = DATE '2017-08-20' WHERE claim_id = 'c1'")
    assert {(s, e) for _, s, e in sent()} == {(None, None), (date(2017, 5, 20), date(2017, 11, 20))}
    # back to what a set was built from: that set again, with no new query; nothing stored is lost
    stored = warehouse.scalar("SELECT count(*) FROM queries")
    warehouse.con.execute("UPDATE claims SET published_date = DATE '2017-07-10' WHERE claim_id = 'c1'")
    monkeypatch.delenv("ARASTANCE_SEARCH__DATE_WINDOW_MONTHS")
    assert sent() == restated
    assert warehouse.scalar("SELECT count(*) FROM queries") == stored == len(every)


def test_query_is_a_value() -> None:
    q = Query("c1", "claim", "نص", None, None, "none")
    assert q == Query("c1", "claim", "نص", None, None, "none")
    assert q.query_id == stable_id("c1", "claim", "نص", None, None)
    assert not q.dated
