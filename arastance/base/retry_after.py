"""How long a server asked a client to wait before asking again (429 and 503 answers)."""

from __future__ import annotations

import math
import re
from collections.abc import Mapping
from datetime import datetime, timezone
from email.utils import parsedate_to_datetime


def _http_date(value: str) -> datetime | None:
    """An RFC 9110 HTTP-date (IMF-fixdate, RFC 850 or asctime) as an aware datetime; None when unreadable.

    The asctime form and a ``-0000`` zone parse naive, and an HTTP-date is always UTC: a naive
    date taken as is made the subtraction from an aware now a TypeError, which ended a retried
    search after one request. A malformed date (hour 99, a year or zone too large) is no hint.
    """
    try:
        when = parsedate_to_datetime(value)
    except (OverflowError, TypeError, ValueError):
        return None
    return when if when.tzinfo is not None else when.replace(tzinfo=timezone.utc)


def retry_after_s(headers: Mapping[str, str], now: datetime | None = None) -> float | None:
    """Seconds the server asked us to wait: ``Retry-After`` (seconds or HTTP date), else
    Brave's ``X-RateLimit-Reset`` (seconds until each window resets; the first is per second)."""
    value = headers.get("retry-after")
    if value:
        value = value.strip()
        if re.fullmatch(r"[0-9]+", value):  # ASCII digits: str.isdigit() also takes "²", which float() refuses
            return float(value)
        when = _http_date(value)
        return None if when is None else max(0.0, (when - (now or datetime.now(timezone.utc))).total_seconds())
    reset = headers.get("x-ratelimit-reset")
    if reset:
        first = reset.split(",")[0].strip()
        try:
            seconds = float(first)
        except ValueError:
            return None
        return max(0.0, seconds) if math.isfinite(seconds) else None  # "nan" and "inf" ask for nothing usable
    return None
