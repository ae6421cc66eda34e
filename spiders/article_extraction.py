"""Title, publication date and main text of a news article page, with BeautifulSoup.

News pages wrap the story in navigation, share bars, "most read" lists, comment forms and
footers. The main text is found the way readability-style extractors do it, kept small: drop
the elements that are never content (by tag, and by id/class words such as ``share``,
``most-read``, ``comments`` unless they also say ``content``/``body``), split the page into
paragraphs (the text written directly in an element, cut at ``<br>`` and block children, so
``<p>`` pages, ``<div>`` blocks and forum posts with ``<br><br>`` all work), score each
paragraph's parent (and half to its grandparent) by the paragraph's length, link-heavy ones
not counting, and keep the paragraphs inside the best-scoring element, the headline excluded.
Dates come from the page's machine-readable markup first (meta tags, JSON-LD,
``itemprop="datePublished"``, Drupal's RDFa ``property="dc:date dc:created"`` of the node itself), then
from ``<time>`` elements and the visible date line (Drupal's ``field--name-created`` / ``submitted``,
Joomla's ``create``), those of the article's own ``<footer>``s counting only when nothing outside them
dates the page (a "read also" list, an edit's date, a comment's byline are printed there), and last
from an update's date line ("updated", "modified-date", ``itemprop="dateModified"``), which dates a
page only when nothing else does. A Drupal byline's numeric date that reads as two days, its US
``m/d/Y`` or day first, with no weekday to tell them apart, dates nothing. A modification date
that only the markup states (``article:modified_time``, JSON-LD ``dateModified``) is never read:
the CMS fills it from the latest edit, often years after the story, and a page dated by it falls
after its claim's window, where an undated page is kept (``tasks.date_window``). A relative stamp
("منذ 3 أسابيع") gives way only to an exact date of the markup, or of its own date line (the byline)
that agrees with it, never to one further down the body: a "read also" box, a birth date or a
photo's caption is another's. Those are read only outside the never-content
elements and the boilerplate blocks about other pages: a site header prints today's date, and a
"most read" list the dates of other stories, before the article's own. The title is the
``og:title``, else the article's ``<h1>`` (not a logo's ``<h1>`` in the page header, which is the
site name), else the ``<title>``'s headline.

On the demo world's 739 pages (13 site layouts) title, date and text all come out exactly as
written; trafilatura 2.3 gets 47% of the texts and 84% of the dates exactly, 4x slower, so it
is not a dependency (``benchmarks/bench_retrieval.py`` re-measures ours).
"""

from __future__ import annotations

import json
import re
from collections import defaultdict
from collections.abc import Iterator, Sequence
from dataclasses import dataclass, field
from datetime import date, datetime, timedelta, timezone
from itertools import chain
from typing import Literal, NamedTuple

from bs4 import BeautifulSoup, CData, Comment, NavigableString, PageElement, Tag

from arastance.base.arabic import normalize
from arastance.base.dates import EXACT_KINDS, ParsedDate, parse_published, preferred_date

#: The elements whose own ``<header>`` is the article's (HTML5), not the site's.
ARTICLE_TAGS = ("article", "main")
#: Elements that never hold the article's text.
DROP_TAGS = ("script", "style", "noscript", "nav", "header", "footer", "aside", "form", "iframe", "svg",
             "button", "select", "template")
