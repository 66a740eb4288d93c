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
"""

from __future__ import annotations

import argparse
import re
import sys
import textwrap
from pathlib import Path

import numpy as np
import polars as pl

from simkit import analysis
from simkit.core.stats import Z95

KEYS = ["root_seed", "chunk_id", "game_index"]
DIFFICULTIES = ("normal", "hard", "heroic")
ARM_TITLES = {
    "both": "both sides search at R",
    "humans": "humans search at R vs rusher",
    "oop": "OOP searches at R vs balanced humans",
}
TOLERANCE = 0.02  # a doubling that moves less than this (interval included) has converged


class NotACurve(ValueError):
    """The folders given do not make one curve (main: one line, exit 2)."""


def budget_of(player: str) -> int:
    """Rollouts of a search player's spec (0: not a search player)."""
    if not player.strip().lower().startswith("search"):
        return 0
    m = re.search(r"rollouts=(\d+)", player)
    return int(m.group(1)) if m else 8  # the search player's default budget


def short(player: str) -> str:
    """A player spec with each strategy file named by its file name (the lake keeps the
    resolved path)."""
    return re.sub(r"(?<=[=:])[^:=]*/([^/:]+\.toml)", r"\1", player)


def arm_of(strategies: str, oop: str) -> str:
    h, o = budget_of(strategies) > 0, budget_of(oop) > 0
    return {(True, True): "both", (True, False): "humans", (False, True): "oop"}.get((h, o), "none")


def read(*roots: Path) -> tuple[pl.DataFrame, dict, list[str]]:
    """Every game of every lake under each of ``roots`` with its arm and budget; the run facts
    (players, data hash, content, ruleset); and a note per lake that is incomplete. Folders
    run at different levels read as one curve (their level steps paired on the shared
    deals); a cell (arm, level, budget) in two lakes is refused, as its games would pair
    twice."""
    frames, facts, notes = [], {"players": {}, "data": set(), "content": set()}, []
    seen: dict[tuple, Path] = {}
    manifests = [m for root in roots for m in sorted(root.glob("*/manifest.json"))]
    for manifest in manifests:
        lake = analysis.open_lake(manifest.parent, allow_incomplete=True)
        if not lake.complete:
            notes.append(lake.missing_note())
        cols = [*KEYS, "strategies", "oop", "difficulty", "humans", "ruleset", "content"]
        if not lake.files():
            continue  # a run that has not finished its first chunk yet
        df = lake.scan().select(*cols, "old_ones_win").collect()
        s, o = df["strategies"][0], df["oop"][0]
        arm, budget = arm_of(s, o), max(budget_of(s), budget_of(o))
        facts["players"][arm, budget] = (short(s), short(o))
        facts["data"].add(lake.record.get("data_hash", "?"))
        facts["content"] |= {f"content {c}" for c in df["content"]} | {
            f"ruleset {r}" for r in df["ruleset"]
        }
        for level in df["difficulty"].unique().sort():
            cell = (arm, level, budget)
            if cell in seen:
                raise NotACurve(
                    f"{manifest.parent}: {arm} at {level}, R = {budget} is also in "
                    f"{seen[cell]}; give each cell's folder once"
                )
            seen[cell] = manifest.parent
        frames.append(df.with_columns(arm=pl.lit(arm), budget=pl.lit(budget, pl.Int64)))
    if not frames:
        where = ", ".join(str(r) for r in roots)
        raise NotACurve(f"{where}: no skill curve lakes (OUT/<spec name>/manifest.json)")
    return pl.concat(frames, how="vertical_relaxed"), facts, notes


def rates(games: pl.DataFrame) -> pl.DataFrame:
    return analysis.win_rates(games, by=["arm", "difficulty", "budget"], metric="old_ones_win")


