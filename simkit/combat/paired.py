"""One matchup's Monte Carlo runs again and again (:class:`MonteCarloRunner`, the stages of
an odds-table row): one withdraw policy, or two on the same cards (paired), or to a target
precision (simkit.kernels.combat_paired)."""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from simkit.combat.exact import _table_array, withdraw_table_for
from simkit.combat.montecarlo import MC_CHUNK, _mc_result
from simkit.combat.parse import Combat, available_cards, combat_arrays, policies
from simkit.combat.result import CombatOdds
from simkit.combat.states import pass_bound
from simkit.core.seeds import chunk_generators, chunk_sizes
from simkit.datapack import AuzData
from simkit.errors import UserError
from simkit.kernels.combat import LOST_HIST, simulate_combats
from simkit.kernels.low import combat_layout as C
from simkit.kernels.low.combat_kit import combat_kit
from simkit.names import NUM_STACKS
from strategies.combat.allocation import OptimalAllocation
from strategies.combat.withdrawal import OptimalTable, OptimalWithdrawal

PAIRED_STREAM = 0x5EED2  # mixed into a seed for the second stream of a paired run


@dataclass
class Tallies:
    """What the Monte Carlo kernels count over some fights of one matchup and policy
    (simulate_combats' layout); tallies of independent runs add up."""

    games: int
    outcomes: np.ndarray
    lost: np.ndarray
    hist: np.ndarray
    cards: np.ndarray

    @classmethod
    def empty(cls) -> Tallies:
        return cls(
            0,
            np.zeros(C.NUM_OUTCOMES, dtype=np.int64),
            np.zeros(NUM_STACKS, dtype=np.int64),
            np.zeros(LOST_HIST, dtype=np.int64),
            np.zeros(3, dtype=np.int64),
        )

    def __add__(self, other: Tallies) -> Tallies:
        return Tallies(
            self.games + other.games,
            self.outcomes + other.outcomes,
            self.lost + other.lost,
            self.hist + other.hist,
            self.cards + other.cards,
        )

    @property
    def destroyed(self) -> int:
        return int(self.outcomes[C.WIN] + self.outcomes[C.WIN_AND_DEFEAT])


def _paired_tallies() -> tuple[np.ndarray, ...]:
    """Zeroed out-arrays of the paired kernels: row 0 policy A, row 1 policy B (outcomes,
    units lost, loss histogram, cards)."""
    return (
        np.zeros((2, C.NUM_OUTCOMES), dtype=np.int64),
        np.zeros((2, NUM_STACKS), dtype=np.int64),
        np.zeros((2, LOST_HIST), dtype=np.int64),
        np.zeros((2, 3), dtype=np.int64),
    )


