"""The design explorer behind `simkit serve`'s /explore page: the balance table (Revenge win
rate per humans x difficulty, with the paired steps Normal -> Hard -> Heroic) and the
what-if (one data pack value changed, a paired run on shared seeds against the unchanged
pack).

The table comes from a lake (``simkit serve --lake DIR``: simkit.report.summary's
difficulty_steps on its first experiment that varies difficulty) or, without one, from a
small bounded run on the served pack made once when the server starts (TABLE_GAMES per
cell, root seed 0), cached for the process. The what-if is `simkit compare` itself
(simkit.runner.oneshot.paired_run, one chunk layout, the same seeds), so the command line it
returns reproduces its numbers exactly. Every what-if is bounded: MIN_GAMES..MAX_GAMES
games per side and a hard time limit (``seconds``): a run estimated to take longer is
refused before it starts, and a run that reaches the limit stops before its next chunk;
both answer 503 with the command line to run it without a limit.

Every figure carries the labels of what produced it: the mode, strategies, Old One player,
ruleset, content mode, readings and data pack hash ("balance numbers describe play").
"""

from __future__ import annotations

import shlex
import tempfile
import threading
import time
import tomllib
from collections import OrderedDict
from pathlib import Path
from typing import Any

from simkit import ENGINE_VERSION
from simkit.datapack import AuzData, provenance_shares
from simkit.errors import UserError
from simkit.names import OLD_ONES, UNITS
from simkit.serve.calc import QueryError

MODE = "revenge"
HUMANS = (1, 2, 3, 4)
LEVELS = ("normal", "hard", "heroic")
DEFAULT_PLAY = {
    "strategies": "balanced",
    "oop": "rusher",
    "ruleset": "revenge",
    "content": "assumed",
    "unknown": "blank",
}
TABLE_GAMES = 500  # per cell of the bounded run on the pack (12 cells: ~6,000 games)
DEFAULT_GAMES = 2_000
MIN_GAMES = 100
MAX_GAMES = 20_000
DEFAULT_SECONDS = 30.0  # hard limit of one what-if (both sides)
MAX_SEED = 2**31 - 1
WHATIF_PARAMS = ("set", "games", "humans", "difficulty", "seed")
CACHE_SIZE = 64
METRIC_TEXT = {  # compare's headline metrics, as the page names them
    "old_ones_win": "Old Ones win",
    "humans_win": "Humans win",
    "oo_vp": "Old Ones' VP",
    "best_player_vp": "Best player's VP",
    "ports_lost": "Ports lost",
    "farms_blighted": "Farms blighted",
}


def _fmt(v: Any) -> str:
    return ("true" if v else "false") if isinstance(v, bool) else str(v)


def readings_in(data: AuzData, overrides: dict | None = None) -> dict[str, str]:
    """Every reading in effect: the pack's defaults, its chosen readings, then overrides."""
    from simkit.game.readings import load_readings

    out = {name: r.default for name, r in load_readings(data.path).items()}
    out.update(dict(data.readings))
    for k, v in (overrides or {}).items():
        if k.startswith("reading."):
            out[k[len("reading.") :]] = v
    return out


