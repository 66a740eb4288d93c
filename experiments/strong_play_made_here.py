"""The balance table at strong, equal play with players made where they play (issue 25,
deliverable 4): at each (humans, difficulty) cell the two strong pairs of
docs/strong-play.md, each side made *at that cell*, against the same pairs made at Normal
with 2 humans (the files the main strong-play table plays everywhere).

    .venv/bin/python experiments/strong_play_made_here.py pick results/learn results/abr
    .venv/bin/python experiments/strong_play_made_here.py run --out results/strong_play_made_here
    .venv/bin/python experiments/strong_play_made_here.py table results/strong_play_made_here

The pairs (families), each made at every cell with the recipe of its Normal/2 pair:

- ``learned``: ``simkit learn --fitter advantage`` (8-rollout public-model search distilled
  into the engine); the humans learn against ``rusher``, the Old One player (OOP) against
  ``balanced`` humans, the recipe of the Normal/2 logistic pair with the advantage fitter:

      simkit learn --side oop --players H --difficulty D --humans balanced --generations 3 \\
          --games 300 --rollouts 8 --rate-games 2000 --seed S --fitter advantage \\
          --out LEARN/advoop_<H>h_<D>
      simkit learn --mode revenge --players H --difficulty D --oop rusher --generations 3 \\
          --games 150 --rollouts 8 --rate-games 2000 --seed S --fitter advantage \\
          --out LEARN/advhum_<H>h_<D>

  (S from ``LEARN_SEEDS``, Normal/2 included); ``pick`` ships the generation with the best
  held-out rating (humans: the lowest Old One win rate; OOP: the highest; the learn run's
  rating seeds), among the advantage run's generations and, where a logistic run of the same
  seed exists (``LEARN/<side>_<H>h_<D>``, the same command without ``--fitter``), its
  generations too: both are rated on the same held-out games;
- ``abr``: round 3 of alternating best response (each side CMA-ES-tuned against the other;
  the Normal/2 pair is the shipped ``abr_*_revenge_2h_normal.toml``):

      python experiments/alternating_best_response.py --out ABR/<H>h_<D> --rounds 3 \\
          --trials 100 --games-per-trial 600 --leaders 4 --eval-games 4000 --jobs 1 \\
          --humans H --difficulty D \\
          --oop-strategy file:experiments/strategies/rusher_tuned_revenge_normal.toml

- ``co``: the co-trained learned pair, one round of alternating best response between the
  learned players, from the ``learned`` pair made here (seeds S + 10): the humans learn
  against that learned Old One player, then the OOP against the humans so made (their best
  generation):

      simkit learn --mode revenge --players H --difficulty D \\
          --oop learned:experiments/strategies/learned_adv_oop_revenge_<H>h_<D>.toml \\
          --generations 3 --games 150 --rollouts 8 --rate-games 2000 --seed S+10 \\
          --fitter advantage --out LEARN/cohum_<H>h_<D>
      simkit learn --side oop --players H --difficulty D \\
          --humans learned:experiments/strategies/learned_co_revenge_<H>h_<D>.toml \\
          --generations 3 --games 300 --rollouts 8 --rate-games 2000 --seed S+10 \\
          --fitter advantage --out LEARN/cooop_<H>h_<D>

``pick`` copies them to ``strategies/<stem>_<H>h_<D>.toml`` (stems in ``FAMILIES``) with a
first line saying how each was made. ``run`` plays one spec per cell: every human player
(both families, made here and at Normal/2) against every OOP, 2,400 games each, all on root
seed ``ROOT_SEED`` in chunks of 1,200, so game (chunk, index) is the same deal in every cell
and spec and the steps between difficulties and the differences between files are paired.
``table`` prints the Markdown tables.
"""

from __future__ import annotations

import argparse
import json
import sys
from pathlib import Path

import polars as pl

