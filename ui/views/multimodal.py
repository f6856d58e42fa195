"""The layer builder's multimodal upload, without Streamlit: config.json files (a vision-language or audio model, a
language model, a diffusion pipeline's parts) read and sorted into their roles, counted at the inputs given, and the
rows, sampling and training figures the page shows; the scenario a model loads into the layer builder."""
from __future__ import annotations

from dataclasses import dataclass

from engine.errors import InputError
from engine.json_text import parse_json_text
from engine.llm.config import MAX_CONFIG_BYTES
from engine.multimodal.inputs import MediaInputs
from engine.multimodal.model import ModelCount, ReadModel
from engine.scenario import Scenario, check_page_size, parse_scenario
from engine.units import format_count, format_flop

MAX_FILES = 8
"""Files per upload: a pipeline's parts (denoiser, up to three text encoders, VAE) with room to spare."""
ROLES = ("denoiser", "text_encoder", "vae", "model")


@dataclass(frozen=True)
class Part:
    """One uploaded config: its file name, decoded data, role and its count at the inputs."""

    name: str
    data: dict
    role: str
    model: ReadModel
    count: ModelCount


def role_of(model: ReadModel, count: ModelCount) -> str:
    """A diffusion pipeline's part (denoiser, text encoder, VAE) or a model of its own (a VLM, a language model)."""
    components = set(count.params_by_component)
    if "denoiser" in components:
        return "denoiser"
    if components == {"vae_encoder", "vae_decoder"} or model.family == "vae":
        return "vae"
    if components == {"text_encoder"}:
        return "text_encoder"
    return "model"


def read_part(name: str, raw: bytes, inputs: MediaInputs) -> Part:
    """An uploaded file read and counted; an ``InputError`` naming the file otherwise."""
    from engine.multimodal.count import read_any
    from engine.multimodal.model import count

    source = f"{name[:80]}"
    try:
        text = raw.decode("utf-8")
    except UnicodeDecodeError:
        raise InputError(source, "is not UTF-8 text (a config.json is)") from None
    data = parse_json_text(text, source, MAX_CONFIG_BYTES)
    if not isinstance(data, dict):
        raise InputError(source, "expected a JSON object { … } (a config.json)")
    model = read_any(data, inputs, source)
    counted = count(model)
    return Part(name, data, role_of(model, counted), model, counted)


def read_parts_of(files: list[tuple[str, bytes]], inputs: MediaInputs) -> tuple[list[Part], list[InputError]]:
    """(the parts read, one error per file that is not): a file that fails loses none of the others.
    ``model_index.json`` (a pipeline's index) is skipped: the parts say what they are."""
    parts, errors = [], []
    if len(files) > MAX_FILES:
        errors.append(InputError("upload", f"{len(files)} files: at most {MAX_FILES} are read (the first "
                                           f"{MAX_FILES})"))
        files = files[:MAX_FILES]
    for name, raw in files:
        if name.rsplit("/", 1)[-1] == "model_index.json":
            continue
        try:
            parts.append(read_part(name, raw, inputs))
        except InputError as exc:
            errors.append(exc)
    return parts, errors


def count_rows(parts: list[Part]) -> list[dict]:
    """One row per component of every file: what it is, its parameters and forward FLOP at the inputs."""
    rows = []
    for part in parts:
        c = part.count
        for component, params in c.params_by_component.items():
            rows.append({"component": component, "parameters": f"{params:,}",
                         "forward FLOP": format_flop(c.flop_by_component.get(component, 0)),
                         "model": f"{c.config_class} ({c.family})", "file": part.name})
    return rows


def inputs_line(part: Part) -> str:
    """The inputs the count used (each family's standard ones where none were given) and the image tokens."""
    shown = ", ".join(f"{k.replace('_', ' ')} {v}" for k, v in part.count.inputs.items())
    tokens = part.count.image_tokens
    return f"{part.name}: {shown}" + (f"; {tokens:,} image tokens reach the language model" if tokens else "")


def pipeline_of(parts: list[Part], inputs: MediaInputs, sampling: dict):
    """The pipeline of the uploaded parts (one denoiser, its text encoders and VAE) → ``PipelineCompute``; None
    without a denoiser. Two denoisers: one line saying so."""
    from engine.multimodal.pipeline import read_parts
    from engine.multimodal.training import pipeline_compute

    denoisers = [p for p in parts if p.role == "denoiser"]
    if not denoisers:
        return None
    if len(denoisers) > 1:
        raise InputError("upload", f"{len(denoisers)} denoisers ({', '.join(p.name for p in denoisers)}): upload one "
                                   "pipeline's parts at a time")
    encoders = [p for p in parts if p.role == "text_encoder"]
    vaes = [p for p in parts if p.role == "vae"]
    read = read_parts(denoisers[0].data, [p.data for p in encoders], vaes[0].data if vaes else None, inputs,
                      (denoisers[0].name, [p.name for p in encoders], vaes[0].name if vaes else "vae"))
    return pipeline_compute(*read, sampling)


def pipeline_rows(p) -> list[dict]:
    """A pipeline's sampling and training figures, each with what it counts."""
    passes = 2 if p.guidance else 1
    return [
        {"figure": "denoiser forward (one pass)", "FLOP": format_flop(p.denoiser_forward_flop),
         "counts": "at the inputs"},
        {"figure": "text encoders", "FLOP": format_flop(p.text_encoder_flop),
         "counts": "CLIP over 77 tokens; T5 or ChatGLM3 (Kolors) over the rest of the conditioning"},
        {"figure": "VAE decode", "FLOP": format_flop(p.vae_decoder_flop), "counts": "latent → image"},
        {"figure": "sampling, per output", "FLOP": format_flop(p.sampling_flop_per_output),
         "counts": f"{p.steps} steps × {passes} denoiser pass{'es' if passes > 1 else ''} + {passes} × text "
                   "encoders + VAE decode"},
        {"figure": "sampling, all outputs", "FLOP": format_flop(p.sampling_flop),
         "counts": f"× {format_count(p.outputs)} outputs"},
        {"figure": "training step, per sample", "FLOP": format_flop(p.training_flop_per_sample),
         "counts": "denoiser forward + backward + frozen text encoders + VAE encoder"},
        {"figure": "training step, latents cached", "FLOP": format_flop(p.training_flop_per_sample_cached),
         "counts": "denoiser forward + backward (latents and text embeddings computed once before training)"},
    ]


def step_rows(step) -> list[dict]:
    """A VLM training step's forward and backward per component."""
    names = dict.fromkeys([*step.forward_by_component, *step.backward_by_component])
    return [{"component": n, "forward FLOP": format_flop(step.forward_by_component.get(n, 0)),
             "backward FLOP": format_flop(step.backward_by_component.get(n, 0))} for n in names]


def is_vlm(part: Part) -> bool:
    """A vision-language model whose training recipes are counted: one chain of towers (Llama 3.2 Vision's too: its
    language model reads the image through cross-attention layers)."""
    return {"vision", "language_model"} <= set(part.count.params_by_component) and len(part.model.stages) == 1


def load_scenario(part: Part, recipe=None, examples: float = 1.0) -> Scenario:
    """The layer builder's scenario of a model (a VLM's chain with the recipe's frozen towers and adapters, a
    denoiser): its layers and ``examples``; the Plan page then plans it, image tokens in the sequence."""
    from engine.multimodal.training import scenario_data

    scenario = parse_scenario(scenario_data(part.model, recipe, examples), part.name)
    check_page_size(scenario.layers, cli="python -m engine flops --config FILE")
    return scenario
