"""Reports: parseable HTML, the expected sections and figures, numbers equal to the data."""

from __future__ import annotations

from html.parser import HTMLParser
from pathlib import Path

import pytest

from simkit.cli import main
from simkit.datapack import load_pack
from simkit.odds import cheapest_mixes, odds_table, read_table, table_bytes
from simkit.report.combat import mix_label, rate


class Collect(HTMLParser):
    """Ids, images and the text of every table cell, by table id."""

    def __init__(self):
        super().__init__()
        self.ids, self.images, self.tables, self._table, self._cell = set(), [], {}, None, None
        self.headers: dict[str, list[str]] = {}

    def handle_starttag(self, tag, attrs):
        attrs = dict(attrs)
        if "id" in attrs:
            self.ids.add(attrs["id"])
        if tag == "img":
            self.images.append(attrs.get("src", ""))
        if tag == "svg":
            self.svgs = getattr(self, "svgs", 0) + 1
        if tag == "th" and self._table:
            self._cell = ""
        if tag == "table":
            self._table = attrs.get("id")
            self.tables[self._table] = []
        if tag == "tr" and self._table:
            self.tables[self._table].append([])
        if tag == "td":
            self._cell = ""

    def handle_data(self, data):
        if self._cell is not None:
            self._cell += data

    def handle_endtag(self, tag):
        if tag == "th" and self._table:
            self.headers.setdefault(self._table, []).append(self._cell)
            self._cell = None
        if tag == "td" and self._table:
            self.tables[self._table][-1].append(self._cell)
            self._cell = None
        if tag == "table":
            self._table = None


@pytest.fixture(scope="module")
def results(tmp_path_factory) -> Path:
    folder = tmp_path_factory.mktemp("results")
    data = load_pack()
    table = odds_table(data, 1, [0, 1])  # zombie and mi_go, every 0/1 mix, x1 and x2
    (folder / "odds.parquet").write_bytes(table_bytes(table, data, seed=0))
    return folder


def build(results: Path, tmp_path: Path, capsys) -> Collect:
    out = tmp_path / "report.html"
    assert main(["report", str(results), "--out", str(out)]) == 0
    parser = Collect()
    parser.feed(out.read_text())
    return parser


def test_report_is_html_with_provenance_banner_and_combat_section(results, tmp_path, capsys):
    page = build(results, tmp_path, capsys)
    assert {
        "provenance",
        "combat-odds",
        "fig-heatmap-1",
        "fig-heatmap-2",
        "fig-survival",
        "table-cheapest",
    } <= page.ids
    assert not page.images and page.svgs >= 3  # figures are inline SVG (vector), no raster images
    assert {"summary", "toc"} <= page.ids


def assert_every_heading_in_toc(html: str) -> None:
    """Every section heading (h2) has an id, unique in the page, and a ToC entry to it."""
    import re

    heads = re.findall(r"<h2([^>]*)>(.*?)</h2>", html, re.S)
    assert heads
    toc = re.search(r'<nav class="toc" id="toc">(.*?)</nav>', html, re.S).group(1)
    ids = re.findall(r'\bid="([^"]+)"', re.sub(r"<svg.*?</svg>", "", html, flags=re.S))
    assert len(ids) == len(set(ids)), "duplicate ids"
    for attrs, text in heads:
        m = re.search(r'id="([^"]+)"', attrs)
        assert m, f"h2 without id: {text[:60]}"
        if m.group(1) != "summary-head":
            assert f'href="#{m.group(1)}"' in toc, f"not in the ToC: {text[:60]}"


def assert_self_contained(html: str) -> None:
    """Nothing to fetch: no script, stylesheet link, external image, font or import."""
    import re

    lowered = html.lower()
    for bad in ("<script", "<link", "<img", "@import", "url(http", "<iframe"):
        assert bad not in lowered, bad
    refs = re.findall(r'(?:src|href|xlink:href)\s*=\s*"([^"]*)"', html)
    assert all(r.startswith("#") for r in refs), [r for r in refs if not r.startswith("#")][:5]


def test_report_is_one_self_contained_file_with_a_print_stylesheet(results, tmp_path, capsys):
    build(results, tmp_path, capsys)
    html = (tmp_path / "report.html").read_text()
    assert_self_contained(html)
    assert "@media print" in html and "@page" in html


