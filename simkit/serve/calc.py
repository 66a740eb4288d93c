"""The odds calculator's queries: parse and bound the URL's parameters, answer from the warm
engine (simkit.combat), and describe the answer in a player's words.

A query is the page's URL state: ``f`` (a force: counts per unit type in UNIT order,
``2.0.1.0.0`` = 2 Infantry and 1 Artillery), ``vs`` (``shoggoth``, ``zombie.zombie``),
``w`` (withdraw objective), ``seen`` (card numbers, ``3.17``). Every mistake raises
QueryError with a message for the page (the server answers 400); nothing here runs long:
the exact solver gets SERVE_STATE_BUDGET states (a few hundred ms) before Monte Carlo
answers instead, with at most MAX_GAMES fights.
"""

from __future__ import annotations

import re
import threading
import time
from collections import OrderedDict
from dataclasses import dataclass
from typing import Any

from simkit.combat import (
    Combat,
    ExactTooLarge,
    combat_arrays,
    estimated_compositions,
    exact_odds,
    monte_carlo_odds,
    policies,
    withdraw_table_for,
)
from simkit.combat.faces import face
from simkit.combat.rules import withdraw_rule
from simkit.core.seen import remaining_cards
from simkit.datapack import AuzData
from simkit.errors import UserError
from simkit.kernels.low import combat_layout as C
from simkit.names import OLD_ONES, OUTCOME_TEXT, UNITS, old_one_id
from simkit.odds import attack_tp

SERVE_STATE_BUDGET = 150_000  # exact-solver states per query (~0.5 s at most), else Monte Carlo
DEFAULT_GAMES = 100_000  # Monte Carlo fights when exact does not fit (95% half-width <= 0.0031)
SKIP_FACTOR = 3  # skip exact when the estimated deck compositions pass this x the budget
MAX_GAMES = 1_000_000
MIN_GAMES = 1_000
LOSS_GAMES = 20_000  # Monte Carlo fights behind P(k lost) per unit type
MAX_OLD_ONES = 2  # Old One tiles in one hex the page offers (zombie.zombie)
MAX_FORCES = 4
MAX_QUERY_CHARS = 400
CACHE_SIZE = 256  # answers kept (back button, compare columns)

WITHDRAW = {
    "never": ("never", "never withdraw"),
    "table": ("table", "withdraw when it raises P(destroy) (no card counting)"),
    "table-value": (
        "table-value",
        "withdraw when it pays: Old One VP as Gold x P(destroy) minus Gold lost (no card counting)",
    ),
}

OUTCOMES = OUTCOME_TEXT  # plain name and meaning of each outcome (simkit.names)


class QueryError(UserError):
    """Malformed or out-of-bounds query: the page shows the message, the server answers 400."""


@dataclass(frozen=True)
class Query:
    force: tuple[int, ...]  # per UNITS type
    vs: tuple[int, ...]
    withdraw: str
    seen: tuple[int, ...]
    games: int

    def combat(self) -> Combat:
        return Combat(force=self.force + (0, 0), old_ones=self.vs)


def _split(text: str) -> list[str]:
    return [t for t in re.split(r"[.,\s]+", text.strip()) if t]


def parse_force(text: str, data: AuzData) -> tuple[int, ...]:
    """'2.0.1.0.0' -> (2, 0, 1, 0, 0); at most the box's units of each type."""
    parts = _split(text)
    if len(parts) != len(UNITS) or not all(p.isdigit() for p in parts):
        raise QueryError(
            f"force '{text[:40]}' must be {len(UNITS)} whole numbers separated by dots, one per "
            f"unit type ({', '.join(UNITS)}), e.g. 2.0.1.0.0"
        )
    counts = tuple(int(p) for p in parts)
    for unit, n, box in zip(UNITS, counts, data.unit_box_count, strict=False):
        if n > int(box):
            raise QueryError(f"at most {int(box)} {unit} (the box holds {int(box)}), got {n}")
    if not any(counts):
        raise QueryError("the force is empty: add at least one unit with +")
    return counts


def parse_vs(text: str) -> tuple[int, ...]:
    parts = _split(text)
    if not parts:
        raise QueryError("pick an Old One (or the Temple) to fight")
    if len(parts) > MAX_OLD_ONES:
        raise QueryError(f"at most {MAX_OLD_ONES} Old Ones in one hex here, got {len(parts)}")
    try:
        return tuple(old_one_id(p) for p in parts)
    except UserError as exc:
        raise QueryError(str(exc)) from None


