"""Document retrieval: search backend, its credentials and the document filter."""

from typing import Literal

from pydantic import Field, HttpUrl, SecretStr

from arastance.config.base import SettingsGroup


class SearchSettings(SettingsGroup):
    """The offline default is the local BM25 index; web backends need a key."""

    backend: Literal["local", "google", "brave"] = "local"
    google_api_key: SecretStr | None = None
    google_engine_id: str | None = None
    google_endpoint: HttpUrl = HttpUrl("https://www.googleapis.com/customsearch/v1")
    brave_api_key: SecretStr | None = None
    brave_endpoint: HttpUrl = HttpUrl("https://api.search.brave.com/res/v1/web/search")
    results_per_query: int = Field(default=10, ge=1, le=100)
    date_window_months: int = Field(default=2, ge=1, le=24)
    max_documents_per_claim: int = Field(default=10, ge=1, le=100)
    daily_query_budget: int = Field(default=1000, ge=0)