def paired_step(lo: pl.DataFrame, hi: pl.DataFrame) -> dict:
    """The OOP's win in ``hi`` minus ``lo`` on the games (KEYS) both played: diff = (b - c) / n
    over n pairs, b the games only hi's OOP won, c those only lo's won; the 95% interval is
    Agresti and Min's (2005) adjusted Wald (half a game added to each cell of the 2 x 2
    table), which stays wide when few games disagree (the plain normal interval shrinks to
    nothing when no pair differs, whatever the sample size)."""
    pair = lo.select(*KEYS, lo_win=pl.col("old_ones_win").cast(pl.Int64)).join(
        hi.select(*KEYS, hi_win=pl.col("old_ones_win").cast(pl.Int64)), on=KEYS
    )
    n = pair.height
    b = int(((pair["hi_win"] == 1) & (pair["lo_win"] == 0)).sum())
    c = int(((pair["hi_win"] == 0) & (pair["lo_win"] == 1)).sum())
    b1, c1, n1 = b + 0.5, c + 0.5, n + 2.0
    mid = (b1 - c1) / n1
    half = Z95 * np.sqrt(max(b1 + c1 - (b1 - c1) ** 2 / n1, 0.0)) / n1
    return {
        "games": n,
        "diff": (b - c) / n if n else float("nan"),
        "ci_low": mid - half,
        "ci_high": mid + half,
    }


def steps(games: pl.DataFrame) -> pl.DataFrame:
    """Each doubling R -> 2R per arm and difficulty, paired on the games both budgets played
    (:func:`paired_step`)."""
    out = []
    played = games.filter(pl.col("arm") != "none")
    for (arm, diff), part in played.group_by(["arm", "difficulty"]):
        budgets = sorted(part["budget"].unique())
        for lo in budgets:
            if 2 * lo not in budgets:
                continue
            at = {r: part.filter(pl.col("budget") == r) for r in (lo, 2 * lo)}
            step = paired_step(at[lo], at[2 * lo])
            out.append({"arm": arm, "difficulty": diff, "budget": int(lo), **step})
    if not out:
        return pl.DataFrame()
    return pl.DataFrame(out).sort("arm", "difficulty", "budget")


def level_steps(games: pl.DataFrame) -> pl.DataFrame:
    """Each step up in difficulty (Normal -> Hard, Hard -> Heroic) per arm and budget, paired
    on the deals both levels played (:func:`paired_step`): whether a level is harder at that
    play."""
    out = []
    for (arm, budget), part in games.group_by(["arm", "budget"]):
        for k, (lo, hi) in enumerate(zip(DIFFICULTIES, DIFFICULTIES[1:], strict=False)):
            at = {d: part.filter(pl.col("difficulty") == d) for d in (lo, hi)}
            if at[lo].height and at[hi].height:
                step = paired_step(at[lo], at[hi])
                row = {"arm": arm, "budget": int(budget), "k": k, "step": f"{lo} -> {hi}"}
                out.append({**row, **step})
    if not out:
        return pl.DataFrame()
    rank = {a: i for i, a in enumerate(["none", *ARM_TITLES])}
    frame = pl.DataFrame(out).with_columns(_a=pl.col("arm").replace_strict(rank, default=9))
    return frame.sort("_a", "budget", "k").drop("_a", "k")


def converged(step_rows: list[dict]) -> int | None:
    """The first budget R from which every measured doubling moves less than TOLERANCE with its
    interval inside +-TOLERANCE (None: no such budget)."""
    rows = sorted(step_rows, key=lambda r: r["budget"])
    for i, r in enumerate(rows):
        if all(
            abs(x["diff"]) < TOLERANCE and -TOLERANCE <= x["ci_low"] and x["ci_high"] <= TOLERANCE
            for x in rows[i:]
        ):
            return int(r["budget"])
    return None


def order(df: pl.DataFrame) -> pl.DataFrame:
    rank = {a: i for i, a in enumerate(["none", *ARM_TITLES])}
    return df.with_columns(
        _a=pl.col("arm").replace_strict(rank, default=9),
        _d=pl.col("difficulty").replace_strict(
            {d: i for i, d in enumerate(DIFFICULTIES)}, default=9
        ),
    ).sort("_a", "_d", "budget")


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
    if st.height:
        lines += ["", "| arm | difficulty | converges at (every later doubling < 2 points) |"]
        lines += ["|---|---|---|"]
    for arm in ARM_TITLES if st.height else ():
        for diff in DIFFICULTIES:
            rows = st.filter((pl.col("arm") == arm) & (pl.col("difficulty") == diff)).to_dicts()
            if not rows:
                continue
            at = converged(rows)
            said = f"{at} rollouts" if at is not None else "not shown at this sample size"
            rising = [
                f"{r['budget']}->{2 * r['budget']}"
                for r in rows
                if r["ci_low"] > 0 or r["ci_high"] < 0
            ]
            if rising:
                said += f" (steps whose interval excludes 0: {', '.join(rising)})"
            lines.append(f"| {arm} | {diff} | {said} |")
    lines += ["", "Players:"]
    for (arm, budget), (s, o) in sorted(facts["players"].items(), key=lambda x: (x[0][1], x[0][0])):
        lines.append(f"- {arm}, budget {budget}: humans `{s}`, Old One player `{o}`")
    if facts.get("data"):  # what produced the games, as the figure's title says it
        lines.append(f"- games: Revenge, 2 humans, {made_by(facts)}")
    return "\n".join(lines)


