"""Mythos Solo (Revenge rules, Mythos Solo): setup, a Mythos card flipped after the movement
check on non-illuminated spaces with its TP cost ignored, combat cards waiting for their
combat, base-game scoring; the mode for the runner, simulate and replay."""

import numpy as np
import pytest
from conftest import put_old_one

from simkit import analysis
from simkit.cli import main
from simkit.datapack import load_pack
from simkit.game.engine import Engine, make_spec
from simkit.game.streams import game_streams
from simkit.kernels.game_mythos_solo import mythos_solo_turn
from simkit.kernels.game_oop import revenge_port_defence
from simkit.kernels.game_setup import setup_game, setup_row
from simkit.kernels.low import game_layout as L
from simkit.modes import get_mode
from simkit.revenge.mythos import EFFECTS


@pytest.fixture(scope="module")
def eng():
    return Engine()


def _setup(eng, seed=3, difficulty="normal"):
    spec = make_spec("mythos-solo", 1, "balanced", difficulty=difficulty)
    X = eng.state
    X.sid[:] = 0
    X.params[:] = 0
    X.sid[0] = spec.strategies[0].sid
    X.params[0] = spec.strategies[0].lower()
    X.oop_params[:] = 0.0
    mode, start, coal, iron, gold, diff, ruleset = eng._mode_args(spec)
    assert mode == L.MODE_MYTHOS_SOLO
    setup_game(
        game_streams(seed),
        eng.S,
        eng.X,
        eng.W,
        setup_row(
            1, mode, start, coal, iron, gold, difficulty=diff, ruleset=ruleset, log_on=1, checked=1
        ),
    )
    return X


def _top(eng, effect):
    """Put the card with ``effect`` on top of the Mythos draw pile; returns it."""
    X = eng.state
    c = int(np.flatnonzero(eng.arrays.myth_effect == EFFECTS.index(effect))[0])
    pos = int(X.g[L.G_MYTHOS_POS])
    j = int(np.flatnonzero(X.mythos_deck == c)[0])
    X.mythos_deck[j], X.mythos_deck[pos] = X.mythos_deck[pos], X.mythos_deck[j]
    return c


def _space(eng, illuminated):
    """A space after 22 whose successor is (not) illuminated."""
    ill = eng.arrays.illuminated
    return next(t for t in range(22, 52) if bool(ill[t + 1]) == illuminated)


def test_setup_port_4_two_infantry_a_personality_and_the_mythos_deck(eng):
    X = _setup(eng, difficulty="easy")
    rules = eng.rules
    assert X.g[L.G_MODE] == L.MODE_MYTHOS_SOLO and X.g[L.G_OO_TIME] == 22 and X.g[L.G_AWAKE] == 0
    assert X.pl[0, L.P_TIME] == rules.solo_start
    assert tuple(X.pl[0, L.P_RES : L.P_RES + 3]) == tuple(rules.solo_levels["easy"])
    assert X.pl[0, L.P_PORT_STRENGTH] == 4 and X.pl[0, L.P_UNITS + L.INFANTRY] == 2
    assert bin(int(X.pl[0, L.P_PERS])).count("1") == 1
    assert (X.hx[:, L.H_SPAWN] < 0).all()  # no Spawn tiles
    assert (X.tile_hex >= 0).sum() > 0  # the survey placed Old One tiles
    assert X.mythos_hand.sum() == 0 and X.g[L.G_MYTHOS_LEFT] == eng.arrays.myth_effect.size
    assert sorted(X.mythos_deck.tolist()) == list(range(eng.arrays.myth_effect.size))
    assert (X.g[L.G_OOP_LEFT : L.G_OOP_LEFT + 3] == 0).all()  # no Old One player supply


def test_a_mythos_card_is_flipped_on_non_illuminated_spaces_only(eng):
    X = _setup(eng)
    X.g[L.G_AWAKE] = 1
    t = _space(eng, illuminated=False)
    X.g[L.G_OO_TIME] = t
    left = int(X.g[L.G_MYTHOS_LEFT])
    mythos_solo_turn(game_streams(0), eng.S, eng.X, eng.W)
    assert (
        X.g[L.G_OO_TIME] == t + 1
        and X.g[L.G_MYTHOS_FLIPPED] == 1
        and X.g[L.G_MYTHOS_LEFT] == left - 1
    )
    t = _space(eng, illuminated=True)
    X.g[L.G_OO_TIME] = t
    rev = int(X.g[L.G_REV_POS])
    mythos_solo_turn(game_streams(0), eng.S, eng.X, eng.W)
    assert X.g[L.G_MYTHOS_FLIPPED] == 1 and X.g[L.G_MYTHOS_LEFT] == left - 1
    assert X.g[L.G_REV_POS] == rev + 1  # a Revelation card instead


