"""Keep numba's on-disk cache of every kernel honest.

numba re-validates a cached function against its own source file only, but our kernels
inline code from other modules (combat resolution, the withdraw table, the strategies'
decision functions...). An edit there would leave stale machine code in the cache (a
git checkout that touches one file does exactly that). So, once per process and before
any kernel runs, :func:`drop_stale_kernel_cache` hashes every source file that numba
compiles and, if the hash changed since the cache was written, deletes all of their
cache files; they are rebuilt on the next call (the game engine in 2-3 minutes).
"""

from __future__ import annotations

import hashlib
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


def fingerprint() -> str:
    h = hashlib.sha256()
    for p in source_files():
        h.update(str(p.relative_to(ROOT)).encode())
        h.update(p.read_bytes())
    return h.hexdigest()[:16]


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
    dirs = []
    for d in SOURCE_DIRS:
        files = sorted((ROOT / d).glob("*.py"))
        located = _located(files[0]) if files else None
        if located is not None:
            dirs.append(located)
    return dirs


def drop_stale_kernel_cache() -> bool:
    """Delete every kernel cache file if any kernel source changed. True if it did."""
    global _DONE
    if _DONE:
        return False
    _DONE = True
    dirs = cache_dirs()
    if not dirs:
        return False
    stamp = dirs[0] / STAMP
    now = fingerprint()
    try:
        if stamp.read_text().strip() == now:
            return False
    except OSError:
        pass
    for d in dirs:
        if d.is_dir():
            for f in d.iterdir():
                if f.suffix in (".nbi", ".nbc"):
                    try:
                        f.unlink()
                    except OSError:
                        pass
    try:
        dirs[0].mkdir(parents=True, exist_ok=True)
        stamp.write_text(now + "\n")
    except OSError:
        pass
    return True
