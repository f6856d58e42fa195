"""The bottlenecks of a measured run, in plain words, each with what to try. Each rule reads the measured
figures (shares of the step, counts); thresholds are stated in ``RULES``' sentences and below."""
from __future__ import annotations

from dataclasses import dataclass

from ..results import Result

IDLE_SHARE = 0.05
"""Idle, exposed communication, exposed copies or data-loading above 5% of a step is worth a line."""
MEMORY_BOUND_SHARE = 0.3
UNATTRIBUTED_SHARE = 0.1


@dataclass(frozen=True, slots=True)
class Bottleneck(Result):
    """One finding: what the trace shows (``finding``), what to try (``remedy``), and its share of the step."""

    finding: str
    remedy: str
    share: float


def bottlenecks(m) -> list[Bottleneck]:
    """Findings for a ``TraceMeasurement``, largest share first."""
    out: list[Bottleneck] = []
    timed = [s for s in m.steps if s.total_ms and s.busy_ms is not None]
    if timed:
        total = sum(s.total_ms for s in timed)
        idle = sum(s.idle_ms for s in timed)
        launch_idle = sum(s.host.launch_idle_us for s in timed if s.host) / 1000
        kernels = sum(s.host.kernels for s in timed if s.host)
        short = sum(s.host.short_kernels for s in timed if s.host)
        per = len(timed)
        if launch_idle / total >= IDLE_SHARE:
            out.append(Bottleneck(
                f"{100 * launch_idle / total:.1f}% of the step the GPU is idle while the CPU launches work: "
                f"{short / per:,.0f} of {kernels / per:,.0f} kernels per step run under 10 µs",
                "capture the step in CUDA graphs or compile it (torch.compile with mode='reduce-overhead'); "
                "larger batches give each kernel more work", launch_idle / total))
        if (idle - launch_idle) / total >= IDLE_SHARE:
            loader = sum(s.host.dataloader_us for s in timed if s.host) / 1000
            sync = sum(s.host.sync_us for s in timed if s.host) / 1000
            why = []
            if loader / total >= IDLE_SHARE / 2:
                why.append(f"{loader / per:.2f} ms per step waiting for data")
            if sync / total >= IDLE_SHARE / 2:
                why.append(f"{sum(s.host.sync_calls for s in timed if s.host) / per:.0f} synchronisations "
                           f"per step ({sync / per:.2f} ms)")
            out.append(Bottleneck(
                f"{100 * (idle - launch_idle) / total:.1f}% of the step the GPU waits on the host"
                + (f" ({'; '.join(why)})" if why else ""),
                "more DataLoader workers with pin_memory and prefetching; remove .item(), .cpu() and printing "
                "of tensors from the step; overlap host work with the GPU", (idle - launch_idle) / total))
        comm = sum(s.exposed_comm_ms for s in timed)
        if comm / total >= IDLE_SHARE:
            out.append(Bottleneck(
                f"{100 * comm / total:.1f}% of the step is communication not hidden behind computation",
                "overlap it: DDP bucket size, FSDP forward/backward prefetch, fewer and larger collectives, or a "
                "layout with less data-parallel traffic", comm / total))
        memcpy = sum(s.exposed_memcpy_ms for s in timed)
        if memcpy / total >= IDLE_SHARE:
            out.append(Bottleneck(f"{100 * memcpy / total:.1f}% of the step copies memory with nothing else running",
                                  "pin host memory and copy with non_blocking=True; keep tensors on the GPU",
                                  memcpy / total))
        busy = sum(s.computation_ms for s in timed) * 1000
        mem = sum(r.kernel_time_us for r in m.ops if r.bound == "memory")
        if busy and mem / busy >= MEMORY_BOUND_SHARE:
            out.append(Bottleneck(
                f"{100 * mem / busy:.0f}% of the computation time is in memory-bound operators (element-wise, "
                "normalisation, small products)",
                "fuse them (torch.compile), use fused optimizers and fused norms; larger batches raise the "
                "products' arithmetic intensity", mem / busy))
        fp32 = sum(r.kernel_time_us for r in m.ops if r.flop_per_call and r.dtype == "fp32")
        if busy and fp32 / busy >= IDLE_SHARE and m.chip:
            out.append(Bottleneck(f"{100 * fp32 / busy:.0f}% of the computation time is matrix products in FP32",
                                  "train in BF16 with torch.autocast, or allow TF32 "
                                  "(torch.backends.cuda.matmul.allow_tf32 = True)", fp32 / busy))
        eff = m.calibration.matrix_efficiency
        if eff is not None and eff < 0.3 and m.calibration.gemms:
            out.append(Bottleneck(
                f"matrix products reach {100 * eff:.0f}% of the chip's dense peak",
                "larger products (batch, hidden sizes) and sizes that are multiples of 64 or 128 fill the tensor "
                "cores better", 1 - eff))
        gpu_time = busy or 1.0
        if m.unattributed_kernel_time_us / gpu_time >= UNATTRIBUTED_SHARE:
            out.append(Bottleneck(
                f"{100 * m.unattributed_kernel_time_us / gpu_time:.0f}% of the GPU time is in kernels whose FLOP the "
                "trace cannot tell (named in the table below)",
                "HFU leaves their FLOP out: it is a lower bound; record shapes (record_shapes=True) and keep "
                "custom operators registered with PyTorch", m.unattributed_kernel_time_us / gpu_time))
    out.sort(key=lambda b: -b.share)
    return out
