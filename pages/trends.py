"""Page 4 — Historical trends: training compute of notable runs over time, fits, and your estimate."""
from __future__ import annotations

import datetime as dt
import html
from types import SimpleNamespace

import pandas as pd
import plotly.graph_objects as go
import streamlit as st

from engine.method2.formats import PEAK_KEYS
from engine.trends.combine import BOTH, EPOCH, SHIPPED, combine_runs
from engine.trends.epoch_csv import MAX_ROWS, EpochImport, read_epoch_csv
from engine.errors import InputError
from engine.method2.hardware_db import load_hardware_db
from engine.trends.hardware_trend import fit_hardware_trend, hardware_points
from engine.method2.run import estimate_method2
from engine.trends.partial_dates import decimal_year_of
from engine.trends.placement import place_estimate
from engine.trends.reconcile import FLAG_FACTOR, UTILIZATION_SOURCE, reconcile_rows
from engine.method2.utilization_priors import MIN_REPORTS, reports_from_epoch, summarise
from engine.trends.runs_dataset import load_training_runs, runs_frame, runs_table
from engine.trends.fit import (MOORE_DOUBLING_MONTHS, NAMED_WINDOWS, TrendQuery, domains_of, fit_trend, reference_line,
                               select_runs)
from engine.units import format_flop
from ui import state
from ui.boundary import shipped_data
from ui.thresholds import add_threshold_lines
from ui.widgets import page_header, plain, say, show_error
from ui.hardware_inputs import PEAK_LABELS
from ui.charts import decades, show_chart

MAX_UPLOAD_BYTES = 20_000_000
MARKERS = {SHIPPED: ("circle", "#1f6feb", "FLOPscope's dataset"),
           EPOCH: ("diamond", "#8250df", "Epoch AI (uploaded)"),
           BOTH: ("square", "#1a7f37", "in both, counted once")}
EPOCH_DATA = "trends_epoch_import"
EPOCH_SEEN = "trends_epoch_seen"
EPOCH_REFUSED = "trends_epoch_refused"

def compact(imported: EpochImport, file: str) -> SimpleNamespace:
    """What the session keeps of an import: the runs as one table (not an object per row), the counts,
    and the rows that name their hardware (the reconciliation and the hardware page read them)."""
    return SimpleNamespace(frame=runs_frame(imported.runs), rows_read=imported.rows_read, skipped=imported.skipped,
                           skipped_by_reason=imported.skipped_by_reason, file=file,
                           hardware_rows=imported.hardware_rows)


page_header("Historical trends",
            "Training compute of notable runs against their publication date (log scale), fitted trends with "
            "doubling times, and where your estimate falls.")

# ------------------------------------------------------------------ data
shipped = runs_table(shipped_data(load_training_runs))
shipped["source_label"] = shipped["source"]
with st.expander("Add Epoch AI's data (upload their CSV download)"):
    st.caption("“Notable AI Models”, “All AI Models” or “Large-scale AI Models” from epoch.ai/data (CC BY 4.0). "
               "Rows without a usable date or training compute are skipped and counted.")
    upload = st.file_uploader("Epoch AI CSV", type=["csv"], key="trends_upload",
                              help=f"At most {MAX_UPLOAD_BYTES // 1_000_000} MB and {MAX_ROWS:,} rows.")
    if upload is not None and st.session_state.get(EPOCH_SEEN) != upload.file_id:
        st.session_state[EPOCH_SEEN] = upload.file_id
        st.session_state.pop(EPOCH_REFUSED, None)
        progress = st.progress(0.0, text="Reading the file…")
        try:
            if upload.size > MAX_UPLOAD_BYTES:
                raise InputError("csv", f"larger than {MAX_UPLOAD_BYTES:,} bytes")
            progress.progress(0.3, text="Parsing and validating rows…")
            imported = read_epoch_csv(upload.getvalue()).require_runs()
            progress.progress(1.0, text="Done")
            # the session keeps a compact table and the counts, not one object per row
            st.session_state[EPOCH_DATA] = compact(imported, upload.name)
        except InputError as exc:  # the earlier import, if any, stays
            st.session_state[EPOCH_REFUSED] = (upload.file_id, exc)
        progress.empty()
    refused = st.session_state.get(EPOCH_REFUSED)
    imported = st.session_state.get(EPOCH_DATA)
    if isinstance(imported, EpochImport):  # put there whole (by a test, or an older session): compact it
        imported = st.session_state[EPOCH_DATA] = compact(imported, "the uploaded file")
    if refused is not None and upload is not None and refused[0] == upload.file_id:
        kept = (f"the earlier import ({len(imported.frame):,} runs from {imported.file}) is kept."
                if imported is not None else "nothing was imported.")
        show_error(refused[1], f"the file was not used; {kept}")
    if imported is not None:
        reasons = ", ".join(f"{k}: {v}" for k, v in imported.skipped_by_reason.items()) or "none"
        say("success", f"{len(imported.frame):,} runs imported from {imported.rows_read:,} rows of "
                       f"{imported.file}; {imported.skipped:,} skipped ({reasons}).")

