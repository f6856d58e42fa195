"""The scenario: one estimate's every input, as one pydantic model.

The same model validates the CLI's files, the dashboard's state, uploads and share links.
"""

from typing import TYPE_CHECKING, Annotated, Literal

from pydantic import BaseModel, ConfigDict, Field, model_validator

from .method1.architecture import MAX_LAYERS, Architecture, InputSpec
from .method1.blocks import BLOCK_LISTS, Layer, NestedLayers, check_nesting, expanded_count
from .method1.estimate import Method1Estimate, estimate_method1
from .method1.conventions import Convention
from .json_text import parse_json_text
from .errors import InputError, json_type, parse_input
from .units import format_int
from .deferred import Section

if TYPE_CHECKING:
    from .plan.model import PlanModel

SCENARIO_VERSION = 2
"""The version links and files carry: 2, transformer blocks in parts (``mixer``, ``feed_forward``, ``norms``); a
scenario of version 1 (blocks of 92 fields side by side) opens through ``migrated``."""
VERSIONS = (1, 2)
DEFAULT_HARDWARE_RUN = {"chip": "nvidia-a100-sxm4-80gb", "chip_count": 8, "duration": 1.0, "duration_unit": "days"}
"""What the hardware page starts from when a scenario has no hardware run yet; no format, so the chip's default
(BF16 tensor on the A100) applies, and no utilization, so method 2's default does — the median of reported
runs like this one with its 90% range (``default_hardware_run``), as in the CLI and the API."""


FALLBACK_UTILIZATION = 0.4
"""Epoch AI's 40%, for the example run when the reported runs (or the chips) cannot be read."""


def default_hardware_run() -> dict:
    """The example run with method 2's evidence-based utilization: the median of reported runs like it
    (``engine.method2.default_utilization``; its 90% range comes with the hardware page's 'reported' preset),
    or ``FALLBACK_UTILIZATION`` when a shipped data file is unusable (the page says so where it matters)."""
    from .method2.default_utilization import default_for_run
    from .shipped import ShippedDataError
    try:
        found = default_for_run(DEFAULT_HARDWARE_RUN["chip"], DEFAULT_HARDWARE_RUN["chip_count"]).utilization
    except ShippedDataError:
        found = FALLBACK_UTILIZATION
    return {**DEFAULT_HARDWARE_RUN, "utilization": found}


MAX_SCENARIO_BYTES = 2_000_000
MAX_PAGE_LAYERS = 2_000
"""Most layers a link or an upload brings into the dashboard: a page run stays well within its budget at this
size (bench/bench_link_layers.py; figures in docs/performance.md). The largest preset has 100; the CLI takes
files up to ``MAX_LAYERS``."""


class Scenario(NestedLayers):
    """An estimate: the architecture (or a quick form), the training setup, the convention, and the
    hardware run for method 2."""

    model_config = ConfigDict(extra="forbid", frozen=True)
    version: Literal[2] = SCENARIO_VERSION
    name: str = Field("", max_length=200)
    mode: Literal["layers", "quick"] = Field(
        "layers", description="Method 1 from the layer list, or from the quick form (connections / ops).")
    input: InputSpec | None = None
    layers: Annotated[list[Layer], Field(max_length=MAX_LAYERS)] = []
    # the quick form, the training setup and the sections below: their models are imported when a scenario first
    # holds one (``engine.deferred.Section``)
    quick: Annotated[BaseModel | None, Section(".method1.training", "QuickForm", __package__)] = None
    training: Annotated[BaseModel | None, Section(".method1.training", "TrainingSetup", __package__)] = None
    convention: Convention = "matmul"
    hardware: Annotated[BaseModel | None, Section(".method2.run", "HardwareRun", __package__)] = Field(
        None, description="Method 2: the hardware run (chips × time × peak × utilization), and cost/energy inputs.")
    plan: Annotated[BaseModel | None, Section(".plan.layout", "PlanInputs", __package__)] = Field(
        None, description="Plan a run: chip, kernel efficiency, parallel layout and memory options.")
    serve: Annotated[BaseModel | None, Section(".serve.inputs", "ServePlan", __package__)] = Field(
        None, description="Serving a language model of the library: chip, formats, request, batch (the Serve page).")
    compression: Annotated[BaseModel | None, Section(".compress.inputs", "Compression", __package__)] = Field(
        None, description="A compression technique on the layers (the layer builder's Compress panel): before and "
                          "after.")

    @model_validator(mode="before")
    @classmethod
    def _current(cls, data):
        return migrated(data)

    @model_validator(mode="after")
    def _method1_inputs(self):
        if self.mode == "layers" and self.layers and self.input is None:
            raise InputError("input", "needed with layers: give input.shape (and sequence_length)")
        if self.mode == "quick" and self.quick is None:
            raise InputError("quick", "mode 'quick' needs the quick form (kind, value, unit)")
        return self

    def architecture(self) -> Architecture:
        return Architecture.model_construct(input=self.input, layers=self.layers)

    def method1(self, *, strict: bool = True) -> Method1Estimate:
        """Method 1 on this scenario's model (its layers, or its quick form), training setup and convention."""
        model = self.quick if self.mode == "quick" else (self.architecture() if self.input is not None else None)
        return estimate_method1(model, self.training, self.convention, strict=strict)

    def plan_model(self, seq_len: int | None = None) -> "PlanModel":
        """The planner's view of the layers (``seq_len`` replaces the input's sequence length)."""
        from .plan.model import plan_model

        if self.mode != "layers" or self.input is None or not self.layers:
            raise InputError("layers", "planning needs the model's layers (the quick form gives no shapes)")
        arch = self.architecture()
        if seq_len is not None:
            if arch.input.sequence_length is None:
                raise InputError("seq_len", "this model's input is not a sequence")
            arch = Architecture.model_construct(input=arch.input.model_copy(update={"sequence_length": seq_len}),
                                                layers=arch.layers)
        return plan_model(arch)

    def tokens(self) -> float | None:
        """Training tokens (examples, for a model whose input is not a sequence) of the run; None untrained."""
        if self.training is None:
            return None
        per_example = self.input.sequence_length if self.input and self.input.sequence_length else 1
        return self.training.examples_per_epoch * self.training.epochs * per_example


