"""Monte Carlo of two withdraw policies on the same cards: one pass gives both columns.

Policy A is played exactly as :func:`simkit.kernels.combat.simulate_combats` plays it (the
same draws from ``rng`` in the same order: for one seed its results are that kernel's).
Policy B shares every card and every state with A until the first decision where the two
policies differ; there the fight forks. A plays on a Recorder (its cards written on a
tape); B then replays the tape from the fork (a Replay source, the same play_one) on the
same cards (the deck's order
does not depend on who draws it), and if B outlasts A it continues the same deck with
draws from ``rng2`` on a copy, so A's deck, and so every later game of A, is untouched.

A fight that never forks is played once and counted for both. Two policies that rarely
disagree (never withdraw against a withdraw table that only leaves a lost fight) cost
little more than one: the shared prefix of each fight is resolved once.

Each column is an honest Monte Carlo estimate on its own (B's cards are a uniformly
shuffled deck too); the columns are correlated with each other (common random numbers).
play_games runs without NRT like simulate_combats: every buffer is the kit's.
"""

from collections import namedtuple

import numba as nb
import numpy as np
from numba.extending import overload

from simkit.kernels.combat import (
    HOOK,
    NO_NRT,
    copy_into,
    decide,
    next_card,
    play_on,
    play_one,
    run_view,
    source_is,
    tally,
    with_n_left,
)
from simkit.kernels.low import combat_layout as C
from simkit.kernels.low.combat_kit import view, with_withdrawal
from simkit.kernels.low.deck import draw_card, refill_full
from strategies.combat.withdrawal import withdraw_decision

Recorder = namedtuple("Recorder", ("rng", "n_left", "tape", "fork_st", "watch", "fork_left"))
Recorder.__doc__ = """Policy A's cards: chance, as Chance draws them, each written to
tape[k] (k: the card's number in the fight). While ``watch`` is 1 it also asks policy B
(the view's wd_b_*) at every decision; at the first difference the state is copied to
fork_st, fork_left keeps the cards left then (-1: no fork) and watching stops."""
Recorder.watches = True  # decide() is its own (simkit.kernels.combat)
Recorder.shuffles = True  # a fresh deck is kit.deck refilled, as Chance's

Replay = namedtuple("Replay", ("n_left", "tape", "drawn", "rng2", "deck", "deck2", "a_left", "n2"))
Replay.__doc__ = """Policy B's cards from the fork: tape[k] while k < drawn (the cards A
drew), then the rest of A's deck as A left it (deck[:a_left], copied to deck2 so A's
deck is untouched) drawn with rng2; n2: cards left in deck2 (-1 until B outlasts A)."""


@overload(decide, jit_options=HOOK)
def _decide_recorder(source, v, st):
    if not source_is(source, Recorder):
        return None

    def recorder(source, v, st):
        option = withdraw_decision(v.wd_id, v.wd_params, v.wd_table, st, v.mx)
        if source.watch != 0:
            if withdraw_decision(v.wd_b_id, v.wd_b_params, v.wd_table, st, v.mx) != option:
                copy_into(source.fork_st, st)
                source = Recorder(
                    source.rng,
                    source.n_left,
                    source.tape,
                    source.fork_st,
                    source.watch * 0,
                    source.n_left,
                )
        return option, source

    return recorder


@overload(next_card, jit_options=HOOK)
def _next_card_paired(source, v, st):
    if source_is(source, Recorder):

        def recorder(source, v, st):
            c, n_left = draw_card(source.rng, v.deck, source.n_left)
            source.tape[st[C.CARDS]] = c
            return c, with_n_left(source, n_left)

        return recorder
    if source_is(source, Replay):

        def replay(source, v, st):
            k = st[C.CARDS]
            n2 = source.n2
            if k < source.drawn:
                c = source.tape[k]
            else:
                if n2 < 0:  # A's deck as A left it: the cards B has not seen yet
                    copy_into(source.deck2, source.deck)
                    n2 = source.a_left
                if n2 == 0:
                    n2 = refill_full(source.deck2)
                c, n2 = draw_card(source.rng2, source.deck2, n2)
            return c, Replay(
                source.n_left - 1,
                source.tape,
                source.drawn,
                source.rng2,
                source.deck,
                source.deck2,
                source.a_left,
                n2,
            )

        return replay
    return None


