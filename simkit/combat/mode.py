"""Mode "combat": one fight per row, for experiment grids over forces, Old Ones and policies.

Each game of this mode is one combat (Monte Carlo with fixed policies). Its parameters
are the ``simkit combat`` options; the combat "strategies" are the allocation and
withdrawal policies, validated here by name before any work starts.

Seeding: combat ``g`` of chunk ``c`` is played from key ``combat_keys(root, c, g+1)[g]``:
the g-th raw output of ``PCG64(SeedSequence(root).spawn(..)[c])``, expanded into a card
order in simkit.kernels.combat_rows. Cells that share a root seed share keys (common
random numbers), and :func:`replay` rebuilds any single row from (root, chunk, game).
"""

from __future__ import annotations

from collections.abc import Callable, Mapping
from dataclasses import dataclass
from typing import Any

import numpy as np

from simkit.combat import (
    Combat,
    available_cards,
    combat_arrays,
    parse_seen,
    pass_bound,
    withdraw_table_for,
)
from simkit.datapack import AuzData
from simkit.errors import UserError
from simkit.kernels.combat_rows import MID_PASSES, SCRIPT_PREFIX, combat_rows
from simkit.kernels.low import combat_layout as C
from simkit.kernels.low.combat_kit import combat_kit
from simkit.kernels.low.combat_table_lookup import EMPTY_TABLE
from simkit.modes import Mode, Param, register
from simkit.names import NUM_STACKS, OLD_ONES, STACKS
from strategies.combat import (
    ALLOCATION_POLICIES,
    WITHDRAW_POLICIES,
    parse_allocation,
    parse_withdrawal,
)
from strategies.combat.allocation import OptimalAllocation
from strategies.combat.withdrawal import OptimalWithdrawal

MODE = "combat"
DEFAULT_CHUNK = 250_000  # about 0.1 s of kernel time per chunk plus writing it


@dataclass(frozen=True)
class ParsedParam(Param):
    """A text parameter checked by a parser (force, Old Ones, policies); errors name the key.

    The value kept is canonical (``canonical(parsed)``, else trimmed lower case), so
    'Infantry=2' and 'infantry=2' are one cell and one folder of the lake.
    """

    parser: Callable[[str], Any] | None = None
    expected: str = ""
    canonical: Callable[[Any], str] | None = None

    def check(self, mode: str, key: str, value: Any) -> Any:
        value = super().check(mode, key, value)
        try:
            parsed = self.parser(value) if self.parser else value
        except UserError as exc:
            text = (
                f"{_strip_flag(str(exc))} (expected: {self.expected})"
                if self.expected
                else str(exc)
            )
            raise UserError(f"mode '{mode}': parameter '{key}': {text}") from None
        if isinstance(parsed, OptimalAllocation | OptimalWithdrawal):
            raise UserError(
                f"mode '{mode}': parameter '{key}': '{value}' is an exact-solver policy; "
                f"Monte Carlo plays fixed policies (expected: {self.expected})"
            )
        return self.canonical(parsed) if self.canonical else value.strip().lower()


def _strip_flag(message: str) -> str:
    return message.replace("--allocate ", "").replace("--withdraw ", "").split(" (expected")[0]


def _personalities(text: str) -> tuple[str, ...]:
    from simkit.names import personality_name

    return tuple(personality_name(t) for t in text.split(",") if t.strip())


_FIXED_ALLOCATE = ", ".join(p for p in ALLOCATION_POLICIES if p != "optimal")
_FIXED_WITHDRAW = ", ".join(p for p in WITHDRAW_POLICIES if p not in ("optimal", "value"))

