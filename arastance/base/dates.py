"""Publication dates as Arabic news and fact-check sites write them, turned into calendar dates.

The sites mix conventions: Egyptian/Gulf month names (مايو), Levantine/Iraqi ones (أيار, كانون
الثاني), Maghrebi ones (ماي, جوان), English, Arabic-Indic digits, Umm al-Qura Hijri dates
("12 رمضان 1437 هـ"), relative stamps ("منذ 3 ساعات", "أمس"), ISO and numeric day/month/year.
A date we cannot read with certainty is recorded as ``unparsed`` with the raw string kept; it is
never guessed, because a wrong date silently moves a claim out of its retrieval window.

Matching runs on :func:`arastance.base.arabic.normalize`'d text (alef/hamza/taa marbuta folded, western
digits), so every month name below is written once and normalised the same way.

A day is told on the site's calendar (``tz``, the site configuration's time zone). A relative stamp
counts back from an instant (a fetch, an archive capture) and a timestamp that names its zone
("2018-03-04T23:30:00Z", "10:44 GMT") is one: each becomes the day it was where the site is. Taken on
UTC's calendar, a page stamped or read after 20:00-22:00 UTC was dated a day early, which moves a claim
across the edge of its retrieval window. A date without a time, or a time without a zone, is the site's
own day and stays as written. A caller that knows no site gives no zone: relative stamps then count on
UTC's calendar and a timestamp keeps the day written in its own offset, usually the publisher's.
"""

from __future__ import annotations

import calendar
import re
from collections.abc import Sequence
from dataclasses import dataclass
from datetime import date, datetime, time, timedelta, timezone, tzinfo
from typing import Literal

from hijridate import Hijri

from arastance.base.arabic import normalize

DateKind = Literal["gregorian", "hijri", "relative", "missing", "unparsed"]

#: Plausible years; outside them a match is a number that merely looks like a date.
GREGORIAN_YEARS = range(1900, 2101)
#: The range of the Umm al-Qura tables that ``hijridate`` converts.
HIJRI_YEARS = range(1343, 1501)


@dataclass(frozen=True)
class ParsedDate:
    """A parsed publication date; ``date`` is None for ``missing`` and ``unparsed``."""

    date: date | None
    raw: str | None
    kind: DateKind

    @property
    def iso(self) -> str | None:
        """``YYYY-MM-DD`` or None, the form staging files carry."""
        return self.date.isoformat() if self.date else None


_GREGORIAN_MONTHS: dict[str, int] = {
    # Egyptian / Gulf transliterations
    "يناير": 1, "فبراير": 2, "مارس": 3, "أبريل": 4, "إبريل": 4, "ابريل": 4, "مايو": 5,
    "يونيو": 6, "يونيه": 6, "يوليو": 7, "يوليه": 7, "أغسطس": 8, "اغسطس": 8, "سبتمبر": 9,
    "أكتوبر": 10, "اكتوبر": 10, "نوفمبر": 11, "ديسمبر": 12,
    # Levantine / Iraqi
    "كانون الثاني": 1, "كانون ثاني": 1, "شباط": 2, "آذار": 3, "نيسان": 4, "أيار": 5,
    "حزيران": 6, "تموز": 7, "آب": 8, "أيلول": 9, "تشرين الأول": 10, "تشرين أول": 10,
    "تشرين الثاني": 11, "تشرين ثاني": 11, "كانون الأول": 12, "كانون أول": 12,
    # Maghrebi
    "جانفي": 1, "فيفري": 2, "أفريل": 4, "ماي": 5, "جوان": 6, "جويلية": 7, "أوت": 8,
    # English
    "january": 1, "jan": 1, "february": 2, "feb": 2, "march": 3, "mar": 3, "april": 4,
    "apr": 4, "may": 5, "june": 6, "jun": 6, "july": 7, "jul": 7, "august": 8, "aug": 8,
    "september": 9, "sept": 9, "sep": 9, "october": 10, "oct": 10, "november": 11, "nov": 11,
    "december": 12, "dec": 12,
}

_HIJRI_MONTHS: dict[str, int] = {
    "محرم": 1, "صفر": 2,
    "ربيع الأول": 3, "ربيع أول": 3, "ربيع الثاني": 4, "ربيع ثاني": 4, "ربيع الآخر": 4,
    "جمادى الأولى": 5, "جمادى الأول": 5, "جمادى الثانية": 6, "جمادى الثاني": 6,
    "جمادى الآخرة": 6, "جمادى الآخر": 6,
    "رجب": 7, "شعبان": 8, "رمضان": 9, "شوال": 10,
    "ذو القعدة": 11, "ذي القعدة": 11, "ذو الحجة": 12, "ذي الحجة": 12,
}

