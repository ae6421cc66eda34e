"""The DuckLake warehouse on a real PostgreSQL catalog: schema, loads, concurrent writers and readers.

Each test gets its own catalog database and data path on one PostgreSQL server started for the
module. The concurrent tests run loads in separate processes, each with its own data directory
(its own staging runs and stage locks), as Prefect workers on different hosts would, or with one
data directory, as two loads of one host.
"""

from __future__ import annotations

import importlib
import json
import logging
import os
import re
import socket
import subprocess
import sys
import threading
import time
from collections.abc import Iterator
from datetime import datetime
from pathlib import Path
from urllib.parse import quote

import duckdb
import pytest

import helpers_crawl_load
from helpers_annotation import add_labelled_pairs
from helpers_crawl_load import StagedPost, write_run
from helpers_lake import lake_env, postgres  # noqa: F401 - the fixtures
from helpers_postgres import NO_SERVER, PostgresServer, temporary_postgres
from helpers_prefect import PrefectServer, api_client, prefect_server

from arastance.config import SettingsError, load_settings
from arastance.config.annotation import AnnotationSettings
from flows.build_dataset import build_dataset
from tasks.claim_load.load import load_crawl_run
from tasks.claim_load.rekey import rekey_claims
from tasks.dataset.assemble import SplitResult, assign_claim_splits
from tasks.stage_locks import StageBusyError, stage_lock, warehouse_locks
from warehouse import Warehouse, WarehouseBusyError, WarehouseError, open_published, open_warehouse
from warehouse.ducklake import split_password
from warehouse.extensions import load_extension
from warehouse.lake_schema import LAKE_BACKFILL, _lake_backfill, lake_schema
from warehouse.migrate import apply_migrations, available_migrations
from warehouse.schema_check import check_schema

ROOT = Path(__file__).resolve().parents[1]


@pytest.mark.parametrize(("env", "named"), [
    ({"ARASTANCE_WAREHOUSE_BACKEND": "lake"}, "warehouse_backend (ARASTANCE_WAREHOUSE_BACKEND): Input should be 'duckdb' or 'ducklake'"),
    ({"ARASTANCE_WAREHOUSE_BACKEND": "ducklake", "ARASTANCE_WAREHOUSE_DATA_PATH": "/srv/lake"},
     "warehouse_catalog_url (ARASTANCE_WAREHOUSE_CATALOG_URL): Value error, required when warehouse_backend is ducklake"),
    ({"ARASTANCE_WAREHOUSE_BACKEND": "ducklake", "ARASTANCE_WAREHOUSE_CATALOG_URL": "sqlite:catalog.db",
      "ARASTANCE_WAREHOUSE_DATA_PATH": "/srv/lake"}, "warehouse_catalog_url (ARASTANCE_WAREHOUSE_CATALOG_URL): Value error, must start with 'postgres:'"),
    ({"ARASTANCE_WAREHOUSE_BACKEND": "ducklake", "ARASTANCE_WAREHOUSE_CATALOG_URL": "postgres:dbname=a"},
     "warehouse_data_path (ARASTANCE_WAREHOUSE_DATA_PATH): Value error, required when warehouse_backend is ducklake"),
    ({"ARASTANCE_WAREHOUSE_WRITE_WAIT_S": "0"}, "warehouse_write_wait_s (ARASTANCE_WAREHOUSE_WRITE_WAIT_S)"),
])
def test_bad_backend_settings_fail_naming_the_setting(monkeypatch: pytest.MonkeyPatch, env: dict[str, str], named: str) -> None:
    for name, value in env.items():
        monkeypatch.setenv(name, value)
    with pytest.raises(SettingsError, match="invalid setting " + named.replace("(", r"\(").replace(")", r"\)")):
        load_settings()


