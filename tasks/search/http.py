"""JSON over HTTP for the web search APIs: backoff on 429/5xx, Retry-After, secrets kept out.

Both web clients send their key on every request (Google in the query string, Brave in a
header). httpx logs each request URL at INFO level, so a :class:`RedactSecrets` filter is put
on its loggers, and every error message built here goes through :func:`redact` too (the key as
written and as percent-encoded in a URL). A redirect is followed only on the same host: httpx
strips ``Authorization`` when a redirect leaves the origin, but not a key in another header
(Brave's ``X-Subscription-Token``) or in the query string. An answer is read with a cap on its
size and on the whole exchange's time (:func:`bounded_get`; httpx's time-out is per read), its
content codings undone here a piece at a time, so that the cap bounds memory too.
"""

from __future__ import annotations

import codecs
import html
import json
import logging
import math
import random
import re
import threading
import time
import zlib
from collections.abc import Callable, Iterable, Iterator, Mapping
from dataclasses import dataclass, field
from typing import Any, Literal
from unicodedata import category
from urllib.parse import quote, quote_plus, unquote

import brotli
import httpx
from pydantic import SecretStr

from arastance.base.retry_after import retry_after_s
from arastance.base.stopping import check_stop, pause
from arastance.logging import get_logger
from tasks.search.base import SearchAuthError, SearchError, SearchQuotaSpent

log = get_logger(__name__)

REDACTED = "****"
_RETRY_STATUSES = {429, 500, 502, 503, 504}
# httpx refused to build or send the request (a header it cannot carry, an address not http(s)): a retry never helps.
_NEVER_SENT = (httpx.LocalProtocolError, httpx.UnsupportedProtocol)

#: What a refused answer means. ``auth``: the key is refused; ``quota``: the API's own quota is
#: spent (both end the run: :class:`SearchStopsRun`); ``retry``: a passing limit, waited out.
LimitKind = Literal["auth", "quota", "retry"]


@dataclass(frozen=True)
class LimitRule:
    """One row of an API's table of refusals: an answer with ``status`` whose described error
    matches ``text`` (a case-insensitive regular expression; None: any) and whose headers pass
    ``headers`` (None: any) means ``kind``."""

    kind: LimitKind
    status: int
    text: str | None = None
    headers: Callable[[httpx.Headers], bool] | None = None

    def matches(self, status: int, reason: str, headers: httpx.Headers) -> bool:
        return (status == self.status and (self.text is None or re.search(self.text, reason, re.IGNORECASE) is not None)
                and (self.headers is None or self.headers(headers)))


@dataclass(frozen=True)
class ApiLimits:
    """How one API tells its limits, in one place per client: its refusals (``rules``, the first
    match wins; otherwise 401 and 403 are ``auth``, 429 and 5xx ``retry``), the setting that holds
    its key, when a spent quota comes back (``resets``: a sentence from the answer's headers), the
    pace its headers ask for (``pace``: seconds between requests, None when they do not say), and
    whether a 200 answer's JSON object is a request it bills (``billed``: SerpApi bills no failed
    search, though it answers one with 200; counted, it took a day's budget early)."""

    key_setting: str = ""
    rules: tuple[LimitRule, ...] = ()
    resets: Callable[[httpx.Headers], str] = lambda headers: "the API does not say when it resets"
    pace: Callable[[httpx.Headers], float | None] = lambda headers: None
    billed: Callable[[dict[str, Any]], bool] = lambda body: True

    def kind(self, status: int, reason: str, headers: httpx.Headers) -> LimitKind | None:
        """What a refused answer means; None: a plain error (a bad request, a missing page)."""
        for rule in self.rules:
            if rule.matches(status, reason, headers):
                return rule.kind
        if status in (401, 403):
            return "auth"
        return "retry" if status in _RETRY_STATUSES else None


