"""What the exporter did to a model's weights, read from the graph, so that its parameters are counted as PyTorch's
``parameters()`` counts them (Σ numel, each parameter once) — and said where the file cannot tell.

Today's default ``torch.onnx.export`` (the dynamo exporter, PyTorch ≥ 2.9) writes each node's FX node in its
metadata (``pkg.torch.onnx.fx_node``: the operator and its arguments, where ``%p_<name>`` is a parameter,
``%b_<name>`` a buffer, ``%c_<name>`` a constant) and folds constants: a weight is stored transposed under a new
name (``val_37``), an attention mask or a position table looked up at fixed positions is computed ahead and stored
as an initializer, BatchNorm is folded into the convolution before it (the Conv node keeps the BatchNorm's FX
node), and identical tensors of an untrained model (zero biases, unit norm scales) are stored once. Read from the
metadata (``Provenance.dynamo``):

- an initializer read by a node whose FX node names the parameter (by the initializer's own name, or as the one
  parameter of that node not stored under its name: a folded copy) counts once per parameter: a tied weight
  stored twice (once transposed) is one parameter; one stored tensor that stands for several parameters (merged
  identical values) counts once for each;
- an initializer whose node names no parameter it could be a copy of (it was computed from buffers, constants or
  other values: a mask, a looked-up table) is a constant, with a note — and any parameter folded into it, which the
  file no longer holds, is named;
- a Conv whose FX node is a BatchNorm: the BatchNorm's scale and shift (2·C) are counted as PyTorch counts them
  (the file holds the folded bias: C), its running statistics as state, with a note.

Without that metadata (the TorchScript exporter, others): a float initializer that is the data input of a matrix
product whose other input is a weight (Swin V2's ``relative_coords_table`` through its position MLP) is state (a
buffer); a stored tensor read by layers of different modules is counted once, with a note of how many parameters
PyTorch may count beyond that (a tied weight is one parameter there too; merged identical tensors are not).
"""
from __future__ import annotations

import re
from collections import defaultdict
from dataclasses import dataclass, field

from ..method1.ops import prod
from ..results import Result

FX_KEY = "pkg.torch.onnx.fx_node"
SCOPES_KEY = "pkg.torch.onnx.name_scopes"
_PLACEHOLDER = re.compile(r"%([pbc])_([A-Za-z0-9_]+)")
_TARGET = re.compile(r"target=([A-Za-z0-9_.:]+)")
BATCH_NORMS = ("_native_batch_norm_legit_no_training", "batch_norm", "_native_batch_norm_legit")
FOLDED_INTO = frozenset({"Conv", "ConvTranspose", "Gemm", "MatMul"})
DATA_PRODUCTS = frozenset({"MatMul", "Gemm"})


def placeholder(name: str, kind: str = "p") -> str:
    """torch.export's placeholder for a parameter (``p``) or buffer (``b``) of this fully qualified name."""
    return f"{kind}_" + re.sub(r"[^A-Za-z0-9_]", "_", name)


@dataclass(frozen=True, slots=True)
class FxNode(Result):
    target: str
    params: tuple[str, ...]
    buffers: tuple[str, ...]

    @property
    def batch_norm(self) -> bool:
        return any(self.target.endswith(name + ".default") or self.target.endswith(name) for name in BATCH_NORMS)


def fx_node(node) -> FxNode | None:
    """The FX node the dynamo exporter wrote for ``node``, or None."""
    for prop in node.metadata_props:
        if prop.key == FX_KEY:
            text = prop.value
            target = _TARGET.search(text)
            found = _PLACEHOLDER.findall(text.split("](", 1)[-1] if "](" in text else text)
            params = tuple(dict.fromkeys(f"p_{n}" for k, n in found if k == "p"))
            buffers = tuple(dict.fromkeys(f"{k}_{n}" for k, n in found if k in "bc"))
            return FxNode(target.group(1) if target else "", params, buffers)
    return None


def module_scope(node) -> str:
    """The module a node belongs to: the dynamo exporter's name scopes, else the node name less its last part."""
    for prop in node.metadata_props:
        if prop.key == SCOPES_KEY:
            names = [p.strip().strip("'\"") for p in prop.value.strip("[]").split(",")]
            return ".".join(n for n in names[:-1] if n)
    return node.name.rsplit("/", 1)[0] if "/" in node.name else ""