def test_the_tp_cost_of_a_flipped_card_is_ignored(eng):
    X = _setup(eng)
    X.g[L.G_AWAKE] = 1
    c = _top(eng, "block_action_boxes")  # Nyarlathotep costs 2 TP in a Revenge game
    assert eng.arrays.myth_tp[c] == 2
    t = _space(eng, illuminated=False)
    X.g[L.G_OO_TIME] = t
    hq = int(X.pl[0, L.P_HQ])
    mythos_solo_turn(game_streams(0), eng.S, eng.X, eng.W)
    assert X.g[L.G_OO_TIME] == t + 1 and X.g[L.G_MYTHOS_PLAYED] == 1
    assert X.pl[0, L.P_HQ] == hq - eng.arrays.myth_amount[c]  # the cube went to an action box


def test_a_flipped_combat_card_waits_and_then_applies_without_a_choice(eng):
    X = _setup(eng)
    X.g[L.G_AWAKE] = 1
    c = _top(eng, "ghoul_joins_combat")
    X.g[L.G_OO_TIME] = _space(eng, illuminated=False)
    mythos_solo_turn(game_streams(0), eng.S, eng.X, eng.W)
    assert X.mythos_hand[c] == 1 and X.g[L.G_MYTHOS_COMBAT] == 0
    assert X.oop_params[L.OP_COMBAT_MYTHOS] == 0.0  # nobody decides in the solo game
    h = int(X.pl[0, L.P_PORT])
    i = int(np.flatnonzero((eng.arrays.tile_type == L.SHOGGOTH) & (X.tile_hex < 0))[0])
    X.tile_hex[i], X.tile_state[i], X.tile_up[i], X.hex_blocked[h] = h, L.TILE_BOARD, True, True
    X.hex_old_ones[h] = True
    infantry = int(X.pl[0, L.P_UNITS + L.INFANTRY])
    assert infantry > 0
    tp = int(X.g[L.G_OO_TIME])
    revenge_port_defence(game_streams(1), eng.S, eng.X, eng.W, 0)
    assert X.mythos_hand[c] == 0 and X.g[L.G_MYTHOS_COMBAT] == 1 and X.g[L.G_OO_TIME] == tp
    assert X.pl[0, L.P_LOST + L.INFANTRY] >= 1


def test_the_movement_check_comes_before_the_mythos_card(eng):
    spec = make_spec("mythos-solo", 1, "balanced", difficulty="normal")
    rows, logs = eng.play_many(spec, 31, 0, 60, log=True, checked=True)
    flips = 0
    for lg in logs:
        turn_has_flip = False
        for kind, _t, _actor, _a, b, _c, d, _e in lg.tolist():
            if kind == L.EV_OO_TURN or kind == L.EV_ACTION:
                turn_has_flip = False
            elif kind == L.EV_MYTHOS and b in (
                L.MYTHOS_FLIPPED,
                L.MYTHOS_PENDING,
                L.MYTHOS_NO_EFFECT,
            ):
                turn_has_flip = True
                flips += 1
            elif kind == L.EV_MOVE and d >= 0:  # a move by an Old One card, not by a Mythos card
                assert not turn_has_flip
    assert flips > 0


def test_scoring_is_the_base_games_and_the_old_ones_win_ties(eng):
    spec = make_spec("mythos-solo", 1, "balanced", difficulty="normal")
    rows, _ = eng.play_many(spec, 8, 0, 300, checked=True)
    assert (rows[:, L.S_MODE] == L.MODE_MYTHOS_SOLO).all() and rows[:, L.S_VIOLATIONS].sum() == 0
    oo = rows[:, L.S_OO_VP_REVEALED] + rows[:, L.S_OO_VP_UNREVEALED] + rows[:, L.S_OO_VP_BLIGHTED]
    assert (oo == rows[:, L.S_OO_VP]).all() and rows[:, L.S_OO_VP_UNREVEALED].max() > 0  # doubling
    p0 = rows[:, L.S_PLAYER0 + L.SUM_P_VP]
    assert ((rows[:, L.S_OLD_ONES_WIN] == 1) == (rows[:, L.S_OO_VP] >= p0)).all()


def test_mode_registered_and_runs():
    mode = get_mode("mythos-solo")
    params = mode.validate({"difficulty": "hard", "strategy": "hunter"})
    out = mode.run_chunk(params, load_pack(), 7, 0, 5, frozenset({"summary"}))
    s = out["summary"]
    assert (
        len(s["game_index"]) == 5
        and (s["violations"] == 0).all()
        and (s["mode"] == L.MODE_MYTHOS_SOLO).all()
    )
    assert s["mythos_flipped"].dtype == np.int64 and (s["mythos_flipped"] > 0).all()
    assert (
        mode.run_chunk(params, load_pack(), 7, 0, 5, frozenset({"summary"}))["summary"]["oo_vp"]
        == s["oo_vp"]
    ).all()
    with pytest.raises(Exception, match="difficulty"):
        mode.validate({"difficulty": "heroic"})


