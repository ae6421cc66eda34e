"""Pairs whose gold label a dataset file gave (``dataset load``) stay out of annotation rounds, and
annotation decisions never withdraw nor replace that label."""

from __future__ import annotations

import json
from datetime import datetime
from pathlib import Path

from helpers_annotation import add_claims, add_round, ls_annotation, ls_task, write_json
from helpers_stance import tiny_examples

from arastance.config import load_settings
from tasks.annotation.prelabel import predict_unassigned
from tasks.annotation.workflow import adjudicate, export_round, import_annotations, release_annotator
from tasks.dataset.load_export import load_export
from tasks.stance.cpu_model import CpuModelConfig, CpuStanceModel
from warehouse import Warehouse, open_warehouse
from warehouse import annotation as store
from warehouse.migrate import apply_migrations

LOADED_AT = datetime(2021, 2, 1, 9, 30)  # the labels below are given on 2 March 2021


def _load_release(wh: Warehouse, tmp_path: Path, n_claims: int) -> dict[str, dict]:
    """Load a small AraStance release (one claim, one article, ``agree``, per line) as ``dataset load``
    does; return its gold rows by pair."""
    directory = tmp_path / "release"
    directory.mkdir()
    lines = [{"claim": f"ادعاء محمل رقم {i} عن قرار وزارة الصحة", "article": [f"نص خبر محمل {i}"],
              "article_url": [f"https://loaded.example/{i}"], "stance": ["Agree"]} for i in range(n_claims)]
    (directory / "train.jsonl").write_text("".join(json.dumps(x, ensure_ascii=False) + "\n" for x in lines),
                                           encoding="utf-8")
    assert load_export(wh, directory, source_id="arastance", now=LOADED_AT).gold_labels == n_claims
    return {r["pair_id"]: r for r in wh.query("SELECT * FROM gold_labels")}


def _exported_pairs(directory: Path) -> set[str]:
    return {t["data"]["pair_id"] for f in directory.glob("*.json") for t in json.loads(f.read_text(encoding="utf-8"))}


def test_rounds_and_predictions_leave_out_the_pairs_a_loaded_dataset_file_labelled(
    warehouse: Warehouse, tmp_path: Path
) -> None:
    cfg = load_settings().annotation
    loaded = _load_release(warehouse, tmp_path, 6)
    fresh = set(add_claims(warehouse, 2, 2))
    assert store.unassigned_pair_ids(warehouse) == fresh  # it was: the loaded pairs too
    config = CpuModelConfig(variant="tfidf_sim", auto_tune=False, scheme="4way")
    model = CpuStanceModel(config).fit(tiny_examples("4way"))
    guesses = predict_unassigned(warehouse, model, "run-1")
    assert set(guesses) == fresh
    prod = export_round(warehouse, "production", cfg, tmp_path / "tasks", size=3, predictions=guesses)
    pilot = export_round(warehouse, "pilot", cfg, tmp_path / "tasks", size=50)
    assert _exported_pairs(prod.directory) | _exported_pairs(pilot.directory) == fresh
    assert not (_exported_pairs(prod.directory) | _exported_pairs(pilot.directory)) & set(loaded)
    assert {r["pair_id"]: r for r in warehouse.query("SELECT * FROM gold_labels")} == loaded


def _label(wh: Warehouse, tmp_path: Path, annotator: str, labels: dict[str, str], round_name: str = "prod-1") -> None:
    path = write_json(tmp_path / "exports" / f"{annotator}-{len(list(tmp_path.glob('exports/*')))}.json", [
        ls_task(pair, round_name, [ls_annotation(annotator, label)], i) for i, (pair, label) in enumerate(labels.items(), 1)
    ])
    import_annotations(wh, path)


