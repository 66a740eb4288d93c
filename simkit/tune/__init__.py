"""Tune a strategy's declared parameters (strategies.spaces) against fixed opponents.

The search is optuna's (TPE or CMA-ES), its study kept in ``DIR/study.db`` so an
interrupted run resumes where it stopped. Every trial plays the same games (chunk 0 of
the root seed: common random numbers, so trials differ by the strategy, not by luck);
the strategy's own defaults are the first trial. The best few trials are played again
on more games (chunk 1) before one is chosen, and the choice is scored against the
defaults on held-out games (chunk 2) as a paired difference with a 95% interval.
``DIR/strategy.toml`` records all of it, and ``--strategies file:DIR/strategy.toml``
(``--oop`` too) plays the tuned strategy in every command and spec.

Objectives: ``win`` (the tuned side wins: the tuned seat in a base game, the humans in
Revenge or Mythos Solo, the Old One player when it is tuned) or ``margin`` (the tuned
side's VP minus the best other side's).
"""

from __future__ import annotations

import logging
import math
from collections.abc import Callable, Sequence
from dataclasses import replace
from pathlib import Path
from typing import Any

import numpy as np

from simkit.errors import UserError
from simkit.tune.games import (  # noqa: F401  (re-exported: simkit.tune.X)
    _COL,
    Evaluator,
    _pack,
    _play_block,
    game_spec,
    paired,
    scores,
)
from simkit.tune.spec import (  # noqa: F401  (re-exported: simkit.tune.X)
    HOLDOUT,
    LEADERS,
    MAX_GAMES,
    MODES,
    OBJECTIVES,
    SAMPLERS,
    STUDY_FILE,
    TRAIN,
    TuneSpec,
)
from simkit.views import interval
from strategies.files import RESULT_FILE, file_role, read_strategy_file  # noqa: F401  (re-exported)
from strategies.spaces import Choice, Integer, Real, Vector, space_of

# -- strategies in and out -----------------------------------------------------------------------


def base_strategy(spec: TuneSpec):
    """The tuned strategy's starting point (a registered name, overrides or a file)."""
    if spec.strategy.split(":")[0].strip().lower() == "random":
        raise UserError("tune: the random players are baselines with nothing to tune")
    if spec.role == "oop":
        from strategies.old_ones import parse_oop

        return parse_oop(spec.strategy)
    from strategies.registry import parse_one

    return parse_one(spec.strategy)


def strategy_from_file(path: str | Path, role: str):
    """The tuned strategy a strategy.toml describes (role 'human' or 'oop')."""
    from strategies import files

    if role == "oop":
        from strategies.old_ones import parse_oop

        return files.strategy_from_file(path, role, parse_oop)
    from strategies.registry import get

    return files.strategy_from_file(path, role, get)


def suggest(trial, strategy, choice_index: bool = False):
    """A candidate: every field of the space as the trial samples it. ``choice_index``
    samples a Choice as the index of its option (so CMA-ES can move it like a number)."""
    changes = {}
    for name, dim in space_of(strategy).items():
        if isinstance(dim, Real):
            changes[name] = trial.suggest_float(name, dim.low, dim.high)
        elif isinstance(dim, Integer):
            changes[name] = trial.suggest_int(name, dim.low, dim.high)
        elif isinstance(dim, Choice) and choice_index:
            changes[name] = dim.options[trial.suggest_int(name, 0, len(dim.options) - 1)]
        elif isinstance(dim, Choice):
            changes[name] = trial.suggest_categorical(name, list(dim.options))
        else:
            changes[name] = tuple(
                trial.suggest_float(f"{name}[{j}]", dim.low, dim.high) for j in range(dim.size)
            )
    return replace(strategy, **changes)


def as_params(strategy, choice_index: bool = False) -> dict[str, Any]:
    """The optuna parameters of ``strategy`` (the first trial; CMA-ES's starting mean)."""
    out = {}
    for name, dim in space_of(strategy).items():
        value = getattr(strategy, name)
        if isinstance(dim, Vector):
            out.update({f"{name}[{j}]": float(x) for j, x in enumerate(value)})
        elif isinstance(dim, Choice) and value not in dim.options:
            continue  # a default outside the listed choices: let the sampler pick
        elif isinstance(dim, Choice) and choice_index:
            out[name] = dim.options.index(value)
        else:
            out[name] = value
    return out


