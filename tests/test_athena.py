"""Athena turret odds: exact vs brute force, Monte Carlo vs exact, bad input, shared machinery."""

from __future__ import annotations

import dataclasses
import math
import re
from fractions import Fraction
from pathlib import Path

import numpy as np
import pytest

import simkit.athena.odds as athena_odds
import simkit.combat as combat
import simkit.combat.exact
import simkit.combat.montecarlo
import simkit.combat.states
import simkit.core.classes
import simkit.core.seeds
import simkit.core.stats
import simkit.kernels.athena as K
import simkit.kernels.combat as combat_kernel
import simkit.kernels.combat_exact as combat_exact
import simkit.kernels.low.deck
import simkit.kernels.low.hashtable
from simkit.athena import TurretFight, exact_odds, load_athena_pack, monte_carlo_odds
from simkit.athena.reference import TALLY, stepper
from simkit.cli import main
from simkit.core.enumerate import enumerate_outcomes

ROOT = Path(__file__).resolve().parent.parent
TOL = 1e-12


@pytest.fixture(scope="module")
def athena():
    return load_athena_pack()


def tiny_deck(data, cards: list[str]):
    """The pack with a hand-written Outcome deck: one string per card, one token per rating:
    'j' jam, 'm' miss, 'hN' hit with damage N (e.g. 'j m h1 h2')."""
    n = len(cards)
    result = np.zeros((n, data.num_ratings), dtype=np.int64)
    damage = np.zeros_like(result)
    for c, text in enumerate(cards):
        for r, tok in enumerate(text.split()):
            if tok == "j":
                result[c, r] = K.JAM
            elif tok == "m":
                result[c, r] = K.MISS
            else:
                result[c, r], damage[c, r] = K.HIT, int(tok[1:])
    return dataclasses.replace(
        data, card_ids=np.arange(1, n + 1, dtype=np.int64), card_result=result, card_damage=damage
    )


DECK_A = ["j m h1 h2", "h2 h2 h3 h3", "m j j h1", "h1 h3 m j"]
DECK_B = ["h2 h1 h2 h3", "j j m h2", "m h2 h1 j", "h1 m h3 m", "m h1 j h1"]

BRUTE_FORCE = {  # name -> (deck, fight)
    "two_weapons_ammo_and_battery": (
        DECK_A,
        TurretFight(weapons=(("cannon", 1), ("energy_cannon", 2)), defense=2, ammo=2, charged=1),
    ),
    "given_order_three_weapons": (
        DECK_B,
        TurretFight(
            weapons=(("weapon", 1), ("cannon", 3), ("energy_weapon", 4)),
            defense=2,
            ammo=2,
            charged=1,
            order="given",
        ),
    ),
    "cyborg_and_grenade_first": (
        DECK_A,
        TurretFight(
            weapons=(("cannon", 3), ("energy_cannon", 4)),
            defense=2,
            ammo=1,
            charged=1,
            cyborg=True,
            grenade=True,
        ),
    ),
    "grenade_last_fixed_rounds": (
        DECK_B,
        TurretFight(
            weapons=(("cannon", 2),), defense=2, ammo=2, grenade=True, grenade_use="last", rounds=3
        ),
    ),
    "grenade_useless_vs_defense_3": (
        DECK_A,
        TurretFight(weapons=(("cannon", 4),), defense=3, ammo=3, grenade=True),
    ),
    "location_weapon_and_cyborg": (
        DECK_A,
        TurretFight(
            weapons=(("location_weapon", 1), ("cannon", 2)), defense=2, ammo=3, cyborg=True
        ),
    ),
    "damage_accumulates_variant": (
        DECK_B,
        TurretFight(
            weapons=(("cannon", 1), ("weapon", 2)),
            defense=3,
            ammo=3,
            variants=(("turret_damage_accumulates", True),),
        ),
    ),
    "no_card_per_turret_attack": (
        DECK_B,
        TurretFight(
            weapons=(("cannon", 2), ("energy_cannon", 3)),
            defense=3,
            ammo=2,
            charged=2,
            variants=(("ambush_draws_card", False),),
        ),
    ),
    "whole_deck_seen_reshuffles_first": (
        DECK_A,
        TurretFight(weapons=(("cannon", 2),), defense=2, ammo=2, seen=(1, 2, 3, 4)),
    ),
    "seen_cards_then_reshuffle": (
        DECK_B,
        TurretFight(weapons=(("cannon", 1), ("weapon", 4)), defense=2, ammo=3, seen=(1, 4)),
    ),
}


def brute_force(data, fight):
    init, step = stepper(fight, data)
    full = list(range(data.deck_size))
    start = [i for i in full if data.card_ids[i] not in fight.seen]
    dist = enumerate_outcomes(full, start, init, step, max_reshuffles=50)
    assert "stopped" not in dist
    assert sum(dist.values()) == 1
    return dist


def expectation(dist, name):
    i = TALLY.index(name)
    return sum((p * tally[i] for tally, p in dist.items()), Fraction(0))


