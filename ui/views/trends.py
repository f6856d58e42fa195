"""The trends page's figures, without Streamlit: the kept Epoch import and its sentences, the pooled runs, the
fit queries and table, where an estimate falls, and the traces of the three charts (plotly keyword arguments).

Doubling time of a fit: 12·log10(2)/slope months, slope of log10(FLOP) per year. Method 2 in the
reconciliation: chips × hours × 3600 × dense peak × utilization."""
from __future__ import annotations

import html
from types import SimpleNamespace

from engine.errors import InputError
from engine.trends.combine import BOTH, EPOCH, SHIPPED, combine_runs
from engine.trends.fit import MOORE_DOUBLING_MONTHS, NAMED_WINDOWS, TrendQuery, fit_trend, reference_line
from engine.trends.hardware_trend import fit_hardware_trend, hardware_points
from engine.trends.reconcile import FLAG_FACTOR, UTILIZATION_SOURCE
from engine.trends.runs_dataset import runs_frame
from engine.method2.run import estimate_method2
from engine.method2.utilization_priors import MIN_REPORTS
from engine.units import format_flop
from ui.text import plain

Metric = tuple[str, str, str | None]

MARKERS = {SHIPPED: ("circle", "#1f6feb", "FLOPscope's dataset"),
           EPOCH: ("diamond", "#8250df", "Epoch AI (uploaded)"),
           BOTH: ("square", "#1a7f37", "in both, counted once")}
COLORS = ["#d1242f", "#8250df", "#1a7f37", "#bc4c00", "#0550ae"]
RUN_COLUMNS = ["name", "organization", "publication_date", "decimal_year", "domain", "training_flop", "source_label"]
EPOCH_SOURCE = "Epoch AI, Data on AI Models (uploaded CSV)"
DEFAULT_WINDOWS = ["openai-2012-2018", "pre-deep-learning", "deep-learning"]
FRONTIERS = {"all": "all runs", "records": "record-setters", "top_k": "top 3 per year"}
FIT_CAPTION = ("Least squares of log10(FLOP) on the date; doubling = 12·log10(2)/slope months. References: OpenAI "
               "(Amodei & Hernandez 2018): 3.4-month doubling 2012–2018; Epoch (Sevilla et al. 2022): ≈ 20 months "
               "before 2010, ≈ 6 months after, ≈ 10 months for large-scale runs from late 2015.")
NO_IMPORT = ("Upload an Epoch AI CSV above: every row that names its training hardware, chip count and training "
             "time is recomputed by method 2 (chips × hours × the chip's dense peak × utilization) and compared "
             "with the compute the row reports.")
PRIORS_CAPTION = (f"Groups of {MIN_REPORTS} runs or more are offered as utilization presets on the hardware page, "
                  "with the runs they come from as the source.")
RECONCILE_CAPTION = ("Method 2 = chips × hours × 3600 × dense peak of the chip's usual format × utilization (the "
                     f"row's, else {UTILIZATION_SOURCE}). Beyond {FLAG_FACTOR:g}× is flagged; the likely cause is "
                     "given where the row says so (a base model's compute included, hours that are chip-hours). A "
                     "row naming several chip types is not recomputed.")


# ------------------------------------------------------------------ the import and the runs
def compact(imported, file: str) -> SimpleNamespace:
    """What the session keeps of an import: the runs as one table (not an object per row), the counts,
    and the rows that name their hardware (the reconciliation and the hardware page read them)."""
    return SimpleNamespace(frame=runs_frame(imported.runs), rows_read=imported.rows_read, skipped=imported.skipped,
                           skipped_by_reason=imported.skipped_by_reason, file=file,
                           hardware_rows=imported.hardware_rows)


def import_sentence(imported) -> str:
    """'3 runs imported from 4 rows of good.csv; 1 skipped (no date: 1).'"""
    reasons = ", ".join(f"{k}: {v}" for k, v in imported.skipped_by_reason.items()) or "none"
    return (f"{len(imported.frame):,} runs imported from {imported.rows_read:,} rows of "
            f"{imported.file}; {imported.skipped:,} skipped ({reasons}).")