HERE = Path(__file__).resolve().parent
ROOT_SEED = 2025  # the main strong-play table's seed (experiments/strong_play_revenge.toml)
CHUNK = 1200
GAMES = 2400
DIFFICULTIES = ("normal", "hard", "heroic")
HOME = (2, "normal")  # where the main table's files were made
LEARN_SEEDS = {
    (2, "normal"): 40,
    (2, "hard"): 41,
    (2, "heroic"): 42,
    (3, "normal"): 43,
    (3, "hard"): 44,
    (3, "heroic"): 45,
}
CELLS = [cell for cell in LEARN_SEEDS if cell != HOME]  # where the ABR pair is made anew
HUMANS = tuple(sorted({humans for humans, _ in LEARN_SEEDS}))
# family -> side -> (file stem, player spec prefix)
FAMILIES = {
    "learned": {
        "hum": ("learned_adv_revenge", "learned:"),
        "oop": ("learned_adv_oop_revenge", "learned:"),
    },
    "abr": {"hum": ("abr_humans_revenge", "file:"), "oop": ("abr_oop_revenge", "file:")},
    "co": {
        "hum": ("learned_co_revenge", "learned:"),
        "oop": ("learned_co_oop_revenge", "learned:"),
    },
}
TITLE = {"learned": "learned", "abr": "ABR", "co": "co-trained"}
ABR_ROUNDS = 3


def strategy_file(family: str, side: str, humans: int, difficulty: str) -> str:
    """Path (relative to experiments/) of a family's file of a side made at a cell."""
    return f"strategies/{FAMILIES[family][side][0]}_{humans}h_{difficulty}.toml"


def player(family: str, side: str, where: tuple[int, str]) -> str:
    """The player spec of a family's side made at ``where`` (humans, difficulty)."""
    return FAMILIES[family][side][1] + strategy_file(family, side, *where)


def rated_generations(folder: Path) -> list[Path]:
    """A learn run's generation files that have their rating (a finished generation)."""
    gens = [p for p in folder.glob("gen*.toml") if (folder / p.stem / "rating.json").exists()]
    return sorted(gens, key=lambda p: int(p.stem[3:]))


def rating(gen_file: Path) -> dict:
    """The learn run's rating of a generation (genK/rating.json beside genK.toml): the Old
    Ones' win rate over its held-out rating games."""
    return json.loads((gen_file.parent / gen_file.stem / "rating.json").read_text())


def learn_command(folder: Path, **shipped) -> str:
    """The ``simkit learn`` command a run folder was made with (from its learn.json);
    ``shipped``: settings to name as shipped instead (a run-folder path the repo lacks)."""
    s = json.loads((folder / "learn.json").read_text())["settings"] | shipped
    if s["side"] == "oop":
        side = ["--side oop", f"--humans {s['humans']}"]
    else:
        side = [f"--mode {s['mode']}", f"--oop {s['oop']}"]
    keys = ("players", "difficulty", "generations", "games", "rollouts", "rate_games", "seed")
    opts = [f"--{k.replace('_', '-')} {s[k]}" for k in keys]
    opts += [f"--fitter {s['fitter']}"] if s.get("fitter", "logistic") != "logistic" else []
    opts += [f"--first-policy {s['first_policy']}"] if s.get("first_policy") else []
    opts += [f"--opponent-model {s['opponent_model']}"] if s.get("opponent_model") else []
    opts += [f"--objective {s['objective']}"] if s.get("objective", "win") != "win" else []
    return " ".join(["simkit learn", *side, *opts])


def best_generation(folders: list[Path], side: str) -> Path:
    """The generation file with the best held-out rating for its side among the learn runs
    ``folders`` (ties: the earlier folder, then the earlier generation)."""
    gens = [
        (i, int(p.stem[3:]), p)
        for i, folder in enumerate(folders)
        for p in rated_generations(folder)
    ]
    if not gens:
        raise SystemExit(f"{folders[0]}: no generation files (gen1.toml, ...)")
    sign = 1.0 if side == "oop" else -1.0
    return max(gens, key=lambda g: (sign * rating(g[2])["old_ones_win"], -g[0], -g[1]))[2]


def same_rating_seeds(a: Path, b: Path) -> bool:
    """Whether two learn runs rate on the same held-out games (all settings equal but the
    fitter and the number of generations)."""

    def fixed(folder: Path) -> dict:
        s = json.loads((folder / "learn.json").read_text())["settings"]
        return {k: v for k, v in s.items() if k not in ("fitter", "generations")}

    return fixed(a) == fixed(b)


