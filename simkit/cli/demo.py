"""`simkit demo`: the README's main job, a small end-to-end run ending in files you can open.

Each step writes into --out and prints what it wrote. Steps whose engine is not
built yet say so and are skipped (never faked).
"""

from __future__ import annotations

import json
import os
from pathlib import Path
from typing import Annotated

import typer

from simkit import ENGINE_VERSION, views
from simkit.cli import app, validate
from simkit.cli.common import DataOption, JsonOption, atomic_write_bytes, data_pack
from simkit.cli.output import emit
from simkit.combat import Combat, auto_odds, exact_odds
from simkit.errors import UserError
from simkit.names import OLD_ONE_TEXT, OLD_ONES, UNITS, label


def _combat_odds(out: Path, data, max_per_type: int) -> None:
    from simkit.odds import cheapest_mixes, odds_table, table_bytes

    typer.echo(
        f"[1] combat odds: every mix of 0..{max_per_type} "
        "of each unit type vs every Old One (x1, x2)"
    )
    table = odds_table(data, max_per_type)
    atomic_write_bytes(out / "odds.parquet", table_bytes(table, data))
    exact = (table["method"] == "exact").mean()
    typer.echo(f"    wrote {out / 'odds.parquet'} ({len(table)} rows, {exact:.0%} exact)")
    for kind in OLD_ONES:
        best = cheapest_mixes(table, kind, 1, 0.8, top=1)
        if best.empty:
            typer.echo(
                f"    vs {OLD_ONE_TEXT[kind]:9s}: no mix in this table reaches P(destroy) >= 0.8"
            )
            continue
        row = best.iloc[0]
        mix = views.force_label([int(row[f"n_{u}"]) for u in UNITS])
        typer.echo(
            f"    vs {OLD_ONE_TEXT[kind]:9s}: cheapest with P(destroy) >= 0.8: {mix} "
            f"({row['gold_cost']:.0f} Gold, {row['tp_cost']} TP, P = {row['p_destroy']:.3f})"
        )


def _headline_combat(out: Path, data) -> None:
    fight = Combat.parse("infantry=2,artillery=1,airship=1", "shoggoth")
    typer.echo(f"[2] the README's question: {fight.describe()}")
    odds = auto_odds(fight, data, games=1_000_000, seed=0)
    lo, hi = odds.ci95["p_destroy"] if odds.ci95 else (odds.p_destroy, odds.p_destroy)
    typer.echo(
        f"    [{odds.method}] P(destroy) {views.interval(odds.p_destroy, lo, hi, 4)} "
        "(95% interval), "
        f"expected units lost {sum(odds.expected_units_lost.values()):.3f}"
    )
    small = Combat.parse("infantry=2,artillery=1", "mi_go")
    never = exact_odds(small, data)
    value = exact_odds(small, data, withdraw="value")
    typer.echo(
        f"    optimal withdrawal, {small.describe()} [exact]: never withdraw P(destroy) "
        f"{never.p_destroy:.4f}, Gold lost {never.expected_gold_lost:.3f}; value-optimal "
        f"P(destroy) {value.p_destroy:.4f}, Gold lost {value.expected_gold_lost:.3f}"
    )
    atomic_write_bytes(
        out / "combat.json",
        json.dumps(
            {
                "headline": odds.to_json(),
                "withdraw_never": never.to_json(),
                "withdraw_value_optimal": value.to_json(),
            },
            indent=2,
        ).encode(),
    )
    typer.echo(f"    wrote {out / 'combat.json'}")


def _board(out: Path, data_dir) -> None:
    from simkit.cli.board import show

    typer.echo("[3] board: the assumed Eastern map with a seeded 3-player setup")
    show(
        out=out / "board.png",
        map_name="eastern",
        setup_seed=1,
        players=3,
        revenge=False,
        reveal=False,
        force=True,  # check_outputs has checked it against the demo's own record
        data=data_dir,
    )


DEMO_SPECS = Path(__file__).resolve().parents[2] / "experiments"


