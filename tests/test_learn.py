"""The learned player (strategies.human.learned) and `simkit learn` (simkit.learn): the
jitted box scoring is the linear model the file states, its files are validated, it
plays legal games, and the expert-iteration loop resumes and reproduces."""

from __future__ import annotations

import json
import tomllib
from pathlib import Path

import numpy as np
import polars as pl
import pytest

from simkit.errors import UserError
from simkit.game.engine import Engine, make_spec
from simkit.game.streams import game_streams, single_stream
from simkit.kernels.game_loop import NOBODY, advance, step_seat
from simkit.kernels.game_search import legal_boxes
from simkit.kernels.low import game_layout as L
from strategies.human import learned
from strategies.registry import parse_one

NF, NB = L.LEARN_NUM_FEATURES, L.NUM_BOXES
NA, NFO = L.NUM_OOP_ACTIONS, L.OOP_LEARN_NUM_FEATURES
SHIPPED_SEL_OOP = (
    Path(__file__).parents[1] / "experiments/strategies/learned_sel_oop_revenge_2h_normal.toml"
)


def write_weights(path, weights, base=None, features=None, choices=None, side="human", fmt=None):
    """A weights file of the human (boxes) or the Old One (``side="oop"``, actions) player."""
    oop = side == "oop"
    features = (
        list(L.OOP_LEARN_FEATURES if oop else L.LEARN_FEATURES) if features is None else features
    )
    choices = list(L.OOP_ACTION_NAMES if oop else L.BOX_NAMES) if choices is None else choices
    fmt = fmt or ("simkit-learned-oop/1" if oop else "simkit-learned/1")
    base = base or ("rusher" if oop else "balanced")
    rows = ",\n".join("  [" + ", ".join(repr(float(w)) for w in r) + "]" for r in weights)
    path.write_text(
        f"[learned]\nformat = '{fmt}'\nbase = '{base}'\nfeatures = {json.dumps(features)}\n"
        f"{'actions' if oop else 'boxes'} = {json.dumps(choices)}\nweights = [\n{rows}\n]\n"
    )
    return path


def write_oop_weights(path, weights, **kw):
    return write_weights(path, weights, side="oop", **kw)


@pytest.fixture(scope="module")
def eng():
    return Engine()


@pytest.fixture
def random_file(tmp_path):
    w = np.random.default_rng(3).normal(size=(NB, NF))
    return write_weights(tmp_path / "w.toml", w), w


def test_the_jitted_choice_is_the_best_legal_box_of_the_linear_model(eng, random_file):
    path, w = random_file
    player = parse_one(f"learned:{path}")
    assert isinstance(player, learned.Learned) and player.sid == learned.LEARNED_SID
    spec = make_spec("base", 2, [f"learned:{path}", "balanced"])
    rngs = game_streams(8)
    eng.set_up(rngs, spec, checked=True)
    legal = np.zeros(NB, dtype=bool)
    feats = np.zeros(NF)
    checked = 0
    for _ in range(200):
        p = advance(rngs, eng.S, eng.X, eng.W, 0b11)
        if p == NOBODY:
            break
        if eng.state.sid[p] == learned.LEARNED_SID:
            legal_boxes(eng.S, eng.X, eng.W, p, legal)
            learned.turn_features(eng.S, eng.X, eng.W, p, feats)
            allowed = [b for b in range(NB) if learned.ok(eng.S, eng.X, eng.W, p, b)]
            want = max(allowed, key=lambda b: float(w[b] @ feats)) if allowed else L.BOX_RETRIEVE
            got = learned.choose_action(single_stream(1), eng.S, eng.X, eng.W, p)
            assert got == want
            checked += 1
        step_seat(rngs, eng.S, eng.X, eng.W, p, -1)
    assert checked >= 10


def test_features_follow_the_position(eng):
    """Gold in the seat's supply moves the gold feature and nothing the rule does not name."""
    spec = make_spec("base", 2, ["balanced", "balanced"])
    rngs = game_streams(2)
    eng.set_up(rngs, spec, checked=True)
    p = advance(rngs, eng.S, eng.X, eng.W, 0b11)
    legal = np.zeros(NB, dtype=bool)
    legal_boxes(eng.S, eng.X, eng.W, p, legal)
    a, b = np.zeros(NF), np.zeros(NF)
    learned.turn_features(eng.S, eng.X, eng.W, p, a)
    eng.state.pl[p, L.P_RES + L.GOLD] += 5
    learned.turn_features(eng.S, eng.X, eng.W, p, b)
    gold = L.LEARN_FEATURES.index("gold")
    assert b[gold] - a[gold] == pytest.approx(0.5)
    assert a[0] == b[0] == 1.0


@pytest.mark.parametrize(
    "side, edit, words",
    [
        ("human", {"features": ["bias", "bias"]}, "learned.features"),
        ("human", {"features": ["time", "bias"]}, "learned.features"),
        ("human", {"features": ["bias", "vp"]}, "learned.features"),
        ("human", {"choices": ["rail"]}, "learned.boxes"),
        ("human", {"weights": [[0.0] * NF] * (NB - 1)}, rf"must hold {NB} rows \(one per box\)"),
        ("human", {"weights": [[0.0] * (NF - 1)] * NB}, r"row 1 \(rail\)"),
        ("human", {"base": "nobody"}, "unknown strategy 'nobody'"),
        ("oop", {"fmt": "simkit-learned/1"}, "format = 'simkit-learned-oop/1'"),
        ("oop", {"features": list(L.LEARN_FEATURES)}, "learned.features"),
        ("oop", {"choices": ["place", "move"]}, "learned.actions"),
        ("oop", {"weights": [[0.0] * NFO] * (NA - 1)}, rf"must hold {NA} rows \(one per action\)"),
        ("oop", {"weights": [[0.0] * (NFO + 1)] * NA}, rf"row 1 \(place\) must hold {NFO} finite"),
        ("oop", {"base": "balanced"}, "unknown Old One strategy 'balanced'"),
        ("oop", {"base": "random"}, "a heuristic Old One strategy"),
    ],
)
def test_a_bad_weights_file_is_one_line_naming_the_field(tmp_path, side, edit, words):
    from strategies.old_ones import parse_oop

    shape = (NA, NFO) if side == "oop" else (NB, NF)
    path = write_weights(tmp_path / "bad.toml", **{"weights": np.zeros(shape), **edit}, side=side)
    with pytest.raises(UserError, match=words):
        (parse_oop if side == "oop" else parse_one)(f"learned:{path}")


