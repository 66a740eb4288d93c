"""Old One player (Revenge of the Old Ones) strategies: frozen parameter sets lowered to
the float64 vector simkit.kernels.game_oop reads (simkit.kernels.low.game_layout OP_*).

    rusher   -- reveals movers and marches on the weakest Port (movement: toward Ports/Outposts)
    blighter -- places near human Farms, base compass movement (Farms are targets), blighting Mythos
    mythos   -- summons a big hand and plays Mythos cards every turn it can (attrition)
    random   -- uniformly random legal action / site / card (fuzzing baseline)
    learned  -- a linear scoring of the four actions fitted to the search's choices
                (strategies.old_ones.learned), ``learned:PATH`` (``simkit learn --side oop``)
    search   -- determinized Monte Carlo look-ahead over the engine (strategies.search),
                ``search:rollouts=8:policy=rusher``

The engine asks for every choice through strategies.old_ones.policy (the legal options
listed, the answer checked, refusals counted).

Combat Mythos cards (simkit.kernels.game_mythos_combat) are played with probability
``combat_mythos`` in a combat they apply to (1.0 for the heuristics, 0.5 random).

Spec syntax like the human ones: ``rusher``, ``mythos:play_mythos=0.5``.
"""

from __future__ import annotations

from dataclasses import dataclass, fields
from typing import ClassVar

import numpy as np

from simkit.errors import UserError
from simkit.kernels.low import game_layout as L
from simkit.kernels.low.movement import CHOOSE_COMPASS, CHOOSE_PORTS, CHOOSE_RANDOM
from strategies.old_ones.learned import KIND_LEARNED
from strategies.overrides import split_spec, with_overrides
from strategies.spaces import OOP_SPACE
from strategies.weights import put_weights


@dataclass(frozen=True)
class OOPParams:
    name: ClassVar[str] = "oop"
    space: ClassVar[dict] = OOP_SPACE  # what simkit tune may try (strategies.spaces)
    kind: int = 0  # 0 heuristic, 1 random legal, 2 learned (LearnedOOP)
    move_policy: int = CHOOSE_PORTS
    face_up_min: int = 2  # reveal while fewer face-up movers
    down_max: int = 3  # place while fewer face-down tiles on the map
    hand_min: int = 1  # summon while fewer Mythos cards in hand
    play_mythos: float = 0.5  # chance to play a playable Mythos card on a turn
    target_weak: int = 1  # place / reveal near the weakest Port
    farm_bias: int = 0  # place near Farms, prefer blighting cards
    move_min: int = 2  # move when at least this many face-up movers
    combat_mythos: float = 1.0  # chance to play a combat Mythos card in a combat it applies to

    def lower(self) -> np.ndarray:
        v = np.zeros(L.OOP_NUM_PARAMS, dtype=np.float64)
        v[L.OP_KIND], v[L.OP_MOVE_POLICY] = self.kind, self.move_policy
        v[L.OP_FACE_UP_MIN], v[L.OP_DOWN_MAX], v[L.OP_HAND_MIN] = (
            self.face_up_min,
            self.down_max,
            self.hand_min,
        )
        v[L.OP_PLAY_MYTHOS], v[L.OP_TARGET_WEAK] = self.play_mythos, self.target_weak
        v[L.OP_FARM_BIAS], v[L.OP_MOVE_MIN] = self.farm_bias, self.move_min
        v[L.OP_COMBAT_MYTHOS] = self.combat_mythos
        return v


@dataclass(frozen=True)
class Rusher(OOPParams):
    name: ClassVar[str] = "rusher"


@dataclass(frozen=True)
class Blighter(OOPParams):
    name: ClassVar[str] = "blighter"
    move_policy: int = CHOOSE_COMPASS
    target_weak: int = 0
    farm_bias: int = 1
    down_max: int = 4
    move_min: int = 1


