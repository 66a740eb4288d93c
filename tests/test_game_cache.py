"""The engine's numba cache is dropped when any source it is compiled from changes."""

from __future__ import annotations

from simkit.game import cache


def test_fingerprint_covers_the_engine_and_its_dependencies():
    names = {p.name for p in cache.source_files()}
    for n in ("game_loop.py", "game_actions.py", "movement.py", "board.py", "combat.py", "policy.py",
              "allocation.py"):
        assert n in names


def test_stale_cache_files_are_deleted_and_the_stamp_renewed(tmp_path, monkeypatch):
    kernels, strat = tmp_path / "k", tmp_path / "s"
    kernels.mkdir()
    strat.mkdir()
    for f in ("game_loop.play_game-1.py311.nbi", "game_loop.play_game-1.py311.1.nbc", "board.x-1.py311.nbi"):
        (kernels / f).write_text("x")
    (strat / "policy.choose_action-9.py311.nbi").write_text("x")
    (strat / "unrelated.f-1.py311.nbi").write_text("x")
    monkeypatch.setattr(cache, "_cache_dirs", lambda: [kernels, strat])
    monkeypatch.setattr(cache, "_DONE", False)
    assert cache.drop_stale_engine_cache()
    assert sorted(p.name for p in kernels.iterdir()) == ["board.x-1.py311.nbi", cache.STAMP]
    assert sorted(p.name for p in strat.iterdir()) == ["unrelated.f-1.py311.nbi"]
    (kernels / "game_loop.play_game-1.py311.nbi").write_text("x")
    monkeypatch.setattr(cache, "_DONE", False)
    assert not cache.drop_stale_engine_cache()          # same sources: the cache is kept
    assert (kernels / "game_loop.play_game-1.py311.nbi").exists()
    monkeypatch.setattr(cache, "fingerprint", lambda: "changed")
    monkeypatch.setattr(cache, "_DONE", False)
    assert cache.drop_stale_engine_cache()
    assert not (kernels / "game_loop.play_game-1.py311.nbi").exists()
