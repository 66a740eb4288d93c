"""Mythos Solo (revenge-of-the-old-ones-rules.txt, Mythos Solo): the base-game solo mode
with the Revenge Port (strength 4) and Outposts and the Mythos deck.

Setup: as the base solo game (survey with Old One tiles, no Spawn tiles, purple disc on
22, the solo difficulty's resources), plus two Infantry and a Personality, the Port token
at strength 4, the Mythos deck shuffled (nobody holds cards).

The Old Ones' turn is the base one (disc one space, Revelation on an illuminated space,
then the movement check; Port and Outpost fights as in Revenge, all of them before any
Mythos card: FAQ "Resolve all combat before drawing the Mythos card"). On a
non-illuminated space the top Mythos card is then flipped and actioned against the
player, its TP cost ignored; a card that does not apply does nothing and is discarded (no
reshuffle: "You must not shuffle the Mythos deck unless a played card allows you to").
A flipped combat card waits for the combat it names (simkit.kernels.game_mythos_combat).
Scoring is the base game's (Solo Scoring: "As per AuZtralia"); the Old Ones win ties.
"""

from simkit.kernels.game_mythos_cards import mythos_applicable, play_mythos
from simkit.kernels.game_old_ones import old_ones_turn
from simkit.kernels.game_oop import human_extras, mythos_draw, shuffle_mythos
from simkit.kernels.low import game_layout as L
from simkit.kernels.low.game_common import log_event, now
from simkit.kernels.low.jit import kernel


@kernel
def mythos_solo_setup(rngs, S, X, W):
    """After the base solo setup: Port token 4, 2 Infantry, a Personality, the Mythos deck."""
    X.g[L.G_RULESET] = L.RULES_REVENGE
    human_extras(S, X, S.port_rev[L.PR_STRENGTH_NORMAL])
    shuffle_mythos(rngs, S, X)


@kernel
def flip_mythos(rngs, S, X, W):
    """Flip the top Mythos card and action it against the player (seat 0)."""
    g = X.g
    c = mythos_draw(X)
    if c < 0:
        return
    g[L.G_MYTHOS_FLIPPED] += 1
    e = S.myth_effect[c]
    if S.myth_combat[c] != 0:
        X.mythos_hand[c] = 1  # waits for its combat
        log_event(X, L.EV_MYTHOS, now(X), 0, c, L.MYTHOS_PENDING, -1, 0, e)
    elif mythos_applicable(S, X, W, c, 0):
        play_mythos(rngs, S, X, W, c, 0, L.MYTHOS_FLIPPED, 0)
    else:
        g[L.G_MYTHOS_NO_EFFECT] += 1
        log_event(X, L.EV_MYTHOS, now(X), 0, c, L.MYTHOS_NO_EFFECT, -1, 0, e)


@kernel
def mythos_solo_turn(rngs, S, X, W):
    """The base Old Ones' turn, then a Mythos card on a non-illuminated space."""
    old_ones_turn(rngs, S, X, W)
    if X.g[L.G_OVER] != 0:
        return
    t = X.g[L.G_OO_TIME]
    illum = S.illuminated[t] if t < S.illuminated.size else False
    if not illum:
        flip_mythos(rngs, S, X, W)