source_choice = st.radio("Runs", ["shipped", "epoch", "both"], horizontal=True, key="trends_source",
                         disabled=imported is None,
                         format_func={"shipped": f"FLOPscope's dataset ({len(shipped)} runs)",
                                      "epoch": "the uploaded Epoch CSV", "both": "both"}.get)
ours = shipped[["name", "organization", "publication_date", "decimal_year", "domain", "training_flop",
                "source_label"]].assign(origin=SHIPPED)
if imported is not None and source_choice in ("epoch", "both"):
    epoch = imported.frame.copy()
    epoch["source_label"] = "Epoch AI, Data on AI Models (uploaded CSV)"
    runs = combine_runs(ours, epoch) if source_choice == "both" else epoch.assign(origin=EPOCH)
else:
    runs = ours
if source_choice == "both" and imported is not None:
    twice = int((runs["origin"] == BOTH).sum())
    st.caption(f"{len(runs):,} runs: {twice:,} are in both datasets and counted once (same name, dates within "
               f"a year, FLOP within 10×), with FLOPscope's figure and source.")

domains = domains_of(runs)
c1, c2 = st.columns([1, 2])
domain = c1.selectbox("Domain", ["All"] + domains, key="trends_domain")
first, last = int(runs["decimal_year"].min()), int(runs["decimal_year"].max()) + 1
window = c2.slider("Custom fit window (years)", first, last, (min(max(first, 2010), last - 1), last),
                   key="trends_window")
domain_filter = None if domain == "All" else domain
shown = select_runs(runs, TrendQuery(domain=domain_filter))  # the fits' own domain match

named = st.multiselect("Fitted windows", list(NAMED_WINDOWS), key="trends_named",
                       default=["openai-2012-2018", "pre-deep-learning", "deep-learning"],
                       format_func=lambda k: NAMED_WINDOWS[k].label)
frontier = st.radio("Custom window fits", ["all", "records", "top_k"], horizontal=True, key="trends_frontier",
                    format_func={"all": "all runs", "records": "record-setters", "top_k": "top 3 per year"}.get)

queries = {NAMED_WINDOWS[k].label: NAMED_WINDOWS[k].model_copy(update={"domain": domain_filter}) for k in named}
queries[f"Custom {window[0]}–{window[1]} ({frontier})"] = TrendQuery(
    start_year=float(window[0]), end_year=float(window[1]), domain=domain_filter, frontier=frontier)
fits = {}
for label, query in queries.items():
    try:
        fits[label] = fit_trend(runs, query)
    except InputError as exc:
        st.caption(f"{label}: not fitted ({plain(exc.reason)})")

# ------------------------------------------------------------------ your estimate
scenario = state.get()
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
c1, c2 = st.columns([1, 2])
when = c1.date_input("Date of your run", value=dt.date(2026, 1, 1), key="trends_date",
                     min_value=dt.date(1950, 1, 1), max_value=dt.date(2100, 12, 31))
