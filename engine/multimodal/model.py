"""A multimodal or generative model as FLOPscope counts it: stages (one architecture each: a vision-language
model's vision tower, projector and language model in one chain; a diffusion pipeline's text encoder, denoiser
and VAE apart), each split into named components (ranges of its top-level layers), and the inputs it was read at.

``count`` evaluates every stage with the method-1 walker (``engine.method1.architecture.evaluate``) and adds the
rows of each component: parameters (a tied table once: the walker counts a tied head's weights at the table) and
forward FLOP of one example (batch 1).
"""
from __future__ import annotations

from dataclasses import dataclass, field

from engine.method1.architecture import (
    Architecture,
    ArchitectureResult,
    InputSpec,
    evaluate,
)
from engine.results import Result


@dataclass(frozen=True, slots=True)
class Component(Result):
    """``name`` (vision, projector, language_model, text_encoder, denoiser, vae_encoder…): the top-level layers
    ``start`` ≤ i < ``end`` of its stage."""

    name: str
    start: int
    end: int


@dataclass(frozen=True, slots=True)
class Stage(Result):
    """One architecture run per example: its layers and where each component lies in them."""

    name: str
    architecture: Architecture
    components: tuple[Component, ...]


class StageBuilder:
    """Collects a stage's layers component by component."""

    def __init__(self, name: str):
        self.name = name
        self.layers: list = []
        self.components: list[Component] = []

    def add(self, component: str, layers: list) -> None:
        start = len(self.layers)
        self.layers.extend(layers)
        if self.components and self.components[-1].name == component and self.components[-1].end == start:
            self.components[-1] = Component(component, self.components[-1].start, len(self.layers))
        else:
            self.components.append(Component(component, start, len(self.layers)))

    def build(self, shape: list[int], sequence_length: int | None = None) -> Stage:
        arch = Architecture(input=InputSpec(shape=shape, sequence_length=sequence_length), layers=self.layers)
        return Stage(self.name, arch, tuple(self.components))


@dataclass(frozen=True, slots=True)
class ReadModel(Result):
    """What a reader made of a config: the family, the class it counts, its stages, the inputs used (each family's
    standard ones where the user gave none) and the image (or audio) tokens the language model receives."""

    family: str
    config_class: str
    stages: tuple[Stage, ...]
    inputs: dict
    image_tokens: int | None = None
    notes: tuple[str, ...] = ()
    unused_keys: tuple[str, ...] = ()


@dataclass(frozen=True, slots=True)
class ModelCount(Result):
    """Parameters (tied weights once) and forward FLOP of one example (batch 1, ``convention``), in all and per
    component, at ``inputs``; ``image_tokens``: the tokens the language model receives from the images (or audio)."""

    family: str
    config_class: str
    convention: str
    params: int
    forward_flop: int
    params_by_component: dict[str, int]
    flop_by_component: dict[str, int]
    inputs: dict
    image_tokens: int | None = None
    notes: tuple[str, ...] = ()
    unused_keys: tuple[str, ...] = ()
    stages: dict[str, ArchitectureResult] = field(default_factory=dict, compare=False)

    json_fields = ("family", "config_class", "convention", "params", "forward_flop", "params_by_component",
                   "flop_by_component", "inputs", "image_tokens", "notes", "unused_keys")
    json_omit_default = frozenset({"image_tokens", "unused_keys"})


def count(model: ReadModel, convention: str = "matmul") -> ModelCount:
    """Evaluate every stage and add up each component's rows."""
    params: dict[str, int] = {}
    flop: dict[str, int] = {}
    results = {}
    for stage in model.stages:
        result = evaluate(stage.architecture, convention)
        results[stage.name] = result
        for component in stage.components:
            params.setdefault(component.name, 0)
            flop.setdefault(component.name, 0)
        owner = [None] * len(stage.architecture.layers)
        for component in stage.components:
            for i in range(component.start, component.end):
                owner[i] = component.name
        for row in result.rows:
            name = owner[row.index]
            params[name] += row.params
            flop[name] += row.forward_flop
    return ModelCount(model.family, model.config_class, convention, sum(params.values()), sum(flop.values()),
                      params, flop, model.inputs, model.image_tokens, model.notes, model.unused_keys, results)
