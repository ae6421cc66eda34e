"""The one settings object, its sources and its error messages."""

from __future__ import annotations

import os
from pathlib import Path
from typing import Any

from pydantic import Field, SecretStr, ValidationError, model_validator
from pydantic_settings import (
    BaseSettings,
    PydanticBaseSettingsSource,
    SettingsConfigDict,
    TomlConfigSettingsSource,
)

from arastance.config.annotation import AnnotationSettings
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

    @model_validator(mode="after")
    def _derive_paths(self) -> "Settings":
        if self.warehouse_path is None:
            self.warehouse_path = self.data_dir / "warehouse.duckdb"
        if self.log_level.upper() not in {"DEBUG", "INFO", "WARNING", "ERROR", "CRITICAL"}:
            raise ValueError(f"log_level must be DEBUG, INFO, WARNING, ERROR or CRITICAL, not {self.log_level!r}")
        self.log_level = self.log_level.upper()
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


def load_settings(**overrides: Any) -> Settings:
    """Build the settings, turning validation errors into one readable :class:`SettingsError`."""
    toml_path = Path(os.environ.get(CONFIG_FILE_ENV, DEFAULT_CONFIG_FILE))
    if CONFIG_FILE_ENV in os.environ and not toml_path.is_file():
        raise SettingsError(f"config file {toml_path} named by {CONFIG_FILE_ENV} does not exist")
    try:
        return Settings(**overrides)
    except ValidationError as exc:
        lines = [
            f"invalid setting {_setting_name(err['loc'])}: {err['msg']} (got {err.get('input')!r})"
            for err in exc.errors()
        ]
        raise SettingsError("\n".join(lines)) from None
    except ValueError as exc:  # e.g. a TOML syntax error
        raise SettingsError(f"cannot read settings from {toml_path}: {exc}") from None


def masked_settings(settings: Settings) -> dict[str, Any]:
    """The effective settings as plain data, every secret replaced by ``'****'``."""

    def mask(value: Any) -> Any:
        if isinstance(value, SecretStr):
            return "****"
        if isinstance(value, dict):
            return {k: mask(v) for k, v in value.items()}
        if isinstance(value, (list, tuple)):
            return [mask(v) for v in value]
        if isinstance(value, Path):
            return str(value)
        return value if isinstance(value, (str, int, float, bool, type(None))) else str(value)

    return mask(settings.model_dump())
