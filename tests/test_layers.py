"""The import contract: the layers of ARCHITECTURE.md, checked on the source (every import,
top level or inside a function), so a new import that points up a layer fails here.

    0 low kernels    layouts, board geometry, movement, decks, chance, the @kernel decorator,
                     the shared game helpers
                     strategies read (simkit/kernels/low/)
    1 strategies     strategies/ (jitted choose functions)
    2 engine kernels simkit/kernels/ (combat draw loop, exact combat, the game loop)
    3 game / runner  simkit/game, revenge, combat, runner, datapack, analysis, ...
    4 report / CLI   simkit/report, simkit/cli, simkit/serve (the local web app)

A module may import its own layer or lower ones only; and no two packages import each
other.
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
    if module in LOW_KERNELS:
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


def test_no_two_packages_import_each_other():
    def package(m: str) -> str:
        # the innermost folder with an __init__.py; a module at the top of simkit/ or
        # strategies/, and each of the report's modules, counts on its own
        parts = m.split(".")
        if parts[1:2] == ["report"]:
            return ".".join(parts[:3])
        while len(parts) > 2 and not (ROOT.joinpath(*parts) / "__init__.py").exists():
            parts = parts[:-1]
        return ".".join(parts)

    graph = import_graph()
    pkgs = defaultdict(set)
    for a, deps in graph.items():
        for b in deps:
            if package(a) != package(b):
                pkgs[package(a)].add(package(b))
    cycles = {tuple(sorted((a, b))) for a in pkgs for b in pkgs[a] if a in pkgs.get(b, ())}
    # a package's own __init__ re-exporting its modules is not a cycle between packages
    cycles = {
        c for c in cycles if not (c[0] == c[1].rsplit(".", 1)[0] or c[1] == c[0].rsplit(".", 1)[0])
    }
    assert not cycles, sorted(cycles)


def test_the_graph_sees_the_imports_it_checks():
    graph = import_graph()
    assert "strategies.combat.allocation" in graph["simkit.kernels.combat_exact"]
    assert "simkit.kernels.low.game_layout" in graph["strategies.human.features"]
    assert layer("simkit.kernels.game_loop") == 2 and layer("simkit.cli.simulate") == 4
