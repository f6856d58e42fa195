"""The hardware picker shared by the hardware and precision pages: which peak, which format.

Both pages edit the ONE hardware run of the scenario with the same controls (same widget keys): the
chip, the number format (or a mixed split), tensor cores and the fallback. A page that is entered
rebinds them to the scenario (``state.enter_page``), so an edit made on one page is what the other shows.
"""
from __future__ import annotations

import streamlit as st

from engine.method2.formats import PEAK_FORMATS
from engine.method2.hardware_db import HardwareDB
from engine.units import TERA
from engine.errors import InputError, quoted
from engine.method2.chip_search import search_chips
from ui import state
from ui.text import plain

FORMAT_LABELS = {"fp64": "FP64", "fp32": "FP32", "tf32": "TF32", "fp16": "FP16", "bf16": "BF16", "fp8": "FP8",
                 "fp6": "FP6 (MXFP6)", "fp4": "FP4 (MXFP4 / NVFP4)", "int8": "INT8", "mixed": "mixed precision"}
PEAK_LABELS = {f.key: f.label for f in PEAK_FORMATS}
SOURCES = {"chip": "a chip from the database", "custom_chip": "a custom chip", "peak_flop_per_s": "one custom peak",
           "year": "unknown hardware: the trend of a year"}
CLASS_LABELS = {"data_center": "data-centre accelerator", "workstation_consumer": "workstation or consumer card"}
AUTO_FORMAT = "auto"
CUSTOM_PEAK_KEYS = ("fp32", "tf32_tensor", "fp16_tensor", "bf16_tensor", "fp8_tensor", "fp4_tensor")


DEFAULT_CHIP = "nvidia-a100-sxm4-80gb"


def known_chip(wanted: str | None, db: HardwareDB, fallback: str) -> tuple[str, str | None]:
    """The database id for ``wanted`` (an id or alias), or ``fallback`` and a sentence saying so."""
    if wanted is None:
        return fallback, None
    try:
        return db.chip(wanted).id, None
    except InputError:
        return fallback, (f"The scenario's chip {quoted(wanted)} is not in the hardware database: "
                          f"{db.chip(fallback).name} is shown and used instead. Pick the chip you meant, "
                          "or describe it as a custom chip.")


def _source_of(run: dict) -> str:
    return next((k for k in SOURCES if run.get(k) is not None), "chip")


def hardware_spec_inputs(run: dict, db: HardwareDB) -> dict:
    """Widgets for the hardware spec of ``run``; returns the spec part of a ``HardwareRun``."""
    source = st.radio("Hardware", list(SOURCES), horizontal=True, key=state.bind("hw_source", _source_of(run)),
                      format_func=SOURCES.get)
    spec: dict = {}
    if source == "chip":
        chip_id = chip_picker(run.get("chip"), db)
        spec["chip"] = chip_id
        chip = db.chip(chip_id)
        peaks = ", ".join(f"{PEAK_LABELS.get(k, k)} {v / TERA:,.4g}" for k, v in chip.peaks.available().items())
        st.caption(plain(f"{chip.name}: {peaks} (TFLOP/s, dense) · usual training format "
                         f"{PEAK_LABELS.get(chip.usual_format, chip.usual_format)} · memory {chip.memory_gb or '?'} GB · "
                         f"TDP {chip.tdp_w or '?'} W. Source: {', '.join(chip.source)}"))
        if chip.notes:
            st.caption(plain(chip.notes))
    elif source == "custom_chip":
        custom = run.get("custom_chip") or {"name": "My accelerator", "peaks": {"fp32": 20e12, "bf16_tensor": 300e12}}
        name = st.text_input("Chip name", key=state.bind("hw_custom_name", custom.get("name", "")), max_chars=120)
        cols = st.columns(len(CUSTOM_PEAK_KEYS))
        peaks = {}
        for col, key in zip(cols, CUSTOM_PEAK_KEYS):
            value = col.number_input(f"{PEAK_LABELS[key]}, TFLOP/s (0 = none)", min_value=0.0, format="%.4g",
                                     key=state.bind(f"hw_custom_{key}", (custom["peaks"].get(key) or 0.0) / TERA))
            if value > 0:
                peaks[key] = value * TERA
        spec["custom_chip"] = {"name": name or "custom chip", "peaks": peaks}
        st.caption("Dense peaks only: NVIDIA datasheets print tensor figures “with sparsity”, twice the dense ones.")
    elif source == "peak_flop_per_s":
        value = st.number_input("Dense peak per chip, TFLOP/s (of the format the run used)", min_value=0.0,
                                format="%.6g", key=state.bind("hw_peak", (run.get("peak_flop_per_s") or 1e14) / TERA))
        spec["peak_flop_per_s"] = value * TERA
    else:
        years = sorted({c.release_year for c in db.chips if c.release_year})
        first, last = 2008, max(years[-1], 2026)  # the trend starts in 2008 (the schema's first year)
        wanted = int(run.get("year") or 2020)
        shown = min(max(wanted, first), last)
        replaced = (None if shown == wanted else
                    f"The scenario's hardware year {wanted} is outside the years this page offers ({first}–{last}): "
                    f"{shown} is shown and used instead. Pick the year you meant.")
        y1, y2 = st.columns(2)
        spec["year"] = int(y1.number_input("Year the hardware was released", min_value=first, max_value=last, step=1,
                                           key=state.bind("hw_year", shown, replaced=replaced)))
        state.replaced_notice("hw_year", y1)
        spec["hardware_class"] = y2.selectbox("Class", list(CLASS_LABELS), format_func=CLASS_LABELS.get,
                                              key=state.bind("hw_class", run.get("hardware_class", "data_center")))
        st.caption("The peak of a typical chip of that year and class, from the trend of the database's chips "
                   "(with its 90% band), not a plain mean of that year's launches.")
    spec.update(format_inputs(run))
    return spec


