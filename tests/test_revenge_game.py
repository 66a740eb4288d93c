"""Revenge of the Old Ones: whole games (conformance, fuzzing with invariants) and rules
on constructed states."""

import numpy as np
import pytest
from conftest import revenge_position

from simkit.errors import UserError
from simkit.game.engine import Engine, make_spec
from simkit.kernels.game_oop import (
    place_legal,
    place_levels,
    place_sites,
    take_spawn,
)
from simkit.kernels.low import game_layout as L

S_COL = {n: i for i, n in enumerate(L.SUMMARY_COLUMNS)}


@pytest.fixture(scope="module")
def eng():
    return Engine()


def _game(
    eng, seed, humans=2, strategies="balanced", oop="rusher", difficulty="normal", ruleset="revenge"
):
    spec = make_spec("revenge", humans, strategies, difficulty=difficulty, ruleset=ruleset, oop=oop)
    row, _ = eng.play(np.random.default_rng(seed), spec, checked=True)
    return row


@pytest.mark.parametrize("oop", ["rusher", "blighter", "mythos", "random"])
@pytest.mark.parametrize("difficulty", ["normal", "hard", "heroic"])
def test_whole_games_keep_invariants(eng, oop, difficulty):
    for seed in range(6):
        for humans in (1, 2, 3, 4):
            row = _game(
                eng,
                seed * 7 + humans,
                humans=humans,
                oop=oop,
                difficulty=difficulty,
                strategies="random" if seed % 2 else "balanced",
            )
            assert row[S_COL["violations"]] == 0, (seed, humans, row[S_COL["first_violation"]])
            assert row[S_COL["illegal"]] == 0
            assert row[S_COL["end_reason"]] in (L.END_TIME, L.END_PORT)
            assert row[S_COL["mode"]] == L.MODE_REVENGE
            assert row[S_COL["old_ones_win"]] + row[S_COL["humans_win"]] == 1
            assert row[S_COL["oo_vp_unrevealed"]] == 0  # no doubling in Revenge
            assert eng.state.g[L.G_OO_TIME] <= 53


def test_fuzz_mixed_strategies_alt_ruleset(eng, learned_oop_file):
    names = ["balanced", "economist", "hunter", "defender", "random", "search:rollouts=1"]
    rng = np.random.default_rng(5)
    for seed in range(40):
        humans = int(rng.integers(1, 5))
        strat = ",".join(names[int(rng.integers(len(names)))] for _ in range(humans))
        row = _game(
            eng,
            1000 + seed,
            humans=humans,
            strategies=strat,
            oop=["rusher", "blighter", "mythos", "random"][seed % 4],
            difficulty=["normal", "hard", "heroic"][seed % 3],
            ruleset=["revenge", "revenge-alt"][seed % 2],
        )
        assert row[S_COL["violations"]] == 0 and row[S_COL["illegal"]] == 0
    # the learned Old One player (random weights) against the same mixed tables
    for seed in range(12):
        humans = 1 + seed % 4
        row = _game(
            eng,
            2000 + seed,
            humans=humans,
            strategies=",".join(names[(seed + k) % len(names)] for k in range(humans)),
            oop=learned_oop_file,
            difficulty=["normal", "hard", "heroic"][seed % 3],
            ruleset=["revenge", "revenge-alt"][seed % 2],
        )
        assert row[S_COL["violations"]] == 0 and row[S_COL["illegal"]] == 0


def test_setup_revenge(eng):
    # a game that ends at once is not needed: look at the state right after play's setup
    X = revenge_position(eng, 3, oop="rusher", shuffle_seats=True)
    g = X.g
    assert g[L.G_AWAKE] == 1 and g[L.G_OO_TIME] == 10 and g[L.G_OO_ARRIVAL] == 0
    assert list(g[L.G_OOP_LEFT : L.G_OOP_LEFT + 3]) == [9, 6, 4]
    assert X.mythos_hand.sum() == 3 and g[L.G_MYTHOS_LEFT] == eng.arrays.myth_effect.size - 3
    assert (X.tile_hex >= 0).sum() == 0  # no Old Ones at setup, Spawn tiles instead
    spawn = X.hx[:, L.H_SPAWN]
    assert (spawn >= 0).sum() > 0 and X.hex_blocked[spawn >= 0].all()
    for p in range(2):
        assert X.pl[p, L.P_UNITS + L.INFANTRY] == 2 and X.pl[p, L.P_RES + L.GOLD] == 6
        assert X.pl[p, L.P_PORT_STRENGTH] == 4
        assert bin(int(X.pl[p, L.P_PERS])).count("1") == 1
    # placement legality: level rule and Dangerous +1
    S = eng.S
    lev = eng.arrays.hex_level
    for h in np.flatnonzero(spawn >= 0):
        for lv in (1, 2, 3):
            assert place_legal(S, eng.X, h, lv) == (lev[h] + spawn[h] >= lv)
    h1 = int(np.flatnonzero(spawn >= 0)[0])
    X.hx[h1, L.H_SPAWN] = 0
    assert place_legal(S, eng.X, h1, lev[h1]) and not place_legal(S, eng.X, h1, lev[h1] + 1)
    X.hx[h1, L.H_SPAWN] = 1
    assert place_legal(S, eng.X, h1, lev[h1] + 1)
    # the largest set first (level 1), lower levels always allowed
    out = np.zeros(3, dtype=np.int64)
    assert place_levels(eng.X, out) == 0 and list(out) == [1, 0, 0]
    g[L.G_OOP_LEFT : L.G_OOP_LEFT + 3] = (2, 6, 4)
    assert place_levels(eng.X, out) == 1 and list(out) == [1, 1, 0]
    # stacking only when no empty Spawn tile of the level is left
    k = place_sites(S, eng.X, eng.W, 1)
    sites = set(eng.work.hexes[:k].tolist())
    assert sites == {int(h) for h in np.flatnonzero(spawn >= 0)}
    # Spawn tile taken by an attack: 1 VP, no longer blocking
    take_spawn(eng.X, h1, 0, 0)
    assert X.pl[0, L.P_SPAWNS] == 1 and X.pl[0, L.P_VP_TOKENS] == 1 and not X.hex_blocked[h1]