@pytest.mark.parametrize("name", sorted(BRUTE_FORCE))
def test_exact_solver_matches_brute_force_enumeration_with_exact_fractions(athena, name):
    cards, fight = BRUTE_FORCE[name]
    data = tiny_deck(athena, cards)
    dist = brute_force(data, fight)
    odds = exact_odds(fight, data)
    assert abs(odds.p_destroy - float(expectation(dist, "destroyed"))) < TOL
    for key, slot in athena_odds.EXPECTED.items():
        assert abs(odds.means[key] - float(expectation(dist, TALLY[slot]))) < TOL, key
    attacks = TALLY.index("ambushes")
    for k, p in enumerate(odds.p_attacks):
        want = sum((q for tally, q in dist.items() if tally[attacks] == k), Fraction(0))
        assert abs(p - float(want)) < TOL, f"P({k} turret attacks)"


def test_exact_solver_matches_brute_force_when_the_fight_needs_no_card(athena):
    data = tiny_deck(athena, DECK_A)
    fight = TurretFight(weapons=(("cannon", 1),), defense=2, ammo=0)  # nothing to fire
    odds = exact_odds(fight, data)
    assert (
        odds.p_destroy == 0.0 and odds.means["turret_attacks"] == 0.0 and odds.p_attacks[0] == 1.0
    )


# -- Monte Carlo against exact ----------------------------------------------------
GAMES = 40_000
MC_GRID = [
    TurretFight(
        weapons=(("cannon", 3), ("energy_cannon", 4)), defense=2, ammo=2, charged=1, detection=1
    ),
    TurretFight(
        weapons=(("weapon", 1), ("cannon", 2), ("energy_weapon", 3)),
        defense=3,
        ammo=3,
        charged=2,
        cyborg=True,
    ),
    TurretFight(
        weapons=(("cannon", 2),), defense=2, ammo=3, grenade=True, grenade_use="last", rounds=2
    ),
    TurretFight(
        weapons=(("location_weapon", 2), ("cannon", 4)),
        defense=3,
        ammo=4,
        variants=(("ambush_draws_card", False),),
    ),
]


@pytest.mark.parametrize("fight", MC_GRID, ids=lambda f: f.describe())
def test_monte_carlo_is_within_four_standard_errors_of_exact(athena, fight):
    exact = exact_odds(fight, athena)
    mc = monte_carlo_odds(fight, athena, games=GAMES, seed=4433)
    p = exact.p_destroy
    assert abs(mc.p_destroy - p) <= 4 * math.sqrt(max(p * (1 - p), 1e-12) / GAMES) + 1e-9
    for key in ("turret_attacks", "weapons_damaged", "ammo_left", "charged_left", "cards"):
        lo, hi = mc.ci95[key]
        se = (hi - lo) / (2 * 1.959963984540054)
        assert abs(mc.means[key] - exact.means[key]) <= 4 * se + 1e-9, key
    for k, q in enumerate(exact.p_attacks):
        assert abs(mc.p_attacks[k] - q) <= 4 * math.sqrt(max(q * (1 - q), 1e-12) / GAMES) + 1e-9


def test_same_seed_gives_identical_results_whatever_the_jobs(athena):
    games = 2 * athena_odds.MC_CHUNK + 17  # three chunks
    a = monte_carlo_odds(MC_GRID[1], athena, games=games, seed=7, jobs=1)
    b = monte_carlo_odds(MC_GRID[1], athena, games=games, seed=7, jobs=2)
    assert a.to_json() == b.to_json()


def test_different_seeds_give_different_estimates(athena):
    a = monte_carlo_odds(MC_GRID[1], athena, games=20_000, seed=7)
    b = monte_carlo_odds(MC_GRID[1], athena, games=20_000, seed=8)
    assert a.means != b.means


# -- bad input: one line, exit code 2, no traceback -------------------------------------
def run_cli(capsys, *args):
    code = main(list(args))
    out = capsys.readouterr()
    return code, out.out, out.err


def assert_one_line_error(err: str, *tokens: str) -> None:
    assert "Traceback" not in err
    lines = err.strip().splitlines()
    assert len(lines) == 1, err
    for tok in tokens:
        assert tok in lines[0], (tok, lines[0])


def test_unknown_weapon_exits_2_naming_the_token(capsys):
    code, out, err = run_cli(
        capsys, "athena", "turret", "--weapons", "cannon:3,laser:2", "--defense", "2"
    )
    assert code == 2 and out == ""
    assert_one_line_error(err, "laser")


def test_negative_ammo_exits_2_naming_the_flag(capsys):
    code, _, err = run_cli(
        capsys, "athena", "turret", "--weapons", "cannon:3", "--defense", "2", "--ammo", "-1"
    )
    assert code == 2
    assert_one_line_error(err, "--ammo", "-1")


def test_non_numeric_flag_value_exits_2_in_one_line(capsys):
    code, _, err = run_cli(
        capsys, "athena", "turret", "--weapons", "cannon:3", "--defense", "2", "--ammo", "two"
    )
    assert code == 2
    assert_one_line_error(err, "--ammo")


