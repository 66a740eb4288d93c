"""Combat odds for one matchup: exact (backward induction) or Monte Carlo.

    >>> from simkit.combat import Combat, exact_odds
    >>> from simkit.datapack import load_pack
    >>> data = load_pack()
    >>> odds = exact_odds(Combat.parse("infantry=2,artillery=1", "shoggoth"), data)
    >>> round(sum(odds.outcomes.values()), 12)
    1.0

Both methods share the card-resolution kernels in simkit.kernels.combat.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

import numpy as np

from simkit import ENGINE_VERSION
from simkit.core.classes import group_cards
from simkit.core.seeds import chunk_generators, chunk_sizes
from simkit.core.seen import parse_card_numbers, remaining_cards
from simkit.core.stats import mean_interval, wilson_interval
from simkit.datapack import AuzData
from simkit.errors import UserError
from simkit.kernels.combat import LOST_HIST, play_script, simulate_combats, start_combat
from simkit.kernels.combat_exact import (
    CARDS,
    CTX_OVERFLOW,
    CTX_STATES,
    FLIP,
    GOLD,
    HIST,
    LOST,
    NV,
    OUT,
    node_value,
    terminal,
)
from simkit.kernels.low import combat_layout as C
from simkit.kernels.low.combat_kit import combat_kit
from simkit.kernels.low.hashtable import new_table
from simkit.names import (
    AIRSHIP,
    NUM_STACKS,
    OLD_ONES,
    OUTPOST,
    PORT,
    STACKS,
    UNITS,
    old_one_id,
    personality_name,
    unit_id,
)
from strategies.combat import parse_allocation, parse_withdrawal
from strategies.combat.allocation import Cheapest, OptimalAllocation
from strategies.combat.withdrawal import Never, OptimalTable, OptimalWithdrawal

MC_CHUNK = 1 << 16  # games per seeded chunk: results never depend on --jobs
MAX_FORCE = 12  # units per stack the exact solver accepts
MAX_UNITS = 99  # units per stack any method accepts (a typo guard: the box holds a few dozen)
MAX_SPLITS = 4096  # ways to share one card's cubes, for --allocate optimal
EXACT_PASSES = 8  # fresh decks the exact solver's buffers hold (a longer fight: use mc)
STATE_BUDGET = 2_000_000  # exact-solver states before it gives up (memory ~ 300 B per state)


@dataclass(frozen=True)
class Combat:
    """One fight: a force (units per stack) against the Old Ones in one hex."""

    force: tuple[int, ...]  # count per stack, simkit.names.STACKS order
    old_ones: tuple[int, ...]  # Old One type ids, one per tile
    old_one_damage: tuple[int, ...] = ()  # damage already on each tile
    old_one_capacity: tuple[int, ...] = ()  # override the data pack's capacity per tile
    port_defence: bool = False  # everything fights, no withdrawal
    port_strength: int = 0  # Revenge port token in the fight (0: none)
    personalities: tuple[str, ...] = ()
    extra_sanity: int = 0

    @classmethod
    def parse(cls, force: str, vs: str | list[str], old_one_damage: int = 0, **kw) -> Combat:
        """Build from CLI text: force 'infantry=2,airship=1', vs 'shoggoth' or 'zombie,zombie'."""
        return cls(
            force=parse_force(force),
            old_ones=parse_old_ones(vs),
            old_one_damage=(old_one_damage,) if old_one_damage else (),
            **kw,
        )

    def describe(self) -> str:
        units = ", ".join(f"{n} {STACKS[s]}" for s, n in enumerate(self.force) if n)
        if self.port_strength:
            units += f", port (strength {self.port_strength})"
        return f"{units or 'nothing'} vs {' + '.join(OLD_ONES[t] for t in self.old_ones)}"


def parse_force(text: str) -> tuple[int, ...]:
    counts = [0] * NUM_STACKS
    named: dict[int, str] = {}
    if not text.strip():
        raise UserError("--force is empty (expected e.g. 'infantry=2,artillery=1')")
    for part in text.split(","):
        if not part.strip():
            continue
        name, eq, num = part.partition("=")
        if not eq:
            name, num = name, "1"
        s = unit_id(name)
        if s == PORT:
            raise UserError(
                "the port is not a unit: use --port-strength N for a Revenge port defence"
            )
        num = num.strip()
        if not num.lstrip("-").isdigit():
            raise UserError(f"count for '{name.strip()}' must be a whole number, got '{num}'")
        if int(num) < 0:
            raise UserError(f"count for '{name.strip()}' must not be negative, got {num}")
        if int(num) > MAX_UNITS:
            raise UserError(f"count for '{name.strip()}' must be at most {MAX_UNITS}, got {num}")
        if s in named:
            raise UserError(
                f"--force names '{STACKS[s]}' twice ('{named[s]}' and '{name.strip()}'): give each "
                f"unit once with its count"
            )
        named[s] = name.strip()
        counts[s] += int(num)
    return tuple(counts)


def parse_old_ones(vs: str | list[str]) -> tuple[int, ...]:
    items = [vs] if isinstance(vs, str) else list(vs)
    types_ = [old_one_id(tok) for item in items for tok in item.split(",") if tok.strip()]
    if not types_:
        raise UserError("--vs names no Old One (expected e.g. 'shoggoth' or 'zombie,zombie')")
    if len(types_) > C.MAX_OLD_ONES:
        raise UserError(f"at most {C.MAX_OLD_ONES} Old Ones can share a hex, got {len(types_)}")
    return tuple(types_)


def pass_bound(st0: np.ndarray, mx: np.ndarray) -> int:
    """Fresh decks a fight from st0 can go through before it must end.

    Each deck that changes the fight uses up at least one of: a cube a stack can still
    absorb, a Sanity token, a point of an Old One's remaining capacity, a withdrawal
    (two groups, and Corporal Jones); the deck after the last change ends it as a
    stalemate (simkit.kernels.combat.play_combat).
    """
    absorb = sum(int(st0[C.COUNT + s]) * int(mx[C.CAPACITY + s]) for s in range(NUM_STACKS))
    old_ones = sum(
        max(int(mx[C.OO_CAPACITY + i]) - int(st0[C.OO_DAMAGE + i]), 0)
        for i in range(C.MAX_OLD_ONES)
        if mx[C.OO_TYPE + i] >= 0
    )
    return absorb + int(st0[C.SANITY]) + old_ones + 3 + 1


def combat_arrays(combat: Combat, data: AuzData) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """Lower a Combat to (st0, mx, mx_cost) for the kernels; validates against the pack."""
    force = list(combat.force) + [0] * (NUM_STACKS - len(combat.force))
    if combat.port_strength:
        force[PORT] = 1
    if sum(force) == 0:
        raise UserError("the force is empty: name at least one unit (or a port strength)")
    personalities = {personality_name(p) for p in combat.personalities}
    for p in personalities:
        if p not in data.personalities:
            raise UserError(f"personality '{p}' is not in the data pack ({data.path})")
    st = np.zeros(C.STATE_SIZE, dtype=np.int64)
    mx = np.zeros(C.MATCHUP_SIZE, dtype=np.int64)
    cost = data.unit_cost.astype(np.float64).copy()
    capacity = data.unit_capacity.copy()
    for p in personalities:
        spec = data.personalities[p]
        if spec["effect"] == "unit_capacity":
            capacity[spec["unit"]] = spec["amount"]
    if combat.port_strength:
        capacity[PORT] = combat.port_strength
    for s in range(NUM_STACKS):
        st[C.COUNT + s] = force[s]
        mx[C.CAPACITY + s] = capacity[s]
        mx[C.HITBIT + s] = s if s < len(UNITS) else 0  # outposts and ports fight as Infantry
        mx[C.TAKES_PURPLE + s] = 0 if s == AIRSHIP else 1
        mx[C.GROUP + s] = (
            C.GROUP_AIRSHIPS
            if s == AIRSHIP
            else C.GROUP_NONE
            if s in (OUTPOST, PORT)
            else C.GROUP_OTHERS
        )
    # "if you have no Units when your Port is attacked, the Port fights as Infantry"
    mx[C.PORT_FIGHTS] = 1 if sum(force[: len(UNITS)]) == 0 else 0
    port_sanity = 0
    if combat.port_strength:
        port_sanity = (
            data.port["sanity_strength_4"]
            if combat.port_strength >= data.port["strength_normal"]
            else data.port["sanity_strength_2"]
        )
    st[C.SANITY] = data.sanity_per_combat + port_sanity + combat.extra_sanity
    n_oo = len(combat.old_ones)
    damage = list(combat.old_one_damage) + [
        combat.old_one_damage[0] if len(combat.old_one_damage) == 1 else 0
    ] * (n_oo - len(combat.old_one_damage))
    caps = list(combat.old_one_capacity) or [int(data.old_one_capacity[t]) for t in combat.old_ones]
    if len(caps) != n_oo or len(damage) != n_oo:
        raise UserError("give one Old One damage / capacity per Old One, or one for all")
    for i in range(C.MAX_OLD_ONES):
        mx[C.OO_TYPE + i] = combat.old_ones[i] if i < n_oo else -1
        mx[C.OO_CAPACITY + i] = caps[i] if i < n_oo else 0
        if i < n_oo:
            if not 0 <= damage[i] < caps[i]:
                raise UserError(
                    f"--old-one-damage must be 0..{caps[i] - 1} for "
                    f"{OLD_ONES[combat.old_ones[i]]}, got {damage[i]}"
                )
            st[C.OO_DAMAGE + i] = damage[i]
    mx[C.CAN_WITHDRAW] = 0 if (combat.port_defence or combat.port_strength) else 1
    if "bombardier_milligan" in personalities:
        mx[C.MILLIGAN] = data.personalities["bombardier_milligan"].get("amount", 1)
    mx[C.JONES] = 1 if "corporal_jones" in personalities else 0
    st[C.OUTCOME] = C.ONGOING
    return st, mx, cost


def available_cards(data: AuzData, seen: tuple[int, ...]) -> np.ndarray:
    """Cards still in the deck after the discard pile ``seen`` (card numbers)."""
    return remaining_cards(data.card_ids, seen)


def parse_seen(text: str | None) -> tuple[int, ...]:
    return parse_card_numbers(text)


@dataclass
class CombatOdds:
    """Outcome probabilities and expectations of one matchup under one policy pair."""

    method: str
    combat: str
    outcomes: dict[str, float]
    expected_units_lost: dict[str, float]
    expected_cards: float
    expected_gold_lost: float
    p_units_lost: list[float]
    p_port_flip: float | None
    allocate: str
    withdraw: str
    seed: int | None
    data_hash: str
    games: int | None = None
    ci95: dict[str, list[float]] | None = None
    states: int | None = None
    extra: dict[str, Any] = field(default_factory=dict)

    @property
    def p_destroy(self) -> float:
        return self.outcomes["win"] + self.outcomes["win_and_defeat"]

    def to_json(self) -> dict[str, Any]:
        out = {
            "method": self.method,
            "combat": self.combat,
            "outcomes": self.outcomes,
            "p_destroy": self.p_destroy,
            "expected_units_lost": self.expected_units_lost,
            "expected_cards": self.expected_cards,
            "expected_gold_lost": self.expected_gold_lost,
            "p_units_lost": self.p_units_lost,
            "allocate": self.allocate,
            "withdraw": self.withdraw,
            "seed": self.seed,
            "engine_version": ENGINE_VERSION,
            "data_hash": self.data_hash,
        }
        if self.p_port_flip is not None:
            out["p_port_flip"] = self.p_port_flip
        if self.games is not None:
            out["games"] = self.games
            out["ci95"] = self.ci95
        if self.states is not None:
            out["states"] = self.states
        out.update(self.extra)
        return out


def policies(allocate=None, withdraw=None):
    """Policy objects from objects, user text or None (cheapest-first, never withdraw)."""
    allocate = parse_allocation(allocate) if isinstance(allocate, str) else (allocate or Cheapest())
    withdraw = parse_withdrawal(withdraw) if isinstance(withdraw, str) else (withdraw or Never())
    return allocate, withdraw


def _policy_names(allocate, withdraw) -> tuple[str, str]:
    def name(p):
        fields = {k: v for k, v in vars(p).items()} if hasattr(p, "__dict__") else {}
        return p.name + (f"{fields}" if fields else "")

    return name(allocate), name(withdraw)


def _lost_dict(values, force) -> dict[str, float]:
    return {STACKS[s]: float(values[s]) for s in range(NUM_STACKS) if force[s]}


class ExactTooLarge(UserError):
    """The matchup needs more exact-solver states than the budget allows."""


def withdraw_table_for(
    combat: Combat, data: AuzData, allocate, withdraw, st0, mx, cost, seen: tuple[int, ...] = ()
):
    """The solved table an OptimalTable policy plays (simkit.combat.table), else None."""
    if not isinstance(withdraw, OptimalTable):
        return None
    from simkit.combat.table import solve_withdraw_table

    destroy_value = withdraw.destroy_value
    if destroy_value is None:
        destroy_value = float(sum(data.old_one_vp[t] for t in combat.old_ones))
    return solve_withdraw_table(
        st0, mx, cost, data, allocate, withdraw, destroy_value, available_cards(data, seen)
    )


def _table_array(solved) -> np.ndarray:
    from simkit.kernels.low.combat_table_lookup import EMPTY_TABLE

    return EMPTY_TABLE if solved is None else solved.table


_DECK_CLASSES: dict = {}  # _deck_classes by what the cards do and which are left


def _deck_classes(data: AuzData, force_mask: int, old_ones, available: np.ndarray):
    """The exact solver's card classes (group_cards of what each card does to this force and
    these Old One types): (rep, full, avail, place). Cached by the cards' effects (the odds
    table asks for the same few thousand times); callers get copies."""
    effects = np.concatenate(
        [
            np.stack(
                [
                    data.card_hits[:, t] & force_mask,
                    data.card_purple[:, t],
                    data.card_sanity[:, t],
                    data.card_airship[:, t],
                ],
                axis=1,
            )
            for t in sorted(set(old_ones))
        ],
        axis=1,
    ).astype(np.int64)
    key = (effects.shape, effects.tobytes(), available.tobytes())
    found = _DECK_CLASSES.get(key)
    if found is None:
        found = group_cards(effects, available)
        if len(_DECK_CLASSES) >= 4096:
            _DECK_CLASSES.clear()
        _DECK_CLASSES[key] = found
    return tuple(a.copy() for a in found)


def cards_fingerprint(data: AuzData) -> bytes:
    """A digest of everything the Old One cards do in a fight (a derived pack, e.g. a smaller
    deck, keeps its parent's ``hash``): a cache key for results that depend on the cards."""
    import hashlib

    h = hashlib.blake2b(digest_size=16)
    for a in (data.card_hits, data.card_purple, data.card_sanity, data.card_airship):
        h.update(str(a.shape).encode())
        h.update(np.ascontiguousarray(a).tobytes())
    h.update(str(data.port["flip_threshold"]).encode())
    return h.digest()


def exact_memory_bytes(state_budget: int) -> int:
    """Bytes the exact solver allocates up front for ``state_budget`` states: the hash table
    (a power of two of at least twice the states, two int64 keys and an int64 row per slot)
    and one row of values (NV float64), a decision byte and four int16 features per state."""
    from simkit.kernels.combat_exact import NV

    slots = 1 << max(4, int(2 * state_budget - 1).bit_length())
    return slots * 24 + state_budget * (NV * 8 + 1 + 8)


def available_memory_bytes() -> int | None:
    """Memory the machine can give this process now (MemAvailable, or a cgroup's limit when
    lower); None where unknown."""
    avail = None
    try:
        with open("/proc/meminfo") as fh:
            for line in fh:
                if line.startswith("MemAvailable:"):
                    avail = int(line.split()[1]) * 1024
                    break
    except (OSError, ValueError):
        pass
    for path in ("/sys/fs/cgroup/memory.max", "/sys/fs/cgroup/memory/memory.limit_in_bytes"):
        try:
            text = open(path).read().strip()
        except OSError:
            continue
        if text.isdigit():
            used = 0
            for cur in (
                "/sys/fs/cgroup/memory.current",
                "/sys/fs/cgroup/memory/memory.usage_in_bytes",
            ):
                try:
                    used = int(open(cur).read().strip())
                    break
                except (OSError, ValueError):
                    continue
            room = int(text) - used
            avail = room if avail is None else min(avail, room)
        break
    return avail


def exact_odds(
    combat: Combat,
    data: AuzData,
    allocate=None,
    withdraw=None,
    seen: tuple[int, ...] = (),
    objective: str | None = None,
    state_budget: int = STATE_BUDGET,
    solved_table=None,
) -> CombatOdds:
    """Exact outcome probabilities by backward induction over deck compositions.

    ``withdraw`` may be a fixed policy or OptimalWithdrawal (maximise P(destroy),
    ties to the cheaper line, or ``objective='value'``: destroy_value * P(destroy)
    minus expected Gold lost). ``allocate`` may be OptimalAllocation.
    ``solved_table``: for an OptimalTable policy, its table already solved for this very
    matchup, policy and ``seen`` (withdraw_table_for, or SharedTables), to price it
    without solving it again.
    """
    allocate, withdraw = policies(allocate, withdraw)
    st0, mx, cost = combat_arrays(combat, data)
    if max(combat.force) > MAX_FORCE:
        raise UserError(
            f"the exact method takes at most {MAX_FORCE} units per type; use --method mc"
        )
    available = available_cards(data, seen)
    force_mask = sum(1 << u for u in range(len(UNITS)) if st0[C.COUNT + u] > 0)
    if st0[C.COUNT + OUTPOST] > 0 or st0[C.COUNT + PORT] > 0:
        force_mask |= 1  # they fight as Infantry
    rep, full, avail, place = _deck_classes(data, force_mask, combat.old_ones, available)
    if int(np.prod((full + 1).astype(object))) >= 2**62:
        raise UserError(
            "this deck has too many distinct cards for the exact method; use --method mc"
        )
    cls_hits = (data.card_hits[rep] & force_mask).astype(np.uint8)
    alloc_id, alloc_params = allocate.lower()
    wd_id, wd_params = withdraw.lower()
    if solved_table is None or not isinstance(withdraw, OptimalTable):
        solved_table = withdraw_table_for(combat, data, allocate, withdraw, st0, mx, cost, seen)
    wd_table = _table_array(solved_table)
    objective = objective or (
        withdraw.objective if isinstance(withdraw, OptimalWithdrawal) else "p_destroy"
    )
    destroy_value = getattr(withdraw, "destroy_value", None)
    if destroy_value is None:
        destroy_value = float(sum(data.old_one_vp[t] for t in combat.old_ones))
    ctx_i = np.array(
        [alloc_id, wd_id, 1 if objective == "value" else 0, data.port["flip_threshold"], 0, 0],
        dtype=np.int64,
    )
    ctx_f = np.array([destroy_value], dtype=np.float64)
    keys, rows = new_table(state_budget)
    values = np.empty((state_budget, NV))
    decisions = np.empty(state_budget, dtype=np.int8)
    features = np.empty((state_budget, 4), dtype=np.int16)
    st = st0.copy()
    outcome = start_combat(st, mx)
    if outcome != C.ONGOING:
        from simkit.kernels.combat import finish

        finish(st, mx, outcome)
        v = terminal(st, st0, cost, ctx_i, ctx_f)
    else:
        # a fight that outlasts EXACT_PASSES fresh decks outgrows the buffers: too large
        depth = avail.sum() + data.deck_size * min(pass_bound(st0, mx), EXACT_PASSES) + 2
        sbuf = np.zeros((depth, 3, C.STATE_SIZE), dtype=np.int64)
        vbuf = np.zeros((depth, 4, NV))
        ibuf = np.zeros((depth, 2, max(C.MAX_OLD_ONES, NUM_STACKS)), dtype=np.int64)
        cbuf = np.zeros((depth, full.size), dtype=np.int64)
        optimal_alloc = isinstance(allocate, OptimalAllocation)
        split_buf = np.zeros(
            (depth if optimal_alloc else 1, MAX_SPLITS if optimal_alloc else 3, NUM_STACKS),
            dtype=np.int64,
        )
        row = node_value(
            st,
            avail.copy(),
            full,
            place,
            st0,
            mx,
            cost,
            cls_hits,
            data.card_purple[rep].copy(),
            data.card_sanity[rep].copy(),
            data.card_airship[rep].copy(),
            alloc_params,
            wd_params,
            wd_table,
            ctx_i,
            ctx_f,
            keys,
            rows,
            values,
            decisions,
            features,
            sbuf,
            vbuf,
            ibuf,
            cbuf,
            split_buf,
        )
        v = values[row].copy() if row >= 0 else None
        if ctx_i[CTX_OVERFLOW] == 2:
            raise ExactTooLarge(
                f"a card splits its cubes more than {MAX_SPLITS} ways; use a fixed --allocate"
            )
        if ctx_i[CTX_OVERFLOW] != 0:
            raise ExactTooLarge(
                f"the exact method needs more than {state_budget:,} states for "
                f"{combat.describe()}; use --method mc"
            )
    names = _policy_names(allocate, withdraw)
    extra = (
        {"objective": objective, "destroy_value": destroy_value}
        if isinstance(withdraw, OptimalWithdrawal)
        else {}
    )
    if isinstance(withdraw, OptimalWithdrawal):
        n = int(ctx_i[CTX_STATES])
        extra["decision_nodes_withdrawing"] = int(np.count_nonzero(decisions[:n] > C.STAY))
        extra["policy_rules"] = policy_in_words(decisions[:n], features[:n])
    if solved_table is not None:
        extra.update(table_extra(solved_table, withdraw))
    return CombatOdds(
        method="exact",
        combat=combat.describe(),
        outcomes={name: float(v[OUT + o]) for o, name in enumerate(C.OUTCOME_NAMES)},
        expected_units_lost=_lost_dict(
            v[LOST : LOST + NUM_STACKS], st0[C.COUNT : C.COUNT + NUM_STACKS]
        ),
        expected_cards=float(v[CARDS]),
        expected_gold_lost=float(v[GOLD]),
        p_units_lost=[float(x) for x in v[HIST : HIST + LOST_HIST]],
        p_port_flip=float(v[FLIP]) if combat.port_strength else None,
        allocate=names[0],
        withdraw=names[1],
        seed=None,
        data_hash=data.hash,
        states=int(ctx_i[CTX_STATES]),
        extra=extra,
    )


def exact_needs_more(
    combat: Combat,
    data: AuzData,
    withdraw=None,
    state_budget: int = STATE_BUDGET,
    solved_table=None,
) -> bool | None:
    """Would :func:`exact_odds` (cheapest-first allocation, no cards seen) need more than
    ``state_budget`` states, i.e. raise ExactTooLarge? Counted by walking the solver's
    nodes without solving them (simkit.kernels.combat_exact_count), for a part of the
    price of a failed attempt. True: it would; False: it fits; None: not counted (a policy
    the count does not cover). ``solved_table``: as for exact_odds."""
    from simkit.kernels.combat_exact_count import COUNT_DEEP, COUNT_MORE, count_nodes

    allocate, withdraw = policies(None, withdraw)
    if max(combat.force) > MAX_FORCE:
        return None
    st0, mx, cost = combat_arrays(combat, data)
    available = available_cards(data, ())
    force_mask = sum(1 << u for u in range(len(UNITS)) if st0[C.COUNT + u] > 0)
    if st0[C.COUNT + OUTPOST] > 0 or st0[C.COUNT + PORT] > 0:
        force_mask |= 1  # they fight as Infantry
    rep, full, avail, place = _deck_classes(data, force_mask, combat.old_ones, available)
    if int(np.prod((full + 1).astype(object))) >= 2**62:
        return None
    alloc_id, alloc_params = allocate.lower()
    wd_id, wd_params = withdraw.lower()
    if solved_table is None or not isinstance(withdraw, OptimalTable):
        solved_table = withdraw_table_for(combat, data, allocate, withdraw, st0, mx, cost)
    st = st0.copy()
    if start_combat(st, mx) != C.ONGOING:
        return False
    depth = avail.sum() + data.deck_size * min(pass_bound(st0, mx), EXACT_PASSES) + 2
    keys, rows = new_table(state_budget + 1)
    count = np.zeros(1, dtype=np.int64)
    found = count_nodes(
        st,
        avail.copy(),
        full,
        place,
        st0,
        mx,
        cost,
        (data.card_hits[rep] & force_mask).astype(np.uint8),
        data.card_purple[rep].copy(),
        data.card_sanity[rep].copy(),
        data.card_airship[rep].copy(),
        alloc_id,
        alloc_params,
        wd_id,
        wd_params,
        _table_array(solved_table),
        isinstance(withdraw, OptimalWithdrawal),
        keys,
        rows,
        count,
        state_budget,
        np.zeros((depth, 3, C.STATE_SIZE), dtype=np.int64),
        np.zeros((depth, 2, max(C.MAX_OLD_ONES, NUM_STACKS)), dtype=np.int64),
        np.zeros((depth, full.size), dtype=np.int64),
    )
    return found in (COUNT_MORE, COUNT_DEEP)


@dataclass(frozen=True)
class CombatEnd:
    """Where a scripted combat ended (see :func:`play_cards`)."""

    outcome: str
    units: dict[str, int]
    lost: dict[str, int]
    sanity: int
    old_one_damage: tuple[int, ...]
    cards: int
    port_hits: int
    damage_left: tuple[int, ...]  # damage staying on each surviving Old One (-1: destroyed)


def table_extra(solved, withdraw) -> dict[str, Any]:
    """What a result reports about the withdraw table it played (``table_shared``: the
    state counts are those of a memo shared by many forces, simkit.combat.table.SharedTables)."""
    extra = {
        "table_states": solved.states,
        "table_objective": withdraw.objective,
        "table_states_withdrawing": (
            solved.withdrawing
            if getattr(solved, "withdrawing", None) is not None
            else int(np.count_nonzero(solved.decisions > C.STAY))
        ),
        "table_model_p_destroy": float(
            solved.value[OUT + C.WIN] + solved.value[OUT + C.WIN_AND_DEFEAT]
        ),
    }
    if getattr(solved, "shared", False):
        extra["table_shared"] = True
    return extra


def play_cards(
    combat: Combat, data: AuzData, cards: list[int], allocate=None, withdraw=None
) -> CombatEnd:
    """Resolve a combat with the given card numbers drawn in that order (for tests and replays)."""
    allocate, withdraw = policies(allocate, withdraw)
    st, mx, cost = combat_arrays(combat, data)
    wd_table = _table_array(withdraw_table_for(combat, data, allocate, withdraw, st, mx, cost))
    start = st.copy()
    script = np.array([data.card_index(c) for c in cards], dtype=np.int64)
    if script.size == 0:
        raise UserError("play_cards needs at least one card")
    alloc, wd = allocate.lower(), withdraw.lower()
    kit = combat_kit(data, mx, cost, script, alloc, wd, wd_table, data.port["flip_threshold"])
    play_script(kit, st, script)
    force = st[C.COUNT : C.COUNT + NUM_STACKS]
    return CombatEnd(
        outcome=C.OUTCOME_NAMES[st[C.OUTCOME]],
        units={STACKS[s]: int(force[s]) for s in range(NUM_STACKS) if start[C.COUNT + s]},
        lost={STACKS[s]: int(st[C.LOST + s]) for s in range(NUM_STACKS) if st[C.LOST + s]},
        sanity=int(st[C.SANITY]),
        old_one_damage=tuple(int(st[C.OO_DAMAGE + i]) for i in range(len(combat.old_ones))),
        cards=int(st[C.CARDS]),
        port_hits=int(st[C.PORT_HITS]),
        damage_left=tuple(damage_left(combat, data, st)),
    )


def damage_left(combat: Combat, data: AuzData, st: np.ndarray) -> list[int]:
    """After combat, damage stays on surviving Old Ones, except Zombies, which heal (-1:
    destroyed)."""
    out = []
    for i, t in enumerate(combat.old_ones):
        dmg = int(st[C.OO_DAMAGE + i])
        cap = (
            combat.old_one_capacity[i] if combat.old_one_capacity else int(data.old_one_capacity[t])
        )
        out.append(-1 if dmg >= cap else (0 if data.old_one_heals[t] else dmg))
    return out


def card_classes(combat: Combat, data: AuzData, seen: tuple[int, ...] = ()) -> np.ndarray:
    """How many cards of each outcome class (cards that do the same in this fight) remain:
    the exact solver's deck state is one count per class."""
    st0, _, _ = combat_arrays(combat, data)
    force_mask = sum(1 << u for u in range(len(UNITS)) if st0[C.COUNT + u] > 0)
    if st0[C.COUNT + OUTPOST] > 0 or st0[C.COUNT + PORT] > 0:
        force_mask |= 1
    effects = np.concatenate(
        [
            np.stack(
                [
                    data.card_hits[:, t] & force_mask,
                    data.card_purple[:, t],
                    data.card_sanity[:, t],
                    data.card_airship[:, t],
                ],
                axis=1,
            )
            for t in sorted(set(combat.old_ones))
        ],
        axis=1,
    ).astype(np.int64)
    _, _, avail, _ = group_cards(effects, available_cards(data, seen))
    return avail[avail > 0]


def compositions_within(counts: np.ndarray, draws: int) -> int:
    """Sub-multisets of at most ``draws`` cards of a deck with these class counts: the deck
    compositions a fight of at most ``draws`` cards can reach."""
    poly = [1] + [0] * draws
    for m in counts.tolist():
        new = [0] * (draws + 1)
        for j in range(min(int(m), draws) + 1):
            for i in range(draws + 1 - j):
                new[i + j] += poly[i]
        poly = new
    return int(sum(poly))


def estimated_compositions(
    combat: Combat, data: AuzData, expected_cards: float, seen: tuple[int, ...] = ()
) -> int:
    """A cheap size estimate of the exact solver's state space: the deck compositions
    reachable within 2 x expected_cards + 1 draws (from a short Monte Carlo run)."""
    return compositions_within(card_classes(combat, data, seen), int(2 * expected_cards) + 1)


ESTIMATE_FACTOR = 20  # auto: skip exact when the estimate passes this x the state budget
PROBE_GAMES = 4_096  # auto: Monte Carlo fights behind the estimate of expected cards drawn


def auto_odds(
    combat: Combat,
    data: AuzData,
    games: int,
    seed: int,
    allocate=None,
    withdraw=None,
    seen: tuple[int, ...] = (),
    jobs: int = 1,
    state_budget: int = STATE_BUDGET,
    progress=None,
) -> CombatOdds:
    """Exact where the state space fits ``state_budget``, Monte Carlo with intervals where not.

    Before trying exact, the state space is estimated cheaply (:func:`estimated_compositions`
    from a short Monte Carlo probe): a matchup far past the budget goes straight to Monte
    Carlo instead of filling memory first. The result says which method answered and, after
    a fall-back, why (``exact_skipped``, ``exact_estimate``).
    """
    allocate, withdraw = policies(allocate, withdraw)
    if not isinstance(withdraw, OptimalWithdrawal) and not isinstance(allocate, OptimalAllocation):
        probe = monte_carlo_odds(
            combat,
            data,
            games=PROBE_GAMES,
            seed=seed,
            allocate=allocate,
            withdraw=withdraw,
            seen=seen,
        )
        estimate = estimated_compositions(combat, data, probe.expected_cards, seen)
        if estimate > ESTIMATE_FACTOR * state_budget:
            odds = monte_carlo_odds(
                combat,
                data,
                games=games,
                seed=seed,
                allocate=allocate,
                withdraw=withdraw,
                seen=seen,
                jobs=jobs,
                progress=progress,
            )
            odds.extra["exact_skipped"] = (
                f"the estimated state space ({estimate:,} deck compositions within "
                f"{int(2 * probe.expected_cards) + 1} draws) is far past --state-budget "
                f"{state_budget:,}; exact was not tried"
            )
            odds.extra["exact_estimate"] = estimate
            return odds
    try:
        return exact_odds(
            combat, data, allocate=allocate, withdraw=withdraw, seen=seen, state_budget=state_budget
        )
    except ExactTooLarge as exc:
        odds = monte_carlo_odds(
            combat,
            data,
            games=games,
            seed=seed,
            allocate=allocate,
            withdraw=withdraw,
            seen=seen,
            jobs=jobs,
            progress=progress,
        )
        odds.extra["exact_skipped"] = str(exc)
        return odds


def policy_in_words(decisions: np.ndarray, features: np.ndarray) -> list[str]:
    """Summarise an optimal withdraw policy by (sanity, units left) over all decision states.

    A line per situation where withdrawing is ever optimal: "always" if every such state
    withdraws, otherwise how often and what it depends on (Old One damage, cards seen).
    States are counted whether or not the optimal line reaches them; the root (the
    state before the first card, stored last) comes first.
    """
    if decisions.size and decisions[-1] > C.STAY:
        return ["withdraw before the first card: fighting this matchup cannot pay"]
    lines = []
    sanity, units, damage = features[:, 0], features[:, 1], features[:, 2]
    for s in sorted(set(sanity.tolist())):
        for u in sorted(set(units[sanity == s].tolist())):
            here = (sanity == s) & (units == u)
            leave = decisions[here] > C.STAY
            if not leave.any():
                continue
            where = f"with {s} sanity and {u} unit{'s' if u != 1 else ''} left"
            if leave.all():
                lines.append(f"{where}: always withdraw")
                continue
            stay_dmg = damage[here][~leave]
            leave_dmg = damage[here][leave]
            hint = ""
            if leave_dmg.max() < stay_dmg.min():
                hint = f" when the Old One has at most {leave_dmg.max()} damage"
            lines.append(
                f"{where}: withdraw in {leave.mean():.0%} of situations{hint}"
                f"{'' if hint else ' (it depends on the cards already seen)'}"
            )
    return lines or ["never withdraw: fighting on is always at least as good"]


def _mc_chunk(rng, n, st0, mx, cost, data, start_deck, alloc, wd, wd_table):
    outcomes = np.zeros(C.NUM_OUTCOMES, dtype=np.int64)
    lost = np.zeros(NUM_STACKS, dtype=np.int64)
    hist = np.zeros(LOST_HIST, dtype=np.int64)
    cards = np.zeros(3, dtype=np.int64)
    kit = combat_kit(data, mx, cost, start_deck, alloc, wd, wd_table, data.port["flip_threshold"])
    simulate_combats(kit, rng, n, st0, outcomes, lost, hist, cards)
    return outcomes, lost, hist, cards


def monte_carlo_odds(
    combat: Combat,
    data: AuzData,
    games: int,
    seed: int,
    allocate=None,
    withdraw=None,
    seen: tuple[int, ...] = (),
    jobs: int = 1,
    progress=None,
    solved_table=None,
) -> CombatOdds:
    """Monte Carlo estimate with Wilson 95% intervals; identical for any ``jobs``.

    ``progress``: an optional callable given the fights done after each chunk (a progress bar).
    ``solved_table``: the withdraw table of this very matchup, policy and ``seen`` (from
    :func:`withdraw_table_for`), to play it again without solving it again.
    """
    allocate, withdraw = policies(allocate, withdraw)
    if isinstance(withdraw, OptimalWithdrawal) or isinstance(allocate, OptimalAllocation):
        raise UserError(
            "optimal policies are computed by --method exact; Monte Carlo plays fixed policies"
        )
    if games <= 0:
        raise UserError(f"--games must be positive, got {games}")
    st0, mx, cost = combat_arrays(combat, data)
    start_deck = np.flatnonzero(available_cards(data, seen)).astype(np.int64)
    sizes = chunk_sizes(games, MC_CHUNK)
    rngs = chunk_generators(seed, len(sizes))
    alloc, wd = allocate.lower(), withdraw.lower()
    if solved_table is None:
        solved_table = withdraw_table_for(combat, data, allocate, withdraw, st0, mx, cost, seen)
    wd_table = _table_array(solved_table)
    if jobs == 1 or len(sizes) == 1:
        parts = []
        for r, n in zip(rngs, sizes, strict=True):
            parts.append(_mc_chunk(r, n, st0, mx, cost, data, start_deck, alloc, wd, wd_table))
            if progress is not None:
                progress(n)
    else:
        from joblib import Parallel, delayed

        from simkit.core.watch import watched

        parts = []
        for (_, n), part in zip(
            zip(rngs, sizes, strict=True),
            Parallel(n_jobs=jobs, return_as="generator")(
                delayed(watched(_mc_chunk))(
                    r, n, st0, mx, cost, data, start_deck, alloc, wd, wd_table
                )
                for r, n in zip(rngs, sizes, strict=True)
            ),
            strict=True,
        ):
            parts.append(part)
            if progress is not None:
                progress(n)
    outcomes = sum(p[0] for p in parts)
    lost = sum(p[1] for p in parts)
    hist = sum(p[2] for p in parts)
    cards = sum(p[3] for p in parts)
    return _mc_result(
        combat,
        data,
        st0,
        cost,
        games,
        seed,
        allocate,
        withdraw,
        solved_table,
        outcomes,
        lost,
        hist,
        cards,
    )


def _mc_result(
    combat,
    data,
    st0,
    cost,
    games,
    seed,
    allocate,
    withdraw,
    solved_table,
    outcomes,
    lost,
    hist,
    cards,
) -> CombatOdds:
    """A Monte Carlo result from the kernels' tallies (simulate_combats' layout)."""
    names = _policy_names(allocate, withdraw)
    kills = int(outcomes[C.WIN] + outcomes[C.WIN_AND_DEFEAT])
    lo, hi = wilson_interval(np.append(np.asarray(outcomes, dtype=np.int64), kills), games)
    ci = {name: [float(lo[o]), float(hi[o])] for o, name in enumerate(C.OUTCOME_NAMES)}
    ci["p_destroy"] = [float(lo[-1]), float(hi[-1])]
    ci["expected_cards"] = list(mean_interval(float(cards[0]), float(cards[1]), games))
    return CombatOdds(
        method="mc",
        combat=combat.describe(),
        outcomes={name: float(outcomes[o] / games) for o, name in enumerate(C.OUTCOME_NAMES)},
        expected_units_lost=_lost_dict(lost / games, st0[C.COUNT : C.COUNT + NUM_STACKS]),
        expected_cards=float(cards[0] / games),
        expected_gold_lost=float(lost @ cost) / games,
        p_units_lost=[float(x) for x in hist / games],
        p_port_flip=float(cards[2] / games) if combat.port_strength else None,
        allocate=names[0],
        withdraw=names[1],
        seed=seed,
        data_hash=data.hash,
        games=games,
        ci95=ci,
        extra=table_extra(solved_table, withdraw) if solved_table is not None else {},
    )


PAIRED_STREAM = 0x5EED2  # mixed into a seed for the second stream of a paired run


@dataclass
class Tallies:
    """What the Monte Carlo kernels count over some fights of one matchup and policy
    (simulate_combats' layout); tallies of independent runs add up."""

    games: int
    outcomes: np.ndarray
    lost: np.ndarray
    hist: np.ndarray
    cards: np.ndarray

    @classmethod
    def empty(cls) -> Tallies:
        return cls(
            0,
            np.zeros(C.NUM_OUTCOMES, dtype=np.int64),
            np.zeros(NUM_STACKS, dtype=np.int64),
            np.zeros(LOST_HIST, dtype=np.int64),
            np.zeros(3, dtype=np.int64),
        )

    def __add__(self, other: Tallies) -> Tallies:
        return Tallies(
            self.games + other.games,
            self.outcomes + other.outcomes,
            self.lost + other.lost,
            self.hist + other.hist,
            self.cards + other.cards,
        )

    @property
    def destroyed(self) -> int:
        return int(self.outcomes[C.WIN] + self.outcomes[C.WIN_AND_DEFEAT])


def _paired_tallies() -> tuple[np.ndarray, ...]:
    """Zeroed out-arrays of the paired kernels: row 0 policy A, row 1 policy B (outcomes,
    units lost, loss histogram, cards)."""
    return (
        np.zeros((2, C.NUM_OUTCOMES), dtype=np.int64),
        np.zeros((2, NUM_STACKS), dtype=np.int64),
        np.zeros((2, LOST_HIST), dtype=np.int64),
        np.zeros((2, 3), dtype=np.int64),
    )


class MonteCarloRunner:
    """Monte Carlo runs of one matchup again and again (the stages of an odds-table row):
    the matchup is lowered and the buffers made once. :meth:`run` is
    :func:`monte_carlo_odds` (same seed, same fights); :meth:`run_paired` plays two withdraw
    policies on the same cards (simkit.kernels.combat_paired): policy A exactly as
    :meth:`run` would, B on the same card order (and where it outlasts A, the same deck on
    from a second stream). Each column is a Monte Carlo estimate of its own policy; the two
    are correlated (common cards), and a fight where the policies never differ is played
    once. ``solved_table``: the withdraw table of this matchup's OptimalTable policy (from
    withdraw_table_for or SharedTables), if any is played."""

    def __init__(self, combat: Combat, data: AuzData, solved_table=None, allocate=None):
        allocate, _ = policies(allocate, None)
        if isinstance(allocate, OptimalAllocation):
            raise UserError(
                "optimal policies are computed by --method exact; Monte Carlo plays fixed policies"
            )
        self.combat, self.data, self.allocate = combat, data, allocate
        self.solved = solved_table
        self.st0, self.mx, self.cost = combat_arrays(combat, data)
        self.start_deck = np.flatnonzero(available_cards(data, ())).astype(np.int64)
        self.alloc = allocate.lower()
        self.wd_table = _table_array(solved_table)
        n_cards = data.card_hits.shape[0]
        self.tape_size = self.start_deck.size + n_cards * (pass_bound(self.st0, self.mx) + 1)

    def _kit(self, withdraw, withdraw_b=None):
        """A kernel kit for withdrawal ``withdraw`` (paired: A) and ``withdraw_b`` (B)."""
        return combat_kit(
            self.data,
            self.mx,
            self.cost,
            self.start_deck,
            self.alloc,
            withdraw,
            self.wd_table,
            self.data.port["flip_threshold"],
            withdraw_b=withdraw_b,
            tape_size=self.tape_size,
        )

    def use_table(self, solved_table) -> None:
        """Play this withdraw table from now on (the matchup's OptimalTable policy)."""
        self.solved = solved_table
        self.wd_table = _table_array(solved_table)

    def _check(self, withdraw) -> None:
        if isinstance(withdraw, OptimalWithdrawal):
            raise UserError(
                "optimal policies are computed by --method exact; Monte Carlo plays fixed policies"
            )
        if isinstance(withdraw, OptimalTable) and self.solved is None:
            raise ValueError("MonteCarloRunner: an OptimalTable policy needs its solved_table")

    def run(self, games: int, seed: int, withdraw=None) -> Tallies:
        """``games`` fights under one withdraw policy (monte_carlo_odds' fights for ``seed``)."""
        _, withdraw = policies(None, withdraw)
        self._check(withdraw)
        kit = self._kit(withdraw.lower())
        total = Tallies.empty()
        sizes = chunk_sizes(games, MC_CHUNK)
        for rng, n in zip(chunk_generators(seed, len(sizes)), sizes, strict=True):
            t = Tallies.empty()
            t.games = n
            simulate_combats(kit, rng, n, self.st0, t.outcomes, t.lost, t.hist, t.cards)
            total = total + t
        return total

    def _paired_setup(self, seed: int, withdraw_a, withdraw_b):
        """Both policies checked and lowered, and the seed of the second stream (the cards
        drawn once the two policies part)."""
        _, withdraw_a = policies(None, withdraw_a)
        _, withdraw_b = policies(None, withdraw_b)
        self._check(withdraw_a)
        self._check(withdraw_b)
        second = int(np.random.SeedSequence([seed, PAIRED_STREAM]).generate_state(1)[0])
        return withdraw_a.lower(), withdraw_b.lower(), second

    def run_paired(
        self, games: int, seed: int, withdraw_a, withdraw_b
    ) -> tuple[Tallies, Tallies, int]:
        """``games`` fights under A and B on the same cards: (A's tallies, B's, the fights in
        which the two policies parted)."""
        from simkit.kernels.combat_paired import simulate_paired

        wd_a, wd_b, second = self._paired_setup(seed, withdraw_a, withdraw_b)
        kit = self._kit(wd_a, wd_b)
        sizes = chunk_sizes(games, MC_CHUNK)
        a, b, forks = Tallies.empty(), Tallies.empty(), 0
        for rng, rng2, n in zip(
            chunk_generators(seed, len(sizes)),
            chunk_generators(second, len(sizes)),
            sizes,
            strict=True,
        ):
            out = _paired_tallies()
            forks += simulate_paired(kit, rng, rng2, n, self.st0, *out)
            a = a + Tallies(n, *(x[0] for x in out))
            b = b + Tallies(n, *(x[1] for x in out))
        return a, b, int(forks)

    def run_to_target(
        self,
        seed: int,
        stage: np.ndarray,
        withdraw_a=None,
        withdraw_b=None,
        first_a: Tallies | None = None,
    ) -> tuple[Tallies | None, Tallies | None]:
        """Columns A and B (None: not played) to a P(destroy) precision, all stages in one
        kernel call (simkit.kernels.combat_paired.simulate_to_target; ``stage``: its
        settings): shared-card games while both columns need more, then the one still short
        alone. ``first_a``: games of A already played, which count. The games of one
        ``seed`` are always the same; returns each played column's tallies."""
        from simkit.kernels.combat_paired import simulate_to_target

        play_a, play_b = withdraw_a is not None, withdraw_b is not None
        wd_a, wd_b, second = self._paired_setup(seed, withdraw_a, withdraw_b)
        kit = self._kit(wd_a, wd_b)
        out = _paired_tallies()
        if first_a is not None:
            for arr, part in zip(
                out, (first_a.outcomes, first_a.lost, first_a.hist, first_a.cards), strict=True
            ):
                arr[0] = part
        simulate_to_target(
            kit,
            chunk_generators(seed, 1)[0],
            chunk_generators(second, 1)[0],
            self.st0,
            (play_a, play_b),
            stage,
            *out,
        )
        cols = [
            Tallies(int(out[0][i].sum()), *(x[i].copy() for x in out)) if play else None
            for i, play in enumerate((play_a, play_b))
        ]
        return cols[0], cols[1]

    def odds(self, tallies: Tallies, withdraw=None, seed: int | None = None) -> CombatOdds:
        """The result of some runs under ``withdraw`` (their tallies added up)."""
        _, withdraw = policies(None, withdraw)
        t = tallies
        return _mc_result(
            self.combat,
            self.data,
            self.st0,
            self.cost,
            t.games,
            seed,
            self.allocate,
            withdraw,
            self.solved if isinstance(withdraw, OptimalTable) else None,
            t.outcomes,
            t.lost,
            t.hist,
            t.cards,
        )


def paired_monte_carlo_odds(
    combat: Combat,
    data: AuzData,
    games: int,
    seed: int,
    withdraw_b,
    solved_table=None,
    allocate=None,
    withdraw_a=None,
) -> tuple[CombatOdds, CombatOdds, int]:
    """Monte Carlo of two withdraw policies on the same cards (MonteCarloRunner.run_paired):
    (odds under ``withdraw_a``, default never, odds under ``withdraw_b``, fights where they
    parted). The A column is exactly :func:`monte_carlo_odds` with the same seed.
    ``solved_table``: the table of whichever policy is an OptimalTable (solved if not given).
    """
    allocate, withdraw_a = policies(allocate, withdraw_a)
    _, withdraw_b = policies(None, withdraw_b)
    if isinstance(withdraw_a, OptimalTable) and isinstance(withdraw_b, OptimalTable):
        raise UserError("paired Monte Carlo plays at most one withdraw table")
    if games <= 0:
        raise UserError(f"--games must be positive, got {games}")
    table_policy = withdraw_a if isinstance(withdraw_a, OptimalTable) else withdraw_b
    if solved_table is None and isinstance(table_policy, OptimalTable):
        st0, mx, cost = combat_arrays(combat, data)
        solved_table = withdraw_table_for(combat, data, allocate, table_policy, st0, mx, cost)
    runner = MonteCarloRunner(combat, data, solved_table, allocate)
    a, b, forks = runner.run_paired(games, seed, withdraw_a, withdraw_b)
    return runner.odds(a, withdraw_a, seed), runner.odds(b, withdraw_b, seed), forks


__all__ = [
    "STATE_BUDGET",
    "Combat",
    "card_classes",
    "cards_fingerprint",
    "compositions_within",
    "estimated_compositions",
    "CombatEnd",
    "CombatOdds",
    "ExactTooLarge",
    "auto_odds",
    "available_cards",
    "combat_arrays",
    "exact_needs_more",
    "exact_odds",
    "monte_carlo_odds",
    "MonteCarloRunner",
    "paired_monte_carlo_odds",
    "Tallies",
    "parse_force",
    "parse_old_ones",
    "parse_seen",
    "play_cards",
    "policies",
    "policy_in_words",
    "withdraw_table_for",
]
