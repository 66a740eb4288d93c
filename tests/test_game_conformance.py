"""One conformance suite for every strategy (docs/ARCHITECTURE.md, Tests): seeded games at
every table size, in solo mode, in Revenge of the Old Ones (1-4 humans, each Old One player
strategy) and in Mythos Solo; only legal answers (the engine never had to replace one),
every game ends by one of the two end conditions, invariants hold after every turn, the
same seed gives the identical event log and different seeds give different ones.
Every Old One player strategy is run through the same suite."""

from __future__ import annotations

import numpy as np
import pytest

from simkit.game.engine import Engine, make_spec
from simkit.kernels.low import game_layout as L
from strategies import registry
from strategies.old_ones import OOP_REGISTRY

GAMES = 200


@pytest.fixture(scope="module")
def eng():
    return Engine()


def conformance(
    eng: Engine,
    strategy: str,
    oops: tuple[str, ...] = ("rusher", "blighter", "mythos", "random"),
    games: int = GAMES,
) -> None:
    specs = (
        [make_spec("base", n, strategy) for n in (1, 2, 3, 4)]
        + [make_spec("solo", 1, strategy)]
        + [
            make_spec(
                "revenge",
                n,
                strategy,
                oop=oops[(n - 1) % len(oops)],
                difficulty=("normal", "hard", "heroic")[n % 3],
            )
            for n in (1, 2, 3, 4)
        ]
        + [make_spec("mythos-solo", 1, strategy)]
    )
    for k, spec in enumerate(specs):
        rows, logs = eng.play_many(spec, 1234 + k, 0, games, log=True, checked=True)
        assert rows[:, L.S_ILLEGAL].sum() == 0, (
            f"{strategy}: illegal answers in {spec.mode}/{spec.players}p"
        )
        assert rows[:, L.S_VIOLATIONS].sum() == 0, (
            f"{strategy}: invariant {L.CHECK_NAMES[int(rows[:, L.S_FIRST_VIOLATION].max())]} broken"
        )
        assert set(rows[:, L.S_END_REASON].tolist()) <= {L.END_TIME, L.END_PORT}
        assert rows[:, L.S_LOG_OVERFLOW].sum() == 0
        for lg in logs:
            assert not (lg[:, 0] == L.EV_ILLEGAL).any()
            assert lg[-1, 0] == L.EV_SCORE and (lg[:, 0] == L.EV_END).sum() == 1
        # same seed, same log; another seed, another log
        again = eng.play((1234 + k, 0, 3), spec, log=True)[1]
        assert np.array_equal(again, logs[3])
        other = eng.play((99, 0, 3), spec, log=True)[1]
        assert not (other.shape == logs[3].shape and np.array_equal(other, logs[3]))


def _slow_but(names, fast):
    """Every name as a test case; all but ``fast`` marked slow (``make test-fast`` keeps one)."""
    return [n if n == fast else pytest.param(n, marks=pytest.mark.slow) for n in names]


# the search player at its smallest budget (a rollout per action): the same engine paths
CONFORMANCE_SPECS = [n if n != "search" else "search:rollouts=1" for n in registry.available()]


@pytest.mark.parametrize("strategy", _slow_but(CONFORMANCE_SPECS, "random"))
def test_strategy_conforms(eng, strategy):
    # a search game costs hundreds of rollouts: fewer games, every table still played
    conformance(eng, strategy, games=8 if strategy.startswith("search") else GAMES)


@pytest.mark.slow
def test_strategy_playing_the_withdraw_table_conforms(eng):
    conformance(eng, "balanced:withdraw=table-value")


OOP_CONFORMANCE_SPECS = [
    *sorted(OOP_REGISTRY),
    "search:rollouts=1",
    "search:rollouts=1:policy=mythos:mythos=1",  # its Mythos card searched too
    "search:rollouts=1:sites=1",  # its Place's level and site, its Reveal's tile searched too
]


@pytest.mark.parametrize("oop", _slow_but(OOP_CONFORMANCE_SPECS, "random"))
def test_old_one_player_strategy_conforms(eng, oop):
    oop_conformance(eng, oop, games=8 if oop.startswith("search") else GAMES)


def oop_conformance(eng: Engine, oop: str, games: int = GAMES) -> None:
    """Revenge games with Old One player ``oop`` (2 humans, 3 on the alternative rules):
    legal answers, invariants, an end condition, the same seed the same log."""
    for k, (n, ruleset) in enumerate(((2, "revenge"), (3, "revenge-alt"))):
        humans = "random,economist,hunter" if n == 3 else "balanced,defender"
        spec = make_spec("revenge", n, humans, oop=oop, ruleset=ruleset)
        rows, logs = eng.play_many(spec, 4321 + k, 0, games, log=True, checked=True)
        assert rows[:, L.S_ILLEGAL].sum() == 0 and rows[:, L.S_VIOLATIONS].sum() == 0, (oop, n)
        assert set(rows[:, L.S_END_REASON].tolist()) <= {L.END_TIME, L.END_PORT}
        assert rows[:, L.S_LOG_OVERFLOW].sum() == 0
        assert np.array_equal(eng.play((4321 + k, 0, 5), spec, log=True)[1], logs[5])


def test_mixed_table_conforms(eng):
    spec = make_spec("base", 4, "random,economist,hunter,defender")
    rows, _ = eng.play_many(spec, 5, 0, GAMES, checked=True)
    assert rows[:, L.S_ILLEGAL].sum() == 0 and rows[:, L.S_VIOLATIONS].sum() == 0


def test_games_do_not_depend_on_what_was_played_before(eng):
    spec = make_spec("base", 2, "balanced,hunter")
    first = eng.play((8, 0, 0), spec, log=True)[1]
    eng.play_many(make_spec("base", 4, "random"), 1, 0, 5)
    assert np.array_equal(eng.play((8, 0, 0), spec, log=True)[1], first)
    fresh = Engine()
    assert np.array_equal(fresh.play((8, 0, 0), spec, log=True)[1], first)
