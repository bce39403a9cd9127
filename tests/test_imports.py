"""The package's imports go one way: no import cycle anywhere in ``tower/``, and the
Marrakesh core neither imports nor names a module.

The graph is read from the source with :mod:`ast`: every ``import`` and ``from ...
import`` of a ``tower`` module is an edge, wherever it stands: module level, inside a
function, or under ``if TYPE_CHECKING:`` (an import that only names types for
annotations still makes the modules depend on each other, and a loop of them is one
design knot, whether it runs or not). ``from a.b import c`` is an edge to ``a.b.c`` when
that is a module, else to ``a.b``; importing ``a.b.c`` is not counted as importing the
package ``a.b`` itself (its ``__init__``).

:data:`KNOWN_LOOPS` lists the loops not yet removed: none. The Marrakesh engine's files
also keep the layer order of the ``tower.marrakesh`` package docstring
(:data:`ENGINE_LAYERS`): a file imports only files of its own layer or of earlier ones.

The Marrakesh core is every file of ``tower/marrakesh/`` outside ``modules/``, except the
package's ``__init__.py``: that file assembles the game (it imports
``tower.marrakesh.modules`` so that every module registers) and names none of them; and
except :data:`CATALOGUE`, the list of the rulebooks' modules by name, a tool of the last
layer that no engine file imports.
"""

from __future__ import annotations

import ast
from pathlib import Path

import pytest

import tower.marrakesh  # noqa: F401 (registers the modules)
from tower.marrakesh.hooks import REGISTRY

ROOT = Path(__file__).resolve().parent.parent / "tower"
MODULES_PACKAGE = "tower.marrakesh.modules"
FACADE = "tower.marrakesh"
#: The module catalogue: naming every module is what it is for.
CATALOGUE = "tower.marrakesh.catalogue"
#: Import loops not yet removed (each a sorted list of modules). Empty: keep it so.
KNOWN_LOOPS: list[list[str]] = []
#: The Marrakesh engine's layers, as the ``tower.marrakesh`` docstring lists them (names
#: under ``tower.marrakesh``; ``adapters`` and ``modules`` stand for the files of their
#: sub-packages not named on their own, ``""`` for the package itself). A file imports
#: its own layer or earlier ones only.
ENGINE_LAYERS: list[tuple[str, ...]] = [
    ("actions", "component_data", "tasks", "wall_battle"),
    ("hooks",),
    ("config", "components", "module_data"),
    ("board",),
    ("rules",),
    ("worth", "effects", "sectors", "phases", "scoring", "labels", "invariants"),
    ("state",),
    ("game",),
    ("agents", "greedy", "ui", "state_file", "adapters"),
    ("modules",),
    ("",),
    ("selfplay", "catalogue"),
]


def module_name(path: Path, root: Path = ROOT) -> str:
    parts = path.relative_to(root.parent).with_suffix("").parts
    return ".".join(parts[:-1] if parts[-1] == "__init__" else parts)


def imports_of(source: str, name: str, is_package: bool, known: set[str]) -> set[str]:
    """The ``tower`` modules that the module ``name`` imports, anywhere in its source."""
    out: set[str] = set()
    here = name if is_package else name.rpartition(".")[0]
    for node in ast.walk(ast.parse(source)):
        if isinstance(node, ast.Import):
            targets = [a.name for a in node.names]
        elif isinstance(node, ast.ImportFrom):
            base = node.module or ""
            if node.level:
                anchor = here.split(".")
                anchor = anchor[: len(anchor) - (node.level - 1)]
                base = ".".join([*anchor, base] if base else anchor)
            targets = [
                f"{base}.{a.name}" if f"{base}.{a.name}" in known else base for a in node.names
            ]
        else:
            continue
        for target in targets:
            while target and target not in known:
                target = target.rpartition(".")[0]
            if target and target != name:
                out.add(target)
    return out


