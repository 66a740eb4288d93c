"""A fast three-table toy mode for the recovery tests (no numba: nothing to compile).

Registered on import; subprocesses and their loky workers find it through
SIMKIT_MODE_PROVIDERS=fake_modes (with tests/ on PYTHONPATH). Rows depend only on
(root seed, chunk, parameters), like every real mode.
"""

from __future__ import annotations

import os
import time

import numpy as np

from simkit.modes import Mode, Param, register

SLEEP = float(os.environ.get("SIMKIT_FAKE_SLEEP", "0.01"))  # seconds per chunk: room for a kill


def _chunk(params, data, root_seed, chunk_id, n_games, outputs):
    rng = np.random.default_rng(np.random.SeedSequence(root_seed, spawn_key=(chunk_id,)))
    time.sleep(SLEEP)
    win = (rng.random(n_games) < params["p"]).astype(np.int8)
    out = {
        "summary": {
            "game_index": np.arange(n_games, dtype=np.int32),
            "win": win,
            "score": rng.integers(0, 100, n_games).astype(np.int16),
        }
    }
    per = 40  # event rows per game: the event tables take a while to write
    games = np.repeat(np.arange(n_games, dtype=np.int32), per)
    if "moves" in outputs:
        out["moves"] = {
            "game_index": games,
            "step": rng.integers(0, 9, games.size).astype(np.int16),
        }
    if "combats" in outputs:
        out["combats"] = {"game_index": games, "roll": rng.random(games.size)}
    return out


MODE = register(
    Mode(
        name="test_recovery",
        params={"p": Param(float, 0.5, minimum=0, maximum=1)},
        run_chunk=_chunk,
        key_metric="win",
        outputs=frozenset({"summary", "moves", "combats"}),
        extra={"data": None, "default_chunk_size": 100},
    )
)