def editable_paths(data: AuzData) -> list[dict[str, Any]]:
    """The --set paths the page offers, grouped, each with the pack's value and what it may
    be (the same paths `simkit data overrides` lists; the server validates every value with
    the CLI's --set validation)."""
    from simkit.game.arrays import mythos_deck
    from simkit.game.mythos import EFFECTS
    from simkit.game.readings import load_readings
    from simkit.runner.overrides import pack_value

    out: list[dict[str, Any]] = []

    def add(group: str, path: str, label: str, kind: str, choices=None, lo=None, hi=None):
        value = pack_value(data, path)
        out.append(
            {
                "group": group,
                "path": path,
                "label": label,
                "value": _fmt(value),
                "kind": kind,
                **({"choices": list(choices)} if choices is not None else {}),
                **({"min": lo} if lo is not None else {}),
                **({"max": hi} if hi is not None else {}),
            }
        )

    def name(text: str) -> str:
        return text.replace("_", " ")

    for u in (*UNITS, "outpost"):
        add("Unit costs (Gold)", f"units.{u}.cost", f"{name(u)} cost", "number", lo=0)
    for u in UNITS:
        add("Units", f"units.{u}.damage_capacity", f"{name(u)} damage capacity", "int", lo=1)
        add("Units", f"units.{u}.range", f"{name(u)} range", "int", lo=0)
    for o in OLD_ONES:
        add("Old Ones", f"old_ones.{o}.damage_capacity", f"{name(o)} damage capacity", "int", lo=1)
        add("Old Ones", f"old_ones.{o}.vp", f"{name(o)} VP", "int", lo=0)
        add("Old Ones", f"old_ones.{o}.moves", f"{name(o)} moves", "choice", ("true", "false"))
    for field in ("strength_normal", "strength_weak", "flip_threshold", "oop_vp"):
        add("Port", f"port.{field}", f"port {name(field)}", "int", lo=0)
    add("Combat", "combat.sanity_per_combat", "Sanity lost per combat", "int", lo=0)
    add(
        "Old One combat cards",
        "deck.assumed_seed",
        "assumed deck: redraw its faces with another seed",
        "int",
        lo=0,
    )
    for c in (int(i) for i in data.card_ids):  # one card's face against one Old One
        for o in OLD_ONES:
            group = f"Old One combat card faces ({name(o)})"
            hits = f"card {c} vs {name(o)}: units that hit (+-joined, or none)"
            add(group, f"card.{c}.{o}.hits", hits, "text")
            add(
                group,
                f"card.{c}.{o}.purple",
                f"card {c} vs {name(o)}: purple cubes",
                "int",
                lo=0,
                hi=9,
            )
    for card in mythos_deck(data).names:
        add("Mythos cards", f"mythos.{card}.effect", f"{name(card)}: effect", "choice", EFFECTS)
        add("Mythos cards", f"mythos.{card}.tp_cost", f"{name(card)}: TP cost", "int", lo=0, hi=2)
        add("Mythos cards", f"mythos.{card}.amount", f"{name(card)}: amount", "int", lo=0, hi=9)
        add("Mythos cards", f"mythos.{card}.level", f"{name(card)}: level", "int", lo=0, hi=3)
    for r in load_readings(data.path).values():
        add("Readings of open rules", f"reading.{r.name}", name(r.name), "choice", r.options)
    return out


def play_label(params: dict, readings: dict[str, str], data_hash: str, shares: dict) -> dict:
    """The labels every figure carries: who played, under which rules and data."""
    assumed = shares.get("assumed")
    return {
        "mode": MODE if "humans" in params or "oop" in params else params.get("mode", "?"),
        "strategies": params.get("strategies", params.get("strategy", "?")),
        "oop": params.get("oop", "-"),
        "ruleset": params.get("ruleset", "-"),
        "content": params.get("content", "assumed"),
        "unknown": params.get("unknown", "blank"),
        "readings": readings,
        "data": data_hash,
        "assumed_share": assumed,
        "engine_version": ENGINE_VERSION,
    }


def _table_spec(data: AuzData, games: int, seed: int):
    from simkit.runner.oneshot import _toml_value
    from simkit.runner.spec import parse_spec

    text = (
        "[experiment]\n"
        'name = "serve-explorer-table"\n'
        'description = "simkit serve: the explorer\'s balance table on the served pack"\n'
        f'mode = "{MODE}"\n'
        f"root_seed = {seed}\nchunk_size = 1000\ngames = {games}\n"
        'outputs = ["summary"]\n'
        + (f"data = {_toml_value(str(Path(data.path).resolve()))}\n" if data.path else "")
        + "\n[params]\n"
        + "".join(f"{k} = {_toml_value(v)}\n" for k, v in DEFAULT_PLAY.items())
        + f"\n[grid]\nhumans = {list(HUMANS)}\n"
        + "difficulty = ["
        + ", ".join(f'"{lv}"' for lv in LEVELS)
        + "]\n"
    )
    return parse_spec(tomllib.loads(text), "simkit serve", text=text, default_name="serve")


