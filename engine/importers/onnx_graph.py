"""An ONNX graph counted node by node: parameters, output shape and forward FLOP (both conventions).

Reading needs only the ``onnx`` package (protobuf parsing and its shape inference), no runtime, and never the
weights' values: a graph whose weights live in an external data file counts from the graph file alone (every
tensor's shape is in the graph). The steps:

1. ``read_onnx(data)``: the bytes parsed as a ``ModelProto`` (bounded: size, node count), weights' values
   dropped at once (only their shapes are kept).
2. ``dynamic_dims(model)``: the graph inputs' dimensions without a fixed size (batch, sequence length), by
   their symbolic names: the caller asks the user for them.
3. ``count_onnx(model, dims)``: the sizes set, the graph checked (each value written before it is read: no
   cycle), ``onnx.shape_inference`` run, then per node its cost (``engine.importers.onnx_ops``).

Parameters: each initializer once, at the first node that reads it (through Identity, Cast, Transpose,
Reshape, Squeeze and Unsqueeze of it, so a shared or transposed weight counts once). Running statistics
(BatchNormalization's mean and variance) are state, not parameters, as PyTorch's ``parameters()`` counts;
integer and boolean initializers (shapes, indices), the size/scale/exponent inputs of shape operators
(``onnx_ops.CONSTANT_INPUTS``) and one-value initializers (an exporter's scale or epsilon; PReLU's shared slope
excepted) are constants. Both are reported beside the parameters.

Rows: one per node that has parameters or does arithmetic, named by the exporter's name scope
(``/layer1/0/conv1/Conv``); the figures are for one run of the graph with the sizes given, and the scenario
made from them is one example's (``counted.per_example``: the run's figures ÷ the first input's batch). An operator the reader does not know, or whose input shapes shape inference could
not tell, is listed by name with its count of nodes in ``unknown_ops`` / ``uncounted_ops``: never a silent 0.
"""
from __future__ import annotations

from collections import Counter
from collections.abc import Mapping
from dataclasses import dataclass, field

from ..errors import InputError, quoted
from .onnx_budget import INFER_S_PER_NODE, Budget
from .onnx_checks import check_opsets, check_structure, sparse_to_dense
from .onnx_exporter import Provenance, fx_node
from .onnx_ops import COSTS, CONSTANT_INPUTS, FREE, SCALAR_WEIGHTS, STATE_INPUTS, Node, ShapeUnknown
from .onnx_tensors import strip_external
from .onnx_wire import graph_bytes
from ..method1.architecture import MAX_ELEMENTS
from ..method1.counted import MAX_COUNT, MAX_COUNTED_DIM, Counted, per_example
from ..method1.ops import prod
from ..results import Result
from ..units import format_int

MAX_ONNX_BYTES = 2_000_000_000
"""Protobuf's own limit on one message (a graph with its weights inside)."""
MAX_NODES = 200_000
"""Most nodes a graph may have (a 7B-parameter decoder exports to ~10⁴); more is refused before any is read."""
MAX_DIM = 10**9
"""Upper bound of one dimension's size given by the user (as every size in the layer kinds)."""
MAX_DYNAMIC_DIMS = 64
"""Most dynamic dimensions (distinct symbolic sizes) a graph may ask for: each is one number to give (an exported
decoder with its cache asks for 2-4). More is refused at once, in one line: not thousands of inputs."""
LISTED = 8
"""Names listed in a message before '… and N more'."""
KNOWN_DOMAINS = frozenset({"", "ai.onnx", "com.microsoft", "ai.onnx.ml"})
"""Operator domains whose operators are read by ``op_type``; any other domain's nodes are listed as unknown."""
ALIAS_OPS = frozenset({"Identity", "Cast", "Transpose", "Reshape", "Squeeze", "Unsqueeze", "Flatten"})
"""Operators that pass a weight on unchanged in its values: the weight counts at the node that uses the result."""
CONSTANT_TYPES = frozenset({5, 6, 7, 8, 9, 12, 13})
"""TensorProto types of shapes, indices and masks: int16/32/64, uint32/64, string, bool."""
SCOPE_SEP = "/"


def _onnx():
    try:
        import onnx
    except ImportError:  # a runtime requirement: only a broken install lacks it
        raise InputError("onnx", "reading ONNX graphs needs the 'onnx' package: pip install -r requirements.txt") \
            from None
    return onnx


