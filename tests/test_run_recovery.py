"""Killed, concurrent and starved runs recover by themselves (issue 15, part 3).

- the whole process group of `experiment run` killed at random moments, then rerun: the
  rows equal an uninterrupted run's, no duplicates, no temporaries, no manual step;
- a chunk cut off between its tables is redone automatically and reported;
- the lake lock: many processes starting at the same instant, exactly one holds it;
- a full disk (a small tmpfs when we may mount one, and an injected ENOSPC always): one
  line, no temporary files, no manifest marked "running";
- workers end when the run is killed; Dask scratch goes to a private folder; cell ids are wide.
"""

from __future__ import annotations

import errno
import multiprocessing as mp
import os
import random
import signal
import subprocess
import sys
import time
from pathlib import Path

import fake_modes  # noqa: F401 - registers the 'test_recovery' mode in this process
import polars as pl
import pytest

from simkit import lake as lk
from simkit.cli import main
from simkit.lake import LakeLock, Manifest, scan
from simkit.runner import load_spec, run_experiment

ROOT = Path(__file__).resolve().parent.parent
TABLES = ("summary", "moves", "combats")
SPEC = """
[experiment]
name = "recovery"
mode = "test_recovery"
root_seed = 77
chunk_size = 100
games = 1500
outputs = ["summary", "moves", "combats"]

[grid]
p = [0.25, 0.75]
"""


def spec_file(tmp_path: Path) -> Path:
    path = tmp_path / "recovery.toml"
    path.write_text(SPEC)
    return path


def env() -> dict[str, str]:
    return {
        **os.environ,
        "CI": "1",
        "SIMKIT_MODE_PROVIDERS": "fake_modes",
        "PYTHONPATH": os.pathsep.join([str(ROOT / "tests"), str(ROOT)]),
    }


def start(spec: Path, out: Path, *extra: str) -> subprocess.Popen:
    return subprocess.Popen(
        [
            sys.executable,
            "-m",
            "simkit",
            "experiment",
            "run",
            str(spec),
            "--out",
            str(out),
            "--quiet",
            *extra,
        ],
        env=env(),
        cwd=ROOT,
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        start_new_session=True,
    )  # its own process group


def frame(out: Path, table: str) -> pl.DataFrame:
    files = sorted(out.glob(f"{table}/**/chunk-*.parquet"))
    return pl.read_parquet(files, hive_partitioning=False).sort(
        ["cell", "chunk_id", "game_index"], maintain_order=True
    )


def temporaries(out: Path) -> list[str]:
    return [p.name for p in out.rglob("*") if ".tmp" in p.name]


@pytest.fixture(scope="module")
def straight(tmp_path_factory) -> Path:
    """The uninterrupted run every recovered lake must equal."""
    tmp = tmp_path_factory.mktemp("straight")
    out = tmp / "lake"
    run_experiment(load_spec(spec_file(tmp)), out=out, quiet=True)
    return out


def assert_same_lake(out: Path, straight: Path) -> None:
    assert scan(out).problems == []
    assert temporaries(out) == []
    for table in TABLES:
        got, want = frame(out, table), frame(straight, table)
        assert got.equals(want), table
    keys = frame(out, "summary").select(["cell", "chunk_id", "game_index"])
    assert keys.is_duplicated().sum() == 0
    record = next(iter(Manifest.load(out).experiments.values()))
    assert record["status"] == "complete"


def wait_for_writes(out: Path, proc: subprocess.Popen, timeout: float = 120) -> None:
    """Until this run writes its first file (or ends: a rerun may find everything done)."""
    seen = {p for p in out.rglob("*.parquet")} if out.exists() else set()
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline and proc.poll() is None:
        if out.exists() and any(
            p not in seen
            for p in out.rglob("*")  # chunk files, not the manifest's
            if p.parent != out and (p.suffix == ".parquet" or ".tmp" in p.name)
        ):
            return
        time.sleep(0.005)


def kill_and_rerun(tmp_path: Path, straight: Path, kills: int, seed: int) -> None:
    rnd = random.Random(seed)
    path = spec_file(tmp_path)
    out = tmp_path / "lake"
    for _ in range(kills):
        proc = start(path, out, "--jobs", "2")
        wait_for_writes(out, proc)  # start-up takes seconds: kill while chunks are written
        time.sleep(rnd.uniform(0.0, 3.0))
        if proc.poll() is None:
            os.killpg(proc.pid, signal.SIGKILL)  # the whole group: the run and its workers
        proc.communicate(timeout=60)
    proc = start(path, out, "--jobs", "2")
    _, err = proc.communicate(timeout=300)
    assert proc.returncode == 0, err.decode()
    assert_same_lake(out, straight)


@pytest.mark.slow  # twenty real process groups killed at random moments
@pytest.mark.long_wait  # about two minutes, mostly waiting: first, never alone at the end
def test_twenty_process_group_kills_then_rerun_equals_an_uninterrupted_run(tmp_path, straight):
    kill_and_rerun(tmp_path, straight, kills=20, seed=2015)


