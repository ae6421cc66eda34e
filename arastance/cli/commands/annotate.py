"""``arastance annotate``: task files out, labels in, progress and agreement, adjudication."""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path
from typing import Literal

import typer

from arastance.cli.common import console, fail, print_table, require_stdout, settings, warn
from arastance.cli.shown_text import assembled
from arastance.config import Settings
from tasks.annotation.discussion import import_discussion
from tasks.annotation.prelabel import Prediction
from tasks.annotation.records import AnnotationFileError
from tasks.annotation.workflow import (
    NoPairsLeftError,
    adjudicate,
    decide_gold_labels,
    export_round,
    import_annotations,
    release_annotator,
    round_reports,
)
from warehouse import Warehouse, WarehouseError, open_report, open_warehouse
from warehouse import annotation as store

annotate_app = typer.Typer(help="Stance annotation: export tasks, import labels, agreement, gold labels.", no_args_is_help=True)


@annotate_app.command("export")
def export(
    kind: str = typer.Argument("production", help="pilot (every annotator labels every pair) or production"),
    size: int | None = typer.Option(None, min=1, help="pairs in the round (pilot default: annotation.pilot_size; production: all left)"),
    out: Path | None = typer.Option(None, help="directory for the task files (default <data_dir>/annotation)"),
    predictions: bool = typer.Option(False, "--predictions", help="production: attach the newest warehouse model's "
                                     "predictions and give the pairs it is least sure of, most uncertain first"),
    model: Path | None = typer.Option(None, "--model", help="production: use this saved model's predictions "
                                      "(implies --predictions)"),
) -> None:
    """Create the next round and write its Label Studio JSON, CSV and labeling config per annotator."""
    if kind not in ("pilot", "production"):
        fail(f"round kind must be 'pilot' or 'production', not {kind!r} (adjudication rounds come from `annotate adjudicate`)")
    round_kind: Literal["pilot", "production"] = "pilot" if kind == "pilot" else "production"
    s = settings()
    try:
        with open_warehouse(s.warehouse) as wh:
            guesses = _model_predictions(s, wh, model) if predictions or model else None
            done = export_round(wh, round_kind, s.annotation, (out or s.annotation_dir), size=size, predictions=guesses)
    except (WarehouseError, NoPairsLeftError, ValueError) as exc:
        fail(str(exc))
    if guesses is not None:
        version = next(iter(guesses.values())).model_version if guesses else "-"
        console.print(f"predictions of model {version} attached; tasks ordered most uncertain first")
    console.print(assembled("round ", (done.round, "bold"),
                            f" ({done.kind}): {done.pairs} pair(s), {done.assignments} assignment(s)"))
    print_table([{"file": str(p)} for p in done.files], title=f"Files in {done.directory}")


def _model_predictions(s: Settings, wh: Warehouse, directory: Path | None) -> dict[str, Prediction]:
    """The predictions of the model in ``directory`` (default: the newest trained on the warehouse)
    for every pair a round could still be given."""
    from tasks.annotation.prelabel import predict_unassigned
    from tasks.stance.model import load_model
    from tasks.stance.persistence import ModelFormatError
    from tasks.stance.runs import run_of_saved_model
    from warehouse.model_runs import latest_model_dir

    if directory is None:
        newest = latest_model_dir(wh)
        if newest is None:
            raise ValueError("no model has been trained on the warehouse yet (run `arastance train`), or pass --model")
        directory = Path(newest)
    try:
        loaded = load_model(directory, embedding_cache=s.embedding_cache, settings=s.model)
    except ModelFormatError as exc:
        raise ValueError(str(exc)) from None
    return predict_unassigned(wh, loaded, run_of_saved_model(directory).run_id)


@annotate_app.command("import")
def import_(
    files: list[Path] = typer.Argument(..., help="Label Studio JSON exports (.json) or filled-in task sheets (.csv)"),
    round_name: str | None = typer.Option(None, "--round", help="the round every label belongs to (default: the file's round field)"),
    keep_stored_labels: bool = typer.Option(
        False, "--keep-stored-labels",
        help="take a file in which an annotator changed a label already stored (a later Label Studio export): "
             "the stored label stays, the file's other labels are taken, and the changed ones are listed"),
) -> None:
    """Import annotations; each file is all-or-nothing and importing it again changes nothing."""
    s = settings()

    def one(wh: Warehouse, path: Path) -> dict[str, object]:
        res = import_annotations(wh, path, annotator_map=s.annotation.annotator_map, round_override=round_name,
                                 keep_stored=keep_stored_labels)
        status = "imported before: nothing to do" if res.already_imported else "imported"
        if res.kept_stored:
            status += f"; {len(res.kept_stored)} changed label(s) not taken, the stored ones kept"
            for line in res.kept_stored:
                warn(f"{path}: {line}: the stored label is kept")
        return {"annotations": res.annotations, "new": res.new, "status": status}

    _import_each(s, files, one, title="Annotation import")


def _import_each(
    s: Settings, paths: list[Path], one: Callable[[Warehouse, Path], dict[str, object]], *, title: str,
    then: Callable[[Warehouse], object] | None = None,
) -> None:
    """Import each file all-or-nothing, one row each; on a bad file, show what came in before it and fail."""
    rows: list[dict[str, object]] = []
    try:
        with open_warehouse(s.warehouse) as wh:
            for path in paths:
                rows.append({"file": str(path), **one(wh, path)})
            if then is not None:
                then(wh)
    except AnnotationFileError as exc:
        if rows:
            print_table(rows, title="Imported before the error")
        fail(str(exc))
    except WarehouseError as exc:
        fail(str(exc))
    print_table(rows, title=title)


