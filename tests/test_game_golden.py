"""Golden logs: a few seeded games kept as readable turn-by-turn text (tests/golden/).

A failing golden log means simulated behaviour changed. That is fine only together with
an ENGINE_VERSION bump (simkit/__init__.py): then regenerate with

    SIMKIT_REGEN_GOLDEN=1 .venv/bin/python -m pytest tests/test_game_golden.py

Regeneration refuses to overwrite a log written under the current ENGINE_VERSION (delete
the file by hand if you really mean it, e.g. while the engine is first being built).
"""

from __future__ import annotations

import os
import re
from pathlib import Path

import pytest

from simkit import ENGINE_VERSION
from simkit.game.engine import Engine
from simkit.game.replay import replay_game

GOLDEN = Path(__file__).resolve().parent / "golden"
CASES = {
    "base_2p_economist_hunter": dict(
        seed=2026, game=0, mode="base", players=2, strategies="economist,hunter"
    ),
    "base_4p_mixed": dict(
        seed=2026, game=1, mode="base", players=4, strategies="balanced,defender,hunter,economist"
    ),
    "base_3p_random": dict(seed=7, game=3, mode="base", players=3, strategies="random"),
    "solo_balanced_normal": dict(
        seed=11, game=2, mode="solo", strategies="balanced", difficulty="normal"
    ),
    "revenge_2h_mythos_normal": dict(
        seed=2026,
        game=7,  # chosen to show every needle of the Revenge test below
        mode="revenge",
        players=2,
        strategies="balanced,hunter",
        difficulty="normal",
        oop="mythos",
    ),
    "mythos_solo_balanced_normal": dict(
        seed=11, game=2, mode="mythos-solo", strategies="balanced", difficulty="normal"
    ),
}


@pytest.fixture(scope="module")
def eng():
    return Engine()


def version_of(text: str) -> int:
    m = re.search(r", engine (\d+),", text.splitlines()[0])
    assert m, "golden log without an engine version in its header"
    return int(m.group(1))


@pytest.mark.parametrize("name", sorted(CASES))
def test_golden_log(eng, name):
    path = GOLDEN / f"{name}.txt"
    text = replay_game(eng=eng, **CASES[name])
    if os.environ.get("SIMKIT_REGEN_GOLDEN"):
        if (
            path.exists()
            and version_of(path.read_text()) == ENGINE_VERSION
            and path.read_text() != text
        ):
            pytest.fail(
                f"{path.name} was written under ENGINE_VERSION {ENGINE_VERSION}: bump "
                "ENGINE_VERSION before regenerating golden logs"
            )
        GOLDEN.mkdir(exist_ok=True)
        path.write_text(text)
    assert path.exists(), f"missing {path}; generate with SIMKIT_REGEN_GOLDEN=1"
    expected = path.read_text()
    if version_of(expected) != ENGINE_VERSION:
        pytest.fail(
            f"{path.name} is from ENGINE_VERSION {version_of(expected)}, the engine is "
            f"{ENGINE_VERSION}: regenerate the golden logs (SIMKIT_REGEN_GOLDEN=1)"
        )
    assert text == expected, (
        f"{path.name}: simulated behaviour changed; if intended, bump ENGINE_VERSION "
        "and regenerate the golden logs"
    )


def test_golden_logs_cover_the_rules(eng):
    """Together the golden games show every kind of turn the log can record."""
    text = "".join((GOLDEN / f"{n}.txt").read_text() for n in CASES)
    for needle in (
        "Port at hex",
        ": rail (",
        "track hex",
        "mines",
        ": farm (",
        "farm at hex",
        ": attack (",
        "fights at hex",
        "destroyed",
        ": retrieve (",
        "Old Ones: purple disc",
        "Revelation #",
        " -> hex ",
        "blighted",
        "score: Old Ones",
        "# winner:",
        "recruits",
        "buys",
    ):
        assert needle in text, needle


def test_revenge_golden_logs_show_the_old_one_player_and_mythos_cards(eng):
    """The Revenge game shows every OOP action and Mythos cards on its turn and in combat;
    the Mythos Solo game shows flipped cards, ones that wait for a combat, and Port fights."""
    rev = (GOLDEN / "revenge_2h_mythos_normal.txt").read_text()
    for needle in (
        "# Old One player: mythos",
        "Old One player: purple disc",
        "place: a level-",
        "reveal: tile",
        "move: 4 Old One cards",
        "summon: draws 3",
        ": played, ",
        "played in combat",
        "outpost",
        "takes the Spawn tile",
        "Old Ones reach P0 balanced's Outpost",
        "Port token flips",
        "score: Old One player",
    ):
        assert needle in rev, needle
    solo = (GOLDEN / "mythos_solo_balanced_normal.txt").read_text()
    for needle in (
        "mode mythos-solo",
        "Revelation #",
        ": flipped, on P0",
        "waits for its combat",
        "played in combat",
        "defends its Port",
        "score: Old Ones",
    ):
        assert needle in solo, needle
