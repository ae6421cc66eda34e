"""The one settings object, its sources and its error messages."""

from __future__ import annotations

import json
import os
import re
from pathlib import Path
from typing import Any, Literal, get_args, get_origin

from pydantic import BaseModel, Field, SecretStr, ValidationError, ValidationInfo, field_validator, model_validator
from pydantic_settings import (
    BaseSettings,
    PydanticBaseSettingsSource,
    SettingsConfigDict,
    TomlConfigSettingsSource,
)

from arastance.base.input_paths import not_a_directory, not_a_file
from arastance.base.secrets import REDACTED, hide_url_passwords, register_secrets, url_passwords
from arastance.base.text_files import read_utf8
from arastance.config.annotation import AnnotationSettings
from arastance.config.base import refuse_empty_path
from arastance.config.crawl import CrawlSettings
from arastance.config.model import ModelSettings
from arastance.config.nlp import NlpSettings
from arastance.config.orchestration import OrchestrationSettings
from arastance.config.period import PeriodSettings
from arastance.config.search import SearchSettings
from arastance.config.selection import SelectionSettings
from arastance.config.sites import SitesSettings

ENV_PREFIX = "ARASTANCE_"
CONFIG_FILE_ENV = "ARASTANCE_CONFIG"
DEFAULT_CONFIG_FILE = "arastance.toml"


#: The least ``warehouse_memory_limit`` accepted: ``arastance demo`` runs every stage within it (by hand,
#: 2026-12-05), and ``dataset export`` of long texts too (``tests/test_dataset_export_memory.py``).
MIN_WAREHOUSE_MEMORY = 128 * 1000**2

#: DuckDB's own spelling: ASCII digits and spaces only (Python's \d and \s would also match '٤' and a no-break space).
_MEMORY_SIZE = re.compile(r" *(\d+(?:\.\d*)?|\.\d+) *([KMGT])(i?)B *", re.IGNORECASE | re.ASCII)


def memory_bytes(size: str) -> int | None:
    """Bytes in ``size`` written as DuckDB's ``memory_limit`` takes it ('4GB', '512 MiB'), or None
    for anything else (DuckDB also takes forms this refuses: '4G', '100 bytes')."""
    match = _MEMORY_SIZE.fullmatch(size)
    if match is None:
        return None
    number, prefix, binary = match.groups()
    return int(float(number) * (1024 if binary else 1000) ** ("KMGT".index(prefix.upper()) + 1))


class SettingsError(ValueError):
    """Raised at start-up when a setting is invalid; the message names each bad setting."""


