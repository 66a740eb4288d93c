"""Several players of one side against one fixed player of the other (Revenge), paired on
the same held-out seeds: each player's Old One win rate and its difference from the first
player's, with the paired 95% interval.

    .venv/bin/python experiments/paired_players.py --side human --difficulty normal \\
        --against learned:experiments/strategies/learned_co_oop_revenge_2h_normal.toml \\
        --games 4000 --seed 4242 \\
        learned:experiments/strategies/learned_co_revenge_2h_normal.toml \\
        learned:experiments/strategies/learned_rf_revenge_2h_normal.toml

``--side human``: the players fill every human seat against the Old One player ``--against``;
``--side oop``: they play the Old One seat against ``--against`` in every human seat. The
games are a learn run's held-out rating games for ``--seed`` (simkit.learn.old_ones_wins;
pick a seed no learn run used). Prints one JSON line per player.
"""

from __future__ import annotations

import argparse
import json

from simkit.game.engine import Engine
from simkit.learn import LearnSettings, old_ones_wins
from simkit.tune.games import paired


def main(argv: list[str] | None = None) -> list[dict]:
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("players", nargs="+", help="strategy specs of one side; the first is the base")
    ap.add_argument("--side", choices=("human", "oop"), required=True)
    ap.add_argument("--against", required=True, help="the other side's strategy spec")
    ap.add_argument("--difficulty", default="normal")
    ap.add_argument("--humans", type=int, default=2, help="human seats")
    ap.add_argument("--games", type=int, default=4000)
    ap.add_argument("--seed", type=int, default=4242)
    args = ap.parse_args(argv)
    against = {"oop": args.against} if args.side == "human" else {"humans": args.against}
    settings = LearnSettings(
        mode="revenge",
        players=args.humans,
        difficulty=args.difficulty,
        side=args.side,
        seed=args.seed,
        **against,
    )
    settings.check()
    eng = Engine()
    wins = [old_ones_wins(eng, settings, p, args.games) for p in args.players]
    rows = []
    for player, mine in zip(args.players, wins, strict=True):
        d = paired(mine, wins[0])
        row = {
            "side": args.side,
            "player": player,
            "against": args.against,
            "difficulty": args.difficulty,
            "games": args.games,
            "seed": args.seed,
            "old_ones_win": round(float(mine.mean()), 4),
            "minus_first": round(d["diff"], 4),
            "ci_low": round(d["ci_low"], 4),
            "ci_high": round(d["ci_high"], 4),
        }
        print(json.dumps(row))
        rows.append(row)
    return rows


if __name__ == "__main__":
    main()
