"""The annotation workflow on the warehouse: export a round, import labels, decide gold labels.

Each step is a plain function of a :class:`~warehouse.Warehouse` so that the CLI, the Prefect
flow and the demo share one implementation.
"""

from __future__ import annotations

import hashlib
import json
import shutil
from collections.abc import Iterator, Mapping, Sequence
from contextlib import contextmanager
from dataclasses import dataclass, field
from datetime import datetime, timezone
from functools import partial
from pathlib import Path
from typing import Any

from arastance.base.ids import stable_id
from arastance.base.input_paths import not_a_file
from arastance.config.annotation import AnnotationSettings
from arastance.logging import get_logger
from tasks.annotation.agreement import Profile, RoundAgreement, profile_agreement
from tasks.annotation.assignment import (
    adjudication_assignment,
    pilot_assignment,
    production_assignment,
    sample_pairs,
)
from tasks.annotation.csv_io import PairIdLookup, PairLookup, parse_csv, tasks_to_csv
from tasks.annotation.discussion import discussion_sheets, write_sheets
from tasks.annotation.gold import GoldDecision, decide_all, decision_counts
from tasks.annotation.guidelines import FILE_NAME as GUIDELINES_FILE
from tasks.annotation.guidelines import guidelines_markdown
from tasks.annotation.label_studio import ANNOTATOR_MAP_ENV, labeling_config, parse_export, tasks_to_json
from tasks.annotation.prelabel import Prediction, most_uncertain
from tasks.annotation.records import Annotation, AnnotationFileError, AnnotationTask, RoundKind
from tasks.stage_locks import stage_lock, warehouse_locks
from tasks.stance.labels import FOUR_WAY
from warehouse import Warehouse
from warehouse import annotation as store

log = get_logger(__name__)


def _now() -> datetime:
    return datetime.now(timezone.utc).replace(tzinfo=None, microsecond=0)


class NoPairsLeftError(ValueError):
    """Every annotatable pair is assigned, labelled or gold already: there is nothing for a new round."""


@dataclass(frozen=True)
class RoundExport:
    """A round just created and the files written for it (one JSON and one CSV per annotator)."""

    round: str
    kind: str
    pairs: int
    assignments: int
    directory: Path
    files: list[Path] = field(default_factory=list)


@contextmanager
def round_with_its_files(wh: Warehouse, directory: Path) -> Iterator[None]:
    """One transaction for a round and its files in ``directory``: a round whose files cannot be
    written (a bad out_dir, a full disk) is not stored, and the files of a round that was not
    stored go too, where this export made the directory (a full disk left a complete JSON and a cut
    CSV of a round that did not exist: a task sheet that looked ready to hand out)."""
    made = not directory.exists()
    try:
        with wh.transaction():
            yield
    except BaseException:
        if made:
            shutil.rmtree(directory, ignore_errors=True)
        raise


def write_round_files(wh: Warehouse, round_name: str, out_dir: Path,
                      predictions: Mapping[str, Prediction] | None = None) -> list[Path]:
    """Write ``<out_dir>/<round>/``: the guidelines, the labeling config (which carries them too) and,
    per annotator, Label Studio JSON and CSV.

    With a model's ``predictions``, each task carries its prediction and every annotator's tasks
    come most uncertain first."""
    rows = store.round_tasks(wh, round_name)
    by_annotator: dict[str, list[AnnotationTask]] = {}
    for r in rows:
        task = AnnotationTask(
            pair_id=r["pair_id"], round=round_name, annotator_id=r["annotator_id"], claim_id=r["claim_id"],
            claim=r["claim"], claim_url=r["claim_url"], source_id=r["source_id"], article_id=r["article_id"],
            article_title=r["article_title"], article_url=r["article_url"], article=r["article"],
        )
        by_annotator.setdefault(task.annotator_id, []).append(task)
    if predictions:
        for annotator, tasks in by_annotator.items():
            rank = {p: i for i, p in enumerate(most_uncertain([t.pair_id for t in tasks], predictions, None))}
            by_annotator[annotator] = sorted(tasks, key=lambda t: rank[t.pair_id])
    directory = out_dir / round_name
    directory.mkdir(parents=True, exist_ok=True)
    config = directory / "labeling_config.xml"
    config.write_text(labeling_config(), encoding="utf-8")
    guidelines = directory / GUIDELINES_FILE
    guidelines.write_text(guidelines_markdown(), encoding="utf-8")
    files = [config, guidelines]
    for annotator, tasks in sorted(by_annotator.items()):
        for path, text in ((directory / f"{annotator}.json", tasks_to_json(tasks, predictions)),
                           (directory / f"{annotator}.csv", tasks_to_csv(tasks))):
            path.write_text(text, encoding="utf-8")
            files.append(path)
    return files


