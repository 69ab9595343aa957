"""The layers hold: no module imports a higher layer, and no modules import each other in a circle.

The layer order is written once, in the ``layers`` block of DESIGN.md at the repository's
root; this test reads that block and every module under ``exactdp/`` with ``ast`` (no
module is imported). An import is any ``import``/``from ... import`` statement, at module
level or inside a function or class (``TYPE_CHECKING`` blocks too); any string passed to
``importlib.import_module``/``__import__``; and any other string constant that names a
module of the package exactly (lazy-export tables, lists of suites loaded by name). A string
naming a *package* counts only in an import call: ``"exactdp"`` or ``"exactdp.audits"``
elsewhere is a label (a program name, an entry-point group). A module that does not exist
counts as its nearest existing package (importing it would run that package first). A lazy
package's ``__init__.pyi`` (the table of its names, read by the loader) counts as part of its
``__init__.py``.

A ``"module:attribute"`` string (a reference resolved when it is chosen, as the mechanism
specs in ``exactdp/mechanisms/specs.py`` hold) is an edge for the layer rule but not for the
circle rule: nothing is imported when the module loads, and a table that names the code of
each mechanism is read by that same code.
"""

from __future__ import annotations

import ast
import re
from dataclasses import dataclass
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parent.parent
PACKAGE = ROOT / "exactdp"
DESIGN = ROOT / "DESIGN.md"

# Import circles tolerated for now: none. An entry names one strongly connected component
# of the import graph (a component inside an entry passes); an entry that no longer holds a
# circle fails the test, so the set cannot outlive its reason. (It held the engine's circles
# while exactdp/engine/ was being split out of exactdp/checkers/, issue 19.)
PENDING_ENGINE_CYCLES: frozenset[frozenset[str]] = frozenset()


@dataclass(frozen=True)
class Layer:
    number: int
    name: str


@dataclass(frozen=True)
class Import:
    source: str  # module name
    target: str  # module name
    line: int
    reference: bool = False  # a "module:attribute" string, resolved when chosen


def read_layers(design_text: str) -> dict[str, Layer]:
    """``{path pattern: layer}`` from the fenced ``layers`` block of DESIGN.md.

    A line is ``<number> <name> <pattern> <pattern> ...``; a pattern ``name/`` is a
    package (everything under it), ``name.py`` one module, both relative to ``exactdp/``."""
    blocks = re.findall(r"^```layers\n(.*?)^```", design_text, flags=re.M | re.S)
    if len(blocks) != 1:
        raise AssertionError(f"DESIGN.md must hold exactly one ```layers block, found {len(blocks)}")
    patterns: dict[str, Layer] = {}
    numbers = []
    for row in blocks[0].splitlines():
        if not row.strip():
            continue
        number, name, *paths = row.split()
        layer = Layer(int(number), name)
        numbers.append(layer.number)
        for path in paths:
            if path in patterns:
                raise AssertionError(f"DESIGN.md layers: {path!r} is listed twice")
            patterns[path] = layer
    if numbers != list(range(1, len(numbers) + 1)):
        raise AssertionError(f"DESIGN.md layers must be numbered 1, 2, ... bottom to top, got {numbers}")
    return patterns


def module_files(package: Path) -> dict[str, Path]:
    """``{dotted module name: file}`` for every ``.py`` file under ``package``."""
    found = {}
    for path in sorted(package.rglob("*.py")):
        parts = list(path.relative_to(package.parent).with_suffix("").parts)
        if parts[-1] == "__init__":
            parts.pop()
        found[".".join(parts)] = path
    return found


def layer_of(path: Path, package: Path, patterns: dict[str, Layer]) -> tuple[str, Layer] | None:
    """The pattern that places ``path`` and its layer (the longest matching pattern)."""
    relative = path.relative_to(package).as_posix()
    best = None
    for pattern, layer in patterns.items():
        matches = relative.startswith(pattern) if pattern.endswith("/") else relative == pattern
        if matches and (best is None or len(pattern) > len(best[0])):
            best = (pattern, layer)
    return best


