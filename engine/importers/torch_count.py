"""A PyTorch module counted per module with PyTorch's own dispatch-level counter, on the ``meta`` device.

``count_module(factory, shape)`` builds the module on the meta device (no weights allocated, nothing run on
real data), runs one forward pass and one backward pass of ``output.sum()`` under
``torch.utils.flop_counter.FlopCounterMode``, which attributes every matrix product, convolution and attention
to the modules it runs in (forward and backward; the backward follows the module's own ``requires_grad``
flags: a frozen weight gets no weight gradient). Each module becomes one row (the ``counted`` kind): its own
parameters (shared ones once) and the FLOP of its own code — the operations that ran while it was the innermost
module called (a module reached by two paths, as ``named_modules`` names it: its first) — MACs = FLOP / 2. A
grouped convolution's weight gradient is counted at its arithmetic (``conv_backward_flop``: PyTorch's formula
ignores the groups), as the layer builder counts it.
A row's backward is the FLOP of the autograd nodes its own code created: each forward call of a module is an
interval of autograd sequence numbers, and each backward operation is charged to the innermost module whose
interval holds the node being run (``torch._C._current_autograd_node``). FlopCounterMode's own module tracker
charges a branch's backward to its siblings too when they share an input (attention's query, key and value),
so the rows would add up to more than the backward pass; these add up to it exactly.

A ``transformers`` model given token ids is called with ``input_ids=`` and ``use_cache=False``; on the meta
device transformers' packed-sequence check (it reads position values) is answered "one sequence per row", so
transformers models count on the meta device too.

What the counter counts is the ``matmul`` convention only: the rows' ``extra_flop`` is 0, and the result says
so (the ONNX path counts the ``full`` convention's element-wise work). torch is needed only here: the CLI's
``count`` command imports it when run, and says how to install it when it is absent.
"""
from __future__ import annotations

import bisect
import inspect
import math
import sys
from collections import defaultdict
from contextlib import contextmanager
from dataclasses import dataclass, field

from ..errors import InputError
from ..method1.counted import MAX_COUNTED_DIM, Counted, per_example
from ..results import Result

MAX_INPUT_DIMS = 8
DTYPES = ("float", "long", "int", "half", "bfloat16", "bool")


def import_torch():
    try:
        import torch
    except ImportError:
        raise InputError("count", "this command needs PyTorch, which is not installed: pip install torch "
                                  "(or pip install 'flopscope[torch]')") from None
    return torch


@dataclass(frozen=True, slots=True)
class ModuleCount(Result):
    """A module counted for one forward and one backward pass with ``input_shape``: totals and one row per
    module that has parameters or runs arithmetic of its own (``rows``, the ``counted`` kind, in module order).

    ``backward_flop``: FlopCounterMode over ``output.sum().backward()`` with the module's own ``requires_grad``
    flags; ``trainable_params``: the parameters that require a gradient."""

    source: str
    module: str
    input_shape: list[int]
    input_dtype: str
    params: int
    trainable_params: int
    forward_flop: int
    backward_flop: int
    rows: list[Counted] = field(default_factory=list)
    notes: list[str] = field(default_factory=list)

    json_fields = ("source", "module", "input_shape", "input_dtype", "params", "trainable_params", "forward_flop",
                   "backward_flop", "notes")

    def scenario_data(self, name: str = "") -> dict:
        """The scenario these rows make, per example (``counted.per_example``: each figure ÷ the batch, the
        input's first size): the rows are the layers, the input less its batch axis the input. Rows keep which
        of their parameters train, so a frozen module makes the training count its backward pass as counted."""
        shape = self.input_shape[1:] if len(self.input_shape) > 1 else self.input_shape
        shape = [max(1, min(d, 10**9)) for d in shape] or [1]
        if len(shape) > 4:
            shape = [min(math.prod(shape), 10**9)]
        rows, _ = per_example(self.rows, self.batch)
        return {"name": (name or self.module)[:200], "input": {"shape": shape},
                "layers": [row.model_dump(exclude_defaults=True) for row in rows]}

    @property
    def batch(self) -> int:
        return self.input_shape[0] if len(self.input_shape) > 1 else 1