#: An article's own ``<header>`` and ``<footer>`` hold its byline (Drupal's ``<footer class="node__meta">``,
#: WordPress themes' ``entry-footer``): kept until its date is read, never its text. A ``<footer>`` is the
#: article's only inside an ``<article>``: one of a ``<main>`` (or ``<div>``) is the site's, with today's date.
BYLINE_TAGS: dict[str, tuple[str, ...]] = {"header": ARTICLE_TAGS, "footer": ("article",)}
#: class/id words of the boilerplate blocks that hold other pages' text (menus, share bars, related
#: lists, comments, ads): a date in one is not the article's.
OTHER_PAGES = re.compile(
    r"\b(nav|navbar|menu|breadcrumbs?|sidebar|side|widget|share|sharing|social|related|most read|"
    r"popular|trending|comments?|footer|header|ads?|adv|advert\w*|banner|promo|newsletter|subscribe|"
    r"cookie|tags?|copyright|signature|userinfo|username|usertitle|reactions|pagination|more|similar)\b",
    re.IGNORECASE,
)
#: class/id words of the article's own date line and byline: boilerplate for the text, where its date is.
DATE_LINE = re.compile(r"\b(meta|date|byline|author|write by|writer)\b", re.IGNORECASE)
#: Drupal's byline classes (core templates: Drupal 7 node.tpl.php ``submitted``, Drupal 8+ classy
#: ``node__submitted`` and field--node--created.html.twig ``field--name-created``), whole class names: the
#: words alone name other things ("user-submitted-photo", "created-by").
DRUPAL_BYLINE = frozenset({"submitted", "node__submitted", "field--name-created"})
#: The classes of a Drupal 8+ node's own byline (classy's ``<footer class="node__meta">``), which a comment's
#: byline ("submitted" in its own footer) does not have.
NODE_BYLINE = frozenset({"node__meta", "node__submitted", "field--name-created"})
#: The CMS classes that name a date line, Drupal's and Joomla's ``<dd class="create">`` (not its author's
#: ``createdby``): date lines like "post-date", and text of no paragraph.
CMS_DATE_LINE = DRUPAL_BYLINE | {"create"}
#: ... unless they also say they hold the content ("pager-content", "post-body entry-content").
CONTENT_MARK = re.compile(r"\b(content|body|story|article|entry|text|post body|main)\b", re.IGNORECASE)
_CAMEL = re.compile(r"(?<=[a-z])(?=[A-Z])")
#: class/id words of a site's logo block, whose ``<h1>`` is the site's name.
LOGO = re.compile(r"logo|brand|site ?(name|title)", re.IGNORECASE)
DATE_META = ("article:published_time", "og:published_time", "datepublished", "pubdate", "publishdate",
             "date", "dc.date", "dc.date.issued", "sailthru.date", "parsely-pub-date")
MIN_PARAGRAPH_CHARS = 25
#: Inside the chosen container shorter lines still count (hashtags, a one-line quote).
MIN_KEPT_CHARS = 15
#: Elements that start a new paragraph; everything else is inline text of its parent.
BLOCK_TAGS = frozenset({
    "p", "div", "li", "ul", "ol", "dl", "dt", "dd", "td", "th", "tr", "table", "tbody", "thead", "blockquote",
    "section", "article", "main", "figure", "figcaption", "pre", "address", "h1", "h2", "h3", "h4", "h5", "h6",
    "header", "footer", "aside", "nav", "form", "hr",
})
HEADINGS = frozenset({"h1", "h2", "h3", "h4", "h5", "h6"})
_SPACES = re.compile(r"\s+")


@dataclass(frozen=True)
class ExtractedArticle:
    title: str | None
    published_raw: str | None
    published_date: date | None
    paragraphs: list[str] = field(default_factory=list)

    @property
    def text(self) -> str:
        return "\n\n".join(self.paragraphs)


def _text(node: Tag) -> str:
    return _SPACES.sub(" ", node.get_text(" ", strip=True)).strip()


def _class_words(node: Tag) -> str:
    """id and classes as words: ``shareBar most-read`` -> ``share Bar most read``."""
    marks = " ".join([node.get("id") or "", *(node.get("class") or [])])
    return _CAMEL.sub(" ", marks).replace("-", " ").replace("_", " ")


def _classes(node: Tag) -> set[str]:
    """An element's class names, lowercased."""
    return {css.lower() for css in node.get("class") or ()}


def _is_boilerplate(node: Tag, words_of: re.Pattern[str], classes: frozenset[str] = frozenset()) -> bool:
    """Whether a block's class/id words match ``words_of``, or one of its class names is in ``classes``,
    and none of its words says it holds the content."""
    if node.attrs is None or node.name in ("body", "html", "article", "main"):
        return False
    words = _class_words(node)
    return bool(words_of.search(words) or classes & _classes(node)) and not CONTENT_MARK.search(words)


