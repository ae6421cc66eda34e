"""The DuckDB claim warehouse: schema migrations, SQL and a small typed access layer.

Only load tasks write here (a single writer); spiders and fetchers write JSON Lines staging
files instead. Open it with :func:`open_warehouse`.
"""

from warehouse.connection import Warehouse, WarehouseBusyError, WarehouseError, open_warehouse

__all__ = [
    "Warehouse",
    "WarehouseBusyError",
    "WarehouseError",
    "open_warehouse",
]