@dataclass
class Provenance:
    """Decides, input by input, what an initializer the count takes as a weight stands for; keeps what it saw
    for the notes. ``kind(...)`` → ("param", key) | ("duplicate", key) | ("state", None) | ("constant", None)."""

    inits: dict
    dynamo: bool = False
    named: dict[str, int] = field(default_factory=dict)
    """placeholder of a parameter stored under its own name → its numel."""
    keys: set = field(default_factory=set)
    duplicates: int = 0
    folded_constants: dict[str, int] = field(default_factory=dict)
    folded_away: set = field(default_factory=set)
    stood_for: set = field(default_factory=set)
    buffers_as_data: dict[str, int] = field(default_factory=dict)
    batch_norms: list = field(default_factory=list)
    readers: dict = field(default_factory=lambda: defaultdict(set))
    merged: dict = field(default_factory=lambda: defaultdict(set))

    @classmethod
    def of(cls, model, inits: dict) -> Provenance:
        found = cls(inits)
        found.dynamo = any(p.key == FX_KEY for node in model.graph.node[:64] for p in node.metadata_props)
        found.named = {placeholder(name): prod(t.dims) for name, t in inits.items()}
        return found

    def read(self, node, name: str) -> None:
        """``node`` reads the weight ``name`` (for the note on tensors read by several modules)."""
        self.readers[name].add(module_scope(node))

    def kind(self, node, fx: FxNode | None, name: str, roots: list[str]) -> tuple[str, object]:
        """What the weight ``name`` read by ``node`` (whose inputs resolve to ``roots``) stands for."""
        tensor = self.inits[name]
        n = prod(tensor.dims)
        self.read(node, name)
        if not self.dynamo or fx is None:
            if node.op_type in DATA_PRODUCTS and roots and roots[0] == name and len(roots) > 1 \
                    and roots[1] in self.inits:
                self.buffers_as_data[name] = n  # table @ W: the table is data (a buffer), W the weight
                return "state", None
            return "param", name
        if fx.batch_norm and node.op_type in FOLDED_INTO:
            return "param", name  # the folded convolution's own weight and bias (``batch_norm_folded``)
        own = placeholder(name)
        if own in fx.params:
            return self._key(own, name)
        if placeholder(name, "b") in fx.buffers:
            return "state", None
        unresolved = [p for p in fx.params if p not in self.named]
        candidates = unresolved or [p for p in fx.params if self.named.get(p) == n]
        if len(candidates) == 1 and not fx.buffers:
            return self._key(candidates[0], name)
        if fx.params and not fx.buffers and len(unresolved) > 1:
            return self._key((name, fx.params), name)  # which of them it is cannot be told: once per node's set
        self.folded_constants[name] = n
        self.folded_away.update(unresolved)
        return "constant", None

    def _key(self, key, name: str) -> tuple[str, object]:
        if isinstance(key, str):
            self.stood_for.add(key)
        self.merged[name].add(key)
        if key in self.keys:
            self.duplicates += 1
            return "duplicate", key
        self.keys.add(key)
        return "param", key

    def batch_norm_folded(self, node, fx: FxNode | None) -> tuple[int, int]:
        """(parameters, running statistics) PyTorch has beyond what the file holds for a convolution with a
        BatchNorm folded into it: the scale and shift (2·C) less the bias the file holds (C) when the convolution
        had none of its own (the exporter names that bias ``<weight>_bias``); 2·C running statistics."""
        if fx is None or not fx.batch_norm or node.op_type not in FOLDED_INTO or len(node.input) < 2:
            return 0, 0
        weight = self.inits.get(node.input[1])
        if weight is None or not weight.dims:
            return 0, 0
        channels = int(weight.dims[0])
        made_bias = len(node.input) > 2 and node.input[2].endswith("_bias") and node.input[2].startswith(
            node.input[1])
        extra = channels if made_bias or len(node.input) < 3 else 2 * channels
        self.batch_norms.append((channels, extra))
        return extra, 2 * channels

    def notes(self, counted_params: dict[str, int]) -> list[str]:
        """The sentences the count carries (``counted_params``: initializer → values counted as parameters)."""
        out = []
        if self.batch_norms:
            extra = sum(e for _, e in self.batch_norms)
            out.append(f"BatchNorm folded into {len(self.batch_norms):,} convolution"
                       f"{'' if len(self.batch_norms) == 1 else 's'} by the exporter (its scale and shift are in "
                       f"their weights and biases now): counted as PyTorch counts them, +{extra:,} parameters "
                       f"(the file alone holds {extra:,} fewer) and {2 * sum(c for c, _ in self.batch_norms):,} "
                       "running statistics")
        if self.duplicates:
            out.append(f"{self.duplicates:,} stored cop{'y' if self.duplicates == 1 else 'ies'} of a parameter "
                       "(a tied weight stored again, transposed, by the exporter): counted once")
        merged = {name: keys for name, keys in self.merged.items() if len(keys) > 1}
        if merged:
            values = sum(prod(self.inits[name].dims) * (len(keys) - 1) for name, keys in merged.items())
            many = len(merged) > 1
            out.append(f"{len(merged):,} stored tensor{'s' if many else ''} stand{'' if many else 's'} "
                       f"for parameters of several modules (the exporter stores identical values once: an untrained "
                       f"model's zero biases, unit norm scales): counted once per parameter, {values:,} values more "
                       "than the file holds")
        if self.folded_constants:
            values = sum(self.folded_constants.values())
            out.append(f"{len(self.folded_constants):,} initializer{'s' if len(self.folded_constants) > 1 else ''} "
                       f"computed ahead by the exporter (constant folding: an attention mask, a table looked up at "
                       f"fixed positions; {values:,} values): constants, not parameters")
        away = sorted(p[2:] for p in self.folded_away - self.stood_for)
        if away:
            shown = ", ".join(away[:4]) + (f", … ({len(away):,} in all)" if len(away) > 4 else "")
            out.append(f"parameters folded by the exporter into such constants are not in the file and not counted: "
                       f"{shown}")
        if self.buffers_as_data:
            values = sum(self.buffers_as_data.values())
            out.append(f"{len(self.buffers_as_data):,} float initializer{'s' if len(self.buffers_as_data) > 1 else ''}"
                       f" fed as the data of a matrix product (a buffer, e.g. Swin V2's relative_coords_table; "
                       f"{values:,} values): state, not parameters")
        if not self.dynamo:
            shared = {name: scopes for name, scopes in self.readers.items()
                      if len(scopes) > 1 and name in counted_params}
            if shared:
                values = sum(counted_params[name] * (len(scopes) - 1) for name, scopes in shared.items())
                out.append(f"{len(shared):,} parameter tensor{'s are' if len(shared) > 1 else ' is'} read by layers "
                           f"of different modules and counted once: a tied weight is one parameter in PyTorch too, "
                           f"but an exporter also stores identical tensors of an untrained model once (zero biases, "
                           f"unit norm scales), which PyTorch counts per module: up to {values:,} parameters more "
                           "there")
        return out
