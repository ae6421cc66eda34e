"""Typed readers for the statistics views."""

from typing import Any

from warehouse.connection import Warehouse
from warehouse.sql import load_sql


def source_stats(wh: Warehouse) -> list[dict[str, Any]]:
    """Per source and veracity: claims, articles (claim–article pairs, as the paper counts them),
    distinct articles, agree/disagree/discuss/unrelated, pairs; then a total."""
    rows = wh.query(load_sql("source_stats"))
    return [] if len(rows) == 1 and not rows[0]["pairs"] else rows


def split_label_counts(wh: Warehouse) -> list[dict[str, Any]]:
    """Per split: claims and label counts; then a total."""
    rows = wh.query(load_sql("split_label_counts"))
    return [] if len(rows) == 1 and rows[0]["pairs"] is None else rows


def left_out_claims(wh: Warehouse) -> list[dict[str, Any]]:
    """Per source and veracity: claims left out as all-unrelated, and their unrelated pairs.

    Empty on a warehouse not yet migrated to the dataset flags (read-only opens do not migrate).
    """
    if "dataset_claim_flags" not in wh.tables():
        return []
    return wh.query(load_sql("dataset_left_out"))


def paper_table3(wh: Warehouse) -> list[dict[str, Any]]:
    """The paper's Table 3 layout: Source, Claims, Articles (pairs), Agree, Disagree, Discuss, Unrelated."""
    return wh.query('SELECT * FROM v_paper_table3')


def paper_table4(wh: Warehouse) -> list[dict[str, Any]]:
    """The paper's Table 4 layout: Split (Train, Dev, Test, Total), Claims, Articles, the four stances."""
    return wh.query('SELECT * FROM v_paper_table4')


def stage_figures(wh: Warehouse) -> dict[tuple[str, str, str], int]:
    """Running totals of what each stage dropped and failed on: ``(stage, kind, reason) -> n``,
    kind ``dropped`` or ``error``. Zero totals are left out."""
    return {(r["stage"], r["kind"], r["reason"]): int(r["n"]) for r in wh.query(load_sql("stage_figures")) if r["n"]}
