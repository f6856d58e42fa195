"""Which ``config.json`` keys each supported family's ``transformers`` modelling code reads — derived from
the installed transformers' source, not guessed: ``python -m tools.derive_config_keys`` writes
``engine/llm/config_keys.json`` (with the transformers version it came from, and each config class's
``attribute_map``: the other names transformers reads a key under, ``hidden_size`` for GPT-2's ``n_embd``);
``tests/llm/test_config_keys.py`` fails when the installed version differs or the file is stale.

For a ``model_type``: its ``modeling_*.py`` is parsed (``ast``) for reads of a configuration object —
``config.X``, ``self.config.X``, ``text_config.X``, ``getattr(config, "X"…)``, ``hasattr(config, "X")`` — and
the classes and functions it imports from other models' ``modeling_*.py`` are followed (their own reads, and
what they import in turn). Reads of ``PreTrainedModel`` (``modeling_utils.py``) that shape the model are
added by name (``GENERIC``). A read name is then mapped to the file keys that set it: the config class's
``attribute_map`` (``n_embd`` for ``hidden_size``) and, for an attribute the config computes in
``__post_init__`` or a property (``head_dim`` from ``hidden_size``/``num_attention_heads``), the fields that
statement reads. Each key is recorded with the first classes/functions that read it (what it would change).
A key outside a family's set cannot reach the model transformers builds from that file: it is inert.
"""
from __future__ import annotations

import ast
import importlib
import json
import sys
from pathlib import Path

OUTPUT = Path(__file__).resolve().parent.parent / "engine" / "llm" / "config_keys.json"

GENERIC = {"tie_word_embeddings": "PreTrainedModel.tie_weights"}
"""Keys read by ``PreTrainedModel`` for every family that change the built model."""

MAX_READERS = 3
"""Classes/functions named per key (the first, in source order)."""


def _is_config(node: ast.AST) -> bool:
    """An expression that denotes a configuration object: ``config``, ``text_config``, ``self.config``…"""
    if isinstance(node, ast.Name):
        return node.id.endswith("config")
    if isinstance(node, ast.Attribute):
        return node.attr.endswith("config") and not node.attr.startswith("_")
    if isinstance(node, ast.Call):  # config.get_text_config()
        return isinstance(node.func, ast.Attribute) and node.func.attr == "get_text_config"
    return False


class _Reads(ast.NodeVisitor):
    """Attribute names read from configuration objects, each with the top-level definition reading it."""

    def __init__(self):
        self.reads: dict[str, list[str]] = {}
        self.where = "<module>"

    def _add(self, name: str) -> None:
        if name.startswith("__") or name in ("get_text_config", "to_dict", "get", "update"):
            return
        self.reads.setdefault(name, [])
        if self.where not in self.reads[name]:
            self.reads[name].append(self.where)

    def visit_Attribute(self, node: ast.Attribute):
        if isinstance(node.ctx, ast.Load) and _is_config(node.value):
            self._add(node.attr)
        self.generic_visit(node)

    def visit_Call(self, node: ast.Call):
        func = node.func
        if isinstance(func, ast.Name) and func.id in ("getattr", "hasattr") and len(node.args) >= 2 \
                and _is_config(node.args[0]) and isinstance(node.args[1], ast.Constant) \
                and isinstance(node.args[1].value, str):
            self._add(node.args[1].value)
        self.generic_visit(node)


def _definitions(tree: ast.Module) -> dict[str, ast.AST]:
    return {node.name: node for node in tree.body
            if isinstance(node, (ast.ClassDef, ast.FunctionDef, ast.AsyncFunctionDef))}


def _model_imports(tree: ast.Module, package: str) -> dict[str, tuple[str, str]]:
    """name → (module, name) for ``from ..other.modeling_other import X`` (relative, within models/)."""
    out = {}
    for node in tree.body:
        # ``from ..llama.modeling_llama import …``: another model's modelling file (level 2, transformers.models)
        if isinstance(node, ast.ImportFrom) and node.level == 2 and node.module and ".modeling_" in node.module:
            module = f"{package.rsplit('.', 1)[0]}.{node.module}"
            for alias in node.names:
                out[alias.asname or alias.name] = (module, alias.name)
    return out


_PARSED: dict[str, tuple[ast.Module, str]] = {}


