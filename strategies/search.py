"""The search player's settings: ``search``, ``search:rollouts=16``,
``search:rollouts=8:policy=economist`` or ``search:policy=path/to/strategy.toml``.

A search seat chooses each turn's action by determinized Monte Carlo look-ahead
(simkit.game.search): every legal action is tried on ``rollouts`` re-deals of what the
seat cannot see, each played to the end with the rollout ``policy`` in every seat it
controls, and the action with the best mean result is taken. The turn's smaller
decisions (site, units, target) and all rollout play are the rollout policy's, so the
seat's strategy id and parameter vector are the policy's. ``--oop search`` is the same
player for the Old One side (OOPSearchPlayer, rollout policy an Old One strategy).

The seats it does not control are rolled out with ``model=public`` (the default) by
policies the searcher could know: the other humans by ``opponents`` (default: its own
rollout policy; ``balanced`` for the Old One searcher), the Old One player by
``oop_model`` (default ``rusher``, the shipped default). ``model=actual`` rolls them out
with their true strategies and parameters: an upper bound, named in the spec so every
figure made with it says so. ``peek=1`` skips the re-deal: the searcher sees every
face-down tile, deck order and hand (a cheating baseline bounding what hidden information
is worth).
"""

from __future__ import annotations

from dataclasses import asdict, dataclass, field, replace
from typing import ClassVar

import numpy as np

from simkit.errors import UserError
from strategies.human import HeuristicParams

OBJECTIVES = ("win", "margin")
# How a searcher rolls out the seats it does not control. public: with policies it could
# know (the other humans with `opponents`, by default its own rollout policy; the Old One
# player with `oop_model`, by default the shipped default `rusher`); actual: with every
# seat's true strategy and parameters, an upper bound a real player never has (labelled so).
MODELS = ("public", "actual")
SEARCH_SID = 5  # label only (summary rows); never dispatched: the engine plays the policy


def spec_of(text: str) -> str:
    """A strategy name or a strategy.toml path as a strategy spec."""
    p = text.strip()
    if p.startswith(("file:", "learned:")):
        return p
    return "file:" + p if p.endswith(".toml") or "/" in p else p


@dataclass(frozen=True)
class SearchPlayer:
    """Determinized Monte Carlo look-ahead over the engine, one action per turn."""

    name: ClassVar[str] = "search"
    sid_label: ClassVar[int] = SEARCH_SID
    role: ClassVar[str] = "strategy"
    rollouts: int = 8  # rollouts per legal action (the same re-deals for every action)
    policy: str = "balanced"  # rollout policy: a strategy name or a strategy.toml path
    objective: str = "win"  # win: win share (VP margin breaks ties); margin: VP margin
    model: str = "public"  # how the other seats are rolled out (MODELS)
    opponents: str = ""  # public model of the other humans ("": the rollout policy)
    oop_model: str = "rusher"  # public model of the Old One player (Revenge)
    peek: int = 0  # 1: no re-deal, the search sees every hidden card (a cheating bound)
    halving: int = 0  # 1: sequential halving of the same budget (rollouts x legal choices)
    # the rollout policy itself, filled in by strategies.registry (with_policy)
    base: HeuristicParams | None = field(default=None, compare=False, metadata={"internal": True})
    # the public models, filled in by strategies.registry (with_models)
    human_model: HeuristicParams | None = field(
        default=None, compare=False, metadata={"internal": True}
    )
    oop_policy: object | None = field(default=None, compare=False, metadata={"internal": True})

    def __post_init__(self):
        if self.rollouts < 1:
            raise UserError(f"{self.role} search: rollouts must be >= 1, got {self.rollouts}")
        if self.objective not in OBJECTIVES:
            raise UserError(
                f"{self.role} search: objective '{self.objective}' "
                f"(expected one of: {', '.join(OBJECTIVES)})"
            )
        if self.model not in MODELS:
            raise UserError(
                f"{self.role} search: model '{self.model}' (expected one of: {', '.join(MODELS)})"
            )
        if self.peek not in (0, 1):
            raise UserError(f"{self.role} search: peek must be 0 or 1, got {self.peek}")
        if self.halving not in (0, 1):
            raise UserError(f"{self.role} search: halving must be 0 or 1, got {self.halving}")
        for what, spec in (("rollout policy", self.policy), ("opponents", self.opponents)):
            if spec_of(spec).split(":")[0].strip().lower() == "search":
                raise UserError(f"{self.role} search: the {what} cannot be search itself")
        if spec_of(self.oop_model).split(":")[0].strip().lower() == "search":
            raise UserError(f"{self.role} search: the oop_model cannot be search itself")

    def policy_spec(self) -> str:
        """The rollout policy as a strategy spec (a path means its strategy.toml)."""
        return spec_of(self.policy)

    def opponents_spec(self) -> str:
        """The public model of the other humans as a strategy spec ("" -> the policy)."""
        return spec_of(self.opponents) if self.opponents.strip() else self.policy_spec()

    def with_policy(self, base):
        return replace(self, base=base)

    def with_models(self, human_model, oop_policy):
        return replace(self, human_model=human_model, oop_policy=oop_policy)

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
            "model": self.model,
            "opponents": self.opponents_spec() if self.model == "public" else "their own",
            "oop_model": self.oop_model if self.model == "public" else "its own",
            "peek": self.peek,
            "halving": self.halving,
            "policy_params": (
                self.base.describe() if hasattr(self.base, "describe") else asdict(self.base)
            ),
        }


@dataclass(frozen=True)
class OOPSearchPlayer(SearchPlayer):
    """The same look-ahead for the Old One player (Revenge, ``--oop search``): each turn's
    action (Place / Reveal / Move / Summon) is searched; with ``mythos=1`` the turn's
    Mythos card too (none, or any card in hand, jointly with the action); with ``sites=1``
    a second search over the chosen action's own choices when it is Place (every legal
    level and site) or Reveal (every face-down tile on the map). Its movement and kept
    Summon cards, its Mythos card unless ``mythos=1``, its site and tile unless
    ``sites=1``, and all rollout play are the rollout policy's (an OOP strategy). It
    re-deals only what the OOP cannot see: the stacks and the piles (it knows its hand and
    may look at the face-down tiles on the map)."""

    role: ClassVar[str] = "Old One strategy"
    policy: str = "rusher"
    opponents: str = "balanced"  # public model of the humans (a human strategy)
    mythos: int = 0  # 1: search the turn's Mythos card jointly with the action
    sites: int = 0  # 1: then search the Place's level and site, or the Reveal's tile

    def __post_init__(self):
        super().__post_init__()
        for name in ("mythos", "sites"):
            if getattr(self, name) not in (0, 1):
                value = getattr(self, name)
                raise UserError(f"{self.role} search: {name} must be 0 or 1, got {value}")

    def opponents_spec(self) -> str:
        return spec_of(self.opponents) if self.opponents.strip() else "balanced"

    def describe(self) -> dict:
        return {**super().describe(), "mythos": self.mythos, "sites": self.sites}