def import_graph(root: Path = ROOT) -> dict[str, set[str]]:
    files = {module_name(p, root): p for p in root.rglob("*.py")}
    known = set(files)
    return {
        name: imports_of(p.read_text(encoding="utf-8"), name, p.name == "__init__.py", known)
        for name, p in files.items()
    }


def cycles(graph: dict[str, set[str]]) -> list[list[str]]:
    """Strongly connected components with more than one module (Tarjan's algorithm)."""
    index: dict[str, int] = {}
    low: dict[str, int] = {}
    on_stack: set[str] = set()
    stack: list[str] = []
    found: list[list[str]] = []
    counter = [0]

    def visit(v: str) -> None:
        index[v] = low[v] = counter[0]
        counter[0] += 1
        stack.append(v)
        on_stack.add(v)
        for w in sorted(graph.get(v, ())):
            if w not in index:
                visit(w)
                low[v] = min(low[v], low[w])
            elif w in on_stack:
                low[v] = min(low[v], index[w])
        if low[v] == index[v]:
            component = []
            while True:
                w = stack.pop()
                on_stack.discard(w)
                component.append(w)
                if w == v:
                    break
            if len(component) > 1:
                found.append(sorted(component))

    for v in sorted(graph):
        if v not in index:
            visit(v)
    return found


def core_files() -> dict[str, Path]:
    out = {}
    for p in (ROOT / "marrakesh").rglob("*.py"):
        name = module_name(p)
        if name in (FACADE, MODULES_PACKAGE, CATALOGUE) or name.startswith(MODULES_PACKAGE + "."):
            continue
        out[name] = p
    return out


def names_a_module(source: str, names: set[str]) -> list[str]:
    """String literals in the code (not docstrings) that are a module's name, as in
    ``game.has("walls_guards")`` (importing one is caught by the import graph).

    Base-game nouns that a module happens to share (the ``desert_towns`` and
    ``exchange_offices`` components, the ``spectators`` of a disc) are identifiers, not
    string literals naming the module, and are not counted; nor are the names a package
    exports in ``__all__``, which are identifiers too."""
    tree = ast.parse(source)
    skipped = {
        id(node.body[0].value)
        for node in ast.walk(tree)
        if isinstance(node, (ast.Module, ast.ClassDef, ast.FunctionDef, ast.AsyncFunctionDef))
        and node.body
        and isinstance(node.body[0], ast.Expr)
        and isinstance(node.body[0].value, ast.Constant)
    }
    for node in ast.walk(tree):
        if isinstance(node, ast.Assign) and any(
            isinstance(target, ast.Name) and target.id == "__all__" for target in node.targets
        ):
            skipped |= {id(item) for item in ast.walk(node.value)}
    hits = []
    for node in ast.walk(tree):
        if isinstance(node, ast.Constant) and node.value in names and id(node) not in skipped:
            hits.append(f"line {node.lineno}: {node.value}")
    return hits


def test_no_import_cycle_anywhere_in_the_package():
    graph = import_graph()
    assert len(graph) > 90 and "tower.marrakesh.rules" in graph  # the package was read
    assert cycles(graph) == KNOWN_LOOPS


def engine_layer(name: str) -> int | None:
    """The index in :data:`ENGINE_LAYERS` of a module of ``tower.marrakesh`` (else None)."""
    if name != FACADE and not name.startswith(FACADE + "."):
        return None
    rel = name.removeprefix(FACADE).removeprefix(".")
    for key in (rel, rel.split(".")[0]):
        for i, layer in enumerate(ENGINE_LAYERS):
            if key in layer:
                return i
    raise AssertionError(f"{name} is in no layer of ENGINE_LAYERS (and of the docstring)")


def layer_breaches(graph: dict[str, set[str]]) -> list[str]:
    """Imports from an engine file into a later layer."""
    return [
        f"{name} -> {target}"
        for name in sorted(graph)
        if (here := engine_layer(name)) is not None
        for target in sorted(graph[name])
        if (there := engine_layer(target)) is not None and there > here
    ]


