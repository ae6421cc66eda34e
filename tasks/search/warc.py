"""A historical news corpus from web-archive material (WARC files), for the local search index.

Much of 2012-2018's Arabic news is only in archives: Common Crawl's news crawl (CC-NEWS, WARC
files from 2016 on) and web-archive captures. Each WARC ``response`` record (HTTP 200, HTML) is
turned into a corpus record: its body is read in the charset its bytes are in, as the article
fetcher reads a page (:func:`arastance.base.page_text.page_text`, with the record's
``Content-Type``), and the article is extracted, its relative dates counted from the capture
time (by the ``extract`` function given: the command
line passes :func:`spiders.article_extraction.extract_article`, the fetcher's own extractor; tasks do not
import spiders), kept when its main text is long enough and mostly Arabic, and
when its *publication* date (from the page, never the capture date, which can be years later
for an archive capture) falls in the requested range. Captures of the same article are
deduplicated by canonical URL (the first capture's URL is kept, to be fetched) and by the hash of the normalised text (syndicated copies).

Sources are local paths or http(s) URLs (streamed, never held whole); WARC files are read with
``warcio`` (gzip per record or plain). Wayback-style target URIs
(``https://web.archive.org/web/<timestamp>id_/<original>``) are indexed under the original URL.
Files are extracted in parallel (one process per file, ``workers``); the parent deduplicates.
"""

from __future__ import annotations

import hashlib
import io
import os
import re
import zlib
from collections import Counter
from collections.abc import Iterable, Iterator
from contextlib import ExitStack, contextmanager
from dataclasses import dataclass, field
from datetime import date, datetime
from pathlib import Path
from typing import IO, Any, Protocol
from urllib.parse import urlsplit

import brotli
import httpx
from warcio.archiveiterator import ArchiveIterator
from warcio.bufferedreaders import BufferedReader, ChunkedDataReader
from warcio.exceptions import ArchiveLoadFailed

from arastance.base.arabic import arabic_ratio, normalize
from arastance.base.captures import capture_time, valid_timestamp
from arastance.base.input_paths import not_a_file
from arastance.base.page_text import page_text
from arastance.base.urls import UrlError, canonicalize_url, domain_of
from arastance.config.crawl import CrawlSettings
from arastance.logging import get_logger
from arastance.processes import worker_pool
from arastance.progress import track
from tasks.search.http import CodingCutShort, brotli_decoded
from tasks.search.local import CorpusRecord
from tasks.search.resumable_body import BodyError, resumable_body

log = get_logger(__name__)

SUPPORTED_LANGUAGES = ("ar",)
_WAYBACK = re.compile(r"^https?://[^/]+/web/\d{8,14}(?:[a-z]{2}_)?/(https?://.+)$", re.IGNORECASE)


class ExtractedPage(Protocol):
    """What the extractor returns for a page (as :class:`spiders.article_extraction.ExtractedArticle`)."""

    @property
    def title(self) -> str | None: ...

    @property
    def text(self) -> str: ...

    @property
    def published_date(self) -> date | None: ...


class Extractor(Protocol):
    """A page's decoded HTML -> its title, main text and publication date, relative dates counted
    from ``now``. Passed in, not imported: the fetcher's extractor lives in ``spiders`` and tasks
    do not import spiders (the command line wires :func:`spiders.article_extraction.extract_article`).
    A module-level function, so that worker processes can receive it."""

    def __call__(self, html: str, *, now: datetime | None = None) -> ExtractedPage: ...


#: The largest page a WARC record may hold, as stored and decoded: what the article fetcher
#: downloads (``crawl.max_page_mb``'s default). A 984-byte record of brotli decoded to 1 GiB.
MAX_PAGE_BYTES = int(CrawlSettings.model_fields["max_page_mb"].default * 2**20)


class WarcError(ValueError):
    """A WARC source that cannot be read; the message names it."""


@dataclass(frozen=True)
class WarcFilter:
    """What a page must be to enter the corpus."""

    start: date | None = None
    end: date | None = None
    language: str = "ar"
    min_arabic_ratio: float = 0.5
    min_text_chars: int = 80
    keep_undated: bool = False
    max_page_bytes: int = MAX_PAGE_BYTES

    def __post_init__(self) -> None:
        if self.language not in SUPPORTED_LANGUAGES:
            raise WarcError(f"--lang {self.language!r} is not supported (supported: {', '.join(SUPPORTED_LANGUAGES)})")
        if self.start and self.end and self.start > self.end:
            raise WarcError(f"--from {self.start} is after --to {self.end}")