estimates = {k: v for k, v in (("Your estimate (method 1)", m1), ("Your estimate (method 2)", m2)) if v}
for label, flop in estimates.items():
    try:
        placed = place_estimate(runs, flop, when.isoformat(), domain=domain_filter)
    except InputError as exc:
        say("caption", f"{label}: not placed ({exc.reason})", c2)
        continue
    if placed.largest_known:
        where = "larger than every known run"
    else:
        where = (f"larger than every known run before {placed.larger_than_every_run_before} "
                 f"({plain(placed.first_larger_run)} was the first larger one)")
    year_part = (f"; percentile {placed.percentile_in_year:.0f} among the {placed.n_runs_in_year} runs of {placed.year}"
                 if placed.percentile_in_year is not None else "")
    band = bands.get(label)
    band_part = (f" (90% interval {format_flop(band.low)} – {format_flop(band.high)}, {band.confidence})"
                 if band is not None else "")
    c2.markdown(f"**{label}: {format_flop(flop)}**{band_part} — {where}; rank {placed.rank} of {placed.n_runs + 1}"
                f"{year_part}.")

# ------------------------------------------------------------------ chart
fig = go.Figure()
for origin, (symbol, color, legend) in MARKERS.items():
    part = shown[shown["origin"] == origin]
    if part.empty:
        continue
    fig.add_trace(go.Scatter(
        x=part["decimal_year"], y=part["training_flop"], mode="markers", name=f"{legend} ({len(part):,})",
        marker=dict(size=7, color=color, opacity=0.75, symbol=symbol),
        # names and domains may come from an uploaded file: Plotly renders tags in hover text, so escape them
        customdata=part[["name", "publication_date", "source_label", "domain"]].astype(str).map(html.escape).to_numpy(),
        hovertemplate="<b>%{customdata[0]}</b><br>%{customdata[1]} · %{customdata[3]}<br>%{y:.3e} FLOP"
                      "<br>source: %{customdata[2]}<extra></extra>"))
colors = ["#d1242f", "#8250df", "#1a7f37", "#bc4c00", "#0550ae"]
for i, (label, fit) in enumerate(fits.items()):
    xs = [fit.first_year, fit.last_year]
    fig.add_trace(go.Scatter(x=xs, y=[fit.predicted_training_flop(x) for x in xs], mode="lines",
                             line=dict(color=colors[i % len(colors)], width=3),
                             name=f"{label}: doubling {fit.doubling_months:.3g} months" if fit.doubling_months
                             else label))
anchor = fits.get(NAMED_WINDOWS["openai-2012-2018"].label) or next(iter(fits.values()), None)
if anchor is not None:
    xs, ys = reference_line(anchor.first_year, anchor.predicted_training_flop(anchor.first_year),
                            MOORE_DOUBLING_MONTHS, anchor.first_year, last)
    fig.add_trace(go.Scatter(x=xs, y=ys, mode="lines", line=dict(color="#57606a", dash="dot"),
                             name="Moore's law (2-year doubling)"))
when_year = decimal_year_of(when)
for label, flop in estimates.items():
    band = bands.get(label)
    error_y = (dict(type="data", symmetric=False, array=[band.high - flop], arrayminus=[flop - band.low],
                    thickness=2, width=8) if band is not None else None)
    fig.add_trace(go.Scatter(x=[when_year], y=[flop], mode="markers", name=label, error_y=error_y,
                             marker=dict(size=16, symbol="star", color="#cf222e" if "1" in label else "#fb8500",
                                         line=dict(width=1, color="black")),
                             hovertemplate=f"{label}<br>%{{y:.3e}} FLOP<extra></extra>"))
add_threshold_lines(fig)
fig.update_layout(height=520, yaxis_title="training compute (FLOP)", xaxis_title="publication date",
                  legend=dict(orientation="h", y=-0.15))
