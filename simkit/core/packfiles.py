"""Reading data pack files: TOML values with provenance, CSV rows and checked cells, errors
naming file, row and field.

Game-neutral: every game module's pack loader reads its files through these.
"""

from __future__ import annotations

import csv
import math
import tomllib
from collections import Counter
from pathlib import Path
from typing import Any

from simkit.errors import DataPackError, control_char_message, first_control_char

PROVENANCE_TAGS = ("rules", "external", "inferred", "assumed")
MAX_FIELD = 1 << 24  # characters in one CSV field at most
MAX_CELL_INT = 100_000  # default upper bound of a whole number in a CSV cell (counts, ids)


def read_text(root: Path, name: str) -> str:
    """The UTF-8 text of ``root/name`` (a byte-order mark is dropped, it is not a character)."""
    path = root / name
    if not path.exists():
        raise DataPackError(name, f"missing file (looked in {root})")
    if not path.is_file():
        raise DataPackError(name, f"not a regular file (in {root})")
    try:
        data = path.read_bytes()
    except OSError as exc:
        raise DataPackError(name, f"cannot read: {exc.strerror}") from None
    try:
        text = data.decode("utf-8-sig")
    except UnicodeDecodeError as exc:
        line = data[: exc.start].count(b"\n") + 1
        raise DataPackError(
            name,
            f"not UTF-8 text (byte 0x{data[exc.start]:02x} on line {line}); save the file as UTF-8",
        ) from None
    refuse_control_chars(name, text)
    return text


def refuse_control_chars(name: str, text: str) -> None:
    """A pack or map file holding a control character (a NUL, an escape) is refused with
    the line it is on; tabs and line breaks are fine."""
    bad = first_control_char(text)
    if bad is not None:
        raise DataPackError(name, f"line {bad[0]} {control_char_message(bad[1])}")


def read_toml(root: Path, name: str) -> dict:
    """The parsed TOML file ``root/name``."""
    text = read_text(root, name)
    try:
        return tomllib.loads(text)
    except tomllib.TOMLDecodeError as exc:
        raise DataPackError(name, f"not valid TOML: {exc}") from None


def read_csv(
    root: Path,
    name: str,
    columns: tuple[str, ...],
    allow_empty: bool = False,
    optional: tuple[str, ...] = (),
) -> list[tuple[int, dict[str, str]]]:
    """(line number, row) for every data row of ``root/name``.

    The header must hold exactly ``columns`` (plus any of ``optional``), in any order: a
    missing, unknown or repeated column is an error. Row numbers are the line an editor
    shows (header = 1; blank lines and quoted line breaks counted; a BOM does not shift
    them). A file with no data rows, a row with too many or too few fields and a row
    repeating an earlier one are errors.
    """
    import io

    if (
        csv.field_size_limit() < MAX_FIELD
    ):  # a long source text is fine (the default stops at 128 KB)
        csv.field_size_limit(MAX_FIELD)
    text = read_text(root, name)
    reader = csv.reader(io.StringIO(text, newline=""))
    try:
        header = next(reader)
    except StopIteration:
        raise DataPackError(name, f"empty file (expected a header: {','.join(columns)})") from None
    except csv.Error as exc:
        raise DataPackError(name, f"not a CSV file ({exc})", row=1) from None
    header = [h.strip() for h in header]
    for col in columns:
        if col not in header:
            raise DataPackError(
                name, f"missing column '{col}' (expected columns: {','.join(columns)})", row=1
            )
    for i, col in enumerate(header):
        if col not in columns and col not in optional:
            raise DataPackError(
                name, f"unknown column #{i + 1} (expected columns: {','.join(columns)})", row=1
            )
        if col in header[:i]:
            raise DataPackError(name, f"column '{col}' appears twice", row=1)
    rows = []
    first: dict[tuple[str, ...], int] = {}
    line = reader.line_num + 1
    try:
        for cells in reader:
            if not cells or not any(c.strip() for c in cells):
                line = reader.line_num + 1
                continue
            if len(cells) != len(header):
                raise DataPackError(
                    name, f"expected {len(header)} fields, got {len(cells)}", row=line
                )
            key = tuple(c.strip() for c in cells)
            if key in first:
                raise DataPackError(name, f"repeats row {first[key]}", row=line)
            first[key] = line
            rows.append((line, dict(zip(header, cells, strict=True))))
            line = reader.line_num + 1
    except csv.Error as exc:
        raise DataPackError(name, f"not a valid CSV row ({exc})", row=line) from None
    if not rows and not allow_empty:
        raise DataPackError(name, "no data rows (only a header)")
    return rows