@dataclass
class WarcStats:
    """Why pages were skipped, per reason, and how many were kept."""

    counts: Counter = field(default_factory=Counter)

    def add(self, other: "WarcStats") -> None:
        self.counts.update(other.counts)

    def as_rows(self) -> list[dict[str, Any]]:
        return [{"outcome": k, "records": v} for k, v in sorted(self.counts.items(), key=lambda kv: -kv[1])]


def original_url(target: str) -> str:
    """The archived page's own URL (a Wayback capture URL is unwrapped)."""
    m = _WAYBACK.match(target)
    return m.group(1) if m else target


#: How far past the last whole record the reader looks to tell a cut from padding or corruption.
TAIL_BYTES = 64 * 1024


class _StreamReader(io.RawIOBase):
    """A file-like view of an HTTP body's raw (still compressed) bytes, for warcio. It counts the
    bytes it hands out and keeps the last :data:`TAIL_BYTES` of them, for :func:`warc_records`."""

    def __init__(self, chunks: Iterator[bytes]) -> None:
        self._chunks = chunks
        self._buffer = b""
        #: Bytes handed out so far: the source's size once it has been read to its end.
        self.given = 0
        self.last = bytearray()

    def readable(self) -> bool:
        return True

    def readinto(self, target: Any) -> int:
        """Fill ``target`` whole, unless the body ends first. A read that gave back one network
        chunk made the buffered reader's ``peek`` (:func:`check_archive_start`) see only the first
        10 or 30 bytes of a valid WARC, and refuse it."""
        filled = 0
        while filled < len(target):
            if not self._buffer:
                try:
                    self._buffer = next(self._chunks)
                except StopIteration:
                    break
                continue
            n = min(len(target) - filled, len(self._buffer))
            target[filled:filled + n] = self._buffer[:n]
            self.last += self._buffer[:n]
            del self.last[:-TAIL_BYTES]
            self._buffer = self._buffer[n:]
            self.given += n
            filled += n
        return filled


@contextmanager
def open_warc(source: str, client: httpx.Client | None = None) -> Iterator[IO[bytes]]:
    """A WARC source as a binary file: a local path, or an http(s) URL streamed (a dropped
    connection is picked up where it stopped: :mod:`tasks.search.resumable_body`)."""
    if urlsplit(source).scheme in ("http", "https"):
        own = client or httpx.Client(follow_redirects=True, timeout=60)
        body = resumable_body(own, source)
        try:
            yield io.BufferedReader(_StreamReader(body), 1 << 16)
        except BodyError as exc:
            raise WarcError(f"WARC {source}: {exc}") from None
        except httpx.HTTPError as exc:
            raise WarcError(f"WARC {source}: {type(exc).__name__}: {exc}") from None
        finally:
            body.close()
            if client is None:
                own.close()
        return
    path = Path(source)
    if not path.is_file():
        raise WarcError(f"WARC file {source} {not_a_file(path)}")
    with path.open("rb") as handle:  # buffered: check_archive_start peeks at it
        yield handle


def check_archive_start(handle: IO[bytes], source: str) -> None:
    """Refuse a file that is not a WARC (or ARC), gzip'd or plain, before warcio guesses at it.
    Its first 4,096 bytes are read (or all of a shorter file): a buffered reader's ``peek`` reads
    once, and a URL's raw reader fills what it is asked for (:class:`_StreamReader`), however small
    the network pieces."""
    peek = handle.peek(4096)[:4096] if hasattr(handle, "peek") else b""
    start = peek
    if peek[:2] == b"\x1f\x8b":
        try:
            start = zlib.decompressobj(16 + zlib.MAX_WBITS).decompress(peek, 64)
        except zlib.error:
            start = b""
    if not (start.startswith(b"WARC/") or start.startswith(b"filedesc://")):
        raise WarcError(f"WARC {source} is not a readable WARC file: it starts with {start[:20]!r}")


#: What warcio raises on a record header cut short: it has no error of its own for that.
_CUT_HEADER_ERRORS = (ArchiveLoadFailed, EOFError, ValueError, TypeError, AttributeError)
#: How warcio's error for a file gzipped whole begins.
_WHOLE_FILE_GZIP = "ERROR: non-chunked gzip file detected"


