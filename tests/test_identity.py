"""Identity covers every input (issue 26, part 2).

The content of a ``file:`` strategy (its sha256, not its path) and the data pack's content
hash enter the cell id, so editing a strategy file and rerunning makes a new cell and a new
experiment, never pooled with the old rows; a file edited while a run plays it stops that
run. ``tune`` records its data pack and refuses another; a rerun with more ``--trials``
adds them; a run stopped during trial 0 replays the defaults; a corrupt or truncated
study.db is one line. Specs are parsed and studies opened, no game is played.
"""

from __future__ import annotations

import hashlib
import json
import shutil
from pathlib import Path

import fake_modes  # noqa: F401 - registers the 'test_recovery' mode
import pytest

from simkit import lake as lk
from simkit.cli import main
from simkit.errors import UserError
from simkit.runner import check_compatible, load_spec, run_experiment
from simkit.runner.spec import cell_identity, strategy_file_refs

ROOT = Path(__file__).resolve().parent.parent
TUNED = ROOT / "experiments" / "strategies" / "balanced_tuned_base_2p.toml"


def spec_with_file(tmp_path: Path, strategy: Path) -> Path:
    spec = tmp_path / "ladder.toml"
    spec.write_text(
        "[experiment]\nmode = 'base'\nroot_seed = 1\ngames = 100\n"
        f"[params]\nplayers = 2\nstrategies = 'balanced,file:{strategy}'\n"
    )
    return spec


def edit(path: Path) -> None:
    text = path.read_text()
    path.write_text(text + "\n# edited: a comment is content too\n")


def test_editing_a_file_strategy_makes_a_new_cell_and_experiment(tmp_path):
    strategy = tmp_path / "s.toml"
    shutil.copy(TUNED, strategy)
    before = load_spec(spec_with_file(tmp_path, strategy))
    edit(strategy)
    after = load_spec(spec_with_file(tmp_path, strategy))
    assert before.cells[0].params == after.cells[0].params  # same path, same parameters
    assert before.cells[0].cell_id != after.cells[0].cell_id
    assert before.experiment_id != after.experiment_id
    digest = hashlib.sha256(strategy.read_bytes()).hexdigest()
    assert after.cells[0].inputs == {str(strategy): digest}


def test_the_same_content_under_the_same_path_keeps_its_cell(tmp_path):
    strategy = tmp_path / "s.toml"
    shutil.copy(TUNED, strategy)
    a = load_spec(spec_with_file(tmp_path, strategy))
    strategy.write_bytes(strategy.read_bytes())  # rewritten, unchanged
    assert load_spec(spec_with_file(tmp_path, strategy)).cells[0].cell_id == a.cells[0].cell_id


def test_a_spec_names_its_strategy_file_relative_to_its_own_folder(tmp_path, monkeypatch):
    """Like its ``data``: the same spec plays the same file from any current folder, and a
    file of that name in the current folder is never picked up instead."""
    (tmp_path / "tuned").mkdir()
    shutil.copy(TUNED, tmp_path / "tuned" / "s.toml")
    spec = spec_with_file(tmp_path, Path("tuned/s.toml"))
    elsewhere = tmp_path / "elsewhere"
    (elsewhere / "tuned").mkdir(parents=True)
    (elsewhere / "tuned" / "s.toml").write_text(TUNED.read_text() + "\n# another file\n")
    ids = []
    for cwd in (tmp_path, elsewhere, ROOT):
        monkeypatch.chdir(cwd)
        cell = load_spec(spec).cells[0]
        assert cell.inputs == {str(tmp_path / "tuned" / "s.toml"): sha256_of(TUNED)}
        ids.append(cell.cell_id)
    assert len(set(ids)) == 1


def test_a_missing_relative_strategy_file_is_looked_for_beside_the_spec(tmp_path, monkeypatch):
    monkeypatch.chdir(ROOT)  # where experiments/strategies/... would resolve from the cwd
    spec = spec_with_file(tmp_path, Path("experiments/strategies/balanced_tuned_base_2p.toml"))
    with pytest.raises(UserError, match=str(tmp_path / "experiments")):
        load_spec(spec)