_G_MONTHS = {normalize(k): v for k, v in _GREGORIAN_MONTHS.items()}
_H_MONTHS = {normalize(k): v for k, v in _HIJRI_MONTHS.items()}


def _alternation(names: dict[str, int]) -> str:
    # Longest first so that "ماي" never shadows "مايو" and "مار" never shadows "مارس".
    return "|".join(re.escape(n).replace(r"\ ", r"\s+") for n in sorted(names, key=len, reverse=True))


_GM = _alternation(_G_MONTHS)
_HM = _alternation(_H_MONTHS)
_B = r"(?<!\w)"  # start of a word
_E = r"(?!\w)"  # end of a word
_ORD = r"(?:st|nd|rd|th)?"
# A second month name in brackets or after a slash: "3 أيار (مايو) 2016", "3 أيار/مايو 2016".
_ALSO = rf"(?:\s*[/(\-]?\s*(?:{_GM}){_E}\s*\)?)?"
_HIJRI_MARK = r"(?:\s*(?:ه|هجري|هجريه)" + _E + r")"
# A clock time right after a date, and the zone it is told in: "2018-03-04T23:30:00+00:00",
# "Tue, 03 May 2016 10:00:00 GMT", "9 يوليو 2014 | 10:44 PM GMT+3", "10:44 م بتوقيت غرينتش". A bare
# offset needs its minutes ("+0300"), a named zone may add a short one ("GMT+3").
_CLOCK = re.compile(
    r"\s*(?:(?P<sep>[t,|\-–])\s*)?(?:(?:الساعه|at)\s+)?"
    r"(?P<hour>\d{1,2}):(?P<minute>\d{2})(?::(?P<second>\d{2})(?:[.,]\d+)?)?"
    rf"(?:\s*(?P<half>am|pm|صباحا|مساء|ص|م){_E})?"
    rf"\s*(?:(?:(?:ب?توقيت\s+)?(?P<zone>z|utc|gmt|غرينتش|جرينتش){_E}(?P<shift>[+-]\d{{1,2}}(?::?\d{{2}})?)?)"
    r"|(?P<offset>[+-]\d{2}:?\d{2}))(?![\d:])"
)
_AFTERNOON = ("pm", "مساء", "م")

_DAY_MONTH_YEAR = re.compile(
    rf"{_B}(?P<day>\d{{1,2}}){_ORD}\s*(?:من\s+)?(?:of\s+)?(?P<month>{_GM}){_E}\.?{_ALSO}\s*,?\s*(?P<year>\d{{4}})(?!\d)"
)
_MONTH_DAY_YEAR = re.compile(
    rf"{_B}(?P<month>{_GM}){_E}\.?\s+(?P<day>\d{{1,2}}){_ORD}\s*,?\s+(?P<year>\d{{4}})(?!\d)"
)
_HIJRI_TEXT = re.compile(
    rf"{_B}(?P<day>\d{{1,2}})\s*(?:من\s+)?(?P<month>{_HM}){_E}\s*,?\s*(?P<year>\d{{4}})(?!\d)(?P<mark>{_HIJRI_MARK})?"
)
_ISO = re.compile(r"(?<!\d)(?P<year>\d{4})[-/.](?P<month>\d{1,2})[-/.](?P<day>\d{1,2})(?!\d)(?P<mark>" + _HIJRI_MARK + ")?")
_DMY = re.compile(r"(?<!\d)(?P<day>\d{1,2})[-/.](?P<month>\d{1,2})[-/.](?P<year>\d{4})(?!\d)(?P<mark>" + _HIJRI_MARK + ")?")
#: The weekday names a date line prints right before a numeric date (normalised Arabic, English in
#: full, English abbreviated), by ``date.weekday()`` (Monday 0).
_WEEKDAY_NAMES = (("اثنين", "monday", ("mon",)), ("ثلاثاء", "tuesday", ("tue", "tues")),
                  ("اربعاء", "wednesday", ("wed",)), ("خميس", "thursday", ("thu", "thur", "thurs")),
                  ("جمعه", "friday", ("fri",)), ("سبت", "saturday", ("sat",)), ("احد", "sunday", ("sun",)))
