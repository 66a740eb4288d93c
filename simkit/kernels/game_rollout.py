"""One rollout of the search player in one kernel call (simkit.game.search.Lookahead).

A rollout copies the live game into the rollout buffers, re-deals what the searching seat
cannot see, seeds the rollout's chance, takes the choice under test, plays the game out
with the rollout policies and scores it. Driven from Python that was seven kernel calls a
rollout, each about 3 µs of dispatch (unboxing three containers) on top of its work:
about a tenth of a rollout. ``play_rollout`` does the same steps in the same order, so a
seeded search game plays exactly as before.

``play_rollouts`` plays a whole batch (every rollout of a decision, or of a halving round)
in one call and scores each in the kernel: the Python loop around ``play_rollout`` (a
dispatch, the plan's writes and the score read from the summary row, per rollout) was
about a sixth of a rollout's time.
"""

import numpy as np

from simkit.kernels.game_loop import OLD_ONES, run_game, step_oop, step_seat
from simkit.kernels.game_scoring import summarize
from simkit.kernels.game_search import determinize, start_rollout
from simkit.kernels.low import game_layout as L
from simkit.kernels.low.jit import kernel
from simkit.kernels.low.rand import seed_game_streams, seed_stream

# plan: the int64 array that says which rollout to play
PLAN_SEAT = 0  # the searching seat, or OLD_ONES
PLAN_CHOICE = 1  # the action box (a seat) or OOP_* action (OLD_ONES) under test
PLAN_MODEL_SID = 2  # the public model's strategy id for every other seat; -1: keep theirs
PLAN_PEEK = 3  # 1: no re-deal (the cheating baseline sees everything)
PLAN_MYTHOS = 4  # OLD_ONES: G_FORCED_MYTHOS for its turn (card id + 2, 1 none, 0 its policy's)
PLAN_PLACE = 5  # OLD_ONES: G_FORCED_PLACE for its turn (1 + level * PLACE_CODE + hex, 0 policy's)
PLAN_REVEAL = 6  # OLD_ONES: G_FORCED_REVEAL for its turn (tile + 1, 0 its policy's)
PLAN_SIZE = 7


@kernel
def play_rollout(rngs, S, X, W, live_X, live_W, plan, model_params, oop_params, seeds, row):
    """One rollout of ``plan`` (PLAN_*) from the live game (live_X, live_W) in the rollout
    buffers (X, W): the re-deal drawn from ``seeds[0]``, the rollout's chance from
    ``seeds[1]`` (as simkit.game.streams.single_stream and the stream key (seeds[1], 0)
    would), the summary row into ``row``. The live game is not changed."""
    p = plan[PLAN_SEAT]
    start_rollout(X, W, live_X, live_W, p, plan[PLAN_MODEL_SID], model_params, oop_params)
    if plan[PLAN_PEEK] == 0:
        redeal = rngs[0]  # a scratch stream: every stream is seeded afresh below
        seed_stream(redeal, seeds[0])
        determinize(redeal, S, X, W, p)
    key = np.zeros(2, dtype=np.uint64)
    key[0] = seeds[1]
    seed_game_streams(rngs, key, 0)
    if p == OLD_ONES:
        X.g[L.G_FORCED_MYTHOS] = plan[PLAN_MYTHOS]
        X.g[L.G_FORCED_PLACE] = plan[PLAN_PLACE]
        X.g[L.G_FORCED_REVEAL] = plan[PLAN_REVEAL]
        step_oop(rngs, S, X, W, plan[PLAN_CHOICE])
    else:
        step_seat(rngs, S, X, W, p, plan[PLAN_CHOICE])
    run_game(rngs, S, X, W)
    summarize(S, X, W, row)


@kernel
def play_rollouts(
    rngs, S, X, W, live_X, live_W, plans, seeds, model_params, oop_params, margin, row, scores
):
    """Rollout i of the batch plays plans[i] (PLAN_*) on the seed pair seeds[i], as
    ``play_rollout``; scores[i] = its result for plans[i]'s seat (``rollout_score``)."""
    for i in range(plans.shape[0]):
        play_rollout(
            rngs, S, X, W, live_X, live_W, plans[i], model_params, oop_params, seeds[i], row
        )
        scores[i] = rollout_score(row, plans[i, PLAN_SEAT], margin)


@kernel
def rollout_score(row, p, margin):
    """A finished rollout's result for seat p (or OLD_ONES) from its summary row: the VP
    margin over the best rival if ``margin``, else the win share (1/k of a k-way tie) plus
    a thousandth of the margin, which only breaks ties between equal shares."""
    if p == OLD_ONES:
        m = float(row[L.S_OO_VP] - row[L.S_BEST_PLAYER_VP])
        if margin:
            return m
        return float(row[L.S_OLD_ONES_WIN]) + 1e-3 * m
    base = L.S_PLAYER0 + p * L.S_PLAYER_STRIDE
    best_rival = row[L.S_OO_VP]
    for q in range(row[L.S_NUM_PLAYERS]):
        if q != p:
            best_rival = max(best_rival, row[L.S_PLAYER0 + q * L.S_PLAYER_STRIDE + L.SUM_P_VP])
    m = float(row[base + L.SUM_P_VP] - best_rival)
    if margin:
        return m
    mask = row[L.S_WINNERS_MASK]
    win = 0.0
    if (mask >> p) & 1:
        ties = 0
        for q in range(64):
            ties += (mask >> q) & 1
        win = 1.0 / ties
    return win + 1e-3 * m
