"""Claims excluded after their documents were retrieved are never sent to annotators."""

from pathlib import Path

from helpers_annotation import add_claims

from arastance.config.annotation import AnnotationSettings
from tasks.annotation.workflow import export_round
from warehouse import Warehouse


def test_production_round_leaves_out_pairs_of_excluded_claims(warehouse: Warehouse, tmp_path: Path) -> None:
    pairs = add_claims(warehouse, 3, 2)
    excluded = warehouse.scalar("SELECT claim_id FROM claims ORDER BY claim_id LIMIT 1")
    warehouse.con.execute("UPDATE claims SET status = 'excluded', status_reason = 'multimedia' WHERE claim_id = ?",
                          [excluded])
    exported = export_round(warehouse, "production", AnnotationSettings(), tmp_path / "tasks")
    assert exported.pairs == len(pairs) - 2
    assigned = {r["claim_id"] for r in warehouse.query(
        "SELECT DISTINCT p.claim_id FROM annotation_assignments s JOIN claim_article_pairs p USING (pair_id)")}
    assert excluded not in assigned and len(assigned) == 2
