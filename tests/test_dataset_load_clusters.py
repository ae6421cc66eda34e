"""`dataset load` keeps near-duplicate clusters current as a crawl's load does: a few loaded claims are
matched against the index (the stored clusters and the index are not rebuilt), many re-cluster in full,
and either way the clusters equal a full re-cluster and a cluster keeps one split."""

from __future__ import annotations

import json
import random
from datetime import datetime
from pathlib import Path

from helpers_annotation import T0, add_claims, add_gold

import tasks.dedup_index as dedup_index
from arastance.base.arabic import normalize
from arastance.base.ids import content_hash
from arastance.config import load_settings
from tasks.dataset.assemble import assign_claim_splits, flag_unrelated_claims
from tasks.dataset.load_export import load_export
from tasks.dedup import cluster_claims
from warehouse import Warehouse
from warehouse import claims as claims_db
from warehouse import near_duplicates

#: Words of the stored and loaded claims' texts: random sentences of them are rarely near-duplicates.
WORDS = [
    "وفاة", "الفنان", "إغلاق", "المدارس", "ارتفاع", "أسعار", "الوقود", "الذهب", "وزارة", "الصحة", "تنفي",
    "انتشار", "الوباء", "القاهرة", "الرياض", "قرار", "منع", "السفر", "الطيران", "الأمطار", "الفيضانات",
]
_CRAWL = load_settings().crawl
DEDUP = {"threshold": _CRAWL.near_duplicate_threshold, "shingle_size": _CRAWL.shingle_size}


def _sentence(rng: random.Random) -> str:
    return " ".join(rng.choice(WORDS) for _ in range(rng.randint(7, 11)))


def _stored_dataset(wh: Warehouse, n_claims: int, rng: random.Random) -> None:
    """``n_claims`` split, gold-labelled false claims with crawl-like texts (some near-duplicates), clustered
    and indexed by a full re-cluster: the state a warehouse is in after a crawl's load and a build."""
    pairs = add_claims(wh, n_claims, 2, sources=("dabegad",))
    texts: list[str] = []
    for claim_id in sorted(r[0] for r in wh.con.execute("SELECT claim_id FROM claims").fetchall()):
        text = texts[-1] + " " + rng.choice(WORDS) if texts and rng.random() < 0.2 else _sentence(rng)
        texts.append(text)
        normalized = normalize(text)
        wh.con.execute("UPDATE claims SET cleaned_text = ?, normalized_text = ?, content_hash = ? WHERE claim_id = ?",
                       [text, normalized, content_hash(normalized), claim_id])
    dedup_index.rebuild_clusters(wh, "false", **DEDUP)
    add_gold(wh, {p: "agree" for p in pairs})
    flag_unrelated_claims(wh, now=T0)
    assign_claim_splits(wh, load_settings().annotation, now=T0)
    assert near_duplicates.is_current(wh, "false", **DEDUP)


def _write_release(directory: Path, split: str, claims: list[str]) -> Path:
    directory.mkdir()
    lines = [{"claim": c, "article": [f"نص الخبر {i}"], "article_url": [f"https://other.example/{i}"], "stance": ["Agree"]}
             for i, c in enumerate(claims)]
    (directory / f"{split}.jsonl").write_text("".join(json.dumps(x, ensure_ascii=False) + "\n" for x in lines),
                                              encoding="utf-8")
    return directory


def _stored_clusters(wh: Warehouse) -> set[tuple]:
    return set(wh.con.execute("SELECT claim_id, cluster_id, similarity, method FROM claim_clusters").fetchall())


def _full_re_cluster(wh: Warehouse) -> set[tuple]:
    ids, texts = claims_db.cluster_input(wh, "false")
    return {(m.claim_id, m.cluster_id, m.similarity, m.method) for m in cluster_claims(ids, texts, **DEDUP)}


def _index_state(wh: Warehouse) -> tuple[datetime, set[tuple]]:
    """When the index was last rebuilt, and its frozen shingle frequencies (a rebuild recounts them)."""
    built_at = wh.scalar("SELECT built_at FROM near_duplicate_index_state WHERE veracity = 'false'")
    return built_at, set(wh.con.execute("SELECT shingle, df FROM near_duplicate_shingle_df").fetchall())


def _train_claims(wh: Warehouse) -> list[dict]:
    return wh.query("SELECT c.claim_id, c.cleaned_text FROM claims c JOIN splits s USING (claim_id) "
                    "WHERE s.split = 'train' ORDER BY c.claim_id")


def test_a_small_load_on_a_current_index_clusters_its_claims_incrementally(warehouse: Warehouse, tmp_path: Path) -> None:
    rng = random.Random(7)
    _stored_dataset(warehouse, 40, rng)
    before = _index_state(warehouse)
    repeated, reworded = _train_claims(warehouse)[:2]
    repeat, variant = repeated["cleaned_text"], reworded["cleaned_text"] + " " + WORDS[0]
    release = _write_release(tmp_path / "release", "test", [repeat, variant, _sentence(rng)])
    loaded = load_export(warehouse, release, source_id="arastance", now=T0)
    assert loaded.claims == 3
    # it was: every stored claim re-clustered and the index rebuilt (new build time, frequencies recounted)
    assert _index_state(warehouse) == before
    assert near_duplicates.is_current(warehouse, "false", **DEDUP)  # the next load can match incrementally too
    assert _stored_clusters(warehouse) == _full_re_cluster(warehouse)
    mine = {r["cleaned_text"]: r["claim_id"] for r in warehouse.query(
        "SELECT claim_id, cleaned_text FROM claims WHERE source_id = 'arastance'")}
    clusters = {r[0]: r[1:] for r in _stored_clusters(warehouse)}
    assert clusters[mine[repeat]] == clusters[repeated["claim_id"]]  # a repeat shares its cluster (and similarity)
    assert clusters[mine[variant]][0] == clusters[reworded["claim_id"]][0]  # and so does a near-duplicate
    # each cluster keeps one split: the loaded test claims that joined train clusters leave the dataset
    assert loaded.split_conflicts == 2
    assert warehouse.query("SELECT claim_id, split, kept_split FROM dataset_split_conflicts ORDER BY claim_id") == [
        {"claim_id": c, "split": "test", "kept_split": "train"} for c in sorted([mine[repeat], mine[variant]])]
    assert warehouse.query("SELECT claim_text FROM v_stance_examples GROUP BY claim_text "
                           "HAVING count(DISTINCT split) > 1") == []
    after = (_index_state(warehouse), _stored_clusters(warehouse))
    again = load_export(warehouse, release, source_id="arastance", now=T0)  # nothing new: nothing re-clustered
    assert (again.claims, again.split_conflicts) == (0, 2)
    assert (_index_state(warehouse), _stored_clusters(warehouse)) == after


def test_a_load_that_is_a_large_share_of_the_claims_re_clusters_in_full(warehouse: Warehouse, tmp_path: Path) -> None:
    rng = random.Random(11)
    _stored_dataset(warehouse, 8, rng)
    built_at, _ = _index_state(warehouse)
    [repeated] = _train_claims(warehouse)[:1]
    release = _write_release(tmp_path / "release", "test", [repeated["cleaned_text"]] + [_sentence(rng) for _ in range(4)])
    loaded = load_export(warehouse, release, source_id="arastance", now=T0)
    assert loaded.claims == 5 and loaded.split_conflicts == 1
    assert _index_state(warehouse)[0] > built_at  # 5 new claims of 13: the index was rebuilt
    assert near_duplicates.is_current(warehouse, "false", **DEDUP)
    assert _stored_clusters(warehouse) == _full_re_cluster(warehouse)
