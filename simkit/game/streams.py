"""A game's chance in named streams (simkit.kernels.low.game_layout RNG_*)."""

from __future__ import annotations

import numpy as np

from simkit.kernels.low.game_layout import NUM_STREAMS


def game_streams(rng: np.random.Generator | int) -> tuple[np.random.Generator, ...]:
    """The named chance streams of one game (game_layout.RNG_*), spawned from its Generator.

    One child per purpose (setup, Old One deck, movement, Mythos deck, the Old One player,
    each human seat), so what one seat's strategy draws never shifts another's cards.

    >>> a, b = game_streams(7), game_streams(np.random.default_rng(7))
    >>> len(a), a[1].random() == b[1].random()
    (9, True)
    """
    if not isinstance(rng, np.random.Generator):
        rng = np.random.default_rng(rng)
    return tuple(rng.spawn(NUM_STREAMS))
