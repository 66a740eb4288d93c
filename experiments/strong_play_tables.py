"""The tables of docs/strong-play.md from their lakes (#25).

    .venv/bin/python experiments/strong_play_tables.py halving results/search_halving_base
    .venv/bin/python experiments/strong_play_tables.py ratings results/skill_round_robin_strong
    .venv/bin/python experiments/strong_play_tables.py sides results/skill_round_robin_revenge

``halving``: experiments/search_halving_base.toml plays halving=0 against halving=1 in both
seat orders on the same seeds; each seed's two games are one pair, and halving=1's score
(1 when it outscores the other seat, 1/2 on equal VP, 0 otherwise) is averaged per seed, with
a normal 95% interval over seeds (0.5: no difference in strength).
``ratings``: the Bradley-Terry table (Elo scale, bootstrap 95% intervals over games).
``sides``: the same for a Revenge round robin (experiments/skill_round_robin_revenge.toml):
every Old One player and every human table on one scale, from who won each game; then each
player's rating minus its side's 8-rollout public-model search (``SEARCH``), the
difference's own bootstrap interval (#25: "the learned player within 50 rating points").
"""

from __future__ import annotations

import sys

import numpy as np
import polars as pl

from simkit import analysis
from simkit.core.stats import Z95

KEYS = ["root_seed", "chunk_id", "game_index"]
SEARCH = "search:rollouts=8"  # the public-model search of the Revenge round robin


def halving(lake) -> dict:
    seats = lake.scan("seats").select(*KEYS, "cell", "listed", "vp").collect()
    names = lake.scan().select(*KEYS, "cell", "strategies", "old_ones_win").collect()
    df = seats.join(names, on=[*KEYS, "cell"]).with_columns(
        halving=pl.col("strategies")
        .str.split(",")
        .list.get(pl.col("listed"))
        .str.contains("halving=1")
    )
    wide = df.group_by([*KEYS, "cell"]).agg(
        vp1=pl.col("vp").filter(pl.col("halving")).first(),
        vp0=pl.col("vp").filter(~pl.col("halving")).first(),
        old_ones_win=pl.col("old_ones_win").first(),
    )
    wide = wide.with_columns(
        score=pl.when(pl.col("vp1") > pl.col("vp0"))
        .then(1.0)
        .when(pl.col("vp1") == pl.col("vp0"))
        .then(0.5)
        .otherwise(0.0)
    )
    per_seed = wide.group_by(KEYS).agg(pl.col("score").mean(), n=pl.len()).filter(pl.col("n") == 2)
    s = per_seed["score"].to_numpy()
    half = Z95 * s.std(ddof=1) / np.sqrt(s.size)
    return {
        "seeds": int(s.size),
        "games": int(2 * s.size),
        "halving1_score": float(s.mean()),
        "ci_low": float(s.mean() - half),
        "ci_high": float(s.mean() + half),
        "old_ones_win": float(wide["old_ones_win"].mean()),
    }


def ratings(lake, sides: bool = False, reference=None) -> tuple[pl.DataFrame, int]:
    """The ratings over the chunks every cell has (a stopped run: its whole rounds of
    chunks, so every pair has played the same seeds), and how many chunks that is.
    ``sides``: a Revenge round robin (bradley_terry_sides, ``reference`` as there)."""
    have = lake.scan().group_by("cell").agg(pl.col("chunk_id").n_unique().alias("n")).collect()
    rounds = int(have["n"].min()) if have.height == len(lake.cells) else 0
    keep = pl.col("chunk_id") < rounds
    scan = lake.scan().filter(keep)
    if sides:
        bt = analysis.bradley_terry_sides(scan, resamples=400, scale="elo", reference=reference)
        return bt, rounds
    bt = analysis.bradley_terry(lake.scan("seats").filter(keep), scan, resamples=400, scale="elo")
    return bt, rounds


def main() -> None:
    what, path = sys.argv[1], sys.argv[2]
    lake = analysis.open_lake(path, allow_incomplete=True)
    if what == "halving":
        r = halving(lake)
        print(
            f"halving=1 scores {r['halving1_score']:.3f} [{r['ci_low']:.3f}, {r['ci_high']:.3f}]"
            f" against halving=0 over {r['games']} games ({r['seeds']} seeds, both seat orders);"
            f" Old Ones win {r['old_ones_win']:.3f}"
        )
        return
    bt, rounds = ratings(lake, sides=what == "sides")
    print(f"{rounds} chunk(s) of every cell\n")
    _print(bt, "rating (Elo)")
    if what != "sides":
        return
    for side in ("Old One", "humans"):
        reference = f"{side}: {SEARCH}"
        rel, _ = ratings(lake, sides=True, reference=reference)
        print(f"\n{side} players minus `{SEARCH}` (the difference's bootstrap interval):\n")
        _print(rel.filter(pl.col("strategy").str.starts_with(f"{side}: ")), "minus search (Elo)")


def _print(bt: pl.DataFrame, what: str) -> None:
    print(f"| player | {what} | 95% interval | games |\n|---|---|---|---|")
    for r in bt.to_dicts():
        print(
            f"| {r['strategy']} | {r['rating']:+.0f} | [{r['ci_low']:+.0f}, {r['ci_high']:+.0f}]"
            f" | {r['games']} |"
        )


if __name__ == "__main__":
    main()
