"""The skill curve (issue 25): the Old One player's (OOP) win rate in Revenge against search
budget, from lakes that each hold one pair of players (experiments/skill_curve_revenge.py
writes one lake per (arm, budget), every one on the same deals).

An *arm* says who searches: ``both`` (humans and OOP at the same budget R), ``humans`` (the
humans search, the OOP plays its policy), ``oop`` (the reverse) or ``none`` (no search: the
reference). From the games: the win rate per arm x level x budget (Wilson 95%); each doubling
R -> 2R paired on the deals both budgets played; each level's step over the one below at every
budget (whether Hard is harder at that play); and where an arm converges: the first budget
from which every measured doubling moves less than 2 points with its whole interval inside
+-0.02 (``None``: not shown at this sample size). Paired steps use Agresti and Min's interval,
which stays wide when few deals disagree.

    >>> budget_of("search:rollouts=32:policy=rusher:model=public"), budget_of("rusher")
    (32, 0)
    >>> arm_of("search:rollouts=8", "rusher")
    'humans'
"""

from __future__ import annotations

import re
from collections.abc import Iterable, Sequence
from pathlib import Path

import numpy as np
import polars as pl

from simkit.analysis import PAIR_KEYS, Lake, open_lake, win_rates
from simkit.core.stats import Z95
from simkit.errors import UserError

KEYS = list(PAIR_KEYS)
DIFFICULTIES = ("normal", "hard", "heroic")
ARM_TITLES = {
    "both": "both sides search at R",
    "humans": "humans search at R vs rusher",
    "oop": "OOP searches at R vs balanced humans",
}
ARM_ORDER = {a: i for i, a in enumerate(["none", *ARM_TITLES])}
TOLERANCE = 0.02  # a doubling that moves less than this (interval included) has converged


class NotACurve(UserError):
    """The lakes given do not make one curve (a command: one line, exit 2)."""


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


def players_of(lake: Lake) -> tuple[str, str] | None:
    """(humans, OOP) when every cell of a Revenge lake has the same two players (a lake of one
    point per level on a curve), else None."""
    if str(lake.record.get("mode")) != "revenge":
        return None
    pairs = {
        (str(c["params"].get("strategies")), str(c["params"].get("oop")))
        for c in lake.cells.values()
    }
    return next(iter(pairs)) if len(pairs) == 1 else None


def curve_lakes(lakes: Sequence[Lake]) -> list[Lake]:
    """The lakes among ``lakes`` that make a skill curve: one pair of players each, on one root
    seed and number of humans, with some searching arm at two budgets or more (the no-search
    reference of the same seed joins them). The largest such group; [] when there is none."""
    groups: dict[tuple, list[Lake]] = {}
    for lake in lakes:
        if players_of(lake) is None:
            continue  # (a lake whose run has no file yet still joins: its note must show)
        humans = {c["params"].get("humans") for c in lake.cells.values()}
        groups.setdefault(
            (lake.record.get("root_seed"), tuple(sorted(map(str, humans)))), []
        ).append(lake)
    best: list[Lake] = []
    for group in groups.values():
        budgets: dict[str, set[int]] = {}
        for lake in group:
            s, o = players_of(lake)
            budgets.setdefault(arm_of(s, o), set()).add(max(budget_of(s), budget_of(o)))
        searched = any(len(b) > 1 for arm, b in budgets.items() if arm != "none")
        if searched and len(group) > len(best):
            best = group
    return best


def games_of(lakes: Iterable[Lake]) -> tuple[pl.DataFrame, dict]:
    """Every game of ``lakes`` with its arm and budget, and the run facts (players per (arm,
    budget), data hashes, content and ruleset). A cell (arm, level, budget) in two lakes is
    refused: its games would pair with themselves."""
    frames, facts = [], {"players": {}, "data": set(), "content": set()}
    seen: dict[tuple, Path] = {}
    cols = [*KEYS, "strategies", "oop", "difficulty", "humans", "ruleset", "content"]
    for lake in lakes:
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
                    f"{lake.root}: {arm} at {level}, R = {budget} is also in "
                    f"{seen[cell]}; give each cell's folder once"
                )
            seen[cell] = lake.root
        frames.append(df.with_columns(arm=pl.lit(arm), budget=pl.lit(budget, pl.Int64)))
    if not frames:
        raise NotACurve("no skill curve lakes with games")
    return pl.concat(frames, how="vertical_relaxed"), facts