def test_the_catalog_url_is_a_secret(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("ARASTANCE_WAREHOUSE_BACKEND", "ducklake")
    monkeypatch.setenv("ARASTANCE_WAREHOUSE_CATALOG_URL", "postgres:dbname=a password=s3cret-pw")
    monkeypatch.setenv("ARASTANCE_WAREHOUSE_DATA_PATH", "/srv/lake")
    settings = load_settings()
    assert "s3cret-pw" not in repr(settings) and settings.warehouse_data_path == "/srv/lake"


def test_the_lake_schema_restates_every_migration_without_constraints() -> None:
    schema = lake_schema()
    assert sorted(schema.migrations) == [m.version for m in available_migrations()]
    statements = [st for sts in schema.migrations.values() for st in sts] + schema.version_table
    constraint = re.compile(r"\bPRIMARY KEY\b|\bUNIQUE\b|\bCHECK\s*\(|\bCREATE INDEX\b", re.IGNORECASE)
    assert not [st for st in statements if constraint.search(st)]
    created = {st.split('"')[1] for st in statements if st.startswith("CREATE TABLE")}
    assert {"claims", "raw_pages", "crawl_runs", "schema_version", "near_duplicate_index_state"} <= created
    assert any(st.startswith('ALTER TABLE "raw_pages" ADD COLUMN "original_url"') for st in schema.migrations[63])
    assert any(st.startswith("CREATE OR REPLACE VIEW v_source_stats") for st in schema.migrations[66])
    # a view made anew gets its comment again, also one of the same text (it was: 077 left none)
    assert 'COMMENT ON VIEW "v_experiment_cells"' in " ".join(schema.migrations[77])
    assert schema.keys["claims"] == [["claim_id"], ["source_id", "canonical_url"]]
    assert schema.keys["articles"] == [["article_id"], ["canonical_url"]]


def test_an_unreachable_catalog_is_named_without_its_password(monkeypatch: pytest.MonkeyPatch, tmp_path: Path) -> None:
    with socket.socket() as unused:  # a port nothing listens on
        unused.bind(("127.0.0.1", 0))
        port = unused.getsockname()[1]
    monkeypatch.setenv("ARASTANCE_WAREHOUSE_BACKEND", "ducklake")
    monkeypatch.setenv("ARASTANCE_WAREHOUSE_CATALOG_URL", f"postgres:dbname=a host=127.0.0.1 port={port} password=s3cret-pw")
    monkeypatch.setenv("ARASTANCE_WAREHOUSE_DATA_PATH", str(tmp_path / "lake"))
    with pytest.raises(WarehouseError, match="cannot attach the DuckLake warehouse .catalog warehouse_catalog_url") as err:
        open_warehouse()
    assert "s3cret-pw" not in str(err.value) and "Connection refused" in str(err.value)


PASSWORD = "s3cret pw'x"  # a blank and a quote: quoted in a key/value string, percent-encoded in a URI


@pytest.fixture
def password_postgres(tmp_path: Path) -> Iterator[PostgresServer]:
    """A server of its own that asks for ``PASSWORD`` (the module's trusts anyone), for a test that stops it."""
    with temporary_postgres("arastance-pg-") as server:
        if server is None:
            pytest.skip(NO_SERVER)
        con = duckdb.connect()
        load_extension(con, "postgres_scanner")
        con.execute(f"ATTACH 'dbname=postgres host=127.0.0.1 port={server.port} user=postgres' AS pg (TYPE postgres)")
        con.execute("CALL postgres_execute('pg', $$ALTER USER postgres PASSWORD '" + PASSWORD.replace("'", "''") + "'$$)")
        [(hba_file,)] = con.execute("SELECT * FROM postgres_query('pg', 'SELECT current_setting(''hba_file'')')").fetchall()
        hba = Path(hba_file)
        hba.write_text(hba.read_text().replace(" trust", " scram-sha-256"))
        con.execute("SELECT * FROM postgres_query('pg', 'SELECT pg_reload_conf()')").fetchall()
        con.close()
        yield server


@pytest.mark.parametrize(("given", "kept", "password"), [
    ("dbname=a host=h password=s3cret-pw", "dbname=a host=h", "s3cret-pw"),
    ("password = 'a\\'b c'  dbname='my db'", "dbname='my db'", "a'b c"),
    ("dbname=a password=ab'c\\ d", "dbname=a", "ab'c d"),
    ("dbname=a host=h", "dbname=a host=h", None),
    ("postgresql://u@h/db", "postgresql://u@h/db", None),
    ("postgresql://u:p%40w@h1:5432,[::1]/db?sslmode=require",
     "user='u' host='h1,::1' port='5432,' dbname='db' sslmode='require'", "p@w"),
    ("postgres://h/db?password=q&application_name=it's", "host='h' dbname='db' application_name='it\\'s'", "q"),
    # libpq percent-decodes a URI's query but keeps its + (a form's space): the password s3cret+pw failed to log in
    ("postgresql://h/db?password=s3cret+pw%21&application_name=a+b", "host='h' dbname='db' application_name='a+b'",
     "s3cret+pw!"),
])
def test_the_password_is_taken_out_of_the_connection_string(given: str, kept: str, password: str | None) -> None:
    assert split_password(given) == (kept, password)


@pytest.mark.parametrize("url", [
    "postgres:dbname=postgres host=127.0.0.1 port={port} user=postgres password='" + PASSWORD.replace("'", "\\'") + "'",
    f"postgres:postgresql://postgres:{quote(PASSWORD)}@127.0.0.1:{{port}}/postgres",
])
def test_a_catalog_lost_after_the_attach_is_named_without_its_password(
    password_postgres: PostgresServer, monkeypatch: pytest.MonkeyPatch, tmp_path: Path, url: str
) -> None:
    # PostgreSQL restarting or failing over under an attached lake: every later query's error quoted
    # the connection string, password included, and `arastance sql` printed it.
    monkeypatch.setenv("ARASTANCE_WAREHOUSE_BACKEND", "ducklake")
    monkeypatch.setenv("ARASTANCE_WAREHOUSE_CATALOG_URL", url.format(port=password_postgres.port))
    monkeypatch.setenv("ARASTANCE_WAREHOUSE_DATA_PATH", str(tmp_path / "lake"))
    with open_warehouse() as writer, open_warehouse(read_only=True) as reader:  # the password was given to PostgreSQL
        password_postgres.stop()
        with pytest.raises(duckdb.Error) as lost:
            reader.con.sql("SELECT count(*) FROM claims")
        with pytest.raises(duckdb.Error) as locking, writer.transaction():
            pass
    for err in (lost, locking):
        assert "Unable to connect to Postgres" in str(err.value) and "s3cret" not in str(err.value)


def test_a_wrong_catalog_password_is_refused_naming_no_password(
    password_postgres: PostgresServer, monkeypatch: pytest.MonkeyPatch, tmp_path: Path
) -> None:
    monkeypatch.setenv("ARASTANCE_WAREHOUSE_BACKEND", "ducklake")
    monkeypatch.setenv("ARASTANCE_WAREHOUSE_CATALOG_URL",
                       f"postgres:dbname=postgres host=127.0.0.1 port={password_postgres.port} user=postgres password=wr0ng-pw")
    monkeypatch.setenv("ARASTANCE_WAREHOUSE_DATA_PATH", str(tmp_path / "lake"))
    with pytest.raises(WarehouseError, match="password authentication failed") as err:
        open_warehouse()
    assert "wr0ng-pw" not in str(err.value)


def _posts(numbers: range) -> list[StagedPost]:
    return [StagedPost(f"/fact/{n}/", f"ادعاء رقم {n} عن واقعة لم تحدث في المدينة {n * 37}", title=f"حقيقة {n}")
            for n in numbers]


def _claim_counts(wh: Warehouse) -> tuple[int, int]:
    row = wh.query("SELECT count(*) AS n, count(DISTINCT claim_id) AS distinct_ids FROM claims")[0]
    return int(row["n"]), int(row["distinct_ids"])


@pytest.mark.parametrize("read_only", [False, True], ids=["writer", "reader"])
def test_a_data_path_other_than_the_catalogs_is_one_line_naming_the_setting(
        read_only: bool, lake_env: dict[str, str], tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    # it was: DuckLake's two lines, the second naming OVERRIDE_DATA_PATH, an option the project has no setting for
    open_warehouse().close()
    (tmp_path / "link").symlink_to(Path(lake_env["ARASTANCE_WAREHOUSE_DATA_PATH"]).parent)
    monkeypatch.setenv("ARASTANCE_WAREHOUSE_DATA_PATH", str(tmp_path / "link" / "lake"))  # the same folder, another name
    with pytest.raises(WarehouseError) as refused:
        open_warehouse(read_only=read_only)
    message = str(refused.value)
    assert "does not match existing data path in the catalog" in message and "\n" not in message
    assert message.endswith("; set warehouse_data_path (ARASTANCE_WAREHOUSE_DATA_PATH) to the catalog's data path, "
                            "spelled as the lake was created with it")


def test_migrations_build_the_schema_without_constraints(lake_env: dict[str, str], tmp_path: Path) -> None:
    with open_warehouse() as wh:
        assert wh.backend == "ducklake"
        versions = [r["version"] for r in wh.query("SELECT version FROM schema_version ORDER BY version")]
        assert versions == [m.version for m in available_migrations()]
        assert check_schema(wh).ok, check_schema(wh).lines()
        assert apply_migrations(wh) == []  # a second upgrade finds nothing to do
        comment = wh.scalar("SELECT comment FROM duckdb_views() WHERE database_name = 'lake' AND view_name = 'v_source_stats'")
        assert comment and "dataset table" in comment
        assert wh.query("SELECT * FROM v_source_stats") == []
    assert not (tmp_path / "data" / "published").exists()  # nothing is published: readers attach the catalog
    assert list((tmp_path / "shared" / "lake").parent.iterdir())  # the data path was created


def test_writers_and_readers_of_the_lake_take_the_memory_limit(lake_env: dict[str, str],
                                                               monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("ARASTANCE_WAREHOUSE_MEMORY_LIMIT", "300MiB")
    open_warehouse().close()
    for read_only in (False, True):
        with open_warehouse(read_only=read_only) as wh:
            assert wh.backend == "ducklake" and wh.scalar("SELECT current_setting('memory_limit')") == "300.0 MiB"


def test_idempotent_inserts_follow_the_migrations_keys(lake_env: dict[str, str]) -> None:
    source = {"source_id": "example", "name": "Example", "base_url": "https://example.ae", "country": "UAE",
              "kind": "fact_check", "default_veracity": "false"}
    with open_warehouse() as wh:
        with wh.transaction():
            assert wh.insert_rows("sources", [source, {**source, "name": "repeated in the batch"}]) == 1
            assert wh.insert_rows("sources", [{**source, "name": "ignored"}], on_conflict="ignore") == 0
        assert wh.scalar("SELECT name FROM sources WHERE source_id = 'example'") == "Example"
        with wh.transaction():
            assert wh.insert_rows("sources", [{**source, "name": "Araa News"}], on_conflict="update", update_columns=["name"]) == 0
        assert wh.query("SELECT name FROM sources WHERE source_id = 'example'") == [{"name": "Araa News"}]
        with pytest.raises(WarehouseError, match="duplicate key"), wh.transaction():
            wh.insert_rows("sources", [source], on_conflict="error")
        assert wh.scalar("SELECT count(*) FROM sources WHERE source_id = 'example'") == 1


def test_load_then_reload_and_overlapping_run_add_each_claim_once(lake_env: dict[str, str], tmp_path: Path) -> None:
    first = write_run(tmp_path / "staging" / "run-1", "araanews", _posts(range(0, 40)))
    overlapping = write_run(tmp_path / "staging" / "run-2", "araanews", _posts(range(20, 60)))
    with open_warehouse() as wh:
        assert load_crawl_run(wh, first).new_claims == 40
        again = load_crawl_run(wh, first)
        assert again.already_loaded and again.new_claims == 0
        report = load_crawl_run(wh, overlapping)
        assert (report.new_claims, report.new_pages) == (20, 20)
        assert _claim_counts(wh) == (60, 60)
        assert wh.scalar("SELECT count(*) - count(DISTINCT page_id) FROM raw_pages") == 0
        assert wh.scalar("SELECT count(*) FROM crawl_runs") == 2
        assert wh.scalar("SELECT count(*) FROM near_duplicate_index_state") == 1


def test_upserts_beyond_the_loader_work_on_the_lake(lake_env: dict[str, str], tmp_path: Path) -> None:
    # Review overrides, article re-fetches and the search budget's counter: upserts that the DuckDB
    # file does with ON CONFLICT.
    from datetime import date, datetime

    from tasks.claim_load.overrides import set_claim_override
    from warehouse.retrieval import add_queries_used, queries_used, store_articles

    article = {"article_id": "a1", "url": "https://youm7.com/s/1", "canonical_url": "https://youm7.com/s/1",
               "domain": "youm7.com", "fetch_status": "failed", "fetch_error": "http_503", "http_status": 503,
               "fetched_at": datetime(2024, 1, 1)}
    with open_warehouse() as wh:
        load_crawl_run(wh, write_run(tmp_path / "staging" / "run-1", "araanews", _posts(range(3))))
        claim_id = wh.scalar("SELECT min(claim_id) FROM claims")
        for text in ("نص المراجع الأول", "نص المراجع الثاني"):
            set_claim_override(wh, claim_id, text, reviewer="amal")
        assert wh.query("SELECT cleaned_text FROM claim_overrides") == [{"cleaned_text": "نص المراجع الثاني"}]
        assert store_articles(wh, [], [article]) == 1
        assert store_articles(wh, [], [{**article, "fetch_status": "ok", "fetch_error": None, "http_status": 200}]) == 0
        assert wh.query("SELECT fetch_status, http_status FROM articles") == [{"fetch_status": "ok", "http_status": 200}]
        assert wh.scalar("SELECT count(*) FROM sources WHERE source_id = 'youm7.com'") == 1
        for n in (3, 4):
            add_queries_used(wh, "brave", date(2024, 1, 1), n)
        assert queries_used(wh, "brave", date(2024, 1, 1)) == 7
        assert wh.scalar("SELECT count(*) FROM search_usage") == 1


def test_a_writer_waits_for_another_and_then_names_it(lake_env: dict[str, str], monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("ARASTANCE_WAREHOUSE_WRITE_WAIT_S", "1")
    with open_warehouse() as first, open_warehouse() as second:  # two connections, two PostgreSQL sessions
        with first.transaction():
            started = time.monotonic()
            with pytest.raises(WarehouseBusyError, match="PostgreSQL backend \\d+"), second.transaction():
                pass
            assert time.monotonic() - started >= 1
        with second.transaction():  # the first's commit released it
            assert second.scalar("SELECT count(*) FROM crawl_runs") == 0


_LOADER = """
import json, sys, time
from pathlib import Path
from tasks.claim_load.load import load_crawl_run
from warehouse import open_warehouse
runs, go, out = [Path(p) for p in sys.argv[1].split(",")], Path(sys.argv[2]), Path(sys.argv[3])
while not go.exists():
    time.sleep(0.01)
started = time.time()
with open_warehouse() as wh:
    new = [load_crawl_run(wh, run).new_claims for run in runs]
out.write_text(json.dumps({"new_claims": new, "started": started, "finished": time.time()}))
"""


def _loader(env: dict[str, str], data_dir: Path, runs: list[Path], go: Path, out: Path) -> subprocess.Popen[bytes]:
    """A load in a process of its own, with its own data directory; it starts when ``go`` appears."""
    child_env = {**os.environ, **env, "ARASTANCE_DATA_DIR": str(data_dir), "PYTHONPATH": f"{ROOT}{os.pathsep}{ROOT / 'tests'}"}
    return subprocess.Popen([sys.executable, "-c", _LOADER, ",".join(map(str, runs)), str(go), str(out)],
                            env=child_env, cwd=data_dir.parent, stderr=subprocess.PIPE)


def test_two_concurrent_loads_from_two_processes_store_every_claim_once(lake_env: dict[str, str], tmp_path: Path) -> None:
    # Two workers, each with its own staging directory; their runs overlap in claims (and pages),
    # and both start on a catalog no one has migrated yet.
    worker_a, worker_b = tmp_path / "host-a" / "data", tmp_path / "host-b" / "data"
    runs_a = [write_run(worker_a / "staging" / f"a-{i}", "araanews", _posts(range(i * 25, i * 25 + 50))) for i in range(3)]
    runs_b = [write_run(worker_b / "staging" / f"b-{i}", "araanews", _posts(range(i * 25 + 10, i * 25 + 60))) for i in range(3)]
    go = tmp_path / "go"
    procs = [_loader(lake_env, worker_a, runs_a, go, tmp_path / "a.json"),
             _loader(lake_env, worker_b, runs_b, go, tmp_path / "b.json")]
    go.touch()
    for proc in procs:
        _, err = proc.communicate(timeout=600)
        assert proc.returncode == 0, err.decode()
    a, b = (json.loads((tmp_path / f"{w}.json").read_text()) for w in "ab")
    assert a["started"] < b["finished"] and b["started"] < a["finished"]  # the two loads overlapped in time
    expected = set(range(0, 110))  # a: 0..99, b: 10..109
    with open_warehouse(read_only=True) as wh:
        assert _claim_counts(wh) == (len(expected), len(expected))
        assert wh.scalar("SELECT count(*) - count(DISTINCT page_id) FROM raw_pages") == 0
        assert wh.scalar("SELECT count(*) FROM raw_pages") == len(expected)
        assert wh.scalar("SELECT count(*) FROM crawl_runs") == 6
        assert wh.scalar("SELECT count(*) FROM schema_version") == len(available_migrations())
        assert wh.scalar("SELECT count(*) - count(DISTINCT source_id) FROM sources") == 0
    assert sum(a["new_claims"]) + sum(b["new_claims"]) == len(expected)  # each claim was new to exactly one load


def _cli_load(env: dict[str, str], data_dir: Path, run: Path, log: Path) -> subprocess.Popen[bytes]:
    """``arastance claims load run`` in a process of its own on the data directory ``data_dir``, logging to ``log``."""
    child_env = {**os.environ, **env, "ARASTANCE_DATA_DIR": str(data_dir), "PYTHONPATH": str(ROOT)}
    with log.open("wb") as err:
        return subprocess.Popen([sys.executable, "-c", "from arastance.cli import main; main()", "claims", "load", str(run)],
                                env=child_env, cwd=data_dir.parent, stdout=subprocess.DEVNULL, stderr=err)


def test_two_loads_of_one_host_wait_for_each_other_and_store_every_claim_once(
        lake_env: dict[str, str], tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    # it was: the second `claims load` on a host sharing the data directory (two sites' crawl loads, or one by
    # hand beside a scheduled crawl) exited 2 at once with "load is already running (PID ...)"
    data = tmp_path / "host" / "data"
    monkeypatch.setenv("ARASTANCE_DATA_DIR", str(data))
    with open_warehouse():
        pass  # migrated: the loads below only load
    runs = [write_run(data / "staging" / "reuters-like", "araanews", _posts(range(0, 50))),
            write_run(data / "staging" / "araanews-like", "araanews", _posts(range(30, 80)))]
    logs = [tmp_path / "a.log", tmp_path / "b.log"]
    with stage_lock(warehouse_locks(load_settings().warehouse), "load"):  # a load of this host, still running
        procs = [_cli_load(lake_env, data, run, log) for run, log in zip(runs, logs)]
        deadline = time.monotonic() + 300
        while not all("waiting for another run of the stage" in log.read_text() for log in logs):
            assert all(p.poll() is None for p in procs), [log.read_text() for log in logs]
            assert time.monotonic() < deadline, [log.read_text() for log in logs]
            time.sleep(0.1)
    for proc, log in zip(procs, logs):
        assert proc.wait(timeout=600) == 0, log.read_text()
        assert f"PID {os.getpid()}" in log.read_text()  # the wait names whom it waits for
    with open_warehouse(read_only=True) as wh:
        assert _claim_counts(wh) == (80, 80)
        assert wh.scalar("SELECT count(*) - count(DISTINCT page_id) FROM raw_pages") == 0
        assert wh.scalar("SELECT count(*) FROM crawl_runs") == 2


def test_a_load_waits_for_the_hosts_other_load_only_up_to_warehouse_write_wait_s(
        lake_env: dict[str, str], tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("ARASTANCE_WAREHOUSE_WRITE_WAIT_S", "1")
    run = write_run(tmp_path / "staging" / "run-1", "araanews", _posts(range(5)))
    with open_warehouse() as wh, stage_lock(warehouse_locks(wh.path), "load"):
        with pytest.raises(StageBusyError, match=f"load is already running \\(PID {os.getpid()} .*; waited 1s"):
            load_crawl_run(wh, run)
        assert wh.scalar("SELECT count(*) FROM crawl_runs") == 0
    with open_warehouse() as wh:  # the other load ended: this one runs
        assert load_crawl_run(wh, run).new_claims == 5


def test_a_reader_queries_while_a_load_runs(lake_env: dict[str, str], tmp_path: Path) -> None:
    with open_warehouse():
        pass  # migrated before the load, so the reader has a catalog to attach
    worker = tmp_path / "worker" / "data"
    run = write_run(worker / "staging" / "big", "araanews", _posts(range(400)))
    go = tmp_path / "go"
    proc = _loader(lake_env, worker, [run], go, tmp_path / "load.json")
    go.touch()
    seen: list[tuple[float, int]] = []  # (when, claims counted)
    with open_published(tmp_path / "data" / "warehouse.duckdb") as reader:  # the readers' entry point
        assert reader.read_only and reader.backend == "ducklake"
        while proc.poll() is None:
            seen.append((time.time(), int(reader.scalar("SELECT count(*) FROM claims"))))
            time.sleep(0.02)
        _, err = proc.communicate(timeout=600)
        assert proc.returncode == 0, err.decode()
        seen.append((time.time(), int(reader.scalar("SELECT count(*) FROM claims"))))
        with pytest.raises(WarehouseError, match="read-only"), reader.transaction():
            pass
    load = json.loads((tmp_path / "load.json").read_text())
    during = [n for when, n in seen if load["started"] < when < load["finished"]]
    assert len(during) >= 3  # the reader kept querying while the writer loaded
    assert {n for _, n in seen} <= {0, 400}  # the claims commit at once: a reader never sees half a load
    assert seen[-1][1] == 400


@pytest.fixture(scope="module")
def prefect(tmp_path_factory: pytest.TempPathFactory) -> Iterator[PrefectServer]:
    with prefect_server(tmp_path_factory.mktemp("prefect")) as running:
        yield running


def _gold_pairs_and_split_claims() -> tuple[int, int]:
    """What a reader of the catalog sees of a dataset build."""
    with open_published(load_settings().warehouse) as reader:
        return reader.scalar("SELECT count(*) FROM v_gold_pairs"), reader.scalar("SELECT count(*) FROM splits")


@pytest.mark.slow
def test_a_dataset_build_on_the_lake_is_one_commit_that_readers_see_whole(
    lake_env: dict[str, str], prefect: PrefectServer, monkeypatch: pytest.MonkeyPatch
) -> None:
    # it was: each step committed on its own, so a reader (or a training) between the steps saw the gold
    # labels decided and the all-unrelated claim flagged, but no splits
    with open_warehouse() as wh:
        add_labelled_pairs(wh)
    seen: list[tuple[int, int]] = []

    def split_with_a_reader(wh: Warehouse, cfg: AnnotationSettings) -> SplitResult:
        seen.append(_gold_pairs_and_split_claims())
        return assign_claim_splits(wh, cfg)

    monkeypatch.setattr(importlib.import_module("flows.build_dataset"), "split_claims", split_with_a_reader)
    with api_client(prefect):
        result = build_dataset(export=False)
    assert seen == [(0, 0)]
    assert (result["gold"], result["newly_split"]) == (24, 7)
    assert _gold_pairs_and_split_claims() == (21, 7)


def test_rows_read_in_batches_come_from_the_lake(lake_env: dict[str, str]) -> None:
    # it was: iter_rows' own cursor read DuckDB's default catalog, where the lake's tables are not
    # (reparse, archive captures and rekey-claims failed: "Table with name claims does not exist")
    with open_warehouse() as wh:
        wh.insert_rows("sources", [{"source_id": "dabegad", "name": "Dabegad", "country": "EG", "kind": "fact_check"}])
        assert [r["source_id"] for r in wh.iter_rows("SELECT source_id FROM sources")] == ["dabegad"]


def test_claims_are_re_keyed_on_the_lake(lake_env: dict[str, str], tmp_path: Path,
                                         monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setitem(helpers_crawl_load.SITE_BASE, "araanews", "http://www.araanews.ae")  # the old spelling
    old = write_run(tmp_path / "staging" / "old", "araanews", _posts(range(0, 3)))
    monkeypatch.setitem(helpers_crawl_load.SITE_BASE, "araanews", "https://araanews.ae")
    new = write_run(tmp_path / "staging" / "new", "araanews", _posts(range(0, 3)))
    with open_warehouse() as wh:
        assert load_crawl_run(wh, old).new_claims == 3
        assert len(rekey_claims(wh).moved) == 3
        assert load_crawl_run(wh, new).new_claims == 0  # the https run finds the re-keyed claims
        assert _claim_counts(wh) == (3, 3)
        assert wh.scalar("SELECT count(*) FROM claims WHERE canonical_url LIKE 'https://araanews.ae/%'") == 3


def test_re_keying_on_the_lake_waits_for_a_load_of_this_host(lake_env: dict[str, str], tmp_path: Path,
                                                               monkeypatch: pytest.MonkeyPatch,
                                                               caplog: pytest.LogCaptureFixture) -> None:
    # it was: `warehouse rekey-claims` was refused at once with "load is already running" (loads wait)
    monkeypatch.setitem(helpers_crawl_load.SITE_BASE, "araanews", "http://www.araanews.ae")  # the old spelling
    old = write_run(tmp_path / "staging" / "old", "araanews", _posts(range(0, 3)))
    done: dict[str, object] = {}

    def rekey_meanwhile(wh: Warehouse) -> None:
        try:
            done["moved"] = len(rekey_claims(wh).moved)
        except Exception as exc:  # handed to the test's thread
            done["error"] = exc

    with open_warehouse() as wh:
        load_crawl_run(wh, old)
        with caplog.at_level(logging.INFO), stage_lock(warehouse_locks(wh.path), "load"):  # a load of this host
            rekeying = threading.Thread(target=rekey_meanwhile, args=(wh,))
            rekeying.start()
            deadline = time.monotonic() + 120
            while "waiting for another run of the stage" not in caplog.text:
                assert rekeying.is_alive(), done
                assert time.monotonic() < deadline, caplog.text
                time.sleep(0.05)
        rekeying.join(timeout=300)
    assert done == {"moved": 3}


def test_a_migration_backfill_marked_for_lakes_runs_on_an_upgraded_lake(lake_env: dict[str, str]) -> None:
    # it was: a lake upgraded past 079 kept a dataset file's gold labels as 'annotation', so decisions withdrew them
    when = datetime(2021, 2, 1)
    with open_warehouse(migrate=False) as wh:
        apply_migrations(wh, up_to=78)
        for pair, reason in (("p-loaded", "loaded from an AraStance-format file"), ("p-retrieved", "top-10")):
            wh.insert_rows("claim_article_pairs", [{"pair_id": pair, "claim_id": "c", "article_id": pair, "rank": 1,
                                                    "reason": reason, "created_at": when}])
            wh.insert_rows("gold_labels", [{"pair_id": pair, "label": "agree", "method": "single", "decided_at": when}])
        assert apply_migrations(wh) == [79, 80, 81, 82, 83]
        origins = dict(wh.con.execute("SELECT pair_id, origin FROM gold_labels ORDER BY pair_id").fetchall())
    assert origins == {"p-loaded": "dataset_file", "p-retrieved": "annotation"}


def test_a_lake_backfill_is_split_as_duckdb_splits_statements() -> None:
    # it was: split on every ';', one inside a string literal too, which broke the statement in two
    sql = f"ALTER TABLE t ADD COLUMN x INTEGER;\n{LAKE_BACKFILL}\nUPDATE t SET x = 1 WHERE y = 'a;b'; -- why\nDELETE FROM t;\n"
    assert [" ".join(s.split()) for s in _lake_backfill(sql)] == [
        "UPDATE t SET x = 1 WHERE y = 'a;b'", "-- why DELETE FROM t;"]
    assert _lake_backfill("UPDATE t SET x = 1;") == []  # without the line, nothing runs on a lake
