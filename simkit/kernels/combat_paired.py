"""Monte Carlo of two withdraw policies on the same cards: one pass gives both columns.

Policy A is played exactly as :func:`simkit.kernels.combat.simulate_combats` plays it (the
same draws from ``rng`` in the same order: for one seed its results are that kernel's).
Policy B shares every card and every state with A until the first decision where the two
policies differ; there the fight forks. A goes on drawing as usual while the cards it
draws are written down; B then resumes from the fork on the same cards (the deck's order
does not depend on who draws it), and if B outlasts A it continues the same deck with
draws from ``rng2`` on a copy, so A's deck, and so every later game of A, is untouched.

A fight that never forks is played once and counted for both. Two policies that rarely
disagree (never withdraw against a withdraw table that only leaves a lost fight) cost
little more than one: the shared prefix of each fight is resolved once.

Each column is an honest Monte Carlo estimate on its own (B's cards are a uniformly
shuffled deck too); the columns are correlated with each other (common random numbers).
Compiled without NRT like simulate_combats: every buffer is the caller's.
"""

import numba as nb
import numpy as np

from simkit.kernels.combat import (
    LOST_HIST,
    NO_NRT,
    combatants,
    copy_into,
    finish,
    jones_available,
    port_flipped,
    resolve_by_policy,
    start_combat,
    withdraw,
)
from simkit.kernels.low import combat_layout as C
from simkit.kernels.low.deck import draw_card, refill_full
from strategies.combat.withdrawal import jones_decision, withdraw_decision


@nb.njit(cache=True, inline="always")
def tally(st, which, flip_threshold, out_outcomes, out_lost, out_lost_hist, out_cards):
    """Count one finished combat into row ``which`` of the out_* arrays (as simulate_combats
    counts it)."""
    out_outcomes[which, st[C.OUTCOME]] += 1
    units = 0
    for s in range(C.NUM_STACKS):
        out_lost[which, s] += st[C.LOST + s]
        if s != C.PORT_STACK:
            units += st[C.LOST + s]
    out_lost_hist[which, min(units, LOST_HIST - 1)] += 1
    out_cards[which, 0] += st[C.CARDS]
    out_cards[which, 1] += st[C.CARDS] * st[C.CARDS]
    if port_flipped(st, flip_threshold):
        out_cards[which, 2] += 1


