"""The map in the repository stays true: every kernel function and test named by
docs/rules-index.toml exists, every data key is a field of the shipped pack, and nothing
points at a map or style guide outside the repository."""

from __future__ import annotations

import ast
import csv
import importlib
import re
import subprocess
import tomllib
from functools import cache
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]
PACK = ROOT / "simkit" / "data" / "auztralia"
INDEX = ROOT / "docs" / "rules-index.toml"
RULES = tomllib.loads(INDEX.read_text(encoding="utf-8"))["rule"]


def ids(key: str) -> list[tuple[str, str]]:
    return sorted({(r["name"], v) for r in RULES for v in r[key]})


@cache
def functions_in(path: str) -> frozenset[str]:
    tree = ast.parse((ROOT / path).read_text(encoding="utf-8"))
    return frozenset(
        n.name for n in ast.walk(tree) if isinstance(n, ast.FunctionDef | ast.AsyncFunctionDef)
    )


def data_key_exists(key: str) -> bool:
    """``file.toml:table.field`` (a nested TOML key) or ``file.csv:column`` (a header)."""
    file, _, field = key.partition(":")
    path = PACK / file
    if not path.is_file() or not field:
        return False
    if file.endswith(".csv"):
        lines = [ln for ln in path.read_text(encoding="utf-8").splitlines() if ln.strip()]
        header = next(csv.reader([ln for ln in lines if not ln.startswith("#")][:1]))
        return field in header
    node = tomllib.loads(path.read_text(encoding="utf-8"))
    for part in field.split("."):
        if not isinstance(node, dict) or part not in node:
            return False
        node = node[part]
    return True


def test_every_rule_names_its_text_data_kernel_and_test():
    assert len(RULES) >= 20
    for r in RULES:
        assert set(r) == {"name", "rule", "source", "data", "kernel", "test"}, r["name"]
        assert r["rule"].strip() and r["source"].strip(), r["name"]
        assert r["kernel"] and r["test"], r["name"]
    names = [r["name"] for r in RULES]
    assert len(set(names)) == len(names)


@pytest.mark.parametrize(("rule", "kernel"), ids("kernel"))
def test_every_kernel_function_exists(rule, kernel):
    module, _, function = kernel.partition(":")
    assert callable(getattr(importlib.import_module(module), function, None)), (
        f"rules-index.toml, rule '{rule}': {kernel} does not exist"
    )


@pytest.mark.parametrize(("rule", "test"), ids("test"))
def test_every_test_exists(rule, test):
    path, _, name = test.partition("::")
    assert re.fullmatch(r"tests/test_\w+\.py", path) and (ROOT / path).is_file(), test
    assert name in functions_in(path), f"rules-index.toml, rule '{rule}': {test} does not exist"


@pytest.mark.parametrize(("rule", "key"), ids("data"))
def test_every_data_key_is_in_the_shipped_pack(rule, key):
    assert data_key_exists(key), f"rules-index.toml, rule '{rule}': no pack field {key}"


def test_the_checks_can_fail():
    assert data_key_exists("revenge.toml:port.flip_threshold")
    assert not data_key_exists("revenge.toml:port.no_such_field")
    assert not data_key_exists("old_one_card_rows.csv:no_such_column")
    assert data_key_exists("old_one_card_rows.csv:hits")
    assert "test_every_test_exists" in functions_in("tests/test_docs_map.py")
    assert "no_such_test" not in functions_in("tests/test_docs_map.py")


def test_the_map_is_in_the_repository():
    """No file points at an architecture map or style guide outside the repository."""
    arch = (ROOT / "docs" / "ARCHITECTURE.md").read_text(encoding="utf-8")
    for heading in ("## Layers", "## Data flow", "## Kernel conventions", "## Where each kind"):
        assert heading in arch
    tracked = subprocess.run(
        ["git", "ls-files", "*.py", "*.md", "*.toml", "*.ipynb"],
        cwd=ROOT,
        capture_output=True,
        text=True,
        check=False,
    ).stdout.split()
    if not tracked:  # not a git checkout: the sources and the README
        tracked = ["README.md"] + [
            str(p.relative_to(ROOT))
            for d in ("simkit", "strategies", "tests")
            for p in (ROOT / d).rglob("*.py")
        ]
    outside = re.compile(r"shared/(ARCHITECTURE|STYLE)\.md|\bSTYLE\.md")
    bad = [
        f
        for f in tracked
        if (ROOT / f).is_file() and outside.search((ROOT / f).read_text(encoding="utf-8"))
    ]
    bad = [f for f in bad if f != "tests/test_docs_map.py"]
    assert not bad, f"these point at a map outside the repository (use docs/ARCHITECTURE.md): {bad}"
