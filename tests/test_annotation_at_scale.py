"""Annotation stages whose cost must not grow with the warehouse: a decision run writes only the gold
labels that changed, and the agreement report counts labels in SQL."""

from __future__ import annotations

import tracemalloc
from datetime import timedelta

import pytest
from helpers_annotation import T0, add_claims, add_round

from arastance.base.ids import stable_id
from tasks.annotation.agreement import AgreementShares
from tasks.annotation.workflow import round_reports
from warehouse import Warehouse
from warehouse import annotation as store


def _decided(pairs: list[str], label: str = "agree") -> list[dict]:
    return [{"pair_id": p, "label": label, "method": "agreed", "decided_at": T0} for p in pairs]


def test_an_unchanged_decision_run_writes_no_gold_label(warehouse: Warehouse) -> None:
    pairs = add_claims(warehouse, 1, 3)
    assert store.upsert_gold_labels(warehouse, _decided(pairs), undecided=[]) == 3
    rows = "SELECT rowid, * FROM gold_labels ORDER BY pair_id"  # a row written again gets a new rowid
    before = warehouse.query(rows)
    assert store.upsert_gold_labels(warehouse, _decided(pairs), undecided=[]) == 0
    assert warehouse.query(rows) == before

def test_a_changed_decision_is_written_and_a_dataset_files_label_is_kept(warehouse: Warehouse) -> None:
    pairs = add_claims(warehouse, 1, 3)
    store.upsert_gold_labels(warehouse, _decided(pairs), undecided=[])
    warehouse.con.execute("UPDATE gold_labels SET origin = 'dataset_file' WHERE pair_id = ?", [pairs[2]])
    later = T0 + timedelta(days=1)
    decided = [{"pair_id": pairs[0], "label": "discuss", "method": "adjudicated", "decided_at": later},
               {"pair_id": pairs[1], "label": "agree", "method": "agreed", "decided_at": T0},
               {"pair_id": pairs[2], "label": "unrelated", "method": "agreed", "decided_at": later}]
    assert store.upsert_gold_labels(warehouse, decided, undecided=[]) == 1  # only the changed decision
    stored = {r["pair_id"]: (r["label"], r["method"], r["decided_at"], r["origin"])
              for r in warehouse.query("SELECT * FROM gold_labels")}
    assert stored == {pairs[0]: ("discuss", "adjudicated", later, "annotation"),
                      pairs[1]: ("agree", "agreed", T0, "annotation"),
                      pairs[2]: ("agree", "agreed", T0, "dataset_file")}


def _annotate(wh: Warehouse, round_name: str, kind: str, labels: dict[str, list[str]]) -> None:
    """Store ``labels`` (pair -> one label per annotator ann-1, ann-2, ...) as the round's annotations."""
    add_round(wh, round_name, kind, [])
    wh.insert_rows("annotations", [
        {"annotation_id": stable_id(pair, f"ann-{i}", round_name), "pair_id": pair, "annotator_id": f"ann-{i}",
         "label": label, "round": round_name, "round_kind": kind, "annotated_at": T0, "source_file": "x"}
        for pair, given in labels.items() for i, label in enumerate(given, start=1)
    ])


def test_the_round_report_gives_the_figures_of_the_rounds_labels(warehouse: Warehouse) -> None:
    p = sorted(add_claims(warehouse, 1, 5))
    _annotate(warehouse, "pilot-1", "pilot", {
        p[0]: ["agree", "agree"], p[1]: ["agree", "disagree", "discuss"], p[2]: ["unrelated"] * 3,
        p[3]: ["disagree", "discuss"], p[4]: ["agree"],
    })
    _annotate(warehouse, "prod-1", "production", {p[0]: ["agree", "disagree"]})
    _annotate(warehouse, "adjudication-1", "adjudication", {p[3]: ["discuss"]})  # no agreement to report
    pilot, prod = round_reports(warehouse)
    # pilot-1: two pairs with 2 labels, two with 3: a tie, and the first pair has 2. Kappa of
    # [2,0,0,0] and [0,1,1,0]: mean P = (1 + 0) / 2 = 0.5, margins 2/4, 1/4, 1/4, chance 0.375,
    # kappa = (0.5 - 0.375) / (1 - 0.375) = 0.2. p2 agrees fully and p0 too; p1, p3 not at all.
    assert (pilot.round, pilot.pairs, pilot.raters_per_pair, pilot.kappa_pairs) == ("pilot-1", 5, 2, 2)
    assert pilot.kappa == pytest.approx(0.2, abs=1e-12)
    assert pilot.shares == AgreementShares(pairs=4, full=2, partial=0, none=2)
    assert pilot.confusion == [
        {"label_a": "disagree", "label_b": "discuss", "count": 2, "share": 0.5},
        {"label_a": "agree", "label_b": "disagree", "count": 1, "share": 0.25},
        {"label_a": "agree", "label_b": "discuss", "count": 1, "share": 0.25},
    ]
    # prod-1: one pair, [1,1,0,0]: P = 0, chance 0.5, kappa -1
    assert (prod.round, prod.pairs, prod.raters_per_pair, prod.kappa_pairs) == ("prod-1", 1, 2, 1)
    assert prod.kappa == pytest.approx(-1.0, abs=1e-12)
    assert prod.shares == AgreementShares(pairs=1, full=0, partial=0, none=1)
    assert prod.confusion == [{"label_a": "agree", "label_b": "disagree", "count": 1, "share": 1.0}]


def test_the_round_report_does_not_load_the_labels(warehouse: Warehouse) -> None:
    labels = ("agree", "disagree", "discuss", "unrelated")
    _annotate(warehouse, "prod-1", "production",
              {f"pair-{i:05d}": [labels[i % 4], labels[i % 3], labels[i % 2]] for i in range(10_000)})
    tracemalloc.start()
    try:
        [report] = round_reports(warehouse)
        peak = tracemalloc.get_traced_memory()[1]
    finally:
        tracemalloc.stop()
    assert (report.pairs, report.kappa_pairs) == (10_000, 10_000)
    assert peak < 1 << 20, f"round_reports took {peak >> 20} MiB of Python memory for 30,000 labels"
