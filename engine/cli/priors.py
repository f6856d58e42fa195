"""``priors [--csv FILE]``: reported utilizations by chip generation and run scale (n, median, spread).

From the shipped ``utilization_reports.csv`` (published MFU figures, each with its paper) and, with
``--csv``, an Epoch AI models CSV's ``Hardware utilization`` column. Groups of at least three runs
are offered as utilization presets (``--utilization <id>`` of the ``hardware`` command).
"""
from __future__ import annotations

from .files import naming_file
from ..method2.utilization_priors import (
    MIN_REPORTS, load_utilization_reports, prior_presets, reports_from_epoch, summarise,
)


def _priors(args) -> dict:
    shipped = load_utilization_reports()
    out = {"shipped": {"source": "utilization_reports.csv", "reports": len(shipped),
                       "groups": [p.as_dict() for p in summarise(shipped)],
                       "presets": [p.model_dump() for p in prior_presets(reports=shipped)]},
           "min_reports_for_a_preset": MIN_REPORTS}
    if args.csv:
        from ..trends.epoch_csv import read_epoch_csv
        with naming_file(args.csv, "csv"):
            reports = reports_from_epoch(read_epoch_csv(args.csv).hardware_rows)
        out["csv"] = {"source": args.csv, "reports": len(reports),
                      "groups": [p.as_dict() for p in summarise(reports)],
                      "presets": [p.model_dump() for p in prior_presets(reports=reports, origin="Epoch")]}
    return out


def register(sub) -> None:
    p = sub.add_parser("priors", help="reported utilizations by chip generation and scale, offered as presets")
    p.add_argument("--csv", metavar="FILE", help="also an Epoch AI models CSV (its Hardware utilization column)")
    p.set_defaults(run=_priors)
