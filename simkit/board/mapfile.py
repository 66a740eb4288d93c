"""Read and validate a map file (CSV; format in simkit/data/auztralia/maps/README.md).

Every mistake raises DataPackError naming the file, the row (the physical line number,
header = line 1, comment lines counted) and the field, so `simkit board check FILE`
exits with code 2 and one line.
"""

from __future__ import annotations

import csv
from collections import Counter
from pathlib import Path

import numpy as np

from simkit.board.model import AXIAL_DIRS, FARMS, TERRAINS, Board, neighbors_from_coords, opposite
from simkit.datapack import DEFAULT_PACK, PROVENANCE_TAGS
from simkit.errors import DataPackError, UserError
from simkit.kernels.low.board import COASTAL, HILLS, MAX_LEVEL, NUM_DIRS, OUTBACK

MAP_COLUMNS = (
    "hex",
    "q",
    "r",
    "terrain",
    "port",
    "survey",
    "level",
    "farms",
    "provenance",
    "source",
)
NEIGHBOR_COLUMNS = tuple(f"n{k}" for k in range(1, NUM_DIRS + 1))
RULES_SURVEY_HEXES = 13  # base rules, Setup 5: "there are thirteen in all" (Eastern map)
_NONE = ("", "-", "-1", "none")


def read_rows(path: Path) -> tuple[list[str], list[tuple[int, list[str]]]]:
    """Header and data rows of a CSV file; lines starting with '#' and blank lines are
    skipped but counted, so row numbers are the line numbers an editor shows."""
    name = str(path)
    if not path.exists():
        raise DataPackError(name, "missing file")
    if not path.is_file():
        raise DataPackError(name, "not a regular file")
    try:
        data = path.read_bytes()
    except OSError as exc:
        raise DataPackError(name, f"cannot read: {exc.strerror}") from None
    try:
        text = data.decode(
            "utf-8-sig"
        )  # a byte-order mark is not a character: rows keep their numbers
    except UnicodeDecodeError as exc:
        line = data[: exc.start].count(b"\n") + 1
        raise DataPackError(
            name,
            f"not UTF-8 text (byte 0x{data[exc.start]:02x} on line {line}); save the file as UTF-8",
        ) from None
    from simkit.core.packfiles import MAX_FIELD, refuse_control_chars

    refuse_control_chars(name, text)
    header: list[str] | None = None
    rows: list[tuple[int, list[str]]] = []

    if csv.field_size_limit() < MAX_FIELD:  # long source texts are fine, as in pack files
        csv.field_size_limit(MAX_FIELD)
    for line_no, line in enumerate(text.splitlines(), start=1):
        if not line.strip() or line.lstrip().startswith("#"):
            continue
        try:
            cells = [c.strip() for c in next(csv.reader([line]))]
        except csv.Error as exc:  # e.g. a field over the csv module's size limit
            raise DataPackError(name, f"not a CSV row ({exc})", row=line_no) from None
        if header is None:
            header = [c.lower() for c in cells]
            continue
        if len(cells) != len(header):
            raise DataPackError(
                name, f"expected {len(header)} fields, got {len(cells)}", row=line_no
            )
        rows.append((line_no, cells))
    if header is None:
        raise DataPackError(name, "empty file (no header)")
    return header, rows


MAX_MAP_INT = 1_000_000  # any whole number in a map file: hex numbers, coordinates, levels


def _int(
    name: str, line: int, col: str, text: str, lo: int | None = None, hi: int | None = None
) -> int:
    try:
        val = int(text)
    except ValueError:
        shown = text if len(text) <= 40 else text[:40] + "..."
        raise DataPackError(
            name, f"expected a whole number, got {shown!r}", row=line, field=col
        ) from None
    if abs(val) > MAX_MAP_INT:  # beyond any map, and beyond the int64 arrays it fills
        raise DataPackError(
            name,
            f"{str(val)[:40]}{'...' if len(str(val)) > 40 else ''} is out of range "
            f"(at most {MAX_MAP_INT:,} either way)",
            row=line,
            field=col,
        )
    if (lo is not None and val < lo) or (hi is not None and val > hi):
        bound = f"{lo}..{hi}" if hi is not None else f">= {lo}"
        raise DataPackError(name, f"expected {bound}, got {val}", row=line, field=col)
    return val


def _flag(name: str, line: int, col: str, text: str) -> bool:
    low = text.lower()
    if low in ("", "0", "no", "n", "false"):
        return False
    if low in ("1", "yes", "y", "true"):
        return True
    raise DataPackError(name, f"expected 0 or 1, got {text!r}", row=line, field=col)


