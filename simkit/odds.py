"""The odds table: every unit mix (0..K per type) against every Old One type, x1 and x2.

Every row carries P(destroy) and the loss distribution under two withdraw policies, so no
policy column is empty:

- **never withdraw** (``p_destroy``, ``p_lost_k``, ``expected_gold_lost`` ...);
- **the optimal withdraw table** (``*_table_policy``: the value-optimal table for a player
  who does not count cards, simkit.combat.table), which any method can play. Where the table
  never withdraws it *is* the never-withdraw policy, and the row says so
  (``table_same_as_never``) and reuses the same result (exact or the same fights).

Each is exact (``method`` / ``table_method`` = "exact") when the card-counting solver fits
its state budget, else Monte Carlo with a Wilson 95% interval (``*_lo``/``*_hi``) and the
games it took (``games`` / ``table_games``, each column its own count): a fixed ``games``
per row, or, with ``target_ci``, as many as each column needs for that 95% half-width, in
stages (:func:`stage_games`: FIRST_STAGE games, then the Wilson estimate of what is needed,
at most MAX_GROWTH x per stage, so near-certain rows stop after a stage or two; a column stops
only when its interval would be narrow enough at its least favourable end). While both
columns of a row need games they are played on the same cards in one pass
(simkit.combat.MonteCarloRunner.run_to_target: a fight is played once until the policies
part); each column is still an honest estimate of its own policy (the two are
correlated). Before trying exact, a cheap estimate of the reachable deck compositions
(:func:`exact_fits`) skips matchups that cannot fit, so the table does not pay for doomed
exact attempts.

The withdraw table of every row comes from one memo per matchup and process
(:func:`shared_tables`, simkit.combat.table.SharedTables): the states many forces share are
solved once, and each force gets the table it would solve alone.

The **card-counting optimum** (``*_value_policy``: maximise VP-as-Gold x P(destroy) minus
Gold lost, counting every card) exists only in the exact solver: those columns are NaN on
rows that are not exact, and say so (``value_policy_method``).

Rows are computed in a fixed order, each Monte Carlo row from a seed derived from the row's
identity, so the table is identical for any ``jobs``.
"""

from __future__ import annotations

import datetime as dt
import io
import itertools
import json
from pathlib import Path

import numpy as np
import pandas as pd
import pyarrow as pa
import pyarrow.parquet as pq

from simkit import ENGINE_VERSION
from simkit.combat import (
    Combat,
    CombatOdds,
    ExactTooLarge,
    MonteCarloRunner,
    exact_odds,
    monte_carlo_odds,
)
from simkit.core.stats import Z95, wilson_interval
from simkit.datapack import AuzData, provenance_shares
from simkit.errors import UserError
from simkit.names import ARMOURED_CAR, ARTILLERY, INFANTRY, NUM_STACKS, OLD_ONES, UNITS
from strategies.combat.withdrawal import Never, OptimalTable, OptimalWithdrawal

TABLE_STATE_BUDGET = 3_000  # exact where small (a few ms), Monte Carlo beyond
FALLBACK_GAMES = 20_000  # Monte Carlo games per row without a precision target
FIRST_STAGE = 512  # with a target: games before the first precision estimate
MAX_GROWTH = 4  # with a target: a stage at most brings a column to this many times its games
STAGE_MARGIN = 1.02  # with a target: a stage aims this much past the games estimated to reach it
MAX_ROW_GAMES = 400_000  # with a target: at most this many games per row and policy
SHARED_MEMOS = 2  # withdraw-table memos (one per matchup) a process keeps
COMPOSITION_FACTOR = 20  # try exact only if the estimated compositions <= factor x budget
TP_UNITS = (INFANTRY, ARTILLERY, ARMOURED_CAR)  # attack TP = distinct types among these, min 1
LOST_BINS = 8  # p_lost_0 .. p_lost_7 (the last: 7 or more units lost)


def unit_mixes(max_per_type: int) -> list[tuple[int, ...]]:
    """Every non-empty force with 0..max_per_type of each of the five unit types."""
    return [m for m in itertools.product(range(max_per_type + 1), repeat=len(UNITS)) if any(m)]


def attack_tp(mix: tuple[int, ...]) -> int:
    return max(1, sum(1 for u in TP_UNITS if mix[u] > 0))