def read_onnx(data: bytes, source: str = "model", *, max_nodes: int = MAX_NODES, budget: Budget | None = None):
    """The bytes of an ``.onnx`` file as a ``ModelProto`` whose weights keep their shapes but not their values.

    No tensor of it names a file any more (``onnx_tensors.strip_external``: a file beside the server is never
    read, whatever the graph says); sparse initializers are dense-shaped initializers (``onnx_checks.sparse_to_dense``).
    One ``InputError`` naming ``source`` for anything that is not a usable ONNX graph."""
    onnx = _onnx()
    if not isinstance(data, (bytes, bytearray, memoryview)):
        raise InputError(source, "expected the bytes of an .onnx file")
    if len(data) > MAX_ONNX_BYTES:
        raise InputError(source, f"{len(data):,} bytes: an ONNX file is at most 2 GB (larger models keep their "
                                 "weights in an external data file: give only the .onnx graph)")
    if not data:
        raise InputError(source, "the file is empty")
    model = onnx.ModelProto()
    try:  # the graph without its weights' values, its nodes counted before any is parsed
        model.ParseFromString(graph_bytes(data, max_nodes, source))
    except InputError:
        raise
    except Exception:  # google.protobuf.message.DecodeError, RuntimeWarning on some builds
        raise InputError(source, "not an ONNX model: the file could not be read as an ONNX protobuf (truncated, "
                                 "or another format)") from None
    if not model.HasField("graph") or not model.graph.node:
        raise InputError(source, "not an ONNX model: it has no graph nodes")
    budget = budget or Budget(None, source)

    def visit(nodes: int) -> None:  # subgraphs and functions included
        if nodes > max_nodes:
            raise InputError(source, f"more than {max_nodes:,} nodes (its subgraphs and functions included): at "
                                     f"most {max_nodes:,} are read")
        budget.check(0, "reading", nodes)

    outside = strip_external(model, onnx, visit)  # first: nothing below may reach for a file
    check_opsets(model)
    sparse = sparse_to_dense(model, onnx)
    for tensor in model.graph.initializer:  # (their large values were left out: ``onnx_wire``)
        if any(d < 0 for d in tensor.dims):
            raise InputError(f"initializer {quoted(tensor.name)}", f"a negative dimension in {list(tensor.dims)[:8]}: "
                                                                    "the file is damaged or was edited")
        if prod(tensor.dims) > MAX_ELEMENTS:
            raise InputError(f"initializer {quoted(tensor.name)}", f"{format_int(prod(tensor.dims))} values: more "
                                                                    f"than the {format_int(MAX_ELEMENTS)} this tool "
                                                                    "accepts (the file is damaged or was edited)")
    check_structure(model, budget)
    _mark(model, outside, sparse)
    return model


MARKS = ("flopscope.tensors_stored_outside", "flopscope.sparse_initializers")
"""What ``read_onnx`` found, kept in the model's ``metadata_props`` for ``count_onnx`` (any such entry the
file itself carried is removed first)."""


def _mark(model, outside: int, sparse: int) -> None:
    kept = [p for p in model.metadata_props if p.key not in MARKS]
    del model.metadata_props[:]
    model.metadata_props.extend(kept)
    for key, value in zip(MARKS, (outside, sparse)):
        entry = model.metadata_props.add()
        entry.key, entry.value = key, str(value)


def _marked(model, key: str) -> int:
    return next((int(p.value) for p in model.metadata_props if p.key == key), 0)


def has_external_data(model) -> bool:
    """True when the file named another file for some tensor's values (counted from their shapes all the same;
    the other file is never read)."""
    return _marked(model, MARKS[0]) > 0


@dataclass(frozen=True, slots=True)
class DynamicDim(Result):
    """A graph input's dimension without a fixed size: its symbolic name and where it first appears."""

    name: str
    input: str
    axis: int

    @property
    def where(self) -> str:
        return f"input {quoted(self.input)} axis {self.axis}"


def _graph_inputs(model):
    inits = {t.name for t in model.graph.initializer}
    return [i for i in model.graph.input if i.name not in inits]


def dynamic_dims(model) -> list[DynamicDim]:
    """The dimensions to ask for, each symbolic name once (an unnamed one is called ``input[axis]``); more than
    ``MAX_DYNAMIC_DIMS`` is one ``InputError`` (a few named, the rest counted)."""
    seen: dict[str, DynamicDim] = {}
    for value in _graph_inputs(model):
        if not value.type.HasField("tensor_type"):
            continue
        for axis, dim in enumerate(value.type.tensor_type.shape.dim):
            if dim.HasField("dim_value") and dim.dim_value > 0:
                continue
            name = dim.dim_param or f"{value.name}[{axis}]"
            seen.setdefault(name, DynamicDim(name, value.name, axis))
    if len(seen) > MAX_DYNAMIC_DIMS:
        raise InputError("dimensions", f"the graph's inputs have {len(seen):,} dynamic dimensions "
                                       f"({listed(list(seen), len(seen))}): at most {MAX_DYNAMIC_DIMS} can be given; "
                                       "export it with fixed sizes for most of them")
    return list(seen.values())


