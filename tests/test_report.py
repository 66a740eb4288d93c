"""Reports: parseable HTML, the expected sections and figures, numbers equal to the data."""

from __future__ import annotations

import json
from html.parser import HTMLParser
from pathlib import Path

import pytest

from simkit.cli import main
from simkit.datapack import load_pack
from simkit.names import OLD_ONE_TEXT, label
from simkit.odds import cheapest_mixes, odds_table, read_table, table_bytes
from simkit.report.combat import mix_label, rate
from simkit.views import bounds, interval, mean_interval


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
    """The report of a results folder, parsed; every report any test builds is also checked
    for plain words, the one interval notation and unique SVG ids."""
    out = tmp_path / "report.html"
    assert main(["report", str(results), "--out", str(out)]) == 0
    html = out.read_text()
    assert_plain_words(html)
    assert_one_interval_notation(html)
    assert_unique_svg_ids(html)
    parser = Collect()
    parser.feed(html)
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
    """Nothing to fetch: no stylesheet link, external image, font or import; one script, inline
    (the table sorter), none with a src."""
    import re

    lowered = html.lower()
    for bad in ("<link", "<img", "@import", "url(http", "<iframe", "<script src", "cdn"):
        assert bad not in lowered, bad
    assert re.findall(r"<script[^>]*>", lowered) == ["<script>"]
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
    assert page.headers["table-cheapest"][0] == "Old One"
    checked = 0
    for kind in ("zombie", "mi_go"):
        for copies in (1, 2):
            for target in (0.5, 0.8, 0.95):
                best = cheapest_mixes(table, kind, copies, target, top=1)
                row = rows[(OLD_ONE_TEXT[kind], copies, target)]
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
        assert row[2] == f"{r['rate']:.4f}" and row[3] == bounds(r["ci_low"], r["ci_high"], 4)
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
            bounds(r["ci_low"], r["ci_high"]),
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
            bounds(b["ci_low"], b["ci_high"]),
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
            row = rows[(r["difficulty"], label(r["source"]))]
            assert r["mean_half_width"] > 0 or r["scoring"] in (
                0.0,
                1.0,
            )  # every mean carries its interval
            assert row[2:] == [
                f"{r['games']:,}",
                mean_interval(r["mean"], r["mean_half_width"]),
                interval(r["scoring"], r["scoring_ci_low"], r["scoring_ci_high"]),
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
        "Gold",
        "Zombie",
        "Cthulhu",
    ]  # Old Ones in rulebook order, by name
    shown = {r[0]: r for r in grid[1:]}
    from simkit.report.combat import force_text

    for r in rates.to_dicts():
        col = 2 + ["zombie", "cthulhu"].index(r["vs"])
        assert shown[force_text(r["force"])][col] == interval(r["rate"], r["ci_low"], r["ci_high"])
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
    assert page.headers["table-lake0-rates"][:2] == ["difficulty", "Old One player"]
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
    assert page.headers["table-summary-difficulty"] == [
        "Old One player",
        "normal",
        "hard",
        "hard − normal (paired)",
    ]
    # one row per Old One player: the summary never pools over who plays
    assert sorted(r[0] for r in summary[1:]) == ["blighter", "rusher"]
    from simkit import analysis

    lake = analysis.open_lake(folder / "lake")
    rates = analysis.win_rates(lake.scan(), by=["oop", "difficulty"], metric=lake.key_metric)
    normal = {r["oop"]: r["rate"] for r in rates.to_dicts() if r["difficulty"] == "normal"}
    for row in summary[1:]:
        assert row[1].startswith(f"{normal[row[0]]:.3f}")


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
        and "difficulty: normal" in verdict
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
        assert interval(r["rate"], r["ci_low"], r["ci_high"]) in html


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
            interval(
                r["normal_to_hard"], r["normal_to_hard_lo"], r["normal_to_hard_hi"], signed=True
            )
            in html
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
    assert table[2][3] == interval(d["diff"], d["ci_low"], d["ci_high"], signed=True)
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
    assert row[1] == interval(r["normal"], r["normal_lo"], r["normal_hi"])


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
    """Two lakes in one folder (a content pair read first, then a difficulty ladder): the
    summary has a line or table for each (it used to read the first lake that varies
    difficulty only), and the difficulty table leads, one row per human rung."""
    import re
    import shutil

    folder = tmp_path / "both"
    shutil.copytree(_run_spec(tmp_path_factory, "content", CONTENT_SPEC) / "lake", folder / "a")
    shutil.copytree(_run_spec(tmp_path_factory, "skill", SKILL_SPEC) / "lake", folder / "b")
    page = build(folder, tmp_path, capsys)
    html = (tmp_path / "report.html").read_text()
    summary = re.search(r'<section class="summary".*?</section>', html, re.S).group(0)
    head = summary.split('<ul id="summary-facts">')[0]
    assert "skill_pair" in head and "content_pair" in head, head[:2000]
    assert head.index("skill_pair") < head.index("content_pair")
    table = next(t for i, t in page.tables.items() if i.startswith("table-summary-difficulty"))
    assert sorted(r[0] for r in table[1:]) == ["balanced", "random"]


