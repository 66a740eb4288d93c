"""How many of each unit type a fight costs, and its Gold: distributions, not only means.

The exact solver and the Monte Carlo summary give expected losses per type and the
distribution of the *total* units lost. What a player at the table asks is "how likely am
I to lose both Infantry?": this module plays the fight one row per combat with the
combat-mode kernel (simkit.combat.mode, the same card-resolution code) and counts, per unit
type, P(k lost) for k = 0..count, and the distribution of the Gold value lost, each with a
Wilson 95% interval. Fixed policies only (the optimal policies exist in the exact solver).
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from simkit.core.stats import wilson_interval
from simkit.names import NUM_STACKS, STACKS

CHUNK = 1 << 16


@dataclass
class LossDistribution:
    games: int
    seed: int
    per_type: dict[str, list[dict]]  # unit -> [{lost, p, ci_low, ci_high}] for k = 0..count
    gold: list[dict]  # [{gold, p, ci_low, ci_high}] most likely values first
    gold_quantiles: dict[str, float]  # q10, q50, q90 (observed values)

    def to_json(self) -> dict:
        return {
            "games": self.games,
            "seed": self.seed,
            "method": "mc",
            "per_type": self.per_type,
            "gold_lost": self.gold,
            "gold_lost_quantiles": self.gold_quantiles,
        }


def fight_params(force: str, vs: str, **given) -> dict:
    """The combat-mode parameters of one fight (simkit.combat.mode.PARAMS): every default,
    then ``force``, ``vs`` and any other given key, each checked and made canonical the way
    an experiment cell is ('Infantry=2' -> 'infantry=2'). The one way the CLI, the web
    calculator and the notebooks build what :func:`loss_distribution` takes.

        >>> fight_params("infantry=2,artillery=1", "mi_go")["withdraw"]
        'never'
    """
    from simkit.combat.mode import MODE, PARAMS
    from simkit.errors import UserError

    unknown = sorted(set(given) - set(PARAMS))
    if unknown:
        raise UserError(f"unknown combat parameter(s): {', '.join(unknown)}")
    values = {key: p.default for key, p in PARAMS.items()}
    values.update(given, force=force, vs=vs)
    return {key: PARAMS[key].check(MODE, key, value) for key, value in values.items()}


def loss_distribution(
    params: dict, data, games: int, seed: int, max_gold_rows: int = 10
) -> LossDistribution:
    """``params``: combat-mode parameters (simkit.combat.mode.PARAMS: force, vs, allocate,
    withdraw, seen, ...), validated by the caller's parsing."""
    from simkit.combat.mode import combat_keys, play_keys, prepare

    prep = prepare(params, data)
    lost = {s: [] for s in STACKS}
    gold = []
    done, chunk = 0, 0
    while done < games:
        n = min(CHUNK, games - done)
        cols = play_keys(prep, data, combat_keys(seed, chunk, n))
        for s in STACKS:
            lost[s].append(np.asarray(cols[f"lost_{s}"], dtype=np.int64))
        gold.append(np.asarray(cols["gold_lost"], dtype=np.float64))
        done += n
        chunk += 1
    from simkit.kernels.low import combat_layout as C

    counts = {
        STACKS[s]: int(prep.st0[C.COUNT + s])
        for s in range(NUM_STACKS)
        if prep.st0[C.COUNT + s] > 0
    }
    per_type = {}
    for unit, count in counts.items():
        values = np.concatenate(lost[unit])
        hist = np.bincount(values, minlength=count + 1)[: count + 1]
        rows = []
        for k, c in enumerate(hist.tolist()):
            lo, hi = wilson_interval(c, games)
            rows.append({"lost": k, "p": c / games, "ci_low": lo, "ci_high": hi})
        per_type[unit] = rows
    g = np.round(np.concatenate(gold), 6)
    uniq, freq = np.unique(g, return_counts=True)
    order = np.argsort(-freq, kind="stable")[:max_gold_rows]
    gold_rows = []
    for i in sorted(order.tolist(), key=lambda i: uniq[i]):
        lo, hi = wilson_interval(int(freq[i]), games)
        gold_rows.append(
            {"gold": float(uniq[i]), "p": float(freq[i]) / games, "ci_low": lo, "ci_high": hi}
        )
    quantiles = {f"q{q}": float(np.quantile(g, q / 100, method="nearest")) for q in (10, 50, 90)}
    return LossDistribution(
        games=games, seed=seed, per_type=per_type, gold=gold_rows, gold_quantiles=quantiles
    )
