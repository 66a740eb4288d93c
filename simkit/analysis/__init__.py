"""Analysis of a result lake: small metric functions over polars lazy frames.

    >>> from simkit import analysis
    >>> lake = analysis.open_lake("results/combat_odds_grid")      # doctest: +SKIP
    >>> analysis.win_rates(lake.scan(), by=lake.grid_keys, metric=lake.key_metric)  # doctest: +SKIP

Every function takes a ``pl.LazyFrame`` (or DataFrame) of lake rows and returns a small
``pl.DataFrame`` (``pandas=True`` for a pandas one). Rates come with Wilson 95% intervals
(simkit.core.stats); paired differences use the rows two cells share by seed
(root_seed, chunk_id, game_index): common random numbers make them much tighter than
independent samples would be.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any

import numpy as np
import polars as pl

from simkit.analysis.lakes import _OPENED, Lake, open_lake, opened_lakes  # noqa: F401
from simkit.core.stats import ELO_POINTS, Z95, wilson_interval
from simkit.errors import UserError
from simkit.lake import (  # noqa: F401  (re-exported: simkit.analysis.X)
    Coverage,
    LakeError,
    LakeIndex,
    Manifest,
    coverage,
    scan,
    unified_schema,
)

PAIR_KEYS = ("root_seed", "chunk_id", "game_index")
LEVEL_ORDER = {"easy": 0, "normal": 1, "hard": 2, "heroic": 3}  # difficulty levels in play order
L_DIFFICULTIES = ("normal", "hard", "heroic")  # the Revenge levels (difficulty_steps)


def play_order(
    df: pl.DataFrame, keys: Sequence[str], orders: Mapping[str, Sequence[Any]] | None = None
) -> pl.DataFrame:
    """Rows sorted by ``keys``, difficulty levels in play order (normal, hard, heroic) rather
    than alphabetically; a key listed in ``orders`` in that order (e.g. a spec's grid order);
    other keys in their natural order."""
    keys = [k for k in keys if k in df.columns]
    orders = {k: {v: i for i, v in enumerate(vals)} for k, vals in (orders or {}).items()}
    rows = df.to_dicts()

    def key(r):
        return tuple(
            (LEVEL_ORDER.get(r[k], 9), str(r[k]))
            if k == "difficulty"
            else (orders[k].get(r[k], len(orders[k])), str(r[k]))
            if k in orders
            else (0, r[k])
            if r[k] is not None
            else (1, 0)
            for k in keys
        )

    rows.sort(key=key)
    return pl.DataFrame(rows, schema=df.schema) if rows else df


Frame = pl.LazyFrame | pl.DataFrame


def _lazy(frame: Frame) -> pl.LazyFrame:
    return frame.lazy() if isinstance(frame, pl.DataFrame) else frame


def _out(df: pl.DataFrame, pandas: bool):
    return df.to_pandas() if pandas else df


def _check_columns(frame: pl.LazyFrame, names: Sequence[str]) -> None:
    have = frame.collect_schema().names()
    for name in names:
        if name not in have:
            raise UserError(f"no column '{name}' in these rows (columns: {', '.join(have)})")


def _with_wilson(df: pl.DataFrame, games: str = "games", wins: str = "wins") -> pl.DataFrame:
    n = df[games].to_numpy().astype(np.float64)
    k = df[wins].to_numpy().astype(np.float64)
    lo, hi = wilson_interval(k, n)
    lo, hi = np.atleast_1d(lo), np.atleast_1d(hi)
    return df.with_columns(
        rate=pl.Series(np.divide(k, n, out=np.zeros_like(k), where=n > 0)),
        ci_low=pl.Series(lo),
        ci_high=pl.Series(hi),
        half_width=pl.Series((hi - lo) / 2),
    )


def win_rates(
    frame: Frame, by: Sequence[str] = ("cell",), metric: str = "win", pandas: bool = False
):
    """Rate of a 0/1 column per group, with Wilson 95% interval: games, wins, rate, ci_low,
    ci_high."""
    lf = _lazy(frame)
    by = list(by)
    _check_columns(lf, by + [metric])
    df = (
        lf.group_by(by)
        .agg(games=pl.len(), wins=pl.col(metric).cast(pl.Int64).sum())
        .sort(by)
        .collect()
    )
    return _out(_with_wilson(df), pandas)


def paired_difference(
    frame: Frame,
    baseline: Mapping[str, Any],
    metric: str = "win",
    within: Sequence[str] = (),
    by: Sequence[str] | None = None,
    pair_on: Sequence[str] = PAIR_KEYS,
    pandas: bool = False,
):
    """Each cell minus the baseline cell on the games they share by seed (common random numbers).

    ``baseline`` picks the reference rows by column values (e.g. {"units.artillery.cost": 3.0});
    ``within`` lists columns that must match too (e.g. ["vs"] to compare within each Old One).
    Columns: games (pairs), rate, baseline_rate, diff, ci_low, ci_high (normal 95% on the
    paired differences), independent_half_width (what two independent samples would give)
    and correlation between the paired outcomes.
    """
    lf = _lazy(frame)
    by = list(by) if by is not None else [k for k in ("cell",)]
    keys = list(pair_on) + list(within)
    _check_columns(lf, list(baseline) + keys + by + [metric])
    is_base = pl.lit(True)
    for name, value in baseline.items():
        is_base = is_base & (pl.col(name) == value)
    base = lf.filter(is_base).select(*keys, pl.col(metric).cast(pl.Float64).alias("_base"))
    dupes = (
        base.group_by(keys)
        .agg(pl.len().alias("n"))
        .filter(pl.col("n") > 1)
        .select(pl.len())
        .collect()
        .item()
    )
    if dupes:
        raise UserError(
            f"baseline {dict(baseline)} matches more than one row per {', '.join(keys)}: "
            f"add the other grid columns to 'within' or to the baseline"
        )
    if base.select(pl.len()).collect().item() == 0:
        raise UserError(f"baseline {dict(baseline)} matches no rows")
    other = lf.filter(~is_base).select(
        *set(by) | set(keys), pl.col(metric).cast(pl.Float64).alias("_x")
    )
    joined = other.join(base, on=keys, how="inner").with_columns(_d=pl.col("_x") - pl.col("_base"))
    df = (
        joined.group_by(by)
        .agg(
            games=pl.len(),
            rate=pl.col("_x").mean(),
            baseline_rate=pl.col("_base").mean(),
            diff=pl.col("_d").mean(),
            sd=pl.col("_d").std(),
            correlation=pl.corr("_x", "_base"),
        )
        .sort(by)
        .collect()
    )
    n = df["games"].to_numpy().astype(np.float64)
    half = Z95 * np.nan_to_num(df["sd"].to_numpy()) / np.sqrt(np.maximum(n, 1))
    p1, p0 = df["rate"].to_numpy(), df["baseline_rate"].to_numpy()
    indep = Z95 * np.sqrt((p1 * (1 - p1) + p0 * (1 - p0)) / np.maximum(n, 1))
    df = df.with_columns(
        ci_low=pl.Series(df["diff"].to_numpy() - half),
        ci_high=pl.Series(df["diff"].to_numpy() + half),
        half_width=pl.Series(half),
        independent_half_width=pl.Series(indep),
    ).drop("sd")
    return _out(df, pandas)


def per_strategy(
    frame: Frame,
    strategy: str | Sequence[str] = "strategy",
    metric: str = "win",
    by: Sequence[str] = (),
    pandas: bool = False,
):
    """Win rate per strategy (a seats table's 'strategy', or e.g. ('allocate', 'withdraw'))."""
    cols = [strategy] if isinstance(strategy, str) else list(strategy)
    return win_rates(frame, by=list(by) + cols, metric=metric, pandas=pandas)


def seat_strategies(frame: Frame) -> pl.LazyFrame:
    """A seats table whose ``strategy`` names each seat's player as it was listed: the token
    of the cell's ``strategies`` at the seat's ``listed`` index when it is more than a family
    name (``file:PATH``, ``balanced:withdraw=table-value``, ``search:rollouts=8``), so a tuned
    file and the plain heuristic of its family are two rows, not one ``balanced``."""
    lf = _lazy(frame)
    have = lf.collect_schema().names()
    if not {"strategies", "listed", "strategy"} <= set(have):
        return lf
    tokens = pl.col("strategies").cast(pl.String).str.split(",")
    token = tokens.list.get(pl.col("listed") % tokens.list.len(), null_on_oob=True)
    token = token.str.strip_chars()
    return lf.with_columns(
        strategy=pl.when(token.str.contains(":", literal=True))
        .then(token)
        .otherwise(pl.col("strategy").cast(pl.String))
    )


def per_seat(
    frame: Frame,
    seat: str = "seat",
    metric: str = "win",
    by: Sequence[str] = (),
    pandas: bool = False,
):
    """Win rate per seat position (first player advantage and the like)."""
    return win_rates(frame, by=list(by) + [seat], metric=metric, pandas=pandas)


def vp_by_source(
    frame: Frame, by: Sequence[str] = ("cell",), prefix: str = "vp_", pandas: bool = False
):
    """Mean VP per game from each source (columns named ``vp_<source>``), each mean's 95%
    half-width (``half_width_<source>``, normal approximation; ``half_width_total`` for the sum)
    and each source's share."""
    lf = _lazy(frame)
    by = list(by)
    total_col = f"{prefix}total"
    sources = [c for c in lf.collect_schema().names() if c.startswith(prefix) and c != total_col]
    if not sources:
        raise UserError(f"no '{prefix}*' columns in these rows")
    _check_columns(lf, by)
    row_total = pl.sum_horizontal([pl.col(c).cast(pl.Float64) for c in sources])
    df = (
        lf.group_by(by)
        .agg(
            pl.len().alias("games"),
            *[pl.col(c).cast(pl.Float64).mean().alias(c) for c in sources],
            *[pl.col(c).cast(pl.Float64).std().alias(f"_sd_{c}") for c in sources],
            row_total.std().alias("_sd_total"),
        )
        .sort(by)
        .collect()
    )
    total = sum(df[c] for c in sources)
    df = df.with_columns(total.alias(total_col))
    root_n = np.sqrt(np.maximum(df["games"].to_numpy().astype(np.float64), 1))
    df = df.with_columns(
        *[
            pl.Series(
                f"half_width_{c[len(prefix) :]}",
                Z95 * np.nan_to_num(df[f"_sd_{c}"].to_numpy()) / root_n,
            )
            for c in sources
        ],
        pl.Series("half_width_total", Z95 * np.nan_to_num(df["_sd_total"].to_numpy()) / root_n),
    )
    df = df.drop([f"_sd_{c}" for c in sources] + ["_sd_total"])
    df = df.with_columns(
        *[
            pl.when(pl.col(total_col) > 0)
            .then(pl.col(c) / pl.col(total_col))
            .otherwise(0.0)
            .alias(f"share_{c[len(prefix) :]}")
            for c in sources
        ]
    )
    return _out(df, pandas)


QUANTILES = (0.1, 0.25, 0.5, 0.75, 0.9)

# Where each side's VP come from, as columns of the summary table (Revenge: the Old One
# player's on-map tiles, blighted farms, eliminated units and Outposts, Ports destroyed;
# base/solo: revealed tiles, unrevealed tiles doubled, blighted farms).
OOP_SOURCES = {
    "vp_on_map": pl.col("oo_vp_revealed"),
    "vp_blighted": pl.col("oo_vp_blighted"),
    "vp_units": pl.col("oop_vp_units"),
    "vp_ports": pl.col("oop_vp_tokens") - pl.col("oop_vp_units"),
}
OLD_ONES_SOURCES = {
    "vp_revealed": pl.col("oo_vp_revealed"),
    "vp_unrevealed": pl.col("oo_vp_unrevealed"),
    "vp_blighted": pl.col("oo_vp_blighted"),
}


def old_ones_vp_sources(frame: Frame) -> pl.LazyFrame:
    """The summary rows with the Old Ones' VP split by source as ``vp_<source>`` columns and
    ``vp_total`` (= oo_vp). Revenge lakes (an Old One player) get on_map, blighted, units and
    ports; base and solo lakes get revealed, unrevealed (doubled) and blighted."""
    lf = _lazy(frame)
    have = lf.collect_schema().names()
    sources = OOP_SOURCES if "oop_vp_tokens" in have else OLD_ONES_SOURCES
    _check_columns(
        lf, ["oo_vp"] + sorted({c for e in sources.values() for c in e.meta.root_names()})
    )
    return lf.with_columns(
        *[e.cast(pl.Int64).alias(k) for k, e in sources.items()],
        vp_total=pl.col("oo_vp").cast(pl.Int64),
    )


def human_vp_sources(seats: Frame) -> pl.LazyFrame:
    """A seats table with ``vp_total`` (each human's own VP; the sources are its ``vp_*``)."""
    lf = _lazy(seats)
    _check_columns(lf, ["vp"])
    return lf.with_columns(vp_total=pl.col("vp").cast(pl.Int64))


def vp_quantiles(
    frame: Frame,
    by: Sequence[str] = ("cell",),
    prefix: str = "vp_",
    quantiles: Sequence[float] = QUANTILES,
    pandas: bool = False,
):
    """The distribution of VP per game from each source (``vp_<source>`` columns, ``vp_total``
    included): one row per (group, source) with games, mean, share of games scoring any, and
    the requested quantiles (``q10``, ``q50``, ...; nearest observed value, so whole VP), with
    ``mean_half_width`` (95%, normal) and ``scoring_ci_low``/``scoring_ci_high`` (Wilson 95%)."""
    lf = _lazy(frame)
    by = list(by)
    sources = [c for c in lf.collect_schema().names() if c.startswith(prefix)]
    if not sources:
        raise UserError(f"no '{prefix}*' columns in these rows")
    _check_columns(lf, by)
    for q in quantiles:
        if not 0 <= q <= 1:
            raise UserError(f"quantile {q} is not between 0 and 1")
    long = lf.select(*by, *[pl.col(c).cast(pl.Float64) for c in sources]).unpivot(
        index=by, on=sources, variable_name="source", value_name="vp"
    )
    aggs = [
        pl.len().alias("games"),
        pl.col("vp").mean().alias("mean"),
        pl.col("vp").std().alias("_sd"),
        (pl.col("vp") > 0).sum().alias("_scoring_n"),
        (pl.col("vp") > 0).mean().alias("scoring"),
    ]
    aggs += [
        pl.col("vp").quantile(q, interpolation="nearest").alias(f"q{round(q * 100)}")
        for q in quantiles
    ]
    df = (
        long.group_by([*by, "source"])
        .agg(aggs)
        .with_columns(pl.col("source").str.strip_prefix(prefix))
        .collect()
    )
    n = df["games"].to_numpy().astype(np.float64)
    lo, hi = wilson_interval(df["_scoring_n"].to_numpy().astype(np.float64), n)
    df = df.with_columns(
        mean_half_width=pl.Series(
            Z95 * np.nan_to_num(df["_sd"].to_numpy()) / np.sqrt(np.maximum(n, 1))
        ),
        scoring_ci_low=pl.Series(np.atleast_1d(lo)),
        scoring_ci_high=pl.Series(np.atleast_1d(hi)),
    ).drop("_sd", "_scoring_n")
    order = {s[len(prefix) :]: i for i, s in enumerate(sources)}
    rows = sorted(df.to_dicts(), key=lambda r: (tuple(r[k] for k in by), order[r["source"]]))
    return _out(pl.DataFrame(rows, schema=df.schema) if rows else df, pandas)


def _piece_rates(frame: Frame, flag: str, by: Sequence[str], pandas: bool):
    lf = _lazy(frame)
    by = list(by)
    _check_columns(lf, by + ["hex", flag])
    return win_rates(lf, by=[*by, "hex"], metric=flag, pandas=pandas)


def port_loss_by_site(ports: Frame, by: Sequence[str] = (), pandas: bool = False):
    """Share of Ports placed on each site (printed hex number) that fell, with Wilson 95%
    intervals: a lake's ``ports`` table; columns by..., hex, games (Ports placed), wins (lost),
    rate, ci_low, ci_high."""
    return _piece_rates(ports, "lost", by, pandas)


def blight_by_hex(farms: Frame, by: Sequence[str] = (), pandas: bool = False):
    """Share of farms placed on each hex that were blighted, with Wilson 95% intervals: a
    lake's ``farms`` table; columns by..., hex, games (farms placed), wins (blighted), rate, ..."""
    return _piece_rates(farms, "blighted", by, pandas)


def difficulty_steps(
    frame: Frame,
    by: Sequence[str] = ("strategies", "oop", "humans"),
    metric: str = "old_ones_win",
    pandas: bool = False,
):
    """Is Normal < Hard < Heroic for each group (e.g. each rung of skill x Old One player)?

    One row per group: the rate at each difficulty with Wilson 95% intervals, the paired
    steps normal->hard and hard->heroic (games shared by seed: common random numbers) with
    normal 95% intervals, and ``ordered``: both steps' intervals lie above 0.
    """
    lf = _lazy(frame)
    by = list(by)
    _check_columns(lf, by + ["difficulty", metric, *PAIR_KEYS])
    rates = win_rates(lf, by=by + ["difficulty"], metric=metric)
    out = None
    for level in L_DIFFICULTIES:
        part = rates.filter(pl.col("difficulty") == level).select(
            *by,
            pl.col("rate").alias(level),
            pl.col("ci_low").alias(f"{level}_lo"),
            pl.col("ci_high").alias(f"{level}_hi"),
        )
        out = part if out is None else out.join(part, on=by, how="full", coalesce=True)
    for lo_level, hi_level in zip(L_DIFFICULTIES, L_DIFFICULTIES[1:], strict=False):
        step = paired_difference(
            lf.filter(pl.col("difficulty").is_in([lo_level, hi_level])),
            {"difficulty": lo_level},
            metric=metric,
            within=by,
            by=by,
        )
        name = f"{lo_level}_to_{hi_level}"
        out = out.join(
            step.select(
                *by,
                pl.col("diff").alias(name),
                pl.col("ci_low").alias(f"{name}_lo"),
                pl.col("ci_high").alias(f"{name}_hi"),
            ),
            on=by,
            how="left",
        )
    out = out.with_columns(
        ordered=(pl.col("normal_to_hard_lo") > 0) & (pl.col("hard_to_heroic_lo") > 0)
    ).sort(by)
    return _out(out, pandas)


# a Bradley-Terry log-strength in each scale's units (Elo: odds 10**(diff / 400))
BT_SCALES = {"log": 1.0, "elo": ELO_POINTS}


def bradley_terry(
    seats: Frame,
    summary: Frame,
    strategies: str = "strategies",
    resamples: int = 200,
    seed: int = 0,
    pandas: bool = False,
    scale: str = "log",
):
    """Bradley-Terry ratings of the strategies of a 2-seat round robin (choix), from who
    outscored whom in each game (equal VP: no comparison), with bootstrap 95% intervals
    over games. ``strategies`` is the summary column naming the seats' specs
    (comma-joined in listed order), so two specs of one strategy family stay apart.
    ``scale``: "log" (log-strength) or "elo" (Elo points: 400 apart is 10 to 1 odds).
    Columns: strategy, rating (mean zero), ci_low, ci_high, games."""
    s = _lazy(seats).select(*PAIR_KEYS, "cell", "listed", "vp").collect()
    names = _lazy(summary).select(*PAIR_KEYS, "cell", strategies).collect()
    df = s.join(names, on=[*PAIR_KEYS, "cell"], how="inner").with_columns(
        spec=pl.col(strategies).str.split(",").list.get(pl.col("listed"))
    )
    wide = df.pivot(
        on="listed", index=[*PAIR_KEYS, "cell"], values=["spec", "vp"], aggregate_function="first"
    )
    a_spec, b_spec = wide["spec_0"].to_list(), wide["spec_1"].to_list()
    a_vp, b_vp = wide["vp_0"].to_numpy(), wide["vp_1"].to_numpy()
    labels = sorted(set(a_spec) | set(b_spec))
    index = {n: i for i, n in enumerate(labels)}
    ia = np.array([index[x] for x in a_spec])
    ib = np.array([index[x] for x in b_spec])
    keep = a_vp != b_vp
    winner = np.where(a_vp > b_vp, ia, ib)[keep]
    loser = np.where(a_vp > b_vp, ib, ia)[keep]
    games = np.bincount(np.concatenate([ia, ib]), minlength=len(labels))
    return _bt_table(labels, winner, loser, games, resamples, seed, scale, pandas)


def bradley_terry_sides(
    summary: Frame,
    resamples: int = 200,
    seed: int = 0,
    pandas: bool = False,
    scale: str = "log",
    reference: str | None = None,
):
    """Bradley-Terry ratings of Revenge's two sides on one scale (choix): every game is a
    comparison of its Old One player (``oop``) with its human table (``strategies``), won
    by the Old One player when the Old Ones win (``old_ones_win``), else by the humans.
    The labels are "Old One: <spec>" and "humans: <specs>". A difference within a side is
    the two players' strength against the same opponents; across sides, the win odds of
    that Old One player against that table. ``reference`` (a label): every rating and its
    interval minus that player's in the same fit and resample (the difference's own
    interval). Columns as ``bradley_terry``'s."""
    df = _lazy(summary).select("oop", "strategies", "old_ones_win").collect()
    oop = ("Old One: " + df["oop"]).to_list()
    hum = ("humans: " + df["strategies"]).to_list()
    labels = sorted(set(oop) | set(hum))
    index = {n: i for i, n in enumerate(labels)}
    io = np.array([index[x] for x in oop])
    ih = np.array([index[x] for x in hum])
    won = df["old_ones_win"].to_numpy() > 0
    winner, loser = np.where(won, io, ih), np.where(won, ih, io)
    games = np.bincount(np.concatenate([io, ih]), minlength=len(labels))
    if reference is not None and reference not in index:
        raise UserError(f"bradley_terry_sides: reference '{reference}' is not a player here")
    ref = None if reference is None else index[reference]
    return _bt_table(labels, winner, loser, games, resamples, seed, scale, pandas, ref)


def _bt_table(labels, winner, loser, games, resamples, seed, scale, pandas, ref=None):
    """Fit the comparisons (winner[i] beat loser[i], indices into labels) and bootstrap
    them over games: the rating table of bradley_terry and bradley_terry_sides. Ratings
    have mean zero, or (``ref``, an index) are differences from that player's."""
    if scale not in BT_SCALES:
        raise UserError(f"bradley_terry: scale '{scale}' (expected one of: {', '.join(BT_SCALES)})")
    import choix

    def fit(w, lo):
        est = choix.ilsr_pairwise(
            len(labels), list(zip(w.tolist(), lo.tolist(), strict=True)), alpha=0.01
        )
        return est - (est.mean() if ref is None else est[ref])

    point = fit(winner, loser)
    rng = np.random.default_rng(seed)
    boots = np.array(
        [
            fit(winner[k], loser[k])
            for k in (rng.integers(0, winner.size, winner.size) for _ in range(resamples))
        ]
    )
    lo, hi = np.percentile(boots, [2.5, 97.5], axis=0)
    k = BT_SCALES[scale]
    out = pl.DataFrame(
        {
            "strategy": labels,
            "rating": k * point,
            "ci_low": k * lo,
            "ci_high": k * hi,
            "games": games,
        }
    )
    return _out(out.sort("rating", descending=True), pandas)
