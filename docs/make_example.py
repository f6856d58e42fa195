"""Writes docs/example.ipynb, its cells run and their output stored: ``python docs/make_example.py`` from the
repository root (tests/test_example_notebook.py runs the notebook and checks the stored output is current)."""
import contextlib, io, json, sys
sys.path.insert(0, ".")
cells = [
("markdown", """# FLOPscope from Python

The calls of the Python API (`docs/api.md`): a model from its layers, a language model from its
`config.json`, a run from its hardware, and a parallel layout's memory and step time. Each takes plain
Python data, validates it the way the dashboard does, and returns a result with `as_dict()`.

Run it in a checkout: Jupyter opened in `docs/` or at the repository's root (the first cell finds the root).
Installed with `pip install .`, the package imports as `flopscope_compute`: write that name for `engine`."""),
("code", """import pathlib
import sys

if pathlib.Path.cwd().name == "docs":  # Jupyter opened the notebook here: the checkout's root is one folder up
    sys.path.insert(0, str(pathlib.Path.cwd().parent))
from engine import estimate_scenario, estimate_config, estimate_hardware, plan_layout, InputError
from engine.units import format_flop"""),
("markdown", """## Method 1: Epoch AI's worked example, layer by layer

Sequences of 20 images of 400×400×5 → a convolution (16 filters of 5×5, stride 2, padding 2) → an LSTM of
256 units over the flattened 640,000 values → a dense layer of 10; 10 epochs of 100 batches of 128.
Training FLOP = forward FLOP per example × (1 + r) × examples × epochs, r = 2."""),
("code", """scenario = {
    "name": "Epoch AI worked example (CNN-LSTM-FCN)",
    "input": {"shape": [400, 400, 5], "sequence_length": 20},
    "layers": [
        {"type": "conv2d", "filters": 16, "kernel_size": 5, "stride": 2, "padding": 2},
        {"type": "flatten"},
        {"type": "lstm", "units": 256},
        {"type": "dense", "units": 10},
    ],
    "training": {"epochs": 10, "batches_per_epoch": 100, "batch_size": 128},
}
worked = estimate_scenario(scenario)
for row in worked.architecture.rows:
    print(f"{row.type:<8} params {row.params:>12,}   forward FLOP {row.forward_flop:>16,.0f}")
print("training FLOP:", format_flop(worked.training_flop), f"({worked.training_flop:.4e})")"""),
("markdown", """## A language model from its `config.json`

GPT-2 small's published `config.json` (the keys that matter), trained on 10 billion tokens of 1,024."""),
("code", """gpt2 = {"model_type": "gpt2", "architectures": ["GPT2LMHeadModel"], "vocab_size": 50257,
        "n_positions": 1024, "n_embd": 768, "n_layer": 12, "n_head": 12, "activation_function": "gelu_new",
        "layer_norm_epsilon": 1e-05, "tie_word_embeddings": True}
lm = estimate_config(gpt2, tokens=10e9)
print(f"parameters: {lm.params:,}")
print("training FLOP:", format_flop(lm.training.training_flop))
for f in lm.formulas:
    print(f"  {format_flop(f.training_flop)}  {f.label}")"""),
("markdown", """## Method 2: from the hardware

64 A100s for 10 days in BF16 at 40% utilization: chips × time × dense peak × utilization."""),
("code", """run = estimate_hardware({"chip": "nvidia-a100-sxm4-80gb", "chip_count": 64, "duration": 10,
                         "duration_unit": "days", "precision": "bf16", "utilization": 0.4})
print(f"peak used: {run.peak.peak_flop_per_s:.4g} FLOP/s ({run.peak.describe()})")
print("training FLOP:", format_flop(run.training_flop))"""),
("markdown", """## Plan a run: memory per chip and step time

GPT-2 small on 8 H100s, data parallel, a global batch of 512 sequences."""),
("code", """layout = plan_layout(gpt2, {"dp": 8, "micro_batch": 8, "global_batch": 512}, chip="nvidia-h100-sxm", tokens=10e9)
figures = layout.as_dict()
for part in ("weights", "gradients", "optimizer", "activation"):
    print(f"{part:<11} {figures[part + '_bytes_per_chip'] / 1e9:6.2f} GB per chip")
print(f"step time {figures['step_s']:.3f} s, MFU {figures['mfu']:.0%}, {figures['wall_clock_days'] * 24:.1f} hours")"""),
("markdown", """## Serving: KV cache, prefill and decode, time per token

Llama 3.1 8B on one H100 in BF16, prompts of 1,000 tokens generating 200, a batch of 32 (efficiencies fitted on
published serving measurements, `docs/serving.md`)."""),
("code", """from engine import serve_model
from engine.llm.library import library_model

served = serve_model(library_model("llama-3.1-8b").config, chip="nvidia-h100-sxm", prompt_tokens=1000,
                     output_tokens=200, batch=32)
kv = served.kv_cache_bytes
print(f"KV cache: {served.kv_cache_bytes_per_token:,.0f} B per token, {kv / 1e6:.1f} MB per sequence")
print(f"TTFT {served.ttft_s * 1e3:.0f} ms, TPOT {served.tpot_s * 1e3:.2f} ms, "
      f"{served.output_tokens_per_s:,.0f} tokens/s")"""),
("markdown", """## Compression before and after, with the measured speed-up

The worked example with half its channels pruned (the dense head keeps its 10 outputs), and its source."""),
("code", """from engine import compress_scenario

pruned = compress_scenario(scenario, technique="prune", pruning={"target": "channels", "fraction": 0.5})
print(f"parameters {pruned.before.params:,.0f} → {pruned.after.params:,.0f}")
print(f"ideal {pruned.ideal_speedup:.2f}×, measured {pruned.measured_speedup:g}× ({pruned.speedup_source[-43:]})")"""),
("markdown", """## Bad input is one line naming the field"""),
("code", """try:
    estimate_hardware({"chip": "nvidia-h100-sxm", "chip_count": -8, "duration": 10, "utilization": 0.4})
except InputError as error:
    print(error)"""),
]
ns = {}
nb_cells = []
for kind, src in cells:
    if kind == "markdown":
        nb_cells.append({"cell_type": "markdown", "metadata": {}, "source": src.splitlines(keepends=True)})
        continue
    out = io.StringIO()
    with contextlib.redirect_stdout(out):
        exec(compile(src, "<cell>", "exec"), ns)
    outputs = [{"name": "stdout", "output_type": "stream", "text": out.getvalue().splitlines(keepends=True)}] if out.getvalue() else []
    nb_cells.append({"cell_type": "code", "execution_count": None, "metadata": {}, "outputs": outputs,
                     "source": src.splitlines(keepends=True)})
nb = {"cells": nb_cells, "metadata": {"kernelspec": {"display_name": "Python 3", "language": "python", "name": "python3"},
      "language_info": {"name": "python"}}, "nbformat": 4, "nbformat_minor": 5}
open("docs/example.ipynb", "w").write(json.dumps(nb, indent=1, ensure_ascii=False) + "\n")
print("ok")
