"""What leaving the Mythos card to the rollout policy costs the Old One search: the same
search with and without ``mythos=1`` (the card searched jointly with the action), paired on
the same seeds (Revenge, 2 humans by default).

    .venv/bin/python experiments/oop_search_mythos.py --games 400 --difficulty normal

Both arms: ``search:rollouts=R`` (public model, rollout policy ``--policy``, default
rusher) in the Old One seat against ``--humans`` (default balanced), the held-out rating
seeds of simkit.learn.old_ones_wins with ``--seed`` (default 5: no learn run uses it). The
two arms run in parallel processes (joblib), one each. Prints one JSON line: each arm's
Old One win rate, the paired difference (mythos=1 - mythos=0) with its normal 95%
interval, and each arm's CPU seconds.
"""

from __future__ import annotations

import argparse
import json
import time

import numpy as np
from joblib import Parallel, delayed

from simkit.learn import LearnSettings, old_ones_wins
from simkit.tune.games import paired


def _arm(settings: LearnSettings, strategy: str, games: int) -> tuple[np.ndarray, float]:
    from simkit.game.engine import Engine

    start = time.process_time()
    wins = old_ones_wins(Engine(), settings, strategy, games)
    return wins, time.process_time() - start


def main(argv: list[str] | None = None) -> dict:
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--games", type=int, default=400)
    ap.add_argument("--rollouts", type=int, default=8)
    ap.add_argument("--policy", default="rusher")
    ap.add_argument("--difficulty", default="normal")
    ap.add_argument("--humans", default="balanced")
    ap.add_argument("--players", type=int, default=2)
    ap.add_argument("--seed", type=int, default=5)
    ap.add_argument("--jobs", type=int, default=2)
    args = ap.parse_args(argv)
    settings = LearnSettings(
        mode="revenge",
        players=args.players,
        difficulty=args.difficulty,
        side="oop",
        humans=args.humans,
        seed=args.seed,
    )
    base = f"search:rollouts={args.rollouts}:policy={args.policy}"
    arms = [base, base + ":mythos=1"]
    (w0, t0), (w1, t1) = Parallel(n_jobs=args.jobs)(
        delayed(_arm)(settings, arm, args.games) for arm in arms
    )
    diff = paired(w1, w0)  # mean of w1 - w0 on the shared seeds, normal 95% interval
    out = {
        "difficulty": args.difficulty,
        "players": args.players,
        "humans": args.humans,
        "policy_searched_card": arms[1],
        "policy_card": arms[0],
        "games": args.games,
        "oop_win_policy_card": round(float(w0.mean()), 4),
        "oop_win_searched_card": round(float(w1.mean()), 4),
        "diff": round(diff["diff"], 4),
        "ci_low": round(diff["ci_low"], 4),
        "ci_high": round(diff["ci_high"], 4),
        "cpu_s_policy_card": round(t0, 1),
        "cpu_s_searched_card": round(t1, 1),
    }
    print(json.dumps(out))
    return out


if __name__ == "__main__":
    main()
