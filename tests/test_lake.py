"""The result lake: file layout, schema, metadata, checks of foreign/corrupt files, the lock."""

from __future__ import annotations

import json
import os
from pathlib import Path

import numpy as np
import pyarrow as pa
import pyarrow.parquet as pq
import pytest

import simkit
from simkit import lake as lk
from simkit.errors import UserError
from simkit.modes import _MODES, Mode, Param, register
from simkit.runner import load_spec, parse_spec, run_experiment


def _events_chunk(params, data, root_seed, chunk_id, n_games, outputs):
    """A two-table toy mode: one summary row per game, game_index % 3 move rows per game."""
    rng = np.random.default_rng(np.random.SeedSequence(root_seed, spawn_key=(chunk_id,)))
    win = (rng.random(n_games) < params["p"]).astype(np.int8)
    out = {
        "summary": {
            "game_index": np.arange(n_games, dtype=np.int32),
            "win": win,
            "vp_cards": rng.integers(0, 5, n_games).astype(np.int16),
        }
    }
    if "moves" in outputs:
        games = np.repeat(np.arange(n_games, dtype=np.int32), np.arange(n_games) % 3)
        out["moves"] = {"game_index": games, "step": np.zeros(games.size, dtype=np.int16)}
    return out


@pytest.fixture
def events_mode():
    mode = register(
        Mode(
            name="test_events",
            params={"p": Param(float, 0.5, minimum=0, maximum=1), "label": Param(str, "a")},
            run_chunk=_events_chunk,
            key_metric="win",
            outputs=frozenset({"summary", "moves"}),
            extra={"data": None, "default_chunk_size": 50},
        )
    )
    yield mode
    _MODES.pop("test_events", None)


def events_spec(**exp):
    raw = {
        "experiment": {
            "name": "events",
            "mode": "test_events",
            "root_seed": 3,
            "games": 120,
            "outputs": ["summary", "moves"],
            **exp,
        },
        "grid": {"p": [0.25, 0.75], "label": ["x=1/y", "b c"]},
    }
    return parse_spec(raw, "events.toml")


def test_one_file_per_table_and_chunk_under_hive_folders(tmp_path, events_mode):
    run_experiment(events_spec(), out=tmp_path, quiet=True)
    names = sorted(p.relative_to(tmp_path).as_posix() for p in tmp_path.rglob("*.parquet"))
    assert len(names) == 2 * 4 * 3  # tables x cells x chunks (50, 50, 20)
    assert all(
        n.split("/")[0] in ("summary", "moves") and lk.CHUNK_RE.match(n.split("/")[-1])
        for n in names
    )
    assert any(
        "label=x%3D1%2Fy" in n for n in names
    )  # values URI-encoded, one folder level per key


def test_partition_values_round_trip_through_folder_names():
    part = (("force", "infantry=2,artillery=1"), ("label", "a/b c%"), ("flag", True), ("cost", 2.5))
    rel = lk.chunk_relpath("summary", part, "0123456789", 7)
    assert rel.endswith("/chunk-0123456789-000007.parquet") and rel.count("/") == 5
    assert lk.parse_partition(rel) == {k: lk.value_text(v) for k, v in part}


def test_every_row_carries_keys_and_parameters_in_small_types(tmp_path, events_mode):
    run_experiment(events_spec(), out=tmp_path, quiet=True)
    table = pq.read_table(sorted(tmp_path.glob("summary/**/*.parquet"))[0])
    schema = table.schema
    assert schema.names[:5] == ["experiment_id", "cell", "root_seed", "chunk_id", "game_index"]
    assert (
        schema.field("chunk_id").type == pa.int32()
        and schema.field("game_index").type == pa.int32()
    )
    assert schema.field("win").type == pa.int8() and schema.field("vp_cards").type == pa.int16()
    assert schema.field("label").type == pa.string() and schema.field("p").type == pa.float64()
    meta = pq.read_metadata(sorted(tmp_path.glob("summary/**/*.parquet"))[0])
    assert meta.row_group(0).column(0).compression == "ZSTD"
    assert "RLE_DICTIONARY" in meta.row_group(0).column(1).encodings


