"""The shipped dataset of notable training runs (``training_runs.csv``) and the point every fit uses.

``training_runs.csv`` sits at the repository root, next to ``hardware_db.json``; its format is
described in ``training_runs.md``. Each row is validated by ``TrainingRun``: the date parses, the
FLOP figure is positive and finite, the method and confidence come from fixed vocabularies and the
source is a URL. A bad row in the shipped file is an error (``InputError`` naming the row), never a
silent skip: the file is ours and a test reads every row.

``RunPoint`` is the common currency of the trend code: a name, a date and a FLOP figure, from this
file or from an Epoch AI CSV (``engine.trends.epoch_csv``).
"""
from __future__ import annotations

import csv
import io
import math
from functools import lru_cache
from pathlib import Path
from typing import Iterable, Literal

import pandas as pd
from pydantic import BaseModel, ConfigDict, Field, field_validator

from ..shipped import ShippedDataError, empty_table, read_shipped_text, shipped_data_error, shipped_file
from ..errors import InputError, parse_input
from ..records.partial_dates import PartialDate, parse_partial_date

DATASET_PATH = shipped_file("training_runs.csv")

COLUMNS: tuple[str, ...] = (
    "name", "organization", "publication_date", "domain", "training_flop", "parameters",
    "training_examples_or_tokens", "flop_method", "confidence", "note", "source", "tags",
)

FlopMethod = Literal["reported", "operation count", "6ND", "hardware × time × utilization",
                     "third-party estimate"]
Confidence = Literal["confident", "likely", "speculative"]
Domain = Literal["Language", "Vision", "Speech", "Games", "Multimodal", "Image generation", "Audio",
                 "Video", "Biology", "Robotics", "Other"]

FRAME_COLUMNS: tuple[str, ...] = ("name", "organization", "publication_date", "decimal_year", "domain",
                                  "training_flop")
"""Columns of ``runs_frame``: what the fits, the placement and the dashboard's chart read."""


def _positive_finite(value: float | None) -> float | None:
    if value is not None and not (math.isfinite(value) and value > 0):
        raise ValueError("must be a positive finite number")
    return value


class RunPoint(BaseModel):
    """One training run on the compute-vs-time chart: name, date, FLOP (and what to filter on)."""

    model_config = ConfigDict(frozen=True, allow_inf_nan=False)

    name: str
    organization: str = ""
    publication_date: str = Field(description="ISO date, possibly partial: '1992', '2012-09', '2012-09-30'")
    decimal_year: float = Field(description="middle of the publication period, in years")
    domain: str = Field("", description="one domain, or several separated by commas (Epoch's style)")
    training_flop: float

    _check_flop = field_validator("training_flop")(_positive_finite)


class TrainingRun(BaseModel):
    """One row of ``training_runs.csv``."""

    model_config = ConfigDict(extra="forbid", frozen=True)

    name: str = Field(min_length=1)
    organization: str = Field(min_length=1)
    publication_date: str
    domain: Domain
    training_flop: float
    parameters: float | None = None
    training_examples_or_tokens: float | None = None
    flop_method: FlopMethod
    confidence: Confidence
    note: str = ""
    source: str
    tags: tuple[str, ...] = ()

    _check_numbers = field_validator("training_flop", "parameters", "training_examples_or_tokens")(
        _positive_finite)

    @field_validator("publication_date")
    @classmethod
    def _date_parses(cls, value: str) -> str:
        return parse_partial_date(value).isoformat()

    @field_validator("source")
    @classmethod
    def _source_is_url(cls, value: str) -> str:
        if not value.startswith(("https://", "http://")) or " " in value:
            raise ValueError("must be one http(s) URL")
        return value

    @field_validator("tags", mode="before")
    @classmethod
    def _split_tags(cls, value):
        if isinstance(value, str):
            return tuple(tag.strip() for tag in value.split(";") if tag.strip())
        return value

    @property
    def date(self) -> PartialDate:
        return parse_partial_date(self.publication_date)

    def to_point(self) -> RunPoint:
        return RunPoint(name=self.name, organization=self.organization, publication_date=self.publication_date,
                        decimal_year=self.date.decimal_year, domain=self.domain, training_flop=self.training_flop)


def _row_values(row: dict[str, str]) -> dict[str, str | None]:
    # empty optional cells mean "unknown"; pydantic then sees None, not ''
    return {key: (value.strip() if value and value.strip() else None) for key, value in row.items()
            if key is not None}


def parse_training_runs(text: str, source: str = "training_runs.csv") -> list[TrainingRun]:
    """Rows of a ``training_runs.csv`` text; the first bad row raises ``InputError`` naming it."""
    reader = csv.DictReader(io.StringIO(text))
    header = tuple(reader.fieldnames or ())
    missing = [c for c in COLUMNS if c not in header]
    if missing:
        raise InputError(source, f"missing column(s) {', '.join(missing)}")
    runs: list[TrainingRun] = []
    for row in reader:
        values = {k: v for k, v in _row_values(row).items() if v is not None}
        if None in row:
            raise InputError(f"{source} line {reader.line_num}", "more cells than columns (unquoted comma?)")
        runs.append(parse_input(TrainingRun, values, source=f"{source} line {reader.line_num}"))
    return runs


def load_training_runs(path: str | Path | None = None) -> list[TrainingRun]:
    """The shipped dataset (or another file in its format), validated row by row; read once per file (as the
    hardware database is), each caller getting its own list of the (frozen) runs."""
    return list(_load(str(Path(path).resolve() if path is not None else DATASET_PATH)))


@lru_cache(maxsize=8)
def _load(path_text: str) -> tuple[TrainingRun, ...]:
    path = Path(path_text)
    try:
        runs = tuple(parse_training_runs(read_shipped_text(path), source=path.name))
    except csv.Error as exc:
        raise ShippedDataError(path.name, f"not a readable CSV ({exc})") from None
    except InputError as exc:
        raise shipped_data_error(path, exc) from None
    if not runs:
        raise empty_table(path.name, "no rows under its header")
    return runs


def runs_frame(points: Iterable[RunPoint | TrainingRun]) -> pd.DataFrame:
    """A DataFrame with ``FRAME_COLUMNS``, sorted by date: the table the fits and charts read."""
    rows = [(p if isinstance(p, RunPoint) else p.to_point()).model_dump() for p in points]
    frame = pd.DataFrame(rows, columns=list(FRAME_COLUMNS))
    frame["decimal_year"] = frame["decimal_year"].astype(float)
    frame["training_flop"] = frame["training_flop"].astype(float)
    return frame.sort_values("decimal_year", kind="stable").reset_index(drop=True)


def runs_table(runs: Iterable[TrainingRun]) -> pd.DataFrame:
    """``runs_frame`` plus what a chart's hover shows: how the FLOP were obtained, confidence, source."""
    runs = list(runs)
    frame = runs_frame(runs)
    extra = pd.DataFrame([{"name": r.name, "publication_date": r.publication_date, "flop_method": r.flop_method,
                           "confidence": r.confidence, "source": r.source} for r in runs])
    return frame.merge(extra, on=["name", "publication_date"], how="left")
