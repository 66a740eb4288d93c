"""The size of a fight's state space: how many decks it can go through, the card classes
the exact solver counts, the deck compositions it may reach, and the memory its budget takes."""

from __future__ import annotations

import numpy as np

from simkit.combat.parse import Combat, available_cards, combat_arrays
from simkit.core.classes import group_cards
from simkit.datapack import AuzData
from simkit.kernels.low import combat_layout as C
from simkit.names import NUM_STACKS, OUTPOST, PORT, UNITS

STATE_BUDGET = 2_000_000  # exact-solver states before it gives up (memory ~ 300 B per state)


def pass_bound(st0: np.ndarray, mx: np.ndarray) -> int:
    """Fresh decks a fight from st0 can go through before it must end.

    Each deck that changes the fight uses up at least one of: a cube a stack can still
    absorb, a Sanity token, a point of an Old One's remaining capacity, a withdrawal
    (two groups, and Corporal Jones); the deck after the last change ends it as a
    stalemate (simkit.kernels.combat.play_one).
    """
    absorb = sum(int(st0[C.COUNT + s]) * int(mx[C.CAPACITY + s]) for s in range(NUM_STACKS))
    old_ones = sum(
        max(int(mx[C.OO_CAPACITY + i]) - int(st0[C.OO_DAMAGE + i]), 0)
        for i in range(C.MAX_OLD_ONES)
        if mx[C.OO_TYPE + i] >= 0
    )
    return absorb + int(st0[C.SANITY]) + old_ones + 3 + 1


_DECK_CLASSES: dict = {}  # _deck_classes by what the cards do and which are left


def card_effects(data: AuzData, force_mask: int, old_ones) -> np.ndarray:
    """What each card does to a force with these unit bits and these Old One types: per card,
    (hits on the force, purple, sanity, airship) for each type, side by side (int64)."""
    return np.concatenate(
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


def _deck_classes(data: AuzData, force_mask: int, old_ones, available: np.ndarray):
    """The exact solver's card classes (group_cards of what each card does to this force and
    these Old One types): (rep, full, avail, place). Cached by the cards' effects (the odds
    table asks for the same few thousand times); callers get copies."""
    effects = card_effects(data, force_mask, old_ones)
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


def card_classes(combat: Combat, data: AuzData, seen: tuple[int, ...] = ()) -> np.ndarray:
    """How many cards of each outcome class (cards that do the same in this fight) remain:
    the exact solver's deck state is one count per class."""
    st0, _, _ = combat_arrays(combat, data)
    force_mask = sum(1 << u for u in range(len(UNITS)) if st0[C.COUNT + u] > 0)
    if st0[C.COUNT + OUTPOST] > 0 or st0[C.COUNT + PORT] > 0:
        force_mask |= 1
    effects = card_effects(data, force_mask, combat.old_ones)
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