def test_the_same_content_under_another_path_is_the_same_cell(tmp_path):
    """The id hashes a strategy file's content, not its path (another clone, another name)."""
    a, b = tmp_path / "a.toml", tmp_path / "b" / "renamed.toml"
    b.parent.mkdir()
    shutil.copy(TUNED, a)
    shutil.copy(TUNED, b)
    ca, cb = (load_spec(spec_with_file(tmp_path, p)).cells[0] for p in (a, b))
    assert ca.params != cb.params and ca.cell_id == cb.cell_id


def sha256_of(path: Path) -> str:
    return hashlib.sha256(path.read_bytes()).hexdigest()


def test_a_rerun_after_the_edit_is_refused_not_pooled(tmp_path):
    """The lake holds the old experiment; the edited spec is another one: check_compatible
    refuses to mix them (exactly what `experiment run` does before playing)."""
    strategy = tmp_path / "s.toml"
    shutil.copy(TUNED, strategy)
    old = load_spec(spec_with_file(tmp_path, strategy))
    manifest = lk.Manifest(root=tmp_path / "lake", experiments={old.experiment_id: {}})
    edit(strategy)
    new = load_spec(spec_with_file(tmp_path, strategy))
    with pytest.raises(UserError, match="refusing to mix"):
        check_compatible(manifest, new, tmp_path / "lake", force=False)


def test_data_pack_content_enters_the_cell_id(tmp_path):
    pack = tmp_path / "pack"
    shutil.copytree(ROOT / "simkit" / "data" / "auztralia", pack)
    spec = tmp_path / "c.toml"
    body = "[experiment]\nmode = 'combat'\nroot_seed = 1\ngames = 100\ndata = 'pack'\n"
    spec.write_text(body)
    a = load_spec(spec)
    units = pack / "units.toml"
    text = units.read_text()
    units.write_text(text.replace("cost = { value = 3,", "cost = { value = 4,", 1))
    b = load_spec(spec)
    assert a.data_hash != b.data_hash and a.cells[0].cell_id != b.cells[0].cell_id


def test_cell_identity_takes_a_generic_extra_mapping_and_empty_keeps_old_ids():
    args = ("combat", {"vs": "shoggoth"}, {}, "abc", 1, 100, 7)
    ident = {
        "mode": "combat",
        "params": {"vs": "shoggoth"},
        "overrides": {},
        "data_hash": "abc",
        "root_seed": 1,
        "chunk_size": 100,
        "engine_version": 7,
    }
    old = hashlib.sha256(json.dumps(ident, sort_keys=True).encode()).hexdigest()[:20]
    assert cell_identity(*args) == cell_identity(*args, extra={}) == old
    assert cell_identity(*args, extra={"set": {"x": 1}}) != old
    assert cell_identity(*args, extra={"set": {"x": 1}}) != cell_identity(
        *args, extra={"set": {"x": 2}}
    )


def test_strategy_refs_cover_file_tokens_and_search_policies():
    assert strategy_file_refs("balanced,file:a/b.toml") == ["a/b.toml"]
    assert strategy_file_refs("search:rollouts=4:policy=x/s.toml") == ["x/s.toml"]
    assert strategy_file_refs("search:policy=balanced") == []
    assert strategy_file_refs("learned:a/g1.toml") == ["a/g1.toml"]
    assert strategy_file_refs("search:policy=learned:x/g2.toml:rollouts=2") == ["x/g2.toml"]
    assert strategy_file_refs("search:opponents=h/o.toml:oop_model=h/r.toml") == [
        "h/o.toml",
        "h/r.toml",
    ]
    assert strategy_file_refs(3) == []


def test_a_strategy_file_edited_during_the_run_stops_it(tmp_path):
    from simkit.runner.worker import ChunkTask, run_task

    strategy = tmp_path / "s.toml"
    shutil.copy(TUNED, strategy)
    task = ChunkTask(
        out=str(tmp_path / "lake"),
        mode="test_recovery",
        params={"p": 0.5},
        data=None,
        root_seed=1,
        chunk_id=0,
        n_games=10,
        outputs=("summary",),
        files={"summary": "summary/chunk-0123456789-000000.parquet"},
        constants={"cell": "0123456789"},
        meta={},
        inputs={str(strategy): "0" * 64},
    )
    with pytest.raises(UserError, match="changed while the run played it"):
        run_task(task)
    assert not (tmp_path / "lake").exists()


