"""A lake says what it holds (issue 26, part 1).

Every reader (experiment summary, report, simkit.analysis, replay --lake) compares the
manifest with the files: each listed chunk present with the rows and bytes recorded, the
run's status "complete". An incomplete or changed lake is refused in one line (exit 2)
unless --allow-incomplete, and then the output says how much is missing. verify reports a
missing chunk, verify --deep checks every row's keys, a damaged file is named in one line,
and a manifest with wrong field types is refused naming the field.

In-process through simkit.cli.main with the fake 'test_recovery' mode (no numba).
"""

from __future__ import annotations

import json
from pathlib import Path

import fake_modes  # noqa: F401 - registers the 'test_recovery' mode
import pyarrow.parquet as pq
import pytest

from simkit import analysis
from simkit import lake as lk
from simkit.cli import main
from simkit.errors import UserError
from simkit.runner import load_spec, run_experiment

SPEC = """
[experiment]
name = "integrity"
mode = "test_recovery"
root_seed = 5
chunk_size = 100
games = 300
outputs = ["summary", "moves"]

[grid]
p = [0.25, 0.75]
"""


def make_lake(tmp_path: Path, outputs: str) -> Path:
    spec = tmp_path / "integrity.toml"
    spec.write_text(SPEC.replace('["summary", "moves"]', outputs))
    out = tmp_path / "lake"
    run_experiment(load_spec(spec), out=out, quiet=True)
    return out


@pytest.fixture
def lake(tmp_path) -> Path:
    """Two tables (the fake mode's moves are not the game's: no report from this one)."""
    return make_lake(tmp_path, '["summary", "moves"]')


@pytest.fixture
def summary_lake(tmp_path) -> Path:
    return make_lake(tmp_path, '["summary"]')


def chunk_files(out: Path, table: str, chunk: int) -> list[Path]:
    return sorted(out.glob(f"{table}/**/chunk-*-{chunk:06d}.parquet"))


def run(capsys, *argv) -> tuple[int, str, str]:
    code = main([str(a) for a in argv])
    cap = capsys.readouterr()
    return code, cap.out, cap.err


def one_line(err: str) -> str:
    lines = [ln for ln in err.splitlines() if ln.strip()]
    assert len(lines) == 1 and "Traceback" not in err, err
    return lines[0]


def drop_chunk(out: Path, chunk: int = 1) -> None:
    """One cell's chunk gone entirely (every table), as a deleted file leaves it."""
    for table in ("summary", "moves"):
        if chunk_files(out, table, chunk):
            chunk_files(out, table, chunk)[0].unlink()


def test_a_complete_lake_reads_and_records_rows_and_bytes(lake, capsys):
    record = next(iter(lk.Manifest.load(lake).experiments.values()))
    entry = next(iter(record["chunks"].values()))
    assert set(entry["files"]) == {"summary", "moves"}
    assert (
        entry["files"]["summary"]
        == {
            "rows": 100,
            "bytes": chunk_files(lake, "summary", 0)[0].stat().st_size,
        }
        or entry["files"]["summary"]["rows"] == 100
    )
    code, out, err = run(capsys, "experiment", "summary", lake, "--json")
    assert code == 0, err
    obj = json.loads(out)
    assert obj["complete"] and obj["games_missing"] == 0
    assert [r["games"] for r in obj["rows"]] == [300, 300]


def test_deleted_chunk_verify_reports_it(lake, capsys):
    drop_chunk(lake)
    code, out, err = run(capsys, "experiment", "verify", lake)
    assert code == 2
    assert "missing" in out and "no summary, moves file" in out
    assert "missing" in one_line(err)


def test_deleted_chunk_summary_and_report_refuse_in_one_line(summary_lake, capsys, tmp_path):
    lake = summary_lake
    drop_chunk(lake)
    code, _, err = run(capsys, "experiment", "summary", lake)
    line = one_line(err)
    assert code == 2 and "incomplete or changed" in line and "500 of 600 games" in line
    assert "--allow-incomplete" in line
    code, _, err = run(capsys, "report", lake, "--out", tmp_path / "r.html")
    assert code == 2 and "incomplete" in one_line(err)
    assert not (tmp_path / "r.html").exists()
    with pytest.raises(UserError, match="incomplete"):
        analysis.open_lake(lake)


def test_allow_incomplete_says_how_much_is_missing(summary_lake, capsys, tmp_path):
    lake = summary_lake
    drop_chunk(lake)
    code, out, err = run(capsys, "experiment", "summary", lake, "--allow-incomplete", "--json")
    assert code == 0, err
    obj = json.loads(out)
    assert not obj["complete"] and obj["games_missing"] == 100 and obj["games_expected"] == 600
    assert sorted((r["games"], r["games_expected"]) for r in obj["rows"]) == [
        (200, 300),
        (300, 300),
    ]
    code, out, err = run(capsys, "experiment", "summary", lake, "--allow-incomplete")
    assert code == 0 and "INCOMPLETE" in out and "100 games missing" in out
    html = tmp_path / "r.html"
    code, out, err = run(capsys, "report", lake, "--out", html, "--allow-incomplete")
    assert code == 0, err
    text = html.read_text()
    assert "INCOMPLETE" in text and "500 of 600 games" in text
    assert text.count("the figures below use the games present only") >= 1  # each section
    lake_obj = analysis.open_lake(lake, allow_incomplete=True)
    assert lake_obj.coverage.games_missing == 100 and not lake_obj.complete


