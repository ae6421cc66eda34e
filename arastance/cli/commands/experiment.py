"""``arastance experiment cross-dataset`` and ``arastance experiment imbalance``."""

from __future__ import annotations

from pathlib import Path
from typing import get_args

import typer

from arastance.base.input_paths import require_directory_place
from arastance.cli.common import console, fail, require_choice, settings
from arastance.config.model import ModelKind
from tasks.stance.labels import Scheme

experiment_app = typer.Typer(help="The paper's open questions as experiments (tables in the warehouse).",
                             no_args_is_help=True)

KIND_HELP = "cpu, transformer or ensemble; default: setting model.default"
ENCODER_HELP = ("transformer and ensemble: hub id or local directory; default: model.transformer "
                "(ensemble: model.ensemble_encoder)")


def _paths(values: list[str]) -> dict[str, str]:
    """``name=path`` options as a mapping; anything else is a clear error."""
    out = {}
    for value in values:
        name, sep, path = value.partition("=")
        if not sep or not name or not path:
            fail(f"--path {value!r}: expected NAME=PATH, e.g. baly=../shared/datasets/unifiedfc")
        out[name] = path
    return out


def _run(flow, out: Path | None, **parameters) -> None:  # noqa: ANN001 - a Prefect flow
    """Run an experiment flow whose table and heat map go to ``out`` (checked first, named as typed)."""
    from tasks.stance.datasets import DatasetError
    from warehouse import WarehouseError

    try:
        if out is not None:
            require_directory_place("--out", out)
        outcome = flow(out_dir=str(out) if out else None, **parameters)
    except (DatasetError, WarehouseError, ValueError, NotADirectoryError) as exc:
        fail(str(exc))
    console.print(outcome["table"], markup=False, highlight=False)
    console.print(f"experiment {outcome['experiment_id']}: table and heat map in {outcome['directory']}")


@experiment_app.command("cross-dataset")
def cross_dataset(
    corpus: list[str] = typer.Option([], "--corpus", help="warehouse, arastance, baly or khouja (repeatable); "
                                     "default: every corpus whose data is present"),
    path: list[str] = typer.Option([], "--path", help="NAME=PATH: where a corpus is (repeatable)"),
    split: str = typer.Option("dev", help="evaluation split of every corpus"),
    kind: str | None = typer.Option(None, help=KIND_HELP),
    encoder: str | None = typer.Option(None, help=ENCODER_HELP),
    out: Path | None = typer.Option(None, help="directory for the table and heat map; default <data_dir>/experiments"),
) -> None:
    """Train on each corpus, evaluate on each (4-way mapped to 3-way where needed): one matrix of
    macro-F1 / accuracy, stored in the warehouse, as a Prefect artifact and as a PNG heat map."""
    s = settings()
    require_choice("kind", kind, get_args(ModelKind))
    from flows.experiments import cross_dataset_experiment
    from tasks.stance.experiments.cross_dataset import locate_corpora

    paths = _paths(path)
    try:  # refuse a bad corpus list before any flow starts
        corpora = list(locate_corpora(s, corpus or None, paths))
    except ValueError as exc:
        fail(str(exc))
    _run(cross_dataset_experiment, out, corpora=corpora, paths=paths, split=split, kind=kind, encoder=encoder,
         warehouse_path=str(s.warehouse))


@experiment_app.command("imbalance")
def imbalance(
    dataset: str = typer.Option("warehouse", help="warehouse, arastance, baly or khouja"),
    path: Path | None = typer.Option(None, help="corpus directory (warehouse file); default from the settings"),
    scheme: str | None = typer.Option(None, help="3way or 4way; default: the corpus's own"),
    strategy: list[str] = typer.Option([], "--strategy", help="none, class_weighted, upsampled, downsampled, "
                                       "two_step (repeatable); default: all that the model kind runs (two_step needs the CPU model)"),
    split: str = typer.Option("dev", help="evaluation split"),
    kind: str | None = typer.Option(None, help=KIND_HELP),
    encoder: str | None = typer.Option(None, help=ENCODER_HELP),
    out: Path | None = typer.Option(None, help="directory for the table and heat map; default <data_dir>/experiments"),
) -> None:
    """Compare class-imbalance strategies on one corpus: one table with per-class F1, accuracy and
    macro-F1 per strategy, stored in the warehouse, as a Prefect artifact and as a PNG heat map."""
    s = settings()
    require_choice("kind", kind, get_args(ModelKind))
    require_choice("scheme", scheme, get_args(Scheme))
    from flows.experiments import imbalance_experiment
    from tasks.stance.experiments.imbalance import check_strategies

    try:  # refuse a bad strategy list before any flow starts
        check_strategies(strategy, kind or s.model.default)
    except ValueError as exc:
        fail(str(exc))
    _run(imbalance_experiment, out, dataset=dataset, path=str(path) if path else None, scheme=scheme,
         strategies=strategy or None, split=split, kind=kind, encoder=encoder, warehouse_path=str(s.warehouse))


def register(app: typer.Typer) -> None:
    app.add_typer(experiment_app, name="experiment")
