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


@pytest.mark.parametrize(
    "old,new,named",
    [
        ('allocate = "cheapest"', 'alocate = "cheapest"', "alocate"),  # unknown parameter
        ('allocate = "cheapest"', 'allocate = "cheepest"', "allocate"),  # unknown strategy
        ("games = 300", "games = -5", "games"),  # negative games
        ('mode = "combat"', 'mode = "comabt"', "comabt"),  # a typo in a mode
        ('vs = ["zombie", "shoggoth"]', 'vs = ["zombie", "shogoth"]', "vs"),  # bad grid value
        ("chunk_size = 100", "chunk_size = 0", "chunk_size"),
        ("root_seed = 1", "root_seed = -1", "root_seed"),
    ],
)
def test_bad_spec_exits_2_naming_the_key_before_any_work(tmp_path, capsys, old, new, named):
    spec = write(tmp_path, GOOD.replace(old, new))
    out = tmp_path / "lake"
    code, _, err = run_cli(capsys, "experiment", "run", str(spec), "--out", str(out))
    assert code == 2
    assert named in err and str(spec) in err
    assert len(err.strip().splitlines()) == 1 and "Traceback" not in err
    assert not out.exists()


def test_mode_typo_lists_the_available_modes(tmp_path, capsys):
    code, _, err = run_cli(
        capsys, "experiment", "check", str(write(tmp_path, GOOD.replace('"combat"', '"comabt"')))
    )
    assert code == 2 and "unknown mode 'comabt' (available: " in err and "combat" in err


@pytest.mark.parametrize(
    "name,mode",
    [
        ("revenge_difficulty", "revenge"),
        ("strategy_round_robin", "base"),
        ("mythos_solo_difficulty", "mythos-solo"),
    ],
)
def test_shipped_specs_for_later_modes_name_the_missing_mode_or_validate(capsys, name, mode):
    code, _, err = run_cli(capsys, "experiment", "check", str(EXPERIMENTS / f"{name}.toml"))
    if mode in available():  # the engine is registered: its shipped spec must match its parameters
        assert code == 0, (
            f"experiments/{name}.toml no longer matches mode '{mode}': update the spec ({err})"
        )
    else:
        assert code == 2 and f"unknown mode '{mode}' (available: " in err


@pytest.mark.parametrize("name", ["combat_odds_grid", "unit_cost_sweep"])
def test_shipped_combat_specs_validate(capsys, name):
    code, out, _ = run_cli(capsys, "experiment", "check", str(EXPERIMENTS / f"{name}.toml"))
    assert code == 0 and "ok" in out


@pytest.mark.parametrize("path", sorted(EXPERIMENTS.glob("*.toml")), ids=lambda p: p.stem)
def test_every_shipped_spec_validates(capsys, path):
    """A command in the README or docs names each: its modes, players, strategy files and
    sizes must still check."""
    code, out, err = run_cli(capsys, "experiment", "check", str(path))
    assert code == 0 and "ok" in out, err


@pytest.mark.parametrize(
    "text,named",
    [
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
        (
            GOOD.replace('[params]\nallocate = "cheapest"', "[params]\nold_one_damage = 4"),
            "old-one-damage",
        ),
    ],
)
def test_spec_mistakes_name_the_table_and_key(tmp_path, text, named):
    with pytest.raises(UserError, match=None) as err:
        load_spec(write(tmp_path, text))
    assert named in str(err.value)


def test_not_toml_is_named(tmp_path):
    with pytest.raises(UserError, match="not valid TOML"):
        load_spec(write(tmp_path, "[experiment\nmode="))


def test_round_robin_expands_to_every_ordered_seat_assignment():
    raw = {
        "experiment": {"mode": "combat", "root_seed": 1, "games": 1},
        "grid": {"allocate": {"round_robin": ["cheapest", "spread"], "seats": 1}},
    }
    assert parse_spec(raw).grid["allocate"] == ["cheapest", "spread"]
    from simkit.runner.spec import _generated, _Where

    pairs = _generated(
        _Where("x"), "[grid] strategies", {"round_robin": ["a", "b", "c"], "seats": 2}
    )
    assert pairs == ["a,b", "a,c", "b,a", "b,c", "c,a", "c,b"]
    mirrored = _generated(
        _Where("x"), "[grid] s", {"round_robin": ["a", "b"], "seats": 2, "distinct": False}
    )
    assert mirrored == ["a,a", "a,b", "b,a", "b,b"]