def pick_learned(runs: Path, experiments: Path, humans: int, difficulty: str) -> list[Path]:
    """The best generation of the advantage-fitter run, or of the logistic run of the same
    seed where there is one (both rated on the same held-out games)."""
    written = []
    for side in ("hum", "oop"):
        folders = [runs / f"adv{side}_{humans}h_{difficulty}"]
        logistic = runs / f"{side}_{humans}h_{difficulty}"
        if (logistic / "learn.json").exists() and same_rating_seeds(folders[0], logistic):
            folders.append(logistic)
        best = best_generation(folders, side)
        among = " and the logistic run of the same seed" if len(folders) > 1 else ""
        target = experiments / strategy_file("learned", side, humans, difficulty)
        ship(best, learn_command(best.parent), f"the advantage run{among}", target)
        written.append(target)
    return written


def ship(best: Path, command: str, runs: str, target: Path) -> None:
    """Write a picked generation to ``target`` under a first line saying how it was made."""
    n = len(rated_generations(best.parent))
    r = rating(best)
    head = (
        f"# Made by: {command} ({best.stem} of {n}, the best held-out rating among the "
        f"generations of {runs}: the Old Ones win {r['old_ones_win']:.4f} over "
        f"{r['games']:,} held-out games; picked by experiments/strong_play_made_here.py)\n"
    )
    target.write_text(head + best.read_text())


def pick_co(runs: Path, experiments: Path, humans: int, difficulty: str) -> list[Path]:
    """The co-trained pair: one round of alternating best response between learned players,
    from the learned pair made here. The humans' best generation of ``cohum_<cell>`` (learned
    against the learned Old One player made here), then the Old One player's best of
    ``cooop_<cell>`` (learned against those humans; its command names them as shipped)."""
    written = []
    for side in ("hum", "oop"):
        best = best_generation([runs / f"co{side}_{humans}h_{difficulty}"], side)
        humans_file = "learned:experiments/" + strategy_file("co", "hum", humans, difficulty)
        command = learn_command(best.parent, **({"humans": humans_file} if side == "oop" else {}))
        target = experiments / strategy_file("co", side, humans, difficulty)
        ship(best, command, "the co-training run", target)
        written.append(target)
    return written


def ratings_table(runs: Path) -> str:
    """Markdown: per cell and side, each generation's held-out rating (the Old Ones' win
    rate) for the advantage run and, where there is one, the logistic run of the same seed
    (the same held-out games), with the first policy's."""
    lines = [
        "| humans | difficulty | side | fitter | first policy | gen1 | gen2 | gen3 |",
        "|---|---|---|---|---|---|---|---|",
    ]
    for humans, difficulty in LEARN_SEEDS:
        for side in ("hum", "oop"):
            for prefix, fitter in (("adv", "advantage"), ("", "logistic")):
                folder = runs / f"{prefix}{side}_{humans}h_{difficulty}"
                gens = rated_generations(folder)
                if not gens:
                    continue
                rated = [rating(g) for g in gens]
                first = next(a for a in rated[0]["against"] if a["generation"] == 0)
                cells = [f"{r['old_ones_win']:.3f}" for r in rated] + ["-"] * (3 - len(rated))
                who = "humans" if side == "hum" else "Old One"
                lines.append(
                    f"| {humans} | {difficulty} | {who} | {fitter} | "
                    f"{first['old_ones_win']:.3f} | " + " | ".join(cells[:3]) + " |"
                )
    return "\n".join(lines)


def pick_abr(runs: Path, experiments: Path, humans: int, difficulty: str) -> list[Path]:
    folder = runs / f"{humans}h_{difficulty}"
    trajectory = json.loads((folder / "trajectory.json").read_text())
    last = trajectory["steps"][-1]
    written = []
    for side, step in (("hum", "humans"), ("oop", "oop")):
        source = folder / f"round{ABR_ROUNDS}_{step}" / "strategy.toml"
        head = (
            "# Made by: python experiments/alternating_best_response.py --rounds "
            f"{ABR_ROUNDS} --trials 100 --games-per-trial 600 --leaders 4 --eval-games 4000 "
            f"--humans {humans} --difficulty {difficulty} --oop-strategy "
            "file:experiments/strategies/rusher_tuned_revenge_normal.toml (round "
            f"{ABR_ROUNDS}'s {step}; the round-{ABR_ROUNDS} pair: the Old Ones win "
            f"{last['oop_win']:.3f} over {trajectory['eval_games']:,} held-out games)\n"
        )
        target = experiments / strategy_file("abr", side, humans, difficulty)
        target.write_text(head + source.read_text())
        written.append(target)
    return written


