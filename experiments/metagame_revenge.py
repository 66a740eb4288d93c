"""Strong, equal play as the equilibrium of the meta-game (issue 25, deliverable 4): at each
Revenge cell (2 and 3 humans x Normal, Hard, Heroic) every human player we have meets every
Old One player (OOP) on the same deals, and the matrix game of the OOP's win rate is solved
(simkit.analysis.metagame): each side's best mixture over its players and the value.

    .venv/bin/python experiments/metagame_revenge.py run --out results/metagame --jobs 2
    .venv/bin/python experiments/metagame_revenge.py table results/metagame

At the equilibrium neither side gains by switching to any player of the population, so the
value answers "how often does the OOP win at strong, equal play" for the players there are,
without choosing a pair: the alternating best-response pairs of docs/strong-play.md are each
a specialist against the other, and the answer moved with which pair was asked.

The population at a player count, the same at every level: the heuristics (humans
``balanced``, ``defender``, ``economist``, ``hunter``; OOP ``rusher``, ``blighter``,
``mythos``) and every shipped Revenge strategy file (``experiments/strategies/``) made for
that number of humans at any level, or at Normal with 2 humans (where the first tuned,
learned and co-trained files were made). Every pair plays ``GAMES`` games on
root seed ``ROOT_SEED`` (the strong-play table's deals: game k is the same deal in every
pair and cell), so the bootstrap resamples games jointly and the difficulty steps are
paired. ``table`` prints, per cell, the value with its bootstrap 95% interval, the
players carrying each side's mixture, and the steps Normal -> Hard -> Heroic.

The value as a band over plausible content (``worlds``): the players either side's
equilibrium uses at some level of a player count (weight ``FLOOR`` or more) play the three
levels in ``--count`` worlds of redrawn assumed values and unknown cards
(simkit/runner/worlds.py, every source; every world plays the same deals), and each world's
meta-game is solved anew:

    .venv/bin/python experiments/metagame_revenge.py worlds results/metagame \\
        --out results/metagame_worlds --jobs 2
    .venv/bin/python experiments/metagame_revenge.py worlds-table results/metagame_worlds

The players were made with the shipped content; in another world they are the same players,
not ones made for it.

How strong the population is (``exploit``): the equilibrium holds against the players there
are; an 8-rollout search (public model, rolling itself out with the side's main equilibrium
player) plays that side against each player of the other side's mixture, paired with the
main player on fresh held-out seeds (simkit.learn.old_ones_wins of ``--seed``), and the
gains are weighted by the mixture: what a stronger player outside the population takes
from the equilibrium.

    .venv/bin/python experiments/metagame_revenge.py exploit results/metagame --humans 2 \\
        --difficulty normal --side human --games 400 --jobs 2

A side's equilibrium as a mixture file (``mixture``; players weighing ``FLOOR`` or more,
rescaled), for a learned best response to the whole mixture (the double-oracle loop's
next player: ``simkit learn --opponent-mixture FILE --opponent-model faced``):

    .venv/bin/python experiments/metagame_revenge.py mixture results/metagame --humans 2 \\
        --difficulty normal --side oop --to experiments/mixtures/eq_oop_revenge_2h_normal.toml
"""

from __future__ import annotations

import argparse
import hashlib
import json
import re
import sys
from pathlib import Path

import numpy as np

from simkit.core.atomic import atomic_write_bytes
from simkit.errors import UserError

HERE = Path(__file__).resolve().parent
ROOT_SEED = 2025  # experiments/strong_play_revenge.toml's deals
CHUNK = 1200
GAMES = 2400
DRAWS = 1000  # bootstrap resamples
FLOOR = 0.05  # the equilibrium weight that brings a player into the worlds run
WORLDS = 20
WORLD_GAMES = 1200
DIFFICULTIES = ("normal", "hard", "heroic")
CELLS = [(h, d) for h in (2, 3) for d in DIFFICULTIES]
HOME = (2, "normal")
HUMAN_HEURISTICS = ("balanced", "defender", "economist", "hunter")
OOP_HEURISTICS = ("rusher", "blighter", "mythos")
_MADE_AT = re.compile(r"_(\d)h_(normal|hard|heroic)$")


