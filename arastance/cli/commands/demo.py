"""``arastance demo``: the whole pipeline on embedded defaults (offline snapshots, local index)."""

from __future__ import annotations

import os
import shlex
from pathlib import Path
from typing import Optional

import typer

from arastance.base.environment import environment_overridden
from arastance.cli.commands.crawl import built_snapshots
from arastance.cli.common import console, print_table, settings
from arastance.config import Settings
from tasks.pipeline_report import stage_rows
from warehouse import open_published, published_path
from warehouse.model_runs import model_runs, run_results
from warehouse.stats import source_stats, split_label_counts


#: Every setting that names a place the pipeline writes, and the settings property that resolves it: the
#: demo points each at its default place under its own directory, so that a place the configuration
#: names (a real search index, dataset export, models) never receives invented data.
DEMO_PLACES = {
    "ARASTANCE_SEARCH__INDEX_DIR": "search_index_dir",
    "ARASTANCE_ANNOTATION__TASKS_DIR": "annotation_dir",
    "ARASTANCE_ANNOTATION__EXPORT_DIR": "dataset_dir",
    "ARASTANCE_MODEL__MODELS_DIR": "models_dir",
    "ARASTANCE_MODEL__EMBEDDING_CACHE": "embedding_cache",
}


def demo_environment(demo_dir: Path) -> dict[str, str]:
    """The ``ARASTANCE_*`` overrides that keep the demo in ``demo_dir``: its data directory, its own DuckDB
    warehouse (never a configured DuckLake or warehouse file) and every written place under it."""
    defaults = Settings.model_construct(data_dir=demo_dir)  # the default places, no configuration read
    return {
        "ARASTANCE_DATA_DIR": str(demo_dir),
        "ARASTANCE_WAREHOUSE_PATH": str(demo_dir / "warehouse.duckdb"),
        "ARASTANCE_WAREHOUSE_BACKEND": "duckdb",
        **{name: str(getattr(defaults, place)) for name, place in DEMO_PLACES.items()},
    }


def reopen_prefix(environment: dict[str, str], configured: Settings) -> str:
    """The ``NAME=value`` prefix that makes a later command (``sql``, ``notebooks``) open the demo's warehouse:
    ``ARASTANCE_DATA_DIR`` alone left a configured ``warehouse_path`` (or DuckLake) in place, and opened it."""
    names = ["ARASTANCE_DATA_DIR", "ARASTANCE_WAREHOUSE_PATH"]
    if configured.warehouse_backend != environment["ARASTANCE_WAREHOUSE_BACKEND"]:
        names.append("ARASTANCE_WAREHOUSE_BACKEND")
    return " ".join(f"{name}={shlex.quote(environment[name])}" for name in names)


def prefect_hint(flow_run_id: object | None) -> str:
    """Where the demo's runs can be seen: on the configured Prefect server, or how to get one.

    Without ``PREFECT_API_URL`` the demo runs on a temporary server that stops with it, so a
    server started afterwards has none of its runs.
    """
    api = os.environ.get("PREFECT_API_URL")
    if api:
        ui = api.rstrip("/").removesuffix("/api")
        return (f"Prefect: the run, its stages, logs and artifacts: {ui}/runs/flow-run/{flow_run_id}\n"
                f"  artifacts (stage tables, retrieval per claim, model results): {ui}/artifacts")
    return ("Prefect: this demo ran on a temporary Prefect server, stopped with it. To watch the runs,\n"
            "  logs and artifacts in the UI: `.venv/bin/prefect server start` in another terminal, then\n"
            "  `PREFECT_API_URL=http://127.0.0.1:4200/api make demo` and open http://127.0.0.1:4200/runs")


def demo(
    retrieve_limit: int = typer.Option(0, min=0, help="at most this many claims get documents (0: all)"),
    data_dir: Optional[Path] = typer.Option(None, help="where the demo's warehouse and files go (default: "
                                            "<data_dir>/demo, under the configured data directory, so that "
                                            "invented claims never mix with real ones)"),
) -> None:
    """Run every stage on the offline demo world, then print the dataset and model tables."""
    configured = settings()
    demo_dir = data_dir or configured.data_dir / "demo"
    demo_dir.mkdir(parents=True, exist_ok=True)  # a file there or above it is named now, not after Prefect started
    environment = demo_environment(demo_dir)
    with environment_overridden(environment):
        _run_demo(retrieve_limit, reopen_prefix(environment, configured))


def _run_demo(retrieve_limit: int, env: str) -> None:
    """The demo itself, with the settings pointing at its own places; ``env`` is the prefix that opens
    its warehouse from a later command."""
    s = settings()
    built_snapshots()  # snapshots/ holding other files is named now, not as a failed flow
    from snapshots.demo.flow import arastance_demo

    console.print("AraStance demo: crawl, select, retrieve, annotate (simulated), build, train", style="bold")
    state = arastance_demo(retrieve_limit=retrieve_limit or None, return_state=True)
    result = state.result()
    print_table(stage_rows(result["stages"]), title="Pipeline stages")
    with open_published(s.warehouse) as wh:
        print_table(source_stats(wh), title="Dataset: claims, articles and stances per source")
        print_table(split_label_counts(wh), title="Dataset: labels per split")
        runs = [r for r in model_runs(wh) if r["status"] == "succeeded"]
        if runs:
            results = [{k: v for k, v in row.items() if k not in ("model", "dataset")}
                       for row in run_results(wh, runs[0]["run_id"])]
            print_table(results, title=f"Stance model {runs[0]['model_name']} on the demo dataset")
    console.print(
        f"\nWarehouse: {s.warehouse.resolve()}\n"
        f"  SQL:       {env} .venv/bin/arastance sql \"SELECT * FROM v_source_stats\"\n"
        f"  Python:    duckdb.connect('{published_path(s.warehouse)}', read_only=True).sql('SELECT * FROM claims LIMIT 5')\n"
        f"  CLI:       .venv/bin/duckdb -readonly {published_path(s.warehouse)}\n"
        f"  Notebooks: {env} .venv/bin/arastance notebooks   (JupyterLab on notebooks/, this warehouse)\n"
        f"Dataset export: {s.dataset_dir.resolve()}\n"
        f"{prefect_hint(state.state_details.flow_run_id)}",
        soft_wrap=True,
    )


def register(app: typer.Typer) -> None:
    app.command("demo")(demo)
