"""Claim-level splits: no leakage, ratios, stratification, clusters, and stability as claims arrive."""

from __future__ import annotations

from collections import Counter

import pytest
from helpers_annotation import T0, add_claims, add_gold

from arastance.config import load_settings
from tasks.dataset.assemble import assign_claim_splits, dataset_statistics, flag_unrelated_claims
from tasks.dataset.splits import SplitCandidate, SplitConflict, assign_splits, split_conflicts
from warehouse import Warehouse

RATIOS = (0.7, 0.15, 0.15)


def _candidates(n: int, start: int = 0) -> list[SplitCandidate]:
    sources = ("araanews", "dabegad", "norumors", "reuters")
    stances = ("agree", "disagree", "discuss")
    return [
        SplitCandidate(f"c{i:04d}", f"c{i:04d}", sources[i % 4], **{stances[(i // 4) % 3]: 2, "unrelated": 1})
        for i in range(start, start + n)
    ]


def test_every_claim_gets_one_split_close_to_the_ratios() -> None:
    cands = _candidates(400)
    out = assign_splits(cands, {}, RATIOS, seed=1)
    assert set(out) == {c.claim_id for c in cands}
    counts = Counter(out.values())
    assert counts["train"] == pytest.approx(280, abs=3) and counts["dev"] == pytest.approx(60, abs=3)
    for source in ("araanews", "reuters"):  # stratified: each source near the ratios too
        per = Counter(out[c.claim_id] for c in cands if c.source_id == source)
        assert per["train"] == pytest.approx(70, abs=3) and per["test"] == pytest.approx(15, abs=3)
    assert assign_splits(list(reversed(cands)), {}, RATIOS, seed=1) == out
    assert assign_splits(cands, {}, RATIOS, seed=2) != out


def test_existing_assignments_never_move_and_new_claims_fill_the_gaps() -> None:
    first = assign_splits(_candidates(100), {}, RATIOS, seed=1)
    later = _candidates(150)
    added = assign_splits(later, first, RATIOS, seed=1)
    assert set(added) == {c.claim_id for c in later} - set(first)  # only new claims are returned
    merged = {**first, **added}
    counts = Counter(merged.values())
    assert counts["train"] == pytest.approx(105, abs=3) and counts["test"] == pytest.approx(22.5, abs=3)
    # an unbalanced history is corrected by the newcomers, not by moving anyone
    skewed = {c.claim_id: "train" for c in _candidates(50)}
    fill = assign_splits(_candidates(100), skewed, RATIOS, seed=1)
    assert Counter(fill.values())["train"] < 25


def test_a_cluster_of_near_duplicates_shares_one_split() -> None:
    cands = [SplitCandidate(f"c{i}", f"g{i // 3}", "dabegad", agree=1) for i in range(60)]
    out = assign_splits(cands, {}, RATIOS, seed=3)
    for g in {c.group_id for c in cands}:
        assert len({out[c.claim_id] for c in cands if c.group_id == g}) == 1
    newcomer = SplitCandidate("c-new", "g0", "reuters", discuss=1)
    assert assign_splits([*cands, newcomer], out, RATIOS, seed=3) == {"c-new": out["c0"]}


def test_bad_ratios_or_split_names_are_errors() -> None:
    with pytest.raises(ValueError, match="summing to 1"):
        assign_splits(_candidates(3), {}, (0.5, 0.2, 0.2), seed=1)
    with pytest.raises(ValueError, match="unknown split"):
        assign_splits(_candidates(3), {"c0000": "validation"}, RATIOS, seed=1)


def test_dominant_stance_drives_the_stratum() -> None:
    assert SplitCandidate("c", "c", "s", agree=1, discuss=3).dominant_stance == "discuss"
    assert SplitCandidate("c", "c", "s", agree=2, disagree=2).dominant_stance == "agree"
    assert SplitCandidate("c", "c", "s", unrelated=4).dominant_stance == "unrelated"


def test_warehouse_splits_leave_out_flagged_claims_and_never_move(warehouse: Warehouse) -> None:
    cfg = load_settings().annotation
    pairs = add_claims(warehouse, 20, 2)
    labels = {p: ("unrelated" if i < 4 else ("agree", "discuss", "disagree")[i % 3]) for i, p in enumerate(pairs)}
    add_gold(warehouse, labels)  # the first two claims have only unrelated documents
    assert flag_unrelated_claims(warehouse).flagged == 2
    first = assign_claim_splits(warehouse, cfg, now=T0)
    assert (first.assigned, first.total) == (18, 18)
    before = {r["claim_id"]: r["split"] for r in warehouse.query("SELECT * FROM splits")}
    flagged = {r["claim_id"] for r in warehouse.query("SELECT claim_id FROM dataset_claim_flags")}
    assert not flagged & set(before)
    leak = warehouse.scalar("SELECT count(*) FROM (SELECT claim_id FROM splits GROUP BY claim_id HAVING count(*) > 1)")
    assert leak == 0

    new_pairs = add_claims(warehouse, 10, 2, start=20)
    add_gold(warehouse, {p: "agree" for p in new_pairs})
    second = assign_claim_splits(warehouse, cfg)
    assert (second.assigned, second.total) == (10, 28)
    after = {r["claim_id"]: r["split"] for r in warehouse.query("SELECT * FROM splits")}
    assert {c: after[c] for c in before} == before
    assert assign_claim_splits(warehouse, cfg).assigned == 0


def test_a_flag_is_lifted_when_a_related_document_arrives(warehouse: Warehouse) -> None:
    pairs = add_claims(warehouse, 1, 2)
    add_gold(warehouse, {pairs[0]: "unrelated", pairs[1]: "unrelated"})
    assert flag_unrelated_claims(warehouse).newly_flagged == 1
    again = flag_unrelated_claims(warehouse)
    assert (again.flagged, again.newly_flagged, again.unflagged) == (1, 0, 0)
    add_gold(warehouse, {pairs[1]: "discuss"})
    lifted = flag_unrelated_claims(warehouse)
    assert (lifted.flagged, lifted.unflagged) == (0, 1)
    assert warehouse.scalar("SELECT count(*) FROM dataset_claim_flags") == 0  # the claim is back in the dataset
    assert warehouse.scalar("SELECT count(*) FROM v_gold_pairs") == 2
    assert warehouse.scalar("SELECT count(*) FROM gold_labels") == 2  # labels are never touched


def test_split_settings_are_validated_with_the_setting_named(monkeypatch: pytest.MonkeyPatch) -> None:
    from arastance.config import SettingsError

    monkeypatch.setenv("ARASTANCE_ANNOTATION__SPLIT_RATIOS", "[0.6, 0.2, 0.1]")
    with pytest.raises(SettingsError, match="ARASTANCE_ANNOTATION__SPLIT_RATIOS"):
        load_settings()
    monkeypatch.setenv("ARASTANCE_ANNOTATION__SPLIT_RATIOS", "[0.8, 0.1, 0.1]")
    monkeypatch.setenv("ARASTANCE_ANNOTATION__ANNOTATORS", '["ann-1", "ann-1"]')
    with pytest.raises(SettingsError, match="ARASTANCE_ANNOTATION__ANNOTATORS"):
        load_settings()
    monkeypatch.delenv("ARASTANCE_ANNOTATION__ANNOTATORS")
    assert load_settings().annotation.split_ratios == (0.8, 0.1, 0.1)


def test_nan_or_out_of_range_ratios_are_refused_by_the_splitter() -> None:
    for ratios in ((float("nan"), 0.5, 0.5), (1.5, -0.25, -0.25), (float("inf"), 0.0, 0.0)):
        with pytest.raises(ValueError, match="finite numbers in \\[0, 1\\] summing to 1"):
            assign_splits(_candidates(3), {}, ratios, seed=1)  # NaN was accepted: every claim went to train


def test_a_nan_split_ratio_setting_is_refused_with_the_setting_named(monkeypatch: pytest.MonkeyPatch) -> None:
    from arastance.config import SettingsError

    monkeypatch.setenv("ARASTANCE_ANNOTATION__SPLIT_RATIOS", "[NaN, 0.5, 0.5]")
    with pytest.raises(SettingsError, match="ARASTANCE_ANNOTATION__SPLIT_RATIOS.*finite"):
        load_settings()


def test_newcomers_are_balanced_against_the_claims_still_in_the_dataset() -> None:
    old = [SplitCandidate(f"o{i:03d}", f"o{i:03d}", "dabegad", agree=1) for i in range(40)]
    first = assign_splits(old, {}, RATIOS, seed=1)
    gone = {c for c, s in first.items() if s == "test"}  # excluded or flagged since: out of the dataset, split kept
    kept = [c for c in old if c.claim_id not in gone]
    new = [SplitCandidate(f"n{i:03d}", f"n{i:03d}", "dabegad", agree=1) for i in range(40)]
    added = assign_splits(kept + new, first, RATIOS, seed=1)  # every stored split, as the warehouse gives them
    dataset = Counter({**{c.claim_id: first[c.claim_id] for c in kept}, **added}.values())
    # it was: train 54, dev 12, test 8 (the claims gone from test still counted there)
    assert dataset["test"] == pytest.approx(0.15 * sum(dataset.values()), abs=1)


def test_a_cluster_holding_two_splits_keeps_one_and_names_the_others() -> None:
    cands = [SplitCandidate(c, "g", "dabegad", agree=1) for c in ("a", "b", "c", "d")]
    stored = {"a": "train", "b": "test", "c": "train", "x": "test"}  # x: same cluster once, left the dataset since
    assert split_conflicts(cands, stored) == [SplitConflict("b", "g", "test", "train")]
    assert assign_splits(cands, stored, RATIOS, seed=1) == {"d": "train"}  # a newcomer joins the kept split
    assert split_conflicts([*cands[:2]], {"a": "train", "b": "test"}) == [SplitConflict("b", "g", "test", "train")]  # a tie: train
    assert split_conflicts(cands, {"a": "dev", "b": "dev"}) == []


def test_a_claim_bridging_two_splits_leaves_the_minority_out_of_the_dataset(
    warehouse: Warehouse, caplog: pytest.LogCaptureFixture
) -> None:
    cfg = load_settings().annotation
    pairs = add_claims(warehouse, 20, 2, sources=("dabegad",))
    add_gold(warehouse, {p: "agree" for p in pairs})
    flag_unrelated_claims(warehouse, now=T0)
    assert assign_claim_splits(warehouse, cfg, now=T0).conflicts == 0
    before = {r["claim_id"]: r["split"] for r in warehouse.query("SELECT claim_id, split FROM splits")}
    a = next(c for c, s in sorted(before.items()) if s == "train")
    c = next(c for c, s in sorted(before.items()) if s == "test")
    # a later claim d is a near-duplicate of both: the transitive cluster joins a (train) and c (test)
    new = add_claims(warehouse, 1, 2, start=100, sources=("dabegad",))
    add_gold(warehouse, {p: "agree" for p in new})
    d = warehouse.scalar("SELECT claim_id FROM claim_article_pairs WHERE pair_id = ?", [new[0]])
    warehouse.insert_rows("claim_clusters", [
        {"claim_id": x, "cluster_id": a, "similarity": 0.9, "method": "shingle_jaccard"} for x in (a, c, d)])
    flag_unrelated_claims(warehouse)
    with caplog.at_level("WARNING"):
        result = assign_claim_splits(warehouse, cfg)
    assert (result.assigned, result.conflicts) == (1, 1)  # it was: SplitResult(assigned=1, total=21), nothing said
    assert any(a in r.getMessage() and c in r.getMessage() for r in caplog.records if r.levelname == "WARNING")
    after = {r["claim_id"]: r["split"] for r in warehouse.query("SELECT claim_id, split FROM splits")}
    assert {k: after[k] for k in before} == before and after[d] == "train"  # no stored split moved
    in_dataset = warehouse.query("SELECT DISTINCT claim_id, split FROM v_dataset_pairs WHERE claim_id IN (?, ?, ?)", [a, c, d])
    assert sorted((r["claim_id"], r["split"]) for r in in_dataset) == sorted([(a, "train"), (d, "train")])
    assert warehouse.scalar("SELECT count(*) FROM v_stance_examples WHERE claim_id = ?", [c]) == 0
    left_out = dataset_statistics(warehouse)["left_out"]
    assert left_out == [{"source": "dabegad", "veracity": "false", "reason": "split_conflict", "claims_left_out": 1, "pairs": 2}]
    assert assign_claim_splits(warehouse, cfg).conflicts == 1  # stable on the next build
    warehouse.con.execute("DELETE FROM claim_clusters")  # a re-cluster finds them apart again
    assert assign_claim_splits(warehouse, cfg).conflicts == 0
    assert warehouse.scalar("SELECT count(DISTINCT claim_id) FROM v_dataset_pairs") == 21  # c is back


def test_a_reflagged_claim_counts_all_its_unrelated_pairs_and_keeps_its_flag_time(warehouse: Warehouse) -> None:
    pairs = add_claims(warehouse, 1, 4)
    add_gold(warehouse, {pairs[0]: "unrelated", pairs[1]: "unrelated"})
    flag_unrelated_claims(warehouse, now=T0)
    add_gold(warehouse, {pairs[2]: "unrelated", pairs[3]: "unrelated"})
    later = flag_unrelated_claims(warehouse, now=T0.replace(year=T0.year + 1))
    assert (later.flagged, later.newly_flagged) == (1, 0)
    assert warehouse.query("SELECT pairs, flagged_at FROM dataset_claim_flags") == [{"pairs": 4, "flagged_at": T0}]  # it was: 2
    [row] = dataset_statistics(warehouse)["left_out"]
    assert (row["reason"], row["claims_left_out"], row["pairs"]) == ("all_unrelated", 1, 4)
