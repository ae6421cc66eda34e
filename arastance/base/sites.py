"""The site registry: one TOML file per site, everything else derived from it.

``arastance/base/site_configs/<site>.toml`` says who the site is (name, country, kind, the veracity of
its claims, whether it is crawled by default, the time zone whose calendar its dates are told on),
where its pages are (canonical base, listing start paths, the archive's claim-URL pattern) and which
selectors override the generic extraction layers. The spider classes (:mod:`spiders.crawlers.sites`),
the staging contract's ``SITES`` table (:mod:`arastance.base.staging`), the loader's ``sources`` rows
and the default site set are derived from these files: adding a site is adding a file. The registry
sits in the base layer because both sides of the staging contract read it: the spiders (selectors,
discovery) and the tasks and flows (which sites exist, their archive claim-URL pattern, whether
their live domain is trusted), and spiders and tasks never import each other.

The base URL to crawl comes from the settings (``sites.<site>``, default the TOML's
``canonical_base``) so the same configuration drives the real site and its offline snapshot;
``canonical_base`` is the real site's address, which claims are keyed by wherever the pages
were fetched from.
"""

from __future__ import annotations

import re
import tomllib
from dataclasses import dataclass
from functools import cache
from importlib import resources
from typing import Any, Literal
from urllib.parse import urlsplit
from zoneinfo import ZoneInfo, ZoneInfoNotFoundError

CONFIG_PACKAGE = "arastance.base.site_configs"

#: Discovery methods a site may list in ``[discovery] order`` (implemented by :mod:`spiders.discovery`).
METHODS = ("sitemap", "feed", "wp_rest", "listing")
#: The largest ``per_page`` the WordPress REST API accepts.
WP_REST_MAX_PER_PAGE = 100


class SiteConfigError(ValueError):
    """A site configuration file that is missing, malformed or lacks a required key."""


@dataclass(frozen=True)
class ListingSelectors:
    """Selectors of a listing page: the detail links on it and the link to the next page."""

    detail_links: str
    next_page: str


@dataclass(frozen=True)
class DetailSelectors:
    """Selectors of a detail page, each a list tried in order until one yields text.

    A selector is CSS (``h1.title``, ``time::attr(datetime)``) or XPath when prefixed with
    ``xpath:``; an element selector yields the element's whitespace-collapsed text.
    """

    title: tuple[str, ...]
    claim: tuple[str, ...]
    body: tuple[str, ...]
    published: tuple[str, ...] = ()
    category: tuple[str, ...] = ()
    canonical: tuple[str, ...] = ("link[rel=canonical]::attr(href)",)
    media: tuple[str, ...] = ()


@dataclass(frozen=True)
class SiteConfig:
    """Everything the generic site spider needs to know about one site."""

    source_id: str
    name: str
    country: str
    veracity: Literal["false", "true"]
    canonical_base: str
    start_paths: tuple[str, ...]
    listing: ListingSelectors
    detail: DetailSelectors
    #: ``fact_check`` (false claims) or ``news`` (true claims: headlines), as ``sources.kind``.
    kind: Literal["fact_check", "news"] = "fact_check"
    country_name: str | None = None
    #: The site's IANA time zone (``[site] timezone``): a relative stamp ("منذ 3 ساعات", counted from a
    #: fetch or a capture) and a timestamp in UTC become the day it was there, not UTC's day, which is
    #: a day early after 20:00-22:00 UTC (:mod:`arastance.base.dates`). None where nothing says where
    #: the site is: relative stamps count on UTC's calendar, and a timestamp keeps its written day.
    timezone: ZoneInfo | None = None
    #: Crawled when no site is named; the paper's four are, config-only extra sites are not.
    enabled: bool = True
    #: False when the live domain no longer is the site (Dabegad): it is read from the archive only.
    live: bool = True
    #: Fields whose absence makes a detail page a parse failure.
    required: tuple[str, ...] = ("title", "claim")
    #: ``"title"``: a page without a claim block states its claim in the title (Reuters).
    claim_fallback: Literal["none", "title"] = "none"
    #: A page whose content holds media and at most this many characters of text is multimedia.
    multimedia_max_chars: int = 300
    #: Regular expression on a URL's path (and query) that marks a claim page among a site's archive
    #: captures; None: every HTML capture is tried.
    archive_claim_url: str | None = None
    #: Discovery methods tried in order (METHODS) and where each one looks.
    discovery: tuple[str, ...] = ("listing",)
    sitemaps: tuple[str, ...] = ("sitemap.xml",)
    feeds: tuple[str, ...] = ("feed/",)
    wp_rest: str = "wp-json/wp/v2/posts"
    #: Posts asked for per REST page (``per_page``): WordPress allows 1 to 100, and the largest
    #: page needs the fewest requests.
    wp_rest_per_page: int = WP_REST_MAX_PER_PAGE
    #: A detail page of the site, relative to its base URL, that ``scrapy check`` parses
    #: (``[contracts] detail``; a page of the offline snapshots).
    contract_detail_path: str = ""

    @property
    def archive_host(self) -> str:
        """The host whose captures the archive lists for this site (``norumors.net``)."""
        return urlsplit(self.canonical_base).netloc.removeprefix("www.")

    def is_claim_url(self, url: str) -> bool:
        """Whether the page at ``url`` should be parsed as a claim page. ``url`` is the canonical URL
        (:func:`arastance.base.urls.canonicalize_url`), as live and archive discovery both pass it: the
        pattern describes a post's own address, not its AMP or tracking-parameter spellings."""
        if self.archive_claim_url is None:
            return True
        parts = urlsplit(url)
        target = parts.path + (f"?{parts.query}" if parts.query else "")
        return re.search(self.archive_claim_url, target) is not None


