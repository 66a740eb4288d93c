"""Checks every command runs on its flags before any work: one rule per kind of value.

Each check raises UserError naming the flag and what was expected, so a mistake ends in
one line and exit code 2 (simkit.cli.main). Commands call these instead of writing their
own bounds, which keeps the rules the same everywhere:

- seeds: whole numbers in 0 .. 2**63-1 (negative seeds are refused by every command);
- --jobs: 1 .. the machine's cores (more only with SIMKIT_OVERSUBSCRIBE=1), never above 256;
- numbers that reach a loop or an allocation have an upper bound stated up front;
- floats are finite (NaN and infinities are refused);
- flags that would be ignored by the chosen method are refused, not ignored.
"""

from __future__ import annotations

import math
import os
from pathlib import Path
from typing import Any

from simkit.core.jobs import MAX_JOBS, OVERSUBSCRIBE_ENV, cores, jobs  # noqa: F401  (the shared --jobs rule)
from simkit.errors import UserError, control_char_message, first_control_char

MAX_SEED = 2**63 - 1
# Flags whose value is a path: an empty value would silently mean "the current folder".
PATH_FLAGS = ("--out", "--data", "--table", "--map")


def prescan(argv: list[str]) -> None:
    """Refuse an empty path value (``--out ""`` or ``--out=``) before typer turns it into '.',
    and any argument holding a control character (a NUL, an escape: never part of a name,
    a path or a value; a pasted terminal sequence or a script's bug)."""
    for i, arg in enumerate(argv):
        bad = first_control_char(arg)
        if bad is not None:
            flag = argv[i - 1] if i and argv[i - 1].startswith("-") and "=" not in arg else ""
            shown = repr(arg[:40]) + ("..." if len(arg) > 40 else "")
            raise UserError(
                f"argument {i + 1} {shown}{f' (of {flag})' if flag else ''} "
                f"{control_char_message(bad[1])}"
            )
    for i, arg in enumerate(argv):
        flag, eq, value = arg.partition("=")
        if flag not in PATH_FLAGS:
            continue
        if eq:
            empty = not value.strip()
        elif i + 1 < len(argv):
            empty = not argv[i + 1].strip()
        else:
            continue  # typer reports the missing value
        if empty:
            raise UserError(f"{flag}: empty path (give a file or folder name)")


def refuse_repeated(command, argv: list[str]) -> None:
    """Refuse a single-value option given twice (``--force A --force B``): click keeps the
    last silently, so the command would answer a question other than the one typed first.
    ``command`` is the root click command; options that take many values are fine."""
    group, rest = command, list(argv)
    while hasattr(group, "get_command"):  # walk to the leaf command (groups take no values)
        i = next((k for k, a in enumerate(rest) if not a.startswith("-")), None)
        if i is None:
            return
        sub = group.get_command(None, rest[i])
        if sub is None:
            return
        group, rest = sub, rest[i + 1 :]
    opts = {}
    for param in getattr(group, "params", []):
        if getattr(param, "param_type_name", "") != "option":
            continue
        if param.multiple or param.count or (param.is_flag and not param.secondary_opts):
            continue
        for name in [*param.opts, *param.secondary_opts]:
            opts[name] = param
    seen: dict[str, list[str]] = {}
    skip = False
    for k, arg in enumerate(rest):
        if skip:
            skip = False
            continue
        if arg == "--":
            break
        name, eq, value = arg.partition("=")
        param = opts.get(name)
        if param is None:
            continue
        if not param.is_flag and not eq:
            value = rest[k + 1] if k + 1 < len(rest) else ""
            skip = True
        seen.setdefault(param.name, []).append(f"{name} {value}".strip() if value else name)
    for given in seen.values():
        if len(given) > 1:
            raise UserError(
                f"{given[0].split()[0]}: given {len(given)} times ({', '.join(given)}); "
                "give it once"
            )


def _ctx():
    try:  # typer >= 0.29 vendors click as typer._click
        from typer._click.globals import get_current_context
    except ImportError:  # pragma: no cover - older typer depends on click itself
        from click import get_current_context
    return get_current_context(silent=True)


def given(name: str) -> bool:
    """Whether the option ``name`` (the parameter's Python name) was typed on the command line."""
    ctx = _ctx()
    if ctx is None:
        return False
    try:
        source = ctx.get_parameter_source(name)
    except (KeyError, AttributeError):
        return False
    return source is not None and source.name not in ("DEFAULT", "DEFAULT_MAP")