def test_file_metadata_records_engine_data_commit_and_counts(tmp_path, events_mode):
    run_experiment(events_spec(), out=tmp_path, quiet=True)
    path = sorted(tmp_path.glob("summary/**/*.parquet"))[0]
    meta = json.loads(pq.read_metadata(path).metadata[b"simkit"])
    table = pq.read_table(path)
    assert meta["engine_version"] == simkit.ENGINE_VERSION and meta["git_commit"]
    assert {"data_hash", "experiment_id", "root_seed", "chunk_size", "cell", "chunk_id"} <= set(
        meta
    )
    assert meta["rows"] == table.num_rows == meta["n_games"]
    assert meta["key_sum"] == int(np.asarray(table.column("win")).sum())


def test_event_tables_hold_their_own_rows_per_game(tmp_path, events_mode):
    run_experiment(events_spec(), out=tmp_path, quiet=True)
    files = sorted(tmp_path.glob("moves/**/*.parquet"))
    rows = sum(pq.read_metadata(f).num_rows for f in files)
    per_chunk = sum(int((np.arange(n) % 3).sum()) for n in (50, 50, 20))
    assert rows == 4 * per_chunk


def test_an_event_file_whose_chunk_has_no_summary_is_reported_incomplete(tmp_path, events_mode):
    run_experiment(events_spec(), out=tmp_path, quiet=True)
    sorted(tmp_path.glob("summary/**/*.parquet"))[0].unlink()
    index = lk.scan(tmp_path)
    assert [p.kind for p in index.problems] == ["incomplete"]
    assert index.problems[0].relpath.startswith("moves/")


def test_rerun_rewrites_a_chunk_missing_one_of_its_tables(tmp_path, events_mode):
    run_experiment(events_spec(), out=tmp_path, quiet=True)
    victim = sorted(tmp_path.glob("moves/**/*.parquet"))[0]
    before = victim.read_bytes()
    victim.unlink()
    result = run_experiment(events_spec(), out=tmp_path, quiet=True)
    assert result.chunks_written == 1 and victim.read_bytes() == before


def _truncate(p: Path) -> None:
    p.write_bytes(b"PAR1 not really")


def _plain_parquet(p: Path) -> None:
    pq.write_table(pa.table({"x": [1]}), p)


def _renamed(p: Path) -> None:
    p.rename(p.with_name("chunk-ffffffffff-000000.parquet"))


def _moved_to_other_folder(p: Path) -> None:
    other = p.parent.parent / "label=zzz"
    other.mkdir()
    p.rename(other / p.name)


def _stray_text_file(p: Path) -> None:
    (p.parent / "notes.txt").write_text("hello")


@pytest.mark.parametrize(
    "damage,kind",
    [
        (_truncate, "corrupt"),
        (_plain_parquet, "foreign"),
        (_renamed, "corrupt"),
        (_moved_to_other_folder, "misplaced"),
        (_stray_text_file, "foreign"),
    ],
)
def test_scan_reports_bad_files_instead_of_reading_them(tmp_path, events_mode, damage, kind):
    run_experiment(events_spec(), out=tmp_path, quiet=True)
    damage(sorted(tmp_path.glob("summary/**/*.parquet"))[0])
    index = lk.scan(tmp_path)
    assert kind in {p.kind for p in index.problems}
    with pytest.raises(UserError, match="bad file"):
        index.raise_problems()


def test_a_file_from_an_experiment_missing_in_the_manifest_is_foreign(tmp_path, events_mode):
    run_experiment(events_spec(), out=tmp_path, quiet=True)
    manifest = json.loads((tmp_path / "manifest.json").read_text())
    manifest["experiments"] = {"someone-else": next(iter(manifest["experiments"].values()))}
    (tmp_path / "manifest.json").write_text(json.dumps(manifest))
    assert {p.kind for p in lk.scan(tmp_path).problems} == {"foreign"}


def test_deep_scan_recounts_the_key_metric(tmp_path, events_mode):
    run_experiment(events_spec(), out=tmp_path, quiet=True)
    path = sorted(tmp_path.glob("summary/**/*.parquet"))[0]
    meta = pq.read_metadata(path).metadata
    table = pq.read_table(path)
    flipped = table.set_column(
        table.schema.get_field_index("win"),
        "win",
        pa.array(1 - np.asarray(table.column("win")), pa.int8()),
    )
    with pq.ParquetWriter(path, flipped.schema, store_schema=False) as w:
        w.write_table(flipped)
        w.add_key_value_metadata({"simkit": meta[b"simkit"].decode()})
    assert lk.scan(tmp_path).problems == []
    problems = lk.scan(tmp_path, deep=True).problems
    assert [(p.kind, p.relpath) for p in problems if p.relpath.startswith("summary/")] == [
        ("corrupt", path.relative_to(tmp_path).as_posix())
    ]


