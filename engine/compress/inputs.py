"""What a compression asks (pydantic, validated once): the technique and its settings. Light on purpose:
``engine.scenario`` imports it (a scenario keeps the layer builder's choice, so the link and the report carry it)."""

from typing import Annotated, Literal

from pydantic import BaseModel, ConfigDict, Field, model_validator

from .pruning import Pruning
from ..errors import InputError

Examples = Annotated[float, Field(ge=0, le=1e18, allow_inf_nan=False)]
Factor = Annotated[float, Field(gt=0, le=100, allow_inf_nan=False)]


class Compression(BaseModel):
    """One technique and its settings."""

    model_config = ConfigDict(extra="forbid", frozen=True)
    technique: Literal["prune", "unstructured", "two_four", "qat", "ptq", "low_precision"]
    pruning: Pruning | None = None
    scoring_examples: Examples = Field(0, description="Examples scored for importance (forward + backward).")
    fine_tune_examples: Examples = Field(0, description="Examples the pruned net is fine-tuned on.")
    sparsity: Annotated[float, Field(gt=0, lt=1, allow_inf_nan=False)] | None = Field(
        None, description="s: the share of weights zeroed (unstructured).")
    layers: tuple[str, ...] | None = Field(None, max_length=10_000, description="Top-level layers (layers[i]) made "
                                                                                "2:4 sparse (None: every eligible).")
    chip: str | None = Field(None, max_length=120)
    qat_steps: Examples = Field(0, description="QAT steps (0: the scenario's training steps).")
    batch_size: Annotated[int, Field(ge=1, le=10**9)] | None = None
    calibration_examples: Examples = 0
    gptq: bool = False
    train_format: Literal["fp8", "mxfp8", "nvfp4"] | None = None
    factor: Factor | None = Field(None, description="A measured speed-up in place of the default row.")

    @model_validator(mode="after")
    def _complete(self):
        need = {"prune": "pruning", "unstructured": "sparsity", "low_precision": "train_format"}.get(self.technique)
        if need and getattr(self, need) is None:
            raise InputError(need, f"give it for {self.technique}")
        if self.technique == "two_four" and not self.chip:
            raise InputError("chip", "2:4 sparsity's speed depends on the chip: name it")
        return self
