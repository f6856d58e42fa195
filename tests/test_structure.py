"""The layering, as tests: the engine's modules import each other without a circle (function-level and
type-checking imports included), the method packages never reach up to the scenario or the interfaces, the
engine and the views never import Streamlit, and the pages stay thin."""
from __future__ import annotations

import ast
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]
METHOD_PACKAGES = ("engine.method1", "engine.method2", "engine.llm", "engine.trends", "engine.plan")
ABOVE_THE_METHODS = ("engine.scenario", "engine.api", "engine.cli", "engine.report", "engine.share_link")
MAX_PAGE_LINES = 100


def module_name(path: Path) -> str:
    parts = path.relative_to(ROOT).with_suffix("").parts
    return ".".join(parts[:-1] if parts[-1] == "__init__" else parts)


def imported(path: Path) -> set[str]:
    """Every module named by an import anywhere in the file (functions and ``if TYPE_CHECKING`` included);
    relative imports (the engine's, ``from ..plan import x``) resolved from the file's package."""
    names = set()
    package = module_name(path).split(".")[: None if path.name == "__init__.py" else -1]
    for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
        if isinstance(node, ast.Import):
            names |= {alias.name for alias in node.names}
        elif isinstance(node, ast.ImportFrom):
            base = package[: len(package) - node.level + 1] if node.level else []
            module = ".".join(base + ([node.module] if node.module else []))
            if node.module:
                names.add(module)
            # "from . import attention" names the submodule, as "import engine.….attention as attention" does
            names |= {f"{module}.{alias.name}" for alias in node.names}
    return names


def test_relative_imports_are_resolved():
    # engine/plan/kernel/step.py's "from ..interconnects import Interconnect"
    graph = import_graph("engine")
    assert "engine.plan.interconnects" in graph["engine.plan.kernel.step"]
    assert "engine.errors" in graph["engine.api"] and "engine.scenario" in graph["engine.api"]


def import_graph(folder: str) -> dict[str, set[str]]:
    files = {module_name(p): p for p in (ROOT / folder).rglob("*.py")}
    return {name: {m for m in imported(path) if m in files and m != name} for name, path in files.items()}


def circles(graph: dict[str, set[str]]) -> list[list[str]]:
    """Strongly connected groups of more than one module (Tarjan), i.e. every import circle."""
    index, low, stack, on_stack, found = {}, {}, [], set(), []

    def visit(v: str) -> None:
        index[v] = low[v] = len(index)
        stack.append(v)
        on_stack.add(v)
        for w in graph[v]:
            if w not in index:
                visit(w)
                low[v] = min(low[v], low[w])
            elif w in on_stack:
                low[v] = min(low[v], index[w])
        if low[v] == index[v]:
            group = []
            while True:
                w = stack.pop()
                on_stack.discard(w)
                group.append(w)
                if w == v:
                    break
            if len(group) > 1:
                found.append(sorted(group))

    for v in graph:
        if v not in index:
            visit(v)
    return found


def test_the_circle_finder_finds_a_circle():
    graph = {"a": {"b"}, "b": {"c"}, "c": {"a"}, "d": {"a"}}
    assert circles(graph) == [["a", "b", "c"]]
    assert circles({"a": {"b"}, "b": set()}) == []


def test_the_engine_has_no_import_circle():
    assert circles(import_graph("engine")) == []


@pytest.mark.parametrize("package", METHOD_PACKAGES)
def test_no_method_package_imports_what_sits_above_it(package):
    graph = import_graph("engine")
    upward = {(m, dep) for m, deps in graph.items() if m == package or m.startswith(package + ".")
              for dep in deps if dep.startswith(ABOVE_THE_METHODS)}
    assert upward == set()


RECORD_FLOORS = ("engine.records", "engine.method2", "engine.trends")
"""Floors from the ground up: the parsers of published records, then method 2 (reported utilizations read Epoch
rows), then the record of runs (which recomputes method 2 per row). A floor imports only its own and those below."""


def test_the_record_floors_import_only_downward():
    graph = import_graph("engine")
    floor = {m: i for m in graph for i, package in enumerate(RECORD_FLOORS)
             if m == package or m.startswith(package + ".")}
    upward = {(m, dep) for m, deps in graph.items() if m in floor for dep in deps if floor.get(dep, -1) > floor[m]}
    assert upward == set()


@pytest.mark.parametrize("folder", ["engine", "ui/views"])
def test_no_streamlit_below_the_components(folder):
    users = sorted(module_name(p) for p in (ROOT / folder).rglob("*.py")
                   if any(m == "streamlit" or m.startswith("streamlit.") for m in imported(p)))
    assert users == []


PAGES = sorted((ROOT / "pages").glob("*.py"))


@pytest.mark.parametrize("page", PAGES, ids=lambda p: p.name)
def test_pages_are_thin_and_leave_session_state_to_the_components(page):
    text = page.read_text(encoding="utf-8")
    assert len(text.splitlines()) <= MAX_PAGE_LINES
    assert "session_state" not in text


def widget_keys(path: Path) -> set[str]:
    """String keys a module gives widgets (``key=…``) or reads and writes in ``st.session_state``, written
    out or through a module constant (``EPOCH = "…"``; ``st.session_state[EPOCH]``)."""
    tree = ast.parse(path.read_text(encoding="utf-8"))
    constants = {target.id: node.value.value for node in tree.body if isinstance(node, ast.Assign)
                 and isinstance(node.value, ast.Constant) and isinstance(node.value.value, str)
                 for target in node.targets if isinstance(target, ast.Name)}

    def literal(node) -> str | None:
        if isinstance(node, ast.Constant) and isinstance(node.value, str):
            return node.value
        return constants.get(node.id) if isinstance(node, ast.Name) else None

    keys = set()
    for node in ast.walk(tree):
        if isinstance(node, ast.keyword) and node.arg == "key":
            keys.add(literal(node.value))
        elif isinstance(node, ast.Subscript) and "session_state" in ast.unparse(node.value):
            keys.add(literal(node.slice))
        elif isinstance(node, ast.Call) and node.args and ("session_state." in ast.unparse(node.func)
                                                           or ast.unparse(node.func) in ("state.bind", "bind")):
            keys.add(literal(node.args[0]))
    return keys - {None}


def test_the_key_finder_sees_constants_and_literals(tmp_path):
    module = tmp_path / "m.py"
    module.write_text('import streamlit as st\nEPOCH = "trends_epoch_import"\n'
                      'x = st.session_state.get(EPOCH)\nst.session_state["seen"] = 1\nst.number_input("a", key="k")\n'
                      'st.number_input("b", key=state.bind("bound", 1))\n')
    assert widget_keys(module) == {"trends_epoch_import", "seen", "k", "bound"}


def test_a_session_key_belongs_to_one_module():
    # cross-page keys live in ui/state.py (its accessors); every other key is one component's own
    owners: dict[str, list[str]] = {}
    for path in sorted((ROOT / "ui").rglob("*.py")) + PAGES:
        for key in widget_keys(path):
            owners.setdefault(key, []).append(str(path.relative_to(ROOT)))
    shared = {key: paths for key, paths in owners.items() if len(paths) > 1}
    assert shared == {}