def _warm_game_engine():
    """Compile the game engine on the second core while steps 1-3 compute combat odds
    (simkit.game.warm: the kernels' types, so their machine code, do not depend on the
    pack). None on a single core."""
    if (os.cpu_count() or 1) < 2:
        return None
    from simkit.game.warm import start_in_background

    return start_in_background()


def _balance(out: Path) -> None:
    from simkit.modes import available
    from simkit.runner import load_spec, run_experiment

    name = (
        "demo_revenge.toml"
        if "revenge" in available() and (DEMO_SPECS / "demo_revenge.toml").exists()
        else "demo_balance.toml"
    )
    spec = load_spec(DEMO_SPECS / name)
    typer.echo(
        f"[4] balance run: {spec.name} ({DEMO_SPECS / name}); "
        "the first run compiles the game engine (about 2 min, started alongside step 1)"
    )
    lake = out / "lake"
    if not os.path.lexists(lake):  # claim it before writing, so an interrupted demo still owns it
        marker = _owned(out)
        marker["lake"] = [spec.experiment_id]
        atomic_write_bytes(out / OWNED, json.dumps(marker, indent=1).encode())
    if owned_lake(
        out, lake
    ):  # the demo's own lake from an earlier run (nothing else in it): start afresh
        import shutil

        shutil.rmtree(lake)
    # anything else in lake/ is never deleted: run_experiment resumes the same spec's lake and
    # refuses another experiment's lake or a folder that is not a lake (one line, exit 2)
    run_experiment(spec, out=lake, jobs=1)
    typer.echo(f"    lake: {out / 'lake'}")
    for line in balance_headline(lake):
        typer.echo(f"    {line}")


def balance_headline(lake_dir: Path) -> list[str]:
    """The difficulty answer the balance run found: the key rate per level and each paired step."""
    from simkit import analysis
    from simkit.report.summary import difficulty_steps

    lake = analysis.open_lake(lake_dir)
    if "difficulty" not in lake.grid_keys:
        r = analysis.win_rates(lake.scan(), by=["cell"], metric=lake.key_metric).row(0, named=True)
        shown = views.interval(r["rate"], r["ci_low"], r["ci_high"])
        return [f"{label(lake.key_metric)}: {shown} (95% interval)"]
    facts = difficulty_steps(lake)
    hk = facts["humans_key"]
    lines = []
    groups = sorted({r[hk] for r in facts["rates"]}) if hk else [None]
    for g in groups:
        rates = [r for r in facts["rates"] if not hk or r[hk] == g]
        order = {lv: i for i, lv in enumerate(facts["levels"])}
        rates.sort(key=lambda r: order[r["difficulty"]])
        who = f" ({g} {hk})" if hk else ""
        lines.append(
            f"headline{who}: {label(facts['metric'])} "
            + ", ".join(
                f"{r['difficulty']} {views.interval(r['rate'], r['ci_low'], r['ci_high'])}"
                for r in rates
            )
        )
        for st in facts["steps"]:
            if hk and st["humans"] != g:
                continue
            up, down = (
                ("easier", "harder")
                if facts["metric"].startswith("humans")
                else ("harder", "easier")
            )
            verdict = (
                f"{up} for the humans"
                if st["ci_low"] > 0
                else f"{down} for the humans"
                if st["ci_high"] < 0
                else "not distinguishable"
            )
            lines.append(
                f"  {st['to']} vs {st['from']}: "
                f"{views.interval(st['diff'], st['ci_low'], st['ci_high'], signed=True)} "
                "(95% interval, "
                f"paired on {st['games']:,} shared seeds): {verdict}"
            )
    return lines


OUTPUTS = ("odds.parquet", "combat.json", "board.png", "report.html")
OWNED = (
    ".simkit-demo.json"  # what an earlier demo wrote here: file -> sha256, lake -> its experiments
)


def _sha256(path: Path) -> str:
    import hashlib

    h = hashlib.sha256()
    with open(path, "rb") as fh:
        for block in iter(lambda: fh.read(1 << 20), b""):
            h.update(block)
    return h.hexdigest()


def _owned(out: Path) -> dict:
    try:
        obj = json.loads((out / OWNED).read_text(encoding="utf-8"))
    except (OSError, ValueError):
        return {}
    return obj if isinstance(obj, dict) else {}