def fields_of(strategy) -> dict[str, Any]:
    return {
        name: (list(v) if isinstance(v, tuple) else v)
        for name in space_of(strategy)
        for v in [getattr(strategy, name)]
    }


# -- games and scores ----------------------------------------------------------------------------


# -- the run -------------------------------------------------------------------------------------

SIGMA0 = 0.15  # CMA-ES step at the start, as a share of each field's range


def _sampler(spec: TuneSpec, default):
    """CMA-ES searches around the strategy's defaults (a hand-written heuristic is a good
    start; a random point of a 30-dimensional space seldom is), choices as indices and
    whole numbers with margin; TPE samples the whole space."""
    import warnings

    import optuna

    if spec.sampler == "cmaes":
        with warnings.catch_warnings():  # with_margin is marked experimental
            warnings.simplefilter("ignore", optuna.exceptions.ExperimentalWarning)
            # x0 / sigma0 are deprecated since optuna 4.9 and go in 6.0 (pyproject pins < 6);
            # the search starts at the defaults through them until a replacement exists
            warnings.simplefilter("ignore", FutureWarning)
            return _seeded_per_trial(
                optuna.samplers.CmaEsSampler(
                    x0=as_params(default, True), sigma0=SIGMA0, seed=spec.seed, with_margin=True
                ),
                spec.seed,
            )
    return _seeded_per_trial(
        optuna.samplers.TPESampler(seed=spec.seed, multivariate=True), spec.seed
    )


def _seeded_per_trial(sampler, seed: int):
    """The sampler's random numbers as a function of (seed, trial number) alone.

    optuna seeds a sampler once per process and draws from it trial after trial, so a
    resumed study (a new process) draws other numbers than an uninterrupted one would
    have: another strategy. Reseeding every generator the sampler holds as each trial
    starts (``before_trial`` runs before its parameters are sampled) makes trial k the same
    whichever process samples it."""
    from optuna.samplers._lazy_random_state import LazyRandomState

    before = sampler.before_trial

    def before_trial(study, trial) -> None:
        state = np.random.SeedSequence([seed, trial.number]).generate_state(2)
        for attr in ("_cma_rng", "_rng"):
            if hasattr(sampler, attr):
                setattr(sampler, attr, LazyRandomState(int(state[0])))
        for name in ("_independent_sampler", "_random_sampler"):
            inner = getattr(sampler, name, None)
            if inner is not None and hasattr(inner, "_rng"):
                inner._rng = LazyRandomState(int(state[1]))
        before(study, trial)

    sampler.before_trial = before_trial
    return sampler


def _study_step(step: Callable[[], Any], out: Path) -> Any:
    """Run one optuna call, a stop in a trial re-raised as the stop, a storage error as one
    line (a Ctrl-C that breaks optuna itself: simkit.errors.interrupt_behind, in the CLI)."""
    try:
        return step()
    except _Stopped as stop:
        raise stop.cause from None
    except study_errors() as exc:
        raise study_error(out, exc) from None


class _Stopped(BaseException):
    """Ctrl-C or SIGTERM inside a trial, carried past optuna (which would mark the trial
    FAIL, shifting every later trial's number): the trial stays RUNNING in study.db and the
    next run finishes it under its own number, as an uninterrupted run would have."""

    def __init__(self, cause: BaseException):
        super().__init__()
        self.cause = cause


# settings a rerun may change: more (or fewer) trials extend the same study
RESUMABLE = ("trials",)


def study_error(out: Path, exc: BaseException) -> UserError:
    """One line for a study that cannot be used: a corrupt or truncated study.db, another
    run holding it, a full disk (optuna's storage raises sqlalchemy errors)."""
    text = " ".join(str(exc).split())
    low = text.lower()
    path = out / STUDY_FILE
    if "locked" in low or "busy" in low:
        why = "another tuning run is using it (wait for it to finish)"
    elif "disk" in low and ("full" in low or "space" in low) or "no space" in low:
        why = "disk full"
    elif "malformed" in low or "not a database" in low or "file is not a database" in low:
        why = "not a readable optuna study (corrupt or truncated); move it away to start afresh"
    elif "readonly" in low or "read-only" in low or "permission" in low:
        why = "cannot be written (read-only or permission denied)"
    else:
        why = f"{type(exc).__name__}: {text[:160]}"
    return UserError(f"{path}: {why}")


