"""Training and sampling compute of multimodal and generative models, from the components counted by the readers.

A vision-language model's training step (per example) = its forward (vision tower on every image, projector,
language model over image and text tokens) + the backward pass of what trains, counted layer by layer by the
method-1 walker (``engine.method1.backward``): a frozen tower asks for no gradient at all; a trained projector
needs its weights' gradients, and the language model after it then passes gradients down to the image tokens;
LoRA on the language model: frozen weights that still pass input gradients, adapters that train. The recipes
(``VlmRecipe``): ``full``; ``frozen_vision`` (the projector and the language model train: LLaVA's second stage);
``projector`` (only the projector: LLaVA's first stage); ``lora`` (the vision tower frozen, the projector and rank-r
adapters on the language model's ``targets`` train). Llama 3.2 Vision's language model reads the image through
cross-attention layers instead (``engine.multimodal.cross_attention``): their k and v projections pass gradients back
to the trained projector's output, so a frozen language model computes input gradients from its first
cross-attention layer on.

A diffusion model's training step (per sample) = one denoiser forward and backward at a sampled timestep (every
weight trains) + the frozen text encoders' and the VAE encoder's forward passes — per step, or once per sample
when the latents and text embeddings are cached before training (``cached``: then only the denoiser's).
Sampling one image (or video) = steps × (2 with classifier-free guidance: the conditional and unconditional
passes, 1 without) × the denoiser's forward + the text encoders' forward (× 2 with guidance: the negative prompt
is encoded too, as diffusers' pipelines do) + the VAE decoder's.
"""
from __future__ import annotations

from dataclasses import dataclass, field
from typing import Annotated, Literal

from pydantic import BaseModel, ConfigDict, Field, model_validator

from ..errors import InputError, parse_input
from ..method1.architecture import Architecture, evaluate
from ..method1.backward import LoraTarget, lora_targets_overlap
from .cross_attention import is_cross_attention, trained as trained_cross
from .model import ModelCount, ReadModel, Stage, count
from .vision_towers import NO_GRADIENT
from ..results import Result

MAX_STEPS = 100_000


class VlmRecipe(BaseModel):
    """Which towers train in a vision-language model's fine-tune."""

    model_config = ConfigDict(extra="forbid", frozen=True)
    recipe: Literal["full", "frozen_vision", "projector", "lora"] = "frozen_vision"
    lora_rank: Annotated[int, Field(ge=1, le=65_536)] | None = Field(None, description="r, for the lora recipe.")
    lora_targets: tuple[LoraTarget, ...] = ("q", "v")

    @model_validator(mode="after")
    def _rank(self):
        if (self.recipe == "lora") != (self.lora_rank is not None):
            raise InputError("lora_rank", "give a LoRA rank with the lora recipe (and only with it)")
        if self.recipe != "lora" and "lora_targets" in self.model_fields_set:
            raise InputError("lora_targets", "the adapters' projections go with the lora recipe (and only with it)")
        reason = lora_targets_overlap(self.lora_targets)
        if reason:
            raise InputError("lora_targets", reason)
        return self


TRAINS = {"full": {"vision", "projector", "language_model"}, "frozen_vision": {"projector", "language_model"},
          "projector": {"projector"}, "lora": {"projector"}}
"""The components whose every weight trains, per recipe (LoRA adds adapters on the language model)."""


@dataclass(frozen=True, slots=True)
class StepCompute(Result):
    """One training step's compute per example: forward and backward FLOP per component, trainable parameters,
    and what the figure assumes (``notes``)."""

    recipe: str
    forward_flop: int
    backward_flop: int
    training_flop: int
    trainable_params: int
    params: int
    forward_by_component: dict[str, int]
    backward_by_component: dict[str, int]
    notes: tuple[str, ...] = ()


def _component_of(stage: Stage) -> list[str]:
    owner = [""] * len(stage.architecture.layers)
    for c in stage.components:
        for i in range(c.start, c.end):
            owner[i] = c.name
    return owner


