"""``trend [--csv FILE] [--from YEAR] [--to YEAR] [--domain NAME] [--frontier | --top-k K] [--window NAME]``.

Fits log10(training FLOP) against date over the shipped dataset, or over an Epoch AI CSV given
with ``--csv``, and prints n, the doubling time with its 95% interval, the growth per year and
how many rows of the CSV were skipped.
"""
from __future__ import annotations

from .files import naming_file
from ..errors import InputError, parse_input, quoted
from ..trends.windows import NAMED_WINDOWS, TrendQuery


FIRST_YEAR, LAST_YEAR = 1900, 2100
"""--from/--to outside these are not publication years of a training run."""


def _query(args) -> TrendQuery:
    for flag, year in (("--from", args.from_year), ("--to", args.to_year)):
        if year is not None and not FIRST_YEAR <= year <= LAST_YEAR:
            raise InputError("arguments", f"{flag} {quoted(year, 12)} is not a year from {FIRST_YEAR} to {LAST_YEAR}")
    if args.window:
        if args.from_year is not None or args.to_year is not None:
            raise InputError("arguments", "--window sets the years; leave out --from/--to")
        query = NAMED_WINDOWS[args.window]
    else:
        if args.from_year is not None and args.to_year is not None and args.to_year < args.from_year:
            raise InputError("arguments", f"--to {args.to_year} is before --from {args.from_year}")
        query = TrendQuery.calendar_years(args.from_year, args.to_year)
    updates: dict = {}
    if args.domain:
        updates["domain"] = args.domain
    if args.top_k is not None:
        updates.update(frontier="top_k", top_k=args.top_k)
    elif args.frontier:
        updates["frontier"] = "records"
    return parse_input(TrendQuery, {**query.model_dump(), **updates}) if updates else query


def _trend(args) -> dict:
    if args.top_k is not None and args.top_k < 1:
        raise InputError("arguments", "--top-k must be at least 1")
    from ..trends.epoch_csv import read_epoch_csv  # pandas: only when this command runs
    from ..trends.fit import fit_trend
    from ..trends.runs_dataset import DATASET_PATH, load_training_runs

    query = _query(args)
    if args.csv:
        with naming_file(args.csv, "csv"):
            imported = read_epoch_csv(args.csv)
        runs, skipped, rows, source = imported.runs, imported.skipped, imported.rows_read, args.csv
        skipped_by_reason = imported.skipped_by_reason
    else:
        runs = load_training_runs()
        skipped, rows, source, skipped_by_reason = 0, len(runs), DATASET_PATH.name, {}
    fit = fit_trend(runs, query)
    ci = fit.ci_doubling_months
    return {
        "source": source,
        "rows": rows,
        "skipped": skipped,
        "skipped_by_reason": skipped_by_reason,
        "window": {"start_year": query.start_year, "end_year_exclusive": query.end_year,
                   "domain": query.domain, "frontier": query.frontier,
                   "top_k": query.top_k if query.frontier == "top_k" else None},
        "n": fit.n,
        "doubling_months": fit.doubling_months,
        "ci_doubling_months": list(ci) if ci is not None else None,
        "growth_per_year": fit.growth_per_year,
        "ci_growth_per_year": list(fit.ci_growth_per_year) if fit.ci_growth_per_year else None,
        "slope_oom_per_year": fit.slope_oom_per_year,
        "r_squared": fit.r_squared,
    }


def register(sub) -> None:
    p = sub.add_parser("trend", help="doubling time of training compute over a window (shipped data or an Epoch CSV)")
    p.add_argument("--csv", metavar="FILE", help="an Epoch AI models CSV (default: the shipped training_runs.csv)")
    p.add_argument("--from", dest="from_year", type=int, metavar="YEAR", help="first calendar year (inclusive)")
    p.add_argument("--to", dest="to_year", type=int, metavar="YEAR", help="last calendar year (inclusive)")
    p.add_argument("--domain", metavar="NAME", help="e.g. Language, Vision, Games (case-insensitive)")
    p.add_argument("--frontier", action="store_true", help="record-setting runs only")
    p.add_argument("--top-k", type=int, metavar="K", help="the K largest runs of each year only")
    p.add_argument("--window", choices=tuple(NAMED_WINDOWS), help="a named window (OpenAI's, Epoch's eras)")
    p.set_defaults(run=_trend)