def cell_int(name: str, line: int, row: dict, col: str, lo: int, hi: int | None = None) -> int:
    """A whole number in lo..hi (hi: at most MAX_CELL_INT unless given) from one cell."""
    hi = MAX_CELL_INT if hi is None else hi
    text = row[col].strip()
    try:
        val = int(text)
    except ValueError:
        raise DataPackError(
            name, f"expected a whole number, got {text!r}", row=line, field=col
        ) from None
    if val < lo or (hi is not None and val > hi):
        raise DataPackError(name, f"expected {lo}..{hi}, got {val}", row=line, field=col)
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
        if sec is None:
            raise DataPackError(file, f"missing section [{key}]")
        if not isinstance(sec, dict):
            raise DataPackError(
                file, f"[{key}] must be a section (a table), got {type(sec).__name__} {_short(sec)}"
            )
        return sec

    def value(
        self,
        file: str,
        table: dict,
        where: str,
        key: str,
        kind: type | tuple[type, ...],
        lo: int | None = None,
        hi: int | None = None,
        choices: tuple[str, ...] | None = None,
        row: int | None = None,
    ) -> Any:
        """One ``{ value = ..., provenance = ..., source = ... }`` entry, checked."""
        loc = f"{where}.{key}" if where else key
        field = key if row is not None else None

        def fail(msg: str):
            raise DataPackError(
                file, msg if row is not None else f"'{loc}': {msg}", row=row, field=field
            )

        if not isinstance(table, dict):
            what = f"[{where}]" if where else "the file"
            raise DataPackError(
                file,
                f"{what} must be a table of values, got {type(table).__name__} {_short(table)}",
                row=row,
            )
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
            fail(f"must be {' or '.join(k.__name__ for k in kinds)}, got {_short(val)}")
        if isinstance(val, float) and not math.isfinite(val):
            fail(f"must be a finite number, got {val!r}")
        if lo is not None and val < lo:
            fail(f"must be >= {lo}, got {val!r}")
        if hi is not None and val > hi:
            fail(f"must be <= {hi}, got {val!r}")
        if choices is not None and val not in choices:
            fail(f"must be one of {', '.join(choices)}, got {val!r}")
        self.tags[tag] += 1
        self.values[f"{file}:{loc}" + (f"@{row}" if row is not None else "")] = val
        return val

    def csv(self, name: str, columns: tuple[str, ...], **kw) -> list[tuple[int, dict[str, str]]]:
        return read_csv(self.root, name, columns, **kw)

    def cell_int(
        self, name: str, line: int, row: dict, col: str, lo: int, hi: int | None = None
    ) -> int:
        return cell_int(name, line, row, col, lo, hi)

    def row_tag(self, name: str, line: int, row: dict, n_values: int) -> None:
        tag = row["provenance"].strip()
        if tag not in PROVENANCE_TAGS:
            raise DataPackError(
                name,
                f"unknown provenance tag {tag!r} (expected one of: {', '.join(PROVENANCE_TAGS)})",
                row=line,
                field="provenance",
            )
        if not row["source"].strip():
            raise DataPackError(name, "needs a non-empty source", row=line, field="source")
        self.tags[tag] += n_values


def _short(value: Any) -> str:
    text = repr(value)
    return text if len(text) <= 40 else text[:37] + "..."
