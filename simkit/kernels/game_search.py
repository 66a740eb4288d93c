"""What a look-ahead player needs from the engine: the legal actions of a turn, and a
copy of the game as one seat sees it (determinization).

A human seat sees the board, every face-up tile, the discard piles and its rivals'
pieces, but not the identity of a face-down Old One tile (on the map, in a stack or set
aside), the order of the Old One deck, the Personality draw pile, the Revelation pile
(which of each level's cards setup put in it, and their order), the Mythos pile (Revenge
and Mythos Solo), nor (Revenge) which Mythos cards the Old One player holds.
``determinize`` deals those unseen identities anew from ``rng``: it first lists the
unseen identities in a fixed order and the places they may occupy in a fixed order, so
the result depends only on
what the seat can see and on ``rng``, never on where the hidden cards and tiles really
are (tests/test_search.py changes only hidden information and checks exactly that).
The Old One player (Revenge) sees more: its hand and the face-down tiles on the map.
"""

from numba.core import types
from numba.extending import overload

from simkit.kernels.game_actions import turn_context
from simkit.kernels.game_oop import oop_legal_actions
from simkit.kernels.low import game_layout as L
from simkit.kernels.low.board import shuffle_prefix
from simkit.kernels.low.jit import kernel
from strategies.old_ones.learned import oop_features
from strategies.old_ones.policy import weakest_port

ASIDE_PLACE = -(1 << 40)


def copy_fields(dst, src):
    """(jitted) Every field a rollout copies from the live game, ``src`` into ``dst`` (two
    State or two Work refs): all but the event log (rollouts write none) and the withdraw
    table caches ``wt_*`` (solved tables of pure functions: a rollout keeps its own), and
    Work's ``move_kit`` (each buffer set has its own, over its own arrays)."""
    raise NotImplementedError("jitted only")


# Plain loops, one per rank: a reshape(-1) view of each array called numba's runtime
# (numba_attempt_nocopy_reshape) twice per field, about 2% of a rollout.
@kernel(inline="always")
def _copy_1d(dst, src):
    for i in range(dst.shape[0]):
        dst[i] = src[i]


@kernel(inline="always")
def _copy_2d(dst, src):
    for i in range(dst.shape[0]):
        for j in range(dst.shape[1]):
            dst[i, j] = src[i, j]


@overload(copy_fields)
def _copy_fields(dst, src):
    # generated from the ref's field names, so a field added to the layout is copied too
    names = [
        n
        for n, t in dst.field_dict.items()
        if isinstance(t, types.Array) and n != "log" and not n.startswith("wt_")
    ]  # (not Work's move_kit: it is made over each buffer set's own arrays)
    rank = {n: dst.field_dict[n].ndim for n in names}
    if set(rank.values()) - {1, 2}:
        raise TypeError(f"copy_fields: only 1-D and 2-D fields, got {rank}")
    body = "".join(f"    _copy_{rank[n]}d(dst.{n}, src.{n})\n" for n in names)
    space = {"_copy_1d": _copy_1d, "_copy_2d": _copy_2d}
    exec(f"def impl(dst, src):\n{body}", space)  # noqa: S102
    return space["impl"]


@kernel
def start_rollout(Xd, Wd, Xs, Ws, p, model_sid, model_params, oop_params):
    """The rollout buffers (Xd, Wd) = the live game (Xs, Ws), without log or checks. With a
    public model (``model_sid`` >= 0) every seat but p plays ``model_sid`` with
    ``model_params``, and (Revenge) the Old One player ``oop_params`` unless it is empty."""
    copy_fields(Xd, Xs)
    copy_fields(Wd, Ws)
    g = Xd.g
    g[L.G_LOG_ON] = 0
    g[L.G_CHECKED] = 0
    if model_sid < 0:
        return
    for q in range(g[L.G_NUM_PLAYERS]):
        if q != p:
            Xd.sid[q] = model_sid
            for k in range(model_params.size):
                Xd.params[q, k] = model_params[k]
            Xd.pl[q, L.P_STRATEGY] = model_sid
    if oop_params.size > 0 and g[L.G_MODE] == L.MODE_REVENGE:
        for k in range(oop_params.size):
            Xd.oop_params[k] = oop_params[k]


@kernel
def legal_boxes(S, X, W, p, out):
    """out[b] = action box b is legal for seat p now (what choose_action would be offered)."""
    turn_context(S, X, W, p)
    for b in range(L.NUM_BOXES):
        out[b] = W.legal[b]


@kernel
def _sort(a, n):
    for i in range(1, n):
        v = a[i]
        j = i - 1
        while j >= 0 and a[j] > v:
            a[j + 1] = a[j]
            j -= 1
        a[j + 1] = v


@kernel
def _redeal_window(rng, deck, lo, hi, buf):
    """deck[lo:hi] = the same cards in an order drawn from rng (not from their order now)."""
    n = hi - lo
    for k in range(n):
        buf[k] = deck[lo + k]
    _sort(buf, n)
    shuffle_prefix(rng, buf, n)
    for k in range(n):
        deck[lo + k] = buf[k]


