"""Incremental near-duplicate clustering: loads match new claims against the index, and the
stored clusters always equal a full re-cluster of the warehouse."""

from __future__ import annotations

import random
from pathlib import Path

import pytest
from helpers_crawl_load import StagedPost, write_run

import tasks.dedup_index as dedup_index
from arastance.config import load_settings
from tasks.dedup import cluster_claims
from tasks.claim_load.load import load_crawl_run
from tasks.claim_load.overrides import set_claim_override
from warehouse import Warehouse
from warehouse import claims as claims_db

WORDS = [
    "إغلاق", "المدارس", "دبي", "أسبوعين", "الإنفلونزا", "وفاة", "الفنان", "أزمة", "قلبية", "ارتفاع", "أسعار",
    "الوقود", "الذهب", "الشارقة", "الرياض", "وزارة", "الصحة", "تنفي", "انتشار", "الوباء", "القاهرة", "الجامعة",
    "قرار", "منع", "السفر", "الحدود", "الطيران", "المطار", "الأمطار", "الفيضانات",
]


def _texts(rng: random.Random, n: int, pool: list[str]) -> list[str]:
    """New claim texts: fresh statements, exact reposts, one-word rewordings (some with numbers) of ``pool``."""
    out = []
    for _ in range(n):
        roll = rng.random()
        if pool and roll < 0.25:
            out.append(rng.choice(pool))
        elif pool and roll < 0.6:
            words = rng.choice(pool).split()
            words[rng.randrange(len(words))] = rng.choice(WORDS)
            out.append(" ".join(words))
        else:
            words = [rng.choice(WORDS) for _ in range(rng.randint(6, 11))]
            if rng.random() < 0.3:
                words.insert(2, str(rng.choice([7, 9, 40])))
            out.append(" ".join(words))
        pool.append(out[-1])
    return out


def _posts(rng: random.Random, texts: list[str], start: int) -> list[StagedPost]:
    posts = []
    for i, text in enumerate(texts, start=start):
        day = rng.choice([None, f"2016-{rng.randint(1, 12):02d}-{rng.randint(1, 28):02d}"])
        posts.append(StagedPost(f"/2016/05/claim-{i}/", text, f"عنوان {i}", published_raw=day, published_date=day))
    return posts


def _stored(wh: Warehouse) -> set[tuple]:
    return {(r[0], r[1], r[2], r[3]) for r in wh.con.execute(
        "SELECT claim_id, cluster_id, similarity, method FROM claim_clusters").fetchall()}


def _full(wh: Warehouse) -> set[tuple]:
    s = load_settings().crawl
    ids, texts = claims_db.cluster_input(wh, "false")
    return {(m.claim_id, m.cluster_id, m.similarity, m.method)
            for m in cluster_claims(ids, texts, threshold=s.near_duplicate_threshold, shingle_size=s.shingle_size)}


@pytest.mark.parametrize("seed", [3, 11])
def test_incremental_loads_equal_the_full_re_cluster(
    warehouse: Warehouse, tmp_path: Path, monkeypatch: pytest.MonkeyPatch, seed: int
) -> None:
    rebuilds: list[str] = []
    full = dedup_index.rebuild_clusters
    monkeypatch.setattr(dedup_index, "rebuild_clusters", lambda wh, v, **kw: rebuilds.append(v) or full(wh, v, **kw))
    rng = random.Random(seed)
    pool: list[str] = []
    first = load_crawl_run(warehouse, write_run(tmp_path / "r0", "araanews", _posts(rng, _texts(rng, 160, pool), 0)))
    assert rebuilds == ["false"] and first.new_cluster_rows > 0
    assert _stored(warehouse) == _full(warehouse)
    for k in range(1, 6):
        posts = _posts(rng, _texts(rng, 12, pool), 1000 * k)
        load_crawl_run(warehouse, write_run(tmp_path / f"r{k}", "araanews", posts))
        assert rebuilds == ["false"], f"load {k} re-clustered in full"
        assert _stored(warehouse) == _full(warehouse), f"load {k}"
    methods = {row[3] for row in _stored(warehouse)}
    assert methods == {"exact_hash", "shingle_jaccard"}  # both kinds of duplicates were exercised


def test_a_change_made_outside_a_load_sends_the_next_load_to_a_full_re_cluster(
    warehouse: Warehouse, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    rebuilds: list[str] = []
    full = dedup_index.rebuild_clusters
    monkeypatch.setattr(dedup_index, "rebuild_clusters", lambda wh, v, **kw: rebuilds.append(v) or full(wh, v, **kw))
    rng = random.Random(5)
    pool: list[str] = []
    load_crawl_run(warehouse, write_run(tmp_path / "r0", "araanews", _posts(rng, _texts(rng, 120, pool), 0)))
    some_claim = warehouse.scalar("SELECT claim_id FROM claim_clusters ORDER BY claim_id LIMIT 1")
    set_claim_override(warehouse, some_claim, "نص جديد تماما لا يشبه أي ادعاء آخر", reviewer="ريم")
    load_crawl_run(warehouse, write_run(tmp_path / "r1", "araanews", _posts(rng, _texts(rng, 5, pool), 500)))
    assert rebuilds == ["false", "false"]
    assert _stored(warehouse) == _full(warehouse)
