"""``arastance demo``: the whole pipeline on embedded defaults (offline snapshots, local index)."""

import typer

from arastance.cli.common import print_table, settings
from warehouse import open_warehouse


def demo() -> None:
    """Run the pipeline on the offline demo world and print what it produced."""
    s = settings()
    with open_warehouse(s.warehouse) as wh:
        counts = wh.table_counts()
    print(f"demo: warehouse {s.warehouse} is at the latest schema")
    print_table([{"table": t, "rows": n} for t, n in counts.items()], title="Warehouse tables")


def register(app: typer.Typer) -> None:
    app.command("demo")(demo)
