"""Strategy files: a tuned strategy (``simkit tune`` writes ``DIR/strategy.toml``) read back
as a strategy, for the ``file:PATH`` spec of --strategies and --oop. The file names its
role (human or Old One player), the registered strategy it starts from and the fields it
sets; every field is checked against the declared space (strategies.spaces).
"""

from __future__ import annotations

import tomllib
from dataclasses import fields, replace
from pathlib import Path
from typing import Any

from simkit.errors import UserError, control_char_message, first_control_char
from strategies.spaces import check_value, space_of

RESULT_FILE = "strategy.toml"


def file_role(text: str) -> str | None:
    """The role a ``file:`` spec's strategy file names ('human' or 'oop'); None for other
    specs or a file that cannot be read (reading it again reports the error)."""
    if not text.strip().startswith("file:"):
        return None
    try:
        return read_strategy_file(text.strip()[5:])[0]
    except UserError:
        return None


MAX_STRATEGY_FILE = 1 << 20  # bytes: a strategy.toml is a few KB; more is not one


def strategy_path(path: str | Path) -> Path:
    """The strategy.toml a ``file:`` spec names (its folder names the file inside)."""
    p = Path(path)
    return p / RESULT_FILE if p.is_dir() else p


def read_strategy_bytes(path: str | Path) -> tuple[Path, bytes]:
    """The bytes of a strategy file: a regular file only (never a device such as /dev/zero, a
    FIFO that would block, or a folder), at most MAX_STRATEGY_FILE bytes."""
    import os
    import stat

    p = strategy_path(path)
    if "\0" in str(p):
        raise UserError(f"{str(p)!r}: a strategy file name cannot hold a NUL character")
    try:
        st = os.stat(p)
    except FileNotFoundError:
        raise UserError(f"{p}: no such strategy file") from None
    except (OSError, ValueError) as exc:
        raise UserError(f"{p}: cannot be read ({exc.__class__.__name__})") from None
    if not stat.S_ISREG(st.st_mode):
        raise UserError(f"{p}: not a regular file (a strategy file is a strategy.toml)")
    if st.st_size > MAX_STRATEGY_FILE:
        raise UserError(
            f"{p}: {st.st_size:,} bytes, more than a strategy file's {MAX_STRATEGY_FILE:,}"
        )
    try:
        fd = os.open(p, os.O_RDONLY | getattr(os, "O_NONBLOCK", 0))
        try:
            if not stat.S_ISREG(os.fstat(fd).st_mode):  # replaced since the stat
                raise UserError(f"{p}: not a regular file (a strategy file is a strategy.toml)")
            raw = os.read(fd, MAX_STRATEGY_FILE + 1)
        finally:
            os.close(fd)
    except OSError as exc:
        raise UserError(f"{p}: cannot be read ({exc.__class__.__name__})") from None
    if len(raw) > MAX_STRATEGY_FILE:
        raise UserError(f"{p}: more than a strategy file's {MAX_STRATEGY_FILE:,} bytes")
    return p, raw


def strategy_digest(path: str | Path) -> str:
    """sha256 of a strategy file's content: what a cell's identity records (not its path)."""
    import hashlib

    return hashlib.sha256(read_strategy_bytes(path)[1]).hexdigest()


def read_strategy_toml(path: str | Path) -> tuple[Path, dict[str, Any]]:
    """(path, parsed TOML) of a strategy or weights file: UTF-8, no control characters."""
    p, raw = read_strategy_bytes(path)
    try:
        text = raw.decode("utf-8")
        bad = first_control_char(text)
        if bad is not None:
            raise UserError(f"{p}: line {bad[0]} {control_char_message(bad[1])}")
        return p, tomllib.loads(text)
    except UnicodeDecodeError as exc:
        raise UserError(f"{p}: cannot be read ({exc.__class__.__name__})") from None
    except tomllib.TOMLDecodeError as exc:
        raise UserError(f"{p}: not TOML ({exc})") from None


def read_strategy_file(path: str | Path) -> tuple[str, str, dict[str, Any]]:
    """(role, base strategy name, fields) from a strategy.toml (or a folder holding one)."""
    p, doc = read_strategy_toml(path)
    table = doc.get("strategy")
    if not isinstance(table, dict) or not isinstance(table.get("fields"), dict):
        raise UserError(
            f"{p}: expected a [strategy] table with role, base and a [strategy.fields] table"
        )
    role, base = table.get("role"), table.get("base")
    if role not in ("human", "oop") or not isinstance(base, str):
        raise UserError(
            f"{p}: field 'strategy.role' must be 'human' "
            "or 'oop' and 'strategy.base' a strategy name"
        )
    return role, base, dict(table["fields"])


