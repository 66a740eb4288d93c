"""No command deletes or replaces a file it did not write (issue 15, part 1).

demo into a folder holding another lake or another report; simulate into another run's
folder; device nodes, FIFOs and folders as --out; the atomic writer on a full disk.
All in-process and before any engine runs: each refusal happens up front.
"""

from __future__ import annotations

import errno
import json
import os
import stat
from pathlib import Path

import pyarrow as pa
import pyarrow.parquet as pq
import pytest

from simkit.cli import demo as demo_mod
from simkit.cli import main, validate
from simkit.core import atomic
from simkit.errors import UserError


def one_error_line(capsys) -> str:
    err = capsys.readouterr().err
    lines = [ln for ln in err.splitlines() if ln.strip()]
    assert len(lines) == 1 and "Traceback" not in err, err
    return lines[0]


def snapshot(folder: Path) -> dict[str, bytes]:
    return {
        p.relative_to(folder).as_posix(): p.read_bytes()
        for p in sorted(folder.rglob("*"))
        if p.is_file()
    }


def another_lake(folder: Path) -> None:
    lake = folder / "lake"
    (lake / "summary" / "vs=zombie").mkdir(parents=True)
    (lake / "manifest.json").write_text(
        json.dumps(
            {
                "format": "simkit-lake/1",
                "experiments": {"unrelated-1234": {"name": "unrelated", "cells": {}}},
            }
        )
    )
    for k in range(48):  # the 48-chunk experiment lake
        (lake / "summary" / "vs=zombie" / f"chunk-0123456789-{k:06d}.parquet").write_bytes(
            b"PAR1 data %d" % k
        )


def test_demo_into_a_folder_holding_another_lake_refuses_and_deletes_nothing(tmp_path, capsys):
    another_lake(tmp_path)
    before = snapshot(tmp_path)
    assert main(["demo", "--out", str(tmp_path)]) == 2
    assert "lake" in one_error_line(capsys)
    assert snapshot(tmp_path) == before


@pytest.mark.parametrize("name", demo_mod.OUTPUTS)
def test_demo_never_replaces_a_file_it_did_not_write(tmp_path, capsys, name):
    (tmp_path / name).write_bytes(b"my own work")
    assert main(["demo", "--out", str(tmp_path)]) == 2
    assert name in one_error_line(capsys)
    assert (tmp_path / name).read_bytes() == b"my own work"


def test_demo_replaces_only_what_an_earlier_demo_wrote_and_nobody_changed(tmp_path):
    for name in demo_mod.OUTPUTS:
        (tmp_path / name).write_bytes(b"demo output " + name.encode())
    demo_mod.record_outputs(tmp_path)
    demo_mod.check_outputs(tmp_path)  # its own, unchanged: may be rewritten
    (tmp_path / "report.html").write_bytes(b"edited by hand")
    with pytest.raises(UserError, match="report.html"):
        demo_mod.check_outputs(tmp_path)  # changed since: refused


def test_demo_lake_is_removed_only_when_the_demo_wrote_it(tmp_path):
    another_lake(tmp_path)
    assert not demo_mod.owned_lake(tmp_path, tmp_path / "lake")
    marker = {"files": {}, "lake": ["unrelated-1234"]}  # the marker names it, but ...
    (tmp_path / demo_mod.OWNED).write_text(json.dumps(marker))
    assert not demo_mod.owned_lake(
        tmp_path, tmp_path / "lake"
    )  # ... its files are not a clean lake


def _simulate_file(path: Path, meta: dict) -> None:
    table = pa.table({"game_index": [0, 1]}).replace_schema_metadata({"simkit": json.dumps(meta)})
    pq.write_table(table, path)


def test_simulate_into_another_runs_folder_refuses_before_playing_and_replaces_nothing(
    tmp_path, capsys
):
    other = tmp_path / "run"
    other.mkdir()
    _simulate_file(
        other / "summary.parquet",
        {
            "format": "simkit-simulate/1",
            "mode": "base",
            "seed": 99,
            "games": 5000,
            "params": {},
            "table": "summary",
        },
    )
    before = snapshot(other)
    assert main(["simulate", "--out", str(other), "--games", "10", "--seed", "1"]) == 2
    line = one_error_line(capsys)
    assert "not empty and not a simkit lake" in line and str(other) in line
    assert snapshot(other) == before


def test_simulate_rewrites_its_own_output(tmp_path):
    ident = {
        "format": "simkit-simulate/1",
        "mode": "base",
        "params": {"players": 2},
        "seed": 1,
        "games": 10,
        "chunk_size": 1000,
        "engine_version": 1,
        "data_hash": "abc",
    }
    _simulate_file(tmp_path / "summary.parquet", {**ident, "git_commit": "x", "table": "summary"})
    validate.refuse_foreign_outputs(
        tmp_path, ["summary.parquet", "seats.parquet"], ident
    )  # same command: fine
    with pytest.raises(UserError, match="another run"):
        validate.refuse_foreign_outputs(tmp_path, ["summary.parquet"], {**ident, "seed": 2})


