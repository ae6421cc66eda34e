"""``arastance demo``: the whole pipeline on embedded defaults (offline snapshots, local index)."""

from __future__ import annotations

import os
from pathlib import Path

import typer

from arastance.cli.common import console, print_table, settings
from warehouse import open_warehouse
from warehouse.model_runs import model_runs, run_results
from warehouse.stats import source_stats, split_label_counts


def demo(
    retrieve_limit: int = typer.Option(0, help="at most this many claims get documents (0: all)"),
    data_dir: Path = typer.Option(Path("data/demo"), help="where the demo's warehouse and files go; kept apart "
                                  "from the configured data directory so invented claims never mix with real ones"),
) -> None:
    """Run every stage on the offline demo world, then print the dataset and model tables."""
    # A loaded 2-core machine can take longer than Prefect's default to start its temporary server.
    os.environ.setdefault("PREFECT_SERVER_EPHEMERAL_STARTUP_TIMEOUT_SECONDS", "180")
    os.environ["ARASTANCE_DATA_DIR"] = str(data_dir)
    os.environ["ARASTANCE_WAREHOUSE_PATH"] = str(data_dir / "warehouse.duckdb")
    s = settings()
    from flows.demo import arastance_demo

    console.rule("AraStance demo: crawl, select, retrieve, annotate (simulated), build, train")
    result = arastance_demo(retrieve_limit=retrieve_limit or None)
    print_table(result["stages"], title="Pipeline stages")
    with open_warehouse(s.warehouse, read_only=True) as wh:
        print_table(source_stats(wh), title="Dataset: claims, articles and stances per source")
        print_table(split_label_counts(wh), title="Dataset: labels per split")
        runs = [r for r in model_runs(wh) if r["status"] == "succeeded"]
        if runs:
            results = [{k: v for k, v in row.items() if k not in ("model", "dataset")}
                       for row in run_results(wh, runs[0]["run_id"])]
            print_table(results, title=f"Stance model {runs[0]['model_name']} on the demo dataset")
    console.print(
        f"\nWarehouse: {s.warehouse.resolve()}\n"
        f"  SQL:     ARASTANCE_DATA_DIR={data_dir} .venv/bin/arastance sql \"SELECT * FROM v_source_stats\"\n"
        f"  Python:  duckdb.connect('{s.warehouse}', read_only=True).sql('SELECT * FROM claims LIMIT 5')\n"
        f"  Notebooks: ARASTANCE_DATA_DIR={data_dir} jupytext --to ipynb notebooks/*.py, then open them\n"
        f"Dataset export: {(s.data_dir / 'dataset').resolve()}\n"
        "Prefect runs and artifacts (tables, reports, confusion matrices): run `.venv/bin/prefect server start`\n"
        "  and open http://127.0.0.1:4200 (Runs, then Artifacts)."
    )


def register(app: typer.Typer) -> None:
    app.command("demo")(demo)
