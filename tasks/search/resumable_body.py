"""A large file's body over HTTP, picked up where it stopped when the connection drops.

WARC files are large (a CC-NEWS file is about 1 GB) and are streamed, never held whole, so a
connection that drops half-way through one used to lose the whole file. The servers of such
files (Common Crawl's ``data.commoncrawl.org``, S3, the Wayback Machine) answer Range requests,
so the rest is asked for with ``Range: bytes=<n>-``, and with ``If-Range`` set to the first
answer's strong ``ETag`` (else its ``Last-Modified``): a file that changed in between comes back
whole (HTTP 200) and is refused, never spliced onto the old one's start. The answer must be a
206 whose ``Content-Range`` starts at that byte and, where both are known, has the first
answer's size. A body that ends before that size is a drop too, and a 416 saying the file has
exactly the bytes read (and the size, if one was given) means the drop came after the last one.
Without a validator nothing could show that a rest belongs to the same file (a file replaced by
one of the same size would be spliced), so none is asked for. Bytes are
counted as they arrive on the wire (``iter_raw``), which is what ranges count too.
"""

from __future__ import annotations

import re
from collections.abc import Iterator

import httpx

from arastance.base.stopping import pause
from arastance.logging import get_logger

log = get_logger(__name__)

#: How many times a dropped connection is picked up before the file is given up.
RESUMES = 3
#: Seconds before the first resume; doubled before each next one.
RESUME_PAUSE_S = 1.0
#: What a connection that drops in the middle of a body raises.
DROPPED = (httpx.RemoteProtocolError, httpx.ReadError, httpx.ReadTimeout)
_CONTENT_RANGE = re.compile(r"bytes (\d+)-(\d+)/(\d+|\*)")


class BodyError(RuntimeError):
    """A body that could not be read whole; the message says why (the caller names the file)."""


def resumable_body(client: httpx.Client, url: str, *, resumes: int = RESUMES,
                   pause_s: float = RESUME_PAUSE_S) -> Iterator[bytes]:
    """The raw bytes of ``url``, resumed with Range requests up to ``resumes`` times.

    A drop is a connection that breaks (also while asking for the rest) or a body that ends before
    the size or range announced. A range of a file whose size is not known (``bytes a-b/*``) that
    came whole is followed by a request for what follows it, until a 416 says the file ends
    there. The first request's own failure (a wrong host) is raised as it is.
    """
    offset, validator, size, drops = 0, None, None, 0
    while True:
        start, end = offset, None  # end: the byte after the last one a 206 says it holds
        try:
            with client.stream("GET", url, headers=_rest_headers(offset, validator)) as response:
                if offset == 0:
                    if response.status_code != 200:
                        raise BodyError(f"HTTP {response.status_code}")
                    validator, size = _validator(response), _length(response)
                elif _nothing_left(response, offset, size):
                    return
                else:
                    size, end = _check_rest(response, offset, size)
                for chunk in response.iter_raw():
                    offset += len(chunk)
                    yield chunk
            expected = size if size is not None else end
            if expected is not None and offset < expected:
                reason = f"the body ended at byte {offset} of {expected}"
            elif size is None and end is not None and offset > start:
                continue  # a range of a file of unknown size came whole: ask for what follows it
            else:
                return
        except httpx.TransportError as exc:
            if offset == 0 and drops == 0 and not isinstance(exc, DROPPED):
                raise
            reason = f"{type(exc).__name__}: {exc}"
        drops += 1
        if drops > resumes:
            raise BodyError(f"the connection dropped {drops} times, the last at byte {offset} ({reason})")
        if offset and validator is None:
            raise BodyError(f"the connection dropped at byte {offset} ({reason}), and the server gave no ETag or "
                            "Last-Modified to check that a rest would belong to the same file")
        log.warning("connection dropped; asking for the rest", extra={
            "url": url, "byte": offset, "error": reason, "resume": drops})
        pause(pause_s * 2 ** (drops - 1))


def _rest_headers(offset: int, validator: str | None) -> dict[str, str]:
    if offset == 0:
        return {}
    return {"Range": f"bytes={offset}-", **({"If-Range": validator} if validator else {})}


def _nothing_left(response: httpx.Response, offset: int, size: int | None) -> bool:
    """A 416 saying the file has exactly ``offset`` bytes, as the first answer's size (if any)
    said: the drop came after the last byte."""
    return (response.status_code == 416 and size in (None, offset)
            and response.headers.get("Content-Range", "").strip() == f"bytes */{offset}")


def _validator(response: httpx.Response) -> str | None:
    """What ``If-Range`` may carry: a strong ETag, else the Last-Modified date (RFC 9110, 13.1.5)."""
    etag = response.headers.get("ETag")
    if etag and not etag.startswith("W/"):
        return etag
    return response.headers.get("Last-Modified")


def _length(response: httpx.Response) -> int | None:
    raw = response.headers.get("Content-Length", "")
    return int(raw) if raw.isdigit() else None


def _check_rest(response: httpx.Response, offset: int, size: int | None) -> tuple[int | None, int]:
    """Refuse an answer that is not the rest of the same file from byte ``offset``; return the
    file's size as now known, and the byte after the last one this answer says it holds."""
    if response.status_code != 206:
        raise BodyError(f"the connection dropped at byte {offset}, and the request for the rest was answered "
                        f"with HTTP {response.status_code}, not 206: the server does not resume downloads or the "
                        "file changed; download it and index the local copy")
    match = _CONTENT_RANGE.fullmatch(response.headers.get("Content-Range", "").strip())
    total = None if match is None or match.group(3) == "*" else int(match.group(3))
    if match is None or int(match.group(1)) != offset or (size is not None and total is not None and total != size):
        raise BodyError(f"the connection dropped at byte {offset}, and the rest came back as "
                        f"Content-Range {response.headers.get('Content-Range')!r}, not from byte {offset} of "
                        f"{size if size is not None else 'the same'} bytes")
    return (size if total is None else total), int(match.group(2)) + 1
