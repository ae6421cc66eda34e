"""Publication dates: every format the sites use, and unreadable dates kept raw, never guessed."""

from datetime import date, datetime, timedelta, timezone

import pytest

from arastance.base.dates import parse_published

NOW = datetime(2018, 3, 10, 12, 0, tzinfo=timezone.utc)


@pytest.mark.parametrize("raw", ["منذ 3000 سنة", "قبل 3000 عام", "منذ 99319931 ساعة", "منذ 9999999999 يوم"])
def test_a_count_reaching_before_year_one_is_no_date_not_a_crash(raw: str) -> None:
    # an article's history box ("يعود إلى ما قبل 3000 عام") is read while its date is looked for
    parsed = parse_published(raw, now=NOW)
    assert (parsed.date, parsed.raw) == (None, raw)


@pytest.mark.parametrize(
    ("raw", "expected"),
    [
        ("3 مايو 2016", date(2016, 5, 3)),
        ("الثلاثاء 3 أبريل 2018", date(2018, 4, 3)),
        ("17 يونيو 2016م", date(2016, 6, 17)),
        ("5 يوليه 2015", date(2015, 7, 5)),
        ("3 أيار (مايو) 2016", date(2016, 5, 3)),
        ("3 أيار/مايو 2016", date(2016, 5, 3)),
        ("4 جوان 2016", date(2016, 6, 4)),
        ("5 ماي 2016", date(2016, 5, 5)),
        ("May 3, 2016", date(2016, 5, 3)),
        ("3rd March 2017", date(2017, 3, 3)),
        ("Tue, 03 May 2016 10:00:00 GMT", date(2016, 5, 3)),
        ("2016-05-03T10:00:00+04:00", date(2016, 5, 3)),
        ("2016/5/3", date(2016, 5, 3)),
        ("03/05/2016", date(2016, 5, 3)),
        ("3-5-2016", date(2016, 5, 3)),
        ("3.5.2016", date(2016, 5, 3)),
    ],
)
def test_gregorian_formats(raw: str, expected: date) -> None:
    parsed = parse_published(raw, now=NOW)
    assert (parsed.date, parsed.kind, parsed.raw) == (expected, "gregorian", raw)
    assert parsed.iso == expected.isoformat()


@pytest.mark.parametrize(
    ("raw", "month"),
    [
        ("15 كانون الثاني 2017", 1), ("15 شباط 2017", 2), ("15 آذار 2017", 3), ("15 نيسان 2017", 4),
        ("15 أيار 2017", 5), ("15 حزيران 2017", 6), ("15 تموز 2017", 7), ("15 آب 2017", 8),
        ("15 أيلول 2017", 9), ("15 تشرين الأول 2017", 10), ("15 تشرين الثاني 2017", 11),
        ("15 كانون الأول 2017", 12),
    ],
)
def test_levantine_month_names(raw: str, month: int) -> None:
    assert parse_published(raw).date == date(2017, month, 15)


def test_arabic_indic_digits() -> None:
    assert parse_published("الثلاثاء ٣ أيار ٢٠١٦").date == date(2016, 5, 3)
    assert parse_published("٠٣/٠٥/٢٠١٦").date == date(2016, 5, 3)
    assert parse_published("۰۳/۰۵/۲۰۱۶").date == date(2016, 5, 3)  # Persian digits


@pytest.mark.parametrize(
    ("raw", "expected"),
    [
        # Umm al-Qura: 1 Ramadan 1437 AH was 6 June 2016, so 12 Ramadan is 17 June.
        ("12 رمضان 1437 هـ", date(2016, 6, 17)),
        ("١٢ رمضان ١٤٣٧هـ", date(2016, 6, 17)),
        ("1437/09/12 هـ", date(2016, 6, 17)),
        ("12/09/1437 هـ", date(2016, 6, 17)),
        # 1 Muharram 1438 AH was 2 October 2016.
        ("1 محرم 1438 هجري", date(2016, 10, 2)),
        ("3 جمادى الآخرة 1437 هـ", date(2016, 3, 12)),
        ("2 ربيع الأول 1438", date(2016, 12, 1)),
        ("12 ذي القعدة 1437هـ", date(2016, 8, 15)),
    ],
)
def test_hijri_dates_convert_with_umm_al_qura(raw: str, expected: date) -> None:
    parsed = parse_published(raw)
    assert (parsed.date, parsed.kind) == (expected, "hijri")


@pytest.mark.parametrize("raw", ["الأحد 12 رمضان 1437 هـ - 17 يونيو 2016 م", "12/9/1437 هـ - 17/6/2016 م",
                                 # the Hijri date came first unmarked: it hid the Gregorian one (it was: unparsed)
                                 "12/9/1437 - 17/6/2016", "1437/9/12 - 2016/6/17", "1437/09/12 هـ - 17/6/2016"])
def test_gregorian_wins_when_both_calendars_are_printed(raw: str) -> None:
    parsed = parse_published(raw)
    assert (parsed.date, parsed.kind) == (date(2016, 6, 17), "gregorian")


