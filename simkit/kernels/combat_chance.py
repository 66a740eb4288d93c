"""The combat draw loop's sources of chance (simkit.kernels.combat.play_one's ``source``).

``Chance`` draws each card with a uniform taken from its generator as the card is drawn.
``Ahead``, the Monte Carlo runs' source (simkit.kernels.combat._simulate), takes the uniform
of the next card when the card before it is drawn: drawing a card waits for the
generator, and the card's rules wait for the card, so the generator's work then overlaps
the rules of the card before instead of stalling the next draw (measured: combat Monte
Carlo about 12% faster, benchmarks/bench_combat.py). The same uniforms in the same order,
so the same cards and the same fights; the generator ends one draw past a run's last card
(every run has its own generator). Both draw with the one draw rule,
simkit.kernels.low.deck.draw_card (``Ahead`` hands it the held uniform as ``Held``).
"""

from collections import namedtuple

from numba.core import types
from numba.extending import overload

from simkit.kernels.low.deck import draw_card
from simkit.kernels.low.jit import kernel
from simkit.kernels.low.rand import uniform

Chance = namedtuple("Chance", ("rng", "n_left"))
Chance.__doc__ = """Cards drawn by chance from kit.deck[:n_left]: ``rng`` a numpy Generator
(Monte Carlo) or a game stream (uint64[4], simkit.kernels.low.rand)."""
Chance.shuffles = True  # a fresh deck is kit.deck refilled (else: the script's own order)

Ahead = namedtuple("Ahead", ("rng", "n_left", "u"))
Ahead.__doc__ = """Chance one draw ahead: the next card is drawn with ``u``, a uniform the
numpy Generator ``rng`` gave when the card before it was drawn."""
Ahead.shuffles = True

Held = namedtuple("Held", ("u",))
Held.__doc__ = """A uniform drawn before: what ``uniform(rng)`` returns for it."""


@overload(uniform, inline="always")
def _held_uniform(rng):
    if isinstance(rng, types.BaseNamedTuple) and rng.instance_class is Held:
        return lambda rng: rng.u
    return None


@kernel(inline="always")
def draw_ahead(source, deck):
    """(card, source): draw a card of deck[:source.n_left] with the held uniform and take
    the next card's from the generator."""
    c, n_left = draw_card(Held(source.u), deck, source.n_left)
    return c, Ahead(source.rng, n_left, uniform(source.rng))