def test_grid_is_the_product_of_its_axes_with_defaults_filled_in(tmp_path):
    spec = load_spec(write(tmp_path, GOOD))
    assert len(spec.cells) == 4
    assert {(c.params["force"], c.params["vs"]) for c in spec.cells} == {
        ("infantry=2", "zombie"),
        ("infantry=2", "shoggoth"),
        ("infantry=2,artillery=1", "zombie"),
        ("infantry=2,artillery=1", "shoggoth"),
    }
    assert all(c.params["withdraw"] == "never" for c in spec.cells)
    assert spec.partition_by == ("vs", "force")


def test_experiment_id_ignores_sizing_but_not_seed_or_parameters(tmp_path):
    base = load_spec(write(tmp_path, GOOD, "a.toml")).experiment_id.split("-")[1]
    more = load_spec(
        write(tmp_path, GOOD.replace("games = 300", "games = 900"), "a.toml")
    ).experiment_id
    seed = load_spec(
        write(tmp_path, GOOD.replace("root_seed = 1", "root_seed = 2"), "a.toml")
    ).experiment_id
    param = load_spec(
        write(tmp_path, GOOD.replace('"cheapest"', '"spread"'), "a.toml")
    ).experiment_id
    assert more.endswith(base) and not seed.endswith(base) and not param.endswith(base)


def test_a_cell_repeated_after_defaults_are_filled_is_refused(tmp_path):
    text = GOOD.replace('[params]\nallocate = "cheapest"\n', "").replace(
        "[grid]", '[grid]\nallocate = ["cheapest", "CHEAPEST"]'
    )
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


ONE_AT_A_TIME = (
    GOOD.replace("games = 300", 'games = 300\ndesign = "one_at_a_time"')
    .replace(
        '[grid]\nforce = ["infantry=2", "infantry=2,artillery=1"]\nvs = ["zombie", "shoggoth"]',
        "[params]\n"
        'force = "infantry=2,artillery=1"\n'
        "[grid]\n"
        'vs = ["zombie", "shoggoth"]\n'
        "[override_grid]\n"
        '"units.artillery.cost" = [2, 3, 4]\n'
        '"old_ones.shoggoth.vp" = [4, 6]',
    )
    .replace('[params]\nallocate = "cheapest"\n\n', "")
)


def test_one_at_a_time_design_moves_one_override_from_the_pack_per_cell(tmp_path):
    from simkit.datapack import load_pack
    from simkit.runner.overrides import pack_value

    spec = load_spec(write(tmp_path, ONE_AT_A_TIME))
    data = load_pack()
    keys = ("units.artillery.cost", "old_ones.shoggoth.vp")
    base = {k: pack_value(data, k) for k in keys}
    assert base == {"units.artillery.cost": 3.0, "old_ones.shoggoth.vp": 5}
    assert spec.to_json()["design"] == "one_at_a_time"
    points = [(c.params["vs"], tuple(c.overrides[k] for k in keys)) for c in spec.cells]
    # per vs: the pack's values, then each listed value alone (3 = the pack's cost, not repeated)
    assert points == [
        (vs, p)
        for vs in ("zombie", "shoggoth")
        for p in ((3.0, 5), (2.0, 5), (4.0, 5), (3.0, 4), (3.0, 6))
    ]
    grid = load_spec(
        write(tmp_path, ONE_AT_A_TIME.replace('design = "one_at_a_time"', ""), "g.toml")
    )
    assert len(grid.cells) == 2 * 3 * 2  # the default design is every combination


