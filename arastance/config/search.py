"""Document retrieval: search backend, its credentials and the document filter."""

import re
from pathlib import Path
from typing import Literal

from pydantic import Field, HttpUrl, SecretStr, field_validator

from arastance.base.urls import domain_of
from arastance.config.base import SettingsGroup

# Arabic news outlets (pan-Arab and national, covering the three fact-checking countries).
# Domains match themselves and their sub-domains ("arabic.cnn.com" matches "cnn.com").
ARABIC_NEWS_DOMAINS: list[str] = [
    "aljazeera.net", "alarabiya.net", "skynewsarabia.com", "bbc.com", "cnn.com", "rt.com",
    "france24.com", "dw.com", "independentarabia.com", "aawsat.com", "alquds.co.uk",
    "annahar.com", "alghad.com", "alaraby.co.uk", "asharqbusiness.com",
    # United Arab Emirates
    "albayan.ae", "alkhaleej.ae", "emaratalyoum.com", "alittihad.ae", "wam.ae", "24.ae",
    # Egypt
    "youm7.com", "ahram.org.eg", "almasryalyoum.com", "masrawy.com", "shorouknews.com",
    "elwatannews.com", "akhbarelyom.com", "elbalad.news", "alwafd.news",
    # Saudi Arabia
    "okaz.com.sa", "alriyadh.com", "sabq.org", "aleqt.com", "alwatan.com.sa", "spa.gov.sa",
    "almadina.com", "al-jazirah.com",
]

# News outlets whose articles made up earlier Arabic stance corpora: Reuters Arabic (the true
# claims of Baly et al. 2018) and the pan-Arab outlets whose headlines seeded Khouja (2020).
STANCE_DATASET_DOMAINS: list[str] = [
    "reuters.com", "aljazeera.net", "alarabiya.net", "bbc.com", "cnn.com", "rt.com",
    "skynewsarabia.com", "france24.com",
]


# A host name: dot-separated labels, no scheme, path, port, user or white space.
_HOST = re.compile(r"[^\s/\\:@?#.]+(?:\.[^\s/\\:@?#.]+)+")


def news_domain(entry: str) -> str:
    """A configured news domain in the form candidate documents' domains take
    (:func:`arastance.base.urls.domain_of`): lower case, without ``www.``/``m.``/``amp.``, so that
    ``www.youm7.com`` matches the articles of youm7.com instead of none."""
    host = entry.strip().lower().strip(".")
    if not _HOST.fullmatch(host):
        raise ValueError(f"news domain {entry!r} is not a host name; write the site's domain alone, e.g. youm7.com")
    return domain_of(f"https://{host}/")


class SearchSettings(SettingsGroup):
    """The offline default is the local BM25 index; web backends need a key."""

    backend: Literal["local", "google", "brave", "serpapi", "searxng"] = "local"
    google_api_key: SecretStr | None = None
    google_api_key_block: str | None = Field(
        default=None, description="name of a Prefect Secret block holding the Google key (wins over google_api_key)"
    )
    google_engine_id: str | None = None
    google_endpoint: HttpUrl = HttpUrl("https://www.googleapis.com/customsearch/v1")
    brave_api_key: SecretStr | None = None
    brave_api_key_block: str | None = Field(
        default=None, description="name of a Prefect Secret block holding the Brave key (wins over brave_api_key)"
    )
    brave_endpoint: HttpUrl = HttpUrl("https://api.search.brave.com/res/v1/web/search")
    serpapi_api_key: SecretStr | None = None
    serpapi_api_key_block: str | None = Field(
        default=None, description="name of a Prefect Secret block holding the SerpApi key (wins over serpapi_api_key)"
    )
    serpapi_endpoint: HttpUrl = HttpUrl("https://serpapi.com/search.json")
    searxng_url: HttpUrl | None = Field(
        default=None, description="a SearXNG instance's search endpoint, e.g. http://127.0.0.1:8888/search"
    )
    searxng_categories: str | None = Field(default="general", description="SearXNG categories (comma-separated)")
    searxng_engines: str | None = Field(default=None, description="SearXNG engines (comma-separated; default: the instance's)")
    searxng_api_key: SecretStr | None = Field(
        default=None, description="bearer token, only for an instance behind an authenticating proxy"
    )
    language: str = Field(default="ar", description="result language asked of the web backends")
    country: str | None = Field(
        default=None, description="two-letter country the results are localised to (SerpApi's gl), e.g. eg, sa, ae"
    )
    date_window_scope: Literal["dated_queries", "all", "off"] = Field(
        default="dated_queries",
        description="which kept documents must have a publication date inside the window: those a "
        "date-restricted query returned (the method's), every kept document (the claim's window), or none",
    )
    request_timeout_s: float = Field(default=20.0, gt=0, description="each read of an answer, and the whole answer")
    max_retries: int = Field(default=4, ge=0, le=20, description="retries after a 429 or 5xx answer")
    backoff_s: float = Field(default=1.0, ge=0, description="first retry delay, doubled each retry")
    max_backoff_s: float = Field(default=60.0, ge=0, description="longest wait, Retry-After included")
    min_request_interval_s: float = Field(
        default=0.0, ge=0, le=3600,
        description="least time between two requests to a web backend, across a run's worker threads or the worker "
                    "processes of its Dask LocalCluster, each in its turn (e.g. 1.1 for a plan of one request a second); "
                    "Brave's pace is also learned from its X-RateLimit headers. The workers of a scheduler at "
                    "orchestration.dask_address each keep it on their own: there, set the plan's interval times "
                    "the worker processes that search (a learned pace is theirs alone too)",
    )
    results_per_query: int = Field(default=10, ge=1, le=100)
    date_window_months: int = Field(default=2, ge=1, le=24)
    max_documents_per_claim: int = Field(default=10, ge=1, le=100)
    fetch_pool_per_claim: int = Field(
        default=20, ge=0, le=500,
        description="candidates fetched per claim so that the top max_documents_per_claim are chosen on their "
                    "article text (0: every candidate, as the method; failed fetches are replaced beyond it)",
    )
    daily_query_budget: int = Field(
        default=1000, ge=0,
        description="billed requests (pages) per UTC day and web backend: a query of results_per_query results is "
                    "one request per page (Google and SerpApi 10 results a page, Brave 20)",
    )
    index_dir: Path | None = Field(default=None, description="local BM25 index; defaults to <data_dir>/search_index")
    corpus_path: Path | None = Field(
        default=None, description="JSON Lines corpus (url,title,text,published_date,domain) for `arastance index build`"
    )
    news_domains: list[str] = Field(default_factory=lambda: list(ARABIC_NEWS_DOMAINS))
    stance_dataset_domains: list[str] = Field(default_factory=lambda: list(STANCE_DATASET_DOMAINS))
    mirror_base: HttpUrl | None = Field(
        default=None, description="offline mirror: https://<domain>/<path> is fetched from <mirror_base>mirror/<domain>/<path>"
    )
    min_arabic_ratio: float = Field(default=0.5, ge=0.0, le=1.0, description="share of Arabic letters an article needs")
    min_text_chars: int = Field(default=80, ge=0, description="shorter extracted text counts as empty")

    @field_validator("news_domains", "stance_dataset_domains")
    @classmethod
    def _bare_domains(cls, value: list[str]) -> list[str]:
        """Each entry as candidate domains are written (``www.youm7.com`` -> ``youm7.com``), once."""
        return list(dict.fromkeys(news_domain(d) for d in value))
