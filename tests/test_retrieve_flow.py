"""The retrieve_documents flow end to end: local index, offline mirror over HTTP, a real
warehouse file and a real Prefect run; resuming after a failing web backend; the budget."""

from __future__ import annotations

import logging
import re
from collections.abc import Iterator
from datetime import date
from pathlib import Path

import pytest
from helpers_search import (
    ApiServer,
    Reply,
    SiteServer,
    article_page,
    brave_body,
    brave_error,
    false_claim_row,
    write_mirror_page,
)
from prefect import get_client
from prefect.blocks.system import Secret
from prefect.client.schemas.filters import ArtifactFilter, ArtifactFilterKey
from prefect.client.schemas.sorting import ArtifactSort
from prefect.settings import get_current_settings
from prefect.testing.utilities import prefect_test_harness
from typer.testing import CliRunner

from arastance.base.staging import ARCHIVE_DAYS_FILE, URLS_FILE, read_archive_days, read_url_list
from arastance.cli import app
from arastance.config import load_settings
from flows.retrieve_documents import RetrievalFailed, retrieve_documents
from tasks.retrieval import plan_retrieval
from tasks.search.base import SearchAuthError, SearchBudgetExceeded
from tasks.search.brave import BraveSearch
from tasks.search.factory import make_backend
from tasks.search.keys import resolve_key
from tasks.search.local import LocalIndex, records_from_dicts
from warehouse import open_published, open_warehouse
from warehouse.retrieval import with_current_queries

FLU = "وزارة الصحة تعلن إغلاق المدارس بسبب انتشار الإنفلونزا في القاهرة"
DAM = "انهيار سد النهضة في إثيوبيا بعد الأمطار الغزيرة"
FLU_TEXT = ["نفت وزارة الصحة ما تردد عن إغلاق المدارس بسبب انتشار الإنفلونزا في القاهرة هذا الأسبوع.",
            "وقال المتحدث إن الدراسة مستمرة بشكل طبيعي وإن الحالات المسجلة محدودة للغاية."]
DAM_TEXT = ["نفت الحكومة الإثيوبية الأنباء عن انهيار سد النهضة بعد الأمطار الغزيرة التي شهدتها المنطقة.",
            "وأكدت أن السد سليم وأن أعمال البناء تسير وفق الخطة الموضوعة منذ البداية."]
EN_TEXT = ["Officials denied that schools in Cairo would close because of the influenza outbreak this week.",
           "The ministry said classes continue as normal across the country."]
CORPUS = [
    ("https://www.youm7.com/story/2016/5/12/flu-schools/", "الصحة تنفي إغلاق المدارس بسبب الإنفلونزا", FLU_TEXT, "2016-05-12"),
    ("https://aljazeera.net/news/2016/5/14/flu", "لا إغلاق للمدارس في القاهرة بسبب الإنفلونزا", FLU_TEXT[::-1], "2016-05-14"),
    ("https://english.example.com/cairo-flu.html", "الإنفلونزا Cairo schools flu closure", EN_TEXT, "2016-05-13"),
    ("https://www.youm7.com/story/2017/2/3/dam/", "إثيوبيا تنفي انهيار سد النهضة", DAM_TEXT, "2017-02-03"),
    ("https://aljazeera.net/news/2017/2/5/dam-rain", "الأمطار الغزيرة في إثيوبيا وسد النهضة", DAM_TEXT[::-1], "2017-02-05"),
    ("https://youm7.com/story/2019/1/1/old-dam", "سد النهضة بعد سنوات",  # its own text: a copy is kept once
     [*DAM_TEXT, "وبعد سنوات عاد الحديث عن السد من جديد."], "2019-01-01"),
]
runner = CliRunner()
FAST_CRAWL = {"ARASTANCE_CRAWL__DOWNLOAD_DELAY_S": "0", "ARASTANCE_CRAWL__AUTOTHROTTLE": "false",
              "ARASTANCE_CRAWL__RETRY_TIMES": "0", "ARASTANCE_CRAWL__RESUMABLE": "false"}