def test_a_killed_run_status_is_refused(lake, capsys):
    manifest = json.loads((lake / "manifest.json").read_text())
    for rec in manifest["experiments"].values():
        rec["status"] = "interrupted"
    (lake / "manifest.json").write_text(json.dumps(manifest))
    code, _, err = run(capsys, "experiment", "summary", lake)
    assert code == 2 and "status 'interrupted'" in one_line(err)
    code, _, err = run(capsys, "replay", "--lake", lake, "--game", "0")
    assert code == 2 and "status 'interrupted'" in one_line(err)


def test_a_file_rewritten_with_another_size_is_refused(lake, capsys):
    path = chunk_files(lake, "summary", 2)[0]
    table = pq.read_table(path)
    meta = pq.read_metadata(path).metadata
    with pq.ParquetWriter(path, table.schema, compression="none", store_schema=False) as w:
        w.write_table(table)
        w.add_key_value_metadata({"simkit": meta[b"simkit"].decode()})
    code, _, err = run(capsys, "experiment", "summary", lake)
    line = one_line(err)
    assert code == 2 and path.name in line and "changed since" in line


def test_deep_verify_checks_every_rows_keys(lake, capsys):
    """chunk 2 rewritten with chunk 1's rows under chunk 2's own metadata: same footer."""
    a, b = chunk_files(lake, "summary", 1)[0], chunk_files(lake, "summary", 2)[0]
    rows = pq.read_table(a).slice(0, 100)
    meta = pq.read_metadata(b).metadata
    with pq.ParquetWriter(b, rows.schema, store_schema=False) as w:
        w.write_table(rows)
        w.add_key_value_metadata({"simkit": meta[b"simkit"].decode()})
    assert not [p for p in lk.scan(lake).problems if p.relpath.endswith(b.name)]
    code, out, err = run(capsys, "experiment", "verify", lake, "--deep")
    assert code == 2
    assert f"corrupt: {b.relative_to(lake).as_posix()}: row 0: chunk_id 1" in out


def flip_a_data_byte(path: Path) -> None:
    md = pq.read_metadata(path)
    col = md.row_group(0).column(md.schema.names.index("score"))
    offset = col.data_page_offset + col.total_compressed_size // 2
    data = bytearray(path.read_bytes())
    data[offset] ^= 0xFF
    path.write_bytes(bytes(data))


def test_a_flipped_byte_is_named_in_one_line(summary_lake, capsys):
    lake = summary_lake
    path = chunk_files(lake, "summary", 0)[0]
    flip_a_data_byte(path)
    code, out, err = run(capsys, "experiment", "verify", lake, "--deep")
    assert code == 2 and path.name in out
    code, _, err = run(capsys, "experiment", "summary", lake)
    # (the rate needs only the 'win' column; the damaged page is the 'score' column's)
    assert code in (0, 2), err
    if code == 2:
        assert path.name in one_line(err)
    code, _, err = run(capsys, "report", lake, "--out", lake.parent / "r.html")
    if code != 0:
        line = one_line(err)
        assert path.name in line and "damaged" in line


def test_a_flipped_byte_in_the_key_column_is_named(lake, capsys):
    path = chunk_files(lake, "summary", 0)[0]
    md = pq.read_metadata(path)
    col = md.row_group(0).column(md.schema.names.index("win"))
    data = bytearray(path.read_bytes())
    for i in range(col.data_page_offset + 8, col.data_page_offset + col.total_compressed_size):
        data[i] ^= 0x5A
    path.write_bytes(bytes(data))
    code, _, err = run(capsys, "experiment", "summary", lake)
    line = one_line(err)
    assert code == 2 and path.name in line and "damaged" in line


@pytest.mark.parametrize(
    "edit,field",
    [
        (lambda r: r.update(root_seed="five"), "root_seed"),
        (lambda r: r.update(cells=["a"]), "cells"),
        (lambda r: r.update(status=3), "status"),
        (lambda r: r.update(chunks={"nonsense": {}}), "chunks"),
        (lambda r: next(iter(r["chunks"].values())).update(n_games="100"), "n_games"),
        (lambda r: next(iter(r["cells"].values())).update(params=[1]), "params"),
    ],
)
def test_a_manifest_with_wrong_field_types_is_one_line(lake, capsys, edit, field):
    manifest = json.loads((lake / "manifest.json").read_text())
    edit(next(iter(manifest["experiments"].values())))
    (lake / "manifest.json").write_text(json.dumps(manifest))
    for argv in (("experiment", "summary", lake), ("experiment", "verify", lake)):
        code, _, err = run(capsys, *argv)
        line = one_line(err)
        assert code == 2 and "manifest.json" in line and field in line, line


def test_experiments_field_of_the_wrong_type(lake, capsys):
    (lake / "manifest.json").write_text(json.dumps({"format": lk.LAKE_FORMAT, "experiments": []}))
    code, _, err = run(capsys, "experiment", "summary", lake)
    assert code == 2 and "'experiments'" in one_line(err)
