"""``arastance select-true-claims`` and ``arastance selection-runs``: true-claim selection."""

from __future__ import annotations

import typer
from pydantic import ValidationError

from arastance.cli.common import console, fail, print_table, require_stdout, settings
from warehouse import WarehouseError, open_report
from warehouse.selection import selected_true_claims, selection_runs


def select_true_claims(
    window_months: int | None = typer.Option(None, help="months before and after a seed's date; default: setting selection.window_months"),
    top_k: int | None = typer.Option(None, help="headlines kept per seed at most; default: setting selection.top_k"),
    min_similarity: float | None = typer.Option(None, help="lowest cosine similarity kept; default: setting selection.min_similarity"),
    analyzer: str | None = typer.Option(None, help="'word' or 'char' n-grams; default: setting selection.analyzer"),
    undated_policy: str | None = typer.Option(
        None, help="'exclude' undated claims (recorded) or 'ignore_window'; default: setting selection.undated_policy"
    ),
    sample_size: int | None = typer.Option(None, help="seeds drawn at random, 0 = all; default: setting selection.sample_size"),
    seed: int | None = typer.Option(None, help="random seed of the sample; default: setting selection.seed"),
) -> None:
    """Choose Reuters headlines (true claims) near each false claim in time and topic, as a Prefect flow."""
    s = settings()
    try:
        s.selection.with_overrides(
            window_months=window_months, top_k=top_k, min_similarity=min_similarity, analyzer=analyzer,
            undated_policy=undated_policy, sample_size=sample_size, seed=seed,
        )
    except ValidationError as exc:
        fail("; ".join(f"invalid option --{'-'.join(map(str, e['loc'])).replace('_', '-')}: {e['msg']} "
                       f"(got {e.get('input')!r})" for e in exc.errors()))
    from flows.select_true_claims import select_true_claims as flow  # Prefect loads only when needed

    try:
        summary = flow(
            window_months=window_months, top_k=top_k, min_similarity=min_similarity, analyzer=analyzer,
            undated_policy=undated_policy, sample_size=sample_size, seed=seed, warehouse_path=str(s.warehouse),
        )
    except (ValueError, WarehouseError) as exc:
        fail(str(exc))
    excluded = summary.pop("excluded")
    print_table([{"figure": k, "value": v} for k, v in summary.items()], title="True-claim selection")
    print_table([{"excluded": k, "claims": v} for k, v in excluded.items()], title="Left out (role:reason)")
    if not summary["new_run"]:
        console.print("same claims and settings as a stored run: nothing added")


def list_selection_runs(
    limit: int = typer.Option(20, min=1, help="runs to show"),
    headlines: bool = typer.Option(False, "--headlines", help="also list the chosen headlines"),
) -> None:
    """Show the stored selection runs (newest first) and, with --headlines, the chosen headlines."""
    require_stdout()
    s = settings()
    try:
        with open_report(s.warehouse) as wh:
            runs = selection_runs(wh, limit)
            chosen = selected_true_claims(wh, limit) if headlines else []
    except WarehouseError as exc:
        fail(str(exc))
    print_table(runs, title="Selection runs", columns=[
        "run_id", "started_at", "seeds_used", "seeds_matched", "headlines_eligible",
        "selected_headlines", "matches", "excluded",
    ])
    if headlines:
        print_table(chosen, title="Chosen headlines")


def register(app: typer.Typer) -> None:
    app.command("select-true-claims")(select_true_claims)
    app.command("selection-runs")(list_selection_runs)
