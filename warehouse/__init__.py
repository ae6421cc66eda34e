"""The DuckDB claim warehouse: schema migrations, SQL and a small typed access layer.

Only load tasks write here (a single writer); spiders and fetchers write JSON Lines staging
files instead. Open it with :func:`open_warehouse`.
"""

from warehouse.connection import Warehouse, WarehouseBusyError, WarehouseError, open_warehouse
from warehouse.ids import content_hash, stable_id

__all__ = [
    "Warehouse",
    "WarehouseBusyError",
    "WarehouseError",
    "content_hash",
    "open_warehouse",
    "stable_id",
]
