"""The period the dataset covers: claims dated outside it are neither selected nor retrieved."""

from datetime import date

from pydantic import Field, model_validator

from arastance.config.base import SettingsGroup


class PeriodSettings(SettingsGroup):
    """Open by default (every claim, dated or not). With a bound set, only claims dated within it
    take part, as in the method, whose claims are from 2012 to 2018; an undated claim is then
    outside, since nobody can say it is within."""

    start: date | None = Field(default=None, description="first day of the period (inclusive); empty: no lower bound")
    end: date | None = Field(default=None, description="last day of the period (inclusive); empty: no upper bound")

    @model_validator(mode="after")
    def _ordered(self) -> "PeriodSettings":
        if self.start and self.end and self.start > self.end:
            raise ValueError(f"period.start {self.start} is after period.end {self.end}")
        return self

    @property
    def bounds(self) -> tuple[date | None, date | None]:
        """(start, end), either None when open: the parameters the warehouse queries take."""
        return self.start, self.end
