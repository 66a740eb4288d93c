"""Brute-force reference: enumerate every card order with exact fractions.

Slow on purpose and game-neutral: a game supplies ``step(state, card)`` that
resolves one drawn card and returns ``(new_state, outcome)`` with ``outcome`` None
while the draw loop goes on. Every remaining card is drawn with equal chance; when
the deck runs out, every card of the full deck comes back (the discard pile
reshuffled). Used by tests to check the fast solvers exactly.
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Callable, Hashable, Sequence
from fractions import Fraction
from typing import Any

Step = Callable[[Any, int], tuple[Any, Hashable | None]]


def enumerate_outcomes(
    full_deck: Sequence[int],
    start_deck: Sequence[int],
    state: Any,
    step: Step,
    before_draw: Callable[[Any, tuple[int, ...]], tuple[Any, Hashable | None]] | None = None,
    max_reshuffles: int = 3,
    on_exhausted: Hashable | Callable[[Any], Hashable] = "stopped",
    stalemate: Callable[[Any], Hashable] | None = None,
) -> Counter:
    """Exact distribution of outcomes over all orders in which cards can be drawn.

    ``before_draw(state, remaining)`` may end the loop before a draw (a withdrawal)
    by returning an outcome. With ``stalemate``, a whole fresh deck drawn without
    changing the state ends the loop with ``stalemate(state)`` (no card can ever change
    it). Past ``max_reshuffles`` reshuffles the loop ends with ``on_exhausted`` (or
    ``on_exhausted(state)`` if it is callable). States must compare equal when nothing
    changed and must not be mutated by ``step``.
    """
    result: Counter = Counter()

    def walk(st, remaining: tuple[int, ...], reshuffles: int, pass_start, prob: Fraction) -> None:
        if before_draw is not None:
            st, outcome = before_draw(st, remaining)
            if outcome is not None:
                result[outcome] += prob
                return
        if not remaining:
            if stalemate is not None and reshuffles > 0 and st == pass_start:
                result[stalemate(st)] += prob
                return
            if reshuffles >= max_reshuffles:
                result[on_exhausted(st) if callable(on_exhausted) else on_exhausted] += prob
                return
            remaining = tuple(full_deck)
            reshuffles += 1
            pass_start = st
        share = prob / len(remaining)
        for i, card in enumerate(remaining):
            new_state, outcome = step(st, card)
            if outcome is not None:
                result[outcome] += share
            else:
                walk(new_state, remaining[:i] + remaining[i + 1 :], reshuffles, pass_start, share)

    walk(state, tuple(start_deck), 0, None, Fraction(1))
    return result
