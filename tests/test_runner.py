"""The runner: identical lakes for any jobs/backend, resume after a crash, refusals, precision."""

from __future__ import annotations

import json
import os
import shutil
import signal
import subprocess
import sys
import time
from pathlib import Path

import polars as pl
import pytest
from spawn import sigint_as_from_a_terminal

import simkit
from simkit import lake as lake_mod
from simkit.cli import main
from simkit.errors import UserError
from simkit.lake import Manifest, scan
from simkit.runner import load_spec, run_experiment
from simkit.runner.fanout import Fanout

ROOT = Path(__file__).resolve().parent.parent
SPEC = """
[experiment]
name = "tiny"
mode = "combat"
root_seed = 20240601
chunk_size = 400
games = 1000

[grid]
force = ["infantry=2", "infantry=2,artillery=1"]
vs = ["zombie", "shoggoth"]
"""


def spec_file(tmp_path: Path, text: str = SPEC, name: str = "tiny.toml") -> Path:
    path = tmp_path / name
    path.write_text(text)
    return path


def frame(out: Path) -> pl.DataFrame:
    files = sorted(out.glob("summary/**/chunk-*.parquet"))
    df = pl.read_parquet(files, hive_partitioning=False)
    return df.sort(["cell", "chunk_id", "game_index"])


def files(out: Path) -> list[str]:
    return sorted(p.relative_to(out).as_posix() for p in out.glob("summary/**/*.parquet"))


@pytest.mark.slow
def test_same_spec_gives_identical_data_with_jobs_1_jobs_2_and_a_dask_cluster(tmp_path):
    from distributed import Client, LocalCluster

    spec = load_spec(spec_file(tmp_path))
    run_experiment(spec, out=tmp_path / "j1", jobs=1, quiet=True)
    run_experiment(spec, out=tmp_path / "j2", jobs=2, quiet=True)
    # processes=False: scheduler and workers in this process (inproc://, no sockets at all)
    with (
        LocalCluster(
            n_workers=2, threads_per_worker=1, processes=False, dashboard_address=None
        ) as cluster,
        Client(cluster),
    ):
        run_experiment(
            spec,
            out=tmp_path / "dask",
            backend="dask",
            scheduler=cluster.scheduler_address,
            quiet=True,
        )
    one = frame(tmp_path / "j1")
    assert one.height == 4 * 1000
    assert one.equals(frame(tmp_path / "j2"))
    assert one.equals(frame(tmp_path / "dask"))
    assert files(tmp_path / "j1") == files(tmp_path / "j2") == files(tmp_path / "dask")


@pytest.mark.slow
def test_dask_backend_without_a_scheduler_starts_a_private_loopback_cluster(tmp_path):
    spec = load_spec(spec_file(tmp_path))
    run_experiment(spec, out=tmp_path / "j1", quiet=True)
    run_experiment(spec, out=tmp_path / "dask", backend="dask", jobs=2, quiet=True)
    assert frame(tmp_path / "j1").equals(frame(tmp_path / "dask"))


def test_result_does_not_depend_on_chunk_finishing_order(tmp_path, monkeypatch):
    spec = load_spec(spec_file(tmp_path))
    run_experiment(spec, out=tmp_path / "forward", quiet=True)
    real = Fanout.imap

    def backwards(self, tasks):
        yield from real(self, list(tasks)[::-1])

    monkeypatch.setattr(Fanout, "imap", backwards)
    run_experiment(spec, out=tmp_path / "backward", quiet=True)
    assert frame(tmp_path / "forward").equals(frame(tmp_path / "backward"))


def test_rerun_of_a_finished_spec_skips_every_chunk(tmp_path):
    spec = load_spec(spec_file(tmp_path))
    first = run_experiment(spec, out=tmp_path / "lake", quiet=True)
    again = run_experiment(spec, out=tmp_path / "lake", quiet=True)
    assert first.chunks_written == 12 and again.chunks_written == 0 and again.chunks_skipped == 12


def test_more_games_extends_the_lake_and_rewrites_only_the_short_last_chunk(tmp_path):
    run_experiment(load_spec(spec_file(tmp_path)), out=tmp_path / "lake", quiet=True)
    bigger = load_spec(spec_file(tmp_path, SPEC.replace("games = 1000", "games = 1600")))
    result = run_experiment(bigger, out=tmp_path / "lake", quiet=True)
    assert (
        result.chunks_skipped == 4 * 2 and result.chunks_written == 4 * 2
    )  # chunk 2 grows 200 -> 400, chunk 3 new
    straight = run_experiment(bigger, out=tmp_path / "straight", quiet=True)
    assert straight.chunks_written == 16
    assert frame(tmp_path / "lake").equals(frame(tmp_path / "straight"))