def made_at(stem: str) -> tuple[int, str]:
    """The cell a file was made for, from its name; a name without one (the first tuned and
    learned files) was made at Normal with 2 humans."""
    m = _MADE_AT.search(stem)
    return (int(m.group(1)), m.group(2)) if m else HOME


def side_of(stem: str) -> str:
    """'oop' or 'hum' from a Revenge strategy file's name."""
    return "oop" if "_oop_" in stem or stem.startswith("rusher") else "hum"


def population(side: str, humans: int, folder: Path = HERE) -> list[str]:
    """The player specs of a side at every level of a player count (paths relative to
    experiments/): the same players at Normal, Hard and Heroic, so the steps between levels
    compare the same population."""
    specs = list(HUMAN_HEURISTICS if side == "hum" else OOP_HEURISTICS)
    for path in sorted((folder / "strategies").glob("*revenge*.toml")):
        stem = path.stem
        if side_of(stem) != side or (made_at(stem)[0] != humans and made_at(stem) != HOME):
            continue
        kind = "learned:" if stem.startswith("learned") else "file:"
        specs.append(f"{kind}strategies/{path.name}")
    return specs


def spec_name(humans: int, difficulty: str) -> str:
    return f"metagame_{humans}h_{difficulty}"


def _experiment(name: str, description: str, games: int) -> str:
    """The [experiment] table both specs share: Revenge, root seed ROOT_SEED, summaries."""
    return f"""[experiment]
name = "{name}"
description = "{description}"
mode = "revenge"
root_seed = {ROOT_SEED}
chunk_size = {min(CHUNK, games)}
games = {games}
outputs = ["summary"]
"""


def spec_text(
    humans: int,
    difficulty: str,
    games: int = GAMES,
    folder: Path = HERE,
    players: tuple[list[str], list[str]] | None = None,
    name: str | None = None,
) -> str:
    """One cell's experiment: every human player x every OOP of the cell's population (or of
    ``players``, the (humans, OOP) an addition plays, under its own ``name``)."""
    hum, oop = players or (population("hum", humans, folder), population("oop", humans, folder))
    about = f"OOP win rate, every player x every player, {humans}h {difficulty}"
    return f"""# The meta-game at Revenge {humans} humans, {difficulty} (issue 25): every human
# player x every Old One player, root seed {ROOT_SEED}, chunks of {CHUNK}: every pair of every
# cell plays the same deals. Built by experiments/metagame_revenge.py; paths resolve against
# experiments/.
{_experiment(name or spec_name(humans, difficulty), about, games)}
[params]
humans = {humans}
difficulty = "{difficulty}"

[grid]
strategies = {json.dumps(hum)}
oop = {json.dumps(oop)}
"""


def cell_lakes(folder: Path) -> list[Path]:
    """A cell's lakes: its first run's, then the additions a grown population played
    (``FOLDER+h<digest>``: the new human players against every OOP; ``FOLDER+o<digest>``: the
    players there were against the new OOP)."""
    extra = sorted(p for p in folder.parent.glob(f"{folder.name}+*") if p.is_dir())
    return [folder, *extra] if folder.is_dir() else extra


def addition_name(cell: str, side: str, new: list[str]) -> str:
    """'metagame_2h_normal+h1a2b3c4d': a name the same new players always get (so an
    interrupted addition resumes)."""
    digest = hashlib.sha256(json.dumps(sorted(new)).encode()).hexdigest()[:8]
    return f"{cell}+{side[0]}{digest}"