def exact_fits(
    combat: Combat,
    data: AuzData,
    expected_cards: float,
    budget: int,
    factor: int = COMPOSITION_FACTOR,
) -> tuple[bool, float]:
    """A cheap screen before the card-counting solver: the number of deck compositions
    reachable within ``2 x expected_cards + 1`` draws (cards grouped by what they do in this
    fight). The solver's state count grows with it (measured on the K=3 table's matchups:
    it is a rough, not a strict, bound), so a matchup whose estimate passes ``factor`` x
    ``budget`` is not tried. Returns (try exact?, estimate)."""
    from simkit.combat import cards_fingerprint, estimated_compositions

    draws = int(2 * expected_cards) + 1
    present = tuple(n > 0 for n in combat.force)  # the card classes depend on these alone
    key = (cards_fingerprint(data), present, combat.old_ones, draws)
    if combat.port_strength:  # the port token fights as Infantry: not in combat.force
        key = None
    estimate = _ESTIMATES.get(key) if key is not None else None
    if estimate is None:
        estimate = estimated_compositions(combat, data, expected_cards)
        if key is not None:
            _ESTIMATES[key] = estimate
    return estimate <= factor * budget, estimate


_ESTIMATES: dict = {}  # exact_fits: estimates by (cards, unit types present, Old Ones, draws)


def _merge(parts: list[CombatOdds]) -> CombatOdds:
    """Monte Carlo results of one matchup and policy from independent seeds, as one result."""
    if len(parts) == 1:
        return parts[0]
    n = np.array([p.games for p in parts], dtype=np.float64)
    total = int(n.sum())
    w = n / n.sum()
    first = parts[0]

    def avg(get):
        return float(sum(wi * get(p) for wi, p in zip(w, parts, strict=True)))

    outcomes = {k: avg(lambda p, k=k: p.outcomes[k]) for k in first.outcomes}
    counts = {k: round(v * total) for k, v in outcomes.items()}
    ci = {k: list(wilson_interval(c, total)) for k, c in counts.items()}
    ci["p_destroy"] = list(wilson_interval(counts["win"] + counts["win_and_defeat"], total))
    return CombatOdds(
        method="mc",
        combat=first.combat,
        outcomes=outcomes,
        expected_units_lost={
            k: avg(lambda p, k=k: p.expected_units_lost[k]) for k in first.expected_units_lost
        },
        expected_cards=avg(lambda p: p.expected_cards),
        expected_gold_lost=avg(lambda p: p.expected_gold_lost),
        p_units_lost=[
            avg(lambda p, i=i: p.p_units_lost[i]) for i in range(len(first.p_units_lost))
        ],
        p_port_flip=None,
        allocate=first.allocate,
        withdraw=first.withdraw,
        seed=first.seed,
        data_hash=first.data_hash,
        games=total,
        ci95=ci,
        extra=dict(first.extra),
    )


def _half_width(odds: CombatOdds) -> float:
    lo, hi = odds.ci95["p_destroy"]
    return (hi - lo) / 2


def stage_settings(target_ci: float, max_games: int = MAX_ROW_GAMES) -> np.ndarray:
    """The stage rule as the kernels read it (simkit.kernels.combat_paired.stage_more)."""
    from simkit.kernels.combat_paired import (
        S_FIRST,
        S_GROWTH,
        S_MARGIN,
        S_MAX,
        S_SIZE,
        S_TARGET,
        S_Z,
    )

    stage = np.zeros(S_SIZE)
    stage[S_TARGET] = target_ci
    stage[S_Z] = Z95
    stage[S_FIRST] = FIRST_STAGE
    stage[S_GROWTH] = MAX_GROWTH
    stage[S_MARGIN] = STAGE_MARGIN
    stage[S_MAX] = max_games
    return stage


def stage_games(
    games: int, destroyed: int, target_ci: float, max_games: int = MAX_ROW_GAMES
) -> int:
    """Games the next stage adds to a column that has ``destroyed`` kills in ``games``
    fights (0: its P(destroy) Wilson 95% half-width is at most ``target_ci``, also at the
    end of its interval nearer 1/2, or it has ``max_games``): FIRST_STAGE to start, then the
    games the Wilson interval at the observed proportion needs (STAGE_MARGIN past them, at
    least 1/16 more), at most MAX_GROWTH x the games so far (an estimate from few games is
    rough: easy rows stop early, hard ones re-estimate). The rule itself:
    simkit.kernels.combat_paired.stage_more, which the row kernel applies too."""
    from simkit.kernels.combat_paired import stage_more

    return int(stage_more(destroyed, games, stage_settings(target_ci, max_games)))