def _wait_for_files(out: Path, at_least: int, proc: subprocess.Popen, timeout: float = 60) -> None:
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        if len(list(out.glob("summary/**/chunk-*.parquet"))) >= at_least:
            return
        if proc.poll() is not None:
            pytest.fail(f"the run ended before it could be interrupted (code {proc.returncode})")
        time.sleep(0.005)
    pytest.fail("no chunk files appeared")


BIG = SPEC.replace("chunk_size = 400", "chunk_size = 2000").replace(
    "games = 1000", "games = 100000"
)


def _start(spec: Path, out: Path, *extra: str) -> subprocess.Popen:
    env = {**os.environ, "CI": "1"}
    return subprocess.Popen(
        [sys.executable, "-m", "simkit", "experiment", "run", str(spec), "--out", str(out), *extra],
        env=env,
        cwd=ROOT,
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        preexec_fn=sigint_as_from_a_terminal,  # Ctrl-C reaches it (tests/spawn.py)
    )


@pytest.mark.slow  # real processes / a long exact solve: make test runs it
def test_killed_run_then_rerun_ends_with_exactly_the_rows_of_an_uninterrupted_run(tmp_path):
    path = spec_file(tmp_path, BIG)
    out = tmp_path / "killed"
    proc = _start(path, out)
    _wait_for_files(out, 5, proc)
    proc.send_signal(signal.SIGKILL)
    proc.wait()
    partial = files(out)
    assert 5 <= len(partial) < 200
    assert scan(out).problems == []  # nothing half-written is visible
    result = run_experiment(load_spec(path), out=out, jobs=2, quiet=True)
    assert result.chunks_skipped >= len(partial)
    assert result.chunks_written + result.chunks_skipped == 200
    run_experiment(load_spec(path), out=tmp_path / "straight", jobs=2, quiet=True)
    resumed = frame(out)
    assert resumed.height == 4 * 100_000
    assert resumed.select(["cell", "chunk_id", "game_index"]).is_duplicated().sum() == 0
    assert resumed.equals(frame(tmp_path / "straight"))


def test_ctrl_c_stops_the_run_leaving_only_complete_files_and_the_manifest_says_interrupted(
    tmp_path,
):
    path = spec_file(tmp_path, BIG)
    out = tmp_path / "lake"
    proc = _start(path, out)
    _wait_for_files(out, 3, proc)
    proc.send_signal(signal.SIGINT)
    _, err = proc.communicate(timeout=60)
    assert proc.returncode == 130, err
    assert scan(out).problems == []
    record = next(iter(Manifest.load(out).experiments.values()))
    assert record["status"] == "interrupted"
    assert not (out / ".lock").exists()


@pytest.mark.slow  # real processes / a long exact solve: make test runs it
def test_a_killed_worker_fails_the_run_and_a_rerun_completes_it(tmp_path):
    psutil = pytest.importorskip("psutil")
    path = spec_file(tmp_path, BIG)
    out = tmp_path / "lake"
    proc = _start(path, out, "--jobs", "2")
    _wait_for_files(out, 3, proc)
    workers = [
        c
        for c in psutil.Process(proc.pid).children(recursive=True)
        if "LokyProcess" in " ".join(c.cmdline())
    ]
    assert workers, "no loky worker found"
    workers[0].kill()
    _, err = proc.communicate(timeout=60)
    assert proc.returncode == 1 and b"rerun the same command" in err
    assert scan(out).problems == []
    result = run_experiment(load_spec(path), out=out, jobs=2, quiet=True)
    assert result.chunks_written + result.chunks_skipped == 200
    assert frame(out).height == 4 * 100_000


def test_a_write_cut_off_mid_file_leaves_no_visible_file_and_the_rerun_completes(
    tmp_path, monkeypatch
):
    spec = load_spec(spec_file(tmp_path))
    real = lake_mod.pq.ParquetWriter.write_table
    calls = {"n": 0}

    def dies_on_fifth(self, table, *a, **kw):
        calls["n"] += 1
        if calls["n"] == 5:
            real(self, table.slice(0, 10), *a, **kw)  # part of the rows, then the "crash"
            raise KeyboardInterrupt
        return real(self, table, *a, **kw)

    monkeypatch.setattr(lake_mod.pq.ParquetWriter, "write_table", dies_on_fifth)
    with pytest.raises(KeyboardInterrupt):
        run_experiment(spec, out=tmp_path / "lake", quiet=True)
    monkeypatch.undo()
    assert len(files(tmp_path / "lake")) == 4
    assert scan(tmp_path / "lake").problems == []
    result = run_experiment(spec, out=tmp_path / "lake", quiet=True)
    assert (result.chunks_skipped, result.chunks_written) == (4, 8)
    run_experiment(spec, out=tmp_path / "straight", quiet=True)
    assert frame(tmp_path / "lake").equals(frame(tmp_path / "straight"))