def parse_map(path: Path, name: str | None = None) -> Board:
    """Validate one map file and build its Board (static tables computed once here)."""
    fname = str(path)
    header, rows = read_rows(path)
    for col in MAP_COLUMNS:
        if col not in header:
            # the header is not echoed: a file passed by mistake (a system file) stays private
            raise DataPackError(
                fname, f"missing column '{col}' (a map needs the columns {','.join(MAP_COLUMNS)})"
            )
    explicit = [c for c in NEIGHBOR_COLUMNS if c in header]
    if explicit and len(explicit) != NUM_DIRS:
        missing = [c for c in NEIGHBOR_COLUMNS if c not in header]
        raise DataPackError(
            fname, f"neighbour columns must be all of n1..n6 or none (missing: {','.join(missing)})"
        )
    unknown = [c for c in header if c not in MAP_COLUMNS + NEIGHBOR_COLUMNS]
    if unknown:
        raise DataPackError(
            fname,
            f"unknown column #{header.index(unknown[0]) + 1} "
            f"(expected: {','.join(MAP_COLUMNS + NEIGHBOR_COLUMNS)})",
        )
    if not rows:
        raise DataPackError(fname, "the map has no hexes")
    col = {c: header.index(c) for c in header}

    recs = []
    first_row: dict[int, int] = {}
    coord_row: dict[tuple[int, int], int] = {}
    tags: Counter[str] = Counter()
    for line, cells in rows:
        get = lambda c, cells=cells: cells[col[c]]  # noqa: E731
        number = _int(fname, line, "hex", get("hex"), 1)
        if number in first_row:
            raise DataPackError(
                fname,
                f"duplicate hex number {number} (first on row {first_row[number]})",
                row=line,
                field="hex",
            )
        first_row[number] = line
        q = _int(fname, line, "q", get("q"))
        r = _int(fname, line, "r", get("r"))
        if (q, r) in coord_row:
            raise DataPackError(
                fname,
                f"two hexes at q={q}, r={r} (first on row {coord_row[(q, r)]})",
                row=line,
                field="q",
            )
        coord_row[(q, r)] = line
        tname = get("terrain").lower()
        if tname not in TERRAINS:
            raise DataPackError(
                fname,
                f"unknown terrain {get('terrain')!r} (expected one of: {', '.join(TERRAINS)})",
                row=line,
                field="terrain",
            )
        terrain = TERRAINS.index(tname)
        port = _flag(fname, line, "port", get("port"))
        if port and terrain != COASTAL:
            raise DataPackError(
                fname,
                "the Port symbol is only on Coastal hexes (base rules, Setup 14)",
                row=line,
                field="port",
            )
        survey = _flag(fname, line, "survey", get("survey"))
        level = -1
        if get("level").lower() not in _NONE + ("0",):
            level = _int(fname, line, "level", get("level"), 1, MAX_LEVEL)
            if terrain in (COASTAL, HILLS):
                raise DataPackError(
                    fname,
                    f"an Old One level mark on a {tname} hex (Old Ones are never placed "
                    "in Hill or Coastal hexes, base rules, Setup 6)",
                    row=line,
                    field="level",
                )
        farms = 0
        ftext = get("farms").lower()
        if ftext not in _NONE:
            for token in ftext.split("+"):
                token = token.strip()
                if token not in FARMS:
                    raise DataPackError(
                        fname,
                        f"unknown farm {token!r} (expected: {', '.join(FARMS)}, "
                        "joined with '+', or none)",
                        row=line,
                        field="farms",
                    )
                farms |= 1 << FARMS.index(token)
        if farms & 1 << FARMS.index("sheep") and terrain != OUTBACK:
            raise DataPackError(
                fname,
                "Sheep farms go only on Outback hexes (base rules, Farm)",
                row=line,
                field="farms",
            )
        tag = get("provenance")
        if tag not in PROVENANCE_TAGS:
            raise DataPackError(
                fname,
                f"unknown provenance tag {tag!r} (expected one of: {', '.join(PROVENANCE_TAGS)})",
                row=line,
                field="provenance",
            )
        tags[tag] += 7  # q, r, terrain, port, survey, level, farms
        nbr = [get(c) for c in explicit]
        recs.append((number, line, q, r, terrain, port, survey, level, farms, nbr))

    recs.sort(key=lambda rec: rec[0])
    hex_number = np.array([rec[0] for rec in recs], dtype=np.int64)
    hex_q = np.array([rec[2] for rec in recs], dtype=np.int64)
    hex_r = np.array([rec[3] for rec in recs], dtype=np.int64)
    neighbors = (
        neighbors_from_coords(hex_q, hex_r)
        if not explicit
        else _explicit_neighbors(fname, recs, hex_number, hex_q, hex_r)
    )
    return Board(
        name=name or path.stem,
        path=fname,
        hex_number=hex_number,
        hex_q=hex_q,
        hex_r=hex_r,
        hex_terrain=np.array([rec[4] for rec in recs], dtype=np.int64),
        hex_port=np.array([rec[5] for rec in recs], dtype=bool),
        hex_survey=np.array([rec[6] for rec in recs], dtype=bool),
        hex_level=np.array([rec[7] for rec in recs], dtype=np.int64),
        hex_farms=np.array([rec[8] for rec in recs], dtype=np.int64),
        neighbors=neighbors,
        provenance=dict(tags),
    )


