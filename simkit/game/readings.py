"""Readings: where a rule text leaves a choice open, the options the engine implements.

The pack's ``readings.toml`` quotes each text and names the default; the engine's list of
readings and options is :data:`simkit.kernels.low.game_layout.READINGS` (the kernels test
``S.r[R_READ + READ_<NAME>]``). A game plays the defaults unless a spec's ``[readings]``
table, an override ``reading.NAME`` or ``--reading NAME=OPTION`` picks another; the choice
is a data override, so it enters the cell's identity and every row's provenance.

    >>> from simkit.game.readings import load_readings, parse_reading
    >>> load_readings()["servitor_placement"].options
    ('spawn_near_port', 'temple')
    >>> parse_reading("servitor_placement=temple")
    ('servitor_placement', 'temple')
"""

from __future__ import annotations

import tomllib
from collections.abc import Iterable, Mapping
from dataclasses import dataclass
from pathlib import Path

import numpy as np

from simkit.core.packfiles import read_text
from simkit.datapack import DEFAULT_PACK
from simkit.errors import DataPackError, UserError
from simkit.kernels.low import game_layout as L

FILE = "readings.toml"


@dataclass(frozen=True)
class Reading:
    name: str
    text: str  # the rule text, quoted
    source: str  # where it is, and what it leaves open
    options: tuple[str, ...]
    help: str  # what each option does
    default: str


def load_readings(pack_dir: str | Path | None = None) -> dict[str, Reading]:
    """The readings of a pack (its readings.toml, else the shipped one), validated against
    the engine's list: same names, same options, a default among them."""
    root = Path(pack_dir) if pack_dir is not None else DEFAULT_PACK
    if not (root / FILE).is_file():
        root = DEFAULT_PACK
    try:
        doc = tomllib.loads(read_text(root, FILE))
    except tomllib.TOMLDecodeError as exc:
        raise DataPackError(FILE, f"not valid TOML: {exc}") from None
    out: dict[str, Reading] = {}
    for name in doc:
        if name != "readings" and name not in L.READING_OPTIONS:
            raise DataPackError(
                FILE,
                f"unknown reading [{name}] (the engine implements: {', '.join(L.READING_NAMES)})",
                field=name,
            )
    for name, options in L.READINGS:
        entry = doc.get(name)
        if not isinstance(entry, dict):
            raise DataPackError(FILE, f"missing section [{name}]", field=name)
        for key in ("text", "source", "help", "default"):
            if not isinstance(entry.get(key), str) or not entry[key].strip():
                raise DataPackError(FILE, f"'{name}.{key}' must be a non-empty string", field=key)
        if tuple(entry.get("options", ())) != options:
            raise DataPackError(
                FILE,
                f"'{name}.options' must be the engine's options {list(options)}",
                field=f"{name}.options",
            )
        if entry["default"] not in options:
            raise DataPackError(
                FILE,
                f"'{name}.default' is {entry['default']!r} (expected one of: {', '.join(options)})",
                field=f"{name}.default",
            )
        out[name] = Reading(
            name, entry["text"], entry["source"], options, entry["help"], entry["default"]
        )
    return out


def check_reading(name: str, option: object) -> str:
    """Validate one choice (the option name); one line naming what is wrong."""
    if name not in L.READING_OPTIONS:
        raise UserError(f"unknown reading '{name}' (expected one of: {', '.join(L.READING_NAMES)})")
    options = L.READING_OPTIONS[name]
    if not isinstance(option, str) or option not in options:
        raise UserError(
            f"reading '{name}': unknown option {option!r} (expected one of: {', '.join(options)})"
        )
    return option


def parse_reading(text: str) -> tuple[str, str]:
    """``NAME=OPTION`` (as typed after --reading) -> (name, option), validated."""
    name, sep, option = text.partition("=")
    if not sep:
        raise UserError(f"--reading expects NAME=OPTION, got {text!r}")
    return name.strip(), check_reading(name.strip(), option.strip())


def parse_readings(texts: Iterable[str]) -> dict[str, str]:
    """Several ``NAME=OPTION``; naming one reading twice is refused."""
    out: dict[str, str] = {}
    for text in texts:
        name, option = parse_reading(text)
        if name in out:
            raise UserError(f"--reading names '{name}' twice")
        out[name] = option
    return out


def reading_vector(defaults: Mapping[str, Reading], chosen: Mapping[str, str]) -> np.ndarray:
    """The option index of every reading (the engine's order): chosen, else the default."""
    out = np.zeros(len(L.READINGS), dtype=np.int64)
    for i, (name, options) in enumerate(L.READINGS):
        out[i] = options.index(chosen.get(name, defaults[name].default))
    return out