def export_round(
    wh: Warehouse,
    kind: RoundKind,
    cfg: AnnotationSettings,
    out_dir: Path,
    *,
    size: int | None = None,
    now: datetime | None = None,
    predictions: Mapping[str, Prediction] | None = None,
) -> RoundExport:
    """Create the next pilot or production round over pairs nobody has been given yet and that hold no
    gold label (a loaded dataset file's pairs are labelled already), and write its files.

    A pilot gives ``size`` (default ``cfg.pilot_size``) pairs to every annotator; a production
    round gives every remaining pair (at most ``size``) to ``cfg.annotators_per_pair`` annotators:
    a seeded random sample, or with a model's ``predictions`` (:mod:`tasks.annotation.prelabel`)
    the ``size`` pairs it is least sure of, shown with its predictions, most uncertain first.
    """
    if kind == "adjudication":
        raise ValueError("adjudication rounds come from `adjudicate`, which knows the disputed pairs")
    if predictions and kind == "pilot":
        raise ValueError("a pilot measures agreement on a random sample without model suggestions; "
                         "use model predictions in production rounds")
    pool = store.unassigned_pair_ids(wh)
    round_name = store.next_round_name(wh, kind)
    seed = cfg.assignment_seed + len(store.round_kinds(wh))
    if kind == "pilot":
        assignments = pilot_assignment(pool, cfg.annotators, size or cfg.pilot_size, seed)
    else:
        if predictions:
            chosen = sorted(most_uncertain(sorted(pool), predictions, size))
        else:
            chosen = sample_pairs(pool, size, seed) if size is not None else sorted(pool)
        assignments = production_assignment(chosen, cfg.annotators, cfg.annotators_per_pair, seed)
    if not assignments:
        raise NoPairsLeftError(f"no pairs left to annotate for a {kind} round "
                               "(every pair is assigned, labelled or gold already)")
    with round_with_its_files(wh, out_dir / round_name):
        created = store.create_round(
            wh, round_name=round_name, kind=kind, seed=seed, annotators=cfg.annotators, assignments=assignments,
            now=now or _now(),
        )
        files = write_round_files(wh, round_name, out_dir, predictions)
    pairs = len({p for p, _ in assignments})
    log.info("annotation round exported", extra={"round": round_name, "kind": kind, "pairs": pairs, "assignments": created})
    return RoundExport(round_name, kind, pairs, created, out_dir / round_name, files)


@dataclass(frozen=True)
class ImportResult:
    file: Path
    annotations: int
    new: int
    already_imported: bool
    #: the file's labels that differ from one stored for the same pair, annotator and round, not taken
    #: (``keep_stored``): one line each, naming the row, both labels and the stored one's file
    kept_stored: tuple[str, ...] = ()


#: What the refusal of a changed label says the user can do.
KEEP_STORED_HINT = ("a stored label is never replaced (agreement and gold labels were decided on it); "
                    "`annotate import --keep-stored-labels` takes the file's other labels and keeps it")


def read_annotation_file(
    path: Path, *, annotator_map: Mapping[str, str] | None = None, round_override: str | None = None,
    pairs: PairLookup | None = None, pair_ids: PairIdLookup | None = None,
) -> tuple[str, list[Annotation]]:
    """Parse a Label Studio export (``.json``) or a filled-in task sheet (``.csv``, whose rows are
    checked against ``pairs`` and whose pair_ids a spreadsheet turned into numbers are found with
    ``pair_ids``: :func:`tasks.annotation.csv_io.parse_csv`)."""
    suffix = path.suffix.lower()
    if suffix == ".json":
        return "label_studio", parse_export(path, annotator_map=annotator_map, round_override=round_override)
    if suffix == ".csv":
        return "csv", parse_csv(path, round_override=round_override, pairs=pairs, pair_ids=pair_ids)
    raise AnnotationFileError(str(path), [f"unknown file type {suffix!r}; expected .json (Label Studio export) or .csv"])


