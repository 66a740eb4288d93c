"""`simkit combat` (one matchup) and `simkit odds` (the table over unit mixes)."""

from __future__ import annotations

from enum import StrEnum
from pathlib import Path
from typing import Annotated

import typer
from rich.console import Console
from rich.table import Table

from simkit import views
from simkit.cli import app, validate
from simkit.cli.common import (
    DataOption,
    JsonOption,
    SetOption,
    data_pack,
    parse_sets,
)
from simkit.cli.output import emit, force_mapping, old_ones_list
from simkit.combat import (
    STATE_BUDGET,
    Combat,
    CombatOdds,
    auto_odds,
    exact_odds,
    monte_carlo_odds,
    parse_force,
    parse_old_ones,
)
from simkit.errors import UserError
from simkit.names import OLD_ONES, old_one_id, outcome_help, personality_name
from strategies.combat import parse_allocation, parse_withdrawal
from strategies.combat.allocation import OptimalAllocation
from strategies.combat.withdrawal import OptimalWithdrawal


class Method(StrEnum):
    auto = "auto"
    exact = "exact"
    mc = "mc"


def policy_json(policy) -> dict:
    """A policy object as structure for --json: its name and its fields (never a repr)."""
    from dataclasses import asdict, is_dataclass

    fields = asdict(policy) if is_dataclass(policy) else dict(getattr(policy, "__dict__", {}))
    return {"name": policy.name, **fields}


def _render_rule(console: Console, rule: dict) -> None:
    """The withdraw table as the grid a player follows (simkit.combat.rules)."""
    if not rule["rows"]:
        console.print(f"withdraw rule: {rule['otherwise']}")
        return
    table = Table(title=f"withdraw rule vs {rule['vs']} (check after each card)")
    table.add_column("your units left")
    for col in rule["columns"]:
        table.add_column(col)
    for row in rule["rows"]:
        table.add_row(row["units"], *(c or "-" for c in row["cells"]))
    console.print(table)
    console.print(f"{rule['damage_means']}; any other situation: {rule['otherwise']}")


def _render_losses(console: Console, losses) -> None:
    """P(k lost) per unit type and the Gold lost, from the row-per-fight Monte Carlo."""
    table = Table(title=f"units lost per type (Monte Carlo, {losses.games:,} fights; 95% interval)")
    table.add_column("unit")
    width = max(len(rows) for rows in losses.per_type.values())
    for k in range(width):
        table.add_column(f"P({k} lost)", justify="right")
    for unit, rows in losses.per_type.items():
        cells = [views.interval(r["p"], r["ci_low"], r["ci_high"]) for r in rows]
        table.add_row(unit, *cells, *([""] * (width - len(cells))))
    console.print(table)
    gold = Table(title="Gold lost (most likely values)")
    gold.add_column("Gold", justify="right")
    gold.add_column("probability", justify="right")
    gold.add_column("95% interval", justify="right")
    for r in losses.gold:
        gold.add_row(f"{r['gold']:g}", f"{r['p']:.4f}", views.bounds(r["ci_low"], r["ci_high"], 4))
    console.print(gold)
    q = losses.gold_quantiles
    console.print(f"Gold lost: 10% {q['q10']:g}, median {q['q50']:g}, 90% {q['q90']:g}")


