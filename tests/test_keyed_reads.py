"""The keyed reader (``warehouse.keyed_reads.rows_by_keys``) that the ranked pool and the dataset
export read article texts with: every wanted row once, in chunks of keys below DuckDB's index-scan
limit, and no query for no keys. (That only the wanted rows' texts are read is measured on the pool's
queries: tests/test_retrieval_pool_query.py.)"""

from __future__ import annotations

import random
from typing import Any

import pytest

from warehouse import Warehouse
from warehouse.keyed_reads import KEYS_PER_QUERY, rows_by_keys
from warehouse.sql import load_sql

STORED = 2500


def _statements(wh: Warehouse, monkeypatch: pytest.MonkeyPatch) -> list[tuple[str, list[str]]]:
    """(SQL, parameters) of every query ``wh`` runs from now on, as it runs them."""
    ran: list[tuple[str, list[str]]] = []
    query = wh.query

    def observed(sql: str, params: Any = None) -> list[dict[str, Any]]:
        ran.append((sql, list(params or [])))
        return query(sql, params)

    monkeypatch.setattr(wh, "query", observed)  # observes the real queries, changes nothing
    return ran


@pytest.fixture
def wh(warehouse: Warehouse) -> Warehouse:
    """A warehouse of :data:`STORED` articles ``a0000``… with text ``text of a0000``…, every tenth none."""
    warehouse.con.execute(
        "INSERT INTO articles (article_id, url, canonical_url, text) "
        "SELECT printf('a%04d', i), printf('https://news.example/%d', i), printf('https://news.example/%d', i), "
        "CASE WHEN i % 10 = 0 THEN NULL ELSE printf('text of a%04d', i) END FROM range(?) t(i)", [STORED])
    return warehouse


def test_more_keys_than_a_chunk_are_read_chunk_by_chunk_each_once(wh: Warehouse,
                                                                   monkeypatch: pytest.MonkeyPatch) -> None:
    wanted = [f"a{i:04d}" for i in range(0, STORED, 2)] + ["nope-1", "nope-2"]  # 1,250 stored, 2 not
    keys = wanted + wanted[:300]  # some asked for twice
    random.Random(7).shuffle(keys)
    ran = _statements(wh, monkeypatch)
    rows = rows_by_keys(wh, load_sql("dataset_article_texts"), iter(keys))  # any iterable, read once
    assert sorted(r["article_id"] for r in rows) == sorted(wanted[:-2])  # each stored one once
    assert all(r["article"] == ("" if int(r["article_id"][1:]) % 10 == 0 else f"text of {r['article_id']}")
               for r in rows)
    # one query a chunk of distinct keys in sorted order, each key a placeholder of its own
    assert [params for _, params in ran] == [sorted(wanted)[:KEYS_PER_QUERY], sorted(wanted)[KEYS_PER_QUERY:]]
    assert all(sql.rstrip().endswith(f"IN ({', '.join('?' * len(params))});") for sql, params in ran)


def test_no_keys_read_nothing_and_run_no_query(wh: Warehouse, monkeypatch: pytest.MonkeyPatch) -> None:
    ran = _statements(wh, monkeypatch)
    assert rows_by_keys(wh, load_sql("retrieval_pool_articles"), []) == []
    assert ran == []


def test_a_statement_without_the_keys_slot_is_refused(wh: Warehouse) -> None:
    with pytest.raises(ValueError, match=r"no \{keys\} slot .*WHERE article_id = \?"):
        rows_by_keys(wh, "SELECT text FROM articles WHERE article_id = ?", ["a0001"])
