"""What leaving a choice to the rollout policy costs the Old One search: the same search
with and without ``--searched`` (``mythos``: ``mythos=1``, the Mythos card searched jointly
with the action; ``sites``: ``sites=1``, the Place's level and site or the Reveal's tile
searched after the action), paired on the same seeds (Revenge, 2 humans by default).

    .venv/bin/python experiments/oop_search_choices.py --searched mythos --games 400
    .venv/bin/python experiments/oop_search_choices.py --searched sites --games 400

Both arms: ``search:rollouts=R`` (public model, rollout policy ``--policy``, default
rusher) in the Old One seat against ``--humans`` (default balanced), the held-out rating
seeds of simkit.learn.old_ones_wins with ``--seed`` (default 5: no learn run uses it). The
two arms run in parallel processes (joblib), one each. Prints one JSON line: each arm's
Old One win rate, the paired difference (searched - policy's) with its normal 95%
interval, and each arm's CPU seconds.
"""

from __future__ import annotations

import argparse
import json

from joblib import Parallel, delayed

from simkit.learn import LearnSettings, timed_wins
from simkit.tune.games import paired


def main(argv: list[str] | None = None) -> dict:
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--searched", choices=("mythos", "sites"), required=True)
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
    arms = [base, f"{base}:{args.searched}=1"]
    (w0, t0), (w1, t1) = Parallel(n_jobs=args.jobs)(
        delayed(timed_wins)(settings, arm, args.games) for arm in arms
    )
    diff = paired(w1, w0)  # mean of w1 - w0 on the shared seeds, normal 95% interval
    out = {
        "difficulty": args.difficulty,
        "players": args.players,
        "humans": args.humans,
        "searched": args.searched,
        "arm_searched": arms[1],
        "arm_policy": arms[0],
        "games": args.games,
        "oop_win_policy": round(float(w0.mean()), 4),
        "oop_win_searched": round(float(w1.mean()), 4),
        "diff": round(diff["diff"], 4),
        "ci_low": round(diff["ci_low"], 4),
        "ci_high": round(diff["ci_high"], 4),
        "cpu_s_policy": round(t0, 1),
        "cpu_s_searched": round(t1, 1),
    }
    print(json.dumps(out))
    return out


if __name__ == "__main__":
    main()