def test_a_file_naming_fewer_features_plays_as_zero_weights_on_the_others(eng, tmp_path):
    """A file written before features were added (the first 16) is the same player as
    its weights with 0 on every feature it does not name, move for move."""
    w = np.random.default_rng(5).normal(size=(NB, NF))
    w[:, 16:] = 0.0
    full = write_weights(tmp_path / "full.toml", w)
    old = write_weights(tmp_path / "old.toml", w[:, :16], features=list(L.LEARN_FEATURES[:16]))
    assert (
        parse_one(f"learned:{old}").lower().tolist()
        == parse_one(f"learned:{full}").lower().tolist()
    )
    rows = [
        eng.play_many(make_spec("revenge", 2, [f"learned:{f}"] * 2, oop="rusher"), 3, 0, 30)[0]
        for f in (old, full)
    ]
    np.testing.assert_array_equal(rows[0], rows[1])
    w[:, 16:] = 5.0 * np.random.default_rng(6).normal(size=(NB, NF - 16))  # they do count
    moved = write_weights(tmp_path / "moved.toml", w)
    spec = make_spec("revenge", 2, [f"learned:{moved}"] * 2, oop="rusher")
    assert not np.array_equal(eng.play_many(spec, 3, 0, 30)[0], rows[0])


def test_the_race_and_threat_features_follow_the_position(eng):
    """A farm of p's raises own_vp by the farm's VP and the race by as much; a blighted one
    raises the Old Ones' VP by the blight VP; an Old One mover next to p's farm makes it a
    farm at risk and brings the nearest mover to its Port closer."""
    spec = make_spec("revenge", 2, ["balanced", "balanced"], oop="rusher")
    rngs = game_streams(4)
    eng.set_up(rngs, spec, checked=True)
    X, S = eng.state, eng.arrays
    p = advance(rngs, eng.S, eng.X, eng.W, 0b11)
    f = {n: i for i, n in enumerate(L.LEARN_FEATURES)}
    a, b = np.zeros(NF), np.zeros(NF)
    learned.turn_features(eng.S, eng.X, eng.W, p, a)
    # a free hex next to p's Port becomes p's farm
    port = int(np.flatnonzero(X.port_dist[p] == 0)[0])
    near = [int(h) for h in S.neighbors[port] if h >= 0 and X.hex_farm[h] == 0]
    farm = near[0]
    X.hex_farm[farm] = 1
    X.hx[farm, L.H_FARM_OWNER] = p
    learned.turn_features(eng.S, eng.X, eng.W, p, b)
    vp = float(S.r[L.R_FARM_VP])
    assert b[f["own_vp"]] - a[f["own_vp"]] == pytest.approx(vp / 20)
    assert b[f["farms_at_risk"]] == a[f["farms_at_risk"]]
    # blighted: p loses the farm's VP, the Old One player gains R_REV_BLIGHT_VP
    X.hex_farm[farm] = 2
    c = np.zeros(NF)
    learned.turn_features(eng.S, eng.X, eng.W, p, c)
    assert c[f["own_vp"]] == pytest.approx(a[f["own_vp"]])
    assert c[f["old_ones_vp"]] - a[f["old_ones_vp"]] == pytest.approx(S.r[L.R_REV_BLIGHT_VP] / 20)
    # a face-up Old One that moves, two hexes from the farm: the farm is at risk
    X.hex_farm[farm] = 1
    mover = next(
        i
        for i in range(X.tile_hex.size)
        if S.tile_type[i] >= 0
        and S.tile_type[i] != L.TEMPLE
        and S.type_moves[S.tile_type[i]]
        and X.tile_hex[i] < 0
    )
    X.tile_hex[mover], X.tile_up[mover] = port, 1
    d = np.zeros(NF)
    learned.turn_features(eng.S, eng.X, eng.W, p, d)
    assert d[f["farms_at_risk"]] - b[f["farms_at_risk"]] == pytest.approx(1 / 5)
    assert d[f["movers_to_port"]] == 0.0 < b[f["movers_to_port"]]


def test_a_weights_file_of_another_kind_or_with_nan_is_refused(tmp_path):
    (tmp_path / "x.toml").write_text("[strategy]\nrole = 'human'\n")
    with pytest.raises(UserError, match="format = 'simkit-learned/1'"):
        parse_one(f"learned:{tmp_path / 'x.toml'}")
    w = np.zeros((NB, NF))
    path = write_weights(tmp_path / "n.toml", w)
    path.write_text(path.read_text().replace("0.0", "nan", 1))
    with pytest.raises(UserError, match="finite numbers"):
        parse_one(f"learned:{path}")


def test_a_learned_file_is_a_search_rollout_policy(random_file):
    path, _ = random_file
    s = parse_one(f"search:policy=learned:{path}:rollouts=2")
    assert s.rollouts == 2 and isinstance(s.base, learned.Learned)


def test_the_learned_player_conforms(eng, random_file):
    from test_game_conformance import conformance

    conformance(eng, f"learned:{random_file[0]}", games=40)


LEARN = ["learn", "--mode", "base", "--players", "2", "--generations", "1", "--games", "2"]
LEARN += ["--rate-games", "20", "--seed", "5"]


def run_learn(out, rollouts=1, argv=LEARN):
    import bad_inputs

    return bad_inputs.run_in_process([*argv, "--rollouts", str(rollouts), "--out", str(out)])


