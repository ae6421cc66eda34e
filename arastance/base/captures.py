"""Capture addresses of the Wayback Machine, built and taken apart.

``<archive>/web/<timestamp>id_/<original>`` serves a capture's original bytes, without the
archive's toolbar or rewritten links: that is what spiders parse. Requests for a timestamp the
archive does not hold exactly are redirected to the nearest capture, so the timestamp of the
page actually parsed is read back from the final URL.
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from datetime import datetime, timezone
from urllib.parse import urlsplit, urlunsplit

_CAPTURE = re.compile(r"/web/(?P<ts>\d{4,14})(?P<flag>[a-z]{2}_)?/(?P<original>.+)$")


@dataclass(frozen=True)
class Capture:
    """One CDX row: when the archive saw ``original`` and what it got back."""

    timestamp: str
    original: str
    statuscode: str = "200"
    mimetype: str = "text/html"
    digest: str = ""

    @property
    def captured_at(self) -> datetime:
        """The capture moment (UTC); a short timestamp is padded as the archive does."""
        return capture_time(self.timestamp)


def capture_time(timestamp: str) -> datetime:
    """``20140709123000`` (or a prefix of it) as an aware UTC datetime."""
    padded = (timestamp + "00000101000000"[len(timestamp):])[:14] if len(timestamp) < 14 else timestamp[:14]
    return datetime.strptime(padded, "%Y%m%d%H%M%S").replace(tzinfo=timezone.utc)


def valid_timestamp(timestamp: object) -> bool:
    """A string of 4-14 digits that is a real moment (no month 13): what a capture address holds."""
    if not isinstance(timestamp, str) or not re.fullmatch(r"\d{4,14}", timestamp):
        return False
    try:
        capture_time(timestamp)
    except ValueError:
        return False
    return True


def capture_url(archive_url: str, timestamp: str, original: str) -> str:
    """The address of a capture's original bytes (``id_``)."""
    root = archive_url if archive_url.endswith("/") else archive_url + "/"
    return f"{root}web/{timestamp}id_/{original}"


def parse_capture_url(url: str) -> tuple[str, str] | None:
    """``(timestamp, original URL)`` of a capture address, or None when ``url`` is not one (its
    timestamp no real moment included: a server redirecting to ``/web/20151399999999id_/`` sent
    no capture).

    Clients and proxies sometimes fold the original's ``//`` into ``/``; it is restored.
    """
    match = _CAPTURE.search(urlsplit(url)._replace(query="", fragment="").geturl())
    if not match or not valid_timestamp(match["ts"]):
        return None
    original = match["original"]
    query = urlsplit(url).query
    if query:
        original += "?" + query
    original = re.sub(r"^(https?):/(?!/)", r"\1://", original)
    return match["ts"], original


def to_site_url(original: str, canonical_base: str) -> str:
    """``original`` on the site's canonical scheme and host (the archive keeps ``http://www.`` spellings)."""
    site = urlsplit(canonical_base)
    parts = urlsplit(original)
    host = (parts.hostname or "").lower()
    bare = host[4:] if host.startswith("www.") else host
    if bare != (site.hostname or "").lower().removeprefix("www."):
        return original
    return urlunsplit((site.scheme, site.netloc, parts.path or "/", parts.query, ""))
