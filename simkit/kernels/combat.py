"""AuZtralia combat resolution ("Resolving Combat", base rules + Revenge ports/outposts).

Resolution is split from chance: :func:`card_effect` reads one drawn card,
:func:`apply_card` changes the state, :func:`check_end` / :func:`finish` close the
combat. The draw loop here and the exact solver in combat_exact.py call exactly these
functions. State layout: simkit/kernels/low/combat_layout.py.

One draw loop, :func:`play_one` (view, state, source), plays every fight: Monte Carlo
(:func:`simulate_combats`), scripted play (:func:`play_script`), the experiment runner's
rows (combat_rows.py), paired play (combat_paired.py: A on a recording source, B on a
replaying one) and the game engine's fights (game_combat.py, through :func:`play`).
Entry kernels take a CombatKit (simkit.kernels.low.combat_kit) and run the loop on its
KitView; the Monte Carlo kernels on a RunView (:func:`run_view`), the same view with what
stays fixed over a run worked out once (the allocation's stack order, the Old One slots in
use): the same rules, the same fights (tests/test_combat_run_view.py).
"""

from collections import namedtuple

import numba as nb
import numpy as np
from numba.core import types
from numba.extending import overload

from simkit.kernels.combat_chance import Ahead, Chance, draw_ahead
from simkit.kernels.low import combat_layout as C
from simkit.kernels.low.combat_kit import RunView, view, with_run
from simkit.kernels.low.deck import draw_card, refill_full
from simkit.kernels.low.port import port_flips
from simkit.kernels.low.rand import uniform
from strategies.combat.allocation import SPREAD, choose_stack, first_with_units, stack_order
from strategies.combat.withdrawal import asks_before_cards, jones_decision, withdraw_decision

# The draw loop is compiled with _nrt=False: numba's reference counting of array
# arguments around every inlined helper call blocks LLVM from keeping array metadata in
# registers (measured: 38 ns -> 6 ns per card effect). Such kernels must not allocate
# (every work buffer is the kit's) and must not return arrays to a kernel with NRT.
NO_NRT = {"cache": True, "_nrt": False}
NUM_UNIT_BITS = 5
LOST_HIST = 16  # histogram bins for units lost in one combat (last bin: that many or more)


@nb.njit(cache=True, inline="always")
def copy_into(dst, src):
    """dst[:len(src)] = src without a temporary (usable in no-NRT kernels)."""
    for k in range(src.size):
        dst[k] = src[k]


@nb.njit(cache=True, inline="always")
def present_mask(st, mx):
    """Bit mask of the unit types fighting now (the card's hit symbols are matched to it).
    The Port token hits only where it fights (mx[PORT_FIGHTS])."""
    mask = 0
    for s in range(C.NUM_STACKS):
        # bitwise &: numba compiles `and` to a branch per operand
        if (
            (st[C.COUNT + s] > 0)
            & (mx[C.HITBIT + s] >= 0)
            & ((s != C.PORT_STACK) | (mx[C.PORT_FIGHTS] != 0))
        ):
            mask |= 1 << mx[C.HITBIT + s]
    return mask


@nb.njit(cache=True, inline="always")
def combatants(st, mx):
    """Units still in the fight (a Port token that only takes cubes is not one)."""
    n = 0
    for s in range(C.NUM_STACKS):
        if s != C.PORT_STACK or mx[C.PORT_FIGHTS] != 0:
            n += st[C.COUNT + s]
    return n


@nb.njit(cache=True, inline="always")
def absorbable(st, mx, s):
    """Cubes stack s can still take before its last unit is gone."""
    return st[C.COUNT + s] * mx[C.CAPACITY + s] - st[C.DAMAGE + s]


@nb.njit(cache=True, inline="always")
def old_one_alive(st, mx, i):
    # bitwise &, not `and`: numba compiles the short-circuit form to a much slower branch
    return (mx[C.OO_TYPE + i] >= 0) & (st[C.OO_DAMAGE + i] < mx[C.OO_CAPACITY + i])


