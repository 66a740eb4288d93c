"""How many nodes the exact solver would need, counted without solving: a cheap screen.

:func:`simkit.kernels.combat_exact.node_value` stores one node per reachable (deck
composition, combat state) and gives up once it needs more than its state budget; an
attempt that fails pays for the whole budget. :func:`count_nodes` walks the same nodes in
the same way (the same expander, simkit.kernels.combat_exact.exact_node, in its COUNT
mode: the same withdrawal options, draws, reshuffles, stalemates and fixed allocation)
but carries no values, so it learns that a matchup will not fit for a part of that price.
It handles what the odds table asks (a fixed allocation policy, a fixed withdraw policy
or the optimal-withdrawal search); anything else is the caller's to leave to the solver.
"""

from simkit.kernels.combat_exact import COUNT_DEEP, COUNT_MORE, count_nodes

__all__ = ["COUNT_DEEP", "COUNT_MORE", "count_nodes"]
