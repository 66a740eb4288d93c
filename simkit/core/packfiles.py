"""Reading data pack files: TOML values with provenance, CSV rows and checked cells, errors
naming file, row and field.

Game-neutral: every game module's pack loader reads its files through these.
"""

from __future__ import annotations

import csv
import tomllib
from collections import Counter
from pathlib import Path
from typing import Any

from simkit.errors import DataPackError

PROVENANCE_TAGS = ("rules", "external", "inferred", "assumed")


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


class ProvenanceReader:
    """Reads one pack's files, checking every value's provenance tag and source and
    collecting the values (for the pack hash) and the tag counts (for provenance shares)."""

    def __init__(self, root: Path):
        self.root = root
        self.tags: Counter[str] = Counter()
        self.values: dict[str, Any] = {}

    def toml(self, name: str) -> dict:
        return read_toml(self.root, name)

    def section(self, file: str, table: dict, key: str) -> dict:
        sec = table.get(key)
        if not isinstance(sec, dict):
            raise DataPackError(file, f"missing section [{key}]")
        return sec

    def value(self, file: str, table: dict, where: str, key: str, kind: type | tuple[type, ...],
              lo: int | None = None, hi: int | None = None, choices: tuple[str, ...] | None = None,
              row: int | None = None) -> Any:
        """One ``{ value = ..., provenance = ..., source = ... }`` entry, checked."""
        loc = f"{where}.{key}" if where else key
        field = key if row is not None else None

        def fail(msg: str):
            raise DataPackError(file, msg if row is not None else f"'{loc}': {msg}", row=row, field=field)

        if key not in table:
            fail("missing value")
        entry = table[key]
        if not isinstance(entry, dict) or "value" not in entry:
            fail("must be { value = ..., provenance = ..., source = ... }")
        tag = entry.get("provenance")
        if tag not in PROVENANCE_TAGS:
            fail(f"unknown provenance tag {tag!r} (expected one of: {', '.join(PROVENANCE_TAGS)})")
        if not isinstance(entry.get("source"), str) or not entry["source"].strip():
            fail("needs a non-empty source")
        val = entry["value"]
        kinds = kind if isinstance(kind, tuple) else (kind,)
        if not isinstance(val, kinds) or (bool not in kinds and isinstance(val, bool)):
            fail(f"must be {' or '.join(k.__name__ for k in kinds)}, got {val!r}")
        if lo is not None and val < lo:
            fail(f"must be >= {lo}, got {val!r}")
        if hi is not None and val > hi:
            fail(f"must be <= {hi}, got {val!r}")
        if choices is not None and val not in choices:
            fail(f"must be one of {', '.join(choices)}, got {val!r}")
        self.tags[tag] += 1
        self.values[f"{file}:{loc}" + (f"@{row}" if row is not None else "")] = val
        return val

    def csv(self, name: str, columns: tuple[str, ...]) -> list[tuple[int, dict[str, str]]]:
        return read_csv(self.root, name, columns)

    def cell_int(self, name: str, line: int, row: dict, col: str, lo: int, hi: int | None = None) -> int:
        return cell_int(name, line, row, col, lo, hi)

    def row_tag(self, name: str, line: int, row: dict, n_values: int) -> None:
        tag = row["provenance"].strip()
        if tag not in PROVENANCE_TAGS:
            raise DataPackError(name, f"unknown provenance tag {tag!r} (expected one of: "
                                f"{', '.join(PROVENANCE_TAGS)})", row=line, field="provenance")
        if not row["source"].strip():
            raise DataPackError(name, "needs a non-empty source", row=line, field="source")
        self.tags[tag] += n_values
