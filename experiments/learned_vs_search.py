"""Paired head-to-head in wins: a learned player against the 8-rollout public-model search it
was distilled from, on the same held-out seeds (Revenge, Normal, 2 humans by default).

    .venv/bin/python experiments/learned_vs_search.py --side human \\
        --learned experiments/strategies/learned_revenge_2h_normal.toml --games 200

``--side human``: both human seats play the learned file, then both play ``search`` (public
model: the other human rolled out with its own rollout policy, the Old One player as
``rusher``), against ``--oop`` (default rusher); ``--search-policy SPEC`` names the search's
rollout policy (the learned file itself, say: the search of the loop's next generation).
``--side oop``: the Old One seat plays the learned file, then ``search`` (public model,
rollout policy rusher), against ``--humans`` (default balanced). Prints the Old One
player's win rate of each and the paired difference (learned - search) with its normal 95%
interval: the issue's "within ±0.03" test; and ``elo`` (with ``elo_ci_low``, ``elo_ci_high``):
the learned player's rating minus the search's in Elo points, the issue's other test ("within
50 rating points"), a bootstrap 95% interval over the paired deals. ``sum_diff`` and
``sum_diff_sq`` let batches (``--first-game``) be added up exactly:

    .venv/bin/python experiments/learned_vs_search.py --combine a.json b.json

prints the result of the games of every batch (the same players and cell, game ranges
that meet without overlap) as one run of them would.
Seeds and specs: simkit.learn.old_ones_wins, the learn loop's held-out rating games (seed 1).
"""

from __future__ import annotations

import argparse
import json
import math
import sys
from pathlib import Path

from simkit.core.stats import Z95, paired_elo_difference
from simkit.learn import LearnSettings, held_out_wins
from simkit.tune.games import paired

SAME = ("side", "learned", "search", "against", "difficulty", "players")  # of every batch


def elo_fields(side: str, games: int, sum_diff: int, sum_diff_sq: int, oop_wins: int) -> dict:
    """The learned player's Elo rating minus the search's, with its bootstrap 95% interval,
    from a head-to-head's sums (``oop_wins``: the Old Ones' wins against the learned
    player). Each game's difference (learned minus search, in Old One wins) is -1, 0 or +1,
    so the sums give the deals only one of them won; a player's own win is the Old Ones'
    win for the Old One seat, their loss for the humans."""
    oop_only_learned, oop_only_search = (sum_diff_sq + sum_diff) // 2, (sum_diff_sq - sum_diff) // 2
    if side == "oop":
        wins, first_only, second_only = oop_wins, oop_only_learned, oop_only_search
    else:
        wins, first_only, second_only = games - oop_wins, oop_only_search, oop_only_learned
    both = wins - first_only
    point, lo, hi = paired_elo_difference(
        both, first_only, second_only, games - both - first_only - second_only
    )
    return {"elo": round(point, 1), "elo_ci_low": round(lo, 1), "elo_ci_high": round(hi, 1)}


def combine(parts: list[dict]) -> dict:
    """One result of the batches ``parts`` (this script's output each): the same players and
    cell, game ranges that meet without overlap; the rates and the paired interval of all
    their games, as one run of them prints (the CPU seconds summed). A mismatch raises
    ValueError naming the field."""
    if not parts:
        raise ValueError("no batch to combine")
    parts = sorted(parts, key=lambda p: p["first_game"])
    for p in parts[1:]:
        bad = next((k for k in SAME if p[k] != parts[0][k]), None)
        if bad:
            raise ValueError(f"{bad}: {p[bad]!r} is not {parts[0][bad]!r}")
    for a, b in zip(parts, parts[1:], strict=False):
        if a["first_game"] + a["games"] != b["first_game"]:
            raise ValueError(
                f"first_game: games {a['first_game']}-{a['first_game'] + a['games'] - 1} and "
                f"{b['first_game']}-{b['first_game'] + b['games'] - 1} do not meet"
            )
    n = sum(p["games"] for p in parts)
    s = sum(p["sum_diff"] for p in parts)
    ss = sum(p["sum_diff_sq"] for p in parts)
    mean = s / n
    half = Z95 * math.sqrt((ss - s * s / n) / (n - 1) / n) if n > 1 else math.inf

    def wins(key: str) -> int:  # wins are whole: a 4-place rate of < 5,000 games is exact
        return sum(round(p[key] * p["games"]) for p in parts)

    return {
        **{k: parts[0][k] for k in SAME},
        "games": n,
        "first_game": parts[0]["first_game"],
        "sum_diff": s,
        "sum_diff_sq": ss,
        "oop_win_learned": round(wins("oop_win_learned") / n, 4),
        "oop_win_search": round(wins("oop_win_search") / n, 4),
        "diff": round(mean, 4),
        "ci_low": round(mean - half, 4),
        "ci_high": round(mean + half, 4),
        **elo_fields(parts[0]["side"], n, s, ss, wins("oop_win_learned")),
        "cpu_s_learned": round(sum(p["cpu_s_learned"] for p in parts), 1),
        "cpu_s_search": round(sum(p["cpu_s_search"] for p in parts), 1),
    }


