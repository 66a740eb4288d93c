"""Experiment specs: bad specs stop with exit code 2 naming the key, before any work starts."""

from __future__ import annotations

from pathlib import Path

import pytest

from simkit.cli import main
from simkit.errors import UserError
from simkit.modes import available
from simkit.runner import load_spec, parse_spec

EXPERIMENTS = Path(__file__).resolve().parent.parent / "experiments"

GOOD = """
[experiment]
mode = "combat"
root_seed = 1
chunk_size = 100
games = 300

[params]
allocate = "cheapest"

[grid]
force = ["infantry=2", "infantry=2,artillery=1"]
vs = ["zombie", "shoggoth"]
"""


def write(tmp_path: Path, text: str, name: str = "spec.toml") -> Path:
    path = tmp_path / name
    path.write_text(text)
    return path


def run_cli(capsys, *args) -> tuple[int, str, str]:
    code = main(list(args))
    out = capsys.readouterr()
    return code, out.out, out.err


@pytest.mark.parametrize("old,new,named", [
    ('allocate = "cheapest"', 'alocate = "cheapest"', "alocate"),                      # unknown parameter
    ('allocate = "cheapest"', 'allocate = "cheepest"', "allocate"),                    # unknown strategy
    ("games = 300", "games = -5", "games"),                                            # negative games
    ('mode = "combat"', 'mode = "comabt"', "comabt"),                                   # a typo in a mode
    ('vs = ["zombie", "shoggoth"]', 'vs = ["zombie", "shogoth"]', "vs"),               # bad grid value
    ("chunk_size = 100", "chunk_size = 0", "chunk_size"),
    ("root_seed = 1", "root_seed = -1", "root_seed"),
])
def test_bad_spec_exits_2_naming_the_key_before_any_work(tmp_path, capsys, old, new, named):
    spec = write(tmp_path, GOOD.replace(old, new))
    out = tmp_path / "lake"
    code, _, err = run_cli(capsys, "experiment", "run", str(spec), "--out", str(out))
    assert code == 2
    assert named in err and str(spec) in err
    assert len(err.strip().splitlines()) == 1 and "Traceback" not in err
    assert not out.exists()


def test_mode_typo_lists_the_available_modes(tmp_path, capsys):
    code, _, err = run_cli(capsys, "experiment", "check", str(write(tmp_path, GOOD.replace('"combat"', '"comabt"'))))
    assert code == 2 and "unknown mode 'comabt' (available: " in err and "combat" in err


@pytest.mark.parametrize("name,mode", [("revenge_difficulty", "revenge"), ("strategy_round_robin", "base"),
                                       ("mythos_solo_difficulty", "mythos-solo")])
def test_shipped_specs_for_later_modes_name_the_missing_mode_or_validate(capsys, name, mode):
    code, _, err = run_cli(capsys, "experiment", "check", str(EXPERIMENTS / f"{name}.toml"))
    if mode in available():  # the engine is registered: its shipped spec must match its parameters
        assert code == 0, f"experiments/{name}.toml no longer matches mode '{mode}': update the spec ({err})"
    else:
        assert code == 2 and f"unknown mode '{mode}' (available: " in err


@pytest.mark.parametrize("name", ["combat_odds_grid", "unit_cost_sweep"])
def test_shipped_combat_specs_validate(capsys, name):
    code, out, _ = run_cli(capsys, "experiment", "check", str(EXPERIMENTS / f"{name}.toml"))
    assert code == 0 and "ok" in out


@pytest.mark.parametrize("text,named", [
    (GOOD + "\n[gird]\nx = [1]\n", "[gird]"),
    (GOOD.replace("games = 300", "games = 300\ngamez = 3"), "gamez"),
    (GOOD.replace("games = 300", ""), "games"),
    (GOOD.replace("games = 300", "games = 300\ntarget_ci = 0.01"), "not both"),
    (GOOD.replace("games = 300", "target_ci = 0.9"), "target_ci"),
    (GOOD.replace("root_seed = 1\n", ""), "root_seed"),
    (GOOD.replace('vs = ["zombie", "shoggoth"]', "vs = []"), "[grid] vs"),
    (GOOD.replace('vs = ["zombie", "shoggoth"]', 'vs = "zombie"'), "[grid] vs"),
    (GOOD.replace('[params]\nallocate = "cheapest"', '[params]\nvs = "zombie"'), "[grid] vs"),
    (GOOD + '\n[overrides]\n"units.tank.cost" = 2\n', "units.tank.cost"),
    (GOOD + '\n[overrides]\n"units.artillery.cost" = "cheap"\n', "units.artillery.cost"),
    (GOOD.replace("games = 300", 'games = 300\noutputs = ["moves"]'), "outputs"),
    (GOOD.replace("games = 300", 'games = 300\npartition_by = ["colour"]'), "colour"),
    (GOOD.replace('[params]\nallocate = "cheapest"', '[params]\nold_one_damage = 4'), "old-one-damage"),
])
def test_spec_mistakes_name_the_table_and_key(tmp_path, text, named):
    with pytest.raises(UserError, match=None) as err:
        load_spec(write(tmp_path, text))
    assert named in str(err.value)


