"""``reconcile --csv FILE``: method 2 recomputed per row of an Epoch AI models CSV, beside the reported compute.

Prints the per-row results (chip, count, hours, utilization, format, method-2 FLOP, reported FLOP,
ratio, flag, likely cause) and a summary: rows read, rows with hardware, rows resolved, median
ratio, share within 2× and 3×.
"""
from __future__ import annotations

from .files import naming_file
from ..trends.reconcile import reconcile_epoch_csv


def _reconcile(args) -> dict:
    with naming_file(args.csv, "csv"):
        result = reconcile_epoch_csv(args.csv)
    rows = [r.as_dict() for r in result.rows]
    if args.flagged:
        rows = [r for r in rows if r["flagged"] or r["status"] != "compared"]
    return {"source": args.csv, "summary": result.summary.as_dict(), "rows": rows}


def register(sub) -> None:
    r = sub.add_parser("reconcile", help="recompute method 2 for every row of an Epoch AI CSV and compare it "
                                         "with the reported training compute")
    r.add_argument("--csv", required=True, metavar="FILE", help="an Epoch AI models CSV (e.g. Notable AI Models)")
    r.add_argument("--flagged", action="store_true",
                   help="list only rows beyond 3× or not recomputed (the summary covers all)")
    r.set_defaults(run=_reconcile)