def jittered(wait_s: float, jitter: float, cap_s: float) -> float:
    """``wait_s`` made up to ``jitter`` (a share of it) longer at random, so that waits begun
    together end apart; the share added never takes it past ``cap_s`` (a longer wait is kept)."""
    if not jitter or not wait_s:
        return wait_s
    return min(max(wait_s, cap_s), wait_s * (1 + random.random() * jitter))


@dataclass(frozen=True)
class PaceShare:
    """One process's part of a pace that ``processes`` processes of one machine keep together, each
    with a client of its own (a Dask LocalCluster's workers): it sends at ``processes`` times the
    interval, and only in its ``turn`` (0 to ``processes`` - 1) of the API's slots, counted from the
    zero of the monotonic clock, which every process of a machine reads alike. At the interval
    times ``processes`` alone, their requests came together as often as not, and were refused."""

    processes: int = 1
    turn: int = 0

    def __post_init__(self) -> None:
        if self.processes < 1 or not 0 <= self.turn < self.processes:
            raise ValueError(f"turn {self.turn} of {self.processes} process(es): processes are 1 or more, "
                             "and a turn one of 0 to processes - 1")


class Pacer:
    """When the threads sharing one API client may send: at most one request per ``interval_s``
    (the plan's pace: a setting, or learned from the API's headers), and none before a time a 429
    asked every thread to wait for (the hold), each thread then after a stagger of its own (up to
    ``jitter`` of what it had left of the hold, never past ``max_wait_s``). Threads that each
    waited out the same hint on their own were sent again together, in step, and refused together
    again, until their claims failed; held until one shared time without a stagger, they were too
    (each retry waited for the latest jittered wait of the others). ``share``: the part of the
    pace this process keeps, when other processes keep the rest (:class:`PaceShare`)."""

    def __init__(self, interval_s: float = 0.0, *, share: PaceShare = PaceShare(), jitter: float = 0.0,
                 max_wait_s: float = float("inf"), clock: Callable[[], float] = time.monotonic) -> None:
        self.share = share
        self.interval_s = interval_s * share.processes  # this process's: the API's times the processes
        self.jitter = jitter
        self.max_wait_s = max_wait_s
        self._clock = clock
        self._next = float("-inf")  # the first time the pace leaves free
        self._hold = float("-inf")  # no request before this time (a refusal's wait, for every thread)
        self._lock = threading.Lock()
        self._mine = threading.local()  # the slot each thread was last given

    def delay(self, wait_s: float = 0.0) -> float:
        """Seconds the caller waits before its next request: to the hold, made at least ``wait_s``
        from now, plus its own stagger; and past the slots taken before, when there is a pace. Its
        slot is taken now. A thread counts as no earlier than the slot it was last given (it waited
        until then, even where its clock says otherwise)."""
        with self._lock:
            now = max(self._clock(), getattr(self._mine, "at", float("-inf")))
            self._hold = max(self._hold, now + wait_s)
            delay = jittered(max(0.0, self._hold - now), self.jitter, self.max_wait_s)
            if self.interval_s:  # without a pace, slots need no order: each keeps its own stagger
                delay = self._turn_from(now + max(delay, self._next - now)) - now
            self._mine.at = now + delay
            self._next = self._mine.at + self.interval_s
            return delay

    def _turn_from(self, at: float) -> float:
        """The first time from ``at`` that is this process's turn (``at`` itself for a process that
        keeps the whole pace)."""
        if self.share.processes == 1:
            return at
        offset = self.share.turn * self.interval_s / self.share.processes
        periods = math.ceil((at - offset) / self.interval_s - 1e-9)  # a time on its turn, give or take rounding
        return offset + periods * self.interval_s

    def slow_to(self, interval_s: float | None) -> None:
        """Never less than ``interval_s`` between the requests of all processes from now on (a pace
        is only learned upwards)."""
        if interval_s is not None and interval_s * self.share.processes > self.interval_s:
            with self._lock:
                self.interval_s = max(self.interval_s, interval_s * self.share.processes)


# What no HTTP header can carry (h11 refuses it) and no real key holds: a control or non-ASCII character.
_NOT_IN_A_KEY = re.compile(r"[^\x20-\x7e]")


