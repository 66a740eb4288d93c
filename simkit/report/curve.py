"""The skill curve in a report: the Old One player's win rate against search budget at each
difficulty (simkit.analysis.skill_curve), from the lakes of experiments/skill_curve_revenge.py
(one lake per arm and budget, on the same deals; several folders, a run per level, make one
curve).

The summary leads with its equal-play answer: at the largest budget where both sides search,
each level's rate, each level's paired step over the one below, and whether the curve had
stopped moving there (a number measured while it still moves with budget is a number of that
budget, not of strong play).
"""

from __future__ import annotations

import polars as pl

from simkit.analysis import Lake
from simkit.analysis import skill_curve as sc
from simkit.report.html import details_html, esc, figure_html, table_html
from simkit.views import interval

LEVEL_TEXT = {"normal": "Normal", "hard": "Hard", "heroic": "Heroic"}


class Curve:
    """The games of a report's curve lakes, read once, and what the section and summary say."""

    def __init__(self, lakes: list[Lake], games: pl.DataFrame | None = None, facts=None):
        """The curve of ``lakes`` (or of ``games`` and ``facts`` already read, as
        :func:`simkit.analysis.skill_curve.games_of` returns them)."""
        self.lakes = lakes
        self.games, self.facts = (games, facts) if games is not None else sc.games_of(lakes)
        self.rates = sc.order(sc.rates(self.games))
        self.doublings = sc.steps(self.games)
        self.levels = sc.level_steps(self.games)
        self.convergence = sc.convergence(self.games)

    @property
    def arms(self) -> list[str]:
        present = set(self.rates["arm"].to_list())
        return [a for a in ["none", *sc.ARM_TITLES] if a in present]

    def folders(self) -> list[str]:
        """The folders that hold the curve's lakes (a run per level: a folder each)."""
        return list(dict.fromkeys(lk.root.parent.name for lk in self.lakes))

    def players_line(self) -> str:
        """Who played each arm, the budget written R (the specs differ only in rollouts=)."""
        bits = []
        for (arm, _), (s, o) in sc.players_per_arm(self.facts["players"]):
            name = "no search" if arm == "none" else sc.ARM_TITLES[arm]
            bits.append(f"{name}: humans {s}, Old One player {o}")
        return "; ".join(bits)

    def lead(self) -> dict | None:
        """The equal-play answer: the 'both' arm at its largest budget with two levels or
        more (None without one)."""
        both = self.rates.filter(pl.col("arm") == "both")
        budgets = [
            b
            for b in sorted(set(both["budget"].to_list()), reverse=True)
            if both.filter(pl.col("budget") == b).height >= 2
        ]
        if not budgets:
            return None
        top = budgets[0]
        rates = both.filter(pl.col("budget") == top).to_dicts()
        steps = (
            self.levels.filter((pl.col("arm") == "both") & (pl.col("budget") == top)).to_dicts()
            if self.levels.height
            else []
        )
        last = {}  # each level's doubling into the top budget
        if self.doublings.height:
            into = self.doublings.filter((pl.col("arm") == "both") & (pl.col("budget") == top // 2))
            last = {r["difficulty"]: r for r in into.to_dicts()}
        conv = {c["difficulty"]: c["at"] for c in self.convergence if c["arm"] == "both"}
        return {"budget": top, "rates": rates, "steps": steps, "last": last, "converged": conv}


def _rate(r: dict) -> str:
    return interval(r["rate"], r["ci_low"], r["ci_high"])


def _step(r: dict) -> str:
    return interval(r["diff"], r["ci_low"], r["ci_high"], signed=True)


def _step_name(step: str) -> str:
    lo, hi = step.split(" -> ")
    return f"{LEVEL_TEXT.get(hi, hi)} − {LEVEL_TEXT.get(lo, lo)}"


def summary(curve: Curve) -> str:
    """The summary's lead: equal play at the largest budget both sides searched ('' without a
    'both' arm)."""
    lead = curve.lead()
    if lead is None:  # one side searching only: the curve is not equal play
        arms = ", ".join(sc.ARM_TITLES.get(a, "no search") for a in curve.arms)
        return (
            f'<p id="summary-skill-curve">A skill curve ({esc(arms)}) is in its section below; '
            "no arm has both sides searching at two levels, so it does not say how the levels "
            "compare at equal play.</p>"
        )
    top = lead["budget"]
    rates = "; ".join(
        f"{LEVEL_TEXT.get(r['difficulty'], r['difficulty'])} {_rate(r)}" for r in lead["rates"]
    )
    games = sorted({r["games"] for r in lead["rates"]})
    steps = "; ".join(f"{_step_name(s['step'])} {_step(s)}" for s in lead["steps"])
    ordered = lead["steps"] and all(s["ci_low"] > 0 for s in lead["steps"])
    verdict = (
        "each level harder than the one below (every paired step's 95% interval above 0)"
        if ordered
        else "the order of the levels is not shown at this sample size"
    )
    moving = [d for d, r in lead["last"].items() if r["ci_low"] > 0 or r["ci_high"] < 0]
    flat = [d for d, at in lead["converged"].items() if at is not None and at <= top // 2]
    if lead["last"]:
        doubling = "; ".join(
            f"{LEVEL_TEXT.get(d, d)} {_step(r)}"
            for d, r in sorted(lead["last"].items(), key=lambda x: sc.DIFFICULTIES.index(x[0]))
        )
        settled = (
            "shown at " + ", ".join(LEVEL_TEXT.get(d, d) for d in flat)
            if flat
            else "not shown at this sample size"
        )
        done = not moving and set(flat) >= set(lead["last"])
        opener = (
            f"The curve is still moving at {top}: "
            if moving
            else "The curve has settled: "
            if done
            else f"Whether the curve has settled at {top} is not shown: "
        )
        still = (
            opener
            + f"the doubling {top // 2} → {top} reads {doubling} (paired 95%)"
            + (f", {len(moving)} of them clear of 0" if moving else "")
            + "; convergence (every later doubling under 2 points, its interval within 2 "
            f"points of 0) is {settled}"
            + ("." if done else ": these rates are of this budget; stronger search may read "
               "lower or higher.")
        )  # fmt: skip
    else:
        still = f"No doubling into {top} was played: whether the curve has settled is not shown."
    return (
        "<h3>Strong, equal play: both sides searching</h3>"
        f'<p id="summary-skill-curve">At <b>{top} rollouts</b> a legal action on both sides '
        "(the largest budget measured with both sides searching), the Old One player wins "
        f"<b>{esc(rates)}</b> (Wilson 95%, {', '.join(f'{g:,}' for g in games)} deals a level); "
        f"the level steps, paired on the same deals: <b>{esc(steps) or '-'}</b>, {verdict}. "
        f"{esc(still)} Players: {esc(curve.players_line())}. "
        f"Games: {esc(sc.made_by(curve.facts, hashes=False))}.</p>"
    )


def section(curve: Curve, sid: str = "skill-curve") -> str:
    """The curve's figure and its three tables: rates, level steps, doublings with where each
    arm converges. A curve of one arm has no arm column (its heading names it): the tables fit
    a phone's width."""
    one = len(curve.arms) == 1
    arm_said = f" ({sc.ARM_TITLES.get(curve.arms[0], 'no search')})" if one else ""

    def table(headers, rows, name, text_columns):
        if one:  # every row's first cell is the one arm
            headers, rows = headers[1:], [r[1:] for r in rows]
            text_columns = tuple(i - 1 for i in text_columns if i)
        return table_html(headers, rows, f"table-{sid}-{name}", text_columns=text_columns)

    budgets = sorted(set(curve.rates["budget"].to_list()))
    rate = {(r["arm"], r["difficulty"], r["budget"]): r for r in curve.rates.to_dicts()}
    levels = [d for d in sc.DIFFICULTIES if d in set(curve.rates["difficulty"].to_list())]
    rows = []
    for arm in curve.arms:
        for d in levels:
            cells = [rate.get((arm, d, b)) for b in budgets]
            if any(cells):
                rows.append(
                    [
                        "no search" if arm == "none" else sc.ARM_TITLES[arm],
                        LEVEL_TEXT.get(d, d),
                        *(f"{_rate(c)} ({c['games']:,})" if c else "-" for c in cells),
                    ]
                )
    rates_table = table(
        ["arm", "difficulty", *(f"R = {b}" if b else "no search" for b in budgets)],
        rows,
        "rates",
        (0, 1),
    )
    level_rows = [
        [sc.ARM_TITLES.get(r["arm"], "no search"), r["budget"], _step_name(r["step"]), _step(r),
         f"{r['games']:,}"]
        for r in (curve.levels.to_dicts() if curve.levels.height else [])
    ]  # fmt: skip
    level_table = (
        table(
            ["arm", "R", "level step", "paired step (95%)", "deals"], level_rows, "levels", (0, 2)
        )
        if level_rows
        else "<p>No two levels share an arm and a budget: no level step.</p>"
    )
    conv = {(c["arm"], c["difficulty"]): c["at"] for c in curve.convergence}
    dbl_rows = [
        [
            sc.ARM_TITLES[r["arm"]],
            LEVEL_TEXT.get(r["difficulty"], r["difficulty"]),
            f"{r['budget']} → {2 * r['budget']}",
            _step(r),
            f"{r['games']:,}",
            "clear of 0" if r["ci_low"] > 0 or r["ci_high"] < 0 else "covers 0",
        ]
        for r in (sc.order(curve.doublings).to_dicts() if curve.doublings.height else [])
    ]
    conv_said = "; ".join(
        ("" if one else f"{sc.ARM_TITLES[a]}, ")
        + f"{LEVEL_TEXT.get(d, d)}: "
        + (f"{at} rollouts" if at is not None else "not shown at this sample size")
        for (a, d), at in conv.items()
    )
    dbl_table = (
        table(
            ["arm", "difficulty", "doubling", "paired step (95%)", "deals", "interval"],
            dbl_rows,
            "doublings",
            (0, 1, 2, 5),
        )
        + "<p>Where each converges (every later doubling under 2 points, its interval within 2 "
        f"points of 0): {esc(conv_said)}.</p>"
        if dbl_rows
        else "<p>No budget was doubled: whether the curve has settled is not shown.</p>"
    )
    fig = sc.figure(curve.games, curve.facts, hashes=False)
    return (
        f'<section id="{sid}"><h2>Balance against search budget: the skill curve</h2>'
        "<p>The Old One player's win rate at each difficulty against the search budget R "
        "(rollouts for each legal action), every point on the same deals, so that each "
        "doubling and each level step is a paired difference. Players: "
        f"{esc(curve.players_line())}. Games: {esc(sc.made_by(curve.facts, hashes=False))}; "
        f"{len(curve.lakes)} lakes in {esc(', '.join(curve.folders()))}.</p>"
        + details_html(
            [("data pack hash", h) for h in sorted(curve.facts["data"])], "Data pack identifiers"
        )
        + figure_html(
            fig, "Old One player win rate against search budget (Wilson 95%)", f"fig-{sid}"
        )
        + f"<h3>Win rates (games){esc(arm_said)}</h3>"
        + rates_table
        + f"<h3>Level steps at each budget{esc(arm_said)}</h3>"
        + level_table
        + f"<h3>Doublings{esc(arm_said)}</h3>"
        + dbl_table
        + "</section>"
    )