def test_cheapest_mix_table_equals_the_parquet_data(results, tmp_path, capsys):
    page = build(results, tmp_path, capsys)
    table, _ = read_table(results / "odds.parquet")
    rows = {(r[0], int(r[1]), float(r[2])): r for r in page.tables["table-cheapest"][1:]}
    checked = 0
    for kind in ("zombie", "mi_go"):
        for copies in (1, 2):
            for target in (0.5, 0.8, 0.95):
                best = cheapest_mixes(table, kind, copies, target, top=1)
                row = rows[(kind, copies, target)]
                if best.empty:
                    assert row[3] == "none in table"
                    continue
                r = best.iloc[0]
                assert row[3] == mix_label(r)
                assert row[4] == f"{r['gold_cost']:.0f}" and int(row[5]) == r["tp_cost"]
                assert row[6] == rate(
                    r["p_destroy"], r["p_destroy_lo"], r["p_destroy_hi"], str(r["method"])
                )
                checked += 1
    assert checked >= 8


def test_report_refuses_a_folder_with_nothing_to_report(tmp_path, capsys):
    assert main(["report", str(tmp_path), "--out", str(tmp_path / "r.html")]) == 2
    assert "nothing to report" in capsys.readouterr().err
    assert not (tmp_path / "r.html").exists()


def test_report_refuses_a_foreign_parquet_file(tmp_path, capsys):
    import pandas as pd

    pd.DataFrame({"x": [1]}).to_parquet(tmp_path / "odds.parquet")
    assert main(["report", str(tmp_path), "--out", str(tmp_path / "r.html")]) == 2
    assert "not an odds table" in capsys.readouterr().err


SPEC = """
[experiment]
name = "report_test"
mode = "base"
root_seed = 5
chunk_size = 100
games = 200
outputs = ["summary", "seats", "moves", "combats"]

[params]
players = 2
shuffle_seats = false

[grid]
strategies = ["economist,hunter", "balanced,defender"]
"""


def _run_spec(tmp_path_factory, name: str, spec_text: str) -> Path:
    """A results folder holding the lake of one experiment spec, run on one job."""
    folder = tmp_path_factory.mktemp(name)
    spec = folder / "spec.toml"
    spec.write_text(spec_text)
    assert main(["experiment", "run", str(spec), "--out", str(folder / "lake"), "--jobs", "1"]) == 0
    return folder


@pytest.fixture(scope="module")
def game_results(tmp_path_factory) -> Path:
    return _run_spec(tmp_path_factory, "games", SPEC)


def test_game_lake_report_has_outcome_vp_ending_and_strategy_sections(
    game_results, tmp_path, capsys
):
    page = build(game_results, tmp_path, capsys)
    assert {
        "provenance",
        "lake0",
        "table-lake0-rates",
        "fig-lake0-rates",
        "table-lake0-oo-vp",
        "table-lake0-ending",
        "table-lake0-strategies",
        "lake0-board",
        "fig-lake0-board-maps",
    } <= page.ids


def test_game_lake_rates_in_the_report_equal_the_analysis_api(game_results, tmp_path, capsys):
    from simkit import analysis

    page = build(game_results, tmp_path, capsys)
    lake = analysis.open_lake(game_results / "lake")
    expected = analysis.win_rates(lake.scan(), by=lake.grid_keys, metric=lake.key_metric).sort(
        lake.grid_keys
    )
    shown = {row[0]: row for row in page.tables["table-lake0-rates"][1:]}
    assert len(shown) == len(expected) == 2
    for r in expected.to_dicts():
        row = shown[r["strategies"]]
        assert row[2] == f"{r['rate']:.4f}" and row[3] == f"{r['ci_low']:.4f}-{r['ci_high']:.4f}"
    per = analysis.per_strategy(lake.scan("seats"), strategy="strategy", metric="win")
    table = {row[0]: row for row in page.tables["table-lake0-strategies"][1:]}
    for r in per.to_dicts():
        assert table[r["strategy"]][3] == f"{r['rate']:.4f}"


@pytest.fixture(scope="module")
def sensitivity_results(tmp_path_factory) -> Path:
    folder = tmp_path_factory.mktemp("sensitivity")
    root = Path(__file__).resolve().parents[1] / "experiments"
    for name in ("artillery_cost", "armoured_car_cost"):
        text = (root / f"sensitivity_{name}.toml").read_text()
        text = text.replace("games = 4000", "games = 300").replace(
            "chunk_size = 1000", "chunk_size = 150"
        )
        spec = folder / f"{name}.toml"
        spec.write_text(text)
        assert (
            main(["experiment", "run", str(spec), "--out", str(folder / name), "--jobs", "1"]) == 0
        )
    return folder