def strategy_from_file(path: str | Path, role: str, base_of):
    """The strategy a strategy.toml describes (the ``file:`` spec of --strategies / --oop);
    ``base_of(name)`` gives the registered strategy it starts from (the caller's registry,
    so this module imports neither)."""
    file_role, base, values = read_strategy_file(path)
    if file_role != role:
        want = "--oop" if file_role == "oop" else "--strategies"
        raise UserError(
            f"{path}: a tuned {'Old One player' if file_role == 'oop' else 'human'} strategy "
            f"(use it with {want})"
        )
    strategy = base_of(base)
    space = space_of(strategy)
    known = {f.name for f in fields(strategy)}
    changes = {}
    for name, value in values.items():
        if name not in known or name not in space:
            raise UserError(
                f"{path}: field 'strategy.fields.{name}' is not a tunable field of '{base}' "
                f"(expected one of: {', '.join(space)})"
            )
        changes[name] = check_value(name, space[name], value, str(path))
    out = replace(strategy, **changes)
    if role == "human":
        out.lower()  # combat policies and vector lengths checked now, not mid-run
    return out


LEARNED_FORMAT = "simkit-learned/1"
LEARNED_OOP_FORMAT = "simkit-learned-oop/1"


def read_learned_weights(
    path: str | Path, fmt: str, features: tuple, choices: tuple, choices_field: str
) -> tuple[Path, dict[str, Any], list[float]]:
    """(path, its [learned] table, the weights choice-major over ``features``) of a weights
    file written by ``simkit learn``: format ``fmt``; ``learned.<choices_field>`` must be
    this engine's names in its order, every weight a finite number. ``learned.features``
    names some of this engine's features in its order (a file written before later
    features were added lacks them): a feature the file does not name weighs 0."""
    import math

    p, doc = read_strategy_toml(path)
    table = doc.get("learned")
    if not isinstance(table, dict) or table.get("format") != fmt:
        raise UserError(f"{p}: expected a [learned] table with format = '{fmt}'")
    named = table.get("features")
    if not isinstance(named, list) or not _in_order(named, features):
        raise UserError(
            f"{p}: field 'learned.features' must list some of {', '.join(features)}, "
            "each once and in that order"
        )
    if table.get(choices_field) != list(choices):
        raise UserError(
            f"{p}: field 'learned.{choices_field}' must list {', '.join(choices)} in order"
        )
    rows = table.get("weights")
    one = {"boxes": "box", "actions": "action"}[choices_field]
    if not isinstance(rows, list) or len(rows) != len(choices):
        raise UserError(
            f"{p}: field 'learned.weights' must hold {len(choices)} rows (one per {one})"
        )
    flat: list[float] = []
    for b, row in enumerate(rows):
        ok_row = isinstance(row, list) and len(row) == len(named)
        if not ok_row or not all(
            isinstance(x, int | float) and not isinstance(x, bool) and math.isfinite(x) for x in row
        ):
            raise UserError(
                f"{p}: field 'learned.weights' row {b + 1} ({choices[b]}) must hold "
                f"{len(named)} finite numbers (one per feature the file names)"
            )
        by_name = dict(zip(named, row, strict=True))
        flat.extend(float(by_name.get(f, 0.0)) for f in features)
    return p, table, flat


def _in_order(named: list, features: tuple) -> bool:
    """Every entry of ``named`` is one of ``features``, each at most once, in their order."""
    at = 0
    for f in named:
        if not isinstance(f, str) or f not in features[at:]:
            return False
        at = features.index(f, at) + 1
    return True


def learned_base(p: Path, table: dict, default: str, base_of):
    """(name, strategy) of a weights file's ``learned.base`` (``default`` if absent)."""
    name = table.get("base", default)
    if not isinstance(name, str):
        raise UserError(f"{p}: field 'learned.base' must be a strategy name")
    return name, base_of(name)


def learned_from_file(path: str | Path, base_of):
    """The learned player a weights file describes (``learned:PATH``; ``simkit learn``
    writes them). ``base_of(name)``: the registered strategy whose parameters make the
    smaller decisions (the caller's registry)."""
    from simkit.kernels.low import game_layout as L
    from strategies.human.base import HeuristicParams
    from strategies.human.learned import Learned

    p, table, flat = read_learned_weights(
        path, LEARNED_FORMAT, L.LEARN_FEATURES, L.BOX_NAMES, "boxes"
    )
    base_name, base = learned_base(p, table, "balanced", base_of)
    shared = {f.name: getattr(base, f.name) for f in fields(HeuristicParams)}
    return Learned(**shared, weights=tuple(flat), base=base_name)