def pick(learn_runs: Path, abr_runs: Path, experiments: Path = HERE, log=print) -> list[Path]:
    """Copy each cell's learned and co-trained pairs (each side's best generation) and ABR
    pair (the last round) to experiments/strategies/, each with a first line saying how it
    was made."""
    written = []
    for humans, difficulty in LEARN_SEEDS:
        written += pick_learned(learn_runs, experiments, humans, difficulty)
        written += pick_co(learn_runs, experiments, humans, difficulty)
    for humans, difficulty in CELLS:
        written += pick_abr(abr_runs, experiments, humans, difficulty)
    for path in written:
        log(f"{path.relative_to(experiments)}: {path.read_text().splitlines()[0][:100]}...")
    return written


def spec_name(humans: int, difficulty: str) -> str:
    return f"strong_play_made_here_{humans}h_{difficulty}"


def players_of(side: str, humans: int, difficulty: str) -> list[str]:
    """Every family's side, made here and at Normal/2 (one file at Normal/2 itself)."""
    return sorted({player(f, side, w) for f in FAMILIES for w in ((humans, difficulty), HOME)})


def spec_text(humans: int, difficulty: str, games: int = GAMES) -> str:
    """One cell's spec: every strong human player x every strong OOP, made here and at
    Normal/2."""
    return f"""# Strong, equal play made where it plays (issue 25): Revenge, {humans} humans,
# {difficulty}; the learned and ABR pairs made here and at Normal with 2 humans.
# Root seed {ROOT_SEED}, chunks of {CHUNK}: every cell of every spec plays the same deals.
# Built by experiments/strong_play_made_here.py; paths resolve against experiments/.
[experiment]
name = "{spec_name(humans, difficulty)}"
description = "OOP win rate, strong pairs made here and at Normal/2, {humans}h {difficulty}"
mode = "revenge"
root_seed = {ROOT_SEED}
chunk_size = {min(CHUNK, games)}
games = {games}
outputs = ["summary"]

[params]
humans = {humans}
difficulty = "{difficulty}"

[grid]
strategies = {players_of("hum", humans, difficulty)!r}
oop = {players_of("oop", humans, difficulty)!r}
""".replace("'", '"')


def run(
    out: Path, games: int = GAMES, jobs: int = 1, cells=None, base_dir: Path = HERE, log=print
) -> None:
    """Play every cell's spec into OUT/<spec name>/ (a rerun resumes); strategy paths
    resolve against ``base_dir``."""
    from simkit.runner import run_spec_text

    for humans, difficulty in cells or LEARN_SEEDS:
        name = spec_name(humans, difficulty)
        res = run_spec_text(spec_text(humans, difficulty, games), name, out, base_dir, jobs)
        log(f"{name}: +{res.games_written} games in {res.seconds:.0f} s")


def origins(spec: str, side: str, humans: int, difficulty: str) -> list[tuple[str, str]]:
    """(family, 'here' or 'home') of a player spec at a cell; at Normal/2 a file is both."""
    found = []
    for family in FAMILIES:
        for where, cell in (("here", (humans, difficulty)), ("home", HOME)):
            if spec.endswith(strategy_file(family, side, *cell)):
                found.append((family, where))
    return found


def label(hum: tuple[str, str], oop: tuple[str, str]) -> str:
    """'learned pair, made here', 'ABR humans vs learned Old One, made here', ..."""
    (hf, hw), (of, ow) = hum, oop
    where = {"here": "made here", "home": "made at Normal/2"}
    made = where[hw] if hw == ow else f"humans {where[hw]}, Old One {where[ow]}"
    if hf == of:
        return f"{TITLE[hf]} pair, {made}"
    return f"{TITLE[hf]} humans vs {TITLE[of]} Old One, {made}"


def read(root: Path) -> pl.DataFrame:
    """Every game of every cell's lake, labelled by its pairing (at Normal/2 a game counts
    under both 'made here' and 'made at Normal/2': the files are the same)."""
    from simkit import analysis
    from simkit.lake.files import LakeError

    frames = []
    for manifest in sorted(root.glob("strong_play_made_here_*/manifest.json")):
        try:
            lake = analysis.open_lake(manifest.parent)  # a partial lake is refused
        except LakeError as exc:
            raise SystemExit(f"strong_play_made_here.py: {exc}") from None
        cols = [*analysis.PAIR_KEYS, "strategies", "oop", "humans", "difficulty", "old_ones_win"]
        df = lake.scan().select(cols).collect()
        for (s, o, h, d), part in df.group_by(["strategies", "oop", "humans", "difficulty"]):
            for hum in origins(s, "hum", h, d):
                for oop in origins(o, "oop", h, d):
                    frames.append(part.with_columns(pairing=pl.lit(label(hum, oop))))
    if not frames:
        raise SystemExit(f"{root}: no lakes (OUT/strong_play_made_here_<cell>/manifest.json)")
    return pl.concat(frames)