def test_sensitivity_section_shows_paired_changes_against_the_shipped_values(
    sensitivity_results, tmp_path, capsys
):
    from simkit import analysis
    from simkit.datapack import load_pack
    from simkit.runner.overrides import pack_value

    page = build(sensitivity_results, tmp_path, capsys)
    assert {"sensitivity", "sensitivity-band", "fig-sensitivity", "table-sensitivity"} <= page.ids
    rows = page.tables["table-sensitivity"][1:]
    assert len(rows) == 4  # two values either side of the shipped one, two experiments
    lake = analysis.open_lake(sensitivity_results / "artillery_cost")
    key = "units.artillery.cost"
    expected = analysis.paired_difference(
        lake.scan(), {key: pack_value(load_pack(), key)}, metric=lake.key_metric, by=[key]
    ).to_dicts()
    shown = {float(r[2]): r for r in rows if r[1] == key}
    for r in expected:
        assert shown[r[key]][7] == f"{r['diff']:+.4f}"


def test_ruleset_comparison_shows_paired_differences_on_shared_seeds(tmp_path, capsys):
    from simkit import analysis

    text = (
        Path(__file__).resolve().parents[1] / "experiments" / "revenge_rulesets.toml"
    ).read_text()
    spec = tmp_path / "rulesets.toml"
    spec.write_text(
        text.replace("games = 10000", "games = 200").replace(
            "chunk_size = 1000", "chunk_size = 200"
        )
    )
    assert (
        main(["experiment", "run", str(spec), "--out", str(tmp_path / "lake"), "--jobs", "1"]) == 0
    )
    page = build(tmp_path / "lake", tmp_path, capsys)
    rows = page.tables["table-lake0-rulesets"][1:]
    lake = analysis.open_lake(tmp_path / "lake")
    expected = analysis.paired_difference(
        lake.scan(),
        {"ruleset": "revenge"},
        metric="old_ones_win",
        within=["difficulty"],
        by=["difficulty", "ruleset"],
    ).to_dicts()
    assert len(rows) == len(expected) == 3
    shown = {r[0]: r for r in rows}
    for r in expected:
        assert shown[r["difficulty"]][5] == f"{r['diff']:+.4f}"


def test_board_heatmap_counts_events_by_printed_hex_number():
    import numpy as np
    import polars as pl

    from simkit.report.board import hex_counts

    numbers = np.array([3, 7, 9])  # printed numbers of a three-hex board, in board order
    frame = pl.LazyFrame({"to_hex": [7, 7, 9, 3, 8]})  # 8 is not on this board
    assert hex_counts(frame, "to_hex", numbers).tolist() == [1.0, 2.0, 1.0]


REVENGE_SPEC = """
[experiment]
name = "revenge_report_test"
mode = "revenge"
root_seed = 8
chunk_size = 150
games = 150
outputs = ["summary", "seats", "moves", "combats", "farms", "ports"]

[params]
humans = 2
strategies = "balanced"
oop = "rusher"

[grid]
difficulty = ["normal", "hard", "heroic"]
"""


@pytest.fixture(scope="module")
def revenge_results(tmp_path_factory) -> Path:
    return _run_spec(tmp_path_factory, "revenge", REVENGE_SPEC)


def test_farm_and_port_tables_agree_with_the_game_summary(revenge_results):
    import polars as pl

    from simkit import analysis

    lake = analysis.open_lake(revenge_results / "lake")
    keys = ["difficulty", "game_index", "chunk_id"]
    summary = (
        lake.scan()
        .select(*keys, "farms_built", "farms_blighted", "ports_lost", "log_overflow")
        .collect()
    )
    assert summary["log_overflow"].sum() == 0
    farms = (
        lake.scan("farms")
        .group_by(keys)
        .agg(pl.len().alias("placed"), pl.col("blighted").sum())
        .collect()
    )
    both = summary.join(farms, on=keys, how="left").fill_null(0)
    assert both["farms_blighted"].sum() > 0
    assert (both["placed"] == both["farms_built"]).all()
    assert (both["blighted"] == both["farms_blighted"]).all()
    seat_keys = [*keys, "seat"]
    seats = lake.scan("seats").select(*seat_keys, "port_lost").collect()
    ports = lake.scan("ports").select(*seat_keys, "lost").collect()
    assert ports.height == seats.height and ports["lost"].sum() > 0  # one Port per human seat
    joined = seats.join(ports, on=seat_keys, how="left")
    assert (joined["lost"] == joined["port_lost"]).all()
    lost = lake.scan("ports").filter(pl.col("lost") == 1).collect()
    assert (lost["lost_time"] > 0).all()