def _resolve(name: str, modules: dict[str, Path]) -> str | None:
    """The module ``name`` denotes: itself, or its longest prefix that is a module."""
    parts = name.split(".")
    while parts:
        candidate = ".".join(parts)
        if candidate in modules:
            return candidate
        parts.pop()
    return None


def _is_import_call(func: ast.expr) -> bool:
    """``import_module(...)``, ``importlib.import_module(...)`` or ``__import__(...)``."""
    name = func.attr if isinstance(func, ast.Attribute) else getattr(func, "id", None)
    return name in ("import_module", "__import__")


def imports_of(module: str, path: Path, modules: dict[str, Path]) -> list[Import]:
    """Every import of a module of the package that ``module`` makes, anywhere in its file."""
    top = next(iter(modules)).split(".")[0]
    is_package = path.name == "__init__.py"
    here = module.split(".") if is_package else module.split(".")[:-1]
    found = []

    def add(name: str, line: int, reference: bool = False) -> None:
        target = _resolve(name, modules)
        if target is not None and target != module and Import(module, target, line, reference) not in found:
            found.append(Import(module, target, line, reference))

    text = path.read_text(encoding="utf-8")
    tree = ast.parse(text, filename=str(path))
    stub = path.with_suffix(".pyi")
    if is_package and stub.exists():  # a lazy package's names: the stub the loader reads
        tree.body.extend(ast.parse(stub.read_text(encoding="utf-8"), filename=str(stub)).body)
    for node in _statements(tree):
        if isinstance(node, ast.Import):
            for alias in node.names:
                if alias.name.split(".")[0] == top:
                    add(alias.name, node.lineno)
        elif isinstance(node, ast.ImportFrom):
            if node.level:
                base = here[: len(here) - (node.level - 1)]
                origin = ".".join(base + ([node.module] if node.module else []))
            else:
                origin = node.module or ""
            if origin.split(".")[0] != top:
                continue
            for alias in node.names:
                submodule = f"{origin}.{alias.name}"
                add(submodule if submodule in modules else origin, node.lineno)
    if not re.search(rf"""['"]{top}\.|import_module|__import__""", text):
        return found  # no string can name a module here: skip the walk over every expression
    for node in ast.walk(tree):
        if isinstance(node, ast.Call) and _is_import_call(node.func):
            for arg in node.args[:1]:
                if isinstance(arg, ast.Constant) and isinstance(arg.value, str):
                    add(arg.value, node.lineno)
        elif (isinstance(node, ast.Constant) and isinstance(node.value, str)
              and node.value in modules and modules[node.value].name != "__init__.py"):
            add(node.value, node.lineno)  # names a module (a package's name may be a label)
        elif (isinstance(node, ast.Constant) and isinstance(node.value, str)
              and re.fullmatch(rf"{top}(\.\w+)+:\w+", node.value)
              and node.value.partition(":")[0] in modules):
            add(node.value.partition(":")[0], node.lineno, reference=True)  # "module:attribute"
    return found


def _statements(tree: ast.Module):
    """Every statement, nested ones too (in functions, classes, ``if``, ``try``, ``with``,
    ``match``): where an ``import`` can stand. Expressions are not visited (cheaper than
    ``ast.walk``)."""
    stack: list[ast.AST] = list(reversed(tree.body))
    while stack:
        node = stack.pop()
        yield node
        for name in ("body", "orelse", "finalbody", "handlers", "cases"):
            children = getattr(node, name, None)
            if isinstance(children, list):
                stack.extend(reversed(children))


