"""``CombatKit``: everything a combat kernel reads besides the state, as one numba StructRef.

A fight is the state ``st`` (simkit.kernels.low.combat_layout) and a kit: the deck's
cards (what each card does to each Old One type), the deck to draw from, the matchup
(``mx``, ``mx_cost``), the players' policies (allocation and withdrawal ids and
parameters, the solved withdraw table), the Revenge port-flip threshold and the work
buffers the no-allocation kernels write into. Kernels take ``(kit, st, ...)`` instead of
twenty-odd positional arrays; the kit is one pointer, as simkit.kernels.game_state does
for the game engine (and for the same reason: a tuple of arrays is passed as hundreds of
scalars and makes every kernel slow to compile).

Fields (``kit.NAME``):

    card_hits, card_purple, card_sanity, card_airship
                   [card, Old One type]: the hit mask, purple cubes, sanity and airship
                   damage of each card (AuzData / the game's Static arrays, shared)
    start_deck     int64[n]: the cards the first deck holds (a fresh deck: all of them)
    mx, mx_cost    the matchup (int64 [MATCHUP_SIZE], float64 [NUM_STACKS])
    alloc_id, alloc_params   purple-cube allocation (strategies.combat.allocation)
    wd_id, wd_params         withdrawal (strategies.combat.withdrawal)
    wd_b_id, wd_b_params     the second withdrawal of a paired run (else = wd_*)
    wd_table       int64 [slots, TABLE_COLS]: the solved withdraw table (or EMPTY_TABLE)
    flip_threshold Revenge: port damage that flips a surviving strength-4 port
    deck, deck2    int64 [cards]: the deck being drawn (deck2: a paired run's second deck)
    state, state_b, scratch
                   int64 [STATE_SIZE]: the state played, policy B's state, a copy to
                   look ahead on (Corporal Jones); not ``st``, which numba's generated
                   StructRef constructor uses for the struct itself
    dmg            int64 [MAX_OLD_ONES]: one card's damage per Old One
    tape           int64 [n]: the cards one combat drew (paired play replays them)

The arrays are shared, not copied: a kernel that changes ``kit.mx`` (the port joining
the fight) changes the caller's array, as the positional kernels did.

``KitView`` is the same fields as a named tuple, which the draw loop reads: a StructRef
field read needs numba's runtime (NRT), and the Monte Carlo kernels are compiled without
it (see simkit/kernels/combat.py: NRT's reference counting around every inlined helper
costs several times the work of a card). An entry kernel takes the kit, ``view(kit)``
unpacks it once, and the loop over fights runs on the view (measured on the benchmark
fight: the view 17-20 M draws/s, the StructRef read inside the loop 10-11, the old
positional kernel 15). The game engine, which keeps these arrays elsewhere, builds a
KitView directly.
"""

from __future__ import annotations

from collections import namedtuple

import numba as nb
import numpy as np
from numba.extending import overload

from simkit.kernels.low import combat_layout as C
from simkit.kernels.low.jit import define_kit

FIELDS = (
    "card_hits",
    "card_purple",
    "card_sanity",
    "card_airship",
    "start_deck",
    "mx",
    "mx_cost",
    "alloc_id",
    "alloc_params",
    "wd_id",
    "wd_params",
    "wd_b_id",
    "wd_b_params",
    "wd_table",
    "flip_threshold",
    "deck",
    "deck2",
    "state",
    "state_b",
    "scratch",
    "dmg",
    "tape",
)


# one compiled kernel for every kit: ids and thresholds are values, not literals (KitType)
CombatKitType, CombatKit = define_kit("CombatKit", FIELDS, __name__)

KitView = namedtuple("KitView", FIELDS)

RUN_FIELDS = ("stack_order", "old_one_slots")
RunView = namedtuple("RunView", FIELDS + RUN_FIELDS)
RunView.__doc__ = """A KitView and what stays fixed over a Monte Carlo run, worked out once
(simkit.kernels.combat.run_view) instead of for every card: ``stack_order``, the
allocation's stack order (strategies.combat.allocation.stack_order; -1: none), and
``old_one_slots``, the Old One slots in use (the later ones are empty)."""


def with_run(v, stack_order, old_one_slots):
    """(jitted) The KitView v as a RunView."""
    raise NotImplementedError("jitted only")


