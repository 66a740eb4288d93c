"""Expert iteration (``simkit learn``): distil the search player into a learned player the
jitted engine plays at heuristic speed, then search again with the learned player as the
rollout policy, and so on. ``side`` names the seat learned: ``human`` (the default; the
learned player strategies.human.learned, every human seat searches) or ``oop`` (Revenge:
the learned Old One player strategies.old_ones.learned; the Old One seat searches its
action, the humans play the fixed strategy ``humans``). The steps below say "box" for a
human's action box; for the Old One player read its action (Place, Reveal, Move, Summon).

One generation k = 1, 2, ...:

1. **record**: ``games`` games in which every searching seat is ``search`` (``rollouts`` per
   legal box, public opponent model: the other side by the search's default, or by
   ``opponent_model`` when it names one, which makes the search a best response to that
   player; ``objective``, win share by default) with rollout policy generation k-1 (the
   first policy, ``first_policy`` or ``balanced``, for the Old One player ``rusher``, for
   k = 1); with a ``mixture`` of opponents each game draws the player the learned side
   faces by weight (``opponent_model`` ``faced``: the search models that game's player, a
   labelled best response to the mixture); every decision with a choice is a row of
   ``genK/decisions.parquet``: the turn's features (game_layout.LEARN_FEATURES or
   OOP_LEARN_FEATURES), which boxes were legal, the search's mean result for each legal
   box, the box it took and the player faced (its index in the mixture); with
   ``rollout_policy`` "best" the rollout policy is instead the best generation so far
   that beats the first policy on the held-out games (gating: a generation rated weaker
   never rolls out the next search's labels); with ``roll_in`` P > 0 and a learned rollout
   policy, at a share P of the recorded decisions the game goes on with that policy's own
   pick (DAgger's roll-in: the states the learned player reaches, labelled by the search;
   column ``played``);
2. **fit**, on every generation's decisions so far, one of two ``fitter``s (scikit-learn):
   ``logistic`` (the default), multinomial logistic regression from the features to the box
   the search took, each decision weighted by how far the search preferred that box over
   the legal average (near-ties teach little); or ``advantage``, one ridge regression per
   box from the features to the search's *advantage* for that box (its mean result minus
   the legal boxes' mean), fitted on the decisions where the box was legal, so the
   learned score ranks boxes by how much the search gained from each, not only by which
   one won. With ``candidates`` > 1 the fit is chosen by play: the fit on every
   training row and ``candidates`` - 1 fits on bootstrap resamples of its games each play
   ``select_games`` selection games (their own root seed), and the best for its side is
   kept (a linear fit's play swings with its sample far more than its loss does,
   docs/strong-play.md); with ``incumbent`` the previous generation's player is a
   candidate too, so a generation that plays worse on its selection games is never kept
   (gating by play). The coefficients are the learned player's box weights, written to
   ``genK.toml`` (played as
   ``learned:DIR/genK.toml``), with the fit's agreement with the search on held-out
   decisions (illegal boxes masked, as in play);
3. **rate**: ``rate_games`` games on held-out seeds (another root seed than any recording)
   with the learned seats generation k, against the same games with them generation k-1
   and the rollout policy of generation 1: the Old Ones' win rate of each and the paired
   difference (shared seeds) with its 95% interval (learned humans: lower is better;
   a learned Old One player: higher is better); against a ``mixture``, each of its players
   on the same held-out games, the rates and differences weighted by the mixture.

Every step writes its file atomically and a rerun skips what is written (resumable); the
seeds of every game come from ``seed`` and the generation (reproducible).
"""

from __future__ import annotations

import json
import math
import os
from collections.abc import Callable
from dataclasses import asdict, dataclass, fields
from pathlib import Path

import numpy as np

from simkit.errors import UserError
from simkit.kernels.low import game_layout as L

RATE_ROOT_OFFSET = 1_000_003  # held-out seeds: a root seed no recording uses
# selection seeds (--candidates): a root no recording uses, nor the rating of any seed below
# 1,000,026 (seed s selects on s + 2,000,029, which is seed s + 1,000,026's rating root)
SELECT_ROOT_OFFSET = 2_000_029
SIDES = ("human", "oop")
FACED = "faced"  # opponent_model: the player each recorded game drew from the mixture
ROLLOUT_POLICIES = ("last", "best")  # LearnSettings.rollout_policy
MIXTURE_FORMAT = "simkit-mixture/1"


@dataclass(frozen=True)
class Side:
    """What one side's learned player is made of (``LearnSettings.side``)."""

    features: tuple  # the feature names, in the kernel's order
    choices: tuple  # the scored choices' names (action boxes / Old One actions)
    choices_field: str  # the weights file's field listing them
    file_format: str
    first_policy: str  # generation 0: the first rollout policy, and the file's base
    what: str  # the weights file's first line names it