def test_not_toml_is_named(tmp_path):
    with pytest.raises(UserError, match="not valid TOML"):
        load_spec(write(tmp_path, "[experiment\nmode="))


def test_round_robin_expands_to_every_ordered_seat_assignment():
    raw = {"experiment": {"mode": "combat", "root_seed": 1, "games": 1},
           "grid": {"allocate": {"round_robin": ["cheapest", "spread"], "seats": 1}}}
    assert parse_spec(raw).grid["allocate"] == ["cheapest", "spread"]
    from simkit.runner.spec import _generated, _Where
    pairs = _generated(_Where("x"), "[grid] strategies", {"round_robin": ["a", "b", "c"], "seats": 2})
    assert pairs == ["a,b", "a,c", "b,a", "b,c", "c,a", "c,b"]
    mirrored = _generated(_Where("x"), "[grid] s", {"round_robin": ["a", "b"], "seats": 2, "distinct": False})
    assert mirrored == ["a,a", "a,b", "b,a", "b,b"]


def test_grid_is_the_product_of_its_axes_with_defaults_filled_in(tmp_path):
    spec = load_spec(write(tmp_path, GOOD))
    assert len(spec.cells) == 4
    assert {(c.params["force"], c.params["vs"]) for c in spec.cells} == {
        ("infantry=2", "zombie"), ("infantry=2", "shoggoth"),
        ("infantry=2,artillery=1", "zombie"), ("infantry=2,artillery=1", "shoggoth")}
    assert all(c.params["withdraw"] == "never" for c in spec.cells)
    assert spec.partition_by == ("vs", "force")


def test_experiment_id_ignores_sizing_but_not_seed_or_parameters(tmp_path):
    base = load_spec(write(tmp_path, GOOD, "a.toml")).experiment_id.split("-")[1]
    more = load_spec(write(tmp_path, GOOD.replace("games = 300", "games = 900"), "a.toml")).experiment_id
    seed = load_spec(write(tmp_path, GOOD.replace("root_seed = 1", "root_seed = 2"), "a.toml")).experiment_id
    param = load_spec(write(tmp_path, GOOD.replace('"cheapest"', '"spread"'), "a.toml")).experiment_id
    assert more.endswith(base) and not seed.endswith(base) and not param.endswith(base)


def test_a_cell_repeated_after_defaults_are_filled_is_refused(tmp_path):
    text = GOOD.replace('[params]\nallocate = "cheapest"\n', "").replace(
        "[grid]", '[grid]\nallocate = ["cheapest", "CHEAPEST"]')
    with pytest.raises(UserError, match="same cell"):
        load_spec(write(tmp_path, text))


def test_deck_override_redraws_the_assumed_deck_within_the_rules_of_thumb():
    from simkit.datapack import load_pack
    from simkit.datapack.assumed_deck import SEED
    from simkit.datapack.thumbs import rule_of_thumb_violations
    from simkit.runner.overrides import apply_overrides, pack_value

    data = load_pack()
    assert pack_value(data, "deck.assumed_seed") == SEED
    same = apply_overrides(data, {"deck.assumed_seed": SEED})
    other = apply_overrides(data, {"deck.assumed_seed": 7})
    assert (same.card_hits == data.card_hits).all()
    assert (other.card_hits != data.card_hits).any() and rule_of_thumb_violations(other) == []
    assert other.hash != data.hash


def test_deck_override_refuses_a_pack_that_holds_another_deck():
    import dataclasses

    import pytest

    from simkit.datapack import load_pack
    from simkit.errors import UserError
    from simkit.runner.overrides import apply_overrides

    data = load_pack()
    hits = data.card_hits.copy()
    hits[0, 0] ^= 1  # one symbol typed in differently: a user's own deck
    with pytest.raises(UserError, match="deck.assumed_seed"):
        apply_overrides(dataclasses.replace(data, card_hits=hits), {"deck.assumed_seed": 3})