def test_every_date_of_a_pattern_is_tried_not_only_its_first() -> None:
    parsed = parse_published("31/02/2016 - 01/03/2016")  # it was: unparsed, after the impossible first one
    assert (parsed.date, parsed.kind) == (date(2016, 3, 1), "gregorian")


@pytest.mark.parametrize(
    ("raw", "expected"),
    [
        ("منذ 3 ساعات", date(2018, 3, 10)),
        ("منذ ١٤ ساعة", date(2018, 3, 9)),
        ("منذ ساعتين", date(2018, 3, 10)),
        ("منذ يوم", date(2018, 3, 9)),
        ("منذ يومين", date(2018, 3, 8)),
        ("منذ 3 أيام", date(2018, 3, 7)),
        ("منذ 4 سنوات", date(2014, 3, 10)),  # a plural unit with its number
        ("قبل 5 دقائق", date(2018, 3, 10)),
        ("منذ أسبوعين", date(2018, 2, 24)),
        ("منذ شهرين", date(2018, 1, 10)),
        ("منذ سنة", date(2017, 3, 10)),
        ("أمس", date(2018, 3, 9)),
        ("بالأمس", date(2018, 3, 9)),
        ("أول أمس", date(2018, 3, 8)),
        ("اليوم", date(2018, 3, 10)),
        ("3 hours ago", date(2018, 3, 10)),
        ("2 days ago", date(2018, 3, 8)),
        ("yesterday", date(2018, 3, 9)),
    ],
)
def test_relative_dates_use_now(raw: str, expected: date) -> None:
    parsed = parse_published(raw, now=NOW)
    assert (parsed.date, parsed.kind) == (expected, "relative")


@pytest.mark.parametrize(
    "raw",
    ["منذ سنوات", "منذ سنين", "منذ أعوام", "منذ شهور", "منذ أشهر", "منذ أسابيع", "منذ أيام", "قبل أيام"],
)
def test_a_plural_unit_without_a_number_is_not_turned_into_a_date(raw: str) -> None:
    # "years ago" is no date; it was one unit ago (منذ سنوات: exactly a year before now)
    parsed = parse_published(raw, now=NOW)
    assert (parsed.date, parsed.kind, parsed.raw) == (None, "unparsed", raw)


@pytest.mark.parametrize(
    ("raw", "expected"),
    [
        ("منذ 11 شهرا", date(2017, 4, 10)),
        ("منذ 11 شهراً", date(2017, 4, 10)),  # the tanwin after the alef
        ("منذ 11 شهرًا", date(2017, 4, 10)),  # ... or on the letter before it
        ("منذ 15 يوما", date(2018, 2, 23)),
        ("منذ 30 يومًا", date(2018, 2, 8)),
        ("قبل 14 يوماً", date(2018, 2, 24)),
        ("منذ 12 عاما", date(2006, 3, 10)),
        ("منذ 12 عامًا", date(2006, 3, 10)),
        ("منذ 11 أسبوعا", date(2017, 12, 23)),
        ("منذ 11 اسبوعاً", date(2017, 12, 23)),
        ("منذ ٢٠ ساعةً", date(2018, 3, 9)),
        ("منذ 25 دقيقةً", date(2018, 3, 10)),
        ("منذ 99 سنةً", date(1919, 3, 10)),
    ],
)
def test_eleven_to_ninety_nine_units_in_the_singular_accusative(raw: str, expected: date) -> None:
    # it was: unparsed, as Arabic counts 11 to 99 in the accusative singular (يوماً, شهراً, عاماً), not in _UNITS
    parsed = parse_published(raw, now=NOW)
    assert (parsed.date, parsed.kind) == (expected, "relative")


@pytest.mark.parametrize("raw", ["منذ يوما", "منذ شهراً", "قبل عاما"])
def test_the_accusative_singular_without_its_number_is_not_a_date(raw: str) -> None:
    assert parse_published(raw, now=NOW).kind == "unparsed"


@pytest.mark.parametrize("raw", ["منذ ساعات", "منذ دقائق", "منذ ثوانٍ", "اليوم الأحد 10:30", "اليوم الجمعة"])
def test_minutes_or_hours_ago_and_today_with_its_weekday_are_today(raw: str) -> None:
    assert parse_published(raw, now=NOW).date == NOW.date()


@pytest.mark.parametrize("raw", ["اليوم السابع", "اليوم الوطني", "اليوم العالمي للمرأة", "اليوم الأول من المؤتمر"])
def test_a_day_named_after_al_yawm_is_not_today(raw: str) -> None:
    # it was: today's date (the Egyptian paper اليوم السابع on its own pages read as "today")
    assert parse_published(raw, now=NOW).kind == "unparsed"


def test_today_yesterday_and_the_day_before() -> None:
    assert parse_published("نشر اليوم 10:30", now=NOW).date == NOW.date()
    assert parse_published("أمس", now=NOW).date == (NOW - timedelta(days=1)).date()
    assert parse_published("أمس الأول", now=NOW).date == (NOW - timedelta(days=2)).date()  # it was: yesterday


def test_relative_month_clamps_to_month_end() -> None:
    assert parse_published("منذ شهر", now=datetime(2018, 3, 31)).date == date(2018, 2, 28)


