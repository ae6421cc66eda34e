"""``arastance retrieve --backend`` per run and the comparison of backends on the same claims."""

from __future__ import annotations

from collections.abc import Iterator
from datetime import date
from pathlib import Path

import pytest
from helpers_search import ApiServer, Reply, false_claim_row
from prefect.testing.utilities import prefect_test_harness
from typer.testing import CliRunner

from arastance.cli import app
from arastance.config import load_settings
from tasks.search.local import LocalIndex, records_from_dicts
from warehouse import open_warehouse

runner = CliRunner()
FLU = "وزارة الصحة تعلن إغلاق المدارس بسبب انتشار الإنفلونزا في القاهرة"
TEXT = "نفت وزارة الصحة ما تردد عن إغلاق المدارس بسبب انتشار الإنفلونزا في القاهرة هذا الأسبوع"
SHARED = "https://www.youm7.com/story/2016/5/12/flu-schools"
LOCAL = [{"url": SHARED, "title": "الصحة تنفي إغلاق المدارس بسبب الإنفلونزا", "text": TEXT, "published_date": "2016-05-12"},
         {"url": "https://aljazeera.net/news/flu", "title": "لا إغلاق للمدارس بسبب الإنفلونزا", "text": TEXT,
          "published_date": "2016-05-14"}]
SERP = [{"position": 1, "link": SHARED, "title": "الصحة تنفي", "snippet": TEXT, "date": "May 12, 2016"},
        {"position": 2, "link": "https://blog.example.org/flu", "title": "مدونة", "snippet": TEXT, "date": "Jan 3, 2019"},
        {"position": 3, "link": "https://alarabiya.net/flu", "title": "العربية", "snippet": TEXT, "date": "May 20, 2016"}]


@pytest.fixture
def two_backends(monkeypatch: pytest.MonkeyPatch) -> Iterator[ApiServer]:
    LocalIndex.build(records_from_dicts(LOCAL), load_settings().search_index_dir)
    server = ApiServer(lambda r: Reply(body={"search_metadata": {"status": "Success"}, "organic_results": SERP}))
    monkeypatch.setenv("ARASTANCE_SEARCH__BACKEND", "local")  # restored after the test, whatever --backend sets
    monkeypatch.setenv("ARASTANCE_SEARCH__SERPAPI_API_KEY", "serp-key-123")
    monkeypatch.setenv("ARASTANCE_SEARCH__SERPAPI_ENDPOINT", server.url + "/search.json")
    monkeypatch.setenv("COLUMNS", "200")
    with open_warehouse(load_settings().warehouse) as wh:
        wh.insert_rows("claims", [false_claim_row("flu", FLU, date(2016, 5, 10))])
    with server.running(), prefect_test_harness(server_startup_timeout=180):
        yield server


@pytest.mark.slow
def test_backend_per_run_then_a_comparison_report_on_the_same_claims(two_backends: ApiServer, tmp_path: Path) -> None:
    first = runner.invoke(app, ["retrieve", "--no-fetch"])
    assert first.exit_code == 0, first.output
    only_local = runner.invoke(app, ["retrieve", "compare", "--backend", "local", "--backend", "serpapi"])
    assert only_local.exit_code == 2 and "--redo" in only_local.output  # serpapi has not searched yet
    second = runner.invoke(app, ["retrieve", "--backend", "serpapi", "--redo", "--no-fetch"])
    assert second.exit_code == 0, second.output
    assert two_backends.requests and two_backends.requests[0].params["engine"] == "google"
    with open_warehouse(load_settings().warehouse, read_only=True) as wh:
        assert {r["backend"] for r in wh.query("SELECT DISTINCT backend FROM search_hits")} == {"local", "serpapi"}
        assert wh.scalar("SELECT backend FROM claim_retrieval") == "serpapi"
    report = tmp_path / "compare.md"
    result = runner.invoke(app, ["retrieve", "compare", "--out", str(report)])
    assert result.exit_code == 0, result.output
    text = report.read_text(encoding="utf-8")
    assert "compared on 1 claim(s)" in text
    rows = {line.split("|")[1].strip(): [c.strip() for c in line.split("|")[2:-1]]
            for line in text.splitlines() if line.startswith("| local") or line.startswith("| serpapi")}
    # backend | claims | documents | per_claim | inside_window | undated | news_domains
    assert rows["serpapi"] == ["1", "3", "3.0", "0.667", "0.0", "0.667"]  # the 2019 blog post is outside, not news
    assert rows["local"][:2] == ["1", "2"] and rows["local"][3:] == ["1.0", "0.0", "1.0"]
    assert "| local & serpapi | 1 | 0.25 |" in text  # the youm7 story both found, of 4 distinct


def test_an_unknown_backend_is_refused_by_name(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("ARASTANCE_SEARCH__BACKEND", "local")
    result = runner.invoke(app, ["retrieve", "--backend", "bing", "--no-fetch"])
    assert result.exit_code == 2 and "--backend 'bing' is not one of local, google, brave, serpapi, searxng" in result.output