def run(
    out: Path, games: int = GAMES, jobs: int = 1, cells=None, base_dir: Path = HERE, log=print
) -> None:
    """Play every cell into OUT/<spec name>/ (a rerun resumes); the population and its paths
    come from ``base_dir`` (experiments/). A cell already played keeps its games: a rerun
    finishes its lakes as they were specified (OUT/specs/), then plays only the pairs a
    grown population adds (a new file in experiments/strategies/), into lakes of their own
    on the same deals (``cell_lakes``). This is how a player made against the equilibrium
    (the next step of the population's double-oracle loop) joins it."""
    from simkit.runner import run_spec_text

    for humans, difficulty in cells or CELLS:
        cell = spec_name(humans, difficulty)
        lakes = cell_lakes(out / cell)
        if not lakes:
            res = run_spec_text(
                spec_text(humans, difficulty, games, base_dir), cell, out, base_dir, jobs
            )
            log(f"{cell}: +{res.games_written} games in {res.seconds:.0f} s")
            continue
        for lake in lakes:  # finish what was begun, as it was specified
            recorded = out / "specs" / f"{lake.name}.toml"
            if not recorded.is_file():
                raise UserError(f"{lake}: its spec {recorded} is missing; cannot resume it")
            res = run_spec_text(recorded.read_text(), lake.name, out, base_dir, jobs)
            if res.games_written:
                log(f"{lake.name}: +{res.games_written} games in {res.seconds:.0f} s")
        hum, oop, wins = read_cell(out / cell)
        games = wins.shape[2]  # an addition plays the cell's deals, whatever --games says
        pop_h, pop_o = population("hum", humans, base_dir), population("oop", humans, base_dir)
        # the lakes hold resolved paths; a player is known by its name (its file's stem)
        known = {short(p) for p in (*hum, *oop)}
        new_h = [p for p in pop_h if short(p) not in known]
        new_o = [p for p in pop_o if short(p) not in known]
        # the new humans against every OOP; the humans there were against the new OOP
        for side, new, players in (
            ("hum", new_h, (new_h, [*oop, *new_o])),
            ("oop", new_o, (hum, new_o)),
        ):
            if not new:
                continue
            name = addition_name(cell, side, new)
            text = spec_text(humans, difficulty, games, base_dir, players=players, name=name)
            res = run_spec_text(text, name, out, base_dir, jobs)
            log(f"{name} ({len(new)} new): +{res.games_written} games in {res.seconds:.0f} s")


def read_cell(folder: Path) -> tuple[list[str], list[str], np.ndarray]:
    """(human specs, OOP specs, wins[i, j, k]) of one cell's lakes (``cell_lakes``): the
    OOP's 0/1 win in game k (by deal) of human player i against OOP j. A partial lake, or a
    pair played in two lakes, is refused."""
    import polars as pl

    from simkit import analysis
    from simkit.analysis import PAIR_KEYS
    from simkit.analysis.metagame import wins_by_pair
    from simkit.lake.files import LakeError

    lakes = cell_lakes(folder)
    if not lakes:
        raise UserError(f"{folder}: no meta-game lake")
    frames, seen = [], {}
    for lake in lakes:
        try:
            frame = analysis.open_lake(lake).scan().collect()
        except LakeError as exc:
            raise UserError(str(exc)) from None
        frame = frame.select("strategies", "oop", *PAIR_KEYS, "old_ones_win")
        for pair in frame.select("strategies", "oop").unique().iter_rows():
            if pair in seen:
                raise UserError(f"{lake}: {pair[0]} against {pair[1]} is also in {seen[pair]}")
            seen[pair] = lake
        frames.append(frame)
    return wins_by_pair(pl.concat(frames, how="vertical_relaxed"))


def short(spec: str) -> str:
    """'strategies/abr_oop_revenge_2h_hard.toml' -> 'abr_oop_revenge_2h_hard'."""
    return Path(spec.split(":", 1)[-1]).stem if ":" in spec else spec


def support(specs: list[str], weights: np.ndarray, floor: float = 0.02) -> str:
    """'learned_co_revenge_2h_hard 0.71, balanced 0.29': the players the mixture uses."""
    order = np.argsort(-weights)
    return ", ".join(f"{short(specs[i])} {weights[i]:.2f}" for i in order if weights[i] >= floor)