def parse_seen(text: str, data: AuzData) -> tuple[int, ...]:
    parts = _split(text)
    if not all(p.isdigit() and len(p) <= 4 for p in parts):
        raise QueryError("seen cards must be card numbers separated by dots, e.g. 3.17.22")
    seen = tuple(int(p) for p in parts)
    if len(seen) >= data.card_ids.size:
        raise QueryError(f"at most {data.card_ids.size - 1} seen cards (a card must be left)")
    try:
        remaining_cards(data.card_ids, seen)
    except UserError as exc:
        raise QueryError(str(exc).replace("--seen", "seen")) from None
    return seen


def parse_query(params, data: AuzData, force_key: str = "f") -> Query:
    """A Query from URL parameters (a mapping of str -> str); QueryError on any mistake."""
    for key, value in params.items():
        if len(value) > MAX_QUERY_CHARS:
            raise QueryError(f"parameter '{key}' is too long ({len(value)} characters)")
    if force_key not in params:
        raise QueryError("no force given (parameter f, e.g. f=2.0.1.0.0)")
    withdraw = params.get("w", "never")
    if withdraw not in WITHDRAW:
        raise QueryError(
            f"withdraw objective '{withdraw[:40]}' is not one of: {', '.join(WITHDRAW)}"
        )
    games_text = params.get("games", str(DEFAULT_GAMES))
    if not games_text.isdigit() or not MIN_GAMES <= int(games_text) <= MAX_GAMES:
        raise QueryError(f"games must be a whole number {MIN_GAMES:,}..{MAX_GAMES:,}")
    return Query(
        force=parse_force(params[force_key], data),
        vs=parse_vs(params.get("vs", "shoggoth")),
        withdraw=withdraw,
        seen=parse_seen(params.get("seen", ""), data),
        games=int(games_text),
    )


def force_label(force: tuple[int, ...]) -> str:
    return ", ".join(f"{n} {u.replace('_', ' ')}" for u, n in zip(UNITS, force, strict=True) if n)


def costs(force: tuple[int, ...], data: AuzData) -> dict[str, float]:
    gold = float(sum(n * float(c) for n, c in zip(force, data.unit_cost, strict=False)))
    return {"gold": gold, "tp": attack_tp(force)}


def _interval(odds, key: str, p: float) -> list[float]:
    if odds.ci95 and key in odds.ci95:
        return [float(x) for x in odds.ci95[key]]
    return [p, p]