def test_missing_weapons_flag_exits_2_in_one_line(capsys):
    code, _, err = run_cli(capsys, "athena", "turret", "--defense", "2")
    assert code == 2
    assert_one_line_error(err, "--weapons")


def test_weapon_rating_outside_the_outcome_cards_rows_exits_2(capsys):
    code, _, err = run_cli(capsys, "athena", "turret", "--weapons", "cannon:7", "--defense", "2")
    assert code == 2
    assert_one_line_error(err, "cannon:7", "1..4")


def test_unknown_variant_exits_2_naming_it(capsys):
    code, _, err = run_cli(
        capsys,
        "athena",
        "turret",
        "--weapons",
        "cannon:3",
        "--defense",
        "2",
        "--variant",
        "turrets_sleep=true",
    )
    assert code == 2
    assert_one_line_error(err, "turrets_sleep")


def test_detection_level_off_the_track_exits_2(capsys):
    code, _, err = run_cli(
        capsys, "athena", "turret", "--weapons", "cannon:3", "--defense", "2", "--detection", "9"
    )
    assert code == 2
    assert_one_line_error(err, "--detection", "9")


def test_malformed_pack_exits_2_naming_file_row_and_field(capsys, tmp_path):
    import shutil

    pack = tmp_path / "pack"
    shutil.copytree(ROOT / "simkit" / "data" / "athena", pack)
    path = pack / "outcome_cards.csv"
    lines = path.read_text().splitlines()
    lines[5] = (
        lines[5]
        .replace(",miss,", ",fizzle,")
        .replace(",jam,", ",fizzle,")
        .replace(",hit,", ",fizzle,")
    )
    path.write_text("\n".join(lines) + "\n")
    code, _, err = run_cli(
        capsys, "athena", "turret", "--weapons", "cannon:3", "--defense", "2", "--data", str(pack)
    )
    assert code == 2
    assert_one_line_error(err, "outcome_cards.csv", "row 6", "field 'result'", "fizzle")


# -- the shared machinery stays game-neutral and is used by both games -----------------------
GAME_WORDS = (
    "infantry",
    "artillery",
    "airship",
    "armoured",
    "armored",
    "shoggoth",
    "zombie",
    "cthulhu",
    "mi_go",
    "mi-go",
    "loyalist",
    "temple",
    "old one",
    "old_one",
    "sanity",
    "purple",
    "auztralia",
    "revenge",
    "turret",
    "aurora",
    "athena",
    "convoy",
    "ammo",
    "battery",
    "batteries",
    "cyborg",
    "grenade",
    "detection",
    "weapon",
    "jam",
)


def shared_sources() -> list[Path]:
    return sorted((ROOT / "simkit" / "core").glob("*.py")) + [
        ROOT / "simkit" / "kernels" / "low" / "deck.py",
        ROOT / "simkit" / "kernels" / "low" / "hashtable.py",
    ]


@pytest.mark.parametrize("path", shared_sources(), ids=lambda p: p.name)
def test_shared_machinery_names_no_game(path):
    text = path.read_text(encoding="utf-8").lower()
    found = [w for w in GAME_WORDS if re.search(rf"\b{re.escape(w)}\b", text)]
    assert not found, f"{path.name} mentions {found}"


def test_both_games_use_the_same_shared_functions():
    shared = {
        "group_cards": simkit.core.classes.group_cards,
        "chunk_generators": simkit.core.seeds.chunk_generators,
        "chunk_sizes": simkit.core.seeds.chunk_sizes,
        "wilson_interval": simkit.core.stats.wilson_interval,
        "new_table": simkit.kernels.low.hashtable.new_table,
    }
    # the combat package's modules that call each one (simkit.combat is split by task)
    combat_users = {
        "group_cards": combat.states,
        "chunk_generators": combat.montecarlo,
        "chunk_sizes": combat.montecarlo,
        "wilson_interval": combat.montecarlo,
        "new_table": combat.exact,
    }
    for name, fn in shared.items():
        assert getattr(athena_odds, name) is fn, f"athena: {name}"
        assert getattr(combat_users[name], name) is fn, f"combat: {name}"
    for name in ("draw_card", "refill_full"):
        assert getattr(K, name) is getattr(simkit.kernels.low.deck, name)
        assert getattr(combat_kernel, name) is getattr(simkit.kernels.low.deck, name)
    assert (
        K.composition_key is combat_exact.composition_key is simkit.kernels.low.deck.composition_key
    )
    for name in ("table_get", "table_put"):
        assert (
            getattr(K, name)
            is getattr(combat_exact, name)
            is getattr(simkit.kernels.low.hashtable, name)
        )


def test_exact_and_monte_carlo_share_the_card_resolution_functions():
    import inspect

    for solver in (K.solve_exact, K.play_fight):
        src = inspect.getsource(solver.py_func)
        assert "resolve_card(" in src and "advance(" in src, solver.__name__


def test_athena_kernel_imports_no_dataframe_or_parallel_library():
    src = (ROOT / "simkit" / "kernels" / "athena.py").read_text(encoding="utf-8")
    assert not re.search(r"^\s*(import|from)\s+(pandas|polars|joblib)\b", src, flags=re.M)