# ---- issue #27 item 5: labels, the combat-lake heatmap, your forces, one interval notation,
# ---- phone layout and sortable tables, unique SVG ids


class Visible(HTMLParser):
    """The text a reader sees: everything but <style>, <script> and <details> (the machine
    identifiers), SVG text included (axis labels, legends, heatmap cells)."""

    def __init__(self):
        super().__init__()
        self.parts, self._skip = [], 0

    def handle_starttag(self, tag, attrs):
        if tag in ("style", "script", "details"):
            self._skip += 1

    def handle_endtag(self, tag):
        if tag in ("style", "script", "details"):
            self._skip -= 1

    def handle_data(self, data):
        if not self._skip:
            self.parts.append(data)


def visible_text(html: str) -> str:
    """The visible text, one " | " between elements (two table cells never read as one)."""
    v = Visible()
    v.feed(html)
    return " | ".join(v.parts)


RAW_NAMES = (
    "old_ones_win",
    "humans_win",
    "win_and_defeat",
    "gold_lost",
    "units_lost",
    "oo_vp",
    "mi_go",
    "armoured_car",
    "vp_",
    "key_metric",
    "oop",
    "vp farms",
)


def assert_plain_words(html: str) -> None:
    """No raw column or metric name a reader sees (a dotted data key such as
    old_ones.mi_go.vp, or a folder name, is the user's own spelling and stays)."""
    import re

    text = visible_text(html)
    for raw in RAW_NAMES:
        m = re.search(rf"(?<![\w.]){raw}(?![\w.])" if raw != "vp_" else r"(?<![\w.])vp_\w", text)
        assert not m, (raw, text[max(0, m.start() - 80) : m.end() + 80])
    assert not re.search(r"\b[0-9a-f]{16}\b", text), "a hash outside the details lines"
    eid = re.search(r"\b[a-z0-9_]+-[0-9a-f]{8}\b", text)  # an experiment id (name-hash)
    assert not eid, text[max(0, eid.start() - 80) : eid.end() + 80]


def assert_one_interval_notation(html: str) -> None:
    """Every pair of bounds is written '[low, high]' (simkit.views): no 'a-b', 'a..b',
    'a to b', '±' or '(a-b)' anywhere a reader sees, SVG text included."""
    from simkit.views import OTHER_INTERVAL_FORMS

    text = visible_text(html)
    found = OTHER_INTERVAL_FORMS.findall(text)
    assert not found, found[:5]