def check_learn_loop(tmp_path, argv, choices, rate_games, first):
    """One generation of ``argv``: every step written (the search took legal choices, the
    rating is against ``first``), a rerun resumes, the same seed in another folder writes
    the same files, other settings are refused in one line. Returns (folder, decisions)."""
    a, b = tmp_path / "a", tmp_path / "b"
    code, out, err = run_learn(a, argv=argv)
    assert code == 0, err
    assert "gen1: Old Ones win" in out and "[" in out
    decisions = pl.read_parquet(a / "gen1" / "decisions.parquet")
    assert decisions.height > 10 and decisions["chosen"].n_unique() >= 2
    legal = decisions.select([f"legal_{n}" for n in choices]).to_numpy()
    assert legal[np.arange(len(legal)), decisions["chosen"].to_numpy()].all()
    rating = json.loads((a / "gen1" / "rating.json").read_text())
    assert rating["games"] == rate_games and rating["against"][0]["name"].startswith(first)
    stamp = (a / "gen1" / "decisions.parquet").stat().st_mtime_ns
    assert run_learn(a, argv=argv)[0] == 0  # a rerun resumes: nothing recorded again
    assert (a / "gen1" / "decisions.parquet").stat().st_mtime_ns == stamp
    assert run_learn(b, argv=argv)[0] == 0  # same seed, another folder: the same files
    for name in ("gen1.toml", "gen1/rating.json"):
        assert (a / name).read_bytes() == (b / name).read_bytes(), name
    assert pl.read_parquet(b / "gen1" / "decisions.parquet").equals(decisions)
    code, _, err = run_learn(a, rollouts=2, argv=argv)
    assert code == 2 and "other settings" in err and len(err.strip().splitlines()) == 1
    return a, decisions


@pytest.mark.slow  # two recordings of search games and four rating runs
def test_learn_writes_each_step_resumes_and_reproduces(tmp_path):
    a, _ = check_learn_loop(tmp_path, LEARN, L.BOX_NAMES, 20, "balanced")
    parse_one(f"learned:{a / 'gen1.toml'}")  # the written file is a valid player


def test_a_player_that_always_attacks_gives_only_legal_answers(eng, tmp_path):
    """Attack chosen where the heuristic plans no target: the learned player names the
    engine's fallback target itself, so no answer is ever replaced."""
    w = np.zeros((NB, NF))
    w[L.BOX_ATTACK, 0] = 10.0
    path = write_weights(tmp_path / "attack.toml", w)
    for mode, kw in (("base", {}), ("revenge", {"difficulty": "normal", "oop": "rusher"})):
        spec = make_spec(mode, 2, [f"learned:{path}"] * 2, **kw)
        rows, _ = eng.play_many(spec, 31, 0, 100, checked=True)
        assert rows[:, L.S_ILLEGAL].sum() == 0 and rows[:, L.S_VIOLATIONS].sum() == 0, mode
        assert rows[:, L.SUMMARY_COLUMNS.index("p0_combats")].sum() > 100, mode


def test_simulate_with_a_learned_player_names_it_in_the_seats_table(random_file, tmp_path):
    import bad_inputs

    from simkit import analysis

    path, _ = random_file
    argv = ["simulate", "--mode", "base", "--strategies", f"learned:{path}", "--games", "20"]
    code, _, err = bad_inputs.run_in_process([*argv, "--out", str(tmp_path / "lake")])
    assert code == 0, err
    lake = analysis.open_lake(tmp_path / "lake")
    seats = pl.scan_parquet(str(tmp_path / "lake" / "seats" / "**" / "*.parquet")).collect()
    assert set(seats["strategy"].to_list()) == {"learned"} and lake.scan().collect().height == 20


# -- the learned Old One player (strategies.old_ones.learned, simkit learn --side oop) --------


def _oop_turns(eng, spec, seed, turns=60):
    """Yield at each of the Old One player's turns of one game (then let it play)."""
    from simkit.kernels.game_loop import OLD_ONES, STOP_OLD_ONES, step_oop

    rngs = game_streams(seed)
    eng.set_up(rngs, spec, checked=True)
    for _ in range(turns):
        if advance(rngs, eng.S, eng.X, eng.W, STOP_OLD_ONES) != OLD_ONES:
            return
        yield rngs
        step_oop(rngs, eng.S, eng.X, eng.W, -1)


def _oop_view(eng):
    """(legal actions, the engine's counts, the features) at the Old One player's turn."""
    from simkit.kernels.game_oop import oop_legal_actions
    from strategies.old_ones.learned import oop_features
    from strategies.old_ones.policy import weakest_port

    legal = np.zeros(NA, dtype=np.bool_)
    counts = oop_legal_actions(eng.S, eng.X, eng.W, legal)
    feats = np.zeros(NFO)
    oop_features(eng.S, eng.X, *counts, weakest_port(eng.S, eng.X), feats)
    return legal, counts, feats


def test_the_learned_oop_choice_is_the_best_legal_action_of_the_linear_model(eng, tmp_path):
    from strategies.old_ones import LearnedOOP, parse_oop, policy

    w = np.random.default_rng(5).normal(size=(NA, NFO))
    path = write_oop_weights(tmp_path / "o.toml", w)
    player = parse_oop(f"learned:{path}")
    assert isinstance(player, LearnedOOP) and player.base == "rusher"
    rusher = parse_oop("rusher")
    assert (player.move_policy, player.down_max) == (rusher.move_policy, rusher.down_max)
    spec = make_spec("revenge", 2, "balanced", difficulty="hard", oop=f"learned:{path}")
    seen = set()
    for _ in _oop_turns(eng, spec, 4):
        legal, counts, feats = _oop_view(eng)
        want = max(np.flatnonzero(legal), key=lambda a: float(w[a] @ feats), default=-1)
        got = policy.choose_action(single_stream(1), eng.S, eng.X, eng.W, legal, *counts)
        assert got == want
        seen.add(int(got))
    assert len(seen) >= 2  # the position moved the choice