FALLBACK_LABEL = "Fall back to the nearest slower format"
FALLBACK_HELP = ("If the chip lacks the format (a V100 has no BF16), use the nearest slower peak it has, "
                 "flagged with the result, instead of stopping with an error.")
TENSOR_LABEL = "Tensor cores used"


def chip_picker(current: str | None, db: HardwareDB, *, label: str = "Chip") -> str:
    """A search field and the chips it matches, exact names first (``engine.method2.chip_search``)."""
    ids = [c.id for c in db.chips]
    current, replaced = known_chip(current, db, DEFAULT_CHIP)
    c1, c2 = st.columns([1, 2])
    query = c1.text_input("Find a chip", key="hw_chip_search", placeholder="e.g. H100, TPU v4, MI300X",
                          help="Exact names first, then names starting with what you typed.")
    matches = [c.id for c in search_chips(db, query)] or ids
    key = state.bind("hw_chip", current, replaced=replaced)
    if st.session_state.get(key) not in matches:
        st.session_state[key] = matches[0]
    chip_id = c2.selectbox(f"{label} ({len(matches)} of {len(ids)})" if query.strip() else label, matches, key=key,
                           format_func=lambda i: f"{db.chip(i).name} — {db.chip(i).vendor}, "
                                                 f"{db.chip(i).release_date[:4]}")
    state.replaced_notice(key)
    return chip_id


def format_inputs(run: dict, *, mixed_here: bool = False) -> dict:
    """Number format (or the mixed split, edited on the precision page), tensor cores and the fallback:
    the same three controls on both pages."""
    spec: dict = {}
    c1, c2, c3 = st.columns(3)
    mixed = run.get("mixed_precision")
    if mixed and not mixed_here:
        c1.info("Mixed precision: " + ", ".join(f"{FORMAT_LABELS[k]} {100 * v:.0f}%" for k, v in mixed.items())
                + " (set on the Precision page)")
        spec["mixed_precision"] = mixed
        spec["split_basis"] = run.get("split_basis", "work")
    elif not mixed:
        choice = c1.selectbox("Number format trained in", [AUTO_FORMAT, *list(FORMAT_LABELS)[:-1]],
                              key=state.bind("hw_precision", run.get("precision") or AUTO_FORMAT),
                              format_func=lambda f: "the chip's usual format" if f == AUTO_FORMAT else FORMAT_LABELS[f])
        if choice != AUTO_FORMAT:
            spec["precision"] = choice
    auto = "precision" not in spec and "mixed_precision" not in spec and not mixed_here
    spec["tensor_cores"] = c2.checkbox(TENSOR_LABEL, key=state.bind("hw_tensor", run.get("tensor_cores", True)),
                                       disabled=auto, help="With the chip's usual format, its default decides.")
    spec["allow_fallback"] = c3.checkbox(FALLBACK_LABEL, help=FALLBACK_HELP,
                                         key=state.bind("hw_fallback", run.get("allow_fallback", False)))
    return spec


def hardware_error(exc: InputError) -> None:
    """A method-2 error in the words of the controls on the page (the engine's names the CLI's flags)."""
    reason = exc.reason.replace("set allow_fallback (CLI: --allow-fallback)", f"tick “{FALLBACK_LABEL}”")
    reason = reason.replace("turn tensor cores off", f"untick “{TENSOR_LABEL}”")
    reason = reason.replace("turn tensor cores on", f"tick “{TENSOR_LABEL}”")
    st.error(plain(f"{exc.field}: {reason}"))
