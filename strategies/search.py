"""The search player's settings: ``search``, ``search:rollouts=16``,
``search:rollouts=8:policy=economist`` or ``search:policy=path/to/strategy.toml``.

A search seat chooses each turn's action by determinized Monte Carlo look-ahead
(simkit.game.search): every legal action is tried on ``rollouts`` re-deals of what the
seat cannot see, each played to the end with the rollout ``policy`` in every seat it
controls, and the action with the best mean result is taken. The turn's smaller
decisions (site, units, target) and all rollout play are the rollout policy's, so the
seat's strategy id and parameter vector are the policy's. ``--oop search`` is the same
player for the Old One side (OOPSearchPlayer, rollout policy an Old One strategy).
"""

from __future__ import annotations

from dataclasses import asdict, dataclass, field, replace
from typing import ClassVar

import numpy as np

from simkit.errors import UserError
from strategies.human import HeuristicParams

OBJECTIVES = ("win", "margin")
SEARCH_SID = 5  # label only (summary rows); never dispatched: the engine plays the policy


@dataclass(frozen=True)
class SearchPlayer:
    """Determinized Monte Carlo look-ahead over the engine, one action per turn."""

    name: ClassVar[str] = "search"
    sid_label: ClassVar[int] = SEARCH_SID
    role: ClassVar[str] = "strategy"
    rollouts: int = 8  # rollouts per legal action (the same re-deals for every action)
    policy: str = "balanced"  # rollout policy: a strategy name or a strategy.toml path
    objective: str = "win"  # win: win share (VP margin breaks ties); margin: VP margin
    # the rollout policy itself, filled in by strategies.registry (with_policy)
    base: HeuristicParams | None = field(default=None, compare=False, metadata={"internal": True})

    def __post_init__(self):
        if self.rollouts < 1:
            raise UserError(f"{self.role} search: rollouts must be >= 1, got {self.rollouts}")
        if self.objective not in OBJECTIVES:
            raise UserError(
                f"{self.role} search: objective '{self.objective}' "
                f"(expected one of: {', '.join(OBJECTIVES)})"
            )
        if self.policy_spec().split(":")[0].strip().lower() == "search":
            raise UserError(f"{self.role} search: the rollout policy cannot be search itself")

    def policy_spec(self) -> str:
        """The rollout policy as a strategy spec (a path means its strategy.toml)."""
        p = self.policy.strip()
        return "file:" + p if p.endswith(".toml") or "/" in p else p

    def with_policy(self, base):
        return replace(self, base=base)

    @property
    def sid(self) -> int:
        return self.base.sid

    def lower(self) -> np.ndarray:
        return self.base.lower()

    def describe(self) -> dict:
        return {
            "name": self.name,
            "rollouts": self.rollouts,
            "policy": self.policy,
            "objective": self.objective,
            "policy_params": (
                self.base.describe() if hasattr(self.base, "describe") else asdict(self.base)
            ),
        }


@dataclass(frozen=True)
class OOPSearchPlayer(SearchPlayer):
    """The same look-ahead for the Old One player (Revenge, ``--oop search``): each turn's
    action (Place / Reveal / Move / Summon) is searched; its Mythos card, site, tile and
    movement choices, and all rollout play, are the rollout policy's (an OOP strategy).
    It re-deals only what the OOP cannot see: the stacks and the piles (it knows its hand
    and may look at the face-down tiles on the map)."""

    role: ClassVar[str] = "Old One strategy"
    policy: str = "rusher"