def circles(edges: dict[str, set[str]]) -> list[frozenset[str]]:
    """The strongly connected components of more than one module (Tarjan, iterative)."""
    index: dict[str, int] = {}
    low: dict[str, int] = {}
    stack: list[str] = []
    on_stack: set[str] = set()
    components = []
    for start in sorted(edges):
        if start in index:
            continue
        work = [(start, iter(sorted(edges[start])))]
        index[start] = low[start] = len(index)
        stack.append(start)
        on_stack.add(start)
        while work:
            node, children = work[-1]
            for child in children:
                if child not in index:
                    index[child] = low[child] = len(index)
                    stack.append(child)
                    on_stack.add(child)
                    work.append((child, iter(sorted(edges.get(child, ())))))
                    break
                if child in on_stack:
                    low[node] = min(low[node], index[child])
            else:
                work.pop()
                if work:
                    low[work[-1][0]] = min(low[work[-1][0]], low[node])
                if low[node] == index[node]:
                    component = set()
                    while True:
                        member = stack.pop()
                        on_stack.discard(member)
                        component.add(member)
                        if member == node:
                            break
                    if len(component) > 1:
                        components.append(frozenset(component))
    return components


@dataclass(repr=False)
class Graph:
    modules: dict[str, Path]
    layers: dict[str, tuple[str, Layer] | None]
    imports: list[Import]

    def __repr__(self) -> str:  # short: pytest shows the fixture when a test fails
        return f"<import graph: {len(self.modules)} modules, {len(self.imports)} imports>"


def build_graph(package: Path, design_text: str) -> Graph:
    patterns = read_layers(design_text)
    modules = module_files(package)
    layers = {name: layer_of(path, package, patterns) for name, path in modules.items()}
    imports = [found for name, path in modules.items() for found in imports_of(name, path, modules)]
    return Graph(modules, layers, imports)


def upward_imports(graph: Graph, package: Path) -> list[str]:
    problems = []
    for found in graph.imports:
        low, high = graph.layers[found.source], graph.layers[found.target]
        if low is None or high is None or high[1].number <= low[1].number:
            continue
        where = graph.modules[found.source].relative_to(package.parent).as_posix()
        problems.append(
            f"{where}:{found.line} imports {found.target}: layer {low[1].number} ({low[1].name}) "
            f"imports layer {high[1].number} ({high[1].name}), which is above it")
    return problems


def circle_problems(graph: Graph, package: Path, pending: frozenset[frozenset[str]]) -> list[str]:
    edges: dict[str, set[str]] = {name: set() for name in graph.modules}
    for found in graph.imports:
        if not found.reference:
            edges[found.source].add(found.target)
    found_circles = circles(edges)
    problems = []
    for component in found_circles:
        if any(component <= entry for entry in pending):
            continue
        problems.append(f"import circle among {sorted(component)}, for example: "
                        + " -> ".join(_one_circle(graph, package, component)))
    for entry in pending:
        if not any(component & entry for component in found_circles):
            problems.append(
                f"PENDING_ENGINE_CYCLES lists {sorted(entry)}, which no longer holds a circle: remove the entry")
    return problems


def _one_circle(graph: Graph, package: Path, component: frozenset[str]) -> list[str]:
    """A shortest circle through the first module of ``component``, each step ``file:line``."""
    first: dict[tuple[str, str], Import] = {}
    for found in sorted(graph.imports, key=lambda i: i.line):
        if found.source in component and found.target in component:
            first.setdefault((found.source, found.target), found)
    start = min(component)
    came_from: dict[str, Import] = {}
    frontier = [start]
    while start not in came_from:
        following = []
        for node in frontier:
            for (source, target), found in sorted(first.items()):
                if source == node and target not in came_from:
                    came_from[target] = found
                    following.append(target)
        frontier = following
    steps, node = [], start
    while True:
        found = came_from[node]
        steps.append(found)
        node = found.source
        if node == start:
            break
    where = [f"{graph.modules[i.source].relative_to(package.parent).as_posix()}:{i.line}" for i in reversed(steps)]
    return where + [start]


@pytest.fixture(scope="module")
def graph() -> Graph:
    return build_graph(PACKAGE, DESIGN.read_text(encoding="utf-8"))