@nb.njit(**NO_NRT)
def play_games(v, rng, rng2, n_games, st0, a_row, b_row, outcomes, lost, lost_hist, cards):
    """``n_games`` combats from st0, each played by the view's policy (A) and (b_row >= 0)
    its wd_b policy (B) on the same cards, counted into rows a_row and b_row of the tally
    arrays outcomes[:, NUM_OUTCOMES], lost[:, 7], lost_hist[:, LOST_HIST], cards[:, 3]
    (each as simulate_combats tallies; b_row < 0: A alone, exactly as simulate_combats
    plays it). Returns the number of games that forked (B decided differently from A at
    least once). v.tape: at least as many entries as cards one combat can draw
    (start_deck.size + pass_bound * full deck).
    """
    st = v.state
    n_start = v.start_deck.size
    vb = with_withdrawal(v, v.wd_b_id, v.wd_b_params)
    v = run_view(v, st0)  # A's fights: what stays fixed worked out once
    watch = np.int64(1 if b_row >= 0 else 0)
    copy_into(v.deck, v.start_deck)
    forks = 0
    for _ in range(n_games):
        if st[C.RESHUFFLES] > 0:
            copy_into(v.deck, v.start_deck)
        copy_into(st, st0)
        a = play_one(v, st, Recorder(rng, n_start, v.tape, v.state_b, watch, np.int64(-1)))
        tally(st, v.flip_threshold, outcomes[a_row], lost[a_row], lost_hist[a_row], cards[a_row])
        if b_row < 0:
            continue
        if a.fork_left < 0:  # never forked: B's fight is A's
            tally(
                st, v.flip_threshold, outcomes[b_row], lost[b_row], lost_hist[b_row], cards[b_row]
            )
            continue
        forks += 1
        # policy B from the fork, on A's cards, then on the rest of the same deck
        replay = Replay(
            a.fork_left, v.tape, st[C.CARDS], rng2, v.deck, v.deck2, a.n_left, np.int64(-1)
        )
        stb = v.state_b
        play_on(vb, stb, replay, C.ONGOING)
        tally(stb, v.flip_threshold, outcomes[b_row], lost[b_row], lost_hist[b_row], cards[b_row])
    return forks


@nb.njit(cache=True)
def simulate_paired(kit, rng, rng2, n_games, st0, outcomes, lost, lost_hist, cards):
    """play_games with A (kit.wd_*) counted in row 0 and B (kit.wd_b_*) in row 1."""
    # rows as int64, the types simulate_to_target passes: literal 0 and 1 would compile a
    # second play_games (about 45 s of CPU) for no measurable speed
    a_row, b_row = np.int64(0), np.int64(1)
    v = view(kit)
    return play_games(v, rng, rng2, n_games, st0, a_row, b_row, outcomes, lost, lost_hist, cards)


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


@nb.njit(cache=True)
def simulate_to_target(kit, rng, rng2, st0, plays, stage, outcomes, lost, lost_hist, cards):
    """Play policy A (kit.wd_*; if plays[0], row 0 of the tally arrays, which may hold
    games already) and B (kit.wd_b_*; if plays[1], row 1) until each column's P(destroy)
    Wilson half-width is at most stage[S_TARGET] or it has stage[S_MAX] games, in stages
    of stage_more games: on the same cards (play_games) while both need more, then the
    column still short alone. Returns the stages played."""
    v = view(kit)
    play_a, play_b = plays
    stages = 0
    while True:
        more_a = np.int64(0)
        more_b = np.int64(0)
        if play_a:
            n = np.int64(0)
            for o in range(C.NUM_OUTCOMES):
                n += outcomes[0, o]
            more_a = stage_more(outcomes[0, C.WIN] + outcomes[0, C.WIN_AND_DEFEAT], n, stage)
        if play_b:
            n = np.int64(0)
            for o in range(C.NUM_OUTCOMES):
                n += outcomes[1, o]
            more_b = stage_more(outcomes[1, C.WIN] + outcomes[1, C.WIN_AND_DEFEAT], n, stage)
        if more_a == 0 and more_b == 0:
            return stages
        stages += 1
        if more_a > 0 and more_b > 0:
            x_id, x_params, x_row, y_row, n_games = v.wd_id, v.wd_params, 0, 1, min(more_a, more_b)
        elif more_a > 0:
            x_id, x_params, x_row, y_row, n_games = v.wd_id, v.wd_params, 0, -1, more_a
        else:
            x_id, x_params, x_row, y_row, n_games = v.wd_b_id, v.wd_b_params, 1, -1, more_b
        play_games(
            with_withdrawal(v, x_id, x_params),
            rng,
            rng2,
            n_games,
            st0,
            x_row,
            y_row,
            outcomes,
            lost,
            lost_hist,
            cards,
        )