def _stage_seed(*key: int) -> int:
    return int(np.random.SeedSequence(list(key)).generate_state(1)[0])


def monte_carlo_row(
    combat: Combat,
    data: AuzData,
    withdraw,
    seed: int,
    games: int,
    target_ci: float | None,
    max_games: int = MAX_ROW_GAMES,
    first: CombatOdds | None = None,
    solved=None,
) -> CombatOdds:
    """Monte Carlo odds of one row and policy: ``games`` fights, or with ``target_ci`` as
    many as needed (in stages from independent seeds, :func:`stage_games`) until
    P(destroy)'s Wilson 95% half-width is at most ``target_ci`` (or ``max_games`` is
    reached)."""
    if solved is None and isinstance(withdraw, OptimalTable):  # solve it once for every stage
        from simkit.combat import combat_arrays, withdraw_table_for
        from strategies.combat.allocation import Cheapest

        st0, mx, cost = combat_arrays(combat, data)
        solved = withdraw_table_for(combat, data, Cheapest(), withdraw, st0, mx, cost)

    def run(n: int, s: int) -> CombatOdds:
        return monte_carlo_odds(
            combat, data, games=n, seed=s, withdraw=withdraw, solved_table=solved
        )

    if target_ci is None:
        return first if first is not None and first.games == games else run(games, seed)
    parts = [first if first is not None else run(FIRST_STAGE, seed)]
    while True:
        odds = _merge(parts)
        n = odds.games
        more = stage_games(n, round(odds.p_destroy * n), target_ci, max_games)
        if not more:
            return odds
        parts.append(run(more, _stage_seed(seed, len(parts))))


_MEMOS: dict = {}  # SharedTables by matchup, the most recently used last


def shared_tables(combat: Combat, data: AuzData, arrays=None):
    """This process's withdraw-table memo of the combat's matchup (simkit.combat.table.
    SharedTables: the value-optimal table, cheapest-first allocation); at most SHARED_MEMOS
    are kept. A memo's tables are a function of the matchup alone, so which process solved
    what never changes a row. ``arrays``: the combat's combat_arrays, if at hand."""
    from simkit.combat import cards_fingerprint, combat_arrays
    from simkit.combat.table import SharedTables
    from strategies.combat.allocation import Cheapest

    _, mx, cost = combat_arrays(combat, data) if arrays is None else arrays
    destroy_value = float(sum(data.old_one_vp[t] for t in combat.old_ones))
    key = (cards_fingerprint(data), mx.tobytes(), cost.tobytes(), destroy_value)
    memo = _MEMOS.pop(key, None)
    if memo is None:
        memo = SharedTables(mx, cost, data, Cheapest(), OptimalTable("value"), destroy_value)
        while len(_MEMOS) >= SHARED_MEMOS:
            _MEMOS.pop(next(iter(_MEMOS)))
    _MEMOS[key] = memo
    return memo


def solve_table_policy(combat: Combat, data: AuzData):
    """The value-optimal withdraw table of this matchup (cheapest-first allocation)."""
    from simkit.combat import combat_arrays, withdraw_table_for
    from strategies.combat.allocation import Cheapest

    st0, mx, cost = combat_arrays(combat, data)
    return withdraw_table_for(combat, data, Cheapest(), OptimalTable("value"), st0, mx, cost)


def shared_table_policy(combat: Combat, data: AuzData):
    """:func:`solve_table_policy` from the matchup's shared memo: (the table, whether it
    withdraws in any state it explores, as :func:`withdraws` says of a table solved alone)."""
    from simkit.combat import combat_arrays

    arrays = combat_arrays(combat, data)
    return shared_tables(combat, data, arrays).solve(arrays[0], arrays[1])