def test_board_section_shows_blight_per_hex_and_port_loss_by_site_equal_to_the_analysis_api(
    revenge_results, tmp_path, capsys
):
    from simkit import analysis

    page = build(revenge_results, tmp_path, capsys)
    assert {
        "lake0-board",
        "fig-lake0-board-maps",
        "table-lake0-blight",
        "lake0-ports",
        "fig-lake0-port-loss-sites",
        "table-lake0-port-loss",
    } <= page.ids
    html = (tmp_path / "report.html").read_text()
    assert_self_contained(html)
    from simkit.board import load_map

    board_svg = html[html.index('id="fig-lake0-board-maps"') :]
    board_svg = board_svg[: board_svg.index("</figure>")]
    for number in load_map("eastern").hex_number[
        ::7
    ]:  # every hex carries its printed number on the maps
        assert f">{int(number)}<" in board_svg, number
    lake = analysis.open_lake(revenge_results / "lake")
    expected = analysis.port_loss_by_site(lake.scan("ports"), by=["difficulty"]).to_dicts()
    rows = {int(r[0]): r for r in page.tables["table-lake0-port-loss"][1:]}
    levels = ["normal", "hard", "heroic"]  # play order, three cells per level
    assert len(expected) == sum(len(r) - 1 for r in rows.values()) // 3 > 0
    for r in expected:
        k = 1 + 3 * levels.index(r["difficulty"])
        assert rows[r["hex"]][k : k + 3] == [
            f"{r['games']:,}",
            f"{r['rate']:.3f}",
            f"{r['ci_low']:.3f}-{r['ci_high']:.3f}",
        ]
    blight = {r["hex"]: r for r in analysis.blight_by_hex(lake.scan("farms")).to_dicts()}
    shown = page.tables["table-lake0-blight"][1:]
    assert shown and all(int(r[1].replace(",", "")) >= 30 for r in shown)
    for r in shown:
        b = blight[int(r[0])]
        assert r[1:] == [
            f"{b['games']:,}",
            f"{b['wins']:,}",
            f"{b['rate']:.3f}",
            f"{b['ci_low']:.3f}-{b['ci_high']:.3f}",
        ]
    rates = [float(r[3]) for r in shown]
    assert rates == sorted(rates, reverse=True)


def test_vp_quantile_tables_equal_the_analysis_api_for_each_side(revenge_results, tmp_path, capsys):
    from simkit import analysis

    page = build(revenge_results, tmp_path, capsys)
    assert {"lake0-vp-distributions", "fig-lake0-vp-distributions"} <= page.ids
    lake = analysis.open_lake(revenge_results / "lake")
    sides = {
        "oop": analysis.old_ones_vp_sources(lake.scan()),
        "humans": analysis.human_vp_sources(lake.scan("seats")),
    }
    for side, frame in sides.items():
        expected = analysis.vp_quantiles(frame, by=["difficulty"]).to_dicts()
        rows = {(r[0], r[1]): r for r in page.tables[f"table-lake0-vp-quantiles-{side}"][1:]}
        assert len(rows) == len(expected) and {"total"} < {s for _, s in rows}
        for r in expected:
            row = rows[(r["difficulty"], r["source"])]
            assert r["mean_half_width"] > 0 or r["scoring"] in (
                0.0,
                1.0,
            )  # every mean carries its interval
            assert row[2:] == [
                f"{r['games']:,}",
                f"{r['mean']:.2f} ± {r['mean_half_width']:.2f}",
                f"{r['scoring']:.3f} ({r['scoring_ci_low']:.3f}-{r['scoring_ci_high']:.3f})",
                *(f"{r[q]:.0f}" for q in ("q10", "q25", "q50", "q75", "q90")),
            ]
    assert [r[0] for r in page.tables["table-lake0-vp-quantiles-oop"][1:]][::5] == [
        "normal",
        "hard",
        "heroic",
    ]


TILE_SPEC = Path(__file__).resolve().parents[1] / "experiments" / "sensitivity_tile_values.toml"