def clean_key(api_key: str | SecretStr | None, where: str) -> str:
    """The key as plain text without the whitespace around it (a secret file's or an env var's
    trailing newline); "" when there is none.

    A key with a control or non-ASCII character inside is a :class:`SearchAuthError` naming
    ``where`` it came from (never the key): sent as it is, httpx refused it before any request
    left, and the refusal was retried with backoff as if the network had failed.
    """
    plain = _plain(api_key or "").strip()
    bad = _NOT_IN_A_KEY.search(plain)
    if bad:
        raise SearchAuthError(f"the key in {where} has a control or non-ASCII character (at position {bad.start() + 1}), "
                              "which no HTTP request can carry: check that setting or secret for a stray character")
    return plain


def require_key(api_key: str | SecretStr | None, backend: str, setting: str) -> SecretStr:
    """The key from settings field ``setting`` (e.g. ``search.brave_api_key``) as a SecretStr
    (masked in reprs and tracebacks), cleaned by :func:`clean_key`; an empty one is a SearchAuthError."""
    plain = clean_key(api_key, setting)
    if not plain:
        raise SearchAuthError(f"{backend} search needs an API key ({setting} or {setting.rpartition('.')[2]}_block)")
    return SecretStr(plain)


def env_var(setting: str) -> str:
    """The environment variable that sets settings field ``setting`` (``search.google_endpoint``:
    ``ARASTANCE_SEARCH__GOOGLE_ENDPOINT``), for messages that say what to change."""
    return "ARASTANCE_" + setting.replace(".", "__").upper()


def _plain(secret: str | SecretStr) -> str:
    return secret.get_secret_value() if isinstance(secret, SecretStr) else secret


def json_answer(response: httpx.Response) -> Any:
    """The answer's JSON value. JSON between systems is UTF-8 (RFC 8259), which :func:`json.loads` finds in
    the bytes (BOM and UTF-16/32 included); an answer whose bytes are not that but whose ``Content-Type``
    declares another charset (``windows-1256`` from an Arabic proxy or an older engine in front of the
    API) is read in the charset it declares, as a browser would, instead of being "not JSON". Raises
    ValueError (or RecursionError, for nesting deeper than the decoder goes) when it is not JSON."""
    try:
        return json.loads(response.content)
    except UnicodeDecodeError:
        declared = response.charset_encoding
        if declared is None or _codec(declared) in (None, "utf-8"):
            raise
        try:
            text = response.content.decode(declared)
        except LookupError:  # a codec that is no text encoding (base64, rot13): not JSON, as any other bytes
            raise ValueError(f"charset {declared!r} names no text encoding") from None
        return json.loads(text)


def _codec(charset: str) -> str | None:
    """Python's name for a declared charset, or None when Python has no such codec."""
    try:
        return codecs.lookup(charset).name
    except LookupError:
        return None


def api_error(response: httpx.Response) -> dict[str, Any] | str:
    """The ``error`` object of an API's JSON error body, else a text for the error: the
    ``error`` value itself when it is not an object (a proxy's or a changed API's
    ``{"error": "Too Many Requests"}``), else the status text. Each client describes the object."""
    fallback = response.reason_phrase or "no error body"
    try:
        error = json_answer(response)["error"]
    except (ValueError, KeyError, TypeError, RecursionError):
        return fallback
    if isinstance(error, dict):
        return error
    return str(error) if error else fallback


def is_json(response: httpx.Response) -> bool:
    """Whether the answer's body is JSON as :func:`json_answer` reads it."""
    try:
        json_answer(response)
    except (ValueError, RecursionError):
        return False
    return True


#: The start of a page that its <title> or first words are looked for in (a page's head comes first),
#: and the most characters of them an error message quotes.
GIST_SCAN_CHARS = 64 * 1024
GIST_CHARS = 100
_TITLE = re.compile(r"<title\b[^>]*>(.*?)</title\s*>", re.IGNORECASE | re.DOTALL)
_UNSEEN = re.compile(r"<(script|style)\b.*?</\1\s*>|<!--.*?-->", re.IGNORECASE | re.DOTALL)
_TAG = re.compile(r"<[^>]*>")


