"""The game loop: Time Track order, whose turn it is, termination, invariants.

Time Track (base rules, Game Play): the disc on the lowest space acts; in a stack the
top disc acts first and a disc that lands on a space goes on top (arrival stamps). A
disc at or past the end space (53) takes no more actions. The purple disc waits on 22
until every player disc has passed it, then the Old Ones act whenever their disc is the
one to act. The game ends when every disc (the purple one included) has reached 53, or
at once when a Port falls.

Compile time: numba re-optimises each function's module with all its callees linked in,
so every level of thin wrappers above the turn functions (play_chunk, play_game,
run_game, advance, take_turn) used to cost a full re-optimisation of the engine (~8 s
each). Those levels are inlined into their callers (``inline="always"``): the engine is
optimised once under play_chunk, the one entry point of plain games; the search
driver's entry points (advance, step_seat, step_oop, run_game) compile only when a
search player plays.
"""

from simkit.kernels.game_actions import player_turn
from simkit.kernels.game_mythos_solo import mythos_solo_turn
from simkit.kernels.game_old_ones import old_ones_turn
from simkit.kernels.game_oop import oop_turn
from simkit.kernels.game_scoring import summarize
from simkit.kernels.game_setup import setup_game
from simkit.kernels.low import game_layout as L
from simkit.kernels.low.game_common import log_event
from simkit.kernels.low.jit import kernel
from simkit.kernels.low.rand import seed_game_streams

OLD_ONES = -1
NOBODY = -2
STOP_OLD_ONES = 1 << L.MAX_PLAYERS  # advance's stop mask bit for the Old One player (Revenge)
MAX_STEPS = 4000  # safety net: a game never needs this many turns (ends as END_ABORT)


@kernel
def next_actor(S, X):
    """Seat to act next, OLD_ONES, or NOBODY (every disc has reached the end)."""
    g = X.g
    end = S.r[L.R_END]
    best = NOBODY
    best_t = 1 << 40
    best_a = -1
    all_passed = True
    for p in range(g[L.G_NUM_PLAYERS]):
        t = X.pl[p, L.P_TIME]
        if t <= g[L.G_OO_TIME] and g[L.G_AWAKE] == 0:
            all_passed = False
        if t >= end:
            continue
        a = X.pl[p, L.P_ARRIVAL]
        if t < best_t or (t == best_t and a > best_a):
            best, best_t, best_a = p, t, a
    if all_passed:
        g[L.G_AWAKE] = 1
    if g[L.G_AWAKE] == 1 and g[L.G_OO_TIME] < end:
        t = g[L.G_OO_TIME]
        a = g[L.G_OO_ARRIVAL]
        if t < best_t or (t == best_t and a > best_a):
            best = OLD_ONES
    return best


@kernel
def violation(X, code):
    X.g[L.G_VIOLATIONS] += 1
    if X.g[L.G_FIRST_VIOLATION] == 0:
        X.g[L.G_FIRST_VIOLATION] = code