def refusal_then(imported) -> str:
    """What happens after a refused file: the earlier import stays, or there is none."""
    kept = (f"the earlier import ({len(imported.frame):,} runs from {imported.file}) is kept."
            if imported is not None else "nothing was imported.")
    return f"the file was not used; {kept}"


def source_labels(shipped_runs: int) -> dict[str, str]:
    return {"shipped": f"FLOPscope's dataset ({shipped_runs} runs)", "epoch": "the uploaded Epoch CSV", "both": "both"}


def pooled_runs(shipped, imported, choice: str):
    """The runs shown: FLOPscope's, the import's, or both with each run once (origin column: which)."""
    ours = shipped.assign(source_label=shipped["source"])[RUN_COLUMNS].assign(origin=SHIPPED)
    if imported is None or choice not in ("epoch", "both"):
        return ours
    epoch = imported.frame.copy()
    epoch["source_label"] = EPOCH_SOURCE
    return combine_runs(ours, epoch) if choice == "both" else epoch.assign(origin=EPOCH)


def both_caption(runs) -> str:
    twice = int((runs["origin"] == BOTH).sum())
    return (f"{len(runs):,} runs: {twice:,} are in both datasets and counted once (same name, dates within "
            f"a year, FLOP within 10×), with FLOPscope's figure and source.")


def year_span(runs) -> tuple[int, int]:
    """The custom window's slider bounds: the first run's year to the year after the last."""
    return int(runs["decimal_year"].min()), int(runs["decimal_year"].max()) + 1


def default_window(first: int, last: int) -> tuple[int, int]:
    return min(max(first, 2010), last - 1), last


# ------------------------------------------------------------------ fits
def fit_queries(named, window, frontier: str, domain: str | None) -> dict[str, TrendQuery]:
    """The named windows (in the chosen domain) and the custom window, by their legend label."""
    queries = {NAMED_WINDOWS[k].label: NAMED_WINDOWS[k].model_copy(update={"domain": domain}) for k in named}
    queries[f"Custom {window[0]}–{window[1]} ({frontier})"] = TrendQuery(
        start_year=float(window[0]), end_year=float(window[1]), domain=domain, frontier=frontier)
    return queries


def fit_all(runs, queries) -> tuple[dict, list[str]]:
    """(label → fit, a caption for each window that could not be fitted)."""
    fits, notes = {}, []
    for label, query in queries.items():
        try:
            fits[label] = fit_trend(runs, query)
        except InputError as exc:
            notes.append(f"{label}: not fitted ({plain(exc.reason)})")
    return fits, notes


def fit_rows(fits) -> list[dict]:
    return [{
        "window": label, "runs (n)": f.n,
        "doubling (months)": f"{f.doubling_months:.3g}" if f.doubling_months else "—",
        "95% CI (months)": (f"{f.ci_doubling_months[0]:.3g} – {f.ci_doubling_months[1]:.3g}"
                            if f.ci_doubling_months and None not in f.ci_doubling_months else "—"),
        "growth per year": f"{f.growth_per_year:.3g}×",
    } for label, f in fits.items()]


# ------------------------------------------------------------------ your estimate
def your_estimates(scenario) -> tuple[dict[str, float], dict]:
    """(label → training FLOP of method 1 and, with a usable hardware run, method 2; label → 90% interval or
    None). A method without a figure is left out."""
    m1_estimate = scenario.method1(strict=False)
    m1 = m1_estimate.training_flop
    bands = {"Your estimate (method 1)": m1_estimate.training.interval if m1_estimate.training else None}
    m2 = None
    if scenario.hardware is not None:
        try:
            m2_estimate = estimate_method2(scenario.hardware)
            m2, bands["Your estimate (method 2)"] = m2_estimate.training_flop, m2_estimate.interval
        except InputError:
            m2 = None
    estimates = {k: v for k, v in (("Your estimate (method 1)", m1), ("Your estimate (method 2)", m2)) if v}
    return estimates, bands


