"""kill -9 at a seeded random point of each stage, then the invariants: the warehouse opens and
matches its schema, nothing is half-stored, and a re-run ends with a clean run's counts and no
duplicates. ``ARASTANCE_FAULT_SEED`` picks other kill points (the seed is in every failure).

Each stage first runs cleanly (the reference, also timing the stage), then in a forked child
process (no start-up cost, so the kill lands in the work) killed with SIGKILL after a random
delay within that time; the re-run happens in this process.
"""

from __future__ import annotations

import os
import random
import signal
import sys
import time
from collections.abc import Callable, Iterator
from pathlib import Path

import pytest
from helpers_faults import STAGES
from helpers_annotation import add_claims, add_round, ls_annotation, ls_task, write_json
from helpers_crawl_load import StagedPost, write_run
from helpers_search import false_claim_row

from arastance.processes import PARENT_PID_ENV
from tasks.search.local import LocalIndex, records_from_dicts
from warehouse import Warehouse, open_warehouse
from warehouse.schema_check import check_schema

SEED = int(os.environ.get("ARASTANCE_FAULT_SEED", "13"))
PROJECT = Path(__file__).resolve().parents[1]


def _env(work: Path) -> dict[str, str]:
    env = {k: v for k, v in os.environ.items() if k.startswith("ARASTANCE_") or k in ("PATH", "HOME", "LANG")}
    return {**env, "PYTHONPATH": str(PROJECT), "ARASTANCE_DATA_DIR": str(work), "ARASTANCE_WAREHOUSE_PATH": str(work / "warehouse.duckdb")}


def kill_at_random_point(stage: str, work: Path, window_s: float, seed: int) -> tuple[int, float]:
    """Run the stage in a forked child and SIGKILL it ``uniform(0, window_s)`` after its work began."""
    delay = random.Random(f"{seed}-{stage}").uniform(0.0, window_s)
    ready, go = os.pipe()
    pid = os.fork()
    if pid == 0:  # the child: the stage, nothing else (never back into pytest)
        code = 1
        try:
            os.close(ready)
            os.environ.update({k: v for k, v in _env(work).items() if k.startswith("ARASTANCE_")})
            os.write(go, b"go")
            os.close(go)
            STAGES[stage](work)
            code = 0
        finally:
            os._exit(code)
    os.close(go)
    assert os.read(ready, 2) == b"go", f"{stage} child did not start"
    os.close(ready)
    time.sleep(delay)
    os.kill(pid, signal.SIGKILL)
    os.waitpid(pid, 0)
    return pid, delay


def counts(path: Path) -> dict[str, int]:
    with Warehouse(path, read_only=True) as wh:
        return {t: n for t, n in wh.table_counts().items() if t != "schema_version"}


def opens_and_matches_schema(path: Path) -> Warehouse:
    """Open as every stage does (pending migrations applied: a kill can land between two of
    them, each is its own transaction), then the schema must be exactly the migrations'."""
    wh = open_warehouse(path)
    assert check_schema(wh).ok, check_schema(wh).lines()
    return wh