def _parse(module: str) -> tuple[ast.Module, str]:
    if module not in _PARSED:
        spec = importlib.util.find_spec(module)
        path = Path(spec.origin)
        _PARSED[module] = (ast.parse(path.read_text()), module.rsplit(".", 1)[0])
    return _PARSED[module]


def _names_in(node: ast.AST) -> set[str]:
    return {n.id for n in ast.walk(node) if isinstance(n, ast.Name)}


def modeling_reads(module: str) -> dict[str, list[str]]:
    """Config attributes read by ``module`` (all of it) and by what it imports from other modelling files."""
    reads: dict[str, list[str]] = {}
    seen: set[tuple[str, str]] = set()
    todo: list[tuple[str, str | None]] = [(module, None)]
    while todo:
        mod, name = todo.pop()
        if (mod, name or "*") in seen:
            continue
        seen.add((mod, name or "*"))
        tree, package = _parse(mod)
        defs = _definitions(tree)
        imports = _model_imports(tree, package)
        if name is None:
            nodes = list(defs.items())
        elif name in defs:
            nodes = [(name, defs[name])]
        else:
            nodes = []
        referenced: set[str] = set()
        for def_name, node in nodes:
            visitor = _Reads()
            visitor.where = def_name
            visitor.visit(node)
            for key, where in visitor.reads.items():
                reads.setdefault(key, [])
                reads[key] += [w for w in where if w not in reads[key]]
            referenced |= _names_in(node)
            if isinstance(node, ast.ClassDef):
                referenced |= {b.id for b in node.bases if isinstance(b, ast.Name)}
        if name is None:
            referenced |= set(imports)
        for ref in sorted(referenced):
            if ref in imports:
                todo.append(imports[ref])
            elif name is not None and ref in defs and (mod, ref) not in seen:
                todo.append((mod, ref))
    return reads


def _kwargs_keys(node: ast.AST) -> set[str]:
    """Keys taken straight from the file's extra keys: ``kwargs.get("X")`` / ``kwargs.pop("X")``."""
    return {n.args[0].value for n in ast.walk(node)
            if isinstance(n, ast.Call) and isinstance(n.func, ast.Attribute) and n.func.attr in ("get", "pop")
            and isinstance(n.func.value, ast.Name) and n.func.value.id == "kwargs" and n.args
            and isinstance(n.args[0], ast.Constant) and isinstance(n.args[0].value, str)}


def _config_dependencies(config_cls) -> tuple[dict[str, set[str]], set[str]]:
    """(attribute → the fields and file keys its ``__post_init__``/``__init__`` statement or property reads —
    ``self.X``, arguments, ``kwargs.get("X")`` directly or through a local variable, ``self.X.setdefault(…)``
    arguments; the file keys met through ``kwargs``)."""
    deps: dict[str, set[str]] = {}
    kwargs_keys: set[str] = set()
    for cls in config_cls.__mro__:
        if cls.__module__.startswith("transformers.configuration_utils") or cls is object:
            continue
        try:
            tree, _ = _parse(cls.__module__)
        except (AttributeError, TypeError):
            continue
        node = _definitions(tree).get(cls.__name__)
        if not isinstance(node, ast.ClassDef):
            continue
        for item in node.body:
            if not isinstance(item, ast.FunctionDef):
                continue
            if item.name in ("__post_init__", "__init__"):
                local: dict[str, set[str]] = {}  # n_embed = kwargs.pop("n_embed", None)
                for stmt in ast.walk(item):
                    if isinstance(stmt, ast.Assign) and len(stmt.targets) == 1 and \
                            isinstance(stmt.targets[0], ast.Name) and _kwargs_keys(stmt.value):
                        local.setdefault(stmt.targets[0].id, set()).update(_kwargs_keys(stmt.value))
                for stmt in ast.walk(item):
                    targets, value = [], None
                    if isinstance(stmt, (ast.Assign, ast.AnnAssign)):
                        targets, value = (stmt.targets if isinstance(stmt, ast.Assign) else [stmt.target]), stmt.value
                    elif isinstance(stmt, ast.Call) and isinstance(stmt.func, ast.Attribute) and \
                            isinstance(stmt.func.value, ast.Attribute):  # self.rope_parameters.setdefault(…)
                        targets, value = [stmt.func.value], stmt
                    for target in targets:
                        if isinstance(target, ast.Attribute) and isinstance(target.value, ast.Name) \
                                and target.value.id == "self" and value is not None:
                            direct = _kwargs_keys(value)
                            via_local = {k for n in ast.walk(value) if isinstance(n, ast.Name)
                                         for k in local.get(n.id, ())}
                            kwargs_keys |= direct | via_local
                            deps.setdefault(target.attr, set()).update(_self_reads(value) | direct | via_local)
            elif any(isinstance(d, ast.Name) and d.id == "property" for d in item.decorator_list):
                deps.setdefault(item.name, set()).update(_self_reads(item))
    return deps, kwargs_keys