def test_temporaries_of_an_interrupted_write_are_invisible_and_cleaned_by_the_next_run(
    tmp_path, events_mode
):
    run_experiment(events_spec(), out=tmp_path, quiet=True)
    folder = sorted(tmp_path.glob("summary/*/*"))[0]
    tmp = folder / ".chunk-0123456789-000000.parquet.tmp-1-abc"
    tmp.write_bytes(b"half a file")
    index = lk.scan(tmp_path)
    assert index.problems == [] and index.temporaries == [tmp.relative_to(tmp_path).as_posix()]
    run_experiment(events_spec(), out=tmp_path, quiet=True)
    assert not tmp.exists()


def test_a_failed_write_leaves_neither_the_file_nor_its_temporary(tmp_path, monkeypatch):
    def boom(self, table, *a, **kw):
        raise OSError("disk full")

    monkeypatch.setattr(lk.pq.ParquetWriter, "write_table", boom)
    target = tmp_path / "t" / "chunk-0123456789-000000.parquet"
    with pytest.raises(
        UserError, match="cannot write .*chunk-0123456789-000000.parquet"
    ):  # one line, the path
        lk.write_parquet(target, pa.table({"x": [1]}), {"rows": 1})
    assert list((tmp_path / "t").iterdir()) == []


def test_lock_refuses_a_second_live_writer_and_takes_over_a_dead_ones(tmp_path):
    with lk.LakeLock(tmp_path):
        (tmp_path / lk.LOCK).write_text("1\n")  # pid 1 is alive
        with pytest.raises(UserError, match="another run"):
            lk.LakeLock(tmp_path).__enter__()
    (tmp_path / lk.LOCK).write_text("999999999\n")  # no such process
    with lk.LakeLock(tmp_path):
        assert (tmp_path / lk.LOCK).read_text().split()[0] == str(os.getpid())
    assert not (tmp_path / lk.LOCK).exists()


def test_manifest_of_another_format_is_refused(tmp_path):
    (tmp_path / "manifest.json").write_text('{"format": "something/9"}')
    with pytest.raises(UserError, match="not a simkit lake manifest"):
        lk.Manifest.load(tmp_path)


def test_overrides_are_recorded_with_the_effective_data_hash(tmp_path):
    spec_path = tmp_path / "s.toml"
    spec_path.write_text(
        '[experiment]\nmode = "combat"\nroot_seed = 1\nchunk_size = 100\ngames = 100\n'
        '[override_grid]\n"units.artillery.cost" = [2, 3]\n'
    )
    spec = load_spec(spec_path)
    run_experiment(spec, out=tmp_path / "lake", quiet=True)
    record = next(iter(lk.Manifest.load(tmp_path / "lake").experiments.values()))
    cells = sorted(record["cells"].values(), key=lambda c: c["overrides"]["units.artillery.cost"])
    assert [c["overrides"] for c in cells] == [
        {"units.artillery.cost": 2.0},
        {"units.artillery.cost": 3.0},
    ]
    assert cells[0]["data_hash"] != cells[1]["data_hash"] != spec.data_hash
    metas = {
        json.loads(pq.read_metadata(p).metadata[b"simkit"])["data_hash"]
        for p in (tmp_path / "lake").glob("summary/**/*.parquet")
    }
    assert metas == {c["data_hash"] for c in cells}
    folders = {p.parent.name for p in (tmp_path / "lake").glob("summary/**/*.parquet")}
    assert folders == {"units.artillery.cost=2.0", "units.artillery.cost=3.0"}


def test_override_changes_only_the_named_value(pack):
    from simkit.runner import apply_overrides

    changed = apply_overrides(pack, {"units.artillery.cost": 5, "port.strength_normal": 5})
    assert changed.unit_cost[2] == 5.0 and pack.unit_cost[2] != 5.0
    assert changed.port["strength_normal"] == 5 and changed.unit_capacity[-1] == 5
    assert np.array_equal(np.delete(changed.unit_cost, 2), np.delete(pack.unit_cost, 2))
    assert changed.hash != pack.hash and apply_overrides(pack, {}).hash == pack.hash


def test_chunk_names_sort_by_chunk_and_allow_a_million_chunks_or_more():
    assert lk.chunk_name("0123456789", 12) == "chunk-0123456789-000012.parquet"
    assert lk.CHUNK_RE.match(lk.chunk_name("0123456789", 1234567))