def refuse_given(names: dict[str, str], because: str) -> None:
    """UserError if any option in ``names`` (python name -> flag) was typed: ``because`` says
    why."""
    typed = [flag for name, flag in names.items() if given(name)]
    if typed:
        raise UserError(
            f"{', '.join(typed)}: not used {because}; leave "
            f"{'it' if len(typed) == 1 else 'them'} out"
        )


def seed(flag: str, value: int | None) -> int | None:
    if value is None:
        return None
    if value < 0:  # the wording the commands used before they shared this check
        raise UserError(f"{flag} must be >= 0, got {value}")
    if value > MAX_SEED:
        raise UserError(f"{flag} must be at most 2**63-1 = {MAX_SEED}, got {value}")
    return value


def count(flag: str, value: int, lo: int, hi: int) -> int:
    if value < lo:
        raise UserError(
            f"{flag} must be {'positive' if lo == 1 else f'>= {lo}'} (at most {hi}), got {value}"
        )
    if value > hi:
        raise UserError(f"{flag} must be at most {hi}, got {value}")
    return value


def finite(
    flag: str, value: float | None, lo: float | None = None, hi: float | None = None
) -> float | None:
    if value is None:
        return None
    if not math.isfinite(value):
        raise UserError(f"{flag} must be a finite number, got {value}")
    if lo is not None and value < lo:
        raise UserError(f"{flag} must be >= {lo}, got {value}")
    if hi is not None and value > hi:
        raise UserError(f"{flag} must be <= {hi}, got {value}")
    return value


def out_file(path: Path, suffixes: tuple[str, ...], flag: str = "--out") -> Path:
    """A file to (re)write: the right suffix, and if it exists, a regular file (never a
    folder, device or FIFO); the folder above it, if it exists, must be a folder."""
    from simkit.core.atomic import check_target

    if not str(path).strip() or path == Path("."):
        raise UserError(f"{flag}: empty path (give a {' or '.join(suffixes)} file name)")
    if path.suffix.lower() not in suffixes:
        raise UserError(f"{flag} {path}: must be a {' or '.join(suffixes)} file")
    check_target(path, flag)
    return path


def out_dir(path: Path, flag: str = "--out") -> Path:
    """A folder to write into: not a file, and every existing part of its path a folder."""
    from simkit.core.atomic import check_name, check_parents
    from simkit.core.owned import check_folder_outside_lakes

    check_name(path, flag)
    if path.exists() and not path.is_dir():
        raise UserError(f"{flag} {path}: exists and is not a folder")
    check_parents(path, flag)
    check_folder_outside_lakes(path, flag)
    return path


def in_file(path: Path, flag: str) -> Path:
    if not path.exists():
        raise UserError(f"{flag} {path}: no such file")
    if not path.is_file():
        raise UserError(f"{flag} {path}: not a regular file")
    return path


def ensure(cond: Any, message: str) -> None:
    if not cond:
        raise UserError(message)


# --- per-command checks (one call at the top of each command) ------------------------------------
MAX_MC_GAMES = 1_000_000_000  # Monte Carlo games of one command (~3 min per core for a combat)
MAX_SIM_GAMES = 10_000_000  # simulate holds every row in memory: more is `experiment run`
MAX_STATE_BUDGET = 20_000_000  # exact-solver states (~300 bytes each: 6 GB)
MAX_DAMAGE = 99
MAX_TOP = 100_000
MAX_GAME_INDEX = 10_000_000  # games per chunk at most (the runner's largest chunk)
MAX_CHUNK_ID = 1_000_000


def check_combat(
    *,
    method: str,
    games: int,
    seed_: int,
    jobs_: int,
    state_budget: int,
    old_one_damage: int,
    port_strength: int,
    port_defence: bool,
    withdraw: str,
    destroy_value: float | None,
) -> None:
    count("--games", games, 1, MAX_MC_GAMES)
    seed("--seed", seed_)
    jobs(jobs_)
    count("--state-budget", state_budget, 1, MAX_STATE_BUDGET)
    if method != "mc":
        state_budget_fits(state_budget)
    count("--old-one-damage", old_one_damage, 0, MAX_DAMAGE)
    count("--port-strength", port_strength, 0, MAX_DAMAGE)
    finite("--destroy-value", destroy_value, lo=0)
    if method == "exact":
        refuse_given({"games": "--games", "seed": "--seed", "jobs": "--jobs"}, "by --method exact")
    policy = withdraw.strip().lower()
    if port_defence and policy != "never":
        raise UserError(
            f"--port-defence: everything fights, nobody withdraws: --withdraw {withdraw} "
            f"contradicts it (leave --withdraw out)"
        )
    if destroy_value is not None and policy not in ("value", "table-value"):
        raise UserError(
            f"--destroy-value is used by --withdraw value or table-value only, not by "
            f"--withdraw {withdraw}"
        )