def test_oop_features_follow_the_position(eng):
    """A Mythos card more in hand moves the hand feature by a quarter and nothing else."""
    spec = make_spec("revenge", 2, "balanced", difficulty="heroic", oop="rusher")
    turns = _oop_turns(eng, spec, 2)
    next(turns)
    _, _, a = _oop_view(eng)
    held = np.flatnonzero(eng.state.mythos_hand == 0)[0]
    eng.state.mythos_hand[held] = 1
    _, _, b = _oop_view(eng)
    hand = L.OOP_LEARN_FEATURES.index("mythos_hand")
    assert b[hand] - a[hand] == pytest.approx(0.25)
    assert np.array_equal(np.delete(a, hand), np.delete(b, hand))
    assert a[0] == 1.0 and a[L.OOP_LEARN_FEATURES.index("difficulty")] == 1.0
    assert ((0 <= a) & (a <= 1.0)).all()


@pytest.mark.parametrize("action", range(NA))
def test_an_oop_file_that_prefers_an_action_takes_it_whenever_it_is_legal(eng, tmp_path, action):
    """Bias 1 on ``action``, 0 elsewhere: the engine takes that action whenever it is legal,
    else the first legal one (ties keep the lower index); checked on the turns no Mythos
    card was played before the action (a card can change what is legal)."""
    from simkit.kernels.game_loop import OLD_ONES, STOP_OLD_ONES, step_oop

    w = np.zeros((NA, NFO))
    w[action, 0] = 1.0
    path = write_oop_weights(tmp_path / "x.toml", w)
    spec = make_spec("revenge", 2, "balanced", difficulty="normal", oop=f"learned:{path}")
    checked = preferred = 0
    for seed in (3, 8, 13):
        rngs = game_streams(seed)
        eng.set_up(rngs, spec, checked=True)
        g = eng.state.g
        while advance(rngs, eng.S, eng.X, eng.W, STOP_OLD_ONES) == OLD_ONES:
            legal, _, _ = _oop_view(eng)
            before = g[L.G_OOP_ACTIONS : L.G_OOP_ACTIONS + NA].copy()
            played = int(g[L.G_MYTHOS_PLAYED])
            step_oop(rngs, eng.S, eng.X, eng.W, -1)
            taken = g[L.G_OOP_ACTIONS : L.G_OOP_ACTIONS + NA] - before
            if g[L.G_MYTHOS_PLAYED] != played or not legal.any():
                continue
            want = action if legal[action] else int(np.flatnonzero(legal)[0])
            assert taken.tolist() == [int(a == want) for a in range(NA)]
            checked += 1
            preferred += int(legal[action])
        assert g[L.G_ILLEGAL] == 0
    assert checked >= 10 and preferred >= 3


def test_a_bad_oop_weights_file_exits_2_with_one_line(tmp_path):
    import bad_inputs

    path = write_oop_weights(tmp_path / "bad.toml", np.zeros((NA - 1, NFO)))
    human = write_weights(tmp_path / "human.toml", np.zeros((NB, NF)))
    argv = ["simulate", "--mode", "revenge", "--players", "2", "--games", "4"]
    for spec, words in ((path, "learned.weights"), (human, "simkit-learned-oop/1")):
        out = tmp_path / f"lake_{spec.stem}"
        code, _, err = bad_inputs.run_in_process(
            [*argv, "--oop", f"learned:{spec}", "--out", str(out)]
        )
        assert code == 2 and len(err.strip().splitlines()) == 1 and words in err, err


def test_the_learned_oop_conforms(eng, learned_oop_file):
    from test_game_conformance import oop_conformance

    oop_conformance(eng, learned_oop_file, games=40)


def test_a_learned_oop_file_is_the_oop_search_rollout_policy(learned_oop_file):
    from strategies.old_ones import LearnedOOP, parse_oop

    s = parse_oop(f"search:policy={learned_oop_file}:rollouts=2")
    assert s.rollouts == 2 and isinstance(s.base, LearnedOOP)
    np.testing.assert_array_equal(s.lower(), s.base.lower())


LEARN_OOP = ["learn", "--side", "oop", "--players", "2", "--difficulty", "normal"]
LEARN_OOP += ["--generations", "1", "--games", "2", "--rate-games", "4", "--seed", "3"]


def test_learn_for_the_old_one_player_writes_each_step_resumes_and_reproduces(tmp_path):
    from strategies.old_ones import LearnedOOP, parse_oop

    a, decisions = check_learn_loop(tmp_path, LEARN_OOP, L.OOP_ACTION_NAMES, 4, "rusher")
    assert [c for c in decisions.columns if c.startswith("f_")] == [
        f"f_{n}" for n in L.OOP_LEARN_FEATURES
    ]
    assert (decisions["seat"] == -1).all()  # game_loop.OLD_ONES: only the OOP decisions
    assert isinstance(parse_oop(f"learned:{a / 'gen1.toml'}"), LearnedOOP)  # a valid player
    assert "--oop learned:" in run_learn(a, argv=LEARN_OOP)[1]


def test_learn_side_oop_refuses_the_base_game_in_one_line(tmp_path):
    import bad_inputs

    argv = ["learn", "--side", "oop", "--mode", "base", "--out", str(tmp_path / "x")]
    code, _, err = bad_inputs.run_in_process(argv)
    assert code == 2 and "--mode revenge" in err and len(err.strip().splitlines()) == 1


def test_the_shipped_learned_oop_file_plays_and_states_its_rating():
    import tomllib
    from pathlib import Path

    from strategies.old_ones import LearnedOOP, parse_oop

    path = Path(__file__).parents[1] / "experiments/strategies/learned_oop_revenge_2h_normal.toml"
    assert isinstance(parse_oop(f"learned:{path}"), LearnedOOP)
    fit = tomllib.loads(path.read_text())["learned"]["fit"]
    low, high = fit["rating_vs_rusher_ci95"]
    assert 0 < low <= fit["rating_vs_rusher_diff"] <= high  # rated above rusher, as documented