def _explicit_neighbors(fname, recs, hex_number, hex_q, hex_r) -> np.ndarray:
    """Typed n1..n6 columns: every entry a hex of the map, placed where the coordinates put
    it, and listed back by that hex across the same side (a side may be left out)."""
    index = {int(num): i for i, num in enumerate(hex_number)}
    n = len(recs)
    out = np.full((n, NUM_DIRS), -1, dtype=np.int32)
    for i, rec in enumerate(recs):
        number, line = rec[0], rec[1]
        for k, text in enumerate(rec[9]):
            field = NEIGHBOR_COLUMNS[k]
            if text.lower() in _NONE:
                continue
            other = _int(fname, line, field, text)
            if other not in index:
                raise DataPackError(
                    fname,
                    f"neighbour {other} is out of range: no hex {other} on this map",
                    row=line,
                    field=field,
                )
            j = index[other]
            if j == i:
                raise DataPackError(
                    fname, f"hex {number} lists itself as a neighbour", row=line, field=field
                )
            dq, dr = AXIAL_DIRS[k]
            if (hex_q[j] - hex_q[i], hex_r[j] - hex_r[i]) != (dq, dr):
                raise DataPackError(
                    fname,
                    f"hex {other} (q={hex_q[j]}, r={hex_r[j]}) is not in compass direction "
                    f"{k + 1} of hex {number} (q={hex_q[i]}, r={hex_r[i]})",
                    row=line,
                    field=field,
                )
            out[i, k] = j
    for i, rec in enumerate(recs):
        for k in range(NUM_DIRS):
            j = out[i, k]
            if j >= 0 and out[j, opposite(k)] != i:
                back = out[j, opposite(k)]
                said = "nothing" if back < 0 else f"hex {hex_number[back]}"
                raise DataPackError(
                    fname,
                    f"asymmetric adjacency: hex {rec[0]} lists hex {hex_number[j]} as its "
                    f"{NEIGHBOR_COLUMNS[k]}, but hex {hex_number[j]} has {said} as its "
                    f"{NEIGHBOR_COLUMNS[opposite(k)]} (row {recs[j][1]})",
                    row=rec[1],
                    field=NEIGHBOR_COLUMNS[k],
                )
    return out


def maps_dir(data: Path | None = None) -> Path:
    return (Path(data) if data is not None else DEFAULT_PACK) / "maps"


def available_maps(data: Path | None = None) -> list[str]:
    d = maps_dir(data)
    return sorted(p.stem for p in d.glob("*.csv")) if d.is_dir() else []


def load_map(map_name: str | Path = "eastern", data: Path | None = None) -> Board:
    """A map by name (a CSV in the pack's maps/ folder) or by path to a CSV file."""
    text = str(map_name)
    as_path = Path(text)
    if as_path.suffix.lower() == ".csv" or as_path.is_file():
        return parse_map(as_path)
    path = maps_dir(data) / f"{text}.csv"
    if not path.is_file():
        known = ", ".join(available_maps(data)) or "none"
        raise UserError(
            f"unknown map '{text}' (maps in {maps_dir(data)}: {known}; or give a .csv path)"
        )
    return parse_map(path, name=text)


def survey_count_warning(board: Board) -> str | None:
    if int(board.hex_survey.sum()) != RULES_SURVEY_HEXES:
        return (
            f"{int(board.hex_survey.sum())} survey hexes; the base rules' Eastern map has "
            f"{RULES_SURVEY_HEXES} (Setup 5)"
        )
    return None