def listed(names: list[str], total: int | None = None) -> str:
    """a, b, … and 4,996 more: at most ``LISTED`` names, each cut short (a message stays one short line)."""
    total = len(names) if total is None else total
    shown = ", ".join(quoted(n)[1:-1] for n in names[:LISTED])
    return shown + (f", … and {total - LISTED:,} more" if total > LISTED else "")


@dataclass(frozen=True, slots=True)
class OnnxCount(Result):
    """An ONNX graph counted: totals for one run of the graph with ``dims``, and one row per node that has
    parameters or does arithmetic (``rows``, the ``counted`` layer kind, in graph order).

    ``state``: running statistics (not parameters); ``constants``: values of integer/boolean initializers.
    ``unknown_ops``: operators not read (op → nodes); ``uncounted_ops``: known operators whose shapes
    inference could not tell (op → nodes); ``free_nodes``: nodes that only move or select values."""

    source: str
    producer: str
    opset: int
    dims: dict[str, int]
    inputs: list[dict]
    nodes: int
    params: int
    state: int
    constants: int
    macs: int
    extra_flop: int
    rows: list[Counted] = field(default_factory=list)
    free_nodes: int = 0
    unknown_ops: dict[str, int] = field(default_factory=dict)
    uncounted_ops: dict[str, int] = field(default_factory=dict)
    external_data: bool = False
    notes: list[str] = field(default_factory=list)

    json_fields = ("source", "producer", "opset", "dims", "inputs", "nodes", "params", "state", "constants", "macs",
                   "extra_flop", "free_nodes", "unknown_ops", "uncounted_ops", "external_data", "notes")

    @property
    def forward_flop_matmul(self) -> int:
        return 2 * self.macs

    @property
    def batch(self) -> int:
        """The first graph input's first size (its batch axis), where it has more than one axis; else 1."""
        shape = list(self.inputs[0]["shape"]) if self.inputs else []
        return max(1, int(shape[0])) if len(shape) > 1 else 1

    def scenario_data(self, name: str = "", limit: int | None = None) -> dict:
        """The scenario these rows make (``engine.scenario.Scenario``'s JSON), per example
        (``counted.per_example``: each figure ÷ the batch): the rows are the layers, merged by name scope to at most
        ``limit`` where given (``merge_scopes``: the totals unchanged), the first graph input less its batch axis
        the input (shown only: counted rows do not read it)."""
        rows, _ = per_example(self.rows, self.batch)
        if limit is not None:
            rows = merge_scopes(rows, limit)
        return {"name": (name or self.source)[:200], "input": {"shape": _example_shape(self.inputs)},
                "layers": [row.model_dump(exclude_defaults=True) for row in rows]}


def _example_shape(inputs: list[dict]) -> list[int]:
    shape = list(inputs[0]["shape"]) if inputs else [1]
    if len(shape) > 1:
        shape = shape[1:]  # the batch axis
    shape = [max(1, min(int(d), MAX_DIM)) for d in shape] or [1]
    if len(shape) > 4:
        shape = [min(prod(shape), MAX_DIM)]
    return shape


def _scope_name(name: str) -> str:
    """TorchScript's ``/layer1/layer1.0/conv1/Conv`` read as ``/layer1/0/conv1/Conv`` (a part that repeats its
    parent's dotted path keeps only the new part; a dotted part is split, ``h.0`` → ``h/0``, as ``count`` names
    modules); at most 200 characters (the end kept)."""
    parts = name.split(SCOPE_SEP)
    out, parent = [], ""
    for i, part in enumerate(parts):
        short = part[len(parent) + 1:] if parent and part.startswith(parent + ".") else part
        out.append(short.replace(".", SCOPE_SEP) if i < len(parts) - 1 else short)  # h.0 → h/0
        if part:
            parent = part
    text = SCOPE_SEP.join(out)
    return text if len(text) <= 200 else "…" + text[-199:]