show_chart(decades(fig), "Training compute of notable runs (log scale)")

if fits:
    table = pd.DataFrame([{
        "window": label, "runs (n)": f.n,
        "doubling (months)": f"{f.doubling_months:.3g}" if f.doubling_months else "—",
        "95% CI (months)": (f"{f.ci_doubling_months[0]:.3g} – {f.ci_doubling_months[1]:.3g}"
                            if f.ci_doubling_months and None not in f.ci_doubling_months else "—"),
        "growth per year": f"{f.growth_per_year:.3g}×",
    } for label, f in fits.items()])
    st.dataframe(table, hide_index=True, width="stretch")
st.caption("Least squares of log10(FLOP) on the date; doubling = 12·log10(2)/slope months. References: OpenAI "
           "(Amodei & Hernandez 2018): 3.4-month doubling 2012–2018; Epoch (Sevilla et al. 2022): ≈ 20 months "
           "before 2010, ≈ 6 months after, ≈ 10 months for large-scale runs from late 2015.")

# ------------------------------------------------------------------ hardware
st.subheader("Hardware: peak FLOP/s over time")
db = shipped_data(load_hardware_db)
keys = list(PEAK_KEYS)
chosen = st.multiselect("Number formats", keys, default=["fp32", "fp16_tensor", "bf16_tensor"], key="trends_hw",
                        format_func=lambda k: PEAK_LABELS.get(k, k))
hw = go.Figure()
rows = []
for i, key in enumerate(chosen):
    points = hardware_points(key, db)
    if not points:
        continue
    hw.add_trace(go.Scatter(x=[p.decimal_year for p in points], y=[p.peak_flop_per_s for p in points], mode="markers",
                            name=PEAK_LABELS.get(key, key), marker=dict(color=colors[i % len(colors)], size=8),
                            customdata=[[p.name, p.release_date] for p in points],
                            hovertemplate="<b>%{customdata[0]}</b><br>%{customdata[1]}<br>%{y:.3e} FLOP/s"
                                          "<extra></extra>"))
    try:
        trend = fit_hardware_trend(key, db)
    except InputError:
        continue
    xs = [trend.first_year, trend.last_year]
    hw.add_trace(go.Scatter(x=xs, y=[trend.predicted(x) for x in xs], mode="lines", showlegend=False,
                            line=dict(color=colors[i % len(colors)])))
    rows.append({"format": PEAK_LABELS.get(key, key), "chips": trend.n,
                 "doubling (months)": f"{trend.doubling_months:.3g}" if trend.doubling_months else "—"})
hw.update_layout(height=400, yaxis_title="dense peak (FLOP/s)")
show_chart(decades(hw), "Dense peak per chip over time (log scale)")
if rows:
    st.dataframe(pd.DataFrame(rows), hide_index=True)
st.caption("Peaks from hardware_db.json (dense, per chip; each with its datasheet source).")

# ------------------------------------------------------------------ reconciliation
st.subheader("Reported compute vs method 2, row by row")
if imported is None or not imported.hardware_rows:
    st.info("Upload an Epoch AI CSV above: every row that names its training hardware, chip count and training "
            "time is recomputed by method 2 (chips × hours × the chip's dense peak × utilization) and compared "
            "with the compute the row reports.")
