"""How much a learn run's recorded search decisions can teach: the signal in the search's
values, and how well fits of growing capacity agree with its choices on held-out games.

    .venv/bin/python experiments/learn_signal.py RUN/gen1/decisions.parquet [RUN/gen2/...]

Reads ``simkit learn``'s decisions (either side) and prints one JSON object:

- ``decisions``, ``legal_mean``: rows, and legal choices per decision;
- ``all_lost``, ``all_won``: the shares of decisions where every choice lost every rollout
  (the best value below 0.01) or won every one (the worst above 0.99): only the VP margin
  (1e-3 a VP in the value) tells the choices apart there;
- ``gap_median``, ``gap_q90``: the best choice's lead over the second;
- ``gap_over_2se``: the share where that lead exceeds two standard errors of a difference of
  two win shares over ``--rollouts`` rollouts each (at least 0.1 x 0.9 per rollout);
- ``values``: ``win`` or ``margin`` (a run with ``--objective margin`` records VP margins,
  told apart by a value outside [-0.5, 1.5]); for margins the three shares above, which
  read the values as win shares, are null and the gaps are in VP;
- ``agree``: per model, the share of held-out decisions (one game in five, by game) where the
  model's best legal choice is the search's: ``random`` (a random legal choice), ``linear``
  (the ``advantage`` fitter of simkit.learn, what the learned player plays), ``logistic``,
  ``quadratic`` (ridge on every product of two standardised features, per choice) and
  ``trees`` (scikit-learn's HistGradientBoostingRegressor per choice, on the advantage);
- ``regret``: per model, the search's value its pick gives up against the search's best
  choice, held-out mean (win share, or VP for margins): a near miss costs little, so this
  weighs the disagreements that ``agree`` only counts.

If a richer fit agrees no better than the linear one, the model class is not what limits
the learned player on these decisions; the labels are. ``--without NAME,...`` leaves
features out (``features`` counts those fitted, the bias included): the same decisions
with and without a group of features measure what the group adds.
"""

from __future__ import annotations

import argparse
import json

import numpy as np
import polars as pl

from simkit.kernels.low import game_layout as L
from simkit.learn import FIT


def _side(frame: pl.DataFrame) -> tuple[tuple, tuple]:
    """(features, choices) of the side whose decisions these are."""
    if f"legal_{L.OOP_ACTION_NAMES[0]}" in frame.columns:
        return L.OOP_LEARN_FEATURES, L.OOP_ACTION_NAMES
    return L.LEARN_FEATURES, L.BOX_NAMES


def _per_choice(make, x, values, valued, mean, train) -> np.ndarray:
    """Scores: one regressor per choice on the advantage (value - legal mean)."""
    scores = np.full(values.shape, -10.0)
    for c in range(values.shape[1]):
        rows = valued[:, c] & train
        if rows.sum() >= 10:
            model = make().fit(x[rows], values[rows, c] - mean[rows])
            scores[:, c] = model.predict(x)
    return scores


def signal(paths: list[str], rollouts: int = 8, seed: int = 0, without: tuple = ()) -> dict:
    from sklearn.ensemble import HistGradientBoostingRegressor
    from sklearn.linear_model import Ridge
    from sklearn.preprocessing import PolynomialFeatures, StandardScaler

    # each file's games apart (every generation numbers its games from 0)
    frame = pl.concat(
        [pl.read_parquet(p).with_columns(file=pl.lit(i)) for i, p in enumerate(paths)],
        how="vertical",
    )
    features, choices = _side(frame)
    # the features the files hold (an earlier simkit recorded fewer), less those left out
    used = [n for n in features[1:] if f"f_{n}" in frame.columns and n not in without]
    x = frame.select([f"f_{n}" for n in used]).to_numpy()
    y = frame["chosen"].to_numpy()
    legal = frame.select([f"legal_{n}" for n in choices]).to_numpy()
    values = frame.select([f"value_{n}" for n in choices]).to_numpy()
    valued = legal & np.isfinite(values)
    masked = np.where(valued, values, np.nan)
    mean = np.nanmean(masked, axis=1)
    ranked = -np.sort(-np.where(valued, values, -np.inf), axis=1)
    top, gap = ranked[:, 0], ranked[:, 0] - ranked[:, 1]
    worst = np.nanmin(masked, axis=1)
    win_share = bool(np.all((masked[valued] > -0.5) & (masked[valued] < 1.5)))
    var = np.maximum(top * (1 - top), 0.09) / rollouts
    rng = np.random.default_rng(seed)
    # held out by game (a game's decisions are alike)
    game = frame["game"].to_numpy() + 1_000_000 * frame["file"].to_numpy()
    games = np.unique(game)
    held = np.isin(game, rng.choice(games, size=max(1, games.size // 5), replace=False))
    train = ~held

    def agree(scores: np.ndarray) -> float:
        pick = np.where(valued, scores, -np.inf).argmax(axis=1)
        return round(float((pick == y)[held].mean()), 4)

    def regret(scores: np.ndarray) -> float:
        """The search's value lost by the model's pick, held-out mean (win share or VP)."""
        pick = np.where(valued, scores, -np.inf).argmax(axis=1)
        lost = top - values[np.arange(len(pick)), pick]
        return round(float(lost[held].mean()), 4)

    full = np.column_stack([np.ones(len(x)), x])
    scaled = StandardScaler().fit(x[train]).transform(x)
    quad = PolynomialFeatures(2).fit_transform(scaled)
    fits = {
        "random": rng.random(values.shape),
        "linear": full
        @ FIT["advantage"].weights(x[train], y[train], legal[train], values[train]).T,
        "logistic": full
        @ FIT["logistic"].weights(x[train], y[train], legal[train], values[train]).T,
        "quadratic": _per_choice(lambda: Ridge(alpha=10.0), quad, values, valued, mean, train),
        "trees": _per_choice(
            lambda: HistGradientBoostingRegressor(max_iter=200, max_leaf_nodes=15, random_state=0),
            x,
            values,
            valued,
            mean,
            train,
        ),
    }

    def share(hit: np.ndarray) -> float | None:
        return round(float(hit.mean()), 4) if win_share else None

    return {
        "features": len(used) + 1,
        "values": "win" if win_share else "margin",
        "decisions": int(len(y)),
        "held_out": int(held.sum()),
        "legal_mean": round(float(valued.sum(axis=1).mean()), 2),
        "all_lost": share(top < 0.01),
        "all_won": share(worst > 0.99),
        "gap_median": round(float(np.median(gap)), 4),
        "gap_q90": round(float(np.quantile(gap, 0.9)), 4),
        "gap_over_2se": share(gap > 2 * np.sqrt(2 * var)),
        "agree": {name: agree(scores) for name, scores in fits.items()},
        "regret": {name: regret(scores) for name, scores in fits.items()},
    }


def main(argv: list[str] | None = None) -> dict:
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("decisions", nargs="+", help="a learn run's genK/decisions.parquet files")
    ap.add_argument("--rollouts", type=int, default=8, help="the recording search's rollouts")
    ap.add_argument("--seed", type=int, default=0, help="which games are held out")
    ap.add_argument(
        "--without", default="", help="features to leave out, comma-separated (their value)"
    )
    args = ap.parse_args(argv)
    without = tuple(n for n in args.without.split(",") if n)
    features = set(L.LEARN_FEATURES) | set(L.OOP_LEARN_FEATURES)
    for n in without:
        if n not in features:
            ap.error(f"--without: unknown feature {n!r}")
    out = signal(args.decisions, args.rollouts, args.seed, without)
    print(json.dumps(out))
    return out


if __name__ == "__main__":
    main()
