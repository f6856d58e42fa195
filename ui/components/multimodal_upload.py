"""The layer builder's "Multimodal and diffusion models" upload: config.json files counted per component at the
inputs users know, a diffusion pipeline's sampling and training compute, a VLM's training step under a recipe, and
"load into the layer builder" (the Plan page then plans it with the image tokens in the sequence)."""
from __future__ import annotations

import streamlit as st

from engine.errors import InputError, parse_input
from ui import state
from ui.text import plain
from ui.components.upload_limit import limited_uploader
from ui.views import multimodal as view
from ui.views import uploads
from ui.widgets import metric_row, show_error
from engine.units import format_flop

HELP = ("Upload one or more config.json files as the Hub holds them: a vision-language model's (LLaVA, Qwen2.5-VL, "
        "Gemma 3, PaliGemma…), or a diffusion pipeline's parts — unet/ or transformer/config.json, text_encoder*/ and "
        "vae/config.json (the same file name is fine: each file says what it is). Nothing is downloaded or run.")
RECIPES = {"frozen_vision": "vision frozen; projector + language model train", "full": "every weight trains",
           "projector": "only the projector trains", "lora": "vision frozen; projector + LoRA on the language model"}


def _inputs():
    """The inputs users know; empty fields take each family's standard input (shown with the counts)."""
    from engine.multimodal.inputs import media_inputs

    c1, c2, c3, c4, c5 = st.columns(5)
    height = c1.number_input("Image height (px)", min_value=1, max_value=16_384, value=None, step=14, key="mm_h",
                             placeholder="standard")
    width = c2.number_input("Image width (px)", min_value=1, max_value=16_384, value=None, step=14, key="mm_w",
                            placeholder="standard")
    images = c3.number_input("Images per sample", min_value=0, max_value=64, value=None, key="mm_images",
                             placeholder="1")
    frames = c4.number_input("Video frames", min_value=1, max_value=1_024, value=None, key="mm_frames",
                             placeholder="none")
    text = c5.number_input("Text tokens", min_value=0, max_value=131_072, value=None, key="mm_text",
                           placeholder="standard",
                           help="A VLM: the prompt besides the image tokens. A denoiser: its conditioning length "
                                "(both text encoders together where it has two).")
    if (height is None) != (width is None):
        raise InputError("image size", "give both the height and the width (or neither: the standard size)")
    size = (int(height), int(width)) if height is not None else None
    return media_inputs({"image_size": size, "images": images, "frames": frames, "text_tokens": text})


def _pipeline(parts, inputs) -> None:
    st.markdown("**Diffusion pipeline: sampling and training**")
    c1, c2, c3 = st.columns(3)
    steps = c1.number_input("Denoising steps", min_value=1, max_value=1_000, value=50, key="mm_steps")
    guidance = c2.checkbox("Classifier-free guidance (2 passes a step)", value=True, key="mm_cfg",
                           help="Off for guidance-distilled models (FLUX.1-dev, -schnell): one pass a step.")
    outputs = c3.number_input("Images or videos generated", min_value=1.0, max_value=1e15, value=1.0,
                              format="%.6g", key="mm_outputs")
    try:
        p = view.pipeline_of(parts, inputs, {"steps": int(steps), "guidance": guidance, "outputs": outputs})
    except InputError as exc:
        show_error(exc)
        return
    metric_row([("Sampling / output", format_flop(p.sampling_flop_per_output), None),
                ("Sampling, all outputs", format_flop(p.sampling_flop), None),
                ("Training / sample", format_flop(p.training_flop_per_sample), None),
                ("Parameters", f"{p.params:,}", None)])
    st.dataframe(_frame(view.pipeline_rows(p)), hide_index=True, width="stretch")


def _vlm(part, place: int) -> None:
    """A VLM's training step; ``place``: the file's place in the upload (the widgets' keys: every Hub model's file
    is called config.json, and one file may come twice)."""
    from engine.multimodal.training import VlmRecipe, vlm_training_step

    st.markdown(f"**{plain(part.name)}: training step per example**")
    c1, c2 = st.columns(2)
    recipe = c1.selectbox("Recipe", list(RECIPES), format_func=RECIPES.get, key=f"mm_recipe_{place}_{part.name}")
    rank = c2.number_input("LoRA rank", min_value=1, max_value=4_096, value=16, key=f"mm_rank_{place}_{part.name}",
                           disabled=recipe != "lora")
    try:
        spec = parse_input(VlmRecipe, {"recipe": recipe, "lora_rank": int(rank) if recipe == "lora" else None},
                           source="recipe")
        step = vlm_training_step(part.model, spec)
    except InputError as exc:
        show_error(exc)
        return
    metric_row([("Forward / example", format_flop(step.forward_flop), None),
                ("Backward / example", format_flop(step.backward_flop), None),
                ("Trainable parameters", f"{step.trainable_params:,}", None)])
    st.dataframe(_frame(view.step_rows(step)), hide_index=True, width="stretch")
    if st.button("Load into the layer builder", key=f"mm_load_{place}_{part.name}",
                 help="The model's layers replace the layer list, the recipe's towers frozen; the Plan page plans "
                      "it with the image tokens in the language model's sequence."):
        _load(part, spec)


def _load(part, recipe=None) -> None:
    examples = (state.get().training.examples if state.get().training else None) or 1.0
    try:
        scenario = view.load_scenario(part, recipe, examples)
    except InputError as exc:
        show_error(exc, "the layer list was kept")
        return
    state.replace(scenario)
    st.rerun()


def _frame(rows):
    import pandas as pd  # here, once a file is read: the layer builder's first numbers do not wait for pandas

    return pd.DataFrame(rows)


def multimodal_upload() -> None:
    """Upload, inputs, per-component counts; a pipeline's sampling and training; a VLM's training step."""
    with st.expander("Multimodal and diffusion models (config.json files)"):
        st.caption(HELP)
        files = limited_uploader("config.json files", uploads.CONFIG, type=["json"], key="mm_upload", multiple=True)
        try:
            inputs = _inputs()
        except InputError as exc:
            show_error(exc)
            return
        if not files:
            return
        parts, errors = view.read_parts_of([(f.name, f.getvalue()) for f in files], inputs)
        for exc in errors:
            show_error(exc, "" if exc.field == "upload" else "that file was not used")
        if not parts:
            return
        st.dataframe(_frame(view.count_rows(parts)), hide_index=True, width="stretch")
        for part in parts:
            st.caption(plain(view.inputs_line(part)))
            for note in part.count.notes:
                st.caption(plain(note))
        if any(p.role == "denoiser" for p in parts):
            _pipeline(parts, inputs)
            denoiser = next(p for p in parts if p.role == "denoiser")
            if st.button("Load the denoiser into the layer builder", key="mm_load_denoiser",
                         help="Its layers replace the layer list (every weight trains)."):
                _load(denoiser)
        for place, part in enumerate(parts):
            if view.is_vlm(part):
                _vlm(part, place)
