"""Turn the kernel's int64 summary rows and event logs into result tables.

summary   one row per game (simkit.kernels.low.game_layout.SUMMARY_COLUMNS + game_index)
seats     one row per (game, seat): strategy, VP by source, win, ...
combats   one row per combat (attack or Port defence)            needs the event log
moves     one row per Old One step                                needs the event log
farms     one row per farm placed, with whether (and when) it was blighted   event log
ports     one row per Port placed at setup, with whether (and when) it fell  event log
"""

from __future__ import annotations

from collections.abc import Sequence

import numpy as np

from simkit.game.events import fields
from simkit.kernels.low import combat_layout as C
from simkit.kernels.low import game_layout as L

TABLES = ("summary", "seats", "combats", "moves", "farms", "ports")
EVENT_TABLES = ("combats", "moves", "farms", "ports")
_PLAYER_FIELDS = [name[3:] for name in L.SUMMARY_COLUMNS if name.startswith("p0_")]


FLAGS = ("old_ones_win", "humans_win", "end_reason", "win")  # 0/1 outcomes and small codes: int8


def _int(values: np.ndarray, name: str = "") -> np.ndarray:
    """A fixed integer type per column (never chosen from the values, so every chunk of a
    lake has the same schema): int8 for flags and codes, int32 for everything else."""
    return values.astype(np.int8 if name in FLAGS else np.int32)


def summary_table(rows: np.ndarray, first_game: int = 0) -> dict[str, np.ndarray]:
    out = {"game_index": np.arange(first_game, first_game + rows.shape[0], dtype=np.int32)}
    for j, name in enumerate(L.SUMMARY_COLUMNS):
        out[name] = _int(rows[:, j], name)
    return out


def seats_table(
    rows: np.ndarray, strategy_names: Sequence[str], first_game: int = 0
) -> dict[str, np.ndarray]:
    """One row per seat in play (games in order, seats ascending); ``strategy_names`` by
    strategy id (strategies.human.policy). Vectorised: a chunk's table costs no Python
    loop over its games."""
    n = rows[:, L.S_NUM_PLAYERS].astype(np.int64)
    game = np.repeat(np.arange(rows.shape[0]), n)
    seat = np.arange(game.size) - np.repeat(np.cumsum(n) - n, n)
    base = L.S_PLAYER0 + seat * L.S_PLAYER_STRIDE
    field = rows[game[:, None], base[:, None] + np.arange(len(_PLAYER_FIELDS))]
    j = {f: k for k, f in enumerate(_PLAYER_FIELDS)}
    out: dict[str, np.ndarray] = {
        "game_index": (first_game + game).astype(np.int32),
        "seat": _int(seat, "seat"),
        "listed": _int(field[:, j["listed"]], "listed"),
        "strategy": np.asarray(strategy_names, dtype=object)[field[:, j["strategy"]]],
        "win": _int((rows[game, L.S_WINNERS_MASK] >> seat) & 1, "win"),
    }
    for f in _PLAYER_FIELDS:
        if f not in ("strategy", "listed"):
            out[f] = _int(field[:, j[f]], f)
    return out


def event_tables(
    logs: Sequence[np.ndarray],
    hex_number: np.ndarray,
    first_game: int = 0,
    which: Sequence[str] = EVENT_TABLES,
) -> dict[str, dict[str, np.ndarray]]:
    """Combat and Old One movement rows out of the event logs (hexes as printed numbers)."""
    tables: dict[str, dict[str, np.ndarray]] = {}
    games = [np.full(len(lg), first_game + g, dtype=np.int32) for g, lg in enumerate(logs)]
    allrows = np.concatenate(logs) if logs else np.zeros((0, L.LOG_W), dtype=np.int64)
    allgames = np.concatenate(games) if games else np.zeros(0, dtype=np.int32)

    def pick(kind):
        sel = allrows[:, 0] == kind
        return allrows[sel], allgames[sel]

    if "combats" in which:
        r, gi = pick(L.EV_COMBAT)
        ev = fields(r, L.EV_COMBAT)
        tables["combats"] = {
            "game_index": gi,
            "time": _int(ev["time"]),
            "seat": _int(ev["actor"]),
            "hex": _int(hex_number[ev["hex"]]),
            "outcome": ev["outcome"].astype(np.int8),
            "destroyed": ((ev["outcome"] == C.WIN) | (ev["outcome"] == C.WIN_AND_DEFEAT)).astype(
                np.int8
            ),
            "cards": _int(ev["cards"]),
            "units_lost": _int(ev["units_lost"]),
            "port_defence": ev["port_defence"].astype(np.int8),
        }
    if "moves" in which:
        r, gi = pick(L.EV_MOVE)
        ev = fields(r, L.EV_MOVE)
        tables["moves"] = {
            "game_index": gi,
            "time": _int(ev["time"]),
            "tile": _int(ev["tile"]),
            "from_hex": _int(hex_number[ev["from_hex"]]),
            "to_hex": _int(hex_number[ev["to_hex"]]),
            "card": _int(ev["card"]),
            "old_one": _int(ev["old_one"]),
        }
    tables.update(piece_tables(pick, hex_number, which))
    return tables


def _fate(placed_key: np.ndarray, ended_key: np.ndarray) -> np.ndarray:
    """Index of the first ended row with each placed row's key, or -1."""
    if not len(ended_key):
        return np.full(len(placed_key), -1, dtype=np.int64)
    order = np.argsort(ended_key, kind="stable")
    pos = np.minimum(np.searchsorted(ended_key[order], placed_key), len(order) - 1)
    return np.where(ended_key[order][pos] == placed_key, order[pos], -1)


def piece_tables(
    pick, hex_number: np.ndarray, which: Sequence[str]
) -> dict[str, dict[str, np.ndarray]]:
    """Farms (EV_FARM, blighted by EV_BLIGHT) and Ports (EV_SETUP, lost by EV_PORT_LOST).

    A hex holds one farm and one Port at most in a game, so (game, hex) names the piece."""
    n_hex = len(hex_number)
    out: dict[str, dict[str, np.ndarray]] = {}
    for table, placed_kind, ended_kind, flag in (
        ("farms", L.EV_FARM, L.EV_BLIGHT, "blighted"),
        ("ports", L.EV_SETUP, L.EV_PORT_LOST, "lost"),
    ):
        if table not in which:
            continue
        r, gi = pick(placed_kind)
        keep = fields(r, placed_kind)["hex"] >= 0  # a seat without a Port logs hex -1
        r, gi = r[keep], gi[keep]
        e, ge = pick(ended_kind)
        placed, ended = fields(r, placed_kind), fields(e, ended_kind)
        fate = _fate(
            gi.astype(np.int64) * n_hex + placed["hex"], ge.astype(np.int64) * n_hex + ended["hex"]
        )
        gone = fate >= 0
        cols = {
            "game_index": gi,
            "seat": _int(placed["actor"]),
            "hex": _int(hex_number[placed["hex"]]),
        }
        if table == "farms":
            cols["time"] = _int(placed["time"])
            cols["kind"] = placed["farm_kind"].astype(np.int8)
        cols[flag] = gone.astype(np.int8)
        cols[f"{flag}_time"] = _int(
            np.where(gone, ended["time"][np.maximum(fate, 0)] if len(e) else -1, -1)
        )
        out[table] = cols
    return out