def test_the_advantage_fitter_ranks_boxes_by_the_searchs_gain_not_its_pick():
    """Planted values: box 1's advantage grows with feature 0, box 2's falls with it, box 0
    is flat. The fitted scores order the legal boxes as the planted advantages do on fresh
    positions, and a box never legal scores below every other."""
    from simkit.learn import FIT

    rng = np.random.default_rng(5)
    n = 4000
    x = rng.random((n, 2))
    true = np.column_stack([np.zeros(n), 2 * x[:, 0] - 1, 1 - 2 * x[:, 0], np.zeros(n)])
    values = 0.5 + 0.1 * true + rng.normal(0, 0.02, (n, 4))
    legal = np.ones((n, 4), dtype=bool)
    legal[:, 3] = False
    values[:, 3] = np.nan
    y = np.nanargmax(values, axis=1)
    w = FIT["advantage"].weights(x, y, legal, values)
    assert w.shape == (4, 3) and w[3, 0] == -10.0
    fresh = np.array([[0.1, 0.5], [0.5, 0.5], [0.9, 0.5]])
    scores = np.column_stack([np.ones(3), fresh]) @ w.T
    assert scores[0].argmax() == 2 and scores[2].argmax() == 1  # the planted best box
    assert (scores[:, 3] < scores[:, :3].min(axis=1)).all()
    assert abs(scores[1, 1] - scores[1, 2]) < 0.01  # equal advantage at x0 = 0.5


def test_learn_with_the_advantage_fitter_writes_a_file_that_names_it(tmp_path):
    """--fitter advantage fits the same recorded decisions another way: the file names its
    fitter and plays; a folder made with one fitter refuses the other in one line."""
    argv = [*LEARN_OOP, "--fitter", "advantage"]
    code, _, err = run_learn(tmp_path / "a", argv=argv)
    assert code == 0, err
    import tomllib

    from strategies.old_ones import LearnedOOP, parse_oop

    doc = tomllib.loads((tmp_path / "a" / "gen1.toml").read_text())
    assert doc["learned"]["fit"]["fitter"].startswith("sklearn Ridge")
    assert isinstance(parse_oop(f"learned:{tmp_path / 'a' / 'gen1.toml'}"), LearnedOOP)
    code, _, err = run_learn(tmp_path / "a", argv=LEARN_OOP)  # the logistic default
    assert code == 2 and "other settings" in err and len(err.strip().splitlines()) == 1
    code, _, err = run_learn(tmp_path / "b", argv=[*LEARN_OOP, "--fitter", "tree"])
    assert code == 2 and "--fitter" in err and len(err.strip().splitlines()) == 1


def test_learn_against_a_named_opponent_model_records_that_search_and_says_so(tmp_path):
    """--opponent-model names how the recorded search rolls out the other side (here the
    humans the Old One player faces) and --objective what it maximises: the file's fit
    table names that search, the run resumes and reproduces, and --first-policy starts the
    rollout policy from a file."""
    import tomllib

    first = tmp_path / "first.toml"
    write_oop_weights(first, np.zeros((len(L.OOP_ACTION_NAMES), len(L.OOP_LEARN_FEATURES))))
    argv = [*LEARN_OOP, "--humans", "economist", "--opponent-model", "economist"]
    argv += ["--first-policy", f"learned:{first}", "--objective", "margin"]
    a, _ = check_learn_loop(tmp_path, argv, L.OOP_ACTION_NAMES, 4, "learned:")
    fit = tomllib.loads((a / "gen1.toml").read_text())["learned"]["fit"]
    assert fit["search"].endswith(":objective=margin:opponents=economist")
    assert f"policy=learned:{first}" in fit["search"]


@pytest.mark.parametrize(
    "extra, words",
    [
        (["--opponent-model", "nosuch"], "nosuch"),
        (["--first-policy", "nosuch"], "nosuch"),
        (["--objective", "score"], "--objective must be win or margin"),
        (["--mode", "base", "--opponent-model", "rusher"], "--mode revenge"),
        (["--rollout-policy", "newest"], "--rollout-policy must be last or best"),
        (["--roll-in", "1.5"], "--roll-in must be between 0 and 1"),
        (["--ridge-alpha", "0"], "--ridge-alpha must be > 0"),
        (["--candidates", "0"], "--candidates must be >= 1"),
        (["--select-games", "0"], "--select-games must be >= 1"),
    ],
)
def test_a_bad_opponent_model_or_first_policy_is_one_line(tmp_path, extra, words):
    import bad_inputs

    argv = ["learn", *extra, "--out", str(tmp_path / "x")]
    if "--mode" not in extra:
        argv[1:1] = ["--mode", "revenge"]
    code, _, err = bad_inputs.run_in_process(argv)
    assert code == 2 and words in err and len(err.strip().splitlines()) == 1, err
    assert not (tmp_path / "x").exists()


def test_the_old_one_search_modelling_the_humans_it_faces_plays_as_model_actual(eng):
    """The Old One search's public model set to the humans' own strategy rolls them out as
    model=actual does: the same searched game, move for move (what --opponent-model's best
    response relies on)."""
    rows = []
    for oop in ("search:rollouts=2:opponents=economist", "search:rollouts=2:model=actual"):
        spec = make_spec("revenge", 2, ["economist"] * 2, difficulty="normal", oop=oop)
        rows.append(eng.play((9, 1, 0), spec, log=True))
    np.testing.assert_array_equal(rows[0][0], rows[1][0])  # the summary row
    np.testing.assert_array_equal(rows[0][1], rows[1][1])  # every move


