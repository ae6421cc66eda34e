"""Calendar-month windows: month ends, leap years and year boundaries."""

from datetime import date

import numpy as np
import pytest

from tasks.true_claims.window import UNDATED, add_months, ordinals, window_bounds, window_ordinals


@pytest.mark.parametrize(
    ("day", "months", "expected"),
    [
        (date(2016, 5, 15), -3, date(2016, 2, 15)),
        (date(2016, 5, 31), -3, date(2016, 2, 29)),   # leap year: clamped to 29 February
        (date(2017, 5, 31), -3, date(2017, 2, 28)),   # common year: 28 February
        (date(2016, 2, 29), 3, date(2016, 5, 29)),
        (date(2016, 2, 29), -3, date(2015, 11, 29)),
        (date(2015, 11, 30), 3, date(2016, 2, 29)),
        (date(2016, 8, 31), 3, date(2016, 11, 30)),
        (date(2017, 1, 15), -3, date(2016, 10, 15)),  # across a year boundary
        (date(2017, 11, 1), 3, date(2018, 2, 1)),
        (date(2016, 12, 31), 12, date(2017, 12, 31)),
    ],
)
def test_add_months_clamps_to_month_end(day: date, months: int, expected: date) -> None:
    assert add_months(day, months) == expected


def test_window_is_inclusive_on_both_ends() -> None:
    assert window_bounds(date(2016, 5, 31), 3) == (date(2016, 2, 29), date(2016, 8, 31))
    assert window_bounds(date(2012, 1, 1), 1) == (date(2011, 12, 1), date(2012, 2, 1))


def test_undated_days_get_the_undated_ordinal() -> None:
    start, end = window_ordinals([date(2016, 5, 31), None], 3)
    assert start.tolist() == [date(2016, 2, 29).toordinal(), UNDATED]
    assert end.tolist() == [date(2016, 8, 31).toordinal(), UNDATED]
    assert ordinals([None, date(1, 1, 1)]).dtype == np.int64
    assert ordinals([None, date(1, 1, 1)]).tolist() == [UNDATED, 1]