def test_tile_value_sensitivity_stays_within_the_stated_bounds():
    """Only assumed tile values move, one step, and Major Old Ones keep capacity 6+
    (KNOWN-DATA.md)."""
    import tomllib

    from simkit.datapack import load_pack
    from simkit.runner.overrides import pack_value

    spec = tomllib.loads(TILE_SPEC.read_text())
    assert (
        spec["experiment"]["design"] == "one_at_a_time" and spec["experiment"]["mode"] == "revenge"
    )
    grid = spec["override_grid"]
    assert len(grid) >= 6
    pack = load_pack()
    provenance = tomllib.loads((Path(pack.path) / "old_ones.toml").read_text())
    for key, values in grid.items():
        _, kind, field = key.split(".")
        assert field in ("vp", "damage_capacity")
        assert provenance[kind][field]["provenance"] == "assumed", (
            key
        )  # external values stay as stated
        shipped = pack_value(pack, key)
        for v in values:
            assert v != shipped and abs(v - shipped) <= 2 and v >= 1, (key, v)
            if kind in ("shoggoth", "cthulhu") and field == "damage_capacity":
                assert v >= 6, (key, v)
            if field == "vp" and kind in ("mi_go", "loyalist"):
                assert v > pack_value(pack, "old_ones.zombie.vp"), (
                    key,
                    v,
                )  # Zombies stay the weakest
    assert "old_ones.zombie.damage_capacity" not in grid and "old_ones.cthulhu.vp" not in grid


def test_one_at_a_time_tile_values_reach_the_report_band_as_paired_changes(tmp_path, capsys):
    import tomllib

    from simkit import analysis
    from simkit.datapack import load_pack
    from simkit.runner.overrides import pack_value

    text = (
        TILE_SPEC.read_text()
        .replace("games = 6000", "games = 200")
        .replace("chunk_size = 1000", "chunk_size = 200")
    )
    spec = tmp_path / "tiles.toml"
    spec.write_text(text)
    assert (
        main(
            [
                "experiment",
                "run",
                str(spec),
                "--out",
                str(tmp_path / "sens" / "tiles"),
                "--jobs",
                "1",
            ]
        )
        == 0
    )
    page = build(tmp_path / "sens", tmp_path, capsys)
    assert {"sensitivity", "sensitivity-band", "fig-sensitivity", "table-sensitivity"} <= page.ids
    lake = analysis.open_lake(tmp_path / "sens" / "tiles")
    keys = lake.grid_keys
    pack = load_pack()
    base = {k: pack_value(pack, k) for k in keys}
    expected = analysis.paired_difference(
        lake.scan(), base, metric="old_ones_win", by=keys
    ).to_dicts()
    rows = page.tables["table-sensitivity"][1:]
    assert (
        len(rows)
        == len(expected)
        == sum(len(v) for v in tomllib.loads(text)["override_grid"].values())
    )
    shown = {(r[1], int(r[2])): r for r in rows}
    moved = 0
    for r in expected:
        changed = [k for k in keys if r[k] != base[k]]
        assert len(changed) == 1  # one value at a time
        row = shown[(changed[0], r[changed[0]])]
        assert (
            row[0] == "revenge"
            and row[3] == str(base[changed[0]])
            and row[7] == f"{r['diff']:+.4f}"
        )
        moved += r["ci_low"] != r["ci_high"]
    assert (
        moved > len(expected) // 2
    )  # tile values change Revenge games (the override reaches the game mode)
    html = (tmp_path / "report.html").read_text()  # the band names the tile values as perturbed
    assert "Old One tile values (VP, damage capacity) were moved one step" in html


COMBAT_SPEC = """
[experiment]
name = "combat_report_test"
mode = "combat"
root_seed = 3
chunk_size = 1000
games = 2000

[params]
allocate = "cheapest"

[grid]
force = ["infantry=1", "infantry=3,artillery=1"]
vs = ["zombie", "cthulhu"]
"""


def test_a_combat_lake_reports_without_error_even_with_rates_of_zero_and_one(
    tmp_path_factory, tmp_path, capsys
):
    """The combat-lake crash: a cell at rate 0 (Wilson interval a hair above it) made
    matplotlib's errorbar raise "'xerr' must not contain negative values"."""
    from simkit import analysis

    folder = _run_spec(tmp_path_factory, "combat", COMBAT_SPEC)
    lake = analysis.open_lake(folder / "lake")
    rates = analysis.win_rates(lake.scan(), by=lake.grid_keys, metric=lake.key_metric)
    assert (
        rates["rate"].min() == 0.0
    )  # one infantry never destroys Cthulhu: the degenerate case is present
    page = build(folder, tmp_path, capsys)
    assert {
        "lake0",
        "table-lake0-combat-grid",
        "table-lake0-combat-outcomes",
        "table-lake0-combat-losses",
        "summary",
    } <= page.ids
    grid = page.tables["table-lake0-combat-grid"]
    assert page.headers["table-lake0-combat-grid"] == [
        "force",
        "zombie",
        "cthulhu",
    ]  # Old Ones in rulebook order
    shown = {r[0]: r for r in grid[1:]}
    for r in rates.to_dicts():
        col = 1 + ["zombie", "cthulhu"].index(r["vs"])
        assert shown[r["force"]][col] == f"{r['rate']:.3f} ({r['ci_low']:.3f}-{r['ci_high']:.3f})"
    assert_self_contained((tmp_path / "report.html").read_text())