def made_by(facts: dict) -> str:
    """What produced the games (content, ruleset, data pack): the table's and figure's line."""
    return f"{', '.join(sorted(facts['content']))}, data pack {', '.join(sorted(facts['data']))}"


def figure(games: pl.DataFrame, facts: dict, path: Path) -> None:
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    r = rates(games)
    arms = [a for a in ARM_TITLES if a in set(r["arm"])]
    width = max(5.0 * len(arms), 6.5)  # one arm alone still has room for its notes
    fig, axes = plt.subplots(1, len(arms), figsize=(width, 4.6), sharey=True, squeeze=False)
    colors = dict(zip(DIFFICULTIES, ("tab:blue", "tab:orange", "tab:red"), strict=True))
    base = r.filter(pl.col("arm") == "none")
    # the whole 0-1 scale unless every interval lies in a band: then the band, so that steps
    # of a few points (the equal-budget curve's) can be seen
    lo, hi = float(r["ci_low"].min()), float(r["ci_high"].max())
    ylim = (0.0, 1.0) if hi - lo > 0.5 else (max(0.0, lo - 0.1), min(1.0, hi + 0.1))
    for ax, arm in zip(axes[0], arms, strict=True):
        for k, diff in enumerate(DIFFICULTIES):
            d = r.filter((pl.col("arm") == arm) & (pl.col("difficulty") == diff)).sort("budget")
            if d.height == 0:
                continue
            x = d["budget"].to_numpy() * 2 ** (0.04 * (k - 1))  # spread the error bars apart
            y = d["rate"].to_numpy()
            err = np.clip([y - d["ci_low"].to_numpy(), d["ci_high"].to_numpy() - y], 0, 1)
            ax.errorbar(x, y, yerr=err, marker="o", capsize=3, color=colors[diff], label=diff)
            b = base.filter(pl.col("difficulty") == diff)
            if b.height:
                ax.axhline(b["rate"][0], color=colors[diff], ls=":", lw=1)
        ax.set_xscale("log", base=2)
        ax.set_xticks(sorted(set(r.filter(pl.col("arm") == arm)["budget"])))
        ax.get_xaxis().set_major_formatter(matplotlib.ticker.ScalarFormatter())
        ax.set_xlabel("search budget (rollouts per legal action)")
        ax.set_title(ARM_TITLES[arm], fontsize=10)
        ax.set_ylim(*ylim)
        ax.grid(alpha=0.3)
    axes[0][0].set_ylabel("Old One player win rate (Wilson 95%)")
    axes[0][0].legend(title="difficulty", loc="best")
    n = int(r["games"].min())
    # the texts wrap to the figure's width (characters an inch at their font size)
    title = textwrap.fill(
        f"Revenge, 2 humans: OOP win rate against search budget ({made_by(facts)})",
        int(width * 11),
    )
    note = textwrap.fill(
        "Humans search: search:rollouts=R:policy=balanced_tuned_base_2p.toml:model=public; "
        "OOP search: search:rollouts=R:policy=rusher:model=public; the side that does not "
        "search plays the default (balanced humans, rusher OOP). "
        + ("Dotted: balanced vs rusher, no search. " if base.height else "")
        + f"Every point on the same deals (root seed 2512), at least {n} games a point; "
        "experiments/skill_curve_revenge.py.",
        int(width * 17),
    )
    fig.suptitle(title, fontsize=11)
    fig.text(0.01, 0.01, note, fontsize=7.5)
    lines_title, lines_note = title.count("\n") + 1, note.count("\n") + 1
    fig.tight_layout(rect=(0, 0.02 + 0.028 * lines_note, 1, 1 - 0.03 * lines_title))
    fig.savefig(path, dpi=110)
    plt.close(fig)


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
        figure(games, facts, a.figure)
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