def side_of(name: str) -> Side:
    from strategies.files import LEARNED_FORMAT, LEARNED_OOP_FORMAT

    if name == "oop":
        return Side(
            L.OOP_LEARN_FEATURES,
            L.OOP_ACTION_NAMES,
            "actions",
            LEARNED_OOP_FORMAT,
            "rusher",
            "A learned Old One player (simkit learn --side oop); play it as --oop learned:PATH.",
        )
    return Side(
        L.LEARN_FEATURES,
        L.BOX_NAMES,
        "boxes",
        LEARNED_FORMAT,
        "balanced",
        "A learned human player (simkit learn); play it as learned:PATH.",
    )


@dataclass(frozen=True)
class LearnSettings:
    mode: str = "base"
    players: int = 2  # base: seats; revenge: humans
    difficulty: str | None = None
    oop: str = "rusher"  # side human, revenge: the Old One player the humans face
    generations: int = 2
    games: int = 40
    rollouts: int = 4
    rate_games: int = 400
    seed: int = 1
    first_policy: str = ""  # "": the side's (balanced; rusher for the Old One player)
    side: str = "human"  # the seat learned (SIDES)
    humans: str = "balanced"  # side oop: the fixed strategy of every human seat
    fitter: str = "logistic"  # a key of FIT; a run folder made before the option is logistic
    # the recorded search's public model of the other side (revenge): the humans' search's
    # oop_model, the Old One search's opponents; "": the search's default (rusher, balanced).
    # Naming the opponent the learned side faces makes the search a best response to it
    # (alternating best response), which its spec and the file's command say.
    opponent_model: str = ""
    # the recorded search's objective (strategies.search.OBJECTIVES): win (the default: win
    # share, the VP margin breaking ties) or margin (the VP margin over the best rival)
    objective: str = "win"
    # the players the learned side faces, each recorded game drawing one by weight: a JSON
    # list of [spec, weight] (weights summing to 1; read_mixture writes it). "": the one
    # player oop (side human) or humans (side oop).
    mixture: str = ""
    # which generation the next search rolls out with: "last" (generation k-1) or "best"
    # (the best generation so far whose rating beats the first policy's, interval apart;
    # else the first policy): gating, so a weaker generation's rollouts never label the next
    rollout_policy: str = "last"
    # DAgger's roll-in: the share of the learned side's recorded decisions at which the game
    # goes on with the rollout policy's own pick (when it is a learned file) instead of the
    # search's, so the recorded states include those the learned player reaches; the label
    # is the search's value of every legal choice either way. 0: the search plays them all
    roll_in: float = 0.0
    # the advantage fitter's ridge penalty: 1 (nearly least squares, as files made before the
    # option) lets a fit's play swing with the sample; ~1e4 (on ~1e4 decisions of VP-margin
    # values) keeps it steady (docs/strong-play.md, "What stops the learner")
    ridge_alpha: float = 1.0
    # choose the fit by play: fit ``candidates`` weight sets on the same labels (the fit on
    # every training row and bootstrap resamples of the training games), play each on
    # ``select_games`` selection games (root seed + SELECT_ROOT_OFFSET, not the rating
    # games) and keep the one whose side does best. 1: the one fit, as before the option
    candidates: int = 1
    select_games: int = 1000
    # keep the incumbent: from generation 2 on the previous generation's player is one more
    # candidate, and generation k selects on its own games (k-1)N .. kN-1 of the selection
    # root: the incumbent was not chosen on them, so its rate there carries no winner's curse
    incumbent: bool = False

    @property
    def first(self) -> str:
        """The first rollout policy (generation 0)."""
        return self.first_policy or side_of(self.side).first_policy

    def check(self) -> None:
        """Every setting, and every strategy it names (one line now, not mid-run)."""
        from strategies.old_ones import parse_oop
        from strategies.registry import parse_one
        from strategies.search import OBJECTIVES

        if self.mode not in ("base", "revenge"):
            raise UserError(f"learn: --mode must be base or revenge, got '{self.mode}'")
        if self.side not in SIDES:
            raise UserError(f"learn: --side must be human or oop, got '{self.side}'")
        if self.fitter not in FIT:
            raise UserError(f"learn: --fitter must be {' or '.join(FIT)}, got '{self.fitter}'")
        if self.side == "oop" and self.mode != "revenge":
            raise UserError("learn: --side oop learns the Old One player of --mode revenge")
        if self.rollout_policy not in ROLLOUT_POLICIES:
            raise UserError(
                f"learn: --rollout-policy must be {' or '.join(ROLLOUT_POLICIES)}, "
                f"got '{self.rollout_policy}'"
            )
        if not self.ridge_alpha > 0:
            raise UserError(f"learn: --ridge-alpha must be > 0, got {self.ridge_alpha}")
        if not 0.0 <= self.roll_in <= 1.0:
            raise UserError(f"learn: --roll-in must be between 0 and 1, got {self.roll_in}")
        if self.objective not in OBJECTIVES:
            raise UserError(
                f"learn: --objective must be {' or '.join(OBJECTIVES)}, got '{self.objective}'"
            )
        if (self.opponent_model or self.mixture) and self.mode != "revenge":
            what = "--opponent-model models" if self.opponent_model else "--opponent-mixture is"
            raise UserError(f"learn: {what} the other side of --mode revenge")
        numbers = (
            ("generations", 1),
            ("games", 1),
            ("rollouts", 1),
            ("rate_games", 2),
            ("candidates", 1),
            ("select_games", 1),
        )
        for name, low in numbers:
            value = getattr(self, name)
            if not isinstance(value, int) or value < low:
                raise UserError(f"learn: --{name.replace('_', '-')} must be >= {low}, got {value}")
        if self.seed < 0:
            raise UserError(f"learn: --seed must be >= 0, got {self.seed}")
        learned, other = (parse_oop, parse_one) if self.side == "oop" else (parse_one, parse_oop)
        model = "" if self.opponent_model == FACED else self.opponent_model
        named = [(self.first_policy, learned), (model, other)]
        if self.mode == "revenge":
            named += [(spec, other) for spec, _ in opponents(self)]
        for spec, parse in named:
            if spec:
                parse(spec)


