"""Calendar arithmetic for the selection window: "within +/-N months of the seed's date".

A window is counted in calendar months, not in days: 15 May - 3 months is 15 February. When
the target month is shorter than the day of the month, the day is clamped to that month's
last day (31 May - 3 months is 28 February, or 29 February in a leap year; 29 February 2016 +
3 months is 29 May 2016). Both ends are inclusive.

Dates become day ordinals for the vectorised comparisons in :mod:`tasks.true_claims.rank`.
"""

from __future__ import annotations

import calendar
from collections.abc import Sequence
from datetime import date

import numpy as np


def add_months(day: date, months: int) -> date:
    """``day`` moved by ``months`` calendar months (negative goes back), clamped to month end."""
    index = day.year * 12 + (day.month - 1) + months
    year, month0 = divmod(index, 12)
    last = calendar.monthrange(year, month0 + 1)[1]
    return date(year, month0 + 1, min(day.day, last))


def window_bounds(day: date, months: int) -> tuple[date, date]:
    """The inclusive window ``[day - months, day + months]`` around a seed's date."""
    return add_months(day, -months), add_months(day, months)


UNDATED = -1
"""Day ordinal standing for "no date" (real ordinals start at 1 on 1 January of year 1)."""


def ordinals(days: Sequence[date | None]) -> np.ndarray:
    """Proleptic Gregorian day numbers (``date.toordinal``), :data:`UNDATED` for ``None`` (int64)."""
    return np.fromiter((UNDATED if d is None else d.toordinal() for d in days), dtype=np.int64, count=len(days))


def window_ordinals(days: Sequence[date | None], months: int) -> tuple[np.ndarray, np.ndarray]:
    """Inclusive window bounds of each day as ordinals; :data:`UNDATED` for an undated day."""
    bounds = [(None, None) if d is None else window_bounds(d, months) for d in days]
    return ordinals([b[0] for b in bounds]), ordinals([b[1] for b in bounds])
