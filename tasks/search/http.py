"""JSON over HTTP for the web search APIs: backoff on 429/5xx, Retry-After, secrets kept out.

Both web clients send their key on every request (Google in the query string, Brave in a
header). httpx logs each request URL at INFO level, so a :class:`RedactSecrets` filter is put
on its loggers, and every error message built here goes through :func:`redact` too.
"""

from __future__ import annotations

import logging
import re
import time
from collections.abc import Callable, Iterable, Mapping
from dataclasses import dataclass, field
from email.utils import parsedate_to_datetime
from datetime import datetime, timezone
from typing import Any

import httpx
from pydantic import SecretStr

from arastance.logging import get_logger
from tasks.search.base import SearchAuthError, SearchError

log = get_logger(__name__)

REDACTED = "****"
_RETRY_STATUSES = {429, 500, 502, 503, 504}
# A 403 that reports a spent quota (Google: dailyLimitExceeded, quotaExceeded) is not a bad key.
_QUOTA = re.compile(r"limit|quota", re.IGNORECASE)


def quota_spent_403(status: int, reason: str) -> bool:
    """Google's rule: a 403 whose reason names a limit or quota means the quota is spent."""
    return status == 403 and bool(_QUOTA.search(reason))


def require_key(api_key: str | SecretStr, missing: str) -> SecretStr:
    """The key as a SecretStr (masked in reprs and tracebacks); an empty one is a SearchAuthError."""
    key = api_key if isinstance(api_key, SecretStr) else SecretStr(api_key or "")
    if not key.get_secret_value():
        raise SearchAuthError(missing)
    return key


def _plain(secret: str | SecretStr) -> str:
    return secret.get_secret_value() if isinstance(secret, SecretStr) else secret


def redact(text: str, secrets: Iterable[str | SecretStr]) -> str:
    """``text`` with every non-empty secret replaced by ``****``."""
    for secret in map(_plain, secrets):
        if secret:
            text = text.replace(secret, REDACTED)
    return text


class RedactSecrets(logging.Filter):
    """Rewrites log records so that a secret never reaches a handler (message and args)."""

    def __init__(self, secrets: Iterable[str | SecretStr]) -> None:
        super().__init__()
        self.secrets = [s for s in map(_plain, secrets) if s]

    def filter(self, record: logging.LogRecord) -> bool:
        message = record.getMessage()
        cleaned = redact(message, self.secrets)
        if cleaned != message:
            record.msg, record.args = cleaned, None
        return True


def guard_http_logs(secrets: Iterable[str | SecretStr]) -> None:
    """Attach one redacting filter per secret set to the loggers of httpx and httpcore."""
    wanted = [s for s in map(_plain, secrets) if s]
    if not wanted:
        return
    for name in ("httpx", "httpcore"):
        logger = logging.getLogger(name)
        if not any(isinstance(f, RedactSecrets) and f.secrets == wanted for f in logger.filters):
            logger.addFilter(RedactSecrets(wanted))


def retry_after_s(headers: Mapping[str, str], now: datetime | None = None) -> float | None:
    """Seconds the server asked us to wait: ``Retry-After`` (seconds or HTTP date), else
    Brave's ``X-RateLimit-Reset`` (seconds until each window resets; the first is per second)."""
    value = headers.get("retry-after")
    if value:
        value = value.strip()
        if value.isdigit():
            return float(value)
        try:
            when = parsedate_to_datetime(value)
        except (TypeError, ValueError):
            return None
        return max(0.0, (when - (now or datetime.now(timezone.utc))).total_seconds())
    reset = headers.get("x-ratelimit-reset")
    if reset:
        first = reset.split(",")[0].strip()
        try:
            return max(0.0, float(first))
        except ValueError:
            return None
    return None