def assert_unique_svg_ids(html: str) -> None:
    """Every id in the page (inside the SVGs too) is unique, and each figure's references
    (url(#..), href="#..", xlink:href="#..") point at ids of that same figure."""
    import re

    ids = re.findall(r'\bid="([^"]+)"', html)
    dup = {i for i in ids if ids.count(i) > 1}
    assert not dup, sorted(dup)[:5]
    figures = re.findall(r'<figure id="([^"]+)"[^>]*>(.*?)</figure>', html, re.S)
    assert figures
    for fig_id, body in figures:
        own = set(re.findall(r'\bid="([^"]+)"', body))
        refs = re.findall(r"url\(#([^)]+)\)", body) + re.findall(r'href="#([^"]+)"', body)
        assert all(r in own for r in refs), (fig_id, [r for r in refs if r not in own][:3])
        assert all(i.startswith(f"{fig_id}-") for i in own), fig_id


def test_svg_ids_are_prefixed_per_figure_with_their_references():
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    from simkit.report.html import figure_html

    pages = []
    for k in range(2):
        fig, ax = plt.subplots()
        ax.plot([0, 1], [k, 1 - k])
        ax.text(0.5, 0.5, "same text")
        pages.append(figure_html(fig, "a line", f"fig-{k}"))
    raw = [p for p in pages]
    html = "".join(raw)
    assert "url(#fig-0-" in html and "url(#fig-1-" in html  # clip paths renamed with the id
    assert_unique_svg_ids(html)


def test_odds_report_speaks_plain_words_with_one_interval_notation_and_unique_ids(
    results, tmp_path, capsys
):
    build(results, tmp_path, capsys)
    html = (tmp_path / "report.html").read_text()
    assert_plain_words(html)
    assert_one_interval_notation(html)
    assert_unique_svg_ids(html)
    assert "<details" in html  # the data pack hash is in a details line
    assert "Mi-Go" in visible_text(html)


def test_my_force_adds_a_marked_row_to_every_odds_heatmap_equal_to_force_rows(
    results, tmp_path, capsys
):
    """A force the table does not hold (4 Infantry + 2 Airships: the table has 0/1 of each)
    gets its row in both heatmaps, starred, and its odds in a table; the odds are
    simkit.odds.force_rows' (the table's seed and method); a force the table holds gets the
    table's own numbers."""
    import re

    from simkit.odds import force_rows
    from simkit.report.combat import YOURS

    out = tmp_path / "mine.html"
    argv = ["report", str(results), "--out", str(out)]
    argv += ["--my-force", "infantry=4,airship=2", "--my-force", "infantry=1,artillery=1"]
    assert main(argv) == 0
    html = out.read_text()
    page = Collect()
    page.feed(html)
    for copies in (1, 2):
        fig = re.search(rf'<figure id="fig-heatmap-{copies}".*?</figure>', html, re.S).group(0)
        assert f"{YOURS}4 Infantry + 2 Airship" in fig, copies  # the row, marked
        assert f"{YOURS}1 Infantry + 1 Artillery" in fig
    table, meta = read_table(results / "odds.parquet")
    data = load_pack()
    mine = force_rows(data, [(4, 0, 0, 0, 2)], [0, 1], (1, 2), seed=meta["seed"])
    shown = page.tables["table-combat-odds-yours"][1:]
    assert len(shown) == 2 * 2 * 2  # two forces x two Old Ones x one and two copies
    for _, r in mine.iterrows():
        vs = f"{int(r['old_ones'])} × {OLD_ONE_TEXT[str(r['old_one'])]}"
        (row,) = [s for s in shown if s[0] == "4 Infantry + 2 Airship" and s[3] == vs]
        gold = 4 * float(data.unit_cost[0]) + 2 * float(data.unit_cost[4])
        assert float(row[1]) == gold == r["gold_cost"]
        assert row[4] == rate(r["p_destroy"], r["p_destroy_lo"], r["p_destroy_hi"], r["method"])
    held = table[(table.n_infantry == 1) & (table.n_artillery == 1) & (table.n_armoured_car == 0)]
    held = held[(held.n_armoured_train == 0) & (held.n_airship == 0)]
    for _, r in held.iterrows():  # the same row as the table's
        vs = f"{int(r['old_ones'])} × {OLD_ONE_TEXT[str(r['old_one'])]}"
        (row,) = [s for s in shown if s[0] == "1 Infantry + 1 Artillery" and s[3] == vs]
        assert row[4] == rate(r["p_destroy"], r["p_destroy_lo"], r["p_destroy_hi"], r["method"])
    assert_unique_svg_ids(html)
    assert_one_interval_notation(html)