def _render(odds: CombatOdds, dist=None, seen=(), rule=None) -> None:
    console = Console()
    title = f"{odds.combat}  [{odds.method}; allocate {odds.allocate}; withdraw {odds.withdraw}]"
    table = Table(title=title)
    table.add_column("outcome")
    table.add_column("probability", justify="right")
    if odds.ci95:
        table.add_column("95% interval", justify="right")
    rows = list(odds.outcomes.items()) + [("P(destroy)", odds.p_destroy)]
    for name, p in rows:
        cells = [name, f"{p:.4f}"]
        if odds.ci95:
            lo, hi = odds.ci95["p_destroy" if name == "P(destroy)" else name]
            cells.append(views.bounds(lo, hi, 4))
        table.add_row(*cells)
    console.print(table)
    losses = ", ".join(f"{u} {x:.3f}" for u, x in odds.expected_units_lost.items())
    console.print(f"expected units lost: {losses}  (Gold {odds.expected_gold_lost:.2f})")
    console.print(f"expected cards drawn: {odds.expected_cards:.3f}")
    if seen:
        console.print(
            f"cards seen (not in the deck): {', '.join(map(str, seen))} ({len(seen)} cards)"
        )
    if odds.p_port_flip is not None:
        console.print(f"P(port flips to strength 2): {odds.p_port_flip:.4f}")
    tail = (
        f"games {odds.games:,}, seed {odds.seed}" if odds.games else f"{odds.states:,} exact states"
    )
    if dist is not None:
        _render_losses(console, dist)
    console.print(f"[dim]{tail}; data {odds.data_hash}[/dim]")
    for line in odds.extra.get("policy_rules", []):
        console.print(f"policy: {line}")
    if "table_states" in odds.extra:
        x = odds.extra
        console.print(
            f"withdraw table ({x['table_objective']}, no card counting): {x['table_states']:,} "
            f"states, withdraw in {x['table_states_withdrawing']:,}; P(destroy) "
            f"{x['table_model_p_destroy']:.4f} if draws were independent"
        )
    if rule is not None:
        _render_rule(console, rule)
    if "exact_skipped" in odds.extra:
        console.print(f"[dim]Monte Carlo because {odds.extra['exact_skipped'].split(';')[0]}[/dim]")