def _not_assigned(path: Path, r: Annotation, assigned: set[tuple[str, str, str]], with_assignments: set[str]) -> str:
    """Why ``r``'s annotator cannot label its pair. In a Label Studio export, an annotator no round
    ever assigned anything is a Label Studio user that ``annotation.annotator_map`` does not name (a
    task without ``data.annotator_id`` takes its user's id): the message says so, and how to map it."""
    given = sorted(a for rnd, p, a in assigned if (rnd, p) == (r.round, r.pair_id))
    message = (f"{r.where}: annotator {r.annotator_id!r} was not assigned pair {r.pair_id} in round "
               f"{r.round!r} (assigned to: {', '.join(given)})")
    if path.suffix.lower() != ".json" or r.annotator_id in with_assignments:
        return message
    example = json.dumps({r.annotator_id: given[0]}, ensure_ascii=False)
    return (f"{message}: {r.annotator_id!r} is a Label Studio user id (completed_by) with no entry in "
            f"annotation.annotator_map; map it to its annotator, e.g. {ANNOTATOR_MAP_ENV}='{example}'")


def _check_against_warehouse(wh: Warehouse, path: Path, records: Sequence[Annotation],
                             keep_stored: bool = False) -> tuple[dict[str, str], list[str]]:
    """Every record must answer an assignment (a known round that holds the pair, given to that
    annotator) and agree with what is stored; returns round kinds, and the records whose label
    differs from the stored one when ``keep_stored`` lets the file in without them (else each is a
    problem).

    A label nobody asked for (an annotator who was not given the pair, a pair outside the round,
    a file edited by hand) would otherwise count towards agreement and become gold. A changed label
    (an annotator who edited their annotation in Label Studio before the next export) is refused:
    agreement figures and gold labels were decided on the stored one, and a whole later export
    refused for it would leave every new label of it out, so ``keep_stored`` takes the rest.
    """
    kinds = store.round_kinds(wh)
    known = store.known_pair_ids(wh, (r.pair_id for r in records))
    stored = store.stored_labels(wh, (r.pair_id for r in records))
    assigned = store.assignments_of(wh, (r.pair_id for r in records))
    pairs_in_round = {(round_name, pair_id) for round_name, pair_id, _ in assigned}
    with_assignments = store.annotators_with_assignments(wh)
    problems: list[str] = []
    changed: list[str] = []
    for r in records:
        if r.round not in kinds:
            problems.append(f"{r.where}: unknown round {r.round!r} (rounds: {', '.join(sorted(kinds)) or 'none yet'})")
        elif r.pair_id not in known:
            problems.append(f"{r.where}: unknown pair {r.pair_id!r} (not in claim_article_pairs)")
        elif (r.round, r.pair_id) not in pairs_in_round:
            problems.append(f"{r.where}: pair {r.pair_id} is not in round {r.round!r}; only a round's own pairs can be labelled in it")
        elif (r.round, r.pair_id, r.annotator_id) not in assigned:
            problems.append(_not_assigned(path, r, assigned, with_assignments))
        old = stored.get((r.pair_id, r.annotator_id, r.round))
        if old is not None and old["label"] != r.label:
            changed.append(f"{r.where}: annotator {r.annotator_id!r} labels pair {r.pair_id} {r.label!r} in round "
                           f"{r.round!r}, but {old['label']!r} is stored already (from {old['source_file']})")
    if problems or (changed and not keep_stored):
        raise AnnotationFileError(str(path), problems + ([] if keep_stored else [f"{c}: {KEEP_STORED_HINT}"
                                                                                 for c in changed]))
    return kinds, changed


def import_annotations(
    wh: Warehouse,
    path: Path,
    *,
    annotator_map: Mapping[str, str] | None = None,
    round_override: str | None = None,
    now: datetime | None = None,
    keep_stored: bool = False,
) -> ImportResult:
    """Import one file all-or-nothing; the same bytes imported again change nothing. A label that
    differs from the one stored for its pair, annotator and round refuses the file, unless
    ``keep_stored``: then the stored label stays and the file's other labels are taken
    (:attr:`ImportResult.kept_stored` lists those not taken)."""
    with stage_lock(warehouse_locks(wh.path), "annotation-import"):
        return _import(wh, path, annotator_map=annotator_map, round_override=round_override, now=now,
                       keep_stored=keep_stored)