def opponents(settings: LearnSettings) -> list[tuple[str, float]]:
    """The players the learned side faces and their weights: the mixture's, else the one
    player ``oop`` (side human) or ``humans`` (side oop) at weight 1."""
    if settings.mixture:
        return [(str(spec), float(w)) for spec, w in json.loads(settings.mixture)]
    return [(settings.humans if settings.side == "oop" else settings.oop, 1.0)]


def read_mixture(path: Path, side: str = "human") -> str:
    """A mixture file (``[[player]]`` tables of ``spec`` and ``weight``; the weights are
    scaled to sum to 1) of the players the learned ``side`` faces, as
    ``LearnSettings.mixture``; a bad file is one line naming the file and the field."""
    import tomllib

    from strategies.old_ones import parse_oop
    from strategies.registry import parse_one

    try:
        data = tomllib.loads(path.read_text())
    except FileNotFoundError:
        raise UserError(f"{path}: no such mixture file") from None
    except (OSError, UnicodeDecodeError, tomllib.TOMLDecodeError) as exc:
        raise UserError(f"{path}: not a readable TOML file ({exc})") from None
    if data.get("format") != MIXTURE_FORMAT:
        raise UserError(f'{path}: format: expected "{MIXTURE_FORMAT}"')
    players = data.get("player")
    if not isinstance(players, list) or not players:
        raise UserError(f"{path}: player: expected [[player]] tables (spec, weight)")
    out = []
    for i, p in enumerate(players, start=1):
        if not isinstance(p, dict):
            raise UserError(f"{path}: player {i}: expected a [[player]] table (spec, weight)")
        spec, weight = p.get("spec"), p.get("weight")
        if not isinstance(spec, str) or not spec.strip():
            raise UserError(f"{path}: player {i}: spec: expected a strategy spec")
        try:
            (parse_one if side == "oop" else parse_oop)(spec.strip())
        except UserError as exc:
            raise UserError(f"{path}: player {i}: spec: {exc}") from None
        ok = isinstance(weight, int | float) and not isinstance(weight, bool)
        if not ok or not math.isfinite(weight) or weight <= 0:
            raise UserError(f"{path}: player {i}: weight: expected a number > 0, got {weight!r}")
        out.append([spec.strip(), float(weight)])
    total = sum(w for _, w in out)
    return json.dumps([[spec, round(w / total, 6)] for spec, w in out])


def mixture_text(players: list[tuple[str, float]], comment: str = "") -> str:
    """A mixture file of ``players`` (spec, weight), read back by ``read_mixture``."""
    lines = [f"# {comment}"] if comment else []
    lines.append(f'format = "{MIXTURE_FORMAT}"')
    for spec, weight in players:
        lines += ["", "[[player]]", f"spec = {json.dumps(spec)}", f"weight = {weight:.6g}"]
    return "\n".join(lines) + "\n"


def _spec(settings: LearnSettings, strategy: str, opponent: str | None = None):
    """The game with ``strategy`` in the learned side's seats (every human, or the Old One
    player) facing ``opponent`` (default: the first of ``opponents``)."""
    from simkit.game.engine import make_spec

    kw = {}
    humans = strategy
    if settings.mode == "revenge":
        opponent = opponent or opponents(settings)[0][0]
        kw = {"difficulty": settings.difficulty or "normal", "oop": opponent}
        if settings.side == "oop":
            humans, kw["oop"] = opponent, strategy
    return make_spec(settings.mode, settings.players, [humans] * settings.players, **kw)


def policy_spec(out: Path, generation: int, settings: LearnSettings) -> str:
    """The strategy spec of generation ``generation`` (0: the first rollout policy)."""
    if generation == 0:
        return settings.first
    return f"learned:{out / f'gen{generation}.toml'}"