def verdict(low: float, high: float) -> str:
    """A step's reading from its interval: harder (above 0), easier (below 0) or neither."""
    return "harder" if low > 0 else "easier" if high < 0 else "not separated from 0"


def table(out: Path, draws: int = DRAWS) -> str:
    """The Markdown tables of every cell found under OUT."""
    from simkit.analysis import metagame as mg

    cells = {}
    for humans, difficulty in CELLS:
        folder = out / spec_name(humans, difficulty)
        if (folder / "manifest.json").exists():
            cells[humans, difficulty] = read_cell(folder)
    if not cells:
        raise UserError(f"{out}: no meta-game lakes (OUT/metagame_<cell>/manifest.json)")
    boot = {c: mg.bootstrap_values(w, draws, seed=0) for c, (_, _, w) in cells.items()}
    lines = [
        "| humans | difficulty | players (humans x OOP) | games a pair | OOP win at equilibrium"
        " | best pure pair | humans' mixture | Old One player's mixture |",
        "|---|---|---|---|---|---|---|---|",
    ]
    for (humans, difficulty), (hum, oop, wins) in cells.items():
        rates = mg.win_matrix(wins)
        eq = mg.solve(rates)
        low, high = mg.percentile_interval(boot[humans, difficulty])
        pure = rates.max(axis=1).min()  # the humans' best single player against its best answer
        lines.append(
            f"| {humans} | {difficulty} | {len(hum)} x {len(oop)} | {wins.shape[2]:,} | "
            f"**{eq.value:.3f}** [{low:.3f}, {high:.3f}] | {pure:.3f} | "
            f"{support(hum, eq.humans)} | {support(oop, eq.oop)} |"
        )
    lines += [
        "",
        "| humans | step | value before | value after | step (bootstrap 95%) | reads |",
        "|---|---|---|---|---|---|",
    ]
    for humans in (2, 3):
        for lo, hi in [*zip(DIFFICULTIES, DIFFICULTIES[1:], strict=False), ("normal", "heroic")]:
            if (humans, lo) not in cells or (humans, hi) not in cells:
                continue
            (h_lo, o_lo, w_lo), (h_hi, o_hi, w_hi) = cells[humans, lo], cells[humans, hi]
            if (h_lo, o_lo, w_lo.shape) != (h_hi, o_hi, w_hi.shape):
                continue  # other players or games: the step would not be paired
            # the same seed draws the same resamples: the steps are paired by deal
            d = boot[humans, hi] - boot[humans, lo]
            a = mg.solve(mg.win_matrix(cells[humans, lo][2])).value
            b = mg.solve(mg.win_matrix(cells[humans, hi][2])).value
            low, high = mg.percentile_interval(d)
            lines.append(
                f"| {humans} | {lo} -> {hi} | {a:.3f} | {b:.3f} | "
                f"{b - a:+.3f} [{low:+.3f}, {high:+.3f}] | {verdict(low, high)} |"
            )
    return "\n".join(lines)


def core_players(
    out: Path, humans: int, side: str, floor: float = FLOOR, folder: Path = HERE
) -> list[str]:
    """The population's specs (as ``population`` gives them) that either level's equilibrium
    of a player count weighs ``floor`` or more."""
    from simkit.analysis import metagame as mg

    used = set()
    for difficulty in DIFFICULTIES:
        hum, oop, wins = read_cell(out / spec_name(humans, difficulty))
        eq = mg.solve(mg.win_matrix(wins))
        specs, weights = (hum, eq.humans) if side == "hum" else (oop, eq.oop)
        used |= {short(s) for s, w in zip(specs, weights, strict=True) if w >= floor}
    return [p for p in population(side, humans, folder) if short(p) in used]


