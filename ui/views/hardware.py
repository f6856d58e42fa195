"""The hardware page's figures as text: metric tuples (label, value, caption) from method 2's results, the two
methods side by side, the time for a budget and the measured utilization. Pure: no Streamlit
(tests/ui/test_views_hardware.py)."""
from __future__ import annotations

from engine.method2.planning import wall_clock_hours
from engine.units import (TERA, format_chip_hours, format_co2_kg, format_duration, format_energy_kwh, format_flop,
                          format_number, format_pf_days, format_time_amount, plural)

DURATION_LABELS = {"days": "wall-clock days", "hours": "wall-clock hours", "chip_hours": "chip-hours (GPU-hours)",
                   "gpu_days": "GPU-days (chip-days)"}
Metric = tuple[str, str, str | None]


def results_details(estimate) -> tuple[str, ...]:
    """What the results line shows beside the total."""
    return (format_pf_days(estimate.pfs_days), format_chip_hours(estimate.chip_hours),
            f"{format_duration(estimate.wall_clock_hours)} wall-clock")


def estimate_metrics(estimate) -> list[Metric]:
    peak = estimate.peak
    return [
        ("Training compute", format_flop(estimate.training_flop), "C = chips × time × peak × utilization"),
        ("PF-days", format_flop(estimate.pfs_days, ""), "petaFLOP/s-days: training FLOP ÷ 8.64e19"),
        ("Peak used, per chip", format_flop(peak.peak_flop_per_s / TERA, "T" + peak.unit),
         f"{peak.describe()} — dense"),
        ("Chip time", format_chip_hours(estimate.chip_hours), None),
        ("Wall-clock", format_duration(estimate.wall_clock_hours), None),
    ]


def interval_metrics(band) -> list[Metric]:
    return [("90% interval", f"{format_flop(band.low)} – {format_flop(band.high)}",
             f"from the ranges of: {', '.join(band.factors)}. {band.method}"),
            ("Confidence (Epoch's labels)", band.confidence, band.confidence_rule)]


def peak_notes(peak) -> list[str]:
    """The peak's notes, without the assumed-format one (the page says that in its own notice)."""
    return [note for note in peak.notes if not (peak.assumed_format and note.startswith("assumed "))]


def cost_metrics(costs) -> list[Metric]:
    return [
        ("Cost", costs.cost_text, costs.price_basis or "no price on file for this chip: enter one above"),
        ("Energy", format_energy_kwh(costs.energy_kwh), f"chip-hours × {costs.tdp_w or '?'} W × PUE {costs.pue:g}"),
        ("CO₂", format_co2_kg(costs.co2_kg), costs.grid_basis),
    ]


def example_run_sentence(method1_flop: float, estimate, chips: float, duration: float, unit: str) -> str:
    """While the run is still the example: how long method 1's compute takes on these chips at this utilization."""
    hours = wall_clock_hours(method1_flop, estimate.peak.peak_flop_per_s, estimate.utilization, chips or 1)
    return (f"The run above is an example ({plural(chips, 'chip')}, {format_time_amount(duration, unit)}); enter "
            f"your run's chips, time and utilization to compare it with method 1's {format_flop(method1_flop)}. "
            f"On these chips at this utilization, method 1's compute takes {format_duration(hours)} of wall-clock "
            "time.")


def comparison_metrics(check) -> list[Metric]:
    ratio = check.ratio_method2_to_method1
    return [
        ("Method 1 (architecture)", format_flop(check.method1_training_flop), f"{check.method1_pfs_days:.4g} PF-days"),
        ("Method 2 (hardware)", format_flop(check.method2_training_flop), f"{check.method2_pfs_days:.4g} PF-days"),
        ("Ratio method 2 ÷ method 1", format_number(ratio, 3) + " ×" if 1e-3 <= ratio < 1e9 else format_flop(ratio, "×"),
         None),
        ("Utilization that would agree", format_flop(check.utilization_to_agree, "") if check.utilization_to_agree
         else "—", "u × C1 / C2"),
    ]


def budget_metrics(by_time, chips: float, by_chips, deadline_days: float) -> list[Metric]:
    items = []
    if by_time:
        items.append((f"Wall-clock on {plural(chips, 'chip')}", format_duration(by_time.wall_clock_hours),
                      f"{format_chip_hours(by_time.chip_hours)} at utilization {by_time.utilization:g}"))
    if by_chips:
        items.append((f"Chips for {plural(deadline_days, 'day')}", plural(by_chips.chip_count, "chip"),
                      f"exactly {by_chips.chip_count_exact:,.4g}"))
    return items


def measured_metrics(mu) -> list[Metric]:
    return [("Achieved", format_flop(mu.achieved_flop_per_s, "FLOP/s"), None),
            ("Per chip", format_flop(mu.achieved_flop_per_s_per_chip, "FLOP/s"), None),
            ("Model FLOPs utilization", f"{100 * mu.mfu:.1f}%", "achieved ÷ (chips × peak)")]