@nb.njit(**NO_NRT)
def play_games(
    rng,
    rng2,
    n_games,
    st0,
    mx,
    mx_cost,
    card_hits,
    card_purple,
    card_sanity,
    card_airship,
    start_deck,
    alloc_id,
    alloc_params,
    wd_a_id,
    wd_a_params,
    wd_b_id,
    wd_b_params,
    wd_table,
    flip_threshold,
    a_row,
    b_row,
    out_outcomes,
    out_lost,
    out_lost_hist,
    out_cards,
    work_deck,
    work_deck2,
    work_st,
    work_st_b,
    work_scratch,
    work_dmg,
    tape,
):
    """``n_games`` combats from st0, each played by policy A and (b_row >= 0) policy B on
    the same cards, counted into rows a_row and b_row of out_outcomes[:, NUM_OUTCOMES],
    out_lost[:, 7], out_lost_hist[:, LOST_HIST], out_cards[:, 3] (each as simulate_combats
    accumulates them; b_row < 0: A alone, exactly as simulate_combats plays it). Returns
    the number of games that forked (B decided differently from A at least once).
    work_deck, work_deck2: like the deck (card_hits.shape[0]); work_st, work_st_b,
    work_scratch: like the state; work_dmg: MAX_OLD_ONES; tape: at least as many entries
    as cards one combat can draw (start_deck.size + pass_bound * full deck).
    """
    full = card_hits.shape[0]
    st = work_st
    stb = work_st_b
    n_start = start_deck.size
    copy_into(work_deck, start_deck)
    forks = 0
    for _ in range(n_games):
        if st[C.RESHUFFLES] > 0:
            copy_into(work_deck, start_deck)
        copy_into(st, st0)
        # -- policy A, exactly as play_combat plays it, watching for B's first difference --
        n_left = n_start
        forked = False
        fork_left = 0
        outcome = start_combat(st, mx)
        while outcome == C.ONGOING:
            if mx[C.CAN_WITHDRAW] != 0:
                option = withdraw_decision(wd_a_id, wd_a_params, wd_table, st, mx)
                if not forked and b_row >= 0:
                    if withdraw_decision(wd_b_id, wd_b_params, wd_table, st, mx) != option:
                        forked = True
                        copy_into(stb, st)
                        fork_left = n_left
                if option != C.STAY and withdraw(st, mx, option) and combatants(st, mx) == 0:
                    outcome = C.WITHDRAW
                    break
            if n_left == 0 and st[C.RESHUFFLES] > 0 and st[C.PROGRESS] == 0:
                outcome = C.STALEMATE
                break
            if n_left == 0:
                n_left = refill_full(work_deck)
                st[C.RESHUFFLES] += 1
                st[C.PROGRESS] = 0
            c, n_left = draw_card(rng, work_deck, n_left)
            if forked:
                tape[st[C.CARDS]] = c
            st[C.CARDS] += 1
            if jones_available(st, mx):
                copy_into(work_scratch, st)
                peek = resolve_by_policy(
                    work_scratch,
                    mx,
                    mx_cost,
                    card_hits,
                    card_purple,
                    card_sanity,
                    card_airship,
                    c,
                    work_dmg,
                    alloc_id,
                    alloc_params,
                )
                if jones_decision(peek):
                    st[C.JONES_USED] = 1
                    withdraw(st, mx, C.WITHDRAW_ALL)
                    outcome = C.WITHDRAW
                    break
            outcome = resolve_by_policy(
                st,
                mx,
                mx_cost,
                card_hits,
                card_purple,
                card_sanity,
                card_airship,
                c,
                work_dmg,
                alloc_id,
                alloc_params,
            )
        finish(st, mx, outcome)
        tally(st, a_row, flip_threshold, out_outcomes, out_lost, out_lost_hist, out_cards)
        if b_row < 0:
            continue
        if not forked:
            tally(st, b_row, flip_threshold, out_outcomes, out_lost, out_lost_hist, out_cards)
            continue
        forks += 1
        # -- policy B from the fork, on A's cards, then on the rest of the same deck --
        drawn = st[C.CARDS]  # tape[:drawn] holds every card A drew
        a_left = n_left  # cards left in A's last deck when A stopped
        n_left = fork_left
        extended = False
        n2 = 0
        outcome = C.ONGOING
        while outcome == C.ONGOING:
            if mx[C.CAN_WITHDRAW] != 0:
                option = withdraw_decision(wd_b_id, wd_b_params, wd_table, stb, mx)
                if option != C.STAY and withdraw(stb, mx, option) and combatants(stb, mx) == 0:
                    outcome = C.WITHDRAW
                    break
            if n_left == 0 and stb[C.RESHUFFLES] > 0 and stb[C.PROGRESS] == 0:
                outcome = C.STALEMATE
                break
            if n_left == 0:
                n_left = full
                stb[C.RESHUFFLES] += 1
                stb[C.PROGRESS] = 0
            k = stb[C.CARDS]
            if k < drawn:
                c = tape[k]
            else:
                if not extended:  # A's deck as A left it: the cards B has not seen yet
                    copy_into(work_deck2, work_deck)
                    n2 = a_left
                    extended = True
                if n2 == 0:
                    n2 = refill_full(work_deck2)
                c, n2 = draw_card(rng2, work_deck2, n2)
            n_left -= 1
            stb[C.CARDS] += 1
            if jones_available(stb, mx):
                copy_into(work_scratch, stb)
                peek = resolve_by_policy(
                    work_scratch,
                    mx,
                    mx_cost,
                    card_hits,
                    card_purple,
                    card_sanity,
                    card_airship,
                    c,
                    work_dmg,
                    alloc_id,
                    alloc_params,
                )
                if jones_decision(peek):
                    stb[C.JONES_USED] = 1
                    withdraw(stb, mx, C.WITHDRAW_ALL)
                    outcome = C.WITHDRAW
                    break
            outcome = resolve_by_policy(
                stb,
                mx,
                mx_cost,
                card_hits,
                card_purple,
                card_sanity,
                card_airship,
                c,
                work_dmg,
                alloc_id,
                alloc_params,
            )
        finish(stb, mx, outcome)
        tally(stb, b_row, flip_threshold, out_outcomes, out_lost, out_lost_hist, out_cards)
    return forks


