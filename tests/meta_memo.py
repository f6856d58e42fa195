"""The meta device's shape functions, remembered: a dispatch mode under ``FlopCounterMode`` that answers an operator
it has already seen with the same input shapes, strides, dtypes and arguments by fresh empty tensors of the
outputs' shapes and strides, instead of running the operator's meta kernel again.

Why: on the meta device most operators' shape functions are Python (``torch._refs``, ``torch._prims``): a layer norm
costs ~5 ms, an element-wise ~0.3 ms, while the products FlopCounterMode counts cost microseconds. A 40-layer model
repeats the same few hundred (operator, shapes) pairs layer after layer; remembering them makes the references'
forward and backward passes several times faster. FlopCounterMode itself is untouched: it sits above this mode,
sees every operator as before (its decompositions included) and counts from the same shapes.

What is remembered follows FakeTensorMode's own dispatch cache (``torch._subclasses.fake_tensor``): only
functional operators (no mutated input, no output aliasing an input: a view or an in-place result keeps its
identity), only meta tensors in and out, and only arguments that hash (ints, floats, bools, dtypes, devices,
strings and tuples of them). Anything else runs the meta kernel as before.
"""
from __future__ import annotations

import contextlib

import torch
from torch.utils._python_dispatch import TorchDispatchMode  # noqa: PLC2701 (where torch documents it)

_FUNCTIONAL: dict = {}
"""Operator overload → whether its schema is functional (no mutation, no aliased return)."""


def _functional(func) -> bool:
    known = _FUNCTIONAL.get(func)
    if known is None:
        schema = func._schema
        known = not schema.is_mutable and all(r.alias_info is None for r in schema.returns) and all(
            a.alias_info is None for a in schema.arguments)
        _FUNCTIONAL[func] = known
    return known


class _Unhashable(Exception):
    pass


def _key(value):
    if isinstance(value, torch.Tensor):
        if not value.is_meta or value.layout is not torch.strided:
            raise _Unhashable
        return (value.dtype, tuple(value.shape), value.stride(), value.storage_offset())
    if isinstance(value, (list, tuple)):
        return (type(value), tuple(_key(v) for v in value))
    if isinstance(value, dict):
        return tuple((k, _key(v)) for k, v in value.items())
    if value is None or isinstance(value, (bool, int, float, str, torch.dtype, torch.device, torch.memory_format,
                                           torch.layout)):
        return (type(value), value)
    raise _Unhashable


def _spec(out):
    if isinstance(out, torch.Tensor):
        if not out.is_meta or out.layout is not torch.strided:
            raise _Unhashable
        return (tuple(out.shape), out.stride(), out.dtype)
    if isinstance(out, (list, tuple)):
        return (type(out), tuple(_spec(o) for o in out))
    if out is None:
        return None
    raise _Unhashable


def _build(spec):
    if spec is None:
        return None
    if isinstance(spec[0], type):
        return spec[0](_build(s) for s in spec[1])
    shape, stride, dtype = spec
    return torch.empty_strided(shape, stride, dtype=dtype, device="meta")


SEEN: dict = {}
"""(operator, the default dtype, its arguments' key) → its outputs' (shape, stride, dtype): one memo per process
(the shapes an operator gives do not depend on the model it runs in)."""
LIMIT = 500_000
"""Entries kept before the memo starts again (a few hundred bytes each)."""


class MetaMemo(TorchDispatchMode):
    """Enter it outside ``FlopCounterMode`` (so that FlopCounterMode, the inner mode, dispatches first)."""

    def __init__(self) -> None:
        super().__init__()
        if len(SEEN) > LIMIT:
            SEEN.clear()
        self.seen = SEEN
        self.hits = self.misses = 0

    def __torch_dispatch__(self, func, types, args=(), kwargs=None):
        kwargs = kwargs or {}
        if not _functional(func):
            return func(*args, **kwargs)
        try:
            key = (func, torch.get_default_dtype(), _key(args), _key(kwargs))
        except _Unhashable:
            return func(*args, **kwargs)
        spec = self.seen.get(key)
        if spec is not None:
            self.hits += 1
            return _build(spec)
        out = func(*args, **kwargs)
        try:
            self.seen[key] = _spec(out)
            self.misses += 1
        except _Unhashable:
            pass
        return out


@contextlib.contextmanager
def flop_counter(remember: bool = True, **options):
    """``FlopCounterMode(display=False, **options)`` over remembered meta shape functions: ``with flop_counter() as
    counter:`` as with FlopCounterMode itself. Tensors not on the meta device run as before; ``remember=False``
    (a model with real weights) leaves the memo out, which would only add a dispatch to every operator."""
    from torch.utils.flop_counter import FlopCounterMode

    with MetaMemo() if remember else contextlib.nullcontext(), FlopCounterMode(display=False, **options) as counter:
        yield counter
