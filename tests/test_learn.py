"""The learned player (strategies.human.learned) and `simkit learn` (simkit.learn): the
jitted box scoring is the linear model the file states, its files are validated, it
plays legal games, and the expert-iteration loop resumes and reproduces."""

from __future__ import annotations

import json

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


def write_weights(path, weights, base="balanced", features=None, boxes=None):
    features = list(L.LEARN_FEATURES) if features is None else features
    boxes = list(L.BOX_NAMES) if boxes is None else boxes
    rows = ",\n".join("  [" + ", ".join(repr(float(w)) for w in r) + "]" for r in weights)
    path.write_text(
        "[learned]\nformat = 'simkit-learned/1'\n"
        f"base = '{base}'\nfeatures = {json.dumps(features)}\nboxes = {json.dumps(boxes)}\n"
        f"weights = [\n{rows}\n]\n"
    )
    return path


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
    "edit, words",
    [
        ({"features": ["bias"]}, "learned.features"),
        ({"boxes": ["rail"]}, "learned.boxes"),
        ({"weights": [[0.0] * NF] * (NB - 1)}, f"must hold {NB} rows"),
        ({"weights": [[0.0] * (NF - 1)] * NB}, r"row 1 \(rail\)"),
        ({"base": "nobody"}, "unknown strategy 'nobody'"),
    ],
)
def test_a_bad_weights_file_is_one_line_naming_the_field(tmp_path, edit, words):
    kw = {"weights": np.zeros((NB, NF)), **edit}
    path = write_weights(tmp_path / "bad.toml", **kw)
    with pytest.raises(UserError, match=words):
        parse_one(f"learned:{path}")


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


def run_learn(out, rollouts=1):
    import bad_inputs

    argv = [*LEARN, "--rollouts", str(rollouts), "--out", str(out)]
    return bad_inputs.run_in_process(argv)


@pytest.mark.slow  # two recordings of search games and four rating runs
def test_learn_writes_each_step_resumes_and_reproduces(tmp_path):
    a, b = tmp_path / "a", tmp_path / "b"
    code, out, err = run_learn(a)
    assert code == 0, err
    assert "gen1: Old Ones win" in out and "[" in out
    decisions = pl.read_parquet(a / "gen1" / "decisions.parquet")
    assert decisions.height > 10 and decisions["chosen"].n_unique() >= 2
    legal = decisions.select([f"legal_{n}" for n in L.BOX_NAMES]).to_numpy()
    assert legal[np.arange(len(legal)), decisions["chosen"].to_numpy()].all()
    rating = json.loads((a / "gen1" / "rating.json").read_text())
    assert rating["games"] == 20 and rating["against"][0]["name"].startswith("balanced")
    parse_one(f"learned:{a / 'gen1.toml'}")  # the written file is a valid player
    stamp = (a / "gen1" / "decisions.parquet").stat().st_mtime_ns
    assert run_learn(a)[0] == 0  # a rerun resumes: nothing recorded again
    assert (a / "gen1" / "decisions.parquet").stat().st_mtime_ns == stamp
    assert run_learn(b)[0] == 0  # same seed, another folder: the same files
    for name in ("gen1.toml", "gen1/rating.json"):
        assert (a / name).read_bytes() == (b / name).read_bytes(), name
    assert pl.read_parquet(b / "gen1" / "decisions.parquet").equals(decisions)
    code, _, err = run_learn(a, rollouts=2)
    assert code == 2 and "other settings" in err and len(err.strip().splitlines()) == 1


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