def test_bad_input(eng):
    with pytest.raises(UserError):
        make_spec("revenge", 2, "balanced", difficulty="brutal")
    with pytest.raises(UserError):
        make_spec("revenge", 2, "balanced", ruleset="nope")
    with pytest.raises(UserError):
        make_spec("revenge", 2, "balanced", oop="nobody")


def test_mode_registered_and_runs():
    from simkit.datapack import load_pack
    from simkit.modes import get_mode

    mode = get_mode("revenge")
    params = mode.validate({"humans": 2, "difficulty": "hard", "oop": "mythos"})
    out = mode.run_chunk(params, load_pack(), 7, 0, 5, frozenset({"summary"}))
    s = out["summary"]
    assert len(s["game_index"]) == 5 and s["oop_vp_tokens"].dtype == np.int64
    assert (s["violations"] == 0).all()
    out2 = mode.run_chunk(params, load_pack(), 7, 0, 5, frozenset({"summary"}))
    assert (out2["summary"]["oo_vp"] == s["oo_vp"]).all()  # reproducible per seed


def test_cli_simulate_revenge(tmp_path):
    from simkit import analysis
    from simkit.cli import main

    code = main(
        [
            "simulate",
            "--mode",
            "revenge",
            "--humans",
            "2",
            "--difficulty",
            "heroic",
            "--rules",
            "revenge-alt",
            "--oop",
            "random",
            "--games",
            "20",
            "--checked",
            "--out",
            str(tmp_path / "o"),
        ]
    )
    assert code in (0, None)
    t = (
        analysis.open_lake(tmp_path / "o")
        .scan()
        .collect()
        .sort(["chunk_id", "game_index"])
        .to_dict(as_series=False)
    )
    assert (
        len(t["old_ones_win"]) == 20
        and set(t["ruleset"]) == {"revenge-alt"}
        and sum(t["violations"]) == 0
    )
    assert (
        main(
            [
                "simulate",
                "--mode",
                "revenge",
                "--difficulty",
                "brutal",
                "--games",
                "2",
                "--out",
                str(tmp_path / "b"),
            ]
        )
        == 2
    )


def test_cli_replay_rebuilds_a_revenge_row(tmp_path, capsys):
    from simkit import analysis
    from simkit.cli import main

    assert main(
        [
            "simulate",
            "--mode",
            "revenge",
            "--humans",
            "3",
            "--difficulty",
            "hard",
            "--oop",
            "blighter",
            "--games",
            "25",
            "--seed",
            "6",
            "--out",
            str(tmp_path / "o"),
        ]
    ) in (0, None)
    t = (
        analysis.open_lake(tmp_path / "o")
        .scan()
        .collect()
        .sort(["chunk_id", "game_index"])
        .to_pandas()
    )
    capsys.readouterr()
    game = int(t.loc[t.oo_turns.idxmax(), "game_index"])  # a game in which the OOP acted most
    assert main(
        [
            "replay",
            "--seed",
            "6",
            "--game",
            str(game),
            "--mode",
            "revenge",
            "--humans",
            "3",
            "--difficulty",
            "hard",
            "--oop",
            "blighter",
        ]
    ) in (0, None)
    out = capsys.readouterr().out
    row = t[t.game_index == game].iloc[0]
    assert "# Old One player: blighter, difficulty hard, ruleset revenge" in out
    assert f"score: Old One player {row.oo_vp} VP" in out
    for p in range(3):
        assert f" {row[f'p{p}_vp']} VP (farms" in out
    assert "Old One player: purple disc" in out and ("place: " in out or "summon: " in out)
    assert main(["replay", "--seed", "6", "--game", "0", "--mode", "base", "--oop", "rusher"]) == 2