def test_my_force_is_read_by_the_combat_parser_and_refused_when_wrong(results, tmp_path, capsys):
    out = tmp_path / "bad.html"
    assert main(["report", str(results), "--out", str(out), "--my-force", "infantry=x"]) == 2
    assert "whole number" in capsys.readouterr().err  # simkit combat --force's own message
    assert main(["report", str(results), "--out", str(out), "--my-force", "tanks=2"]) == 2
    assert "unknown unit" in capsys.readouterr().err
    assert not out.exists()


COST_SPEC = """
[experiment]
name = "combat_cost_test"
mode = "combat"
root_seed = 4
chunk_size = 1000
games = 1000

[grid]
force = ["infantry=1", "infantry=2,artillery=1", "infantry=3,armoured_car=1,airship=1"]
vs = ["zombie", "mi_go", "cthulhu"]
"""


def test_a_combat_lake_gets_a_force_by_old_one_heatmap_and_the_cheapest_force_per_target(
    tmp_path_factory, tmp_path, capsys
):
    import re

    from simkit import analysis
    from simkit.combat import parse_force
    from simkit.report.combat import force_text

    folder = _run_spec(tmp_path_factory, "combat_cost", COST_SPEC)
    page = build(folder, tmp_path, capsys)
    html = (tmp_path / "report.html").read_text()
    assert {"fig-lake0-force-heatmap", "table-lake0-combat-cheapest"} <= page.ids
    lake = analysis.open_lake(folder / "lake")
    rates = analysis.win_rates(lake.scan(), by=["force", "vs"], metric="destroyed").to_dicts()
    cost = {
        f: float(
            sum(n * float(c) for n, c in zip(parse_force(f), load_pack().unit_cost, strict=False))
        )
        for f in {r["force"] for r in rates}
    }
    fig = re.search(r'<figure id="fig-lake0-force-heatmap".*?</figure>', html, re.S).group(0)
    for f, gold in cost.items():  # every force is a row, its Gold cost in its label
        assert f"{force_text(f)} ({gold:g} Gold)" in fig
    for name in ("Zombie", "Mi-Go", "Cthulhu"):
        assert f">{name}<" in fig or name in fig
    rows = page.tables["table-lake0-combat-cheapest"][1:]
    assert len(rows) == 3 * 3
    for row in rows:
        vs = {"Zombie": "zombie", "Mi-Go": "mi_go", "Cthulhu": "cthulhu"}[row[0]]
        target = float(row[1])
        reach = [r for r in rates if r["vs"] == vs and r["rate"] >= target]
        if not reach:
            assert row[3] == "none in this lake"
            continue
        best = min(reach, key=lambda r: (cost[r["force"]], -r["rate"]))
        assert float(row[2]) == cost[best["force"]]  # the data pack's costs, summed
        assert row[3] == force_text(best["force"])
        assert row[4] == interval(best["rate"], best["ci_low"], best["ci_high"])
    assert_plain_words(html)
    assert_one_interval_notation(html)
    assert_unique_svg_ids(html)
    ids = " ".join(re.findall(r'<details class="ids">(.*?)</details>', html, re.S))
    assert all(cell_id in ids for cell_id in lake.cells)  # cell ids: in the details line only
    assert not any(cell_id in visible_text(html) for cell_id in lake.cells)


def test_game_lake_report_speaks_plain_words_with_one_interval_notation(
    game_results, tmp_path, capsys
):
    build(game_results, tmp_path, capsys)
    html = (tmp_path / "report.html").read_text()
    assert_plain_words(html)
    assert_one_interval_notation(html)
    assert_unique_svg_ids(html)
    assert "Old Ones win" in visible_text(html)