@kernel
def _redeal_tiles(rng, S, X, W, lv, board):
    """Deal the unseen Old One identities of stack lv (level lv + 1) anew over the places
    they may be in: face-down on the map (if ``board``), in the stack, set aside."""
    nt = X.tile_hex.size
    ids = W.deal  # unseen identities, ascending
    place = W.deal2  # hex >= 0 on the map; -1 - j at stack position j; ASIDE_PLACE aside
    n = 0
    n_stack = 0
    for i in range(nt):
        if S.tile_level[i] != lv + 1 or X.tile_up[i]:
            continue
        st = X.tile_state[i]
        on_map = board and st == L.TILE_BOARD and X.tile_hex[i] >= 0
        if st == L.TILE_STACK or st == L.TILE_ASIDE or on_map:
            ids[n] = i
            n += 1
            n_stack += st == L.TILE_STACK
    if n < 2 or n_stack != X.stack_size[lv] - X.stack_top[lv]:
        return  # nothing to re-deal (or a stack this kernel does not understand: keep it)
    m = 0
    for k in range(n if board else 0):  # places in a fixed order: hexes (ascending), stack, aside
        i = ids[k]
        if X.tile_state[i] == L.TILE_BOARD:
            place[m] = X.tile_hex[i]
            m += 1
    _sort(place, m)
    for j in range(X.stack_top[lv], X.stack_size[lv]):
        place[m] = -1 - j
        m += 1
    while m < n:
        place[m] = ASIDE_PLACE
        m += 1
    shuffle_prefix(rng, ids, n)
    for k in range(n):
        i = ids[k]
        s = place[k]
        X.tile_holder[i] = -1
        X.tile_last_hex[i] = -1
        for q in range(L.MAX_PLAYERS):
            X.tile_dmg[i, q] = 0
            X.tile_cubes[i, q] = 0
        if s >= 0:
            X.tile_state[i] = L.TILE_BOARD
            X.tile_hex[i] = s
        elif s == ASIDE_PLACE:
            X.tile_state[i] = L.TILE_ASIDE
            X.tile_hex[i] = -1
        else:
            X.tile_state[i] = L.TILE_STACK
            X.tile_hex[i] = -1
            X.stacks[lv, -1 - s] = i


@kernel
def _redeal_revelations(rng, S, X, W):
    """The Revelation draw pile keeps its levels in place (they show on the backs), and
    each level's places are dealt from every card of that level not yet drawn: setup put
    only R_REV_PER_LEVEL of each level's cards in the pile, and nobody knows which."""
    lo = X.g[L.G_REV_POS]
    hi = X.g[L.G_REV_SIZE]
    buf = W.deal
    nrev = S.rev_level.size
    for lv in range(1, 4):
        n = 0
        for c in range(nrev):  # the level's cards in a fixed order, minus those drawn
            if S.rev_level[c] != lv:
                continue
            drawn = False
            for j in range(lo):
                if X.rev_deck[j] == c:
                    drawn = True
                    break
            if not drawn:
                buf[n] = c
                n += 1
        shuffle_prefix(rng, buf, n)
        k = 0
        for j in range(lo, hi):
            if S.rev_level[X.rev_deck[j]] == lv:
                X.rev_deck[j] = buf[k]
                k += 1


@kernel
def _redeal_mythos(rng, X, W, hand):
    """Revenge: the cards in the Mythos draw pile, and (``hand``) in the Old One player's hand."""
    g = X.g
    nm = X.mythos_deck.size
    buf = W.deal
    n = 0
    held = 0
    for c in range(X.mythos_hand.size if hand else 0):
        if X.mythos_hand[c] > 0:
            buf[n] = c
            n += 1
            held += 1
    for k in range(g[L.G_MYTHOS_LEFT]):
        buf[n] = X.mythos_deck[(g[L.G_MYTHOS_POS] + k) % nm]
        n += 1
    _sort(buf, n)
    shuffle_prefix(rng, buf, n)
    for c in range(X.mythos_hand.size if hand else 0):
        X.mythos_hand[c] = 0
    for k in range(held):
        X.mythos_hand[buf[k]] = 1
    for k in range(g[L.G_MYTHOS_LEFT]):
        X.mythos_deck[(g[L.G_MYTHOS_POS] + k) % nm] = buf[held + k]


@kernel
def determinize(rng, S, X, W, p):
    """Re-deal in place everything seat p cannot see (see the module docstring); p = -1:
    the Old One player, who knows its hand and "may secretly look at the placed facedown
    tiles at any time" (Revenge rules, Reveal Old One), so only the stacks and the piles."""
    human = p >= 0
    for lv in range(3):
        _redeal_tiles(rng, S, X, W, lv, human)
    _redeal_window(rng, X.oo_deck, 0, X.g[L.G_DECK_LEFT], W.deal)
    _redeal_window(rng, X.pers_deck, X.g[L.G_PERS_POS], X.g[L.G_PERS_SIZE], W.deal)
    _redeal_revelations(rng, S, X, W)
    mode = X.g[L.G_MODE]
    if mode == L.MODE_REVENGE:
        _redeal_mythos(rng, X, W, human)
    elif mode == L.MODE_MYTHOS_SOLO:  # the pile is face down; flipped cards are seen
        _redeal_mythos(rng, X, W, False)


@kernel
def legal_oop_actions(S, X, W, out):
    """out[a] = OOP_* action a is legal for the Old One player now (what its strategy
    would be offered, before any Mythos card)."""
    oop_legal_actions(S, X, W, W.oop_legal)
    for a in range(4):
        out[a] = W.oop_legal[a]


@kernel
def oop_turn_features(S, X, W, out):
    """out = the learned Old One player's features now (strategies.old_ones.learned), as
    its choice would see them if no Mythos card were played first (simkit.learn records
    them with the search's decision)."""
    up, down, hand, n_levels = oop_legal_actions(S, X, W, W.oop_legal)
    oop_features(S, X, up, down, hand, n_levels, weakest_port(S, X), out)
