"""Strong, equal play in a report: the equilibrium of the meta-game.

For every Revenge lake whose grid crosses human players (``strategies``) with Old One players
(``oop``) on the same deals, each group of the other keys (humans, difficulty, ...) is a
matrix game of the Old One player's win rate, solved by simkit.analysis.metagame: each
side's best mixture of the players it has and the win rate at it, with a bootstrap 95%
interval over the deals. Groups that differ only in difficulty and play the same players on
the same deals give paired steps (the same resamples). The report's summary leads with this
table when a lake has one: it answers "how often does the Old One player win at strong,
equal play" without choosing a pair, and names the players that carry each mixture.
"""

from __future__ import annotations

import numpy as np
import polars as pl

from simkit import analysis
from simkit.analysis import metagame as mg
from simkit.errors import UserError
from simkit.report.html import table_html
from simkit.report.skill import short_spec

DRAWS = 200  # bootstrap resamples per group (the report's budget; the experiment uses more)
FLOOR = 0.02  # the mixture weight below which a player is not named
LEVELS = ("normal", "hard", "heroic")


def applies(lake: analysis.Lake) -> bool:
    """A Revenge lake of the Old One player's wins whose grid varies the players of at least
    one side (a lake of added players varies one: it is a part of a cross, ``equilibria``)."""
    keys = lake.grid_keys
    return (
        str(lake.record.get("mode")) == "revenge"
        and ("strategies" in keys or "oop" in keys)
        and lake.key_metric == "old_ones_win"
    )


def _groups(lake: analysis.Lake) -> list[tuple[dict, pl.DataFrame]]:
    """(the group's other parameters, its games) for each group of the cells' other keys."""
    by = ["humans", "difficulty", *(k for k in lake.grid_keys if k not in ("strategies", "oop"))]
    frame = lake.scan().collect()
    by = list(dict.fromkeys(k for k in by if k in frame.columns))
    if not by:
        return [({}, frame)]
    return [
        (dict(zip(by, key, strict=True)), part)
        for key, part in frame.group_by(by, maintain_order=True)
    ]


def mixture(specs: list[str], weights: np.ndarray) -> str:
    order = np.argsort(-weights)
    return ", ".join(
        f"{short_spec(specs[i])} {weights[i]:.2f}" for i in order if weights[i] >= FLOOR
    )


def equilibria(lakes: list[analysis.Lake]) -> list[dict]:
    """One row per group that is a full cross on shared deals: its value, interval and
    mixtures, and (for the step to the next level) its bootstrap values and deals. Groups of
    several lakes with the same parameters (a meta-game grown by lakes of added players on
    the cell's deals) are one group when together they are a full cross, each pair once;
    otherwise each lake's group stands alone."""
    buckets: dict[tuple, list[tuple[str, dict, pl.DataFrame]]] = {}
    metric = {}
    for lake in lakes:
        if not applies(lake):
            continue
        for params, games in _groups(lake):
            key = tuple(sorted((k, str(v)) for k, v in params.items()))
            keep = games.select("strategies", "oop", *analysis.PAIR_KEYS, lake.key_metric)
            buckets.setdefault(key, []).append((lake.name, params, keep))
            metric[key] = lake.key_metric
    rows = []
    for key, parts in buckets.items():
        joined = None
        if len(parts) > 1:
            frame = pl.concat([f for _, _, f in parts], how="vertical_relaxed")
            joined = _row(" + ".join(n for n, _, _ in parts), parts[0][1], frame, metric[key])
        if joined is not None:
            rows.append(joined)
            continue
        for name, params, frame in parts:
            row = _row(name, params, frame, metric[key])
            if row is not None:
                rows.append(row)
    rows.sort(key=_order)
    return rows