def test_error_bars_are_never_negative():
    from simkit.report.games import error_bars

    err = error_bars([0.0, 1.0, 0.5], [1e-17, 0.99, 0.4], [0.01, 1.0 - 1e-17, 0.6])
    assert (err >= 0).all() and err.shape == (2, 3)


LABEL_SPEC = """
[experiment]
name = "label_test"
mode = "revenge"
root_seed = 11
chunk_size = 60
games = 60
outputs = ["summary", "seats"]
partition_by = ["difficulty"]

[params]
humans = 2

[grid]
difficulty = ["hard", "normal"]
oop = ["rusher", "blighter"]
"""


def test_every_result_table_labels_each_cell_with_every_varying_key(
    tmp_path_factory, tmp_path, capsys
):
    """The Old One strategy was missing from cell labels when it was not a partition key, so
    two cells looked identical; difficulty is listed in play order (normal before hard)."""
    import json

    folder = tmp_path_factory.mktemp("labels")
    spec = folder / "spec.toml"
    spec.write_text(LABEL_SPEC)
    code = main(
        ["experiment", "run", str(spec), "--out", str(folder / "lake"), "--jobs", "1", "--json"]
    )
    assert code == 0
    cells = json.loads(capsys.readouterr().out)["cells"]
    assert [c["label"].split(",")[0] for c in cells] == ["difficulty=normal"] * 2 + [
        "difficulty=hard"
    ] * 2
    assert sorted(c["label"] for c in cells) == [
        "difficulty=hard, oop=blighter",
        "difficulty=hard, oop=rusher",
        "difficulty=normal, oop=blighter",
        "difficulty=normal, oop=rusher",
    ]
    page = build(folder, tmp_path, capsys)
    assert page.headers["table-lake0-rates"][:2] == ["difficulty", "oop"]
    rows = page.tables["table-lake0-rates"][1:]
    labels = [tuple(r[:2]) for r in rows]
    assert len(set(labels)) == len(labels) == 4  # no two rows look identical
    assert [r[0] for r in rows] == [
        "normal",
        "normal",
        "hard",
        "hard",
    ]  # play order, not alphabetical
    summary = page.tables["table-summary-difficulty"]
    assert page.headers["table-summary-difficulty"][1:] == [
        "normal",
        "hard",
        "hard − normal (paired)",
    ]
    assert len(summary) == 2 and summary[1][0] == "all"


def test_experiment_run_labels_cells_by_every_varying_key():
    import tomllib

    from simkit.cli.experiment import varying_labels
    from simkit.runner import parse_spec

    spec = parse_spec(tomllib.loads(LABEL_SPEC))
    labels = sorted(varying_labels(spec).values())
    assert labels == [
        "difficulty=hard, oop=blighter",
        "difficulty=hard, oop=rusher",
        "difficulty=normal, oop=blighter",
        "difficulty=normal, oop=rusher",
    ]


def test_bot_pool_flag_compares_pools_within_a_cell_not_across_difficulties():
    """Before: the flag fired when the rate differed across *cells*, so a lake whose
    difficulties differ (as they should) was flagged although every bot pool agreed."""
    import polars as pl

    from simkit.report.games import pool_verdict

    def rates(rows):
        from simkit.core.stats import wilson_interval

        out = []
        for d, oop, wins, games in rows:
            lo, hi = wilson_interval(wins, games)
            out.append(
                {
                    "difficulty": d,
                    "oop": oop,
                    "games": games,
                    "wins": wins,
                    "rate": wins / games,
                    "ci_low": lo,
                    "ci_high": hi,
                }
            )
        return pl.DataFrame(out)

    agree = rates(
        [
            ("normal", "rusher", 300, 1000),
            ("normal", "mythos", 305, 1000),
            ("heroic", "rusher", 700, 1000),
            ("heroic", "mythos", 702, 1000),
        ]
    )
    verdict = pool_verdict(agree, ["oop"], ["difficulty"], "old_ones_win")
    assert "Flag" not in verdict and "do not hinge on one bot" in verdict
    disagree = rates(
        [
            ("normal", "rusher", 300, 1000),
            ("normal", "mythos", 500, 1000),
            ("heroic", "rusher", 700, 1000),
            ("heroic", "mythos", 702, 1000),
        ]
    )
    verdict = pool_verdict(disagree, ["oop"], ["difficulty"], "old_ones_win")
    assert (
        verdict.startswith("<b>Flag:</b>")
        and "1 of 2 cell(s)" in verdict
        and "difficulty=normal" in verdict
    )
    noisy = rates(
        [("normal", "rusher", 3, 10), ("normal", "mythos", 5, 10)]
    )  # 0.2 apart, intervals overlap
    assert "Flag" not in pool_verdict(noisy, ["oop"], ["difficulty"], "old_ones_win")