def worlds_spec_text(
    humans: int, hum: list[str], oop: list[str], count: int, games: int = WORLD_GAMES
) -> str:
    from simkit.runner.worlds import SOURCES

    about = f"OOP win rate, the core players of the meta-game, {humans}h, {count} worlds"
    return f"""# The meta-game's core players at Revenge {humans} humans over {count} worlds of
# plausible content (issue 25): the players that either equilibrium uses at some level,
# every level, every source redrawn; root seed {ROOT_SEED}: every world plays the same deals.
# Built by experiments/metagame_revenge.py; paths resolve against experiments/.
{_experiment(f"metagame_worlds_{humans}h", about, games)}
[params]
humans = {humans}

[grid]
difficulty = {json.dumps(list(DIFFICULTIES))}
strategies = {json.dumps(hum)}
oop = {json.dumps(oop)}

[worlds]
count = {count}
sources = {json.dumps(sorted(SOURCES))}
"""


def run_worlds(
    main_out: Path,
    out: Path,
    count: int = WORLDS,
    games: int = WORLD_GAMES,
    jobs: int = 1,
    counts=(2, 3),
    base_dir: Path = HERE,
    log=print,
) -> None:
    """Play each player count's core players over ``count`` worlds into OUT/ (resumable)."""
    from simkit.runner import run_spec_text

    for humans in counts:
        hum = core_players(main_out, humans, "hum", folder=base_dir)
        oop = core_players(main_out, humans, "oop", folder=base_dir)
        text = worlds_spec_text(humans, hum, oop, count, games)
        name = f"metagame_worlds_{humans}h"
        res = run_spec_text(text, name, out, base_dir, jobs)
        log(f"{name}: {len(hum)} x {len(oop)} players, +{res.games_written} games")


def world_values(folder: Path) -> dict[str, np.ndarray]:
    """Each level's equilibrium value in each joint world of a worlds lake (in world order)."""
    import polars as pl

    from simkit import analysis
    from simkit.analysis import metagame as mg
    from simkit.lake.files import LakeError

    try:
        lake = analysis.open_lake(folder)
    except LakeError as exc:
        raise UserError(str(exc)) from None
    rates = (
        lake.scan()
        .filter(pl.col("world_source") == "all")
        .group_by("world", "difficulty", "strategies", "oop")
        .agg(pl.col("old_ones_win").cast(pl.Float64).mean())
        .collect()
    )
    hum, oop = sorted(rates["strategies"].unique()), sorted(rates["oop"].unique())
    worlds = sorted(rates["world"].unique())
    values = {d: np.empty(len(worlds)) for d in DIFFICULTIES}
    for (world, difficulty), part in rates.group_by("world", "difficulty"):
        a = np.full((len(hum), len(oop)), np.nan)
        for s, o, r in part.select("strategies", "oop", "old_ones_win").iter_rows():
            a[hum.index(s), oop.index(o)] = r
        values[difficulty][worlds.index(world)] = mg.solve(a).value
    return values


def worlds_table(out: Path) -> str:
    """Per player count: each level's value over the worlds (median [lowest, highest]) and
    each step's (median [lowest, highest], and in how many worlds it is above 0)."""
    lines = [
        "| humans | worlds | Normal | Hard | Heroic | Normal→Hard | Hard→Heroic |",
        "|---|---|---|---|---|---|---|",
    ]

    def band(x: np.ndarray, signed: bool = False) -> str:
        f = "+.3f" if signed else ".3f"
        return f"{np.median(x):{f}} [{x.min():{f}}, {x.max():{f}}]"

    for humans in (2, 3):
        folder = out / f"metagame_worlds_{humans}h"
        if not (folder / "manifest.json").exists():
            continue
        v = world_values(folder)
        n = len(v["normal"])
        cells = [band(v[d]) for d in DIFFICULTIES]
        for lo, hi in zip(DIFFICULTIES, DIFFICULTIES[1:], strict=False):
            d = v[hi] - v[lo]
            cells.append(f"{band(d, signed=True)}, above 0 in {int((d > 0).sum())} of {n}")
        lines.append(f"| {humans} | {n} | " + " | ".join(cells) + " |")
    return "\n".join(lines)


def solved_cell(out: Path, humans: int, difficulty: str) -> dict[str, tuple[list, np.ndarray]]:
    """Each side's players and equilibrium weights in a cell of ``out`` (read and solved once)."""
    from simkit.analysis import metagame as mg

    hum, oop, wins = read_cell(out / spec_name(humans, difficulty))
    eq = mg.solve(mg.win_matrix(wins))
    return {"human": (hum, eq.humans), "oop": (oop, eq.oop)}


