"""The one-screen summary that opens a report: the difficulty answer with paired steps,
the combat headline, how much of the data is assumed, and which bots made the numbers.

Every figure here is also in the sections below; the summary only picks the ones a
designer or publisher asks first.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

import pandas as pd
import polars as pl

from simkit import analysis
from simkit.names import OLD_ONE_TEXT, label, value_label
from simkit.report.games import cell_label
from simkit.report.html import esc, table_html
from simkit.report.skill import short_spec
from simkit.views import interval

if TYPE_CHECKING:
    from simkit.report.curve import Curve

LEVEL_ORDER = analysis.LEVEL_ORDER
POOL_PARAMS = ("strategies", "strategy", "oop", "allocate", "withdraw")


def _levels(values) -> list[str]:
    return sorted(values, key=lambda v: (LEVEL_ORDER.get(v, 9), str(v)))


def mode_of(lake: analysis.Lake) -> str:
    return str(lake.record.get("mode") or lake.record.get("spec", {}).get("mode", "?"))


def humans_key(lake: analysis.Lake) -> str | None:
    keys = lake.grid_keys
    return "humans" if "humans" in keys else "players" if "players" in keys else None


def difficulty_lake(lakes: list[analysis.Lake]) -> analysis.Lake | None:
    """The lake that answers the difficulty question (the first that varies difficulty)."""
    return next((lk for lk in lakes if "difficulty" in lk.grid_keys), None)


# Grid keys that name who plays: a summary never pools over them (a win rate is a property
# of the players that produced it, not of the game alone).
PLAYER_KEYS = ("strategies", "strategy", "oop")


def group_keys(lake: analysis.Lake, players: bool = True) -> list[str]:
    """The keys a summary row is labelled by: the number of humans and (``players``) every
    player key the grid varies."""
    hk = humans_key(lake)
    return ([hk] if hk else []) + [k for k in lake.grid_keys if players and k in PLAYER_KEYS]


def difficulty_steps(lake: analysis.Lake, players: bool = True) -> dict[str, Any]:
    """Rates per (humans, players, difficulty) with Wilson 95% intervals, and each step to
    the next level (Normal -> Hard -> Heroic) as a paired difference on shared seeds, with
    every other grid key held equal inside each pair (then pooled). ``players=False`` pools
    the players too (one row per number of humans: the explorer's question)."""
    keys = lake.grid_keys
    hk = humans_key(lake)
    groups = group_keys(lake, players)
    others = [k for k in keys if k != "difficulty" and k not in groups]
    metric = lake.key_metric
    scan = lake.scan()
    rates = analysis.win_rates(scan, by=[*groups, "difficulty"], metric=metric)
    levels = _levels(set(rates["difficulty"].to_list()))
    steps = []
    for a, b in zip(levels, levels[1:], strict=False):
        pair = scan.filter(pl.col("difficulty").is_in([a, b]))
        d = analysis.paired_difference(
            pair,
            {"difficulty": a},
            metric=metric,
            within=groups + others,
            by=groups or ["difficulty"],
        )
        for r in d.to_dicts():
            steps.append(
                {
                    "from": a,
                    "to": b,
                    "group": tuple(r[k] for k in groups),
                    "humans": r.get(hk) if hk else None,
                    "games": r["games"],
                    "diff": r["diff"],
                    "ci_low": r["ci_low"],
                    "ci_high": r["ci_high"],
                    "independent_half_width": r["independent_half_width"],
                }
            )
    return {
        "metric": metric,
        "group_keys": groups,
        "humans_key": hk,
        "levels": levels,
        "rates": rates.to_dicts(),
        "steps": steps,
        "pooled": others,
    }


def _rate_cell(r: dict) -> str:
    return interval(r["rate"], r["ci_low"], r["ci_high"])


def _step_cell(s: dict) -> str:
    return interval(s["diff"], s["ci_low"], s["ci_high"], signed=True)


def difficulty_table(lake: analysis.Lake, index: int = 0) -> str:
    facts = difficulty_steps(lake)
    keys, levels = facts["group_keys"], facts["levels"]
    rate = {(tuple(r[k] for k in keys), r["difficulty"]): r for r in facts["rates"]}
    groups = sorted({g for g, _ in rate}, key=lambda g: tuple(map(str, g)))
    step = {(s["group"], s["from"], s["to"]): s for s in facts["steps"]}
    pairs = list(zip(levels, levels[1:], strict=False))
    headers = [*(map(label, keys) if keys else ["cells"]), *map(label, levels)]
    headers += [f"{b} − {a} (paired)" for a, b in pairs]
    rows = []
    for g in groups:
        row = [short_spec(v) for v in g] if keys else ["all"]
        row += [_rate_cell(rate[(g, lv)]) if (g, lv) in rate else "-" for lv in levels]
        row += [_step_cell(step[(g, a, b)]) if (g, a, b) in step else "-" for a, b in pairs]
        rows.append(row)
    metric = esc(label(facts["metric"]))
    pooled = facts["pooled"]
    verdicts = []
    for a, b in pairs:
        mine = [step[(g, a, b)] for g in groups if (g, a, b) in step]
        if not mine:
            continue
        up = sum(s["ci_low"] > 0 for s in mine)
        down = sum(s["ci_high"] < 0 for s in mine)
        verdicts.append(
            f"{esc(b)} vs {esc(a)}: {metric} higher in {up}, lower in {down}, not distinguishable "
            f"in {len(mine) - up - down} of {len(mine)} group(s)"
        )
    note = (
        f'<p class="note">{metric} rate per cell (Wilson 95% interval); the step columns are '
        "paired differences on shared seeds (same setup, decks and dice in both levels), "
        "95% interval"
        + (
            f"; {esc(', '.join(map(label, pooled)))} held equal within each pair, then pooled"
            if pooled
            else ""
        )
        + ". "
        + "; ".join(verdicts)
        + ".</p>"
    )
    return (
        f"<h3>Difficulty: {esc(lake.name)}</h3>"
        + table_html(
            headers,
            rows,
            "table-summary-difficulty" + (f"-{index}" if index else ""),
            text_columns=tuple(range(max(len(keys), 1))),
        )
        + note
    )


def combat_headline(odds: list[pd.DataFrame], lakes: list[analysis.Lake]) -> list[str]:
    """Sentences: the cheapest force reaching P(destroy) >= 0.8 per Old One (odds tables), or
    the best force of a combat grid per Old One (combat lakes)."""
    from simkit.names import OLD_ONES
    from simkit.odds import cheapest_mixes
    from simkit.report.combat import mix_label, rate

    out = []
    for table in odds:
        bits = []
        for kind in OLD_ONES:
            if kind not in set(table["old_one"].astype(str)):
                continue
            best = cheapest_mixes(table, kind, 1, 0.8, top=1)
            if best.empty:
                bits.append(f"{OLD_ONE_TEXT[kind]}: none in the table")
                continue
            r = best.iloc[0]
            bits.append(
                f"{OLD_ONE_TEXT[kind]}: {mix_label(r)} ({r['gold_cost']:g} Gold, P = "
                f"{rate(r['p_destroy'], r['p_destroy_lo'], r['p_destroy_hi'], str(r['method']))})"
            )
        out.append(
            "Cheapest force with P(destroy) ≥ 0.8 against one Old One — " + "; ".join(bits) + "."
        )
    for lk in lakes:
        if mode_of(lk) != "combat" or "vs" not in lk.grid_keys:
            continue
        others = [k for k in lk.grid_keys if k != "vs"]
        rates = analysis.win_rates(lk.scan(), by=["vs", *others], metric=lk.key_metric)
        bits = []
        present = set(rates["vs"].to_list())
        for vs in [v for v in OLD_ONES if v in present] + sorted(present - set(OLD_ONES)):
            g = rates.filter(pl.col("vs") == vs).sort("rate", descending=True).row(0, named=True)
            said = cell_label(g, others)
            bits.append(f"{value_label('vs', vs)}: {said} {_rate_cell(g)}")
        out.append(
            f"Best force of the combat grid {lk.name} "
            "per Old One (P(destroy), 95% interval) — " + "; ".join(bits) + "."
        )
    return out


def pools(lakes: list[analysis.Lake]) -> list[str]:
    """Which bots (strategies, Old One players, combat policies) produced each lake's numbers."""
    out = []
    for lk in lakes:
        values: dict[str, list] = {}
        for rec in lk.cells.values():
            for k in POOL_PARAMS:
                if k in rec["params"]:
                    values.setdefault(k, [])
                    if rec["params"][k] not in values[k]:
                        values[k].append(rec["params"][k])
        said = (
            "; ".join(f"{label(k)}: {', '.join(map(str, v))}" for k, v in values.items())
            or "no bot parameters"
        )
        games = lk.scan().select(pl.len()).collect().item()
        out.append(f"{lk.name} ({mode_of(lk)} mode, {games:,} games): {said}")
    return out


def content_shares(lakes: list[analysis.Lake]) -> list[str]:
    """Where game rows say which content they played ('rules' or 'assumed'), each share."""
    out = []
    for lk in lakes:
        if "content" not in lk.scan().collect_schema().names():
            continue
        counts = lk.scan().group_by("content").len().collect().sort("content").to_dicts()
        total = sum(c["len"] for c in counts) or 1
        out.append(
            f"{lk.name}: "
            + ", ".join(f"{c['content']} {c['len'] / total:.0%} of games" for c in counts)
        )
    return out


def assumed_share(metas: list[dict]) -> str:
    shares = [m.get("provenance_shares", {}).get("assumed") for m in metas]
    shares = sorted({round(s, 3) for s in shares if s is not None})
    if not shares:
        return "unknown (the data pack could not be read)"
    return ", ".join(f"{s:.0%}" for s in shares)


def summary_html(
    lakes: list[analysis.Lake],
    odds: list[pd.DataFrame],
    metas: list[dict],
    curve: Curve | None = None,
) -> str:
    """The summary: strong, equal play first (both sides searching at the curve's largest
    budget, then the meta-game's equilibrium), then every other lake's difficulty answer or
    range, then the facts (combat headline, assumed data, content, bots)."""
    from simkit.report.curve import summary as curve_summary
    from simkit.report.metagame import summary_table

    parts = [
        '<section class="summary" id="summary"><h2 id="summary-head" class="first">Summary</h2>'
    ]
    on_curve = {id(lk) for lk in curve.lakes} if curve else set()
    if curve is not None:
        parts.append(curve_summary(curve))
    # strong, equal play leads when a lake crosses every human player with every Old One one
    parts.append(summary_table(lakes))
    lakes = [lk for lk in lakes if id(lk) not in on_curve]  # the curve speaks for its lakes
    # every lake read, not only the first; the difficulty tables lead (the designer's question)
    first = [i for i, lk in enumerate(lakes) if "difficulty" in lk.grid_keys]
    rest = [i for i, lk in enumerate(lakes) if "difficulty" not in lk.grid_keys]
    for i in first + rest:
        lk = lakes[i]
        if "difficulty" in lk.grid_keys:
            parts.append(difficulty_table(lk, i))
            continue
        if mode_of(lk) == "combat":
            continue  # its line is the combat headline below
        r = analysis.win_rates(lk.scan(), by=lk.grid_keys or ["cell"], metric=lk.key_metric).sort(
            "rate"
        )
        if r.height == 1:
            one = r.row(0, named=True)
            fixed = ", ".join(
                f"{label(k)}: {v}"
                for k, v in next(iter(lk.cells.values()))["params"].items()
                if k
                in ("humans", "players", "difficulty", "ruleset", "strategies", "strategy", "oop")
            )
            parts.append(
                f"<p>{esc(lk.name)} ({esc(fixed)}): {esc(label(lk.key_metric))} "
                f"{_rate_cell(one)} over {one['games']:,} games.</p>"
            )
        elif r.height:
            lo, hi = r.row(0, named=True), r.row(r.height - 1, named=True)
            keys = lk.grid_keys or ["cell"]
            parts.append(
                f"<p>{esc(lk.name)}: {esc(label(lk.key_metric))} ranges from "
                f"{_rate_cell(lo)} ({esc(cell_label(lo, keys))}) to {_rate_cell(hi)} "
                f"({esc(cell_label(hi, keys))}) over {r.height} cell(s).</p>"
            )
    items = []
    for line in combat_headline(odds, lakes):
        items.append(f"<li><b>Combat.</b> {esc(line)}</li>")
    items.append(
        f"<li><b>Assumed data.</b> {esc(assumed_share(metas))} of the data pack's values are "
        "assumed (not public): treat the numbers as the method's illustration until real "
        "values are typed in.</li>"
    )
    for line in content_shares(lakes):
        items.append(f"<li><b>Content.</b> {esc(line)}</li>")
    for line in pools(lakes):
        items.append(f"<li><b>Bots.</b> {esc(line)}</li>")
    if curve is not None:
        n = curve.games.height
        items.append(
            f"<li><b>Bots.</b> the skill curve ({len(curve.lakes)} lakes, {n:,} games): "
            f"{esc(curve.players_line())}</li>"
        )
    parts.append(f'<ul id="summary-facts">{"".join(items)}</ul></section>')
    return "".join(parts)