def test_long_tables_sort_and_the_page_keeps_a_phone_and_a_print_layout(results, tmp_path, capsys):
    """Tables of 8 rows or more carry class "sortable" (the inline script sorts them; without
    it they are plain tables); the stylesheet has a narrow-screen block and a print block
    that lets tables grow instead of scrolling (nothing cut on paper)."""
    import re

    page = build(results, tmp_path, capsys)
    html = (tmp_path / "report.html").read_text()
    tables = re.findall(r'<table id="([^"]+)"([^>]*)>', html)
    for tid, attrs in tables:
        assert ('class="sortable"' in attrs) == (len(page.tables[tid]) - 1 >= 8), tid
    assert any('class="sortable"' in a for _, a in tables)
    css = re.search(r"<style>(.*?)</style>", html, re.S).group(1)
    phone = re.search(r"@media \(max-width: 640px\) \{(.*?)\n\}", css, re.S).group(1)
    assert "columns: 1" in phone
    printed = re.search(r"@media print \{(.*?)\n\}", css, re.S).group(1)
    assert "overflow: visible" in printed and "display: table" in printed
    assert "#fff" in printed and "#000" in printed  # dark on white
    assert "figure svg { max-width: 100%" in css


CHROMIUM = Path("/usr/bin/chromium")


def test_report_in_a_browser_fits_a_phone_and_sorts_a_table_on_click(results, tmp_path, capsys):
    """The report at 390 px: no page-wide sideways scroll (tables scroll in their own box,
    figures scale); a click on a long table's header sorts it. Screenshots at 1280 and 390 px
    are written next to the report."""
    if not CHROMIUM.exists():
        pytest.skip("no chromium: `make browser` installs it")
    sync_api = pytest.importorskip("playwright.sync_api")
    build(results, tmp_path, capsys)
    url = (tmp_path / "report.html").as_uri()
    args = ["--headless", "--no-sandbox", "--disable-gpu", "--no-first-run"]
    with sync_api.sync_playwright() as p:
        browser = p.chromium.launch(executable_path=str(CHROMIUM), args=args)
        try:
            for width in (1280, 390):
                page = browser.new_page(viewport={"width": width, "height": 900})
                errors = []
                page.on("pageerror", lambda exc, errors=errors: errors.append(str(exc)))
                page.goto(url)
                page.screenshot(path=str(tmp_path / f"report-{width}.png"), full_page=False)
                assert not errors
                wide = page.evaluate("document.documentElement.scrollWidth")
                assert wide <= width, (width, wide)  # no sideways scroll of the whole page
                figs = page.evaluate(
                    "Array.from(document.querySelectorAll('figure svg'))"
                    ".map(s => s.getBoundingClientRect().right)"
                )
                assert figs and max(figs) <= width
            table = "table.sortable"
            first = page.evaluate(
                f"Array.from(document.querySelectorAll('{table}')[0].tBodies[0].rows)"
                ".map(r => r.cells[4].textContent)"
            )
            page.locator(f"{table} th").nth(4).click()
            after = page.evaluate(
                f"Array.from(document.querySelectorAll('{table}')[0].tBodies[0].rows)"
                ".map(r => r.cells[4].textContent)"
            )
            key = [float(x.replace(",", "")) if x else float("inf") for x in after]
            assert sorted(after) == sorted(first) and key == sorted(key)
            sort = page.locator(f"{table} th").nth(4).get_attribute("aria-sort")
            assert sort == "ascending"
        finally:
            browser.close()


METAGAME_SPEC = """
[experiment]
name = "metagame_tiny"
mode = "revenge"
root_seed = 5
chunk_size = 30
games = 30
outputs = ["summary"]

[params]
humans = 2

[grid]
difficulty = ["normal", "hard"]
strategies = ["balanced", "random"]
oop = ["rusher", "random"]
"""