@nb.njit(cache=True, inline="always")
def place_cubes(st, mx, s, n):
    """Put n cubes on stack s one at a time; a full stack loses its top unit. Returns how
    many were placed (any: the fight has changed, st[PROGRESS]).

    Counted, not looped: the cubes go on until the stack is gone (absorbable), every
    capacity-th cube on the stack takes a unit, the rest stay as damage. The same result
    as placing them one by one, without a branch per cube (nor on n <= 0: no change)."""
    cap = max(mx[C.CAPACITY + s], 1)  # a stack always holds at least one cube per unit
    placed = max(min(n, st[C.COUNT + s] * cap - st[C.DAMAGE + s]), 0)
    total = st[C.DAMAGE + s] + placed
    lost = (total // cap) * (n > 0)
    st[C.DAMAGE + s] = total - lost * cap
    st[C.COUNT + s] -= lost
    st[C.LOST + s] += lost
    st[C.PORT_HITS] += placed if s == C.PORT_STACK else 0
    st[C.PROGRESS] |= placed > 0
    return placed


@nb.njit(cache=True, inline="always")
def popcount5(x):
    x = (x & 0x15) + ((x >> 1) & 0x05)  # pairs of bits (unit bits 0..4)
    return (x & 0x03) + ((x >> 2) & 0x03) + ((x >> 4) & 0x01)


@nb.njit(cache=True, inline="always")
def card_effect(st, mx, card_hits, card_purple, card_sanity, card_airship, c, dmg_out):
    """What card c does: damage per Old One (into dmg_out) and (purple, sanity, airship) taken.

    Several Old Ones share the card: each takes the hits of its own row, and what
    each row inflicts is added once per living Old One (multiplied by their number).
    mx[EXTRA_PURPLE] more purple cubes come with every card (Revenge Mythos, else 0).
    """
    mask = present_mask(st, mx)
    p = 0
    s_loss = 0
    a = 0
    for i in range(C.MAX_OLD_ONES):
        dmg_out[i] = 0
        if not old_one_alive(st, mx, i):
            continue
        t = mx[C.OO_TYPE + i]
        dmg_out[i] = popcount5(np.int64(card_hits[c, t]) & mask)
        p += card_purple[c, t]
        s_loss += card_sanity[c, t]
        a += card_airship[c, t]
    return p + mx[C.EXTRA_PURPLE], s_loss, a


@nb.njit(cache=True, inline="always")
def apply_card(st, mx, dmg, sanity_loss, airship_damage):
    """Apply everything but the purple cubes; return True if sanity ran short (defeat)."""
    for i in range(C.MAX_OLD_ONES):
        st[C.OO_DAMAGE + i] += dmg[i]
        if dmg[i] > 0:
            st[C.PROGRESS] = 1
    if sanity_loss > 0:
        st[C.PROGRESS] = 1
    place_cubes(st, mx, C.AIRSHIP_STACK, airship_damage)
    short = sanity_loss > st[C.SANITY]
    st[C.SANITY] = max(st[C.SANITY] - sanity_loss, 0)
    return short


@nb.njit(cache=True, inline="always")
def place_purple_by_policy(st, mx, mx_cost, n, alloc_id, alloc_params, order=-1):
    """Place n purple cubes as the allocation policy chooses; ``order``: its stack_order
    when it has one (the Monte Carlo kernels'), -1 to ask choose_stack cube by cube. Also
    for n = 0 (nothing placed): a branch on a random card's cubes costs more (measured)."""
    while True:
        if order < 0:
            s = choose_stack(alloc_id, alloc_params, st, mx, mx_cost)
        else:
            s = first_with_units(order, st)
        if s < 0:
            return
        # Only SPREAD looks at damage; the others keep choosing s until its stack is
        # gone, so the cubes it can absorb go on together (same result, fewer choices).
        k = min(n, 1 if alloc_id == SPREAD else absorbable(st, mx, s))
        place_cubes(st, mx, s, k)
        n -= k
        if n <= 0:
            return


@nb.njit(cache=True, inline="always")
def check_end(st, mx, sanity_short):
    all_dead = True
    for i in range(C.MAX_OLD_ONES):
        if old_one_alive(st, mx, i):
            all_dead = False
    return end_if(st, mx, sanity_short, all_dead)


@nb.njit(cache=True, inline="always")
def end_if(st, mx, sanity_short, all_dead):
    """check_end once it is known whether every Old One is destroyed."""
    if (
        mx[C.PORT_JOINS] != 0
        and mx[C.PORT_FIGHTS] == 0
        and st[C.COUNT + C.PORT_STACK] > 0
        and combatants(st, mx) == 0
    ):
        mx[C.PORT_FIGHTS] = 1  # reading port_as_infantry: the token fights on as Infantry
    defeated = sanity_short | (combatants(st, mx) == 0)
    if all_dead:
        return C.WIN_AND_DEFEAT if defeated else C.WIN
    return C.DEFEAT if defeated else C.ONGOING


@nb.njit(cache=True, inline="always")
def finish(st, mx, outcome):
    """End of Combat Resolution: damaged units die on defeat, otherwise all heal (or,
    with mx[KEEP_DAMAGE], keep their damage for the caller to carry on).

    The port is not a unit of the force: it is lost only by being knocked down to
    nothing or by Old Ones left standing (the caller's business), never by this rule.
    """
    defeated = (outcome == C.DEFEAT) | (outcome == C.WIN_AND_DEFEAT)
    keep = (mx[C.KEEP_DAMAGE] != 0) & (outcome != C.DEFEAT) & (outcome != C.WIN_AND_DEFEAT)
    for s in range(C.NUM_STACKS):
        if defeated and s != C.PORT_STACK and st[C.DAMAGE + s] > 0 and st[C.COUNT + s] > 0:
            st[C.COUNT + s] -= 1
            st[C.LOST + s] += 1
        if not keep or st[C.COUNT + s] == 0:
            st[C.DAMAGE + s] = 0
    st[C.OUTCOME] = outcome


@nb.njit(cache=True, inline="always")
def port_flipped(st, flip_threshold):
    """Revenge: a port that survives (Old Ones gone, the token still up) after taking
    enough damage flips to 2 (simkit.kernels.low.port)."""
    won = (st[C.OUTCOME] == C.WIN) | (st[C.OUTCOME] == C.WIN_AND_DEFEAT)
    return port_flips(won & (st[C.COUNT + C.PORT_STACK] > 0), st[C.PORT_HITS], flip_threshold)


@nb.njit(cache=True, inline="always")
def withdraw(st, mx, option):
    """Take a withdrawal group home undamaged; return True if anything left."""
    moved = False
    for s in range(C.NUM_STACKS):
        g = mx[C.GROUP + s]
        if g == C.GROUP_NONE or st[C.COUNT + s] == 0:
            continue
        if (
            option == C.WITHDRAW_ALL
            or (option == C.WITHDRAW_AIRSHIPS and g == C.GROUP_AIRSHIPS)
            or (option == C.WITHDRAW_OTHERS and g == C.GROUP_OTHERS)
        ):
            st[C.COUNT + s] = 0
            st[C.DAMAGE + s] = 0
            moved = True
    if moved:
        st[C.PROGRESS] = 1
    return moved


@nb.njit(cache=True, inline="always")
def start_combat(st, mx):
    """Effects before the first card (Bombardier Milligan); returns the outcome so far."""
    if mx[C.MILLIGAN] > 0 and st[C.COUNT + 2] > 0:  # 2 = artillery
        first = -1
        for i in range(C.MAX_OLD_ONES):
            if old_one_alive(st, mx, i):
                first = mx[C.OO_TYPE + i]
                break
        for i in range(C.MAX_OLD_ONES):
            if old_one_alive(st, mx, i) and mx[C.OO_TYPE + i] == first:
                st[C.OO_DAMAGE + i] += mx[C.MILLIGAN]
    return check_end(st, mx, False)


@nb.njit(cache=True, inline="always")
def resolve_by_policy(
    st,
    mx,
    mx_cost,
    card_hits,
    card_purple,
    card_sanity,
    card_airship,
    c,
    dmg,
    alloc_id,
    alloc_params,
):
    """Resolve card c with a fixed allocation policy; return the outcome."""
    p, s_loss, a = card_effect(st, mx, card_hits, card_purple, card_sanity, card_airship, c, dmg)
    place_purple_by_policy(st, mx, mx_cost, p, alloc_id, alloc_params)
    short = apply_card(st, mx, dmg, s_loss, a)
    return check_end(st, mx, short)


@nb.njit(cache=True, inline="always")
def has_withdrawable(st, mx):
    for s in range(C.NUM_STACKS):
        if mx[C.GROUP + s] != C.GROUP_NONE and st[C.COUNT + s] > 0:
            return True
    return False


@nb.njit(cache=True, inline="always")
def jones_available(st, mx):
    """Corporal Jones can pull the whole force out (an Outpost or Port never leaves)."""
    if mx[C.JONES] == 0 or st[C.JONES_USED] != 0 or mx[C.CAN_WITHDRAW] == 0:
        return False
    for s in range(C.NUM_STACKS):
        if mx[C.GROUP + s] == C.GROUP_NONE and st[C.COUNT + s] > 0:
            return False
    return has_withdrawable(st, mx)


# -- where the cards come from -----------------------------------------------------------
# A source is a named tuple that carries, besides what it draws from, n_left (cards left in
# the current deck) and whatever else changes while a fight is played; play_one returns it
# updated. Four hooks, specialised by the source's type (numba overloads, so the choice
# costs nothing per card): decide (the withdrawal before a card), out_of_cards (a script
# ran out), fresh_deck (the discard pile shuffled back in), next_card (the card drawn).
# Chance and Ahead (by chance): simkit.kernels.combat_chance; simkit.kernels.combat_paired
# adds the recording and replaying sources of paired play.

Script = namedtuple("Script", ("cards", "n_left"))
Script.__doc__ = """The k-th card drawn is cards[k]: the first ``n_left`` cards, then whole
decks of card_hits.shape[0] cards (so reshuffles and stalemates fall where they would);
running past the end stops the combat as a withdrawal (tests, replays, row output)."""

# The hooks are compiled as functions of their own (LLVM still inlines them), without NRT
# like the loop that calls them: numba 0.68 loses a write into an array reached through a
# tuple field (source.tape[k] = c) in an overload inlined with inline="always".
HOOK = {"_nrt": False}


def source_is(source, *classes) -> bool:
    """(typing time) Whether a numba type is one of these source named tuples."""
    return isinstance(source, types.BaseNamedTuple) and source.instance_class in classes


def decide(source, v, st):
    """(option, source): the withdrawal decision before the next card."""
    raise NotImplementedError("jitted only")


def out_of_cards(source, st):
    """True if the source has no card left to give (a script's end)."""
    raise NotImplementedError("jitted only")


def fresh_deck(source, v):
    """Cards in a fresh deck of every card (kit.deck refilled where chance draws from it)."""
    raise NotImplementedError("jitted only")


def next_card(source, v, st):
    """(card, source): draw the next card (source.n_left counts it)."""
    raise NotImplementedError("jitted only")


def asks(source, v):
    """Whether decide must be called before each card (fixed once per fight)."""
    raise NotImplementedError("jitted only")


def with_n_left(source, n_left):
    """The source with n_left cards left in its deck."""
    raise NotImplementedError("jitted only")


@overload(decide, jit_options=HOOK)
def _decide(source, v, st):
    # every source but one that watches the decisions (paired play's recorder) plays the
    # view's own withdrawal policy
    if isinstance(source, types.BaseNamedTuple) and not getattr(
        source.instance_class, "watches", False
    ):
        return lambda source, v, st: (
            withdraw_decision(v.wd_id, v.wd_params, v.wd_table, st, v.mx),
            source,
        )
    return None


@overload(asks, jit_options=HOOK)
def _asks(source, v):
    # a source that watches the decisions sees every one; the others play the view's
    # policy, and one that never leaves needs no decision before each card
    if isinstance(source, types.BaseNamedTuple):
        if getattr(source.instance_class, "watches", False):
            return lambda source, v: True
        return lambda source, v: asks_before_cards(v.wd_id)
    return None


@overload(with_n_left, jit_options=HOOK)
def _with_n_left(source, n_left):
    if not isinstance(source, types.BaseNamedTuple):
        return None
    cls = source.instance_class
    fields = ", ".join("n_left" if f == "n_left" else f"source.{f}" for f in cls._fields)
    space = {"cls": cls}
    exec(f"def impl(source, n_left):\n    return cls({fields})", space)  # noqa: S102
    return space["impl"]


@overload(out_of_cards, jit_options=HOOK)
def _out_of_cards(source, st):
    if source_is(source, Script):
        return lambda source, st: st[C.CARDS] >= source.cards.size
    if isinstance(source, types.BaseNamedTuple):
        return lambda source, st: False
    return None


@overload(fresh_deck, jit_options=HOOK)
def _fresh_deck(source, v):
    if not isinstance(source, types.BaseNamedTuple):
        return None
    if getattr(source.instance_class, "shuffles", False):
        return lambda source, v: refill_full(v.deck)
    return lambda source, v: v.card_hits.shape[0]


@overload(next_card, jit_options=HOOK)
def _next_card(source, v, st):
    if source_is(source, Chance):

        def chance(source, v, st):
            c, n_left = draw_card(source.rng, v.deck, source.n_left)
            return c, Chance(source.rng, n_left)

        return chance
    if source_is(source, Ahead):
        return lambda source, v, st: draw_ahead(source, v.deck)
    if source_is(source, Script):
        return lambda source, v, st: (
            source.cards[st[C.CARDS]],
            Script(source.cards, source.n_left - 1),
        )
    return None


def run_fixed(v):
    """(stack order, Old One slots to look at): a RunView's, else (-1: ask choose_stack,
    every slot)."""
    raise NotImplementedError("jitted only")


@overload(run_fixed, jit_options=HOOK)
def _run_fixed(v):
    if isinstance(v, types.BaseNamedTuple) and v.instance_class is RunView:
        return lambda v: (v.stack_order, v.old_one_slots)
    return lambda v: (np.int64(-1), C.MAX_OLD_ONES)


@nb.njit(cache=True, inline="always")
def run_view(v, st0):
    """v as a RunView for fights from st0 (a Monte Carlo run's start): the allocation's
    stack order and the Old One slots in use worked out once, not for every card."""
    slots = 0
    for i in range(C.MAX_OLD_ONES):
        if v.mx[C.OO_TYPE + i] >= 0:
            slots = i + 1
    return with_run(v, stack_order(v.alloc_id, v.alloc_params, st0, v.mx, v.mx_cost), slots)


@nb.njit(cache=True, inline="always")
def play_one(v, st, source):
    """Play one combat to its end on ``st`` with the cards of ``source``; return the source
    as the fight left it (its n_left: the cards left in the deck).

    ``v``: the fight's KitView (simkit.kernels.low.combat_kit). "If the deck of Old One
    cards is exhausted, shuffle the discard pile to make a fresh deck": when a whole fresh
    deck has been drawn without changing the fight (st[PROGRESS] still 0), no card ever
    will, and the combat ends as a STALEMATE. That rule also bounds every fight (each pass
    that changes something uses up damage capacity, sanity or units).
    """
    return play_on(v, st, source, start_combat(st, v.mx))


@nb.njit(cache=True, inline="always")
def play_on(v, st, source, outcome):
    """play_one from a state already started (``outcome``: ONGOING, or how the start
    ended it): paired play resumes policy B from the fork with it."""
    mx = v.mx
    ask = asks(source, v)
    while outcome == C.ONGOING:
        if ask and mx[C.CAN_WITHDRAW] != 0:
            option, source = decide(source, v, st)
            if option != C.STAY and withdraw(st, mx, option) and combatants(st, mx) == 0:
                outcome = C.WITHDRAW
                break
        if source.n_left == 0 and st[C.RESHUFFLES] > 0 and st[C.PROGRESS] == 0:
            outcome = C.STALEMATE
            break
        if out_of_cards(source, st):
            withdraw(st, mx, C.WITHDRAW_ALL)
            outcome = C.WITHDRAW
            break
        if source.n_left == 0:
            source = with_n_left(source, fresh_deck(source, v))
            st[C.RESHUFFLES] += 1
            st[C.PROGRESS] = 0
        c, source = next_card(source, v, st)
        st[C.CARDS] += 1
        if jones_available(st, mx):
            copy_into(v.scratch, st)
            if jones_decision(resolve(v, v.scratch, c)):
                st[C.JONES_USED] = 1
                withdraw(st, mx, C.WITHDRAW_ALL)
                outcome = C.WITHDRAW
                break
        outcome = resolve(v, st, c)
    finish(st, mx, outcome)
    return source


@nb.njit(cache=True, inline="always")
def resolve(v, st, c):
    """Resolve card c on st with the view's allocation policy; return the outcome.

    resolve_by_policy (card_effect, the purple cubes, apply_card, check_end) in one pass
    for the draw loop: each Old One's hits go on it as they are read, not through the
    dmg buffer (no other step of the card reads or changes Old One damage, so the order
    does not matter), which keeps them out of memory the compiler must reload; whether
    all are destroyed is known from the same loop."""
    mx = v.mx
    order, slots = run_fixed(v)
    mask = present_mask(st, mx)
    p = mx[C.EXTRA_PURPLE]
    s_loss = 0
    a = 0
    hits = 0
    all_dead = True  # an Old One dead before the card stays dead
    cu = np.uint64(c)  # unsigned indices: no wraparound code for a negative index
    for i in range(slots):
        if not old_one_alive(st, mx, i):
            continue
        t = np.uint64(mx[C.OO_TYPE + i])  # a living Old One's type: never negative
        d = popcount5(np.int64(v.card_hits[cu, t]) & mask)
        st[C.OO_DAMAGE + i] += d
        hits += d
        all_dead &= st[C.OO_DAMAGE + i] >= mx[C.OO_CAPACITY + i]
        p += v.card_purple[cu, t]
        s_loss += v.card_sanity[cu, t]
        a += v.card_airship[cu, t]
    place_purple_by_policy(st, mx, v.mx_cost, p, v.alloc_id, v.alloc_params, order)
    st[C.PROGRESS] |= (hits > 0) | (s_loss > 0)  # no branch on what a random card did
    if a > 0:  # unlike purple cubes, few cards bring it: a branch costs less (measured)
        place_cubes(st, mx, C.AIRSHIP_STACK, a)
    short = s_loss > st[C.SANITY]
    st[C.SANITY] = max(st[C.SANITY] - s_loss, 0)
    return end_if(st, mx, short, all_dead)


@nb.njit(**NO_NRT)
def play(v, st, source):
    """play_one compiled on its own (the game engine's fights, scripted play); returns the
    cards left in the deck. Not the source itself: a kernel without NRT must not hand an
    array back to one with it (the caller would release a reference it never got)."""
    return play_one(v, st, source).n_left


@nb.njit(cache=True, inline="always")
def tally(st, flip_threshold, out_outcomes, out_lost, out_lost_hist, out_cards):
    """Count one finished combat: out_outcomes[NUM_OUTCOMES], out_lost[7] (units lost per
    stack), out_lost_hist[LOST_HIST] (units lost per combat, port excluded) and
    out_cards[3] = (sum of cards drawn, sum of squares, port flips)."""
    out_outcomes[st[C.OUTCOME]] += 1
    units = 0
    for s in range(C.NUM_STACKS):
        out_lost[s] += st[C.LOST + s]
        if s != C.PORT_STACK:
            units += st[C.LOST + s]
    out_lost_hist[min(units, LOST_HIST - 1)] += 1
    out_cards[0] += st[C.CARDS]
    out_cards[1] += st[C.CARDS] * st[C.CARDS]
    if port_flipped(st, flip_threshold):
        out_cards[2] += 1


@nb.njit(**NO_NRT)
def _simulate(v, source, n_games, st0, out_outcomes, out_lost, out_lost_hist, out_cards):
    """``n_games`` combats from st0, each from a fresh deck, drawn from ``source`` (Monte
    Carlo: Ahead; any source by chance, e.g. Chance); tallied as :func:`tally` counts."""
    st = v.state
    n_start = v.start_deck.size
    copy_into(v.deck, v.start_deck)
    for _ in range(n_games):
        # Drawn cards stay inside deck[:n_start] (swapped past n_left), so resetting the
        # count restores the deck; only a reshuffle (the whole deck back) needs a copy.
        if st[C.RESHUFFLES] > 0:
            copy_into(v.deck, v.start_deck)
        copy_into(st, st0)
        source = play_one(v, st, with_n_left(source, n_start))
        tally(st, v.flip_threshold, out_outcomes, out_lost, out_lost_hist, out_cards)


@nb.njit(cache=True)
def simulate_combats(kit, rng, n_games, st0, out_outcomes, out_lost, out_lost_hist, out_cards):
    """Monte Carlo: ``n_games`` independent combats from st0, each from a fresh deck
    (kit.start_deck), drawn with the Generator ``rng`` (one draw ahead, combat_chance.Ahead);
    accumulates into the out_* arrays as :func:`tally` counts. Plays on kit.state and kit.deck."""
    v = run_view(view(kit), st0)
    # each card's uniform is drawn with the card before (combat_chance.Ahead)
    ahead = Ahead(rng, v.start_deck.size, uniform(rng))
    _simulate(v, ahead, n_games, st0, out_outcomes, out_lost, out_lost_hist, out_cards)


@nb.njit(cache=True)
def play_script(kit, st, script):
    """Resolve a combat on ``st`` with the cards drawn in the order ``script``."""
    play(view(kit), st, Script(script, script.size))
