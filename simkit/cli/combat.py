"""`simkit combat` (one matchup) and `simkit odds` (the table over unit mixes)."""

from __future__ import annotations

from enum import StrEnum
from pathlib import Path
from typing import Annotated

import typer
from rich.console import Console
from rich.table import Table

from simkit.cli import app, validate
from simkit.cli.common import DataOption, JsonOption, atomic_write_bytes, data_pack, print_json
from simkit.combat import (
    STATE_BUDGET,
    Combat,
    CombatOdds,
    auto_odds,
    exact_odds,
    monte_carlo_odds,
    parse_force,
    parse_old_ones,
    parse_seen,
)
from simkit.errors import UserError
from simkit.names import OLD_ONES, old_one_id, personality_name
from strategies.combat import parse_allocation, parse_withdrawal
from strategies.combat.allocation import OptimalAllocation
from strategies.combat.withdrawal import OptimalWithdrawal


class Method(StrEnum):
    auto = "auto"
    exact = "exact"
    mc = "mc"


def _render(odds: CombatOdds) -> None:
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
            cells.append(f"{lo:.4f} .. {hi:.4f}")
        table.add_row(*cells)
    console.print(table)
    losses = ", ".join(f"{u} {x:.3f}" for u, x in odds.expected_units_lost.items())
    console.print(f"expected units lost: {losses}  (Gold {odds.expected_gold_lost:.2f})")
    console.print(f"expected cards drawn: {odds.expected_cards:.3f}")
    if odds.p_port_flip is not None:
        console.print(f"P(port flips to strength 2): {odds.p_port_flip:.4f}")
    tail = f"games {odds.games:,}, seed {odds.seed}" if odds.games else f"{odds.states:,} exact states"
    console.print(f"[dim]{tail}; data {odds.data_hash}[/dim]")
    for line in odds.extra.get("policy_rules", []):
        console.print(f"policy: {line}")
    if "table_states" in odds.extra:
        x = odds.extra
        console.print(f"withdraw table ({x['table_objective']}, no card counting): {x['table_states']:,} states, "
                      f"withdraw in {x['table_states_withdrawing']:,}; P(destroy) "
                      f"{x['table_model_p_destroy']:.4f} if draws were independent")
    if "exact_skipped" in odds.extra:
        console.print(f"[dim]Monte Carlo because {odds.extra['exact_skipped'].split(';')[0]}[/dim]")


@app.command("combat")
def combat_cmd(
    force: Annotated[str, typer.Option(help="Units, e.g. 'infantry=2,armoured_car=1,airship=1'.")],
    vs: Annotated[list[str], typer.Option(help="Old One(s) in the hex: 'shoggoth' or 'zombie,zombie' (repeatable).")],
    old_one_damage: Annotated[int, typer.Option(help="Damage already on the Old One(s).")] = 0,
    method: Annotated[Method, typer.Option(help="auto (exact if it fits --state-budget, else mc), exact, or mc.")] = Method.auto,
    state_budget: Annotated[int, typer.Option(help="States the exact method may use (~200 bytes each).")] = STATE_BUDGET,
    games: Annotated[int, typer.Option(help="Monte Carlo games.")] = 1_000_000,
    seed: Annotated[int, typer.Option(help="Monte Carlo root seed.")] = 0,
    withdraw: Annotated[str, typer.Option(help="never | optimal | value (card counting, exact only) | table | table-value (no card counting, any method) | sanity:N,units:N,lost:N")] = "never",
    allocate: Annotated[str, typer.Option(help="cheapest | spread | protect:UNIT[+UNIT] | optimal")] = "cheapest",
    seen: Annotated[str | None, typer.Option(help="Card numbers already in the discard pile, e.g. '3,17'.")] = None,
    personality: Annotated[list[str] | None, typer.Option(help="Proust, Krupp, Milligan, Jones (repeatable).")] = None,
    port_strength: Annotated[int, typer.Option(help="Revenge port defence: the port's strength (2 or 4).")] = 0,
    port_defence: Annotated[bool, typer.Option(help="Defending a port: everything fights, no withdrawal.")] = False,
    destroy_value: Annotated[float | None, typer.Option(help="Gold a kill is worth for --withdraw value (default: its VP).")] = None,
    jobs: Annotated[int, typer.Option(help="Worker processes for Monte Carlo (results do not depend on it).")] = 1,
    data: DataOption = None,
    json: JsonOption = False,
) -> None:
    """Odds of one combat: outcomes, P(destroy), expected losses and cards."""
    validate.check_combat(method=method.value, games=games, seed_=seed, jobs_=jobs, state_budget=state_budget,
                          old_one_damage=old_one_damage, port_strength=port_strength, port_defence=port_defence,
                          withdraw=withdraw, destroy_value=destroy_value)
    pack = data_pack(data)
    if games <= 0:
        raise UserError(f"--games must be positive, got {games}")
    if jobs <= 0:
        raise UserError(f"--jobs must be positive, got {jobs}")
    if port_strength < 0:
        raise UserError(f"--port-strength must be 0 (none) or positive, got {port_strength}")
    fight = Combat(force=parse_force(force), old_ones=parse_old_ones(vs),
                   old_one_damage=(old_one_damage,) if old_one_damage else (),
                   port_defence=port_defence, port_strength=port_strength,
                   personalities=tuple(personality_name(p) for p in (personality or [])))
    alloc = parse_allocation(allocate)
    wd = parse_withdrawal(withdraw, destroy_value)
    cards = parse_seen(seen)
    if state_budget <= 0:
        raise UserError(f"--state-budget must be positive, got {state_budget}")
    if method == Method.exact:
        odds = exact_odds(fight, pack, allocate=alloc, withdraw=wd, seen=cards, state_budget=state_budget)
    elif method == Method.auto and not (isinstance(wd, OptimalWithdrawal) or isinstance(alloc, OptimalAllocation)):
        odds = auto_odds(fight, pack, games=games, seed=seed, allocate=alloc, withdraw=wd, seen=cards,
                         jobs=jobs, state_budget=state_budget)
    elif method == Method.auto:  # optimal policies exist only in the exact method
        odds = exact_odds(fight, pack, allocate=alloc, withdraw=wd, seen=cards, state_budget=state_budget)
    else:
        odds = monte_carlo_odds(fight, pack, games=games, seed=seed, allocate=alloc, withdraw=wd,
                                seen=cards, jobs=jobs)
    if json:
        print_json(odds.to_json())
    else:
        _render(odds)


