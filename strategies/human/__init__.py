"""Whole-game human players: a frozen parameter set each, and jitted decisions the
engine calls by strategy id (policy.py). Registry: strategies/registry.py."""

from __future__ import annotations

from dataclasses import dataclass
from typing import ClassVar

import numpy as np

from strategies.human import policy
from strategies.human.balanced import Balanced
from strategies.human.base import HeuristicParams
from strategies.human.defender import Defender
from strategies.human.economist import Economist
from strategies.human.hunter import Hunter


@dataclass(frozen=True)
class RandomPlayer(HeuristicParams):
    """Uniformly random among the legal options at every decision (fuzzing)."""

    name: ClassVar[str] = "random"
    allocate: str = "cheapest"
    withdraw: str = "sanity:0"


RandomPlayer.sid = policy.RANDOM
Economist.sid = policy.ECONOMIST
Hunter.sid = policy.HUNTER
Defender.sid = policy.DEFENDER
Balanced.sid = policy.BALANCED

PLAYERS: tuple[type[HeuristicParams], ...] = (RandomPlayer, Economist, Hunter, Defender, Balanced)

__all__ = [
    "PLAYERS",
    "Balanced",
    "Defender",
    "Economist",
    "HeuristicParams",
    "Hunter",
    "RandomPlayer",
    "np",
]