def test_a_lake_crossing_both_sides_players_leads_the_summary_with_their_equilibrium(
    tmp_path_factory, tmp_path, capsys
):
    """Each level is a matrix game over the crossed players: the summary's first table gives
    its value (the equilibrium of the win-rate matrix), the mixtures, and the paired step."""
    import polars as pl

    from simkit import analysis
    from simkit.analysis import metagame as mg

    folder = _run_spec(tmp_path_factory, "metagame", METAGAME_SPEC)
    build(folder, tmp_path, capsys)
    html = (tmp_path / "report.html").read_text()
    summary = visible_text(html[html.index('id="summary"') :])
    assert summary.index("Strong, equal play") < summary.index("Difficulty")
    games = analysis.open_lake(folder / "lake").scan().collect()
    values = {}
    for level in ("normal", "hard"):
        _, _, wins = mg.wins_by_pair(games.filter(pl.col("difficulty") == level))
        values[level] = mg.solve(mg.win_matrix(wins)).value
        assert f"difficulty {level} | 2 x 2 | 30 | {values[level]:.3f} [" in summary
    assert f"normal to hard | {values['hard'] - values['normal']:+.3f} [" in summary


def test_a_lake_of_one_sides_players_has_no_equilibrium_table(game_results, tmp_path, capsys):
    build(game_results, tmp_path, capsys)
    assert "Strong, equal play" not in (tmp_path / "report.html").read_text()


def test_a_meta_game_grown_by_a_lake_of_added_players_is_solved_as_one_cross(
    tmp_path_factory, tmp_path, capsys
):
    """A cell played as a first lake and a second lake of an added human player (same
    deals: metagame_revenge.py's growth) is one matrix game in the summary: the value of
    one lake crossing all three players; a lake whose pairs are all in the other stays out."""
    from simkit import analysis
    from simkit.report import metagame

    def spec(name: str, humans: list[str]) -> str:
        text = METAGAME_SPEC.replace("metagame_tiny", name)
        text = text.replace('["normal", "hard"]', '["normal"]')
        return text.replace('["balanced", "random"]', json.dumps(humans))

    grown = tmp_path_factory.mktemp("grown")
    for name, humans in (("cell", ["balanced", "random"]), ("cell+h1", ["economist"])):
        (grown / f"{name}.toml").write_text(spec(name, humans))
        argv = ["experiment", "run", str(grown / f"{name}.toml"), "--out", str(grown / name)]
        assert main(argv) == 0
    whole = _run_spec(tmp_path_factory, "whole", spec("cell", ["balanced", "economist", "random"]))

    def rows(folder: Path) -> list[dict]:
        roots = sorted({p.parent for p in folder.glob("**/manifest.json")})
        return metagame.equilibria([analysis.open_lake(r) for r in roots])

    (one,), (merged,) = rows(whole), rows(grown)
    assert merged["lake"].count(" + ") == 1 and merged["players"] == one["players"]
    assert merged["value"] == one["value"] and merged["games"] == 30
    assert (merged["ci_low"], merged["ci_high"]) == (one["ci_low"], one["ci_high"])
    build(grown, tmp_path, capsys)
    summary = visible_text((tmp_path / "report.html").read_text())
    assert f"difficulty normal | 3 x 2 | 30 | {one['value']:.3f} [" in summary


# ---- issue #25: the skill curve leads the summary (a run per level, several folders)


@pytest.fixture(scope="module")
def curve_folders(tmp_path_factory) -> dict[str, Path]:
    """A tiny skill curve as experiments/skill_curve_revenge.py plays it: both sides searching
    at 1 and 2 rollouts, Normal in one folder and Hard in another, on the same 2 deals."""
    import runpy

    script = runpy.run_path(str(Path(__file__).parents[1] / "experiments/skill_curve_revenge.py"))
    root = tmp_path_factory.mktemp("curve")
    for level in ("normal", "hard"):
        assert script["run"](
            root / level, plan={("both", 1): 2, ("both", 2): 2}, budgets=(1, 2),
            difficulties=(level,), rounds=1, log=lambda m: None,
        )  # fmt: skip
    return {"normal": root / "normal", "hard": root / "hard"}