#: What a page may write a key as, undone before the key is looked for: a word break (``<wbr>``) inside
#: it, a JSON escape (``\u002d``) and percent-encoding in either case (``%2d``).
_WORD_BREAK = re.compile(r"<wbr\s*/?>", re.IGNORECASE)
_JSON_ESCAPE = re.compile(r"\\u([0-9a-fA-F]{4})")
#: A URL's query value that holds a credential, whatever it is: masked in a quoted page.
_KEY_PARAMETER = re.compile(r"(?i)\b((?:api[_-]?|access[_-]?|subscription[_-]?)?(?:key|token)=)[^&\s\"'<>]+")
#: The fewest characters of a key in a row that a quoted page is not let show (a key cut short, "key=AIzaSy-port...",
#: or broken into pieces by blanks, soft hyphens or tags).
KEY_RUN_CHARS = 8


def _page_text(response: httpx.Response) -> str:
    """The start of a page as text: in the charset it declares, else UTF-8 (a label Python knows that
    is no text codec, ``base64`` or ``undefined``, raises on decoding: read as UTF-8 too)."""
    head = response.content[:2 * GIST_SCAN_CHARS * 4]  # at most 4 bytes a character
    try:
        return head.decode(response.encoding or "utf-8", errors="replace")
    except (LookupError, UnicodeError):
        return head.decode("utf-8", errors="replace")


def _redacted_page(text: str, secrets: Iterable[str | SecretStr]) -> str:
    """``text`` with every secret gone however the page wrote it (entities, word breaks, invisible format
    characters, JSON escapes, percent-encoding undone first), as every credential value of a URL in it and
    every run of :data:`KEY_RUN_CHARS` or more of a secret's characters (a URL the page cut short, a key
    broken into pieces)."""
    text = _WORD_BREAK.sub("", html.unescape(text))
    text = unquote(_JSON_ESCAPE.sub(lambda m: chr(int(m[1], 16)), "".join(c for c in text if category(c) != "Cf")))
    text = _KEY_PARAMETER.sub(lambda m: m[1] + REDACTED, redact(text, secrets))
    for secret in map(_plain, secrets):
        for size in range(len(secret) - 1, KEY_RUN_CHARS - 1, -1):
            for start in range(len(secret) - size + 1):
                text = text.replace(secret[start:start + size], REDACTED)
    return text


def answer_gist(response: httpx.Response, secrets: Iterable[str | SecretStr]) -> str:
    """What an answer that is no API's JSON is, in a few words an error message can quote: the
    page's <title>, else its first words (markup dropped), and its Content-Type; never the whole page.

    Every secret is redacted (:func:`_redacted_page`) before any of the page is cut: a proxy's or
    portal's page may quote the request URL, which holds the key for some APIs, and a key cut in
    two would no longer be found whole.
    """
    # cut (with room for a key across the cut) before the key's runs are masked: a pass per run over the page
    plain = [_plain(secret) for secret in secrets]
    longest = max(map(len, plain), default=0)
    text = _redacted_page(_page_text(response)[:GIST_SCAN_CHARS + 8 * longest], plain)[:GIST_SCAN_CHARS]
    title = _TITLE.search(text)
    words = " ".join((title.group(1) if title else _TAG.sub(" ", _UNSEEN.sub(" ", text))).split())
    if len(words) > GIST_CHARS:
        words = words[:GIST_CHARS].rsplit(" ", 1)[0] + "…"
    what = (f"a page titled {words!r}" if title and words else f"an answer beginning {words!r}" if words
            else "an empty answer")
    return f"{what} (Content-Type {response.headers.get('content-type') or 'not given'})"


def redact(text: str, secrets: Iterable[str | SecretStr]) -> str:
    """``text`` with every non-empty secret, as written or percent-encoded in a URL, replaced by ``****``."""
    for secret in map(_plain, secrets):
        if secret:
            for form in {secret, quote(secret, safe=""), quote_plus(secret, safe="")}:
                text = text.replace(form, REDACTED)
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