@annotate_app.command("status")
def status() -> None:
    """Progress per round and annotator, agreement per round (kappa, shares, confusions), gold labels.

    Read from the readers' copy, as every report is: it waits for no writer, and works for a user who
    cannot write the warehouse's directory."""
    require_stdout()
    s = settings()
    try:
        with open_report(s.warehouse) as wh:
            progress = store.progress(wh)
            reports = round_reports(wh)
            gold = store.gold_summary(wh)
            per_annotator = store.annotator_agreement(wh)
            discussion = store.pilot_discussion_report(wh)
            reasons = store.pilot_discussions(wh)
    except WarehouseError as exc:
        fail(str(exc))
    print_table(progress, title="Progress per round and annotator")
    for report in reports:
        print_table(report.summary_rows(), title=f"Agreement in {report.round}")
        print_table(report.confusion, title=f"Confused label pairs in {report.round}")
    print_table(discussion, title="Pilot disagreements settled by discussion, per round")
    for name in sorted({r["round"] for r in reasons}):
        print_table([{k: r[k] for k in ("pair_id", "label", "reason", "decided_by")} for r in reasons if r["round"] == name],
                    title=f"Discussion decisions in {name} (what the guidelines may need to say)")
    print_table(gold, title="Gold labels")
    print_table(per_annotator, title="Annotators against the gold labels")


@annotate_app.command("adjudicate")
def adjudicate_cmd(
    out: Path | None = typer.Option(None, help="directory for the adjudication task files (default <data_dir>/annotation)"),
) -> None:
    """Store agreed/adjudicated gold labels, put disputed pilot pairs on a discussion sheet and send
    other disputed pairs to a third annotator."""
    s = settings()
    try:
        with open_warehouse(s.warehouse) as wh:
            result = adjudicate(wh, s.annotation, (out or s.annotation_dir))
    except (WarehouseError, ValueError) as exc:
        fail(str(exc))
    print_table(
        [{"gold": result.gold, "disputed": result.disputed, "discussion": result.discussion, "pending": result.pending}],
        title="Pairs by decision",
    )
    for sheet in result.discussion_sheets:
        console.print(assembled("pilot disagreements to discuss: ", (str(sheet), "bold"),
                                f" (fill decision and reason, then `annotate discuss {sheet}`)"))
    if result.new_round is not None:
        r = result.new_round
        sent = (f"{r.pairs} pair(s) sent to another annotator: {r.pairs - result.short} disputed, {result.short} short "
                "of a label after a release" if result.short else f"{r.pairs} disputed pair(s) sent to a third annotator")
        console.print(assembled("round ", (r.round, "bold"), f": {sent}"))
        if result.returned:
            console.print(f"{result.returned} of them went back to an annotator who released them, as everyone else in "
                          "annotation.annotators labelled them: if they will still not label them, add an annotator "
                          "to the pool, release them again and run `annotate adjudicate`")
        print_table([{"file": str(p)} for p in r.files], title=f"Files in {r.directory}")
    if result.stranded:
        shown = ", ".join(result.stranded[:5]) + (", ..." if len(result.stranded) > 5 else "")
        console.print(f"{len(result.stranded)} pair(s) a release left one label short were sent to nobody, as "
                      f"annotation.annotators holds only who labelled them ({shown}): add an annotator to the pool "
                      "and run `annotate adjudicate` again")


@annotate_app.command("release")
def release(
    annotator: str = typer.Option(..., help="the annotator whose unlabelled assignments are given up"),
    round_name: str | None = typer.Option(None, "--round", help="only in this round (default: every round)"),
) -> None:
    """Give up an annotator's unlabelled assignments (away, left the project) and decide their pairs on
    the labels given: a pair waits for every label its round assigned, so without this they stay pending."""
    s = settings()
    try:
        with open_warehouse(s.warehouse) as wh:
            released, decisions = release_annotator(wh, s.annotation, annotator, round_name)
    except (WarehouseError, ValueError) as exc:
        fail(str(exc))
    counts = {status: sum(d.status == status for d in decisions) for status in ("gold", "disputed", "discussion", "pending")}
    console.print(f"{released} assignment(s) of {annotator} released; pairs now: " +
                  ", ".join(f"{n} {status}" for status, n in counts.items()) +
                  " (`annotate adjudicate` writes the discussion sheets and the adjudication round)")
    short = sum(d.missing > 0 for d in decisions)
    if short:
        console.print(f"{short} of the disputed pair(s) hold one label where their round asked for two: they are "
                      "not gold, and `annotate adjudicate` sends them to another annotator")
    if annotator in s.annotation.annotators:
        console.print(f"{annotator} is still in annotation.annotators: take them out of the pool, or the next "
                      "round can give them pairs again (an adjudication round gives them back a pair they released "
                      "only when everyone else in the pool labelled it)")


@annotate_app.command("discuss")
def discuss(
    sheets: list[Path] = typer.Argument(..., help="filled-in pilot discussion sheets (<round>/discussion.csv)"),
) -> None:
    """Import the decisions of a pilot discussion (label and reason per disputed pair); they become the
    pairs' gold labels. Each sheet is all-or-nothing, and importing it again changes nothing."""
    s = settings()

    def one(wh: Warehouse, path: Path) -> dict[str, object]:
        res = import_discussion(wh, path)
        return {"decisions": res.decisions, "new": res.new, "still to discuss": res.waiting}

    _import_each(s, sheets, one, title="Pilot discussion decisions", then=lambda wh: decide_gold_labels(wh, s.annotation))


def register(app: typer.Typer) -> None:
    app.add_typer(annotate_app, name="annotate")