def better_than_first(rating: dict, side: str) -> float | None:
    """How much a generation's rating beats the first policy's (the Old Ones' win rate
    lower for humans, higher for the Old One player), or None when the paired interval
    does not lie wholly on the better side."""
    first = next(a for a in rating["against"] if a["generation"] == 0)
    if side == "human":
        return -first["diff"] if first["ci_high"] < 0 else None
    return first["diff"] if first["ci_low"] > 0 else None


def rollout_generation(out: Path, generation: int, settings: LearnSettings) -> int:
    """The generation whose player the search recording ``generation`` rolls out with:
    k-1, or with ``rollout_policy`` "best" the generation before k that beats the first
    policy by the most (interval apart; every rating plays the same held-out games), else 0."""
    if settings.rollout_policy == "last" or generation <= 1:
        return generation - 1
    best, margin = 0, 0.0
    for k in range(1, generation):
        gain = better_than_first(
            json.loads((out / f"gen{k}" / "rating.json").read_text()), settings.side
        )
        if gain is not None and gain > margin:
            best, margin = k, gain
    return best


def search_spec(
    out: Path, generation: int, settings: LearnSettings, faced: str | None = None
) -> str:
    """The search that records generation ``generation``: rollout policy generation k-1 (or
    the best so far, ``rollout_generation``), and the other side modelled by
    ``settings.opponent_model`` when it names one; when that is FACED, by ``faced``, the
    player the game drew (without one the spec says 'faced')."""
    policy = policy_spec(out, rollout_generation(out, generation, settings), settings)
    spec = f"search:rollouts={settings.rollouts}:policy={policy}"
    if settings.objective != "win":
        spec += f":objective={settings.objective}"
    if settings.opponent_model:
        key = "opponents" if settings.side == "oop" else "oop_model"
        model = settings.opponent_model
        spec += f":{key}={(faced or FACED) if model == FACED else model}"
    return spec


def drawn_opponents(settings: LearnSettings, generation: int) -> np.ndarray:
    """The index into ``opponents`` of the player each recorded game of ``generation``
    faces: drawn by weight from (seed, generation) alone (all 0 for one player)."""
    weights = np.array([w for _, w in opponents(settings)])
    rng = np.random.default_rng([settings.seed, generation, 11])
    return rng.choice(len(weights), size=settings.games, p=weights / weights.sum())


def _atomic_write(path: Path, write) -> None:
    tmp = path.with_name(f".{path.name}.tmp-{os.getpid()}")
    try:
        write(tmp)
        os.replace(tmp, path)
    finally:
        tmp.unlink(missing_ok=True)


def roll_in_weights(settings: LearnSettings, out: Path, generation: int) -> np.ndarray | None:
    """The (choices x features) weights of the learned rollout policy that plays
    ``roll_in`` of the recorded decisions, or None: no roll-in, or a rollout policy that is
    not a learned file (a heuristic first policy: the search plays every decision)."""
    spec = policy_spec(out, rollout_generation(out, generation, settings), settings)
    if settings.roll_in <= 0 or not spec.startswith("learned:"):
        return None
    return player_weights(settings, spec)


def player_weights(settings: LearnSettings, spec: str) -> np.ndarray:
    """The (choices x (1 + features)) weights of the learned side's player ``spec`` (a
    ``learned:PATH`` file), over every feature of this engine."""
    from strategies.old_ones import parse_oop
    from strategies.registry import parse_one

    side = side_of(settings.side)
    player = (parse_oop if settings.side == "oop" else parse_one)(spec)
    return np.asarray(player.weights, dtype=float).reshape(len(side.choices), -1)


