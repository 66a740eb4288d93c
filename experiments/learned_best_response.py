"""Alternating best response between learned players (Revenge): the humans learned against
the Old One player, each recorded search modelling that player (``--opponent-model``), then
the Old One player learned against the humans kept, modelling them; and again.

    .venv/bin/python experiments/learned_best_response.py --out results/lbr_2h_normal \\
        --first-humans experiments/strategies/learned_co_revenge_2h_normal.toml \\
        --first-oop experiments/strategies/learned_co_oop_revenge_2h_normal.toml \\
        --difficulty normal --rounds 1 --seed 72

Round r (r = 1 .. ``--rounds``) is two ``simkit learn`` runs (simkit.learn.run, resumable:
a rerun skips what is written), OUT/r{r}_humans and OUT/r{r}_oop, each starting from the
side's player kept so far (``--first-policy``), with seed ``--seed + r``. A step keeps the
best of its first policy and its generations on the run's own held-out rating games (the
humans: the fewest Old One wins; the Old One player: the most), so a step that does not
improve keeps the player it started from. OUT/rounds.json holds every step: its learn
folder, the player faced, each candidate's rating and the player kept; a table is printed.
A search player here rolls out the side it faces with that side's true parameters (the
best response is to that player): the spec each file records says so.
"""

from __future__ import annotations

import argparse
import json
from pathlib import Path

from simkit.learn import LearnSettings, run


def candidates(settings: LearnSettings, ratings: list[dict], out: Path) -> list[dict]:
    """The step's first policy and each generation, with their held-out ratings (the Old
    Ones' win rate over the same games)."""
    first = ratings[0]["against"][-1]
    assert first["generation"] == 0
    found = [{"player": settings.first, "old_ones_win": first["old_ones_win"]}]
    for r in ratings:
        path = out / f"gen{r['generation']}.toml"
        found.append({"player": f"learned:{path}", "old_ones_win": r["old_ones_win"]})
    return found


def kept(found: list[dict], side: str) -> str:
    """The best candidate for ``side`` (ties: the earlier, so the first policy wins them)."""
    sign = 1.0 if side == "oop" else -1.0
    return max(enumerate(found), key=lambda c: (sign * c[1]["old_ones_win"], -c[0]))[1]["player"]


def main(argv: list[str] | None = None) -> list[dict]:
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--out", type=Path, required=True)
    ap.add_argument("--first-humans", required=True, help="the humans' learned file")
    ap.add_argument("--first-oop", required=True, help="the Old One player's learned file")
    ap.add_argument("--players", type=int, default=2)
    ap.add_argument("--difficulty", default="normal")
    ap.add_argument("--rounds", type=int, default=1)
    ap.add_argument("--generations", type=int, default=2)
    ap.add_argument("--human-games", type=int, default=150)
    ap.add_argument("--oop-games", type=int, default=300)
    ap.add_argument("--rollouts", type=int, default=8)
    ap.add_argument("--rate-games", type=int, default=2000)
    ap.add_argument("--seed", type=int, default=72)
    ap.add_argument("--objective", default="win")
    ap.add_argument("--fitter", default="advantage")
    args = ap.parse_args(argv)
    humans = f"learned:{args.first_humans}"
    oop = f"learned:{args.first_oop}"
    common = {
        "mode": "revenge",
        "players": args.players,
        "difficulty": args.difficulty,
        "generations": args.generations,
        "rollouts": args.rollouts,
        "rate_games": args.rate_games,
        "fitter": args.fitter,
        "objective": args.objective,
    }
    steps = []
    for r in range(1, args.rounds + 1):
        for side in ("human", "oop"):
            out = args.out / f"r{r}_{'humans' if side == 'human' else 'oop'}"
            faced = oop if side == "human" else humans
            settings = LearnSettings(
                **common,
                side=side,
                seed=args.seed + r,
                games=args.human_games if side == "human" else args.oop_games,
                oop=oop if side == "human" else "rusher",
                humans=humans if side == "oop" else "balanced",
                first_policy=humans if side == "human" else oop,
                opponent_model=faced,
            )
            found = candidates(settings, run(settings, out), out)
            best = kept(found, side)
            steps.append(
                {"round": r, "side": side, "folder": str(out), "faced": faced}
                | {"candidates": found, "kept": best}
            )
            if side == "human":
                humans = best
            else:
                oop = best
    args.out.mkdir(parents=True, exist_ok=True)
    (args.out / "rounds.json").write_text(json.dumps(steps, indent=1) + "\n")
    print("| round | side | first policy | generations | kept |\n|---|---|---|---|---|")
    for s in steps:
        rates = [f"{c['old_ones_win']:.3f}" for c in s["candidates"]]
        print(
            f"| {s['round']} | {s['side']} | {rates[0]} | {' / '.join(rates[1:])} | {s['kept']} |"
        )
    return steps


if __name__ == "__main__":
    main()