def _device(path: Path) -> None:
    try:
        os.mknod(path, stat.S_IFCHR | 0o666, os.makedev(1, 3))  # a private copy of /dev/null's node
    except PermissionError:
        os.mkfifo(path)


def _kind(path: Path) -> str:
    mode = os.lstat(path).st_mode
    return (
        "chr"
        if stat.S_ISCHR(mode)
        else "fifo"
        if stat.S_ISFIFO(mode)
        else "dir"
        if stat.S_ISDIR(mode)
        else "reg"
    )


@pytest.mark.parametrize("make", ["device", "fifo", "folder"])
@pytest.mark.parametrize(
    "argv",
    [
        ["odds", "--max-per-type", "1", "--out", "{p}.parquet"],
        ["board", "show", "--out", "{p}.png"],
        ["report", "{lake}", "--out", "{p}.html"],
    ],
)
def test_a_target_that_is_not_a_regular_file_is_refused_and_left_alone(
    tmp_path, capsys, make, argv
):
    suffix = "." + argv[argv.index("--out") + 1].rsplit(".", 1)[1]
    target = tmp_path / f"target{suffix}"
    {"device": _device, "fifo": os.mkfifo, "folder": os.mkdir}[make](target)
    kind = _kind(target)
    (tmp_path / "lake").mkdir()
    args = [
        a.replace("{p}" + suffix, str(target)).replace("{lake}", str(tmp_path / "lake"))
        for a in argv
    ]
    assert main(args) == 2
    assert "not a regular file" in one_error_line(capsys)
    assert _kind(target) == kind
    assert [p.name for p in tmp_path.iterdir() if ".tmp" in p.name] == []


def test_dev_null_itself_is_refused_by_the_atomic_writer():
    with pytest.raises(UserError, match="device"):
        atomic.atomic_write_bytes(Path("/dev/null"), b"x")
    assert stat.S_ISCHR(os.stat("/dev/null").st_mode)


def test_dev_null_as_simulate_or_experiment_out_is_refused(capsys, tmp_path):
    spec = tmp_path / "s.toml"
    spec.write_text(
        '[experiment]\nmode = "combat"\nroot_seed = 1\ngames = 10\n[params]\nforce = "infantry=1"\n'
        'vs = "zombie"\n'
    )
    for argv in (
        ["simulate", "--out", "/dev/null", "--games", "10"],
        ["experiment", "run", str(spec), "--out", "/dev/null"],
        ["demo", "--out", "/dev/null"],
    ):
        assert main(argv) == 2, argv
        assert "/dev/null" in one_error_line(capsys)
    assert stat.S_ISCHR(os.stat("/dev/null").st_mode)


@pytest.mark.parametrize("failure", [errno.ENOSPC, errno.EACCES, errno.EIO])
def test_atomic_writer_leaves_no_temporary_and_the_old_file_on_any_failure(
    tmp_path, monkeypatch, failure
):
    target = tmp_path / "table.parquet"
    target.write_bytes(b"old")

    def boom(fd):
        raise OSError(failure, os.strerror(failure))

    monkeypatch.setattr(atomic.os, "fsync", boom)
    with pytest.raises(UserError) as info:
        atomic.atomic_write_bytes(target, b"new" * 1000)
    assert str(target) in str(info.value)
    assert sorted(p.name for p in tmp_path.iterdir()) == ["table.parquet"]
    assert target.read_bytes() == b"old"


def test_atomic_writer_cleans_up_on_an_interrupt(tmp_path):
    def write(fh):
        fh.write(b"half")
        raise KeyboardInterrupt

    with pytest.raises(KeyboardInterrupt):
        atomic.atomic_write(tmp_path / "x.png", write)
    assert list(tmp_path.iterdir()) == []


def test_full_disk_for_odds_is_one_line_naming_the_path(tmp_path, monkeypatch, capsys):
    def boom(fd):
        raise OSError(errno.ENOSPC, "No space left on device")

    monkeypatch.setattr(atomic.os, "fsync", boom)
    out = tmp_path / "o.parquet"
    assert main(["odds", "--max-per-type", "1", "--vs", "zombie", "--out", str(out)]) == 2
    line = one_error_line(capsys)
    assert "disk full" in line and str(out) in line
    assert list(tmp_path.iterdir()) == []


def test_atomic_writer_gives_new_files_the_usual_permissions_and_keeps_existing_ones(tmp_path):
    mask = os.umask(0o022)
    try:
        atomic.atomic_write_bytes(tmp_path / "new.png", b"x")
        assert stat.S_IMODE(os.stat(tmp_path / "new.png").st_mode) == 0o644
        (tmp_path / "old.png").write_bytes(b"y")
        os.chmod(tmp_path / "old.png", 0o640)
        atomic.atomic_write_bytes(tmp_path / "old.png", b"z")
        assert stat.S_IMODE(os.stat(tmp_path / "old.png").st_mode) == 0o640
    finally:
        os.umask(mask)