def kept_mixture(specs: list, w: np.ndarray, floor: float = FLOOR) -> list[tuple[str, float]]:
    """The players weighing ``floor`` or more (and more than 0), heaviest first, the weights
    rescaled to sum to 1."""
    kept = [j for j in np.argsort(-w) if w[j] >= floor and w[j] > 0]
    return [(specs[j], float(w[j] / w[kept].sum())) for j in kept]


def equilibrium(
    out: Path, humans: int, difficulty: str, side: str, floor: float = FLOOR
) -> list[tuple[str, float]]:
    """``side``'s equilibrium mixture in a cell of ``out`` (``kept_mixture``)."""
    return kept_mixture(*solved_cell(out, humans, difficulty)[side], floor)


def mixture_file(out: Path, humans: int, difficulty: str, side: str, floor: float = FLOOR) -> str:
    """``equilibrium`` as a mixture file (``simkit learn --opponent-mixture``), the paths of
    players under the current folder written relative to it."""
    from simkit.learn import mixture_text

    def local(spec: str) -> str:
        kind, _, path = spec.partition(":")
        if not path or not Path(path).is_absolute() or not Path(path).is_relative_to(Path.cwd()):
            return spec
        return f"{kind}:{Path(path).relative_to(Path.cwd())}"

    players = [(local(s), w) for s, w in equilibrium(out, humans, difficulty, side, floor)]
    who = "humans'" if side == "human" else "Old One player's"
    return mixture_text(
        players,
        f"The {who} equilibrium mixture in the meta-game {out} ({humans} humans, {difficulty}; "
        f"players weighing {floor} or more, rescaled), written by metagame_revenge.py mixture",
    )


def exploit(
    out: Path,
    humans: int,
    difficulty: str,
    side: str,
    games: int = 400,
    rollouts: int = 8,
    seed: int = 4343,
    jobs: int = 1,
    floor: float = FLOOR,
    actual: bool = False,
    objective: str = "win",
) -> dict:
    """An 8-rollout public-model search in ``side``'s seats (rolling itself out with the
    side's main equilibrium player) against the other side's equilibrium mixture, paired with
    that main player on held-out seeds of ``seed``; the paired differences weighted by the
    mixture, with a normal 95% interval. ``actual``: the search rolls each opponent out as
    the player it faces (a labelled best response, not the public model); ``objective``:
    the search's (win or margin)."""
    from simkit.learn import LearnSettings, held_out_wins, weighted_difference

    solved = solved_cell(out, humans, difficulty)
    main = kept_mixture(*solved[side], floor=0.0)[0][0]
    faced = kept_mixture(*solved["oop" if side == "human" else "human"], floor)
    search = f"search:rollouts={rollouts}:policy={main}"
    if objective != "win":
        search += f":objective={objective}"
    model = "oop_model" if side == "human" else "opponents"
    rows, mains, searches = [], [], []
    for them, weight in faced:
        other = {"oop": them} if side == "human" else {"humans": them}
        settings = LearnSettings(
            mode="revenge", players=humans, difficulty=difficulty, side=side, seed=seed, **other
        )
        mine_search = f"{search}:{model}={them}" if actual else search
        mains.append(held_out_wins(settings, main, games, jobs=jobs)[0])
        searches.append(held_out_wins(settings, mine_search, games, jobs=jobs)[0])
        rows.append(
            {"against": short(them), "weight": round(weight, 3)}
            | {"main": round(float(mains[-1].mean()), 4)}
            | {"search": round(float(searches[-1].mean()), 4)}
        )
    q = [w for _, w in faced]
    diff, low, high = weighted_difference(searches, mains, q)
    return {
        "cell": f"{humans}h {difficulty}",
        "side": side,
        "main": short(main),
        "search": f"search:rollouts={rollouts}:policy={short(main)}"
        + (f":objective={objective}" if objective != "win" else "")
        + (" (actual model: each opponent as it is, labelled)" if actual else " (public model)"),
        "games_each": games,
        "seed": seed,
        "rows": rows,
        "old_ones_win_main": round(sum(w * r["main"] for w, r in zip(q, rows, strict=True)), 4),
        "old_ones_win_search": round(sum(w * r["search"] for w, r in zip(q, rows, strict=True)), 4),
        "search_minus_main": round(diff, 4),
        "ci_low": round(low, 4),
        "ci_high": round(high, 4),
    }