@app.command(
    "combat",
    help="Odds of one combat: outcomes, P(destroy), expected losses and cards.\n\n"
    "How a fight ends (the outcome rows; P(destroy) = win + win_and_defeat): "
    + outcome_help()
    + ".",
    epilog="Example: simkit combat --force infantry=2,artillery=1 "
    "--vs mi_go --seen '3,zombie:I+AC/a1' --json",
)
def combat_cmd(
    force: Annotated[str, typer.Option(help="Units, e.g. 'infantry=2,armoured_car=1,airship=1'.")],
    vs: Annotated[
        list[str],
        typer.Option(help="Old One(s) in the hex: 'shoggoth' or 'zombie,zombie' (repeatable)."),
    ],
    old_one_damage: Annotated[int, typer.Option(help="Damage already on the Old One(s).")] = 0,
    method: Annotated[
        Method, typer.Option(help="auto (exact if it fits --state-budget, else mc), exact, or mc.")
    ] = Method.auto,
    state_budget: Annotated[
        int, typer.Option(help="States the exact method may use (~200 bytes each).")
    ] = STATE_BUDGET,
    games: Annotated[int, typer.Option(help="Monte Carlo games.")] = 1_000_000,
    seed: Annotated[int, typer.Option(help="Monte Carlo root seed.")] = 0,
    withdraw: Annotated[
        str,
        typer.Option(
            help="never | optimal | value (card counting, exact only) | table | "
            "table-value (no card counting, any method) | sanity:N,units:N,lost:N"
        ),
    ] = "never",
    allocate: Annotated[
        str, typer.Option(help="cheapest | spread | protect:UNIT[+UNIT] | optimal")
    ] = "cheapest",
    seen: Annotated[
        str | None,
        typer.Option(
            help="Cards already in the discard pile: numbers or faces "
            "OLDONE:FACE (see `simkit data deck`), e.g. '3,17,mi_go:AC/p1'."
        ),
    ] = None,
    personality: Annotated[
        list[str] | None, typer.Option(help="Proust, Krupp, Milligan, Jones (repeatable).")
    ] = None,
    port_strength: Annotated[
        int, typer.Option(help="Revenge port defence: the port's strength (2 or 4).")
    ] = 0,
    port_defence: Annotated[
        bool, typer.Option(help="Defending a port: everything fights, no withdrawal.")
    ] = False,
    destroy_value: Annotated[
        float | None,
        typer.Option(help="Gold a kill is worth for --withdraw value (default: its VP)."),
    ] = None,
    jobs: Annotated[
        int, typer.Option(help="Worker processes for Monte Carlo (results do not depend on it).")
    ] = 1,
    loss_games: Annotated[
        int, typer.Option(help="Fights behind the per-type loss and Gold distributions (0: skip).")
    ] = 100_000,
    data: DataOption = None,
    sets: SetOption = None,
    json: JsonOption = False,
) -> None:
    validate.check_combat(
        method=method.value,
        games=games,
        seed_=seed,
        jobs_=jobs,
        state_budget=state_budget,
        old_one_damage=old_one_damage,
        port_strength=port_strength,
        port_defence=port_defence,
        withdraw=withdraw,
        destroy_value=destroy_value,
    )
    pack = data_pack(data, sets)
    if games <= 0:
        raise UserError(f"--games must be positive, got {games}")
    if jobs <= 0:
        raise UserError(f"--jobs must be positive, got {jobs}")
    if port_strength < 0:
        raise UserError(f"--port-strength must be 0 (none) or positive, got {port_strength}")
    fight = Combat(
        force=parse_force(force),
        old_ones=parse_old_ones(vs),
        old_one_damage=(old_one_damage,) if old_one_damage else (),
        port_defence=port_defence,
        port_strength=port_strength,
        personalities=tuple(personality_name(p) for p in (personality or [])),
    )
    alloc = parse_allocation(allocate)
    wd = parse_withdrawal(withdraw, destroy_value)
    from simkit.combat.faces import parse_seen as parse_seen_faces

    cards = parse_seen_faces(seen, pack)
    if state_budget <= 0:
        raise UserError(f"--state-budget must be positive, got {state_budget}")
    from simkit.runner.progress import Progress, progress_enabled

    with Progress(
        progress_enabled(json) and method != Method.exact and games >= 2_000_000,
        "combat",
        unit="fights",
    ) as bar:
        bar.add_total(games)
        if method == Method.exact:
            odds = exact_odds(
                fight, pack, allocate=alloc, withdraw=wd, seen=cards, state_budget=state_budget
            )
        elif method == Method.auto and not (
            isinstance(wd, OptimalWithdrawal) or isinstance(alloc, OptimalAllocation)
        ):
            odds = auto_odds(
                fight,
                pack,
                games=games,
                seed=seed,
                allocate=alloc,
                withdraw=wd,
                seen=cards,
                jobs=jobs,
                state_budget=state_budget,
                progress=bar.advance,
            )
        elif method == Method.auto:  # optimal policies exist only in the exact method
            odds = exact_odds(
                fight, pack, allocate=alloc, withdraw=wd, seen=cards, state_budget=state_budget
            )
        else:
            odds = monte_carlo_odds(
                fight,
                pack,
                games=games,
                seed=seed,
                allocate=alloc,
                withdraw=wd,
                seen=cards,
                jobs=jobs,
                progress=bar.advance,
            )
    rule = None
    if "table_states" in odds.extra:
        from simkit.combat import combat_arrays, withdraw_table_for
        from simkit.combat.rules import table_states, withdraw_rule

        st0, mx, cost = combat_arrays(fight, pack)
        solved = withdraw_table_for(fight, pack, alloc, wd, st0, mx, cost, cards)
        if solved is not None:
            rule = withdraw_rule(solved, fight)
            rule["withdraw_states"] = [
                s for s in table_states(solved, len(fight.old_ones)) if s["decision"] != "stay"
            ]
    losses = None
    if loss_games < 0:
        raise UserError(f"--loss-games must be 0 or positive, got {loss_games}")
    fixed = not (isinstance(wd, OptimalWithdrawal) or isinstance(alloc, OptimalAllocation))
    if loss_games and fixed:
        from simkit.combat.losses import fight_params, loss_distribution

        losses = loss_distribution(
            fight_params(
                ",".join(f"{k}={v}" for k, v in force_mapping(fight.force).items()),
                ",".join(old_ones_list(fight.old_ones)),
                allocate=allocate,
                withdraw=withdraw,
                personalities=",".join(fight.personalities),
                old_one_damage=old_one_damage,
                port_strength=port_strength,
                port_defence=port_defence,
                seen=",".join(map(str, cards)),
            ),
            pack,
            games=loss_games,
            seed=seed,
        )
    if json:
        result = odds.to_json()
        result["withdraw"] = policy_json(wd)
        result["allocate"] = policy_json(alloc)
        if rule is not None:
            result["withdraw_rule"] = rule
        result["losses"] = losses.to_json() if losses is not None else None
        if losses is None and loss_games:
            result["losses_skipped"] = (
                "per-type loss distributions are Monte Carlo of fixed policies"
            )
        emit(
            "combat",
            {
                "force": force_mapping(fight.force),
                "vs": old_ones_list(fight.old_ones),
                "old_one_damage": old_one_damage,
                "method": method.value,
                "state_budget": state_budget,
                "games": games,
                "seed": seed,
                "withdraw": withdraw,
                "allocate": allocate,
                "seen": list(cards),
                "personality": list(fight.personalities),
                "port_strength": port_strength,
                "port_defence": port_defence,
                "destroy_value": destroy_value,
                "jobs": jobs,
                "loss_games": loss_games,
                "data": data,
                "set": parse_sets(sets),
            },
            result,
        )
    else:
        _render(odds, losses, cards, rule)
        if losses is None and loss_games:
            Console().print(
                "[dim]per-type loss distributions: Monte Carlo of fixed policies only "
                "(not shown for optimal policies)[/dim]"
            )