def test_every_module_has_exactly_one_layer(graph):
    unplaced = sorted(graph.modules[name].relative_to(PACKAGE).as_posix()
                      for name, placed in graph.layers.items() if placed is None)
    assert unplaced == [], f"modules with no layer in DESIGN.md's layers block: {unplaced}"
    patterns = read_layers(DESIGN.read_text(encoding="utf-8"))
    used = {placed[0] for placed in graph.layers.values()}
    stale = sorted(pattern for pattern in patterns if pattern not in used)
    assert stale == [], f"DESIGN.md's layers block lists paths that match no module: {stale}"


def test_no_lower_layer_imports_a_higher_one(graph):
    problems = upward_imports(graph, PACKAGE)
    assert problems == [], "upward imports:\n" + "\n".join(problems)


def test_no_import_circles(graph):
    problems = circle_problems(graph, PACKAGE, PENDING_ENGINE_CYCLES)
    assert problems == [], "\n".join(problems)


# The checker itself, on a small package written for the test.

_DESIGN_SAMPLE = """\
```layers
1 low    low.py base/
2 high   high.py __init__.py
```
"""


@pytest.fixture
def sample(tmp_path):
    package = tmp_path / "pkg"
    (package / "base").mkdir(parents=True)
    (package / "__init__.py").write_text("")
    (package / "base" / "__init__.py").write_text("")
    (package / "high.py").write_text("from pkg import low\n")

    def build(low_source: str, base_source: str = "") -> Graph:
        (package / "low.py").write_text(low_source)
        (package / "base" / "a.py").write_text(base_source)
        return build_graph(package, _DESIGN_SAMPLE)

    return package, build


@pytest.mark.parametrize("source, line", [
    ("import pkg.high\n", 1),
    ("def f():\n    from pkg import high\n", 2),
    ("def f():\n    from .high import thing\n", 2),
    ("import importlib\n\ndef f():\n    return importlib.import_module('pkg.high')\n", 4),
    ("from typing import TYPE_CHECKING\nif TYPE_CHECKING:\n    from pkg.high import X\n", 3),
    ("SUITES = {'x': 'pkg.high'}\n", 1),
    ("SPECS = ('x', 'pkg.high:build')\n", 1),
    ("try:\n    pass\nexcept ImportError:\n    import pkg.high\n", 4),
    ("class C:\n    def f(self):\n        with open('x'):\n            from pkg import high\n", 4),
])
def test_an_upward_import_is_named_with_its_line_and_layers(sample, source, line):
    package, build = sample
    problems = upward_imports(build(source), package)
    assert problems == [
        f"pkg/low.py:{line} imports pkg.high: layer 1 (low) imports layer 2 (high), which is above it"]


def test_a_package_named_in_a_string_is_an_import_only_when_imported(sample):
    package, build = sample  # pkg/__init__.py is in the high layer
    assert upward_imports(build("GROUP = 'pkg'\nNAME = 'pkg'\n"), package) == []
    assert upward_imports(build("import importlib\nimportlib.import_module('pkg')\n"), package) == [
        "pkg/low.py:2 imports pkg: layer 1 (low) imports layer 2 (high), which is above it"]


def test_relative_imports_resolve_from_the_package(sample):
    package, build = sample
    graph = build("", base_source="from .. import high\nfrom . import a\n")
    assert upward_imports(graph, package) == [
        "pkg/base/a.py:1 imports pkg.high: layer 1 (low) imports layer 2 (high), which is above it"]


def test_a_circle_inside_one_layer_is_found_and_a_pending_entry_excuses_only_itself(sample):
    package, build = sample
    graph = build("def f():\n    import pkg.base.a\n", base_source="from pkg.low import x\n")
    assert upward_imports(graph, package) == []
    problems = circle_problems(graph, package, frozenset())
    assert problems == ["import circle among ['pkg.base.a', 'pkg.low'], for example: "
                        "pkg/base/a.py:1 -> pkg/low.py:2 -> pkg.base.a"]
    assert circle_problems(graph, package, frozenset({frozenset({"pkg.low", "pkg.base.a"})})) == []
    graph = build("")
    assert circle_problems(graph, package, frozenset({frozenset({"pkg.low", "pkg.base.a"})})) == [
        "PENDING_ENGINE_CYCLES lists ['pkg.base.a', 'pkg.low'], which no longer holds a circle: remove the entry"]


