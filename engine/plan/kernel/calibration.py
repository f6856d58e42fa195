"""The kernel model's efficiencies as one input: what a GEMM, a memory-bound kernel and a collective reach of
the chip's peak, and what a step pays beyond its kernels. FLOPscope's defaults below; a framework's conventions
or a user's measured trace replace them (``PlanSettings.calibration``).

- η_max (``gemm_efficiency``): the rate of a GEMM whose output tiles fill every wave, as a share of the format's
  dense peak; the wave quantization of the tiles over the multiprocessors comes on top (``gemm.gemm_s``). 0.74 is
  the one calibrated number: the value on a 0.02 grid from 0.70 to 0.86 with the smallest median error on the
  CALIBRATION runs only (Narayanan et al. 2021, Table 1: ten GPT models 1.7B–1T on A100s), below the best-shape
  matmul rate (about 86% of the A100's peak) because it also absorbs what the model does not list (launch gaps,
  unfused small kernels). ``gemm_efficiency_by_class`` replaces it for a class of GEMMs: ``linear`` (dense
  linear layers, the logits, the router), ``attention`` (the QKᵀ and AV products), ``experts`` (each expert's
  GEMMs) — what a trace measures apart (matrix products, attention kernels, grouped GEMMs); ``attention`` times
  the products of attention with its scores stored.
- ``attention_rate_scale``: a fused attention kernel's rate as a share of its published rate (the framework's
  kernel on the chip's architecture, ``engine.plan.frameworks``): 1 takes the published rate; a trace's measured
  rate ÷ the published one, or a framework's fit on its calibration runs, scales it on every chip alike.
- η_mem (``memory_bandwidth_fraction``): streaming kernels reach about 85% of the HBM bandwidth.
- η_net (``network_efficiency``): NCCL's all-reduce bus bandwidth on DGX A100 NVLink is about 230 of 300 GB/s
  (nccl-tests), 0.75 of the link.
- ``elementwise_traffic``: the element-wise work's bytes (norms, activations, rotary embedding, residuals) as a
  multiple of the fused kernels' count, for a framework that runs them as separate eager PyTorch kernels (1:
  fused, as Transformer Engine or ``torch.compile`` run them).
- ``block_overhead_s``: time per block and micro-batch outside the kernels (host launches, synchronisation, the
  gaps between kernels); ``microbatch_overhead_s``: per micro-batch and stage; ``step_overhead_s``: once a step.
- ``host_block_s``: the host's time to issue one block's forward and backward (eager PyTorch's dispatch, a
  framework's Python hooks): the GPU waits where the block's kernels take less (a block takes max(GPU, host)).
  0 by default: no published figure isolates them; a framework's are fitted on its calibration runs.
- ``gemm_shapes``: matrix-product shapes measured on the chip (a trace: ``engine.plan.kernel.measured``); a GEMM of
  a measured shape (either orientation of M and N) at the same dense peak takes 2·B·M·N·K ÷ its measured FLOP/s
  instead of the model's rate. None by default.
"""

from typing import Annotated, Literal

from pydantic import BaseModel, ConfigDict, Field, PrivateAttr

ShapeClass = Literal["linear", "attention", "experts"]
SHAPE_CLASSES: tuple[str, ...] = ("linear", "attention", "experts")
Efficiency = Annotated[float, Field(gt=0, le=1, allow_inf_nan=False)]
Seconds = Annotated[float, Field(ge=0, le=3600, allow_inf_nan=False)]

DEFAULT_SOURCE = ("FLOPscope's defaults: η_max 0.74 fitted on Narayanan et al. 2021, Table 1 (A100s); 85% of HBM "
                  "bandwidth for streaming kernels; 75% of a link for NCCL collectives (nccl-tests)")


Size = Annotated[int, Field(ge=1, le=2**62)]
FlopRate = Annotated[float, Field(gt=0, le=1e21, allow_inf_nan=False)]
PEAK_MATCH = 1e-9
"""Relative difference under which a measured shape's peak is the plan chip's (same chip, same format)."""


class MeasuredGemm(BaseModel):
    """One matrix-product shape as measured: B × (M×K @ K×N), the FLOP/s its kernels reached, and the dense peak
    of the chip and format it ran at."""

    model_config = ConfigDict(extra="forbid", frozen=True)
    batch: Size = 1
    m: Size
    n: Size
    k: Size
    flop_per_s: FlopRate
    peak_flop_per_s: FlopRate

    @property
    def key(self) -> tuple[int, int, int, int]:
        return self.batch, min(self.m, self.n), max(self.m, self.n), self.k


class KernelCalibration(BaseModel):
    """The kernel model's efficiencies (see the module's sources): one input for FLOPscope's defaults, a
    framework's conventions or a measured trace."""

    model_config = ConfigDict(extra="forbid", frozen=True)
    gemm_efficiency: Efficiency = 0.74
    gemm_efficiency_by_class: dict[ShapeClass, Efficiency] = Field(default_factory=dict)
    attention_rate_scale: Annotated[float, Field(gt=0, le=2, allow_inf_nan=False)] = 1.0
    memory_bandwidth_fraction: Efficiency = 0.85
    network_efficiency: Efficiency = 0.75
    elementwise_traffic: Annotated[float, Field(ge=1, le=20, allow_inf_nan=False)] = 1.0
    block_overhead_s: Seconds = 0.0
    host_block_s: Seconds = 0.0
    microbatch_overhead_s: Seconds = 0.0
    step_overhead_s: Seconds = 0.0
    source: str = Field(DEFAULT_SOURCE, min_length=1, max_length=600)
    error_range: tuple[Annotated[float, Field(ge=-0.99, le=0, allow_inf_nan=False)],
                       Annotated[float, Field(ge=0, le=100, allow_inf_nan=False)]] | None = Field(
        None, description="the 90% range of the step's error this calibration carries (low ≤ 0 ≤ high, as shares): "
                          "a measured trace's narrows the published runs' (engine.plan.uncertainty)")
    gemm_shapes: tuple[MeasuredGemm, ...] = Field((), max_length=2000)
    _index: tuple = PrivateAttr(default=((), {}))
    """(the ``gemm_shapes`` it was built from, the shapes by key): rebuilt when a copy holds other shapes."""

    def gemm(self, shape_class: str = "linear") -> float:
        """η_max for a class of GEMMs: its own where given, else ``gemm_efficiency``."""
        return self.gemm_efficiency_by_class.get(shape_class, self.gemm_efficiency)

    def measured_rate(self, m: int, n: int, k: int, batch: int, peak: float) -> float | None:
        """The FLOP/s measured for this shape (M and N either way round) at this dense ``peak``, or None."""
        if not self.gemm_shapes:
            return None
        built_from, shapes = self._index
        if built_from is not self.gemm_shapes:
            shapes = {g.key: g for g in self.gemm_shapes}
            self._index = (self.gemm_shapes, shapes)
        g = shapes.get((batch, min(m, n), max(m, n), k))
        if g is None or abs(g.peak_flop_per_s - peak) > PEAK_MATCH * peak:
            return None
        return g.flop_per_s


DEFAULT_CALIBRATION = KernelCalibration()
