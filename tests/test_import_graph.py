"""The modules and packages of ``src/citejudge`` import each other without cycles, downward only.

Every import counts, the ones inside functions and under ``TYPE_CHECKING`` too. Three checks:
the module graph is acyclic; collapsed to the top-level parts of ``citejudge`` (``readers``,
``match``, ``cli``...) the graph is acyclic too; and every edge between parts runs down the
``LAYERS`` below (the same order is written up in ``docs/ARCHITECTURE.md``, "Layers"). A cycle
is what makes a change in one module reach back into the one that uses it; the registry loads
backends by name (``importlib``) precisely so that this test holds.
"""

from __future__ import annotations

import ast
from pathlib import Path

SRC = Path(__file__).resolve().parents[1] / "src"


# The layers, top first: a part may import parts of lower layers only (none of its own layer but
# itself). "citejudge" is the package's own ``__init__`` (the root face): it re-exports the Python
# API, so it sits at the top beside the CLI and nothing inside the package imports it.
LAYERS: list[set[str]] = [
    {"cli", "citejudge"},  # the command line; the root face (re-exports the Python API)
    {"api"},  # the Python API: open_index, check, read_document (the CLI calls it)
    {"run"},  # config, pipeline, executors, manifest, report, compare
    {"schema"},  # the shipped JSON Schemas, looked up by task
    {"tasks"},  # the task protocol and the evaluators
    {"sources"},  # offline source verification (citation_eval)
    {"index"},  # the embedded index of a world
    {"match", "snapshot", "documents"},  # resolution and field checks; world readers; documents
    {"readers"},  # one reader per input format
    {"judge", "ids", "io", "demo"},  # the model boundary; ids; task input
    {
        "text",
        "records",
        "errors",
        "hashing",
        "resources",
        "schemas",
        "native",
        "lazy",
    },  # leaves: import no other part (native: the C module's loader; lazy: lazy exports)
]


def _module_name(path: Path, src: Path = SRC) -> str:
    rel = path.relative_to(src).with_suffix("")
    parts = list(rel.parts)
    if parts[-1] == "__init__":
        parts.pop()
    return ".".join(parts)


def _part(module: str) -> str:
    """``citejudge.readers.freetext._parser`` -> ``readers``; the root package is ``citejudge``."""
    parts = module.split(".")
    return parts[1] if len(parts) > 1 else parts[0]


def _graph(src: Path = SRC) -> dict[str, set[str]]:
    files = {_module_name(p, src): p for p in src.rglob("*.py")}
    graph: dict[str, set[str]] = {m: set() for m in files}
    for mod, path in files.items():
        pkg = mod if path.name == "__init__.py" else mod.rpartition(".")[0]
        for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
            targets: list[str] = []
            if isinstance(node, ast.Import):
                targets = [a.name for a in node.names]
            elif isinstance(node, ast.ImportFrom):
                base = node.module or ""
                if node.level:
                    up = pkg.split(".")[: len(pkg.split(".")) - node.level + 1]
                    base = ".".join([*up, base] if base else up)
                targets = [
                    f"{base}.{a.name}" if f"{base}.{a.name}" in files else base for a in node.names
                ]
            for t in targets:
                while t and t not in files:
                    t = t.rpartition(".")[0]
                if t and t != mod and t.startswith("citejudge"):
                    graph[mod].add(t)
    return graph


def _cycles(graph: dict[str, set[str]]) -> list[list[str]]:
    index: dict[str, int] = {}
    low: dict[str, int] = {}
    stack: list[str] = []
    on: set[str] = set()
    out: list[list[str]] = []

    def visit(v: str) -> None:
        index[v] = low[v] = len(index)
        stack.append(v)
        on.add(v)
        for w in sorted(graph[v]):
            if w not in index:
                visit(w)
                low[v] = min(low[v], low[w])
            elif w in on:
                low[v] = min(low[v], index[w])
        if low[v] == index[v]:
            comp = []
            while True:
                w = stack.pop()
                on.discard(w)
                comp.append(w)
                if w == v:
                    break
            if len(comp) > 1:
                out.append(sorted(comp))

    for v in sorted(graph):
        if v not in index:
            visit(v)
    return out


def _part_edges(graph: dict[str, set[str]]) -> dict[tuple[str, str], list[str]]:
    """Edges between top-level parts, each with the module imports that make it."""
    edges: dict[tuple[str, str], list[str]] = {}
    for mod, targets in graph.items():
        for t in targets:
            if _part(mod) != _part(t):
                edges.setdefault((_part(mod), _part(t)), []).append(f"{mod} -> {t}")
    return edges


def test_no_import_cycles_in_src() -> None:
    graph = _graph()
    assert len(graph) > 40  # the walk found the package
    assert _cycles(graph) == []


def test_no_import_cycles_between_packages() -> None:
    edges = _part_edges(_graph())
    parts: dict[str, set[str]] = {}
    for a, b in edges:
        parts.setdefault(a, set()).add(b)
        parts.setdefault(b, set())
    assert _cycles(parts) == [], {k: v for k, v in edges.items() if (k[1], k[0]) in edges}


def test_every_import_runs_down_the_layers() -> None:
    graph = _graph()
    layer = {p: i for i, ps in enumerate(LAYERS) for p in ps}
    unplaced = sorted({_part(m) for m in graph} - set(layer))
    assert unplaced == [], f"place these parts in LAYERS (and docs/ARCHITECTURE.md): {unplaced}"
    upward = {k: v for k, v in _part_edges(graph).items() if layer[k[0]] >= layer[k[1]]}
    assert upward == {}


def test_cycle_finder_finds_a_cycle() -> None:
    assert _cycles({"a": {"b"}, "b": {"c"}, "c": {"a"}, "d": set()}) == [["a", "b", "c"]]


def test_graph_counts_imports_inside_functions(tmp_path: Path) -> None:
    pkg = tmp_path / "citejudge"
    (pkg / "a").mkdir(parents=True)
    (pkg / "b").mkdir()
    (pkg / "__init__.py").write_text("")
    (pkg / "a" / "__init__.py").write_text("from citejudge.b.y import g\n")
    (pkg / "a" / "x.py").write_text("def f():\n    return 1\n")
    (pkg / "b" / "__init__.py").write_text("")
    (pkg / "b" / "y.py").write_text("def g():\n    from citejudge.a.x import f\n\n    return f()\n")
    graph = _graph(tmp_path)
    assert graph["citejudge.b.y"] == {"citejudge.a.x"}
    assert _cycles(graph) == []  # no module cycle ...
    edges = _part_edges(graph)
    assert set(edges) == {("a", "b"), ("b", "a")}  # ... but the two packages import each other