@kernel
def check_invariants(S, X, actor):
    """The checked build: resources never negative, cubes conserved, track / farm / unit
    counts within the pieces and the supply, time only forward, tiles consistent."""
    g = X.g
    r = S.r
    n_hex = X.hex_farm.size
    for p in range(g[L.G_NUM_PLAYERS]):
        for k in range(L.NUM_RES):
            if X.pl[p, L.P_RES + k] < 0:
                violation(X, L.CHK_NEGATIVE)
        boxed = 0
        for b in range(L.NUM_BOXES):
            if X.pl[p, L.P_BOX + b] < 0:
                violation(X, L.CHK_NEGATIVE)
            boxed += X.pl[p, L.P_BOX + b]
        on_tiles = 0
        for i in range(X.tile_hex.size):
            on_tiles += X.tile_cubes[i, p]
            if X.tile_cubes[i, p] > X.tile_dmg[i, p] or X.tile_cubes[i, p] < 0:
                violation(X, L.CHK_CUBES)
        if (
            X.pl[p, L.P_HQ] < 0
            or on_tiles != X.pl[p, L.P_ON_TILES]
            or X.pl[p, L.P_HQ] + boxed + on_tiles != r[L.R_CUBES]
        ):
            violation(X, L.CHK_CUBES)
        sides = 0
        for h in range(n_hex):
            for k in range(6):
                if X.edge_owner[h, k] == p:
                    sides += 1
        if sides != 2 * X.pl[p, L.P_TRACKS] or X.pl[p, L.P_TRACKS] > r[L.R_TRACKS]:
            violation(X, L.CHK_TRACKS)
        for kind in range(L.NUM_FARM_KINDS):
            placed = 0
            for h in range(n_hex):
                if X.hx[h, L.H_FARM_OWNER] == p and X.hx[h, L.H_FARM_KIND] == kind:
                    placed += 1
            if placed != X.pl[p, L.P_FARMS + kind] or placed > r[L.R_FARMS_PER_KIND]:
                violation(X, L.CHK_FARMS)
        if X.pl[p, L.P_TIME] < X.pl[p, L.P_PREV_TIME]:
            violation(X, L.CHK_TIME)
        if p == actor and X.pl[p, L.P_TIME] <= X.pl[p, L.P_PREV_TIME]:
            violation(X, L.CHK_TIME)
        X.pl[p, L.P_PREV_TIME] = X.pl[p, L.P_TIME]
        for u in range(L.NUM_UNITS):
            if X.pl[p, L.P_UNITS + u] < 0:
                violation(X, L.CHK_NEGATIVE)
    for u in range(L.NUM_UNITS):
        held = g[L.G_SUPPLY + u]
        for p in range(g[L.G_NUM_PLAYERS]):
            held += X.pl[p, L.P_UNITS + u]
        if g[L.G_SUPPLY + u] < 0 or held != S.unit_supply[u]:
            violation(X, L.CHK_SUPPLY)
    for i in range(X.tile_hex.size):
        h = X.tile_hex[i]
        on_board = X.tile_state[i] == L.TILE_BOARD
        if (h >= 0) != on_board or (h >= 0 and not (X.hex_blocked[h] and X.hex_old_ones[h])):
            violation(X, L.CHK_TILES)
        if h < 0:
            for p in range(L.MAX_PLAYERS):
                if X.tile_cubes[i, p] != 0:
                    violation(X, L.CHK_TILES)
    if g[L.G_OO_TIME] > r[L.R_END]:
        violation(X, L.CHK_TIME)


@kernel(inline="always")  # a thin level: see the module docstring
def take_turn(rngs, S, X, W, actor):
    """One turn of ``actor`` (a seat, or OLD_ONES)."""
    g = X.g
    if actor == OLD_ONES:
        if g[L.G_MODE] == L.MODE_REVENGE:
            oop_turn(rngs, S, X, W)
        elif g[L.G_MODE] == L.MODE_MYTHOS_SOLO:
            mythos_solo_turn(rngs, S, X, W)
        else:
            old_ones_turn(rngs, S, X, W)
    else:
        player_turn(rngs, S, X, W, actor)
    if g[L.G_CHECKED] != 0:
        check_invariants(S, X, actor)