@pytest.mark.parametrize(
    "old,new,named",
    [
        ('design = "one_at_a_time"', 'design = "one_at_once"', "design"),
        (
            '"old_ones.shoggoth.vp" = [4, 6]',
            '"old_ones.shoggoth.vpp" = [4, 6]',
            "old_ones.shoggoth.vpp",
        ),
        ('"old_ones.shoggoth.vp" = [4, 6]', '"old_ones.shogoth.damage_capacity" = [7]', "shogoth"),
        (
            '"old_ones.shoggoth.vp" = [4, 6]',
            '"old_ones.shoggoth.damage_capacity" = [0]',
            "damage_capacity",
        ),
    ],
)
def test_bad_design_or_tile_override_exits_2_naming_it(tmp_path, capsys, old, new, named):
    spec = write(tmp_path, ONE_AT_A_TIME.replace(old, new))
    code, _, err = run_cli(capsys, "experiment", "check", str(spec))
    assert code == 2 and named in err and len(err.strip().splitlines()) == 1


def test_old_one_value_overrides_reach_the_tiles_the_game_modes_play_with():
    from simkit.datapack import load_pack
    from simkit.names import OLD_ONES
    from simkit.revenge.modes import run_chunk
    from simkit.runner.overrides import apply_overrides

    data = load_pack()
    shog = data.tile_type == OLD_ONES.index("shoggoth")
    assert shog.sum() >= 2 and (data.tile_vp[shog] == 5).all()
    moved = apply_overrides(
        data, {"old_ones.shoggoth.vp": 9, "old_ones.shoggoth.damage_capacity": 8}
    )
    assert (moved.tile_vp[shog] == 9).all() and (moved.tile_capacity[shog] == 8).all()
    assert (moved.tile_vp[~shog] == data.tile_vp[~shog]).all() and (data.tile_vp[shog] == 5).all()
    params = {
        "humans": 2,
        "strategies": "balanced",
        "oop": "rusher",
        "difficulty": "normal",
        "ruleset": "revenge",
        "shuffle_seats": True,
        "map": "eastern",
        "checked": False,
    }
    before = run_chunk(params, data, 5, 0, 60, frozenset({"summary"}))["summary"]
    after = run_chunk(params, moved, 5, 0, 60, frozenset({"summary"}))["summary"]
    assert (before["oo_vp"] != after["oo_vp"]).any()  # the Revenge engine plays the moved tiles


def test_a_card_override_changes_one_face_for_one_old_one():
    from simkit.datapack import load_pack
    from simkit.names import OLD_ONES, UNITS
    from simkit.runner.overrides import apply_overrides, pack_value

    data = load_pack()
    was = pack_value(data, "card.3.shoggoth.hits")
    new = apply_overrides(data, {"card.3.shoggoth.hits": "airship", "card.3.shoggoth.purple": 2})
    c, t = [int(i) for i in data.card_ids].index(3), OLD_ONES.index("shoggoth")
    assert new.card_hits[c, t] == 1 << UNITS.index("airship") and new.card_purple[c, t] == 2
    changed = new.card_hits != data.card_hits
    assert changed.sum() == (pack_value(data, "card.3.shoggoth.hits") != "airship")
    assert pack_value(new, "card.3.shoggoth.hits") == "airship" != was or was == "airship"
    assert (new.card_purple != data.card_purple).sum() <= 1 and new.hash != data.hash
    assert pack_value(new, "card.3.zombie.hits") == pack_value(data, "card.3.zombie.hits")


@pytest.mark.parametrize(
    "key, value, words",
    [
        ("card.0.zombie.hits", "none", "card number must be 1 or more"),
        ("card.99.zombie.purple", 1, "no card 99 in the deck"),
        ("card.1.dragon.hits", "none", "unknown Old One 'dragon'"),
        ("card.1.zombie.colour", 1, "unknown card field 'colour'"),
        ("card.1.zombie.hits", "tank", "hits are '\\+'-joined units"),
        ("card.1.zombie.purple", 12, "at most 9"),
        ("card.1.temple.hits", "armoured_car", "Armoured Cars can never damage Temples"),
    ],
)
def test_a_bad_card_override_is_one_line_naming_it(key, value, words):
    from simkit.datapack import load_pack
    from simkit.errors import UserError
    from simkit.runner.overrides import apply_overrides

    with pytest.raises(UserError, match=words):
        apply_overrides(load_pack(), {key: value})