def _dynamo_scope(node) -> str | None:
    """The dynamo exporter keeps the module path in metadata (``pkg.torch.onnx.name_scopes``)."""
    for prop in node.metadata_props:
        if prop.key == "pkg.torch.onnx.name_scopes":
            text = prop.value.strip("[]")
            names = [p.strip().strip("'\"") for p in text.split(",")]
            names = [n for n in names if n]
            return _scope_name(SCOPE_SEP + SCOPE_SEP.join(names)) if names else None
    return None


def _attrs(node, onnx) -> dict:
    out = {}
    A = onnx.AttributeProto
    for attr in node.attribute:
        if attr.type == A.INT:
            out[attr.name] = attr.i
        elif attr.type == A.FLOAT:
            out[attr.name] = attr.f
        elif attr.type == A.STRING:
            out[attr.name] = attr.s.decode(errors="replace")
        elif attr.type == A.INTS:
            out[attr.name] = list(attr.ints)
        elif attr.type == A.FLOATS:
            out[attr.name] = list(attr.floats)
    return out


def _check_dims(model, dims: Mapping[str, int]) -> dict[str, int]:
    wanted = dynamic_dims(model)
    clean: dict[str, int] = {}
    for name, value in dims.items():
        if isinstance(value, bool) or not isinstance(value, int) or not 1 <= value <= MAX_DIM:
            raise InputError(f"dimension {quoted(name)}", f"must be a whole number from 1 to {MAX_DIM:,}")
        clean[str(name)] = value
    known = {d.name for d in wanted}
    extra = [n for n in clean if n not in known]
    if extra:
        has = listed([d.name for d in wanted]) or "none"
        raise InputError(f"dimension {quoted(extra[0])}", f"the graph has no such dynamic dimension (it has: {has})")
    missing = [d for d in wanted if d.name not in clean]
    if missing:
        shown = ", ".join(f"{quoted(d.name)[1:-1]} ({d.where})" for d in missing[:LISTED])
        more = f", … and {len(missing) - LISTED:,} more" if len(missing) > LISTED else ""
        raise InputError("dimensions", f"give a size for each dynamic dimension: {shown}{more}")
    return clean


def _set_dims(model, dims: Mapping[str, int]) -> list[dict]:
    inputs = []
    for value in _graph_inputs(model):
        if not value.type.HasField("tensor_type"):
            continue
        shape = []
        for axis, dim in enumerate(value.type.tensor_type.shape.dim):
            if not (dim.HasField("dim_value") and dim.dim_value > 0):
                size = dims[dim.dim_param or f"{value.name}[{axis}]"]
                dim.Clear()
                dim.dim_value = size
            if dim.dim_value > MAX_DIM:
                raise InputError(f"input {quoted(value.name)}", f"axis {axis} has {dim.dim_value:,} values: at most "
                                                                f"{MAX_DIM:,}")
            shape.append(dim.dim_value)
        if prod(shape) > MAX_ELEMENTS:
            raise InputError(f"input {quoted(value.name)}", f"{format_int(prod(shape))} values: more than the "
                                                            f"{format_int(MAX_ELEMENTS)} this tool accepts")
        inputs.append({"name": value.name[:200], "shape": shape})
    return inputs


def _check_order(model) -> None:
    """Every value a node reads is a graph input, an initializer, or written by an earlier node: no cycle."""
    known = {i.name for i in model.graph.input} | {t.name for t in model.graph.initializer} | {""}
    for n, node in enumerate(model.graph.node):
        for name in node.input:
            if name not in known:
                raise InputError(f"node {quoted(node.name or n)}", f"{node.op_type} reads {quoted(name)} before any "
                                                                   "node writes it: the graph has a cycle or is not in "
                                                                   "order")
        known.update(node.output)


def _shapes(model) -> dict[str, tuple[int, ...] | None]:
    out: dict[str, tuple[int, ...] | None] = {}
    graph = model.graph
    for value in list(graph.input) + list(graph.value_info) + list(graph.output):
        t = value.type
        if not t.HasField("tensor_type") or not t.tensor_type.HasField("shape"):
            continue
        dims = t.tensor_type.shape.dim
        if all(d.HasField("dim_value") and d.dim_value >= 0 for d in dims):
            out[value.name] = tuple(d.dim_value for d in dims)
    for tensor in graph.initializer:
        out[tensor.name] = tuple(tensor.dims)
    return out