def _is_site_chrome(node: Tag, in_story: bool) -> bool:
    """Whether a block is the site's, not the article's: a navigation bar, a logo or brand block,
    or a page header (a ``<header>`` inside an ``<article>``/``<main>`` holds the story's headline)."""
    return (node.name == "nav" or (node.name == "header" and not in_story)
            or bool(node.attrs and LOGO.search(_class_words(node))))


def _article_h1s(soup: BeautifulSoup) -> Iterator[Tag]:
    """The ``<h1>``s outside the site's chrome (a logo's ``<h1>`` is the site name), in page
    order, top down: a chrome block's subtree is never visited, nor an ``<h1>``'s (asking each
    ``<h1>`` about its ancestors was quadratic on nested ones)."""
    stack: list[tuple[Tag, bool]] = [(soup, False)]
    while stack:
        node, in_story = stack.pop()
        if node.name == "h1":
            yield node
            continue
        in_story = in_story or node.name in ("article", "main")
        stack.extend((child, in_story) for child in reversed(node.contents)
                     if isinstance(child, Tag) and not _is_site_chrome(child, in_story))


def _title(soup: BeautifulSoup) -> str | None:
    for attrs in ({"property": "og:title"}, {"name": "twitter:title"}):
        meta = soup.find("meta", attrs=attrs)
        if meta and meta.get("content", "").strip():
            return meta["content"].strip()
    for h1 in _article_h1s(soup):
        if _text(h1):
            return _text(h1)
    if soup.title and soup.title.string:
        # "<headline> | <site name>": keep the headline
        return re.split(r"\s+[|\-–—]\s+", soup.title.string.strip())[0] or None
    return None


def _json_ld_dates(soup: BeautifulSoup) -> list[str]:
    """Every ``datePublished`` in the page's JSON-LD, in document order. A block that is not JSON,
    or nested past what the parser reads (``RecursionError``: a hostile page's 100,000 ``[``), is
    skipped; the walk keeps its own stack, since a block the parser does read may still be nested
    deeper than Python's recursion limit allows a recursive walk."""
    found: list[str] = []
    for script in soup.find_all("script", attrs={"type": "application/ld+json"}):
        try:
            stack = [json.loads(script.string or "")]
        except (json.JSONDecodeError, RecursionError):
            continue
        while stack:
            obj = stack.pop()
            if isinstance(obj, dict):
                if isinstance(obj.get("datePublished"), str):
                    found.append(obj["datePublished"])
                stack.extend(reversed(list(obj.values())))
            elif isinstance(obj, list):
                stack.extend(reversed(obj))
    return found


def _markup_dates(soup: BeautifulSoup) -> list[str]:
    """The page's machine-readable publication dates (meta tags, JSON-LD), most reliable first."""
    metas = {}
    for meta in soup.find_all("meta"):
        name = (meta.get("property") or meta.get("name") or meta.get("itemprop") or "").lower()
        if name and meta.get("content"):
            metas.setdefault(name, meta["content"].strip())
    return [metas[n] for n in DATE_META if n in metas] + _json_ld_dates(soup)


#: What a date line's class holds ("post-date", "newsdate", "newsStoryDate", "timestamp", "published"; a
#: CMS's byline is named by a whole class name, :data:`CMS_DATE_LINE`) ...
_DATE_WORD = re.compile(r"date|time|published", re.IGNORECASE)
#: ... outside the words that merely hold those letters, or name a date that is no publication's:
#: "candidate-card" (a birth date), "sentiment-score", "timeline" (other stories), "prayer-times",
#: "runtime", "maritime", "outdated".
_NOT_A_DATE_WORD = re.compile(r"candidate|validate|mandate|accommodate|consolidate|liquidate|outdated|intimidated"
                              r"|sentiment|maritime|runtime|lifetime|timeline|prayer[-_]?times?", re.IGNORECASE)
