"""`simkit simulate` (whole games to Parquet) and `simkit replay` (one game, turn by turn).

A simple single-experiment writer: OUT/<table>.parquet for each table asked for, with the
seed, engine version, data hash and parameters in the file metadata. Game g of chunk c is
played from game_generator(seed, c, g), so the files are identical for any --jobs and
`simkit replay --seed S --chunk C --game G` rebuilds any row. Grids, resuming and the
lake are `simkit experiment run` (mode "base" / "solo").
"""

from __future__ import annotations

import json
import subprocess
import time
from pathlib import Path
from typing import Annotated

import numpy as np
import typer

from simkit import ENGINE_VERSION
from simkit.cli import app, validate
from simkit.cli.common import DataOption, atomic_write_bytes
from simkit.errors import UserError

CHUNK = 1000


def _git_commit() -> str:
    try:
        out = subprocess.run(["git", "rev-parse", "HEAD"], capture_output=True, text=True, timeout=5,
                             cwd=Path(__file__).resolve().parent)
        return out.stdout.strip() if out.returncode == 0 else "unknown"
    except (OSError, subprocess.SubprocessError):
        return "unknown"


def _chunk_worker(mode: str, params: dict, data_path: str | None, seed: int, chunk: int, n: int,
                  outputs: tuple[str, ...]):
    from simkit.datapack import load_pack
    from simkit.game.modes import run_chunk

    data = load_pack(data_path)
    if mode == "revenge":
        from simkit.revenge.modes import run_chunk as revenge_chunk
        tables = revenge_chunk(params, data, seed, chunk, n, frozenset(outputs))
    elif mode == "mythos-solo":
        from simkit.revenge.modes import run_solo_chunk
        tables = run_solo_chunk(params, data, seed, chunk, n, frozenset(outputs))
    else:
        tables = run_chunk(mode, params, data, seed, chunk, n, frozenset(outputs))
    for t in tables.values():     # game_index within the chunk -> add the chunk id
        t["chunk_id"] = np.full(len(t["game_index"]), chunk, dtype=np.int32)
    return tables