class Explorer:
    """The explorer's warm state: the served pack, the balance table (computed once), the
    games-per-second estimate behind the time limit, a lock (one what-if at a time) and a
    small answer cache (reload and the back button answer at once)."""

    def __init__(
        self,
        data: AuzData,
        lake: Path | None = None,
        table_games: int = TABLE_GAMES,
        seconds: float = DEFAULT_SECONDS,
        data_arg: Path | None = None,
    ):
        self.data = data
        self.data_arg = data_arg  # the --data folder as given (None: the shipped pack)
        self.lake_path = Path(lake) if lake is not None else None
        self.table_games = table_games
        self.seconds = seconds
        self.lock = threading.Lock()
        self.cache: OrderedDict[tuple, dict] = OrderedDict()
        self.games_per_second: float | None = None
        self._table: dict | None = None
        self._table_lock = threading.Lock()
        self.play = dict(DEFAULT_PLAY)
        self.lake = None
        self.shares = provenance_shares(data)
        if self.lake_path is not None:
            self.lake = self._open_lake(self.lake_path)
            self.play = self._lake_play(self.lake)

    # -- the table --------------------------------------------------------------------------
    @staticmethod
    def _open_lake(path: Path):
        from simkit import analysis
        from simkit.lake import Manifest
        from simkit.report.summary import difficulty_lake

        manifest = Manifest.load(path)
        if not manifest.exists():
            raise UserError(f"--lake {path}: not a simkit lake (no manifest.json)")
        lakes = [analysis.open_lake(path, e) for e in sorted(manifest.experiments)]
        found = difficulty_lake(lakes)
        if found is None:
            raise UserError(
                f"--lake {path}: no experiment varies difficulty (the explorer's table is "
                "win rate per humans x difficulty; e.g. simkit experiment run "
                "experiments/revenge_difficulty.toml)"
            )
        return found

    @staticmethod
    def _lake_play(lake) -> dict:
        """The what-if plays as the lake's games did (its cells' strategies, Old One player,
        ruleset, content) when the lake is a Revenge one and they are the same in every cell."""
        from simkit.report.summary import mode_of

        play = dict(DEFAULT_PLAY)
        if mode_of(lake) != MODE:
            return play
        for key in play:
            values = {rec["params"].get(key) for rec in lake.cells.values()}
            if len(values) == 1 and None not in values:
                play[key] = values.pop()
        return play

    def table(self) -> dict[str, Any]:
        with self._table_lock:
            if self._table is None:
                start = time.perf_counter()
                if self.lake is not None:
                    found = self._from_lake(self.lake)
                else:
                    found = self._from_run()
                found["seconds"] = round(time.perf_counter() - start, 2)
                self._table = found
            return dict(self._table, cached=True)

    def _from_run(self) -> dict[str, Any]:
        from simkit import analysis
        from simkit.runner import run_experiment

        spec = _table_spec(self.data, self.table_games, 0)
        with tempfile.TemporaryDirectory(prefix="simkit-serve-table-") as tmp:
            result = run_experiment(spec, out=Path(tmp), jobs=1, quiet=True)
            lake = analysis.open_lake(Path(tmp), spec.experiment_id)
            found = self._facts(lake)
        cells = len(HUMANS) * len(LEVELS)
        found["source"] = "run"
        found["source_text"] = (
            f"a bounded run on the served data pack made when this server started: "
            f"{self.table_games:,} games per cell ({cells} cells, {result.games_written:,} "
            f"games), root seed 0 (no --lake given; cached for this process)"
        )
        return found

    def _from_lake(self, lake) -> dict[str, Any]:
        found = self._facts(lake)
        found["source"] = "lake"
        note = lake.missing_note()
        found["source_text"] = (
            f"the lake {self.lake_path} (experiment {lake.experiment}, "
            f"{found['games']:,} games)" + (f"; {note}" if note else "")
        )
        hashes = {rec.get("data_hash") for rec in lake.cells.values()}
        if self.data.hash not in hashes:
            found["source_text"] += (
                f"; its data is not the served pack ({self.data.hash}), which the what-if plays"
            )
        return found

    def _facts(self, lake) -> dict[str, Any]:
        import polars as pl

        from simkit.report.summary import POOL_PARAMS, difficulty_steps, mode_of

        facts = difficulty_steps(lake, players=False)  # one row per number of humans
        hk = facts["humans_key"]
        groups = sorted({r[hk] for r in facts["rates"]}) if hk else [None]
        rows = []
        for g in groups:
            cells = [
                {k: r[k] for k in ("difficulty", "games", "wins", "rate", "ci_low", "ci_high")}
                for r in facts["rates"]
                if not hk or r[hk] == g
            ]
            steps = [s for s in facts["steps"] if s["humans"] == g]
            rows.append({"group": g, "cells": cells, "steps": steps})
        params: dict[str, list] = {}
        overrides: dict[str, list] = {}
        hashes = []
        for rec in lake.cells.values():
            for k, v in rec["params"].items():
                if k in (*POOL_PARAMS, "ruleset", "content", "unknown"):
                    params.setdefault(k, [])
                    if v not in params[k]:
                        params[k].append(v)
            for k, v in rec["overrides"].items():
                overrides.setdefault(k, [])
                if v not in overrides[k]:
                    overrides[k].append(v)
            if rec.get("data_hash") not in hashes:
                hashes.append(rec.get("data_hash"))
        said = {k: ", ".join(map(_fmt, v)) for k, v in params.items()}
        said["mode"] = mode_of(lake)
        readings = readings_in(self.data)
        for k, v in overrides.items():
            if k.startswith("reading."):
                readings[k[len("reading.") :]] = ", ".join(map(_fmt, v))
        labels = play_label(said, readings, ", ".join(map(str, hashes)), self.shares)
        labels["mode"] = said["mode"]
        labels["overrides"] = {k: ", ".join(map(_fmt, v)) for k, v in overrides.items()}
        labels["data_path"] = lake.record.get("data") or "the shipped pack"
        games = lake.scan().select(pl.len()).collect().item()
        return {
            "metric": facts["metric"],
            "metric_text": METRIC_TEXT.get(facts["metric"], facts["metric"]),
            "humans_key": hk,
            "levels": facts["levels"],
            "rows": rows,
            "pooled": facts["pooled"],
            "experiment": lake.experiment,
            "games": games,
            "root_seed": lake.record.get("root_seed"),
            "labels": labels,
        }

    # -- the what-if -------------------------------------------------------------------------
    def _learn(self, games: int, seconds: float) -> None:
        """The speed behind the time limit's estimate: the latest measured run counts most."""
        if games > 0 and seconds > 0:
            rate = games / seconds
            old = self.games_per_second
            self.games_per_second = rate if old is None else 0.3 * old + 0.7 * rate

    def warm(self, games: int = 300) -> float:
        """Compile (or load) the game kernels, make the table (a run on the pack, or the lake
        read) and measure the speed on one small paired run (the first run of a process
        loads the kernels, so its speed says nothing)."""
        start = time.perf_counter()
        self.table()
        from simkit.runner.oneshot import compare_params, paired_run

        params = compare_params(MODE, humans=2, difficulty="normal", **self._flags())
        t = time.perf_counter()
        paired_run(MODE, params, 0, games, (self.data_arg, {}), (self.data_arg, {}))
        self.games_per_second = None
        self._learn(2 * games, time.perf_counter() - t)
        return time.perf_counter() - start

    def _flags(self) -> dict:
        p = self.play
        return {
            "strategies": p["strategies"],
            "oop": p["oop"],
            "rules": p["ruleset"],
            "content": p["content"],
            "unknown": p["unknown"],
        }

    def parse(self, params, need_set: bool = True) -> dict[str, Any]:
        """The what-if's query from URL parameters; QueryError (400) on every mistake, the
        --set line as the CLI words it. ``need_set=False``: the page's link may lack set=."""
        from simkit.runner.oneshot import parse_sets
        from simkit.runner.overrides import apply_overrides, pack_value

        for key in params:
            if key not in WHATIF_PARAMS:
                raise QueryError(
                    f"unknown parameter '{key[:40]}' (expected {', '.join(WHATIF_PARAMS)})"
                )
        for key, value in params.items():
            if len(value) > 200:
                raise QueryError(f"parameter '{key}' is too long ({len(value)} characters)")
        humans_text = params.get("humans", "2")
        if humans_text not in {str(h) for h in HUMANS}:
            raise QueryError(
                f"humans must be one of {', '.join(map(str, HUMANS))}, got '{humans_text[:20]}'"
            )
        difficulty = params.get("difficulty", "normal")
        if difficulty not in LEVELS:
            raise QueryError(
                f"difficulty must be one of {', '.join(LEVELS)}, got '{difficulty[:20]}'"
            )
        games_text = params.get("games", str(DEFAULT_GAMES))
        if not games_text.isdigit() or not MIN_GAMES <= int(games_text) <= MAX_GAMES:
            raise QueryError(
                f"games must be a whole number {MIN_GAMES:,}..{MAX_GAMES:,} per side, got "
                f"'{games_text[:20]}' (for more, run the command line the page shows)"
            )
        seed_text = params.get("seed", "0")
        if not seed_text.isdigit() or int(seed_text) > MAX_SEED:
            raise QueryError(f"seed must be a whole number 0..{MAX_SEED}")
        q: dict[str, Any] = {
            "humans": int(humans_text),
            "difficulty": difficulty,
            "games": int(games_text),
            "seed": int(seed_text),
        }
        sets = params.getlist("set") if hasattr(params, "getlist") else [params.get("set")]
        sets = [s for s in sets if s is not None]
        if len(sets) > 1:
            raise QueryError(f"one change at a time: the link has {len(sets)} set= parameters")
        if not sets or not sets[0].strip():
            if not need_set:
                return q
            raise QueryError(
                "give one change: set=PATH=VALUE, e.g. set=old_ones.cthulhu.damage_capacity=12 "
                "(pick a value from the list)"
            )
        try:
            over = parse_sets([sets[0]])
            apply_overrides(self.data, over)
        except UserError as exc:
            raise QueryError(str(exc)) from None
        ((path, value),) = over.items()
        was = pack_value(self.data, path)
        if _fmt(was) == _fmt(value) or was == value:
            raise QueryError(
                f"--set {sets[0]}: the pack already has {path} = {_fmt(was)}; pick another value"
            )
        return {**q, "path": path, "value": value, "text": f"{path}={_fmt(value)}", "was": was}

    def command(self, q: dict[str, Any]) -> str:
        """The `simkit compare` line that plays exactly this what-if."""
        p = self.play
        argv = [
            "simkit",
            "compare",
            "--mode",
            MODE,
            "--humans",
            str(q["humans"]),
            "--difficulty",
            q["difficulty"],
            "--strategies",
            p["strategies"],
            "--oop",
            p["oop"],
            "--rules",
            p["ruleset"],
            "--content",
            p["content"],
            *(["--unknown", p["unknown"]] if p["unknown"] != "blank" else []),
            "--games",
            str(q["games"]),
            "--seed",
            str(q["seed"]),
            *(["--data", str(self.data_arg)] if self.data_arg is not None else []),
            "--set-b",
            q["text"],
        ]
        return " ".join(shlex.quote(a) for a in argv)

    def estimate(self, games: int) -> float | None:
        """Seconds a what-if of ``games`` per side is expected to take (None: not measured)."""
        if not self.games_per_second:
            return None
        return 2 * games / self.games_per_second

    def whatif(self, params, wait: float = 5.0) -> dict[str, Any]:
        q = self.parse(params)
        key = (q["text"], q["humans"], q["difficulty"], q["games"], q["seed"])
        if key in self.cache:
            self.cache.move_to_end(key)
            return dict(self.cache[key], cached=True)
        command = self.command(q)
        expected = self.estimate(q["games"])
        if expected is not None and expected > self.seconds:
            most = int(self.seconds * self.games_per_second / 2) // 100 * 100
            raise WhatIfTooLong(
                f"{q['games']:,} games per side would take about {expected:.0f} s here, over "
                f"this server's limit of {self.seconds:g} s per what-if: ask for at most "
                f"{max(most, 0):,} games, or run it yourself: {command}",
                command,
            )
        if not self.lock.acquire(timeout=wait):
            raise WhatIfTooLong(
                "the explorer is busy with another what-if; try again in a moment", command
            )
        try:
            found = self._run(q, command)
        finally:
            self.lock.release()
        self.cache[key] = found
        if len(self.cache) > CACHE_SIZE:
            self.cache.popitem(last=False)
        return dict(found, cached=False)

    def _run(self, q: dict[str, Any], command: str) -> dict[str, Any]:
        from simkit.runner.oneshot import compare_params, paired_run
        from simkit.runner.overrides import apply_overrides
        from simkit.runner.run import DeadlinePassed

        params = compare_params(
            MODE, humans=q["humans"], difficulty=q["difficulty"], **self._flags()
        )
        over = {q["path"]: q["value"]}
        start = time.perf_counter()
        try:
            results = paired_run(
                MODE,
                params,
                q["seed"],
                q["games"],
                (self.data_arg, {}),
                (self.data_arg, over),
                deadline=start + self.seconds,
            )
        except DeadlinePassed as exc:
            raise WhatIfTooLong(
                f"the what-if reached this server's limit of {self.seconds:g} s and was "
                f"stopped ({exc}); ask for fewer games, or run it yourself: {command}",
                command,
            ) from None
        seconds = time.perf_counter() - start
        self._learn(2 * q["games"], seconds)
        metric = "old_ones_win"
        head = next(r for r in results if r["metric"] == metric)
        if head["ci_low"] > 0:
            verdict = "higher"
        elif head["ci_high"] < 0:
            verdict = "lower"
        else:
            verdict = "not distinguishable"
        b_data = apply_overrides(self.data, over)
        labels = play_label(params, readings_in(self.data), self.data.hash, self.shares)
        labels["data_b"] = b_data.hash
        labels["readings_b"] = readings_in(self.data, over)
        labels["data_path"] = str(self.data_arg) if self.data_arg else "the shipped pack"
        return {
            "change": {"path": q["path"], "value": _fmt(q["value"]), "was": _fmt(q["was"])},
            "set": q["text"],
            "humans": q["humans"],
            "difficulty": q["difficulty"],
            "games": q["games"],
            "seed": q["seed"],
            "metric": metric,
            "metric_text": METRIC_TEXT[metric],
            "a": head["a"],
            "b": head["b"],
            "difference": head["difference"],
            "ci95": [head["ci_low"], head["ci_high"]],
            "verdict": verdict,
            "metrics": [{**r, "name": METRIC_TEXT.get(r["metric"], r["metric"])} for r in results],
            "seconds": round(seconds, 2),
            "limit_seconds": self.seconds,
            "command": command,
            "labels": labels,
        }


class WhatIfTooLong(TimeoutError):
    """Over the time limit, or busy: the server answers 503 with the message and the command."""

    def __init__(self, message: str, command: str):
        super().__init__(message)
        self.command = command