@pytest.mark.parametrize(
    "raw",
    [
        "غير معروف",  # no date at all
        "31/02/2016",  # impossible day
        "12/09/1437",  # a Hijri year without the هـ mark: not read as Gregorian 1437, nor guessed Hijri
        "۱۴۰۳/۰۵/۱۶",  # an Iranian page's Solar Hijri date (2024): read as lunar Hijri it was 1983
        "السعر 1.5.1400 ريال",  # a number shaped like a date
        "30 صفر 1437 هـ",  # Safar 1437 has 29 days in Umm al-Qura
        "مايو 2016",  # no day: never guessed
        "03/05/16",  # two-digit year: century not guessed
    ],
)
def test_unparseable_dates_keep_raw_and_no_date(raw: str) -> None:
    parsed = parse_published(raw, now=NOW)
    assert (parsed.date, parsed.kind, parsed.raw) == (None, "unparsed", raw)
    assert parsed.iso is None


@pytest.mark.parametrize("raw", [None, "", "   "])
def test_missing_dates(raw: str | None) -> None:
    parsed = parse_published(raw)
    assert (parsed.date, parsed.kind, parsed.raw) == (None, "missing", raw)


HIJRI_MONTHS = ("محرم", "صفر", "ربيع الأول", "ربيع الآخر", "جمادى الأولى", "جمادى الآخرة",
                "رجب", "شعبان", "رمضان", "شوال", "ذو القعدة", "ذو الحجة")


def test_hijri_round_trip_over_the_dataset_years() -> None:
    """Every 5th day of 2012-2018 written as a Hijri date reads back as that day."""
    from datetime import timedelta

    from hijridate import Gregorian

    day = date(2012, 1, 1)
    while day < date(2019, 1, 1):
        h = Gregorian(day.year, day.month, day.day).to_hijri()
        raw = f"{h.day} {HIJRI_MONTHS[h.month - 1]} {h.year}هـ"
        assert parse_published(raw).date == day, raw
        day += timedelta(days=5)


@pytest.mark.parametrize(("raw", "expected"), [
    ("Tue, 06/07/2016 - 10:30", date(2016, 6, 7)),        # Drupal's default D, m/d/Y: 7 June was a Tuesday
    ("نشر في الثلاثاء، 06/07/2016 - 10:30", date(2016, 6, 7)),
    ("Wed, 07/13/2016", date(2016, 7, 13)),                 # no month 13: read month first only with its weekday
    ("الأربعاء 06/07/2016", date(2016, 7, 6)),              # the day-first reading is the one the weekday names
    ("السبت 3/9/2016", date(2016, 9, 3)),                   # both readings: day first holds
    ("06/07/2016", date(2016, 7, 6)),                       # no weekday: day first, as Arabic pages write it
    ("الثلاثاء والأربعاء 06/07/2016", date(2016, 7, 6)),   # the weekday right before it: Wednesday, day first
])
def test_a_weekday_beside_a_numeric_date_tells_which_number_is_the_month(raw: str, expected: date) -> None:
    assert parse_published(raw).date == expected


def test_a_weekday_never_turns_a_hijri_date_month_first() -> None:
    # 3/6/1437 هـ is 12 March 2016 (a Saturday); month first (6 March 1437) would be another day
    assert parse_published("السبت 3/6/1437 هـ").date == parse_published("3/6/1437 هـ").date


@pytest.mark.parametrize(("raw", "expected"), [
    ("كتب: محمد جمعة | 04/01/2016", date(2016, 1, 4)),        # a name, not Friday (1 April 2016 was one)
    ("جمعه وأعده: أحمد علي - 04/01/2016", date(2016, 1, 4)),  # "compiled it"
    ("نقلا عن أحد المصادر 05/01/2016", date(2016, 1, 5)),     # "one of", not Sunday
    ("مقتل اثنين في حادث 02/01/2016", date(2016, 1, 2)),      # "two", not Monday
    ("The Sun 05/01/2016", date(2016, 1, 5)),
    ("Wed 07/13/2016", None),                                  # an abbreviation counts only before its comma
    ("The Sun, 05/01/2016", date(2016, 1, 5)),                 # ... where the line starts it, or a label, or "on"
    ("Baltimore Sun, 05/01/2016", date(2016, 1, 5)),
    ("Source: The Sun, 05/01/2016 - 10:30", date(2016, 1, 5)),
    ("Submitted by admin on Sun, 05/01/2016 - 10:30", date(2016, 5, 1)),
    # the weekday is the update's (12 July 2016 was a Tuesday), not the first date's
    ("نشر في 06/07/2016 - آخر تحديث الثلاثاء 12/07/2016", date(2016, 7, 6)),
    ("Published 06/07/2016, updated Tuesday 12/07/2016", date(2016, 7, 6)),
])
def test_only_a_weekday_right_before_a_numeric_date_can_turn_it_month_first(raw: str, expected: date | None) -> None:
    # it was: any weekday word anywhere in the line, so 06/07/2016 became 7 June beside an update's Tuesday
    assert parse_published(raw).date == expected