def _scope(name: str) -> str:
    """``layer1.0.conv1`` → ``/layer1/0/conv1`` (the ONNX exporter's scopes, so both paths' rows read alike)."""
    return "/" + name.replace(".", "/") if name else "/"


def _first_shape(value) -> list[int] | None:
    torch = import_torch()
    if isinstance(value, torch.Tensor):
        return list(value.shape)
    if isinstance(value, (list, tuple)):
        for v in value:
            found = _first_shape(v)
            if found is not None:
                return found
    if isinstance(value, dict):
        for v in value.values():
            found = _first_shape(v)
            if found is not None:
                return found
    return None


def _tensors(value):
    torch = import_torch()
    if isinstance(value, torch.Tensor):
        yield value
    elif isinstance(value, (list, tuple)):
        for v in value:
            yield from _tensors(v)
    elif isinstance(value, dict):
        for v in value.values():
            yield from _tensors(v)
    elif hasattr(value, "to_tuple"):  # transformers' ModelOutput
        yield from _tensors(value.to_tuple())


def _call(module, x):
    """``module(x)``; a ``transformers`` model with token ids is called as training calls it: ``input_ids=x`` and
    ``use_cache=False`` (no key–value cache), where its ``forward`` takes them. No attention mask is passed: one
    on the meta device makes transformers read its values (to skip an all-ones mask)."""
    if not type(module).__module__.startswith("transformers.") or x.is_floating_point():
        return module(x)
    try:
        accepts = inspect.signature(module.forward).parameters
    except (TypeError, ValueError):
        return module(x)
    key = getattr(module, "main_input_name", "input_ids")
    if key not in accepts:
        return module(x)
    return module(**{key: x, **({"use_cache": False} if "use_cache" in accepts else {})})


@contextmanager
def _meta_masks(device: str, used: list):
    """On the meta device, transformers' check for packed sequences (``masking_utils.find_packed_sequence_indices``,
    run when a model gets neither an attention mask nor a cache) reads position values the meta device lacks: it
    answers "not packed" there (positions 0…T−1, one sequence per row: what it finds on real data for a model
    that makes its own positions). A packed mask would only mask more scores, no matrix product changes size.
    ``used`` gets one entry per meta call."""
    masking = sys.modules.get("transformers.masking_utils")
    original = getattr(masking, "find_packed_sequence_indices", None)
    if device != "meta" or original is None:
        yield
        return

    def unpacked(position_ids, *args, **kwargs):
        if getattr(position_ids, "is_meta", False):
            used.append(1)
            return None
        return original(position_ids, *args, **kwargs)

    masking.find_packed_sequence_indices = unpacked
    try:
        yield
    finally:
        masking.find_packed_sequence_indices = original


def make_input(torch, shape: list[int], dtype, device: str, random: bool = False):
    """The input tensor: zeros (or normal draws, floating point, for ``random``). One it cannot hold (a shape of
    8·10¹⁰ elements on the CPU) is an ``InputError`` naming ``--input`` (it was 'an unexpected RuntimeError')."""
    try:
        if random and dtype.is_floating_point:
            return torch.randn(shape, device=device).to(dtype)
        return torch.zeros(shape, dtype=dtype, device=device)
    except (RuntimeError, MemoryError) as exc:
        reason = (str(exc).strip().splitlines() or [""])[0][:160]
        raise InputError("--input", f"an input of shape {list(shape)} cannot be made on the {device} "
                                    f"({type(exc).__name__}: {reason})") from None


