"""wavefront's modules must not import each other in a cycle.

The graph is read from the source with ``ast`` rather than from
``sys.modules``, so it sees every import statement, including those inside
functions: an import deferred to call time (to keep ``wavefront --help`` fast,
or to dodge an ImportError) still ties the two modules together, and a cycle
of them means neither can be understood, tested or moved without the other.

An import of ``wavefront.a.b`` counts as a dependency on ``wavefront.a.b``
only, not on the ``__init__`` of ``wavefront`` and ``wavefront.a`` that Python
runs first: otherwise every package that imports one of its own submodules
would form a cycle with it. Imports whose module is computed at run time
(``importlib.import_module(name)``) are not seen.
"""
from __future__ import annotations

import ast
from pathlib import Path

import pytest

PACKAGE = "wavefront"
ROOT = Path(__file__).resolve().parents[1] / PACKAGE


def module_files(root: Path = ROOT) -> dict[str, Path]:
    """Dotted module name -> file, for every ``.py`` file under ``root``."""
    modules = {}
    for path in sorted(root.rglob("*.py")):
        parts = list(path.relative_to(root.parent).with_suffix("").parts)
        if parts[-1] == "__init__":
            parts.pop()
        modules[".".join(parts)] = path
    return modules


def _base_of(node: ast.ImportFrom, module: str, is_package: bool) -> str | None:
    """The absolute module a ``from X import ...`` statement names as X."""
    if node.level == 0:
        return node.module
    # A package's __init__ is its own anchor for ``from . import``; a plain
    # module is anchored at the package holding it.
    anchor = module.split(".") if is_package else module.split(".")[:-1]
    up = node.level - 1
    if up >= len(anchor):  # a relative import reaching above the top-level package
        return None
    anchor = anchor[: len(anchor) - up]
    return ".".join(anchor + ([node.module] if node.module else []))


def imports_of(module: str, path: Path, known: set[str]) -> set[str]:
    """The modules in ``known`` that ``module`` (stored at ``path``) imports."""
    tree = ast.parse(path.read_text(encoding="utf-8"), filename=str(path))
    is_package = path.name == "__init__.py"
    found = set()
    for node in ast.walk(tree):
        if isinstance(node, ast.Import):
            found.update(alias.name for alias in node.names)
        elif isinstance(node, ast.ImportFrom):
            base = _base_of(node, module, is_package)
            if base is None:
                continue
            for alias in node.names:
                # ``from pkg import sub`` loads the submodule when there is
                # one; otherwise the name is an attribute of pkg itself.
                candidate = f"{base}.{alias.name}"
                found.add(candidate if candidate in known else base)
    edges = set()
    for name in found:
        # The longest prefix that is a wavefront module: third-party names
        # have none and drop out, and a name with no .py file of its own (a
        # folder of CUDA sources, say) falls back to the package holding it.
        parts = name.split(".")
        while parts and ".".join(parts) not in known:
            parts.pop()
        if parts and ".".join(parts) != module:
            edges.add(".".join(parts))
    return edges


def import_graph(root: Path = ROOT) -> dict[str, set[str]]:
    """Module -> the wavefront modules it imports (anywhere in its source)."""
    files = module_files(root)
    known = set(files)
    return {name: imports_of(name, path, known) for name, path in files.items()}


def find_cycles(graph: dict[str, set[str]]) -> list[list[str]]:
    """Every strongly connected component with more than one module (or a
    module importing itself), each as a sorted list; Tarjan's algorithm,
    iterative so deep import chains cannot hit the recursion limit."""
    index: dict[str, int] = {}
    low: dict[str, int] = {}
    on_stack: set[str] = set()
    stack: list[str] = []
    components: list[list[str]] = []
    counter = 0
    nodes = set(graph) | {d for deps in graph.values() for d in deps}
    for start in sorted(nodes):
        if start in index:
            continue
        work = [(start, iter(sorted(graph.get(start, ()))))]
        index[start] = low[start] = counter
        counter += 1
        stack.append(start)
        on_stack.add(start)
        while work:
            node, children = work[-1]
            child = next(children, None)
            if child is not None:
                if child not in index:
                    index[child] = low[child] = counter
                    counter += 1
                    stack.append(child)
                    on_stack.add(child)
                    work.append((child, iter(sorted(graph.get(child, ())))))
                elif child in on_stack:
                    low[node] = min(low[node], index[child])
                continue
            work.pop()
            if work:
                parent = work[-1][0]
                low[parent] = min(low[parent], low[node])
            if low[node] == index[node]:
                component = []
                while True:
                    member = stack.pop()
                    on_stack.discard(member)
                    component.append(member)
                    if member == node:
                        break
                if len(component) > 1 or node in graph.get(node, ()):
                    components.append(sorted(component))
    return sorted(components)