def _rest_after(handle: IO[bytes], offset: int) -> bytes | None:
    """The source's bytes from ``offset`` to its end, or None when there are more than
    :data:`TAIL_BYTES` (or, for a stream, more are still coming)."""
    raw = getattr(handle, "raw", None)
    if isinstance(raw, _StreamReader):
        more = handle.read(TAIL_BYTES + 1)  # a stream is not read past where warcio stopped: look a little further
        if len(more) > TAIL_BYTES or raw.given - offset > TAIL_BYTES:
            return None
        return bytes(raw.last[len(raw.last) - (raw.given - offset):]) if raw.given > offset else b""
    size = os.fstat(handle.fileno()).st_size
    return None if size - offset > TAIL_BYTES else os.pread(handle.fileno(), max(0, size - offset), offset)


def holds_no_record(data: bytes) -> bool:
    """Bytes after the last record that are padding, not a record cut short: blank lines, NULs,
    and whole gzip members of nothing else."""
    while data := data.lstrip(b" \t\r\n\x00"):
        if data[:2] != b"\x1f\x8b":
            return False
        member = zlib.decompressobj(16 + zlib.MAX_WBITS)
        try:
            inside = member.decompress(data)
        except zlib.error:
            return False
        if not member.eof or inside.strip(b" \t\r\n\x00"):
            return False
        data = member.unused_data
    return True


def warc_records(handle: IO[bytes], source: str, stats: WarcStats) -> Iterator[tuple[int, Any]]:
    """The records of a WARC file with the byte each starts at, counted in ``stats``; the caller
    reads each before the next.

    A file cut short (an interrupted download) keeps the records before the cut: a record that
    ends early, a header broken off at the end, or a last gzip member left incomplete ends the
    file with a warning naming the source and the byte, counted as ``cut_short``. Blank lines,
    NUL padding and empty gzip members after the last record are no cut. A file without one whole
    record, a record that cannot be read with more of the file after it (corruption, not a cut),
    and a file gzipped whole instead of record by record are refused (:class:`WarcError`).
    """
    iterator = ArchiveIterator(handle)
    records = iter(iterator)
    complete = 0
    while True:
        try:
            record = next(records)
        except StopIteration:
            break
        except _CUT_HEADER_ERRORS as exc:
            problem = f"{type(exc).__name__}: {' '.join(str(exc).split())[:300]}"
            if str(exc).lstrip().startswith(_WHOLE_FILE_GZIP):
                raise WarcError(f"WARC {source} is gzipped as a whole, not record by record: {problem}") from None
            _end_at(handle, source, stats, iterator.offset, f"a record header cannot be read ({problem})", complete)
            return
        if not declares_length(record):  # blank padding, or the file ends inside the header
            _end_at(handle, source, stats, iterator.get_record_offset(), "a record header is broken off", complete)
            return
        stats.counts["records"] += 1
        yield iterator.offset, record  # warcio moves its offset to a record's start when it reads one
        _read_past(record)  # the rest of the record: is all of it there?
        missing = missing_bytes(record)
        if missing:
            _cut_short(source, iterator.offset, stats, f"a record lacks {missing:,} of its bytes", complete)
            return
        complete += 1
    # warcio stops silently at a last gzip member cut short
    _end_at(handle, source, stats, iterator.offset, "the bytes after it hold no whole record", complete, at_end=True)


def _end_at(handle: IO[bytes], source: str, stats: WarcStats, offset: int, why: str, complete: int,
            at_end: bool = False) -> None:
    """The file yields no record from ``offset`` on: padding after it is fine, a short rest is a
    cut, and more than :data:`TAIL_BYTES` is corruption (refused), unless warcio read to the end."""
    rest = _rest_after(handle, offset)
    if (rest is None and not at_end) or (rest is not None and record_follows(rest)):
        raise WarcError(f"WARC {source} has an unreadable record at byte {offset:,} and more after it: {why}")
    if rest is None or not holds_no_record(rest):
        _cut_short(source, offset, stats, why, complete)


def record_follows(rest: bytes) -> bool:
    """Whether another WARC record begins after the start of ``rest``: the file goes on past a
    damaged record, so it is corrupt, not cut short."""
    if rest.find(b"WARC/1.", 1) != -1:
        return True
    at = rest.find(b"\x1f\x8b", 1)
    while at != -1:
        try:
            head = zlib.decompressobj(16 + zlib.MAX_WBITS).decompress(rest[at:], 16)
        except zlib.error:
            head = b""
        if head.startswith(b"WARC/"):
            return True
        at = rest.find(b"\x1f\x8b", at + 1)
    return False


