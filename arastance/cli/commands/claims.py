"""``arastance claims``: load crawl staging runs, work the review queue, set overrides."""

from __future__ import annotations

from pathlib import Path

import typer

from arastance.base.staging import StagingError
from arastance.cli.common import console, fail, print_table, require_stdout, settings
from tasks.claim_cleaning import PatternConfigError
from tasks.claim_load.load import load_crawl_run
from tasks.claim_load.overrides import set_claim_override
from warehouse import WarehouseError, open_report, open_warehouse
from warehouse import claims as claims_db

claims_app = typer.Typer(help="Load crawled claims and review the ones the rules could not clean.", no_args_is_help=True)


@claims_app.command("load")
def load(
    run_dirs: list[Path] = typer.Argument(..., help="staging run directories (<data_dir>/staging/crawl/<run_id>)"),
) -> None:
    """Load crawl staging runs into the warehouse, each in one transaction (loading twice adds nothing)."""
    s = settings()
    reports = []
    try:
        with open_warehouse(s.warehouse) as wh:
            for run_dir in run_dirs:
                reports.append(load_crawl_run(wh, run_dir, settings=s))
    except (StagingError, PatternConfigError, WarehouseError) as exc:
        for report in reports:
            console.print(f"loaded {report.run_id} before the error")
        fail(str(exc))
    print_table([r.as_row() for r in reports], title="Crawl runs loaded")


@claims_app.command("review")
def review(
    source: str | None = typer.Option(None, help="only claims of this source, e.g. norumors"),
    limit: int = typer.Option(50, min=1, help="claims to list"),
    set_id: str | None = typer.Option(None, "--set", help="claim_id to override (with --text and --reviewer)"),
    text: str | None = typer.Option(None, help="the claim statement, as it should read"),
    reviewer: str | None = typer.Option(None, help="who decided (kept with the override)"),
    note: str | None = typer.Option(None, help="why, for the next reviewer"),
) -> None:
    """List the review queue, or with --set store a manual claim text that always wins over the rules."""
    s = settings()
    if set_id is not None:
        if not text or not reviewer:
            fail("--set needs --text (the claim statement) and --reviewer (your name)")
        try:
            with open_warehouse(s.warehouse) as wh:
                set_claim_override(wh, set_id, text, reviewer=reviewer, note=note)
        except (ValueError, WarehouseError) as exc:
            fail(str(exc))
        console.print(f"claim {set_id}: override stored; the claim is active with the reviewed text")
        return
    require_stdout()
    try:
        with open_report(s.warehouse) as wh:
            rows = claims_db.review_queue(wh, source_id=source, limit=limit)
    except (ValueError, WarehouseError) as exc:
        fail(str(exc))
    print_table(rows, title="Claims waiting for review", columns=["claim_id", "source_id", "reason", "raw_text", "cleaned_text", "url"])


@claims_app.command("overrides")
def overrides() -> None:
    """List the reviewers' overrides next to the rule output they replace."""
    require_stdout()
    s = settings()
    try:
        with open_report(s.warehouse) as wh:
            rows = claims_db.list_overrides(wh)
    except WarehouseError as exc:
        fail(str(exc))
    print_table(rows, title="Claim overrides")


def register(app: typer.Typer) -> None:
    app.add_typer(claims_app, name="claims")
