"""A kernel's numba cache is dropped when its source or the source of any module it
imports changes (numba itself checks a cached function against its own file only), and
only then: an edit recompiles the modules that depend on it, not every kernel."""

from __future__ import annotations

from pathlib import Path

from simkit import numba_cache as cache


def test_fingerprint_covers_every_compiled_source_directory():
    names = {str(p.relative_to(cache.ROOT)) for p in cache.source_files()}
    for n in (
        "simkit/kernels/game_loop.py",
        "simkit/kernels/combat.py",
        "simkit/kernels/combat_table.py",
        "strategies/combat/withdrawal.py",
        "strategies/human/policy.py",
    ):
        assert n in names


def test_cache_dirs_are_where_numba_puts_the_kernels():
    from simkit.kernels.low.hashtable import _slot
    from strategies.combat.allocation import choose_stack

    dirs = cache.cache_dirs()
    assert Path(_slot._cache._cache_path) in dirs
    assert Path(choose_stack._cache._cache_path) in dirs


def _tree(tmp_path, monkeypatch):
    """simkit/kernels/{top, mid, leaf, other}.py: top imports mid, mid imports leaf."""
    src = tmp_path / "simkit" / "kernels"
    src.mkdir(parents=True)
    (src / "leaf.py").write_text("X = 1\n")
    (src / "mid.py").write_text("from simkit.kernels.leaf import X\n")
    (src / "top.py").write_text("from simkit.kernels import mid\n")
    (src / "other.py").write_text("import numpy\n")
    store = tmp_path / "cache"
    store.mkdir()
    monkeypatch.setattr(cache, "ROOT", tmp_path)
    monkeypatch.setattr(cache, "SOURCE_DIRS", ("simkit/kernels",))
    monkeypatch.setattr(cache, "_cache_dir_of", lambda: {"simkit/kernels": store})
    return src, store


def _run(monkeypatch) -> bool:
    cache._digest.cache_clear()
    monkeypatch.setattr(cache, "_DONE", False)
    return cache.drop_stale_kernel_cache()


def _fill(store):
    for m in ("top", "mid", "leaf", "other"):
        (store / f"{m}.f-1.py311.nbi").write_text("x")
        (store / f"{m}.f-1.py311.1.nbc").write_text("x")
    (store / "notes.txt").write_text("kept")


def _cached(store):
    return sorted({p.name.split(".")[0] for p in store.glob("*.nb?")})


def test_an_edit_drops_the_edited_module_and_its_importers_only(tmp_path, monkeypatch):
    src, store = _tree(tmp_path, monkeypatch)
    assert _run(monkeypatch)  # no stamp yet: everything is stale
    _fill(store)
    assert not _run(monkeypatch)  # same sources: the cache is kept
    assert _cached(store) == ["leaf", "mid", "other", "top"]
    (src / "leaf.py").write_text("X = 2\n")
    assert _run(monkeypatch)
    assert _cached(store) == ["other"]  # leaf, and mid and top through their imports
    assert (store / "notes.txt").exists() and (store / cache.STAMP).exists()
    _fill(store)
    (src / "other.py").write_text("import numpy as np\n")
    assert _run(monkeypatch)
    assert _cached(store) == ["leaf", "mid", "top"]


def test_an_old_single_hash_stamp_counts_as_all_stale(tmp_path, monkeypatch):
    _, store = _tree(tmp_path, monkeypatch)
    _fill(store)
    (store / cache.STAMP).write_text("0123456789abcdef\n")
    assert _run(monkeypatch)
    assert _cached(store) == []


def test_the_engines_modules_depend_on_the_layout_and_the_strategies():
    loop = cache.ROOT / "simkit/kernels/game_loop.py"
    deps = {str(p.relative_to(cache.ROOT)) for p in cache.closure(loop)}
    assert "simkit/kernels/low/game_layout.py" in deps
    assert "strategies/human/policy.py" in deps and "strategies/old_ones/policy.py" in deps
    combat = cache.ROOT / "simkit/kernels/combat_exact.py"
    assert "strategies/human/policy.py" not in {
        str(p.relative_to(cache.ROOT)) for p in cache.closure(combat)
    }
