"""Keep numba's on-disk cache of every kernel honest, and drop no more of it than needed.

numba re-validates a cached function against its own source file only, but our kernels
inline code from other modules (combat resolution, the withdraw table, the strategies'
decision functions, layout constants...). An edit there would leave stale machine code
in the cache (a git checkout that touches one file does exactly that). So, once per
process and before any kernel runs, :func:`drop_stale_kernel_cache` hashes, for every
kernel module, its source and the source of every repository module it imports,
directly or not; it deletes the cache files of exactly the modules whose hash changed
since the cache was written. An edit to a strategy recompiles the strategy and the
kernels that call it, not the combat solvers; an edit to game_layout recompiles
everything that reads it.
"""

from __future__ import annotations

import ast
import hashlib
import json
from functools import cache
from pathlib import Path

from numba.core.caching import CacheImpl

ROOT = Path(__file__).resolve().parent.parent
SOURCE_DIRS = (
    "simkit/kernels",
    "simkit/kernels/low",
    "strategies/combat",
    "strategies/human",
    "strategies/old_ones",
)
STAMP = "kernels.stamp"
_DONE = False


def source_files() -> list[Path]:
    return [p for d in SOURCE_DIRS for p in sorted((ROOT / d).glob("*.py"))]


def _module_file(name: str) -> Path | None:
    """The repository file of a dotted module name (None outside simkit/ and strategies/)."""
    if not name.startswith(("simkit", "strategies")):
        return None
    base = ROOT.joinpath(*name.split("."))
    for p in (base.with_suffix(".py"), base / "__init__.py"):
        if p.is_file():
            return p
    return None


@cache
def _digest(path: Path) -> str:
    return hashlib.sha256(path.read_bytes()).hexdigest()


# file digest -> the repository modules (relative paths) that file imports. Parsing every
# kernel source at each start-up cost ~0.2 s, so the lists travel in the cache stamp and
# only a file whose content is new to it is parsed again.
_IMPORTS: dict[str, list[str]] = {}


def _parse_imports(path: Path) -> list[str]:
    found = set()
    for node in ast.walk(ast.parse(path.read_bytes())):
        if isinstance(node, ast.Import):
            names = [a.name for a in node.names]
        elif isinstance(node, ast.ImportFrom) and node.module and not node.level:
            names = [node.module] + [f"{node.module}.{a.name}" for a in node.names]
        else:
            continue
        found.update(p for p in map(_module_file, names) if p is not None and p != path)
    return sorted(str(p.relative_to(ROOT)) for p in found)


def imports_of(path: Path) -> frozenset[Path]:
    """The repository modules ``path`` imports (``from pkg import module`` included)."""
    d = _digest(path)
    if d not in _IMPORTS:
        _IMPORTS[d] = _parse_imports(path)
    return frozenset(ROOT / rel for rel in _IMPORTS[d])


def closure(path: Path) -> list[Path]:
    """``path`` and every repository module it imports, directly or not, sorted."""
    seen, todo = {path}, [path]
    while todo:
        for dep in imports_of(todo.pop()):
            if dep not in seen:
                seen.add(dep)
                todo.append(dep)
    return sorted(seen)


def module_hashes() -> dict[str, str]:
    """Kernel module (relative path) -> hash of its source and its imports' sources."""
    out = {}
    for p in source_files():
        h = hashlib.sha256()
        for dep in closure(p):
            h.update(str(dep.relative_to(ROOT)).encode())
            h.update(_digest(dep).encode())
        out[str(p.relative_to(ROOT))] = h.hexdigest()[:16]
    return out


def _located(py_file: Path) -> Path | None:
    """Where numba caches the functions of ``py_file``, found the way numba finds it."""

    def probe():  # the locators only read a function's first line number
        pass

    for locator in CacheImpl._locator_classes:
        found = locator.from_function(probe, str(py_file))
        if found is not None:
            return Path(found.get_cache_path())
    return None


def cache_dirs() -> list[Path]:
    return list(dict.fromkeys(_cache_dir_of().values()))


def _cache_dir_of() -> dict[str, Path]:
    """Kernel source folder (relative) -> the folder numba caches its functions in."""
    out = {}
    for d in SOURCE_DIRS:
        files = sorted((ROOT / d).glob("*.py"))
        located = _located(files[0]) if files else None
        if located is not None:
            out[d] = located
    return out


def ensure_cache_dir() -> dict[str, Path]:
    """Where each kernel folder caches (``_cache_dir_of``); when numba finds no writable place
    for some (a read-only install used by an account without a writable home: numba would
    fail with "no locator available"), the cache moves to a private temporary folder for
    this process and the workers it starts, with one warning."""
    import os
    import sys
    import tempfile

    import numba

    where = _cache_dir_of()
    if len(where) == len(SOURCE_DIRS):
        return where
    tmp = tempfile.mkdtemp(prefix="simkit-numba-cache-")
    numba.config.CACHE_DIR = tmp
    os.environ["NUMBA_CACHE_DIR"] = tmp  # loky workers compile and cache the same way
    print(
        f"simkit: warning: no writable numba cache folder (read-only install, no writable "
        f"home); compiled kernels are cached in {tmp} for this run only (set NUMBA_CACHE_DIR "
        "to a writable folder to keep them)",
        file=sys.stderr,
    )
    return _cache_dir_of()


def _read_stamp(path: Path) -> dict:
    try:
        stamp = json.loads(path.read_text())
    except (OSError, ValueError):
        return {}
    if not isinstance(stamp, dict) or not isinstance(stamp.get("modules"), dict):
        return {}  # an older stamp: every module counts as stale
    return stamp


def drop_stale_kernel_cache() -> bool:
    """Delete the cache files of every kernel module whose source, or the source of a
    module it imports, changed since they were written. True if any module was stale."""
    global _DONE
    if _DONE:
        return False
    _DONE = True
    where = ensure_cache_dir()
    if not where:
        return False
    stamp_path = next(iter(where.values())) / STAMP
    before = _read_stamp(stamp_path)
    known = before.get("imports")
    if isinstance(known, dict):
        _IMPORTS.update(known)
    now = module_hashes()
    stale = [m for m, h in now.items() if before.get("modules", {}).get(m) != h]
    if not stale:
        return False
    for m in stale:
        d = where.get(str(Path(m).parent))
        if d is None or not d.is_dir():
            continue
        stem = Path(m).stem + "."
        for f in d.iterdir():
            if f.name.startswith(stem) and f.suffix in (".nbi", ".nbc"):
                try:
                    f.unlink()
                except OSError:
                    pass
    try:
        stamp_path.parent.mkdir(parents=True, exist_ok=True)
        used = {_digest(f) for p in source_files() for f in closure(p)}
        imports = {d: v for d, v in _IMPORTS.items() if d in used}
        stamp = {"modules": now, "imports": imports}
        stamp_path.write_text(json.dumps(stamp, indent=0, sort_keys=True) + "\n")
    except OSError:
        pass
    return True
