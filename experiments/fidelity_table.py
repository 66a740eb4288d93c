"""The rules-fidelity table: OOP win rate per OOP strategy and difficulty under content
"assumed" and "rules", with the paired rules - assumed difference, for one or more lakes of
experiments/rules_fidelity_revenge.toml (e.g. run under two engine versions: the decks of
ENGINE_VERSION 7 against the printed decks of 8). Prints a Markdown table.

    .venv/bin/python experiments/fidelity_table.py before=results/fid7 after=results/fidelity
"""

from __future__ import annotations

import sys

from simkit import analysis
from simkit.core.stats import mean_interval, wilson_interval

LEVELS = ("normal", "hard", "heroic")


def rows(lake_dir: str) -> dict[tuple[str, str], dict]:
    lake = analysis.open_lake(lake_dir)
    f = lake.scan().select("oop", "difficulty", "content", "chunk_id", "game_index", "old_ones_win")
    wide = f.collect().pivot(on="content", values="old_ones_win")
    out = {}
    for (oop, level), part in wide.group_by(["oop", "difficulty"]):
        a, r = part["assumed"].to_numpy(), part["rules"].to_numpy()
        d = r.astype(float) - a.astype(float)
        low, _ = mean_interval(float(d.sum()), float((d * d).sum()), d.size)
        half = d.mean() - low
        out[(oop, level)] = {
            "n": a.size,
            "assumed": (a.mean(), *wilson_interval(int(a.sum()), a.size)),
            "rules": (r.mean(), *wilson_interval(int(r.sum()), r.size)),
            "diff": (d.mean(), half),
            "version": lake.record.get("engine_version", "?"),
        }
    return out


def main(args: list[str]) -> None:
    lakes = [a.split("=", 1) for a in args]
    data = {name: rows(path) for name, path in lakes}
    head = "| OOP | difficulty | games |"
    sep = "|---|---|---|"
    for name, _ in lakes:
        head += f" {name}: assumed | {name}: rules | {name}: rules - assumed (paired) |"
        sep += "---|---|---|"
    print(head)
    print(sep)
    keys = sorted(next(iter(data.values())), key=lambda k: (k[0], LEVELS.index(k[1])))
    for k in keys:
        line = f"| {k[0]} | {k[1]} | {next(iter(data.values()))[k]['n']:,} |"
        for name, _ in lakes:
            r = data[name][k]
            for c in ("assumed", "rules"):
                p, lo, hi = r[c]
                line += f" {p:.3f} ({lo:.3f}-{hi:.3f}) |"
            m, h = r["diff"]
            line += f" {m:+.3f} ± {h:.3f} |"
        print(line)


if __name__ == "__main__":
    main(sys.argv[1:])