def record(settings: LearnSettings, out: Path, generation: int, progress=None) -> Path:
    """Step 1 of a generation: the search's decisions as Parquet rows."""
    import polars as pl

    from simkit.game.engine import Engine
    from simkit.game.search import Lookahead
    from simkit.kernels.game_loop import OLD_ONES
    from simkit.kernels.game_search import oop_turn_features
    from strategies.human.learned import turn_features

    side = side_of(settings.side)
    path = out / f"gen{generation}" / "decisions.parquet"
    if path.exists():
        return path
    path.parent.mkdir(parents=True, exist_ok=True)
    specs = [
        _spec(settings, search_spec(out, generation, settings, faced=them), them)
        for them, _ in opponents(settings)
    ]
    drawn = drawn_opponents(settings, generation)
    eng = Engine()
    feats = np.zeros(len(side.features))
    rows: dict[str, list] = {"game": [], "seat": [], "chosen": [], "played": [], "opponent": []}
    feat_rows, legal_rows, value_rows = [], [], []
    game_no = 0
    n_choices = len(side.choices)

    def recorder(engine, p, boxes, scores, box):
        if (p == OLD_ONES) != (settings.side == "oop"):
            return  # a searching seat of the other side
        if p == OLD_ONES:
            oop_turn_features(engine.S, engine.X, engine.W, feats)
        else:
            turn_features(engine.S, engine.X, engine.W, p, feats)
        legal = np.zeros(n_choices, dtype=bool)
        legal[boxes] = True
        values = np.full(n_choices, np.nan)
        values[boxes] = scores
        feat_rows.append(feats.copy())
        legal_rows.append(legal)
        value_rows.append(values)
        rows["game"].append(game_no)
        rows["seat"].append(p)
        rows["chosen"].append(int(box))
        rows["played"].append(int(box))  # roll_in replaces it when the learned pick plays
        rows["opponent"].append(int(drawn[game_no]))

    eng.lookahead = Lookahead(eng)  # play_searched keeps an engine's look-ahead buffers
    eng.lookahead.recorder = recorder
    roll_weights = roll_in_weights(settings, out, generation)
    draws = np.random.default_rng(0)  # replaced per game: (seed, generation, game, 13)

    def roll_in(engine, p, choices, chosen):
        if (p == OLD_ONES) != (settings.side == "oop") or draws.random() >= settings.roll_in:
            return chosen
        if p == OLD_ONES:
            oop_turn_features(engine.S, engine.X, engine.W, feats)
        else:
            turn_features(engine.S, engine.X, engine.W, p, feats)
        played = int(choices[np.argmax(roll_weights[choices] @ feats)])  # first best, as jitted
        rows["played"][-1] = played
        return played

    if roll_weights is not None:
        eng.lookahead.roll_in = roll_in
    for game_no in range(settings.games):
        draws = np.random.default_rng([settings.seed, generation, game_no, 13])
        eng.play((settings.seed, generation, game_no), specs[drawn[game_no]])
        if progress is not None:
            progress(1)
    frame = pl.DataFrame(
        {
            **rows,
            **{f"f_{n}": [r[i] for r in feat_rows] for i, n in enumerate(side.features)},
            **{f"legal_{n}": [r[i] for r in legal_rows] for i, n in enumerate(side.choices)},
            **{f"value_{n}": [r[i] for r in value_rows] for i, n in enumerate(side.choices)},
        }
    )
    _atomic_write(path, lambda tmp: frame.write_parquet(tmp))
    return path


def fit(settings: LearnSettings, out: Path, generation: int) -> Path:
    """Step 2: the box weights from the search's decisions (``settings.fitter``; with
    ``settings.candidates`` > 1, the candidate fit that plays best, ``select_by_play``)."""
    import polars as pl

    path = out / f"gen{generation}.toml"
    if path.exists():
        return path
    side = side_of(settings.side)
    frames = [
        pl.read_parquet(out / f"gen{k}" / "decisions.parquet") for k in range(1, generation + 1)
    ]
    wanted = [f"f_{n}" for n in side.features[1:]]
    used = [
        "game",
        "chosen",
        *wanted,
        *(f"{k}_{n}" for k in ("legal", "value") for n in side.choices),
    ]
    for k, frame in enumerate(frames, start=1):
        missing = next((c for c in wanted if c not in frame.columns), None)
        if missing:
            raise UserError(
                f"{out / f'gen{k}' / 'decisions.parquet'}: no column '{missing}' (recorded "
                "by an earlier simkit with fewer features); use another --out"
            )
    # every generation's decisions so far (the aggregate of DAgger; the columns the fit
    # uses: a file recorded before a column was added still joins)
    data = pl.concat(
        [f.select(used).with_columns(pl.lit(k).alias("gen")) for k, f in enumerate(frames)]
    )
    if data.height == 0:
        raise UserError(
            f"learn: generation {generation}: the search made no decision with a choice; "
            "record more games (--games)"
        )
    x, legal, values = decision_arrays(data, side)
    y = data["chosen"].to_numpy()
    rng = np.random.default_rng([settings.seed, generation, 7])
    held = rng.random(y.size) < 0.2
    if len(np.unique(y[~held])) < 2:
        raise UserError(
            f"learn: generation {generation}: the search took one box only in "
            f"{int((~held).sum())} decisions; record more games (--games)"
        )
    fitter = FIT[settings.fitter]
    kw = {"alpha": settings.ridge_alpha} if settings.fitter == "advantage" else {}
    weights = fitter.weights(x[~held], y[~held], legal[~held], values[~held], **kw)
    chosen = {}
    if settings.candidates > 1 or settings.incumbent and generation > 1:
        games = (data["gen"] * 1_000_000 + data["game"]).to_numpy()  # a game of a generation
        fits = [weights]
        for rows in bootstrap_rows(
            games, ~held, settings.candidates - 1, (settings.seed, generation)
        ):
            fits.append(fitter.weights(x[rows], y[rows], legal[rows], values[rows], **kw))
        if settings.incumbent and generation > 1:
            fits.append(player_weights(settings, policy_spec(out, generation - 1, settings)))
        weights, chosen = select_by_play(settings, out, generation, fits)
    full = np.column_stack([np.ones(len(x)), x])
    scores = full @ weights.T
    scores[~legal] = -np.inf
    agree = float((scores.argmax(axis=1) == y)[held].mean()) if held.any() else math.nan
    meta = {
        "generation": generation,
        "samples": int((~held).sum()),
        "held_out": int(held.sum()),
        "agreement_held_out": round(agree, 4),
        "rollout_policy": policy_spec(
            out, rollout_generation(out, generation, settings), settings
        ).replace(str(out), "."),
        "settings": asdict(settings),
        "fitter": fitter.name.format(alpha=repr(settings.ridge_alpha)),
        **chosen,
    }
    if settings.opponent_model or settings.objective != "win":  # else as written before
        meta["search"] = search_spec(out, generation, settings).replace(str(out), ".")
    if settings.mixture:
        meta["faces"] = ", ".join(f"{spec} {w:.3g}" for spec, w in opponents(settings))

    _atomic_write(path, lambda tmp: tmp.write_text(weights_text(side, weights, meta)))
    return path


