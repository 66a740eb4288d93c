"""Code-shape figures for a tree: the widest kernels and the longest modules.

    python tools/code_metrics.py [ROOT] [--max-params 12] [--max-lines 600] [--json]

A kernel is a function decorated with ``@kernel``, ``@nb.njit``/``@njit`` or
``@numba.njit`` (with or without options). Prints one line per kernel over the parameter
limit and per source module (simkit/, strategies/) over the line limit, then a summary
line; with ``--json`` one JSON object. Exit code 0 either way: it measures, the tests judge.
"""

from __future__ import annotations

import argparse
import ast
import json
import sys
from pathlib import Path

PACKAGES = ("simkit", "strategies")
JIT_NAMES = {"kernel", "njit", "jit"}


def _decorator_name(node: ast.expr) -> str:
    if isinstance(node, ast.Call):
        node = node.func
    if isinstance(node, ast.Attribute):
        return node.attr
    if isinstance(node, ast.Name):
        return node.id
    return ""


def kernels(root: Path):
    """(module path, function name, parameter count) for every jitted function."""
    for pkg in PACKAGES:
        for path in sorted((root / pkg).rglob("*.py")):
            tree = ast.parse(path.read_text(encoding="utf-8"))
            for node in ast.walk(tree):
                if isinstance(node, ast.FunctionDef) and any(
                    _decorator_name(d) in JIT_NAMES for d in node.decorator_list
                ):
                    a = node.args
                    n = len(a.posonlyargs) + len(a.args) + len(a.kwonlyargs)
                    n += (a.vararg is not None) + (a.kwarg is not None)
                    yield str(path.relative_to(root)), node.name, n


def module_lines(root: Path):
    for pkg in PACKAGES:
        for path in sorted((root / pkg).rglob("*.py")):
            with path.open(encoding="utf-8") as fh:
                yield str(path.relative_to(root)), sum(1 for _ in fh)


def measure(root: Path, max_params: int, max_lines: int) -> dict:
    ks = list(kernels(root))
    wide = sorted((k for k in ks if k[2] > max_params), key=lambda k: -k[2])
    mods = list(module_lines(root))
    long_ = sorted((m for m in mods if m[1] > max_lines), key=lambda m: -m[1])
    return {
        "kernels": len(ks),
        "max_kernel_params": max((k[2] for k in ks), default=0),
        "kernels_over_limit": [{"module": m, "name": n, "params": p} for m, n, p in wide],
        "modules": len(mods),
        "max_module_lines": max((m[1] for m in mods), default=0),
        "modules_over_limit": [{"module": m, "lines": n} for m, n in long_],
    }


def main(argv=None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("root", nargs="?", default=".")
    parser.add_argument("--max-params", type=int, default=12)
    parser.add_argument("--max-lines", type=int, default=600)
    parser.add_argument("--json", action="store_true")
    args = parser.parse_args(argv)
    out = measure(Path(args.root).resolve(), args.max_params, args.max_lines)
    if args.json:
        print(json.dumps(out))
        return 0
    for k in out["kernels_over_limit"]:
        print(f"kernel {k['module']}:{k['name']} {k['params']} parameters")
    for m in out["modules_over_limit"]:
        print(f"module {m['module']} {m['lines']} lines")
    print(
        f"{out['kernels']} kernels, widest {out['max_kernel_params']} parameters, "
        f"{len(out['kernels_over_limit'])} over {args.max_params}; {out['modules']} modules, "
        f"longest {out['max_module_lines']} lines, "
        f"{len(out['modules_over_limit'])} over {args.max_lines}"
    )
    return 0


if __name__ == "__main__":
    sys.exit(main())