def _infer(model, onnx, notes: list[str], budget: Budget) -> dict:
    """Every value's shape with the sizes given: the whole graph's shape inference, then node by node with the
    graph's shape arithmetic evaluated (``onnx_values``), which reaches what the first could not."""
    from .onnx_values import shapes_node_by_node

    del model.graph.value_info[:]  # the exporter's symbolic shapes: inferred again from the sizes given
    for value in model.graph.output:
        if value.type.HasField("tensor_type"):
            value.type.tensor_type.ClearField("shape")
    budget.ahead(INFER_S_PER_NODE * len(model.graph.node), "shape inference", len(model.graph.node))
    try:
        # no data propagation: onnx's materialises every value it propagates, whatever its size (a Range of 10⁷
        # positions cast to float took 1.4 GB and 1.7 s); the node-by-node pass below evaluates the same shape
        # arithmetic within its 4,096-value limit
        shapes = _shapes(onnx.shape_inference.infer_shapes(model, check_type=False, strict_mode=False,
                                                           data_prop=False))
    except Exception as exc:  # onnx raises InferenceError, or RuntimeError/ValueError from its C++ side
        notes.append(f"whole-graph shape inference stopped ({type(exc).__name__}); shapes from node-by-node "
                     "inference only")
        shapes = _shapes(model)
    written = [name for node in model.graph.node for name in node.output if name]
    if all(name in shapes for name in written):
        return shapes  # every value's shape is known: nothing left for the node-by-node pass
    shapes.update(shapes_node_by_node(model, onnx, budget))
    return shapes


def count_onnx(model, dims: Mapping[str, int] | None = None, source: str = "model",
               budget: Budget | None = None) -> OnnxCount:
    """Count a graph read by ``read_onnx``, with a size for each of ``dynamic_dims(model)``; within ``budget``
    where given (``onnx_budget``: one ``InputError`` past it)."""
    onnx = _onnx()
    budget = budget or Budget(None, source)
    clean = _check_dims(model, dims or {})
    inputs = _set_dims(model, clean)
    _check_order(model)
    notes: list[str] = []
    external = has_external_data(model)
    if external:
        n = _marked(model, MARKS[0])
        notes.append(f"{n:,} tensor{'' if n == 1 else 's'} of the file keep{'s' if n == 1 else ''} "
                     f"{'its' if n == 1 else 'their'} values in another file (external data): counted from the shapes in the graph; that file was not read")
    if sparse := _marked(model, MARKS[1]):
        notes.append(f"{sparse:,} sparse initializer{'' if sparse == 1 else 's'}: counted at {'its' if sparse == 1 else 'their'} dense size")
    shapes = _infer(model, onnx, notes, budget)
    for name, shape in shapes.items():
        if shape is not None and prod(shape) > MAX_ELEMENTS:
            raise InputError(f"value {quoted(name)}", f"{format_int(prod(shape))} values: more than the "
                                                      f"{format_int(MAX_ELEMENTS)} this tool accepts (check the "
                                                      "dimensions given)")
    inits = {t.name: t for t in model.graph.initializer}
    provenance = Provenance.of(model, inits)
    counted_params: dict[str, int] = {}
    alias: dict[str, str] = {}
    seen: set[str] = set()
    rows: list[Counted] = []
    unknown: Counter = Counter()
    uncounted: Counter = Counter()
    free = params = state = constants = macs = extra = 0
    total = len(model.graph.node)
    for done, node in enumerate(model.graph.node):
        budget.check(done, "the count", total)
        op, domain = node.op_type, node.domain
        label = op if domain in ("", "ai.onnx") else f"{domain}.{op}"
        roots = [alias.get(name, name) for name in node.input]
        if op in ALIAS_OPS and roots and roots[0] in inits and domain in ("", "ai.onnx"):
            alias[node.output[0]] = roots[0]
            for name in roots[1:]:  # a Reshape's shape: a constant
                if name in inits and name not in seen:
                    seen.add(name)
                    constants += prod(inits[name].dims)
            continue
        node_params = 0
        fx = fx_node(node) if provenance.dynamo else None
        for i, name in enumerate(roots):
            tensor = inits.get(name)
            if tensor is None:
                continue
            n = prod(tensor.dims)
            if i in STATE_INPUTS.get(op, ()) or (tensor.data_type in CONSTANT_TYPES or i in CONSTANT_INPUTS.get(op, ())
                                                 or (n <= 1 and i not in SCALAR_WEIGHTS.get(op, ()))):
                if name not in seen:
                    seen.add(name)
                    if i in STATE_INPUTS.get(op, ()):
                        state += n
                    else:
                        constants += n
                continue
            if name in seen and not provenance.dynamo:
                provenance.read(node, name)  # counted once; who else reads it goes into the notes
                continue
            kind, _ = provenance.kind(node, fx, name, roots)
            if kind == "param":
                node_params += n
                counted_params[name] = n
            elif name not in seen:
                state += n if kind == "state" else 0
                constants += n if kind == "constant" else 0
            seen.add(name)
        folded_params, folded_state = provenance.batch_norm_folded(node, fx)
        node_params += folded_params
        state += folded_state
        node_macs = node_extra = 0
        cost = COSTS.get(op) if domain in KNOWN_DOMAINS else None
        if cost is None:
            if op in FREE and domain in KNOWN_DOMAINS:
                free += 1
            else:
                unknown[label] += 1
        else:
            present = [bool(name) for name in node.input]
            node_in = [shapes.get(name) if name else None for name in node.input]
            node_out = [shapes.get(name) for name in node.output]
            try:
                node_macs, node_extra = cost(Node(op, node_in, node_out, _attrs(node, onnx), present))
            except (ShapeUnknown, ValueError, TypeError, ZeroDivisionError, IndexError):
                uncounted[label] += 1
                node_macs = node_extra = 0
        if node_macs > MAX_COUNT or node_extra > MAX_COUNT:
            raise InputError(f"node {quoted(node.name or op)}", "more than 10²⁴ operations in one node: check the "
                                                                "dimensions given")
        if node_params or node_macs or node_extra:
            out_shape = shapes.get(node.output[0]) if node.output else None
            name = _dynamo_scope(node)
            name = f"{name}{SCOPE_SEP}{op}" if name else _scope_name(node.name or label)
            rows.append(Counted(name=name[-200:], op=label[:200], params=node_params, macs=node_macs,
                                extra_flop=node_extra,
                                output_shape=[min(d, MAX_COUNTED_DIM) for d in out_shape or ()][:12]))
        params += node_params
        macs += node_macs
        extra += node_extra
    notes += provenance.notes(counted_params)
    aliased = set(alias.values())  # once: rebuilt per initializer it made 30,000 Identity nodes take 33 s
    unused = [n for n in inits if n not in seen and n not in aliased]
    if unused:
        notes.append(f"{len(unused):,} initializers no node reads: not counted")
    opset = next((o.version for o in model.opset_import if o.domain in ("", "ai.onnx")), 0)
    producer = " ".join(p for p in (model.producer_name, model.producer_version) if p)[:200]
    counted = OnnxCount(source=source[:200], producer=producer, opset=opset, dims=clean, inputs=inputs,
                        nodes=len(model.graph.node), params=params, state=state, constants=constants, macs=macs,
                        extra_flop=extra, rows=rows, free_nodes=free, unknown_ops=dict(unknown.most_common()),
                        uncounted_ops=dict(uncounted.most_common()), external_data=external, notes=notes)
    if (note := per_example(rows, counted.batch)[1]) is not None:
        notes.append(note)
    return counted