def study_errors() -> tuple[type[BaseException], ...]:
    import optuna

    errors: list[type[BaseException]] = [optuna.exceptions.StorageInternalError]
    try:
        import sqlalchemy.exc

        errors.append(sqlalchemy.exc.SQLAlchemyError)
    except ImportError:  # pragma: no cover - optuna's RDB storage needs it
        pass
    import sqlite3

    errors.append(sqlite3.Error)
    return tuple(errors)


def open_study(spec: TuneSpec, out: Path, default, data_hash: str | None = None):
    import optuna

    optuna.logging.set_verbosity(optuna.logging.WARNING)
    out.mkdir(parents=True, exist_ok=True)
    db = out / STUDY_FILE
    if db.exists() and db.stat().st_size and db.read_bytes()[:16] != b"SQLite format 3\x00":
        raise UserError(
            f"{db}: not a readable optuna study (corrupt or truncated); move it away to "
            "start afresh"
        )
    # NullPool closes a connection after every operation, so a Ctrl-C often lands inside
    # close(): SQLAlchemy's pool then logs it with its traceback (on stderr, through Python's
    # last-resort handler) before it re-raises it, and the command reports it in one line
    logging.getLogger("sqlalchemy.pool").setLevel(logging.CRITICAL)
    storage = None
    try:
        from sqlalchemy.pool import NullPool

        # NullPool: a connection closes when its session ends, so an error (even one inside
        # RDBStorage's own set-up, before it is returned) leaves no study.db open
        storage = optuna.storages.RDBStorage(
            f"sqlite:///{db.resolve()}", engine_kwargs={"poolclass": NullPool}
        )
        study = optuna.create_study(
            study_name="tune",
            storage=storage,
            direction="maximize",
            sampler=_sampler(spec, default),
            load_if_exists=True,
        )
        recorded = study.user_attrs.get("spec")
        now = spec.record()
        if recorded is None:
            study.set_user_attr("spec", now)
        else:
            fixed = {k: v for k, v in recorded.items() if k not in RESUMABLE}
            if fixed != {k: v for k, v in now.items() if k not in RESUMABLE}:
                raise UserError(
                    f"{out}: holds a tuning run with other settings ({_diff(recorded, now)}); "
                    "use another --out or the same settings to resume"
                )
            if recorded != now:
                study.set_user_attr("spec", now)  # more --trials: the rerun adds them
        pack = study.user_attrs.get("data_hash")
        if pack is None and data_hash is not None:
            study.set_user_attr("data_hash", data_hash)
        elif data_hash is not None and pack != data_hash:
            raise UserError(
                f"{out}: this study was tuned on data pack {pack}, --data gives {data_hash}; "
                "use another --out (a study plays every trial on one pack)"
            )
    except study_errors() as exc:
        release_storage(storage)
        raise study_error(out, exc) from None
    except BaseException:
        release_storage(storage)
        raise
    return study


def release_storage(storage) -> None:
    """Close a study's database connections (an error or the end of a run): an open
    study.db would keep its folder busy (a full disk's mount cannot even be unmounted)."""
    storage = getattr(storage, "_backend", storage)  # optuna wraps RDBStorage in a cache
    if storage is None or not hasattr(storage, "engine"):
        return
    try:
        storage.scoped_session.remove()
        storage.engine.dispose()
    except Exception:  # noqa: BLE001 - never hide the error being reported
        pass


def _diff(a: dict, b: dict) -> str:
    keys = sorted(k for k in set(a) | set(b) if a.get(k) != b.get(k))
    return ", ".join(f"{k}: {a.get(k)!r} there, {b.get(k)!r} now" for k in keys)