#: A search API answers a page of results in tens of KiB; anything near this is not an answer.
MAX_ANSWER_BYTES = 8 * 2**20
MAX_REDIRECTS = 5
#: The content codings asked for: those undone here with a bound on what each step gives (httpx's
#: default list would grow to zstd, which it decodes unbounded, once ``zstandard`` is installed).
ACCEPT_ENCODING = "gzip, deflate, br"
#: The most bytes one decoding step gives (brotli's a little more: its output grows in blocks). A
#: 6.5 KB brotli answer is 4 GiB decoded, which httpx decoded in one step, before any cap was checked.
DECODE_STEP = 64 * 1024
#: Codings stacked on one answer (``gzip, gzip``) beyond what servers apply; each is a decoder
#: nested in the one before, so a header naming thousands would exhaust the stack.
MAX_CODINGS = 2


class AnswerTooLarge(ValueError):
    """An HTTP answer longer than the caller's cap (read no further)."""


def _too_large(max_bytes: int) -> AnswerTooLarge:
    return AnswerTooLarge(f"the answer is larger than {max_bytes:,} bytes")


class CodingCutShort(ValueError):
    """A compressed stream that ends before its end marker; the message says where."""


def _inflated(pieces: Iterable[bytes], coding: str) -> Iterator[bytes]:
    """The ``gzip`` or ``deflate`` stream in ``pieces`` (deflate zlib-wrapped, or raw when its
    first piece has no zlib header, as httpx reads it), decoded at most :data:`DECODE_STEP` bytes
    at a time. Bytes after the stream's end are left unread, as httpx leaves them undecoded;
    raises zlib.error or :class:`CodingCutShort`."""
    wbits = 16 + zlib.MAX_WBITS if coding == "gzip" else zlib.MAX_WBITS
    decoder, seen = zlib.decompressobj(wbits), 0
    for piece in pieces:
        pending = bool(piece)
        while pending and not decoder.eof:
            try:
                out = decoder.decompress(piece, DECODE_STEP)
            except zlib.error:
                if seen or wbits != zlib.MAX_WBITS:
                    raise
                decoder, wbits = zlib.decompressobj(-zlib.MAX_WBITS), -zlib.MAX_WBITS
                continue
            seen += len(piece) - len(decoder.unconsumed_tail)
            yield out
            piece = decoder.unconsumed_tail
            pending = bool(piece) or len(out) == DECODE_STEP  # zlib may hold more output than it gave
        if decoder.eof:
            return
    if seen:
        raise CodingCutShort(f"the {coding} stream ends early, after {seen:,} bytes")


def brotli_decoded(pieces: Iterable[bytes]) -> Iterator[bytes]:
    """The brotli stream in ``pieces``, decoded about :data:`DECODE_STEP` bytes at a time; bytes
    after its end are left unread. Raises brotli.error or :class:`CodingCutShort`."""
    decoder, seen = brotli.Decompressor(), 0
    for piece in pieces:
        seen += len(piece)
        out = decoder.process(piece, output_buffer_limit=DECODE_STEP)
        while out:  # it may hold more output than it gave, and still say it can take more input
            yield out
            out = b"" if decoder.is_finished() else decoder.process(b"", output_buffer_limit=DECODE_STEP)
        if decoder.is_finished():
            return
    if seen:
        raise CodingCutShort(f"the brotli stream ends early, after {seen:,} bytes")


#: Each coding asked for (:data:`ACCEPT_ENCODING`), as a step-bounded decoder of a body's pieces.
_DECODERS: dict[str, Callable[[Iterable[bytes]], Iterator[bytes]]] = {
    "gzip": lambda pieces: _inflated(pieces, "gzip"),
    "deflate": lambda pieces: _inflated(pieces, "deflate"),
    "br": brotli_decoded,
}


