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
  GEMMs) — what a trace measures apart (matrix products, attention kernels, grouped GEMMs).
- η_mem (``memory_bandwidth_fraction``): streaming kernels reach about 85% of the HBM bandwidth.
- η_net (``network_efficiency``): NCCL's all-reduce bus bandwidth on DGX A100 NVLink is about 230 of 300 GB/s
  (nccl-tests), 0.75 of the link.
- ``microbatch_overhead_s``: time a pipeline stage spends per micro-batch outside its kernels (host launches,
  synchronisation); ``step_overhead_s``: once a step. 0 by default: no published figure isolates them.
"""
from __future__ import annotations

from typing import Annotated, Literal

from pydantic import BaseModel, ConfigDict, Field

ShapeClass = Literal["linear", "attention", "experts"]
SHAPE_CLASSES: tuple[str, ...] = ("linear", "attention", "experts")
Efficiency = Annotated[float, Field(gt=0, le=1, allow_inf_nan=False)]
Seconds = Annotated[float, Field(ge=0, le=3600, allow_inf_nan=False)]

DEFAULT_SOURCE = ("FLOPscope's defaults: η_max 0.74 fitted on Narayanan et al. 2021, Table 1 (A100s); 85% of HBM "
                  "bandwidth for streaming kernels; 75% of a link for NCCL collectives (nccl-tests)")


class KernelCalibration(BaseModel):
    """The kernel model's efficiencies (see the module's sources): one input for FLOPscope's defaults, a
    framework's conventions or a measured trace."""

    model_config = ConfigDict(extra="forbid", frozen=True)
    gemm_efficiency: Efficiency = 0.74
    gemm_efficiency_by_class: dict[ShapeClass, Efficiency] = Field(default_factory=dict)
    memory_bandwidth_fraction: Efficiency = 0.85
    network_efficiency: Efficiency = 0.75
    microbatch_overhead_s: Seconds = 0.0
    step_overhead_s: Seconds = 0.0
    source: str = Field(DEFAULT_SOURCE, min_length=1, max_length=600)

    def gemm(self, shape_class: str = "linear") -> float:
        """η_max for a class of GEMMs: its own where given, else ``gemm_efficiency``."""
        return self.gemm_efficiency_by_class.get(shape_class, self.gemm_efficiency)


DEFAULT_CALIBRATION = KernelCalibration()