class Settings(BaseSettings):
    """Everything a run needs to know, validated before any work starts."""

    model_config = SettingsConfigDict(
        env_prefix=ENV_PREFIX,
        env_nested_delimiter="__",
        extra="forbid",
        validate_default=True,
    )

    data_dir: Path = Path("data")
    warehouse_path: Path | None = Field(
        default=None, description="DuckDB file; defaults to <data_dir>/warehouse.duckdb"
    )
    warehouse_backend: Literal["duckdb", "ducklake"] = Field(
        default="duckdb",
        description="duckdb: one DuckDB file on this machine; ducklake: a DuckLake with a PostgreSQL catalog "
        "and Parquet data on shared storage, for writers on several hosts",
    )
    warehouse_catalog_url: SecretStr | None = Field(
        default=None,
        description="the DuckLake catalog, 'postgres:dbname=... host=... user=... [password=...]' (ducklake only)",
    )
    warehouse_data_path: str | None = Field(
        default=None,
        description="where the DuckLake's Parquet files live, shared by every host (a directory or an object store URL)",
    )
    warehouse_write_wait_s: float = Field(
        default=600.0, gt=0,
        description="how long a DuckLake writer waits for another process's write transaction before failing, and "
        "training, evaluation and experiments wait for the warehouse file's writer (a dataset build) before reading its gold data",
    )
    warehouse_memory_limit: str | None = Field(
        default=None,
        description="the most memory DuckDB's buffers and cache take for the warehouse in each process that opens "
        "it (a flow, a Dask worker, `arastance sql`), e.g. '4GB' or '512MiB', at least 128MB; beyond it DuckDB "
        "spills to its temporary directory. Default: DuckDB's own, 80% of the machine's memory in every such process",
    )
    log_level: str = "INFO"
    sites: SitesSettings = SitesSettings()
    crawl: CrawlSettings = CrawlSettings()
    period: PeriodSettings = PeriodSettings()
    selection: SelectionSettings = SelectionSettings()
    search: SearchSettings = SearchSettings()
    nlp: NlpSettings = NlpSettings()
    annotation: AnnotationSettings = AnnotationSettings()
    model: ModelSettings = ModelSettings()
    orchestration: OrchestrationSettings = OrchestrationSettings()

    _no_empty_path = field_validator("*", mode="before")(refuse_empty_path)

    @field_validator("log_level")
    @classmethod
    def _known_level(cls, value: str) -> str:
        if value.upper() not in {"DEBUG", "INFO", "WARNING", "ERROR", "CRITICAL"}:
            raise ValueError(f"log_level must be DEBUG, INFO, WARNING, ERROR or CRITICAL, not {value!r}")
        return value.upper()

    @field_validator("data_dir")
    @classmethod
    def _a_directory(cls, value: Path) -> Path:
        # every command writes under it: a file there failed later, naming a path under it that does not exist
        blocker = not_a_directory(value)
        if blocker is not None:
            raise ValueError(f"{str(value)!r} {blocker}; the data directory is one, or is made where nothing is yet")
        return value

    @field_validator("warehouse_catalog_url")
    @classmethod
    def _postgres_catalog(cls, value: SecretStr | None, info: ValidationInfo) -> SecretStr | None:
        if info.data.get("warehouse_backend") != "ducklake":
            return value
        if value is None or not value.get_secret_value().strip():
            raise ValueError("required when warehouse_backend is ducklake: the PostgreSQL catalog, "
                             "e.g. 'postgres:dbname=arastance host=db.example user=arastance'")
        if not value.get_secret_value().startswith("postgres:"):
            raise ValueError("must start with 'postgres:' (the catalog is a PostgreSQL database, which serialises "
                             "the writers of every host), e.g. 'postgres:dbname=arastance host=db.example'")
        return value

    @field_validator("warehouse_data_path")
    @classmethod
    def _shared_data_path(cls, value: str | None, info: ValidationInfo) -> str | None:
        if info.data.get("warehouse_backend") == "ducklake" and not (value or "").strip():
            raise ValueError("required when warehouse_backend is ducklake: the shared directory (or object store "
                             "URL) every host reads and writes the Parquet files in")
        return value

    @field_validator("warehouse_memory_limit")
    @classmethod
    def _memory_size(cls, value: str | None) -> str | None:
        # at start-up: checked when the warehouse opens, a flow would stop on it only after its crawl
        if value is None:
            return None
        size = memory_bytes(value)
        if size is None:
            raise ValueError(f"{value!r} is not a size: a number and one of KB, MB, GB, TB (powers of 1000) or KiB, "
                             "MiB, GiB, TiB (powers of 1024), e.g. '4GB'")
        if size < MIN_WAREHOUSE_MEMORY:
            raise ValueError(f"{value!r} is below 128MB, the least the whole demo is known to run in (below it "
                             "DuckDB may stop a stage with 'Out of Memory Error')")
        import duckdb  # only where a limit is set: the size may still be beyond what DuckDB can hold

        try:
            duckdb.connect().execute(f"SET memory_limit = '{value}'").close()
        except duckdb.Error as exc:
            raise ValueError(f"{value!r} is refused by DuckDB: {exc}") from None
        return value.strip(" ")

    @model_validator(mode="after")
    def _derive_paths(self) -> "Settings":
        if self.warehouse_path is None:
            self.warehouse_path = self.data_dir / "warehouse.duckdb"
        return self

    @property
    def warehouse(self) -> Path:
        """The warehouse file, always set after validation."""
        assert self.warehouse_path is not None
        return self.warehouse_path

    @property
    def staging_dir(self) -> Path:
        """Where spiders and fetchers write JSON Lines for the load tasks."""
        return self.data_dir / "staging"

    # Every derived path lives here, so that a setting such as annotation.tasks_dir is honoured
    # by every stage that reads or writes the place it names.
    @property
    def annotation_dir(self) -> Path:
        """Task files for annotators and their returned exports (``annotation.tasks_dir``)."""
        return self.annotation.tasks_dir or self.data_dir / "annotation"

    @property
    def dataset_dir(self) -> Path:
        """The exported dataset (``annotation.export_dir``)."""
        return self.annotation.export_dir or self.data_dir / "dataset"

    @property
    def models_dir(self) -> Path:
        """Trained stance models (``model.models_dir``)."""
        return self.model.models_dir or self.data_dir / "models"

    @property
    def embedding_cache(self) -> Path:
        """The SQLite cache of e5 embeddings (``model.embedding_cache``)."""
        return self.model.embedding_cache or self.data_dir / "cache" / "e5.sqlite"

    @property
    def arastance_download_dir(self) -> Path:
        """Where ``arastance models download-arastance`` puts the official AraStance files."""
        return self.data_dir / "datasets" / "arastance"

    @property
    def search_index_dir(self) -> Path:
        """The local search backend's index (``search.index_dir``)."""
        return self.search.index_dir or self.data_dir / "search_index"

    @property
    def snapshots_dir(self) -> Path:
        """The offline snapshots of the invented web."""
        return self.data_dir / "snapshots"

    @property
    def crawl_jobs_dir(self) -> Path:
        """Scrapy JOBDIR state of resumable crawls."""
        return self.data_dir / "crawl_jobs"

    @property
    def logs_dir(self) -> Path:
        """Log files of child processes (one per crawl run)."""
        return self.data_dir / "logs"

    @property
    def experiments_dir(self) -> Path:
        """Tables and figures of the model experiments."""
        return self.data_dir / "experiments"

    @classmethod
    def settings_customise_sources(
        cls,
        settings_cls: type[BaseSettings],
        init_settings: PydanticBaseSettingsSource,
        env_settings: PydanticBaseSettingsSource,
        dotenv_settings: PydanticBaseSettingsSource,
        file_secret_settings: PydanticBaseSettingsSource,
    ) -> tuple[PydanticBaseSettingsSource, ...]:
        toml_path = Path(os.environ.get(CONFIG_FILE_ENV, DEFAULT_CONFIG_FILE))
        return (
            init_settings,
            env_settings,
            TomlConfigSettingsSource(settings_cls, toml_file=toml_path),
        )


