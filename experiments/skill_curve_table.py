"""The skill curve's tables and figure (issue 25, deliverable 4) from the lakes of
experiments/skill_curve_revenge.py:

    .venv/bin/python experiments/skill_curve_table.py results/skill_curve_revenge \
        --figure docs/skill-curve.png

Several OUT folders (one run per level, say) read as one curve.

OUT holds one lake per (arm, budget). Printed (Markdown): the Old One player's win rate per
arm x difficulty x budget with its Wilson 95% interval and games; the paired step of each
doubling (budget 2R minus R on the games both played, Agresti-Min 95% interval for paired
proportions); the paired step of each difficulty level over the one below at every arm and
budget (whether Hard is harder at that play); and where each arm converges: the first budget R
from which every measured doubling moves the win rate by less than 2 points with its whole
interval inside +-0.02. Where no budget does, it says "not shown at this sample size".
The reading itself is simkit.analysis.skill_curve's; `simkit report` on the same folders
gives it as a report section and leads the summary with it.
"""

from __future__ import annotations

import argparse
import sys
from pathlib import Path

import polars as pl

from simkit.analysis.skill_curve import (  # noqa: F401  (the tests read them from this script)
    ARM_TITLES,
    DIFFICULTIES,
    KEYS,
    TOLERANCE,
    NotACurve,
    arm_of,
    budget_of,
    converged,
    convergence,
    figure,
    level_steps,
    made_by,
    order,
    paired_step,
    rates,
    read,
    short,
    steps,
)


def markdown(games: pl.DataFrame, facts: dict, notes: list[str]) -> str:
    lines = [f"NOTE: {n}" for n in notes]
    lines += [
        "| arm | difficulty | budget (rollouts) | OOP win rate [95% CI] | games |",
        "|---|---|---|---|---|",
    ]
    for r in order(rates(games)).to_dicts():
        b = "0 (no search)" if r["budget"] == 0 else str(r["budget"])
        lines.append(
            f"| {r['arm']} | {r['difficulty']} | {b} | "
            f"{r['rate']:.3f} [{r['ci_low']:.3f}, {r['ci_high']:.3f}] | {r['games']} |"
        )
    st = steps(games)
    if st.height:  # (a folder of one budget a curve has no doubling)
        lines += [
            "",
            "| arm | difficulty | doubling | paired step [95% CI] | games (pairs) |",
            "|---|---|---|---|---|",
        ]
    for r in order(st).to_dicts() if st.height else []:
        lines.append(
            f"| {r['arm']} | {r['difficulty']} | {r['budget']} -> {2 * r['budget']} | "
            f"{r['diff']:+.3f} [{r['ci_low']:+.3f}, {r['ci_high']:+.3f}] | {r['games']} |"
        )
    ls = level_steps(games)
    if ls.height:
        lines += [
            "",
            "| arm | budget (rollouts) | difficulty step | paired step [95% CI] | games (pairs) |",
            "|---|---|---|---|---|",
        ]
        for r in ls.to_dicts():
            lines.append(
                f"| {r['arm']} | {r['budget']} | {r['step']} | "
                f"{r['diff']:+.3f} [{r['ci_low']:+.3f}, {r['ci_high']:+.3f}] | {r['games']} |"
            )
    conv = convergence(games)
    if conv:
        lines += ["", "| arm | difficulty | converges at (every later doubling < 2 points) |"]
        lines += ["|---|---|---|"]
    for c in conv:
        said = f"{c['at']} rollouts" if c["at"] is not None else "not shown at this sample size"
        if c["moving"]:
            moving = ", ".join(f"{r}->{2 * r}" for r in c["moving"])
            said += f" (steps whose interval excludes 0: {moving})"
        lines.append(f"| {c['arm']} | {c['difficulty']} | {said} |")
    lines += ["", "Players:"]
    for (arm, budget), (s, o) in sorted(facts["players"].items(), key=lambda x: (x[0][1], x[0][0])):
        lines.append(f"- {arm}, budget {budget}: humans `{s}`, Old One player `{o}`")
    if facts.get("data"):  # what produced the games, as the figure's title says it
        humans = ", ".join(map(str, sorted(set(games["humans"].to_list()))))
        lines.append(f"- games: Revenge, {humans} humans, {made_by(facts)}")
    return "\n".join(lines)


def main(argv: list[str]) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument(
        "out",
        type=Path,
        nargs="+",
        help="the folder(s) experiments/skill_curve_revenge.py ran into (several: one curve)",
    )
    ap.add_argument("--figure", type=Path, default=None, help="write the figure (PNG) here")
    a = ap.parse_args(argv)
    try:
        games, facts, notes = read(*a.out)
    except NotACurve as exc:
        print(f"error: {exc}", file=sys.stderr)
        return 2
    print(markdown(games, facts, notes))
    if a.figure is not None:
        import matplotlib

        matplotlib.use("Agg")
        figure(games, facts).savefig(a.figure, dpi=110)
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