@app.command("simulate")
def simulate(
    out: Annotated[Path, typer.Option("--out", help="Folder for the Parquet files.")],
    mode: Annotated[str, typer.Option("--mode", help="base, solo, revenge or mythos-solo.")] = "base",
    players: Annotated[int | None, typer.Option("--players", help="Human players, 1-4 (default 2; solo: 1).")] = None,
    humans: Annotated[int | None, typer.Option("--humans", help="Revenge: human players, 1-4 (default 2).")] = None,
    rules: Annotated[str | None, typer.Option("--rules", help="Revenge: revenge or revenge-alt.")] = None,
    oop: Annotated[str | None, typer.Option("--oop", help="Revenge: Old One player strategy (rusher, blighter, mythos, random).")] = None,
    games: Annotated[int, typer.Option("--games", help="Games to play.")] = 1000,
    seed: Annotated[int, typer.Option("--seed", help="Root seed (seeds are data).")] = 0,
    strategies: Annotated[str, typer.Option("--strategies", help="NAME[,NAME...]: one for all seats or one per seat.")] = "balanced",
    difficulty: Annotated[str | None, typer.Option("--difficulty", help="Solo / mythos-solo difficulty (solo.toml); revenge: normal, hard, heroic.")] = None,
    tables: Annotated[str, typer.Option("--tables", help="Tables to write: summary,seats,combats,moves.")] = "summary,seats",
    jobs: Annotated[int, typer.Option("--jobs", help="Worker processes (results do not depend on it).")] = 1,
    fixed_seats: Annotated[bool, typer.Option("--fixed-seats", help="Seat strategies in the order given (no random first player).")] = False,
    checked: Annotated[bool, typer.Option("--checked", help="Check invariants after every turn.")] = False,
    data: DataOption = None,
) -> None:
    """Play whole games with heuristic (or random) players and write Parquet."""

    from simkit.datapack import load_pack
    from simkit.game.modes import BASE, SOLO
    from simkit.game.tables import TABLES

    validate.check_simulate(out=out, games=games, seed_=seed, jobs_=jobs)
    if mode not in ("base", "solo", "revenge", "mythos-solo"):
        raise UserError(f"unknown --mode '{mode}' (expected one of: base, solo, revenge, mythos-solo)")
    if mode != "revenge" and (humans is not None or rules is not None or oop is not None):
        raise UserError("--humans, --rules and --oop are for --mode revenge")
    if games <= 0:
        raise UserError(f"--games must be positive, got {games}")
    if jobs < 1:
        raise UserError(f"--jobs must be at least 1, got {jobs}")
    if seed < 0:
        raise UserError(f"--seed must be >= 0, got {seed}")
    wanted = tuple(t.strip() for t in tables.split(",") if t.strip())
    for t in wanted:
        if t not in TABLES:
            raise UserError(f"unknown table '{t}' in --tables (expected: {', '.join(TABLES)})")
    if "summary" not in wanted:
        wanted = ("summary",) + wanted
    if mode == "revenge":
        from simkit.revenge.modes import REVENGE
        if players is not None and humans is not None and players != humans:
            raise UserError("give --humans (or --players) once")
        n_h = humans if humans is not None else (players if players is not None else 2)
        params = REVENGE.validate({"humans": n_h, "strategies": strategies, "difficulty": difficulty or "normal",
                                   "ruleset": rules or "revenge", "oop": oop or "rusher",
                                   "shuffle_seats": not fixed_seats, "checked": checked})
    elif mode in ("solo", "mythos-solo"):
        if players not in (None, 1):
            raise UserError(f"{mode} mode has exactly 1 player, got --players {players}")
        raw = {"strategy": strategies, **({"difficulty": difficulty} if difficulty else {}), "checked": checked}
        if mode == "solo":
            params = SOLO.validate(raw)
        else:
            from simkit.revenge.modes import MYTHOS_SOLO
            params = MYTHOS_SOLO.validate(raw)
    else:
        if difficulty is not None:
            raise UserError("--difficulty is for --mode solo")
        params = BASE.validate({"players": 2 if players is None else players, "strategies": strategies,
                                "shuffle_seats": not fixed_seats, "checked": checked})
    pack = load_pack(data)
    if out.exists() and not out.is_dir():
        raise UserError(f"--out {out} is a file, not a folder")
    ident = {"format": "simkit-simulate/1", "mode": mode, "params": params, "seed": seed, "games": games,
             "chunk_size": CHUNK, "engine_version": ENGINE_VERSION, "data_hash": pack.hash}
    names = [f"{t}.parquet" for t in wanted]
    validate.refuse_foreign_outputs(out, names, ident)  # before any game is played
    sizes = [min(CHUNK, games - k) for k in range(0, games, CHUNK)]
    jobs_args = [(mode, params, str(data) if data else None, seed, c, n, wanted) for c, n in enumerate(sizes)]
    t0 = time.perf_counter()
    if jobs == 1 or len(sizes) == 1:
        parts = [_chunk_worker(*a) for a in jobs_args]
    else:
        from joblib import Parallel, delayed
        parts = Parallel(n_jobs=jobs)(delayed(_chunk_worker)(*a) for a in jobs_args)
    seconds = time.perf_counter() - t0
    meta = {"format": "simkit-simulate/1", "mode": mode, "params": params, "seed": seed, "games": games,
            "chunk_size": CHUNK, "engine_version": ENGINE_VERSION, "data_hash": pack.hash,
            "git_commit": _git_commit()}
    out.mkdir(parents=True, exist_ok=True)
    from simkit.lake import LakeLock
    with LakeLock(out):  # one writer at a time, as for a lake
        validate.refuse_foreign_outputs(out, names, ident)  # again, under the lock
        _write_tables(out, wanted, parts, params, meta)
    summary = parts and np.concatenate([p["summary"]["old_ones_win"] for p in parts])
    rate = float(np.mean(summary)) if len(summary) else 0.0
    typer.echo(f"wrote {', '.join(f'{t}.parquet' for t in wanted)} to {out}: {games} games in {seconds:.1f} s "
               f"({games / seconds:,.0f} games/s); Old Ones won {rate:.1%}")


