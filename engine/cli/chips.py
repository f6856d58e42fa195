"""``chips``: the hardware database, every chip with its dense peaks."""
from __future__ import annotations

from ..errors import InputError, quoted
from ..method2.hardware_db import load_hardware_db


def _chips(args) -> list[dict]:
    chips = load_hardware_db().chips
    if args.vendor is not None:
        vendors = sorted({c.vendor for c in chips})
        if args.vendor.lower() not in {v.lower() for v in vendors}:
            raise InputError("vendor", f"{quoted(args.vendor)} makes no chip of the database (its vendors: "
                                       f"{', '.join(vendors)})")
        chips = [c for c in chips if c.vendor.lower() == args.vendor.lower()]
    if args.year is not None:
        chips = [c for c in chips if c.release_year == args.year]
    return [c.summary() for c in chips]


def register(sub) -> None:
    c = sub.add_parser("chips", help="the hardware database: every chip with its dense peaks")
    c.add_argument("--vendor", help="only this vendor (NVIDIA, Google, AMD, Intel)")
    c.add_argument("--year", type=int, help="only chips launched this year")
    c.set_defaults(run=_chips)
