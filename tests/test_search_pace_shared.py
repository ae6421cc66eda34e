"""One web backend's pace kept by several processes: the worker processes of the Dask LocalCluster
that ``orchestration.task_runner = "dask"`` starts each build their own client, and each keeps its
turn of the pace (``search.min_request_interval_s``, or what the API's headers ask), so that the
run sends no faster than its threads would through one shared client."""

from __future__ import annotations

import threading
import time
from collections.abc import Iterator
from datetime import date

import pytest
from helpers_search import ApiServer, Reply, brave_body, brave_error, false_claim_row
from prefect.testing.utilities import prefect_test_harness

from arastance.config import load_settings
from arastance.config.orchestration import OrchestrationSettings
from flows.retrieve_documents import retrieve_documents
from tasks.search.factory import pace_share
from tasks.search.http import PaceShare, Pacer
from warehouse import open_warehouse

CLAIMS = ["إغلاق المدارس بسبب الإنفلونزا في القاهرة",
          "انهيار سد النهضة بعد الأمطار الغزيرة",
          "رفع أسعار الوقود في السعودية الشهر المقبل",
          "زلزال قوي يضرب مدينة جدة فجر اليوم",
          "حظر تجول شامل في دبي بسبب العاصفة",
          "إغلاق مطار القاهرة الدولي أمام الرحلات"]
WORKERS = 3
#: The stand-in API refuses a request that comes less than this after the last one it answered
#: (its plan's pace, 0.5 s, less the time a busy machine may take to send a request on time).
WINDOW_S = 0.4
#: Brave's headers for a plan of two requests a second (paced at 0.55 s by the client).
BRAVE_TWO_A_SECOND = {"X-RateLimit-Limit": "2, 15000", "X-RateLimit-Remaining": "1, 14000",
                      "X-RateLimit-Reset": "1, 1419704"}


def _slots(pacers: list[Pacer], each: int) -> list[float]:
    """The times ``pacers`` give, ``each`` requests apiece, asked in a thread per pacer that waits
    out each delay (on a clock stopped at 100 s: a thread counts from its last slot)."""
    slots: list[float] = []

    def ask(pacer: Pacer) -> None:
        at = 100.0
        for _ in range(each):
            at += pacer.delay()
            slots.append(at)

    for pacer in pacers:
        thread = threading.Thread(target=ask, args=(pacer,))
        thread.start()
        thread.join()
    return sorted(slots)


def test_processes_sharing_a_pace_each_send_in_their_own_turn() -> None:
    """Three processes' pacers on one machine's clock: their requests, set or learned, are one
    interval apart in all, as one pacer's would be (each at the interval alone, they came together)."""
    pacers = [Pacer(1.0, share=PaceShare(3, turn), clock=lambda: 100.0) for turn in range(3)]
    assert _slots(pacers, 3) == [100.0 + n for n in range(9)]
    learned = [Pacer(0.0, share=PaceShare(3, turn), clock=lambda: 100.0) for turn in range(3)]
    for pacer in learned:
        pacer.slow_to(2.0)
    assert _slots(learned, 2) == [100.0 + 2 * n for n in range(6)]


def test_a_process_outside_a_dask_worker_keeps_the_whole_pace() -> None:
    """The flow's own process plans and a CLI search sends alone; the workers of a remote scheduler
    are not counted (each keeps the whole pace, as search.min_request_interval_s says)."""
    assert pace_share(OrchestrationSettings(task_runner="dask", workers=WORKERS)) == PaceShare()
    assert pace_share(OrchestrationSettings(task_runner="dask", workers=WORKERS,
                                            dask_address="tcp://10.0.0.5:8786")) == PaceShare()
    with pytest.raises(ValueError, match="turn 3 of 3 process"):
        PaceShare(3, 3)


@pytest.fixture(scope="module")
def prefect_api() -> Iterator[None]:
    with prefect_test_harness(server_startup_timeout=180):
        yield


@pytest.mark.slow
@pytest.mark.parametrize(("interval", "headers", "refusals"), [
    ("0.55", {}, 0),
    # learned from the first answers: each process's first request, sent before the pace is known, may
    # be refused or have one paced request refused after it (and one more, for a busy machine's lateness)
    ("0", BRAVE_TWO_A_SECOND, WORKERS + 1),
], ids=["set-pace", "learned-pace"])
def test_a_dask_local_cluster_run_keeps_the_pace_of_its_threads(
        prefect_api: None, monkeypatch: pytest.MonkeyPatch, interval: str, headers: dict[str, str],
        refusals: int) -> None:
    """The retrieval flow on the LocalCluster runner of three worker processes, against a plan that
    refuses a request close after another: every claim is searched, with no refusal once the pace is
    known. It was: each process kept the whole pace, three times too fast together; 6 to 9 of some
    25 requests were refused at a set pace, 12 to 14 at a learned one, and claims failed after their
    retries."""
    lock, answered, arrivals, refused = threading.Lock(), [float("-inf")], [], [0]

    def handler(request) -> Reply:
        with lock:
            now = time.monotonic()
            arrivals.append(now)
            if now - answered[0] < WINDOW_S:
                refused[0] += 1
                return Reply(429, brave_error(429, "RATE_LIMITED", "Request rate limit exceeded for plan."), headers)
            answered[0] = now
        return Reply(body=brave_body(request.params["q"], 0, 3, 3), headers=headers)

    with open_warehouse(load_settings().warehouse) as wh:
        wh.insert_rows("claims", [false_claim_row(f"c{i}", text, date(2016, 5, 1 + i))
                                  for i, text in enumerate(CLAIMS)])
    server = ApiServer(handler)
    with server.running():
        for name, value in {"SEARCH__BACKEND": "brave", "SEARCH__BRAVE_API_KEY": "k" * 24,
                            "SEARCH__BRAVE_ENDPOINT": server.url + "/b", "SEARCH__MIN_REQUEST_INTERVAL_S": interval,
                            "ORCHESTRATION__TASK_RUNNER": "dask", "ORCHESTRATION__WORKERS": str(WORKERS)}.items():
            monkeypatch.setenv(f"ARASTANCE_{name}", value)  # the worker processes start with these
        rows = retrieve_documents(fetch=False)
    assert {r["claim_id"]: r["status"] for r in rows} == {f"c{i}": "searched" for i in range(len(CLAIMS))}
    assert len(arrivals) > len(CLAIMS) and refused[0] <= refusals
