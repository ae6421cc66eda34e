"""Where a URL path (with or without a query string) lives in a built snapshot directory.

Shared by the renderers that write pages and the server that reads them: ``/a/b/`` is
``a/b/index.html``; percent-encoded segments (Arabic slugs) are stored decoded, as the server
decodes request paths; a page that exists only with a query string (``/news?page=2``) is
``news/index@page=2.html``, its parameters sorted.
"""

from __future__ import annotations

from pathlib import PurePosixPath
from urllib.parse import unquote


def query_file_key(query: str) -> str:
    """The file-name form of a query string: its parameters sorted, ``&``-joined, ``/`` made safe."""
    return "&".join(sorted(p for p in query.split("&") if p)).replace("/", "%2F")


def page_file(url_path: str) -> PurePosixPath:
    """The file, relative to a site's directory, that holds the page at ``url_path``."""
    path, _, query = url_path.partition("?")
    relative = unquote(path).lstrip("/")
    if query:
        return PurePosixPath(relative) / f"index@{query_file_key(query)}.html"
    if path.endswith("/") or not relative:
        return PurePosixPath(relative) / "index.html"
    return PurePosixPath(relative)
