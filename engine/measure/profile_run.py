"""Measure here: a short training loop of the user's module run under ``torch.profiler`` on this machine, its
trace written, then measured as any trace (``measure_trace``), with the model's FLOP per step from FLOPscope's
own count of the same module (``importers.torch_count``: FlopCounterMode on the meta device) for MFU.

Each step: output = module(x) with x random of the given shape, loss = output.sum() (the ``count`` command's
backward), loss.backward(), an SGD step. The first step is a warm-up the profiler skips (schedule wait 0,
warm-up 1, active N), so the trace has ProfilerStep#1 … #N. torch is needed only here.
"""
from __future__ import annotations

from pathlib import Path

from ..errors import InputError
from .utilization import ModelFlop

MAX_STEPS = 50


def check_out(out: Path) -> None:
    """Where the trace may be written: a new file or a regular file (replaced), in a folder that exists — never a
    folder, a device, a pipe or a link (the profiler's writer replaces whatever is at the path)."""
    if out.is_symlink():
        raise InputError("--out", f"{str(out)[:200]!r} is a link: name a regular file (the trace is never written "
                                  "through a link)")
    if out.exists() and not out.is_file():
        what = "a folder" if out.is_dir() else "not a regular file (a device, a pipe or a socket)"
        raise InputError("--out", f"{str(out)[:200]!r} is {what}: name a file to write the trace to")
    if not out.parent.is_dir():
        raise InputError("--out", f"the folder {str(out.parent)[:200]!r} does not exist")


def profile_module(factory, input_shape: list[int], *, steps: int = 3, device: str = "cpu",
                   input_dtype: str = "float", out: Path, source: str = "") -> tuple[Path, ModelFlop]:
    """Run ``steps`` profiled training steps of ``factory()``; returns the trace's path and the model's FLOP per
    step (FlopCounterMode's forward + backward for this input)."""
    from ..importers.torch_count import count_module, import_torch

    if not 1 <= steps <= MAX_STEPS:
        raise InputError("--steps", f"{steps}: from 1 to {MAX_STEPS} profiled steps")
    out = Path(out)
    check_out(out)
    torch = import_torch()
    if device == "cuda" and not torch.cuda.is_available():
        raise InputError("--device", "cuda: no CUDA GPU is visible to PyTorch here (torch.cuda.is_available() is "
                                     "False); use --device cpu")
    counted = count_module(factory, input_shape, input_dtype, source=source)
    model = ModelFlop(float(counted.forward_flop + counted.backward_flop),
                      f"{counted.module}: FlopCounterMode's forward + backward for an input of {input_shape}")
    dtype = {"float": torch.float32, "long": torch.long, "int": torch.int32, "half": torch.float16,
             "bfloat16": torch.bfloat16, "bool": torch.bool}[input_dtype]
    try:
        module = factory().to(device)
    except SystemExit as exc:
        raise InputError("FACTORY", f"calling it ended the program (SystemExit {exc.code!r})") from None
    except Exception as exc:
        raise InputError("FACTORY", f"building it on {device} failed: {type(exc).__name__}: {str(exc)[:200]}") from None
    from ..importers.torch_count import make_input

    x = make_input(torch, input_shape, dtype, device, random=True)
    trainable = [p for p in module.parameters() if p.requires_grad]
    optimizer = torch.optim.SGD(trainable, lr=1e-4) if trainable else None
    from torch.profiler import ProfilerActivity, profile, schedule

    activities = [ProfilerActivity.CPU] + ([ProfilerActivity.CUDA] if device == "cuda" else [])

    def export(prof):
        prof.export_chrome_trace(str(out))

    def step():
        if optimizer is not None:
            optimizer.zero_grad(set_to_none=True)
        from ..importers.torch_count import _call, _tensors
        outputs = [t for t in _tensors(_call(module, x)) if t.is_floating_point() and t.requires_grad]
        if outputs:
            sum(t.float().sum() for t in outputs).backward()
        if optimizer is not None:
            optimizer.step()

    try:
        with profile(activities=activities, record_shapes=True, schedule=schedule(wait=0, warmup=1, active=steps),
                     on_trace_ready=export) as prof:
            for _ in range(steps + 1):
                step()
                prof.step()
        if device == "cuda":
            torch.cuda.synchronize()
    except InputError:
        raise
    except Exception as exc:
        raise InputError("--input", f"the training step failed on an input of shape {list(input_shape)}: "
                                    f"{type(exc).__name__}: {str(exc)[:200]}") from None
    if not out.is_file():
        raise InputError("--out", f"the profiler wrote no trace to {out.name!r}")
    return out, model