def test_simulate_writes_a_lake_that_report_summary_and_replay_read(tmp_path, capsys):
    import json

    out = tmp_path / "sim"
    code = main(
        [
            "simulate",
            "--games",
            "120",
            "--seed",
            "4",
            "--strategies",
            "economist,hunter",
            "--out",
            str(out),
            "--quiet",
        ]
    )
    printed = capsys.readouterr().out
    assert code == 0 and (out / "manifest.json").is_file()
    assert (
        "win rate per strategy" in printed and "economist" in printed and "95% interval" in printed
    )
    assert main(["experiment", "summary", str(out), "--json"]) == 0
    summary = json.loads(capsys.readouterr().out)
    assert summary["rows"][0]["games"] == 120 and summary["key_metric"] == "old_ones_win"
    page = build(out, tmp_path, capsys)
    assert {"summary", "lake0", "table-lake0-strategies", "table-lake0-seats"} <= page.ids
    assert main(["replay", "--lake", str(out), "--game", "7"]) == 0
    replayed = capsys.readouterr().out
    from simkit import analysis

    row = (
        analysis.open_lake(out).scan().collect().filter(game_index=7, chunk_id=0).row(0, named=True)
    )
    assert f"score: Old Ones {row['oo_vp']} VP" in replayed


CONTENT_SPEC = """
[experiment]
name = "content_pair"
mode = "revenge"
root_seed = 21
chunk_size = 150
games = 150
outputs = ["summary"]

[grid]
oop = ["mythos"]
content = ["assumed", "rules"]
"""


def test_a_lake_varying_content_shows_each_rate_under_both_modes_and_names_the_cards(
    tmp_path_factory, tmp_path, capsys
):
    from simkit import analysis

    folder = _run_spec(tmp_path_factory, "content", CONTENT_SPEC)
    page = build(folder, tmp_path, capsys)
    assert any(i.endswith("-content") for i in page.ids)
    html = (tmp_path / "report.html").read_text()
    assert_every_heading_in_toc(html)
    assert (
        "What rests on invented card texts" in html
        and "deep_ones" in html
        and "atlach_nacha" in html
    )
    lake = analysis.open_lake(folder / "lake")
    rates = analysis.win_rates(lake.scan(), by=["content"], metric="old_ones_win").to_dicts()
    for r in rates:  # the section's numbers are the analysis API's
        assert f"{r['rate']:.3f} ({r['ci_low']:.3f}-{r['ci_high']:.3f})" in html


SKILL_SPEC = """
[experiment]
name = "skill_pair"
mode = "revenge"
root_seed = 22
chunk_size = 120
games = 120
outputs = ["summary"]

[grid]
strategies = ["random", "balanced"]
difficulty = ["heroic", "normal", "hard"]
"""


def test_a_ladder_lake_gets_a_balance_against_skill_section_with_paired_steps(
    tmp_path_factory, tmp_path, capsys
):
    from simkit import analysis

    folder = _run_spec(tmp_path_factory, "skill", SKILL_SPEC)
    page = build(folder, tmp_path, capsys)
    assert any(i.endswith("-skill") for i in page.ids)
    steps = analysis.difficulty_steps(
        analysis.open_lake(folder / "lake").scan(), by=["strategies"]
    ).to_dicts()
    html = (tmp_path / "report.html").read_text()
    assert "Balance against skill" in html
    assert_every_heading_in_toc(html)
    for r in steps:
        assert {"normal", "hard", "heroic", "normal_to_hard", "hard_to_heroic", "ordered"} <= set(r)
        assert (
            f"{r['normal_to_hard']:+.3f} ({r['normal_to_hard_lo']:+.3f} "
            f"to {r['normal_to_hard_hi']:+.3f})" in html
        )
        assert r["ordered"] == (r["normal_to_hard_lo"] > 0 and r["hard_to_heroic_lo"] > 0)


