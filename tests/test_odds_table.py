"""The odds table's per-row policy columns, its precision target, and odds at the table:
per-type loss distributions and --seen by card face."""

from __future__ import annotations

import numpy as np
import pytest

from simkit.cli import main
from simkit.combat import Combat, exact_odds
from simkit.datapack import load_pack
from simkit.odds import odds_table


@pytest.fixture(scope="module")
def table():
    return odds_table(load_pack(), 1, [0, 2], target_ci=0.01)  # zombie and shoggoth, x1 and x2


def test_every_row_carries_both_policies_with_games_and_method(table):
    assert len(table) == 31 * 2 * 2
    for col in (
        "p_destroy",
        "p_destroy_table_policy",
        "gold_lost_table_policy",
        "p_withdraw_table_policy",
    ):
        assert table[col].notna().all(), col  # no policy column is empty
    assert set(table["method"]) <= {"exact", "mc"} and set(table["table_method"]) <= {"exact", "mc"}
    mc = table[table["method"] == "mc"]
    assert (mc["games"] > 0).all() and (table.loc[table["method"] == "exact", "games"] == 0).all()
    assert (
        (mc["p_destroy_hi"] - mc["p_destroy_lo"]) / 2 <= 0.01 + 1e-12
    ).all()  # the target holds per row
    tmc = table[table["table_method"] == "mc"]
    assert (
        (tmc["p_destroy_table_policy_hi"] - tmc["p_destroy_table_policy_lo"]) / 2 <= 0.01 + 1e-12
    ).all()
    assert (mc["games"] < 0.01**-2 * 1.5).all()  # no row plays far more than its precision needs


def test_card_counting_columns_are_exact_only_and_say_so(table):
    counted = table["p_destroy_value_policy"].notna()
    assert counted.any() and (~counted).any()
    assert (table.loc[counted, "method"] == "exact").all()
    assert set(table.loc[counted, "value_policy_method"]) == {"exact"}
    assert table.loc[~counted, "value_policy_method"].str.contains("exact-only").all()


def test_an_exact_row_equals_the_solver_and_the_table_policy_never_beats_never_withdraw(table):
    data = load_pack()
    ex = table[(table["method"] == "exact") & (table["table_method"] == "exact")].iloc[0]
    mix = tuple(
        int(ex[f"n_{u}"])
        for u in ("infantry", "armoured_car", "artillery", "armoured_train", "airship")
    )
    fight = Combat(
        force=mix + (0, 0), old_ones=(0 if ex["old_one"] == "zombie" else 2,) * int(ex["old_ones"])
    )
    assert ex["p_destroy"] == pytest.approx(exact_odds(fight, data).p_destroy, abs=1e-12)
    assert ex["p_destroy_table_policy"] == pytest.approx(
        exact_odds(fight, data, withdraw="table-value").p_destroy, abs=1e-12
    )
    exact = table[(table["method"] == "exact") & (table["table_method"] == "exact")]
    assert (
        exact["p_destroy_table_policy"] <= exact["p_destroy"] + 1e-12
    ).all()  # withdrawing never adds kills


def test_rows_do_not_depend_on_jobs():
    data = load_pack()
    a = odds_table(data, 1, [1], games=2000)
    b = odds_table(data, 1, [1], games=2000, jobs=2)
    assert a.drop(columns=[]).equals(b)


def test_loss_distribution_per_type_agrees_with_the_exact_means():
    from simkit.combat.losses import loss_distribution

    data = load_pack()
    fight = Combat.parse("infantry=2,artillery=1", "mi_go")
    exact = exact_odds(fight, data)
    dist = loss_distribution(
        {
            "force": "infantry=2,artillery=1",
            "vs": "mi_go",
            "allocate": "cheapest",
            "withdraw": "never",
            "personalities": "",
            "old_one_damage": 0,
            "port_strength": 0,
            "port_defence": False,
            "extra_sanity": 0,
            "max_reshuffles": 3,
            "seen": "",
        },
        data,
        games=60_000,
        seed=3,
    )
    for unit, rows in dist.per_type.items():
        assert sum(r["p"] for r in rows) == pytest.approx(1.0)
        mean = sum(r["lost"] * r["p"] for r in rows)
        sd = np.sqrt(sum((r["lost"] - mean) ** 2 * r["p"] for r in rows) / dist.games)
        assert abs(mean - exact.expected_units_lost[unit]) < 4 * sd + 1e-9, unit
    gold_mean = sum(g["gold"] * g["p"] for g in dist.gold)
    assert gold_mean == pytest.approx(exact.expected_gold_lost, abs=0.02)


def test_seen_by_face_names_a_card_with_that_face_and_bad_faces_stop_with_one_line(capsys):
    from simkit.combat.faces import face, parse_seen

    data = load_pack()
    f = face(data, 0, 1)  # card at index 0, against Mi-go
    cards = (
        parse_seen(f"mi_go:{f},mi_go:{f.lower()}", data)
        if sum(face(data, i, 1) == f for i in range(data.card_ids.size)) > 1
        else parse_seen(f"mi_go:{f}", data)
    )
    assert all(face(data, data.card_index(c), 1) == f for c in cards) and len(set(cards)) == len(
        cards
    )
    assert main(["combat", "--force", "infantry=1", "--vs", "mi_go", "--seen", "mi_go:I+Tank"]) == 2
    err = capsys.readouterr().err
    assert "unknown unit 'Tank'" in err and err.count("\n") == 1
    assert main(["data", "deck", "--vs", "mi_go"]) == 0
    assert f in capsys.readouterr().out