def trained_architecture(stage: Stage, recipe: VlmRecipe) -> Architecture:
    """The stage's layers with ``trainable`` set per component, and LoRA adapters on the language model. In a
    language model that reads the image through cross-attention (Llama 3.2 Vision): the projector (beside the flow)
    passes an input gradient when the vision tower trains, and the cross-attention layers' gradients into the image
    states, adapters and context gradients follow ``engine.multimodal.cross_attention``."""
    from ..method1.finetune import FineTune, fine_tuned

    owner = _component_of(stage)
    trains = TRAINS[recipe.recipe]
    lora = recipe.recipe == "lora"
    image_grad = bool({"vision", "projector"} & trains)  # the image states the cross-attention layers read
    layers = []
    lm = [layer.model_dump(mode="json") for layer, name in zip(stage.architecture.layers, owner)
          if name == "language_model"]
    if lora:
        lm = fine_tuned(lm, parse_input(FineTune, {"mode": "lora", "rank": recipe.lora_rank,  # no targets: one line
                                                   "targets": recipe.lora_targets, "lora_dense": False}))
    lm_iter = iter(lm)
    for layer, name in zip(stage.architecture.layers, owner):
        data = next(lm_iter) if name == "language_model" else layer.model_dump(mode="json")
        if not lora or name != "language_model":
            data["trainable"] = name in trains
        if name == "projector" and data.get("type") == "conditioning_dense":  # reads the vision stage's output
            data["input_grad"] = "vision" in trains
        if name == "language_model" and is_cross_attention(data):
            data = trained_cross(data, image_grad, "language_model" in trains, recipe.lora_targets if lora else (),
                                 recipe.lora_rank)
        layers.append(data)
    return Architecture.model_validate({"input": stage.architecture.input.model_dump(mode="json"), "layers": layers})


def vlm_training_step(model: ReadModel, recipe: VlmRecipe, convention: str = "matmul") -> StepCompute:
    """Forward and backward of one example under ``recipe`` (a vision-language model's single stage)."""
    if len(model.stages) != 1 or not {"vision", "language_model"} <= {c.name for c in model.stages[0].components}:
        raise InputError("config", f"{model.config_class} is not a vision-language model: no training recipe of "
                                   "towers applies (its training is counted as a language model's or a denoiser's)")
    stage = model.stages[0]
    arch = trained_architecture(stage, recipe)
    result = evaluate(arch, convention)
    owner = _component_of(stage)
    forward: dict[str, int] = {}
    backward: dict[str, int] = {}
    for row in result.rows:
        name = owner[row.index]
        forward[name] = forward.get(name, 0) + row.forward_flop
        backward[name] = backward.get(name, 0) + row.backward_flop
    notes = (f"recipe {recipe.recipe}: " + {"full": "every weight trains",
                                            "frozen_vision": "the vision tower frozen; projector and language "
                                                             "model train",
                                            "projector": "only the projector trains",
                                            "lora": f"the vision tower frozen; the projector and rank-"
                                                    f"{recipe.lora_rank} adapters on "
                                                    f"{', '.join(recipe.lora_targets)} train"}[recipe.recipe],
             "backward counted layer by layer: frozen layers pass input gradients only where something before "
             "them trains") + tuple(n for n in model.notes if NO_GRADIENT in n)
    if any(is_cross_attention(layer.model_dump(mode="json")) for layer in arch.layers if layer.type == "each"):
        notes += ("the image reaches the language model through its cross-attention layers: their k and v "
                  "projections pass gradients back to the projector's output, so a frozen language model computes "
                  "input gradients from its first cross-attention layer on",)
    return StepCompute(recipe.recipe, result.forward_flop, result.backward_flop,
                       result.forward_flop + result.backward_flop, result.trainable_params, result.params,
                       forward, backward, notes)


class Sampling(BaseModel):
    """How a diffusion pipeline samples: denoising steps, classifier-free guidance, outputs generated."""

    model_config = ConfigDict(extra="forbid", frozen=True)
    steps: Annotated[int, Field(ge=1, le=MAX_STEPS)] = 50
    guidance: bool = Field(True, description="Classifier-free guidance: two denoiser passes a step (conditional "
                                             "and unconditional), the negative prompt encoded too.")
    outputs: Annotated[float, Field(ge=1, le=1e15, allow_inf_nan=False)] = Field(
        1, description="Images (or videos) generated, for the lifetime view.")


@dataclass(frozen=True, slots=True)
class PipelineCompute(Result):
    """A diffusion pipeline's compute: each part's forward FLOP at the inputs, sampling per output and in all, and
    the training step per sample (text embeddings and latents computed each step, or cached)."""

    steps: int
    guidance: bool
    outputs: float
    denoiser_forward_flop: int
    text_encoder_flop: int
    vae_encoder_flop: int
    vae_decoder_flop: int
    sampling_flop_per_output: int
    sampling_flop: float
    training_flop_per_sample: int
    training_flop_per_sample_cached: int
    denoiser_backward_flop: int
    params: int
    params_by_component: dict[str, int]
    inputs: dict
    notes: tuple[str, ...] = ()
    counts: dict[str, ModelCount] = field(default_factory=dict, compare=False)

    json_fields = ("steps", "guidance", "outputs", "denoiser_forward_flop", "text_encoder_flop", "vae_encoder_flop",
                   "vae_decoder_flop", "sampling_flop_per_output", "sampling_flop", "training_flop_per_sample",
                   "training_flop_per_sample_cached", "denoiser_backward_flop", "params", "params_by_component",
                   "inputs", "notes")