def test_a_chunk_cut_off_between_its_tables_is_redone_and_reported(tmp_path, straight, capsys):
    path = spec_file(tmp_path)
    out = tmp_path / "lake"
    run_experiment(load_spec(path), out=out, quiet=True)
    # the state a kill between tables leaves: event files of a chunk, its summary missing
    victims = sorted(out.glob("summary/**/chunk-*-000004.parquet"))
    for v in victims:
        v.unlink()
    truncated = sorted(out.glob("moves/**/chunk-*-000007.parquet"))[0]
    truncated.write_bytes(truncated.read_bytes()[:100])  # and a truncated file
    code = main(["experiment", "run", str(path), "--out", str(out), "--quiet"])
    err = capsys.readouterr().err
    assert code == 0, err
    assert "redone" in err and "incomplete or truncated" in err
    assert_same_lake(out, straight)


def test_a_foreign_file_is_still_refused_never_deleted(tmp_path, capsys):
    path = spec_file(tmp_path)
    out = tmp_path / "lake"
    run_experiment(load_spec(path), out=out, quiet=True)
    alien = sorted(out.glob("moves/*"))[0] / "chunk-ffffffffffffffffffff-000000.parquet"
    alien.write_bytes(b"not mine")
    code = main(["experiment", "run", str(path), "--out", str(out), "--quiet"])
    err = capsys.readouterr().err
    assert code == 2 and alien.name in err and len(err.strip().splitlines()) == 1
    assert alien.read_bytes() == b"not mine"


def _try_lock(root: str, barrier, state, hold: float) -> None:
    """Take the lock once; state: [holding it now, most holding it at once, ever held it]."""
    barrier.wait()
    try:
        with LakeLock(Path(root)):
            with state.get_lock():
                state[0] += 1
                state[1] = max(state[1], state[0])
                state[2] += 1
            time.sleep(hold)
            with state.get_lock():
                state[0] -= 1  # still inside the lock: released only after this
    except lk.LakeError:
        pass


@pytest.mark.slow  # real processes / a long exact solve: make test runs it
def test_lock_race_many_processes_starting_at_once_never_two_hold_it(tmp_path):
    ctx = mp.get_context("fork")
    # the old pid-file lock let two holders through in ~1 of 8 such trials (measured), mostly
    # when taking over a dead holder's lock; this lock must never. A process scheduled late
    # (a loaded machine) may take the lock after the first holder released it: that is a
    # second holder, not two at once, so the test counts holders at the same moment.
    procs_per_trial, trials = 8, 30
    for trial in range(trials):
        root = tmp_path / f"t{trial}"
        if trial % 4:  # most trials start over a lock file left by a killed holder
            root.mkdir()
            (root / lk.LOCK).write_text("999999999\nelsewhere\n")
        barrier, state = ctx.Barrier(procs_per_trial), ctx.Array("i", 3)
        procs = [
            ctx.Process(target=_try_lock, args=(str(root), barrier, state, 0.15))
            for _ in range(procs_per_trial)
        ]
        for p in procs:
            p.start()
        for p in procs:
            p.join(30)
        assert state[2] >= 1, f"trial {trial}: no process took the lock"
        assert state[1] == 1, f"trial {trial}: {state[1]} processes held the lock together"


@pytest.mark.slow  # real processes / a long exact solve: make test runs it
def test_concurrent_experiment_runs_one_writes_the_others_refuse_and_the_lake_is_whole(
    tmp_path, straight
):
    path = spec_file(tmp_path)
    out = tmp_path / "lake"
    procs = [start(path, out) for _ in range(6)]
    results = [(p.wait(timeout=300), p.stderr.read().decode()) for p in procs]
    codes = [c for c, _ in results]
    assert set(codes) <= {0, 2} and 0 in codes, results
    for code, err in results:
        if code == 2:
            lines = err.strip().splitlines()
            assert len(lines) == 1 and "another run" in lines[0], err
    if codes.count(0) < len(codes):  # complete it (a refused run leaves nothing to clean)
        assert main(["experiment", "run", str(path), "--out", str(out), "--quiet"]) == 0
    assert_same_lake(out, straight)


def _full_disk_checks(out: Path) -> None:
    assert temporaries(out) == [] if out.exists() else True
    if (out / "manifest.json").is_file():
        for rec in Manifest.load(out).experiments.values():
            assert rec.get("status") != "running"


def test_disk_full_injected_one_line_no_temporaries_no_running_manifest(
    tmp_path, monkeypatch, capsys
):
    path = spec_file(tmp_path)
    out = tmp_path / "lake"
    calls = {"n": 0}
    real = lk.pq.ParquetWriter.write_table

    def write_table(self, *a, **kw):
        calls["n"] += 1
        if calls["n"] > 7:
            raise OSError(errno.ENOSPC, "No space left on device")
        return real(self, *a, **kw)

    monkeypatch.setattr(lk.pq.ParquetWriter, "write_table", write_table)
    code = main(["experiment", "run", str(path), "--out", str(out), "--quiet"])
    err = capsys.readouterr().err
    assert code == 2
    assert "disk full" in err.strip().splitlines()[-1] and "Traceback" not in err
    _full_disk_checks(out)
    monkeypatch.undo()
    assert (
        main(["experiment", "run", str(path), "--out", str(out), "--quiet"]) == 0
    )  # room again: it completes