def _decoded(pieces: Iterator[bytes], response: httpx.Response) -> Iterator[bytes]:
    """The pieces of ``response``'s body with its content codings undone, the last applied first,
    each step bounded. A coding not asked for (``identity``, ``zstd``) is left as it is, as httpx
    leaves one it does not know; more than :data:`MAX_CODINGS` is an :class:`httpx.DecodingError`."""
    codings = [c.strip().lower() for c in response.headers.get_list("content-encoding", split_commas=True)]
    decoders = [_DECODERS[c] for c in codings if c in _DECODERS]
    if len(decoders) > MAX_CODINGS:
        raise httpx.DecodingError(f"the answer's Content-Encoding stacks {len(decoders)} codings "
                                  f"(at most {MAX_CODINGS} are undone)", request=response.request)
    for decoder in reversed(decoders):
        pieces = decoder(pieces)
    return pieces


def _raw_pieces(response: httpx.Response, max_bytes: int, deadline: float, deadline_s: float) -> Iterator[bytes]:
    """``response``'s body as sent (content codings not undone), refused past ``max_bytes``, past
    the deadline, and when the run is asked to stop."""
    size = 0
    for chunk in response.iter_raw():
        check_stop(f"reading {response.request.url.host}'s answer")
        size += len(chunk)
        if size > max_bytes:
            raise _too_large(max_bytes)
        if time.monotonic() > deadline:
            raise httpx.ReadTimeout(f"the answer took longer than {deadline_s:g} s in all", request=response.request)
        yield chunk


def bounded_get(client: httpx.Client, request: httpx.Request, *, max_bytes: int, deadline_s: float,
                follow_redirects: bool = False) -> httpx.Response:
    """``request``'s answer, read whole into memory only if it has at most ``max_bytes`` (as sent
    and decoded) and arrives within ``deadline_s`` in all: a server dripping a byte a second would
    otherwise hold a call for as long as it likes (raised as :class:`httpx.ReadTimeout`, so it is
    retried like any time-out), and a huge answer, or a small one that decodes to a huge one,
    would fill memory (:class:`AnswerTooLarge`). Its codings are undone here, a bounded step at a
    time (httpx decodes each network chunk whole); one that cannot be is an
    :class:`httpx.DecodingError`, as in httpx. A run asked to stop ends the read at the next chunk
    (:class:`StopRequested`)."""
    deadline = time.monotonic() + deadline_s
    request.headers["Accept-Encoding"] = ACCEPT_ENCODING
    response = client.send(request, stream=True, follow_redirects=follow_redirects)
    try:
        body = bytearray()
        for piece in _decoded(_raw_pieces(response, max_bytes, deadline, deadline_s), response):
            body += piece
            if len(body) > max_bytes:
                raise _too_large(max_bytes)
    except (zlib.error, brotli.error, CodingCutShort) as exc:
        raise httpx.DecodingError(f"the answer's Content-Encoding {response.headers['content-encoding']!r} "
                                  f"cannot be undone: {exc}", request=request) from None
    finally:
        response.close()
    headers = response.headers.copy()
    headers.pop("content-encoding", None)  # undone above
    whole = httpx.Response(response.status_code, headers=headers, content=bytes(body),
                           request=response.request, history=response.history)
    whole.next_request = response.next_request  # where a redirect not followed would go
    return whole


def _same_host(a: httpx.URL, b: httpx.URL) -> bool:
    """``b`` is on ``a``'s host and port, over http(s), and no less secure than ``a``."""
    return (b.scheme in ("http", "https") and (a.host, a.port) == (b.host, b.port)
            and not (a.scheme == "https" and b.scheme == "http"))