@overload(with_run, inline="always")
def _with_run(v, stack_order, old_one_slots):
    # inlined: the tuple of arrays is then the caller's, with or without NRT
    fields = ", ".join(f"v.{f}" for f in FIELDS)
    space = {"RunView": RunView}
    exec(  # noqa: S102
        f"def impl(v, stack_order, old_one_slots):\n"
        f"    return RunView({fields}, stack_order, old_one_slots)",
        space,
    )
    return space["impl"]


def _field(name):
    """A read-only Python property for one field (jitted on first use; kernels read the
    fields directly)."""

    @nb.njit
    def get(kit):
        return getattr(kit, name)

    return property(lambda self: get(self), doc=f"kit.{name}")


for _name in FIELDS:
    setattr(CombatKit, _name, _field(_name))


@nb.njit(cache=True)
def _kit(t):
    return CombatKit(*t)


@nb.njit(cache=True, inline="always")
def view(kit):
    """The kit's fields as a KitView (the same arrays)."""
    return KitView(
        kit.card_hits,
        kit.card_purple,
        kit.card_sanity,
        kit.card_airship,
        kit.start_deck,
        kit.mx,
        kit.mx_cost,
        kit.alloc_id,
        kit.alloc_params,
        kit.wd_id,
        kit.wd_params,
        kit.wd_b_id,
        kit.wd_b_params,
        kit.wd_table,
        kit.flip_threshold,
        kit.deck,
        kit.deck2,
        kit.state,
        kit.state_b,
        kit.scratch,
        kit.dmg,
        kit.tape,
    )


@nb.njit(cache=True, inline="always")
def with_withdrawal(v, wd_id, wd_params):
    """The view v with another withdrawal policy (paired play's policy B)."""
    return KitView(
        v.card_hits,
        v.card_purple,
        v.card_sanity,
        v.card_airship,
        v.start_deck,
        v.mx,
        v.mx_cost,
        v.alloc_id,
        v.alloc_params,
        wd_id,
        wd_params,
        v.wd_b_id,
        v.wd_b_params,
        v.wd_table,
        v.flip_threshold,
        v.deck,
        v.deck2,
        v.state,
        v.state_b,
        v.scratch,
        v.dmg,
        v.tape,
    )


def combat_kit(
    cards,
    mx: np.ndarray,
    mx_cost: np.ndarray,
    start_deck: np.ndarray,
    alloc: tuple[int, np.ndarray],
    withdraw: tuple[int, np.ndarray],
    wd_table: np.ndarray,
    flip_threshold: int,
    *,
    withdraw_b: tuple[int, np.ndarray] | None = None,
    tape_size: int = 1,
) -> CombatKit:
    """A kit with fresh work buffers.

    cards: anything with the four card arrays as attributes (AuzData, the game's Static);
    alloc / withdraw / withdraw_b: a policy's ``lower()`` (id, params); tape_size: the most
    cards one combat can draw, for paired play (1 when no tape is kept).
    """
    n_cards = cards.card_hits.shape[0]
    wd_b = withdraw if withdraw_b is None else withdraw_b

    def state():
        return np.zeros(C.STATE_SIZE, dtype=np.int64)

    return _kit(
        (
            cards.card_hits,
            cards.card_purple,
            cards.card_sanity,
            cards.card_airship,
            np.ascontiguousarray(start_deck, dtype=np.int64),
            np.ascontiguousarray(mx, dtype=np.int64),
            np.ascontiguousarray(mx_cost, dtype=np.float64),
            np.int64(alloc[0]),
            np.ascontiguousarray(alloc[1], dtype=np.float64),
            np.int64(withdraw[0]),
            np.ascontiguousarray(withdraw[1], dtype=np.float64),
            np.int64(wd_b[0]),
            np.ascontiguousarray(wd_b[1], dtype=np.float64),
            np.ascontiguousarray(wd_table, dtype=np.int64),
            np.int64(flip_threshold),
            np.arange(n_cards, dtype=np.int64),
            np.arange(n_cards, dtype=np.int64),
            state(),
            state(),
            state(),
            np.zeros(C.MAX_OLD_ONES, dtype=np.int64),
            np.zeros(max(tape_size, 1), dtype=np.int64),
        )
    )
