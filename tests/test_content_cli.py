"""Content choices on the command line and in specs: --set, --reading, [readings],
[worlds], `simkit compare` and `simkit data readings`; bad values get exit 2 and one line,
and every choice enters the cell's identity (two choices never share a lake cell)."""

import json

import numpy as np
import pytest
from typer.testing import CliRunner

from simkit.cli import _register, app, main
from simkit.errors import UserError
from simkit.runner.spec import parse_spec
from simkit.runner.worlds import SOURCES, world_overrides

_register()
runner = CliRunner()


def _spec(**tables):
    raw = {
        "experiment": {
            "name": "t",
            "mode": "revenge",
            "root_seed": 1,
            "games": 100,
            "chunk_size": 100,
            "outputs": ["summary"],
        },
        **tables,
    }
    return parse_spec(raw, "t.toml")


@pytest.mark.parametrize(
    "args, message",
    [
        (["--set", "units.artillery.cost=lots"], "--set units.artillery.cost=lots: override"),
        (["--set", "units.artilery.cost=3"], "unknown unit 'artilery'"),
        (["--set", "nothing"], "--set expects PATH=VALUE"),
        (["--set", "mythos.dholes.amount=12"], "at most 9"),
        (["--set", "mythos.not_a_card.amount=1"], "no Mythos card 'not_a_card'"),
        (["--set", "mythos.dholes.effect=explode"], "unknown effect 'explode'"),
        (["--reading", "servitor_placement=moon"], "unknown option 'moon'"),
        (["--reading", "servitor=temple"], "unknown reading 'servitor'"),
        (["--set", "units.artillery.cost=3", "--set", "units.artillery.cost=4"], "given twice"),
        (["--unknown", "maybe"], "unknown"),
    ],
)
def test_a_bad_content_choice_is_exit_2_and_one_line(tmp_path, capsys, args, message):
    code = main(
        ["simulate", "--mode", "revenge", "--games", "10", "--out", str(tmp_path / "o"), *args]
    )
    err = capsys.readouterr().err
    lines = [ln for ln in err.splitlines() if ln.strip()]
    assert code == 2 and len(lines) == 1 and message in lines[0], err
    assert not (tmp_path / "o").exists() or not any((tmp_path / "o").iterdir())


def test_readings_worlds_and_sets_enter_the_cell_identity():
    plain = _spec(params={"oop": "mythos"})
    read = _spec(params={"oop": "mythos"}, readings={"servitor_placement": "temple"})
    read_set = _spec(params={"oop": "mythos"}, overrides={"reading.servitor_placement": "temple"})
    other = _spec(params={"oop": "mythos"}, overrides={"mythos.dholes.amount": 2})
    ids = [s.cells[0].cell_id for s in (plain, read, other)]
    assert len(set(ids)) == 3
    assert read.cells[0].cell_id == read_set.cells[0].cell_id  # two spellings, one choice
    assert plain.experiment_id != read.experiment_id
    worlds = _spec(params={"oop": "mythos"}, worlds={"count": 3, "sources": ["readings"]})
    assert len({c.cell_id for c in worlds.cells}) == 3 and not {
        c.cell_id for c in worlds.cells
    } & set(ids)


@pytest.mark.parametrize(
    "worlds, message",
    [
        ({"count": 0, "sources": ["readings"]}, "count"),
        ({"count": 2, "sources": ["moods"]}, "unknown world source 'moods'"),
        ({"count": 2, "sources": []}, "at least one source"),
        ({"count": 2, "sources": ["readings", "readings"]}, "named twice"),
        ({"count": 2, "sources": ["readings"], "per_source": 3}, "per_source"),
        ({"count": 2, "sources": ["readings"], "colour": 1}, "unknown key 'colour'"),
    ],
)
def test_a_bad_worlds_table_is_one_line_naming_the_key(worlds, message):
    with pytest.raises(UserError, match=message):
        _spec(worlds=worlds)


def test_a_world_redraws_every_source_within_its_stated_range():
    for w in range(40):
        d = world_overrides(None, w, list(SOURCES))
        assert d == world_overrides(None, w, list(SOURCES))  # seeded: the same world again
        # Zombies stay the weakest level-1 tile (VP 1): Mi-go and Loyalists keep VP >= 2
        assert d["old_ones.mi_go.vp"] >= 2 and d["old_ones.loyalist.vp"] >= 2
        # Major Old Ones keep damage capacity 6+ (rules)
        assert d["old_ones.shoggoth.damage_capacity"] >= 6
        assert d["old_ones.cthulhu.damage_capacity"] >= 6
        # Infantry (1 Gold, rules) stays the cheapest unit
        assert min(v for k, v in d.items() if k.startswith("units.")) >= 2
        assert all(0 <= v <= 2 for k, v in d.items() if k.endswith(".tp_cost"))
        assert all(1 <= v <= 2 for k, v in d.items() if k.endswith(".amount"))
        assert not any(k.startswith("mythos.unknown_") for k in d)  # those: unknown = prior
    # the public values are never redrawn: a card whose amount the rules state keeps it
    assert "mythos.atlach_nacha.amount" not in world_overrides(None, 0, ["mythos_amounts"])
    costs = [world_overrides(None, w, ["unit_costs"])["units.artillery.cost"] for w in range(40)]
    assert set(costs) == {2.0, 3.0, 4.0}


