"""The import contract: the layers of docs/ARCHITECTURE.md, checked on the source (every import,
top level or inside a function), so a new import that points up a layer fails here.

    0 low kernels    layouts, board geometry, movement, decks, chance, the @kernel decorator,
                     the shared game helpers
                     strategies read (simkit/kernels/low/)
    1 strategies     strategies/ (jitted choose functions)
    2 engine kernels simkit/kernels/ (combat draw loop, exact combat, the game loop)
    3 game / runner  simkit/game, revenge, combat, runner, datapack, analysis, ...
    4 report / CLI   simkit/report, simkit/cli, simkit/serve (the local web app)

A module may import its own layer or lower ones only; and no modules, nor packages, import
each other in a cycle of any length (strongly connected components of the import graph).
"""

from __future__ import annotations

import ast
from collections import defaultdict
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
PACKAGES = ("simkit", "strategies")

LOW_KERNELS = {
    "simkit.errors",
    "simkit.names",
    "simkit.numba_cache",
    "simkit.kernels",
    "simkit.kernels.low",
    "simkit.kernels.low.fields",
    "simkit.kernels.low.combat_layout",
    "simkit.kernels.low.game_layout",
    "simkit.kernels.low.combat_constants",
    "simkit.kernels.low.game_constants",
    "simkit.kernels.low.gen_constants",
    "simkit.kernels.low.game_cards",
    "simkit.kernels.low.game_containers",
    "simkit.kernels.low.game_events",
    "simkit.kernels.low.game_readings",
    "simkit.kernels.low.board",
    "simkit.kernels.low.movement",
    "simkit.kernels.low.deck",
    "simkit.kernels.low.hashtable",
    "simkit.kernels.low.combat_table_lookup",
    "simkit.kernels.low.game_common",
    "simkit.kernels.low.game_outpost",
    "simkit.kernels.low.jit",
    "simkit.kernels.low.rand",
}
LAYER_NAMES = ("low kernels", "strategies", "engine kernels", "game/runner", "report/CLI")


def layer(module: str) -> int:
    # every module in simkit/kernels/low/ is a low kernel, listed or not (a new one such as
    # the CombatKit or the Port-flip predicate must not import upwards either)
    if module in LOW_KERNELS or module.startswith("simkit.kernels.low."):
        return 0
    if module.split(".")[0] == "strategies":
        return 1
    if module.startswith("simkit.kernels."):
        return 2
    if (
        module.startswith(("simkit.report", "simkit.cli", "simkit.serve"))
        or module == "simkit.__main__"
    ):
        return 4
    return 3


def modules() -> dict[str, Path]:
    out = {}
    for pkg in PACKAGES:
        for path in (ROOT / pkg).rglob("*.py"):
            parts = list(path.relative_to(ROOT).with_suffix("").parts)
            if parts[-1] == "__init__":
                parts = parts[:-1]
            out[".".join(parts)] = path
    return out


def import_graph() -> dict[str, set[str]]:
    mods = modules()
    graph = {}
    for name, path in mods.items():
        pkg = name if path.name == "__init__.py" else name.rsplit(".", 1)[0]
        found = set()
        for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
            if isinstance(node, ast.Import):
                found.update(a.name for a in node.names)
            elif isinstance(node, ast.ImportFrom):
                if node.level:
                    base = pkg.split(".")[: len(pkg.split(".")) - (node.level - 1)]
                    mod = ".".join(base + ([node.module] if node.module else []))
                else:
                    mod = node.module
                found.add(mod)
                found.update(f"{mod}.{a.name}" for a in node.names)
        graph[name] = {m for m in found if m in mods and m != name}
    return graph


def test_no_module_imports_a_higher_layer():
    bad = [
        f"{a} ({LAYER_NAMES[layer(a)]}) imports {b} ({LAYER_NAMES[layer(b)]})"
        for a, deps in sorted(import_graph().items())
        for b in sorted(deps)
        if layer(b) > layer(a)
    ]
    assert not bad, "\n".join(bad)


def strongly_connected(graph: dict[str, set[str]]) -> list[list[str]]:
    """The import cycles of ``graph``: its strongly connected components of two or more
    nodes, each sorted, in sorted order (Tarjan's algorithm, iterative)."""
    index: dict[str, int] = {}
    low: dict[str, int] = {}
    stack: list[str] = []
    on_stack: set[str] = set()
    found = []
    for root in sorted(graph):
        if root in index:
            continue
        index[root] = low[root] = len(index)
        stack.append(root)
        on_stack.add(root)
        work = [(root, iter(sorted(graph.get(root, ()))))]
        while work:
            node, children = work[-1]
            child = next(children, None)
            if child is not None:
                if child not in index:
                    index[child] = low[child] = len(index)
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
                if len(component) > 1:
                    found.append(sorted(component))
    return sorted(found)


def cycle_message(cycles: list[list[str]]) -> str:
    return "import cycles:\n" + "\n".join(" <-> ".join(c) for c in cycles)


def test_strongly_connected_finds_cycles_of_any_length():
    graph = {
        "a": {"b"},
        "b": {"c"},
        "c": {"a", "d"},  # a -> b -> c -> a: three modules, no two import each other
        "d": {"e"},
        "e": {"d"},  # a two-cycle beside it
        "f": {"f", "a"},  # a self-import and a way into a cycle are no cycle
        "g": set(),
    }
    assert strongly_connected(graph) == [["a", "b", "c"], ["d", "e"]]
    assert strongly_connected({"a": {"b"}, "b": {"c"}, "c": set()}) == []
    long_ring = {f"m{i:03d}": {f"m{(i + 1) % 500:03d}"} for i in range(500)}
    assert strongly_connected(long_ring) == [sorted(long_ring)]  # no recursion limit
    assert "a <-> b <-> c" in cycle_message(strongly_connected(graph))


def package(m: str) -> str:
    """The innermost folder with an __init__.py; a module at the top of simkit/ or
    strategies/, and each of the report's modules, counts on its own."""
    parts = m.split(".")
    if parts[1:2] == ["report"]:
        return ".".join(parts[:3])
    while len(parts) > 2 and not (ROOT.joinpath(*parts) / "__init__.py").exists():
        parts = parts[:-1]
    return ".".join(parts)


def is_own_submodule(a: str, b: str) -> bool:
    """``a`` is a package and ``b`` one of its own modules: a package's __init__ importing
    (re-exporting, or registering) its modules is not a cycle with them."""
    return b.startswith(a + ".")


def test_no_import_cycles_between_modules():
    graph = {
        a: {b for b in deps if not is_own_submodule(a, b)} for a, deps in import_graph().items()
    }
    cycles = strongly_connected(graph)
    assert not cycles, cycle_message(cycles)


def test_no_import_cycles_between_packages():
    pkgs: dict[str, set[str]] = defaultdict(set)
    for a, deps in import_graph().items():
        for b in deps:
            pa, pb = package(a), package(b)
            if pa != pb and not is_own_submodule(pa, pb) and not is_own_submodule(pb, pa):
                pkgs[pa].add(pb)
    cycles = strongly_connected(pkgs)
    assert not cycles, cycle_message(cycles)


def test_the_graph_sees_the_imports_it_checks():
    graph = import_graph()
    assert "strategies.combat.allocation" in graph["simkit.kernels.combat_exact"]
    assert "simkit.kernels.low.game_layout" in graph["strategies.human.features"]
    assert layer("simkit.kernels.game_loop") == 2 and layer("simkit.cli.simulate") == 4
