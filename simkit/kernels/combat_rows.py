"""One result row per combat, for the experiment runner (the draw loop of play_one).

Seeding (documented in experiments/README.md): combat ``g`` of a chunk gets one 64-bit
key, the g-th raw output of the chunk's PCG64 (drawn by the caller, so the kernel takes
pre-drawn arrays, not a hidden RNG). The key is expanded by SplitMix64 used as a counter
(uniform k = mix(key + (k + 1) * GAMMA)) into that combat's card order: a Fisher-Yates
shuffle of the start deck, then of the full deck for each reshuffle the fight can take
(simkit.combat.pass_bound: enough for any fight to end, a stalemate included). The order is
handed to :func:`simkit.kernels.combat.play_one` as its ``Script``, so every card is
resolved by the very code the odds calculator uses.

Why not one Generator drawn in turn: combats consume different numbers of cards, so two
cells of a grid would fall out of step after their first combat. With one key per combat,
combat ``g`` of chunk ``c`` sees the same card order in every cell (common random numbers:
paired differences between cells are much tighter), and any single row is rebuilt from
(root seed, chunk, game) alone: ``PCG64.advance(g)`` then one raw draw.

Only the first ``script_short.size`` cards are shuffled up front; the rare combat that
reaches the end of that prefix is replayed from the start with the whole order (the prefix
is identical, so the replay is the same combat carried on).

Compiled without NRT (see simkit/kernels/combat.py): no allocation inside, every buffer
is the caller's; ``nogil`` lets threaded workers (Dask processes=False) run in parallel.
"""

import numba as nb
import numpy as np

from simkit.kernels.combat import Script, copy_into, play_one, port_flipped, run_view
from simkit.kernels.low import combat_layout as C
from simkit.kernels.low.combat_kit import view

GAMMA = np.uint64(0x9E3779B97F4A7C15)
MIX1 = np.uint64(0xBF58476D1CE4E5B9)
MIX2 = np.uint64(0x94D049BB133111EB)
TO_UNIT = 1.0 / 9007199254740992.0  # 2**-53
SCRIPT_PREFIX = 16  # cards shuffled before a combat starts (a longer combat is replayed)
MID_PASSES = 2  # fresh decks in the second script (the rare longer combat gets them all)


@nb.njit(cache=True, inline="always")
def key_uniform(key, k):
    """The k-th uniform in [0, 1) of a combat's key (SplitMix64 output k)."""
    z = key + np.uint64(k + 1) * GAMMA
    z = (z ^ (z >> np.uint64(30))) * MIX1
    z = (z ^ (z >> np.uint64(27))) * MIX2
    z = z ^ (z >> np.uint64(31))
    return np.float64(z >> np.uint64(11)) * TO_UNIT


@nb.njit(cache=True, inline="always")
def card_order(key, script, start_deck, full_size, work_deck):
    """Fill script[:] with the first script.size cards of the combat keyed by ``key``.

    Segment 0 shuffles start_deck (the cards not yet seen); every later segment the full
    deck (0..full_size-1), as a reshuffle of the whole discard pile does.
    """
    pos = 0
    seg = 0
    while pos < script.size:
        m = start_deck.size if seg == 0 else full_size
        if seg == 0:
            copy_into(work_deck, start_deck)
        else:
            for i in range(full_size):
                work_deck[i] = i
        i = 0
        while i < m and pos < script.size:
            j = i + int(key_uniform(key, pos) * (m - i))
            card = work_deck[j]
            work_deck[j] = work_deck[i]
            work_deck[i] = card
            script[pos] = card
            pos += 1
            i += 1
        seg += 1


@nb.njit(cache=True, nogil=True, _nrt=False)
def _rows(v, keys, st0, rows, scripts):
    out_outcome, out_cards, out_sanity, out_port_hits, out_flip, out_lost = rows
    full_size = v.card_hits.shape[0]
    st = v.state
    for g in range(keys.size):
        key = keys[g]
        played = 0
        for stage in range(3):
            script = scripts[stage]
            if stage > 0:
                if not ((st[C.CARDS] >= played) & (st[C.OUTCOME] == C.WITHDRAW)):
                    break  # the combat ended before its script did
                if script.size <= played:
                    continue  # no longer than the last one
            card_order(key, script, v.start_deck, full_size, v.deck)
            copy_into(st, st0)
            play_one(v, st, Script(script, v.start_deck.size))
            played = script.size
        out_outcome[g] = st[C.OUTCOME]
        out_cards[g] = st[C.CARDS]
        out_sanity[g] = st[C.SANITY]
        out_port_hits[g] = st[C.PORT_HITS]
        out_flip[g] = 1 if port_flipped(st, v.flip_threshold) else 0
        for s in range(C.NUM_STACKS):
            out_lost[s, g] = st[C.LOST + s]


@nb.njit(cache=True, nogil=True)
def combat_rows(kit, keys, st0, rows, scripts):
    """Play one combat per key from st0; write one row per combat into ``rows``.

    keys: uint64[n]. rows = (outcome int8[n], cards int16[n], sanity int8[n], port_hits
    int8[n], flip int8[n], lost int8[NUM_STACKS, n] (units lost per stack)).
    scripts = (short, mid, full): full has start_deck.size + pass_bound * full deck entries
    (every card the combat may draw), short min(SCRIPT_PREFIX, that) and mid
    min(start_deck.size + MID_PASSES * full deck, that): a combat is replayed on the next
    longer script only when it ran out of the shorter one. Plays on kit.state, shuffles
    in kit.deck.
    """
    _rows(run_view(view(kit), st0), keys, st0, rows, scripts)