def _row(name: str, params: dict, games: pl.DataFrame, metric: str) -> dict | None:
    """A group's equilibrium row, or None when its games are not a full cross of at least
    two players a side on shared deals (each pair once)."""
    try:
        hum, oop, wins = mg.wins_by_pair(games, metric)
    except UserError:
        return None  # not every player met every player here: no matrix game
    if len(hum) < 2 or len(oop) < 2:
        return None
    eq = mg.solve(mg.win_matrix(wins))
    boot = mg.bootstrap_values(wins, DRAWS, seed=0)
    low, high = mg.percentile_interval(boot)
    first = games.filter((pl.col("strategies") == hum[0]) & (pl.col("oop") == oop[0]))
    return {
        "lake": name,
        "params": params,
        "players": (tuple(hum), tuple(oop)),
        "games": wins.shape[2],
        "value": eq.value,
        "ci_low": low,
        "ci_high": high,
        "humans_mix": mixture(hum, eq.humans),
        "oop_mix": mixture(oop, eq.oop),
        "boot": boot,
        "deals": first.select(analysis.PAIR_KEYS).sort(analysis.PAIR_KEYS),
    }


def _order(row: dict) -> tuple:
    """Groups in reading order: by their other parameters, then Normal, Hard, Heroic."""
    p = row["params"]
    level = p.get("difficulty")
    rest = tuple(str(v) for k, v in p.items() if k != "difficulty")
    return (rest, LEVELS.index(level) if level in LEVELS else len(LEVELS), str(level))


STEPS = (("normal", "hard"), ("hard", "heroic"), ("normal", "heroic"))


def steps(rows: list[dict]) -> list[dict]:
    """Normal -> Hard, Hard -> Heroic and Normal -> Heroic between groups with the same other
    parameters, players and deals (paired: the same resamples)."""
    out = []
    for a in rows:
        rest = {k: v for k, v in a["params"].items() if k != "difficulty"}
        for level, nxt in STEPS:
            if a["params"].get("difficulty") != level:
                continue
            for b in rows:
                if (
                    b["params"].get("difficulty") == nxt
                    and {k: v for k, v in b["params"].items() if k != "difficulty"} == rest
                    and b["players"] == a["players"]
                    and b["deals"].equals(a["deals"])
                ):
                    low, high = mg.percentile_interval(b["boot"] - a["boot"])
                    out.append(
                        {"params": rest, "from": level, "to": nxt}
                        | {"diff": b["value"] - a["value"], "ci_low": low, "ci_high": high}
                    )
    return out


def _where(params: dict) -> str:
    return ", ".join(f"{k} {v}" for k, v in params.items())


def summary_table(lakes: list[analysis.Lake]) -> str:
    """The summary's lead: each group's value at equilibrium, and the paired steps; '' when
    no lake is a meta-game."""
    rows = equilibria(lakes)
    if not rows:
        return ""
    body = [
        [
            r["lake"],
            _where(r["params"]),
            f"{len(r['players'][0])} x {len(r['players'][1])}",
            f"{r['games']:,}",
            f"{r['value']:.3f} [{r['ci_low']:.3f}, {r['ci_high']:.3f}]",
            r["humans_mix"],
            r["oop_mix"],
        ]
        for r in rows
    ]
    html = "<h3>Strong, equal play: the equilibrium of the meta-game</h3>" + table_html(
        [
            "experiment",
            "cell",
            "players (humans x Old One)",
            "games a pair",
            "Old Ones win at equilibrium",
            "humans' mixture",
            "Old One player's mixture",
        ],
        body,
        "table-summary-metagame",
        text_columns=(0, 1, 5, 6),
    )
    found = steps(rows)
    if found:
        html += table_html(
            ["cell", "step", "Old Ones win, after minus before (paired bootstrap 95%)"],
            [
                [
                    _where(s["params"]),
                    f"{s['from']} to {s['to']}",
                    f"{s['diff']:+.3f} [{s['ci_low']:+.3f}, {s['ci_high']:+.3f}]",
                ]
                for s in found
            ],
            "table-summary-metagame-steps",
            text_columns=(0, 1),
        )
    return html + (
        '<p class="note">Every human player of the cell met every Old One player on the same '
        "deals. The value is the Old One player's win rate when each side plays its best "
        "mixture of those players (an equilibrium of the win-rate matrix: neither side gains "
        "by switching to any one player listed), with a bootstrap 95% interval over the "
        f"deals ({DRAWS} resamples); the mixtures name the players that carry it (weight "
        f"{FLOOR} or more). It is strong, equal play among these players only: a stronger "
        "player outside them may still gain.</p>"
    )
