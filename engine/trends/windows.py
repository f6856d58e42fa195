"""Which runs a trend fit uses: the window (decimal years), domain and frontier, and the named
windows of the literature. Light on purpose (no pandas): the CLI builds its parser from it."""
from __future__ import annotations

from typing import Literal

from pydantic import BaseModel, ConfigDict, Field, model_validator

from ..errors import InputError

Frontier = Literal["all", "records", "top_k"]

class TrendQuery(BaseModel):
    """Which runs a fit uses. Years are decimal: ``start_year`` inclusive, ``end_year`` exclusive."""

    model_config = ConfigDict(frozen=True, allow_inf_nan=False)

    start_year: float | None = None
    end_year: float | None = None
    domain: str | None = Field(None, description="case-insensitive; matches any of a run's comma-separated domains")
    frontier: Frontier = Field("all", description="all runs; record-setters; or the top_k largest per year")
    top_k: int = Field(3, ge=1, le=1000)
    label: str = ""

    @model_validator(mode="after")
    def _window_is_ordered(self):
        if self.start_year is not None and self.end_year is not None and self.end_year <= self.start_year:
            raise InputError("end_year", f"{self.end_year:g} must be after start_year {self.start_year:g}")
        return self

    @classmethod
    def calendar_years(cls, from_year: int | None = None, to_year: int | None = None, **options) -> "TrendQuery":
        """Whole calendar years, both inclusive: ``calendar_years(2012, 2018)`` is [2012.0, 2019.0)."""
        return cls(start_year=None if from_year is None else float(from_year),
                   end_year=None if to_year is None else float(to_year) + 1.0, **options)


NAMED_WINDOWS: dict[str, TrendQuery] = {
    # OpenAI, "AI and Compute" (2018): record-setting runs, 2012 to the post (3.4-month doubling)
    "openai-2012-2018": TrendQuery(start_year=2012.0, end_year=2019.0, frontier="records",
                                   label="OpenAI 2012–2018 (record-setting runs)"),
    # Epoch, "Compute Trends Across Three Eras of ML" (Sevilla et al. 2022): ~20 months before 2010
    "pre-deep-learning": TrendQuery(end_year=2010.0, label="Pre-deep-learning era (before 2010)"),
    # same paper: ~6 months from 2010 (5.7)
    "deep-learning": TrendQuery(start_year=2010.0, label="Deep-learning era (2010 on)"),
    # same paper: large-scale era from late 2015 (AlphaGo, Sep–Oct 2015), frontier runs (~10 months)
    "large-scale": TrendQuery(start_year=2015.75, frontier="records",
                              label="Large-scale era (late 2015 on, record-setting runs)"),
}