def test_fitting_decisions_recorded_with_fewer_features_is_one_line_naming_the_column(tmp_path):
    """A run folder recorded by an earlier simkit (16 features) cannot be fitted with
    today's features: the refusal names the file and the first missing column."""
    from simkit.learn import LearnSettings, fit

    rng = np.random.default_rng(1)
    n = 50
    frame = {"game": np.arange(n), "seat": np.zeros(n, int), "chosen": np.arange(n) % 2}
    frame |= {f"f_{k}": rng.random(n) for k in L.LEARN_FEATURES[:16]}
    frame |= {f"legal_{k}": np.ones(n, bool) for k in L.BOX_NAMES}
    frame |= {f"value_{k}": rng.random(n) for k in L.BOX_NAMES}
    (tmp_path / "gen1").mkdir()
    pl.DataFrame(frame).write_parquet(tmp_path / "gen1" / "decisions.parquet")
    with pytest.raises(UserError, match=r"decisions.parquet: no column 'f_own_vp'.*another --out"):
        fit(LearnSettings(), tmp_path, 1)
    assert not (tmp_path / "gen1.toml").exists()


def test_held_out_wins_are_the_same_games_whatever_the_number_of_processes():
    """Game i is one deal however the held-out games are split: two processes (each with
    its own engine: a built one does not pickle) give the one-process wins, in order."""
    from simkit.learn import LearnSettings, held_out_wins

    settings = LearnSettings(mode="revenge", players=2, difficulty="hard", side="oop", seed=7)
    one, _ = held_out_wins(settings, "rusher", 6, start=3)
    two, cpu = held_out_wins(settings, "rusher", 6, start=3, jobs=2)
    np.testing.assert_array_equal(one, two)
    assert one.shape == (6,) and cpu > 0
    np.testing.assert_array_equal(held_out_wins(settings, "rusher", 3, start=6)[0], one[3:])


MIXTURE = 'format = "simkit-mixture/1"\n'
MIXTURE += '[[player]]\nspec = "economist"\nweight = 3\n[[player]]\nspec = "defender"\nweight = 1\n'


def test_learn_against_a_mixture_draws_each_games_opponent_and_rates_against_every_one(tmp_path):
    """--opponent-mixture: each recorded game faces the player drawn for it by weight (the
    draws depend on the seed and generation alone) and, with --opponent-model faced, the
    search models that game's player; the rating is each player's held-out games weighted
    by the mixture (the weights scaled to sum to 1). The run resumes and reproduces."""
    from simkit.learn import LearnSettings, drawn_opponents, old_ones_wins, read_mixture

    mix = tmp_path / "mix.toml"
    mix.write_text(MIXTURE)
    argv = [*LEARN_OOP, "--opponent-mixture", str(mix), "--opponent-model", "faced"]
    argv[argv.index("--games") + 1] = "6"
    a, decisions = check_learn_loop(tmp_path, argv, L.OOP_ACTION_NAMES, 4, "rusher")
    settings = LearnSettings(
        mode="revenge", difficulty="normal", side="oop", games=6, seed=3, rate_games=4,
        mixture=read_mixture(mix, "oop"),
    )  # fmt: skip
    drawn = drawn_opponents(settings, 1)
    assert set(drawn) == {0, 1}  # this seed draws both players
    by_game = decisions.group_by("game").agg(pl.col("opponent").unique())
    assert all(ops == [drawn[g]] for g, ops in by_game.iter_rows())
    fit = tomllib.loads((a / "gen1.toml").read_text())["learned"]["fit"]
    assert fit["search"].endswith(":opponents=faced") and fit["faces"].startswith("economist 0.75")
    rating = json.loads((a / "gen1" / "rating.json").read_text())
    assert rating["faces"] == [
        {"spec": "economist", "weight": 0.75},
        {"spec": "defender", "weight": 0.25},
    ]
    eng = Engine()
    each = [old_ones_wins(eng, settings, f"learned:{a / 'gen1.toml'}", 4, opponent=s).mean()
            for s in ("economist", "defender")]  # fmt: skip
    assert rating["old_ones_win"] == pytest.approx(0.75 * each[0] + 0.25 * each[1])


def test_a_searched_game_against_the_faced_player_is_the_game_modelling_it_by_name(eng):
    """What --opponent-model faced records: game g of the run is the searched game against
    its drawn player with that player named as the search's model, move for move."""
    from simkit.learn import LearnSettings, _spec, search_spec

    settings = LearnSettings(
        mode="revenge", difficulty="normal", side="oop", rollouts=1, opponent_model="faced"
    )
    faced = _spec(settings, search_spec(Path("x"), 1, settings, faced="economist"), "economist")
    named = make_spec(
        "revenge", 2, ["economist"] * 2, difficulty="normal",
        oop="search:rollouts=1:policy=rusher:opponents=economist",
    )  # fmt: skip
    a, b = eng.play((4, 1, 0), faced, log=True), eng.play((4, 1, 0), named, log=True)
    np.testing.assert_array_equal(a[0], b[0])
    np.testing.assert_array_equal(a[1], b[1])


@pytest.mark.parametrize(
    "text, words",
    [
        (None, "no such mixture file"),
        ("format = [", "not a readable TOML file"),
        ('format = "simkit-mixture/9"\n', 'format: expected "simkit-mixture/1"'),
        ('format = "simkit-mixture/1"\n', "player: expected [[player]] tables"),
        ('format = "simkit-mixture/1"\nplayer = [1]\n', "player 1: expected a [[player]] table"),
        (MIXTURE.replace('spec = "defender"', "spec = 3"), "player 2: spec"),
        (MIXTURE.replace("weight = 1", "weight = 0"), "player 2: weight: expected a number > 0"),
        (MIXTURE.replace("weight = 3", 'weight = "x"'), "player 1: weight"),
        (MIXTURE.replace("defender", "nosuch"), "nosuch"),
    ],
)
def test_a_bad_mixture_file_is_one_line_naming_the_file_and_field(tmp_path, text, words):
    import bad_inputs

    mix = tmp_path / "mix.toml"
    if text is not None:
        mix.write_text(text)
    argv = [*LEARN_OOP, "--opponent-mixture", str(mix), "--out", str(tmp_path / "x")]
    code, _, err = bad_inputs.run_in_process(argv)
    assert code == 2 and words in err and len(err.strip().splitlines()) == 1, err
    assert "mix.toml" in err
    assert not (tmp_path / "x").exists()


