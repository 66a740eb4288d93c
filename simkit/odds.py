"""The odds table: every unit mix (0..K per type) against every Old One type, x1 and x2.

Each row is solved exactly when the exact solver fits its state budget; larger
matchups fall back to Monte Carlo and say so (``method`` column, with a Wilson
interval). Rows are computed in a fixed order and are identical for any ``jobs``.
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
from simkit.combat import Combat, ExactTooLarge, exact_odds, monte_carlo_odds
from simkit.datapack import AuzData, provenance_shares
from simkit.errors import UserError
from simkit.names import ARMOURED_CAR, ARTILLERY, INFANTRY, NUM_STACKS, OLD_ONES, UNITS
from strategies.combat.withdrawal import Never, OptimalWithdrawal

TABLE_STATE_BUDGET = 3_000  # exact where small (a few ms), Monte Carlo beyond
FALLBACK_GAMES = 20_000
TP_UNITS = (INFANTRY, ARTILLERY, ARMOURED_CAR)  # attack TP = distinct types among these, min 1
LOST_BINS = 8  # p_lost_0 .. p_lost_7 (the last: 7 or more units lost)


def unit_mixes(max_per_type: int) -> list[tuple[int, ...]]:
    """Every non-empty force with 0..max_per_type of each of the five unit types."""
    return [m for m in itertools.product(range(max_per_type + 1), repeat=len(UNITS)) if any(m)]


def attack_tp(mix: tuple[int, ...]) -> int:
    return max(1, sum(1 for u in TP_UNITS if mix[u] > 0))


def _row(mix, old_one: int, copies: int, data: AuzData, seed: int, budget: int) -> dict:
    force = tuple(mix) + (0,) * (NUM_STACKS - len(mix))
    combat = Combat(force=force, old_ones=(old_one,) * copies)
    row = {f"n_{u}": mix[i] for i, u in enumerate(UNITS)}
    row.update(old_one=OLD_ONES[old_one], old_ones=copies,
               gold_cost=float(np.dot(mix, data.unit_cost[:len(UNITS)])), tp_cost=attack_tp(mix))
    try:
        never = exact_odds(combat, data, withdraw=Never(), state_budget=budget)
        value = exact_odds(combat, data, withdraw=OptimalWithdrawal("value"), state_budget=budget)
        row.update(method="exact", p_destroy=never.p_destroy, p_destroy_lo=never.p_destroy,
                   p_destroy_hi=never.p_destroy, states=never.states,
                   p_destroy_value_policy=value.p_destroy,
                   p_withdraw_value_policy=value.outcomes["withdraw"],
                   gold_lost_value_policy=value.expected_gold_lost)
    except ExactTooLarge:
        # per-row seed derived from the row's identity, so the row never depends on order or jobs
        row_seed = int(np.random.SeedSequence([seed, *mix, old_one, copies]).generate_state(1)[0])
        never = monte_carlo_odds(combat, data, games=FALLBACK_GAMES, seed=row_seed)
        lo, hi = never.ci95["p_destroy"]
        row.update(method="mc", p_destroy=never.p_destroy, p_destroy_lo=lo, p_destroy_hi=hi,
                   states=0, p_destroy_value_policy=np.nan, p_withdraw_value_policy=np.nan,
                   gold_lost_value_policy=np.nan)
    row.update(p_win=never.outcomes["win"], p_win_and_defeat=never.outcomes["win_and_defeat"],
               p_defeat=never.outcomes["defeat"], expected_cards=never.expected_cards,
               expected_units_lost=float(sum(never.expected_units_lost.values())),
               expected_gold_lost=never.expected_gold_lost)
    tail = sum(never.p_units_lost[LOST_BINS - 1:])
    for k in range(LOST_BINS):
        row[f"p_lost_{k}"] = float(never.p_units_lost[k]) if k < LOST_BINS - 1 else float(tail)
    return row


def _batch(tasks, data, seed, budget):
    return [_row(mix, t, k, data, seed, budget) for mix, t, k in tasks]


def odds_table(data: AuzData, max_per_type: int, old_ones: list[int] | None = None,
               jobs: int = 1, seed: int = 0, budget: int = TABLE_STATE_BUDGET) -> pd.DataFrame:
    """The full table as a DataFrame (one row per mix x Old One type x copies)."""
    kinds = old_ones if old_ones is not None else list(range(len(OLD_ONES)))
    tasks = [(mix, t, k) for t in kinds for k in (1, 2) for mix in unit_mixes(max_per_type)]
    if jobs == 1:
        rows = _batch(tasks, data, seed, budget)
    else:
        from joblib import Parallel, delayed
        batches = [tasks[i::jobs * 4] for i in range(jobs * 4)]
        parts = Parallel(n_jobs=jobs)(delayed(_batch)(b, data, seed, budget) for b in batches)
        order = {task[:3]: i for i, task in enumerate(tasks)}
        rows = sorted((r for part in parts for r in part),
                      key=lambda r: order[(tuple(r[f"n_{u}"] for u in UNITS), OLD_ONES.index(r["old_one"]), r["old_ones"])])
    frame = pd.DataFrame(rows)
    frame["old_one"] = frame["old_one"].astype("category")
    frame["method"] = frame["method"].astype("category")
    frame.attrs.update(engine_version=ENGINE_VERSION, data_hash=data.hash, max_per_type=max_per_type)
    return frame


def cheapest_mixes(table: pd.DataFrame, old_one: str, copies: int, min_p: float, top: int = 10) -> pd.DataFrame:
    """Mixes reaching P(destroy) >= min_p against the Old One(s), cheapest in Gold then TP."""
    rows = table[(table["old_one"] == old_one) & (table["old_ones"] == copies) & (table["p_destroy"] >= min_p)]
    return rows.sort_values(["gold_cost", "tp_cost", "p_destroy"], ascending=[True, True, False]).head(top)


META_KEY = b"simkit"


def table_bytes(table: pd.DataFrame, data: AuzData, seed: int = 0) -> bytes:
    """The table as Parquet (zstd) with its provenance in the file's metadata."""
    arrow = pa.Table.from_pandas(table, preserve_index=False)
    meta = {"kind": "odds_table", "engine_version": ENGINE_VERSION, "data_hash": data.hash,
            "data_pack": data.name, "provenance_shares": provenance_shares(data),
            "max_per_type": table.attrs.get("max_per_type"), "seed": seed,
            "created": dt.datetime.now(dt.UTC).isoformat(timespec="seconds")}
    arrow = arrow.replace_schema_metadata({**(arrow.schema.metadata or {}), META_KEY: json.dumps(meta).encode()})
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
