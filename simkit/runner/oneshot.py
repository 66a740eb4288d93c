"""One cell played outside a spec file: the experiment spec of a one-cell run (what
`simkit simulate` and `simkit compare` run), the --set / --reading overrides as validated
data, and a paired run of one cell under two data packs on the same seeds (`simkit
compare`, the web explorer's what-if). Shared by the CLI and the web app, below both."""

from __future__ import annotations

import tempfile
from pathlib import Path

from simkit.core.stats import mean_interval
from simkit.errors import UserError

CHUNK = 1000  # games per chunk of a one-cell run


def typed_value(text: str):
    """A --set VALUE as TOML would read it: true/false, a whole number, a number, else text."""
    low = text.strip().lower()
    if low in ("true", "false"):
        return low == "true"
    for kind in (int, float):
        try:
            return kind(text)
        except ValueError:
            pass
    return text.strip()


def parse_sets(sets: list[str] | None, readings: list[str] | None = None) -> dict:
    """``--set PATH=VALUE`` and ``--reading NAME=OPTION`` as validated data overrides; a
    path given twice is refused. Every mistake is one line naming the path."""
    from simkit.errors import UserError
    from simkit.runner.overrides import check_override

    out: dict = {}
    for flag, items, prefix in (("--set", sets, ""), ("--reading", readings, "reading.")):
        for item in items or ():
            path, sep, value = item.partition("=")
            path = prefix + path.strip()
            if not sep or path == prefix:
                raise UserError(
                    f"{flag} expects {'NAME=OPTION' if prefix else 'PATH=VALUE'}, got {item!r}"
                )
            if path in out:
                raise UserError(f"{flag}: '{path}' is given twice")
            try:
                out[path] = check_override(path, typed_value(value))
            except UserError as exc:
                raise UserError(f"{flag} {item}: {exc}") from None
    return out


def _toml_value(v) -> str:
    if isinstance(v, bool):
        return "true" if v else "false"
    if isinstance(v, int | float):
        return repr(v)
    return '"' + str(v).replace("\\", "\\\\").replace('"', '\\"') + '"'


def _toml_item(v) -> str:
    """A value of the [experiment] table: a list as a TOML array, anything else by _toml_value."""
    return "[" + ", ".join(map(_toml_value, v)) + "]" if isinstance(v, list) else _toml_value(v)


def one_cell_spec(
    mode: str,
    params: dict,
    seed: int,
    games: int,
    outputs: tuple[str, ...],
    data: Path | None,
    overrides: dict | None = None,
):
    """The experiment spec `simulate` runs: one cell, the given parameters and data
    overrides (--set, --reading), chunks of 1,000."""
    from simkit.runner.spec import parse_spec

    exp = {
        "name": f"simulate-{mode}",
        "description": "simkit simulate",
        "mode": mode,
        "root_seed": seed,
        "chunk_size": CHUNK,
        "games": games,
        "outputs": list(outputs),
    }
    if data is not None:
        exp["data"] = str(Path(data).resolve())
    text = (
        "[experiment]\n"
        + "".join(f"{k} = {_toml_item(v)}\n" for k, v in exp.items())
        + "\n[params]\n"
        + "".join(f"{k} = {_toml_value(v)}\n" for k, v in params.items())
        + ("\n[overrides]\n" if overrides else "")
        + "".join(f'"{k}" = {_toml_value(v)}\n' for k, v in (overrides or {}).items())
    )
    return parse_spec(
        {"experiment": exp, "params": dict(params), "overrides": dict(overrides or {})},
        "simkit simulate",
        text=text,
        default_name=f"simulate-{mode}",
    )


# the summary columns compared (those a run has), the mode's key metric first
METRICS = ("old_ones_win", "humans_win", "oo_vp", "best_player_vp", "ports_lost", "farms_blighted")


def paired_difference(a, b, metric: str) -> dict:
    """Mean of b - a over games matched by (chunk_id, game_index), with a normal 95%
    interval of that mean (games are independent; the pairing removes shared chance)."""
    import numpy as np

    key = ["chunk_id", "game_index"]
    joined = a.select([*key, metric]).join(b.select([*key, metric]), on=key, suffix="_b")
    if joined.height != a.height or joined.height != b.height:
        raise UserError("compare: the two runs did not play the same games")
    x = joined[metric].to_numpy().astype(np.float64)
    y = joined[f"{metric}_b"].to_numpy().astype(np.float64)
    d = y - x
    low, high = mean_interval(float(d.sum()), float((d * d).sum()), d.size)
    return {
        "metric": metric,
        "games": d.size,
        "a": float(x.mean()),
        "b": float(y.mean()),
        "difference": float(d.mean()),
        "ci_low": low,
        "ci_high": high,
    }


def compare_params(
    mode: str,
    humans: int = 2,
    players: int = 2,
    strategies: str = "balanced",
    oop: str = "rusher",
    difficulty: str | None = None,
    rules: str = "revenge",
    content: str = "assumed",
    unknown: str = "blank",
) -> dict:
    """The mode's validated parameters from compare's flags (the flags a mode does not read
    are left out)."""
    from simkit.modes import get_mode

    given: dict = {"content": content, "unknown": unknown}
    if mode == "revenge":
        given |= {
            "humans": humans,
            "strategies": strategies,
            "oop": oop,
            "difficulty": difficulty or "normal",
            "ruleset": rules,
        }
    elif mode == "base":
        given |= {"players": players, "strategies": strategies}
    elif mode in ("solo", "mythos-solo"):
        given |= {"strategy": strategies, **({"difficulty": difficulty} if difficulty else {})}
    else:
        raise UserError(
            f"unknown --mode '{mode}' (expected one of: base, solo, revenge, mythos-solo)"
        )
    return get_mode(mode).validate(given)


def paired_run(
    mode: str,
    params: dict,
    seed: int,
    games: int,
    side_a: tuple,
    side_b: tuple,
    jobs: int = 1,
    deadline: float | None = None,
) -> list[dict]:
    """Play one cell twice on the same seeds, side A and side B each a (data pack folder or
    None, overrides) pair, and return paired_difference of every headline metric the runs
    have. ``deadline`` (time.perf_counter() value): the runs stop with
    simkit.runner.run.DeadlinePassed before a chunk that would end after it."""
    from simkit import analysis
    from simkit.runner import run_experiment

    results = []
    with tempfile.TemporaryDirectory(prefix="simkit-compare-") as tmp:
        frames = []
        for name, (pack, overrides) in (("a", side_a), ("b", side_b)):
            spec = one_cell_spec(mode, params, seed, games, ("summary",), pack, overrides)
            out = Path(tmp) / name
            run_experiment(spec, out=out, jobs=jobs, quiet=True, deadline=deadline)
            frames.append(analysis.open_lake(out, spec.experiment_id).scan().collect())
        a, b = frames
        for metric in METRICS:
            if metric in a.columns and metric in b.columns:
                results.append(paired_difference(a, b, metric))
    return results