odds_app = typer.Typer(
    help="The odds table over unit mixes, and the cheapest mixes that reach a target.",
    epilog="Example: simkit odds --max-per-type 2 --out results/odds.parquet",
)
app.add_typer(odds_app, name="odds")


@odds_app.callback(
    invoke_without_command=True,
    epilog="Example: simkit odds --max-per-type 3 "
    "--target-ci 0.005 --jobs 2 --out results/odds.parquet",
)
def odds_table_cmd(
    ctx: typer.Context,
    max_per_type: Annotated[
        int, typer.Option(help="Units per type: every mix 0..K of the five types.")
    ] = 2,
    out: Annotated[Path | None, typer.Option(help="Parquet file to write.")] = None,
    vs: Annotated[
        list[str] | None, typer.Option(help="Only these Old One types (default: all six).")
    ] = None,
    jobs: Annotated[int, typer.Option(help="Worker processes (results do not depend on it).")] = 1,
    seed: Annotated[int, typer.Option(help="Seed for Monte Carlo rows.")] = 0,
    games: Annotated[
        int, typer.Option(help="Monte Carlo fights per row and policy (without --target-ci).")
    ] = 20_000,
    target_ci: Annotated[
        float | None,
        typer.Option(
            help="Instead of --games: fights per row until "
            "P(destroy)'s 95% half-width is this, e.g. 0.005."
        ),
    ] = None,
    quiet: Annotated[bool, typer.Option("--quiet", "-q", help="No progress bar.")] = False,
    force: Annotated[
        bool,
        typer.Option(
            "--force", help="Replace --out even if simkit did not write it (or it changed)."
        ),
    ] = False,
    data: DataOption = None,
    sets: SetOption = None,
    json: JsonOption = False,
) -> None:
    """Write the table to --out: every row with P(destroy) under never-withdraw and under the
    optimal withdraw table (exact where it fits, else Monte Carlo with the games per row), and
    the card-counting optimum where the exact solver fits (exact-only columns)."""
    if ctx.invoked_subcommand is not None:
        return
    import time

    from simkit.odds import odds_table, table_bytes
    from simkit.runner.progress import progress_enabled

    if out is None:
        raise UserError("--out FILE.parquet is required")
    validate.check_odds(out=out, seed_=seed, jobs_=jobs, max_per_type=max_per_type)
    from simkit.core.owned import check_replace, write_owned

    check_replace(out, force)  # before the table is computed
    if not 0 <= max_per_type <= 6:
        raise UserError(f"--max-per-type must be 0..6, got {max_per_type}")
    if jobs <= 0:
        raise UserError(f"--jobs must be positive, got {jobs}")
    pack = data_pack(data, sets)
    kinds = sorted({old_one_id(t) for item in vs for t in item.split(",")}) if vs else None
    start = time.perf_counter()
    table = odds_table(
        pack,
        max_per_type,
        kinds,
        jobs=jobs,
        seed=seed,
        games=games,
        target_ci=target_ci,
        progress=progress_enabled(quiet or json),
    )
    seconds = time.perf_counter() - start
    write_owned(out, table_bytes(table, pack, seed), force)
    mc = table[table["method"] == "mc"]
    half = float(((mc["p_destroy_hi"] - mc["p_destroy_lo"]) / 2).max()) if len(mc) else 0.0
    facts = {
        "rows": len(table),
        "exact_share": float((table["method"] == "exact").mean()),
        "table_policy_exact_share": float((table["table_method"] == "exact").mean()),
        "card_counting_rows": int(table["p_destroy_value_policy"].notna().sum()),
        "games_total": int(table["games"].sum() + table["table_games"].sum()),
        "max_half_width": half,
        "seconds": seconds,
        "data_hash": pack.hash,
    }
    if json:
        emit(
            "odds",
            {
                "max_per_type": max_per_type,
                "out": out,
                "vs": [OLD_ONES[k] for k in kinds] if kinds else None,
                "jobs": jobs,
                "seed": seed,
                "games": None if target_ci is not None else games,
                "target_ci": target_ci,
                "data": data,
                "set": parse_sets(sets),
            },
            {"wrote": out, **facts},
        )
        return
    typer.echo(
        f"wrote {out}: {len(table):,} rows in {seconds:.1f} s; never-withdraw "
        f"{facts['exact_share']:.0%} exact, withdraw table "
        f"{facts['table_policy_exact_share']:.0%} exact, the rest Monte Carlo "
        f"({facts['games_total']:,} fights; widest 95% half-width {half:.4f}); card "
        f"counting (exact only) on {facts['card_counting_rows']:,} rows; data {pack.hash}"
    )


