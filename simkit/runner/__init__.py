"""Experiment runner: TOML specs -> seeded chunks -> joblib (loky | dask) -> the result lake.

    >>> from simkit.runner import load_spec, run_experiment
    >>> spec = load_spec("experiments/combat_odds_grid.toml")        # doctest: +SKIP
    >>> result = run_experiment(spec, out="results/grid", jobs=2)   # doctest: +SKIP

Spec format and lake schema: experiments/README.md.
"""

import tomllib
from pathlib import Path

from simkit.runner.overrides import apply_overrides, check_override
from simkit.runner.run import CellResult, RunFailed, RunResult, check_compatible, run_experiment
from simkit.runner.spec import Cell, Spec, load_spec, parse_spec

__all__ = [
    "Cell",
    "CellResult",
    "RunFailed",
    "RunResult",
    "Spec",
    "apply_overrides",
    "check_compatible",
    "check_override",
    "load_spec",
    "parse_spec",
    "run_experiment",
    "run_spec_text",
]


def run_spec_text(text: str, name: str, out: Path, base_dir: Path, jobs: int = 1) -> RunResult:
    """Run a spec an experiment script builds in code: kept as OUT/specs/NAME.toml (the
    record of what was played), parsed with its paths resolving against ``base_dir``, and
    played into OUT/NAME (a rerun resumes)."""
    (out / "specs").mkdir(parents=True, exist_ok=True)
    (out / "specs" / f"{name}.toml").write_text(text)
    spec = parse_spec(
        tomllib.loads(text), f"{name}.toml", text=text, base_dir=base_dir, default_name=name
    )
    return run_experiment(spec, out=out / name, jobs=jobs, quiet=True)
