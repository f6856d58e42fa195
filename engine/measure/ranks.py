"""A folder of traces, one per rank of a distributed run (``tensorboard_trace_handler`` writes one
``*.pt.trace.json`` per rank): each rank measured on its own (its own clock: no cross-rank alignment is needed
for per-rank figures), the spread of the step time across ranks, and the run's step set by the slowest rank.

    step time (run) = max over ranks of the rank's mean step time
    HFU (run) = mean over ranks of the FLOP executed per step ÷ (step time (run) × peak)

A folder holding a file that is not a trace (not ``.json`` / ``.json.gz``), two files of one rank, or traces of
different chips is refused or noted with one line naming the file.
"""
from __future__ import annotations

import os
import stat
from dataclasses import dataclass, field, replace
from pathlib import Path

from ..errors import InputError
from .measurement import TraceMeasurement, measure_trace
from .utilization import ModelFlop
from ..results import Result

MAX_RANK_FILES = 1024
CLOCK_DISAGREEMENT_S = 60.0
"""Ranks of one job start their profilers within seconds; first events further apart than this say the ranks'
clocks (or the files) disagree."""
TRACE_SUFFIXES = (".json", ".json.gz")


@dataclass(frozen=True, slots=True)
class RankSummary(Result):
    """One rank's headline figures."""

    rank: int | None
    file: str
    device: str | None
    step_ms: float | None
    executed_flop_per_step: float
    hfu: float | None
    idle_ms: float | None
    exposed_comm_ms: float | None


@dataclass(frozen=True, slots=True)
class RunMeasurement(Result):
    """A folder of ranks: the slowest rank's measurement (its keys at the top, as for one file), every rank's
    summary, the spread of the step time (slowest ÷ fastest − 1) and the run's HFU / MFU."""

    slowest: TraceMeasurement
    ranks: list[RankSummary]
    step_ms_min: float | None
    step_ms_max: float | None
    spread: float | None
    run_hfu: float | None
    run_mfu: float | None
    notes: list[str] = field(default_factory=list)

    def as_dict(self) -> dict:
        out = self.slowest.as_dict()
        out["hfu"], out["mfu"] = self.run_hfu, self.run_mfu
        out["notes"] = list(self.notes) + out.get("notes", [])
        out["ranks"] = [r.as_dict() for r in self.ranks]
        out["spread"] = {"step_ms_min": self.step_ms_min, "step_ms_max": self.step_ms_max, "spread": self.spread,
                         "slowest_rank": self.slowest.rank}
        return out


def trace_files(folder: Path) -> list[Path]:
    """The trace files of a folder (hidden files skipped); anything else is an ``InputError`` naming it."""
    files = []
    for path in sorted(folder.iterdir()):
        if path.name.startswith("."):
            continue
        if path.is_dir() or not path.name.lower().endswith(TRACE_SUFFIXES):
            raise InputError(path.name[:120], f"in the folder {folder.name!r}: not a trace file (.json or .json.gz); "
                                              "a folder of ranks holds only their traces")
        if path.is_symlink():
            raise InputError(path.name[:120], f"in the folder {folder.name!r}: a link to another file; nothing is read "
                                              "through a link — put the rank's trace itself in the folder")
        if not path.is_file():
            raise InputError(path.name[:120], f"in the folder {folder.name!r}: not a regular file (a pipe or a "
                                              "device?)")
        files.append(path)
    if not files:
        raise InputError(folder.name[:120], "no trace files (.json or .json.gz) in this folder")
    if len(files) > MAX_RANK_FILES:
        raise InputError(folder.name[:120], f"{len(files):,} files: at most {MAX_RANK_FILES:,} ranks")
    return files