@kernel(inline="always")  # a thin level: see the module docstring
def advance(rngs, S, X, W, stop_seats):
    """Play turns until a seat in the bit mask ``stop_seats`` is to act: returns that seat
    (its turn not taken yet; step_seat takes it), OLD_ONES if the mask has STOP_OLD_ONES
    and the Old One player (Revenge) is to act (step_oop takes it), or NOBODY once the
    game is over."""
    g = X.g
    while g[L.G_OVER] == 0:
        g[L.G_STEPS] += 1
        if g[L.G_STEPS] > MAX_STEPS:
            g[L.G_OVER] = 1
            g[L.G_END_REASON] = L.END_ABORT
            break
        actor = next_actor(S, X)
        if actor == NOBODY:
            g[L.G_OVER] = 1
            g[L.G_END_REASON] = L.END_TIME
            g[L.G_END_TIME] = g[L.G_OO_TIME]
            break
        if actor >= 0 and (stop_seats >> actor) & 1:
            g[L.G_STEPS] -= 1  # counted again by step_seat
            return actor
        if actor == OLD_ONES and stop_seats & STOP_OLD_ONES and g[L.G_MODE] == L.MODE_REVENGE:
            g[L.G_STEPS] -= 1  # counted again by step_oop
            return OLD_ONES
        take_turn(rngs, S, X, W, actor)
    return NOBODY


@kernel
def step_seat(rngs, S, X, W, p, box):
    """Seat p (returned by advance) takes its turn with action ``box`` (-1: its strategy
    chooses)."""
    X.g[L.G_STEPS] += 1
    X.g[L.G_FORCED_BOX] = box + 1 if box >= 0 else 0
    take_turn(rngs, S, X, W, p)


@kernel
def step_oop(rngs, S, X, W, action):
    """The Old One player (returned by advance) takes its turn with OOP_* ``action`` (-1:
    its strategy chooses). Its Mythos card before it is its strategy's unless the caller
    set X.g[G_FORCED_MYTHOS] (simkit.kernels.game_oop.oop_turn)."""
    X.g[L.G_STEPS] += 1
    X.g[L.G_FORCED_OOP_ACTION] = action + 1 if action >= 0 else 0
    take_turn(rngs, S, X, W, OLD_ONES)


@kernel
def finish_game(S, X):
    """The end-of-game checks and log row (after advance returned NOBODY)."""
    g = X.g
    if g[L.G_CHECKED] != 0 and g[L.G_END_REASON] != L.END_TIME and g[L.G_END_REASON] != L.END_PORT:
        violation(X, L.CHK_END)
    log_event(X, L.EV_END, g[L.G_OO_TIME], -1, g[L.G_END_REASON], g[L.G_OO_TIME], 0, 0, 0)


@kernel(inline="always")  # a thin level: see the module docstring
def run_game(rngs, S, X, W):
    """Play the set-up game to its end. X.g[G_END_REASON] says how it ended."""
    advance(rngs, S, X, W, 0)
    finish_game(S, X)


@kernel(inline="always")  # a thin level: see the module docstring
def play_game(rngs, S, X, W, setup, out):
    """Set up (game_setup.setup_row ``setup``), play and score one game; the summary row
    goes to ``out``. Returns the number of log rows written."""
    setup_game(rngs, S, X, W, setup)
    if X.g[L.G_OVER] == 0:
        run_game(rngs, S, X, W)
    summarize(S, X, W, out)
    return X.g[L.G_LOG_N]


@kernel
def play_chunk(rngs, S, X, W, setup, sid, params, key, first_game, rows, g_extra, extra):
    """Games first_game .. first_game + len(rows) - 1 of one chunk in one call: each game's
    streams seeded from ``key`` and its index (simkit.kernels.low.rand), set up as the row
    ``setup`` says (game_setup.setup_row; Engine._setup_args), its seats loaded
    from ``sid`` / ``params`` (in the caller's order; setup_game seats them), its summary
    row into ``rows[k]`` and X.g[g_extra] into ``extra[k]``. No per-game work is left to
    Python (simkit.game.engine.Engine.play_many)."""
    for k in range(rows.shape[0]):
        seed_game_streams(rngs, key, first_game + k)
        for p in range(X.sid.size):
            X.sid[p] = sid[p]
            for j in range(X.params.shape[1]):
                X.params[p, j] = params[p, j]
        play_game(rngs, S, X, W, setup, rows[k])
        for j in range(g_extra.size):
            extra[k, j] = X.g[g_extra[j]]
