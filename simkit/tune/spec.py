"""What a tuning run is asked (simkit.tune): the mode, the strategy and its opponents, the
objective, the sampler, trials and games, validated when made.
"""

from __future__ import annotations

from dataclasses import asdict, dataclass
from functools import cached_property
from typing import Any

from simkit.errors import UserError
from strategies.files import file_role

MODES = ("base", "revenge", "mythos-solo")


OBJECTIVES = ("win", "margin")


SAMPLERS = ("tpe", "cmaes")


STUDY_FILE = "study.db"


MAX_GAMES = 1_000_000
TRAIN, LEADERS, HOLDOUT = 0, 1, 2  # chunk ids of the three seed sets


@dataclass(frozen=True)
class TuneSpec:
    """One tuning run: what is tuned, against whom, on which games."""

    mode: str
    strategy: str  # the strategy whose parameters move (its defaults start)
    opponents: tuple[
        str, ...
    ] = ()  # base: the other seats; revenge: the OOP (human tuned) or the humans
    difficulty: str | None = None
    humans: int = 2  # revenge: human players
    objective: str = "win"
    trials: int = 40
    games_per_trial: int = 400
    seed: int = 0
    sampler: str = "cmaes"
    leaders: int = 5
    leader_games: int = 0  # 0: 4 x games_per_trial
    holdout_games: int = 0  # 0: 4 x games_per_trial
    content: str = "assumed"
    ruleset: str = "revenge"
    overrides: tuple[tuple[str, Any], ...] = ()  # --set / --reading data overrides, sorted

    def __post_init__(self):
        if self.mode not in MODES:
            raise UserError(
                f"tune: unknown --mode '{self.mode}' (expected one of: {', '.join(MODES)})"
            )
        if self.objective not in OBJECTIVES:
            raise UserError(
                f"tune: unknown --objective '{self.objective}' "
                f"(expected one of: {', '.join(OBJECTIVES)})"
            )
        if self.sampler not in SAMPLERS:
            raise UserError(
                f"tune: unknown --sampler '{self.sampler}' (expected one of: {', '.join(SAMPLERS)})"
            )
        if not 0 <= self.seed < 2**63:
            raise UserError(
                f"tune: --seed must be a whole number in 0..{2**63 - 1}, got {self.seed}"
            )
        for name, value, low in (
            ("--trials", self.trials, 1),
            ("--games-per-trial", self.games_per_trial, 10),
            ("--leaders", self.leaders, 1),
            ("--leader-games", self.leader_games, 0),
            ("--holdout-games", self.holdout_games, 0),
        ):
            if not low <= value <= MAX_GAMES:
                raise UserError(f"tune: {name} must be {low}..{MAX_GAMES:,}, got {value}")

    @cached_property
    def role(self) -> str:
        """'oop' when an Old One player strategy is tuned (Revenge), else 'human' (worked
        out once: a file: spec is read to know)."""
        from strategies.old_ones import OOP_REGISTRY

        name = self.strategy.split(":")[0].strip().lower()
        return (
            "oop"
            if self.mode == "revenge"
            and (name in OOP_REGISTRY or file_role(self.strategy) == "oop")
            else "human"
        )

    def games(self, chunk: int) -> int:
        if chunk == TRAIN:
            return self.games_per_trial
        n = self.leader_games if chunk == LEADERS else self.holdout_games
        return n or 4 * self.games_per_trial

    def record(self) -> dict[str, Any]:
        out = {
            k: (list(v) if isinstance(v, tuple) else v)
            for k, v in asdict(self).items()
            if v is not None and k != "overrides"
        }
        if self.overrides:  # absent when empty: studies recorded before --set still resume
            out["overrides"] = dict(self.overrides)
        return out