#: The header fields of a record's length and address, by format: an ARC record's header is one
#: line (URL, IP address, date, content type, length), which warcio names ``uri`` … ``length``.
LENGTH_FIELD = {"warc": "Content-Length", "arc": "length"}
TARGET_FIELD = {"warc": "WARC-Target-URI", "arc": "uri"}


def declares_length(record: Any) -> bool:
    """Whether a record's header gives its length, as every WARC and ARC record's must. warcio reads
    a header without one as no length, and one broken off right after ``Content-Length:`` as a
    length of 0: a whole record of nothing, so the cut went unreported."""
    if record.length is None:
        return False
    declared = record.rec_headers.get_header(LENGTH_FIELD.get(record.format, "Content-Length"))
    return declared is not None and declared.strip().isdigit()


def _read_past(record: Any) -> None:
    """Read what is left of a record, a piece at a time."""
    while record.raw_stream.read(1 << 16):
        pass


def missing_bytes(record: Any) -> int:
    """How many of its declared bytes a record read to its end lacked (warcio's length-limited
    reader, under its decompressing one where there is one, counts what is left)."""
    stream = record.raw_stream
    while not hasattr(stream, "limit") and hasattr(stream, "stream"):
        stream = stream.stream
    return int(getattr(stream, "limit", 0))


def _cut_short(source: str, offset: int, stats: WarcStats, why: str, complete: int) -> None:
    """Warn that ``source`` ends at ``offset`` without its next record; refuse it if it has no whole record."""
    if not complete:
        raise WarcError(f"WARC {source} is not a readable WARC file: not one whole record ({why})")
    stats.counts["cut_short"] += 1
    log.warning("WARC file cut short: the records before the cut are kept",
                extra={"source": source, "offset": offset, "why": why})


def _html_type(record: Any) -> str | None:
    """The ``Content-Type`` of a 200 HTML response record ("" when it has none), else None."""
    if record.rec_type != "response" or record.http_headers is None:
        return None
    if record.http_headers.get_statuscode() != "200":
        return None
    ctype = record.http_headers.get_header("Content-Type") or ""
    if ctype and "html" not in ctype.lower():
        return None
    return ctype


def _stored_payload(record: Any, max_bytes: int) -> bytes:
    """A record's payload as stored (still chunked and encoded, see :func:`decoded_body`), no more
    than ``max_bytes`` + 1 bytes of it (:func:`decoded_body` refuses more); the rest is read past,
    so that :func:`missing_bytes` tells a page cut short from one too large."""
    payload = record.raw_stream.read(max_bytes + 1)
    _read_past(record)
    return payload


#: The encoded bytes warcio's reader decodes at once: at most about 1 MiB decoded (deflate's
#: ratio is at most about 1,000 to 1), where its default 16 KiB gave 16 MiB.
DECODE_BLOCK = 1024


class BodyDecodingError(ValueError):
    """A record's payload that cannot be decoded as its headers say; the message says why."""


class PageTooLarge(ValueError):
    """A record's payload larger than the page size limit, as stored or decoded."""


def decoded_body(payload: bytes, content_encoding: str | None, transfer_encoding: str | None,
                 max_bytes: int) -> bytes:
    """An HTTP payload as stored in a WARC record, dechunked and decoded as warcio's
    ``content_stream`` does, but for brotli (``Content-Encoding: br``), decoded here: warcio
    1.8's brotli reader sets an attribute brotli 1.2's decoder no longer has, and its
    AttributeError ended the whole build. An encoding warcio does not know (``zstd``, a list
    such as ``gzip, br``) leaves the payload as it is, as warcio does.

    A payload, or its decoding, of more than ``max_bytes`` is :class:`PageTooLarge`, and is
    decoded no further than that: a record of a few KB can decode to GiBs. So it is dechunked
    first (warcio's chunked reader decodes a whole chunk at once) and then decoded a step at a
    time (:data:`DECODE_BLOCK` of it at once by warcio's reader, a bounded output by brotli's)."""
    if len(payload) > max_bytes:
        raise PageTooLarge(f"its payload is larger than {max_bytes:,} bytes as stored")
    encoding = (content_encoding or "").strip().lower()
    by_warcio = encoding if encoding != "br" and encoding in BufferedReader.get_supported_decompressors() else None
    if transfer_encoding == "chunked":  # warcio's test; a payload that is not chunked after all is read as it is
        payload = ChunkedDataReader(io.BytesIO(payload)).read()
    if encoding == "br":
        return unbrotli(payload, max_bytes)
    if by_warcio:
        reader = BufferedReader(io.BytesIO(payload), block_size=DECODE_BLOCK, decomp_type=by_warcio)
        return _at_most(iter(lambda: reader.read(1 << 16), b""), max_bytes)
    return payload