def test_per_source_worlds_vary_one_source_each_and_match_the_joint_draw():
    spec = _spec(
        params={"oop": "mythos"},
        worlds={"count": 2, "sources": ["unit_costs", "unknown_mythos"], "per_source": 1},
    )
    by = {(c.params["world_source"], c.params["world"]): c for c in spec.cells}
    assert set(by) == {("all", 0), ("all", 1), ("unit_costs", 0), ("unknown_mythos", 0)}
    assert by[("all", 0)].params["unknown"] == "prior"
    assert by[("unit_costs", 0)].params["unknown"] == "blank"
    assert by[("unknown_mythos", 0)].params["unknown"] == "prior"
    assert by[("unknown_mythos", 0)].overrides == {}
    assert by[("unit_costs", 0)].overrides == by[("all", 0)].overrides


def test_data_readings_lists_every_reading_with_its_text():
    result = runner.invoke(app, ["data", "readings", "--json"])
    assert result.exit_code == 0, result.output
    readings = json.loads(result.output)["readings"]
    assert [r["name"] for r in readings][:2] == ["servitor_placement", "yog_sothoth_tile"]
    assert all(r["default"] in r["options"] and r["text"] for r in readings)


@pytest.mark.slow
def test_compare_gives_the_paired_difference_of_two_separate_runs(tmp_path):
    """compare on one --set change == the difference of two simulate runs on the same seeds."""
    common = ["--mode", "revenge", "--oop", "mythos", "--games", "300", "--seed", "5"]
    out = runner.invoke(
        app, ["compare", *common, "--set-b", "reading.servitor_placement=temple", "--json"]
    )
    assert out.exit_code == 0, out.output
    diff = {m["metric"]: m for m in json.loads(out.output)["metrics"]}["old_ones_win"]
    rates = []
    for name, extra in (("a", []), ("b", ["--reading", "servitor_placement=temple"])):
        r = runner.invoke(
            app, ["simulate", *common, "--out", str(tmp_path / name), "--json", *extra]
        )
        assert r.exit_code == 0, r.output
        rates.append(json.loads(r.output)["overall"]["rate"])
    assert np.isclose(diff["difference"], rates[1] - rates[0], atol=1e-12)
    assert diff["a"] == pytest.approx(rates[0]) and diff["b"] == pytest.approx(rates[1])
    assert diff["ci_low"] <= diff["difference"] <= diff["ci_high"]


def test_a_worlds_lake_reports_bands_claims_shares_and_the_content_band(tmp_path):
    from simkit.report import build_report
    from simkit.runner import run_experiment

    spec = parse_spec(
        {
            "experiment": {
                "name": "w",
                "mode": "revenge",
                "root_seed": 3,
                "games": 100,
                "chunk_size": 100,
                "outputs": ["summary"],
            },
            "params": {"oop": "mythos"},
            "grid": {"difficulty": ["normal", "hard"], "content": ["assumed", "rules"]},
            "worlds": {"count": 3, "sources": ["unit_costs", "unknown_mythos"], "per_source": 2},
        },
        "w.toml",
    )
    assert len(spec.cells) == (3 + 2 * 2) * 2 * 2
    run_experiment(spec, out=tmp_path / "lake", jobs=1, quiet=True)
    report = build_report(tmp_path / "lake")
    html = report.html
    assert report.sections == ["lake0-worlds"]
    for text in (
        "The headline as a band",
        "3 worlds",
        "normal-&gt;hard",
        " of 3",
        "How much of the band each source explains",
        "unknown_mythos",
        "What rests on invented card texts, over plausible content",
    ):
        assert text in html, text
    import re

    from simkit.views import OTHER_INTERVAL_FORMS

    shown = re.sub(r"<(style|script|details)\b.*?</\1>", "", html, flags=re.S)
    cells = [t for t in re.split(r"<[^>]+>", shown) if t.strip()]
    assert not [t for t in cells if OTHER_INTERVAL_FORMS.search(t)]  # bands as [low, high]
    assert "old_ones_win" not in " ".join(cells)  # the metric in words