def withdraws(solved) -> bool:
    """Whether a withdraw table solved alone withdraws in any of its states (a shared
    table: see :func:`shared_table_policy`)."""
    from simkit.kernels.low import combat_layout as C

    if solved.shared:
        raise ValueError("a shared table's states are many forces': use shared_table_policy")
    return bool(np.count_nonzero(solved.decisions > C.STAY))


def _policy_columns(prefix: str, odds: CombatOdds) -> dict:
    lo, hi = odds.ci95["p_destroy"] if odds.ci95 else (odds.p_destroy, odds.p_destroy)
    return {
        f"p_destroy_{prefix}": odds.p_destroy,
        f"p_destroy_{prefix}_lo": lo,
        f"p_destroy_{prefix}_hi": hi,
        f"p_withdraw_{prefix}": odds.outcomes["withdraw"],
        f"p_stalemate_{prefix}": odds.outcomes["stalemate"],
        f"gold_lost_{prefix}": odds.expected_gold_lost,
        f"units_lost_{prefix}": float(sum(odds.expected_units_lost.values())),
    }


def _exact(combat: Combat, data: AuzData, withdraw, budget: int, solved=None) -> CombatOdds:
    """exact_odds, after a count of the states it would need (exact_needs_more: the same
    nodes, no values, a fraction of the price of an attempt that fails): ExactTooLarge
    without the attempt when they are more than ``budget``."""
    from simkit.combat import exact_needs_more

    if exact_needs_more(combat, data, withdraw, budget, solved_table=solved):
        raise ExactTooLarge(f"the exact method needs more than {budget:,} states")
    return exact_odds(combat, data, withdraw=withdraw, state_budget=budget, solved_table=solved)


def _row(
    mix,
    old_one: int,
    copies: int,
    data: AuzData,
    seed: int,
    budget: int,
    games: int,
    target_ci: float | None,
) -> dict:
    force = tuple(mix) + (0,) * (NUM_STACKS - len(mix))
    combat = Combat(force=force, old_ones=(old_one,) * copies)
    row = {f"n_{u}": mix[i] for i, u in enumerate(UNITS)}
    destroy_value = float(data.old_one_vp[old_one]) * copies
    row.update(
        old_one=OLD_ONES[old_one],
        old_ones=copies,
        gold_cost=float(np.dot(mix, data.unit_cost[: len(UNITS)])),
        tp_cost=attack_tp(mix),
        destroy_value=destroy_value,
    )
    # per-row seed derived from the row's identity, so the row never depends on order or jobs
    row_seed = int(np.random.SeedSequence([seed, *mix, old_one, copies]).generate_state(1)[0])
    table_seed = int(np.random.SeedSequence([seed, *mix, old_one, copies, 1]).generate_state(1)[0])
    runner = MonteCarloRunner(combat, data)
    if target_ci is None:
        probe = monte_carlo_odds(combat, data, games=games, seed=row_seed)
        expected_cards = probe.expected_cards
    else:  # the first stage of the never-withdraw column
        probe = runner.run(FIRST_STAGE, row_seed)
        expected_cards = probe.cards[0] / probe.games
    fits, estimate = exact_fits(combat, data, expected_cards, budget)
    row["exact_estimate"] = float(estimate)
    never = table = value = solved = None
    same = False
    if fits:
        try:
            never = _exact(combat, data, Never(), budget)
            solved, withdrawing = shared_table_policy(combat, data)
            same = not withdrawing
            if same:  # the table never withdraws: it is the never-withdraw policy
                table = never
            else:
                table = _exact(combat, data, OptimalTable("value"), budget, solved)
            value = _exact(combat, data, OptimalWithdrawal("value"), budget)
        except ExactTooLarge:
            pass
    if table is None:
        if solved is None:
            solved, withdrawing = shared_table_policy(combat, data)
            same = not withdrawing  # then it is the never-withdraw policy: the same fights
        runner.use_table(solved)
    if target_ci is not None and (never is None or (table is None and not same)):
        # every stage of both columns in one call: shared cards while both need more games
        never_t, table_t = runner.run_to_target(
            row_seed,
            stage_settings(target_ci),
            Never() if never is None else None,
            OptimalTable("value") if table is None and not same else None,
            first_a=probe if never is None else None,
        )
        if never_t is not None:
            never = runner.odds(never_t, Never(), row_seed)
        if table_t is not None:
            table = runner.odds(table_t, OptimalTable("value"), row_seed)
    if never is None:
        never = monte_carlo_row(combat, data, Never(), row_seed, games, target_ci, first=probe)
    if same:
        table = never
    elif table is None:
        table = monte_carlo_row(
            combat, data, OptimalTable("value"), table_seed, games, target_ci, solved=solved
        )
    row["table_same_as_never"] = bool(same)
    lo, hi = never.ci95["p_destroy"] if never.method == "mc" else (never.p_destroy, never.p_destroy)
    row.update(
        method=never.method,
        games=int(never.games or 0),
        p_destroy=never.p_destroy,
        p_destroy_lo=lo,
        p_destroy_hi=hi,
        states=int(never.states or 0),
    )
    row.update(
        table_method=table.method,
        table_games=int(table.games or 0),
        **_policy_columns("table_policy", table),
    )
    if value is not None:
        row.update(
            value_policy_method="exact",
            p_destroy_value_policy=value.p_destroy,
            p_withdraw_value_policy=value.outcomes["withdraw"],
            gold_lost_value_policy=value.expected_gold_lost,
        )
    else:
        row.update(
            value_policy_method="none (card counting is exact-only)",
            p_destroy_value_policy=np.nan,
            p_withdraw_value_policy=np.nan,
            gold_lost_value_policy=np.nan,
        )
    row.update(
        p_win=never.outcomes["win"],
        p_win_and_defeat=never.outcomes["win_and_defeat"],
        p_defeat=never.outcomes["defeat"],
        p_stalemate=never.outcomes["stalemate"],
        expected_cards=never.expected_cards,
        expected_units_lost=float(sum(never.expected_units_lost.values())),
        expected_gold_lost=never.expected_gold_lost,
    )
    tail = sum(never.p_units_lost[LOST_BINS - 1 :])
    for k in range(LOST_BINS):
        row[f"p_lost_{k}"] = float(never.p_units_lost[k]) if k < LOST_BINS - 1 else float(tail)
    return row