def _at_most(pieces: Iterable[bytes], max_bytes: int) -> bytes:
    """``pieces`` joined, read no further than ``max_bytes`` (:class:`PageTooLarge` past it)."""
    body = bytearray()
    for piece in pieces:
        body += piece
        if len(body) > max_bytes:
            raise PageTooLarge(f"it decodes to more than {max_bytes:,} bytes")
    return bytes(body)


def unbrotli(body: bytes, max_bytes: int) -> bytes:
    """A brotli-encoded body, decoded (:class:`PageTooLarge` past ``max_bytes``). A body brotli
    rejects is taken as not encoded, as warcio takes a gzip or deflate body its decoder rejects
    (archives store decoded bodies under the original header); one that ends inside its brotli
    stream is an error."""
    if not body:
        return body
    try:
        return _at_most(brotli_decoded([body]), max_bytes)
    except brotli.error:
        return body
    except CodingCutShort as exc:
        raise BodyDecodingError(str(exc)) from None


def _captured_at(record: Any) -> datetime | None:
    """When the archive fetched a record (``WARC-Date``; an ARC header's 14-digit date), or None."""
    if record.format == "arc":
        stamp = record.rec_headers.get_header("archive-date") or ""
        return capture_time(stamp) if valid_timestamp(stamp) else None
    try:
        return datetime.fromisoformat(record.rec_headers.get_header("WARC-Date") or "")
    except ValueError:
        return None


def page_record(url: str, body: bytes, flt: WarcFilter, stats: WarcStats, extract: Extractor, *,
                content_type: str | None = None, captured_at: datetime | None = None) -> CorpusRecord | None:
    """The corpus record of one archived page, or None (the reason counted in ``stats``).

    ``body`` is read as the article fetcher reads a page (its ``content_type`` header, when
    known, and its bytes), not by its ``<meta>`` charset alone: the fetcher stores a windows-1256
    page as UTF-8 with its ``<meta charset=windows-1256>`` left in, and a UTF-8 page may carry
    such a tag too. Its relative dates count from ``captured_at``. A page the extractor fails on
    (JSON-LD nested deeper than Python recurses) is counted as ``unextractable`` and named in a
    warning: one such page ended a whole index build."""
    try:
        domain = domain_of(url)
        canonicalize_url(url)
    except UrlError:
        stats.counts["bad_url"] += 1
        return None
    try:
        article = extract(page_text(body, content_type)[0], now=captured_at)
    except Exception as exc:  # noqa: BLE001 - the extractor's parsers raise their own (a RecursionError once)
        stats.counts["unextractable"] += 1
        log.warning("archived page whose article cannot be extracted: skipped",
                    extra={"url": url, "error": f"{type(exc).__name__}: {exc}"})
        return None
    text = article.text
    if len(text) < flt.min_text_chars:
        stats.counts["too_short"] += 1
        return None
    if arabic_ratio(text) < flt.min_arabic_ratio:
        stats.counts["not_arabic"] += 1
        return None
    day = article.published_date
    if day is None:
        if not flt.keep_undated:
            stats.counts["undated"] += 1
            return None
    elif (flt.start and day < flt.start) or (flt.end and day > flt.end):
        stats.counts["outside_range"] += 1
        return None
    stats.counts["extracted"] += 1
    return CorpusRecord(url, article.title or "", text, day, domain)


