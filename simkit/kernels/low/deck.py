"""Game-neutral deck kernels: draw without replacement, reshuffle when exhausted.

A deck is an int64 buffer of card indices whose first ``n_left`` entries are the
cards still to draw; a drawn card is swapped just past that region, so resetting
``n_left`` (or refilling the buffer) restores a deck in O(cards drawn). Chance
lives only here: callers resolve the returned card with their own rules.
"""

from simkit.kernels.low.jit import kernel
from simkit.kernels.low.rand import uniform


@kernel(inline="always")
def draw_card(rng, deck, n_left):
    """Uniformly draw one of deck[:n_left]; return (card, new n_left)."""
    j = int(uniform(rng) * n_left)
    card = deck[j]
    n_left -= 1
    deck[j] = deck[n_left]
    deck[n_left] = card
    return card, n_left


@kernel(inline="always")
def refill_full(deck):
    """A fresh deck of every card (the whole discard pile shuffled back in)."""
    for k in range(deck.size):
        deck[k] = k
    return deck.size


@kernel(inline="always")
def composition_key(counts, place):
    """Mixed-radix index of a deck composition (cards left per outcome class)."""
    key = 0
    for c in range(counts.size):
        key += counts[c] * place[c]
    return key