def test_disk_full_on_a_small_tmpfs(tmp_path, straight, capsys, small_tmpfs):
    path = spec_file(tmp_path)
    out = small_tmpfs / "lake"
    code = main(["experiment", "run", str(path), "--out", str(out), "--quiet"])
    err = capsys.readouterr().err
    assert code == 2, err
    assert "Traceback" not in err and "disk full" in err.strip().splitlines()[-1], err
    _full_disk_checks(out)


@pytest.mark.slow  # real processes / a long exact solve: make test runs it
def test_workers_end_when_the_run_is_killed(tmp_path):
    psutil = pytest.importorskip("psutil")
    path = spec_file(tmp_path)
    out = tmp_path / "lake"
    proc = subprocess.Popen(
        [
            sys.executable,
            "-m",
            "simkit",
            "experiment",
            "run",
            str(path),
            "--out",
            str(out),
            "--quiet",
            "--jobs",
            "2",
        ],
        env={**env(), "SIMKIT_FAKE_SLEEP": "0.5"},
        cwd=ROOT,
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
    )
    deadline = time.monotonic() + 60
    workers = []
    while time.monotonic() < deadline and not workers:
        time.sleep(0.2)
        if list(out.glob("summary/**/chunk-*.parquet")):
            workers = [
                c
                for c in psutil.Process(proc.pid).children(recursive=True)
                if "python" in c.name().lower()
            ]
    assert workers, "no worker processes seen"
    proc.kill()  # the parent only (SIGKILL: no cleanup of its own)
    proc.wait()
    gone, alive = psutil.wait_procs(workers, timeout=15)
    for p in alive:
        p.kill()
    assert not alive, f"{len(alive)} worker(s) outlived the run"


def test_dask_scratch_is_private_and_removed(tmp_path, monkeypatch):
    pytest.importorskip("distributed")
    from simkit.runner import fanout

    seen = {}
    real = fanout._dask_client

    import contextlib

    @contextlib.contextmanager
    def spy(jobs, scheduler):
        with real(jobs, scheduler) as client:
            info = client.scheduler_info()
            seen["dirs"] = [w.get("local_directory") for w in info["workers"].values()]
            yield client

    monkeypatch.setattr(fanout, "_dask_client", spy)
    monkeypatch.chdir(tmp_path)
    path = spec_file(tmp_path)
    run_experiment(load_spec(path), out=tmp_path / "lake", jobs=1, backend="dask", quiet=True)
    assert seen["dirs"] and all(d and "simkit-dask-" in d for d in seen["dirs"]), seen
    assert not any(Path(d).exists() for d in seen["dirs"])
    assert not (tmp_path / "dask-scratch-space").exists()


def test_cell_ids_are_80_bits_and_old_10_digit_chunk_names_still_read():
    spec = load_spec(ROOT / "experiments" / "combat_odds_grid.toml")
    assert all(len(c.cell_id) == 20 for c in spec.cells)
    assert lk.CHUNK_RE.match("chunk-0123456789-000000.parquet")
    assert lk.CHUNK_RE.match("chunk-0123456789abcdef0123-000000.parquet")
    assert not lk.CHUNK_RE.match("chunk-0123456789abc-000000.parquet")


def _temp_named_for(folder: Path, pid: int) -> Path:
    folder.mkdir(parents=True, exist_ok=True)
    p = folder / f".chunk-0123456789-000000.parquet.tmp-{pid}-abcd1234"
    p.write_bytes(b"half a chunk")
    return p


def test_an_interrupted_run_waits_for_its_writer_then_removes_the_temporary(tmp_path):
    """A worker stopped while writing: the run's cleanup waits for that process to end
    (it could still be renaming or writing) and then deletes what it left."""
    import subprocess
    import sys
    import time

    from simkit.lake import settle_temporaries

    writer = subprocess.Popen([sys.executable, "-c", "import time; time.sleep(0.6)"])
    temp = _temp_named_for(tmp_path / "summary" / "cell=x", writer.pid)
    start = time.monotonic()
    assert settle_temporaries(tmp_path, timeout=20) == 1
    assert writer.poll() is not None and time.monotonic() - start >= 0.3
    assert not temp.exists()


def test_a_temporary_of_a_writer_still_alive_after_the_timeout_is_kept(tmp_path):
    import subprocess
    import sys

    from simkit.lake import settle_temporaries

    writer = subprocess.Popen([sys.executable, "-c", "import time; time.sleep(30)"])
    try:
        temp = _temp_named_for(tmp_path / "summary", writer.pid)
        dead = _temp_named_for(tmp_path / "games", 2**22 + 12345)  # no such process
        assert settle_temporaries(tmp_path, timeout=0.2) == 1
        assert temp.exists() and not dead.exists()
    finally:
        writer.kill()
        writer.wait()