@odds_app.command(
    "best",
    epilog="Example: simkit odds best --vs shoggoth --min-p 0.8 --table results/odds.parquet",
)
def odds_best_cmd(
    vs: Annotated[str, typer.Option(help="The Old One type, e.g. shoggoth.")],
    min_p: Annotated[float, typer.Option(help="Minimum P(destroy).")] = 0.8,
    copies: Annotated[
        int, typer.Option(help="How many of that Old One share the hex (1 or 2).")
    ] = 1,
    table: Annotated[
        Path | None, typer.Option(help="A table from `simkit odds --out` (else computed).")
    ] = None,
    max_per_type: Annotated[int, typer.Option(help="Mix size when computing the table.")] = 2,
    top: Annotated[int, typer.Option(help="How many mixes to list.")] = 10,
    data: DataOption = None,
    sets: SetOption = None,
    json: JsonOption = False,
) -> None:
    """The cheapest unit mixes (Gold, then TP) reaching P(destroy) >= --min-p."""
    from simkit.odds import cheapest_mixes, odds_table, read_table

    kind = old_one_id(vs)
    validate.check_odds_best(min_p=min_p, top=top, table=table, max_per_type=max_per_type)
    if not 0.0 <= min_p <= 1.0:
        raise UserError(f"--min-p must be within 0..1, got {min_p}")
    if copies not in (1, 2):
        raise UserError(f"--copies must be 1 or 2, got {copies}")
    if table is not None:
        if sets:
            raise UserError("--set changes the data a table is computed from: not with --table")
        if not table.is_file():
            raise UserError(f"--table {table}: no such file")
        frame, _ = read_table(table)
    else:
        frame = odds_table(data_pack(data, sets), max_per_type, [kind])
    best = cheapest_mixes(frame, OLD_ONES[kind], copies, min_p, top)
    cols = [c for c in frame.columns if c.startswith("n_")] + [
        "gold_cost",
        "tp_cost",
        "p_destroy",
        *[c for c in ("p_destroy_lo", "p_destroy_hi", "games") if c in frame.columns],
        "method",
    ]
    if json:
        emit(
            "odds best",
            {
                "vs": OLD_ONES[kind],
                "min_p": min_p,
                "copies": copies,
                "table": table,
                "max_per_type": max_per_type,
                "top": top,
                "data": data,
                "set": parse_sets(sets),
            },
            {
                "mixes": [
                    {
                        "force": {c[2:]: int(r[c]) for c in cols if c.startswith("n_") and r[c]},
                        **{c: r[c] for c in cols if not c.startswith("n_")},
                    }
                    for r in best[cols].to_dict(orient="records")
                ]
            },
        )
        return
    if best.empty:
        typer.echo(
            f"no mix in the table reaches P(destroy) >= {min_p} vs {copies} x {OLD_ONES[kind]}"
        )
        return
    from simkit.report.combat import mix_label

    out = Table(title=f"cheapest mixes with P(destroy) >= {min_p} vs {copies} x {OLD_ONES[kind]}")
    for col in ("force", "Gold", "TP", "P(destroy)", "95% interval", "method"):
        out.add_column(col, justify="left" if col in ("force", "method") else "right")
    for _, r in best.iterrows():
        exact = str(r["method"]) == "exact"
        interval = "exact" if exact else views.bounds(r["p_destroy_lo"], r["p_destroy_hi"], 4)
        method = "exact" if exact else f"mc {int(r['games']):,}" if "games" in r else "mc"
        out.add_row(
            mix_label(r),
            f"{r['gold_cost']:.0f}",
            str(int(r["tp_cost"])),
            f"{r['p_destroy']:.4f}",
            interval,
            method,
        )
    Console().print(out)