def owned_lake(out: Path, lake: Path) -> bool:
    """lake/ was written by an earlier demo and holds only the experiments it recorded."""
    from simkit.lake import Manifest, scan

    rec = _owned(out).get("lake")
    if not isinstance(rec, list) or not lake.is_dir():
        return False
    if not (
        lake / "manifest.json"
    ).is_file():  # claimed, then interrupted before the first manifest
        return not [p for p in lake.iterdir() if not p.name.startswith(".")]
    try:
        manifest = Manifest.load(lake)
    except UserError:
        return False
    if sorted(manifest.experiments) != sorted(rec):
        return False
    index = scan(lake, manifest)
    top = {p.name for p in lake.iterdir()} - {"manifest.json", ".lock"} - set(index.tables())
    return not index.problems and not top


def check_outputs(out: Path) -> None:
    """Refuse before any work if --out holds a file the demo would replace but did not write."""
    validate.out_dir(out)
    owned = _owned(out).get("files", {})
    for name in OUTPUTS:
        path = out / name
        if not os.path.lexists(path):
            continue
        if not path.is_file():
            raise UserError(f"--out {out}: {path} is not a regular file; refusing to replace it")
        if owned.get(name) != _sha256(path):
            raise UserError(
                f"--out {out}: {path} was not written by simkit demo (or was changed since); "
                f"refusing to replace it: choose another folder or move it"
            )
    lake = out / "lake"
    if os.path.lexists(lake) and not owned_lake(out, lake):
        raise UserError(
            f"--out {out}: {lake} was not written by simkit demo (another lake or folder); "
            f"refusing to touch it: choose another folder or move it"
        )


def record_outputs(out: Path) -> None:
    from simkit.lake import Manifest

    files = {name: _sha256(out / name) for name in OUTPUTS if (out / name).is_file()}
    lake = (
        sorted(Manifest.load(out / "lake").experiments)
        if (out / "lake" / "manifest.json").is_file()
        else []
    )
    atomic_write_bytes(out / OWNED, json.dumps({"files": files, "lake": lake}, indent=1).encode())


@app.command("demo", epilog="Example: simkit demo --out results/demo   (the same as `make run`)")
def demo(
    out: Annotated[Path, typer.Option(help="Folder for everything the demo writes.")] = Path(
        "results/demo"
    ),
    max_per_type: Annotated[int, typer.Option(help="Odds table size (units per type).")] = 1,
    data: DataOption = None,
    json: JsonOption = False,
) -> None:
    """A small end-to-end run: combat odds table, one detailed matchup, a board picture."""
    import contextlib
    import sys

    validate.count("--max-per-type", max_per_type, 1, 3)
    check_outputs(out)
    pack = data_pack(data)
    out.mkdir(parents=True, exist_ok=True)
    # with --json the step-by-step lines go to stderr, so stdout is the one JSON object
    with contextlib.redirect_stdout(sys.stderr) if json else contextlib.nullcontext():
        typer.echo(f"simkit demo (engine {ENGINE_VERSION}, data {pack.hash}) -> {out}")
        warm = _warm_game_engine()
        _combat_odds(out, pack, max_per_type)
        _headline_combat(out, pack)
        _board(out, data)
        if warm is not None:
            if warm.poll() is None:  # still compiling: take a part of it on this idle core
                from simkit.game.warm import compile_player_turn

                compile_player_turn()
            warm.wait()  # the game engine is in numba's disk cache now (or compiles below)
        _balance(out)
        from simkit.report import build_report

        report = build_report(out, title="simkit demo report")
        atomic_write_bytes(out / "report.html", report.html.encode())
        record_outputs(out)
    if json:
        emit(
            "demo",
            {"out": out, "max_per_type": max_per_type, "data": data},
            {
                "report": (out / "report.html").resolve(),
                "sections": report.sections,
                "balance_headline": balance_headline(out / "lake"),
                "files": sorted(str(p.relative_to(out)) for p in out.iterdir()),
            },
        )
        return
    typer.echo(f"[5] report: {(out / 'report.html').resolve()}")