def merge_scopes(rows: list[Counted], limit: int) -> list[Counted]:
    """At most ``limit`` rows: consecutive rows of the same name scope merged into one (their sums; ``op`` the
    operators joined), from the deepest scope up, until the rows fit. Totals are unchanged."""
    if len(rows) <= limit:
        return rows
    depth = max((r.name.count(SCOPE_SEP) for r in rows), default=1)
    merged = rows
    while depth >= 0 and len(merged) > limit:
        groups: list[list[Counted]] = []
        for row in rows:
            scope = SCOPE_SEP.join(row.name.split(SCOPE_SEP)[:depth + 1]) if depth else SCOPE_SEP
            if groups and groups[-1][0] == scope:
                groups[-1][1].append(row)
            else:
                groups.append([scope, [row]])
        merged = [members[0] if len(members) == 1 else _merged(scope, members) for scope, members in groups]
        depth -= 1
    return merged


def _merged(scope: str, members: list[Counted]) -> Counted:
    ops = "+".join(dict.fromkeys(m.op for m in members))
    backward = [m.backward_macs for m in members]
    return Counted(name=(scope or SCOPE_SEP)[-200:], op=ops[:200], params=sum(m.params for m in members),
                   macs=sum(m.macs for m in members), extra_flop=sum(m.extra_flop for m in members),
                   output_shape=members[-1].output_shape,
                   backward_macs=None if None in backward else sum(backward),
                   trainable_params=None if all(m.trainable_params is None for m in members) else
                   sum(m.params if m.trainable_params is None else m.trainable_params for m in members))