def bootstrap_rows(games: np.ndarray, train: np.ndarray, count: int, seed: tuple) -> list:
    """``count`` bootstrap resamples of the training rows by game: each draws as many of the
    training games as there are, with replacement, and takes every training row of each
    (a game's decisions are not independent; the game is the unit of the sample)."""
    rows = np.flatnonzero(train)
    order = rows[np.argsort(games[rows], kind="stable")]
    _, starts, counts = np.unique(games[order], return_index=True, return_counts=True)
    rng = np.random.default_rng([*seed, 17])
    out = []
    for _ in range(count):
        drawn = rng.integers(0, len(starts), len(starts))
        out.append(np.concatenate([order[starts[g] : starts[g] + counts[g]] for g in drawn]))
    return out


def select_by_play(
    settings: LearnSettings, out: Path, generation: int, fits: list[np.ndarray]
) -> tuple[np.ndarray, dict]:
    """The candidate fit whose side plays best on the selection games (``select_games`` a
    player faced, root seed + SELECT_ROOT_OFFSET: neither a recording's nor the rating's;
    with ``settings.incumbent`` the generation's own games of that root, and the last of
    ``fits`` is the previous generation's player), and the [learned.fit] lines that say so.
    Each candidate is written to ``genK/candidates/cI.toml`` and the rates to
    ``genK/selection.json``."""
    from simkit.game.engine import Engine

    side = side_of(settings.side)
    folder = out / f"gen{generation}" / "candidates"
    folder.mkdir(parents=True, exist_ok=True)
    root = settings.seed + SELECT_ROOT_OFFSET
    start = (generation - 1) * settings.select_games if settings.incumbent else 0
    incumbent = len(fits) - 1 if settings.incumbent and generation > 1 else None
    eng, rates = Engine(), []
    for i, weights in enumerate(fits):
        path = folder / f"c{i}.toml"
        text = weights_text(side, weights, {"generation": generation, "candidate": i})
        _atomic_write(path, lambda tmp, text=text: tmp.write_text(text))
        n = settings.select_games
        wins = wins_against_each(eng, settings, f"learned:{path}", n, root, start)
        rates.append(weighted_rate(wins, settings))
    best = int(np.argmin(rates) if settings.side == "human" else np.argmax(rates))
    what = (
        f"candidate {best} of {len(fits)} (0: the fit on every training row; the others: "
        f"bootstrap resamples of its games), the best Old Ones' win for its side on "
        f"{settings.select_games} selection games a player faced (root seed {root})"
    )
    result = {"root": root, "games": settings.select_games, "old_ones_win": rates, "chosen": best}
    if settings.incumbent:  # (without it, the text and file of runs made before the option)
        kind = "the fit on every training row" if best == 0 else "a bootstrap resample"
        if best == incumbent:
            kind = f"the incumbent, generation {generation - 1}'s player"
        what = (
            f"candidate {best} of {len(fits)} ({kind}; "
            + ("the last is the incumbent; " if incumbent is not None else "")
            + f"0 is the fit on every training row, the others bootstrap resamples of its "
            f"games), the best Old Ones' win for its side on selection games {start} to "
            f"{start + settings.select_games - 1} a player faced (root seed {root})"
        )
        result.update(first_game=start, incumbent=incumbent)
    text = json.dumps(result, indent=1) + "\n"
    _atomic_write(folder.parent / "selection.json", lambda tmp: tmp.write_text(text))
    return fits[best], {"selected": what, "selection_old_ones_win": round(rates[best], 4)}


def decision_arrays(data, side: Side) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """(features without the constant, legal, the search's values) of recorded decisions:
    what a fitter reads besides the choice taken."""
    x = data.select([f"f_{n}" for n in side.features[1:]]).to_numpy()
    legal = data.select([f"legal_{n}" for n in side.choices]).to_numpy()
    values = data.select([f"value_{n}" for n in side.choices]).to_numpy()
    return x, legal, values