@nb.njit(**NO_NRT)
def simulate_paired(
    rng,
    rng2,
    n_games,
    st0,
    mx,
    mx_cost,
    card_hits,
    card_purple,
    card_sanity,
    card_airship,
    start_deck,
    alloc_id,
    alloc_params,
    wd_a_id,
    wd_a_params,
    wd_b_id,
    wd_b_params,
    wd_table,
    flip_threshold,
    out_outcomes,
    out_lost,
    out_lost_hist,
    out_cards,
    work_deck,
    work_deck2,
    work_st,
    work_st_b,
    work_scratch,
    work_dmg,
    tape,
):
    """play_games with A counted in row 0 and B in row 1 of the out_* arrays."""
    return play_games(
        rng,
        rng2,
        n_games,
        st0,
        mx,
        mx_cost,
        card_hits,
        card_purple,
        card_sanity,
        card_airship,
        start_deck,
        alloc_id,
        alloc_params,
        wd_a_id,
        wd_a_params,
        wd_b_id,
        wd_b_params,
        wd_table,
        flip_threshold,
        0,
        1,
        out_outcomes,
        out_lost,
        out_lost_hist,
        out_cards,
        work_deck,
        work_deck2,
        work_st,
        work_st_b,
        work_scratch,
        work_dmg,
        tape,
    )


# -- stages to a precision target ------------------------------------------------------
# stage[...]: the settings of simulate_to_target's stages (see simkit.odds.stage_games)
S_TARGET, S_Z, S_FIRST, S_GROWTH, S_MARGIN, S_MAX = 0, 1, 2, 3, 4, 5
S_SIZE = 6


@nb.njit(cache=True)
def wilson_bounds(k, n, z):
    """The Wilson interval of k successes in n trials, clipped to [0, 1] as
    simkit.core.stats.wilson_interval clips it (the same arithmetic)."""
    p = k / n
    denom = 1.0 + z * z / n
    centre = (p + z * z / (2 * n)) / denom
    half = z * np.sqrt(p * (1 - p) / n + z * z / (4 * n * n)) / denom
    return min(max(centre - half, 0.0), 1.0), min(max(centre + half, 0.0), 1.0)


@nb.njit(cache=True)
def wilson_half(k, n, z):
    """Half the width of wilson_bounds."""
    lo, hi = wilson_bounds(k, n, z)
    return (hi - lo) / 2


@nb.njit(cache=True)
def trials_for(p, target, z):
    """Fewest trials whose Wilson half-width at proportion p is at most target (unclipped)."""
    lo, hi = 1, 1
    while z * np.sqrt(p * (1 - p) / hi + z * z / (4.0 * hi * hi)) / (1.0 + z * z / hi) > target:
        lo, hi = hi, hi * 2
    while lo < hi:
        mid = (lo + hi) // 2
        if (
            z * np.sqrt(p * (1 - p) / mid + z * z / (4.0 * mid * mid)) / (1.0 + z * z / mid)
            > target
        ):
            lo = mid + 1
        else:
            hi = mid
    return hi


