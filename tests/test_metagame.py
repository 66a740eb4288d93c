"""simkit.analysis.metagame: the equilibrium of the matrix game between two sides' players."""

from __future__ import annotations

import numpy as np
import pytest

from simkit.analysis import metagame as mg
from simkit.errors import UserError


def test_rock_paper_scissors_is_even_and_uniform():
    rps = np.array([[0.5, 1.0, 0.0], [0.0, 0.5, 1.0], [1.0, 0.0, 0.5]])
    eq = mg.solve(rps)
    assert eq.value == pytest.approx(0.5, abs=1e-9)
    np.testing.assert_allclose(eq.humans, [1 / 3] * 3, atol=1e-9)
    np.testing.assert_allclose(eq.oop, [1 / 3] * 3, atol=1e-9)


def test_a_two_by_two_game_without_a_saddle_mixes_as_the_closed_form_says():
    # humans (rows) minimise: p * 0.9 + (1 - p) * 0.4 = p * 0.3 + (1 - p) * 0.8 at p = 0.4;
    # the OOP (columns): 0.9 q + 0.3 (1 - q) = 0.4 q + 0.8 (1 - q) at q = 0.5; value 0.6
    eq = mg.solve([[0.9, 0.3], [0.4, 0.8]])
    assert eq.value == pytest.approx(0.6, abs=1e-9)
    np.testing.assert_allclose(eq.humans, [0.4, 0.6], atol=1e-9)
    np.testing.assert_allclose(eq.oop, [0.5, 0.5], atol=1e-9)


def test_a_saddle_point_is_played_pure():
    # row 1 is the humans' best against every OOP; column 1 the OOP's best against it
    eq = mg.solve([[0.7, 0.9], [0.6, 0.8]])
    assert eq.value == pytest.approx(0.8, abs=1e-9)
    np.testing.assert_allclose(eq.humans, [0.0, 1.0], atol=1e-9)
    np.testing.assert_allclose(eq.oop, [0.0, 1.0], atol=1e-9)


def test_a_dominated_player_gets_no_weight_and_changes_nothing():
    base = np.array([[0.9, 0.3], [0.4, 0.8]])
    worse = np.vstack([base, base[0] + 0.05])  # concedes more than row 0 to every OOP
    eq = mg.solve(worse)
    assert eq.humans[2] == pytest.approx(0.0, abs=1e-9)
    assert eq.value == pytest.approx(mg.solve(base).value, abs=1e-9)


@pytest.mark.parametrize("seed", range(6))
def test_no_player_of_either_side_gains_by_leaving_the_equilibrium(seed):
    a = np.random.default_rng(seed).random((7, 5))
    eq = mg.solve(a)
    # the OOP's best single player against the humans' mixture wins no more than the value,
    # and the humans' best single player against the OOP's mixture concedes no less
    assert (eq.humans @ a).max() == pytest.approx(eq.value, abs=1e-7)
    assert (a @ eq.oop).min() == pytest.approx(eq.value, abs=1e-7)
    assert eq.humans.sum() == pytest.approx(1.0) and eq.oop.sum() == pytest.approx(1.0)
    assert (eq.humans >= 0).all() and (eq.oop >= 0).all()


def test_the_bootstrap_is_reproducible_and_pairs_matrices_of_the_same_deals():
    rng = np.random.default_rng(3)
    wins = rng.random((3, 2, 400)) < np.array([[0.8, 0.6], [0.5, 0.7], [0.9, 0.9]])[..., None]
    first = mg.bootstrap_values(wins, draws=50, seed=7)
    again = mg.bootstrap_values(wins, draws=50, seed=7)
    np.testing.assert_array_equal(first, again)
    # a second matrix of the same deals resampled with the same seed: a zero step every draw
    np.testing.assert_array_equal(first - mg.bootstrap_values(wins.copy(), 50, seed=7), 0.0)
    low, high = mg.percentile_interval(first)
    assert low <= mg.solve(mg.win_matrix(wins)).value <= high
    assert high - low < 0.2


def test_resample_weights_count_every_game_drawn():
    w = mg.resample_weights(games=10, draws=4, seed=1)
    assert w.shape == (10, 4)
    np.testing.assert_allclose(w.sum(axis=0), 1.0)  # each resample draws 10 of 10 games
    np.testing.assert_allclose(w * 10, np.round(w * 10))  # whole counts


@pytest.mark.parametrize("bad", [np.zeros((0, 3)), np.zeros(3), [[0.5, np.nan]]])
def test_a_matrix_that_is_not_a_game_is_refused_in_one_line(bad):
    with pytest.raises(UserError, match="finite, non-empty matrix"):
        mg.solve(bad)


def _games(pairs, deals=3):
    import polars as pl

    rows = [
        {
            "strategies": s,
            "oop": o,
            "root_seed": 1,
            "chunk_id": 0,
            "game_index": k,
            "old_ones_win": (k + len(s) + len(o)) % 2,
        }
        for s, o in pairs
        for k in range(deals)
    ]
    return pl.DataFrame(rows)


def test_wins_by_pair_lays_each_pairs_games_out_by_deal():
    frame = _games([(s, o) for s in ("a", "bb") for o in ("x", "yy", "zzz")])
    hum, oop, wins = mg.wins_by_pair(frame.reverse())  # row order does not matter
    assert (hum, oop) == (["a", "bb"], ["x", "yy", "zzz"])
    assert wins.shape == (2, 3, 3)
    assert wins[1, 2].tolist() == [(k + 2 + 3) % 2 for k in range(3)]


def test_wins_by_pair_refuses_a_missing_pair_or_other_deals():
    with pytest.raises(UserError, match="3 of 2 x 2 pairs played"):
        mg.wins_by_pair(_games([("a", "x"), ("a", "y"), ("b", "x")]))
    import polars as pl

    frame = _games([("a", "x"), ("b", "x")])
    moved = frame.with_columns(
        game_index=pl.when(pl.col("strategies") == "b")
        .then(pl.col("game_index") + 5)
        .otherwise(pl.col("game_index"))
    )
    with pytest.raises(UserError, match="b against x did not play the same deals"):
        mg.wins_by_pair(moved)