PARAMS: dict[str, Param] = {
    "force": ParsedParam(
        str,
        "infantry=2",
        parser=lambda t: _parse_force(t),
        canonical=lambda f: ",".join(f"{STACKS[s]}={n}" for s, n in enumerate(f) if n),
        help="units per type, e.g. 'infantry=2,artillery=1'",
    ),
    "vs": ParsedParam(
        str,
        "zombie",
        parser=lambda t: _parse_old_ones(t),
        canonical=lambda types: ",".join(OLD_ONES[t] for t in types),
        help="Old One(s) in the hex, e.g. 'shoggoth' or 'zombie,zombie'",
    ),
    "allocate": ParsedParam(
        str,
        "cheapest",
        parser=parse_allocation,
        expected=_FIXED_ALLOCATE,
        help="where purple cubes go (strategies.combat)",
    ),
    "withdraw": ParsedParam(
        str,
        "never",
        parser=parse_withdrawal,
        expected=_FIXED_WITHDRAW,
        help="when to withdraw (strategies.combat)",
    ),
    "personalities": ParsedParam(
        str,
        "",
        parser=_personalities,
        canonical=lambda p: ",".join(sorted(set(p))),
        help="comma-separated personalities",
    ),
    "old_one_damage": Param(int, 0, minimum=0, maximum=20, help="damage already on the Old One(s)"),
    "port_strength": Param(
        int, 0, minimum=0, maximum=9, help="Revenge port in the fight (0: none)"
    ),
    "port_defence": Param(bool, False, help="everything fights, no withdrawal"),
    "extra_sanity": Param(int, 0, minimum=0, maximum=20, help="sanity tokens beyond the pack's"),
    "seen": ParsedParam(
        str,
        "",
        parser=lambda t: parse_seen(t),
        canonical=lambda c: ",".join(map(str, c)),
        help="card numbers already discarded",
    ),
}


def _parse_force(text: str):
    from simkit.combat import parse_force

    return parse_force(text)


def _parse_old_ones(text: str):
    from simkit.combat import parse_old_ones

    return parse_old_ones(text)


@dataclass(frozen=True)
class Prepared:
    """A cell lowered to kernel arrays (built once per chunk; cheap)."""

    st0: np.ndarray
    mx: np.ndarray
    cost: np.ndarray
    start_deck: np.ndarray
    alloc: tuple[int, np.ndarray]
    wd: tuple[int, np.ndarray]
    wd_table: np.ndarray  # the solved withdraw table (policy 'table'), else an empty one
    script_len: int
    vp_destroy: int
    oop_vp: np.ndarray


def prepare(params: Mapping[str, Any], data: AuzData) -> Prepared:
    """Lower validated parameters against a data pack; raises UserError on impossible cells."""
    combat = Combat.parse(
        params["force"],
        params["vs"],
        old_one_damage=params["old_one_damage"],
        port_defence=params["port_defence"],
        port_strength=params["port_strength"],
        personalities=_personalities(params["personalities"]),
        extra_sanity=params["extra_sanity"],
    )
    st0, mx, cost = combat_arrays(combat, data)
    start_deck = np.flatnonzero(available_cards(data, parse_seen(params["seen"]))).astype(np.int64)
    full = data.card_hits.shape[0]
    # every card the fight can draw: the start deck, then fresh decks until it must end
    script_len = start_deck.size + pass_bound(st0, mx) * full
    allocate, withdraw = parse_allocation(params["allocate"]), parse_withdrawal(params["withdraw"])
    solved = withdraw_table_for(
        combat, data, allocate, withdraw, st0, mx, cost, parse_seen(params["seen"])
    )
    return Prepared(
        st0=st0,
        mx=mx,
        cost=cost,
        start_deck=start_deck,
        alloc=allocate.lower(),
        wd=withdraw.lower(),
        wd_table=EMPTY_TABLE if solved is None else solved.table,
        script_len=script_len,
        vp_destroy=int(sum(data.old_one_vp[t] for t in combat.old_ones)),
        oop_vp=data.unit_oop_vp.astype(np.int64),
    )


def check_cell(params: Mapping[str, Any], data: AuzData) -> None:
    prepare(params, data)


def chunk_bit_generator(root_seed: int, chunk_id: int) -> np.random.PCG64:
    """The chunk's PCG64: seeded by SeedSequence(root).spawn(..)[chunk_id]."""
    return np.random.PCG64(np.random.SeedSequence(root_seed, spawn_key=(chunk_id,)))