def test_a_mixture_of_one_player_rates_as_that_player_alone():
    """The weighted difference of one player at weight 1 is its paired difference and
    interval (mean_interval): a mixture changes nothing for a single opponent."""
    from simkit.core.stats import mean_interval
    from simkit.learn import weighted_difference

    rng = np.random.default_rng(2)
    a, b = ((rng.random(50) < p).astype(float) for p in (0.6, 0.4))
    d = a - b
    diff, low, high = weighted_difference([a], [b], [1.0])
    assert diff == pytest.approx(d.mean())
    assert (low, high) == pytest.approx(mean_interval(d.sum(), (d * d).sum(), 50))


def _rating(out: Path, generation: int, side: str, gain: float, half: float = 0.03) -> None:
    """A generation's rating.json: it beats the first policy by ``gain`` (negative: loses)
    with a paired interval of +-``half`` (the Old Ones' win falls for a better human)."""
    diff = -gain if side == "human" else gain
    (out / f"gen{generation}").mkdir(parents=True, exist_ok=True)
    against = [{"generation": 0, "diff": diff, "ci_low": diff - half, "ci_high": diff + half}]
    (out / f"gen{generation}" / "rating.json").write_text(json.dumps({"against": against}))


@pytest.mark.parametrize("side", ["human", "oop"])
def test_the_best_rollout_policy_is_the_generation_that_beats_the_first_by_most(tmp_path, side):
    """--rollout-policy best: the next search rolls out with the generation that beats the
    first policy by the most, interval apart (humans lower the Old Ones' win, the Old One
    player raises it), else the first policy; last: always the previous generation."""
    from simkit.learn import LearnSettings, rollout_generation, search_spec

    best = LearnSettings(mode="revenge", side=side, rollout_policy="best")
    last = LearnSettings(mode="revenge", side=side)
    _rating(tmp_path, 1, side, -0.05)  # worse than the first policy
    assert rollout_generation(tmp_path, 2, best) == 0
    assert rollout_generation(tmp_path, 2, last) == 1
    assert f"policy={best.first}" in search_spec(tmp_path, 2, best)
    assert f"policy=learned:{tmp_path / 'gen1.toml'}" in search_spec(tmp_path, 2, last)
    _rating(tmp_path, 2, side, 0.02)  # better, but the interval reaches 0
    assert rollout_generation(tmp_path, 3, best) == 0
    _rating(tmp_path, 3, side, 0.06)  # better, interval apart
    _rating(tmp_path, 4, side, 0.04)  # better by less
    assert rollout_generation(tmp_path, 4, best) == 3
    assert rollout_generation(tmp_path, 5, best) == 3
    assert rollout_generation(tmp_path, 5, last) == 4
    assert f"policy=learned:{tmp_path / 'gen3.toml'}" in search_spec(tmp_path, 5, best)


def test_roll_in_plays_the_learned_pick_and_records_the_searchs_label(tmp_path):
    """--roll-in 1: at every recorded decision the game goes on with the learned rollout
    policy's pick (the best legal choice of its linear score on the recorded features) while
    the label stays the search's choice and values; --roll-in 0 plays the search's."""
    from simkit.learn import LearnSettings, record

    w = np.random.default_rng(9).normal(size=(NA, NFO))
    first = f"learned:{write_oop_weights(tmp_path / 'first.toml', w)}"
    kw = dict(mode="revenge", side="oop", difficulty="hard", games=2, rollouts=1, seed=5)
    searched = pl.read_parquet(record(LearnSettings(**kw, first_policy=first), tmp_path / "a", 1))
    rolled = pl.read_parquet(
        record(LearnSettings(**kw, first_policy=first, roll_in=1.0), tmp_path / "b", 1)
    )
    assert (searched["played"] == searched["chosen"]).all()
    feats = rolled.select([f"f_{n}" for n in L.OOP_LEARN_FEATURES]).to_numpy()
    legal = rolled.select([f"legal_{n}" for n in L.OOP_ACTION_NAMES]).to_numpy()
    scores = np.where(legal, feats @ w.T, -np.inf)
    assert (rolled["played"].to_numpy() == scores.argmax(axis=1)).all()
    assert (rolled["played"] != rolled["chosen"]).any()  # the learned pick is not the search's
    values = rolled.select([f"value_{n}" for n in L.OOP_ACTION_NAMES]).to_numpy()
    best = np.where(legal, values, -np.inf).max(axis=1)
    chosen = values[np.arange(len(values)), rolled["chosen"].to_numpy()]
    assert np.allclose(chosen, best)  # the label: the search's best choice


def test_a_larger_ridge_alpha_shrinks_the_advantage_weights():
    """The advantage fitter's ridge penalty: 1 recovers the advantage's linear law, a large
    penalty shrinks every weight toward 0."""
    from simkit.learn import _advantage

    rng = np.random.default_rng(4)
    x = rng.normal(size=(400, 3))
    legal = np.ones((400, 2), dtype=bool)
    values = np.column_stack([x @ [2.0, -1.0, 0.5], -(x @ [2.0, -1.0, 0.5])])
    loose, tight = _advantage(x, None, legal, values), _advantage(x, None, legal, values, 1e5)
    assert np.abs(loose[:, 1:]).min() > 0.4 and np.abs(tight).max() < 0.2 * np.abs(loose).max()
    # box 0's advantage over the mean of the two is x @ [2, -1, 0.5]
    assert np.allclose(loose[0, 1:], [2.0, -1.0, 0.5], atol=0.02)


def test_bootstrap_rows_draw_whole_training_games_with_replacement():
    """A resample is as many training games as there are, drawn with replacement, each with
    every one of its training rows and none of its held-out rows; the seed fixes it."""
    from simkit.learn import bootstrap_rows

    games = np.repeat(np.arange(10), 5)  # 10 games of 5 decisions
    train = np.ones(50, dtype=bool)
    train[::5] = False  # each game's first decision is held out
    a = bootstrap_rows(games, train, 3, (1, 2))
    assert len(a) == 3
    for rows in a:
        assert train[rows].all() and len(rows) == 10 * 4
        drawn, counts = np.unique(games[rows], return_counts=True)
        assert (counts % 4 == 0).all()  # a drawn game comes whole, once or more
        assert len(drawn) < 10 or any(counts > 4)  # with replacement: not every game once
    again = bootstrap_rows(games, train, 3, (1, 2))
    assert all(np.array_equal(x, y) for x, y in zip(a, again, strict=True))
    assert not np.array_equal(a[0], bootstrap_rows(games, train, 1, (1, 3))[0])