def _import(
    wh: Warehouse, path: Path, *, annotator_map: Mapping[str, str] | None, round_override: str | None,
    now: datetime | None, keep_stored: bool,
) -> ImportResult:
    data = path.read_bytes() if path.is_file() else None
    if data is None:
        raise AnnotationFileError(str(path), [not_a_file(path)])
    digest = hashlib.sha256(data).hexdigest()
    earlier = store.import_record(wh, digest)
    if earlier is not None:
        log.info("annotation file imported before", extra={"file": str(path), "first_import": str(earlier["imported_at"])})
        return ImportResult(path, int(earlier["annotations"]), 0, True)
    fmt, records = read_annotation_file(path, annotator_map=annotator_map, round_override=round_override,
                                        pairs=partial(store.pair_tasks, wh), pair_ids=partial(store.pair_ids_of, wh))
    kinds, changed = _check_against_warehouse(wh, path, records, keep_stored)
    rows = [
        {
            "annotation_id": stable_id(r.pair_id, r.annotator_id, r.round),
            "pair_id": r.pair_id,
            "annotator_id": r.annotator_id,
            "label": r.label,
            "round": r.round,
            "round_kind": kinds[r.round],
            "annotated_at": r.annotated_at,
            "source_file": path.name,
        }
        for r in records
    ]
    record = {"file_hash": digest, "file_name": str(path), "file_format": fmt, "annotations": len(rows), "imported_at": now or _now()}
    new = store.store_annotations(wh, rows, record)  # a changed label's row meets the stored one: not inserted
    log.info("annotations imported", extra={"file": str(path), "format": fmt, "annotations": len(rows), "new": new,
                                            "changed_labels_not_taken": len(changed)})
    return ImportResult(path, len(rows), new, False, tuple(changed))


@dataclass(frozen=True)
class AdjudicationResult:
    decisions: list[GoldDecision]
    gold: int
    disputed: int
    pending: int
    new_round: RoundExport | None
    discussion: int = 0  # pilot pairs waiting for the discussion
    discussion_sheets: list[Path] = field(default_factory=list)
    short: int = 0  # pairs of the new round that a release left short of a label (not disputed)
    returned: int = 0  # pairs of the new round given back to who released them: everyone else in the pool labelled them
    stranded: list[str] = field(default_factory=list)  # short pairs only their own labeller could take: sent to nobody


def _kept_gold(decision: GoldDecision, gold: Mapping[str, Any]) -> GoldDecision:
    """The decision of a pair whose stored gold label no annotation decision wrote: that label."""
    return GoldDecision(decision.pair_id, "gold", gold["label"], gold["method"], gold["decided_at"],
                        decision.annotators)


def decide_gold_labels(wh: Warehouse, cfg: AnnotationSettings) -> list[GoldDecision]:
    """Decide every annotated pair and store the gold labels of the decided ones; a pair no longer
    decided (a late label disagreed) loses its earlier gold label, so the dataset never takes it.

    A gold label that no decision wrote (a dataset file's, loaded by ``dataset load``) stays as it is
    and is the pair's decision: labels given to such a pair (in a round exported before rounds left
    gold pairs out) neither withdraw nor replace it, nor send it to a discussion or an adjudicator."""
    discussions = {d["pair_id"]: d for d in store.pilot_discussions(wh)}
    decided = decide_all(store.annotations(wh), assigned=store.assigned_annotators(wh),
                         annotators_per_pair=cfg.annotators_per_pair, released=store.released_annotators(wh),
                         discussions=discussions)
    kept = store.gold_not_from_annotations(wh)
    decisions = [_kept_gold(d, kept[d.pair_id]) if d.pair_id in kept else d for d in decided]
    gold = [
        {"pair_id": d.pair_id, "label": d.label, "method": d.method, "decided_at": d.decided_at}
        for d in decisions
        if d.status == "gold" and d.pair_id not in kept
    ]
    store.upsert_gold_labels(wh, gold, undecided=(d.pair_id for d in decisions if d.status != "gold"))
    return decisions


def release_annotator(wh: Warehouse, cfg: AnnotationSettings, annotator: str,
                      round_name: str | None = None) -> tuple[int, list[GoldDecision]]:
    """Give up ``annotator``'s unlabelled assignments (in ``round_name``, or every round) and decide the
    pairs again; returns how many were released and the new decisions.

    A pair waits for every label its round assigned, so pairs given to an annotator who will not label
    them (away, left) would stay pending for good: released, they are decided on the labels given
    (two agreeing: gold; two differing: a pilot discussion or an adjudicator, as ``adjudicate`` says).
    A pair left with fewer labels than the method asks (:func:`tasks.annotation.gold.required_labels`:
    one label of a production pair) is not made gold from them: it is ``disputed`` with ``missing`` set, and
    ``adjudicate`` sends it to another annotator.
    """
    known = store.annotators_with_assignments(wh)
    if annotator not in known:
        raise ValueError(f"annotator {annotator!r} has no assignment; annotators with one: {sorted(known)}")
    if round_name is not None and round_name not in store.round_kinds(wh):
        raise ValueError(f"no annotation round {round_name!r}; rounds: {list(store.round_kinds(wh))}")
    released = store.release_assignments(wh, annotator, round_name)
    log.info("assignments released", extra={"annotator": annotator, "round": round_name, "pairs": len(released)})
    return len(released), decide_gold_labels(wh, cfg)