#: A class naming the date of an update rather than the publication ("updated", "lastupdate",
#: "last-updated", "date-updated", "update-time", "modified-date"), or an element marked
#: ``itemprop="dateModified"`` (Joomla's ``<dd class="modified"><time itemprop="dateModified">``): the
#: last tier, which dates a page only when nothing else does (hAtom's ``<span class="updated">`` may be
#: a page's one date).
_UPDATE_WORD = re.compile(r"updat|modified", re.IGNORECASE)
#: The most text one date line holds (a byline: author, place, date, a relative stamp, an update).
DATE_LINE_CHARS = 150

_DateTier = Literal["line", "update"]


def _tokens(value: object) -> set[str]:
    """The space-separated names of a microdata or RDFa attribute (``itemprop``, ``property``), lowercased."""
    return set(value.lower().split()) if isinstance(value, str) else set()


def _date_tier(node: Tag) -> _DateTier | None:
    """Which date an element's classes name: its publication's date line ("line"), else only an
    update's ("update"), else none. A class naming the publication wins: WordPress marks a post never
    edited ``<time class="entry-date published updated">``; but ``itemprop="dateModified"`` states the
    modification whatever the classes say (a ``<time>`` has none in Joomla's layout, and was read as
    the publication's)."""
    if "datemodified" in _tokens(node.get("itemprop")):
        return "update"
    if CMS_DATE_LINE & _classes(node):
        return "line"
    tiers = {"update" if _UPDATE_WORD.search(css) else "line"
             for css in node.get("class") or ()
             if _UPDATE_WORD.search(css) or _DATE_WORD.search(_NOT_A_DATE_WORD.sub(" ", css))}
    return "line" if "line" in tiers else "update" if tiers else None


@dataclass(frozen=True)
class _PageDates:
    """A page's date strings by how far they are trusted, each tier in page order by kind: the
    machine-readable markup (meta tags, JSON-LD, the node's own ``itemprop="datePublished"`` and RDFa
    creation dates), the visible date lines (in :func:`_page_dates`'s order), and last the update's
    date lines (``<time>``, then date classes); and which date lines are printed in a Drupal byline, by id."""

    markup: list[tuple[str, Tag | None]]
    lines: list[tuple[str, Tag]]
    updates: list[tuple[str, Tag]]
    in_drupal_byline: frozenset[int]


#: The RDFa properties of an element whose ``content`` is the publication's instant: Drupal's core RDF
#: module (Drupal 7 to 10) marks a node's creation date ``<span property="dc:date dc:created"
#: content="2016-05-03T09:15:00+03:00">``, around or beside a byline that prints it in the site's format,
#: by default the US ``m/d/Y``, which :func:`parse_published` reads day first (06/07 as 6 July).
RDFA_PUBLISHED = frozenset({"dc:created", "dcterms:created", "datepublished", "schema:datepublished"})


def _states_publication(node: Tag) -> bool:
    """Whether an element's microdata or RDFa names its value the publication date."""
    return "datepublished" in _tokens(node.get("itemprop")) or bool(_tokens(node.get("property")) & RDFA_PUBLISHED)


class _Place(NamedTuple):
    """Where an element is printed."""

    #: inside (or is) one of the article's own ``<footer>``s (the site's are gone by now)
    in_footer: bool
    #: inside a list item (another story) or an ``<article>`` inside another (a comment, a teaser: a node
    #: of its own)
    another_items: bool
    #: inside (or is) an element with a :data:`DRUPAL_BYLINE` class
    drupal_byline: bool


def _places(body: Tag) -> dict[int, _Place]:
    """The :class:`_Place` of every element of ``body``, by id, in one walk down the page with its own
    stack (asking each date element about its ancestors was quadratic in nested ones)."""
    places: dict[int, _Place] = {}
    # an element, whether it is inside a footer, inside another item, the articles around it, in a Drupal byline
    stack: list[tuple[Tag, bool, bool, int, bool]] = [(body, False, False, 0, False)]
    while stack:
        node, footer, another, articles, byline = stack.pop()
        # Drupal 8's node__meta footer is the node's own byline, printed at its top: not read as a footer
        footer = (footer or node.name == "footer") and not NODE_BYLINE & _classes(node)
        another = another or node.name == "li" or (node.name == "article" and articles > 0)
        byline = byline or bool(DRUPAL_BYLINE & _classes(node))
        places[id(node)] = _Place(footer, another, byline)
        articles += node.name == "article"
        stack.extend((child, footer, another, articles, byline) for child in reversed(node.contents)
                     if isinstance(child, Tag))
    return places


