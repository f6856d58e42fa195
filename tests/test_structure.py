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
    """Every module named by an import anywhere in the file (functions and ``if TYPE_CHECKING`` included)."""
    names = set()
    for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
        if isinstance(node, ast.Import):
            names |= {alias.name for alias in node.names}
        elif isinstance(node, ast.ImportFrom) and node.module and node.level == 0:
            names.add(node.module)
            names |= {f"{node.module}.{alias.name}" for alias in node.names}
    return names


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


@pytest.mark.parametrize("folder", ["engine", "ui/views"])
def test_no_streamlit_below_the_components(folder):
    users = sorted(module_name(p) for p in (ROOT / folder).rglob("*.py")
                   if any(m == "streamlit" or m.startswith("streamlit.") for m in imported(p)))
    assert users == []