@dataclass
class JsonClient:
    """GETs JSON from one API with retries; ``describe_error`` turns an error body into text,
    ``limits`` says what a refusal means (:class:`ApiLimits`). One client serves every thread of
    a process: its :class:`Pacer` spaces their requests (and, with ``share``, those of the run's
    other processes, each of which has a client of its own)."""

    backend: str
    secrets: list[SecretStr]  # masked in this dataclass's repr; unwrapped only to redact
    describe_error: Callable[[httpx.Response], str]
    timeout_s: float = 20.0  # each read, and the whole answer (a search API answers in about a second)
    max_retries: int = 4
    backoff_s: float = 1.0
    max_backoff_s: float = 60.0
    limits: ApiLimits = field(default_factory=ApiLimits)
    min_interval_s: float = 0.0  # the least time between two requests of all threads (more when the API asks)
    share: PaceShare = field(default_factory=PaceShare)  # of a pace kept with other processes' clients
    jitter: float = 0.0  # each retry waits up to this share longer, at random, so that threads do not retry in step
    sleep: Callable[[float], None] = pause  # ends early when the run is asked to stop
    client: httpx.Client = field(default_factory=httpx.Client)
    endpoint_setting: str = ""  # the field of the API's address (search.google_endpoint), told when no JSON comes
    pacer: Pacer = field(init=False, repr=False)
    _answered: threading.local = field(init=False, repr=False, default_factory=threading.local)

    def __post_init__(self) -> None:
        guard_http_logs(self.secrets)
        self.pacer = Pacer(self.min_interval_s, share=self.share, jitter=self.jitter, max_wait_s=self.max_backoff_s)

    def requests_answered(self) -> int:
        """Requests this client had answered (200) in the calling thread that the API bills
        (:attr:`ApiLimits.billed`)."""
        return getattr(self._answered, "n", 0)

    def _fail(self, message: str, cls: type[SearchError] = SearchError) -> SearchError:
        return cls(redact(f"{self.backend} search: {message}", self.secrets))

    def _not_json(self, response: httpx.Response) -> str:
        """Why an answer that is not JSON is no answer of the API, and what to check: a proxy, a
        captive portal or a gateway in front of it answers with an HTML page (a 200, a 502), which
        read as "not JSON" or "Bad Gateway" alone said neither who answered nor what to change."""
        url = response.request.url
        setting = (f"{self.endpoint_setting} ({env_var(self.endpoint_setting)})" if self.endpoint_setting
                   else "the API's endpoint setting")
        where = f"{url.scheme}://{url.netloc.decode('ascii')}{url.path}"  # no query: it holds the key for some APIs
        return (f"the answer is not JSON, so not the API's: {answer_gist(response, self.secrets)} from {where}; "
                f"a proxy, captive portal or gateway in front of the API answered, or {setting} names another address")

    def _send(self, url: str, params: Mapping[str, Any], headers: Mapping[str, str] | None) -> httpx.Response:
        """One GET, following redirects on the same host only (the request carries the key)."""
        request = self.client.build_request("GET", url, params=params, headers=headers, timeout=self.timeout_s)
        for _ in range(MAX_REDIRECTS + 1):
            try:
                response = bounded_get(self.client, request, max_bytes=MAX_ANSWER_BYTES, deadline_s=self.timeout_s)
            except AnswerTooLarge as exc:
                raise self._fail(str(exc)) from None
            following = response.next_request
            if not response.is_redirect or following is None:
                return response
            keyed = any(map(_plain, self.secrets))
            if following.url.scheme not in ("http", "https") or (keyed and not _same_host(request.url, following.url)):
                target = f"{following.url.scheme}://{following.url.host}{f':{following.url.port}' if following.url.port else ''}"
                why = "it leaves the API's host, and the request carries the key" if keyed else "not an http(s) address"
                raise self._fail(f"HTTP {response.status_code} redirect to {target} not followed: {why}")
            request = following
        raise self._fail(f"more than {MAX_REDIRECTS} redirects")

    def get(self, url: str, params: Mapping[str, Any], headers: Mapping[str, str] | None = None) -> dict[str, Any]:
        """The decoded JSON body of a successful GET; raises :class:`SearchError` otherwise
        (:class:`SearchAuthError` or :class:`SearchQuotaSpent`, never retried, where
        :attr:`limits` says the answer means a refused key or a spent quota)."""
        attempt, wait, shared = 0, 0.0, False
        while True:
            if wait and not shared:  # this request's own backoff: the other threads go on meanwhile
                self.sleep(jittered(wait, self.jitter, self.max_backoff_s))
            delay = self.pacer.delay(wait if shared else 0.0)  # a shared wait: the pacer staggers the threads
            if (attempt and shared) or delay > 0:
                self.sleep(delay)
            check_stop(f"{self.backend} request")
            try:
                response = self._send(url, params, headers)
            except _NEVER_SENT as exc:
                raise self._fail(f"the request cannot be sent, so it is not retried: {type(exc).__name__} "
                                 "(check the endpoint is an http(s) address and the key has no stray character)") from None
            except httpx.HTTPError as exc:
                # httpx error texts can carry the request URL, hence the key: keep only the class.
                if attempt >= self.max_retries:
                    raise self._fail(f"request failed after {attempt + 1} attempt(s): {type(exc).__name__}") from None
                wait, shared = self._capped(self.backoff_s * 2**attempt), False
            else:
                self.pacer.slow_to(self.limits.pace(response.headers))
                if response.status_code == 200:
                    return self._body(response)
                wait, shared = self._retry_wait(response, attempt)
                log.warning(
                    "search backend asked to slow down",
                    extra={"backend": self.backend, "status": response.status_code, "wait_s": round(wait, 2),
                           "attempt": attempt + 1},
                )
            attempt += 1

    def _body(self, response: httpx.Response) -> dict[str, Any]:
        """A 200 answer's JSON object, counted as a billed request of this thread unless
        :attr:`limits` says the API bills no such answer (one that is no JSON object is counted:
        nothing in it says that it was not billed)."""
        try:
            body = json_answer(response)
        except (ValueError, RecursionError):  # RecursionError: nested deeper than json can decode
            body, problem = None, f"HTTP {response.status_code}, {self._not_json(response)}"
        else:
            problem = (None if isinstance(body, dict)
                       else f"unexpected answer: a JSON {type(body).__name__}, expected an object")
        if problem or self.limits.billed(body):
            self._answered.n = self.requests_answered() + 1
        if problem:
            raise self._fail(problem)
        return body

    def _retry_wait(self, response: httpx.Response, attempt: int) -> tuple[float, bool]:
        """How long to wait before asking again after a refused answer, and whether every thread of
        the client waits too (a 429, a rate-limit 403 or a ``Retry-After`` speak of the whole API; a
        5xx of this request only, so the others go on); raises when it is not retried."""
        status, reason = response.status_code, self.describe_error(response)
        kind = self.limits.kind(status, reason, response.headers)  # from the API's error only, never a page's words
        page = (kind != "retry" or attempt >= self.max_retries) and bool(response.content) and not is_json(response)
        if page:  # said once, when it is raised
            reason += f"; {self._not_json(response)}"
        if kind == "quota":
            raise self._fail(f"HTTP {status}, the API's own quota is spent: {reason}; "
                             f"{self.limits.resets(response.headers)}", SearchQuotaSpent)
        if kind == "auth":
            fix = f"; check {self.limits.key_setting}" if self.limits.key_setting else ""
            who = "the request was refused" if page else "the API refused the request"  # a page: a proxy's, maybe
            raise self._fail(f"HTTP {status}, {who}: {reason}{fix}", SearchAuthError)
        if kind is None:
            raise self._fail(f"HTTP {status}: {reason}")
        if attempt >= self.max_retries:
            raise self._fail(f"HTTP {status} after {attempt + 1} attempt(s): {reason}")
        asked = retry_after_s(response.headers)
        wait = self._capped(asked if asked is not None else self.backoff_s * 2**attempt)
        return wait, status in (403, 429) or asked is not None

    def _capped(self, wait: float) -> float:
        """``wait``, never past :attr:`max_backoff_s`; it is made up to :attr:`jitter` longer, at
        random, where it is waited (by the pacer, when every thread waits, else by :meth:`get`)."""
        return min(self.max_backoff_s, wait)