def count_module(factory, input_shape: list[int], input_dtype: str = "float", *, source: str = "",
                 name: str = "", device: str = "meta") -> ModuleCount:
    """Build ``factory()`` on the meta device and count it (see the module docstring). ``device="cpu"``: for a
    module whose code reads tensor values (the meta device has none); its weights are then allocated."""
    torch = import_torch()
    from torch.utils.flop_counter import FlopCounterMode

    dtype = {"float": torch.float32, "long": torch.long, "int": torch.int32, "half": torch.float16,
             "bfloat16": torch.bfloat16, "bool": torch.bool}[input_dtype]
    try:
        with torch.device(device):
            module = factory()
    except SystemExit as exc:  # the user's code ending the process: said, not an exit with no output
        raise InputError("FACTORY", f"calling it ended the program (SystemExit {exc.code!r})") from None
    except Exception as exc:
        raise InputError("FACTORY", f"calling it failed: {type(exc).__name__}: {str(exc)[:200]}") from None
    if not isinstance(module, torch.nn.Module):
        raise InputError("FACTORY", f"returned {type(module).__name__}, not a torch.nn.Module")
    module = module.to(device)
    x = make_input(torch, input_shape, dtype, device)
    shapes: dict[str, list[int]] = {}
    names = {m: n for n, m in module.named_modules()}
    calls = _Calls(torch, device)

    def enter(mod, args):  # returns None: a pre-hook's return value would replace the input
        calls.enter(names[mod])

    def record(mod, args, out):  # returns None: a forward hook's return value would replace the output
        shapes.setdefault(names[mod], _first_shape(out))
        calls.leave(names[mod])

    hooks = [h for m in names for h in (m.register_forward_pre_hook(enter), m.register_forward_hook(record))]
    notes = ["FlopCounterMode counts matrix products, convolutions and attention only: the rows' full-convention "
             "extra FLOP is 0 (the ONNX import counts element-wise work)"]
    if device != "meta":
        notes.append(f"counted on the {device}: recurrent layers (nn.LSTM, nn.GRU, nn.RNN) run as one fused kernel "
                     "there, which FlopCounterMode counts as 0; use the meta device for them. Scaled-dot-product "
                     "attention runs fused too: counted with PyTorch's formulas for fused attention (its backward "
                     "recomputes the scores: one product more than on the meta device)")
    packed_checks: list = []
    try:
        with _meta_masks(device, packed_checks), _counter_by_node(FlopCounterMode, calls) as both:
            out = _call(module, x)
            forward_flop = both.get_total_flops()  # the counter's total so far: the forward pass
            outputs = [t for t in _tensors(out) if t.is_floating_point() and t.requires_grad]
            if outputs:
                sum(t.sum() for t in outputs).backward()
            else:
                notes.append("no output needs a gradient (every parameter frozen, or none): no backward pass")
    except Exception as exc:
        hint = (" — the module's code reads tensor values, which the meta device does not have: rerun with "
                "--device cpu (it allocates the weights)") if "meta" in str(exc) and device == "meta" else ""
        raise InputError("--input", f"the module's forward or backward pass failed on an input of shape "
                                    f"{list(input_shape)} ({input_dtype}): {type(exc).__name__}: {str(exc)[:200]}"
                                    + hint) from None
    finally:
        for h in hooks:
            h.remove()
    if packed_checks:
        notes.append("transformers' packed-sequence check was answered 'one sequence per row' on the meta device "
                     "(it reads position values); masks change no matrix product")
    root = type(module).__name__

    def runner(mod_name: str) -> str:
        """The module whose code uses this module's weights: itself if its forward ran, else the nearest
        ancestor that ran (``nn.MultiheadAttention`` reads its ``out_proj``'s weights in its own code)."""
        while mod_name and mod_name not in shapes:
            mod_name = mod_name.rpartition(".")[0]
        return mod_name

    owned: dict[str, list] = defaultdict(list)
    seen: set[int] = set()
    for mod_name, mod in module.named_modules():
        for p in mod.parameters(recurse=False):
            if id(p) not in seen:
                seen.add(id(p))
                owned[runner(mod_name)].append(p)
    rows: list[Counted] = []
    params = trainable = 0
    for mod_name, mod in module.named_modules():
        own = owned.get(mod_name, [])
        n_params = sum(p.numel() for p in own)
        n_train = sum(p.numel() for p in own if p.requires_grad)
        f_own = both.forward.get(mod_name, 0)  # the operations of its own code (a shared module: all its calls)
        b_own = both.backward.get(mod_name, 0)
        params += n_params
        trainable += n_train
        if n_params or f_own or b_own:
            shape = [min(int(d), MAX_COUNTED_DIM) for d in (shapes.get(mod_name) or [])][:12]
            rows.append(Counted(name=_scope(mod_name)[-200:], op=type(mod).__name__[:200], params=n_params,
                                macs=max(f_own, 0) // 2, output_shape=shape, backward_macs=max(b_own, 0) // 2,
                                trainable_params=None if n_train == n_params else n_train))
    backward_flop = both.get_total_flops() - forward_flop
    outside = backward_flop - 2 * sum(r.backward_macs for r in rows)
    if outside:
        notes.append(f"{outside:,} backward FLOP ran in autograd nodes made outside the module's forward pass "
                     "(no row holds them); the total backward includes them")
    counted = ModuleCount(source=source[:200], module=(name or root)[:200], input_shape=list(input_shape),
                          input_dtype=input_dtype, params=params, trainable_params=trainable,
                          forward_flop=forward_flop, backward_flop=backward_flop, rows=rows, notes=notes)
    if (note := per_example(rows, counted.batch)[1]) is not None:
        notes.append(note)
    return counted


