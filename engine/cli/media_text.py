"""Text output (``--format text``) of the multimodal results: ``flops --config`` (a model's count per component),
``diffusion`` (a pipeline's sampling and training compute) and ``vlm`` (a vision-language training step)."""
from __future__ import annotations

from engine.cli.text_layout import pairs, table
from engine.units import format_count, format_flop


def _components(result: dict, flop_key: str = "flop_by_component") -> str:
    params, flop = result.get("params_by_component") or {}, result.get(flop_key) or {}
    total = sum(flop.values()) or 1
    rows = [[name, f"{params.get(name, 0):,}", format_flop(flop.get(name, 0), ""),
             f"{100 * flop.get(name, 0) / total:.1f}%"] for name in dict.fromkeys([*params, *flop])]
    return table(["component", "params", "forward FLOP", "share"], rows, right=(1, 2, 3))


def _inputs(inputs: dict) -> str:
    return ", ".join(f"{k.replace('_', ' ')} {v}" for k, v in inputs.items())


def model_count_text(result: dict) -> str:
    items = [("model", f"{result['config_class']} ({result['family']})"), ("convention", result["convention"]),
             ("inputs", _inputs(result.get("inputs") or {})),
             ("image tokens", f"{result['image_tokens']:,}" if result.get("image_tokens") is not None else None),
             ("parameters", f"{result['params']:,} (tied weights once)"),
             ("forward / example", format_flop(result["forward_flop"]))]
    items += [("note", n) for n in result.get("notes") or ()]
    if result.get("unused_keys"):
        items.append(("keys not read", ", ".join(result["unused_keys"])))
    return _components(result) + "\n\n" + pairs(items)


def pipeline_text(result: dict) -> str:
    rows = [[name, f"{p:,}"] for name, p in result["params_by_component"].items()]
    guidance = "with classifier-free guidance (2 denoiser passes a step)" if result["guidance"] else "no guidance"
    items = [("inputs", _inputs(result.get("inputs") or {})), ("parameters", f"{result['params']:,}"),
             ("denoiser forward", format_flop(result["denoiser_forward_flop"])),
             ("text encoders", format_flop(result["text_encoder_flop"])),
             ("VAE encode / decode", f"{format_flop(result['vae_encoder_flop'])} / "
                                     f"{format_flop(result['vae_decoder_flop'])}"),
             ("sampling / output", f"{format_flop(result['sampling_flop_per_output'])} ({result['steps']} steps, "
                                   f"{guidance})"),
             ("sampling, all outputs", f"{format_flop(result['sampling_flop'])} for "
                                       f"{format_count(result['outputs'])}"),
             ("training / sample", format_flop(result["training_flop_per_sample"])),
             ("  latents cached", format_flop(result["training_flop_per_sample_cached"])),
             ("denoiser backward", format_flop(result["denoiser_backward_flop"]))]
    items += [("note", n) for n in result.get("notes") or ()]
    return table(["part", "params"], rows, right=(1,)) + "\n\n" + pairs(items)


def vlm_step_text(result: dict) -> str:
    names = dict.fromkeys([*result["forward_by_component"], *result["backward_by_component"]])
    rows = [[n, format_flop(result["forward_by_component"].get(n, 0), ""),
             format_flop(result["backward_by_component"].get(n, 0), "")] for n in names]
    items = [("recipe", result["recipe"]), ("parameters", f"{result['params']:,}"),
             ("trainable", f"{result['trainable_params']:,}"),
             ("forward / example", format_flop(result["forward_flop"])),
             ("backward / example", format_flop(result["backward_flop"])),
             ("training / example", format_flop(result["training_flop"]))]
    if result.get("examples") is not None:
        items.append(("training compute", f"{format_flop(result['total_training_flop'])} for "
                                          f"{format_count(result['examples'])} examples"))
    items += [("note", n) for n in result.get("notes") or ()]
    return table(["component", "forward FLOP", "backward FLOP"], rows, right=(1, 2)) + "\n\n" + pairs(items)