def _write_tables(out: Path, wanted, parts, params: dict, meta: dict) -> None:
    import pyarrow as pa
    import pyarrow.parquet as pq

    for t in wanted:
        cols: dict[str, np.ndarray] = {}
        for key in parts[0][t]:
            cols[key] = np.concatenate([p[t][key] for p in parts])
        if t == "summary":  # every row says which parameters played it, as in the runner's lake
            n = len(next(iter(cols.values())))
            for key, value in params.items():
                cols.setdefault(key, np.full(n, value))
        table = pa.table(cols)
        table = table.replace_schema_metadata({"simkit": json.dumps({**meta, "table": t})})
        sink = pa.BufferOutputStream()
        pq.write_table(table, sink, compression="zstd")
        atomic_write_bytes(out / f"{t}.parquet", sink.getvalue().to_pybytes())


@app.command("replay")
def replay(
    seed: Annotated[int, typer.Option("--seed", help="Root seed of the run.")],
    game: Annotated[int, typer.Option("--game", help="Game index within the chunk.")],
    chunk: Annotated[int, typer.Option("--chunk", help="Chunk id (simulate: game // 1000).")] = 0,
    mode: Annotated[str, typer.Option("--mode", help="base, solo, revenge or mythos-solo.")] = "base",
    players: Annotated[int | None, typer.Option("--players", help="Human players, 1-4 (default 2).")] = None,
    humans: Annotated[int | None, typer.Option("--humans", help="Revenge: human players (as --players).")] = None,
    strategies: Annotated[str, typer.Option("--strategies", help="As given to simulate.")] = "balanced",
    difficulty: Annotated[str | None, typer.Option("--difficulty", help="As given to simulate.")] = None,
    rules: Annotated[str | None, typer.Option("--rules", help="Revenge: revenge or revenge-alt.")] = None,
    oop: Annotated[str | None, typer.Option("--oop", help="Revenge: Old One player strategy.")] = None,
    fixed_seats: Annotated[bool, typer.Option("--fixed-seats", help="As given to simulate.")] = False,
    data: DataOption = None,
) -> None:
    """Rebuild one game from its seed and print a readable turn-by-turn log (Revenge: the
    Old One player's actions and Mythos cards too)."""
    from simkit.game.engine import Engine, make_spec
    from simkit.game.modes import rules_for
    from simkit.game.replay import replay_text

    validate.check_replay(seed_=seed, game=game, chunk=chunk)
    if seed < 0 or game < 0 or chunk < 0:
        raise UserError("--seed, --game and --chunk must be >= 0")
    if mode not in ("base", "solo", "revenge", "mythos-solo"):
        raise UserError(f"unknown --mode '{mode}' (expected one of: base, solo, revenge, mythos-solo)")
    if mode != "revenge" and (humans is not None or rules is not None or oop is not None):
        raise UserError("--humans, --rules and --oop are for --mode revenge")
    if players is not None and humans is not None and players != humans:
        raise UserError("give --humans (or --players) once")
    from simkit.datapack import load_pack
    pack = load_pack(data)
    eng = Engine(data=pack, rules=rules_for(pack), data_path=data)
    n = 1 if mode in ("solo", "mythos-solo") else (humans or players or 2)
    spec = make_spec(mode, n, strategies, difficulty=difficulty, shuffle_seats=not fixed_seats, rules=eng.rules,
                     ruleset=rules or "revenge", oop=oop or "rusher")
    typer.echo(replay_text(eng, spec, seed, game, chunk), nl=False)