def read(*roots: Path) -> tuple[pl.DataFrame, dict, list[str]]:
    """:func:`games_of` the lakes under each of ``roots`` (OUT/<spec name>/manifest.json), and
    a note per lake that is incomplete. Folders run at different levels read as one curve
    (their level steps paired on the shared deals)."""
    lakes, notes = [], []
    for manifest in (m for root in roots for m in sorted(Path(root).glob("*/manifest.json"))):
        lake = open_lake(manifest.parent, allow_incomplete=True)
        if not lake.complete:
            notes.append(lake.missing_note())
        lakes.append(lake)
    if not any(lake.files() for lake in lakes):
        where = ", ".join(str(r) for r in roots)
        raise NotACurve(f"{where}: no skill curve lakes (OUT/<spec name>/manifest.json)")
    games, facts = games_of(lakes)
    return games, facts, notes


def rates(games: pl.DataFrame) -> pl.DataFrame:
    return win_rates(games, by=["arm", "difficulty", "budget"], metric="old_ones_win")


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
    frame = pl.DataFrame(out).with_columns(_a=pl.col("arm").replace_strict(ARM_ORDER, default=9))
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


def convergence(games: pl.DataFrame) -> list[dict]:
    """Per arm and level with a doubling: where it converges (:func:`converged`, None: not
    shown at this sample size) and the doublings whose interval excludes 0 (still moving)."""
    st = steps(games)
    out = []
    for arm in ARM_TITLES if st.height else ():
        for diff in DIFFICULTIES:
            rows = st.filter((pl.col("arm") == arm) & (pl.col("difficulty") == diff)).to_dicts()
            if rows:
                moving = [r["budget"] for r in rows if r["ci_low"] > 0 or r["ci_high"] < 0]
                out.append(
                    {"arm": arm, "difficulty": diff, "at": converged(rows), "moving": moving}
                )
    return out


def order(df: pl.DataFrame) -> pl.DataFrame:
    """Rows in reading order: arm (none, both, humans, oop), level, budget."""
    return (
        df.with_columns(
            _a=pl.col("arm").replace_strict(ARM_ORDER, default=9),
            _d=pl.col("difficulty").replace_strict(
                {d: i for i, d in enumerate(DIFFICULTIES)}, default=9
            ),
        )
        .sort("_a", "_d", "budget")
        .drop("_a", "_d")
    )


def made_by(facts: dict, hashes: bool = True) -> str:
    """What produced the games (content, ruleset, data pack): one line for every table and
    figure of the curve (``hashes=False``: without the data pack's hash, which a report keeps
    in its identifiers)."""
    said = ", ".join(sorted(facts["content"]))
    return f"{said}, data pack {', '.join(sorted(facts['data']))}" if hashes else said


def figure(games: pl.DataFrame, facts: dict, hashes: bool = True):
    """The curve as a matplotlib figure: one panel per arm, the OOP win rate (Wilson 95%)
    against budget on a log-2 axis, a line per level; the no-search reference dotted. The
    title says what made the games (:func:`made_by`)."""
    import textwrap

    import matplotlib
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
    humans = ", ".join(map(str, sorted(set(games["humans"].to_list()))))
    # the texts wrap to the figure's width (characters an inch at their font size)
    title = textwrap.fill(
        f"Revenge, {humans} humans: OOP win rate against search budget ({made_by(facts, hashes)})",
        int(width * 11),
    )
    seeds = ", ".join(map(str, sorted(set(games["root_seed"].to_list()))))
    note = textwrap.fill(
        "Players: "
        + "; ".join(
            f"{arm} at {b}: humans {s}, OOP {o}" if arm == "none" else f"{arm}: humans {s}, OOP {o}"
            for (arm, b), (s, o) in players_per_arm(facts["players"])
        )
        + " (R: the budget). "
        + ("Dotted: the no-search reference. " if base.height else "")
        + f"Every point on the same deals (root seed {seeds}), at least {n} games a point.",
        int(width * 17),
    )
    fig.suptitle(title, fontsize=11)
    fig.text(0.01, 0.01, note, fontsize=7.5)
    lines_note = note.count("\n") + 1
    # (tight_layout makes room for the suptitle itself: only the note needs a margin)
    fig.tight_layout(rect=(0, 0.02 + 0.028 * lines_note, 1, 1))
    return fig


def players_per_arm(players: dict) -> list[tuple[tuple[str, int], tuple[str, str]]]:
    """Each arm's players once, the budget written R (the specs differ only in rollouts=)."""
    out = {}
    for (arm, budget), (s, o) in sorted(
        players.items(), key=lambda x: (ARM_ORDER.get(x[0][0], 9), x[0][1])
    ):
        if arm not in out:
            out[arm] = (
                (arm, budget),
                tuple(re.sub(r"rollouts=\d+", "rollouts=R", p) for p in (s, o)),
            )
    return list(out.values())
