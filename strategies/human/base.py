"""The parameter set every human-player strategy shares, lowered to the float64 vector
the engine passes to the jitted decision functions (simkit.kernels.low.game_layout HP_*).

A strategy = a frozen dataclass of these parameters (subclasses change defaults) + its
jitted ``choose_action`` (economist.py, ...), dispatched on an integer id in policy.py.
"""

from __future__ import annotations

from dataclasses import dataclass, fields
from typing import ClassVar

import numpy as np

from simkit.errors import UserError
from simkit.kernels.low import game_layout as L
from strategies.combat import parse_allocation, parse_withdrawal
from strategies.combat.withdrawal import OptimalTable, OptimalWithdrawal
from strategies.spaces import HUMAN_SPACE

# Personality wishes by effect (index = game_layout.EFF_*); heuristic players differ
# through the combat ones.
_PERS_DEFAULT = (0.0, 1.0, 1.0, 0.5, 1.0, 1.2, 1.5, 1.2)


@dataclass(frozen=True)
class HeuristicParams:
    """Defaults shared by the heuristic players (each field documented in game_layout)."""

    name: ClassVar[str] = "heuristic"
    sid: ClassVar[int] = -1
    space: ClassVar[dict] = HUMAN_SPACE  # what simkit tune may try (strategies.spaces)
    rail_res: float = 1.0
    rail_farm: float = 1.0
    rail_oldone: float = 0.0
    army_min: int = 2
    army_from: int = 20
    atk_ratio: float = 1.5
    atk_radius: int = -1
    atk_facedown: int = 0
    farm_safe: int = 1
    unit_w: tuple = (1.0, 1.0, 1.0, 1.0, 1.0)
    retrieve_hq: int = 0
    max_surcharge: int = 1
    farm_min: int = 1
    atk_from: int = 0
    pers_w: tuple = _PERS_DEFAULT
    threat_w: float = 0.5
    threat_range: int = 5
    outpost: int = 3  # Revenge: Outpost (+2 Gold) when an Old One is this close to a site (0 never)
    allocate: str = "spread"  # strategies.combat allocation policy
    withdraw: str = (
        "sanity:0,lost:3"  # strategies.combat withdrawal: thresholds, or the table ('table-value')
    )

    def lower(self) -> np.ndarray:
        v = np.zeros(L.NUM_PARAMS, dtype=np.float64)
        alloc = parse_allocation(self.allocate)
        wd = parse_withdrawal(self.withdraw)
        if isinstance(wd, OptimalWithdrawal):
            raise UserError(
                f"strategy {self.name}: withdraw '{self.withdraw}' counts every card (exact solver "
                "only); games play 'table' or 'table-value' (the optimal withdraw table) or "
                "thresholds such as 'sanity:1,lost:2'"
            )
        a_id, a_par = alloc.lower()
        w_id, w_par = wd.lower()
        v[L.SP_ALLOC], v[L.SP_ALLOC_ARG] = a_id, a_par[0]
        v[L.SP_WD_ID] = w_id
        v[L.SP_WD_SANITY : L.SP_WD_LOST + 1] = w_par
        v[L.SP_WD_OBJECTIVE] = 1 if isinstance(wd, OptimalTable) and wd.objective == "value" else 0
        v[L.HP_RAIL_RES], v[L.HP_RAIL_FARM], v[L.HP_RAIL_OLDONE] = (
            self.rail_res,
            self.rail_farm,
            self.rail_oldone,
        )
        v[L.HP_ARMY_MIN], v[L.HP_ARMY_FROM] = self.army_min, self.army_from
        v[L.HP_ATK_RATIO], v[L.HP_ATK_RADIUS], v[L.HP_ATK_FACEDOWN] = (
            self.atk_ratio,
            self.atk_radius,
            self.atk_facedown,
        )
        v[L.HP_FARM_SAFE] = self.farm_safe
        if len(self.unit_w) != L.NUM_UNITS:
            raise UserError(f"strategy {self.name}: unit_w needs {L.NUM_UNITS} weights")
        v[L.HP_UNIT_W : L.HP_UNIT_W + L.NUM_UNITS] = self.unit_w
        v[L.HP_RETRIEVE_HQ], v[L.HP_MAX_SURCHARGE] = self.retrieve_hq, self.max_surcharge
        v[L.HP_FARM_MIN], v[L.HP_ATK_FROM] = self.farm_min, self.atk_from
        if len(self.pers_w) != len(L.EFFECT_NAMES):
            raise UserError(f"strategy {self.name}: pers_w needs {len(L.EFFECT_NAMES)} weights")
        v[L.HP_PERS_W : L.HP_PERS_W + len(L.EFFECT_NAMES)] = self.pers_w
        v[L.HP_THREAT_W], v[L.HP_THREAT_RANGE] = self.threat_w, self.threat_range
        v[L.HP_OUTPOST] = self.outpost
        return v

    def describe(self) -> dict:
        return {"name": self.name, **{f.name: getattr(self, f.name) for f in fields(self)}}