#: A weekday that ends the text before a date, with nothing but blanks and commas between: the Arabic
#: name with its article or after "يوم" (a bare "جمعه" / "خميس" / "احد" is a name, a verb or "one"),
#: the English one in full, or abbreviated before a comma ("Tue, 06/07/2016": Drupal's default format)
#: where a date line starts it, after "on" or after a label's colon, dash or bar (not "The Sun, ...").
_WEEKDAY_BEFORE = re.compile(
    rf"(?:(?:{_B}يوم\s+(?:ال)?|{_B}و?ال)(?P<ar>{'|'.join(a for a, _, _ in _WEEKDAY_NAMES)})"
    rf"|{_B}(?P<en>{'|'.join(e for _, e, _ in _WEEKDAY_NAMES)})"
    rf"|(?:^|{_B}on\s+|[:|\-–]\s*)(?P<abbr>{'|'.join(x for _, _, xs in _WEEKDAY_NAMES for x in xs)})\.?\s*,)[\s,]*$")

# Relative stamps. Singular and dual forms (ساعه, ساعتين, يومين) carry their own count; a plural
# form of a day or longer (ايام, سنوات) has none: "منذ سنوات" is "years ago", not one year ago, so
# without an explicit number it stays unparsed. "منذ دقائق" / "منذ ساعات" are within the day (or
# the one before), close enough for a date: they count as one unit ago, as they always did.
# From 11 to 99 Arabic counts in the singular accusative ("منذ 15 يوماً", "منذ 11 شهرًا"; the tanwin, on
# either letter, is gone once normalised); that form follows a number and counts nothing alone.
_UNITS: dict[str, tuple[str, int | None]] = {
    "ثانيه": ("seconds", 1), "ثانيتين": ("seconds", 2), "ثواني": ("seconds", 1), "ثوان": ("seconds", 1),
    "دقيقه": ("minutes", 1), "دقيقتين": ("minutes", 2), "دقايق": ("minutes", 1),
    "ساعه": ("hours", 1), "ساعتين": ("hours", 2), "ساعات": ("hours", 1),
    "يوم": ("days", 1), "يومين": ("days", 2), "ايام": ("days", None), "يوما": ("days", None),
    "اسبوع": ("weeks", 1), "اسبوعين": ("weeks", 2), "اسابيع": ("weeks", None), "اسبوعا": ("weeks", None),
    "شهر": ("months", 1), "شهرين": ("months", 2), "اشهر": ("months", None), "شهور": ("months", None),
    "شهرا": ("months", None),
    "سنه": ("years", 1), "سنتين": ("years", 2), "سنوات": ("years", None), "سنين": ("years", None),
    "عام": ("years", 1), "عامين": ("years", 2), "اعوام": ("years", None), "عاما": ("years", None),
    "second": ("seconds", 1), "minute": ("minutes", 1), "min": ("minutes", 1), "hour": ("hours", 1),
    "day": ("days", 1), "week": ("weeks", 1), "month": ("months", 1), "year": ("years", 1),
}
_UNIT_ALT = "|".join(sorted(_UNITS, key=len, reverse=True))
_AR_RELATIVE = re.compile(rf"{_B}(?:منذ|قبل)\s+(?:(?P<n>\d+)\s*)?(?P<unit>{_UNIT_ALT}){_E}")
_EN_RELATIVE = re.compile(rf"{_B}(?P<n>\d+|an?|one)\s+(?P<unit>{_UNIT_ALT})s?\s+ago{_E}")
_WEEKDAYS = "(?:احد|اثنين|ثلاثاء|اربعاء|خميس|جمعه|سبت)(?!\\w)"
_DAY_WORDS: list[tuple[re.Pattern[str], int]] = [
    (re.compile(rf"{_B}(?:اول\s+(?:من\s+)?امس|قبل\s+امس|امس\s+الاول){_E}|{_B}day before yesterday{_E}"), 2),
    (re.compile(rf"{_B}(?:امس|بالامس|البارحه|yesterday){_E}"), 1),
    # "اليوم" followed by a definite word other than a weekday ("اليوم الأحد") names a day, not
    # today: "اليوم السابع" (a newspaper), "اليوم الوطني", "اليوم العالمي لـ..."
    (re.compile(rf"{_B}(?:اليوم(?!\s+ال(?!{_WEEKDAYS}))|الان|منذ\s+لحظات|منذ\s+قليل|today|just now){_E}"), 0),
]


def _hijri_to_gregorian(year: int, month: int, day: int) -> date | None:
    if year not in HIJRI_YEARS:
        return None
    try:
        return date(*Hijri(year, month, day).to_gregorian().datetuple())
    except (ValueError, OverflowError):
        return None


def _gregorian(year: int, month: int, day: int) -> date | None:
    if year not in GREGORIAN_YEARS:
        return None
    try:
        return date(year, month, day)
    except ValueError:
        return None


