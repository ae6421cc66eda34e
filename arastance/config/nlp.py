"""Claim analysis: where Stanza's Arabic models live and whether to use them."""

from pathlib import Path
from typing import Literal
from urllib.parse import urlsplit

from pydantic import Field, field_validator

from arastance.config.base import SettingsGroup

# Stanza's own default; a mirror of the stanza-resources repository can be configured instead.
STANZA_RESOURCES_URL = "https://raw.githubusercontent.com/stanfordnlp/stanza-resources/main"


class NlpSettings(SettingsGroup):
    """``auto`` uses Stanza when its Arabic models are installed, the rule-based analyzer otherwise."""

    analyzer: Literal["auto", "stanza", "rules"] = "auto"
    stanza_dir: Path | None = Field(
        default=None,
        description="Stanza models directory; defaults to Stanza's own ($STANZA_RESOURCES_DIR or its cache)",
    )
    stanza_resources_url: str = Field(
        default=STANZA_RESOURCES_URL, description="where `arastance nlp download` finds Stanza's resources.json"
    )
    stanza_use_gpu: bool = Field(default=False, description="run the Stanza pipeline on a GPU when one is present")
    max_query_entities: int = Field(
        default=5, ge=0, le=20, description="named entities prepended to a query, first seen first"
    )
    min_cut_words: int = Field(
        default=2, ge=1, le=10, description="rule-based clause cut: words the kept prefix must have at least"
    )

    @field_validator("stanza_resources_url")
    @classmethod
    def _http_url(cls, value: str) -> str:
        """Stanza fetches resources.json over HTTP(S) only; anything else fails later, offline or not."""
        parts = urlsplit(value)
        if parts.scheme not in ("http", "https") or not parts.netloc:
            raise ValueError(f"must be an http(s) URL of a stanza-resources mirror, got {value!r}")
        return value