else:
    result = reconcile_rows(imported.hardware_rows, imported.rows_read, db)
    summary = result.summary
    cols = st.columns(5)
    cols[0].metric("Rows with hardware and time", f"{summary.rows_with_hardware:,}")
    cols[1].metric("Chip found", f"{summary.rows_resolved:,}")
    cols[2].metric("Median ratio (method 2 ÷ reported)",
                   f"{summary.median_ratio:.3g}" if summary.median_ratio is not None else "—")
    cols[3].metric("Within 2×", f"{100 * summary.share_within_2x:.0f}%" if summary.share_within_2x is not None else "—")
    cols[4].metric("Within 3×", f"{100 * summary.share_within_3x:.0f}%" if summary.share_within_3x is not None else "—")
    table = pd.DataFrame([{
        "model": r.name, "date": r.publication_date, "hardware": r.hardware, "chips": r.chip_count,
        "hours": r.training_hours, "utilization": r.utilization,
        "utilization from": "assumed" if r.utilization_assumed else ("row" if r.utilization else ""),
        "format": r.format, "method 2 (FLOP)": r.method2_flop, "reported (FLOP)": r.reported_flop,
        "ratio": r.ratio, "beyond 3×": r.flagged, "likely cause / note": r.likely_cause or r.message or "",
        "status": r.status,
    } for r in result.rows])
    st.dataframe(table, hide_index=True, width="stretch",
                 column_config={"method 2 (FLOP)": st.column_config.NumberColumn(format="%.3e"),
                                "reported (FLOP)": st.column_config.NumberColumn(format="%.3e"),
                                "ratio": st.column_config.NumberColumn(format="%.3g")})
    compared = [r for r in result.rows if r.status == "compared"]
    if compared:
        rec = go.Figure()
        lo = min(min(r.reported_flop, r.method2_flop) for r in compared) / 2
        hi = max(max(r.reported_flop, r.method2_flop) for r in compared) * 2
        for factor, dash, label in ((1.0, "solid", "equal"), (FLAG_FACTOR, "dot", f"{FLAG_FACTOR:g}×"),
                                    (1 / FLAG_FACTOR, "dot", f"1/{FLAG_FACTOR:g}×")):
            rec.add_trace(go.Scatter(x=[lo, hi], y=[lo * factor, hi * factor], mode="lines", name=label,
                                     line=dict(color="grey", dash=dash), hoverinfo="skip"))
        for flagged, color, name in ((False, colors[4], "within 3×"), (True, colors[0], "beyond 3×")):
            group = [r for r in compared if r.flagged == flagged]
            rec.add_trace(go.Scatter(
                x=[r.reported_flop for r in group], y=[r.method2_flop for r in group], mode="markers", name=name,
                marker=dict(color=color, size=8),
                customdata=[[html.escape(r.name), html.escape(r.hardware), f"{r.ratio:.3g}"] for r in group],
                hovertemplate="%{customdata[0]}<br>%{customdata[1]}<br>ratio %{customdata[2]}<extra></extra>"))
        rec.update_layout(height=460, xaxis_type="log", yaxis_type="log", xaxis_exponentformat="power",
                          yaxis_exponentformat="power", xaxis_title="reported training compute (FLOP)",
                          yaxis_title="method 2 (FLOP)", margin=dict(l=10, r=10, t=30, b=10))
        st.plotly_chart(rec, width="stretch")
    priors = summarise(reports_from_epoch(imported.hardware_rows, db), db)
    if priors:
        st.markdown("**Reported utilization in this file, by chip generation and scale**")
        st.dataframe(pd.DataFrame([{
            "chip generation": p.generation, "scale": p.scale, "runs (n)": p.n, "median": p.median,
            "25th–75th percentile": f"{100 * p.p25:.0f}–{100 * p.p75:.0f}%",
            "min–max": f"{100 * p.minimum:.0f}–{100 * p.maximum:.0f}%", "runs": ", ".join(p.runs),
        } for p in priors]), hide_index=True, width="stretch",
            column_config={"median": st.column_config.NumberColumn(format="percent")})
        st.caption(f"Groups of {MIN_REPORTS} runs or more are offered as utilization presets on the hardware page, "
                   "with the runs they come from as the source.")
    st.caption("Method 2 = chips × hours × 3600 × dense peak of the chip's usual format × utilization (the row's, "
               f"else {UTILIZATION_SOURCE}). Beyond {FLAG_FACTOR:g}× is flagged; the likely cause is given where "
               "the row says so (a base model's compute included, hours that are chip-hours). A row naming "
               "several chip types is not recomputed.")

state.sync_link()