def state_budget_fits(state_budget: int) -> None:
    """Refuse a --state-budget whose tables the machine cannot hold, before allocating."""
    from simkit.combat import available_memory_bytes, exact_memory_bytes

    need = exact_memory_bytes(state_budget)
    have = available_memory_bytes()
    if have is not None and need > 0.8 * have:
        raise UserError(
            f"--state-budget {state_budget:,}: the exact solver would allocate "
            f"{need / 2**30:.1f} GiB, and this machine has {have / 2**30:.1f} GiB available; "
            f"use a budget of at most {int(state_budget * 0.8 * have / need):,}"
        )


def check_odds(*, out: Path | None, seed_: int, jobs_: int, max_per_type: int) -> None:
    # 0 would leave only the empty force: no fight, an empty table
    count("--max-per-type", max_per_type, 1, 6)
    if out is not None:
        out_file(out, (".parquet",))
    seed("--seed", seed_)
    jobs(jobs_)


def check_odds_best(*, min_p: float, top: int, table: Path | None, max_per_type: int) -> None:
    finite("--min-p", min_p, 0.0, 1.0)
    count("--top", top, 1, MAX_TOP)
    if table is not None:
        refuse_given(
            {"data": "--data", "max_per_type": "--max-per-type"},
            "with --table (the table was computed with its own data pack and size)",
        )
        in_file(table, "--table")
    else:
        count("--max-per-type", max_per_type, 1, 6)


def check_board_show(
    *, out: Path, players: int, setup_seed: int | None, revenge: bool, reveal: bool
) -> None:
    out_file(out, (".png",))
    count("--players", players, 0, 4)
    seed("--setup-seed", setup_seed)
    if setup_seed is None and (revenge or reveal):
        raise UserError(
            f"{'--revenge' if revenge else '--reveal'} needs "
            "--setup-seed (without a setup there are no tiles to draw)"
        )


def check_turret(*, method: str, games: int, seed_: int, jobs_: int) -> None:
    count("--games", games, 1, MAX_MC_GAMES)
    seed("--seed", seed_)
    jobs(jobs_)
    if method == "exact":
        refuse_given({"games": "--games", "seed": "--seed", "jobs": "--jobs"}, "by --method exact")


def check_simulate(*, out: Path, games: int, seed_: int, jobs_: int) -> None:
    out_dir(out)
    count("--games", games, 1, MAX_SIM_GAMES)
    seed("--seed", seed_)
    jobs(jobs_)


def check_replay(*, seed_: int, game: int, chunk: int) -> None:
    seed("--seed", seed_)
    count("--game", game, 0, MAX_GAME_INDEX - 1)
    count("--chunk", chunk, 0, MAX_CHUNK_ID)


def check_pack_args(pack: Path | None, data: Path | None) -> Path | None:
    if pack is not None and data is not None:
        raise UserError(
            "--data: give the pack folder once (as the argument or as --data, not both)"
        )
    return pack if pack is not None else data


def refuse_foreign_outputs(out: Path, names: list[str], ident: dict) -> None:
    """simulate --out: refuse to replace a file another run wrote.

    A target that exists is replaced only if its simkit metadata says the same command
    wrote it (same format, mode, parameters, seed, games, engine version and data hash):
    rerunning a command rewrites its own output, never someone else's."""
    import json

    import pyarrow.parquet as pq

    for name in names:
        path = out / name
        if not os.path.lexists(path):
            continue
        if not path.is_file():
            raise UserError(f"--out {out}: {path} is not a regular file; refusing to replace it")
        try:
            raw = (pq.read_schema(path).metadata or {}).get(b"simkit")
            meta = json.loads(raw) if raw else None
        except Exception:  # noqa: BLE001 - unreadable: certainly not this run's
            meta = None
        theirs = {k: meta.get(k) for k in ident} if isinstance(meta, dict) else None
        if theirs != json.loads(json.dumps(ident, default=str)):
            raise UserError(
                f"--out {out}: {path} was written by another run (or is not a simkit file); "
                f"refusing to replace it: choose another folder"
            )