def _setting_name(loc: tuple[Any, ...]) -> str:
    dotted = ".".join(str(part) for part in loc)
    env = ENV_PREFIX + "__".join(str(part) for part in loc).upper()
    return f"{dotted} ({env})"


_SECRET_NAME = re.compile(r"key|token|secret|password|credential", re.IGNORECASE)


def _field_at(loc: tuple[Any, ...]) -> Any:
    """The pydantic field a validation error's location points at, or None."""
    model: Any = Settings
    found = None
    for part in loc:
        fields = getattr(model, "model_fields", None)
        if not fields or part not in fields:
            return found if isinstance(part, int) else None
        found = fields[part]
        model = found.annotation
        args = [a for a in get_args(model) if isinstance(a, type) and issubclass(a, BaseModel)]
        model = args[0] if args else model
    return found


#: ``user:password@`` in a value that is no valid URL (``op:secret@host``, ``http//op:secret@host``), which
#: the URL form of :func:`hide_url_passwords` does not see: a rejected URL setting was echoed with it. A
#: password may hold an unencoded "/" (generated ones do), "@", quotes and spaces, so it runs to the line's
#: last "@", where the host begins (it stopped at the first "@", space or quote: ``op:****@cret@host`` and
#: ``op:pa ss@host`` showed it); it starts with no space, so that a message's "setting: ..." is no user. A
#: user may hold an "@" (an e-mail address); ``mailto:`` is an address, not a user.
_USERINFO = re.compile(r"(?<![^\s'\"(/@])(?!mailto:)([^\s/@:'\"]+):(?!//)(?!\s).*@")


def _shown_input(loc: tuple[Any, ...], value: Any) -> str:
    """The rejected value, when it is safe to echo: a scalar of a setting that is not a secret.

    A validation error's input can be a whole settings group (an error raised by a model
    validator gets every input, keys included) or the secret itself; neither is ever shown.
    """
    field = _field_at(loc)
    if field is None or any(_SECRET_NAME.search(str(part)) for part in loc):
        return ""
    if SecretStr in (field.annotation, *get_args(field.annotation)):
        return ""
    if isinstance(value, (str, int, float, bool)) and len(str(value)) <= 200:
        return f" (got {value!r})"
    return ""