def test_learn_with_candidates_keeps_the_fit_that_plays_best_on_selection_games(tmp_path):
    """--candidates 3: three fits of the same labels each play the selection games (their
    own root seed, not the rating's); the generation's file is the one with the best Old
    Ones' win for its side (here the Old One player's: the highest), replaying it on those
    seeds gives its rate, and the file says how it was chosen."""
    import tomllib

    from simkit.learn import RATE_ROOT_OFFSET, SELECT_ROOT_OFFSET, LearnSettings, old_ones_wins

    argv = [*LEARN_OOP, "--fitter", "advantage", "--candidates", "3", "--select-games", "24"]
    code, _, err = run_learn(tmp_path / "a", argv=argv)
    assert code == 0, err
    gen = tmp_path / "a" / "gen1"
    sel = json.loads((gen / "selection.json").read_text())
    assert sel["root"] == 3 + SELECT_ROOT_OFFSET != 3 + RATE_ROOT_OFFSET
    rates = sel["old_ones_win"]
    assert len(rates) == 3 and sel["chosen"] == int(np.argmax(rates))
    doc = tomllib.loads((tmp_path / "a" / "gen1.toml").read_text())["learned"]
    chosen = tomllib.loads((gen / "candidates" / f"c{sel['chosen']}.toml").read_text())
    assert doc["weights"] == chosen["learned"]["weights"]
    assert doc["fit"]["selected"].startswith(f"candidate {sel['chosen']} of 3")
    assert doc["fit"]["selection_old_ones_win"] == round(max(rates), 4)
    settings = LearnSettings(mode="revenge", side="oop", difficulty="normal", seed=3)
    for i, rate in enumerate(rates):  # every candidate's rate is its play on those seeds
        path = gen / "candidates" / f"c{i}.toml"
        wins = old_ones_wins(Engine(), settings, f"learned:{path}", 24, root=sel["root"])
        assert wins.mean() == pytest.approx(rate)
    fits = {
        str(tomllib.loads(p.read_text())["learned"]["weights"]) for p in gen.glob("candidates/*")
    }
    assert len(fits) > 1  # a resample is another fit (of two games, one may draw both)


def test_keeping_the_incumbent_adds_the_last_generation_and_selects_on_new_games(tmp_path):
    """--keep-incumbent: generation 1 selects among its fits on selection games 0..N-1;
    generation 2 adds generation 1's player as its last candidate and selects on games
    N..2N-1 (not those generation 1 was chosen on); every rate is that candidate's replay
    there and the kept file is the best one."""
    from simkit.learn import SELECT_ROOT_OFFSET, LearnSettings, old_ones_wins

    argv = [a if a != "1" else "2" for a in LEARN_OOP]  # --generations 2
    assert argv[argv.index("--generations") + 1] == "2"
    argv += ["--fitter", "advantage", "--candidates", "2", "--select-games", "16"]
    code, _, err = run_learn(tmp_path / "a", argv=[*argv, "--keep-incumbent"])
    assert code == 0, err
    first = json.loads((tmp_path / "a" / "gen1" / "selection.json").read_text())
    assert first["first_game"] == 0 and first["incumbent"] is None
    assert len(first["old_ones_win"]) == 2
    gen = tmp_path / "a" / "gen2"
    sel = json.loads((gen / "selection.json").read_text())
    assert sel["root"] == 3 + SELECT_ROOT_OFFSET and sel["first_game"] == 16
    rates = sel["old_ones_win"]
    assert sel["incumbent"] == 2 and len(rates) == 3 and sel["chosen"] == int(np.argmax(rates))
    weights = {  # the incumbent candidate is generation 1's player
        p.name: tomllib.loads(p.read_text())["learned"]["weights"]
        for p in (tmp_path / "a" / "gen1.toml", tmp_path / "a" / "gen2.toml", *gen.glob("c*/*"))
    }
    assert weights["c2.toml"] == weights["gen1.toml"]
    assert weights["gen2.toml"] == weights[f"c{sel['chosen']}.toml"]
    settings = LearnSettings(mode="revenge", side="oop", difficulty="normal", seed=3)
    for i, rate in enumerate(rates):
        spec = f"learned:{gen / 'candidates' / f'c{i}.toml'}"
        wins = old_ones_wins(Engine(), settings, spec, 16, 16, root=sel["root"])
        assert wins.mean() == pytest.approx(rate)


def test_the_incumbent_is_kept_when_no_new_fit_plays_better(tmp_path):
    """A new fit that always reveals (it wins 0.375 of these 40 games, the shipped learned
    Old One player 0.925): generation 2 keeps the incumbent's weights and says so."""
    from simkit.learn import LearnSettings, player_weights, select_by_play

    settings = LearnSettings(
        mode="revenge", side="oop", difficulty="normal", seed=3, incumbent=True, select_games=40
    )
    good = player_weights(settings, f"learned:{SHIPPED_SEL_OOP}")
    reveal = np.zeros_like(good)
    reveal[L.OOP_ACTION_NAMES.index("reveal"), 0] = 1.0
    kept, meta = select_by_play(settings, tmp_path, 2, [reveal, good])
    sel = json.loads((tmp_path / "gen2" / "selection.json").read_text())
    assert sel["chosen"] == sel["incumbent"] == 1 and sel["first_game"] == 40
    assert sel["old_ones_win"][1] > sel["old_ones_win"][0]
    assert np.array_equal(kept, good)
    assert meta["selected"].startswith("candidate 1 of 2 (the incumbent, generation 1's player")