def test_cli_simulate_and_replay(tmp_path, capsys):
    code = main(
        [
            "simulate",
            "--mode",
            "mythos-solo",
            "--difficulty",
            "easy",
            "--games",
            "30",
            "--seed",
            "4",
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
        .to_pandas()
    )
    assert len(t) == 30 and (t["mode"] == L.MODE_MYTHOS_SOLO).all() and t["violations"].sum() == 0
    capsys.readouterr()
    assert main(
        ["replay", "--seed", "4", "--game", "12", "--mode", "mythos-solo", "--difficulty", "easy"]
    ) in (0, None)
    out = capsys.readouterr().out
    row = t[t.game_index == 12].iloc[0]
    assert f"score: Old Ones {row.oo_vp} VP" in out and f"score: P0 balanced {row.p0_vp} VP" in out
    assert "Mythos " in out
    assert (
        main(
            [
                "simulate",
                "--mode",
                "mythos-solo",
                "--players",
                "2",
                "--games",
                "2",
                "--out",
                str(tmp_path / "b"),
            ]
        )
        == 2
    )
    assert (
        main(["replay", "--seed", "1", "--game", "0", "--mode", "mythos-solo", "--oop", "rusher"])
        == 2
    )


def _put_up(eng, h, ttype):
    return put_old_one(eng, h, ttype, never=(L.TILE_BOARD,))


def test_dark_young_uses_the_temple_closest_to_the_port_or_an_outpost(eng):
    """Solo notes: 'If more than one Temple, use the one closest to your Port/Outpost.'"""
    from simkit.kernels.game_mythos_cards import play_mythos

    X = _setup(eng)
    S = eng.arrays
    port = int(X.pl[0, L.P_PORT])
    dist = X.port_dist[0]
    free = [h for h in range(X.hx.shape[0]) if X.hx[h, L.H_PORT_OWNER] < 0 and not X.hex_blocked[h]]
    outpost = max(free, key=lambda h: (dist[h], -h))  # far from the Port
    near_outpost = next(
        int(m)
        for m in S.neighbors[outpost]
        if m >= 0 and not X.hex_blocked[m] and X.hx[m, L.H_PORT_OWNER] < 0
    )
    near_port = next(h for h in free if dist[h] == 3)  # nearer the Port, farther than 1
    assert dist[near_outpost] > 3
    X.hx[outpost, L.H_OUTPOST] = 0
    X.pl[0, L.P_OUTPOSTS] = 1
    _put_up(eng, near_port, L.TEMPLE)
    _put_up(eng, near_outpost, L.TEMPLE)
    c = int(np.flatnonzero(eng.arrays.myth_effect == EFFECTS.index("level3_at_temple"))[0])
    play_mythos(game_streams(0), eng.S, eng.X, eng.W, c, 0, L.MYTHOS_FLIPPED, 0)
    assert (X.tile_hex == near_outpost).sum() == 2 and (X.tile_hex == near_port).sum() == 1
    assert port >= 0


def test_the_solo_player_may_pay_a_gold_to_refresh_the_personality_display(eng):
    """Solo FAQ: 'Can I pay a Gold to refresh the Personalities on display? A) Yes.'"""
    from simkit.kernels.game_actions import recruit

    X = _setup(eng)
    X.params[0, L.HP_PERS_W : L.HP_PERS_W + len(L.EFFECT_NAMES)] = 0.0  # wants none of them
    X.pl[0, L.P_RES + L.GOLD] = 5
    shown = {int(c) for c in X.display if c >= 0}
    X.g[L.G_LOG_N] = 0
    recruit(game_streams(0), eng.S, eng.X, eng.W, 0)
    log = X.log[: X.g[L.G_LOG_N]]
    refresh = [r for r in log if r[0] == L.EV_REVENGE and r[3] == L.RV_REFRESH]
    assert len(refresh) == 1 and X.g[L.G_ILLEGAL] == 0
    assert not any(
        r[0] == L.EV_REVENGE and r[3] == L.RV_CYCLE for r in log
    )  # no free Revenge cycle
    recruited = [int(r[3]) for r in log if r[0] == L.EV_RECRUIT]
    assert recruited and recruited[0] not in shown  # from the new display
    assert X.pl[0, L.P_RES + L.GOLD] <= 5 - eng.rules.r[L.R_REFRESH_GOLD]