def main(argv: list[str] | None = None) -> dict:
    argv = sys.argv[1:] if argv is None else argv
    if argv[:1] == ["--combine"]:
        try:
            out = combine([json.loads(Path(f).read_text()) for f in argv[1:]])
        except (OSError, ValueError, KeyError) as exc:  # a missing file, field or range
            print(f"learned_vs_search.py --combine: {exc}", file=sys.stderr)
            raise SystemExit(2) from None
        print(json.dumps(out))
        return out
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--side", choices=("human", "oop"), required=True)
    ap.add_argument("--learned", required=True)
    ap.add_argument("--games", type=int, default=200)
    ap.add_argument("--rollouts", type=int, default=8)
    ap.add_argument("--difficulty", default="normal")
    ap.add_argument("--humans", default="balanced")
    ap.add_argument("--oop", default="rusher")
    ap.add_argument("--players", type=int, default=2)
    ap.add_argument("--jobs", type=int, default=1, help="processes (the games do not change)")
    ap.add_argument(
        "--first-game",
        type=int,
        default=0,
        help="the first held-out game (game i is the same deal whatever the first: batches add up)",
    )
    ap.add_argument(
        "--search-policy",
        default="",
        help="the search's rollout policy (a strategy spec; default: the search's own)",
    )
    args = ap.parse_args(argv)
    search = f"search:rollouts={args.rollouts}"
    if args.search_policy:
        search += f":policy={args.search_policy}"
    # the learn loop's own rating games: same specs, same held-out seeds
    settings = LearnSettings(
        mode="revenge",
        players=args.players,
        difficulty=args.difficulty,
        oop=args.oop,
        side=args.side,
        humans=args.humans,
        seed=1,
    )

    def oop_wins(strategy: str):
        """(wins per game, CPU seconds summed over the processes)."""
        return held_out_wins(settings, strategy, args.games, args.first_game, args.jobs)

    mine, t_mine = oop_wins(f"learned:{args.learned}")
    theirs, t_theirs = oop_wins(search)
    diff = paired(mine, theirs)  # mean of mine - theirs on the shared seeds, normal 95%
    out = {
        "side": args.side,
        "learned": args.learned,
        "search": search + " (public model)",
        "against": args.oop if args.side == "human" else args.humans,
        "difficulty": args.difficulty,
        "players": args.players,
        "games": args.games,
        "first_game": args.first_game,
        "sum_diff": int((mine - theirs).sum()),  # with sum_diff_sq, batches combine exactly
        "sum_diff_sq": int(((mine - theirs) ** 2).sum()),
        "oop_win_learned": round(float(mine.mean()), 4),
        "oop_win_search": round(float(theirs.mean()), 4),
        "diff": round(diff["diff"], 4),
        "ci_low": round(diff["ci_low"], 4),
        "ci_high": round(diff["ci_high"], 4),
        **elo_fields(
            args.side,
            args.games,
            int((mine - theirs).sum()),
            int(((mine - theirs) ** 2).sum()),
            int(mine.sum()),
        ),
        "cpu_s_learned": round(t_mine, 1),
        "cpu_s_search": round(t_theirs, 1),
    }
    print(json.dumps(out))
    return out


if __name__ == "__main__":
    main()
