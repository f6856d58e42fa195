"""What a serving plan asks (pydantic, validated once): the chip and how many serve one copy, the formats, the
request, the engine, speculative decoding, price and traffic; ``ServePlan`` adds the library model, as a scenario and
its share link keep it. Light on purpose: ``engine.scenario`` imports it."""

from typing import Annotated

from pydantic import BaseModel, ConfigDict, Field, model_validator

from ..errors import InputError
from .formats import Precision, WeightOnly

MAX_TOKENS = 10_000_000
MAX_BATCH = 10**12
Fraction = Annotated[float, Field(gt=0, le=1, allow_inf_nan=False)]
Efficiency = Annotated[float, Field(ge=0.001, le=1, allow_inf_nan=False)]
"""A share of a peak an engine reaches: from 0.1% (below it no served model's time is a number worth printing — at
10⁻³⁰⁸ the time per token overflowed to 10³⁰⁶ ms) to 100%."""


class Speculative(BaseModel):
    """Speculative decoding: γ drafted tokens per step, τ tokens kept per step on average (1 ≤ τ ≤ γ + 1, the
    bonus token included), a draft step costing r of a target step."""

    model_config = ConfigDict(extra="forbid", frozen=True)
    acceptance_length: float = Field(ge=1, le=65, allow_inf_nan=False, description="τ: tokens per target step.")
    draft_tokens: int = Field(4, ge=1, le=64, description="γ: tokens drafted per step.")
    draft_cost: float = Field(0.05, ge=0, le=1, allow_inf_nan=False,
                              description="r: a draft step's time relative to the target's decode step.")

    @model_validator(mode="after")
    def _accepted(self):
        if self.acceptance_length > self.draft_tokens + 1:
            raise InputError("acceptance_length", f"{self.acceptance_length:g} tokens per step is more than the "
                                                  f"{self.draft_tokens} drafted + 1")
        return self


class ServeInputs(BaseModel):
    """What a serving plan asks: the chip and how many serve one copy of the model, the formats, the request."""

    model_config = ConfigDict(extra="forbid", frozen=True)
    chip: str = Field("nvidia-h100-sxm", min_length=1, max_length=120)
    prompt_tokens: int = Field(ge=1, le=MAX_TOKENS)
    output_tokens: int = Field(ge=0, le=MAX_TOKENS)
    batch: int | None = Field(None, ge=1, le=MAX_BATCH, description="Sequences served together (None: the best "
                                                                     "within memory).")
    chips: int = Field(1, ge=1, le=4096, description="Chips holding one copy (tensor parallel).")
    precision: Precision = "bf16"
    weights: WeightOnly | None = None
    kv_precision: Precision | None = Field(None, description="None: the precision's (FP8 and FP4 precisions keep "
                                                             "an FP8 cache, as TensorRT-LLM does).")
    engine: str = Field("tensorrt-llm", max_length=40)
    compute_efficiency: Efficiency | None = None
    memory_efficiency: Efficiency | None = None
    speculative: Speculative | None = None
    price_per_chip_hour: float | None = Field(None, gt=0, le=1e6, allow_inf_nan=False)
    requests_per_s: float | None = Field(None, ge=1e-6, le=1e9, allow_inf_nan=False,
                                         description="Traffic for the fleet: requests per second.")
    max_batch: int | None = Field(None, ge=1, le=MAX_BATCH, description="The largest batch the engine takes (None: "
                                                                        "the engine's own limit).")

    @model_validator(mode="after")
    def _batch_within_the_engine(self):
        if self.batch is not None and self.max_batch is not None and self.batch > self.max_batch:
            raise InputError("batch", f"{self.batch:,} is more than the engine's largest batch "
                                      f"({self.max_batch:,}, max_batch)")
        return self

    @property
    def kv_format(self) -> str:
        if self.kv_precision is not None:
            return self.kv_precision
        return "fp8" if self.precision in ("fp8", "fp4") else self.precision



class ServePlan(ServeInputs):
    """A serving plan with its model: a language model of the shipped library, by id."""

    model: str = Field("llama-3.1-8b", min_length=1, max_length=100)