def test_a_skill_curve_over_folders_leads_the_summary_with_equal_play_at_its_top_budget(
    curve_folders, tmp_path, capsys
):
    """Two folders (a level each) make one curve: its section comes first, the summary opens
    with both sides at the largest budget (each level's rate, Hard minus Normal paired, and
    that two games cannot show the curve settled), and no curve lake gets a line of its own
    there. The rates table equals the lakes' own Wilson rates."""
    import re

    from simkit import analysis
    from simkit.core.stats import wilson_interval

    out = tmp_path / "report.html"
    folders = [str(curve_folders["normal"]), str(curve_folders["hard"])]
    assert main(["report", *folders, "--out", str(out)]) == 0
    assert capsys.readouterr().out.startswith(f"wrote {out} (skill-curve, lake0")
    html = out.read_text()
    assert_plain_words(html)
    assert_one_interval_notation(html)
    assert_unique_svg_ids(html)
    summary = re.search(r'<section class="summary".*?</section>', html, re.S).group(0)
    lead = visible_text(summary.split('<ul id="summary-facts">')[0])
    assert lead.index("Strong, equal play: both sides searching") < 20, lead[:200]
    assert "2 rollouts | " in lead and "Hard − Normal" in lead, lead
    # two games a level: neither the order nor a settled curve can be shown
    assert "the order of the levels is not shown at this sample size" in lead
    assert "Whether the curve has settled at 2 is not shown" in lead
    assert "over 2 games" not in lead  # the curve speaks for its four lakes
    page = Collect()
    page.feed(html)
    rows = {r[0]: r[1:] for r in page.tables["table-skill-curve-rates"][1:]}  # one arm: none
    for level in ("normal", "hard"):
        for k, budget in enumerate((1, 2)):
            lake = analysis.open_lake(curve_folders[level] / f"skill_curve_revenge_both_r{budget}")
            wins = lake.scan().select("old_ones_win").collect()["old_ones_win"]
            lo, hi = wilson_interval(int(wins.sum()), wins.len())
            cell = f"{interval(wins.mean(), lo, hi)} (2)"
            assert rows[level.title()][k] == cell
    steps = page.tables["table-skill-curve-levels"][1:]
    assert [r[:2] for r in steps] == [["1", "Hard − Normal"], ["2", "Hard − Normal"]]
    assert "<h3>Doublings (both sides search at R)</h3>" in html


def test_only_lakes_with_a_searching_arm_at_two_budgets_make_a_curve(curve_folders):
    from simkit import analysis
    from simkit.analysis.skill_curve import curve_lakes

    def lake(level, r):
        return analysis.open_lake(curve_folders[level] / f"skill_curve_revenge_both_r{r}")

    assert curve_lakes([lake("normal", 1), lake("hard", 1)]) == []  # one budget: no curve
    four = [lake(level, r) for level in ("normal", "hard") for r in (1, 2)]
    assert curve_lakes(four) == four


def test_report_refuses_a_curve_cell_in_two_folders_and_a_missing_one(
    curve_folders, tmp_path, capsys
):
    """The same cell (arm, level, budget) from two folders would pair its games with
    themselves: exit 2 with one line naming the cell, no report written. A folder named twice
    reads once; a missing folder is exit 2 naming it."""
    import shutil

    copy = tmp_path / "normal_again"
    shutil.copytree(curve_folders["normal"], copy)
    out = tmp_path / "report.html"
    assert main(["report", str(curve_folders["normal"]), str(copy), "--out", str(out)]) == 2
    err = capsys.readouterr().err.strip().splitlines()
    assert len(err) == 1 and "both at normal, R = 1 is also in" in err[0], err
    assert not out.exists()
    twice = [str(curve_folders["normal"])] * 2
    assert main(["report", *twice, "--out", str(out)]) == 0
    capsys.readouterr()
    assert main(["report", str(curve_folders["hard"]), str(tmp_path / "nope"), "--out",
                 str(tmp_path / "r2.html")]) == 2  # fmt: skip
    err = capsys.readouterr().err.strip().splitlines()
    assert len(err) == 1 and "nope" in err[0], err