def describe(graph: dict[str, set[str]], component: list[str]) -> str:
    """One cycle: its modules, and which of them import which inside it."""
    members = set(component)
    arrows = [
        f"    {a} -> {b}"
        for a in component
        for b in sorted(graph.get(a, ()))
        if b in members
    ]
    return f"  {{{', '.join(component)}}}\n" + "\n".join(arrows)


def test_no_import_cycles():
    graph = import_graph()
    assert f"{PACKAGE}.cli" in graph, f"found no modules under {ROOT}"
    cycles = find_cycles(graph)
    assert not cycles, (
        f"{len(cycles)} import cycle(s) among wavefront's modules (imports inside "
        "functions count too); break each by moving what both sides need into a "
        "module below them, or by having the lower layer stop importing the upper:\n"
        + "\n".join(describe(graph, c) for c in cycles)
    )


def test_find_cycles_reports_a_cycle():
    graph = {
        "a": {"b"},
        "b": {"c"},
        "c": {"a", "d"},
        "d": set(),
        "e": {"e"},  # a module importing itself
        "f": {"g"},
        "g": {"f"},
    }
    assert find_cycles(graph) == [["a", "b", "c"], ["e"], ["f", "g"]]
    message = describe(graph, ["a", "b", "c"])
    assert "a -> b" in message and "c -> a" in message and "c -> d" not in message


def test_find_cycles_accepts_a_dag():
    graph = {"a": {"b", "c"}, "b": {"c", "d"}, "c": {"d"}, "d": set(), "x": {"d"}}
    assert find_cycles(graph) == []


def test_find_cycles_agrees_with_networkx():
    # An independent SCC implementation on the real graph plus one with a
    # cycle added, so a bug in find_cycles cannot hide one.
    nx = pytest.importorskip("networkx")
    graph = import_graph()
    looped = {**graph, f"{PACKAGE}.errors": graph[f"{PACKAGE}.errors"] | {f"{PACKAGE}.cli"}}
    for g in (graph, looped):
        digraph = nx.DiGraph()
        digraph.add_nodes_from(g)
        digraph.add_edges_from((a, b) for a, deps in g.items() for b in deps)
        expected = sorted(
            sorted(c)
            for c in nx.strongly_connected_components(digraph)
            if len(c) > 1 or digraph.has_edge(next(iter(c)), next(iter(c)))
        )
        assert find_cycles(g) == expected
    assert find_cycles(looped), "wavefront.cli imports wavefront.errors: expected a cycle"


def test_imports_resolve_to_modules(tmp_path):
    # The resolver, on a package laid out to exercise each import form.
    pkg = tmp_path / PACKAGE
    (pkg / "sub").mkdir(parents=True)
    files = {
        "__init__.py": "from .a import thing\nfrom . import sub\n",
        "a.py": "def f():\n    from .sub import b\n    import wavefront.sub.c as c\n",
        "sub/__init__.py": "from .. import a\n",
        "sub/b.py": "from . import c\nfrom ..a import f\nfrom .c import name\n",
        "sub/c.py": "import os\n",
        "sub/e.py": "from wavefront.sub import helper\nfrom wavefront import sub\n",
    }
    for name, text in files.items():
        (pkg / name).write_text(text)
    graph = import_graph(pkg)
    assert graph == {
        "wavefront": {"wavefront.a", "wavefront.sub"},
        "wavefront.a": {"wavefront.sub.b", "wavefront.sub.c"},
        "wavefront.sub": {"wavefront.a"},
        "wavefront.sub.b": {"wavefront.a", "wavefront.sub.c"},
        "wavefront.sub.c": set(),
        "wavefront.sub.e": {"wavefront.sub"},
    }
    # The import inside a.f still closes the loop a -> sub.b -> a.
    assert find_cycles(graph) == [["wavefront.a", "wavefront.sub.b"]]
