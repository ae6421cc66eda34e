"""Schema migrations: applied once, in order, never dropping data."""

from pathlib import Path

import pytest

from warehouse import Warehouse, WarehouseError
from warehouse.migrate import applied_versions, apply_migrations, available_migrations

EVERY_ENTITY = {
    "sources", "crawl_runs", "raw_pages", "claims", "claim_clusters", "queries", "search_hits",
    "articles", "claim_article_pairs", "annotations", "gold_labels", "splits", "model_runs",
    "evaluations", "schema_version",
}


def test_empty_file_gets_every_migration_then_reapplying_is_a_no_op(tmp_path: Path) -> None:
    path = tmp_path / "w.duckdb"
    with Warehouse(path) as wh:
        done = apply_migrations(wh)
        assert done == [m.version for m in available_migrations()]
        assert EVERY_ENTITY <= set(wh.tables())
    with Warehouse(path) as wh:
        assert apply_migrations(wh) == []
        assert set(applied_versions(wh)) == set(done)


def test_upgrading_a_warehouse_that_holds_data_keeps_it(tmp_path: Path) -> None:
    path = tmp_path / "w.duckdb"
    with Warehouse(path) as wh:
        apply_migrations(wh, up_to=1)
        wh.insert_rows("sources", [{"source_id": "dabegad", "name": "Dabegad", "kind": "fact_check"}])
        wh.insert_rows("claims", [{
            "claim_id": "c1", "source_id": "dabegad", "url": "http://x/1", "canonical_url": "http://x/1",
            "veracity": "false", "first_seen": "2016-01-01 00:00:00", "last_seen": "2016-01-01 00:00:00",
        }])
    with Warehouse(path) as wh:
        assert apply_migrations(wh)  # the later migrations
        assert wh.query("SELECT claim_id, source_id FROM claims") == [{"claim_id": "c1", "source_id": "dabegad"}]
        assert wh.scalar("SELECT count(*) FROM sources") == 1


def test_a_changed_migration_is_refused(tmp_path: Path) -> None:
    path = tmp_path / "w.duckdb"
    with Warehouse(path) as wh:
        apply_migrations(wh)
        wh.con.execute("UPDATE schema_version SET checksum = 'edited' WHERE version = 1")
        with pytest.raises(WarehouseError, match="001_core.sql changed"):
            apply_migrations(wh)