class Calculator:
    """The warm engine behind the page: one data pack, a lock (one query computes at a
    time, so two cores shared with others are not swamped) and a small answer cache."""

    def __init__(self, data: AuzData):
        self.data = data
        self.lock = threading.Lock()
        self.cache: OrderedDict[Query, dict] = OrderedDict()

    def warm(self) -> float:
        """Compile every kernel a query uses (exact, Monte Carlo, withdraw table, losses)."""
        start = time.perf_counter()
        for force, w in (((1, 0, 0, 0, 1), "table-value"), ((2, 0, 0, 0, 0), "never")):
            q = Query(force=force, vs=(1,), withdraw=w, seen=(3,), games=MIN_GAMES)
            self._compute(q)
            self._compute(Query(force, (3,), w, (), MIN_GAMES), budget=10)  # falls back to mc
        return time.perf_counter() - start

    def answer(self, q: Query, wait: float = 30.0) -> dict[str, Any]:
        if q in self.cache:
            self.cache.move_to_end(q)
            return dict(self.cache[q], cached=True)
        if not self.lock.acquire(timeout=wait):
            raise TimeoutError("the calculator is busy with other queries; try again")
        try:
            found = self._compute(q)
        finally:
            self.lock.release()
        self.cache[q] = found
        if len(self.cache) > CACHE_SIZE:
            self.cache.popitem(last=False)
        return dict(found, cached=False)

    def _compute(self, q: Query, budget: int = SERVE_STATE_BUDGET) -> dict[str, Any]:
        start = time.perf_counter()
        data = self.data
        fight = q.combat()
        allocate, withdraw = policies(None, WITHDRAW[q.withdraw][0])
        st0, mx, cost = combat_arrays(fight, data)
        solved = withdraw_table_for(fight, data, allocate, withdraw, st0, mx, cost, q.seen)
        note = ""
        probe = monte_carlo_odds(
            fight, data, games=4_096, seed=0, allocate=allocate, withdraw=withdraw, seen=q.seen
        )
        estimate = estimated_compositions(fight, data, probe.expected_cards, q.seen)
        try:
            if estimate > SKIP_FACTOR * budget:
                raise ExactTooLarge(
                    f"the exact solver would need about {estimate:,} deck compositions, more "
                    f"than this page's budget of {budget:,} states"
                )
            odds = exact_odds(
                fight,
                data,
                allocate=allocate,
                withdraw=withdraw,
                seen=q.seen,
                state_budget=budget,
                solved_table=solved,
            )
            method = "exact"
            plural = "" if odds.states == 1 else "s"
            note = f"exact ({odds.states:,} state{plural} of the card-counting solver)"
        except UserError as exc:  # ExactTooLarge, or a deck too varied for the exact solver
            reason = str(exc).split("; use --method mc")[0]
            odds = monte_carlo_odds(
                fight,
                data,
                games=q.games,
                seed=0,
                allocate=allocate,
                withdraw=withdraw,
                seen=q.seen,
            )
            method = "mc"
            if isinstance(exc, ExactTooLarge) and "about" not in reason:
                reason = f"the exact solver would need more than {budget:,} states"
            note = f"Monte Carlo, {q.games:,} fights, seed 0: {reason}"
        headline_ms = (time.perf_counter() - start) * 1000
        p = odds.p_destroy
        outcomes = [
            {
                "key": key,
                "name": OUTCOMES[key][0],
                "explain": OUTCOMES[key][1],
                "p": float(odds.outcomes[key]),
                "ci95": _interval(odds, key, float(odds.outcomes[key])),
            }
            for key in C.OUTCOME_NAMES
        ]
        from simkit.combat.losses import fight_params, loss_distribution

        losses = loss_distribution(
            fight_params(  # every other combat parameter at its default, as the CLI does
                ",".join(f"{u}={n}" for u, n in zip(UNITS, q.force, strict=True) if n),
                ",".join(OLD_ONES[t] for t in q.vs),
                allocate="cheapest",
                withdraw=WITHDRAW[q.withdraw][0],
                seen=",".join(map(str, q.seen)),
            ),
            data,
            games=LOSS_GAMES,
            seed=0,
        )
        rule = withdraw_rule(solved, fight) if solved is not None else None
        return {
            "force": {u: n for u, n in zip(UNITS, q.force, strict=True) if n},
            "label": force_label(q.force),
            **costs(q.force, data),
            "vs": [OLD_ONES[t] for t in q.vs],
            "withdraw": q.withdraw,
            "withdraw_means": WITHDRAW[q.withdraw][1],
            "seen": list(q.seen),
            "method": method,
            "method_note": note,
            "p_destroy": p,
            "p_destroy_ci95": _interval(odds, "p_destroy", p),
            "outcomes": outcomes,
            "expected_gold_lost": float(odds.expected_gold_lost),
            "expected_cards": float(odds.expected_cards),
            "losses": {
                "games": losses.games,
                "per_type": {
                    unit: [
                        {"lost": r["lost"], "p": r["p"], "ci95": [r["ci_low"], r["ci_high"]]}
                        for r in rows
                    ]
                    for unit, rows in losses.per_type.items()
                },
            },
            "rule": rule,
            "data_hash": data.hash,
            "headline_ms": round(headline_ms, 1),
            "ms": round((time.perf_counter() - start) * 1000, 1),
        }


def page_config(data: AuzData) -> dict[str, Any]:
    """What the page needs to build forces and seen cards without asking the server."""
    return {
        "units": [
            {
                "name": u,
                "label": u.replace("_", " "),
                "gold": float(data.unit_cost[i]),
                "max": int(data.unit_box_count[i]),
            }
            for i, u in enumerate(UNITS)
        ],
        "tp_units": ["infantry", "armoured_car", "artillery"],
        "old_ones": [
            {
                "name": o,
                "label": o.replace("_", "-").title().replace("Mi-Go", "Mi-Go"),
                "vp": int(data.old_one_vp[i]),
            }
            for i, o in enumerate(OLD_ONES)
        ],
        "cards": [
            {
                "card": int(data.card_ids[i]),
                "faces": {OLD_ONES[t]: face(data, i, t) for t in range(len(OLD_ONES))},
            }
            for i in range(data.card_ids.size)
        ],
        "withdraw": {k: v[1] for k, v in WITHDRAW.items()},
        "outcomes": {k: {"name": v[0], "explain": v[1]} for k, v in OUTCOMES.items()},
        "max_forces": MAX_FORCES,
        "max_old_ones": MAX_OLD_ONES,
        "data_hash": data.hash,
    }