@nb.njit(cache=True)
def stage_more(k, n, stage):
    """Games the next stage adds to a column with k kills in n games (0: done).

    A column is done when its interval is narrow enough *and* would be at the least
    favourable proportion its interval still allows (the end nearer 1/2): a run of luck in
    the first few hundred games (no losses where 1 in 100 lose) narrows the interval of a
    near-certain row early, and stopping on it alone would leave such rows' intervals
    short of 95% coverage (measured: 94% at P = 0.01 with 512-game first stages, 95% with
    this rule). Otherwise: the games the interval needs at the observed proportion
    (stage[S_MARGIN] past them, at least 1/16 more), at most stage[S_GROWTH] x the games
    so far, at most stage[S_MAX] in all."""
    if n == 0:
        return np.int64(stage[S_FIRST])
    cap = min((np.int64(stage[S_GROWTH]) - 1) * n, np.int64(stage[S_MAX]) - n)
    if n >= stage[S_MAX]:
        return np.int64(0)
    lo, hi = wilson_bounds(k, n, stage[S_Z])
    if (hi - lo) / 2 <= stage[S_TARGET]:
        worst = hi if hi < 0.5 else (lo if lo > 0.5 else 0.5)
        need = trials_for(worst, stage[S_TARGET], stage[S_Z])
        if n >= need:
            return np.int64(0)
        return np.int64(min(max(need - n, 64), cap))
    needed = (
        np.int64(np.ceil(trials_for(k / n, stage[S_TARGET], stage[S_Z]) * stage[S_MARGIN])) + 16
    )
    return np.int64(min(max(needed - n, n // 16, 64), cap))


@nb.njit(**NO_NRT)
def simulate_to_target(
    rng,
    rng2,
    st0,
    mx,
    mx_cost,
    card_hits,
    card_purple,
    card_sanity,
    card_airship,
    start_deck,
    alloc_id,
    alloc_params,
    wd_a_id,
    wd_a_params,
    wd_b_id,
    wd_b_params,
    wd_table,
    flip_threshold,
    play_a,
    play_b,
    stage,
    out_outcomes,
    out_lost,
    out_lost_hist,
    out_cards,
    work_deck,
    work_deck2,
    work_st,
    work_st_b,
    work_scratch,
    work_dmg,
    tape,
):
    """Play policy A (if play_a, row 0 of the out_* arrays, which may hold games already)
    and B (if play_b, row 1) until each column's P(destroy) Wilson half-width is at most
    stage[S_TARGET] or it has stage[S_MAX] games, in stages of stage_more games:
    on the same cards (play_games) while both need more, then the column still short alone.
    Returns the stages played."""
    stages = 0
    while True:
        more_a = np.int64(0)
        more_b = np.int64(0)
        if play_a:
            n = np.int64(0)
            for o in range(C.NUM_OUTCOMES):
                n += out_outcomes[0, o]
            more_a = stage_more(
                out_outcomes[0, C.WIN] + out_outcomes[0, C.WIN_AND_DEFEAT], n, stage
            )
        if play_b:
            n = np.int64(0)
            for o in range(C.NUM_OUTCOMES):
                n += out_outcomes[1, o]
            more_b = stage_more(
                out_outcomes[1, C.WIN] + out_outcomes[1, C.WIN_AND_DEFEAT], n, stage
            )
        if more_a == 0 and more_b == 0:
            return stages
        stages += 1
        if more_a > 0 and more_b > 0:
            x_id, x_params, x_row, y_row, n_games = wd_a_id, wd_a_params, 0, 1, min(more_a, more_b)
        elif more_a > 0:
            x_id, x_params, x_row, y_row, n_games = wd_a_id, wd_a_params, 0, -1, more_a
        else:
            x_id, x_params, x_row, y_row, n_games = wd_b_id, wd_b_params, 1, -1, more_b
        play_games(
            rng,
            rng2,
            n_games,
            st0,
            mx,
            mx_cost,
            card_hits,
            card_purple,
            card_sanity,
            card_airship,
            start_deck,
            alloc_id,
            alloc_params,
            x_id,
            x_params,
            wd_b_id,
            wd_b_params,
            wd_table,
            flip_threshold,
            x_row,
            y_row,
            out_outcomes,
            out_lost,
            out_lost_hist,
            out_cards,
            work_deck,
            work_deck2,
            work_st,
            work_st_b,
            work_scratch,
            work_dmg,
            tape,
        )