def test_a_corrupt_file_is_reported_not_read_and_a_rerun_redoes_its_chunk(tmp_path, capsys):
    path = spec_file(tmp_path)
    out = tmp_path / "lake"
    run_experiment(load_spec(path), out=out, quiet=True)
    victim = sorted(out.glob("summary/**/chunk-*.parquet"))[3]
    victim.write_bytes(victim.read_bytes()[:200])  # truncated (a crash without fsync)
    from simkit import analysis

    with pytest.raises(UserError, match="corrupt"):
        analysis.open_lake(out)  # readers never read it
    code = main(["experiment", "run", str(path), "--out", str(out), "--quiet"])
    err = capsys.readouterr().err
    assert code == 0 and victim.name in err and "redone" in err  # the run redoes its own chunk
    assert scan(out).problems == []
    run_experiment(load_spec(path), out=tmp_path / "straight", quiet=True)
    assert frame(out).equals(frame(tmp_path / "straight"))


def test_a_foreign_file_in_the_lake_is_reported_not_read(tmp_path, capsys):
    path = spec_file(tmp_path)
    out = tmp_path / "lake"
    run_experiment(load_spec(path), out=out, quiet=True)
    folder = sorted(out.glob("summary/*/*"))[0]
    shutil.copy(sorted(folder.glob("*.parquet"))[0], folder / "extra.parquet")
    code = main(["experiment", "verify", str(out)])
    out_text = capsys.readouterr().out
    assert code == 2 and "foreign" in out_text and "extra.parquet" in out_text


def test_appending_to_a_lake_of_another_engine_version_is_refused_unless_forced(
    tmp_path, monkeypatch
):
    path = spec_file(tmp_path)
    out = tmp_path / "lake"
    run_experiment(load_spec(path), out=out, quiet=True)
    monkeypatch.setattr(simkit, "ENGINE_VERSION", simkit.ENGINE_VERSION + 1)
    newer = load_spec(path)
    with pytest.raises(UserError, match="engine version"):
        run_experiment(newer, out=out, quiet=True)
    assert len(files(out)) == 12
    run_experiment(newer, out=out, force=True, quiet=True)
    assert len(Manifest.load(out).experiments) == 2 and len(files(out)) == 24
    assert scan(out).problems == []


def test_appending_with_another_data_pack_is_refused(tmp_path):
    out = tmp_path / "lake"
    run_experiment(load_spec(spec_file(tmp_path)), out=out, quiet=True)
    pack = tmp_path / "pack"
    shutil.copytree(ROOT / "simkit" / "data" / "auztralia", pack)
    units = pack / "units.toml"
    units.write_text(
        units.read_text().replace(
            "[infantry]\ncost = { value = 1,", "[infantry]\ncost = { value = 2,"
        )
    )
    other = load_spec(
        spec_file(tmp_path, SPEC.replace('mode = "combat"', f'mode = "combat"\ndata = "{pack}"'))
    )
    with pytest.raises(UserError, match="data pack"):
        run_experiment(other, out=out, quiet=True)


def test_a_folder_that_is_not_a_lake_is_never_written_into(tmp_path):
    out = tmp_path / "mine"
    out.mkdir()
    (out / "thesis.txt").write_text("precious")
    with pytest.raises(UserError, match="not a simkit lake"):
        run_experiment(load_spec(spec_file(tmp_path)), out=out, quiet=True)
    assert sorted(p.name for p in out.iterdir()) == ["thesis.txt"]


def test_target_ci_adds_chunks_until_each_cell_reaches_the_target(tmp_path):
    text = SPEC.replace("games = 1000", "target_ci = 0.03\nmax_games = 20000").replace(
        "chunk_size = 400", "chunk_size = 200"
    )
    result = run_experiment(load_spec(spec_file(tmp_path, text)), out=tmp_path / "lake", quiet=True)
    for cell in result.cells:
        assert cell.stop == "target" and cell.half_width <= 0.03
    games = {c.label: c.games for c in result.cells}
    # a near-certain cell is done after one chunk; a ~84% cell needs several
    assert games["vs=zombie, force=infantry=2,artillery=1"] == 200
    assert games["vs=shoggoth, force=infantry=2,artillery=1"] > 400
    assert frame(tmp_path / "lake").height == sum(games.values())


