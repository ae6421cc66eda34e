"""Dates written the ways Arabic pages write them, for the page templates to vary.

Egypt and the Gulf use the transliterated month names (يناير ...), the Levant and some pan-Arab
outlets the Syriac ones (كانون الثاني ...); Saudi pages often add the Hijri date. Digits are
western or Arabic-Indic depending on the site.
"""

from __future__ import annotations

from datetime import date, datetime

from hijridate import Gregorian

MONTHS = ("يناير", "فبراير", "مارس", "أبريل", "مايو", "يونيو", "يوليو", "أغسطس", "سبتمبر", "أكتوبر", "نوفمبر", "ديسمبر")
LEVANT_MONTHS = (
    "كانون الثاني", "شباط", "آذار", "نيسان", "أيار", "حزيران",
    "تموز", "آب", "أيلول", "تشرين الأول", "تشرين الثاني", "كانون الأول",
)
HIJRI_MONTHS = (
    "محرم", "صفر", "ربيع الأول", "ربيع الآخر", "جمادى الأولى", "جمادى الآخرة",
    "رجب", "شعبان", "رمضان", "شوال", "ذو القعدة", "ذو الحجة",
)
WEEKDAYS = ("الاثنين", "الثلاثاء", "الأربعاء", "الخميس", "الجمعة", "السبت", "الأحد")  # date.weekday() order
_INDIC = str.maketrans("0123456789", "٠١٢٣٤٥٦٧٨٩")


def indic(text: str) -> str:
    """Western digits as Arabic-Indic digits (٠-٩)."""
    return text.translate(_INDIC)


def long_date(day: date, *, levant: bool = False, weekday: bool = False, indic_digits: bool = False) -> str:
    """'الخميس 12 مايو 2016' and its variants."""
    month = (LEVANT_MONTHS if levant else MONTHS)[day.month - 1]
    text = f"{day.day} {month} {day.year}"
    if weekday:
        text = f"{WEEKDAYS[day.weekday()]} {text}"
    return indic(text) if indic_digits else text


def hijri_date(day: date, *, indic_digits: bool = False) -> str:
    """'5 شعبان 1437هـ' for a Gregorian day."""
    h = Gregorian(day.year, day.month, day.day).to_hijri()
    text = f"{h.day} {HIJRI_MONTHS[h.month - 1]} {h.year}هـ"
    return indic(text) if indic_digits else text


def clock(moment: datetime, *, indic_digits: bool = False) -> str:
    """'02:45 م' style time of day."""
    hour = moment.hour % 12 or 12
    text = f"{hour:02d}:{moment.minute:02d} {'ص' if moment.hour < 12 else 'م'}"
    return indic(text) if indic_digits else text