def _page_dates(markup: list[str], body: Tag) -> _PageDates:
    """``markup`` (the head's dates) and the date elements of ``body``, which is already without
    the blocks about other pages, so these are the article's own, or its own footer's.

    A machine-readable date is the markup's, unless a footer's (then a date line, ahead of the ``<time>``
    and class lines beside it) or another item's (a list item, a nested article: a date line after them,
    which dates a page holding its one story in a list item, not one with teasers in a list). Drupal prints
    a comment's ``dc:created`` in its byline outside any "comment" wrapper. Date lines are read outside
    every footer first, then in the footers (:class:`_Place`), each part top down with its machine-readable
    dates and Drupal's node byline, then ``<time>``, then the date classes: a footer dates the page only
    when nothing outside the footers does. Footers hold a "read also" list, an edit's date, a comment's
    byline, a photo's credit, or the footers of teasers printed above the story, whose ``<time>``, read
    before every date class, beat the story's byline; the byline a footer holds (WordPress'
    ``entry-footer``) dates a page that has no other, and Drupal 8's ``node__meta`` footer, the node's own
    byline at its top, is read as no footer."""
    marked: list[tuple[str, Tag | None]] = [(raw, None) for raw in markup]
    places = _places(body)
    lines: list[tuple[tuple[bool, int], str, Tag]] = []  # (in a footer, kind), raw, element
    updates: list[tuple[str, Tag]] = []
    seen: set[int] = set()
    for node in body.find_all(_states_publication):
        raw, place = node.get("content") or node.get("datetime") or _text(node), places[id(node)]
        if place.another_items or place.in_footer:
            seen.add(id(node))  # another item's: after the lines of its part (a teaser's, or the one story's)
            lines.append(((place.in_footer, 3 if place.another_items else 0), raw, node))
        else:
            marked.append((raw, node))
    for node in body.find_all("time"):
        if id(node) in seen:
            continue
        seen.add(id(node))
        raw = node.get("datetime") or _text(node)
        if _date_tier(node) == "update":
            updates.append((raw, node))
        else:
            lines.append(((places[id(node)].in_footer, 1), raw, node))
    for node in body.find_all(class_=True):
        tier = _date_tier(node) if id(node) not in seen else None
        if tier == "update":
            updates.append((_text(node), node))
        elif tier == "line":  # a CMS's byline of the node names its date: ahead of a <time> in its part
            place = places[id(node)]
            lines.append(((place.in_footer, 0 if place.drupal_byline else 2), _text(node), node))
    lines.sort(key=lambda line: line[0])  # stable: page order within a part and kind
    return _PageDates(marked, [(raw, node) for _, raw, node in lines], updates,
                      frozenset(id(node) for _, _, node in lines if places[id(node)].drupal_byline))


#: A numeric day/month/year whose first two numbers may each be the month ("06/07/2016").
_TWO_WAY = re.compile(r"(?<!\d)(0?[1-9]|1[0-2])([-/.])(0?[1-9]|1[0-2])(?=[-/.]\d{4}(?!\d))")


def _swapped(m: re.Match[str]) -> str:
    """A :data:`_TWO_WAY` match with its two first numbers swapped."""
    return m[0] if int(m[1]) == int(m[3]) else m[3] + m[2] + m[1]