def test_labels_given_to_loaded_gold_pairs_neither_withdraw_nor_replace_their_gold(
    warehouse: Warehouse, tmp_path: Path
) -> None:
    """A round exported before rounds left gold pairs out handed loaded pairs to annotators: their
    labels are kept, but the dataset file's gold label stays the pair's decision."""
    cfg = load_settings().annotation
    loaded = _load_release(warehouse, tmp_path, 3)
    disputed, agreed, released = sorted(loaded)
    [fresh] = add_claims(warehouse, 1, 1)
    add_round(warehouse, "prod-1", "production",
              [(p, a) for p in (*loaded, fresh) for a in ("ann-1", "ann-2")])
    _label(warehouse, tmp_path, "ann-1", {disputed: "disagree", agreed: "discuss", released: "unrelated", fresh: "agree"})
    pending = adjudicate(warehouse, cfg, tmp_path / "tasks")
    assert store.gold_summary(warehouse) == [{"method": "single", "label": "agree", "pairs": 3}]  # it was: 0 pairs
    assert (pending.gold, pending.pending, pending.new_round) == (3, 1, None)
    _label(warehouse, tmp_path, "ann-2", {disputed: "unrelated", agreed: "discuss", fresh: "agree"})
    decided = adjudicate(warehouse, cfg, tmp_path / "tasks")
    # it was: the disputed pair lost its gold label and went to an adjudicator, the agreed one became 'discuss'
    assert (decided.gold, decided.disputed, decided.new_round) == (4, 0, None)
    assert release_annotator(warehouse, cfg, "ann-2")[0] == 1  # ann-1 alone on `released`: short of a label
    gold = {r["pair_id"]: r for r in warehouse.query("SELECT * FROM gold_labels")}
    assert {p: gold[p] for p in loaded} == loaded  # label, method and time as the file gave them
    assert (gold[fresh]["label"], gold[fresh]["method"]) == ("agree", "agreed")
    assert len(store.annotations(warehouse)) == 7  # every label given is stored


def test_gold_loaded_before_the_origin_was_recorded_is_told_by_its_pair(tmp_path: Path) -> None:
    # a warehouse upgraded from before migration 079: its loaded gold rows become dataset_file, the rest annotation
    with open_warehouse(tmp_path / "old.duckdb", migrate=False) as wh:
        apply_migrations(wh, up_to=78)
        for column in ("origin VARCHAR", "stored_at TIMESTAMP"):  # so that load_export can write its rows
            wh.con.execute(f"ALTER TABLE gold_labels ADD COLUMN {column}")
        loaded = _load_release(wh, tmp_path, 2)
        for column in ("origin", "stored_at"):
            wh.con.execute(f"ALTER TABLE gold_labels DROP COLUMN {column}")
        annotated = set(add_claims(wh, 1, 1))
        wh.insert_rows("gold_labels", [{"pair_id": p, "label": "agree", "method": "agreed", "decided_at": LOADED_AT}
                                       for p in annotated])
        assert apply_migrations(wh) == [79, 80, 81, 82, 83]
        origins = {r["pair_id"]: r["origin"] for r in wh.query("SELECT pair_id, origin FROM gold_labels")}
    assert origins == {**{p: "dataset_file" for p in loaded}, **{p: "annotation" for p in annotated}}


def test_a_pilot_that_handed_out_a_loaded_pair_does_not_wait_for_its_discussion(
    warehouse: Warehouse, tmp_path: Path
) -> None:
    [loaded] = _load_release(warehouse, tmp_path, 1)
    [fresh] = add_claims(warehouse, 1, 1)
    add_round(warehouse, "pilot-1", "pilot", [(p, a) for p in (loaded, fresh) for a in ("ann-1", "ann-2")])
    _label(warehouse, tmp_path, "ann-1", {loaded: "agree", fresh: "agree"}, "pilot-1")
    _label(warehouse, tmp_path, "ann-2", {loaded: "unrelated", fresh: "discuss"}, "pilot-1")
    [report] = store.pilot_discussion_report(warehouse)
    # it was: 2 disputed, 2 waiting, though the loaded pair's gold label is its decision and no sheet lists it
    assert (report["pilot_pairs"], report["disputed"], report["waiting"]) == (1, 1, 1)