def weights_text(side: Side, weights: np.ndarray, meta: dict) -> str:
    """A learned player's weights file (played as ``learned:PATH``): the side's format,
    features and choices, the weights (choices x (1 + features)), and ``meta`` as its
    [learned.fit] table (nested values left out)."""
    lines = [
        f"# {side.what}",
        "[learned]",
        f'format = "{side.file_format}"',
        f'base = "{side.first_policy}"',
        "features = [" + ", ".join(f'"{n}"' for n in side.features) + "]",
        f"{side.choices_field} = [" + ", ".join(f'"{n}"' for n in side.choices) + "]",
        "weights = [",
        *("  [" + ", ".join(f"{w:.6g}" for w in row) + "]," for row in weights),
        "]",
        "",
        "[learned.fit]",
        *(f"{k} = {json.dumps(v)}" for k, v in meta.items() if not isinstance(v, dict)),
        "",
    ]
    return "\n".join(lines)


def _logistic(x, y, legal, values) -> np.ndarray:
    """Box weights (choices x (1 + features)): multinomial logistic regression to the box
    the search took, each decision weighted by the search's value gap."""
    from sklearn.linear_model import LogisticRegression

    # a decision counts by how much the search preferred its box over the legal average:
    # near-ties (every box loses, or every box wins) carry little signal
    gap = np.nanmax(values, axis=1) - np.nanmean(values, axis=1)
    model = LogisticRegression(C=1.0, max_iter=2000)
    model.fit(x, y, sample_weight=np.clip(gap, 1e-3, None))
    weights = np.zeros((legal.shape[1], x.shape[1] + 1))
    weights[:, 0] = -10.0  # a box the search never took scores low
    for row, cls in enumerate(model.classes_):
        weights[cls, 0] = model.intercept_[row]
        weights[cls, 1:] = model.coef_[row]
    return weights


def _advantage(x, y, legal, values, alpha: float = 1.0) -> np.ndarray:
    """Box weights (choices x (1 + features)): per box, ridge regression from the features
    (with the constant) to the search's advantage for it, its value minus the mean value of
    the decision's legal boxes, on the decisions where the box was legal and valued."""
    from sklearn.linear_model import Ridge

    full = np.column_stack([np.ones(len(x)), x])
    valued = legal.astype(bool) & np.isfinite(values)
    mean = np.nanmean(np.where(valued, values, np.nan), axis=1)
    weights = np.zeros((legal.shape[1], full.shape[1]))
    weights[:, 0] = -10.0  # a box never legal in the data scores low
    for box in range(legal.shape[1]):
        rows = valued[:, box]
        if rows.sum() < 2:
            continue
        model = Ridge(alpha=alpha, fit_intercept=False)
        model.fit(full[rows], values[rows, box] - mean[rows])
        weights[box] = model.coef_
    return weights


@dataclass(frozen=True)
class Fitter:
    name: str  # written to the file's [learned.fit] table ({alpha}: the ridge penalty)
    weights: Callable[..., np.ndarray]  # (x, y, legal, values) -> choices x (1 + features)


FIT = {
    "logistic": Fitter(
        "sklearn LogisticRegression(C=1.0), multinomial, weighted by the value gap", _logistic
    ),
    "advantage": Fitter(
        "sklearn Ridge(alpha={alpha}) per choice on the search's advantage (its value minus the "
        "legal choices' mean)",
        _advantage,
    ),
}


def old_ones_wins(
    eng,
    settings: LearnSettings,
    strategy: str,
    games: int,
    start: int = 0,
    opponent=None,
    root: int | None = None,
) -> np.ndarray:
    """The Old Ones' win (0/1) in each of held-out rating games ``start .. start + games - 1``
    with ``strategy`` in the learned side's seats facing ``opponent`` (default: the first of
    ``opponents``; root seed ``root``, default ``settings.seed + RATE_ROOT_OFFSET``; game i
    is the same deal whatever ``start`` a call begins at)."""
    spec = _spec(settings, strategy, opponent)
    root = settings.seed + RATE_ROOT_OFFSET if root is None else root
    rows, _ = eng.play_many(spec, root, 0, games, first_game=start)
    return rows[:, L.SUMMARY_COLUMNS.index("old_ones_win")].astype(float)


def wins_against_each(
    eng,
    settings: LearnSettings,
    strategy: str,
    games: int,
    root: int | None = None,
    start: int = 0,
) -> list:
    """``old_ones_wins`` of the held-out games (or those of ``root``; games ``start ..``)
    against each of ``opponents``, in order."""
    return [
        old_ones_wins(eng, settings, strategy, games, start, opponent=them, root=root)
        for them, _ in opponents(settings)
    ]