class MonteCarloRunner:
    """Monte Carlo runs of one matchup again and again (the stages of an odds-table row):
    the matchup is lowered and the buffers made once. :meth:`run` is
    :func:`monte_carlo_odds` (same seed, same fights); :meth:`run_paired` plays two withdraw
    policies on the same cards (simkit.kernels.combat_paired): policy A exactly as
    :meth:`run` would, B on the same card order (and where it outlasts A, the same deck on
    from a second stream). Each column is a Monte Carlo estimate of its own policy; the two
    are correlated (common cards), and a fight where the policies never differ is played
    once. ``solved_table``: the withdraw table of this matchup's OptimalTable policy (from
    withdraw_table_for or SharedTables), if any is played."""

    def __init__(self, combat: Combat, data: AuzData, solved_table=None, allocate=None):
        allocate, _ = policies(allocate, None)
        if isinstance(allocate, OptimalAllocation):
            raise UserError(
                "optimal policies are computed by --method exact; Monte Carlo plays fixed policies"
            )
        self.combat, self.data, self.allocate = combat, data, allocate
        self.solved = solved_table
        self.st0, self.mx, self.cost = combat_arrays(combat, data)
        self.start_deck = np.flatnonzero(available_cards(data, ())).astype(np.int64)
        self.alloc = allocate.lower()
        self.wd_table = _table_array(solved_table)
        n_cards = data.card_hits.shape[0]
        self.tape_size = self.start_deck.size + n_cards * (pass_bound(self.st0, self.mx) + 1)

    def _kit(self, withdraw, withdraw_b=None):
        """A kernel kit for withdrawal ``withdraw`` (paired: A) and ``withdraw_b`` (B)."""
        return combat_kit(
            self.data,
            self.mx,
            self.cost,
            self.start_deck,
            self.alloc,
            withdraw,
            self.wd_table,
            self.data.port["flip_threshold"],
            withdraw_b=withdraw_b,
            tape_size=self.tape_size,
        )

    def use_table(self, solved_table) -> None:
        """Play this withdraw table from now on (the matchup's OptimalTable policy)."""
        self.solved = solved_table
        self.wd_table = _table_array(solved_table)

    def _check(self, withdraw) -> None:
        if isinstance(withdraw, OptimalWithdrawal):
            raise UserError(
                "optimal policies are computed by --method exact; Monte Carlo plays fixed policies"
            )
        if isinstance(withdraw, OptimalTable) and self.solved is None:
            raise ValueError("MonteCarloRunner: an OptimalTable policy needs its solved_table")

    def run(self, games: int, seed: int, withdraw=None) -> Tallies:
        """``games`` fights under one withdraw policy (monte_carlo_odds' fights for ``seed``)."""
        _, withdraw = policies(None, withdraw)
        self._check(withdraw)
        kit = self._kit(withdraw.lower())
        total = Tallies.empty()
        sizes = chunk_sizes(games, MC_CHUNK)
        for rng, n in zip(chunk_generators(seed, len(sizes)), sizes, strict=True):
            t = Tallies.empty()
            t.games = n
            simulate_combats(kit, rng, n, self.st0, t.outcomes, t.lost, t.hist, t.cards)
            total = total + t
        return total

    def _paired_setup(self, seed: int, withdraw_a, withdraw_b):
        """Both policies checked and lowered, and the seed of the second stream (the cards
        drawn once the two policies part)."""
        _, withdraw_a = policies(None, withdraw_a)
        _, withdraw_b = policies(None, withdraw_b)
        self._check(withdraw_a)
        self._check(withdraw_b)
        second = int(np.random.SeedSequence([seed, PAIRED_STREAM]).generate_state(1)[0])
        return withdraw_a.lower(), withdraw_b.lower(), second

    def run_paired(
        self, games: int, seed: int, withdraw_a, withdraw_b
    ) -> tuple[Tallies, Tallies, int]:
        """``games`` fights under A and B on the same cards: (A's tallies, B's, the fights in
        which the two policies parted)."""
        from simkit.kernels.combat_paired import simulate_paired

        wd_a, wd_b, second = self._paired_setup(seed, withdraw_a, withdraw_b)
        kit = self._kit(wd_a, wd_b)
        sizes = chunk_sizes(games, MC_CHUNK)
        a, b, forks = Tallies.empty(), Tallies.empty(), 0
        for rng, rng2, n in zip(
            chunk_generators(seed, len(sizes)),
            chunk_generators(second, len(sizes)),
            sizes,
            strict=True,
        ):
            out = _paired_tallies()
            forks += simulate_paired(kit, rng, rng2, n, self.st0, *out)
            a = a + Tallies(n, *(x[0] for x in out))
            b = b + Tallies(n, *(x[1] for x in out))
        return a, b, int(forks)

    def run_to_target(
        self,
        seed: int,
        stage: np.ndarray,
        withdraw_a=None,
        withdraw_b=None,
        first_a: Tallies | None = None,
    ) -> tuple[Tallies | None, Tallies | None]:
        """Columns A and B (None: not played) to a P(destroy) precision, all stages in one
        kernel call (simkit.kernels.combat_paired.simulate_to_target; ``stage``: its
        settings): shared-card games while both columns need more, then the one still short
        alone. ``first_a``: games of A already played, which count. The games of one
        ``seed`` are always the same; returns each played column's tallies."""
        from simkit.kernels.combat_paired import simulate_to_target

        play_a, play_b = withdraw_a is not None, withdraw_b is not None
        wd_a, wd_b, second = self._paired_setup(seed, withdraw_a, withdraw_b)
        kit = self._kit(wd_a, wd_b)
        out = _paired_tallies()
        if first_a is not None:
            for arr, part in zip(
                out, (first_a.outcomes, first_a.lost, first_a.hist, first_a.cards), strict=True
            ):
                arr[0] = part
        simulate_to_target(
            kit,
            chunk_generators(seed, 1)[0],
            chunk_generators(second, 1)[0],
            self.st0,
            (play_a, play_b),
            stage,
            *out,
        )
        cols = [
            Tallies(int(out[0][i].sum()), *(x[i].copy() for x in out)) if play else None
            for i, play in enumerate((play_a, play_b))
        ]
        return cols[0], cols[1]

    def odds(self, tallies: Tallies, withdraw=None, seed: int | None = None) -> CombatOdds:
        """The result of some runs under ``withdraw`` (their tallies added up)."""
        _, withdraw = policies(None, withdraw)
        t = tallies
        return _mc_result(
            self.combat,
            self.data,
            self.st0,
            self.cost,
            t.games,
            seed,
            self.allocate,
            withdraw,
            self.solved if isinstance(withdraw, OptimalTable) else None,
            t.outcomes,
            t.lost,
            t.hist,
            t.cards,
        )


def paired_monte_carlo_odds(
    combat: Combat,
    data: AuzData,
    games: int,
    seed: int,
    withdraw_b,
    solved_table=None,
    allocate=None,
    withdraw_a=None,
) -> tuple[CombatOdds, CombatOdds, int]:
    """Monte Carlo of two withdraw policies on the same cards (MonteCarloRunner.run_paired):
    (odds under ``withdraw_a``, default never, odds under ``withdraw_b``, fights where they
    parted). The A column is exactly :func:`monte_carlo_odds` with the same seed.
    ``solved_table``: the table of whichever policy is an OptimalTable (solved if not given).
    """
    allocate, withdraw_a = policies(allocate, withdraw_a)
    _, withdraw_b = policies(None, withdraw_b)
    if isinstance(withdraw_a, OptimalTable) and isinstance(withdraw_b, OptimalTable):
        raise UserError("paired Monte Carlo plays at most one withdraw table")
    if games <= 0:
        raise UserError(f"--games must be positive, got {games}")
    table_policy = withdraw_a if isinstance(withdraw_a, OptimalTable) else withdraw_b
    if solved_table is None and isinstance(table_policy, OptimalTable):
        st0, mx, cost = combat_arrays(combat, data)
        solved_table = withdraw_table_for(combat, data, allocate, table_policy, st0, mx, cost)
    runner = MonteCarloRunner(combat, data, solved_table, allocate)
    a, b, forks = runner.run_paired(games, seed, withdraw_a, withdraw_b)
    return runner.odds(a, withdraw_a, seed), runner.odds(b, withdraw_b, seed), forks
