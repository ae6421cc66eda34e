"""Scale-out: the retrieval flow's per-claim searches, sent through prefect-dask to a two-worker
Dask LocalCluster, run in the worker processes and store exactly what the thread runner stores.
(The workers only search; the flow's own process writes the warehouse.)"""

from __future__ import annotations

from collections.abc import Iterator
from datetime import date
from pathlib import Path
from typing import Any

import pytest
from distributed import Client, LocalCluster
from helpers_search import false_claim_row
from prefect.testing.utilities import prefect_test_harness

from arastance.config import load_settings
from arastance.config.orchestration import OrchestrationSettings
from flows.retrieve_documents import retrieve_documents
from flows.runners import task_runner
from tasks.search.local import LocalIndex, records_from_dicts
from warehouse import open_warehouse

CLAIMS = [
    ("flu", "وزارة الصحة تعلن إغلاق المدارس بسبب انتشار الإنفلونزا في القاهرة", date(2016, 5, 10)),
    ("dam", "انهيار سد النهضة في إثيوبيا بعد الأمطار الغزيرة", date(2017, 2, 1)),
    ("fuel", "الحكومة ترفع أسعار البنزين والسولار اعتبارا من الشهر المقبل", date(2016, 11, 2)),
    ("flood", "سيول جارفة تغمر شوارع مدينة جدة وتعطل حركة المرور", date(2017, 11, 20)),
]
CORPUS = [
    ("https://www.youm7.com/story/2016/5/12/flu", "الصحة تنفي إغلاق المدارس بسبب الإنفلونزا",
     "نفت وزارة الصحة إغلاق المدارس في القاهرة بسبب الإنفلونزا وقالت إن الدراسة مستمرة.", "2016-05-12"),
    ("https://aljazeera.net/news/2016/5/14/flu", "لا إغلاق للمدارس في القاهرة",
     "الحالات المسجلة من الإنفلونزا محدودة ولا قرار بإغلاق المدارس في القاهرة.", "2016-05-14"),
    ("https://www.youm7.com/story/2017/2/3/dam", "إثيوبيا تنفي انهيار سد النهضة",
     "نفت الحكومة الإثيوبية انهيار سد النهضة بعد الأمطار الغزيرة وأكدت أن السد سليم.", "2017-02-03"),
    ("https://aljazeera.net/news/2017/2/5/dam", "الأمطار الغزيرة في إثيوبيا",
     "هطلت أمطار غزيرة على إثيوبيا دون أضرار في سد النهضة حسب المسؤولين.", "2017-02-05"),
    ("https://www.youm7.com/story/2016/11/3/fuel", "الحكومة ترفع أسعار البنزين",
     "قررت الحكومة رفع أسعار البنزين والسولار اعتبارا من الشهر المقبل.", "2016-11-03"),
    ("https://aljazeera.net/news/2016/11/4/fuel", "لا زيادة في أسعار الوقود",
     "نفى المتحدث باسم الحكومة أي زيادة في أسعار البنزين والسولار الشهر المقبل.", "2016-11-04"),
    ("https://www.youm7.com/story/2017/11/21/flood", "سيول في جدة",
     "غمرت السيول شوارع مدينة جدة وتعطلت حركة المرور في عدة أحياء.", "2017-11-21"),
    ("https://aljazeera.net/news/2017/11/22/flood", "الأمطار تعطل المرور في جدة",
     "تعطلت حركة المرور في جدة بعد أمطار غزيرة وسيول جارفة.", "2017-11-22"),
]


@pytest.fixture(scope="module", autouse=True)
def prefect_api() -> Iterator[None]:
    with prefect_test_harness(server_startup_timeout=180):
        yield


def _retrieve_into(warehouse: Path, monkeypatch: pytest.MonkeyPatch,
                   runner_settings: OrchestrationSettings) -> dict[str, Any]:
    """One retrieval (no article fetch) into its own warehouse; returns the flow's rows and the decisions.

    The runner comes from the settings, as in a deployment's run: the flow is called as decorated."""
    monkeypatch.setenv("ARASTANCE_WAREHOUSE_PATH", str(warehouse))
    for key, value in runner_settings.model_dump().items():
        if value is not None:
            monkeypatch.setenv(f"ARASTANCE_ORCHESTRATION__{key.upper()}", str(value))
    with open_warehouse(warehouse) as wh:
        wh.insert_rows("claims", [false_claim_row(cid, text, day) for cid, text, day in CLAIMS])
    rows = retrieve_documents(fetch=False)
    with open_warehouse(warehouse, read_only=True) as wh:
        decisions = wh.query("SELECT claim_id, url, decision, reason, rank FROM document_decisions "
                             "ORDER BY claim_id, url")
        hits = wh.scalar("SELECT count(*) FROM search_hits")
    return {"rows": sorted(rows, key=lambda r: r["claim_id"]), "decisions": decisions, "hits": hits}


def _searched_here(dask: Client) -> dict[str, int]:
    """How many search backends each Dask worker process built (one per process that searched)."""
    def backends() -> int:
        from tasks.search import batch

        return len(batch._backends)

    return dask.run(backends)


@pytest.mark.slow
def test_retrieval_on_a_two_worker_dask_cluster_equals_the_thread_runner(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    records = [{"url": u, "title": t, "text": text, "published_date": d} for u, t, text, d in CORPUS]
    monkeypatch.setenv("ARASTANCE_SEARCH__INDEX_DIR", str(tmp_path / "index"))  # one index for both runs
    LocalIndex.build(records_from_dicts(records), load_settings().search_index_dir)
    threads = _retrieve_into(tmp_path / "threads.duckdb", monkeypatch, OrchestrationSettings(workers=2))

    # two single-threaded worker processes, started with this test's settings in their environment
    with LocalCluster(n_workers=2, threads_per_worker=1, processes=True, dashboard_address=None) as cluster, \
            Client(cluster) as dask:
        assert set(_searched_here(dask).values()) == {0}
        on_dask = _retrieve_into(tmp_path / "dask.duckdb", monkeypatch, OrchestrationSettings(
            task_runner="dask", dask_address=cluster.scheduler_address))
        searched = _searched_here(dask)

    assert sum(searched.values()) >= 1  # the searches ran in the worker processes
    assert {r["claim_id"]: r["status"] for r in threads["rows"]} == {cid: "searched" for cid, _, _ in CLAIMS}
    assert threads["hits"] > 0 and any(d["decision"] == "kept" for d in threads["decisions"])
    assert on_dask == threads


def test_the_dask_setting_builds_a_local_cluster_runner_of_the_configured_size() -> None:
    runner: Any = task_runner(OrchestrationSettings(task_runner="dask", workers=3))
    assert type(runner).__name__ == "DaskTaskRunner"
    assert runner.cluster_kwargs == {"n_workers": 3, "threads_per_worker": 1, "processes": True}
    assert task_runner(OrchestrationSettings(task_runner="dask", dask_address="tcp://10.0.0.5:8786")).address == \
        "tcp://10.0.0.5:8786"
