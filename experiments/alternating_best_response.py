"""Alternating best response in Revenge: tune the humans against the Old One player, then
the Old One player against those humans, and again, for three rounds.

    .venv/bin/python experiments/alternating_best_response.py --out results/abr [--jobs 2]

Each step is a ``simkit tune`` run (simkit.tune.run_tune; its study and strategy.toml in
OUT/round{r}_{side}/). A step starts from the parameters the previous step of the same side
chose (its first trial and CMA-ES's starting mean; the first step of a side starts from the
side's defaults), so the rounds move on from each other instead of starting afresh; its
held-out gain is measured against that start. After every step the current pair (humans of
the last human step, the Old One player of the last OOP step) plays the same held-out games
(a seed no tuning run uses), and the Old One player's win rate is recorded with its Wilson 95%
interval.
The trajectory goes to OUT/trajectory.json and is printed as a table: if the two sides
keep answering each other, the rate swings; if it settles, the pair is near a fixed point
of this (heuristic-family) game.
"""

from __future__ import annotations

import argparse
import json
from pathlib import Path

from simkit import ENGINE_VERSION
from simkit.core.stats import wilson_interval
from simkit.game.engine import Engine, make_spec
from simkit.kernels.low import game_layout as L
from simkit.tune import TuneSpec, run_tune

EVAL_SEED = 900_001  # held out: no tuning step uses it


def oop_win_rate(eng: Engine, humans: str, oop: str, args) -> dict:
    spec = make_spec(
        "revenge", args.humans, humans, difficulty=args.difficulty, oop=oop, ruleset="revenge"
    )
    rows, _ = eng.play_many(spec, EVAL_SEED, 0, args.eval_games)
    wins = int(rows[:, L.S_OLD_ONES_WIN].sum())
    lo, hi = wilson_interval(wins, args.eval_games)
    return {"oop_win": wins / args.eval_games, "ci_low": float(lo), "ci_high": float(hi)}


def parse_args(argv: list[str] | None = None) -> argparse.Namespace:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--out", type=Path, required=True)
    parser.add_argument("--rounds", type=int, default=3)
    parser.add_argument("--humans", type=int, default=2)
    parser.add_argument("--difficulty", default="normal")
    parser.add_argument("--human-strategy", default="balanced")
    parser.add_argument("--oop-strategy", default="rusher")
    parser.add_argument("--trials", type=int, default=60)
    parser.add_argument("--games-per-trial", type=int, default=300)
    parser.add_argument("--leaders", type=int, default=5)
    parser.add_argument("--leader-games", type=int, default=0, help="0: 4 x games per trial")
    parser.add_argument("--holdout-games", type=int, default=0, help="0: 4 x games per trial")
    parser.add_argument("--eval-games", type=int, default=4000)
    parser.add_argument("--jobs", type=int, default=2)
    return parser.parse_args(argv)


def run(args: argparse.Namespace) -> dict:
    """Every step of every round; writes OUT/trajectory.json and returns what it holds."""
    args.out.mkdir(parents=True, exist_ok=True)
    eng = Engine()
    humans, oop = args.human_strategy, args.oop_strategy
    steps = [{"round": 0, "tuned": "none", "humans": humans, "oop": oop}]
    steps[0].update(oop_win_rate(eng, humans, oop, args))
    for r in range(1, args.rounds + 1):
        for side in ("humans", "oop"):
            out = args.out / f"round{r}_{side}"
            # the side's current strategy: the previous step's winner (a file:), or the
            # defaults before the side's first step
            start = humans if side == "humans" else oop
            spec = TuneSpec(
                mode="revenge",
                strategy=start,
                opponents=(oop,) if side == "humans" else (humans,),
                difficulty=args.difficulty,
                humans=args.humans,
                trials=args.trials,
                games_per_trial=args.games_per_trial,
                leaders=args.leaders,
                leader_games=args.leader_games,
                holdout_games=args.holdout_games,
                seed=1000 * r + (0 if side == "humans" else 500),
            )
            record = run_tune(spec, out, jobs=args.jobs)
            tuned = f"file:{out / 'strategy.toml'}"
            if side == "humans":
                humans = tuned
            else:
                oop = tuned
            held = record["evaluation"]["holdout"]
            step = {
                "round": r,
                "tuned": side,
                "start": start,
                "humans": humans,
                "oop": oop,
                "holdout_gain": held["diff"],
                "holdout_gain_ci": [held["ci_low"], held["ci_high"]],
            }
            step.update(oop_win_rate(eng, humans, oop, args))
            steps.append(step)
            print(json.dumps(step), flush=True)
    result = {
        "engine_version": ENGINE_VERSION,
        "mode": "revenge",
        "humans": args.humans,
        "difficulty": args.difficulty,
        "ruleset": "revenge",
        "content": "assumed",
        "eval_seed": EVAL_SEED,
        "eval_games": args.eval_games,
        "steps": steps,
    }
    (args.out / "trajectory.json").write_text(json.dumps(result, indent=2) + "\n")
    return result


def main(argv: list[str] | None = None) -> None:
    steps = run(parse_args(argv))["steps"]
    print(f"{'round':>5} {'tuned':>7} {'OOP win (95%)':>24} {'gain over the step start':>26}")
    for s in steps:
        gain = ""
        if "holdout_gain" in s:
            lo, hi = s["holdout_gain_ci"]
            gain = f"{s['holdout_gain']:+.3f} ({lo:+.3f}..{hi:+.3f})"
        rate = f"{s['oop_win']:.3f} ({s['ci_low']:.3f}-{s['ci_high']:.3f})"
        print(f"{s['round']:>5} {s['tuned']:>7} {rate:>24} {gain:>26}")


if __name__ == "__main__":
    main()