def combat_keys(root_seed: int, chunk_id: int, n_games: int) -> np.ndarray:
    """One 64-bit key per combat of the chunk (uint64[n_games])."""
    return chunk_bit_generator(root_seed, chunk_id).random_raw(n_games)


def play_keys(prep: Prepared, data: AuzData, keys: np.ndarray) -> dict[str, np.ndarray]:
    """Run the row kernel on the given keys and return the summary columns."""
    n = keys.size
    outcome = np.empty(n, dtype=np.int8)
    cards = np.empty(n, dtype=np.int16)
    sanity = np.empty(n, dtype=np.int8)
    port_hits = np.empty(n, dtype=np.int8)
    flip = np.empty(n, dtype=np.int8)
    lost = np.empty((NUM_STACKS, n), dtype=np.int8)
    full = data.card_hits.shape[0]
    kit = combat_kit(
        data,
        prep.mx,
        prep.cost,
        prep.start_deck,
        prep.alloc,
        prep.wd,
        prep.wd_table,
        data.port["flip_threshold"],
    )
    scripts = (
        np.empty(min(SCRIPT_PREFIX, prep.script_len), dtype=np.int64),
        np.empty(min(prep.start_deck.size + MID_PASSES * full, prep.script_len), dtype=np.int64),
        np.empty(prep.script_len, dtype=np.int64),
    )
    combat_rows(kit, keys, prep.st0, (outcome, cards, sanity, port_hits, flip, lost), scripts)
    destroyed = (outcome <= C.WIN_AND_DEFEAT).astype(np.int8)
    defeated = ((outcome == C.WIN_AND_DEFEAT) | (outcome == C.DEFEAT)).astype(np.int8)
    lost64 = lost.astype(np.int64)
    cols: dict[str, np.ndarray] = {
        "game_index": np.arange(n, dtype=np.int32),
        "outcome": outcome,
        "destroyed": destroyed,
        "defeated": defeated,
        "cards": cards,
        "sanity_left": sanity,
        "port_hits": port_hits,
        "port_flip": flip,
        "units_lost": lost64[: C.PORT_STACK].sum(axis=0).astype(np.int8),
        "gold_lost": (prep.cost @ lost64).astype(np.float32),
        "vp_old_ones": (destroyed.astype(np.int16) * np.int16(prep.vp_destroy)),
        "vp_oop_units": (prep.oop_vp @ lost64).astype(np.int16),
    }
    for s in range(NUM_STACKS):
        cols[f"lost_{STACKS[s]}"] = lost[s]
    return cols


def run_chunk(
    params: Mapping[str, Any],
    data: AuzData,
    root_seed: int,
    chunk_id: int,
    n_games: int,
    outputs: frozenset,
) -> dict[str, dict[str, np.ndarray]]:
    prep = prepare(params, data)
    return {"summary": play_keys(prep, data, combat_keys(root_seed, chunk_id, n_games))}


def replay(
    params: Mapping[str, Any], data: AuzData, root_seed: int, chunk_id: int, game_index: int
) -> dict[str, Any]:
    """Rebuild one summary row alone from (root seed, chunk id, game index)."""
    bitgen = chunk_bit_generator(root_seed, chunk_id)
    bitgen.advance(game_index)
    cols = play_keys(prepare(params, data), data, bitgen.random_raw(1))
    row = {k: v[0].item() for k, v in cols.items()}
    row["game_index"] = game_index
    return row


COMBAT_MODE = register(
    Mode(
        name=MODE,
        params=PARAMS,
        run_chunk=run_chunk,
        key_metric="destroyed",
        outputs=frozenset({"summary"}),
        description="one Monte Carlo combat per row "
        "(simkit combat --method mc with fixed policies)",
        extra={
            "default_chunk_size": DEFAULT_CHUNK,
            "row_unit": "fights",  # what a row is (progress bars count these)
            "check": check_cell,
            "data": "auztralia",
            "partition_hint": ("vs", "force"),
            "replay": replay,
        },
    )
)