def run_tune(
    spec: TuneSpec,
    out: Path,
    jobs: int = 1,
    data_path: str | None = None,
    on_trial: Callable[[int, int, float], None] | None = None,
) -> dict[str, Any]:
    """Tune, choose, score on held-out games; write DIR/strategy.toml; return the record.

    One run at a time per folder (an flock on DIR/.lock, as a lake's): a second run would
    take the first one's unfinished trials for a stopped run's."""
    from simkit.lake import LakeLock

    default = base_strategy(spec)
    space_of(default)
    game_spec(spec, default)  # opponents and options checked before any game
    out.mkdir(parents=True, exist_ok=True)
    with LakeLock(out, what="tuning study"):
        return _run_tune(spec, out, jobs, data_path, on_trial, default)


def _run_tune(spec, out, jobs, data_path, on_trial, default) -> dict[str, Any]:

    from simkit.datapack import load_pack

    pack_hash = _pack(data_path).hash if data_path else load_pack().hash
    study = open_study(spec, out, default, pack_hash)
    try:
        return _tune_study(study, spec, out, jobs, data_path, on_trial, default)
    finally:
        release_storage(study._storage)


def _tune_study(study, spec, out, jobs, data_path, on_trial, default) -> dict[str, Any]:
    import optuna

    index = spec.sampler == "cmaes"
    first = as_params(default, index)
    with Evaluator(spec, jobs, data_path) as evaluate:

        def objective(trial):
            try:
                value = float(evaluate(suggest(trial, default, index), TRAIN).mean())
            except KeyboardInterrupt as exc:
                raise _Stopped(exc) from None
            if on_trial is not None:
                on_trial(trial.number + 1, spec.trials, value)
            return value

        done = _study_step(lambda: resume(study, first, objective), out)

        left = spec.trials - len(done)
        if left > 0:
            # optuna logs a stopped trial's traceback at WARNING; the stop is reported once
            optuna.logging.set_verbosity(optuna.logging.ERROR)
            try:
                _study_step(lambda: study.optimize(objective, n_trials=left, catch=()), out)
            finally:
                optuna.logging.set_verbosity(optuna.logging.WARNING)
        complete = sorted(
            (t for t in study.trials if t.state == optuna.trial.TrialState.COMPLETE),
            key=lambda t: (-t.value, t.number),
        )
        leaders = []
        for t in complete[: spec.leaders]:
            candidate = suggest(optuna.trial.FixedTrial(t.params), default, index)
            value = float(evaluate(candidate, LEADERS).mean())
            leaders.append(
                {
                    "trial": t.number,
                    "train": float(t.value),
                    "leader_games": value,
                    "candidate": candidate,
                }
            )
        leaders.sort(key=lambda r: (-r["leader_games"], r["trial"]))
        chosen = leaders[0]["candidate"]
        held = paired(evaluate(chosen, HOLDOUT), evaluate(default, HOLDOUT))
    record = {
        "strategy": {"role": spec.role, "base": type(default).name, "fields": fields_of(chosen)},
        "tuning": spec.record(),
        "evaluation": {
            "objective": spec.objective,
            "seed_sets": {
                "train": f"chunk {TRAIN} of seed {spec.seed}, {spec.games(TRAIN)} games",
                "leaders": f"chunk {LEADERS}, {spec.games(LEADERS)} games",
                "holdout": f"chunk {HOLDOUT}, {spec.games(HOLDOUT)} games",
            },
            "trials": len(complete),
            "default_train": next(
                (float(t.value) for t in complete if _is_default(t, first) and t.value is not None),
                float("nan"),
            ),
            "leaders": [{k: v for k, v in r.items() if k != "candidate"} for r in leaders],
            "holdout": held,
            # the choice scored below the defaults on held-out games: say so, never silently
            "worse_than_default": bool(held["diff"] < 0),
        },
    }
    write_record(record, out / RESULT_FILE)
    return record