def _error_line(err: Any) -> str:
    """One validation error as a line; a text value is not repeated where the message quotes it already.

    A URL's password is hidden in the whole line (a validator's message may quote the URL too), also
    where the value is no valid URL (``op:secret@host``).
    """
    shown = _shown_input(err["loc"], err.get("input"))
    if shown and isinstance(err.get("input"), str) and repr(err["input"]) in err["msg"]:
        shown = ""
    line = hide_url_passwords(f"invalid setting {_setting_name(err['loc'])}: {err['msg']}{shown}")
    return _USERINFO.sub(lambda m: f"{m[1]}:{REDACTED}@", line)


def load_settings(**overrides: Any) -> Settings:
    """Build the settings, turning validation errors into one readable :class:`SettingsError`.

    No message echoes a secret: rejected values are shown only for scalar, non-secret settings, and
    with any URL's password hidden.
    """
    toml_path = Path(os.environ.get(CONFIG_FILE_ENV, DEFAULT_CONFIG_FILE))
    if CONFIG_FILE_ENV in os.environ and not toml_path.is_file():
        raise SettingsError(f"config file {toml_path} named by {CONFIG_FILE_ENV} {not_a_file(toml_path)}")
    if toml_path.is_file():
        read_utf8(toml_path, SettingsError)  # an encoding problem names the file and line
    try:
        settings = Settings(**overrides)
    except ValidationError as exc:
        raise SettingsError("\n".join(_error_line(err) for err in exc.errors())) from None
    except SettingsError:
        raise
    except ValueError as exc:  # a TOML syntax error, or an environment value that is not JSON
        raise SettingsError(_source_problem(str(exc), toml_path)) from None
    register_secrets(_secret_values(settings))
    return settings


def _secret_values(value: Any) -> list[str]:
    """Every SecretStr value in the settings, unwrapped, and every URL's password (for the log redactor only).

    Walks the dumped settings, so that extra fields (``sites.<site>``) are seen as well as declared ones.
    """
    if isinstance(value, BaseModel):
        return _secret_values(value.model_dump())
    if isinstance(value, SecretStr):
        return [value.get_secret_value()]
    if isinstance(value, dict):
        return [s for v in value.values() for s in _secret_values(v)]
    if isinstance(value, (list, tuple, set)):
        return [s for v in value for s in _secret_values(v)]
    return [] if value is None else url_passwords(str(value))


def _source_problem(message: str, toml_path: Path) -> str:
    """Blame the right source: pydantic-settings says 'error parsing value for field "search" from
    source "EnvSettingsSource"' when a list- or dict-valued environment variable is not JSON."""
    m = re.search(r'error parsing value for field "([^"]+)" from source "(\w+)"', message)
    if not (m and m.group(2).startswith("Env")):
        return f"cannot read settings from {toml_path}: {message}"
    prefix = ENV_PREFIX + m.group(1).upper()
    for name, value in sorted(os.environ.items()):
        if not name.startswith(prefix):
            continue
        field = _field_at(tuple(name[len(ENV_PREFIX):].lower().split("__")))
        if field is None or get_origin(field.annotation) not in (list, dict, set, tuple):
            continue
        try:
            json.loads(value)
        except ValueError:
            return (f"invalid setting {name[len(ENV_PREFIX):].lower().replace('__', '.')} (environment variable "
                    f"{name}): a list or table must be written as JSON, e.g. [\"a.com\", \"b.com\"]")
    return f"invalid setting {m.group(1)}: an environment variable {prefix}* is not valid JSON"


def masked_settings(settings: Settings) -> dict[str, Any]:
    """The effective settings as plain data, every secret replaced by ``'****'``, and so is the
    password of every URL (``https://user:****@host/``), whichever setting holds it."""

    def mask(value: Any) -> Any:
        if isinstance(value, SecretStr):
            return "****"
        if isinstance(value, dict):
            return {k: mask(v) for k, v in value.items()}
        if isinstance(value, (list, tuple)):
            return [mask(v) for v in value]
        if isinstance(value, (int, float, bool, type(None))):
            return value
        return hide_url_passwords(str(value))

    return mask(settings.model_dump())