def _minus_months(day: date, months: int) -> date:
    total = day.year * 12 + (day.month - 1) - months
    year, month = divmod(total, 12)
    month += 1
    return date(year, month, min(day.day, calendar.monthrange(year, month)[1]))


def _instant(now: datetime) -> datetime:
    """``now`` as an aware moment; a naive one is UTC, as the warehouse and the crawls keep times."""
    return now if now.tzinfo is not None else now.replace(tzinfo=timezone.utc)


def _utc_offset(clock: re.Match[str]) -> timezone | None:
    """The zone a :data:`_CLOCK` match names ("z", "gmt+3", "+04:00"); None for an impossible one."""
    written = clock["offset"] or clock["shift"] or "+00"
    sign = -1 if written[0] == "-" else 1
    digits = written[1:].replace(":", "")
    hours, minutes = (int(digits), 0) if len(digits) <= 2 else (int(digits[:-2]), int(digits[-2:]))
    if hours > 14 or minutes > 59:
        return None
    return timezone(sign * timedelta(hours=hours, minutes=minutes))


def _site_day(day: date, text: str, end: int, tz: tzinfo | None) -> date:
    """``day``, written in ``text`` up to ``end``, on the site's calendar: when a clock time naming its
    zone follows it, that instant's day in ``tz``; else (no time, a time without a zone, no site
    zone known) the day as written."""
    clock = _CLOCK.match(text, end) if tz is not None else None
    # A bare offset only in ISO's own form: "10:30-11:30" is a span of hours, not 10:30 at UTC-11:30.
    if clock is None or (clock["offset"] and not (clock["second"] or clock["sep"] == "t")):
        return day
    offset = _utc_offset(clock)
    hour, minute, second = int(clock["hour"]), int(clock["minute"]), int(clock["second"] or 0)
    if clock["half"]:
        if not 1 <= hour <= 12:
            return day
        hour = hour % 12 + (12 if clock["half"] in _AFTERNOON else 0)
    if offset is None or hour > 23 or minute > 59 or second > 59:
        return day
    return datetime.combine(day, time(hour, minute, second), tzinfo=offset).astimezone(tz).date()


def _relative(text: str, now: datetime, tz: tzinfo | None) -> date | None:
    """The day a relative stamp counts back to from the instant ``now``, on ``tz``'s calendar (UTC's
    when None). Hours and shorter go back from the instant; days and longer from the site's date."""
    now = _instant(now)
    today = now.astimezone(tz or timezone.utc).date()
    for pattern, days_back in _DAY_WORDS:
        if pattern.search(text):
            return today - timedelta(days=days_back)
    m = _AR_RELATIVE.search(text) or _EN_RELATIVE.search(text)
    if not m:
        return None
    unit, implied = _UNITS[m.group("unit")]
    count_text = m.group("n")
    count = int(count_text) if count_text and count_text.isdigit() else implied
    if count is None:  # a plural unit without a number ("منذ أيام"): no date can be told
        return None
    try:
        if unit == "months":
            return _minus_months(today, count)
        if unit == "years":
            return _minus_months(today, 12 * count)
        if unit in ("days", "weeks"):
            return today - timedelta(**{unit: count})
        return (now - timedelta(**{unit: count})).astimezone(tz or timezone.utc).date()
    except (OverflowError, ValueError):  # before year 1 ("قبل 3000 عام" in a history box): no day to tell
        return None


def _weekday_before(text: str, end: int) -> int | None:
    """The weekday (Monday 0) that ``text`` ends with at ``end`` (where a date starts), or None; only its 40
    characters before ``end`` are read, and "^" matches only where the text starts."""
    m = _WEEKDAY_BEFORE.search(text, max(0, end - 40), end)
    if m is None:
        return None
    name = m["ar"] or m["en"] or m["abbr"]
    return next(i for i, (ar, en, abbrs) in enumerate(_WEEKDAY_NAMES) if name in (ar, en, *abbrs))


def _day_first_or_weekday(text: str, start: int, first: int, second: int, year: int) -> tuple[int, int]:
    """The (month, day) of a numeric Gregorian ``first/second/year``: day first, as Arabic pages write
    it, unless the weekday right before it (``text`` ends with it at ``start``) is that of the month-first
    reading and not of the day-first one. Drupal's default date format is the US ``D, m/d/Y - H:i``
    ("Tue, 06/07/2016 - 10:30", 7 June 2016, a Tuesday), which day first is 6 July, a Wednesday. A
    weekday elsewhere in the line (an update's, a name) says nothing of this date."""
    weekday = _weekday_before(text, start)
    if weekday is not None and first <= 12 and first != second:
        day_first, month_first = _gregorian(year, second, first), _gregorian(year, first, second)
        if month_first and month_first.weekday() == weekday and not (day_first and day_first.weekday() == weekday):
            return first, second
    return second, first