def measure_folder(folder: str | Path, *, step: str | int = "all", chip: str | None = None,
                   model: ModelFlop | None = None, **kw) -> RunMeasurement:
    folder = Path(folder)
    measured = [measure_trace(path, step=step, chip=chip, model=model, **kw) for path in trace_files(folder)]
    notes: list[str] = []
    ranks_seen: dict[int, str] = {}
    for m in measured:
        if m.rank is not None:
            if m.rank in ranks_seen:
                raise InputError(m.file, f"rank {m.rank} again (also in {ranks_seen[m.rank]}): two runs in one folder?")
            ranks_seen[m.rank] = m.file
    devices = {m.device for m in measured if m.device}
    if len(devices) > 1:
        notes.append(f"the ranks ran on different devices ({', '.join(sorted(devices))}): each uses its own peak")
    starts = [(m.first_event_us, m.file) for m in measured if m.first_event_us is not None]
    if starts:
        lo, hi = min(starts), max(starts)
        if (hi[0] - lo[0]) / 1e6 > CLOCK_DISAGREEMENT_S:
            notes.append(f"{hi[1]}: its clock is {(hi[0] - lo[0]) / 1e6:,.0f} s off {lo[1]}'s — the ranks' clocks "
                         "disagree; figures are per rank, none is aligned across ranks")
    summaries = []
    for m in measured:
        timed = [s for s in m.steps if s.total_ms]
        step_ms = sum(s.total_ms for s in timed) / len(timed) if timed else None
        summaries.append(RankSummary(m.rank, m.file, m.device, step_ms, m.utilization.executed_flop_per_step, m.hfu,
                                     sum(s.idle_ms for s in timed) / len(timed) if timed and timed[0].idle_ms is not None
                                     else None,
                                     sum(s.exposed_comm_ms for s in timed) / len(timed)
                                     if timed and timed[0].exposed_comm_ms is not None else None))
    timed = [(s.step_ms, i) for i, s in enumerate(summaries) if s.step_ms]
    if timed:
        slow_ms, slow_i = max(timed)
        fast_ms = min(t for t, _ in timed)
    else:
        slow_ms = fast_ms = None
        slow_i = 0
    slowest = measured[slow_i]
    peak = slowest.utilization.peak_flop_per_s
    run_hfu = run_mfu = None
    if peak and slow_ms:
        executed = sum(s.executed_flop_per_step for s in summaries) / len(summaries)
        run_hfu = executed / (slow_ms / 1e3 * peak)
        if model is not None:
            run_mfu = model.flop_per_step / (slow_ms / 1e3 * peak)
    return RunMeasurement(slowest=replace(slowest), ranks=summaries, step_ms_min=fast_ms, step_ms_max=slow_ms,
                          spread=(slow_ms / fast_ms - 1) if slow_ms and fast_ms else None, run_hfu=run_hfu,
                          run_mfu=run_mfu, notes=notes)


def measure_path(path: str | Path, **kw) -> TraceMeasurement | RunMeasurement:
    """A file (one trace) or a folder (one trace per rank)."""
    if not str(path).strip():
        raise InputError("trace", "no file or folder named: give the trace's path (or a folder of ranks' traces)")
    p = Path(path)
    if path_kind(p) == "folder":
        return measure_folder(p, **kw)
    return measure_trace(p, **kw)


def path_kind(path: str | Path, field: str = "trace") -> str:
    """'folder', 'file' or 'missing' for a path the user named; a name no file system takes (a NUL character, over
    4,096 characters, a part over 255 bytes) is an ``InputError`` naming ``field`` (``os.stat`` raised ValueError or
    OSError)."""
    text = str(path)
    if "\x00" in text or len(text) > 4096:
        raise InputError(field, "not a file name (a NUL character, or over 4,096 characters)")
    try:
        info = os.stat(text)
    except (FileNotFoundError, NotADirectoryError):
        return "missing"
    except OSError as exc:
        raise InputError(field, f"cannot be read ({exc.strerror or type(exc).__name__})") from None
    return "folder" if stat.S_ISDIR(info.st_mode) else "file"
