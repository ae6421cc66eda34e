"""AraStance Pipeline: cross-cutting pieces (settings, logging, command line).

The stage logic lives in the top-level packages ``spiders`` (parsing), ``tasks`` (plain
functions), ``warehouse`` (DuckDB schema and SQL) and ``flows`` (Prefect orchestration).
"""

__version__ = "0.1.0"
