"""``hardware``: method 2, training FLOP = chips × time × peak × utilization."""
from __future__ import annotations

from ..method2.costs import estimate_costs
from ..errors import InputError, quoted
from ..errors import parse_input
from ..method2.run import HardwareRun, estimate_method2
from ..method2.precision import PRECISIONS


def _mixed(text: str | None) -> dict[str, float] | None:
    """'bf16=0.9,fp32=0.1' → {'bf16': 0.9, 'fp32': 0.1}."""
    if text is None:
        return None
    split: dict[str, float] = {}
    for item in text.split(","):
        fmt, sep, fraction = item.partition("=")
        if fmt.strip().lower() in split:
            raise InputError("mixed_precision", f"{quoted(fmt.strip())} is given twice: one fraction per format")
        try:
            split[fmt.strip().lower()] = float(fraction)
        except ValueError:
            sep = ""
        if not sep:
            raise InputError("mixed_precision", f"{quoted(item.strip())} is not FORMAT=FRACTION "
                             "(e.g. --mixed bf16=0.9,fp32=0.1)")
    return split


def run_from_args(args) -> HardwareRun:
    """The ``HardwareRun`` the ``hardware`` arguments describe."""
    for flag, unit in (("days", "days"), ("hours", "hours"), ("chip_hours", "chip_hours"),
                       ("gpu_days", "gpu_days")):
        if getattr(args, flag) is not None:
            duration, duration_unit = getattr(args, flag), unit
    data = {
        "chip": args.chip, "peak_flop_per_s": args.peak, "year": args.year,
        "hardware_class": args.hardware_class,
        "precision": args.precision.lower() if args.precision else None,
        "tensor_cores": not args.no_tensor_cores, "mixed_precision": _mixed(args.mixed),
        "split_basis": args.split_basis, "allow_fallback": args.allow_fallback,
        "chip_count": args.count, "duration": duration, "duration_unit": duration_unit,
        "utilization": args.utilization, "utilization_low": args.utilization_low,
        "utilization_high": args.utilization_high, "price_usd_per_chip_hour": args.price,
        "chip_count_low": args.count_low, "chip_count_high": args.count_high,
        "duration_low": args.time_low, "duration_high": args.time_high,
        "tdp_w": args.tdp, "pue": args.pue, "grid_kg_co2_per_kwh": args.grid,
        "place": args.place, "provider": args.provider,
    }
    return parse_input(HardwareRun, {k: v for k, v in data.items() if v is not None})


def _hardware(args) -> dict:
    run = run_from_args(args)
    estimate = estimate_method2(run)
    costs = estimate_costs(run)
    out = estimate.as_dict()
    out.update({
        "chip": estimate.peak.chip_id, "hardware": estimate.peak.hardware_name,
        # the peak's own fields, flat for scripts (the estimate keeps them in ``peak`` only)
        "peak_flop_per_s": estimate.peak.peak_flop_per_s, "precision": estimate.peak.precision,
        "tensor_cores": estimate.peak.tensor_cores, "fallback_used": estimate.peak.fallback_used,
        "fallback": "; ".join(estimate.peak.fallbacks) or None,
        "format_note": (f"assumed {estimate.peak.assumed_format}; set --precision to change"
                        if estimate.peak.assumed_format else None),
        "low": estimate.training_flop_low, "high": estimate.training_flop_high,
        "confidence": estimate.interval.confidence if estimate.interval else None,
        "cost_usd": costs.cost_usd, "cost": costs.cost_text, "energy_kwh": costs.energy_kwh, "co2_kg": costs.co2_kg,
        "costs": costs.as_dict(),
    })
    if args.utilization is None or str(args.utilization).strip().lower() == "reported":
        from ..method2.default_utilization import default_for_run
        found = default_for_run(args.chip, args.count)
        out["utilization_basis"] = found.sentence()
        out["utilization_sources"] = found.sources
    return out


def register(sub) -> None:
    h = sub.add_parser("hardware", help="method 2: training FLOP = chips × time × peak × utilization")
    which = h.add_mutually_exclusive_group(required=True)
    which.add_argument("--chip", help="chip id or alias (see `chips`)")
    which.add_argument("--peak", type=float, metavar="FLOP_PER_S", help="a custom dense peak per chip")
    which.add_argument("--year", type=int, help="unknown hardware: the trend peak of that year's chips (from 2008)")
    h.add_argument("--class", dest="hardware_class", choices=("data_center", "workstation_consumer"),
                   help="with --year: data-centre accelerators (default) or workstation/consumer cards")
    h.add_argument("--count", type=float, metavar="N", help="number of chips")
    time = h.add_mutually_exclusive_group(required=True)
    time.add_argument("--days", type=float, help="wall-clock days (with --count)")
    time.add_argument("--hours", type=float, help="wall-clock hours (with --count)")
    time.add_argument("--chip-hours", type=float, dest="chip_hours", help="accumulated chip-hours")
    time.add_argument("--gpu-days", type=float, dest="gpu_days", help="accumulated GPU-days")
    h.add_argument("--utilization", metavar="U",
                   help="in (0, 1], or a preset: openai-gpu, openai-cpu, epoch-llm, epoch-other; left out: "
                        "'reported', the median of reported runs like this one (chip generation, scale), "
                        "with its 90%% range")
    h.add_argument("--utilization-low", dest="utilization_low", metavar="U")
    h.add_argument("--utilization-high", dest="utilization_high", metavar="U")
    h.add_argument("--count-low", type=float, dest="count_low", metavar="N", help="range: fewest chips")
    h.add_argument("--count-high", type=float, dest="count_high", metavar="N", help="range: most chips")
    h.add_argument("--time-low", type=float, dest="time_low", metavar="T",
                   help="range: shortest time, in the unit of --days/--hours/--chip-hours/--gpu-days")
    h.add_argument("--time-high", type=float, dest="time_high", metavar="T", help="range: longest time")
    h.add_argument("--precision", metavar="FORMAT", help=f"one of {', '.join(PRECISIONS)} (default: the chip's usual format, "
                                                               "e.g. BF16 tensor on an A100, FP32 on a GTX 580)")
    h.add_argument("--no-tensor-cores", action="store_true", dest="no_tensor_cores")
    h.add_argument("--mixed", metavar="SPLIT", help="mixed split, e.g. bf16=0.9,fp32=0.1")
    h.add_argument("--split-basis", dest="split_basis", default="work",
                   help="'work' (fractions of the FLOP, default) or 'time'")
    h.add_argument("--allow-fallback", action="store_true", dest="allow_fallback",
                   help="use the nearest peak (flagged) when the chip lacks the format")
    h.add_argument("--price", type=float, metavar="USD", help="price per chip-hour (overrides the indicative one)")
    h.add_argument("--tdp", type=float, metavar="W", help="power per chip (overrides the TDP)")
    h.add_argument("--pue", type=float, help="data-center PUE (default in hardware_db.json)")
    h.add_argument("--grid", type=float, metavar="KG_PER_KWH", help="grid intensity, kg CO2/kWh")
    h.add_argument("--place", metavar="PLACE", help="where the chips ran, for the grid's CO2 per kWh: a country "
                   "(fr, us, de, …) or cloud region (aws-us-east-1, gcp-europe-north1, …); default: world average")
    h.add_argument("--provider", metavar="PROVIDER", help="whose data centres, for the PUE: google, meta, aws, "
                   "microsoft, average")
    h.set_defaults(run=_hardware)