odds_app = typer.Typer(help="The odds table over unit mixes, and the cheapest mixes that reach a target.")
app.add_typer(odds_app, name="odds")


@odds_app.callback(invoke_without_command=True)
def odds_table_cmd(
    ctx: typer.Context,
    max_per_type: Annotated[int, typer.Option(help="Units per type: every mix 0..K of the five types.")] = 2,
    out: Annotated[Path | None, typer.Option(help="Parquet file to write.")] = None,
    vs: Annotated[list[str] | None, typer.Option(help="Only these Old One types (default: all six).")] = None,
    jobs: Annotated[int, typer.Option(help="Worker processes (results do not depend on it).")] = 1,
    seed: Annotated[int, typer.Option(help="Seed for Monte Carlo fall-back rows.")] = 0,
    data: DataOption = None,
) -> None:
    """Write the table (exact where it fits, Monte Carlo fall-back otherwise) to --out."""
    if ctx.invoked_subcommand is not None:
        return
    from simkit.odds import odds_table, table_bytes

    if out is None:
        raise UserError("--out FILE.parquet is required")
    validate.check_odds(out=out, seed_=seed, jobs_=jobs, max_per_type=max_per_type)
    if not 0 <= max_per_type <= 6:
        raise UserError(f"--max-per-type must be 0..6, got {max_per_type}")
    if jobs <= 0:
        raise UserError(f"--jobs must be positive, got {jobs}")
    pack = data_pack(data)
    kinds = sorted({old_one_id(t) for item in vs for t in item.split(",")}) if vs else None
    table = odds_table(pack, max_per_type, kinds, jobs=jobs, seed=seed)
    atomic_write_bytes(out, table_bytes(table, pack, seed))
    exact = (table["method"] == "exact").mean()
    typer.echo(f"wrote {out}: {len(table)} rows ({exact:.0%} exact), data {pack.hash}")


@odds_app.command("best")
def odds_best_cmd(
    vs: Annotated[str, typer.Option(help="The Old One type, e.g. shoggoth.")],
    min_p: Annotated[float, typer.Option(help="Minimum P(destroy).")] = 0.8,
    copies: Annotated[int, typer.Option(help="How many of that Old One share the hex (1 or 2).")] = 1,
    table: Annotated[Path | None, typer.Option(help="A table from `simkit odds --out` (else computed).")] = None,
    max_per_type: Annotated[int, typer.Option(help="Mix size when computing the table.")] = 2,
    top: Annotated[int, typer.Option(help="How many mixes to list.")] = 10,
    data: DataOption = None,
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
        if not table.is_file():
            raise UserError(f"--table {table}: no such file")
        frame, _ = read_table(table)
    else:
        frame = odds_table(data_pack(data), max_per_type, [kind])
    best = cheapest_mixes(frame, OLD_ONES[kind], copies, min_p, top)
    cols = [c for c in frame.columns if c.startswith("n_")] + ["gold_cost", "tp_cost", "p_destroy", "method"]
    if json:
        print_json(best[cols].to_dict(orient="records"))
        return
    if best.empty:
        typer.echo(f"no mix in the table reaches P(destroy) >= {min_p} vs {copies} x {OLD_ONES[kind]}")
        return
    out = Table(title=f"cheapest mixes with P(destroy) >= {min_p} vs {copies} x {OLD_ONES[kind]}")
    for c in cols:
        out.add_column(c.removeprefix("n_"), justify="right")
    for _, r in best[cols].iterrows():
        out.add_row(*[f"{v:.4f}" if isinstance(v, float) and c == "p_destroy" else str(v) for c, v in zip(cols, r, strict=True)])
    Console().print(out)
