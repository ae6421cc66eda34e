"""``arastance stats``: the dataset tables from the warehouse views."""

import typer

from arastance.cli.common import fail, print_table, require_stdout, settings
from warehouse import WarehouseError, open_report
from warehouse.stats import left_out_claims, paper_table3, paper_table4, source_stats, split_label_counts


def stats(
    paper: bool = typer.Option(False, "--paper", help="print Tables 3 and 4 exactly as the paper lays them out"),
) -> None:
    """Print the per-source table (method's layout), the per-split label counts and the claims left out."""
    require_stdout()
    s = settings()
    try:
        with open_report(s.warehouse) as wh:
            if paper:
                print_table(paper_table3(wh), title="Table 3: claims, articles (claim-article pairs) and stances per source")
                print_table(paper_table4(wh), title="Table 4: claims, articles and stances per split")
                return
            print_table(source_stats(wh), title="Claims, articles and stances per source")
            print_table(split_label_counts(wh), title="Labels per split")
            print_table(left_out_claims(wh), title="Claims left out (every document unrelated; a near-duplicate in another split)")
    except WarehouseError as exc:
        fail(str(exc))


def register(app: typer.Typer) -> None:
    app.command("stats")(stats)