def _strings(value: object, where: str) -> tuple[str, ...]:
    if isinstance(value, str):
        return (value,)
    if isinstance(value, list) and all(isinstance(v, str) for v in value):
        return tuple(value)
    raise SiteConfigError(f"{where} must be a string or a list of strings, got {value!r}")


def _discovery(table: dict, source: str) -> dict[str, Any]:
    """The ``[discovery]`` table: ``order`` of methods and where sitemaps, feeds and REST live."""
    out: dict[str, Any] = {}
    if "order" in table:
        order = _strings(table["order"], f"{source}: discovery.order")
        unknown = [m for m in order if m not in METHODS]
        if unknown or not order:
            raise SiteConfigError(f"{source}: discovery.order {list(order)} must name some of {list(METHODS)}")
        out["discovery"] = order
    for key in ("sitemaps", "feeds"):
        if key in table:
            out[key] = _strings(table[key], f"{source}: discovery.{key}")
    if "wp_rest" in table:
        out["wp_rest"] = str(table["wp_rest"])
    if "wp_rest_per_page" in table:
        out["wp_rest_per_page"] = parse_wp_rest_per_page(table["wp_rest_per_page"], f"{source}: discovery.wp_rest_per_page")
    return out


def parse_timezone(value: object, where: str) -> ZoneInfo:
    """``value`` as an IANA time zone; a misspelt one ("Asia/Dubia") is refused here, where its file is
    known, not met as a wrong calendar day in every claim of the site."""
    hint = "an IANA time zone name such as 'Asia/Dubai' or 'Africa/Cairo'"
    if not isinstance(value, str) or not value.strip():
        raise SiteConfigError(f"{where} must be {hint}, got {value!r}")
    try:
        return ZoneInfo(value)
    # ValueError: a path-like key ("../x", "/etc/localtime"); OSError: a folder of zones ("Asia"), a name too long
    except (ZoneInfoNotFoundError, ValueError, OSError):
        raise SiteConfigError(f"{where} is no known time zone: {value!r} (must be {hint})") from None


def parse_wp_rest_per_page(value: object, where: str) -> int:
    """``value`` as a REST page size; WordPress answers 400 to one outside 1..100, so it is refused here."""
    text = str(value).strip()
    if isinstance(value, bool) or not text.isdigit() or not 1 <= int(text) <= WP_REST_MAX_PER_PAGE:
        raise SiteConfigError(f"{where} must be a whole number from 1 to {WP_REST_MAX_PER_PAGE}, got {value!r}")
    return int(text)