@pytest.mark.parametrize(
    ("flip", "said"),
    [
        (0, "The curve has settled: the doubling 2 → 4 reads"),
        (400, "The curve is still moving at 4: the doubling 2 → 4 reads"),
    ],
)
def test_the_curve_lead_says_settled_only_when_every_doubling_is_within_two_points(flip, said):
    """4,000 deals at 1, 2 and 4 rollouts: the same results at every budget read as settled
    (convergence shown at 1); 400 Old One wins lost at 4 (-0.10) read as still moving and
    call the rates the budget's, not strong play's."""
    import polars as pl

    from simkit.report.curve import Curve, summary

    n = 4000
    won = [i % 2 == 0 for i in range(n)]
    rows = [
        {"arm": "both", "budget": r, "difficulty": level, "humans": 2, "root_seed": 1,
         "chunk_id": i // 10, "game_index": i % 10,
         "old_ones_win": won[i] and not (r == 4 and i < 2 * flip)}
        for level in ("normal", "hard") for r in (1, 2, 4) for i in range(n)
    ]  # fmt: skip
    facts = {"players": {("both", 1): ("search:rollouts=1", "search:rollouts=1")},
             "data": {"x"}, "content": {"content assumed"}}  # fmt: skip
    text = visible_text(summary(Curve([], pl.DataFrame(rows), facts)))
    assert said in text, text
    assert ("stronger search may read lower or higher" in text) == bool(flip)
    assert ("convergence (every later doubling under 2 points, its interval within 2 points "
            "of 0) is " + ("not shown" if flip else "shown at Normal, Hard")) in text  # fmt: skip


def test_a_curve_with_an_unfinished_lake_is_refused_or_shown_with_what_is_missing(
    curve_folders, tmp_path, capsys
):
    """A curve lake with a chunk missing (a run still playing, say): refused (exit 2, one
    line) unless --allow-incomplete, and then the curve section opens with the missing note;
    lakes of the same name in two folders are told apart by their folder in the headings."""
    import shutil

    for level in ("normal", "hard"):
        shutil.copytree(curve_folders[level], tmp_path / level)
    (chunk,) = (tmp_path / "hard/skill_curve_revenge_both_r2").glob("summary/*.parquet")
    chunk.unlink()
    out = tmp_path / "report.html"
    folders = [str(tmp_path / "normal"), str(tmp_path / "hard")]
    assert main(["report", *folders, "--out", str(out)]) == 2
    err = capsys.readouterr().err.strip().splitlines()
    assert len(err) == 1 and "skill_curve_revenge_both_r2" in err[0], err
    assert main(["report", *folders, "--out", str(out), "--allow-incomplete"]) == 0
    html = out.read_text()
    curve = html[html.index('<section id="skill-curve">') - 400 :]
    warn = curve[: curve.index('<section id="skill-curve">')]
    assert "skill_curve_revenge_both_r2" in warn and "the curve uses the games present only" in warn
    text = visible_text(html)
    assert "skill_curve_revenge_both_r1 (normal)" in text
    assert "skill_curve_revenge_both_r1 (hard)" in text


def test_a_curve_without_both_sides_searching_does_not_speak_for_equal_play():
    """An Old-One-only curve (the humans play their policy) gets a pointer in the summary that
    says it does not compare the levels at equal play, never the equal-play lead."""
    import polars as pl

    from simkit.report.curve import Curve, summary

    rows = [
        {"arm": "oop", "budget": r, "difficulty": level, "humans": 2, "root_seed": 1,
         "chunk_id": 0, "game_index": i, "old_ones_win": i % 3 == 0}
        for level in ("normal", "hard") for r in (1, 2) for i in range(10)
    ]  # fmt: skip
    facts = {"players": {("oop", 1): ("balanced", "search:rollouts=1")}, "data": {"x"},
             "content": {"content assumed"}}  # fmt: skip
    text = visible_text(summary(Curve([], pl.DataFrame(rows), facts)))
    assert "OOP searches at R vs balanced humans" in text
    assert "does not say how the levels compare at equal play" in text
    assert "Strong, equal play" not in text