def main(argv: list[str]) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    sub = ap.add_subparsers(dest="cmd", required=True)
    r = sub.add_parser("run", help="play every cell's meta-game into OUT (resumable)")
    r.add_argument("--out", type=Path, default=Path("results/metagame"))
    r.add_argument("--games", type=int, default=GAMES)
    r.add_argument("--jobs", type=int, default=1)
    t = sub.add_parser("table", help="print the Markdown tables")
    t.add_argument("out", type=Path)
    t.add_argument("--draws", type=int, default=DRAWS)
    w = sub.add_parser("worlds", help="play the core players over worlds of plausible content")
    w.add_argument("main_out", type=Path, help="the meta-game run (its equilibria pick players)")
    w.add_argument("--out", type=Path, default=Path("results/metagame_worlds"))
    w.add_argument("--count", type=int, default=WORLDS)
    w.add_argument("--games", type=int, default=WORLD_GAMES)
    w.add_argument("--jobs", type=int, default=1)
    wt = sub.add_parser("worlds-table", help="print the worlds band")
    wt.add_argument("out", type=Path)
    x = sub.add_parser("exploit", help="what a search outside the population takes from it")
    x.add_argument("main_out", type=Path)
    x.add_argument("--humans", type=int, default=2)
    x.add_argument("--difficulty", default="normal", choices=DIFFICULTIES)
    x.add_argument("--side", choices=("human", "oop"), required=True)
    x.add_argument("--games", type=int, default=400)
    x.add_argument("--rollouts", type=int, default=8)
    x.add_argument("--seed", type=int, default=4343)
    x.add_argument("--jobs", type=int, default=1)
    x.add_argument("--actual", action="store_true", help="model each opponent as it is")
    x.add_argument("--objective", default="win", choices=("win", "margin"))
    m = sub.add_parser("mixture", help="write a side's equilibrium as a mixture file")
    m.add_argument("main_out", type=Path)
    m.add_argument("--humans", type=int, default=2)
    m.add_argument("--difficulty", default="normal", choices=DIFFICULTIES)
    m.add_argument("--side", choices=("human", "oop"), required=True)
    m.add_argument("--floor", type=float, default=FLOOR)
    m.add_argument("--to", type=Path, required=True, help="the mixture file written")
    a = ap.parse_args(argv)
    try:
        return _command(a)
    except UserError as exc:  # a user's mistake: one line, exit 2
        print(f"metagame_revenge.py: {exc}", file=sys.stderr)
        return 2


def _command(a: argparse.Namespace) -> int:
    log = lambda m: print(m, flush=True)  # noqa: E731
    if a.cmd == "run":
        run(a.out, a.games, a.jobs, log=log)
    elif a.cmd == "worlds":
        run_worlds(a.main_out, a.out, a.count, a.games, a.jobs, log=log)
    elif a.cmd == "mixture":
        text = mixture_file(a.main_out, a.humans, a.difficulty, a.side, a.floor)
        atomic_write_bytes(a.to, text.encode(), flag="--to")
        print(f"wrote {a.to}")
    elif a.cmd == "worlds-table":
        print(worlds_table(a.out))
    elif a.cmd == "exploit":
        res = exploit(
            a.main_out,
            a.humans,
            a.difficulty,
            a.side,
            a.games,
            a.rollouts,
            a.seed,
            a.jobs,
            actual=a.actual,
            objective=a.objective,
        )
        print(json.dumps(res))
    else:
        print(table(a.out, a.draws))
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