def check_page_size(layers: object, limit: int = MAX_PAGE_LAYERS, cli: str = "python -m engine flops FILE") -> None:
    """``InputError`` on ``layers`` when the list stands for more than ``limit`` layers once its blocks and
    repeats are expanded (``expanded_count``): the dashboard's limit, so that no page run passes its time budget;
    the message offers ``cli``, the command that counts such a model."""
    count = expanded_count(layers)
    if count > limit:
        shown = format_int(count) if count < 10**12 else f"about {format_int(count)}"
        raise InputError("layers", f"{shown} layers once blocks and repeats are expanded: the dashboard opens at "
                                   f"most {limit:,} (larger models: {cli})")


def migrated(data: object) -> object:
    """The one migration: a scenario of an earlier version (decoded JSON) in the current shape. Version 1 → 2: every
    transformer block in parts (``engine.method1.transformer.migration.block_from_flat``), blocks inside residuals,
    branches and repeats included. Anything else is returned as it is (validation names what is wrong)."""
    if not isinstance(data, dict) or data.get("version") != 1:
        return data
    check_nesting(data.get("layers"))  # bounded before the walk
    data = {**data, "version": SCENARIO_VERSION}
    if "layers" in data:
        data["layers"] = _blocks_in_parts(data["layers"])
    return data


def _blocks_in_parts(layers: object) -> object:
    from .method1.transformer.migration import block_from_flat  # only here: it imports the transformer kinds

    if not isinstance(layers, list):
        return layers
    out = []
    for layer in layers:
        if isinstance(layer, dict) and layer.get("type") == "transformer_block":
            layer = block_from_flat(layer)
        elif isinstance(layer, dict):
            layer = dict(layer)
            for key in BLOCK_LISTS:
                if isinstance(layer.get(key), list):
                    layer[key] = _blocks_in_parts(layer[key])
            if isinstance(layer.get("branches"), list):
                layer["branches"] = [_blocks_in_parts(branch) for branch in layer["branches"]]
        out.append(layer)
    return out


def parse_scenario(data: object, source: str = "scenario", *, booleans: bool = True) -> Scenario:
    """Validate a decoded JSON object; errors become one-line ``InputError``s naming the field. ``booleans=False``:
    its JSON text holds neither ``true`` nor ``false`` (``parse_input``)."""
    if not isinstance(data, dict):
        raise InputError(source, f"expected a JSON object {{ … }}, got {json_type(data)}")
    current = migrated(data)  # a migration may write booleans of its own: looked for, as before
    return parse_input(Scenario, current, booleans=booleans or current is not data)


def load_scenario_text(text: str | bytes, source: str = "scenario", *, max_layers: int = MAX_LAYERS,
                       version: int | None = None) -> Scenario:
    """Parse JSON text (a file, an upload, a link) into a ``Scenario``; more than ``max_layers`` layers are
    refused before any of them is validated. ``version``: the version of a text that does not say (a link's)."""
    data = parse_json_text(text, source, MAX_SCENARIO_BYTES)
    if version is not None and isinstance(data, dict) and "version" not in data:
        data["version"] = version
    if isinstance(data, dict) and isinstance(data.get("layers"), list) and len(data["layers"]) > max_layers:
        raise InputError("layers", f"{len(data['layers']):,} layers: the dashboard opens at most {max_layers:,} "
                                   "(larger models: python -m engine flops FILE)")
    if max_layers < MAX_LAYERS and isinstance(data, dict):
        check_nesting(data.get("layers"))  # bounded before the count walks the lists
        check_page_size(data.get("layers"), max_layers)
    if isinstance(data, dict) and "layers" not in data and ("model_type" in data or "architectures" in data):
        raise InputError(source, "this is a Hugging Face config.json, not a FLOPscope scenario: load it as a model "
                                 "config (dashboard: the 'Transformers: build from a Hugging Face config.json' "
                                 "panel of the Layer builder; CLI: transformer --config FILE)")
    words = (b"true", b"false") if isinstance(text, (bytes, bytearray)) else ("true", "false")
    # a text without the words holds no boolean: none is looked for (10,000 layers: 7 ms)
    return parse_scenario(data, source, booleans=any(word in text for word in words))