def result_items(body: dict[str, Any], path: tuple[str, ...], backend: str, url_field: str) -> list[dict[str, Any]]:
    """The result objects at ``path`` of an API answer (absent means none), checked for shape.

    An answer of another shape (a changed API, a proxy's error page in JSON, a wrong endpoint)
    is a :class:`SearchError` naming the field, not an AttributeError deep in the client.
    """
    value: Any = body
    for depth, name in enumerate(path):
        if value is None:
            return []
        if not isinstance(value, dict):
            where = ".".join(path[:depth]) or "the answer"
            raise SearchError(f"{backend} search: unexpected answer: {where!r} is a {type(value).__name__}, expected an object")
        value = value.get(name)
    if value is None:
        return []
    field_name = ".".join(path)
    if not isinstance(value, list):
        raise SearchError(f"{backend} search: unexpected answer: {field_name!r} is a {type(value).__name__}, expected a list")
    for i, item in enumerate(value):
        if not isinstance(item, dict) or not isinstance(item.get(url_field, ""), (str, type(None))):
            raise SearchError(f"{backend} search: unexpected answer: {field_name}[{i}] is not a result object "
                              f"with a string {url_field!r}")
    return value


@dataclass
class JsonClient:
    """GETs JSON from one API with retries; ``describe_error`` turns an error body into text."""

    backend: str
    secrets: list[SecretStr]  # masked in this dataclass's repr; unwrapped only to redact
    describe_error: Callable[[httpx.Response], str]
    timeout_s: float = 20.0
    max_retries: int = 4
    backoff_s: float = 1.0
    max_backoff_s: float = 60.0
    #: (status, error text) -> the API's own quota is spent (an error, never retried, never an auth error)
    quota_spent: Callable[[int, str], bool] = quota_spent_403
    sleep: Callable[[float], None] = time.sleep
    client: httpx.Client = field(default_factory=lambda: httpx.Client(follow_redirects=True))

    def __post_init__(self) -> None:
        guard_http_logs(self.secrets)

    def _fail(self, message: str, cls: type[SearchError] = SearchError) -> SearchError:
        return cls(redact(f"{self.backend} search: {message}", self.secrets))

    def get(self, url: str, params: Mapping[str, Any], headers: Mapping[str, str] | None = None) -> dict[str, Any]:
        """The decoded JSON body of a successful GET; raises :class:`SearchError` otherwise."""
        attempt = 0
        while True:
            try:
                response = self.client.get(url, params=params, headers=headers, timeout=self.timeout_s)
            except httpx.HTTPError as exc:
                # httpx error texts can carry the request URL, hence the key: keep only the class.
                if attempt >= self.max_retries:
                    raise self._fail(f"request failed after {attempt + 1} attempt(s): {type(exc).__name__}") from None
                wait = min(self.max_backoff_s, self.backoff_s * 2**attempt)
            else:
                if response.status_code == 200:
                    try:
                        body = response.json()
                    except ValueError:
                        raise self._fail("the answer is not JSON") from None
                    if not isinstance(body, dict):
                        raise self._fail(f"unexpected answer: a JSON {type(body).__name__}, expected an object")
                    return body
                reason = self.describe_error(response)
                if self.quota_spent(response.status_code, reason):
                    raise self._fail(f"HTTP {response.status_code}, the API's own quota is spent: {reason}")
                if response.status_code in (401, 403):
                    raise self._fail(f"HTTP {response.status_code}: {reason}", SearchAuthError)
                if response.status_code not in _RETRY_STATUSES:
                    raise self._fail(f"HTTP {response.status_code}: {reason}")
                if attempt >= self.max_retries:
                    raise self._fail(f"HTTP {response.status_code} after {attempt + 1} attempt(s): {reason}")
                asked = retry_after_s(response.headers)
                wait = min(self.max_backoff_s, asked if asked is not None else self.backoff_s * 2**attempt)
                log.warning(
                    "search backend asked to slow down",
                    extra={"backend": self.backend, "status": response.status_code, "wait_s": round(wait, 2),
                           "attempt": attempt + 1},
                )
            attempt += 1
            self.sleep(wait)
