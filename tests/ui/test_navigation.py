"""The one list of pages (``ui/navigation.py``): every file in ``pages/`` is on it and every entry has its file,
and no other module writes the pages out again (the navigation, the browser checks, the page-run tests and the
benchmarks all read it)."""
from __future__ import annotations

import ast

from tests.conftest import ROOT
from ui.navigation import PAGE_NAMES, PAGES

PAGE_FILES = sorted(p.stem for p in (ROOT / "pages").glob("*.py"))


def test_every_page_file_is_listed_and_every_entry_has_its_file():
    assert sorted(PAGE_NAMES) == PAGE_FILES
    assert len(set(PAGE_NAMES)) == len(PAGE_NAMES)
    assert [p.name for p in PAGES if p.default] == ["layer_builder"]
    assert {p.url_path for p in PAGES} == {""} | set(PAGE_FILES) - {"layer_builder"}


def page_lists(path) -> list[int]:
    """Lines where ``path`` writes the pages out (all of them, or all but one: a list that forgot one) as a list,
    tuple, set or dict keys. A few pages named for what they share (those with a log axis) are not a page list."""
    found = []
    for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
        items = node.keys if isinstance(node, ast.Dict) else getattr(node, "elts", None) \
            if isinstance(node, (ast.List, ast.Tuple, ast.Set)) else None
        names = {n.value for n in items or () if isinstance(n, ast.Constant) and isinstance(n.value, str)}
        names |= {n.value.removeprefix("pages/").removesuffix(".py") for n in items or ()
                  if isinstance(n, ast.Constant) and isinstance(n.value, str)}
        if len(names & set(PAGE_FILES)) >= len(PAGE_FILES) - 1:  # every page, or all but one
            found.append(node.lineno)
    return found


def test_the_page_finder_sees_a_written_list(tmp_path):
    # all pages but one as names (line 1), every page as files keying a dict (line 2), all but two (line 3: not a list)
    module = tmp_path / "m.py"
    module.write_text(f"A = {tuple(PAGE_FILES[:-1])!r}\n"
                      f"B = {dict.fromkeys(f'pages/{n}.py' for n in PAGE_FILES)!r}\n"
                      f"C = {tuple(PAGE_FILES[:-2])!r}\n")
    assert page_lists(module) == [1, 2]


def test_no_module_writes_the_pages_out_again():
    sources = [ROOT / "app.py", *sorted((ROOT / "ui").rglob("*.py")), *sorted((ROOT / "bench").rglob("*.py")),
               *sorted((ROOT / "tests").rglob("*.py"))]
    written = {str(p.relative_to(ROOT)): lines for p in sources
               if p != ROOT / "ui" / "navigation.py" and p != ROOT / "tests" / "ui" / "test_navigation.py"
               and (lines := page_lists(p))}
    assert written == {}, "derive these from ui.navigation.PAGES"


def test_the_navigation_is_built_from_the_list():
    app = (ROOT / "app.py").read_text(encoding="utf-8")
    assert "pages/" not in app.split('"""', 2)[2] and "for p in PAGES" in app