class _Calls:
    """Each module call's interval of autograd sequence numbers (nodes are numbered as the forward pass makes
    them), and the innermost call holding a node: the module whose own code made it."""

    def __init__(self, torch, device: str):
        self._leaf = torch.zeros((), device=device, requires_grad=True)
        self._torch = torch
        self._open: dict[str, list[int]] = defaultdict(list)
        self._starts: list[int] = []
        self._intervals: list[tuple[int, int, str]] = []  # (first, last, module) in order of first
        self.stack: list[str] = []
        """The module calls running now, innermost last: a forward operation belongs to the last."""

    def _next(self) -> int:
        """The next sequence number (a probe node takes this one; the module's first node gets the next)."""
        with self._torch.enable_grad():
            return (self._leaf * 1).grad_fn._sequence_nr()

    def enter(self, name: str) -> None:
        self._open[name].append(self._next())
        self.stack.append(name)

    def leave(self, name: str) -> None:
        if self.stack and self.stack[-1] == name:
            self.stack.pop()
        first = self._open[name].pop()
        at = bisect.bisect(self._starts, first)
        self._starts.insert(at, first)
        self._intervals.insert(at, (first, self._next(), name))

    def module_of(self, seq: int) -> str | None:
        """The innermost call whose interval holds node ``seq`` (intervals nest or are disjoint), or None."""
        for first, last, name in reversed(self._intervals[:bisect.bisect(self._starts, seq)]):
            if seq <= last:
                return name
        return None


def _counter_by_node(flop_counter_mode, calls: _Calls):
    """A FlopCounterMode that also charges each backward operation to ``calls.module_of`` the autograd node
    being run: ``.backward[module] = FLOP``."""
    import torch

    class ByNode(flop_counter_mode):
        def __init__(self):
            super().__init__(display=False, custom_mapping={torch.ops.aten.convolution_backward: conv_backward_flop,
                                                            **cpu_attention_formulas(torch)})
            self.forward: dict[str, int] = defaultdict(int)
            self.backward: dict[str, int] = defaultdict(int)

        def _count_flops(self, func_packet, out, args, kwargs):
            if func_packet in self.flop_registry:
                flop = self.flop_registry[func_packet](*args, **kwargs, out_val=out)
                node = torch._C._current_autograd_node()
                if node is not None:
                    module = calls.module_of(node._sequence_nr())
                    if module is not None:
                        self.backward[module] += flop
                elif calls.stack:
                    self.forward[calls.stack[-1]] += flop
            return super()._count_flops(func_packet, out, args, kwargs)

    return ByNode()


