"""The DuckDB claim warehouse: schema migrations, SQL and a small typed access layer.

Only load tasks write here (a single writer); spiders and fetchers write JSON Lines staging
files instead. Writers open it with :func:`open_warehouse`; readers open the published
read-only copy with :func:`open_published`, which no writer ever locks (reports with
:func:`open_report`, which also checks that its schema is this installation's).
"""

from warehouse.connection import Warehouse, WarehouseBusyError, WarehouseError, flow_warehouse, open_warehouse
from warehouse.publish import open_published, open_report, publish, published_path

__all__ = [
    "Warehouse",
    "WarehouseBusyError",
    "WarehouseError",
    "flow_warehouse",
    "open_published",
    "open_report",
    "open_warehouse",
    "publish",
    "published_path",
]