def read_warc(source: str, flt: WarcFilter, *, extract: Extractor,
              client: httpx.Client | None = None) -> tuple[list[CorpusRecord], WarcStats]:
    """The Arabic articles of one WARC source that pass the filter (not yet deduplicated)."""
    stats = WarcStats()
    out: list[CorpusRecord] = []
    try:
        with open_warc(source, client) as handle:
            check_archive_start(handle, source)
            for offset, record in warc_records(handle, source, stats):
                content_type = _html_type(record)
                if content_type is None:
                    stats.counts["not_html_200"] += 1
                    continue
                payload = _stored_payload(record, flt.max_page_bytes)
                if missing_bytes(record):
                    continue  # the file ends inside this page: counted as cut_short by warc_records
                body = _body_or_none(record, payload, source, offset, stats, flt.max_page_bytes)
                if body is None:
                    continue
                target = record.rec_headers.get_header(TARGET_FIELD.get(record.format, "WARC-Target-URI")) or ""
                rec = page_record(original_url(target), body, flt, stats, extract, content_type=content_type,
                                  captured_at=_captured_at(record))
                if rec is not None:
                    out.append(rec)
    except ArchiveLoadFailed as exc:
        raise WarcError(f"WARC {source} is not a readable WARC file: {exc}") from None
    return out, stats


def _body_or_none(record: Any, payload: bytes, source: str, offset: int, stats: WarcStats,
                  max_bytes: int) -> bytes | None:
    """A record's decoded body, or None when it is larger than ``max_bytes`` (counted as
    ``too_large``) or cannot be decoded (``undecodable``): the record is named in a warning, and
    the file's other records are still read. The payload is already in memory, so what a decoder
    raises is about its bytes, never the source."""
    headers = record.http_headers
    try:
        return decoded_body(payload, headers.get_header("Content-Encoding"), headers.get_header("Transfer-Encoding"),
                            max_bytes)
    except PageTooLarge as exc:
        outcome, why = "too_large", "WARC record larger than a page may be: skipped"
        problem = str(exc)
    except Exception as exc:  # noqa: BLE001 - warcio's and brotli's decoders raise their own (an AttributeError once)
        outcome, why = "undecodable", "WARC record whose body cannot be decoded: skipped"
        problem = f"{type(exc).__name__}: {exc}"
    stats.counts[outcome] += 1
    log.warning(why, extra={"source": source, "offset": offset, "error": problem})
    return None


def _read_one(args: tuple[str, WarcFilter, Extractor]) -> tuple[str, list[CorpusRecord], WarcStats]:
    source, flt, extract = args
    records, stats = read_warc(source, flt, extract=extract)
    return source, records, stats


def text_fingerprint(text: str) -> str:
    return hashlib.sha1(normalize(text).encode("utf-8")).hexdigest()


def dedup_records(records: Iterable[CorpusRecord], stats: WarcStats) -> Iterator[CorpusRecord]:
    """The records whose canonical URL and normalised text were not seen before (the first wins).

    Shared by every archive input (WARC files, stored captures), so that an article captured in
    both is indexed once.
    """
    seen_urls: set[str] = set()
    seen_texts: set[str] = set()
    for rec in records:
        canonical = canonicalize_url(rec.url)  # checked valid by page_record
        if canonical in seen_urls:
            stats.counts["duplicate_url"] += 1
            continue
        fingerprint = text_fingerprint(rec.text)
        if fingerprint in seen_texts:
            stats.counts["duplicate_text"] += 1
            continue
        seen_urls.add(canonical)
        seen_texts.add(fingerprint)
        stats.counts["kept"] += 1
        yield rec


def warc_pages(sources: Iterable[str], flt: WarcFilter, *, extract: Extractor, workers: int = 1,
               stats: WarcStats, show_progress: bool = False) -> Iterator[CorpusRecord]:
    """The records of all sources that pass the filter, file by file (not deduplicated)."""
    sources = list(sources)
    jobs = [(s, flt, extract) for s in sources]
    with ExitStack() as stack:
        if workers > 1 and len(sources) > 1:
            pool = stack.enter_context(worker_pool(min(workers, len(sources))))
            results: Iterable[tuple[str, list[CorpusRecord], WarcStats]] = pool.imap(_read_one, jobs)
        else:
            results = map(_read_one, jobs)
        for source, records, file_stats in track(results, "reading WARC files", total=len(jobs), unit="files",
                                                 enabled=show_progress):
            stats.add(file_stats)
            yield from records
            log.info("WARC read", extra={"source": source, "articles": len(records)})


def warc_corpus(sources: Iterable[str], flt: WarcFilter, *, extract: Extractor, workers: int = 1,
                stats: WarcStats | None = None, show_progress: bool = False) -> Iterator[CorpusRecord]:
    """Deduplicated corpus records of all sources: the first capture of a URL or a text wins."""
    stats = stats if stats is not None else WarcStats()
    return dedup_records(warc_pages(sources, flt, extract=extract, workers=workers, stats=stats,
                                    show_progress=show_progress), stats)