def parse_site_config(data: dict, source: str) -> SiteConfig:
    """Build a :class:`SiteConfig` from parsed TOML; errors name the file and the key."""
    try:
        site = data["site"]
        listing = data["listing"]
        detail = data["detail"]
        detail_kwargs = {
            key: _strings(detail[key], f"{source}: detail.{key}")
            for key in ("title", "claim", "body", "published", "category", "canonical", "media")
            if key in detail
        }
        missing = [k for k in ("title", "claim", "body") if k not in detail_kwargs]
        if missing:
            raise SiteConfigError(f"{source}: [detail] lacks {', '.join(missing)}")
        config = SiteConfig(
            source_id=site["source_id"],
            name=site["name"],
            country=site["country"],
            veracity=site["veracity"],
            canonical_base=site["canonical_base"],
            kind=site.get("kind", "fact_check"),
            country_name=site.get("country_name") or None,
            timezone=parse_timezone(site["timezone"], f"{source}: site.timezone") if "timezone" in site else None,
            enabled=bool(site.get("enabled", True)),
            live=bool(site.get("live", True)),
            start_paths=_strings(site["start_paths"], f"{source}: site.start_paths"),
            listing=ListingSelectors(detail_links=listing["detail_links"], next_page=listing["next_page"]),
            detail=DetailSelectors(**detail_kwargs),
            required=_strings(site.get("required", ["title", "claim"]), f"{source}: site.required"),
            claim_fallback=site.get("claim_fallback", "none"),
            multimedia_max_chars=int(site.get("multimedia_max_chars", 300)),
            archive_claim_url=data.get("archive", {}).get("claim_url"),
            contract_detail_path=str(data.get("contracts", {}).get("detail", "")),
            **_discovery(data.get("discovery", {}), source),
        )
    except KeyError as exc:
        raise SiteConfigError(f"{source}: missing key {exc.args[0]!r}") from None
    if config.veracity not in ("false", "true"):
        raise SiteConfigError(f"{source}: site.veracity must be 'false' or 'true', got {config.veracity!r}")
    if config.kind not in ("fact_check", "news"):
        raise SiteConfigError(f"{source}: site.kind must be 'fact_check' or 'news', got {config.kind!r}")
    if config.claim_fallback not in ("none", "title"):
        raise SiteConfigError(f"{source}: site.claim_fallback must be 'none' or 'title'")
    if not config.canonical_base.endswith("/"):
        raise SiteConfigError(f"{source}: site.canonical_base must end with '/'")
    if config.archive_claim_url is not None:
        try:
            re.compile(config.archive_claim_url)
        except re.error as exc:
            raise SiteConfigError(f"{source}: archive.claim_url is not a regular expression: {exc}") from None
    unknown = set(config.required) - {"title", "claim", "body", "published", "category"}
    if unknown:
        raise SiteConfigError(f"{source}: site.required names unknown field(s) {sorted(unknown)}")
    return config


def available_sites() -> list[str]:
    """The sites that have a configuration file, i.e. the spiders that exist."""
    return sorted(
        entry.name.removesuffix(".toml")
        for entry in resources.files(CONFIG_PACKAGE).iterdir()
        if entry.name.endswith(".toml")
    )


def enabled_sites() -> list[str]:
    """The sites crawled when none is named (``enabled = true`` in their TOML)."""
    return [site for site in available_sites() if load_site_config(site).enabled]


def all_site_configs() -> list[SiteConfig]:
    """Every registered site's configuration, by name."""
    return [load_site_config(site) for site in available_sites()]


@cache
def load_site_config(site: str) -> SiteConfig:
    """Read ``arastance/base/site_configs/<site>.toml``."""
    resource = resources.files(CONFIG_PACKAGE) / f"{site}.toml"
    if not resource.is_file():
        raise SiteConfigError(f"no site configuration {site}.toml; known sites: {', '.join(available_sites())}")
    source = f"arastance/base/site_configs/{site}.toml"
    try:
        data = tomllib.loads(resource.read_text(encoding="utf-8"))
    except tomllib.TOMLDecodeError as exc:
        raise SiteConfigError(f"{source}: {exc}") from None
    config = parse_site_config(data, source)
    if config.source_id != site:
        raise SiteConfigError(f"{source}: site.source_id is {config.source_id!r}, expected {site!r}")
    return config


def site_base_url(sites: Any, site: str) -> str:
    """Where ``site`` is crawled from: ``sites.<site>`` when set, else its canonical base."""
    configured = sites.base_url(site)
    base = configured or load_site_config(site).canonical_base
    return base if base.endswith("/") else base + "/"


def crawl_modes(site: str, mode: str) -> list[str]:
    """The passes a crawl in ``mode`` (live, archive, both) makes over ``site``, in order.

    A site whose live domain is no longer trusted (``live = false``) is read from the archive
    whatever the mode.
    """
    if mode not in ("live", "archive", "both"):
        raise ValueError(f"crawl mode must be live, archive or both, got {mode!r}")
    if not load_site_config(site).live:
        return ["archive"]
    return ["live", "archive"] if mode == "both" else [mode]