def weighted_rate(wins: list[np.ndarray], settings: LearnSettings) -> float:
    """The Old Ones' win rate of ``wins_against_each``, weighted by the mixture."""
    return sum(w * m.mean() for (_, w), m in zip(opponents(settings), wins, strict=True))


def timed_wins(settings: LearnSettings, strategy: str, games: int, start: int = 0):
    """(old_ones_wins of games ``start ..`` on a fresh engine, the CPU seconds they took):
    what one process plays."""
    import time

    from simkit.game.engine import Engine

    eng = Engine()  # (its start-up is not the strategy's time)
    t = time.process_time()
    wins = old_ones_wins(eng, settings, strategy, games, start)
    return wins, time.process_time() - t


def held_out_wins(
    settings: LearnSettings, strategy: str, games: int, start: int = 0, jobs: int = 1
) -> tuple[np.ndarray, float]:
    """``old_ones_wins`` of games ``start .. start + games - 1`` split over ``jobs``
    processes (game i is the same deal whichever process plays it: the wins do not change
    with ``jobs``), and the CPU seconds they took summed over the processes. Each process
    builds its own engine (one holds compiled state that does not pickle)."""
    if jobs == 1 or games < 2:
        return timed_wins(settings, strategy, games, start)
    from joblib import Parallel, delayed

    cuts = start + np.linspace(0, games, jobs + 1).astype(int)
    parts = Parallel(n_jobs=jobs, backend="loky")(
        delayed(timed_wins)(settings, strategy, b - a, a)
        for a, b in zip(cuts[:-1], cuts[1:], strict=True)
        if b > a
    )
    return np.concatenate([w for w, _ in parts]), sum(t for _, t in parts)


def weighted_difference(
    a: list[np.ndarray], b: list[np.ndarray], weights: list[float]
) -> tuple[float, float, float]:
    """(sum_j w_j mean(a_j - b_j), its normal 95% interval): paired differences against each
    player of a mixture (games independent across players), weighted by the mixture."""
    diff = var = 0.0
    for x, y, w in zip(a, b, weights, strict=True):
        d = x - y
        diff += w * d.mean()
        var += w * w * d.var(ddof=1) / len(d)
    half = 1.959963984540054 * math.sqrt(var)
    return float(diff), float(diff - half), float(diff + half)


def rate(settings: LearnSettings, out: Path, generation: int) -> dict:
    """Step 3: generation k against k-1 and the first policy on held-out seeds."""
    path = out / f"gen{generation}" / "rating.json"
    if path.exists():
        return json.loads(path.read_text())
    from simkit.game.engine import Engine

    eng, n = Engine(), settings.rate_games
    faced = opponents(settings)

    def wins(k: int) -> list[np.ndarray]:  # generation k against each opponent
        return wins_against_each(eng, settings, policy_spec(out, k, settings), n)

    mine = wins(generation)
    win = weighted_rate(mine, settings)
    result = {"generation": generation, "games": n, "old_ones_win": win, "against": []}
    if settings.mixture:
        result["faces"] = [{"spec": them, "weight": w} for them, w in faced]
    for other in sorted({generation - 1, 0}, reverse=True):
        theirs = wins(other)
        # paired on the same held-out games, weighted by the mixture (one player: weight 1,
        # the paired difference's own interval)
        diff, low, high = weighted_difference(mine, theirs, [w for _, w in faced])
        result["against"].append(
            {
                "generation": other,
                "name": f"{settings.first} (first rollout policy)" if other == 0 else f"gen{other}",
                "old_ones_win": weighted_rate(theirs, settings),
                "diff": diff,
                "ci_low": low,
                "ci_high": high,
            }
        )
    _atomic_write(path, lambda tmp: tmp.write_text(json.dumps(result, indent=1) + "\n"))
    return result


def run(settings: LearnSettings, out: Path, progress=None) -> list[dict]:
    """Every generation (skipping what is already written); the ratings in order."""
    settings.check()
    out.mkdir(parents=True, exist_ok=True)
    stamp = out / "learn.json"
    mine = asdict(settings)

    def fixed(d: dict) -> dict:  # what a rerun must repeat: all but --generations
        # a stamp written before a setting existed holds its default
        full = {f.name: getattr(LearnSettings(), f.name) for f in fields(LearnSettings)}
        full.update(d)
        full["first_policy"] = full["first_policy"] or side_of(full["side"]).first_policy
        return {k: v for k, v in full.items() if k != "generations"}

    if stamp.exists() and fixed(json.loads(stamp.read_text()).get("settings") or {}) != fixed(mine):
        raise UserError(
            f"{out}: holds a learn run with other settings; use another --out "
            "(only --generations may grow on a rerun)"
        )
    _atomic_write(stamp, lambda tmp: tmp.write_text(json.dumps({"settings": mine})))
    ratings = []
    for k in range(1, settings.generations + 1):
        record(settings, out, k, progress)
        fit(settings, out, k)
        ratings.append(rate(settings, out, k))
    return ratings