@dataclass(frozen=True)
class MythosPlayer(OOPParams):
    name: ClassVar[str] = "mythos"
    hand_min: int = 4
    play_mythos: float = 1.0
    move_min: int = 3
    down_max: int = 2


@dataclass(frozen=True)
class RandomOOP(OOPParams):
    name: ClassVar[str] = "random"
    kind: int = 1
    move_policy: int = CHOOSE_RANDOM
    play_mythos: float = 0.3
    combat_mythos: float = 0.5


@dataclass(frozen=True)
class LearnedOOP(OOPParams):
    """A weights file's Old One player (``learned:PATH``): its base strategy's parameters
    for every decision but the action, which the weights score."""

    name: ClassVar[str] = "learned"
    kind: int = KIND_LEARNED
    weights: tuple = ()  # NUM_OOP_ACTIONS * OOP_LEARN_NUM_FEATURES, action-major
    base: str = "rusher"  # the heuristic whose parameters make the other decisions

    def lower(self) -> np.ndarray:
        shape = (L.NUM_OOP_ACTIONS, L.OOP_LEARN_NUM_FEATURES)
        who = "learned Old One player"
        return put_weights(super().lower(), L.OP_LEARN_W, self.weights, shape, who, "actions")


OOP_PLAYERS = (Rusher, Blighter, MythosPlayer, RandomOOP)
OOP_REGISTRY = {cls.name: cls for cls in OOP_PLAYERS}


def _registered(name: str) -> OOPParams:
    key = name.strip().lower()
    if key not in OOP_REGISTRY:
        available = ", ".join([*OOP_REGISTRY, "search", "learned:PATH"])
        raise UserError(f"unknown Old One strategy '{name}' (available: {available})")
    return OOP_REGISTRY[key]()


def learned_oop_from_file(path: str) -> LearnedOOP:
    """The learned Old One player a weights file describes (``--oop learned:PATH``;
    ``simkit learn --side oop`` writes them); its ``base`` (default rusher) must be a
    heuristic Old One strategy: its parameters make every decision but the action."""
    from strategies.files import LEARNED_OOP_FORMAT, learned_base, read_learned_weights

    p, table, flat = read_learned_weights(
        path, LEARNED_OOP_FORMAT, L.OOP_LEARN_FEATURES, L.OOP_ACTION_NAMES, "actions"
    )
    base_name, base = learned_base(p, table, "rusher", _registered)
    if base.kind != OOPParams.kind:
        raise UserError(
            f"{p}: field 'learned.base' must name a heuristic Old One strategy "
            f"(rusher, blighter or mythos), got '{base_name}'"
        )
    shared = {f.name: getattr(base, f.name) for f in fields(OOPParams) if f.name != "kind"}
    return LearnedOOP(**shared, weights=tuple(flat), base=base_name)


def parse_oop(spec: str) -> OOPParams:
    """``name[:field=value...]`` of a registered Old One player strategy, ``file:PATH``
    for one written by ``simkit tune``, or ``learned:PATH`` for ``simkit learn --side oop``'s
    weights file."""
    if spec.strip().startswith("file:"):
        from strategies.files import strategy_from_file

        return strategy_from_file(spec.strip()[5:], "oop", parse_oop)
    if spec.strip().startswith("learned:"):  # simkit learn --side oop's weights file
        return learned_oop_from_file(spec.strip()[8:].strip())
    name, *overrides = split_spec(spec.strip())
    key = name.strip().lower()
    if key == "search":  # look-ahead over the engine (strategies.search)
        from strategies.search import OOPSearchPlayer

        # its public model of the humans (a human strategy) is filled in by the layer that
        # sees both registries: simkit.game.engine.make_spec (public_models)
        player = with_overrides(OOPSearchPlayer(), overrides, "Old One strategy 'search'")
        return player.with_policy(parse_oop(player.policy_spec()))
    return with_overrides(_registered(name), overrides, f"Old One strategy '{name}'")