HEADLINE = [
    "learned pair, made here",
    "ABR pair, made here",
    "learned humans vs ABR Old One, made here",
    "ABR humans vs learned Old One, made here",
    "co-trained pair, made here",
    "co-trained humans vs learned Old One, made here",
    "learned pair, made at Normal/2",
    "ABR pair, made at Normal/2",
    "co-trained pair, made at Normal/2",
]


def markdown(games: pl.DataFrame) -> str:
    from simkit import analysis, views

    shown = games.filter(pl.col("pairing").is_in(HEADLINE))
    rows = analysis.difficulty_steps(shown, by=["humans", "pairing"]).to_dicts()
    rows.sort(key=lambda r: (r["humans"], HEADLINE.index(r["pairing"])))
    lines = [
        "| humans | players | Normal | Hard | Heroic | Normal→Hard | Hard→Heroic | ordered |",
        "|---|---|---|---|---|---|---|---|",
    ]
    for r in rows:
        rate = [views.interval(r[d], r[f"{d}_lo"], r[f"{d}_hi"]) for d in DIFFICULTIES]
        step = [
            views.interval(r[s], r[f"{s}_lo"], r[f"{s}_hi"], signed=True)
            for s in ("normal_to_hard", "hard_to_heroic")
        ]
        cells = [str(r["humans"]), r["pairing"], *rate, *step, str(r["ordered"])]
        lines.append("| " + " | ".join(cells) + " |")
    lines += [
        "",
        "Each pair made here minus the same pair made at Normal/2 (paired on the same deals,",
        "normal 95%):",
        "",
        "| humans | difficulty | pair | made here | made at Normal/2 | difference | games |",
        "|---|---|---|---|---|---|---|",
    ]
    for family in FAMILIES:
        here, home = f"{TITLE[family]} pair, made here", f"{TITLE[family]} pair, made at Normal/2"
        diff = analysis.paired_difference(
            games.filter(pl.col("pairing").is_in([here, home])),
            {"pairing": home},
            metric="old_ones_win",
            within=["humans", "difficulty"],
            by=["humans", "difficulty"],
        ).to_dicts()
        diff.sort(key=lambda r: (r["humans"], DIFFICULTIES.index(r["difficulty"])))
        for r in diff:
            if (r["humans"], r["difficulty"]) == HOME:
                continue  # the same files
            d = views.interval(r["diff"], r["ci_low"], r["ci_high"], signed=True)
            lines.append(
                f"| {r['humans']} | {r['difficulty']} | {TITLE[family]} | {r['rate']:.3f} | "
                f"{r['baseline_rate']:.3f} | {d} | {r['games']:,} |"
            )
    return "\n".join(lines)


def main(argv: list[str]) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    sub = ap.add_subparsers(dest="cmd", required=True)
    p = sub.add_parser("pick", help="ship each cell's learned and ABR pair")
    p.add_argument("learn_runs", type=Path)
    p.add_argument("abr_runs", type=Path)
    r = sub.add_parser("run", help="play every cell's spec into OUT (resumable)")
    r.add_argument("--out", type=Path, default=Path("results/strong_play_made_here"))
    r.add_argument("--games", type=int, default=GAMES)
    r.add_argument("--jobs", type=int, default=1)
    t = sub.add_parser("table", help="print the Markdown tables")
    t.add_argument("out", type=Path)
    g = sub.add_parser("ratings", help="print each learn run's held-out ratings")
    g.add_argument("learn_runs", type=Path)
    a = ap.parse_args(argv)
    if a.cmd == "pick":
        pick(a.learn_runs, a.abr_runs)
    elif a.cmd == "ratings":
        print(ratings_table(a.learn_runs))
    elif a.cmd == "run":
        run(a.out, a.games, a.jobs, log=lambda m: print(m, flush=True))
    else:
        print(markdown(read(a.out)))
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