def test_target_ci_stops_at_max_games_when_the_target_is_out_of_reach(tmp_path):
    text = SPEC.replace("games = 1000", "target_ci = 0.001\nmax_games = 1000")
    result = run_experiment(load_spec(spec_file(tmp_path, text)), out=tmp_path / "lake", quiet=True)
    hard = [c for c in result.cells if c.label == "vs=shoggoth, force=infantry=2,artillery=1"][0]
    assert hard.stop == "max_games" and hard.games == 1000


def test_target_ci_flag_gives_the_same_lake_for_any_jobs(tmp_path):
    spec = load_spec(spec_file(tmp_path))
    a = run_experiment(spec, out=tmp_path / "a", jobs=1, target_ci=0.03, quiet=True)
    b = run_experiment(spec, out=tmp_path / "b", jobs=2, target_ci=0.03, quiet=True)
    assert [c.games for c in a.cells] == [c.games for c in b.cells]
    assert frame(tmp_path / "a").equals(frame(tmp_path / "b"))


def test_manifest_records_spec_seed_chunks_versions_commit_and_packages(tmp_path):
    out = tmp_path / "lake"
    run_experiment(load_spec(spec_file(tmp_path)), out=out, quiet=True)
    manifest = json.loads((out / "manifest.json").read_text())
    assert manifest["format"] == "simkit-lake/1"
    (record,) = manifest["experiments"].values()
    assert record["root_seed"] == 20240601 and record["engine_version"] == simkit.ENGINE_VERSION
    assert (
        record["status"] == "complete" and len(record["chunks"]) == 12 and len(record["cells"]) == 4
    )
    assert record["spec_text"].strip().startswith("[experiment]")
    assert {"numpy", "numba", "pyarrow", "polars", "joblib"} <= set(record["packages"])
    assert record["git_commit"] and record["data_hash"]


def test_loky_workers_run_with_one_numba_thread(tmp_path):
    from joblib import Parallel, delayed, parallel_config

    from simkit.runner.worker import WORKER_ENV

    with parallel_config(backend="loky", inner_max_num_threads=1):
        envs = Parallel(n_jobs=2)(delayed(os.environ.get)("NUMBA_NUM_THREADS") for _ in range(4))
    assert set(envs) == {WORKER_ENV["NUMBA_NUM_THREADS"]}


RSS_SCRIPT = """
import json, sys, tempfile
from simkit.runner import parse_spec, run_experiment
from simkit.runner.worker import peak_rss_mb
raw = {"experiment": {"name": "rss", "mode": "combat", "root_seed": 1, "chunk_size": 50000,
                      "games": int(sys.argv[1])},
       "params": {"force": "infantry=2,artillery=1", "vs": "shoggoth"}}
run_experiment(parse_spec(raw), out=tempfile.mkdtemp(dir=sys.argv[2]), quiet=True)
print(json.dumps(peak_rss_mb()))
"""


@pytest.mark.slow  # real processes / a long exact solve: make test runs it
def test_peak_memory_does_not_grow_with_the_number_of_games(tmp_path):
    def peak(games: int) -> float:
        proc = subprocess.run(
            [sys.executable, "-c", RSS_SCRIPT, str(games), str(tmp_path)],
            cwd=ROOT,
            capture_output=True,
            text=True,
            timeout=300,
            check=True,
        )
        return json.loads(proc.stdout.strip().splitlines()[-1])

    small, large = peak(100_000), peak(1_000_000)
    # keeping the rows of 1M games would take > 40 MB more; chunks are written and let go
    assert 0 < small and large - small < 20, (small, large)


def test_progress_is_silent_in_ci(tmp_path):
    proc = subprocess.run(
        [
            sys.executable,
            "-m",
            "simkit",
            "experiment",
            "run",
            str(spec_file(tmp_path)),
            "--out",
            str(tmp_path / "lake"),
        ],
        env={**os.environ, "CI": "1"},
        cwd=ROOT,
        capture_output=True,
        text=True,
        timeout=120,
    )
    assert proc.returncode == 0 and proc.stderr == ""
    assert "12 chunk(s) written" in proc.stdout


def test_bad_backend_flags_exit_2_before_any_work(tmp_path, capsys):
    path = spec_file(tmp_path)
    assert (
        main(
            [
                "experiment",
                "run",
                str(path),
                "--out",
                str(tmp_path / "a"),
                "--scheduler",
                "tcp://127.0.0.1:1",
            ]
        )
        == 2
    )
    assert main(["experiment", "run", str(path), "--out", str(tmp_path / "b"), "--jobs", "0"]) == 2
    assert "--jobs" in capsys.readouterr().err
    assert not (tmp_path / "a").exists() and not (tmp_path / "b").exists()