def _self_reads(node: ast.AST | None) -> set[str]:
    """``self.X`` attributes and plain names (the function's arguments) an expression reads."""
    if node is None:
        return set()
    out = {n.attr for n in ast.walk(node) if isinstance(n, ast.Attribute) and isinstance(n.value, ast.Name)
           and n.value.id == "self"}
    out |= {n.id for n in ast.walk(node) if isinstance(n, ast.Name)} - {"self", "None", "True", "False"}
    return out


def _class_module(model_type: str) -> str:
    """The modelling module of the class transformers builds for a ``model_type`` that has no modelling file of its
    own (its causal-LM class, else its base model: ``exaone`` → ``modeling_llama``)."""
    import transformers
    from transformers.models.auto import modeling_auto

    for mapping in (modeling_auto.MODEL_FOR_CAUSAL_LM_MAPPING_NAMES, modeling_auto.MODEL_MAPPING_NAMES):
        if isinstance(mapping.get(model_type), str):
            return getattr(transformers, mapping[model_type]).__module__
    raise LookupError(f"{model_type}: no modelling module")


def family_keys(model_type: str) -> dict[str, list[str]]:
    """File key → the definitions that read it, for one ``model_type``."""
    from transformers import CONFIG_MAPPING

    config_cls = CONFIG_MAPPING[model_type]
    modeling = config_cls.__module__.replace(".configuration_", ".modeling_")
    if importlib.util.find_spec(modeling) is None:  # exaone, internlm3: a config of its own on Llama's classes
        modeling = _class_module(model_type)
    reads = modeling_reads(modeling)
    for key, where in GENERIC.items():
        reads.setdefault(key, []).append(where)
    fields = set(getattr(config_cls, "__dataclass_fields__", {})) | set(config_cls().to_dict())
    attribute_map = dict(getattr(config_cls, "attribute_map", {}) or {})
    deps, kwargs_keys = _config_dependencies(config_cls)
    keys: dict[str, list[str]] = {}

    def add(key: str, where: list[str], depth: int = 0) -> None:
        if key in keys and all(w in keys[key] for w in where):
            return
        keys.setdefault(key, [])
        keys[key] += [w for w in where if w not in keys[key]]
        if key in attribute_map:
            add(attribute_map[key], where, depth + 1)
        if depth < 4:
            for dep in sorted(deps.get(key, ())):
                if dep != key and (dep in fields or dep in attribute_map or dep in kwargs_keys):
                    add(dep, where, depth + 1)

    for key in sorted(reads):
        add(key, reads[key])
    return {k: v[:MAX_READERS] for k, v in sorted(keys.items())}


def derive(model_types) -> dict:
    import transformers

    from transformers import CONFIG_MAPPING

    return {"transformers": transformers.__version__,
            "about": "config keys each family's transformers modelling code reads (tools/derive_config_keys.py); "
                     "a key outside its family's list is inert",
            "families": {t: family_keys(t) for t in sorted(model_types)},
            "aliases": {t: dict(sorted((getattr(CONFIG_MAPPING[t], "attribute_map", {}) or {}).items()))
                        for t in sorted(model_types)},
            "model_types": sorted(CONFIG_MAPPING.keys())}


def supported_model_types() -> list[str]:
    sys.path.insert(0, str(OUTPUT.parent.parent.parent))
    from engine.llm.families import FAMILIES

    return sorted(FAMILIES)


def main() -> None:
    data = derive(supported_model_types())
    OUTPUT.write_text(json.dumps(data, indent=1, sort_keys=True) + "\n")
    print(f"{OUTPUT}: {len(data['families'])} families, transformers {data['transformers']}")


if __name__ == "__main__":
    main()
