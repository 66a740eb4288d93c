"""Every kernel's numba cache is dropped when any kernel source changes (numba itself
checks a cached function against its own file only)."""

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


def test_stale_cache_files_are_deleted_and_the_stamp_renewed(tmp_path, monkeypatch):
    kernels, strat = tmp_path / "k", tmp_path / "s"
    kernels.mkdir()
    strat.mkdir()
    for f in ("game_loop.play_game-1.py311.nbi", "combat.play_combat-1.py311.1.nbc"):
        (kernels / f).write_text("x")
    (strat / "withdrawal.withdraw_decision-9.py311.nbi").write_text("x")
    (strat / "notes.txt").write_text("kept")
    monkeypatch.setattr(cache, "cache_dirs", lambda: [kernels, strat])
    monkeypatch.setattr(cache, "_DONE", False)
    assert cache.drop_stale_kernel_cache()
    assert sorted(p.name for p in kernels.iterdir()) == [cache.STAMP]
    assert sorted(p.name for p in strat.iterdir()) == ["notes.txt"]
    (kernels / "combat.play_combat-1.py311.nbi").write_text("x")
    monkeypatch.setattr(cache, "_DONE", False)
    assert not cache.drop_stale_kernel_cache()  # same sources: the cache is kept
    assert (kernels / "combat.play_combat-1.py311.nbi").exists()
    monkeypatch.setattr(cache, "fingerprint", lambda: "changed")
    monkeypatch.setattr(cache, "_DONE", False)
    assert cache.drop_stale_kernel_cache()
    assert not (kernels / "combat.play_combat-1.py311.nbi").exists()