def _with_an_adjudicator(wh: Warehouse, kinds: Mapping[str, str], pair_ids: set[str]) -> set[str]:
    """The pairs among ``pair_ids`` that an adjudication round gave to someone who has not labelled
    them yet: sent once, they are not sent again. A pair whose adjudication label came in and left
    it disputed (it stood in for a label a release left missing) goes to a further annotator."""
    labelled = store.stored_labels(wh, pair_ids)
    return {p for rnd, p, a in store.assignments_of(wh, pair_ids)
            if kinds[rnd] == "adjudication" and (p, a, rnd) not in labelled}


def _given_back(assignments: Sequence[tuple[str, str]], labelled: Mapping[str, Sequence[str]],
                releasers: Mapping[str, set[str]]) -> int:
    """How many ``assignments`` give a pair back to an annotator who released it and did not label it:
    the user is told, as everyone else in the pool labelled those pairs and they may wait for good."""
    return sum(a in releasers.get(p, ()) and a not in labelled[p] for p, a in assignments)


def adjudicate(
    wh: Warehouse, cfg: AnnotationSettings, out_dir: Path, *, now: datetime | None = None
) -> AdjudicationResult:
    """Store gold labels, put disputed pilot pairs on their round's discussion sheet, and send
    other disputed pairs (and those a release left short of a label) not yet with an adjudicator
    to another annotator: one who did not release it where the pool has one
    (:func:`tasks.annotation.assignment.adjudication_assignment`). A pair a release left short that only
    its own labeller could take is sent to nobody and listed (``stranded``): the other pairs still go.

    The discussion sheets are read back before the round is stored and written with its files, so
    a sheet a spreadsheet saved in a form that cannot be read stops the run before it creates a
    round nobody is told of."""
    decisions = decide_gold_labels(wh, cfg)
    sheets = discussion_sheets(wh, decisions, out_dir)
    kinds = store.round_kinds(wh)
    undecided = {d.pair_id: d.annotators for d in decisions if d.status == "disputed"}
    with_adjudicator = _with_an_adjudicator(wh, kinds, set(undecided))
    disputed = {p: who for p, who in undecided.items() if p not in with_adjudicator}
    short = {d.pair_id for d in decisions if d.missing > 0 and d.pair_id in disputed}
    seed = cfg.assignment_seed + len(kinds)
    releasers = store.releasers_of(wh, disputed)
    assignments = adjudication_assignment(disputed, cfg.annotators, seed, released=releasers, short=short) if disputed else []
    sent = {p for p, _ in assignments}
    stranded = sorted(set(disputed) - sent)
    new_round = None
    if assignments:
        round_name = store.next_round_name(wh, "adjudication")
        with round_with_its_files(wh, out_dir / round_name):
            created = store.create_round(
                wh, round_name=round_name, kind="adjudication", seed=seed, annotators=cfg.annotators,
                assignments=assignments, now=now or _now(),
            )
            files = write_round_files(wh, round_name, out_dir)
            written = write_sheets(sheets)
        new_round = RoundExport(round_name, "adjudication", len(sent), created, out_dir / round_name, files)
    else:
        written = write_sheets(sheets)
    if stranded:
        log.warning("pairs a release left a label short have nobody to go to: the pool holds only who labelled them",
                    extra={"pairs": len(stranded), "pair_ids": stranded[:20], "annotators": list(cfg.annotators)})
    count = decision_counts(decisions)
    log.info("gold labels decided", extra={**count, "adjudication_round": new_round.round if new_round else None,
                                           "discussion_sheets": [str(p) for p in written]})
    return AdjudicationResult(
        decisions, count["gold"], count["disputed"], count["pending"], new_round, count["discussion"], written,
        short=len(short & sent), returned=_given_back(assignments, disputed, releasers), stranded=stranded,
    )


def round_reports(wh: Warehouse) -> list[RoundAgreement]:
    """Agreement of every pilot and production round that has labels, in round order, from the
    rounds' rating profiles (counted in SQL: the labels themselves never come into Python)."""
    profiles: dict[str, dict[Profile, int]] = {}
    for row in store.rating_profiles(wh):
        profile = tuple(int(row[label]) for label in FOUR_WAY)
        profiles.setdefault(row["round"], {})[profile] = int(row["pairs"])
    return [profile_agreement(name, profiles[name]) for name, kind in store.round_kinds(wh).items()
            if kind != "adjudication" and name in profiles]
