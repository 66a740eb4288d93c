"""The skill ladder's figures from its lakes, as Markdown tables (for notes and reviews).

    .venv/bin/python experiments/skill_ladder_table.py results/skill_ladder_revenge \
        results/skill_ladder_search_revenge [results/skill_ladder_oop_search]

A lake whose grid does not vary the difficulty (the base ladder) gets one row per rung.
For each Revenge lake whose grid varies the difficulty: every group (rung x Old One player x
humans) with the Old One player's win rate at Normal / Hard / Heroic (Wilson 95%) and the
paired steps (shared seeds, 95%), as the report's "balance against skill" section computes
them (simkit.analysis.difficulty_steps). A lake that varies the Old One player with
``search`` among them also gets search's paired difference against each other OOP.
"""

from __future__ import annotations

import argparse
import re

import polars as pl

from simkit import analysis, views


def short(text: object) -> str:
    # learned: and file: specs and search's rollout-policy paths, by file name
    text = re.sub(r"learned:[^,:=]*/([^,:=/]+)\.toml", r"learned:\1", str(text))
    return re.sub(r"(?:file:)?[^,:=]*/([^,:=/]+)\.toml", r"tuned:\1", text)


def rate(r: dict, level: str) -> str:
    if r.get(level) is None:
        return "-"
    return views.interval(r[level], r[f"{level}_lo"], r[f"{level}_hi"])


def step(r: dict, name: str) -> str:
    if r.get(name) is None:
        return "-"
    return views.interval(r[name], r[f"{name}_lo"], r[f"{name}_hi"], signed=True)


def rungs(lake: analysis.Lake) -> None:
    """A ladder without difficulty levels (the base game): the Old Ones' win rate per rung,
    Wilson 95%, lowest rate (the strongest humans) last."""
    by = list(lake.grid_keys) or ["strategies"]
    rates = analysis.win_rates(lake.scan(), by=by, metric="old_ones_win").sort(
        "rate", descending=True
    )
    name = lake.record.get("name", "lake")
    print(f"\n### {name}: Old Ones' win rate per rung (Wilson 95%)\n")
    print("| " + " | ".join(by) + " | games | Old Ones win |")
    print("|" + "---|" * (len(by) + 2))
    for r in rates.to_dicts():
        cells = [short(r[k]) for k in by]
        cells += [f"{r['games']:,}", views.interval(r["rate"], r["ci_low"], r["ci_high"])]
        print("| " + " | ".join(cells) + " |")


def ladder(lake: analysis.Lake) -> None:
    if "difficulty" not in lake.grid_keys:
        return rungs(lake)
    by = [k for k in lake.grid_keys if k != "difficulty"] or ["strategies"]
    steps = analysis.difficulty_steps(lake.scan(), by=by, metric="old_ones_win").sort(by)
    games = lake.scan().group_by(by + ["difficulty"]).agg(pl.len()).collect()["len"]
    name = lake.record.get("name", "lake")
    print(f"\n### {name} ({int(games.min())}-{int(games.max())} games a cell)\n")
    print(
        "| " + " | ".join(by) + " | normal | hard | heroic | normal→hard | hard→heroic | ordered |"
    )
    print("|" + "---|" * (len(by) + 6))
    for r in steps.to_dicts():
        cells = [short(r[k]) for k in by]
        cells += [rate(r, lv) for lv in ("normal", "hard", "heroic")]
        cells += [step(r, "normal_to_hard"), step(r, "hard_to_heroic"), str(r["ordered"])]
        print("| " + " | ".join(cells) + " |")
    n_ordered = sum(bool(r["ordered"]) for r in steps.to_dicts())
    print(f"\nordered (both steps' 95% intervals above 0): {n_ordered} of {len(steps)} groups")


def oop_search(lake: analysis.Lake) -> None:
    frame = lake.scan()
    oops = frame.select("oop").unique().collect()["oop"].to_list()
    if "search" not in oops:
        return
    within = [k for k in lake.grid_keys if k != "oop"]
    print("\n### search OOP against each other OOP (paired on shared seeds)\n")
    print("| other OOP | " + " | ".join(within) + " | search | other | diff (95%) |")
    print("|" + "---|" * (len(within) + 4))
    for other in sorted(o for o in oops if o != "search"):
        part = frame.filter(pl.col("oop").is_in(["search", other]))
        d = analysis.paired_difference(
            part, {"oop": other}, metric="old_ones_win", within=within, by=within
        )
        for r in d.sort(within).to_dicts():
            print(
                f"| {short(other)} | "
                + " | ".join(short(r[k]) for k in within)
                + f" | {r['rate']:.3f} | {r['baseline_rate']:.3f} | "
                f"{views.interval(r['diff'], r['ci_low'], r['ci_high'], signed=True)} |"
            )


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("lakes", nargs="+")
    args = parser.parse_args()
    for path in args.lakes:
        lake = analysis.open_lake(path)
        ladder(lake)
        if "oop" in lake.grid_keys:
            oop_search(lake)


if __name__ == "__main__":
    main()