def test_the_manifest_records_each_cells_strategy_file_digests(tmp_path, monkeypatch):
    """Through the fake mode: a 'note' parameter carrying a file: token is hashed too."""
    import fake_modes as fm

    from simkit.modes import Param

    monkeypatch.setitem(fm.MODE.params, "note", Param(str, "none"))
    strategy = tmp_path / "s.toml"
    shutil.copy(TUNED, strategy)
    spec = tmp_path / "f.toml"
    spec.write_text(
        "[experiment]\nmode = 'test_recovery'\nroot_seed = 1\ngames = 100\n"
        f"[params]\nnote = 'file:{strategy}'\n"
    )
    run_experiment(load_spec(spec), out=tmp_path / "lake", quiet=True)
    rec = next(iter(lk.Manifest.load(tmp_path / "lake").experiments.values()))
    cell = next(iter(rec["cells"].values()))
    assert cell["inputs"] == {str(strategy): hashlib.sha256(strategy.read_bytes()).hexdigest()}
    edit(strategy)
    code = main(["experiment", "run", str(spec), "--out", str(tmp_path / "lake"), "--quiet"])
    assert code == 2  # another experiment now: refused, never pooled


# -- tune --------------------------------------------------------------------------------------


def tune_spec(**kw):
    from simkit.tune import TuneSpec

    base = {"mode": "base", "strategy": "balanced", "opponents": ("balanced",), "trials": 5}
    return TuneSpec(**{**base, **kw})


def opened(out: Path, data_hash: str | None = "pack-a", **kw):
    from simkit.tune import base_strategy, open_study

    spec = tune_spec(**kw)
    return open_study(spec, out, base_strategy(spec), data_hash)


def test_tune_records_its_data_pack_and_refuses_another(tmp_path):
    study = opened(tmp_path)
    assert study.user_attrs["data_hash"] == "pack-a"
    opened(tmp_path)  # the same pack resumes
    with pytest.raises(UserError, match="data pack pack-a"):
        opened(tmp_path, "pack-b")


def test_tune_rerun_with_more_trials_is_accepted(tmp_path):
    opened(tmp_path, trials=5)
    study = opened(tmp_path, trials=9)
    assert study.user_attrs["spec"]["trials"] == 9
    with pytest.raises(UserError, match="other settings"):
        opened(tmp_path, games_per_trial=123)


def test_a_run_stopped_during_trial_0_replays_the_defaults(tmp_path):
    import optuna

    from simkit.tune import as_params, base_strategy, resume

    spec = tune_spec()
    first = as_params(base_strategy(spec), True)
    study = opened(tmp_path)
    resume(study, first)
    trial = study.ask()  # trial 0 starts: the defaults ...
    assert trial.number == 0
    # ... and the run dies here: trial 0 stays RUNNING in study.db
    study = opened(tmp_path)
    done = resume(study, first)
    states = [t.state for t in study.trials]
    assert done == [] and states[0] == optuna.trial.TrialState.FAIL
    waiting = [t for t in study.trials if t.state == optuna.trial.TrialState.WAITING]
    assert len(waiting) == 1 and waiting[0].system_attrs["fixed_params"] == first
    resume(study, first)  # resuming again does not queue it twice
    assert len([t for t in study.trials if t.state == optuna.trial.TrialState.WAITING]) == 1


@pytest.mark.parametrize(
    "damage",
    [
        lambda db: db.write_bytes(b"this is not a database at all" * 10),
        lambda db: db.write_bytes(db.read_bytes()[:300]),  # truncated after its header
    ],
    ids=["garbage", "truncated"],
)
def test_a_corrupt_study_db_is_one_line(tmp_path, capsys, damage):
    out = tmp_path / "tuned"
    opened(out)
    damage(out / "study.db")
    argv = ["tune", "--mode", "base", "--strategy", "balanced", "--opponents", "balanced"]
    code = main([*argv, "--trials", "5", "--out", str(out)])
    err = capsys.readouterr().err
    lines = [ln for ln in err.splitlines() if ln.strip()]
    assert code == 2 and len(lines) == 1 and "Traceback" not in err, err
    assert "study.db" in lines[0]


