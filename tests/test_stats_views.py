"""The statistics views against a small hand-made sample with hand-computed counts."""

from warehouse import Warehouse
from warehouse.stats import paper_table3, paper_table4, source_stats, split_label_counts

T = "2016-03-01 00:00:00"


def _claim(cid: str, source: str, veracity: str, status: str = "active") -> dict:
    return {"claim_id": cid, "source_id": source, "url": f"u/{cid}", "canonical_url": f"u/{cid}",
            "veracity": veracity, "first_seen": T, "last_seen": T, "status": status}


def _sample(wh: Warehouse) -> None:
    wh.insert_rows("claims", [
        _claim("f1", "dabegad", "false"), _claim("f2", "dabegad", "false"),
        _claim("t1", "reuters", "true"), _claim("x1", "norumors", "false", status="excluded"),
    ])
    pairs = [  # (pair, claim, article, gold label)
        ("p1", "f1", "a1", "agree"), ("p2", "f1", "a2", "disagree"), ("p3", "f1", "a3", "unrelated"),
        ("p4", "f2", "a1", "discuss"), ("p5", "f2", "a4", "disagree"),
        ("p6", "t1", "a5", "agree"), ("p7", "t1", "a6", "unrelated"),
        ("p8", "x1", "a7", "agree"),          # excluded claim: never counted
        ("p9", "f2", "a8", None),              # not yet labelled: not counted
    ]
    wh.insert_rows("claim_article_pairs", [
        {"pair_id": p, "claim_id": c, "article_id": a, "created_at": T} for p, c, a, _ in pairs
    ])
    wh.insert_rows("gold_labels", [
        {"pair_id": p, "label": lab, "method": "agreed", "decided_at": T} for p, _, _, lab in pairs if lab
    ])
    wh.insert_rows("splits", [
        {"claim_id": "f1", "split": "train", "assigned_at": T}, {"claim_id": "f2", "split": "test", "assigned_at": T},
        {"claim_id": "t1", "split": "train", "assigned_at": T}, {"claim_id": "x1", "split": "dev", "assigned_at": T},
    ])


def test_per_source_table_matches_hand_counts(warehouse: Warehouse) -> None:
    _sample(warehouse)
    rows = {(r["source"], r["veracity"]): r for r in source_stats(warehouse)}
    assert set(rows) == {("dabegad", "false"), ("reuters", "true"), ("total", "")}
    # "articles" as the paper's Table 3 counts them: claim–article pairs (a1 twice for dabegad)
    d = rows[("dabegad", "false")]
    assert (d["claims"], d["articles"], d["agree"], d["disagree"], d["discuss"], d["unrelated"], d["pairs"]) == (2, 5, 1, 2, 1, 1, 5)
    assert d["distinct_articles"] == 4
    assert d["articles"] == d["agree"] + d["disagree"] + d["discuss"] + d["unrelated"]
    r = rows[("reuters", "true")]
    assert (r["claims"], r["articles"], r["distinct_articles"], r["agree"], r["unrelated"], r["pairs"]) == (1, 2, 2, 1, 1, 2)
    t = rows[("total", "")]
    assert (t["claims"], t["articles"], t["agree"], t["disagree"], t["discuss"], t["unrelated"], t["pairs"]) == (3, 7, 2, 2, 1, 2, 7)
    assert t["distinct_articles"] == 6  # a1 is paired with two dabegad claims; a1-a6 in all, each counted once


def test_an_article_shared_by_two_sources_is_one_article_in_the_total(warehouse: Warehouse) -> None:
    warehouse.insert_rows("claims", [_claim("f1", "dabegad", "false"), _claim("t1", "reuters", "true")])
    warehouse.insert_rows("claim_article_pairs", [{"pair_id": p, "claim_id": c, "article_id": "a1", "created_at": T}
                                                  for p, c in (("p1", "f1"), ("p2", "t1"))])
    warehouse.insert_rows("gold_labels", [{"pair_id": p, "label": "discuss", "method": "agreed", "decided_at": T}
                                          for p in ("p1", "p2")])
    total = [r for r in source_stats(warehouse) if r["source"] == "total"][0]
    assert (total["distinct_articles"], total["articles"], total["pairs"], total["claims"]) == (1, 2, 2, 2)


def test_per_split_table_matches_hand_counts(warehouse: Warehouse) -> None:
    _sample(warehouse)
    rows = {r["split"]: r for r in split_label_counts(warehouse)}
    assert list(rows) == ["train", "test", "total"]
    assert (rows["train"]["claims"], rows["train"]["agree"], rows["train"]["unrelated"], rows["train"]["pairs"]) == (2, 2, 2, 5)
    assert (rows["test"]["claims"], rows["test"]["discuss"], rows["test"]["disagree"], rows["test"]["pairs"]) == (1, 1, 1, 2)
    assert rows["total"]["pairs"] == 7


def test_paper_tables_3_and_4_in_the_papers_layout(warehouse: Warehouse) -> None:
    _sample(warehouse)
    table3 = paper_table3(warehouse)
    assert list(table3[0]) == ["Source", "Claims", "Articles", "Agree", "Disagree", "Discuss", "Unrelated"]
    assert [tuple(r.values()) for r in table3] == [
        ("Dabegad", 2, 5, 1, 2, 1, 1),   # false-claim sources first, then true, then the total
        ("Reuters", 1, 2, 1, 0, 0, 1),
        ("Total", 3, 7, 2, 2, 1, 2),
    ]
    table4 = paper_table4(warehouse)
    assert list(table4[0]) == ["Split", "Claims", "Articles", "Agree", "Disagree", "Discuss", "Unrelated"]
    assert [tuple(r.values()) for r in table4] == [
        ("Train", 2, 5, 2, 1, 0, 2),
        ("Test", 1, 2, 0, 1, 1, 0),
        ("Total", 3, 7, 2, 2, 1, 2),
    ]


def test_empty_warehouse_gives_empty_tables(warehouse: Warehouse) -> None:
    assert source_stats(warehouse) == []
    assert split_label_counts(warehouse) == []
    assert paper_table3(warehouse) == [] and paper_table4(warehouse) == []
