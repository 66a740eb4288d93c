"""Every decision the engine asks of a human player, dispatched on the strategy id in
X.sid[p] (one compiled engine for every strategy; docs/ARCHITECTURE.md, Kernel conventions).

Ids: RANDOM 0, ECONOMIST 1, HUNTER 2, DEFENDER 3, BALANCED 4, LEARNED 6. Answers are checked by
the engine (simkit.kernels.game_actions); the functions never change the state.
"""

from simkit.kernels.low.jit import kernel
from strategies.human import balanced, defender, economist, hunter, learned, random_player
from strategies.human.features import (
    pick_cycle_heuristic,
    pick_drawn_heuristic,
    pick_farm_heuristic,
    pick_free_unit_heuristic,
    pick_mine_heuristic,
    pick_recruit_heuristic,
    pick_reveal_heuristic,
    pick_track_toward,
    pick_trade_heuristic,
    pick_unit_heuristic,
    plan_attack_heuristic,
    withdraw_if_bad,
)

RANDOM, ECONOMIST, HUNTER, DEFENDER, BALANCED = 0, 1, 2, 3, 4
LEARNED = learned.LEARNED_SID  # 6 (5 is the search player's label, never dispatched)


@kernel
def choose_action(rng, S, X, W, p):
    """The action box to use (W.legal says which are legal)."""
    sid = X.sid[p]
    if sid == ECONOMIST:
        return economist.choose_action(rng, S, X, W, p)
    if sid == HUNTER:
        return hunter.choose_action(rng, S, X, W, p)
    if sid == DEFENDER:
        return defender.choose_action(rng, S, X, W, p)
    if sid == BALANCED:
        return balanced.choose_action(rng, S, X, W, p)
    if sid == LEARNED:
        return learned.choose_action(rng, S, X, W, p)
    return random_player.choose_action(rng, S, X, W, p)


@kernel
def pick_track(rng, S, X, W, p, n):
    """Index into W.cand_h/W.cand_k[:n] of the side to lay a track across."""
    if X.sid[p] == RANDOM:
        return random_player.below(rng, n)
    return pick_track_toward(rng, S, X, W, p, n)


@kernel
def pick_mine(rng, S, X, W, p, n):
    """Index into W.cand_h (hex) / W.cand_k (resource) [:n]."""
    if X.sid[p] == RANDOM:
        return random_player.below(rng, n)
    return pick_mine_heuristic(X, W, p, n)


@kernel
def pick_recruit(rng, S, X, W, p):
    """A display slot, or -1 to pay and look at the top two cards of the pile."""
    if X.sid[p] == RANDOM:
        return random_player.pick_recruit(rng, S, X, W, p)
    return pick_recruit_heuristic(S, X, W, p)


@kernel
def pick_cycle(rng, S, X, W, p):
    """Revenge, before recruiting: a display slot to send to the pile's bottom, or -1."""
    if X.sid[p] == RANDOM:
        return random_player.pick_cycle(rng, S, X, W, p)
    return pick_cycle_heuristic(S, X, W, p)


@kernel
def pick_drawn(rng, S, X, W, p, a, b):
    """After paying to look at cards a, b (b -1 if none): W.choice[0] = which to keep
    (0/1), W.choice[1] = display slot to exchange it with (-1 none)."""
    if X.sid[p] == RANDOM:
        random_player.pick_drawn(rng, S, X, W, p, a, b)
    else:
        pick_drawn_heuristic(S, X, W, p, a, b)


@kernel
def pick_unit(rng, S, X, W, p):
    """W.choice[0] = unit, W.choice[1] = count (2 only for Infantry)."""
    if X.sid[p] == RANDOM:
        random_player.pick_unit(rng, S, X, W, p)
    else:
        pick_unit_heuristic(S, X, W, p)


@kernel
def pick_trade(rng, S, X, W, p):
    """W.choice[0], W.choice[1] = Import/Export sub-actions (game_layout IMPORT_*/EXPORT_*)."""
    if X.sid[p] == RANDOM:
        random_player.pick_trade(rng, S, X, W, p)
    else:
        pick_trade_heuristic(S, X, W, p)


@kernel
def pick_farm(rng, S, X, W, p, kind, n):
    """Index into W.hexes[:n] for a farm of ``kind``, or -1 for none of that kind."""
    if X.sid[p] == RANDOM:
        return random_player.below(rng, n)
    return pick_farm_heuristic(S, X, W, p, n)


@kernel
def plan_attack(rng, S, X, W, p):
    """Target hex; the force goes into W.force (units per type from the Barracks)."""
    if X.sid[p] == RANDOM:
        return random_player.plan_attack(rng, S, X, W, p)
    if X.sid[p] == LEARNED:
        return learned.plan_attack(S, X, W, p)
    return plan_attack_heuristic(S, X, W, p)


@kernel
def withdraw_after_flip(rng, S, X, W, p, h):
    """Face-down tiles in h were just flipped: withdraw before combat?"""
    if X.sid[p] == RANDOM:
        return random_player.below(rng, 4) == 0
    return withdraw_if_bad(S, X, W, p, h)


@kernel
def pick_reveal(rng, S, X, W, p):
    """Agent Davies: a face-down tile on the board to reveal."""
    if X.sid[p] == RANDOM:
        return random_player.pick_reveal(rng, S, X, W, p)
    return pick_reveal_heuristic(S, X, W, p)


@kernel
def pick_free_unit(rng, S, X, W, p):
    """Captain Flounder: a unit type still in the supply."""
    if X.sid[p] == RANDOM:
        return random_player.pick_free_unit(rng, S, X, W, p)
    return pick_free_unit_heuristic(S, X, W, p)
