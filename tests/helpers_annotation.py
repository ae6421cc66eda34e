"""Test data for the annotation and dataset stages: claims, articles and pairs written by hand."""

from __future__ import annotations

import csv
import json
from collections.abc import Iterator
from contextlib import contextmanager
from datetime import date, datetime
from pathlib import Path
from typing import Any

from warehouse import Warehouse
from arastance.base.ids import stable_id

T0 = datetime(2021, 1, 1, 12, 0, 0)
SOURCES = ("araanews", "dabegad", "norumors", "reuters")
#: csv's default cell limit, in characters.
CSV_DEFAULT_CELL_LIMIT = 131_072
#: An article longer than that: about 270 KB of UTF-8, a long report or live blog.
LONG_ARTICLE = "نص الخبر الطويل. " * 9000


def add_claims(
    wh: Warehouse, n_claims: int, articles_per_claim: int = 3, *, start: int = 0, sources: tuple[str, ...] = SOURCES
) -> list[str]:
    """Write ``n_claims`` claims (round-robin over ``sources``) with their articles and pairs; return pair ids."""
    claims, articles, pairs = [], [], []
    for i in range(start, start + n_claims):
        source = sources[i % len(sources)]
        url = f"https://{source}.example/claim-{i}/"
        claim_id = stable_id(source, url)
        claims.append({
            "claim_id": claim_id, "source_id": source, "url": url, "canonical_url": url,
            "title": f"عنوان الادعاء {i}", "cleaned_text": f"الادعاء رقم {i} عن افتتاح جسر في المدينة",
            "veracity": "true" if source == "reuters" else "false", "published_date": date(2019, 1, 1 + i % 28),
            "first_seen": T0, "last_seen": T0,
        })
        for j in range(articles_per_claim):
            a_url = f"https://news{j}.example/{i}/{j}.html"
            article_id = stable_id(a_url)
            articles.append({
                "article_id": article_id, "url": a_url, "canonical_url": a_url, "domain": f"news{j}.example",
                "title": f"خبر {i}-{j}", "text": f"نص الخبر {i}-{j} عن الحدث.", "published_date": date(2019, 2, 1),
                "fetch_status": "ok",
            })
            pairs.append({
                "pair_id": stable_id(claim_id, article_id), "claim_id": claim_id, "article_id": article_id,
                "rank": j + 1, "similarity": 0.5, "reason": "test", "created_at": T0,
            })
    with wh.transaction():
        wh.insert_rows("claims", claims)
        wh.insert_rows("articles", articles)
        wh.insert_rows("claim_article_pairs", pairs)
    return [p["pair_id"] for p in pairs]


#: The labels the pairs of :func:`add_pairs_with_truth` take in turn.
STANCE_TURNS = ("agree", "disagree", "discuss", "unrelated", "unrelated")


def add_pairs_with_truth(wh: Warehouse, n_claims: int = 8) -> dict[str, str]:
    """``n_claims`` claims of 3 pairs and each pair's true label: claim 0's documents are all
    unrelated, the others' a mix."""
    pairs = add_claims(wh, n_claims, 3)
    return {p: ("unrelated" if i < 3 else STANCE_TURNS[i % 5]) for i, p in enumerate(pairs)}


def add_labelled_pairs(wh: Warehouse, n_claims: int = 8) -> dict[str, str]:
    """:func:`add_pairs_with_truth`, each pair labelled with its truth by two annotators of a
    production round (a build makes 21 gold pairs of 7 claims of the default 8, and leaves claim 0 out)."""
    truth = add_pairs_with_truth(wh, n_claims)
    wh.insert_rows("annotation_rounds", [{"round": "prod-1", "round_kind": "production", "seed": 1, "annotators": "[]",
                                          "created_at": "2021-01-01"}])
    wh.insert_rows("annotations", [
        {"annotation_id": f"{p}-{a}", "pair_id": p, "annotator_id": a, "label": label, "round": "prod-1",
         "round_kind": "production", "annotated_at": "2021-01-02"}
        for p, label in truth.items() for a in ("ann-1", "ann-2")
    ])
    return truth


