"""Layout of the combat state vector and the combat enums (no numba; fields declared with
simkit.kernels.low.fields).

Kernels and strategies both read a combat as one int64 array ``st``:

    st[COUNT + s]      units left in stack s           (s: simkit.names.STACKS order)
    st[DAMAGE + s]     damage cubes on stack s          (0 .. capacity-1)
    st[LOST + s]       units of stack s eliminated in this combat
    st[SANITY]         sanity tokens left
    st[OO_DAMAGE + i]  damage on Old One i              (alive while < its capacity)
    st[CARDS]          Old One cards drawn so far
    st[RESHUFFLES]     times the discard pile was shuffled into a new deck
    st[JONES_USED]     1 once Corporal Jones' withdraw-before-resolve is spent
    st[PORT_HITS]      damage the port took in this combat (Revenge flip rule)
    st[PROGRESS]       1 once a card (or a withdrawal) changed the fight since the last
                       reshuffle: a full pass of the deck that leaves it 0 is a stalemate
    st[OUTCOME]        ONGOING or one of the outcomes below

A matchup's static side is ``mx`` (int64) and ``mx_cost`` (float64):

    mx[CAPACITY + s]   damage capacity of stack s
    mx[HITBIT + s]     unit bit stack s contributes to the hit mask (-1 none)
    mx[TAKES_PURPLE+s] 1 if purple cubes may be placed on stack s
    mx[GROUP + s]      withdrawal group: 1 airships, 2 other units, 0 never leaves
    mx[OO_TYPE + i]    Old One type of slot i (-1 empty slot)
    mx[OO_CAPACITY+i]  damage capacity of slot i
    mx[CAN_WITHDRAW]   0 in port defence
    mx[PORT_FIGHTS]    1: the port token fights as Infantry and counts as a combatant
                       ("if you have no Units when your Port is attacked"); 0: it only
                       takes purple cubes, and the force is defeated when its units are gone
    mx[MILLIGAN]       automatic damage at the start of combat if Artillery present
    mx[JONES]          1 if Corporal Jones is with the force
    mx[EXTRA_PURPLE]   purple cubes added to every card (Revenge Mythos Deep Ones; 0 otherwise)
    mx[KEEP_DAMAGE]    1: surviving units keep their damage at the end (the game carries it
                       into the next fight of the same turn; Revenge) instead of healing
    mx[PORT_JOINS]     1: when the last unit is gone and the Port token still stands, the
                       token fights on as Infantry (reading port_as_infantry =
                       "when_units_gone"); 0: the force is defeated then
    mx_cost[s]         gold value of one unit of stack s (allocation, objectives)
"""

# the index constants the Layouts below export, re-exported (C.COUNT ...): one definition
# line each in combat_constants.py, written by simkit.kernels.low.gen_constants
from simkit.kernels.low.combat_constants import *  # noqa: F403
from simkit.kernels.low.fields import Layout

NUM_STACKS = 7
MAX_OLD_ONES = 4
NUM_OLD_ONE_TYPES = 6

# the combat state st[...] (int64 [STATE_SIZE])
STATE_LAYOUT = Layout(
    "st",
    (
        ("COUNT", NUM_STACKS, "+ stack: units left"),
        ("DAMAGE", NUM_STACKS, "+ stack: damage cubes (0 .. capacity-1)"),
        ("LOST", NUM_STACKS, "+ stack: units eliminated in this combat"),
        ("SANITY", 1, "sanity tokens left"),
        ("OO_DAMAGE", MAX_OLD_ONES, "+ slot: damage on Old One i"),
        ("CARDS", 1, "Old One cards drawn so far"),
        ("RESHUFFLES", 1),
        ("JONES_USED", 1),
        ("PORT_HITS", 1),
        ("PROGRESS", 1),
        ("OUTCOME", 1, "ONGOING or an outcome below"),
    ),
    size_name="STATE_SIZE",
)

# the matchup mx[...] (int64 [MATCHUP_SIZE])
MATCHUP_LAYOUT = Layout(
    "mx",
    (
        ("CAPACITY", NUM_STACKS, "+ stack: damage capacity"),
        ("HITBIT", NUM_STACKS, "+ stack: unit bit in the hit mask (-1 none)"),
        ("TAKES_PURPLE", NUM_STACKS, "+ stack: 1 if purple cubes may be placed on it"),
        ("GROUP", NUM_STACKS, "+ stack: withdrawal group"),
        ("OO_TYPE", MAX_OLD_ONES, "+ slot: Old One type (-1 empty)"),
        ("OO_CAPACITY", MAX_OLD_ONES, "+ slot: damage capacity"),
        ("CAN_WITHDRAW", 1),
        ("PORT_FIGHTS", 1),
        ("MILLIGAN", 1),
        ("JONES", 1),
        ("EXTRA_PURPLE", 1),
        ("KEEP_DAMAGE", 1),
        ("PORT_JOINS", 1),
    ),
    size_name="MATCHUP_SIZE",
)

# every index layout above (simkit.kernels.low.gen_constants writes their constants)
LAYOUTS = (STATE_LAYOUT, MATCHUP_LAYOUT)

# st[OUTCOME]
ONGOING = -1
WIN = 0  # every Old One destroyed
WIN_AND_DEFEAT = 1  # destroyed and defeated by the same card
DEFEAT = 2
WITHDRAW = 3
STALEMATE = 4  # a full pass of the deck changed nothing: the fight can never end
NUM_OUTCOMES = 5
OUTCOME_NAMES = ("win", "win_and_defeat", "defeat", "withdraw", "stalemate")

# withdrawal options (before drawing a card)
STAY = 0
WITHDRAW_AIRSHIPS = 1
WITHDRAW_OTHERS = 2
WITHDRAW_ALL = 3

# withdrawal groups
GROUP_NONE = 0
GROUP_AIRSHIPS = 1
GROUP_OTHERS = 2

PORT_STACK = 6
AIRSHIP_STACK = 4