def _read_line(raw: str, now: datetime, *, in_drupal_byline: bool) -> ParsedDate:
    """A date line's reading, but none for a Drupal byline's numeric date that reads as another day with
    its day and month swapped ("Submitted by admin on 06/07/2016 - 10:30"): Drupal's default format is
    the US ``m/d/Y`` (7 June) and :func:`parse_published` reads day first (6 July), as Arabic pages write
    it, unless a weekday beside it fits one reading only; a site may set either. An undated page is kept
    (and flagged) by the date window, one dated a month off may fall outside it; an RDFa or
    ``<time datetime>`` beside it states the day. Nor for a line of a Drupal byline longer than a date line
    (:data:`DATE_LINE_CHARS`), which holds more than the byline: read in full, every block of a page of
    3,000 nested byline blocks that read two ways would be parsed twice (190 s)."""
    if in_drupal_byline and len(raw) > DATE_LINE_CHARS:
        return ParsedDate(None, raw, "unparsed")
    parsed = parse_published(raw, now=now)
    if in_drupal_byline and parsed.kind in EXACT_KINDS:
        text = normalize(raw)
        swapped = _TWO_WAY.sub(_swapped, text)
        if swapped != text and parse_published(swapped, now=now).date != parsed.date:
            return ParsedDate(None, raw, "unparsed")
    return parsed


def _text_left(node: PageElement, budget: int) -> int | None:
    """How many characters of ``budget`` the text of ``node`` leaves, or None when it holds more;
    read no further than that, since an ancestor of a date may hold the whole page."""
    if isinstance(node, Comment):
        return budget
    for text in [node] if isinstance(node, NavigableString) else node.strings:
        budget -= len(text.strip())
        if budget < 0:
            return None
    return budget


#: Elements that hold the whole story, never one date line of it.
_WHOLE_PAGE = frozenset({"body", "html", "article", "main", "[document]"})


class _DateLine:
    """The date line a relative stamp is printed in: its largest ancestor of at most
    :data:`DATE_LINE_CHARS` characters (a byline, a date ``<div>``; never the article itself), and
    the siblings next to that with only inline text between (``<time>منذ 3 أسابيع</time> |
    <span class="date">12 مايو 2016</span>``), up to a block or a line break."""

    def __init__(self, stamp: Tag) -> None:
        line, left = stamp, _text_left(stamp, DATE_LINE_CHARS)
        while left is not None and isinstance(line.parent, Tag) and line.parent.name not in _WHOLE_PAGE:
            wider: int | None = left  # the parent's text is the line's and its siblings': each read once
            for sibling in chain(line.previous_siblings, line.next_siblings):
                wider = _text_left(sibling, wider)
                if wider is None:
                    break
            if wider is None:
                break
            line, left = line.parent, wider
        members = [line]
        for siblings in (line.next_siblings, line.previous_siblings):
            budget: int | None = left or 0
            for sibling in siblings:
                if isinstance(sibling, Tag) and sibling.name == "br":
                    break
                budget = _text_left(sibling, budget)
                if budget is None:
                    break
                members.append(sibling)
                if isinstance(sibling, Tag) and sibling.name in BLOCK_TAGS:
                    break
        #: whether an element is inside the line, by id: each element's ancestors are walked once
        #: for all the candidates (asking each candidate's every ancestor was quadratic in nested ones)
        self._inside = {id(member): True for member in members}

    def holds(self, node: Tag) -> bool:
        """Whether ``node`` is printed in this date line."""
        path: list[PageElement] = []
        verdict = False
        for element in chain((node,), node.parents):
            known = self._inside.get(id(element))
            if known is not None:
                verdict = known
                break
            path.append(element)
        self._inside.update((id(element), verdict) for element in path)
        return verdict