def resume(study, first: dict[str, Any], objective=None) -> list:
    """Ready a (new or stopped) study. A trial a stopped run left RUNNING (killed, or
    stopped by Ctrl-C / SIGTERM, while sampling or playing) is run again by ``objective``
    under its own number: the parameters it had are kept, the rest are sampled as the
    uninterrupted run would have (the sampler's numbers depend on the trial number only,
    _seeded_per_trial), so trial 0 (the defaults) is replayed and the study goes on exactly
    as an uninterrupted one. Without ``objective`` such a trial is failed. The defaults are
    queued unless a complete or waiting trial plays them. Returns the complete trials."""
    import optuna

    RUNNING = optuna.trial.TrialState.RUNNING
    for t in study.get_trials(deepcopy=False, states=(RUNNING,)):
        if objective is None:
            study._storage.set_trial_state_values(t._trial_id, state=optuna.trial.TrialState.FAIL)
            continue
        trial = optuna.trial.Trial(study, t._trial_id)
        study.tell(trial, objective(trial))
    done = [t for t in study.trials if t.state == optuna.trial.TrialState.COMPLETE]
    waiting = study.get_trials(states=(optuna.trial.TrialState.WAITING,))
    if not any(_is_default(t, first) for t in done + waiting):
        study.enqueue_trial(first)
    return done


def _is_default(trial, first: dict[str, Any]) -> bool:
    """The trial plays the defaults (trial 0 of an uninterrupted run): every parameter the
    defaults fix, as the defaults have it (or, while it waits, as enqueued)."""
    params = trial.params or dict(trial.system_attrs.get("fixed_params", {}))
    return all(params.get(k) == v for k, v in first.items())


def write_record(record: dict[str, Any], path: Path) -> None:
    """Write via a temporary file and a rename: a failed run never leaves half a file."""
    import os

    tmp = path.with_name(f".{path.name}.{os.getpid()}.tmp")
    try:
        tmp.write_text(_toml(record), encoding="utf-8")
        os.replace(tmp, path)
    finally:
        tmp.unlink(missing_ok=True)


def _toml(record: dict[str, Any]) -> str:
    """A small TOML writer for the record's shapes (tables, lists of tables, scalars, lists)."""
    lines = [
        "# simkit tune: a tuned strategy. Play it with --strategies file:THIS (or --oop file:THIS)."
    ]

    def scalar(v: Any) -> str:
        if isinstance(v, bool):
            return "true" if v else "false"
        if isinstance(v, (int, np.integer)):
            return str(int(v))
        if isinstance(v, (float, np.floating)):
            v = float(v)
            return (
                repr(v) if math.isfinite(v) else ("nan" if v != v else ("inf" if v > 0 else "-inf"))
            )
        if isinstance(v, (list, tuple)):
            return "[" + ", ".join(scalar(x) for x in v) + "]"
        return '"' + str(v).replace("\\", "\\\\").replace('"', '\\"') + '"'

    def table(prefix: str, d: dict[str, Any]) -> None:
        simple = {k: v for k, v in d.items() if not isinstance(v, dict) and not _is_table_list(v)}
        lines.append(f"\n[{prefix}]")
        lines.extend(f"{k} = {scalar(v)}" for k, v in simple.items())
        for k, v in d.items():
            if isinstance(v, dict):
                table(f"{prefix}.{k}", v)
            elif _is_table_list(v):
                for item in v:
                    lines.append(f"\n[[{prefix}.{k}]]")
                    lines.extend(f"{kk} = {scalar(vv)}" for kk, vv in item.items())

    for key, value in record.items():
        table(key, value)
    return "\n".join(lines) + "\n"


def _is_table_list(v: Any) -> bool:
    return isinstance(v, list) and bool(v) and all(isinstance(x, dict) for x in v)


def parse_opponents(text: str | None) -> tuple[str, ...]:
    return tuple(t.strip() for t in (text or "").split(",") if t.strip())


def describe(record: dict[str, Any]) -> Sequence[str]:
    ev = record["evaluation"]
    h = ev["holdout"]
    lines = [
        f"tuned {record['strategy']['role']} strategy from '{record['strategy']['base']}' "
        f"({ev['trials']} trials, objective {ev['objective']})",
        f"held-out games: {h['games']:,}; tuned {h['tuned']:.3f}, default {h['default']:.3f}; "
        f"paired difference {interval(h['diff'], h['ci_low'], h['ci_high'], signed=True)} "
        "(95% interval)",
    ]
    if h["diff"] < 0:
        lines.append(
            f"warning: the tuned strategy did worse than the defaults on held-out games "
            f"({h['diff']:+.3f}); prefer the defaults, or tune with more games per trial"
        )
    return lines