def test_the_marrakesh_engine_layers_run_one_way():
    """Every engine file is in a layer, and imports nothing from a later one: the rules
    import neither the state nor the game, the hooks no state class."""
    graph = import_graph()
    assert engine_layer("tower.marrakesh.rules") < engine_layer("tower.marrakesh.state")
    assert layer_breaches(graph) == []
    # The check fails on what it guards: the rules importing the state type.
    graph["tower.marrakesh.rules"].add("tower.marrakesh.state")
    assert layer_breaches(graph) == ["tower.marrakesh.rules -> tower.marrakesh.state"]


def test_the_geometry_layers_run_one_way():
    """The spec data types import neither the mesh builders nor the spec loader, and the
    mesh builders do not import the spec loader (it validates with them)."""
    graph = import_graph()
    assert "tower.geometry.spec" not in graph["tower.geometry.meshes"]
    assert graph["tower.geometry.data"].isdisjoint({"tower.geometry.spec", "tower.geometry.meshes"})
    assert "tower.geometry.meshes" in graph["tower.geometry.spec"]


def test_the_marrakesh_core_imports_no_module():
    graph = import_graph()
    core = core_files()
    assert {"tower.marrakesh.rules", "tower.marrakesh.adapters.views"} <= set(core)
    bad = {
        name: sorted(t for t in graph[name] if t.startswith(MODULES_PACKAGE))
        for name in core
        if any(t.startswith(MODULES_PACKAGE) for t in graph[name])
    }
    assert bad == {}


@pytest.mark.parametrize("name", sorted(REGISTRY))
def test_the_marrakesh_core_names_no_module(name):
    hits = {
        core: found
        for core, path in core_files().items()
        if (found := names_a_module(path.read_text(encoding="utf-8"), {name}))
    }
    assert hits == {}


def test_the_checks_catch_a_cycle_a_core_import_and_a_name(tmp_path):
    """The checks fail on what they guard: a two-module loop (one import inside a
    function), a loop closed by an import under ``if TYPE_CHECKING:``, a loop through
    ``from package import module``, and a core file that imports or names a module."""
    pkg = tmp_path / "tower"
    (pkg / "marrakesh" / "modules").mkdir(parents=True)
    for rel in ("__init__.py", "marrakesh/__init__.py", "marrakesh/modules/__init__.py"):
        (pkg / rel).write_text("")
    (pkg / "a.py").write_text("import tower.b\n")
    (pkg / "b.py").write_text("def f():\n    from tower import a\n")
    (pkg / "c.py").write_text(
        "from typing import TYPE_CHECKING\nif TYPE_CHECKING:\n    import tower.d\n"
    )
    (pkg / "d.py").write_text("import tower.c\n")
    (pkg / "marrakesh" / "modules" / "chess.py").write_text("from tower.marrakesh import rules\n")
    (pkg / "marrakesh" / "rules.py").write_text(
        '"""Rules; chess is named here only in a docstring."""\n'
        "def f(state):\n    from .modules import chess\n    return state.game.has('chess')\n"
    )
    graph = import_graph(pkg)
    assert graph["tower.b"] == {"tower.a"} and graph["tower.c"] == {"tower.d"}
    assert graph["tower.marrakesh.rules"] == {"tower.marrakesh.modules.chess"}
    assert cycles(graph) == [
        ["tower.a", "tower.b"],
        ["tower.c", "tower.d"],
        ["tower.marrakesh.modules.chess", "tower.marrakesh.rules"],
    ]
    source = (pkg / "marrakesh" / "rules.py").read_text()
    assert names_a_module(source, {"chess"}) == ["line 4: chess"]
    exports = '__all__ = ["chess"]\nx = "chess"\n'
    assert names_a_module(exports, {"chess"}) == ["line 2: chess"]