def image_vae_frames(denoiser: ReadModel, vae: ReadModel) -> int:
    """F, the times an image VAE runs for one output: once per frame of a video denoiser (ModelScope's UNet3D with
    SD's AutoencoderKL: ``TextToVideoSDPipeline.decode_latents`` decodes the F latent frames as a batch of images),
    once for an image; a video VAE reads the frames itself (1)."""
    if vae.inputs.get("frames") is not None:  # a video VAE, read at the denoiser's frames
        return 1
    return int(denoiser.inputs.get("frames") or 1)


def pipeline_compute(denoiser: ReadModel, text_encoders: list[ReadModel], vae: ReadModel | None,
                     sampling: Sampling | dict | None = None, convention: str = "matmul") -> PipelineCompute:
    """Sampling and training compute of a pipeline from its parts, each read at the same inputs."""
    if not isinstance(sampling, Sampling):
        sampling = parse_input(Sampling, sampling or {}, source="sampling")
    parts = {"denoiser": denoiser, **{f"text_encoder_{i + 1}" if len(text_encoders) > 1 else "text_encoder": t
                                      for i, t in enumerate(text_encoders)}}
    counts = {name: count(m, convention) for name, m in parts.items()}
    if "denoiser" not in counts["denoiser"].flop_by_component:
        raise InputError("denoiser", f"{denoiser.config_class} is not a denoiser (a U-Net or a diffusion transformer)")
    encoder_forward = decoder_forward = 0
    if vae is not None:
        counts["vae"] = count(vae, convention)
        if "vae_decoder" not in counts["vae"].flop_by_component:
            raise InputError("vae", f"{vae.config_class} is not a VAE")
        frames = image_vae_frames(denoiser, vae)
        encoder_forward = frames * counts["vae"].flop_by_component["vae_encoder"]
        decoder_forward = frames * counts["vae"].flop_by_component["vae_decoder"]
    text = sum(counts[n].forward_flop for n in parts if n != "denoiser")
    d = counts["denoiser"].forward_flop
    passes = 2 if sampling.guidance else 1
    per_output = sampling.steps * passes * d + passes * text + decoder_forward
    stage = denoiser.stages[-1]
    backward = evaluate(stage.architecture, convention).backward_flop  # every weight trains
    for extra in denoiser.stages[:-1]:  # a denoiser's side stage (HunyuanDiT's text pool) trains too
        backward += evaluate(extra.architecture, convention).backward_flop
    cached = d + backward
    params = {n: c.params for n, c in counts.items()}
    per_frame = (f" ({frames} frames, each through the image VAE: diffusers' video pipelines decode the latent "
                 "frames as a batch of images)") if vae is not None and frames > 1 else ""
    notes = (f"sampling: {sampling.steps} steps × {passes} denoiser pass{'es' if passes > 1 else ''} × "
             f"{d:.4g} + {passes} × text encoders {text:.4g} + VAE decode {decoder_forward:.4g}{per_frame}",
             "training: the denoiser's forward and backward at one timestep (every weight trains) + the frozen text "
             "encoders' and the VAE encoder's forward; cached: latents and text embeddings computed once before "
             "training, so a step is the denoiser's alone")
    return PipelineCompute(sampling.steps, sampling.guidance, sampling.outputs, d, text, encoder_forward,
                           decoder_forward, per_output, per_output * sampling.outputs, cached + text + encoder_forward,
                           cached, backward, sum(params.values()), params, counts["denoiser"].inputs, notes, counts)


def scenario_data(model: ReadModel, recipe: VlmRecipe | None = None, examples: float = 1.0) -> dict:
    """A method-1 scenario's JSON data from a model's main stage (a VLM's chain, a denoiser): its layers (with the
    recipe's trainable flags and adapters), trained on ``examples`` examples — for the layer builder and the Plan
    page (the image tokens are in the language model's sequence). The backward pass is then counted layer by layer
    wherever weights are frozen."""
    from ..method1.training import TrainingSetup

    stage = model.stages[-1]
    arch = trained_architecture(stage, recipe) if recipe is not None else stage.architecture
    training = parse_input(TrainingSetup, {"examples": examples}, source="training")
    name = f"{model.config_class}" + (f" ({recipe.recipe})" if recipe is not None else "")
    return {"name": name[:200], **arch.model_dump(mode="json"), "training": training.model_dump(mode="json")}