def placement_line(label: str, flop: float, placed, band) -> str:
    """'**Your estimate (method 1): 1.2e18 FLOP** (90% interval …) — larger than every known run before …;
    rank r of n + 1; percentile p among the k runs of YYYY.' (Markdown; run names made inert)."""
    if placed.largest_known:
        where = "larger than every known run"
    else:
        where = (f"larger than every known run before {placed.larger_than_every_run_before} "
                 f"({plain(placed.first_larger_run)} was the first larger one)")
    year_part = (f"; percentile {placed.percentile_in_year:.0f} among the {placed.n_runs_in_year} runs of {placed.year}"
                 if placed.percentile_in_year is not None else "")
    band_part = (f" (90% interval {format_flop(band.low)} – {format_flop(band.high)}, {band.confidence})"
                 if band is not None else "")
    return (f"**{label}: {format_flop(flop)}**{band_part} — {where}; rank {placed.rank} of {placed.n_runs + 1}"
            f"{year_part}.")


# ------------------------------------------------------------------ chart traces (plotly keyword arguments)
def run_traces(shown) -> list[dict]:
    """One marker trace per origin; names and domains may come from an uploaded file and plotly renders tags
    in hover text, so they are escaped."""
    traces = []
    for origin, (symbol, color, legend) in MARKERS.items():
        part = shown[shown["origin"] == origin]
        if part.empty:
            continue
        traces.append(dict(
            x=part["decimal_year"], y=part["training_flop"], mode="markers", name=f"{legend} ({len(part):,})",
            marker=dict(size=7, color=color, opacity=0.75, symbol=symbol),
            customdata=part[["name", "publication_date", "source_label", "domain"]].astype(str).map(html.escape)
            .to_numpy(),
            hovertemplate="<b>%{customdata[0]}</b><br>%{customdata[1]} · %{customdata[3]}<br>%{y:.3e} FLOP"
                          "<br>source: %{customdata[2]}<extra></extra>"))
    return traces


def fit_traces(fits) -> list[dict]:
    traces = []
    for i, (label, fit) in enumerate(fits.items()):
        xs = [fit.first_year, fit.last_year]
        traces.append(dict(x=xs, y=[fit.predicted_training_flop(x) for x in xs], mode="lines",
                           line=dict(color=COLORS[i % len(COLORS)], width=3),
                           name=f"{label}: doubling {fit.doubling_months:.3g} months" if fit.doubling_months
                           else label))
    return traces


def moore_anchor(fits):
    """The fit Moore's law line starts from: OpenAI's window, else the first fit, else None."""
    return fits.get(NAMED_WINDOWS["openai-2012-2018"].label) or next(iter(fits.values()), None)


def moore_trace(fits, last_year: float) -> dict | None:
    """Moore's law (2-year doubling) from the anchor fit's value at its first year to ``last_year``."""
    anchor = moore_anchor(fits)
    if anchor is None:
        return None
    xs, ys = reference_line(anchor.first_year, anchor.predicted_training_flop(anchor.first_year),
                            MOORE_DOUBLING_MONTHS, anchor.first_year, last_year)
    return dict(x=xs, y=ys, mode="lines", line=dict(color="#57606a", dash="dot"), name="Moore's law (2-year doubling)")


def estimate_trace(label: str, flop: float, band, year: float) -> dict:
    """A star at the run's date, with the 90% interval as an error bar when there is one."""
    error_y = (dict(type="data", symmetric=False, array=[band.high - flop], arrayminus=[flop - band.low],
                    thickness=2, width=8) if band is not None else None)
    return dict(x=[year], y=[flop], mode="markers", name=label, error_y=error_y,
                marker=dict(size=16, symbol="star", color="#cf222e" if "1" in label else "#fb8500",
                            line=dict(width=1, color="black")),
                hovertemplate=f"{label}<br>%{{y:.3e}} FLOP<extra></extra>")