@pytest.fixture
def reference(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Callable[[str, Callable[[Path], None]], tuple[Path, Path, float]]:
    """``(reference dir, victim dir, seconds)``: both prepared alike, the reference run cleanly in-process."""

    def run(stage: str, prepare: Callable[[Path], None]) -> tuple[Path, Path, float]:
        ref, hit = tmp_path / "ref", tmp_path / "hit"
        for work in (ref, hit):
            work.mkdir()
            prepare(work)
        for key, value in _env(ref).items():
            if key.startswith("ARASTANCE_"):
                monkeypatch.setenv(key, value)
        started = time.monotonic()
        STAGES[stage](ref)
        return ref, hit, time.monotonic() - started

    return run


def point_at(monkeypatch: pytest.MonkeyPatch, work: Path) -> None:
    for key, value in _env(work).items():
        if key.startswith("ARASTANCE_"):
            monkeypatch.setenv(key, value)


def test_load_killed_anywhere_leaves_no_half_run_and_a_rerun_completes(reference, monkeypatch) -> None:
    def prepare(work: Path) -> None:
        for i, site in enumerate(("araanews", "dabegad", "norumors", "reuters")):
            posts = [StagedPost(f"/2016/{i}/post-{j}/", f"شائعة {site} رقم {j} عن إغلاق الطرق في المدينة", f"عنوان {j}")
                     for j in range(60)]
            write_run(work / "runs" / f"{site}-1", site, posts, failed_pages=3)

    ref, hit, took = reference("load", prepare)
    pid, delay = kill_at_random_point("load", hit, took, SEED)
    where = f"seed {SEED}, killed after {delay:.2f}s of {took:.2f}s"
    unrecorded = "SELECT count(*) FROM {} WHERE run_id NOT IN (SELECT run_id FROM crawl_runs)"
    if (hit / "warehouse.duckdb").exists():
        with opens_and_matches_schema(hit / "warehouse.duckdb") as wh:
            # Raw pages commit in batches (bounded memory), so a killed load may leave some; never a claim.
            assert wh.scalar(unrecorded.format("claims")) == 0, f"claims of a run not recorded as loaded ({where})"
    point_at(monkeypatch, hit)
    STAGES["load"](hit)
    assert counts(hit / "warehouse.duckdb") == counts(ref / "warehouse.duckdb"), where
    with opens_and_matches_schema(hit / "warehouse.duckdb") as wh:  # the re-load adopted every page
        for table in ("raw_pages", "claims"):
            assert wh.scalar(unrecorded.format(table)) == 0, f"{table} rows of a run not recorded as loaded ({where})"


def test_annotation_import_killed_anywhere_stores_whole_files_only(reference, monkeypatch) -> None:
    def prepare(work: Path) -> None:
        with open_warehouse(work / "warehouse.duckdb") as wh:
            pairs = add_claims(wh, 60, 3)
            add_round(wh, "prod-1", "production")
        labels = ("agree", "disagree", "discuss", "unrelated")
        for a, annotator in enumerate(("ann-1", "ann-2", "ann-3")):
            tasks = [ls_task(p, "prod-1", [ls_annotation(annotator, labels[(i + a) % 4])], i) for i, p in enumerate(pairs)]
            write_json(work / "labels" / f"{annotator}.json", tasks)

    ref, hit, took = reference("annotation-import", prepare)
    pid, delay = kill_at_random_point("annotation-import", hit, took, SEED)
    where = f"seed {SEED}, killed after {delay:.2f}s of {took:.2f}s"
    with opens_and_matches_schema(hit / "warehouse.duckdb") as wh:
        stored = wh.scalar("SELECT count(*) FROM annotations")
        recorded = wh.scalar("SELECT coalesce(sum(new_annotations), 0) FROM annotation_imports")
        assert stored == recorded and stored % 180 == 0, f"a file half-imported ({where})"
    point_at(monkeypatch, hit)
    STAGES["annotation-import"](hit)
    assert counts(hit / "warehouse.duckdb") == counts(ref / "warehouse.duckdb"), where


def test_training_killed_anywhere_records_only_finished_runs(reference, monkeypatch) -> None:
    monkeypatch.setenv("ARASTANCE_MODEL__AUTO_TUNE", "false")
    ref, hit, took = reference("training", lambda work: None)
    pid, delay = kill_at_random_point("training", hit, took, SEED)
    where = f"seed {SEED}, killed after {delay:.2f}s of {took:.2f}s"
    from tasks.stance.model import load_model

    def finished_runs(work: Path) -> list[dict]:
        if not (work / "warehouse.duckdb").exists():
            return []
        with opens_and_matches_schema(work / "warehouse.duckdb") as wh:
            runs = wh.query("SELECT run_id, status, artifact_path FROM model_runs")
            per_run = wh.query("SELECT run_id, count(*) AS n FROM evaluations GROUP BY run_id")
        assert all(r["status"] == "succeeded" for r in runs), f"a run left half-recorded ({where})"
        assert len({r["n"] for r in per_run}) <= 1 and len(per_run) == len(runs), where
        for r in runs:
            load_model(Path(r["artifact_path"]))  # every recorded run's model is complete
        return runs

    before = finished_runs(hit)
    point_at(monkeypatch, hit)
    STAGES["training"](hit)
    after = finished_runs(hit)
    assert len(after) == len(before) + 2
    assert counts(hit / "warehouse.duckdb")["evaluations"] == counts(ref / "warehouse.duckdb")["evaluations"] // 2 * len(after)


def test_retrieval_killed_anywhere_resumes_to_the_same_result(reference, monkeypatch) -> None:
    corpus = [{"url": f"https://www.youm7.com/story/2016/5/{i}/", "title": f"خبر رقم {i} عن سد النهضة والأمطار",
               "text": f"نص الخبر {i} عن سد النهضة في إثيوبيا بعد الأمطار الغزيرة وإغلاق المدارس.",
               "published_date": "2016-05-12"} for i in range(40)]
    topics = ["انهيار سد النهضة في إثيوبيا بعد الأمطار", "إغلاق المدارس في القاهرة بسبب الإنفلونزا",
              "ارتفاع أسعار الخبز في أسواق العاصمة", "افتتاح جسر جديد فوق النهر في المدينة"]

    def prepare(work: Path) -> None:
        point_at(monkeypatch, work)
        from arastance.config import load_settings

        LocalIndex.build(records_from_dicts(corpus), load_settings().search_index_dir)
        with open_warehouse(work / "warehouse.duckdb") as wh:
            wh.insert_rows("claims", [false_claim_row(f"c{i}", f"{topics[i % 4]} رقم {i}", None) for i in range(8)])

    ref, hit, took = reference("retrieval", prepare)
    pid, delay = kill_at_random_point("retrieval", hit, took, SEED)
    where = f"seed {SEED}, killed after {delay:.2f}s of {took:.2f}s"
    with opens_and_matches_schema(hit / "warehouse.duckdb") as wh:
        undecided = wh.scalar("SELECT count(*) FROM claim_retrieval r WHERE status = 'searched' AND NOT EXISTS "
                              "(SELECT 1 FROM document_decisions d WHERE d.claim_id = r.claim_id)")
        assert undecided == 0, f"a claim marked searched without its decisions ({where})"
    point_at(monkeypatch, hit)
    STAGES["retrieval"](hit)
    final = counts(hit / "warehouse.duckdb")
    assert final == counts(ref / "warehouse.duckdb"), where
    with Warehouse(hit / "warehouse.duckdb", read_only=True) as wh:
        assert wh.scalar("SELECT count(*) - count(DISTINCT hit_id) FROM search_hits") == 0


def _children_of(pid: int) -> list[int]:
    """Live processes started with ``ARASTANCE_PARENT_PID=pid`` (their parent may be gone)."""
    found = []
    for proc in Path("/proc").iterdir():
        if not proc.name.isdigit():
            continue
        try:
            environ = (proc / "environ").read_bytes()
            state = (proc / "stat").read_text().split()[2]
        except OSError:
            continue
        if f"{PARENT_PID_ENV}={pid}".encode() in environ.split(b"\0") and state != "Z":
            found.append(int(proc.name))
    return found


@pytest.fixture
def snapshot_server() -> Iterator[object]:
    from helpers_spiders import snapshot_root
    from snapshots.server import SnapshotServer

    # No deliberate faults: a page that fails twice then recovers would make the reference depend
    # on how many times each run happened to ask for it.
    server = SnapshotServer(snapshot_root(), faults=False).start()
    try:
        yield server
    finally:
        server.stop()


@pytest.mark.skipif(not sys.platform.startswith("linux"), reason="parent-death signal is Linux-only")
def test_crawl_killed_anywhere_takes_its_spider_along_and_a_rerun_completes(reference, monkeypatch, snapshot_server) -> None:
    for key, value in {"ARASTANCE_SITES__DABEGAD": snapshot_server.site_url("dabegad"),
                       "ARASTANCE_CRAWL__DOWNLOAD_DELAY_S": "0", "ARASTANCE_CRAWL__AUTOTHROTTLE": "false",
                       "ARASTANCE_CRAWL__RETRY_TIMES": "0", "ARASTANCE_CRAWL__RESUMABLE": "true"}.items():
        monkeypatch.setenv(key, value)
    ref, hit, took = reference("crawl", lambda work: None)
    pid, delay = kill_at_random_point("crawl", hit, took, SEED)
    where = f"seed {SEED}, killed after {delay:.2f}s of {took:.2f}s"
    deadline = time.monotonic() + 30
    while _children_of(pid) and time.monotonic() < deadline:
        time.sleep(0.2)
    assert not _children_of(pid), f"the spider outlived the crawl that started it ({where})"
    if (hit / "warehouse.duckdb").exists():
        with opens_and_matches_schema(hit / "warehouse.duckdb"):
            pass
    point_at(monkeypatch, hit)
    STAGES["crawl"](hit)  # the lock of the dead crawl is taken over; an interrupted run is resumed
    with Warehouse(hit / "warehouse.duckdb", read_only=True) as wh, Warehouse(ref / "warehouse.duckdb", read_only=True) as rw:
        claims = "SELECT canonical_url FROM claims"
        got, want = [r["canonical_url"] for r in wh.query(claims)], [r["canonical_url"] for r in rw.query(claims)]
        assert len(got) == len(set(got))
        assert set(got) == set(want), f"{where}: extra {set(got) - set(want)}, missing {set(want) - set(got)}"
