"""Reading data pack files: CSV rows and checked cells, errors naming file, row and field.

Game-neutral: every game module's pack loader reads its CSV files through these.
"""

from __future__ import annotations

import csv
import tomllib
from pathlib import Path

from simkit.errors import DataPackError


def read_toml(root: Path, name: str) -> dict:
    """The parsed TOML file ``root/name``."""
    path = root / name
    if not path.is_file():
        raise DataPackError(name, f"missing file (looked in {root})")
    try:
        return tomllib.loads(path.read_text(encoding="utf-8"))
    except (tomllib.TOMLDecodeError, UnicodeDecodeError) as exc:
        raise DataPackError(name, f"not valid TOML: {exc}") from None


def read_csv(root: Path, name: str, columns: tuple[str, ...]) -> list[tuple[int, dict[str, str]]]:
    """(line number, row) for every data row of ``root/name``; the columns must all be there."""
    path = root / name
    if not path.is_file():
        raise DataPackError(name, f"missing file (looked in {root})")
    with open(path, newline="", encoding="utf-8") as fh:
        reader = csv.DictReader(fh)
        header = reader.fieldnames or []
        for col in columns:
            if col not in header:
                raise DataPackError(name, f"missing column '{col}' (header: {','.join(header)})")
        rows = []
        for line, row in enumerate(reader, start=2):
            if None in row or any(row[c] is None for c in columns):
                raise DataPackError(name, "wrong number of fields", row=line)
            rows.append((line, row))
    return rows


def cell_int(name: str, line: int, row: dict, col: str, lo: int, hi: int | None = None) -> int:
    """A whole number in lo..hi from one cell."""
    text = row[col].strip()
    try:
        val = int(text)
    except ValueError:
        raise DataPackError(name, f"expected a whole number, got {text!r}", row=line, field=col) from None
    if val < lo or (hi is not None and val > hi):
        bound = f"{lo}..{hi}" if hi is not None else f">= {lo}"
        raise DataPackError(name, f"expected {bound}, got {val}", row=line, field=col)
    return val