def _absolute(text: str, tz: tzinfo | None) -> tuple[date | None, DateKind] | None:
    """The first absolute Gregorian date in ``text``, else its first Hijri one: a page printing both
    calendars is dated by the Gregorian date wherever it stands ("12/9/1437 - 17/6/2016"), and every
    match of a pattern is tried, not only its first.

    A numeric date is Hijri only with its هـ mark: a bare "1403/05/16" on an Iranian page is a
    Solar Hijri date (2024), and "1/2/1400" a decree's number or a price, so a bare one is never read
    as a date. Returns None when nothing date-like is present, ``(None, 'unparsed')`` when something
    is present but names an impossible day. A Gregorian date followed by a time in a named zone is that
    instant's day in ``tz`` (:func:`_site_day`).
    """
    found_invalid = False
    hijri: date | None = None
    for pattern in (_DAY_MONTH_YEAR, _MONTH_DAY_YEAR):
        for m in pattern.finditer(text):
            d = _gregorian(int(m["year"]), _G_MONTHS[re.sub(r"\s+", " ", m["month"])], int(m["day"]))
            if d:
                return _site_day(d, text, m.end(), tz), "gregorian"
            found_invalid = True
    numeric = [(int(m["year"]), int(m["month"]), int(m["day"]), bool(m["mark"]), m.end()) for m in _ISO.finditer(text)]
    numeric += [(int(m["year"]),
                 *(_day_first_or_weekday(text, m.start(), int(m["day"]), int(m["month"]), int(m["year"]))
                   if not m["mark"] else (int(m["month"]), int(m["day"]))), bool(m["mark"]), m.end())
                for m in _DMY.finditer(text)]
    named = [(int(m["year"]), _H_MONTHS[re.sub(r"\s+", " ", m["month"])], int(m["day"]), True, m.end())
             for m in _HIJRI_TEXT.finditer(text)]
    for year, month, day, marked, end in numeric + named:
        if marked:
            converted = _hijri_to_gregorian(year, month, day)
            hijri = hijri or converted
        else:
            converted = _gregorian(year, month, day)
            if converted:
                return _site_day(converted, text, end, tz), "gregorian"
        found_invalid = found_invalid or converted is None
    if hijri:
        return hijri, "hijri"
    return (None, "unparsed") if found_invalid else None


def parse_published(raw: str | None, *, now: datetime | None = None, tz: tzinfo | None = None) -> ParsedDate:
    """Read a publication date string; ``now`` anchors relative stamps (default: the current time; a
    naive one is UTC) and ``tz`` is the site's time zone, whose calendar the day is told on (None
    where the site is not known: see the module's docstring).

    Absolute dates win over relative words in the same string ("اليوم 3 مايو 2016" is 3 May).
    """
    if raw is None or not raw.strip():
        return ParsedDate(None, raw, "missing")
    text = normalize(raw)
    absolute = _absolute(text, tz)
    if absolute is not None:
        return ParsedDate(absolute[0], raw, absolute[1])
    anchor = now or datetime.now(timezone.utc)
    rel = _relative(text, anchor, tz)
    if rel is not None:
        return ParsedDate(rel, raw, "relative")
    return ParsedDate(None, raw, "unparsed")


#: What :func:`parse_published` reads as the day a page gives, not one counted back from a fetch.
EXACT_KINDS: tuple[DateKind, ...] = ("gregorian", "hijri")


def preferred_date(
    raws: Sequence[str], *, now: datetime | None = None, tz: tzinfo | None = None
) -> tuple[int, ParsedDate] | None:
    """The index in ``raws`` (one page's date strings, in the order the page is trusted) and the reading
    of the date the page gives: the first exact one, else the first relative one; None when none reads as
    a date. A visible stamp is often rough ("منذ 9 سنوات", counted from a fetch years later, or from an
    archive capture) where another element of the same page states the day. ``now`` and ``tz`` as in
    :func:`parse_published`."""
    relative: tuple[int, ParsedDate] | None = None
    for i, raw in enumerate(raws):
        parsed = parse_published(raw, now=now, tz=tz)
        if parsed.kind in EXACT_KINDS:
            return i, parsed
        if parsed.date is not None and relative is None:
            relative = i, parsed
    return relative