def cpu_attention_formulas(torch) -> dict:
    """``F.scaled_dot_product_attention``'s fused CPU kernel (what it runs on the CPU with a gradient), which
    FlopCounterMode has no formula for (it would count 0): PyTorch's own formulas for its fused kernels — two
    products forward, five backward (the scores recomputed), grouped-query heads broadcast."""
    from torch.utils.flop_counter import sdpa_backward_flop_count, sdpa_flop_count

    aten = torch.ops.aten

    def forward(query, key, value, *args, out_shape=None, **kwargs) -> int:
        return sdpa_flop_count(query, key, value)

    def backward(grad_out, query, key, value, *args, out_shape=None, **kwargs) -> int:
        return sdpa_backward_flop_count(grad_out, query, key, value)

    return {aten._scaled_dot_product_flash_attention_for_cpu: forward,
            aten._scaled_dot_product_flash_attention_for_cpu_backward: backward}


def conv_backward_flop(grad_out_shape, x_shape, w_shape, _bias, _stride, _padding, _dilation, transposed,
                       _output_padding, groups, output_mask, out_shape, **kwargs) -> int:
    """``FlopCounterMode``'s convolution backward with the weight gradient at its arithmetic: its formula counts
    C_in·C_out·K per output position for it whatever ``groups`` (g × the products a grouped convolution does;
    docs/training.md), the layer builder's count divides by g. The input gradient is PyTorch's formula."""
    from torch.utils.flop_counter import conv_flop_count

    def t(shape):
        return [shape[1], shape[0], *shape[2:]]

    flop = 0
    if output_mask[0]:
        flop += conv_flop_count(grad_out_shape, w_shape, out_shape[0], not transposed)
    if output_mask[1]:
        x, g = (grad_out_shape, x_shape) if transposed else (x_shape, grad_out_shape)
        flop += conv_flop_count(t(x), t(g), t(out_shape[1]), transposed=False) // max(int(groups), 1)
    return flop


def load_factory(spec: str):
    """``FILE.py:NAME``: the user's file imported (their code runs here, on their machine: the CLI only), and
    its ``NAME`` (a function or a class) returned."""
    import importlib.util
    import sys
    from pathlib import Path

    path, sep, attr = spec.rpartition(":")
    if not sep or not path or not attr or not attr.isidentifier():
        raise InputError("MODULE", f"write FILE.py:FACTORY (a function or class in the file), got '{spec[:80]}'")
    file = Path(path)
    if not file.is_file() or file.suffix != ".py":
        raise InputError("MODULE", f"'{path[:80]}' is not a Python file")
    import_torch()
    name = f"flopscope_user_{abs(hash(str(file.resolve())))}"
    loader = importlib.util.spec_from_file_location(name, file)
    module = importlib.util.module_from_spec(loader)
    sys.path.insert(0, str(file.resolve().parent))
    try:
        loader.loader.exec_module(module)
    except SystemExit as exc:  # the file ending the process on import: said, not an exit with no output
        raise InputError("MODULE", f"importing '{path[:80]}' ended the program (SystemExit {exc.code!r})") from None
    except Exception as exc:
        raise InputError("MODULE", f"importing '{path[:80]}' failed: {type(exc).__name__}: {str(exc)[:200]}") \
            from None
    finally:
        sys.path.pop(0)
    factory = getattr(module, attr, None)
    if not callable(factory):
        raise InputError("MODULE", f"'{path[:80]}' has no function or class named {attr}")
    return factory
