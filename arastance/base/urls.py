"""Canonical URLs: one spelling per page, so that re-crawls and reposts meet on one key.

The same page reaches us as ``https://m.site.com/x/?utm_source=fb#top``, its AMP version, an
AMP-cache address or with its Arabic slug percent-encoded or not. :func:`canonicalize_url` folds
all of these; the URL as fetched is always kept beside it in the warehouse.
"""

from __future__ import annotations

import re
from urllib.parse import parse_qsl, quote, unquote, urlencode, urlsplit, urlunsplit

#: Query parameters that track the visitor and never select content.
TRACKING_PARAMS = frozenset(
    {
        "fbclid", "gclid", "gclsrc", "dclid", "msclkid", "yclid", "twclid", "igshid", "mc_cid", "mc_eid",
        "_ga", "_gl", "_hsenc", "_hsmi", "mkt_tok", "ref", "ref_src", "ref_url", "referrer", "spm",
        "share", "cmpid", "ocid", "s_cid", "ito", "ncid", "amp", "__twitter_impression",
        # Reuters' RSS items link each article as …/idARA…20160512?feedType=RSS&feedName=topNews (archive
        # captures keep them): kept, they made every such link another page and no claim URL.
        "feedtype", "feedname",
    }
)
_TRACKING_PREFIXES = ("utm_", "at_", "pk_", "hsa_")
#: Host prefixes of mobile and AMP mirrors, and ``www``, folded into the bare host.
_HOST_PREFIXES = ("www.", "m.", "mobile.", "amp.", "www1.")
#: Control characters, and the line separators ``str.splitlines()`` also ends a line at (NEL, U+2028, U+2029).
_CONTROL = re.compile("[\x00-\x1f\x7f\x85\u2028\u2029]")
_DEFAULT_PORTS = {"http": 80, "https": 443}
_DEFAULT_DOCUMENTS = ("index.html", "index.htm", "index.php")
_AMP_CACHE = re.compile(r"^[^/]+\.cdn\.ampproject\.org$")
_SEGMENT_SAFE = "!$&'()*+,;=:@-._~"
_ESCAPE = re.compile(r"%[0-9A-Fa-f]{2}")
_STRAY_PERCENT = re.compile(r"%(?![0-9A-Fa-f]{2})")


class UrlError(ValueError):
    """A URL that cannot be canonicalised (not absolute, no host)."""


def _bare_host(host: str) -> str:
    host = host.lower().rstrip(".")
    for prefix in _HOST_PREFIXES:
        if host.startswith(prefix) and "." in host[len(prefix):]:
            return host[len(prefix):]
    return host


def _unwrap_amp_cache(scheme: str, host: str, path: str) -> tuple[str, str, str]:
    """``x-com.cdn.ampproject.org/c/s/x.com/p`` and ``google.com/amp/s/x.com/p`` -> ``https://x.com/p``."""
    parts = path.split("/")
    if _AMP_CACHE.match(host) and len(parts) > 3 and parts[1] in {"c", "v", "i"}:
        rest = parts[2:]
    elif host in {"google.com", "www.google.com"} and len(parts) > 3 and parts[1] == "amp":
        rest = parts[2:]
    else:
        return scheme, host, path
    if rest[0] == "s":
        scheme, rest = "https", rest[1:]
    else:
        scheme = "http"
    return scheme, rest[0].lower(), "/" + "/".join(rest[1:])


def _normalize_segment(segment: str) -> str:
    """One path segment, percent-encoded one way whether it came encoded or not.

    A segment that is UTF-8 once decoded is re-encoded. One that is not (a windows-1256 slug of an
    old Arabic site) keeps its bytes, only its escapes upper-cased: decoding it would turn every
    byte into U+FFFD, and two different slugs of one length into one URL, so one claim id.
    """
    try:
        return quote(unquote(segment, errors="strict"), safe=_SEGMENT_SAFE)
    except UnicodeDecodeError:
        kept = _STRAY_PERCENT.sub("%25", quote(segment, safe=_SEGMENT_SAFE + "%"))
        return _ESCAPE.sub(lambda escape: escape[0].upper(), kept)


def _normalize_path(path: str) -> str:
    segments = [_normalize_segment(seg) for seg in path.split("/") if seg]
    if segments and segments[-1].lower() in _DEFAULT_DOCUMENTS:
        segments.pop()
    if segments and segments[-1].lower() == "amp":
        segments.pop()
    return "/" + "/".join(segments)


def _is_tracking(name: str) -> bool:
    lower = name.lower()
    return lower in TRACKING_PARAMS or lower.startswith(_TRACKING_PREFIXES)


def canonicalize_url(url: str) -> str:
    """The canonical form of an absolute http(s) URL.

    Lower-case scheme and host; ``www.``/``m.``/``amp.`` hosts and AMP-cache addresses folded;
    default port, fragment, ``/amp`` suffix, ``index.html`` and trailing slash dropped; path
    percent-encoding made uniform; tracking parameters removed and the others sorted.
    """
    text = url.strip()
    if _CONTROL.search(text):  # a line break inside a search result's link made two fetches of two other URLs
        raise UrlError(f"URL contains a control character or line separator (line break, U+2028, tab, NUL...): {url!r}")
    try:
        parts = urlsplit(text)
        port = parts.port
    except ValueError as exc:
        raise UrlError(f"invalid URL {url!r}: {exc}") from exc
    scheme = parts.scheme.lower()
    host = (parts.hostname or "").lower()
    if scheme not in {"http", "https"} or not host:
        raise UrlError(f"not an absolute http(s) URL: {url!r}")
    if ":" in host:  # an IPv6 address keeps its brackets: "http://::1:8080/x" is no URL
        host = f"[{host}]"
    scheme, host, path = _unwrap_amp_cache(scheme, host, parts.path)
    if not host:  # "google.com/amp/s/" wraps no page: "https:///" is no URL
        raise UrlError(f"AMP address without the address of the page it serves: {url!r}")
    host = _bare_host(host)
    netloc = host if port in (None, _DEFAULT_PORTS.get(scheme)) else f"{host}:{port}"
    # A byte that is not UTF-8 (a windows-1256 value) is carried through as a surrogate and written
    # back as itself: replaced by U+FFFD, two values of one length were one URL, as slugs were.
    query = sorted(
        (k, v) for k, v in parse_qsl(parts.query, keep_blank_values=True, errors="surrogateescape")
        if not _is_tracking(k) and not (k.lower() == "outputtype" and v.lower() == "amp")
    )
    return urlunsplit((scheme, netloc, _normalize_path(path),
                       urlencode(query, quote_via=quote, errors="surrogateescape"), ""))


def domain_of(url: str) -> str:
    """The site a URL belongs to: its host without ``www.``/``m.``/``amp.`` and without port."""
    return urlsplit(canonicalize_url(url)).hostname or ""


def mirror_url(url: str, mirror_base: str) -> str:
    """``https://<domain>/<path>?<query>`` -> ``<mirror_base>mirror/<domain>/<path>?<query>``."""
    parts = urlsplit(url)
    if not parts.netloc:
        raise UrlError(f"not an absolute URL: {url!r}")
    base = mirror_base if mirror_base.endswith("/") else mirror_base + "/"
    path = parts.path or "/"
    return f"{base}mirror/{parts.netloc.lower()}{path}" + (f"?{parts.query}" if parts.query else "")