def test_a_module_attribute_reference_is_no_circle(sample):
    package, build = sample  # a table naming the code that reads it: resolved when chosen
    graph = build("def f():\n    import pkg.base.a\n", base_source="BUILD = 'pkg.low:f'\n")
    assert [(i.source, i.target, i.reference) for i in graph.imports if i.source == "pkg.base.a"] == [
        ("pkg.base.a", "pkg.low", True)]
    assert circle_problems(graph, package, frozenset()) == []


def test_design_block_is_read_once_and_checked():
    with pytest.raises(AssertionError, match="exactly one"):
        read_layers("no block here")
    with pytest.raises(AssertionError, match="listed twice"):
        read_layers("```layers\n1 a x.py\n2 b x.py\n```\n")
    with pytest.raises(AssertionError, match="numbered"):
        read_layers("```layers\n2 a x.py\n```\n")


# Imports stand at the top of a module. One inside a function (of an exactdp module) says why on
# its line: "# lazy: <reason>", the reason naming a heavy dependency it spares the module's load or
# an optional one; and there are few of them (issue 26: at most 40).

LAZY_REASONS = ("SymPy", "NumPy", "mpmath", "Dask", "Hypothesis", "matplotlib", "FLINT", "optional",
                "the audited library")
MOST_LAZY_IMPORTS = 40


def function_level_imports(package: Path) -> list[tuple[str, int, str]]:
    """``(file, line, text)`` of every import of a module of the package inside a function."""
    top = package.name
    found = []
    for path in sorted(package.rglob("*.py")):
        text = path.read_text(encoding="utf-8")
        lines = text.splitlines()
        for fn in ast.walk(ast.parse(text)):
            if not isinstance(fn, (ast.FunctionDef, ast.AsyncFunctionDef)):
                continue
            for node in ast.walk(fn):
                if isinstance(node, ast.Import):
                    ours = any(a.name.split(".")[0] == top for a in node.names)
                elif isinstance(node, ast.ImportFrom):
                    ours = node.level > 0 or (node.module or "").split(".")[0] == top
                else:
                    continue
                if ours:
                    found.append((path.relative_to(package.parent).as_posix(), node.lineno,
                                  lines[node.end_lineno - 1]))
    return sorted(set(found))


def unexplained(found: list[tuple[str, int, str]]) -> list[str]:
    """The imports of ``found`` whose line has no ``# lazy: <reason>`` naming one of :data:`LAZY_REASONS`."""
    reason = re.compile(r"# lazy: .*(" + "|".join(map(re.escape, LAZY_REASONS)) + ")")
    return [f"{where}:{line}: {text.strip()}" for where, line, text in found if not reason.search(text)]


def test_every_function_level_import_says_why_and_they_are_few():
    found = function_level_imports(PACKAGE)
    assert unexplained(found) == [], ("a function-level import of an exactdp module without '# lazy: <reason>' naming "
                               f"one of {LAZY_REASONS} (import it at the top instead):\n" + "\n".join(unexplained(found)))
    assert len(found) <= MOST_LAZY_IMPORTS, (
        f"{len(found)} function-level imports of exactdp modules (at most {MOST_LAZY_IMPORTS}): hoist some")


def test_the_lazy_import_rule_catches_a_bare_local_import(tmp_path):
    package = tmp_path / "exactdp"
    package.mkdir()
    (package / "m.py").write_text("def f():\n    from exactdp import x\n\n"
                                  "def g():\n    from exactdp import y  # lazy: loads SymPy\n\n"
                                  "def h():\n    from . import z  # lazy: it is faster\n")
    found = function_level_imports(package)
    assert [line for _, line, _ in found] == [2, 5, 8]
    assert unexplained(found) == ["exactdp/m.py:2: from exactdp import x",
                                  "exactdp/m.py:8: from . import z  # lazy: it is faster"]