def _batch(tasks, data, seed, budget, games, target_ci):
    """Rows of some tasks, and the CPU seconds this process spent on them."""
    import time

    start = time.process_time()
    rows = [_row(mix, t, k, data, seed, budget, games, target_ci) for mix, t, k in tasks]
    return rows, time.process_time() - start


def odds_table(
    data: AuzData,
    max_per_type: int,
    old_ones: list[int] | None = None,
    jobs: int = 1,
    seed: int = 0,
    budget: int = TABLE_STATE_BUDGET,
    games: int = FALLBACK_GAMES,
    target_ci: float | None = None,
    progress: bool = False,
) -> pd.DataFrame:
    """The full table as a DataFrame (one row per mix x Old One type x copies)."""
    if games <= 0:
        raise UserError(f"--games must be positive, got {games}")
    if target_ci is not None and not 0 < target_ci < 0.5:
        raise UserError(f"--target-ci must be between 0 and 0.5, got {target_ci}")
    kinds = old_ones if old_ones is not None else list(range(len(OLD_ONES)))
    tasks = [(mix, t, k) for t in kinds for k in (1, 2) for mix in unit_mixes(max_per_type)]
    from simkit.runner.progress import Progress

    # contiguous batches: a batch's rows share one or two matchups, so a process's
    # withdraw-table memos (shared_tables) serve many rows each
    n_batches = max(1, min(len(tasks), jobs * 32))
    bounds = np.linspace(0, len(tasks), n_batches + 1).round().astype(int)
    batches = [tasks[a:b] for a, b in zip(bounds[:-1], bounds[1:], strict=True) if b > a]
    with Progress(progress, "odds table", unit="odds rows") as bar:
        bar.add_total(len(tasks))
        if jobs == 1:
            parts = []
            for b in batches:
                parts.append(_batch(b, data, seed, budget, games, target_ci))
                bar.advance(len(b))
        else:
            from joblib import Parallel, delayed

            from simkit.core.watch import watched

            parts = []
            for part in Parallel(n_jobs=jobs, return_as="generator")(
                delayed(watched(_batch))(b, data, seed, budget, games, target_ci) for b in batches
            ):
                parts.append(part)
                bar.advance(len(part[0]))
    if jobs == 1:
        _MEMOS.clear()  # (worker processes drop theirs when they end)
    cpu_seconds = sum(cpu for _, cpu in parts)
    order = {task[:3]: i for i, task in enumerate(tasks)}
    rows = sorted(
        (r for part, _ in parts for r in part),
        key=lambda r: order[
            (tuple(r[f"n_{u}"] for u in UNITS), OLD_ONES.index(r["old_one"]), r["old_ones"])
        ],
    )
    frame = pd.DataFrame(rows)
    for col in ("old_one", "method", "table_method", "value_policy_method"):
        frame[col] = frame[col].astype("category")
    frame.attrs.update(
        engine_version=ENGINE_VERSION,
        data_hash=data.hash,
        max_per_type=max_per_type,
        games=games,
        target_ci=target_ci,
        cpu_seconds=cpu_seconds,
    )
    return frame


