"""Experiment runner: TOML specs -> seeded chunks -> joblib (loky | dask) -> the result lake.

    >>> from simkit.runner import load_spec, run_experiment
    >>> spec = load_spec("experiments/combat_odds_grid.toml")        # doctest: +SKIP
    >>> result = run_experiment(spec, out="results/grid", jobs=2)   # doctest: +SKIP

Spec format and lake schema: experiments/README.md.
"""

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
]
