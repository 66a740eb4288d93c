"""Keep numba's on-disk cache of the game engine honest.

numba re-validates a cached function against its own source file only. The game kernels
link in code from other modules (the board, movement and combat kernels, the strategies),
so an edit there would leave a stale engine in the cache. Before the first game of a
process, :func:`drop_stale_engine_cache` hashes every source file the engine is built
from and, if the hash changed since the cache was written, deletes the engine's cache
files (they are rebuilt on the next call, ~1 minute).
"""

from __future__ import annotations

import hashlib
from pathlib import Path

import simkit
import strategies

_DONE = False
STAMP = "game_engine.stamp"
_OWN = ("game_",)     # cache files of simkit/kernels/game_*.py


# the kernel modules the engine is compiled from (besides simkit/kernels/game_*.py)
_DEPENDENCIES = ("board.py", "movement.py", "combat.py", "combat_layout.py", "deck.py")


def source_files() -> list[Path]:
    root = Path(simkit.__file__).resolve().parent / "kernels"
    kernels = sorted(root.glob("game_*.py")) + [root / name for name in _DEPENDENCIES]
    strat = Path(strategies.__file__).resolve().parent
    return kernels + sorted((strat / "human").glob("*.py")) + sorted((strat / "combat").glob("*.py"))


def fingerprint() -> str:
    h = hashlib.sha256()
    for p in source_files():
        h.update(p.name.encode())
        h.update(p.read_bytes())
    return h.hexdigest()[:16]


def _cache_dirs() -> list[Path]:
    from simkit.kernels.game_loop import play_game
    from strategies.human.policy import choose_action

    dirs = []
    for disp in (play_game, choose_action):
        cache = getattr(disp, "_cache", None)
        path = getattr(cache, "_cache_path", None)
        if path:
            dirs.append(Path(path))
    return dirs


def drop_stale_engine_cache() -> bool:
    """Delete the engine's cache files if any engine source changed. True if it did."""
    global _DONE
    if _DONE:
        return False
    _DONE = True
    dirs = _cache_dirs()
    if not dirs:
        return False
    stamp = dirs[0] / STAMP
    now = fingerprint()
    try:
        if stamp.read_text().strip() == now:
            return False
    except OSError:
        pass
    kernels_dir, strat_dir = dirs[0], dirs[-1]
    for d, prefixes in ((kernels_dir, _OWN), (strat_dir, ("",))):
        if not d.is_dir():
            continue
        for f in d.iterdir():
            if f.suffix in (".nbi", ".nbc") and f.name.startswith(prefixes) and \
                    (d != strat_dir or f.name.split(".")[0] in _strategy_modules()):
                try:
                    f.unlink()
                except OSError:
                    pass
    try:
        kernels_dir.mkdir(parents=True, exist_ok=True)
        stamp.write_text(now + "\n")
    except OSError:
        pass
    return True


def _strategy_modules() -> set[str]:
    root = Path(strategies.__file__).resolve().parent / "human"
    return {p.stem for p in root.glob("*.py")}