def test_a_locked_study_db_is_one_line(tmp_path):
    import sqlite3

    from simkit.tune import study_error

    exc = sqlite3.OperationalError("database is locked")
    assert "another tuning run" in str(study_error(tmp_path, exc))
    exc = sqlite3.OperationalError("database or disk is full")
    assert "disk full" in str(study_error(tmp_path, exc))


def test_a_trial_cut_off_mid_play_is_finished_under_its_own_number(tmp_path):
    import optuna

    from simkit.tune import as_params, base_strategy, resume, suggest

    spec = tune_spec()
    default = base_strategy(spec)
    first = as_params(default, True)
    study = opened(tmp_path)
    resume(study, first)
    trial = study.ask()
    suggest(trial, default, True)  # trial 0 samples (the defaults) and starts playing ...
    study = opened(tmp_path)  # ... and the run dies: the next one

    def objective(trial):
        suggest(trial, default, True)  # the parameters it had, and any it had not yet
        return 0.25

    done = resume(study, first, objective)
    t0 = study.trials[0]
    assert t0.state == optuna.trial.TrialState.COMPLETE and t0.value == 0.25
    assert t0.params == first and [t.number for t in done] == [0]
    assert not study.get_trials(states=(optuna.trial.TrialState.WAITING,))


def test_the_sampler_draws_the_same_numbers_for_a_trial_in_any_process(tmp_path):
    """Trial k's parameters depend on (seed, k) and the study, not on how many trials this
    process sampled before (a resumed run is a new process)."""
    from simkit.tune import _sampler, base_strategy

    spec = tune_spec(sampler="tpe")
    default = base_strategy(spec)

    import copy

    import optuna

    study_a = optuna.create_study(sampler=_sampler(spec, default))
    for _ in range(4):
        t = study_a.ask()
        study_a.tell(t, t.suggest_float("x", 0, 1))
    # the same study continued by a fresh sampler (a resumed run) draws trial 4 as the
    # original sampler does
    study_b = optuna.create_study(sampler=_sampler(spec, default))
    for t in study_a.trials:
        study_b.add_trial(copy.deepcopy(t))
    xa = study_a.ask().suggest_float("x", 0, 1)
    xb = study_b.ask().suggest_float("x", 0, 1)
    assert xa == xb


TUNE_ARGV = ["tune", "--mode", "base", "--strategy", "balanced", "--opponents", "balanced"]


def test_a_study_made_on_the_shipped_pack_refuses_another_data_pack(tmp_path, capsys):
    from simkit.datapack import load_pack

    out = tmp_path / "tuned"
    opened(out, load_pack().hash)  # a first run without --data
    pack = tmp_path / "pack"
    shutil.copytree(ROOT / "simkit" / "data" / "auztralia", pack)
    units = pack / "units.toml"
    units.write_text(units.read_text().replace("cost = { value = 3,", "cost = { value = 4,", 1))
    code = main([*TUNE_ARGV, "--trials", "5", "--out", str(out), "--data", str(pack)])
    err = capsys.readouterr().err
    assert code == 2 and "tuned on data pack" in err and len(err.strip().splitlines()) == 1


def test_a_second_tune_on_the_same_folder_is_refused_while_one_runs(tmp_path, capsys):
    from simkit.lake import LakeLock

    out = tmp_path / "tuned"
    opened(out)
    with LakeLock(out, what="tuning study"):
        code = main([*TUNE_ARGV, "--trials", "5", "--out", str(out)])
    err = capsys.readouterr().err
    assert code == 2 and "another run" in err and "tuning study" in err
    assert len(err.strip().splitlines()) == 1


def test_a_tuned_strategy_worse_than_the_defaults_says_so():
    from simkit.tune import describe

    record = {
        "strategy": {"role": "human", "base": "balanced"},
        "evaluation": {
            "trials": 3,
            "objective": "win",
            "holdout": {
                "games": 800,
                "tuned": 0.30,
                "default": 0.361,
                "diff": -0.061,
                "ci_low": -0.1,
                "ci_high": -0.02,
            },
        },
    }
    lines = describe(record)
    assert lines[-1].startswith("warning:") and "-0.061" in lines[-1]
    record["evaluation"]["holdout"]["diff"] = 0.02
    assert not any(ln.startswith("warning") for ln in describe(record))