def force_rows(
    data: AuzData,
    mixes: list[tuple[int, ...]],
    old_ones: list[int],
    copies: tuple[int, ...] = (1, 2),
    seed: int = 0,
    budget: int = TABLE_STATE_BUDGET,
    games: int = FALLBACK_GAMES,
    target_ci: float | None = None,
) -> pd.DataFrame:
    """Rows of the odds table for chosen forces (a user's own, any size): the same columns,
    methods and per-row seeds as :func:`odds_table`, so a row equals the table's row of the
    same mix. ``mixes`` are counts per unit type in UNITS order."""
    for mix in mixes:
        if len(mix) != len(UNITS) or not any(mix) or min(mix) < 0:
            raise UserError(f"a force is one count per unit type ({', '.join(UNITS)}), got {mix}")
    rows = [
        _row(tuple(int(n) for n in mix), t, k, data, seed, budget, games, target_ci)
        for mix in mixes
        for t in old_ones
        for k in copies
    ]
    _MEMOS.clear()
    frame = pd.DataFrame(rows)
    for col in ("old_one", "method", "table_method", "value_policy_method"):
        if col in frame:
            frame[col] = frame[col].astype("category")
    return frame


def cheapest_mixes(
    table: pd.DataFrame, old_one: str, copies: int, min_p: float, top: int = 10
) -> pd.DataFrame:
    """Mixes reaching P(destroy) >= min_p against the Old One(s), cheapest in Gold then TP."""
    rows = table[
        (table["old_one"] == old_one)
        & (table["old_ones"] == copies)
        & (table["p_destroy"] >= min_p)
    ]
    return rows.sort_values(
        ["gold_cost", "tp_cost", "p_destroy"], ascending=[True, True, False]
    ).head(top)


META_KEY = b"simkit"


def table_bytes(table: pd.DataFrame, data: AuzData, seed: int = 0) -> bytes:
    """The table as Parquet (zstd) with its provenance in the file's metadata."""
    arrow = pa.Table.from_pandas(table, preserve_index=False)
    meta = {
        "kind": "odds_table",
        "engine_version": ENGINE_VERSION,
        "data_hash": data.hash,
        "data_pack": data.name,
        "provenance_shares": provenance_shares(data),
        "max_per_type": table.attrs.get("max_per_type"),
        "seed": seed,
        "games": table.attrs.get("games"),
        "target_ci": table.attrs.get("target_ci"),
        "created": dt.datetime.now(dt.UTC).isoformat(timespec="seconds"),
    }
    arrow = arrow.replace_schema_metadata(
        {**(arrow.schema.metadata or {}), META_KEY: json.dumps(meta).encode()}
    )
    buf = io.BytesIO()
    pq.write_table(arrow, buf, compression="zstd")
    return buf.getvalue()


def read_table(path: Path) -> tuple[pd.DataFrame, dict]:
    """An odds table and its provenance; a foreign or corrupt file is a UserError."""
    try:
        arrow = pq.read_table(path)
    except Exception as exc:  # pyarrow raises several error types for a bad file
        raise UserError(f"{path}: not a readable Parquet file ({exc.__class__.__name__})") from None
    meta = json.loads((arrow.schema.metadata or {}).get(META_KEY, b"{}"))
    if meta.get("kind") != "odds_table":
        raise UserError(f"{path}: not an odds table written by simkit")
    return arrow.to_pandas(), meta