def add_round(wh: Warehouse, round_name: str, kind: str, assignments: list[tuple[str, str]] | None = None) -> None:
    """Register a round directly, with ``assignments`` (default: every stored pair to all three annotators)."""
    wh.insert_rows("annotation_rounds", [{
        "round": round_name, "round_kind": kind, "seed": 1, "annotators": json.dumps(["ann-1", "ann-2", "ann-3"]),
        "created_at": T0,
    }])
    if assignments is None:
        pair_ids = [r["pair_id"] for r in wh.query("SELECT pair_id FROM claim_article_pairs")]
        assignments = [(p, a) for p in pair_ids for a in ("ann-1", "ann-2", "ann-3")]
    if assignments:
        wh.insert_rows("annotation_assignments", [
            {"round": round_name, "pair_id": p, "annotator_id": a, "assigned_at": T0} for p, a in assignments
        ])


def ls_task(pair_id: str, round_name: str, annotations: list[dict[str, Any]], task_id: int = 1) -> dict[str, Any]:
    """A task as Label Studio exports it."""
    return {"id": task_id, "data": {"pair_id": pair_id, "round": round_name, "claim": "ادعاء", "article": "مقال"},
            "annotations": annotations}


def ls_annotation(annotator: Any, label: str, created_at: str = "2021-03-02T10:00:00.000000Z") -> dict[str, Any]:
    return {"id": 1, "completed_by": annotator, "created_at": created_at, "was_cancelled": False,
            "result": [{"from_name": "stance", "to_name": "article", "type": "choices", "value": {"choices": [label]}}]}


def ls_assigned_task(pair_id: str, round_name: str, annotator: str, annotations: list[dict[str, Any]],
                     task_id: int = 1) -> dict[str, Any]:
    """A task of ``annotator``'s task file (``data.annotator_id``), as Label Studio exports it."""
    task = ls_task(pair_id, round_name, annotations, task_id)
    task["data"]["annotator_id"] = annotator
    return task


def ls_export_of(task_file: Path, user: Any, labels: list[str]) -> list[dict[str, Any]]:
    """Label Studio's JSON export of a round's task file (``<round>/<annotator>.json``) imported into a
    project whose ``user`` (``completed_by``: 1 in a Label Studio of one's own) gave its tasks ``labels`` in turn."""
    tasks = json.loads(task_file.read_text(encoding="utf-8"))
    return [{"id": i, "data": t["data"], "annotations": [{**ls_annotation(user, label), "id": i}]}
            for i, (t, label) in enumerate(zip(tasks, labels), start=1)]


def write_json(path: Path, payload: Any) -> Path:
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(json.dumps(payload, ensure_ascii=False), encoding="utf-8")
    return path


def add_gold(wh: Warehouse, labels: dict[str, str]) -> None:
    """Gold labels written directly, for dataset tests that skip annotation."""
    wh.insert_rows("gold_labels", [
        {"pair_id": p, "label": label, "method": "agreed", "decided_at": T0} for p, label in labels.items()
    ], on_conflict="update")


def add_long_text_dataset(wh: Warehouse, n_claims: int, repeats: int = 4_000) -> int:
    """A split, gold-labelled dataset of ``n_claims`` claims of 4 articles whose texts are repeated to about
    120 KB each (``repeats``), for what must stream; returns the article text in bytes."""
    add_gold(wh, {p: "agree" for p in add_claims(wh, n_claims, 4)})
    wh.con.execute(f"UPDATE articles SET text = repeat(text || ' ', {int(repeats)})")
    wh.con.execute("INSERT INTO splits SELECT claim_id, ['train', 'dev', 'test'][1 + (hash(claim_id) % 3)::INT], "
                   "TIMESTAMP '2021-01-01', 1 FROM claims")
    return int(wh.scalar("SELECT sum(strlen(text)) FROM articles"))


@contextmanager
def csv_cell_limit(limit: int) -> Iterator[None]:
    """csv's process-wide cell limit set to ``limit`` for the block, then put back: a test of long
    cells must start from csv's default, whatever an earlier test or the code under test set."""
    before = csv.field_size_limit(limit)
    try:
        yield
    finally:
        csv.field_size_limit(before)