def hardware_traces(keys, db, labels) -> tuple[list[dict], list[dict]]:
    """(traces: each format's chips as markers and its fitted line, table rows: format, chips, doubling)."""
    traces, rows = [], []
    for i, key in enumerate(keys):
        points = hardware_points(key, db)
        if not points:
            continue
        color = COLORS[i % len(COLORS)]
        traces.append(dict(x=[p.decimal_year for p in points], y=[p.peak_flop_per_s for p in points],
                           mode="markers", name=labels.get(key, key), marker=dict(color=color, size=8),
                           customdata=[[p.name, p.release_date] for p in points],
                           hovertemplate="<b>%{customdata[0]}</b><br>%{customdata[1]}<br>%{y:.3e} FLOP/s"
                                         "<extra></extra>"))
        try:
            trend = fit_hardware_trend(key, db)
        except InputError:
            continue
        xs = [trend.first_year, trend.last_year]
        traces.append(dict(x=xs, y=[trend.predicted(x) for x in xs], mode="lines", showlegend=False,
                           line=dict(color=color)))
        rows.append({"format": labels.get(key, key), "chips": trend.n,
                     "doubling (months)": f"{trend.doubling_months:.3g}" if trend.doubling_months else "—"})
    return traces, rows


# ------------------------------------------------------------------ reconciliation
def reconcile_metrics(summary) -> list[Metric]:
    def share(x):
        return f"{100 * x:.0f}%" if x is not None else "—"
    return [("Rows with hardware and time", f"{summary.rows_with_hardware:,}", None),
            ("Chip found", f"{summary.rows_resolved:,}", None),
            ("Median ratio (method 2 ÷ reported)",
             f"{summary.median_ratio:.3g}" if summary.median_ratio is not None else "—", None),
            ("Within 2×", share(summary.share_within_2x), None),
            ("Within 3×", share(summary.share_within_3x), None)]


def reconcile_table(rows) -> list[dict]:
    return [{
        "model": r.name, "date": r.publication_date, "hardware": r.hardware, "chips": r.chip_count,
        "hours": r.training_hours, "utilization": r.utilization,
        "utilization from": "assumed" if r.utilization_assumed else ("row" if r.utilization else ""),
        "format": r.format, "method 2 (FLOP)": r.method2_flop, "reported (FLOP)": r.reported_flop,
        "ratio": r.ratio, "beyond 3×": r.flagged, "likely cause / note": r.likely_cause or r.message or "",
        "status": r.status,
    } for r in rows]


def reconcile_traces(rows) -> list[dict]:
    """Method 2 against reported on log axes: the equality line, ×3 and ÷3 lines, rows within and beyond 3×;
    no traces when no row was compared."""
    compared = [r for r in rows if r.status == "compared"]
    if not compared:
        return []
    lo = min(min(r.reported_flop, r.method2_flop) for r in compared) / 2
    hi = max(max(r.reported_flop, r.method2_flop) for r in compared) * 2
    traces = [dict(x=[lo, hi], y=[lo * factor, hi * factor], mode="lines", name=label,
                   line=dict(color="grey", dash=dash), hoverinfo="skip")
              for factor, dash, label in ((1.0, "solid", "equal"), (FLAG_FACTOR, "dot", f"{FLAG_FACTOR:g}×"),
                                          (1 / FLAG_FACTOR, "dot", f"1/{FLAG_FACTOR:g}×"))]
    for flagged, color, name in ((False, COLORS[4], "within 3×"), (True, COLORS[0], "beyond 3×")):
        group = [r for r in compared if r.flagged == flagged]
        traces.append(dict(
            x=[r.reported_flop for r in group], y=[r.method2_flop for r in group], mode="markers", name=name,
            marker=dict(color=color, size=8),
            customdata=[[html.escape(r.name), html.escape(r.hardware), f"{r.ratio:.3g}"] for r in group],
            hovertemplate="%{customdata[0]}<br>%{customdata[1]}<br>ratio %{customdata[2]}<extra></extra>"))
    return traces


def prior_rows(priors) -> list[dict]:
    return [{
        "chip generation": p.generation, "scale": p.scale, "runs (n)": p.n, "median": p.median,
        "25th–75th percentile": f"{100 * p.p25:.0f}–{100 * p.p75:.0f}%",
        "min–max": f"{100 * p.minimum:.0f}–{100 * p.maximum:.0f}%", "runs": ", ".join(p.runs),
    } for p in priors]