@pytest.fixture(scope="module", autouse=True)
def prefect_api() -> Iterator[None]:
    with prefect_test_harness(server_startup_timeout=180):
        yield


def _latest_report() -> str:
    """The markdown of the last ``retrieve-documents-report`` published."""
    with get_client(sync_client=True) as client:
        [report] = client.read_artifacts(artifact_filter=ArtifactFilter(key=ArtifactFilterKey(any_=[
            "retrieve-documents-report"])), sort=ArtifactSort.CREATED_DESC, limit=1)
    return str(report.data)


def _claims() -> None:
    with open_warehouse(load_settings().warehouse) as wh:
        wh.insert_rows("claims", [false_claim_row("flu", FLU, date(2016, 5, 10)),
                                  false_claim_row("dam", DAM, date(2017, 2, 1))])


@pytest.fixture
def demo_web(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Iterator[SiteServer]:
    """The corpus indexed locally and served as the offline mirror."""
    root = tmp_path / "web"
    records = []
    for url, title, paragraphs, day in CORPUS:
        write_mirror_page(root, url, article_page(title, paragraphs, day))
        records.append({"url": url, "title": title, "text": "\n".join(paragraphs), "published_date": day})
    (root / "robots.txt").write_text("User-agent: *\nAllow: /\n", encoding="utf-8")
    for key, value in FAST_CRAWL.items():
        monkeypatch.setenv(key, value)
    LocalIndex.build(records_from_dicts(records), load_settings().search_index_dir)
    server = SiteServer(root)
    with server.running():
        monkeypatch.setenv("ARASTANCE_SEARCH__MIRROR_BASE", server.base_url)
        _claims()
        yield server


@pytest.mark.slow
def test_local_retrieval_stores_decisions_articles_and_pairs_and_a_rerun_adds_nothing(
        demo_web: SiteServer, monkeypatch: pytest.MonkeyPatch) -> None:
    rows = retrieve_documents()
    assert {r["claim_id"]: r["status"] for r in rows} == {"flu": "done", "dam": "done"}
    with open_warehouse(load_settings().warehouse, read_only=True) as wh:
        pairs = wh.query("SELECT claim_id, a.url, p.rank FROM claim_article_pairs p JOIN articles a USING (article_id) "
                         "ORDER BY claim_id, p.rank")
        articles = {r["url"]: r for r in wh.query("SELECT url, fetch_status, language, title, published_date FROM articles")}
        decisions = wh.query("SELECT claim_id, url, decision, reason FROM document_decisions ORDER BY claim_id, url")
        kinds = {r["kind"] for r in wh.query("SELECT DISTINCT q.kind FROM search_hits h JOIN queries q USING (query_id)")}
        counts = wh.table_counts()
    flu_pairs = [p["url"] for p in pairs if p["claim_id"] == "flu"]
    assert flu_pairs[:2] == [CORPUS[0][0], CORPUS[1][0]] or flu_pairs[:2] == [CORPUS[1][0], CORPUS[0][0]]
    assert CORPUS[2][0] not in flu_pairs  # the English page is fetched but makes no pair
    assert articles[CORPUS[2][0]]["fetch_status"] == "not_arabic"
    assert articles[CORPUS[0][0]]["fetch_status"] == "ok" and articles[CORPUS[0][0]]["language"] == "ar"
    assert articles[CORPUS[0][0]]["title"] == CORPUS[0][1] and articles[CORPUS[0][0]]["published_date"] == date(2016, 5, 12)
    assert {p["url"] for p in pairs if p["claim_id"] == "dam"} >= {CORPUS[3][0], CORPUS[4][0]}
    # every candidate was fetched and the Arabic articles ranked on their text; the English page is dropped
    assert {d["reason"] for d in decisions} == {"article_text_top_k", "fetch_failed"} and len(decisions) >= 5
    assert [d["reason"] for d in decisions if d["url"] == CORPUS[2][0]] == ["fetch_failed"]
    assert {"claim", "claim_date"} <= kinds
    assert counts["raw_pages"] == counts["articles"] and counts["claim_retrieval"] == 2
    fetched_paths = list(demo_web.paths)
    # a dead link would be sought in the archive around the earliest date of the claims it serves
    [wave] = (load_settings().staging_dir / "articles").glob("retrieval-*/wave-1")
    days = read_archive_days(wave / ARCHIVE_DAYS_FILE)
    claim_days = {"flu": date(2016, 5, 10), "dam": date(2017, 2, 1)}
    assert set(days) == set(read_url_list(wave / URLS_FILE))
    assert days == {u: min(claim_days[d["claim_id"]] for d in decisions if d["url"] == u) for u in days}
    # the report's fetch figures as text (it was: "- article fetch: {'waves': 1, 'fetched': 6, ...}")
    fetch_line = next(line for line in _latest_report().splitlines() if line.startswith("- article fetch: "))
    assert re.fullmatch(r"- article fetch: 1 wave\(s\), \d+ page\(s\) fetched \(\d+ ok, .*1 not_arabic.*\)",
                        fetch_line), fetch_line

    assert retrieve_documents() == []  # every claim is done
    monkeypatch.setenv("COLUMNS", "200")
    again = runner.invoke(app, ["retrieve", "--redo"])  # searches come from the cache, nothing is re-fetched
    assert again.exit_code == 0, again.output
    assert "2 claim(s) in" in again.output
    assert demo_web.paths == fetched_paths
    progress = runner.invoke(app, ["retrieve", "status"])
    assert progress.exit_code == 0 and "article_text_top_k" in progress.output and "done" in progress.output
    with open_warehouse(load_settings().warehouse, read_only=True) as wh:
        assert wh.table_counts() == counts


def _published_statuses() -> dict[str, str]:
    """Each claim's retrieval status as readers see it: the published copy (``arastance sql``, ``retrieve status``)."""
    with open_published(load_settings().warehouse) as wh:
        return {r["claim_id"]: r["status"] for r in wh.query("SELECT claim_id, status FROM claim_retrieval")}


@pytest.mark.slow
def test_a_no_fetch_run_publishes_its_searches_for_readers(
        demo_web: SiteServer, monkeypatch: pytest.MonkeyPatch) -> None:
    # it was: each claim's store left publishing to the stage's later writers, and with --no-fetch none
    # ran: `arastance sql` and `retrieve status` showed the state before the run until another writer published
    result = runner.invoke(app, ["retrieve", "--no-fetch"])
    assert result.exit_code == 0, result.output
    assert _published_statuses() == {"flu": "searched", "dam": "searched"}
    assert "- article fetch: not run (fetch off, or no claim searched)\n" in _latest_report()
    monkeypatch.setenv("COLUMNS", "200")
    progress = runner.invoke(app, ["retrieve", "status"])
    assert progress.exit_code == 0 and "searched" in progress.output
    assert demo_web.paths == []  # nothing was fetched


@pytest.mark.slow
def test_a_rebuilt_local_index_is_searched_afresh_by_a_redo(demo_web: SiteServer) -> None:
    # it was: the search cache keyed the backend by its name alone, so a redo after `index build` was
    # answered from the earlier build's cache and never saw the new documents; then the two builds' hits mixed
    [first] = retrieve_documents(claim_ids=["dam"])
    assert first["status"] == "done"
    with open_warehouse(load_settings().warehouse, read_only=True) as wh:
        [before] = wh.query("SELECT count(*) AS n FROM search_cache")
    added = ("https://aljazeera.net/news/2017/2/9/dam-denial", "الحكومة الإثيوبية تنفي انهيار سد النهضة بعد الأمطار",
             [DAM_TEXT[0], "وأضافت أن فرق الصيانة تفقدت السد بعد الأمطار الغزيرة."], "2017-02-09")
    write_mirror_page(demo_web.root, added[0], article_page(added[1], added[2], added[3]))
    dropped = CORPUS[4][0]  # the new build no longer holds it
    records = [{"url": u, "title": t, "text": "\n".join(p), "published_date": d}
               for u, t, p, d in (*CORPUS, added) if u != dropped]
    LocalIndex.build(records_from_dicts(records), load_settings().search_index_dir)
    [again] = retrieve_documents(claim_ids=["dam"], redo=True)
    assert again["status"] == "done"
    with open_warehouse(load_settings().warehouse, read_only=True) as wh:
        hits = {r["url"] for r in wh.query("SELECT DISTINCT h.url FROM search_hits h JOIN queries q USING (query_id) "
                                           "WHERE q.claim_id = 'dam'")}
        cached = wh.query("SELECT count(*) AS n, count(DISTINCT cache_key) AS keys FROM search_cache")
    assert added[0] in hits and dropped not in hits  # the hits are the new build's answers, not both builds'
    assert cached[0]["n"] == cached[0]["keys"] == 2 * before["n"]  # the first build's answers stay


@pytest.mark.slow
def test_a_document_that_fails_to_fetch_is_replaced_by_the_next_candidate(
        demo_web: SiteServer, tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("ARASTANCE_SEARCH__MAX_DOCUMENTS_PER_CLAIM", "1")
    monkeypatch.setenv("ARASTANCE_SEARCH__FETCH_POOL_PER_CLAIM", "1")
    retrieve_documents(claim_ids=["flu"], fetch=False)  # the search-time order: which one is fetched first
    with open_warehouse(load_settings().warehouse, read_only=True) as wh:
        first = wh.scalar("SELECT url FROM document_decisions WHERE claim_id = 'flu' AND decision = 'kept'")
    page = tmp_path / "web" / "mirror" / first.split("/", 3)[2] / first.split("/", 3)[3].rstrip("/")
    (page / "index.html" if first.endswith("/") else page).unlink()  # that page is gone: a 404
    [row] = retrieve_documents(claim_ids=["flu"], redo=True)
    assert (row["status"], row["pairs"]) == ("done", 1)  # the claim still reaches its limit
    with open_warehouse(load_settings().warehouse, read_only=True) as wh:
        reasons = {r["url"]: (r["decision"], r["reason"]) for r in
                   wh.query("SELECT url, decision, reason FROM document_decisions WHERE claim_id = 'flu'")}
        [paired] = wh.query("SELECT a.url FROM claim_article_pairs p JOIN articles a USING (article_id)")
    assert reasons[first] == ("dropped", "fetch_failed")
    replacement = ({CORPUS[0][0], CORPUS[1][0]} - {first}).pop()
    assert reasons[replacement] == ("kept", "article_text_top_k") and paired["url"] == replacement


KEY = "BSA-flow-secret-5555-never-log"


def _current_query_texts(claim_id: str) -> set[str]:
    with open_warehouse(load_settings().warehouse, read_only=True) as wh:
        return {r["text"] for r in wh.query(with_current_queries("SELECT text FROM current_queries WHERE claim_id = ?"),
                                            [claim_id])}


@pytest.mark.slow
def test_a_done_claim_whose_query_inputs_change_is_retrieved_again_by_the_next_plain_run(
        demo_web: SiteServer, monkeypatch: pytest.MonkeyPatch) -> None:
    # it was: only `retrieve --redo` reached a done claim a reviewer restated; a scheduled run planned 0 claims
    assert {r["status"] for r in retrieve_documents()} == {"done"}
    assert retrieve_documents() == [] and retrieve_documents(claim_ids=["flu"]) == []  # nothing changed: none planned
    restated = DAM + " الأسبوع الماضي"
    reviewed = runner.invoke(app, ["claims", "review", "--set", "dam", "--text", restated, "--reviewer", "r9"])
    assert reviewed.exit_code == 0, reviewed.output
    # a run the budget stops stores the claim's new queries but searches none: the claim stays to do
    monkeypatch.setenv("ARASTANCE_SEARCH__BACKEND", "brave")
    monkeypatch.setenv("ARASTANCE_SEARCH__BRAVE_API_KEY", KEY)
    monkeypatch.setenv("ARASTANCE_SEARCH__DAILY_QUERY_BUDGET", "1")
    with open_warehouse(load_settings().warehouse) as wh:
        assert plan_retrieval(wh, load_settings(), None, None, False).deferred == ["dam"]
    for name in ("BACKEND", "BRAVE_API_KEY", "DAILY_QUERY_BUDGET"):
        monkeypatch.delenv(f"ARASTANCE_SEARCH__{name}")
    assert _current_query_texts("dam") >= {restated}
    [again] = retrieve_documents()  # the flu claim, unchanged, is not searched again
    assert (again["claim_id"], again["status"]) == ("dam", "done")
    with open_warehouse(load_settings().warehouse, read_only=True) as wh:
        assert wh.scalar(with_current_queries("SELECT count(*) FROM search_hits h JOIN current_queries q "
                                              "USING (query_id) WHERE q.claim_id = 'dam'")) > 0
    assert retrieve_documents() == []
    with open_warehouse(load_settings().warehouse) as wh:  # a corrected date: that claim only
        wh.con.execute("UPDATE claims SET published_date = DATE '2016-05-11' WHERE claim_id = 'flu'")
    assert [r["claim_id"] for r in retrieve_documents()] == ["flu"]
    assert retrieve_documents() == []
    monkeypatch.setenv("ARASTANCE_SEARCH__DATE_WINDOW_MONTHS", "3")  # another window: every dated claim
    assert sorted(r["claim_id"] for r in retrieve_documents()) == ["dam", "flu"]
    assert retrieve_documents() == []


def _brave_env(monkeypatch: pytest.MonkeyPatch, server: ApiServer) -> None:
    monkeypatch.setenv("ARASTANCE_SEARCH__BACKEND", "brave")
    monkeypatch.setenv("ARASTANCE_SEARCH__BRAVE_API_KEY", KEY)
    monkeypatch.setenv("ARASTANCE_SEARCH__BRAVE_ENDPOINT", server.url + "/res/v1/web/search")
    monkeypatch.setenv("ARASTANCE_SEARCH__MAX_RETRIES", "0")


@pytest.mark.slow
def test_backend_failing_midway_resumes_without_requerying_what_succeeded(
        monkeypatch: pytest.MonkeyPatch, caplog: pytest.LogCaptureFixture) -> None:
    caplog.set_level(logging.INFO)
    _claims()
    healthy = {"on": False}
    answered: list[tuple[str, str]] = []

    def handler(request):  # three queries succeed, then the backend breaks until "repaired"
        if not healthy["on"] and len(answered) >= 3:
            return Reply(503, brave_error(503, "SERVICE_UNAVAILABLE", f"down for key {KEY}"))
        answered.append((request.params["q"], request.params.get("freshness", "")))
        return Reply(body=brave_body(request.params["q"], 0, 4, 4))

    server = ApiServer(handler)
    with server.running():
        _brave_env(monkeypatch, server)
        with pytest.raises(RetrievalFailed) as err:
            retrieve_documents(fetch=False)
        first = list(answered)
        assert len(first) == 3
        with open_warehouse(load_settings().warehouse, read_only=True) as wh:
            assert wh.scalar("SELECT count(*) FROM search_cache") == 3
            assert wh.scalar("SELECT count(*) FROM claim_retrieval WHERE status = 'failed'") >= 1
        healthy["on"] = True
        rows = retrieve_documents(fetch=False)
    second = answered[len(first):]
    assert not set(first) & set(second)  # nothing answered before is asked again
    assert {r["status"] for r in rows} == {"searched"}
    with open_warehouse(load_settings().warehouse) as wh:
        total_queries = wh.scalar("SELECT count(*) FROM queries")
        assert wh.scalar("SELECT count(*) FROM search_cache") == total_queries == len(first) + len(second)
        # reserved per claim before sending; the queries the failure left unanswered were refunded
        assert wh.scalar("SELECT sum(queries) FROM search_usage WHERE backend = 'brave'") == total_queries
        kept = wh.scalar("SELECT count(*) FROM document_decisions WHERE decision = 'kept'")
        assert kept == 8  # each claim: the 4 distinct URLs its queries found (under the limit: all kept)
        wh.con.execute("CHECKPOINT")
    assert "****" in str(err.value) and KEY not in str(err.value)
    assert KEY not in caplog.text
    assert KEY.encode() not in load_settings().warehouse.read_bytes()
    prefect_db = Path(get_current_settings().server.database.connection_url.get_secret_value().split(":///")[-1])
    assert prefect_db.is_file()
    for file in prefect_db.parent.glob(prefect_db.name + "*"):  # flow and task runs, their logs (and the WAL)
        assert KEY.encode() not in file.read_bytes(), file


@pytest.mark.slow
def test_a_run_whose_every_search_failed_publishes_the_failures_for_readers(monkeypatch: pytest.MonkeyPatch) -> None:
    # fetch on, but no claim searched: no writer ran after the stores to publish them
    _claims()
    server = ApiServer(lambda r: Reply(503, brave_error(503, "SERVICE_UNAVAILABLE", "down")))
    with server.running():
        _brave_env(monkeypatch, server)
        with pytest.raises(RetrievalFailed, match="2 of 2 claim"):
            retrieve_documents()
    assert _published_statuses() == {"flu": "failed", "dam": "failed"}


@pytest.mark.slow
def test_daily_budget_defers_claims_with_a_clear_error(monkeypatch: pytest.MonkeyPatch) -> None:
    _claims()
    server = ApiServer(lambda r: Reply(body=brave_body(r.params["q"], 0, 3, 3)))
    with server.running():
        _brave_env(monkeypatch, server)
        monkeypatch.setenv("ARASTANCE_SEARCH__DAILY_QUERY_BUDGET", "3")
        with pytest.raises(SearchBudgetExceeded, match=r"daily query budget of 3 .*1 claim\(s\) left for later"):
            retrieve_documents(fetch=False)
    assert len(server.requests) <= 3
    with open_warehouse(load_settings().warehouse, read_only=True) as wh:
        assert wh.scalar("SELECT count(*) FROM claim_retrieval") == 1
        assert wh.scalar("SELECT sum(queries) FROM search_usage") == len(server.requests)


def test_key_from_a_prefect_secret_block(monkeypatch: pytest.MonkeyPatch) -> None:
    Secret(value=KEY).save("brave-search-key", overwrite=True)
    assert resolve_key(None, "brave-search-key", "search.brave_api_key").get_secret_value() == KEY
    monkeypatch.setenv("ARASTANCE_SEARCH__BACKEND", "brave")
    monkeypatch.setenv("ARASTANCE_SEARCH__BRAVE_API_KEY_BLOCK", "brave-search-key")
    backend = make_backend(load_settings())
    assert isinstance(backend, BraveSearch) and KEY not in repr(backend)
    with pytest.raises(SearchAuthError, match="'no-such-block' named by search.brave_api_key_block"):
        resolve_key(None, "no-such-block", "search.brave_api_key")


def test_key_from_a_prefect_secret_block_loses_its_trailing_newline_and_a_stray_character_is_refused() -> None:
    Secret(value=KEY + "\n").save("brave-key-from-a-file", overwrite=True)
    assert resolve_key(None, "brave-key-from-a-file", "search.brave_api_key").get_secret_value() == KEY
    Secret(value=KEY[:4] + "\x00" + KEY[4:]).save("brave-key-with-a-nul", overwrite=True)
    with pytest.raises(SearchAuthError, match="the key in Prefect Secret block 'brave-key-with-a-nul' named by "
                                              r"search\.brave_api_key_block has a control") as err:
        resolve_key(None, "brave-key-with-a-nul", "search.brave_api_key")
    assert KEY[4:] not in str(err.value)


def test_retrieve_without_an_index_says_how_to_build_one() -> None:
    _claims()
    result = runner.invoke(app, ["retrieve", "--no-fetch"])
    assert result.exit_code == 2
    assert "no local search index" in result.output and "arastance index build" in result.output


def test_an_unknown_claim_id_is_named_before_anything_is_searched() -> None:
    _claims()
    result = runner.invoke(app, ["retrieve", "--claim", "flu", "--claim", "fluu", "--claim", "x"])
    assert result.exit_code == 2
    assert "no stored claim has the id(s) fluu, x" in result.output.replace("\n", " ")
    with open_warehouse(load_settings().warehouse, read_only=True) as wh:
        assert wh.table_counts()["queries"] == 0 and wh.table_counts()["claim_retrieval"] == 0
