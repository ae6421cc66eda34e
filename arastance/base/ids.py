"""Stable identifiers: the same natural key always gives the same id, in any process."""

import hashlib


def stable_id(*parts: object, length: int = 16) -> str:
    """Hash the natural key parts into a short hex id; ``None`` and ``''`` differ."""
    joined = "\x1f".join("\x00" if p is None else str(p) for p in parts)
    return hashlib.sha1(joined.encode("utf-8")).hexdigest()[:length]


def content_hash(data: str | bytes) -> str:
    """SHA-256 of a text or a body, for exact-duplicate detection."""
    raw = data.encode("utf-8") if isinstance(data, str) else data
    return hashlib.sha256(raw).hexdigest()