def _agrees(exact: date, stamp: date, now: datetime) -> bool:
    """Whether an exact date may be the day a relative stamp (read as ``stamp``, counted from ``now``)
    rounds: at most about its own age again before it ("منذ 9 سنوات" is 9 to 10 years, "منذ ساعتين" the
    same day), and at most half its age after it, as WordPress's ``human_time_diff`` and moment's
    ``fromNow`` round to the nearest unit (18 days are "منذ 3 أسابيع", 20 months "منذ سنتين"); a day
    either way for the calendars they are told on."""
    age = max((now.date() - stamp).days, 1)
    return stamp - timedelta(days=2 * age + 1) <= exact <= stamp + timedelta(days=age // 2 + 1)


#: A date string of the page, the element it is printed in (None for a meta tag or JSON-LD), and its reading.
_Dated = tuple[str, Tag | None, ParsedDate]


def _preferred(pairs: Sequence[tuple[str, Tag | None]], now: datetime) -> _Dated | None:
    """The ``(raw, element)`` pair :func:`arastance.base.dates.preferred_date` picks (the first exact
    date, else the first relative one) and its reading."""
    chosen = preferred_date([raw for raw, _ in pairs], now=now)
    return None if chosen is None else (*pairs[chosen[0]], chosen[1])


def _published(dates: _PageDates, now: datetime | None) -> tuple[str | None, date | None]:
    """The candidate that states the article's date, and that date: the markup's (its first exact
    date, else its first relative one), else the first date line that reads as a date (relative ones
    counted from ``now``; :func:`_read_line`), else an update's, when nothing else dates the page.

    A relative stamp gives way only to an exact date printed in its own date line (:class:`_DateLine`)
    that agrees with it (:func:`_agrees`): "منذ 9 سنوات" counted from a fetch years later is rough where
    the byline states the day, but an exact date further down the body is another's (a "read also"
    box, a birth date, an event, a photo's caption) and dated the page outside its claim's window.
    Strings are read only as far as the choice needs them."""
    anchor = now or datetime.now(timezone.utc)
    markup = [(raw, node) for raw, node in dates.markup if raw]
    lines = [(raw, node) for raw, node in dates.lines if raw]
    updates = [(raw, node) for raw, node in dates.updates if raw]

    def read(raw: str, node: Tag) -> ParsedDate:
        return _read_line(raw, anchor, in_drupal_byline=id(node) in dates.in_drupal_byline)

    chosen = _preferred(markup, anchor) or next(
        ((raw, node, parsed) for raw, node in lines if (parsed := read(raw, node)).date), None)
    if chosen is not None and chosen[1] is not None and chosen[2].kind not in EXACT_KINDS:
        stamp, day = chosen[1], chosen[2].date
        line = _DateLine(stamp)
        held = ((raw, node, read(raw, node)) for raw, node in lines
                if node is not stamp and line.holds(node))
        chosen = next((c for c in held if c[2].kind in EXACT_KINDS and _agrees(c[2].date, day, anchor)), chosen)
    chosen = chosen or _preferred(updates, anchor)
    if chosen is not None:
        return chosen[0], chosen[2].date
    first = next(iter(markup + lines + updates), None)
    return (first[0] if first else None), None


@dataclass
class _Paragraph:
    holder: Tag  # the element whose own text this is
    text: str
    linked: int  # characters inside links


def _own_paragraphs(node: Tag) -> list[_Paragraph]:
    """The paragraphs written directly in ``node``: its text and inline children, split at
    ``<br>`` and at block children (which hold their own paragraphs)."""
    out: list[_Paragraph] = []
    parts: list[str] = []
    linked = 0

    def flush() -> None:
        nonlocal parts, linked
        text = _SPACES.sub(" ", " ".join(parts)).strip()
        if text:
            out.append(_Paragraph(node, text, linked))
        parts, linked = [], 0

    for child in node.children:
        if isinstance(child, Comment):
            continue
        if isinstance(child, NavigableString):
            parts.append(str(child))
        elif not isinstance(child, Tag):
            continue
        elif child.name == "br" or child.name in BLOCK_TAGS:
            flush()
        else:
            text, in_links = _inline_text(child)
            parts.append(text)
            linked += in_links
    flush()
    return out


def _inline_text(node: Tag) -> tuple[str, int]:
    """The text of an inline element and how much of it is inside links, without the blocks
    inside it: each block holds its own paragraphs. Reading the whole subtree instead made
    alternating ``<div><span>`` nesting quadratic (347 s at 20,000 levels)."""
    parts: list[str] = []
    linked = 0
    stack = [(iter(node.children), node.name == "a")]
    while stack:
        children, in_link = stack[-1]
        child = next(children, None)
        if child is None:
            stack.pop()
        elif type(child) in (NavigableString, CData):
            text = child.strip()
            if text:
                parts.append(text)
                linked += len(text) if in_link else 0
        elif isinstance(child, Tag) and child.name not in BLOCK_TAGS:
            stack.append((iter(child.children), in_link or child.name == "a"))
    return " ".join(parts), linked


def _is_content(par: _Paragraph, title_key: str, min_chars: int = MIN_PARAGRAPH_CHARS) -> bool:
    return (len(par.text) >= min_chars and par.linked <= len(par.text) / 2
            and par.holder.name not in HEADINGS and normalize(par.text) != title_key)


def _inline(node: Tag) -> bool:
    return node.name not in BLOCK_TAGS and node.name not in ("br", "body", "html", "[document]")


def _holders(body: Tag) -> list[Tag]:
    """The elements whose own paragraphs count: ``body`` and every element below it except an
    inline one inside another inline one, whose text its inline parent's paragraph already holds.
    Counting those too made a chain of n nested inline tags (what random bytes parse into) give
    paragraphs of n, n-1, ... texts: 9.7 million characters from a 200 KB page."""
    return [body, *(node for node in body.find_all(True)
                    if not (_inline(node) and isinstance(node.parent, Tag) and _inline(node.parent)))]


def _main_paragraphs(body: Tag, title: str | None) -> list[str]:
    """The paragraphs of the element that holds the most paragraph text (see module doc)."""
    title_key = normalize(title)
    paragraphs = [par for node in _holders(body) for par in _own_paragraphs(node)]
    content = [par for par in paragraphs if _is_content(par, title_key)]
    scores: dict[int, float] = defaultdict(float)
    nodes: dict[int, Tag] = {}
    for par in content:
        weight = 1 + min(len(par.text), 600) / 100
        parent = par.holder.parent if isinstance(par.holder.parent, Tag) else par.holder
        # a story split over sibling blocks still wins as a whole through the grandparent
        for node, share in ((parent, 1.0), (parent.parent, 0.5)):
            if isinstance(node, Tag):
                nodes[id(node)] = node
                scores[id(node)] += weight * share
    if not scores:
        return []
    best = nodes[max(scores, key=scores.__getitem__)]
    inside = {id(best), *(id(n) for n in best.find_all(True))}
    kept: list[str] = []
    for par in paragraphs:
        if id(par.holder) not in inside or not _is_content(par, title_key, MIN_KEPT_CHARS):
            continue
        if not kept or kept[-1] != par.text:
            kept.append(par.text)
    return kept


def _drop_boilerplate(body: Tag, words_of: re.Pattern[str], classes: frozenset[str] = frozenset()) -> None:
    """Remove the blocks whose class/id words match ``words_of`` or that have a class in ``classes``
    (:func:`_is_boilerplate`), top down: a removed block's descendants are never visited.

    (Asking each node ``decomposed`` instead made bs4 search the node's subtree for a
    ``<_decomposed>`` tag: 9.8 s for 5,000 nested ``<div>``s, 152 s for 20,000.)"""
    stack = [body]
    while stack:
        for child in list(stack.pop().children):
            if not isinstance(child, Tag):
                continue
            if _is_boilerplate(child, words_of, classes):
                child.decompose()
            else:
                stack.append(child)


def extract_article(html: str | bytes, *, now: datetime | None = None) -> ExtractedArticle:
    """Title, date and main-text paragraphs of an article page (any part may be missing).

    ``now`` anchors relative dates ("منذ يومين"): an archive copy's capture time, since counted
    from today they would date a 2016 story in the year it was read (default: now)."""
    soup = BeautifulSoup(html, "lxml")
    title = _title(soup)
    markup_dates = _markup_dates(soup)
    body = soup.body or soup
    for node in body.find_all(DROP_TAGS):
        # an article's own <header> / <footer> holds its title and byline: kept until its date is read
        if node.name not in BYLINE_TAGS or node.find_parent(BYLINE_TAGS[node.name]) is None:
            node.decompose()
    _drop_boilerplate(body, OTHER_PAGES)
    published_raw, published = _published(_page_dates(markup_dates, body), now)
    for node in body.find_all(list(BYLINE_TAGS)):
        node.decompose()
    _drop_boilerplate(body, DATE_LINE, CMS_DATE_LINE)
    return ExtractedArticle(title, published_raw, published, _main_paragraphs(body, title))