LOOKAHEAD_SPEC = """
[experiment]
name = "lookahead_pair"
mode = "base"
root_seed = 23
chunk_size = 6
games = 6
outputs = ["summary", "seats"]

[params]
players = 2

[grid]
strategies = ["economist,economist", "search:rollouts=1:policy=economist,economist"]
"""


def test_a_lake_with_a_search_seat_gets_a_paired_look_ahead_section(
    tmp_path_factory, tmp_path, capsys
):
    import polars as pl

    from simkit import analysis

    folder = _run_spec(tmp_path_factory, "lookahead", LOOKAHEAD_SPEC)
    page = build(folder, tmp_path, capsys)
    (key,) = [k for k in page.tables if k.endswith("-lookahead")]
    table = page.tables[key]
    assert [r[1] for r in table[1:]] == ["6", "6"] and table[1][3] == "baseline"
    seats = analysis.open_lake(folder / "lake").scan("seats").filter(pl.col("listed") == 0)
    d = analysis.paired_difference(
        seats, {"strategies": "economist,economist"}, metric="win", by=["strategies"]
    ).to_dicts()[0]
    assert table[2][3] == f"{d['diff']:+.3f} ({d['ci_low']:+.3f} to {d['ci_high']:+.3f})"
    assert "search" in set(seats.collect()["strategy"])


ONE_RUNG_SPEC = """
[experiment]
name = "one_rung"
mode = "revenge"
root_seed = 24
chunk_size = 60
games = 60
outputs = ["summary"]

[params]
strategies = "economist"

[grid]
difficulty = ["normal", "hard", "heroic"]
"""


def test_a_single_rung_lake_still_gets_its_difficulty_steps(tmp_path_factory, tmp_path, capsys):
    from simkit import analysis

    folder = _run_spec(tmp_path_factory, "one_rung", ONE_RUNG_SPEC)
    page = build(folder, tmp_path, capsys)
    (key,) = [k for k in page.tables if k.endswith("-skill")]
    row = page.tables[key][1]
    lake = analysis.open_lake(folder / "lake")
    r = analysis.difficulty_steps(lake.scan(), by=["strategies"]).to_dicts()[0]
    assert row[0] == "economist"
    assert row[1] == f"{r['normal']:.3f} ({r['normal_lo']:.3f}-{r['normal_hi']:.3f})"


def test_skill_order_tells_a_reversed_step_from_one_not_shown():
    """'ordered: no' used to stand for both a step that goes the wrong way and one the
    sample cannot tell; they are different findings."""
    from simkit.report.skill import order_verdict

    base = {"normal_to_hard": 0.05, "hard_to_heroic": 0.04, "ordered": False}
    shown = {**base, "ordered": True, "normal_to_hard_lo": 0.01, "normal_to_hard_hi": 0.09}
    shown |= {"hard_to_heroic_lo": 0.01, "hard_to_heroic_hi": 0.07}
    assert order_verdict(shown) == "yes"
    rev = {**shown, "ordered": False, "hard_to_heroic": -0.05}
    rev |= {"hard_to_heroic_lo": -0.08, "hard_to_heroic_hi": -0.02}
    assert order_verdict(rev) == "reversed: Hard to Heroic is easier"
    open_ = {**shown, "ordered": False, "hard_to_heroic_lo": -0.01, "hard_to_heroic_hi": 0.09}
    assert order_verdict(open_) == "not shown at this sample size"


def test_the_summary_covers_every_lake_of_the_folder(tmp_path_factory, tmp_path, capsys):
    """Two lakes in one folder (a difficulty ladder and a content pair): the summary has a
    line or table for each (it used to read the first lake that varies difficulty only)."""
    import re
    import shutil

    folder = tmp_path / "both"
    shutil.copytree(_run_spec(tmp_path_factory, "skill", SKILL_SPEC) / "lake", folder / "a")
    shutil.copytree(_run_spec(tmp_path_factory, "content", CONTENT_SPEC) / "lake", folder / "b")
    build(folder, tmp_path, capsys)
    html = (tmp_path / "report.html").read_text()
    summary = re.search(r'<section class="summary".*?</section>', html, re.S).group(0)
    head = summary.split('<ul id="summary-facts">')[0]
    assert "skill_pair-" in head and "content_pair-" in head, head[:2000]
