""":class:`CombatOdds`, the answer of every method, and the policy names and losses it
reports."""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

from simkit import ENGINE_VERSION
from simkit.names import NUM_STACKS, STACKS


@dataclass
class CombatOdds:
    """Outcome probabilities and expectations of one matchup under one policy pair."""

    method: str
    combat: str
    outcomes: dict[str, float]
    expected_units_lost: dict[str, float]
    expected_cards: float
    expected_gold_lost: float
    p_units_lost: list[float]
    p_port_flip: float | None
    allocate: str
    withdraw: str
    seed: int | None
    data_hash: str
    games: int | None = None
    ci95: dict[str, list[float]] | None = None
    states: int | None = None
    extra: dict[str, Any] = field(default_factory=dict)

    @property
    def p_destroy(self) -> float:
        return self.outcomes["win"] + self.outcomes["win_and_defeat"]

    def to_json(self) -> dict[str, Any]:
        out = {
            "method": self.method,
            "combat": self.combat,
            "outcomes": self.outcomes,
            "p_destroy": self.p_destroy,
            "expected_units_lost": self.expected_units_lost,
            "expected_cards": self.expected_cards,
            "expected_gold_lost": self.expected_gold_lost,
            "p_units_lost": self.p_units_lost,
            "allocate": self.allocate,
            "withdraw": self.withdraw,
            "seed": self.seed,
            "engine_version": ENGINE_VERSION,
            "data_hash": self.data_hash,
        }
        if self.p_port_flip is not None:
            out["p_port_flip"] = self.p_port_flip
        if self.games is not None:
            out["games"] = self.games
            out["ci95"] = self.ci95
        if self.states is not None:
            out["states"] = self.states
        out.update(self.extra)
        return out


def _policy_names(allocate, withdraw) -> tuple[str, str]:
    def name(p):
        fields = {k: v for k, v in vars(p).items()} if hasattr(p, "__dict__") else {}
        return p.name + (f"{fields}" if fields else "")

    return name(allocate), name(withdraw)


def _lost_dict(values, force) -> dict[str, float]:
    return {STACKS[s]: float(values[s]) for s in range(NUM_STACKS) if force[s]}
